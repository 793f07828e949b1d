"""yarn.lock: yarn 1 (its own line format) and Yarn 2+ "berry" (YAML, read with the subset).

Berry is recognised by a top-level ``__metadata:`` (lockfiles.md §6.2). Both map every
comma-separated descriptor of a header to one entry. Direct dependencies: berry lists them in
the workspace entries (resolution ``<name>@workspace:<dir>``); yarn 1 does not list workspaces
at all (§6.1), so their ranges come from the importers' package.json files. The descriptor
``dep@range`` is then looked up among the headers. Yarn 3 writes ranges without the ``npm:``
protocol that its keys carry, so a range without a protocol means ``npm:<range>``.
"""

from __future__ import annotations

import os

from ._common import (
    ALIAS,
    CWD_DIRECT,
    REGISTRY,
    ROOT_DIRECT,
    TRANSITIVE,
    Candidate,
    LockfileError,
    git_commit,
    importer_tiers,
    is_git_spec,
    read_json_object,
    split_name_spec,
)

_DECLARING = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")


def _is_berry(text: str) -> bool:
    return any(line.startswith(("__metadata:", '"__metadata":')) for line in text.split("\n", 200)[:200])


def candidates(text: str, name: str, rel: str, lock_dir: str) -> list[Candidate]:
    if _is_berry(text):
        return _berry(text, name, rel)
    return _classic(text, name, rel, lock_dir)


def entries(text: str, ctx) -> list[Candidate]:
    if _is_berry(text):
        return _berry_every(text)
    by_descriptor: dict[str, str] = {}
    out: dict[str, Candidate] = {}
    for descriptors, fields in _classic_entries(text):
        key = ", ".join(descriptors)
        for d in descriptors:
            by_descriptor[d] = key
        dep, spec = split_name_spec(descriptors[0])
        real, version, source, ref = _classic_resolve(dep, spec, fields)
        out[key] = Candidate(real, version, key, TRANSITIVE, source, ref, dep if dep != real else None)
    for imp in dict.fromkeys((_nearest_manifest(ctx.rel, ctx.lock_dir), ".")):
        manifest = read_json_object(os.path.join(ctx.lock_dir, imp, "package.json"))
        for section in _DECLARING:
            deps = manifest.get(section)
            for dep, spec in (deps.items() if isinstance(deps, dict) else ()):
                key = by_descriptor.get(f"{dep}@{spec}")
                if key in out:
                    out[key].tier = ROOT_DIRECT
    return list(out.values())


# --- yarn 1 -----------------------------------------------------------------------------------

def _unquote(token: str) -> str:
    token = token.strip()
    if len(token) >= 2 and token[0] == '"' and token[-1] == '"':
        import json
        try:
            return json.loads(token)
        except ValueError:
            return token[1:-1]
    return token


def _split_descriptors(header: str) -> list[str]:
    """``a@1, "b@^2":`` -> ['a@1', 'b@^2'] (split on ', ' outside quotes)."""
    out, current, quoted = [], [], False
    for c in header:
        if c == '"':
            quoted = not quoted
        if c == "," and not quoted:
            out.append("".join(current))
            current = []
            continue
        current.append(c)
    out.append("".join(current))
    return [_unquote(d) for d in out if d.strip()]


def _classic_entries(text: str) -> list[tuple[list[str], dict[str, str]]]:
    entries: list[tuple[list[str], dict[str, str]]] = []
    fields: dict[str, str] | None = None
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line.strip() or line.startswith("#"):
            continue
        if not line.startswith(" "):
            if not line.endswith(":"):
                raise LockfileError(f"not a yarn lockfile (line {number}: expected a header ending in ':')")
            fields = {}
            entries.append((_split_descriptors(line[:-1]), fields))
            continue
        if fields is None:
            raise LockfileError(f"not a yarn lockfile (line {number}: indented line before any header)")
        if line.startswith("  ") and not line.startswith("   "):
            body = line[2:]
            if body.endswith(":"):
                continue  # a nested block (dependencies:); its lines are 4-space indented
            key, _, value = body.partition(" ")
            fields[_unquote(key)] = _unquote(value)
    return entries


def _classic(text: str, name: str, rel: str, lock_dir: str) -> list[Candidate]:
    entries = _classic_entries(text)
    by_descriptor: dict[str, tuple[str, dict[str, str]]] = {}
    out: list[Candidate] = []
    for descriptors, fields in entries:
        key = ", ".join(descriptors)
        for d in descriptors:
            by_descriptor[d] = (key, fields)
        dep, spec = split_name_spec(descriptors[0])
        real, version, source, ref = _classic_resolve(dep, spec, fields)
        if real == name or dep == name:
            alias = dep if dep != real else None
            out.append(Candidate(real, version, key, ALIAS if alias else TRANSITIVE, source, ref, alias))
    # Direct dependencies: the ranges in the importers' package.json files (§6.1).
    importer = _nearest_manifest(rel, lock_dir)
    for imp, level in ((importer, CWD_DIRECT), (".", ROOT_DIRECT)):
        if imp == "." and level == CWD_DIRECT:
            continue
        manifest = read_json_object(os.path.join(lock_dir, imp, "package.json"))
        for section in _DECLARING:
            deps = manifest.get(section)
            spec = deps.get(name) if isinstance(deps, dict) else None
            if not isinstance(spec, str) or spec.startswith("npm:"):
                continue
            hit = by_descriptor.get(f"{name}@{spec}")
            if hit is None:
                continue
            for c in out:
                if c.entry == hit[0] and c.name == name:
                    c.tier = min(c.tier, level)
            break
    return out


