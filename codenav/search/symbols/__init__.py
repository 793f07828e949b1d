"""Symbols: the definitions in a source file, and a compact index of them on disk.

- ``extract(path, data)`` returns the file's definitions as ``Symbol``s, ``None`` when no
  extractor knows the language (by file name: Python, JavaScript/TypeScript, Rust, Go, PHP,
  Java, Kotlin, Ruby, C#, Elixir; each module's docstring says what it indexes and how it decides
  ``exported``), or a ``Skipped`` marker when the file cannot be
  read as source (syntax error, nesting too deep, not UTF-8, a minified bundle over
  ``MAX_BYTES`` or with a line over ``MAX_LINE_BYTES``). It never raises for bad input: the
  caller counts the ``Skipped`` and goes on.
- ``write_index(symbols, out_file)`` streams one line per symbol (format below), so building
  the index of a large target holds one file's symbols in memory at a time.
- ``query(index_file, text, ...)`` scans that file and returns the matches, best first. It
  imports neither ``json`` nor ``re``: a warm CLI call pays only for reading the lines.

Index format (version 1), UTF-8, ``\\n``-terminated lines. The first line is the header
``codenav-symbols\\t1``. Each other line is nine tab-separated fields::

    name  kind  path  line  end_line  container  exported  signature  doc

``end_line`` is empty when unknown; ``exported`` is ``1``, ``0`` or empty (the language does
not say); ``container`` and ``doc`` are empty when absent. In every field a backslash, tab,
newline and carriage return are written ``\\\\``, ``\\t``, ``\\n``, ``\\r``.
An index written by ``build_index`` ends with a counts line: it starts with a tab (no symbol
has an empty name) and holds ``key=value`` fields (``files``, ``symbols``, ``skipped``,
``other``); ``counts(index_file)`` reads it from the file's tail, and ``query`` passes over it.

Ordering of ``query`` results: exact matches, then prefix matches, then substring matches;
within each, exported before unsaid before internal, then source before tests, then the
letter case matching the query before a case-insensitive match, then shallower paths first,
then path and line.
"""

from __future__ import annotations

import os

from ...text import language_for
from .model import KINDS, SIGNATURE_CHARS, Skipped, Symbol

__all__ = ["KINDS", "SIGNATURE_CHARS", "Skipped", "Symbol", "build_index", "counts", "extract", "query", "search",
           "write_index"]

TYPE_CHECKING = False  # annotations only: a warm query must not import typing
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import TextIO

MAX_BYTES = 4 * 1024 * 1024  # a source file this large is generated (bundles, tables), not written
MAX_LINE_BYTES = 32 * 1024  # a line this long means minified or generated code
HEADER = "codenav-symbols\t1\n"

# The extractor module that reads each language of text.py's extension table (list_files'
# ``language``): a file is indexed exactly when it is listed with one of these languages.
EXTRACTORS = {"Python": "python", "JavaScript": "javascript", "TypeScript": "javascript", "TSX": "javascript",
              "Rust": "rust", "Go": "go", "PHP": "php", "Java": "java", "Kotlin": "kotlin", "Ruby": "ruby",
              "C#": "csharp", "Elixir": "elixir"}


def language(path: str) -> str | None:
    """The extractor for ``path`` (``python``, ``javascript`` for JS and TS, ``rust``, ``go``, ``php``,
    ``java``, ``kotlin``, ``ruby``, ``csharp``, ``elixir``), or None: by its language in list_files."""
    return EXTRACTORS.get(language_for(path))


def too_large(data: bytes) -> str | None:
    """Why ``data`` is not hand-written source (size or a very long line), or None."""
    if len(data) > MAX_BYTES:
        return f"larger than {MAX_BYTES} bytes"
    if len(data) > MAX_LINE_BYTES and max(map(len, data.split(b"\n"))) > MAX_LINE_BYTES:
        # split and len run at C speed: an 8 MB one-line file is refused in milliseconds
        return f"a line longer than {MAX_LINE_BYTES} bytes (minified or generated)"
    return None


def extract(path: str, data: bytes) -> list[Symbol] | Skipped | None:
    """The definitions in file ``path`` with content ``data``, in source order."""
    lang = language(path)
    if lang is None:
        return None
    reason = too_large(data)
    if reason:
        return Skipped(reason)
    try:
        import importlib

        return importlib.import_module(f".{lang}", __name__).extract(path, data)
    except RecursionError:
        return Skipped("nested too deeply")
    except (SyntaxError, ValueError, UnicodeDecodeError) as exc:
        # ValueError: ast.parse on source with NUL bytes; SyntaxError covers the rest of Python's
        return Skipped(f"not valid source: {type(exc).__name__}")
    except Exception as exc:  # an extractor's own failure on odd input costs one file, never the index
        return Skipped(f"could not be scanned: {type(exc).__name__}")


# --- the on-disk index -------------------------------------------------------------------------

def _escape(value: str) -> str:
    if "\\" in value or "\t" in value or "\n" in value or "\r" in value:
        return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    return value


_UNESCAPES = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}


