"""pdm.lock (TOML; lockfiles.md §8.3).

``[[package]]`` entries; an entry with ``extras`` is a twin of the plain one at the same version
(deduplicated by the ranking, which compares versions). ``path``/``url`` entries are local and
``git`` entries carry ``revision``. Direct dependencies come from pyproject.toml.
"""

from __future__ import annotations

from ._common import REGISTRY, Candidate
from ._pyproject import every, named, tables


def candidates(text: str, name: str, rel: str, lock_dir: str) -> list[Candidate]:
    out = named(tables(text, "package"), name, rel, lock_dir, _copy)
    # The plain entry names the copy better than its extras twin.
    out.sort(key=lambda c: "[" in c.entry)
    return out


def entries(text: str, ctx) -> list[Candidate]:
    return every(tables(text, "package"), ctx, _copy)


def _copy(pkg: dict, name: str, tier: int) -> Candidate:
    version = pkg.get("version") if isinstance(pkg.get("version"), str) else None
    source, ref = REGISTRY, None
    if "git" in pkg:
        source, ref = "git", str(pkg.get("revision") or pkg["git"])
    elif "path" in pkg:
        source, ref = "directory", str(pkg["path"])
    elif "url" in pkg:
        source, ref = "url", str(pkg["url"])
    if source != REGISTRY:
        version = None
    extras = pkg.get("extras")
    entry = f"package {pkg.get('name')} {pkg.get('version', '')}".strip()
    if isinstance(extras, list) and extras:
        entry += f" [{','.join(str(e) for e in extras)}]"
    return Candidate(name, version, entry, tier, source, ref, marker=pkg.get("marker"))
