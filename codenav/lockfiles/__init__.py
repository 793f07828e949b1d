"""The version a project locks for a package (issues 14 and 23; lockfiles.md, docs/lockfiles.md).

``find_locked(registry, name, start_dir)`` walks up from ``start_dir`` to the nearest directory
that holds a lockfile of that registry's ecosystem (§1.1: it stops after a directory holding
``.git``, before entering ``$HOME`` from below, at the filesystem root, and at a directory seen
twice), reads the lockfiles there in the order of the ecosystem's row of ``ecosystems.TABLE``
(§1.2), and falls back to the installed copy (§9; npm and PyPI). ``project.locked_dependencies``
lists every package a project locks, every ecosystem at once. Among several locked copies it picks by the tiers of §2: the start
directory's importer's direct dependency, then the root's, the hoisted copy, another
workspace's, a transitive copy, and last an alias whose target is the package.

Rules a caller can rely on:
- Bad or hostile files never raise: an unreadable, oversized (``CODENAV_MAX_LOCKFILE_BYTES``,
  64 MiB by default), truncated or invalid lockfile is skipped with a one-line warning and the
  next source is tried (the next lockfile in the same directory, then the installed copy).
- A package locked as git, ``file:``, ``link:``, a workspace or a local path has no registry
  version: the answer then has ``version`` None, ``source`` saying which kind, ``ref`` the
  commit or path, and a warning. The caller must not fetch "latest" in its place.
- A request by an alias's installed name (``legacy-ms`` for ``npm:ms@0.7.3``), or by a Go
  module that go.mod replaces by another, resolves to the real package: ``name`` is then the
  real name and a warning says so.
- Names compare as the row's ``fold`` says (PyPI: PEP 503; crates: case and ``-``/``_``).
- A warm call reads a small memo (``memo.py``) instead of the lockfile: it imports neither
  ``json``, ``re`` nor ``tomllib``.
"""

from __future__ import annotations

import os

from ._common import DEFAULT_MAX_BYTES, REGISTRY, read_capped, version_order  # noqa: F401  (the public API)
from .locked import Locked, reason_of


def find_locked(registry: str, name: str, start_dir: str, unused: list[str] | None = None) -> Locked | None:
    """The version the project around ``start_dir`` locks (or has installed) for ``name``.

    None when nothing local mentions the package (the caller then uses the registry's
    latest); the warnings gathered on the way (a lockfile skipped) are then appended to
    ``unused`` when given. Never raises for anything found on disk.
    """
    from .ecosystems import ecosystem, hook
    row = ecosystem(registry)
    if row is None:
        return None
    name = row.normalize(name)
    start = os.path.abspath(start_dir)
    warnings: list[str] = []
    from .discovery import walk
    dirs, lock_dir, present = walk(row, start, warnings)
    env = hook(row, "environment")(dirs, lock_dir or (dirs[-1] if dirs else start))
    if lock_dir is not None:
        found = _from_lockfiles(row, name, start, lock_dir, present, env, warnings)
        if found is not None:
            return found
    try:
        hit = hook(row, "installed")(name, dirs, start, env, warnings)
    except OSError as e:
        warnings.append(f"the installed copy could not be read ({reason_of(e)})")
        hit = None
    if hit is not None:
        hit.warnings[:0] = warnings
        return hit
    if unused is not None:
        unused.extend(warnings)
    return None


def _rel(path: str, start: str) -> str:
    rel = os.path.relpath(path, start)
    return rel.replace(os.sep, "/")


def importer_path(start: str, lock_dir: str) -> str:
    """The start directory relative to the lockfile's, '/'-separated ('.' when the same).

    Symlinks are resolved first (packages/self/app, with self -> ., is packages/app), unless
    that leaves the lockfile's directory; then the path as walked is used.
    """
    if start == lock_dir:
        return "."
    rel = _rel(os.path.realpath(start), os.path.realpath(lock_dir))
    if rel.startswith(".."):
        rel = _rel(start, lock_dir)
    return "." if rel.startswith("..") else rel


def _from_lockfiles(row, name: str, start: str, lock_dir: str, present: list[str], env,
                    warnings: list[str]) -> Locked | None:
    from . import memo
    from .discovery import ordered
    rows = ordered(row, lock_dir, present)
    deps = memo.dependencies(row, lock_dir, start, [r[0] for r in rows], env)
    cached = memo.load(row, name, start, deps)
    if cached is not None:
        answer, memo_warnings = cached
        warnings.extend(memo_warnings)
        if answer is not None:
            answer.warnings[:0] = warnings
        return answer
    before = len(warnings)
    reads: list[str] = []
    answer = _read_lockfiles(row, name, start, lock_dir, rows, present, env, warnings, reads)
    memo.store(row, name, start, deps, answer, warnings[before:], reads)
    if answer is not None:
        answer.warnings[:0] = warnings
    return answer


