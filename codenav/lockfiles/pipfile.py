"""Pipfile.lock (JSON; lockfiles.md §8.4).

Every top-level key other than ``_meta`` is a section (``default``, ``develop``, newer pipenv's
custom categories) keyed by normalised names; ``version`` is ``==x`` and the ``==`` is stripped.
``git`` entries carry the resolved commit in ``ref``; ``path``/``file`` entries are local.
Direct dependencies come from the Pipfile.
"""

from __future__ import annotations

from ._common import CWD_DIRECT, REGISTRY, ROOT_DIRECT, TRANSITIVE, Candidate, LockfileError
from ._pyproject import direct_names


def _sections(text: str):
    """``(section, key, entry)`` for every package of a Pipfile.lock."""
    import json
    try:
        doc = json.loads(text)
    except ValueError as e:
        line = getattr(e, "lineno", None)
        raise LockfileError(f"not valid JSON{f' (line {line})' if line else ''}") from None
    if not isinstance(doc, dict):
        raise LockfileError("not a JSON object")
    for section, table in doc.items():
        if section == "_meta" or not isinstance(table, dict):
            continue
        for key, pkg in table.items():
            if isinstance(pkg, dict):
                yield section, key, pkg


def _copy(section: str, key: str, pkg: dict, name: str, tier: int) -> Candidate:
    version = pkg.get("version") if isinstance(pkg.get("version"), str) else None
    if version:
        version = version.removeprefix("===").removeprefix("==").strip()
    source, ref = REGISTRY, None
    if "git" in pkg:
        source, ref = "git", str(pkg.get("ref") or pkg["git"])
    elif "path" in pkg or "file" in pkg:
        source, ref = "directory", str(pkg.get("path") or pkg.get("file"))
    if source != REGISTRY:
        version = None
    return Candidate(name, version, f"{section}.{key}", tier, source, ref, marker=pkg.get("markers"))


def candidates(text: str, name: str, rel: str, lock_dir: str) -> list[Candidate]:
    from ..registries.pypi import pep503
    rows = list(_sections(text))
    mine, root = direct_names(lock_dir, rel)
    tier = CWD_DIRECT if name in mine and mine is not root else \
        ROOT_DIRECT if name in root or name in mine else TRANSITIVE
    return [_copy(section, key, pkg, name, tier) for section, key, pkg in rows if pep503(key) == name]


def entries(text: str, ctx) -> list[Candidate]:
    from ..registries.pypi import pep503
    mine, root = direct_names(ctx.lock_dir, ctx.rel)
    out = []
    for section, key, pkg in _sections(text):
        name = pep503(key)
        out.append(_copy(section, key, pkg, name, ROOT_DIRECT if name in mine | root else TRANSITIVE))
    return out
