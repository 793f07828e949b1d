"""The grep_repo engine: search the text files of one entry's tree, page the matching lines.

Input: the tree directory, the files in scope in path order (``[path, size]``, binaries and
oversized files already set aside by the caller), the options, where to start (a cursor) and
a deadline. Output: the page (matching lines with their context, merged into blocks per
file) and exact counts over the whole scope: ``totalMatches`` (matching lines),
``filesMatched``, ``filesScanned``; or, when the deadline struck, what was found by then with
``hasMore`` and ``truncatedReason: "time"``.

Matching is line by line, lines split on ``\\n`` only (a ``\\r`` stays part of its line), one
hit per line:

- A literal (the default) is searched with ``bytes.find`` over the whole file. Case
  insensitive means ``pattern.casefold() in line.casefold()``, the rule of grep_file, so one
  file gives the same lines through either tool. It runs as ``find`` on a lowered copy (ASCII
  lowering keeps every offset) unless the pattern is not ASCII or the file holds one of the 19
  characters whose case folding produces ASCII letters (ß, ſ, the Kelvin sign, ligatures...):
  then that file is folded line by line. ``re.IGNORECASE`` is never used for a literal.
- A regex is Python ``re`` syntax over the decoded text (``\\w``, ``\\b`` are Unicode), with
  ``re.MULTILINE``; a line matches when ``re.search`` finds the pattern in the line alone.
  A required literal pulled from the pattern rejects files without it before they are decoded.
  A regex is stopped at the deadline by ``SIGALRM`` (``re`` checks for signals while it
  matches, so even a catastrophically backtracking pattern stops): in the main thread (the
  CLI) it runs right here; in any other thread (the MCP server's workers, where no signal can
  reach) it runs in a warm child process (``grep_worker``, kept between calls), because
  ``re`` holds the GIL and would otherwise freeze the server.
- ``whole_words``: the hit has no word character (``\\w``) right before or after it.

Columns are 1-based and count characters (code points), not bytes as ``rg --column`` does:
the caller receives the line as a JSON string, where a character column is the one that
points at the hit; on ASCII lines the two agree.

This module is over 500 lines on purpose: the scanners, the page with its exact counts and
the cursor arithmetic are one engine whose invariants (no match twice, none skipped) hold
only together.
"""

from __future__ import annotations

import os

from ..budget import Meter
from ..errors import invalid

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

# Every character outside ASCII whose str.casefold() holds an ASCII character (computed over
# all of Unicode; tests/test_grep_repo.py recomputes it). A file holding none of those relevant
# to the pattern can be matched case-insensitively on its ASCII-lowered bytes.
FOLDS_TO_ASCII = {  # ß, İ, ŉ, ſ, ǰ, ẖ, ẗ, ẘ, ẙ, ẚ, ẞ, the Kelvin sign, and the Latin ligatures ﬀ to ﬆ
    '\xdf': 'ss', '\u0130': 'i\u0307', '\u0149': '\u02bcn', '\u017f': 's', '\u01f0': 'j\u030c',
    '\u1e96': 'h\u0331', '\u1e97': 't\u0308', '\u1e98': 'w\u030a', '\u1e99': 'y\u030a', '\u1e9a':
    'a\u02be', '\u1e9e': 'ss', '\u212a': 'k', '\ufb00': 'ff', '\ufb01': 'fi', '\ufb02': 'fl', '\ufb03':
    'ffi', '\ufb04': 'ffl', '\ufb05': 'st', '\ufb06': 'st',
}
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


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


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"  # what \w matches in a str pattern


def _word_before(data: bytes, pos: int) -> bool:
    if pos == 0:
        return False
    byte = data[pos - 1]
    if byte < 0x80:
        return byte in _WORD_BYTES
    start = pos - 1
    while start > 0 and 0x80 <= data[start] < 0xC0:
        start -= 1
    return _is_word(data[start:pos].decode("utf-8", "replace")[-1:])


def _word_after(data: bytes, pos: int) -> bool:
    if pos >= len(data):
        return False
    byte = data[pos]
    if byte < 0x80:
        return byte in _WORD_BYTES
    return _is_word(data[pos:pos + 4].decode("utf-8", "replace")[:1])


def _str_bounded(text: str, start: int, end: int) -> bool:
    return not (start > 0 and _is_word(text[start - 1])) and not (end < len(text) and _is_word(text[end]))