def read_one(row, fname: str, module: str, lock_dir: str, start: str, warnings: list[str], ctx,
             name: str | None = None):
    """The candidates of ``name`` (every entry when None) in one lockfile, or None when the
    file is skipped (with a warning saying why). Never raises for what is in the file."""
    from ._common import LockfileError
    shown = _rel(os.path.join(lock_dir, fname), start)
    try:
        text = read_capped(os.path.join(lock_dir, fname))
        reader = getattr(__import__(__name__, fromlist=[module]), module)
        if name is not None and hasattr(reader, "candidates"):
            return reader.candidates(text, name, ctx.rel, lock_dir)
        found = reader.entries(text, ctx)
        if name is None:
            return found
        return [c for c in found if row.normalize(c.name) == name or
                (c.alias is not None and row.normalize(c.alias) == name)]
    except LockfileError as e:
        warnings.append(f"{shown}: skipped: {e}")
    except RecursionError:
        warnings.append(f"{shown}: skipped: nested too deeply")
    except ValueError as e:  # YamlError, TOMLDecodeError: their messages name the line
        reason = str(e).splitlines()[0] if str(e) else "unexpected content"
        warnings.append(f"{shown}: skipped: {reason}")
    except Exception:  # hostile input must never fail the call (issue 14 item 5)
        warnings.append(f"{shown}: skipped: unexpected content")
    return None


def _read_lockfiles(row, name, start, lock_dir, rows, present, env, warnings, reads) -> Locked | None:
    from ._common import Context
    from .ecosystems import hook
    warnings.extend(hook(row, "notes")(present))
    rel = importer_path(start, lock_dir)
    for index, (fname, module, kind) in enumerate(rows):
        ctx = Context(os.path.join(lock_dir, fname), lock_dir, rel, start)
        candidates = read_one(row, fname, module, lock_dir, start, warnings, ctx, name)
        reads.extend(ctx.reads)
        if candidates is None:
            continue
        warnings.extend(text for about, text in ctx.notes if about is None or about == name)
        ignored = [r[0] for r in rows[index + 1:] if not r[0].startswith("node_modules/")]
        if ignored and kind == "lockfile":
            warnings.append(f"also present: {', '.join(ignored)} (ignored; {fname} is used)")
        for c in candidates:
            if c.file is not None:
                c.file = _rel(c.file, start)
        return choose(row, name, candidates, kind, _rel(os.path.join(lock_dir, fname), start), env)
    return None


def choose(row, name: str, candidates, kind: str, file: str, env=None) -> Locked | None:
    """The winning candidate for ``name`` as a ``Locked`` (§2), or None if none matches."""
    from .ecosystems import hook
    real = [c for c in candidates if row.normalize(c.name) == name]
    via_alias = False
    if not real:
        real = [c for c in candidates if c.alias is not None and row.normalize(c.alias) == name]
        if not real:
            return None
        via_alias = True
    best = min(c.tier for c in real)
    top = [c for c in real if c.tier == best]
    pick = hook(row, "pick_fork")(top, env)
    if pick is None:
        pick = top[0]
        if len(top) > 1:
            order = version_order(row.registry)
            pick = max(top, key=lambda c: (order(c.version), c.source == REGISTRY))
    others = [v for v in {c.version for c in real} if v and v != pick.version]
    if others:
        others.sort(key=version_order(row.registry), reverse=True)
    warnings: list[str] = []
    target = pick.name
    file = pick.file or file
    if via_alias:
        warnings.append(f"{name} is {row.replaced} {pick.name}@{pick.version or pick.source} in {file}")
    version = pick.version
    if pick.source != REGISTRY:
        what = {"git": "a git dependency"}.get(pick.source, f"a local {pick.source} dependency")
        detail = f" (commit {pick.ref})" if pick.source == "git" and pick.ref else \
            f" ({pick.ref})" if pick.ref else ""
        warnings.append(f"{target} is {what}{detail} in {file}, entry {pick.entry}: no registry version")
        version = None
    return Locked(target, version, kind, file, pick.entry, others, warnings, pick.source, pick.ref)

