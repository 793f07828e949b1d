"""The ``pack.bin`` sidecar: an entry's small text files end to end, for the CLI's grep (SPEC §3.5).

A CLI grep searches once and keeps nothing, so each small file costs it an open, a read and a
close: about 7 µs of system calls in Python, most of a grep over a locked tree of 150 packages
and 1,800 files (ripgrep makes the same calls in C in half the time). With the pack, each entry
is one read, and each small file a slice of it: the same bytes (the tree never changes once
published), without the calls. Derived by the indexer after publication (cache/indexing.py
``LATE_SIDECARS``); an entry without one (indexed before it existed, or its late phase cut short)
is searched file by file, as before, and never derives one on a search's time.

Format: ``codenav-pack 1 small=65536 files=N bytes=B``, a newline, then the bytes of each text
file under ``small`` bytes, in the order of the entry's text list (store.Entry.searchable). A pack
whose header does not match that list (another version, count or total) is not used.
"""

from __future__ import annotations

import os

from .grep import SMALL, read_file

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from typing import Any

NAME = "pack.bin"


def _header(files: list[list]) -> bytes:
    small = [size for _, size in files if size < SMALL]
    return f"codenav-pack 1 small={SMALL} files={len(small)} bytes={sum(small)}\n".encode()


def write(entry: Any, out_path: str) -> None:
    """The sidecar of ``entry`` (a store.Entry, duck-typed: ``path``, ``searchable()``), written to
    ``out_path``."""
    files = entry.searchable()[0]
    tree = os.open(os.path.join(entry.path, "tree"), os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        with open(out_path, "wb") as handle:
            handle.write(_header(files))
            for path, size in files:
                if size < SMALL:
                    data = read_file(path, size, tree)
                    if len(data) != size:  # never the case for a published tree: no pack rather than a wrong one
                        raise OSError(f"{path} is not the size the manifest records")
                    handle.write(data)
    finally:
        os.close(tree)


class Pack:
    """An entry's pack, mapped (``data``), for its whole text list: ``starts`` (path -> where
    each small text file starts in it) is made on first use, so a search that finds its
    literal nowhere in the pack (``holds_all``) never makes it."""

    __slots__ = ("data", "count", "_files", "_first", "_starts")

    def __init__(self, data: Any, files: list[list], header: bytes) -> None:
        self.data, self._files, self._first = data, files, len(header)
        self.count = int(header.split(b" ")[3].removeprefix(b"files="))  # the small files it holds
        self._starts: dict[str, int] | None = None

    @property
    def starts(self) -> dict[str, int]:
        if self._starts is None:
            from itertools import accumulate

            small = [f for f in self._files if f[1] < SMALL]
            at = accumulate([f[1] for f in small], initial=self._first)  # one more than there are files
            self._starts = dict(zip([f[0] for f in small], at, strict=False))
        return self._starts

    def holds_all(self, files: list[list]) -> bool:
        """Whether every one of ``files`` (some of the text list, each once) is in the pack."""
        return len(files) == self.count and all(size < SMALL for _, size in files)


def load(entry: Any, files: list[list]) -> Pack | None:
    """The pack of ``entry``, mapped, for ``files``, its whole text list; None when it has no
    pack or the pack does not match."""
    import mmap

    head = _header(files)
    try:
        fd = os.open(os.path.join(entry.path, NAME), os.O_RDONLY)
    except OSError:
        return None
    try:
        if os.fstat(fd).st_size != len(head) + int(head.rpartition(b"=")[2]):
            return None
        # Mapped, not read: a rare literal is found without copying the pack's megabytes.
        data: Any = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    if data[:len(head)] != head:
        return None
    return Pack(data, files, head)
