"""What a project locks, every ecosystem at once (issue 23 items 2 and 3: ``deps`` and searches
across the dependencies).

``locked_dependencies(start_dir)`` walks up from ``start_dir`` once per ecosystem of the table,
as ``find_locked`` does, and reads the lockfile ``find_locked`` would read first: every registry
package it locks, each ``(registry, name, version)`` once, marked ``direct`` when an importer of
the project declares it (a workspace or module of the project counts as an importer). A copy
that is not from the registry (git, a path, a workspace) is left out: it has no version to
fetch. Bad files are skipped with a warning, as for ``find_locked``; the answer is memoised
under ``state/lockfiles/`` against the files it read, so a warm call parses nothing.
"""

from __future__ import annotations

import os

from ._common import OTHER_DIRECT, REGISTRY


class Dependency:
    """One locked registry package: ``spec`` is what ``codenav read`` takes as SPEC."""

    __slots__ = ("registry", "name", "version", "direct", "file", "entry", "kind")

    def __init__(self, registry: str, name: str, version: str, direct: bool, file: str, entry: str,
                 kind: str) -> None:
        self.registry, self.name, self.version, self.direct = registry, name, version, direct
        self.file, self.entry, self.kind = file, entry, kind

    @property
    def spec(self) -> str:
        return f"{self.registry}:{self.name}@{self.version}"

    def __repr__(self) -> str:
        return f"Dependency({self.spec!r}, direct={self.direct}, file={self.file!r}, entry={self.entry!r})"


class Locks:
    """The answer: ``dependencies`` (table order, then name, case ignored, then version), the ``lockfiles`` read
    as ``(registry, file relative to the start)``, and one-line ``warnings``."""

    def __init__(self) -> None:
        self.dependencies: list[Dependency] = []
        self.lockfiles: list[tuple[str, str]] = []
        self.warnings: list[str] = []


def locked_dependencies(start_dir: str, registries=None) -> Locks:
    """Every registry package the project around ``start_dir`` locks (``registries``: only those)."""
    from .ecosystems import TABLE
    start = os.path.abspath(start_dir)
    out = Locks()
    for registry, row in TABLE.items():
        if registries is not None and registry not in registries:
            continue
        rows, used, warnings = _ecosystem(row, start)
        out.warnings.extend(warnings)
        if used is not None:
            out.lockfiles.append((registry, used))
        out.dependencies.extend(_dedupe(registry, rows))
    return out


def _ecosystem(row, start: str):
    """(entry field dicts, the lockfile read or None, warnings) for one ecosystem, memoised."""
    from . import memo
    from .discovery import ordered, walk
    from .ecosystems import hook
    warnings: list[str] = []
    dirs, lock_dir, present = walk(row, start, warnings)
    if lock_dir is None:
        return [], None, warnings
    env = hook(row, "environment")(dirs, lock_dir)
    files = ordered(row, lock_dir, present)
    deps = memo.dependencies(row, lock_dir, start, [f for f, _, _ in files], env)
    cached = memo.load_entries(row, start, deps)
    if cached is not None:
        rows, used, memo_warnings = cached
        return rows, used, warnings + memo_warnings
    before = len(warnings)
    reads: list[str] = []
    rows, used = _read(row, start, lock_dir, files, present, warnings, reads)
    memo.store_entries(row, start, deps, rows, used, warnings[before:], reads)
    return rows, used, warnings


def _read(row, start, lock_dir, files, present, warnings, reads):
    from . import _rel, importer_path, read_one
    from ._common import Context
    from .ecosystems import hook
    warnings.extend(hook(row, "notes")(present))
    rel = importer_path(start, lock_dir)
    for fname, module, kind in files:
        path = os.path.join(lock_dir, fname)
        ctx = Context(path, lock_dir, rel, start)
        found = read_one(row, fname, module, lock_dir, start, warnings, ctx)
        reads.extend(ctx.reads)
        if found is None:
            continue
        warnings.extend(text for about, text in ctx.notes if about is None)
        shown = _rel(path, start)
        rows = [{"name": c.name, "version": c.version, "direct": c.tier <= OTHER_DIRECT,
                 "file": _rel(c.file, start) if c.file else shown, "entry": c.entry, "kind": kind,
                 "source": c.source, "ref": c.ref} for c in found]
        return rows, shown
    return [], None


def _dedupe(registry: str, rows: list[dict]) -> list[Dependency]:
    """One dependency per (name, version): direct when any copy is, named by a direct copy's entry."""
    best: dict[tuple[str, str], dict] = {}
    for item in rows:
        if item["source"] != REGISTRY or not item["version"] or not item["name"]:
            continue
        key = (item["name"], item["version"])
        if key not in best or (item["direct"] and not best[key]["direct"]):
            best[key] = item
    ordered = sorted(best.values(), key=lambda d: (d["name"].lower(), d["name"]))
    # Several versions of one name go in the registry's own order; its version key (npm's semver
    # grammar: 36 ms of imports) is loaded only when a name has several.
    start = 0
    for end in range(1, len(ordered) + 1):
        if end == len(ordered) or ordered[end]["name"] != ordered[start]["name"]:
            if end - start > 1:
                from ._common import version_order

                version_key = version_order(registry)
                ordered[start:end] = sorted(ordered[start:end], key=lambda d: version_key(d["version"]))
            start = end
    return [Dependency(registry, d["name"], d["version"], d["direct"], d["file"], d["entry"], d["kind"])
            for d in ordered]
