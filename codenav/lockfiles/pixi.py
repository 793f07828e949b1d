"""pixi.lock (rattler_lock's format, versions 4 to 7; docs/registries-reference/conda.md).

``environments.{env}.packages.{platform}`` lists what each environment installs per platform
(``- conda: URL`` or ``- pypi: URL``); the top-level ``packages`` holds one entry per file: from
version 6 on, its ``conda:`` is the file's URL and ``name``/``version`` are written only when the
file name ``{name}-{version}-{build}.conda|.tar.bz2`` does not give them; versions 4 and 5 write
``kind: conda`` with the ``url``, ``name`` and ``version``. A package's copies are those the
``default`` environment installs on this machine's subdir when there are any, else every copy
(conda_project.py). A ``conda:`` that is no package URL is a source package pixi builds: a git
URL or a local path, with no registry version. The ``pypi`` entries are PyPI's, not read here;
pixi.toml names the direct dependencies (conda_project.py).
"""

from __future__ import annotations

from ._common import REGISTRY, Candidate, LockfileError
from .conda_project import pixi_direct, this_machine, tier
from .yaml_subset import YamlError, load

EXTENSIONS = (".conda", ".tar.bz2")


def file_identity(url: str) -> tuple[str, str, str] | None:
    """(name, version, build) of a conda package file URL, or None when it names none."""
    filename = url.split("?", 1)[0].split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    ext = next((e for e in EXTENSIONS if filename.endswith(e)), None)
    if ext is None:
        return None
    parts = filename[: -len(ext)].rsplit("-", 2)
    return (parts[0].lower(), parts[1], parts[2]) if len(parts) == 3 and all(parts) else None


def _location(entry: object) -> str | None:
    """The conda package's URL or source location (v6+: ``conda:``; v4/v5: ``kind: conda`` + ``url``)."""
    if not isinstance(entry, dict):
        return None
    if isinstance(entry.get("conda"), str):
        return entry["conda"]
    return entry["url"] if entry.get("kind") == "conda" and isinstance(entry.get("url"), str) else None


def entries(text: str, ctx) -> list[Candidate]:
    from ..registries.conda import machine_subdir

    try:
        doc = load(text)
    except YamlError as e:
        raise LockfileError(f"not in the YAML subset codenav reads ({e})") from None
    if str(doc.get("version", "")) not in ("4", "5", "6", "7") or not isinstance(doc.get("packages"), list):
        raise LockfileError(f"not a pixi.lock this codenav reads (version {doc.get('version')!r})")
    environments = doc.get("environments") if isinstance(doc.get("environments"), dict) else {}
    default = environments.get("default") if isinstance(environments.get("default"), dict) else {}
    per_platform = default.get("packages") if isinstance(default.get("packages"), dict) else {}
    here = machine_subdir()
    installed = {entry["conda"] for entry in per_platform.get(here) or []
                 if isinstance(entry, dict) and isinstance(entry.get("conda"), str)}
    direct = pixi_direct(ctx)
    copies: list[tuple[Candidate, str | None]] = []
    for entry in doc["packages"]:
        location = _location(entry)
        if location is None:
            continue
        identity = file_identity(location)
        name = str(entry.get("name") or (identity[0] if identity else "")).lower()
        if not name:
            continue
        if identity is None or "://" not in location:
            source = "git" if location.startswith("git+") or ".git" in location else "directory"
            candidate = Candidate(name, None, f"packages conda {location}", tier(name, direct), source, location)
        else:
            version = str(entry.get("version") or identity[1])
            subdir = location.split("?", 1)[0].rsplit("/", 2)[-2]
            candidate = Candidate(name, version, f"packages {subdir}/{location.rsplit('/', 1)[-1]}",
                                  tier(name, direct), REGISTRY)
        copies.append((candidate, here if location in installed else None))
    return this_machine(copies)
