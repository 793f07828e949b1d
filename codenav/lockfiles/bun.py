"""bun.lock: JSON with trailing commas (lockfiles.md §3.5, §7).

The trailing commas are removed with one regex, then ``json`` reads it; only if that fails does
a string-aware pass (which also drops ``//`` and ``/* */`` comments) run. ``packages`` is keyed by
the Node install path without ``node_modules/`` (a workspace's own copies sit under its package
*name*: ``@demo/app/debug``), its first element the ident ``name@version``. Workspace ranges are
in ``workspaces[<dir>]``. ``bun.lockb`` is binary and never read (the caller says so).
"""

from __future__ import annotations

from . import _node
from ._common import REGISTRY, LockfileError, git_commit, is_git_spec, split_name_spec


def _loads(text: str):
    import json
    import re
    try:
        return json.loads(re.sub(r",(\s*[}\]])", r"\1", text))
    except ValueError:
        pass
    try:
        return json.loads(_strip_jsonc(text))
    except ValueError as e:
        line = getattr(e, "lineno", None)
        raise LockfileError(f"not valid JSON{f' (line {line})' if line else ''}") from None


def _strip_jsonc(text: str) -> str:
    """Drop comments and trailing commas outside strings."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "}]":
                i += 1
                continue
            out.append(c)
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _installed_name(key: str) -> str:
    parts = key.split("/")
    if len(parts) >= 2 and parts[-2].startswith("@"):
        return f"{parts[-2]}/{parts[-1]}"
    return parts[-1]


def candidates(text: str, name: str, rel: str, lock_dir: str):
    copies, importers, nested, hoisted = _parse(text)
    return _node.rank(name, copies, importers, rel, nested, hoisted)


def entries(text: str, ctx):
    return _node.every(*_parse(text))


def _parse(text: str):
    """(copies, importers, the nested-key and hoisted-key functions) of a bun.lock."""
    doc = _loads(text)
    if not isinstance(doc, dict) or not isinstance(doc.get("packages"), dict):
        raise LockfileError("no 'packages' object")
    workspaces = doc.get("workspaces") if isinstance(doc.get("workspaces"), dict) else {}
    copies: dict[str, _node.Copy] = {}
    for key, row in doc["packages"].items():
        if not isinstance(row, list) or not row or not isinstance(row[0], str):
            continue
        installed = _installed_name(key)
        real, spec = split_name_spec(row[0])
        if spec.startswith("workspace:"):
            copy = _node.Copy(key, installed, real, None, "workspace", spec[len("workspace:"):])
        elif spec.startswith(("file:", "link:")):
            copy = _node.Copy(key, installed, real, None, spec.split(":", 1)[0], spec.split(":", 1)[1])
        elif is_git_spec(spec):
            commit = row[2] if len(row) > 2 and isinstance(row[2], str) else git_commit(spec)
            copy = _node.Copy(key, installed, real, None, "git", commit or spec)
        elif spec[:1].isdigit():
            copy = _node.Copy(key, installed, real, spec, REGISTRY, None)
        else:
            copy = _node.Copy(key, installed, real, None, "url", spec)
        copies[key] = copy
    importers: dict[str, dict] = {}
    names: dict[str, str] = {}
    for ws, body in workspaces.items():
        if not isinstance(body, dict):
            continue
        imp = "." if ws == "" else ws
        declared: dict = {}
        for section in ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies"):
            if isinstance(body.get(section), dict):
                for dep, spec in body[section].items():
                    declared.setdefault(dep, spec)
        importers[imp] = declared
        names[imp] = body.get("name") if isinstance(body.get("name"), str) else ""
    return (copies, importers, lambda imp, dep: f"{names.get(imp)}/{dep}" if imp != "." and names.get(imp) else None,
            lambda dep: dep)
