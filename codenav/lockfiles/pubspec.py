"""pubspec.lock (YAML, read with the subset of yaml_subset.py; dart-lang/pub ec276d1
``lib/src/lock_file.dart`` ``serialize``, ``lib/src/source/hosted.dart``).

``packages`` maps each name to ``dependency`` (``direct main``, ``direct dev``, ``direct
overridden`` or ``transitive``), ``source``, ``description`` and ``version``. Only ``hosted``
entries are registry versions (their ``description`` gives the ``name`` and the server ``url``;
an old file writes the name alone); ``git`` entries are checkouts at ``resolved-ref``, ``path``
entries directories, ``sdk`` entries (``flutter``) come with the SDK — none of them has a
registry version. ``sdks`` (the Dart and Flutter constraints) is not needed.

Direct dependencies: what the lock marks ``direct …``, and what the pubspec.yaml beside it
declares (``dependencies``, ``dev_dependencies``, ``dependency_overrides``); in a pub workspace,
what the member holding the start directory declares in its own pubspec.yaml is the start
directory's (``CWD_DIRECT``). Only those blocks of a pubspec.yaml are read (a ``flutter:``
section the YAML subset cannot read does not hide them).
"""

from __future__ import annotations

import os

from ._common import CWD_DIRECT, ROOT_DIRECT, TRANSITIVE, Candidate, LockfileError
from .yaml_subset import YamlError, load, top_level

_DECLARED = ("dependencies", "dev_dependencies", "dependency_overrides")


def declared(ctx, directory: str | None) -> set[str]:
    """The packages the pubspec.yaml in ``directory`` declares ({} when there is none, or unreadable)."""
    text = ctx.read(os.path.join(directory, "pubspec.yaml")) if ctx is not None and directory else None
    if not text:
        return set()
    try:
        blocks = top_level(text, _DECLARED)
    except YamlError as e:
        ctx.note(None, f"pubspec.yaml: {e}; the lock's own direct markers are used")
        return set()
    return {str(name) for block in blocks.values() if isinstance(block, dict) for name in block}


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
    root = declared(ctx, ctx.lock_dir) if ctx is not None else set()
    member = ctx.member_dir("pubspec.yaml") if ctx is not None else None
    here = declared(ctx, member) if member is not None else set()
    out = []
    for name, entry in packages.items():
        if not isinstance(entry, dict):
            continue
        marked = str(entry.get("dependency") or "").startswith("direct") or name in root
        tier = CWD_DIRECT if name in here else ROOT_DIRECT if marked else TRANSITIVE
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