# --- matchers: which lines of a file match, and where ------------------------------------------

def _lines_of(doc: Any, newline: Any) -> list[Any]:
    """The lines of ``doc`` without their newline; a trailing newline starts no new line."""
    lines = doc.split(newline)
    if not lines[-1]:
        lines.pop()
    return lines


def _overlap(folded: str, pattern: str) -> bool:
    """Whether a character case-folding to ``folded`` can take part in a match of ``pattern``
    in folded text: the part of its folding a match covers is all of it, the pattern lies
    inside it, or one's end is the other's start."""
    if folded in pattern or pattern in folded:
        return True
    return any(pattern.startswith(folded[i:]) or pattern.endswith(folded[:i]) for i in range(1, len(folded)))


class Literal:
    """A literal pattern. ``spans(data, lo)`` yields the (start, end) byte offsets of the matching
    lines from offset ``lo`` (a line start); ``column(line)`` is the 0-based hit in a line."""

    kind = "bytes"

    def __init__(self, pattern: str, case_sensitive: bool, whole_words: bool) -> None:
        self.pattern, self.case_sensitive, self.whole_words = pattern, case_sensitive, whole_words
        self._rest: Any = None
        self.fold = pattern if case_sensitive else pattern.casefold()
        if case_sensitive:
            self.needle: bytes | None = pattern.encode("utf-8")
        else:
            self.needle = pattern.lower().encode("ascii") if pattern.isascii() else None
            # With whole_words any of them matters: a folded neighbour can change wordness.
            self.specials = [ch.encode("utf-8") for ch, folded in FOLDS_TO_ASCII.items()
                             if whole_words or _overlap(folded, self.fold)]

    def prefilter(self, data: bytes) -> bool:
        return True

    def absent(self, data: bytes) -> bool:
        """True when no line of ``data`` can match: a case-sensitive needle it lacks (a cheap
        test before the line machinery; False means "look")."""
        return self.case_sensitive and self.needle not in data

    def _fast(self, data: bytes) -> bool:
        if self.needle is None:
            return False
        if self.case_sensitive or data.isascii():
            return True
        return not any(special in data for special in self.specials)

    def spans(self, data: bytes, lo: int = 0, derive: Derive | None = None) -> Iterator[tuple[int, int]]:
        """``derive(kind)`` gives the file's lowered copy ("lower") or its decoded text ("text"),
        which a server keeps between searches; without it they are made here."""
        if not self._fast(data):
            yield from self._folded_spans(data, lo)
            return
        hay = data if self.case_sensitive else derive("lower") if derive is not None else data.lower()
        needle, size, whole = self.needle, len(self.needle), self.whole_words
        find, rfind, end = hay.find, hay.rfind, len(hay)
        pos = find(needle, lo)
        while pos >= 0:
            if whole and (_word_before(hay, pos) or _word_after(hay, pos + size)):
                pos = find(needle, pos + 1)
                continue
            newline = rfind(b"\n", lo, pos)
            start = newline + 1 if newline >= 0 else lo
            stop = find(b"\n", pos + size)
            if stop < 0:
                stop = end
            yield start, stop
            lo = stop + 1
            pos = find(needle, lo)

    def count_rest(self, data: bytes, lo: int, derive: Derive | None = None) -> int:
        """How many lines from offset ``lo`` (a line start) match: ``spans`` counted, without
        the line starts it finds for each. After 64 hits in one file the rest is counted by
        ``re`` in C (the literal, then the rest of its line: one match per matching line)."""
        if self.whole_words or not self._fast(data):
            return sum(1 for _ in self.spans(data, lo, derive))
        hay = data if self.case_sensitive else derive("lower") if derive is not None else data.lower()
        needle, find, count = self.needle, hay.find, 0
        size = len(needle)
        pos = find(needle, lo)
        while pos >= 0:
            count += 1
            stop = find(b"\n", pos + size)
            if stop < 0:
                break
            if count == 64:  # a common literal: C counts the rest
                if self._rest is None:
                    import re

                    self._rest = re.compile(re.escape(needle) + b"[^\n]*()")  # () : findall returns b""s
                return count + len(self._rest.findall(hay, stop + 1))
            pos = find(needle, stop + 1)
        return count

    def _folded_spans(self, data: bytes, lo: int) -> Iterator[tuple[int, int]]:
        """The slow, exact path: each line decoded and case-folded."""
        offset = lo
        for raw in _lines_of(data[lo:], b"\n"):
            if self.hit(raw.decode("utf-8", "replace")) is not None:
                yield offset, offset + len(raw)
            offset += len(raw) + 1

    def hit(self, line: str) -> int | None:
        """The 0-based column of the first hit in ``line``, or None."""
        if self.case_sensitive:
            haystack, needle = line, self.pattern
        else:
            haystack, needle = line.casefold(), self.fold
        pos = haystack.find(needle)
        if self.whole_words:
            while pos >= 0 and not _str_bounded(haystack, pos, pos + len(needle)):
                pos = haystack.find(needle, pos + 1)
        if pos < 0:
            return None
        if self.case_sensitive or haystack is line or len(haystack) == len(line) and line.isascii():
            return pos
        folded = 0  # map an offset in the folded line back to the character it came from
        for index, ch in enumerate(line):
            folded += len(ch.casefold())
            if folded > pos:
                return index
        return len(line)


