"""conda-lock.yml (conda-lock's unified lockfile, version 1; docs/registries-reference/conda.md).

``package:`` entries with ``name``, ``version``, ``manager`` (``conda`` or ``pip``: only conda
entries are conda packages), ``platform`` and ``url``. A package's copies are this machine's
subdir's when there are any (each platform is solved on its own), else every copy
(conda_project.py). An entry whose ``url`` is not http(s) (a local channel) is a file copy. The
environment files named in ``metadata.sources`` give the direct dependencies.
"""

from __future__ import annotations

from ._common import REGISTRY, Candidate, LockfileError
from .conda_project import sources_direct, this_machine, tier
from .yaml_subset import YamlError, load


def entries(text: str, ctx) -> list[Candidate]:
    try:
        doc = load(text)
    except YamlError as e:
        raise LockfileError(f"not in the YAML subset codenav reads ({e})") from None
    if not isinstance(doc.get("package"), list):
        raise LockfileError("no package list")
    metadata = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    direct = sources_direct(ctx, metadata.get("sources"))
    copies: list[tuple[Candidate, str | None]] = []
    for entry in doc["package"]:
        if not isinstance(entry, dict) or entry.get("manager", "conda") != "conda":
            continue
        name = str(entry.get("name") or "").lower()
        if not name:
            continue
        url = str(entry.get("url") or "")
        version = str(entry.get("version") or "") or None
        source, ref = REGISTRY, None
        if url and not url.startswith(("https://", "http://")):
            source, ref, version = "file", url, None
        platform = entry.get("platform") if isinstance(entry.get("platform"), str) else None
        label = f"package {name} {platform or ''}".strip()
        copies.append((Candidate(name, version, label, tier(name, direct), source, ref), platform))
    return this_machine(copies)
