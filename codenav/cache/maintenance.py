"""``codenav cache list|clear|prune``: what is cached, and tidying it (SPEC §3).

A clear renames each top folder away in one step, so an entry vanishes whole: readers in
flight get an error, never a partial tree. A prune removes debris only — build directories no
live indexer owns, expired or dangling aliases, old job results — never a published entry.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

from ..paths import read_json, root
from . import openings, store
from .locks import try_lock


def list_entries() -> list[dict[str, Any]]:
    out = []
    base = Path(root()) / "entries"
    if not base.is_dir():
        return out
    for manifest in sorted(base.glob("*/*/*/manifest.json")) + sorted(base.glob("git/*/*/manifest.json")):
        try:
            data = read_json(str(manifest))
        except (OSError, ValueError):
            continue
        key = manifest.parent.relative_to(base).as_posix()
        out.append({"key": key, "target": data["target"], "files": len(data["files"]),
                    "bytes": sum(r[1] for r in data["files"])})
    unique = {e["key"]: e for e in out}
    return [unique[k] for k in sorted(unique)]


def clear() -> int:
    """Remove every entry (readers in flight get an error, never a partial tree)."""
    base = Path(root())
    if not base.is_dir():
        return 0
    count = len(list_entries())
    trash = base / f".trash-{os.getpid()}-{time.time_ns()}"
    for name in ("entries", "aliases", "openings", "jobs", "tmp", "state"):
        if (base / name).exists():
            trash.mkdir(exist_ok=True)
            try:
                os.rename(base / name, trash / name)  # one rename: an entry vanishes whole
            except FileNotFoundError:
                continue  # a concurrent clear took it first
    shutil.rmtree(trash, ignore_errors=True)
    return count


def prune() -> dict[str, int]:
    """Remove debris: build dirs no live indexer owns, expired or dangling aliases, records of
    openings no longer valid (cache/openings.py), old results."""
    base = Path(root())
    removed = {"tmp": 0, "aliases": 0, "openings": 0, "jobs": 0, "trash": 0}
    for trash in base.glob(".trash-*"):
        shutil.rmtree(trash, ignore_errors=True)
        removed["trash"] += 1
    tmp = base / "tmp"
    if tmp.is_dir():
        for item in tmp.iterdir():
            if item.name == "indexer.log":
                continue
            if item.is_dir() and _remove_unless_building(item):
                removed["tmp"] += 1
    alias_dir = base / "aliases"
    if alias_dir.is_dir():
        for item in alias_dir.glob("*.json"):
            try:
                data = read_json(str(item))
                dangling = store.find(data["key"]) is None
                expired = data.get("expires") is not None and time.time() > data["expires"]
            except (OSError, ValueError, KeyError):
                dangling, expired = True, False
            if dangling or expired:
                item.unlink(missing_ok=True)
                removed["aliases"] += 1
        for item in alias_dir.glob(".*.tmp"):
            item.unlink(missing_ok=True)
    for item in (base / "openings").glob("*.json"):
        if not openings.valid(str(item)):
            item.unlink(missing_ok=True)
            removed["openings"] += 1
    jobs = base / "jobs"
    if jobs.is_dir():
        for item in jobs.iterdir():
            item.unlink(missing_ok=True)
            removed["jobs"] += 1
    return removed


def _remove_unless_building(item: Path) -> bool:
    """Remove the build directory ``item`` unless an indexer holds its lock (indexing.py takes
    an exclusive flock on each build directory it makes); True if it was removed. The lock is
    held while removing, so an indexer that made it a moment ago sees it gone and makes another.
    """
    try:
        fd = os.open(item, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False
    try:
        if not try_lock(fd):
            return False
        shutil.rmtree(item, ignore_errors=True)
        return True
    finally:
        os.close(fd)
