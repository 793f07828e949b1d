"""composer.lock (JSON; docs/lockfiles.md "packagist").

``packages`` and ``packages-dev`` are lists of installed packages, each with its ``name`` and
``version`` as published (``v3.7.0``). A branch (``dev-main``, ``1.x-dev``) is no release: it is
read from its ``source.reference`` commit. A package from a ``path`` repository
(``dist.type: path``) is a local directory. The direct dependencies are composer.json's
``require`` and ``require-dev`` (platform packages such as ``php`` and ``ext-json`` are never
in the lockfile). Names compare lower-cased, as Composer's do.
"""

from __future__ import annotations

import os

from ._common import REGISTRY, ROOT_DIRECT, TRANSITIVE, Candidate, LockfileError


def _load_json(text: str):
    import json
    try:
        return json.loads(text)
    except ValueError as e:
        line = getattr(e, "lineno", None)
        raise LockfileError(f"not valid JSON{f' (line {line})' if line else ''}") from None
    except RecursionError:
        raise LockfileError("nested too deeply") from None


def _direct(ctx) -> set[str]:
    text = ctx.read(os.path.join(ctx.lock_dir, "composer.json"))
    try:
        manifest = _load_json(text) if text else {}
    except LockfileError:
        return set()
    names: set[str] = set()
    for section in ("require", "require-dev"):
        if isinstance(manifest, dict) and isinstance(manifest.get(section), dict):
            names.update(k.lower() for k in manifest[section] if isinstance(k, str))
    return names


def entries(text: str, ctx) -> list[Candidate]:
    doc = _load_json(text)
    if not isinstance(doc, dict) or not any(isinstance(doc.get(s), list) for s in ("packages", "packages-dev")):
        raise LockfileError("neither 'packages' nor 'packages-dev' is a list")
    direct = _direct(ctx)
    out = []
    bad = 0
    for section in ("packages", "packages-dev"):
        rows = doc.get(section)
        if rows is not None and not isinstance(rows, list):
            ctx.note(None, f"composer.lock: skipped '{section}': not a list")
        for pkg in rows if isinstance(rows, list) else ():
            if not isinstance(pkg, dict) or not isinstance(pkg.get("name"), str):
                bad += 1
                continue
            name = pkg["name"]
            version = pkg.get("version") if isinstance(pkg.get("version"), str) else None
            src = pkg.get("source") if isinstance(pkg.get("source"), dict) else {}
            dist = pkg.get("dist") if isinstance(pkg.get("dist"), dict) else {}
            source, ref = REGISTRY, None
            if dist.get("type") == "path":
                source, ref = "directory", str(dist.get("url") or "") or None
            elif version is None or version.startswith("dev-") or version.endswith("-dev"):
                source = "git" if src.get("type") == "git" else "url"
                ref = str(src.get("reference") or dist.get("reference") or src.get("url") or "") or None
            tier = ROOT_DIRECT if name.lower() in direct else TRANSITIVE
            out.append(Candidate(name, version if source == REGISTRY else None, f"{section} {name}", tier, source, ref))
    ctx.skipped(bad, "not a package with a name")
    return out
