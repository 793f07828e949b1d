"""The plain CLI's grep output: every matching line as ``path:line:text``, made from the bytes.

``codenav grep SPEC PATTERN`` (no ``--json``, ``--verbose``, context, column window, match
limit or cursor) prints what rg prints: every matching line of every file in scope, in path
order. ``grep.search`` builds a page of line objects for that, about 10 µs a line; here the
same matcher (search/matchers.py) gives each file's matching lines, which are written as the
bytes they are: the line numbers come from counting newlines between hits (``bytes.count``, in
C), and the text is the file's own bytes whenever they are valid UTF-8, which is what decoding
them with ``"replace"`` and encoding them again gives (a file that is not is decoded and
encoded again, line by line, as the page path prints it). A file of MAP_MIN bytes or more is
mapped (mmap), not read, when the matcher searches it with find/rfind/slices only
(``mappable``): reading 22 MB into fresh buffers cost more in page faults than finding a literal
in them. tests/test_grep_repo_speed.py compares both paths byte for byte.

``search`` returns the counts ``grep.search`` returns (no ``files``) and the output bytes. A
regex runs under the deadline runner (search/runner.py) as ``grep.search`` runs it, file by
file; when the deadline strikes, the files finished by then are printed and counted.
"""

from __future__ import annotations

import time

from .grep import MARK_STEP, SMALL, _open_tree, read_file
from .matchers import matcher
from .runner import run_until

MAP_MIN = 2 * MARK_STEP  # files this big are mapped (mmap), not read, when the matcher allows it
DENSE_AFTER, DENSE_GAP = 64, 4096  # a mapping this dense with hits is searched as bytes (_lines)

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from .pack import Pack


def search(tree: str, files: list[list], options: dict[str, Any], deadline: float,
           marks: dict[str, tuple[int, list[int]]] | None = None,
           pack: Pack | None = None) -> tuple[dict[str, Any], bytes]:
    """(counts as grep.search gives them, the plain output) for ``files`` ([path, size] under
    ``tree``); ``marks``: the line marks of big files (search/marks.py), path -> (size, marks);
    ``pack``: the entry's small files end to end (search/pack.py), read from there."""
    counts: dict[int, int] = {}
    pieces: list[bytes] = []

    def on_file(event: tuple[int, int, bytes]) -> None:
        counts[event[0]] = event[1]
        if event[2]:
            pieces.append(event[2])

    match = _matcher(options)
    if pack is not None and match.required and pack.holds_all(files) and pack.data.find(match.required) < 0:
        events: Any = iter(())  # no file holds what every match holds: all scanned, none opened
    else:
        events = _scan(tree, files, match, marks or {}, pack)
    if options.get("regex"):
        timed_out = run_until(events, on_file, deadline)
        if timed_out is None:  # pragma: no cover - the CLI runs in the main thread
            raise RuntimeError("the plain grep output is made in the main thread only")
    else:
        timed_out = False
        for event in events:
            on_file(event)
            if time.monotonic() > deadline and event[0] < len(files) - 1:
                timed_out = True
                events.close()
                break
    # The files the pack's pass set aside yield nothing: scanned are all up to the last one seen.
    scanned = max(counts) + 1 if timed_out else len(files)
    total = sum(counts.values())
    result: dict[str, Any] = {"files": [], "totalMatches": total, "filesMatched": sum(1 for c in counts.values() if c),
                              "filesScanned": scanned, "hasMore": timed_out}
    if timed_out:
        result["truncatedReason"] = "time"
    return result, b"".join(pieces)


_last: list[Any] = [None, None]  # the options of the last search and their matcher


def _matcher(options: dict[str, Any]) -> Any:
    """The matcher of ``options``, made once for a search over many targets (a case-insensitive
    literal's costs 15 µs: 2 ms over 157 targets)."""
    key = tuple(options.get(k) for k in ("pattern", "regex", "case_sensitive", "whole_words"))
    if _last[0] != key:
        _last[:] = [key, matcher(options)]
    return _last[1]


def _scan(tree: str, files: list[list], match: Any, marks: dict[str, tuple[int, list[int]]],
          pack: Pack | None) -> Iterator[tuple[int, int, bytes]]:
    """(file index, matching lines, their output) for each file, in order; none for a packed
    file the pack's one pass found without the bytes every match holds (``required``). Big files
    are mapped, not read, when the matcher can search a mapping (``mappable``); small ones come
    from the pack when there is one."""
    map_from = MAP_MIN if match.mappable else None
    absent = match.absent
    packed, starts = (pack.data, pack.starts) if pack is not None else (b"", {})
    holding = _holding(packed, starts, match.required) if starts and match.required else None
    tree_fd = _open_tree(tree)
    try:
        for index, (path, size) in enumerate(files):
            at = starts.get(path)
            if at is not None and holding is not None and at not in holding:
                continue  # the pack's pass found the required bytes elsewhere: scanned, no match
            data = packed[at:at + size] if at is not None else read_file(path, size, tree_fd, map_from)
            if isinstance(data, bytes):
                if len(data) < SMALL and absent(data):  # most small files: one `in`, nothing else
                    yield index, 0, b""
                    continue
                yield index, *_file(match, path, data, marks.get(path))
                continue
            with data:  # the mapping is closed before the next file is mapped
                found = _file(match, path, data, marks.get(path))
            yield index, *found
    finally:
        import os

        os.close(tree_fd)


