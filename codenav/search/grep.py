"""The grep_repo engine: search the text files of one entry's tree, page the matching lines.

Input: the tree directory, the files in scope in path order (``[path, size]``, binaries and
oversized files already set aside by the caller), the options, where to start (a cursor) and
a deadline. Output: the page (matching lines with their context, merged into blocks per
file) and exact counts over the whole scope: ``totalMatches`` (matching lines),
``filesMatched``, ``filesScanned``; or, when the deadline struck, what was found by then with
``hasMore`` and ``truncatedReason: "time"``.

Three parts, joined by a small event interface (ripgrep's matcher / searcher / printer):
``search/matchers.py`` decides which lines of a file match (``Literal``, ``Regex``); this
module scans the files in order into events (``scan``) and folds them into the page with its
exact counts and cursor (``Page``, ``search``); ``search/runner.py`` runs a regex scan under its
deadline (``SIGALRM`` in the main thread, a warm ``grep_worker`` child elsewhere). The plain
CLI's output, every match as ``path:line:text``, is made by ``search/plain.py`` from the same
scan without the page.

Columns are 1-based and count characters (code points), not bytes as ``rg --column`` does:
the caller receives the line as a JSON string, where a character column is the one that
points at the hit; on ASCII lines the two agree.
"""

from __future__ import annotations

import os

from ..budget import Meter
from ..errors import invalid
from .matchers import (  # noqa: F401  (the engine's names, for its callers)
    FOLDS_TO_ASCII,
    IGNORECASE_TO_ASCII,
    Literal,
    Regex,
    analyse,
    compile_regex,
    matcher,
)
from .runner import _GRACE, _IDLE, run_in_child, run_until  # noqa: F401

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    Derive = Callable[[str], Any]

WINDOW = 300  # characters of a long line shown around its hit (JSON); the CLI prints whole lines
DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
DEFAULT_TIMEOUT = 10.0
SMALL = 64 * 1024  # files below this are rejected by one `in` before the line machinery starts
MARK_STEP = 64 * 1024  # bytes between the line marks kept for a big file (_marks)


def max_file_bytes() -> int:
    try:
        return int(os.environ.get("CODENAV_SEARCH_MAX_FILE_BYTES", DEFAULT_MAX_FILE_BYTES))
    except ValueError:
        return DEFAULT_MAX_FILE_BYTES


def timeout() -> float:
    try:
        return float(os.environ.get("CODENAV_SEARCH_TIMEOUT", DEFAULT_TIMEOUT))
    except ValueError:
        return DEFAULT_TIMEOUT


# --- the scan: events for the page and the counts ------------------------------------------------

def read_file(path: str, size: int, dir_fd: int | None = None, map_from: int | None = None) -> Any:
    """The whole file, read with ``os.read`` (``size`` is the manifest's: one read of a byte
    more, which a regular file fills only when it grew; ``path`` relative to ``dir_fd``).

    With ``map_from``, a file of at least that many bytes is mapped instead (a read-only
    ``mmap`` of the whole file, for the caller to close): no copy, and none of the page faults
    of a fresh buffer, which cost more than finding a literal in it (docs/performance.md)."""
    try:
        fd = os.open(path, os.O_RDONLY, dir_fd=dir_fd)
    except FileNotFoundError:
        from ..errors import cache_removed

        raise cache_removed() from None
    try:
        if map_from is not None and size >= map_from and os.fstat(fd).st_size >= map_from:
            import mmap

            return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
        data = os.read(fd, size + 1)
        if len(data) <= size:
            return data
        chunks = [data]
        while chunks[-1]:
            chunks.append(os.read(fd, 1 << 20))
        return b"".join(chunks)
    finally:
        os.close(fd)


