"""grep_repo's matchers: which lines of a file match a pattern, and where (search/grep.py scans).

Matching is line by line, lines split on ``\\n`` only (a ``\\r`` stays part of its line), one
hit per line; ``spans(data, lo)`` yields the (start, end) byte offsets of the matching lines:

- A literal (the default) is searched with ``bytes.find`` over the whole file. Case
  insensitive means ``pattern.casefold() in line.casefold()``, the rule of grep_file, so one
  file gives the same lines through either tool. It runs as ``find`` on a lowered copy (ASCII
  lowering keeps every offset) unless the pattern is not ASCII or the file holds one of the 19
  characters whose case folding produces ASCII letters (ß, ſ, the Kelvin sign, ligatures...):
  then that file is folded line by line. ``re.IGNORECASE`` is never used for a literal.
- A regex is Python ``re`` syntax over the decoded text (``\\w``, ``\\b`` are Unicode), with
  ``re.MULTILINE``; a line matches when ``re.search`` finds the pattern in the line alone.
  A required literal pulled from the pattern rejects files without it before they are decoded.
  Over a whole file that is ASCII, a pattern that names only ASCII characters runs as the same
  pattern compiled for bytes, on the bytes: on ASCII text the two agree character for character
  (``\\w``, ``\\d``, ``\\b``, case folding), except ``\\s``, which in a str pattern also
  matches the separators U+001C to U+001F, so a pattern using it needs a file without them.
- ``whole_words``: the hit has no word character (``\\w``) right before or after it.

``hit(line)`` gives the 0-based column (in characters) of the first hit in a decoded line.
"""

from __future__ import annotations

from ..errors import invalid

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    Derive = Callable[[str], Any]

# Every character outside ASCII whose str.casefold() holds an ASCII character (computed over
# all of Unicode; tests/test_grep_repo.py recomputes it). A file holding none of those relevant
# to the pattern can be matched case-insensitively on its ASCII-lowered bytes.
FOLDS_TO_ASCII = {  # ß, İ, ŉ, ſ, ǰ, ẖ, ẗ, ẘ, ẙ, ẚ, ẞ, the Kelvin sign, and the Latin ligatures ﬀ to ﬆ
    '\xdf': 'ss', '\u0130': 'i\u0307', '\u0149': '\u02bcn', '\u017f': 's', '\u01f0': 'j\u030c',
    '\u1e96': 'h\u0331', '\u1e97': 't\u0308', '\u1e98': 'w\u030a', '\u1e99': 'y\u030a', '\u1e9a':
    'a\u02be', '\u1e9e': 'ss', '\u212a': 'k', '\ufb00': 'ff', '\ufb01': 'fi', '\ufb02': 'fl', '\ufb03':
    'ffi', '\ufb04': 'ffl', '\ufb05': 'st', '\ufb06': 'st',
}
_SEPARATORS = (b"\x1c", b"\x1d", b"\x1e", b"\x1f")  # ASCII, and \s in a str pattern only
_ASCII_CHUNK = 64 * 1024  # a mapped file is checked for ASCII in copies this small (heap, reused)
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


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