def _classic_resolve(dep: str, spec: str, fields: dict[str, str]):
    version = fields.get("version")
    resolved = fields.get("resolved", "")
    real = dep
    if spec.startswith("npm:"):
        real = split_name_spec(spec[4:])[0]
    if is_git_spec(spec) or is_git_spec(resolved):
        return real, None, "git", git_commit(resolved) or resolved or spec
    if spec.startswith(("file:", "link:", "portal:")):
        return real, None, spec.split(":", 1)[0] if spec.startswith("link:") else "file", spec.split(":", 1)[1]
    return real, version, REGISTRY, None


def _nearest_manifest(rel: str, lock_dir: str) -> str:
    """The deepest directory from ``rel`` up to the lockfile's that has a package.json."""
    parts = [] if rel == "." else rel.split("/")
    while parts:
        candidate = "/".join(parts)
        if os.path.isfile(os.path.join(lock_dir, *parts, "package.json")):
            return candidate
        parts.pop()
    return "."


# --- berry ------------------------------------------------------------------------------------

def _with_protocol(spec: str) -> str:
    head, sep, _ = spec.partition(":")
    if sep and head and all(c.isalnum() or c in "+-" for c in head):
        return spec
    return "npm:" + spec


def _berry_doc(text: str) -> dict:
    from .yaml_subset import YamlError, load
    try:
        return load(text)
    except YamlError as e:
        raise LockfileError(f"not in the YAML subset codenav reads ({e})") from None


def _berry_rows(doc: dict):
    """``(key, descriptors, candidate or None for a workspace's own entry, workspace dir, its deps)``."""
    for key, entry in doc.items():
        if key == "__metadata" or not isinstance(entry, dict):
            continue
        descriptors = [d.strip() for d in key.split(",")]
        resolution = str(entry.get("resolution") or descriptors[0])
        real, locator = split_name_spec(resolution)
        dep = split_name_spec(descriptors[0])[0]
        workspace, deps = None, {}
        if locator.startswith("workspace:"):
            for section in _DECLARING:
                if isinstance(entry.get(section), dict):
                    for k, v in entry[section].items():
                        deps.setdefault(k, v)
            workspace = locator[len("workspace:"):]
        version = entry.get("version") if isinstance(entry.get("version"), str) else None
        protocol = locator.split(":", 1)[0]
        source, ref = REGISTRY, None
        if protocol in ("npm", "patch"):
            pass
        elif protocol == "workspace":
            source, ref, version = "workspace", locator.split(":", 1)[1], None
        elif protocol in ("file", "portal", "link"):
            source, ref, version = "file" if protocol != "link" else "link", locator.split(":", 1)[1].split("#")[0].split("::")[0], None
        elif is_git_spec(locator) or "#commit=" in locator:
            source, ref, version = "git", git_commit(locator) or locator, None
        else:
            source, ref, version = "url", locator, None
        alias = dep if dep != real else None
        yield key, descriptors, Candidate(real, version, key, ALIAS if alias else TRANSITIVE, source, ref, alias), \
            workspace, deps


def _berry(text: str, name: str, rel: str) -> list[Candidate]:
    by_descriptor: dict[str, str] = {}
    workspaces: dict[str, dict] = {}
    out: dict[str, Candidate] = {}
    for key, descriptors, candidate, workspace, deps in _berry_rows(_berry_doc(text)):
        for d in descriptors:
            by_descriptor[d.split("::", 1)[0]] = key
        if workspace is not None:
            workspaces[workspace] = deps
        if candidate.name != name and (candidate.alias or candidate.name) != name:
            continue
        out[key] = candidate
    levels = importer_tiers(rel, workspaces)
    for ws, deps in workspaces.items():
        spec = deps.get(name)
        if not isinstance(spec, str):
            continue
        spec = _with_protocol(spec)
        if spec.startswith("npm:") and "@" in spec[5:]:
            continue  # npm:real@x: an alias, not the package itself
        key = by_descriptor.get(f"{name}@{spec}")
        if key is None or key not in out or out[key].name != name:
            continue
        out[key].tier = min(out[key].tier, levels[ws])
    return list(out.values())


def _berry_every(text: str) -> list[Candidate]:
    by_descriptor: dict[str, str] = {}
    declared: list[str] = []
    out: dict[str, Candidate] = {}
    for key, descriptors, candidate, workspace, deps in _berry_rows(_berry_doc(text)):
        for d in descriptors:
            by_descriptor[d.split("::", 1)[0]] = key
        if workspace is not None:
            declared += [f"{dep}@{_with_protocol(spec)}" for dep, spec in deps.items() if isinstance(spec, str)]
        out[key] = candidate
    for descriptor in declared:
        key = by_descriptor.get(descriptor)
        if key in out:
            out[key].tier = ROOT_DIRECT
    return list(out.values())
