"""pom.xml: the versions a Maven build of the project would use (docs/lockfiles.md "maven").

Maven has no lockfile, so this reads what the POMs state, as Maven builds its effective model:

- the parent chain inside the project: ``<parent>``'s ``relativePath`` (default ``../pom.xml``;
  a directory means its pom.xml; empty means none), followed while the file there has the
  groupId and artifactId the child names (a parent from a repository cannot be read here);
- inheritance: a POM inherits its parents' ``<properties>``, ``<dependencies>`` and
  ``<dependencyManagement>``, the nearer declaration winning;
- interpolation after inheritance: ``${name}`` from the merged properties, ``project.version``,
  ``project.groupId``, ``project.artifactId``, ``project.parent.version`` (and their ``pom.``
  spellings); nested references resolve up to ``MAX_STEPS`` deep;
- a dependency without a version takes its managed one; a managed entry that no dependency uses
  is a transitive copy (it pins the version if the artifact arrives transitively); an imported BOM
  (``<scope>import</scope>``) is itself an entry, its contents are not here;
- the project's own modules (``<modules>``, read recursively, at most ``MAX_MODULES``) add their
  dependencies as other importers; a dependency on one of the project's own artifacts is no
  registry package.

A version range (``[1.0,2.0)``) or an undefined property is no locked version (the package is
reported with a note). ``versionSource.file`` is the POM that states the version: the one with
the ``<version>`` element, or, for a ``${property}``, the one that defines the property.
"""

from __future__ import annotations

import os

from ._common import CWD_DIRECT, OTHER_DIRECT, REGISTRY, ROOT_DIRECT, TRANSITIVE, Candidate, LockfileError

MAX_CHAIN = 32
MAX_MODULES = 200
MAX_STEPS = 16


class _Pom:
    """One parsed POM: its coordinates, properties and declarations, and where it lives."""

    def __init__(self, path: str, root) -> None:
        self.path = path
        parent = root.find("parent")
        self.parent = None
        if parent is not None:
            self.parent = (_text(parent, "groupId"), _text(parent, "artifactId"), _text(parent, "version"),
                           _text(parent, "relativePath", keep_empty=True))
        self.group = _text(root, "groupId") or (self.parent[0] if self.parent else None)
        self.artifact = _text(root, "artifactId")
        self.version = _text(root, "version") or (self.parent[2] if self.parent else None)
        self.properties: dict[str, str] = {}
        props = root.find("properties")
        for prop in props if props is not None else ():
            if isinstance(prop.tag, str):
                self.properties[prop.tag] = (prop.text or "").strip()
        self.dependencies = _deps(root.find("dependencies"))
        management = root.find("dependencyManagement")
        self.managed = _deps(management.find("dependencies") if management is not None else None)
        modules = root.find("modules")
        self.modules = [(m.text or "").strip() for m in (modules if modules is not None else ()) if m.tag == "module"]


def _text(element, tag: str, keep_empty: bool = False) -> str | None:
    child = element.find(tag)
    if child is None:
        return None
    value = (child.text or "").strip()
    return value if value or keep_empty else None


def _deps(element) -> list[dict]:
    out = []
    for dep in element if element is not None else ():
        if dep.tag != "dependency":
            continue
        out.append({k: _text(dep, k) for k in ("groupId", "artifactId", "version", "scope", "type")})
    return out


def _load(ctx, path: str, first_text: str | None = None) -> _Pom | None:
    from ..registries.xmlsafe import parse
    text = first_text if first_text is not None else ctx.read(path)
    if text is None:
        return None
    try:
        return _Pom(path, parse(text.encode("utf-8"), os.path.basename(path)))
    except ValueError as e:
        if first_text is not None:
            raise LockfileError(str(e)) from None
        ctx.note(None, f"{os.path.relpath(path, ctx.start)}: skipped: {e}")
        return None


def _chain(ctx, pom: _Pom) -> list[_Pom]:
    """``pom`` and its parents inside the project, nearest first."""
    chain = [pom]
    seen = {os.path.realpath(pom.path)}
    while chain[-1].parent is not None and len(chain) < MAX_CHAIN:
        group, artifact, _, relative = chain[-1].parent
        if relative == "":
            break
        path = os.path.join(os.path.dirname(chain[-1].path), relative or "..")
        if relative is None or not relative.endswith(".xml"):
            path = os.path.join(path, "pom.xml")
        path = os.path.normpath(path)
        if os.path.realpath(path) in seen:
            break
        seen.add(os.path.realpath(path))
        parent = _load(ctx, path)
        if parent is None or (parent.group, parent.artifact) != (group, artifact):
            break  # the parent comes from a repository: what it declares is not known here
        chain.append(parent)
    return chain


