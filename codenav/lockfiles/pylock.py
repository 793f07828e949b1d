"""pylock.toml and pylock.<name>.toml (PEP 751; lockfiles.md §8.5).

``[[packages]]`` entries with a normalised ``name`` and an optional ``version`` (absent for
source trees); forks are several entries with different ``marker``s. ``vcs`` carries
``commit-id``; ``directory`` and ``archive`` entries are local or URL copies. There is no
dependency graph, so direct dependencies come from pyproject.toml.
"""

from __future__ import annotations

from ._common import REGISTRY, Candidate
from ._pyproject import every, locked_copy, named, tables


def candidates(text: str, name: str, rel: str, lock_dir: str) -> list[Candidate]:
    return named(tables(text, "packages"), name, rel, lock_dir, _copy)


def entries(text: str, ctx) -> list[Candidate]:
    return every(tables(text, "packages"), ctx, _copy)


def _copy(pkg: dict, name: str, tier: int) -> Candidate:
    return locked_copy(pkg, "packages", name, tier, _source(pkg), pkg.get("marker"))


def _source(pkg: dict) -> tuple[str, str | None]:
    if isinstance(pkg.get("vcs"), dict):
        vcs = pkg["vcs"]
        return "git", str(vcs.get("commit-id") or vcs.get("url") or "") or None
    if isinstance(pkg.get("directory"), dict):
        return "directory", str(pkg["directory"].get("path", "")) or None
    if isinstance(pkg.get("archive"), dict):
        archive = pkg["archive"]
        return "url", str(archive.get("url") or archive.get("path") or "") or None
    return REGISTRY, None