def _parser() -> Any:
    try:
        import re._parser as parser  # Python 3.11+
    except ImportError:  # pragma: no cover - 3.10
        import sre_parse as parser
    return parser


def analyse(pattern: str, flags: int) -> tuple[str, bool, bool]:
    """(the longest run of literal characters every match contains, whether the pattern is
    case-insensitive as a whole, whether it must run line by line because it looks past a
    line's ends: lookarounds, ``\\A``, ``\\Z``; whether every match starts with that run)."""
    parser = _parser()
    try:
        parsed = parser.parse(pattern, flags)
    except Exception:  # noqa: BLE001 - re.compile accepted it; then no prefilter, the slow path
        return "", True, True, False
    looks_around = {parser.ASSERT, parser.ASSERT_NOT}
    string_ends = {parser.AT_BEGINNING_STRING, parser.AT_END_STRING}
    line_mode = False

    def subpatterns(value: Any) -> Iterator[Any]:
        if isinstance(value, parser.SubPattern):
            yield value
        elif isinstance(value, (list, tuple)):
            for item in value:
                yield from subpatterns(item)

    def walk(items: Any) -> None:
        nonlocal line_mode
        for op, value in items:
            if op in looks_around or (op == parser.AT and value in string_ends):
                line_mode = True
            for sub in subpatterns(value):
                walk(sub)

    walk(parsed)
    best, run = "", []

    def runs(items: Any) -> None:
        nonlocal best
        for op, value in items:
            if op == parser.LITERAL:
                run.append(chr(value))
            elif op == parser.SUBPATTERN and not value[1] and not value[2]:
                runs(value[3])  # a group without flags is contiguous with what surrounds it
            else:
                best = max(best, "".join(run), key=len)
                run.clear()

    runs(parsed)
    best = max(best, "".join(run), key=len)
    leading = []  # the literal run a match starts with (flagless groups looked into)
    items = list(parsed)
    while items:
        op, value = items.pop(0)
        if op == parser.LITERAL:
            leading.append(chr(value))
        elif op == parser.SUBPATTERN and not value[1] and not value[2]:
            items[:0] = list(value[3])
        else:
            break
    head = "".join(leading)
    starts = bool(best) and (len(head) >= 3 or head.startswith(best))
    return best, bool(parsed.state.flags & 2), line_mode, starts  # 2: re.IGNORECASE


def compile_regex(pattern: str, case_sensitive: bool, whole_words: bool) -> Any:
    """The compiled pattern, or INVALID_ARGUMENT quoting the compiler's message."""
    import re

    source = f"(?<!\\w)(?:{pattern})(?!\\w)" if whole_words else pattern
    try:
        return re.compile(source, re.MULTILINE | (0 if case_sensitive else re.IGNORECASE))
    except re.error as exc:
        message = str(exc)
        if whole_words:  # quote the caller's pattern, not the wrapped one
            try:
                re.compile(pattern)
            except re.error as inner:
                message = str(inner)
        raise invalid(f"pattern is not a valid regular expression (Python re syntax): {message}", "pattern") from None
    except (OverflowError, RecursionError, ValueError) as exc:
        raise invalid(f"pattern is not a valid regular expression (Python re syntax): {exc}", "pattern") from None


# The characters outside ASCII that re.IGNORECASE matches to an ASCII letter (computed over all
# of Unicode; tests/test_grep_repo.py recomputes it): a lowered copy misses exactly these.
IGNORECASE_TO_ASCII = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}