def _unescape(value: str) -> str:
    if "\\" not in value:
        return value
    out = []
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value):
            out.append(_UNESCAPES.get(value[i + 1], value[i + 1]))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def format_line(symbol: Symbol) -> str:
    """One index line for ``symbol``, with its ``\\n``."""
    exported = "" if symbol.exported is None else ("1" if symbol.exported else "0")
    end_line = "" if symbol.end_line is None else str(symbol.end_line)
    fields = (symbol.name, symbol.kind, symbol.path, str(symbol.line), end_line, symbol.container, exported,
              symbol.signature, symbol.doc)
    return "\t".join(_escape(field) for field in fields) + "\n"


def parse_line(line: str) -> Symbol:
    """The ``Symbol`` written as ``line`` by ``format_line``."""
    name, kind, path, lineno, end_line, container, exported, signature, doc = (
        _unescape(field) for field in line.rstrip("\n").split("\t"))
    return Symbol(name, kind, path, int(lineno), int(end_line) if end_line else None, container, signature,
                  doc, None if not exported else exported == "1")


def write_index(symbols: Iterable[Symbol], out_file: str | TextIO) -> int:
    """Write the header and one line per symbol (consumed lazily); returns how many were written."""
    if isinstance(out_file, str):
        with open(out_file, "w", encoding="utf-8", newline="\n") as handle:
            return write_index(symbols, handle)
    out_file.write(HEADER)
    count = 0
    for symbol in symbols:
        out_file.write(format_line(symbol))
        count += 1
    return count


def build_index(files: Iterable[tuple[str, bytes]], out_file: str | TextIO) -> dict[str, int]:
    """Extract each ``(path, data)`` (consumed lazily) into the index at ``out_file``.

    Returns the counts ``files`` (read as source), ``symbols``, ``skipped`` (known language, not
    readable: see ``Skipped``) and ``other`` (no extractor). One file's symbols are in memory at a time.
    """
    counts = {"files": 0, "symbols": 0, "skipped": 0, "other": 0}

    def symbols():
        for path, data in files:
            result = extract(path, data)
            if result is None:
                counts["other"] += 1
            elif isinstance(result, Skipped):
                counts["skipped"] += 1
            else:
                counts["files"] += 1
                yield from result

    if isinstance(out_file, str):
        with open(out_file, "w", encoding="utf-8", newline="\n") as handle:
            return build_index(files, handle)
    counts["symbols"] = write_index(symbols(), out_file)
    out_file.write("".join(f"\t{key}={value}" for key, value in counts.items()) + "\n")
    return counts


def counts(index_file: str) -> dict[str, int] | None:
    """The counts ``build_index`` recorded at the end of ``index_file``, or None (no counts line)."""
    with open(index_file, "rb") as handle:
        handle.seek(0, 2)
        handle.seek(max(0, handle.tell() - 256))
        tail = handle.read().decode("utf-8", "replace")
    last = tail[tail.rfind("\n", 0, len(tail) - 1) + 1:]
    if not last.startswith("\t"):
        return None
    found = {}
    for field in last.strip("\t\n").split("\t"):
        key, _, value = field.partition("=")
        if value.isdigit():
            found[key] = int(value)
    return found


def is_test_path(path: str) -> bool:
    """A path in a test/tests/__tests__/spec directory, or named test_*.py, *_test.py, *.test.js, *.spec.ts…"""
    parts = path.lower().split("/")
    for part in parts[:-1]:
        if part in ("test", "tests", "__tests__", "spec", "specs", "testing"):
            return True
    base = parts[-1]
    if base.startswith("test_") or base.endswith(("_test.py", "_tests.py")):
        return True
    stem_parts = base.split(".")
    return len(stem_parts) >= 3 and stem_parts[-2] in ("test", "spec")


_EXPORT_RANK = {"1": 0, "": 1, "0": 2}


