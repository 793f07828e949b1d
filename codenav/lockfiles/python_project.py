"""What a Python project adds to the generic lookup (the PyPI row's hooks; lockfiles.md §1.2, §2, §9.2).

A ``Pipfile``, or a ``[tool.uv]``/``[tool.poetry]``/``[tool.pdm]`` table in pyproject.toml,
puts that tool's lockfile first; the project's venv gives the installed copy when no lockfile
names the package, and decides between marker forks (its installed version, else the markers
evaluated for its interpreter — which is why a memo is also keyed on the running Python).
"""

from __future__ import annotations

import os
import sys

# A tool table in pyproject.toml (or a Pipfile) picks that tool's lockfile first (§1.2).
_TOOL_FILES = (("[tool.uv", "uv.lock"), ("[tool.poetry", "poetry.lock"), ("[tool.pdm", "pdm.lock"))


def preferred(lock_dir: str) -> tuple[str, ...]:
    from ._common import read_text
    try:
        os.lstat(os.path.join(lock_dir, "Pipfile"))
        return ("Pipfile.lock",)
    except OSError:
        pass
    text = read_text(os.path.join(lock_dir, "pyproject.toml"))
    for line in text.splitlines():
        for table, fname in _TOOL_FILES:
            if line.startswith(table):
                return (fname,)
    return ()


def environment(dirs: list[str], root: str):
    from .installed import python_env
    return python_env(dirs, root)


def installed(name: str, dirs: list[str], start: str, env, warnings: list[str]):
    from .installed import python_installed
    return python_installed(name, env, start, warnings)


def pick_fork(top: list, env):
    """Python marker forks (§2): the venv's installed version, else evaluated markers."""
    versions = {c.version for c in top if c.version}
    if len(versions) < 2 or env is None:
        return None
    installed_version = env.installed_version(top[0].name)
    for c in top:
        if installed_version is not None and c.version == installed_version:
            return c
    from ._common import version_order
    version_key = version_order("pypi")
    from ._markers import evaluate_any
    matching = [c for c in top if evaluate_any(c.marker, env.marker_env())]
    if matching:
        return max(matching, key=lambda c: version_key(c.version))
    return None


def memo_tag() -> str:
    # Marker forks fall back to the running interpreter's version when there is no venv.
    return f"py{sys.version_info[0]}.{sys.version_info[1]}"
