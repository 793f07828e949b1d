"""conda-lock.yml (conda-lock's unified lockfile, version 1; docs/registries-reference/conda.md).

``package:`` entries with ``name``, ``version``, ``manager`` (``conda`` or ``pip``: only conda
entries are conda packages), ``platform`` and ``url``. The entries for this machine's subdir are
the candidates when there are any (each platform is solved on its own), else every conda entry.
An entry whose ``url`` is not http(s) (a local channel) is a file copy.
"""

from __future__ import annotations

from ._common import REGISTRY, TRANSITIVE, Candidate, LockfileError
from .yaml_subset import YamlError, load


def candidates(text: str, name: str, rel: str, lock_dir: str) -> list[Candidate]:
    from ..registries.conda import machine_subdir

    try:
        doc = load(text)
    except YamlError as e:
        raise LockfileError(f"not in the YAML subset codenav reads ({e})") from None
    if not isinstance(doc.get("package"), list):
        raise LockfileError("no package list")
    out: list[tuple[Candidate, bool]] = []  # each copy, and whether it is this machine's
    here = machine_subdir()
    for entry in doc["package"]:
        if not isinstance(entry, dict) or entry.get("manager", "conda") != "conda":
            continue
        if str(entry.get("name", "")).lower() != name:
            continue
        url = str(entry.get("url") or "")
        version = str(entry.get("version") or "") or None
        source, ref = REGISTRY, None
        if url and not url.startswith(("https://", "http://")):
            source, ref, version = "file", url, None
        entry_name = f"package {name} {entry.get('platform', '')}".strip()
        out.append((Candidate(name, version, entry_name, TRANSITIVE, source, ref), entry.get("platform") == here))
    return [c for c, mine in out if mine] or [c for c, _ in out]
