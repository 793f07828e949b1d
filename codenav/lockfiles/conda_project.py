"""What a conda project adds to the generic lookup (the conda row's hooks), and what its three
readers share: this machine's copies, and the direct dependencies a manifest declares.

pixi.lock and conda-lock.yml lock each platform on its own, so a package has one copy per
platform; the copies for this machine's subdir (``CONDA_SUBDIR`` first, as conda reads it) are
the package's, else (a platform the project does not lock) every copy. The answer therefore
depends on the subdir, which keys the memo (``memo_tag``).

Direct dependencies: pixi.lock's manifest is pixi.toml (or pyproject.toml's ``[tool.pixi]``),
whose dependency tables (``[dependencies]``, ``[host-dependencies]``, ``[build-dependencies]``,
each also under ``[target.PLATFORM]`` and ``[feature.NAME]``) name them; conda-lock.yml names its
sources in ``metadata.sources`` (an environment.yml's ``dependencies``); an environment.yml is
itself the list. When no manifest says, every package counts as direct (as for renv.lock).
"""

from __future__ import annotations

import os

from ._common import ROOT_DIRECT, TRANSITIVE, Candidate, LockfileError

_TABLES = ("dependencies", "host-dependencies", "build-dependencies")


def memo_tag() -> str:
    """The subdir: pixi.lock and conda-lock.yml answer per platform."""
    from ..registries.conda import machine_subdir

    return machine_subdir()


def this_machine(copies: list[tuple[Candidate, str | None]]) -> list[Candidate]:
    """``(candidate, its subdir or None)`` pairs -> for each name, the copies of this machine's
    subdir when it has any, else all of that name's copies (in the file's order)."""
    from ..registries.conda import machine_subdir

    here = machine_subdir()
    mine = {c.name for c, subdir in copies if subdir == here}
    return [c for c, subdir in copies if c.name not in mine or subdir == here]


def tier(name: str, direct: set[str] | None) -> int:
    return ROOT_DIRECT if direct is None or name in direct else TRANSITIVE


def _table_names(table: object) -> set[str]:
    names: set[str] = set()
    if not isinstance(table, dict):
        return names
    for key in _TABLES:
        if isinstance(table.get(key), dict):
            names |= {str(n).lower() for n in table[key]}
    for nested in ("target", "feature"):
        for inner in (table.get(nested) or {}).values() if isinstance(table.get(nested), dict) else ():
            names |= _table_names(inner)
    return names


def pixi_direct(ctx) -> set[str] | None:
    """The conda packages pixi.toml (else pyproject.toml's ``[tool.pixi]``) beside the lock declares."""
    from . import _toml

    for manifest in ("pixi.toml", "pyproject.toml"):
        text = ctx.read(os.path.join(ctx.lock_dir, manifest)) if ctx is not None else None
        if not text:
            continue
        try:
            doc = _toml.loads(text)
        except LockfileError:
            ctx.note(None, f"{manifest}: not valid TOML; every locked package counts as direct")
            return None
        if manifest == "pyproject.toml":
            doc = (doc.get("tool") or {}).get("pixi") if isinstance(doc.get("tool"), dict) else None
            if not isinstance(doc, dict):
                continue
        return _table_names(doc)
    return None


def sources_direct(ctx, sources: object) -> set[str] | None:
    """The packages conda-lock's environment-file sources (``metadata.sources``) declare."""
    from .environment_yml import declared

    if ctx is None or not isinstance(sources, list):
        return None
    found: set[str] | None = None
    for source in sources:
        if not isinstance(source, str) or not source.endswith((".yml", ".yaml")):
            continue
        text = ctx.read(os.path.normpath(os.path.join(ctx.lock_dir, source)))
        if text:
            try:
                found = (found or set()) | {name for name, _ in declared(text)}
            except LockfileError:
                continue
    return found
