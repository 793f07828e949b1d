"""pnpm-lock.yaml (lockfileVersion 5.x, 6.0, 9.0) and the hidden node_modules/.pnpm/lock.yaml.

Read with the YAML subset; the last document that has ``importers`` is the project's graph
(pnpm ≥ 11 may put an env document first, lockfiles.md §5.1). Direct dependencies come from
``importers`` (v5/v6 single-project files keep them at the top level: importer '.'); every
copy, transitive ones included, from the ``packages`` keys (§5.3). Importer values are decoded
per §5.2: ``link:``/``file:`` are local, a peer suffix is cut (``(`` in v6/v9, ``_`` in v5), a
``name@version`` (v9) or ``/name@version`` (v6) or ``/name/version`` (v5) value is an alias.
"""

from __future__ import annotations

from ._common import (
    ALIAS,
    REGISTRY,
    ROOT_DIRECT,
    TRANSITIVE,
    Candidate,
    LockfileError,
    importer_tiers,
    split_name_spec,
)
from .yaml_subset import YamlError, load_all

_SECTIONS = ("dependencies", "devDependencies", "optionalDependencies")


def _graph(text: str) -> tuple[int, dict, dict]:
    """(the lockfile's major version, its packages, its importers) from the last graph document."""
    try:
        docs = load_all(text)
    except YamlError as e:
        raise LockfileError(f"not in the YAML subset codenav reads ({e})") from None
    graph = [d for d in docs if isinstance(d, dict) and "importers" in d]
    doc = graph[-1] if graph else docs[-1]
    if not isinstance(doc, dict) or "lockfileVersion" not in doc:
        raise LockfileError("no lockfileVersion")
    major = _major(str(doc.get("lockfileVersion")))
    packages = doc.get("packages") if isinstance(doc.get("packages"), dict) else {}
    importers = doc.get("importers") if isinstance(doc.get("importers"), dict) else {".": doc}
    return major, packages, importers


def _declared(importers: dict, major: int, packages: dict):
    """``(importer, section, dep, (real, version, source, ref, key))`` for every importer value."""
    for imp, body in importers.items():
        if not isinstance(body, dict):
            continue
        for section in _SECTIONS:
            deps = body.get(section)
            if not isinstance(deps, dict):
                continue
            for dep, value in deps.items():
                specifier = value.get("specifier") if isinstance(value, dict) else None
                if isinstance(value, dict):
                    value = value.get("version")
                if not isinstance(value, str):
                    continue
                real, version, source, ref, key = _decode(dep, value, major, packages)
                if source == "link" and str(specifier or "").startswith("workspace:"):
                    source = "workspace"
                yield imp, section, dep, (real, version, source, ref, key)


def entries(text: str, ctx) -> list[Candidate]:
    major, packages, importers = _graph(text)
    out: list[Candidate] = []
    covered: set[str] = set()
    for imp, section, dep, (real, version, source, ref, key) in _declared(importers, major, packages):
        if key is not None:
            if key in covered:
                continue
            covered.add(key)
        out.append(Candidate(real, version, key or f"importers.{imp}.{section}.{dep}", ROOT_DIRECT, source, ref,
                             dep if real != dep else None))
    for key, entry in packages.items():
        parsed = _package_key(key, entry if isinstance(entry, dict) else {}, major)
        if parsed is None or key in covered:
            continue
        out.append(Candidate(parsed[0], parsed[1], key, TRANSITIVE, parsed[2], parsed[3]))
    return out


def candidates(text: str, name: str, rel: str, lock_dir: str) -> list[Candidate]:
    major, packages, importers = _graph(text)
    out: list[Candidate] = []
    levels = importer_tiers(rel, importers)
    for imp, section, dep, (real, version, source, ref, key) in _declared(importers, major, packages):
        if real != name and dep != name:
            continue
        alias = dep if real != dep else None
        tier = ALIAS if alias else levels[imp]
        out.append(Candidate(real, version, key or f"importers.{imp}.{section}.{dep}", tier, source, ref, alias))
    for key, entry in packages.items():
        parsed = _package_key(key, entry if isinstance(entry, dict) else {}, major)
        if parsed is None or parsed[0] != name:
            continue
        pname, version, source, ref = parsed
        out.append(Candidate(pname, version, key, TRANSITIVE, source, ref))
    return out


def _major(version: str) -> int:
    digits = version.strip("'\" ").split(".", 1)[0]
    if not digits.isdigit():
        raise LockfileError(f"unknown lockfileVersion {version}")
    return int(digits)


