"""What the tests assert about the file system and the cache.

- ``snapshot(top)`` records every path under ``top`` (kind, size, mode, mtime, and a digest of
  small files) so a test can prove that nothing outside the one place it allows has changed;
  ``changes(before, after)`` says what did.
- ``cache_report(cache)`` says what the cache holds: published entries, aliases, debris;
  ``assert_nothing_cached`` asserts a failure left only its job record.
- ``check_entry(path)`` proves one published entry is whole: its manifest parses and lists
  exactly the regular files on disk, with their sizes, and nothing else is there.
- ``error_of(fn, args)`` is the ``CodenavError`` a call raises.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import pytest

from codenav.errors import CodenavError

from .cli import settle

SMALL = 1 << 20  # files up to this size are compared by content, not just size and mtime


def snapshot(top: Path, skip: tuple[Path, ...] = ()) -> dict[str, tuple]:
    """Every path under ``top`` (relative, '/'-joined) except the subtrees in ``skip``; an entry
    (a path under a cache's ``entries/``) once its indexer has added the late sidecars."""
    for parent in (top, *top.parents):
        if parent.name == "entries":
            settle(parent.parent)
            break
    seen: dict[str, tuple] = {}
    skipped = {str(p) for p in skip}
    for current, dirs, files in os.walk(top, followlinks=False):
        here = Path(current)
        dirs[:] = [d for d in dirs if str(here / d) not in skipped]
        info = here.lstat()
        seen[here.relative_to(top).as_posix()] = ("dir", stat.S_IMODE(info.st_mode), info.st_mtime_ns)
        for name in files:
            path = here / name
            if str(path) in skipped:
                continue
            info = path.lstat()
            digest = None
            if stat.S_ISREG(info.st_mode) and info.st_size <= SMALL:
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
            elif stat.S_ISLNK(info.st_mode):
                digest = os.readlink(path)
            seen[path.relative_to(top).as_posix()] = (stat.S_IFMT(info.st_mode), stat.S_IMODE(info.st_mode),
                                                       info.st_size, info.st_mtime_ns, digest)
    return seen


def changes(before: dict[str, tuple], after: dict[str, tuple]) -> dict[str, str]:
    """Path -> 'added' | 'removed' | 'changed' between two snapshots."""
    out: dict[str, str] = {}
    for path in before.keys() | after.keys():
        if path not in after:
            out[path] = "removed"
        elif path not in before:
            out[path] = "added"
        elif before[path] != after[path]:
            out[path] = "changed"
    return out


@dataclass
class CacheReport:
    entries: list[str]  # keys of directories under entries/ that hold a manifest
    half_built: list[str]  # directories under entries/ without a manifest
    aliases: list[str]  # alias file names (no temp files)
    alias_temps: list[str]  # .<name>.<pid>.tmp files of an interrupted alias write
    debris: list[str]  # anything in tmp/ except the indexer log, and .trash-* dirs
    jobs: list[str]


def cache_report(cache: Path) -> CacheReport:
    entries, half = [], []
    base = cache / "entries"
    if base.is_dir():
        # Keys are registry/name/version-digest or git/<url-hash>/<commit>: three levels.
        for entry in sorted(base.glob("*/*/*")):
            key = entry.relative_to(base).as_posix()
            (entries if (entry / "manifest.json").is_file() else half).append(key)
    aliases = sorted(p.name for p in (cache / "aliases").glob("*")) if (cache / "aliases").is_dir() else []
    tmp = cache / "tmp"
    debris = sorted(p.name for p in tmp.iterdir() if p.name != "indexer.log") if tmp.is_dir() else []
    debris += sorted(p.name for p in cache.glob(".trash-*")) if cache.is_dir() else []
    jobs = sorted(p.name for p in (cache / "jobs").iterdir()) if (cache / "jobs").is_dir() else []
    return CacheReport(entries, half, [a for a in aliases if not a.endswith(".tmp")],
                       [a for a in aliases if a.endswith(".tmp")], debris, jobs)


def assert_nothing_cached(cache: Path) -> None:
    """No entry (whole or half), no alias, no build debris: a failure leaves only its job record."""
    report = cache_report(cache)
    assert (report.entries, report.half_built, report.aliases, report.alias_temps, report.debris) == (
        [], [], [], [], []), report


def entry_dirs(cache: Path) -> list[Path]:
    """The published entries of ``cache``, as directories."""
    return [cache / "entries" / key for key in cache_report(cache).entries]


def check_entry(entry: Path) -> dict:
    """Assert ``entry`` is whole (manifest == the regular files on disk, less the rows listed but
    not stored, which are not on disk); return the manifest."""
    manifest = json.loads((entry / "manifest.json").read_text(encoding="utf-8"))
    tree = entry / "tree"
    on_disk: dict[str, int] = {}
    for current, dirs, files in os.walk(tree, followlinks=False):
        for name in [*dirs, *files]:
            path = Path(current) / name
            mode = path.lstat().st_mode
            assert stat.S_ISDIR(mode) or stat.S_ISREG(mode), f"{path} is neither a file nor a directory"
            assert not mode & (stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX), f"{path} keeps a special bit"
            if stat.S_ISREG(mode):
                on_disk[path.relative_to(tree).as_posix()] = path.lstat().st_size
    listed = {row[0]: row[1] for row in manifest["files"] if row[5] is None and not (len(row) > 7 and row[7])}
    assert listed == on_disk, "the manifest and the files on disk disagree"
    assert sorted(row[0] for row in manifest["files"]) == [row[0] for row in manifest["files"]]
    return manifest


def error_of(fn, args: dict) -> CodenavError:
    """The CodenavError ``fn(args)`` raises (fails the test when it returns)."""
    with pytest.raises(CodenavError) as info:
        fn(args)
    return info.value
