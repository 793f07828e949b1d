"""gradle/libs.versions.toml (a Gradle version catalog; docs/lockfiles.md "maven").

``[libraries]`` declares what the build may use, each a direct dependency: ``"group:artifact:version"``,
or a table with ``module = "group:artifact"`` (or ``group`` + ``name``) and ``version`` — a string,
``version.ref`` naming an entry of ``[versions]``, or a rich version table of which ``strictly``,
then ``require``, then ``prefer`` is used when it is one fixed version. A library without a version
(its version comes from a platform) and a range are no locked version. ``[plugins]`` and
``[bundles]`` are not dependencies.
"""

from __future__ import annotations

import os

from . import _toml
from ._common import REGISTRY, ROOT_DIRECT, Candidate, LockfileError

CATALOG = os.path.join("gradle", "libs.versions.toml")


def _fixed(value) -> str | None:
    if isinstance(value, dict):
        for key in ("strictly", "require", "prefer"):
            if isinstance(value.get(key), str):
                return _fixed(value[key])
        return None
    if not isinstance(value, str) or not value or any(c in value for c in "[](),+ ") or value.endswith("-SNAPSHOT+"):
        return None
    return value


def libraries(doc: dict):
    """``(alias, group:artifact, version or None, entry)`` for every library of a parsed catalog."""
    versions = doc.get("versions") if isinstance(doc.get("versions"), dict) else {}
    libs = doc.get("libraries")
    if not isinstance(libs, dict):
        return
    for alias, spec in libs.items():
        entry = f"libraries {alias}"
        if isinstance(spec, str):
            parts = spec.split(":")
            if len(parts) == 3:
                yield alias, f"{parts[0]}:{parts[1]}", _fixed(parts[2]), entry
            elif len(parts) == 2:
                yield alias, spec, None, entry
            continue
        if not isinstance(spec, dict):
            continue
        module = spec.get("module")
        if not isinstance(module, str) and isinstance(spec.get("group"), str) and isinstance(spec.get("name"), str):
            module = f"{spec['group']}:{spec['name']}"
        if not isinstance(module, str) or module.count(":") != 1:
            continue
        version = spec.get("version")
        if isinstance(version, dict) and isinstance(version.get("ref"), str):
            ref = version["ref"]
            yield alias, module, _fixed(versions.get(ref)), f"versions {ref} ({entry})"
        else:
            yield alias, module, _fixed(version), entry


def aliases_by_module(ctx) -> dict[str, list[str]]:
    """``group:artifact -> [alias, …]`` from the catalog at or above the project (for gradle.lockfile)."""
    path = ctx.find_up(CATALOG)
    text = ctx.read(path) if path else None
    if not text:
        return {}
    try:
        doc = _toml.loads(text)
    except LockfileError:
        return {}
    out: dict[str, list[str]] = {}
    for alias, module, _, _ in libraries(doc):
        out.setdefault(module, []).append(alias)
    return out


def entries(text: str, ctx) -> list[Candidate]:
    doc = _toml.loads(text)
    if not isinstance(doc.get("libraries", {}), dict):
        raise LockfileError("[libraries] is not a table")
    out = []
    rows = list(libraries(doc))
    ctx.skipped(len(doc.get("libraries", {})) - len({alias for alias, *_ in rows}),
                "not a library: a coordinate string or a table naming a module")
    for _, module, version, entry in rows:
        if version is None:
            ctx.note(module, f"{CATALOG}: {module} has no fixed version in the catalog")
            continue
        out.append(Candidate(module, version, entry, ROOT_DIRECT, REGISTRY, None))
    return out