# The bytes of searched files, kept between searches by a long-lived process (the MCP server and
# its grep_worker set the budget; the CLI, which searches once, keeps nothing): tree -> path ->
# bytes, whole trees evicted least recently searched first. An entry's tree never changes (its
# key names the verified artifact), so a kept file is the file; that the tree still exists is
# checked on every search (_open_tree).
memory_budget = 0  # bytes
_KEPT: dict[str, dict[str, Any]] = {}
_KEPT_BYTES: dict[str, int] = {}
DEFAULT_MEMORY_BYTES = 96 * 1024 * 1024


def keep_files_in_memory() -> None:
    """Keep searched files in memory up to ``CODENAV_SEARCH_MEMORY_BYTES`` (default 96 MiB):
    for a process that serves many searches."""
    global memory_budget
    try:
        memory_budget = int(os.environ.get("CODENAV_SEARCH_MEMORY_BYTES", DEFAULT_MEMORY_BYTES))
    except ValueError:
        memory_budget = DEFAULT_MEMORY_BYTES


def _kept(tree: str) -> dict[str, Any] | None:
    """The kept files of ``tree`` (made the most recently used), or None when nothing is kept."""
    if memory_budget <= 0:
        return None
    held = _KEPT.pop(tree, None)
    if held is None:
        held = {}
        _KEPT_BYTES[tree] = 0
    _KEPT[tree] = held  # dicts keep insertion order: the first key is the least recently used
    return held


def _keep(tree: str, held: dict[str, Any], path: str, data: Any, size: int | None = None) -> None:
    size = len(data) if size is None else size
    while sum(_KEPT_BYTES.values()) + size > memory_budget:
        oldest = next((t for t in _KEPT if t != tree), None)
        if oldest is None:
            return  # this tree alone fills the budget: the rest of it is read each time
        _KEPT.pop(oldest, None)
        _KEPT_BYTES.pop(oldest, None)
    held[path] = data
    _KEPT_BYTES[tree] = _KEPT_BYTES.get(tree, 0) + size


