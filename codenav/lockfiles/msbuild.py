"""MSBuild project files: *.csproj, *.fsproj, *.vbproj and Directory.Packages.props
(docs/lockfiles.md "nuget"), read when a project has no packages.lock.json.

A project's ``<PackageReference Include="Id" Version="1.2.3"/>`` (or a ``<Version>`` child, or
``VersionOverride``) is a direct dependency at that version. Under central package management the
version is absent there and comes from the nearest ``Directory.Packages.props`` at or above the
project's directory (as MSBuild finds it): ``<PackageVersion Include="Id" Version="…"/>``; that
file then states the version. Read on its own, Directory.Packages.props states every centrally
managed version, and ``GlobalPackageReference``s. Only exact versions count: ``1.2.3`` or
``[1.2.3]``; a range (``[1.0,2.0)``), a floating version (``1.*``) or a property that the file's
own ``<PropertyGroup>`` does not define is not a locked version. Parsed with ``xmlsafe``
(no DTD, no entities).
"""

from __future__ import annotations

import os

from ._common import ROOT_DIRECT, Candidate, LockfileError

PROPS = "Directory.Packages.props"


def _root(text: str, what: str):
    from ..registries.xmlsafe import parse
    try:
        return parse(text.encode("utf-8"), what)
    except ValueError as e:
        raise LockfileError(str(e)) from None


def _properties(root) -> dict[str, str]:
    props: dict[str, str] = {}
    for group in root.iter("PropertyGroup"):
        for prop in group:
            if isinstance(prop.tag, str) and prop.text and prop.text.strip():
                props[prop.tag] = prop.text.strip()
    return props


def exact(version: str | None, props: dict[str, str]) -> str | None:
    """The exact version ``version`` names, or None (a range, a float, an unknown property)."""
    if not version:
        return None
    version = version.strip()
    for _ in range(8):
        at = version.find("$(")
        if at < 0:
            break
        end = version.find(")", at)
        if end < 0 or version[at + 2:end] not in props:
            return None
        version = version[:at] + props[version[at + 2:end]] + version[end + 1:]
    if version.startswith("[") and version.endswith("]") and "," not in version:
        version = version[1:-1].strip()
    if not version or any(c in version for c in "[](),*$ ") or not version[0].isdigit():
        return None
    return version


def _item_version(item) -> str | None:
    for key in ("VersionOverride", "Version"):
        if item.get(key):
            return item.get(key)
    for child in item:
        if child.tag in ("VersionOverride", "Version") and child.text:
            return child.text
    return None


def _central(ctx, start_dir: str):
    """(path, {id lower: (id, version text)}, properties) of the nearest Directory.Packages.props."""
    path = ctx.find_up(PROPS, start_dir)
    if path is None:
        return None, {}, {}
    text = ctx.read(path)
    if text is None:
        return None, {}, {}
    try:
        root = _root(text, PROPS)
    except LockfileError as e:
        ctx.note(None, f"{os.path.relpath(path, ctx.start)}: skipped: {e}")
        return None, {}, {}
    versions = {}
    unnamed = 0
    for tag in ("PackageVersion", "GlobalPackageReference"):
        for item in root.iter(tag):
            name = item.get("Include") or item.get("Update")
            if name:
                versions[name.lower()] = (name, _item_version(item), tag)
            else:
                unnamed += 1
    ctx.skipped(unnamed, "a PackageVersion without Include", path)
    return path, versions, _properties(root)


def entries(text: str, ctx) -> list[Candidate]:
    fname = os.path.basename(ctx.path)
    root = _root(text, fname)
    out = []
    if fname == PROPS:
        _, versions, props = _central(ctx, ctx.lock_dir)
        for name, raw, tag in versions.values():
            version = exact(raw, props)
            if version is not None:
                out.append(Candidate(name, version, f"{tag} {name}", ROOT_DIRECT))
        return out
    own = _properties(root)
    central = None
    unnamed = 0
    for item in root.iter("PackageReference"):
        name = item.get("Include") or item.get("Update")
        if not name:
            unnamed += 1
            continue
        raw = _item_version(item)
        if raw is not None:
            version = exact(raw, own)
            if version is not None:
                out.append(Candidate(name, version, f"PackageReference {name}", ROOT_DIRECT))
            continue
        if central is None:
            central = _central(ctx, ctx.lock_dir)
        path, versions, props = central
        hit = versions.get(name.lower())
        version = exact(hit[1], props) if hit else None
        if version is not None:
            out.append(Candidate(name, version, f"{hit[2]} {hit[0]}", ROOT_DIRECT, file=path))
        elif hit is None:
            ctx.note(name.lower(), f"{fname}: {name} has no version here and none in a {PROPS} above")
    ctx.skipped(unnamed, "a PackageReference without Include")
    return out