def query(index_file: str, text: str, match: str = "exact", case_sensitive: bool = False,
          kinds: Iterable[str] | None = None, path_prefix: str = "", limit: int | None = None) -> list[Symbol]:
    """The symbols of ``index_file`` whose name matches ``text``, best first (module docstring).

    ``match`` is ``exact``, ``prefix`` (exact matches included, ranked first) or ``substring``
    (both of those included). A ``text`` with a dot is matched against ``container.name``.
    ``limit`` keeps the first results only (all are ranked; only those are decoded).
    """
    if match not in ("exact", "prefix", "substring"):
        from ...errors import invalid

        raise invalid("match must be exact, prefix or substring", "match")
    wanted_kinds = set(kinds) if kinds else None
    qualified = "." in text
    needle = text if case_sensitive else text.lower()
    ranked = []

    def consider(line: str, name: str | None) -> None:
        """Rank one index line (``name``: its unescaped name, when already known)."""
        if qualified:
            fields = line.rstrip("\n").split("\t")
            container = _unescape(fields[5])
            name = _unescape(fields[0])
            name = f"{container}.{name}" if container else name
        else:
            fields = None
            if name is None:
                name = _unescape(line[:line.find("\t")])  # most lines end here: only the name is read
        folded = name if case_sensitive else name.lower()
        if folded == needle:
            tier, case_rank = 0, name != text
        elif match == "exact":
            return
        elif folded.startswith(needle):
            tier, case_rank = 1, not name.startswith(text)
        elif match == "substring" and needle in folded:
            tier, case_rank = 2, text not in name
        else:
            return
        if fields is None:
            fields = line.rstrip("\n").split("\t")
        if wanted_kinds is not None and fields[1] not in wanted_kinds:
            return
        path = _unescape(fields[2])
        if path_prefix and not path.startswith(path_prefix):
            return
        key = (tier, _EXPORT_RANK.get(fields[6], 1), is_test_path(path), case_rank, path.count("/"), path,
               int(fields[3]))
        ranked.append((key, line))

    loaded = _loaded(index_file) if _MEMORY is not None else None
    if loaded is not None:
        # Only the lines that can match are looked at, in file order (ties keep the scan's order).
        for i in loaded.candidates(text, match, qualified):
            consider(loaded.lines[i], loaded.names[i])
    else:
        with open(index_file, encoding="utf-8", newline="\n") as handle:
            _check_header(handle.readline(), index_file)
            for line in handle:
                if line[0] != "\t":  # a tab first: the counts line of build_index
                    consider(line, None)
    ranked.sort(key=lambda pair: pair[0])
    return [parse_line(line) for _key, line in (ranked if limit is None else ranked[:limit])]


def _check_header(first: str, index_file: str) -> None:
    if first != HEADER:
        from ...errors import CodenavError

        raise CodenavError("CONFIG_ERROR", f"{index_file} is not a symbol index of this version")


# --- indexes kept in memory (the MCP server) --------------------------------------------------

_MEMORY: dict[str, tuple[tuple, _Loaded]] | None = None  # None: every query reads the file (the CLI)
_MEMORY_ENTRIES = 8  # indexes kept, least recently queried dropped first


def keep_indexes_in_memory() -> None:
    """From now on, keep the last few indexes queried parsed in memory (a long-lived server:
    one read of the file per index instead of one per query; results are the same)."""
    global _MEMORY
    if _MEMORY is None:
        _MEMORY = {}


class _Loaded:
    """One index file's lines, their unescaped names, and lookups by lower-cased name."""

    def __init__(self, lines: list[str]) -> None:
        import bisect

        self._bisect = bisect
        self.lines = lines
        self.names = [_unescape(line[:line.find("\t")]) for line in lines]
        self.exact: dict[str, list[int]] = {}
        for i, name in enumerate(self.names):
            self.exact.setdefault(name.lower(), []).append(i)
        self.by_name = sorted(self.exact)

    def candidates(self, text: str, match: str, qualified: bool) -> list[int]:
        """A superset, in file order, of the lines whose name can match ``text`` under ``match``
        in either case mode: a case-sensitive match is also a match of the lower-cased names
        (for ASCII text; lower() is not per character everywhere, e.g. a final sigma)."""
        if qualified or match == "substring" or not text.isascii():
            return list(range(len(self.lines)))
        needle = text.lower()
        if match == "exact":
            return list(self.exact.get(needle, ()))
        found: list[int] = []
        at = self._bisect.bisect_left(self.by_name, needle)
        while at < len(self.by_name) and self.by_name[at].startswith(needle):
            found.extend(self.exact[self.by_name[at]])
            at += 1
        found.sort()
        return found


def _loaded(index_file: str) -> _Loaded:
    status = os.stat(index_file)
    stamp = (status.st_ino, status.st_size, status.st_mtime_ns)
    cached = _MEMORY.pop(index_file, None)
    if cached is None or cached[0] != stamp:
        with open(index_file, encoding="utf-8", newline="\n") as handle:
            _check_header(handle.readline(), index_file)
            cached = (stamp, _Loaded([line for line in handle if line[0] != "\t"]))
    _MEMORY[index_file] = cached  # most recently queried last
    while len(_MEMORY) > _MEMORY_ENTRIES:
        del _MEMORY[next(iter(_MEMORY))]
    return cached[1]


def search(index_file: str, text: str, match: str | None = None, case_sensitive: bool = False,
           kinds: Iterable[str] | None = None, path_prefix: str = "") -> tuple[str, list[Symbol]]:
    """``(matchMode, results)``: with ``match`` None, the exact matches, or the prefix matches when
    there is no exact one (issue 16's default); otherwise ``query`` with that mode."""
    if match is not None:
        return match, query(index_file, text, match, case_sensitive, kinds, path_prefix)
    found = query(index_file, text, "prefix", case_sensitive, kinds, path_prefix)  # one pass over the file
    folded = text if case_sensitive else text.lower()

    def exact(symbol: Symbol) -> bool:
        name = symbol.qualified if "." in text else symbol.name
        return (name if case_sensitive else name.lower()) == folded

    exact_ones = [symbol for symbol in found if exact(symbol)]
    return ("exact", exact_ones) if exact_ones else ("prefix", found)
