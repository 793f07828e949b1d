"""What opening a list of targets found, kept for the next call that opens the same list (SPEC §3.5).

A search over a project's locked tree (``--all-deps``: 157 npm packages) opens each target by
reading its alias, its manifest's first bytes and its text list: three files a target, about
half of a warm search's own time. The first call that finds every target warm writes one
record (``openings/<hash of the aliases>.json``): for each alias in order, the entry it names,
what the alias says the entry holds (``named``) and the entry's text list (Entry.searchable).
The next call with the same aliases reads that one file instead.

A record holds only what cannot change while ``aliases/`` stays as it is and its entries
exist: every alias is published by a rename into that one folder and removed from it (clear
moves the folder itself away), which changes the folder's modification time; an entry, once
published, never changes (a damaged one is replaced by the same tree). A record is used only
when the folder's inode and time equal those it was written with and every entry's manifest
is still there (one stat each), and it is written only when the folder is as it was before
the call read its first alias and older than ``SETTLED`` seconds (a change within the file
system's timestamp tick of the write would otherwise go unseen: git's racy index). Only
aliases kept forever (an exact version) are recorded: one that expires must be resolved again
when it does. An entry's late sidecars (its pack, its marks) and whether it is ranged are
asked of the entry as before.
"""

from __future__ import annotations

import os
import time

from .. import __version__
from ..paths import root, short_hash
from . import store

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from typing import Any

FORMAT = 1
SETTLED = 2.0  # seconds aliases/ must be unchanged for before a record is written


def _path(aliases: list[str]) -> str:
    return os.path.join(root(), "openings", f"{short_hash(chr(10).join(aliases))}.json")


def stamp() -> list[int] | None:
    """aliases/'s inode and modification time (ns); None when it is missing."""
    try:
        found = os.stat(os.path.join(root(), "aliases"))
    except OSError:
        return None
    return [found.st_ino, found.st_mtime_ns]


def recall(aliases: list[str]) -> list[store.Entry] | None:
    """The entries ``aliases`` named when the record of exactly this list was written, each
    with its ``named`` and its text list; None without a record still valid."""
    data = _read(_path(aliases))
    if data is None or data["aliases"] != aliases:
        return None
    entries = []
    base = os.path.join(root(), "entries")
    for key, named, files, binary, large in data["entries"]:
        entry = store.Entry(key, f"{base}/{key}")
        entry.named = named
        entry.preset_searchable((files, binary, large))
        entries.append(entry)
    return entries


def valid(path: str) -> bool:
    """Whether the record at ``path`` would be used (``cache prune`` removes the others)."""
    return _read(path) is not None


def _read(path: str) -> dict[str, Any] | None:
    from ..paths import read_json

    try:
        data = read_json(path)
    except (OSError, ValueError):
        return None
    if (not isinstance(data, dict) or data.get("format") != FORMAT or data.get("codenav") != __version__
            or data.get("stamp") != stamp() or not isinstance(data.get("aliases"), list)
            or not isinstance(data.get("entries"), list) or len(data["entries"]) != len(data["aliases"])):
        return None
    base = os.path.join(root(), "entries")
    for row in data["entries"]:
        if not (isinstance(row, list) and len(row) == 5 and isinstance(row[0], str)
                and all(isinstance(part, list) for part in row[2:])):
            return None  # not a record this codenav wrote
        if not os.path.exists(f"{base}/{row[0]}/manifest.json"):  # store.entry_dir's, joined once
            return None  # removed by hand: opened (and indexed again) the ordinary way
    return data


def keep(aliases: list[str], entries: list[Any], before: list[int] | None) -> None:
    """Record that ``aliases`` (each kept forever) named ``entries`` (store.Entry), read from
    aliases/ as ``stamp()`` found it (``before``), unless it has changed since or changed too
    recently to tell a later change from this state."""
    import json

    from ..paths import atomic_write, cache_subdir

    now = stamp()
    if now is None or now != before or time.time_ns() - now[1] < SETTLED * 1e9:
        return
    rows = [[e.key, e.named, *e.searchable()] for e in entries]
    data = {"format": FORMAT, "codenav": __version__, "aliases": aliases, "stamp": now, "entries": rows}
    try:
        cache_subdir("openings")
        atomic_write(_path(aliases), json.dumps(data, separators=(",", ":")))
    except OSError:
        pass  # a cache that cannot be written to is still searched, without a record