def _open_tree(tree: str) -> int:
    try:
        return os.open(tree, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except FileNotFoundError:
        from ..errors import cache_removed

        raise cache_removed() from None


def _shown(text: str, column: int | None, window: int | None) -> dict[str, Any]:
    """A line's text, or a window of it around ``column`` when the line is longer than ``window``."""
    if window is None or len(text) <= window:
        return {"text": text}
    start = 0 if column is None else max(0, min(column - window // 3, len(text) - window))
    return {"text": text[start:start + window], "cut": True, "windowStart": start + 1}


def scan(job: dict[str, Any], match: Literal | Regex | None = None) -> Iterator[list]:
    """Events, in order: ``["m", index, line, next_offset, lines]`` for each detailed match (its
    line objects, context included), ``["f", index, count]`` when a file is done, ``["a"]`` when
    every file from the start on is done; then the files before the start, counted.

    ``job``: ``tree``, ``files`` ([path, size] in scope order), ``options``, ``start``
    ([index, line, offset, shown]: the first line to detail, its offset, how many matches of
    that file earlier pages showed), ``want`` (matches to detail), ``cap`` (per file, or None),
    ``context``, ``window``.
    """
    match = match or matcher(job["options"])
    tree, files = job["tree"], job["files"]
    index0, line0, offset0, shown0 = job.get("start") or (0, 1, 0, 0)
    left, cap = job["want"], job.get("cap")
    context, window = job.get("context", 0), job.get("window")
    tree_fd = _open_tree(tree)  # files opened relative to it: no path joined, no prefix resolved per file
    try:
        yield from _scan(files, tree, tree_fd, match, index0, line0, offset0, shown0, left, cap, context, window)
    finally:
        os.close(tree_fd)


def _scan(files: list[list], tree: str, tree_fd: int, match: Literal | Regex, index0: int, line0: int,
          offset0: int, shown0: int, left: int, cap: int | None, context: int,
          window: int | None) -> Iterator[list]:
    as_text = match.kind == "str"
    newline = "\n" if as_text else b"\n"
    held = _kept(tree)
    absent = match.absent
    for index in [*range(index0, len(files)), -1, *range(index0)]:
        if index < 0:
            yield ["a"]
            continue
        path, size = files[index]
        data = None if held is None else held.get(path)
        if data is None:
            data = read_file(path, size, tree_fd)
            if held is not None:
                _keep(tree, held, path, data)
        if (len(data) < SMALL and absent(data)) or not match.prefilter(data):
            yield ["f", index, 0]
            continue
        derive = None if held is None else _deriver(tree, held, path, data)
        doc: Any = data.decode("utf-8", "replace") if as_text else data
        first = index == index0
        offset, line, shown = (offset0, line0, shown0) if first else (0, 1, 0)
        room = 0 if index < index0 else left if cap is None else min(left, max(0, cap - shown))
        if first and offset > len(doc):
            raise invalid("cursor does not belong to this search; repeat the search without it", "cursor")
        count, numbered, marks = 0, offset, None
        if room <= 0:
            count = match.count_rest(doc, 0, derive)
        for start, stop in match.spans(doc, 0, derive) if room > 0 else ():
            count += 1
            if start < offset:
                continue
            if held is not None and start - numbered > 2 * MARK_STEP:  # far: from the file's line marks
                marks = marks or _marks(tree, held, path, doc)
                mark = start // MARK_STEP
                line = marks[mark] + doc.count(newline, mark * MARK_STEP, start)
            else:
                line += doc.count(newline, numbered, start)
            numbered = start
            yield ["m", index, line, stop + 1, _lines(doc, start, stop, line, context, window, match)]
            room -= 1
            left -= 1
            if room <= 0:  # the page is full: the rest of the file is only counted, by the cheapest loop
                count += match.count_rest(doc, stop + 1, derive)
                break
        yield ["f", index, count]


def _deriver(tree: str, held: dict[str, Any], path: str, data: bytes) -> Derive:
    """A kept file's lowered copy or decoded text, made once and kept beside it."""

    def derive(kind: str) -> Any:
        key = path + "\0" + kind
        value = held.get(key)
        if value is None:
            value = data.lower() if kind == "lower" else data.decode("utf-8", "replace")
            _keep(tree, held, key, value)
        return value

    return derive


def _marks(tree: str, held: dict[str, Any], path: str, doc: bytes) -> list[int]:
    """The line number at every MARK_STEP bytes of a kept file (kept beside it): a match deep in
    a big file is numbered by counting from the mark before it, not from the previous match."""
    key = path + "\0marks"
    marks = held.get(key)
    if marks is None:
        marks = line_marks(doc)
        _keep(tree, held, key, marks, 8 * len(marks))
    return marks


def line_marks(doc: bytes) -> list[int]:
    """The line number at offset 0, MARK_STEP, 2 * MARK_STEP ... of ``doc`` (the first is 1)."""
    marks, count = [1], doc.count
    for mark in range(MARK_STEP, len(doc) + 1, MARK_STEP):
        marks.append(marks[-1] + count(b"\n", mark - MARK_STEP, mark))
    return marks


def _decode(raw: Any) -> str:
    return raw if isinstance(raw, str) else raw.decode("utf-8", "replace")


def _lines(doc: Any, start: int, stop: int, number: int, context: int, window: int | None,
           match: Literal | Regex) -> list[dict[str, Any]]:
    """The line objects of one match: context before, the match, context after."""
    newline = "\n" if isinstance(doc, str) else b"\n"
    text = _decode(doc[start:stop])
    column = match.hit(text)
    lines = [{"line": number, "match": True, "column": (column or 0) + 1, **_shown(text, column, window)}]
    if context:
        before, end = [], start - 1
        for n in range(number - 1, max(0, number - 1 - context), -1):
            begin = doc.rfind(newline, 0, end) + 1
            before.append((n, _decode(doc[begin:end])))
            end = begin - 1
        after, begin = [], stop + 1
        for n in range(number + 1, number + 1 + context):
            if begin > len(doc) or (begin == len(doc)):
                break
            finish = doc.find(newline, begin)
            finish = len(doc) if finish < 0 else finish
            after.append((n, _decode(doc[begin:finish])))
            begin = finish + 1
        for n, body in reversed(before):
            lines.insert(len(lines) - 1, _context_line(n, body, window, match))
        lines.extend(_context_line(n, body, window, match) for n, body in after)
    return lines


def _context_line(number: int, text: str, window: int | None, match: Literal | Regex) -> dict[str, Any]:
    column = match.hit(text)
    if column is None:
        return {"line": number, "match": False, **_shown(text, None, window)}
    return {"line": number, "match": True, **_shown(text, column, window)}


# --- cursors -------------------------------------------------------------------------------

def encode_cursor(fingerprint: str, path: str, line: int, offset: int, shown: int) -> str:
    import binascii

    raw = f"1\n{fingerprint}\n{line}\n{offset}\n{shown}\n{path}".encode()
    return binascii.b2a_base64(raw, newline=False).decode("ascii").replace("+", "-").replace("/", "_").rstrip("=")


def decode_cursor(cursor: str, fingerprint: str) -> tuple[str, int, int, int]:
    """(path, line, offset, shown) of a cursor this search issued, or INVALID_ARGUMENT."""
    import binascii

    wrong = invalid("cursor is not one this search returned; repeat the search without it", "cursor")
    try:
        padded = cursor.replace("-", "+").replace("_", "/") + "=" * (-len(cursor) % 4)
        version, mark, line, offset, shown, path = binascii.a2b_base64(padded).decode().split("\n", 5)
        numbers = int(line), int(offset), int(shown)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise wrong from None
    if version != "1" or mark != fingerprint or min(numbers) < 0 or numbers[0] < 1:
        raise wrong
    return (path, *numbers)


# --- the search: events -> the page -------------------------------------------------------------

class Page:
    """Folds the events into the result: the page within its limits, the counts, the resume point."""

    def __init__(self, files: list[list], start: tuple[int, int, int, int], max_matches: int,
                 budget: int | None, line_budget: int | None) -> None:
        self.files, self.start, self.max_matches = files, start, max_matches
        # The page's JSON bytes and line objects, counted as budget.fit counts a list (SPEC §5).
        self.meter = Meter(budget, line_budget) if budget is not None and line_budget is not None else None
        self.counts: dict[int, int] = {}  # file index -> matching lines, once the file is done
        self.lines: dict[int, dict[int, dict[str, Any]]] = {}  # file index -> line -> line object
        self.shown: dict[int, int] = {}
        self.accepted = 0
        self.resume = start  # where the next page starts: (index, line, offset, shown)
        self.cut: str | None = None  # "matches" or "budget" once the page is full
        self.forward_done = False

    def event(self, event: list) -> None:
        kind = event[0]
        if kind == "m":
            self._match(event[1], event[2], event[3], event[4])
        elif kind == "f":
            self.counts[event[1]] = event[2]
            if self.cut is None and not self.forward_done:
                self.resume = (event[1] + 1, 1, 0, 0)
        elif kind == "a":
            self.forward_done = True

    def _match(self, index: int, number: int, next_offset: int, lines: list[dict[str, Any]]) -> None:
        if self.cut is not None:
            return
        if self.accepted >= self.max_matches:
            self.cut = "matches"
            return
        have = self.lines.get(index, {})
        new = [ln for ln in lines if ln["line"] not in have or ("column" in ln and "column" not in have[ln["line"]])]
        if self.meter is not None:
            from ..contract import dumps

            cost = sum(len(dumps(ln).encode("utf-8")) + 2 for ln in new)
            if not have:
                cost += 80 + len(dumps(self.files[index][0]).encode("utf-8"))
            cost += 40 * sum(1 for ln in new if ln["line"] - 1 not in have)  # a block may start here
            if self.accepted and not self.meter.admits(cost, len(new)):
                self.cut = "budget"
                return
            self.meter.count(cost, len(new))
        target = self.lines.setdefault(index, {})
        for ln in new:
            target[ln["line"]] = ln
        self.accepted += 1
        shown = self.shown.get(index, self.start[3] if index == self.start[0] else 0) + 1
        self.shown[index] = shown
        self.resume = (index, number + 1, next_offset, shown)

    def result(self, timed_out: bool, encode: Any) -> dict[str, Any]:
        files = []
        total = matched = 0
        for count in self.counts.values():
            total += count
            matched += count > 0
        for index in sorted(self.lines):
            rows = [self.lines[index][n] for n in sorted(self.lines[index])]
            blocks: list[dict[str, Any]] = []
            for row in rows:
                if blocks and blocks[-1]["lines"][-1]["line"] + 1 == row["line"]:
                    blocks[-1]["lines"].append(row)
                else:
                    blocks.append({"startLine": row["line"], "lines": [row]})
            if index not in self.counts:  # stopped inside this file: what it showed is what is known
                self.counts[index] = sum(1 for r in rows if "column" in r)
                total += self.counts[index]
                matched += 1
            files.append({"path": self.files[index][0], "matchCount": self.counts[index], "blocks": blocks})
        more = self.cut is not None or (timed_out and not self.forward_done and self.resume[0] < len(self.files))
        result: dict[str, Any] = {"files": files, "totalMatches": total, "filesMatched": matched,
                                  "filesScanned": len(self.counts), "hasMore": more}
        if more:
            index, line, offset, shown = self.resume
            result["nextCursor"] = encode(self.files[index][0], line, offset, shown)
        if timed_out:
            result["truncatedReason"] = "time"
        elif self.cut is not None:
            result["truncatedReason"] = self.cut
        return result


def scan_until(job: dict[str, Any], on_event: Callable[[list], None], deadline: float) -> bool | None:
    """Run ``job`` here under its deadline (search/runner.py): True when the deadline stopped it,
    False when it finished, None (not run) outside the main thread."""
    return run_until(scan(job), on_event, deadline)


def search(tree: str, files: list[list], options: dict[str, Any], *, start: tuple[int, int, int, int] | None,
           max_matches: int | None, cap: int | None, context: int, window: int | None, deadline: float,
           encode: Any, budget: int | None = None, line_budget: int | None = None) -> dict[str, Any]:
    """Search ``files`` (``[path, size]`` under ``tree``): the page and the counts.

    ``start`` is (file index, line, offset, matches of that file shown before) from a cursor;
    ``max_matches`` None means every match (the plain CLI); ``budget``/``line_budget`` bound
    the page's JSON bytes and line objects; ``encode(path, line, offset, shown)`` makes the
    cursor. Literals are searched here; a regex here in the main thread, else in a warm
    child process (grep_worker).
    """
    import time

    start = start or (0, 1, 0, 0)
    limit = max_matches if max_matches is not None else 1 << 62
    job = {"tree": tree, "files": files, "options": options, "start": list(start), "want": limit + 1,
           "cap": cap, "context": context, "window": window}
    page = Page(files, start, limit, budget, line_budget)
    timed_out = False
    if options.get("regex"):
        timed_out = scan_until(job, page.event, deadline)
        if timed_out is None:  # not the main thread: no signal can stop it here
            timed_out = run_in_child(job, page.event, deadline)
    else:
        for event in scan(job):
            page.event(event)
            last = event[0] == "a" if start[0] == 0 else event[0] == "f" and event[1] == start[0] - 1
            if not last and time.monotonic() > deadline:
                timed_out = True
                break
    return page.result(timed_out, encode)
