"""poetry.lock (TOML; lockfiles.md §8.2).

``[[package]]`` entries hold name and version; forks are several entries of one name with
different ``markers``. ``[package.source].type`` says where a copy comes from: none or
``legacy`` (a custom index) is a registry version, ``git`` carries ``resolved_reference``,
``directory``/``file``/``url`` are local. The lockfile has no direct-dependency marks, so those
come from pyproject.toml.
"""

from __future__ import annotations

from ._common import REGISTRY, Candidate
from ._pyproject import every, locked_copy, named, tables


def candidates(text: str, name: str, rel: str, lock_dir: str) -> list[Candidate]:
    return named(tables(text, "package"), name, rel, lock_dir, _copy)


def entries(text: str, ctx) -> list[Candidate]:
    return every(tables(text, "package"), ctx, _copy)


def _copy(pkg: dict, name: str, tier: int) -> Candidate:
    return locked_copy(pkg, "package", name, tier, _source(pkg), pkg.get("markers"))


def _source(pkg: dict) -> tuple[str, str | None]:
    src = pkg.get("source") if isinstance(pkg.get("source"), dict) else {}
    kind = src.get("type")
    if kind == "git":
        return "git", str(src.get("resolved_reference") or src.get("reference") or src.get("url"))
    if kind in ("directory", "file", "url"):
        return kind, str(src.get("url", "")) or None
    return REGISTRY, None
