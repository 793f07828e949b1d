"""pubspec.lock (YAML, read with the subset of yaml_subset.py; dart-lang/pub ec276d1
``lib/src/lock_file.dart`` ``serialize``, ``lib/src/source/hosted.dart``).

``packages`` maps each name to ``dependency`` (``direct main``, ``direct dev``, ``direct
overridden`` or ``transitive``), ``source``, ``description`` and ``version``. Only ``hosted``
entries are registry versions (their ``description`` gives the ``name`` and the server ``url``;
an old file writes the name alone); ``git`` entries are checkouts at ``resolved-ref``, ``path``
entries directories, ``sdk`` entries (``flutter``) come with the SDK — none of them has a
registry version. ``sdks`` (the Dart and Flutter constraints) is not needed.
"""

from __future__ import annotations

from ._common import ROOT_DIRECT, TRANSITIVE, Candidate, LockfileError
from .yaml_subset import YamlError, load


def entries(text: str, ctx) -> list[Candidate]:
    if not text.strip():
        return []  # pub reads an empty (or blank) file as an empty lockfile
    try:
        doc = load(text)
    except YamlError as e:
        raise LockfileError(f"not in the YAML subset codenav reads ({e})") from None
    packages = doc.get("packages") if isinstance(doc, dict) else None
    if packages is None:
        return []  # an empty file, or a project with no dependencies: pub reads both as empty
    if not isinstance(packages, dict):
        raise LockfileError("packages is not a mapping")
    out = []
    for name, entry in packages.items():
        if not isinstance(entry, dict):
            continue
        tier = ROOT_DIRECT if str(entry.get("dependency") or "").startswith("direct") else TRANSITIVE
        version = entry.get("version") if isinstance(entry.get("version"), str) else None
        description = entry.get("description")
        source = entry.get("source")
        if source == "hosted":
            out.append(Candidate(name, version, name, tier))
            continue
        details = description if isinstance(description, dict) else {}
        if source == "git":
            kind, ref = "git", details.get("resolved-ref") or details.get("ref") or details.get("url")
        elif source == "path":
            kind, ref = "directory", details.get("path")
        elif source == "sdk":
            kind, ref = "sdk", description if isinstance(description, str) else None
        else:
            kind, ref = "url", str(source)
        out.append(Candidate(name, None, name, tier, kind, str(ref) if ref else None))
    return out
