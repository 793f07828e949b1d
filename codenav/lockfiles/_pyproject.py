"""Direct Python dependencies from the project's manifests (lockfiles.md §8).

Poetry, PDM, pipenv and pylock files carry no "direct" mark, so the names come from
``pyproject.toml`` (``[project]`` dependencies and optional dependencies, PEP 735
``[dependency-groups]``, Poetry's ``[tool.poetry.*dependencies]``) or the ``Pipfile``
(``[packages]``, ``[dev-packages]``). Every name is PEP 503-normalised.
"""

from __future__ import annotations

import os

from ._common import read_toml


def requirement_name(text: str) -> str | None:
    """The distribution name at the start of a PEP 508 string, normalised."""
    from ..registries.pypi import pep503
    text = text.strip()
    end = 0
    while end < len(text) and (text[end].isalnum() or (end and text[end] in "._-")):
        end += 1
    return pep503(text[:end]) if end else None


def _names_of(doc: dict) -> set[str]:
    from ..registries.pypi import pep503
    names: set[str] = set()
    project = doc.get("project") if isinstance(doc.get("project"), dict) else {}
    lists = [project.get("dependencies")]
    optional = project.get("optional-dependencies")
    if isinstance(optional, dict):
        lists += list(optional.values())
    groups = doc.get("dependency-groups")
    if isinstance(groups, dict):
        lists += list(groups.values())
    for items in lists:
        if isinstance(items, list):
            for item in items:
                if isinstance(item, str):
                    n = requirement_name(item)
                    if n:
                        names.add(n)
    poetry = doc.get("tool", {}).get("poetry") if isinstance(doc.get("tool"), dict) else None
    if isinstance(poetry, dict):
        tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
        group = poetry.get("group")
        if isinstance(group, dict):
            tables += [g.get("dependencies") for g in group.values() if isinstance(g, dict)]
        for table in tables:
            if isinstance(table, dict):
                names.update(pep503(k) for k in table if k.lower() != "python")
    for section in ("packages", "dev-packages"):  # a Pipfile
        if isinstance(doc.get(section), dict):
            names.update(pep503(k) for k in doc[section])
    return names


def direct_names(lock_dir: str, rel: str) -> tuple[set[str], set[str]]:
    """(names the importer containing ``rel`` declares, names the root declares)."""
    root = _names_of(read_toml(os.path.join(lock_dir, "pyproject.toml")))
    root |= _names_of(read_toml(os.path.join(lock_dir, "Pipfile")))
    parts = [] if rel == "." else rel.split("/")
    while parts:
        path = os.path.join(lock_dir, *parts, "pyproject.toml")
        if os.path.isfile(path):
            return _names_of(read_toml(path)), root
        parts.pop()
    return root, root


def every(packages: list, ctx, copy) -> list:
    """Every package of a lockfile without a graph (Poetry, PDM, pylock): ``copy(pkg, name, tier)``
    for each, the names the project's manifests declare at ``ROOT_DIRECT``."""
    from ..registries.pypi import pep503
    from ._common import ROOT_DIRECT, TRANSITIVE
    mine, root = direct_names(ctx.lock_dir, ctx.rel)
    direct = mine | root
    out = []
    for pkg in packages:
        if isinstance(pkg, dict) and isinstance(pkg.get("name"), str):
            name = pep503(pkg["name"])
            out.append(copy(pkg, name, ROOT_DIRECT if name in direct else TRANSITIVE))
    return out


def named(packages: list, name: str, rel: str, lock_dir: str, copy) -> list:
    """The copies of ``name`` in a lockfile without a graph, at the tier the manifests give it:
    the start directory's own project first, then the root's (lockfiles.md §2)."""
    from ..registries.pypi import pep503
    from ._common import CWD_DIRECT, ROOT_DIRECT, TRANSITIVE
    mine, root = direct_names(lock_dir, rel)
    tier = CWD_DIRECT if name in mine and mine is not root else \
        ROOT_DIRECT if name in root or name in mine else TRANSITIVE
    return [copy(pkg, name, tier) for pkg in packages
            if isinstance(pkg, dict) and pep503(str(pkg.get("name", ""))) == name]


def locked_copy(pkg: dict, table: str, name: str, tier: int, where: tuple[str, str | None], marker: object,
                suffix: str = ""):
    """The ``Candidate`` of one ``[[table]]`` entry from ``where`` (source, ref): a registry copy
    keeps its version, a git or local one has none; ``suffix`` ends the entry's name (PDM's extras)."""
    from ._common import REGISTRY, Candidate
    source, ref = where
    version = pkg.get("version") if source == REGISTRY and isinstance(pkg.get("version"), str) else None
    entry = f"{table} {pkg.get('name')} {pkg.get('version', '')}".strip() + suffix
    return Candidate(name, version, entry, tier, source, ref, marker=marker)


def tables(text: str, key: str) -> list:
    """The ``[[key]]`` tables of a TOML lockfile (``package`` for Poetry and PDM, ``packages`` for pylock)."""
    from . import _toml
    from ._common import LockfileError
    packages = _toml.loads(text).get(key)
    if not isinstance(packages, list):
        raise LockfileError(f"no [[{key}]] tables")
    return packages
