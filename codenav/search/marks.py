"""The ``marks.txt`` sidecar: line numbers every 64 KiB of an entry's big text files (SPEC §3.5).

A match deep in a big file is numbered by counting newlines from the mark before it instead of
from the start of the file: ``bytes.count`` runs at about 1 GB/s, so numbering the rare hits of
typescript's 22 MB of bundles cost a CLI grep about 20 ms, more than finding them. The MCP
server keeps the same marks in memory (search/grep.py ``_marks``); a CLI process searches once,
so it reads them here. Derived by the indexer after publication (cache/indexing.py
``LATE_SIDECARS``), or on first use for an entry indexed before.

Format: ``codenav-marks 1 step=65536``, then one line per text file of at least two steps:
``size\\tpath\\tm0,m1,...`` where ``mK`` is the line number at byte ``K * step`` (grep.line_marks).
A file whose size differs from the one recorded, or a sidecar of another version or step, is
numbered without marks.
"""

from __future__ import annotations

from .grep import MARK_STEP, line_marks, read_file

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from typing import Any

NAME = "marks.txt"
_HEADER = f"codenav-marks 1 step={MARK_STEP}"


def write(entry: Any, out_path: str) -> None:
    """The sidecar of ``entry`` (a store.Entry, duck-typed: ``path``, ``searchable()``; no cache code
    is imported here), written to ``out_path``."""
    import os

    lines = [_HEADER + "\n"]
    tree = os.open(os.path.join(entry.path, "tree"), os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        for path, size in entry.searchable()[0]:
            if size >= 2 * MARK_STEP:
                marks = line_marks(read_file(path, size, tree))
                lines.append(f"{size}\t{path}\t{','.join(map(str, marks))}\n")
    finally:
        os.close(tree)
    with open(out_path, "w", encoding="utf-8") as handle:
        handle.write("".join(lines))


def load(entry: Any) -> dict[str, tuple[int, list[int]]]:
    """path -> (size, marks) of ``entry``'s big text files; empty when the sidecar cannot be had."""
    try:
        with open(entry.sidecar(NAME, write), encoding="utf-8") as handle:
            text = handle.read()
    except OSError:
        return {}
    head, _, body = text.partition("\n")
    if head != _HEADER:
        return {}
    found: dict[str, tuple[int, list[int]]] = {}
    for line in body.split("\n"):
        size, _, rest = line.partition("\t")
        path, _, numbers = rest.rpartition("\t")
        if size.isdigit() and path:
            found[path] = (int(size), [int(n) for n in numbers.split(",")])
    return found