class Regex:
    """A Python ``re`` pattern; each line is matched as a str, offsets are bytes.

    With a required literal, candidate lines are found with ``find`` on the bytes (or their
    lowered copy) and the pattern runs on those lines only; without one, over the decoded text.
    """

    kind = "bytes"

    def __init__(self, pattern: str, case_sensitive: bool, whole_words: bool) -> None:
        self.rx = compile_regex(pattern, case_sensitive, whole_words)
        literal, self.ignore_case, self.line_mode, leading = analyse(pattern, self.rx.flags)
        # A case-sensitive pattern that starts with its literal runs over the whole text (after
        # the literal rejected the files without it): re's own prefix scan beats testing every
        # line that holds a common literal such as `function`.
        self.whole_text = leading and not self.ignore_case and not self.line_mode and not whole_words
        self.needle: bytes | None = None
        self.specials: list[bytes] = []
        if literal and not self.ignore_case:
            self.needle = literal.encode("utf-8")
        elif literal.isascii() and literal:  # re.IGNORECASE folds other non-ASCII beyond a lowered copy
            self.needle = literal.lower().encode("ascii")
            self.specials = [ch.encode("utf-8") for ch, letter in IGNORECASE_TO_ASCII.items()
                             if letter in literal.lower()]

    def prefilter(self, data: bytes) -> bool:
        return True

    def absent(self, data: bytes) -> bool:
        """True when ``data`` lacks the required literal (as spans would find it: case-sensitive only)."""
        return self.needle is not None and not self.ignore_case and self.needle not in data

    def spans(self, data: bytes, lo: int = 0, derive: Derive | None = None) -> Iterator[tuple[int, int]]:
        needle, search = self.needle, self.rx.search
        if needle is not None and not self.whole_text and (
                not self.ignore_case or data.isascii() or not any(special in data for special in self.specials)):
            # Every match holds the literal, so every matching line does: test those lines only.
            hay = data if not self.ignore_case else derive("lower") if derive is not None else data.lower()
            find, rfind, end = hay.find, hay.rfind, len(hay)
            pos = find(needle, lo)
            while pos >= 0:
                newline = rfind(b"\n", lo, pos)
                start = newline + 1 if newline >= 0 else lo
                stop = find(b"\n", pos)
                if stop < 0:
                    stop = end
                if search(data[start:stop].decode("utf-8", "replace")):
                    yield start, stop
                lo = stop + 1
                pos = find(needle, lo)
            return
        if self.line_mode:
            offset = lo
            for raw in _lines_of(data[lo:], b"\n"):
                if search(raw.decode("utf-8", "replace")):
                    yield offset, offset + len(raw)
                offset += len(raw) + 1
            return
        text = derive("text") if derive is not None and lo == 0 else data[lo:].decode("utf-8", "replace")
        ascii_text = text.isascii()
        chars = octets = 0  # a character offset and its byte offset, advanced match by match
        for start, stop in self._text_spans(text):
            if ascii_text:
                yield lo + start, lo + stop
                continue
            octets += len(text[chars:start].encode("utf-8"))
            length = len(text[start:stop].encode("utf-8"))
            yield lo + octets, lo + octets + length
            chars, octets = stop, octets + length

    def count_rest(self, data: bytes, lo: int, derive: Derive | None = None) -> int:
        return sum(1 for _ in self.spans(data, lo, derive))

    def _text_spans(self, text: str) -> Iterator[tuple[int, int]]:
        """The matching lines of ``text`` as character offsets: the pattern over the whole text,
        each hit checked on its line alone when it runs past the line's end."""
        search, find, rfind, end = self.rx.search, text.find, text.rfind, len(text)
        pos = 0
        while pos < end:
            found = search(text, pos)
            if found is None:
                return
            at = found.start()
            newline = rfind("\n", pos, at)
            start = newline + 1 if newline >= 0 else pos
            stop = find("\n", at)
            if stop < 0:
                stop = end
            if found.end() <= stop or search(text[start:stop]):
                yield start, stop
            pos = stop + 1

    def hit(self, line: str) -> int | None:
        found = self.rx.search(line)
        return None if found is None else found.start()


def matcher(options: dict[str, Any]) -> Literal | Regex:
    cls = Regex if options.get("regex") else Literal
    return cls(options["pattern"], bool(options.get("case_sensitive")), bool(options.get("whole_words")))