def _interpolate(value: str | None, chain: list[_Pom]) -> tuple[str | None, str | None]:
    """(the value with every ``${…}`` replaced, the POM that defines the first property) or (None, None)."""
    if value is None:
        return None, None
    pom = chain[0]
    builtins = {"project.version": pom.version, "project.groupId": pom.group, "project.artifactId": pom.artifact,
                "project.parent.version": pom.parent[2] if pom.parent else None,
                "project.parent.groupId": pom.parent[0] if pom.parent else None}
    builtins.update({"pom." + k[len("project."):]: v for k, v in builtins.items()})
    builtins["version"] = pom.version
    origin = None
    for _ in range(MAX_STEPS):
        at = value.find("${")
        if at < 0:
            return value, origin
        end = value.find("}", at)
        if end < 0:
            return None, None
        name = value[at + 2:end]
        found = next(((p.properties[name], p.path) for p in chain if name in p.properties), None)
        if found is not None:
            origin = origin or found[1]
        elif builtins.get(name) is not None:
            found = (builtins[name], pom.path)
        else:
            return None, None
        value = value[:at] + found[0] + value[end + 1:]
    return None, None


def _merged(chain: list[_Pom], attr: str) -> dict[tuple, tuple[dict, _Pom]]:
    """``(groupId, artifactId, type) -> (declaration, the POM declaring it)``, nearest first."""
    out: dict[tuple, tuple[dict, _Pom]] = {}
    for pom in chain:
        for dep in getattr(pom, attr):
            key = (dep["groupId"], dep["artifactId"], dep.get("type") or "jar")
            out.setdefault(key, (dep, pom))
    return out


def _module_entries(ctx, chain: list[_Pom], tier: int, own: set[tuple]) -> list[Candidate]:
    managed = _merged(chain, "managed")
    out = []
    used = set()
    for key, (dep, pom) in _merged(chain, "dependencies").items():
        group, artifact = _interpolate(key[0], chain)[0], _interpolate(key[1], chain)[0]
        if not group or not artifact or (group, artifact) in own:
            continue
        used.add(key)
        where, holder, raw = "dependency", pom, dep.get("version")
        if raw is None and key in managed:
            where, (found, holder) = "dependencyManagement", managed[key]
            raw = found.get("version")
        out.append(_candidate(ctx, f"{group}:{artifact}", raw, where, holder, chain, tier))
    for key, (dep, pom) in managed.items():
        group, artifact = _interpolate(key[0], chain)[0], _interpolate(key[1], chain)[0]
        if key in used or not group or not artifact or (group, artifact) in own:
            continue
        out.append(_candidate(ctx, f"{group}:{artifact}", dep.get("version"), "dependencyManagement", pom, chain,
                              tier if dep.get("scope") == "import" else TRANSITIVE))
    return [c for c in out if c is not None]


def _candidate(ctx, name: str, raw: str | None, where: str, holder: _Pom, chain: list[_Pom], tier: int):
    version, origin = _interpolate(raw, chain)
    shown = os.path.relpath(holder.path, ctx.start).replace(os.sep, "/")
    if version is None or not version or version[0] in "[(" or "," in version:
        why = "states no version" if raw is None else f"has version {raw}, which is not one fixed version" \
            if version else f"has version {raw}, which the project's POMs do not define"
        ctx.note(name, f"{shown}: {name} {why}")
        return None
    entry = f"{where} {name}"
    file = holder.path
    if origin is not None and raw is not None and "${" in raw:
        entry = f"properties {raw[2:raw.find('}')]} ({entry})" if raw.startswith("${") else entry
        file = origin
    return Candidate(name, version, entry, tier, REGISTRY, None, file=None if file == ctx.path else file)


def _reactor(ctx, top: _Pom, start: _Pom | None = None) -> list[tuple[_Pom, bool]]:
    """``top`` and its modules, recursively (at most ``MAX_MODULES``), each with whether the
    start directory lies inside it."""
    here = os.path.realpath(ctx.start)
    out = [(top, False)]
    queue = [(top, m) for m in top.modules]
    seen = {os.path.realpath(top.path)}
    while queue and len(out) < MAX_MODULES:
        parent, module = queue.pop(0)
        path = os.path.normpath(os.path.join(os.path.dirname(parent.path), module))
        if not path.endswith(".xml"):
            path = os.path.join(path, "pom.xml")
        if os.path.realpath(path) in seen:
            continue
        seen.add(os.path.realpath(path))
        child = _load(ctx, path)
        if child is None:
            continue
        folder = os.path.realpath(os.path.dirname(path))
        out.append((child, here == folder or here.startswith(folder + os.sep)))
        queue.extend((child, m) for m in child.modules)
    return out


def entries(text: str, ctx) -> list[Candidate]:
    pom = _load(ctx, ctx.path, text)
    if pom is None or not pom.artifact:
        raise LockfileError("not a Maven POM (no artifactId)")
    chain = _chain(ctx, pom)
    # The modules below this POM are other importers; the project's own artifacts (to leave out)
    # are every POM of the reactor its topmost parent in the project builds.
    below = _reactor(ctx, pom)
    chains = [(chain, ROOT_DIRECT)] + [(_chain(ctx, m), CWD_DIRECT if inside else OTHER_DIRECT)
                                       for m, inside in below[1:]]
    reactor = below if chain[-1] is pom else _reactor(ctx, chain[-1])
    own = {(_interpolate(c[0].group, c)[0], c[0].artifact) for c, _ in chains}
    own |= {(p.group, p.artifact) for c, _ in chains for p in c}
    own |= {(p.group, p.artifact) for p, _ in reactor}
    out = []
    for module_chain, tier in chains:
        out.extend(_module_entries(ctx, module_chain, tier, own))
    return out