def _resolution(entry: dict) -> tuple[str, str | None]:
    res = entry.get("resolution")
    if isinstance(res, dict):
        if res.get("type") == "git" or "commit" in res:
            return "git", str(res.get("commit") or res.get("repo") or "") or None
        if res.get("type") == "directory":
            return "directory", str(res.get("directory") or "") or None
        if "tarball" in res and "integrity" not in res:
            return "url", str(res["tarball"])
    return REGISTRY, None


def _decode(dep: str, value: str, major: int, packages: dict):
    """(real name, version, source, ref, packages key or None) of an importer's value."""
    if value.startswith("link:"):
        return dep, None, "link", value[5:], None
    if value.startswith("file:"):
        key = f"{dep}@{value}" if major >= 9 else value
        entry = packages.get(key) if isinstance(packages.get(key), dict) else {}
        name = entry.get("name") if isinstance(entry.get("name"), str) else dep
        return name, None, "file", value[5:], key if key in packages else None
    if major >= 6:
        bare = value.split("(", 1)[0]
        if major < 9 and bare.startswith("/"):
            real, version = split_name_spec(bare[1:])
            return real, version, REGISTRY, None, _existing(packages, value, f"/{real}@{version}")
        if bare[:1].isdigit():
            key = _existing(packages, f"{dep}@{bare}", f"/{dep}@{value}", f"/{dep}@{bare}")
            return dep, bare, REGISTRY, None, key
        real, spec = split_name_spec(bare)
        if spec and ":" not in real and spec[:1].isdigit():
            return real, spec, REGISTRY, None, _existing(packages, f"{real}@{spec}")
        key = f"{dep}@{value}" if major >= 9 else value
        entry = packages.get(key) if isinstance(packages.get(key), dict) else {}
        source, ref = _resolution(entry)
        if source == REGISTRY:
            source = "url"
        version = entry.get("version") if isinstance(entry.get("version"), str) else None
        return dep, version, source, ref, key if key in packages else None
    # lockfileVersion 5.x
    if value[:1].isdigit():
        version = value.split("_", 1)[0]
        return dep, version, REGISTRY, None, _existing(packages, f"/{dep}/{value}", f"/{dep}/{version}")
    entry = packages.get(value) if isinstance(packages.get(value), dict) else {}
    source, ref = _resolution(entry)
    if source != REGISTRY or not value.startswith("/"):
        if source == REGISTRY:
            source = "url"
        version = entry.get("version") if isinstance(entry.get("version"), str) else None
        return str(entry.get("name") or dep), version, source, ref, value if value in packages else None
    real, version = _v5_path(value)
    if real is None:
        return dep, None, "url", value, None
    return real, version, REGISTRY, None, value if value in packages else None


def _existing(packages: dict, *keys) -> str | None:
    return next((k for k in keys if k and k in packages), None)


def _v5_path(path: str) -> tuple[str | None, str | None]:
    """``/name/1.2.3_peer`` or ``/@scope/name/1.2.3`` -> (name, version)."""
    parts = path.lstrip("/").split("/")
    if parts and parts[0].startswith("@"):
        if len(parts) != 3:
            return None, None
        name, version = f"{parts[0]}/{parts[1]}", parts[2]
    else:
        if len(parts) != 2:
            return None, None
        name, version = parts
    version = version.split("_", 1)[0]
    return (name, version) if version[:1].isdigit() else (None, None)


def _package_key(key: str, entry: dict, major: int):
    """(name, version, source, ref) of a ``packages`` key, or None if it names no package."""
    source, ref = _resolution(entry)
    fixed_name = entry.get("name") if isinstance(entry.get("name"), str) else None
    fixed_version = entry.get("version") if isinstance(entry.get("version"), str) else None
    if major >= 6:
        bare = key[1:] if key.startswith("/") else key
        bare = bare.split("(", 1)[0]
        if bare.startswith("file:"):
            name, spec = fixed_name, bare
        else:
            name, spec = split_name_spec(bare)
            name = fixed_name or name
    else:
        if key.startswith("/"):
            name, spec = _v5_path(key)
            if name is None:
                name, spec = fixed_name, None
            else:
                name = fixed_name or name
        else:
            name, spec = fixed_name, None
    if not name:
        return None
    if spec and (spec.startswith("file:") or spec.startswith("link:")):
        return name, None, "file" if source == REGISTRY else source, spec.split(":", 1)[1]
    if source != REGISTRY:
        return name, None, source, ref
    version = fixed_version or (spec if spec and spec[:1].isdigit() else None)
    if version is None:
        return None
    return name, version, REGISTRY, None
