"""renv.lock (JSON; renv's ``lockfile_read``, rstudio/renv b0bf64a ``R/lockfiles.R``, ``R/records.R``).

``Packages`` maps each name to a record: ``Package``, ``Version``, ``Source`` and, for a
repository package, ``Repository`` (the name of the repository in ``R.Repositories``, or a
URL). The source is read as renv normalises it (``renv_record_source``): ``Repository`` (old
files: ``CRAN``; none but a ``Repository`` field: the same) is a registry version — unless the
repository is Bioconductor; ``GitHub``/``GitLab``/``Bitbucket``/``git`` are git checkouts at
``RemoteSha``; ``Local`` and ``unknown`` (renv restores those from a local copy) and a file path
are directories; ``URL`` is a download; ``Bioconductor`` is not a CRAN version.

renv.lock marks no direct dependencies. The project's DESCRIPTION (``Depends``, ``Imports``,
``LinkingTo``, ``Suggests``) names them when there is one; else the packages no other record
requires (its ``Requirements``, or the ``Depends``/``Imports``/``LinkingTo`` renv 1.1 copies
from DESCRIPTION) are the project's roots; a lockfile with neither (renv before 1.0) tells
nothing, and every package counts as direct.
"""

from __future__ import annotations

import os

from ._common import REGISTRY, ROOT_DIRECT, TRANSITIVE, Candidate, LockfileError

_GIT = ("github", "gitlab", "bitbucket", "git", "git2r", "xgit")
_DEPENDENCY_FIELDS = ("Depends", "Imports", "LinkingTo", "Suggests")


def source_of(record: dict) -> tuple[str, str | None]:
    """(``registry`` or the kind of copy, the commit or path) of one renv record."""
    raw = record.get("Source")
    if not isinstance(raw, str):
        raw = "Repository" if "Repository" in record else "unknown"
    if "/" in raw or "\\" in raw:
        return "directory", raw  # renv keeps a file path as the source
    source = raw.lower()
    repository = str(record.get("Repository") or "").lower()
    if source in ("repository", "cran", "standard") and repository not in ("bioc", "bioconductor"):
        return REGISTRY, None
    if source in _GIT:
        ref = record.get("RemoteSha") or record.get("RemoteRef") or record.get("RemoteUrl")
        return "git", str(ref) if ref else None
    if source in ("local", "unknown"):
        return "directory", str(record["RemoteUrl"]) if record.get("RemoteUrl") else None
    if source in ("repository", "cran", "standard", "bioconductor"):
        return "bioconductor", "Bioconductor"
    return "url", str(record.get("RemoteUrl") or raw)


def description_dependencies(text: str) -> set[str]:
    """The package names of a DESCRIPTION's dependency fields (``R`` itself left out)."""
    names: set[str] = set()
    field = None
    for line in text.splitlines():
        if line[:1] not in (" ", "\t"):
            key, colon, line = line.partition(":")
            field = key.strip() if colon else None
        if field in _DEPENDENCY_FIELDS:
            for item in line.split(","):
                name = item.split("(", 1)[0].strip()
                if name and name != "R":
                    names.add(name)
    return names


def _names(value: object) -> set[str]:
    """Package names of a dependency field: a list (renv >= 1.1 copies DESCRIPTION's fields) or
    a comma-separated string, version constraints and ``R`` left out."""
    items = value if isinstance(value, list) else str(value).split(",") if isinstance(value, str) else []
    names = {str(item).split("(", 1)[0].strip() for item in items}
    return names - {"", "R"}


def _direct(ctx, records: dict[str, dict]) -> set[str] | None:
    """The names the project depends on directly; None when nothing says."""
    text = ctx.read(os.path.join(ctx.lock_dir, "DESCRIPTION")) if ctx is not None else None
    if text:
        return description_dependencies(text)
    fields = ("Requirements", *_DEPENDENCY_FIELDS[:3])
    if not any(field in record for record in records.values() for field in fields):
        return None
    required = set().union(*(_names(record.get(field)) for record in records.values() for field in fields))
    return {r["Package"] for r in records.values()} - required


def entries(text: str, ctx) -> list[Candidate]:
    import json

    try:
        doc = json.loads(text)
    except ValueError:
        raise LockfileError("not JSON") from None
    packages = doc.get("Packages") if isinstance(doc, dict) else None
    if not isinstance(packages, dict):
        raise LockfileError("no Packages object")
    records = {key: dict(record, Package=record.get("Package") if isinstance(record.get("Package"), str) else key)
               for key, record in packages.items() if isinstance(record, dict)}
    direct = _direct(ctx, records)
    out = []
    for key, record in records.items():
        name = record["Package"]
        version = record.get("Version") if isinstance(record.get("Version"), str) else None
        source, ref = source_of(record)
        tier = ROOT_DIRECT if direct is None or name in direct else TRANSITIVE
        out.append(Candidate(name, version if source == REGISTRY else None, key, tier, source, ref))
    return out
