"""npm-shrinkwrap.json, package-lock.json (v1, v2, v3) and node_modules/.package-lock.json.

v2/v3 (lockfiles.md §4.1): ``packages`` is keyed by install path; the folder after the last
``node_modules/`` is the installed name, ``entry.name`` the real one (aliases); keys without a
``node_modules/`` segment are importers (the root ``""`` and the workspaces) and declare ranges.
``link: true`` entries point at their target through ``resolved``. v1 (§4.2) is a nested
``dependencies`` tree; it is flattened into the same install-path form, with the importers'
declarations read from their package.json files (v1 has no root entry). The hidden lockfile
(§4.3) is v3 without the root entry. When ``packages`` exists, ``dependencies`` is ignored, as
npm does.
"""

from __future__ import annotations

import os

from . import _node
from ._common import REGISTRY, LockfileError, git_commit, is_git_spec, read_json_object

_DECLARING = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")


def _parse(text: str, lock_dir: str) -> tuple[dict[str, _node.Copy], dict[str, dict]]:
    """(every copy by install path, every importer's declared ranges)."""
    import json
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise LockfileError(f"not valid JSON ({_where(e)})") from None
    if not isinstance(doc, dict):
        raise LockfileError("not a JSON object")
    packages = doc.get("packages")
    if isinstance(packages, dict):
        raw = packages
    elif isinstance(doc.get("dependencies"), dict):
        raw = _flatten_v1(doc["dependencies"], lock_dir)
    else:
        raise LockfileError("neither 'packages' nor 'dependencies' is present")
    copies: dict[str, _node.Copy] = {}
    importers: dict[str, dict] = {}
    for key, entry in raw.items():
        if not isinstance(key, str) or not isinstance(entry, dict):
            continue
        installed = _installed_name(key)
        if installed is None:  # an importer: the root "" or a workspace/link target folder
            declared: dict = {}
            for section in _DECLARING:
                deps = entry.get(section)
                if isinstance(deps, dict):
                    for dep, spec in deps.items():
                        declared.setdefault(dep, spec)
            importers["." if key == "" else key] = declared
            continue
        copies[key] = _copy(key, installed, entry, raw, importers)
    return copies, importers


def _nested(imp: str, dep: str) -> str:
    return f"node_modules/{dep}" if imp == "." else f"{imp}/node_modules/{dep}"


def _hoisted(dep: str) -> str:
    return f"node_modules/{dep}"


def candidates(text: str, name: str, rel: str, lock_dir: str):
    copies, importers = _parse(text, lock_dir)
    return _node.rank(name, copies, importers, rel, _nested, _hoisted)


def entries(text: str, ctx):
    copies, importers = _parse(text, ctx.lock_dir)
    return _node.every(copies, importers, _nested, _hoisted)


def _where(error: ValueError) -> str:
    line, col = getattr(error, "lineno", None), getattr(error, "colno", None)
    return f"line {line}, column {col}" if line else "parse error"


def _installed_name(key: str) -> str | None:
    if key.startswith("node_modules/"):
        tail = key[len("node_modules/"):]
    elif "/node_modules/" in key:
        tail = key.rsplit("/node_modules/", 1)[1]
    else:
        return None
    return tail.rsplit("/node_modules/", 1)[-1]


def _copy(key: str, installed: str, entry: dict, raw: dict, importers: dict) -> _node.Copy:
    real = entry.get("name") if isinstance(entry.get("name"), str) else installed
    version = entry.get("version") if isinstance(entry.get("version"), str) else None
    resolved = entry.get("resolved") if isinstance(entry.get("resolved"), str) else ""
    if entry.get("link"):
        # A symlink to a workspace or a file: dependency; the target's own entry has the version.
        target = raw.get(resolved) if isinstance(raw.get(resolved), dict) else {}
        target_name = target.get("name") if isinstance(target.get("name"), str) else real
        root = raw.get("") if isinstance(raw.get(""), dict) else {}
        declared = [root.get(s, {}).get(installed) for s in _DECLARING if isinstance(root.get(s), dict)]
        if any(isinstance(d, str) and d.startswith(("file:", "link:")) for d in declared):
            source = "file"
        else:
            source = "workspace" if target.get("name") else "file"
        return _node.Copy(key, installed, target_name, None, source, resolved)
    if is_git_spec(resolved):
        return _node.Copy(key, installed, real, None, "git", git_commit(resolved) or resolved)
    if resolved.startswith("file:"):
        return _node.Copy(key, installed, real, None, "file", resolved[5:])
    return _node.Copy(key, installed, real, version, REGISTRY, None)


def _flatten_v1(tree: dict, lock_dir: str) -> dict:
    """The v1 ``dependencies`` tree in v2's install-path form, with importer entries added."""
    flat: dict[str, dict] = {"": _manifest_entry(os.path.join(lock_dir, "package.json"))}

    def walk(deps: dict, prefix: str) -> None:
        for dep, node in deps.items():
            if not isinstance(node, dict):
                continue
            key = f"{prefix}node_modules/{dep}"
            version = node.get("version") if isinstance(node.get("version"), str) else ""
            nested_prefix = key + "/"
            if version.startswith("npm:"):
                real, _, ver = version[4:].rpartition("@")
                flat[key] = {"name": real, "version": ver}
            elif version.startswith("file:"):
                target = version[5:]
                flat[key] = {"link": True, "resolved": target}
                manifest = _manifest_entry(os.path.join(lock_dir, target, "package.json"))
                flat.setdefault(target, manifest or {"version": None})
                nested_prefix = target + "/"  # a workspace's own copies live under its folder
            elif is_git_spec(version):
                flat[key] = {"resolved": version}
            else:
                flat[key] = {"version": version}
            if isinstance(node.get("dependencies"), dict):
                walk(node["dependencies"], nested_prefix)

    walk(tree, "")
    return flat


def _manifest_entry(path: str) -> dict:
    manifest = read_json_object(path)
    entry = {k: manifest[k] for k in ("name", "version", *_DECLARING) if k in manifest}
    return entry