def _holding(packed: bytes, starts: dict[str, int], needle: bytes) -> set[int]:
    """The starts of the packed files that hold ``needle`` whole: one ``find`` per such file
    over the whole pack, rather than one ``in`` per file."""
    import bisect

    bounds = sorted(starts.values())
    bounds.append(len(packed))
    found: set[int] = set()
    size = len(needle)
    pos = packed.find(needle, bounds[0])
    while pos >= 0:
        k = bisect.bisect_right(bounds, pos) - 1
        if pos + size <= bounds[k + 1]:
            found.add(bounds[k])
            pos = packed.find(needle, bounds[k + 1])  # on to the next file
        else:  # across the end of a file: not one of its hits
            pos = packed.find(needle, pos + 1)
    return found


def _file(match: Any, path: str, data: Any, recorded: tuple[int, list[int]] | None) -> tuple[int, bytes]:
    """(matching lines, their output) of one file's bytes (or its mapping)."""
    if (len(data) < SMALL and match.absent(data)) or not match.prefilter(data):
        return 0, b""
    prefix = path.encode("utf-8") + b":"
    out: list[bytes] = []
    steps = recorded[1] if recorded is not None and recorded[0] == len(data) else None
    if steps is not None and len(steps) != len(data) // MARK_STEP + 1:
        steps = None  # not this file's marks
    count = _lines(match, data, prefix, out, 1, steps)
    piece = b"".join(out)
    if piece and not piece.isascii():
        try:
            piece.decode("utf-8")
        except UnicodeDecodeError:
            piece = _replaced(prefix, out)
    return count, piece


def _lines(match: Any, data: Any, prefix: bytes, out: list[bytes], first_line: int,
           steps: list[int] | None) -> int:
    """How many lines of ``data`` (its first line numbered ``first_line``) match, each appended
    to ``out`` as ``prefix`` LINE:TEXT. A hit is numbered by counting newlines from the previous
    hit, or from the mark before it when that is nearer (grep._scan does the same, two marks
    past, with the marks a server keeps). A mapping whose first DENSE_AFTER hits lie less than
    DENSE_GAP bytes apart on average is copied from the next line on and searched as bytes:
    counting newlines in a mapping takes a copy and a Python call a hit (``_counter``)."""
    count = numbered = first = 0
    line = first_line
    mapped = not isinstance(data, bytes)
    newlines = _counter(data) if mapped else data.count
    for start, stop in match.spans(data, 0, None):
        count += 1
        if steps is not None and (start // MARK_STEP) * MARK_STEP > numbered:  # the mark is nearer
            mark = start // MARK_STEP
            line = steps[mark] + newlines(b"\n", mark * MARK_STEP, start)
        else:
            line += newlines(b"\n", numbered, start)
        numbered = start
        out.append(b"%b%d:%b\n" % (prefix, line, data[start:stop]))
        if count == 1:
            first = start
        elif mapped and count == DENSE_AFTER and start - first < DENSE_AFTER * DENSE_GAP:
            return count + _lines(match, data[stop + 1:], prefix, out, line + 1, None)
    return count


def _counter(mapped: Any) -> Any:
    """``bytes.count`` of a single byte for a mapping (mmap has no count): over copies of at
    most MARK_STEP bytes, which the heap reuses (one big copy would fault in fresh pages)."""

    def count(byte: bytes, start: int, end: int) -> int:
        if end - start <= MARK_STEP:
            return mapped[start:end].count(byte)
        return sum(mapped[at:min(at + MARK_STEP, end)].count(byte) for at in range(start, end, MARK_STEP))

    return count


def _replaced(prefix: bytes, out: list[bytes]) -> bytes:
    """The lines of ``out`` with their text decoded with "replace" and encoded again, as the
    page path prints text that is not valid UTF-8."""
    fixed = []
    for piece in out:
        head, _, rest = piece[len(prefix):].partition(b":")
        text = rest[:-1].decode("utf-8", "replace").encode("utf-8")
        fixed.append(b"%b%b:%b\n" % (prefix, head, text))
    return b"".join(fixed)
