"""uv.lock (TOML; lockfiles.md §8.1).

Every ``[[package]]`` of the (normalised) name is a copy; several mean a marker fork, told
apart by ``resolution-markers``. The root importer is the package whose ``source`` is
``{editable|virtual|directory = "."}``; a workspace member's source path is its directory. An
importer's ``dependencies``, ``optional-dependencies`` and ``dev-dependencies`` list names (with
``version`` and ``marker`` only when the name is ambiguous). Only ``registry`` sources are PyPI
versions; git sources carry the commit after ``#``.
"""

from __future__ import annotations

from . import _toml
from ._common import REGISTRY, ROOT_DIRECT, TRANSITIVE, Candidate, LockfileError, git_commit, importer_tiers

_LOCAL = {"editable": "directory", "virtual": "directory", "directory": "directory", "path": "file",
          "url": "url"}


def _source(pkg: dict) -> tuple[str, str | None, str | None]:
    """(source kind, ref, importer path if the package is a project of this lockfile)."""
    src = pkg.get("source") if isinstance(pkg.get("source"), dict) else {}
    if "registry" in src:
        return REGISTRY, None, None
    if "git" in src:
        return "git", git_commit(str(src["git"])) or str(src["git"]), None
    for key, kind in _LOCAL.items():
        if key in src:
            path = str(src[key])
            project = path.strip("/") or "." if key in ("editable", "virtual", "directory") else None
            return kind, path, project
    return REGISTRY, None, None


def _packages(text: str) -> list[dict]:
    doc = _toml.loads(text)
    packages = doc.get("package")
    if not isinstance(packages, list):
        raise LockfileError("no [[package]] tables")
    return [p for p in packages if isinstance(p, dict) and isinstance(p.get("name"), str)]


def _copy(pkg: dict, name: str, source: str, ref: str | None) -> Candidate:
    version = pkg.get("version") if isinstance(pkg.get("version"), str) else None
    return Candidate(name, version if source == REGISTRY else None,
                     f"package {pkg['name']} {pkg.get('version', '')}".strip(), TRANSITIVE, source, ref,
                     marker=pkg.get("resolution-markers"))


def entries(text: str, ctx) -> list[Candidate]:
    from ..registries.pypi import pep503
    out: list[Candidate] = []
    declared: list[dict] = []
    for pkg in _packages(text):
        source, ref, project = _source(pkg)
        if project is not None:
            declared += _declared(pkg)
        out.append(_copy(pkg, pep503(pkg["name"]), source, ref))
    for dep in declared:
        name, wanted = pep503(str(dep.get("name", ""))), dep.get("version")
        for c in out:
            if c.name == name and (wanted is None or c.version == wanted or c.version is None):
                c.tier = ROOT_DIRECT
    return out


def candidates(text: str, name: str, rel: str, lock_dir: str) -> list[Candidate]:
    from ..registries.pypi import pep503
    importers: dict[str, dict] = {}
    out: list[Candidate] = []
    for pkg in _packages(text):
        source, ref, project = _source(pkg)
        if project is not None:
            importers[project.removeprefix("./") or "."] = pkg
        if pep503(pkg["name"]) != name:
            continue
        out.append(_copy(pkg, name, source, ref))
    levels = importer_tiers(rel, importers)
    for imp, pkg in importers.items():
        level = levels[imp]
        for dep in _declared(pkg):
            if pep503(str(dep.get("name", ""))) != name:
                continue
            wanted = dep.get("version")
            for c in out:
                if wanted is None or c.version == wanted or c.version is None:
                    if level < c.tier:
                        c.tier = level
                        if dep.get("marker"):
                            c.marker = dep["marker"]
    return out


def _declared(pkg: dict) -> list[dict]:
    rows = []
    deps = pkg.get("dependencies")
    if isinstance(deps, list):
        rows += deps
    for table in ("optional-dependencies", "dev-dependencies"):
        groups = pkg.get(table)
        if isinstance(groups, dict):
            for items in groups.values():
                if isinstance(items, list):
                    rows += items
    return [r for r in rows if isinstance(r, dict)]