def is_ascii(data: Any) -> bool:
    """``data.isascii()`` for bytes, and for a mapped file (mmap has no isascii) in chunks."""
    if isinstance(data, bytes):
        return data.isascii()
    return all(data[at:at + _ASCII_CHUNK].isascii() for at in range(0, len(data), _ASCII_CHUNK))


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
        # spans() reads a case-sensitive search with find/rfind/slices only: a mapped file will do.
        self.mappable = case_sensitive
        self._rest: Any = None
        self.required = pattern.encode("utf-8") if case_sensitive else None  # what `absent` tests, else None
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
        # No character folds to nothing, so a folded line as long as the line folded each
        # character to one: the offset is the column (an accented minified bundle's long lines
        # would otherwise be walked character by character up to every hit).
        if self.case_sensitive or haystack is line or len(haystack) == len(line):
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
        # spans() touches a case-sensitive search's bytes with find/rfind/slices, and a whole
        # file through is_ascii and slices: a mapped file will do, unless a lowered copy is needed.
        self.mappable = self.needle is None or not self.ignore_case
        self.required = self.needle if not self.ignore_case else None  # what `absent` tests, else None
        self._twin: Any = None  # (the bytes twin or False, whether it uses \s), made on first use

    def prefilter(self, data: bytes) -> bool:
        return True

    def absent(self, data: bytes) -> bool:
        """True when ``data`` lacks the required literal (as spans would find it: case-sensitive only)."""
        return self.needle is not None and not self.ignore_case and self.needle not in data

    def spans(self, data: bytes, lo: int = 0, derive: Derive | None = None) -> Iterator[tuple[int, int]]:
        needle, search = self.needle, self.rx.search
        plain = None  # whether data is ASCII, when known
        if self.whole_text:
            if data.find(needle, lo) < 0:  # every match holds the literal (case-sensitive here)
                return
            plain = is_ascii(data)
        if needle is not None and (plain is False or not self.whole_text and (
                not self.ignore_case or data.isascii() or not any(special in data for special in self.specials))):
            # Every match holds the literal, so every matching line does: test those lines only
            # (over text that is not ASCII, rather than decoding all of it for the whole-text run).
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
            yield from self._each_line(data, lo)
            return
        twin = self.bytes_twin(data, plain)
        if twin is not None:  # ASCII: the bytes are the text, and the twin matches as the pattern
            for start, stop in self._text_spans(data if lo == 0 else data[lo:], twin.search, b"\n"):
                yield lo + start, lo + stop
            return
        text = derive("text") if derive is not None and lo == 0 else data[lo:].decode("utf-8", "replace")
        if "\ufffd" in text:  # a replaced byte is 1 byte, its U+FFFD 3: offsets from the text would drift
            yield from self._each_line(data, lo)
            return
        ascii_text = text.isascii()
        chars = octets = 0  # a character offset and its byte offset, advanced match by match
        for start, stop in self._text_spans(text, search, "\n"):
            if ascii_text:
                yield lo + start, lo + stop
                continue
            octets += len(text[chars:start].encode("utf-8"))
            length = len(text[start:stop].encode("utf-8"))
            yield lo + octets, lo + octets + length
            chars, octets = stop, octets + length

    def count_rest(self, data: bytes, lo: int, derive: Derive | None = None) -> int:
        return sum(1 for _ in self.spans(data, lo, derive))

    def _each_line(self, data: Any, lo: int) -> Iterator[tuple[int, int]]:
        """The matching lines from ``lo``, each line decoded and searched alone."""
        search, offset = self.rx.search, lo
        for raw in _lines_of(data[lo:], b"\n"):
            if search(raw.decode("utf-8", "replace")):
                yield offset, offset + len(raw)
            offset += len(raw) + 1

    def bytes_twin(self, data: Any, plain: bool | None = None) -> Any:
        """The pattern compiled for bytes when it matches ``data`` (a whole file, bytes or mapped)
        exactly as the str pattern matches its decoded text, else None: the pattern names only
        ASCII characters and compiles for bytes, ``data`` is ASCII, and without U+001C to U+001F
        when the pattern uses ``\\s`` or ``\\S`` (tests/test_grep_repo_speed.py compares the two).
        ``plain``: whether ``data`` is ASCII, when the caller knows."""
        if self._twin is None:
            self._twin = _ascii_twin(self.rx.pattern, self.rx.flags)
        twin, spaces = self._twin
        if not twin or not (is_ascii(data) if plain is None else plain):
            return None
        if spaces and any(data.find(separator) >= 0 for separator in _SEPARATORS):
            return None
        return twin

    def _text_spans(self, text: Any, search: Callable[..., Any], nl: Any) -> Iterator[tuple[int, int]]:
        """The matching lines of ``text`` (a str, or ASCII bytes with the bytes twin's ``search``)
        as offsets: the pattern over the whole text, each hit checked on its line alone when it
        runs past the line's end."""
        find, rfind, end = text.find, text.rfind, len(text)
        pos = 0
        while pos < end:
            found = search(text, pos)
            if found is None:
                return
            at = found.start()
            if at == end:  # an empty match after the last newline: that starts no line (_lines_of)
                return
            newline = rfind(nl, pos, at)
            start = newline + 1 if newline >= 0 else pos
            stop = find(nl, at)
            if stop < 0:
                stop = end
            if found.end() <= stop or search(text[start:stop]):
                yield start, stop
            pos = stop + 1

    def hit(self, line: str) -> int | None:
        found = self.rx.search(line)
        return None if found is None else found.start()


def _subpatterns(parser: Any, value: Any) -> Iterator[Any]:
    """The parsed subpatterns inside an item's value (a group's, a repeat's, a branch's...)."""
    if isinstance(value, parser.SubPattern):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _subpatterns(parser, item)


def _ascii_twin(source: str, flags: int) -> tuple[Any, bool]:
    """(``source`` compiled for bytes with the same flags, or False when it names a character
    outside ASCII or does not compile for bytes — ``\\u``, ``\\N``, ``(?u)``; whether it uses
    ``\\s``/``\\S``)."""
    import re

    parser = _parser()
    try:
        parsed = parser.parse(source, flags)
    except Exception:  # noqa: BLE001 - re.compile accepted it; then the str path
        return False, False
    named = {parser.LITERAL, parser.NOT_LITERAL}
    spaces = {parser.CATEGORY_SPACE, parser.CATEGORY_NOT_SPACE}
    ascii_only, uses_space = True, False

    def walk(items: Any) -> None:
        nonlocal ascii_only, uses_space
        for op, value in items:
            if op in named:
                ascii_only = ascii_only and value < 128
            elif op == parser.RANGE:
                ascii_only = ascii_only and value[1] < 128
            elif op == parser.CATEGORY:
                uses_space = uses_space or value in spaces
            elif op == parser.IN:
                walk(value)
            else:
                for sub in _subpatterns(parser, value):
                    walk(sub)

    walk(parsed)
    if not ascii_only:
        return False, False
    try:
        return re.compile(source.encode("ascii"), flags & ~re.UNICODE), uses_space
    except (re.error, UnicodeEncodeError, ValueError, OverflowError, RecursionError):
        return False, False


def matcher(options: dict[str, Any]) -> Literal | Regex:
    cls = Regex if options.get("regex") else Literal
    return cls(options["pattern"], bool(options.get("case_sensitive")), bool(options.get("whole_words")))
