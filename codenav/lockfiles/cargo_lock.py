"""Cargo.lock (TOML; lockfile versions 1 to 4; docs/lockfiles.md "crates").

Every ``[[package]]`` is one copy, and several versions of one crate are normal (semver-major
duplicates). ``source`` says where it comes from: ``registry+URL`` or ``sparse+URL`` is a
registry version; ``git+URL?…#<commit>`` a git checkout; no ``source`` a package of the
workspace or a path dependency, which has no registry version. Cargo.lock marks no direct
dependencies, but the local packages (those without ``source``) list theirs in
``dependencies``: ``"name"``, ``"name version"`` when the name is ambiguous, ``"name version
(source)"`` when the version is too (v1 always writes the long form). The local package whose
Cargo.toml is nearest the start directory is the importer; the one at the lockfile's directory
is the root.
"""

from __future__ import annotations

import os

from . import _toml
from ._common import CWD_DIRECT, OTHER_DIRECT, REGISTRY, ROOT_DIRECT, TRANSITIVE, Candidate, LockfileError


def _source(raw: object) -> tuple[str, str | None]:
    if not isinstance(raw, str):
        return "directory", None
    if raw.startswith(("registry+", "sparse+")):
        return REGISTRY, None
    if raw.startswith("git+"):
        _, sep, commit = raw.rpartition("#")
        return "git", commit if sep and commit else raw
    return "url", raw


def _package_name(ctx, directory: str | None) -> str | None:
    """The ``[package] name`` of the Cargo.toml in ``directory``, if any."""
    if directory is None:
        return None
    text = ctx.read(os.path.join(directory, "Cargo.toml"))
    if not text:
        return None
    try:
        doc = _toml.loads(text)
    except LockfileError:
        return None
    package = doc.get("package")
    name = package.get("name") if isinstance(package, dict) else None
    return name if isinstance(name, str) else None


def entries(text: str, ctx) -> list[Candidate]:
    doc = _toml.loads(text)
    packages = doc.get("package")
    if not isinstance(packages, list):
        raise LockfileError("no [[package]] tables")
    out: list[Candidate] = []
    by_name: dict[str, list[Candidate]] = {}
    local: list[tuple[str, list]] = []
    for pkg in packages:
        if not isinstance(pkg, dict) or not isinstance(pkg.get("name"), str):
            continue
        name, version = pkg["name"], pkg.get("version") if isinstance(pkg.get("version"), str) else None
        source, ref = _source(pkg.get("source"))
        if source == "directory":
            deps = pkg.get("dependencies")
            local.append((name, deps if isinstance(deps, list) else []))
        c = Candidate(name, version if source == REGISTRY else None, f"package {name} {version or ''}".strip(),
                      TRANSITIVE, source, ref)
        c.marker = version  # the version as written, for matching dependency strings
        out.append(c)
        by_name.setdefault(name, []).append(c)
    root = _package_name(ctx, ctx.lock_dir)
    member = ctx.member_dir("Cargo.toml")
    here = _package_name(ctx, member) if member is not None else root
    for owner, deps in local:
        level = CWD_DIRECT if owner == here and owner != root else ROOT_DIRECT if owner == root else OTHER_DIRECT
        for dep in deps:
            if not isinstance(dep, str):
                continue
            parts = dep.split(" ")
            copies = by_name.get(parts[0], [])
            if len(parts) > 1:
                copies = [c for c in copies if c.marker == parts[1]]
            if len(parts) > 2:
                wanted = _source(parts[2].strip("()"))
                copies = [c for c in copies if (c.source, c.ref) == wanted or c.source == wanted[0] == REGISTRY]
            for c in copies:
                c.tier = min(c.tier, level)
    for c in out:
        c.marker = None
    return out