# --- the scan: events for the page and the counts ------------------------------------------------

def read_file(path: str, size: int, dir_fd: int | None = None) -> bytes:
    """The whole file, read with ``os.read`` (``size`` is the manifest's: one read of a byte
    more, which a regular file fills only when it grew; ``path`` relative to ``dir_fd``)."""
    try:
        fd = os.open(path, os.O_RDONLY, dir_fd=dir_fd)
    except FileNotFoundError:
        from ..errors import cache_removed

        raise cache_removed() from None
    try:
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
        marks, count = [1], doc.count
        for mark in range(MARK_STEP, len(doc) + 1, MARK_STEP):
            marks.append(marks[-1] + count(b"\n", mark - MARK_STEP, mark))
        _keep(tree, held, key, marks, 8 * len(marks))
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


class _Stop(Exception):
    """The deadline's SIGALRM, raised inside the scan only (never while an event is handled)."""


def scan_until(job: dict[str, Any], on_event: Callable[[list], None], deadline: float) -> bool | None:
    """Run ``job`` here, feeding its events to ``on_event``, stopped at ``deadline`` by SIGALRM
    (``re`` checks for signals while it matches, so a stuck pattern stops too). True when the
    deadline stopped it, False when it finished; None, without running it, outside the main
    thread, where Python delivers no signal (the caller runs it in a child then)."""
    import signal
    import time

    state = {"armed": False, "rang": False}

    def ring(signum: int, frame: Any) -> None:
        state["rang"] = True
        if state["armed"]:
            raise _Stop

    try:
        previous = signal.signal(signal.SIGALRM, ring)
    except (ValueError, AttributeError):  # not the main thread (or no SIGALRM on this platform)
        return None
    events = scan(job)
    try:
        signal.setitimer(signal.ITIMER_REAL, max(deadline - time.monotonic(), 0.001))
        while True:
            state["armed"] = True
            try:
                if state["rang"]:
                    raise _Stop
                event = next(events)
            except StopIteration:
                return False
            finally:
                state["armed"] = False
            on_event(event)
    except _Stop:
        return True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        events.close()


_IDLE: list[Any] = []  # warm grep_worker conversations between calls (a server reuses them)
_KEEP = 2  # at most this many kept: one per concurrent regex search of the MCP server's workers
_GRACE = 2.0  # seconds past the deadline before a worker that did not stop itself is killed


def _take_worker() -> Any:
    from .. import proc

    while _IDLE:
        try:
            worker = _IDLE.pop()
        except IndexError:  # another thread took the last one
            break
        if worker.alive():
            return worker
        worker.kill()
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": package_root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    import sys

    return proc.Conversation([sys.executable, "-m", f"{__package__}.grep_worker"], env=env)


def run_in_child(job: dict[str, Any], on_event: Callable[[list], None], deadline: float) -> bool:
    """Run ``job`` in a ``python -m codenav.search.grep_worker`` process (a warm one when a
    previous call left it), feeding its events to ``on_event``; True when the deadline stopped
    it. The worker stops itself at the deadline (scan_until) and stays reusable; one that does
    not within a grace period is killed. Python's ``re`` holds the GIL inside one search, so
    only another process can be stopped without stopping this one."""
    import json
    import time

    from .. import proc
    from ..errors import CodenavError

    outcome: dict[str, Any] = {}

    def on_line(line: bytes) -> bool:
        for event in json.loads(line):
            kind = event[0]
            if kind in ("d", "t"):
                outcome["timed_out"] = kind == "t"
                return True
            if kind == "e":
                outcome["error"] = CodenavError(event[1], event[2], details=event[3])
                return True
            on_event(event)
        return False

    try:
        worker = _take_worker()
    except proc.NotStarted as exc:
        raise CodenavError("INTERNAL", f"the regex search process could not be started ({exc})") from None
    request = json.dumps({**job, "seconds": deadline - time.monotonic()}).encode("utf-8") + b"\n"
    answered = worker.ask(request, deadline + _GRACE, on_line)
    if answered is None:
        return True
    if not answered:
        raise CodenavError("INTERNAL", "the regex search process stopped unexpectedly")
    if len(_IDLE) < _KEEP:
        _IDLE.append(worker)
    else:
        worker.close()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["timed_out"]
