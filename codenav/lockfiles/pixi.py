"""pixi.lock (rattler_lock's format, versions 6 and 7; docs/registries-reference/conda.md).

``environments.{env}.packages.{platform}`` lists what each environment installs per platform
(``- conda: URL`` or ``- pypi: URL``); the top-level ``packages`` holds one entry per file, whose
``conda:`` is the file's URL and whose ``name``/``version`` are written only when the file name
``{name}-{version}-{build}.conda|.tar.bz2`` does not give them. The copies the ``default``
environment installs on this machine's subdir are the candidates when there are any (another
platform may lock another build), else every conda entry. A ``conda:`` that is no package URL
is a source package pixi builds: a git URL or a local path, with no registry version.
"""

from __future__ import annotations

from ._common import REGISTRY, TRANSITIVE, Candidate, LockfileError
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


def candidates(text: str, name: str, rel: str, lock_dir: str) -> list[Candidate]:
    from ..registries.conda import machine_subdir

    try:
        doc = load(text)
    except YamlError as e:
        raise LockfileError(f"not in the YAML subset codenav reads ({e})") from None
    if str(doc.get("version", "")) not in ("4", "5", "6", "7") or not isinstance(doc.get("packages"), list):
        raise LockfileError(f"not a pixi.lock this codenav reads (version {doc.get('version')!r})")
    here = set()
    environments = doc.get("environments") if isinstance(doc.get("environments"), dict) else {}
    default = environments.get("default") if isinstance(environments.get("default"), dict) else {}
    per_platform = default.get("packages") if isinstance(default.get("packages"), dict) else {}
    for entry in per_platform.get(machine_subdir()) or []:
        if isinstance(entry, dict) and isinstance(entry.get("conda"), str):
            here.add(entry["conda"])
    out: list[tuple[Candidate, bool]] = []  # each copy, and whether it is this machine's
    for entry in doc["packages"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("conda"), str):
            continue
        location = entry["conda"]
        identity = file_identity(location)
        pname = str(entry.get("name") or (identity[0] if identity else "")).lower()
        if pname != name:
            continue
        version = str(entry.get("version") or (identity[1] if identity else "")) or None
        source, ref = REGISTRY, None
        if identity is None or "://" not in location:
            source = "git" if location.startswith("git+") or ".git" in location else "directory"
            ref, version = location, None
        out.append((Candidate(name, version, f"packages conda {location}", TRANSITIVE, source, ref), location in here))
    return [c for c, mine in out if mine] or [c for c, _ in out]
