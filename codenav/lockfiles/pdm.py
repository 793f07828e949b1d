"""pdm.lock (TOML; lockfiles.md §8.3).

``[[package]]`` entries; an entry with ``extras`` is a twin of the plain one at the same version
(deduplicated by the ranking, which compares versions). ``path``/``url`` entries are local and
``git`` entries carry ``revision``. Direct dependencies come from pyproject.toml.
"""

from __future__ import annotations

from ._common import REGISTRY, Candidate
from ._pyproject import every, locked_copy, named, tables


def candidates(text: str, name: str, rel: str, lock_dir: str) -> list[Candidate]:
    out = named(tables(text, "package"), name, rel, lock_dir, _copy)
    # The plain entry names the copy better than its extras twin.
    out.sort(key=lambda c: "[" in c.entry)
    return out


def entries(text: str, ctx) -> list[Candidate]:
    return every(tables(text, "package"), ctx, _copy)


def _copy(pkg: dict, name: str, tier: int) -> Candidate:
    extras = pkg.get("extras")
    suffix = f" [{','.join(str(e) for e in extras)}]" if isinstance(extras, list) and extras else ""
    return locked_copy(pkg, "package", name, tier, _source(pkg), pkg.get("marker"), suffix)


def _source(pkg: dict) -> tuple[str, str | None]:
    if "git" in pkg:
        return "git", str(pkg.get("revision") or pkg["git"])
    if "path" in pkg:
        return "directory", str(pkg["path"])
    if "url" in pkg:
        return "url", str(pkg["url"])
    return REGISTRY, None
