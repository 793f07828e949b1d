"""A 20,000-file tree for the listing benchmark, as an npm package and as a git repository.

The npm form is served by the test suite's fake registry (a real HTTP server on 127.0.0.1),
so indexing it needs no network; the git form is a local repository made with ``git init``,
addressed by its full commit id so a warm call never runs ``git ls-remote``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

FILES = 20_000


def tree_files(count: int = FILES) -> dict[str, bytes]:
    """``count`` small files spread over two directory levels, plus a package.json."""
    files = {"package.json": b'{"name": "bench-tree", "version": "1.0.0"}\n'}
    for i in range(count - 1):
        files[f"src/m{i // 1000:02d}/d{i // 100 % 10}/f{i:05d}.js"] = f"export const v{i} = {i};\n".encode()
    return files


def git_repo(path: Path, files: dict[str, bytes]) -> str:
    """A repository at ``path`` holding ``files`` in one commit; its full commit id."""
    path.mkdir(parents=True)
    for name, data in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost"}

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(path), *args], check=True, capture_output=True, text=True,
                              env=env).stdout.strip()

    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "bench tree")
    return git("rev-parse", "HEAD")
