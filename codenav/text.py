"""File text: binary detection, lines, ranges, the output budget, language and file type.

Lines are split on ``\\n`` only (never ``str.splitlines``, which also splits on U+2028, form
feeds and more). A trailing newline ends the last line; it does not start a new one.
"""

from __future__ import annotations

from .errors import CodenavError, invalid


def is_binary(data: bytes) -> bool:
    """A NUL byte in the first 8 KiB, or content that is not valid UTF-8 (SPEC §2.3)."""
    if b"\0" in data[:8192]:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


# What str.splitlines splits on besides "\n" (the docs of str.splitlines list them).
_OTHER_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def split_lines(text: str) -> list[str]:
    """Lines with their ``\\n`` kept, so joining them gives the text back verbatim."""
    if not text:
        return []
    if not any(other in text for other in _OTHER_BREAKS):
        return text.splitlines(keepends=True)  # the same lines when "\n" is the only break, at C speed
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def parse_range(spec: str, field: str = "lines") -> tuple[int | None, int | None]:
    """``N-M``, ``N-``, ``-M`` or ``N`` (1-based, inclusive) -> (start, end)."""
    text = spec.strip()
    head, sep, tail = text.partition("-")
    try:
        start = int(head) if head else None
        end = int(tail) if tail else None
        if not sep:
            end = start
    except ValueError:
        raise invalid(f"--{field} must look like N-M, N- or -M (1-based, inclusive), got {spec!r}", field) from None
    if (head and not head.isdigit()) or (tail and not tail.isdigit()) or (start is None and end is None):
        raise invalid(f"--{field} must look like N-M, N- or -M (1-based, inclusive), got {spec!r}", field)
    return start, end


def range_arguments(spec: str | None) -> dict[str, int]:
    """``--lines N-M`` as the MCP arguments ``start_line`` / ``end_line`` (only those given)."""
    if spec is None:
        return {}
    start, end = parse_range(spec)
    args = {}
    if start is not None:
        args["start_line"] = start
    if end is not None:
        args["end_line"] = end
    return args


class Window:
    """A checked line range: first and last line shown (1-based; 0 for an empty file), total."""

    __slots__ = ("start", "end", "total")

    def __init__(self, start: int, end: int, total: int) -> None:
        self.start, self.end, self.total = start, end, total

    def __repr__(self) -> str:
        return f"Window({self.start}, {self.end}, {self.total})"


def check_range(start: int | None, end: int | None) -> None:
    """What can be said about a range before the file is read: 1-based, start before end.

    Tools call it before any download or request, so a bad range never costs a round trip.
    """
    if start is not None and start < 1:
        raise invalid(f"start_line must be 1 or more, got {start}", "start_line")
    if end is not None and end < 1:
        raise invalid(f"end_line must be 1 or more, got {end}", "end_line")
    first = start or 1
    if end is not None and end < first:
        raise invalid(f"end_line ({end}) is before start_line ({first})", "end_line")


def select(total: int, start: int | None, end: int | None, *, path: str) -> Window:
    """Check a requested range against a file of ``total`` lines; a range past EOF is clipped."""
    check_range(start, end)
    first = start or 1
    if total == 0:
        if start is not None and start > 1:
            raise _past_eof(path, start, total)
        return Window(0, 0, 0)
    if first > total:
        raise _past_eof(path, first, total)
    last = total if end is None else min(end, total)
    return Window(first, last, total)


def _past_eof(path: str, start: int, total: int) -> CodenavError:
    return CodenavError(
        "INVALID_ARGUMENT",
        f"start_line {start} is past the end of {path}, which has {total} line{'s' if total != 1 else ''}",
        details={"field": "start_line", "filePath": path, "lineCount": total},
    )


# --- language and file type ---------------------------------------------------------------

# The one extension table: list_files shows these names, and search_symbols picks its extractor
# from them (search/symbols/__init__.py EXTRACTORS), so a file is indexed only if it is listed
# with a language.
_LANGUAGES = {
    ".py": "Python", ".pyi": "Python", ".pyx": "Cython", ".js": "JavaScript", ".mjs": "JavaScript",
    ".cjs": "JavaScript", ".jsx": "JavaScript", ".ts": "TypeScript", ".mts": "TypeScript",
    ".cts": "TypeScript", ".tsx": "TSX", ".json": "JSON", ".md": "Markdown", ".markdown": "Markdown",
    ".rst": "reStructuredText", ".txt": "Text", ".yml": "YAML", ".yaml": "YAML", ".toml": "TOML",
    ".ini": "INI", ".cfg": "INI", ".html": "HTML", ".htm": "HTML", ".css": "CSS", ".scss": "SCSS",
    ".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++", ".hpp": "C++", ".cxx": "C++", ".rs": "Rust",
    ".go": "Go", ".java": "Java", ".kt": "Kotlin", ".kts": "Kotlin", ".rb": "Ruby", ".rake": "Ruby",
    ".gemspec": "Ruby", ".ex": "Elixir", ".exs": "Elixir", ".php": "PHP", ".sh": "Shell",
    ".bash": "Shell", ".zsh": "Shell", ".ps1": "PowerShell", ".swift": "Swift", ".cs": "C#",
    ".lua": "Lua", ".sql": "SQL", ".xml": "XML", ".svg": "SVG", ".vue": "Vue", ".svelte": "Svelte",
    ".coffee": "CoffeeScript", ".map": "JSON", ".lock": None, ".d.ts": "TypeScript",
    ".proto": "Protocol Buffers", ".graphql": "GraphQL", ".gql": "GraphQL", ".pxd": "Cython",
}
_NAMES = {
    "Makefile": "Makefile", "Dockerfile": "Dockerfile", "LICENSE": "Text", "LICENCE": "Text",
    "README": "Text", "CHANGELOG": "Text", "AUTHORS": "Text", "NOTICE": "Text", ".npmignore": "Ignore List",
    ".gitignore": "Ignore List", "PKG-INFO": "Text", "METADATA": "Text", "RECORD": "CSV", "WHEEL": "Text",
}
_DOC_EXT = {".md", ".markdown", ".rst", ".txt", ".adoc", ".html", ".htm"}
_CONFIG_EXT = {".json", ".yml", ".yaml", ".toml", ".ini", ".cfg", ".lock", ".xml", ".conf"}
_DATA_EXT = {".csv", ".tsv", ".map", ".dat", ".sql", ".svg"}
_DOC_NAMES = ("readme", "license", "licence", "changelog", "changes", "history", "authors", "notice", "contributing")
_CONFIG_NAMES = {"package.json", "setup.py", "setup.cfg", "pyproject.toml", "tsconfig.json", "makefile",
                 "dockerfile", ".npmignore", ".gitignore", "manifest.in", "tox.ini", "wheel", "record",
                 "entry_points.txt", "top_level.txt", "installer", "requested", "pkg-info", "metadata"}


def _suffix(name: str) -> str:
    """``posixpath.splitext(name)[1].lower()`` of a base name (``.d.ts`` kept whole): leading
    dots do not start a suffix."""
    if name.endswith(".d.ts"):
        return ".d.ts"
    dot = name.rfind(".")
    if dot <= 0 or not name[:dot].lstrip("."):
        return ""
    return name[dot:].lower()


def language_for(path: str) -> str | None:
    return _language(path[path.rfind("/") + 1:])


def _language(name: str, suffix: str | None = None) -> str | None:
    """The language of base name ``name`` (``suffix``: its ``_suffix``, when already known)."""
    known = _NAMES.get(name)
    if known is not None:
        return known
    if suffix is None:
        suffix = _suffix(name)
    if suffix in ("", ".txt") and name.split(".", 1)[0].upper() in ("LICENSE", "LICENCE", "README", "CHANGELOG"):
        return "Text"
    return _LANGUAGES.get(suffix)


_TEST_DIRS = frozenset(("test", "tests", "__tests__", "spec", "testing"))
_TEST_DIR_SEEN: dict[str, bool] = {}  # lowercased directory -> whether a segment is a test directory


def _in_test_dir(directory: str) -> bool:
    seen = _TEST_DIR_SEEN.get(directory)
    if seen is None:
        seen = not _TEST_DIRS.isdisjoint(directory.split("/"))
        if len(_TEST_DIR_SEEN) > 10_000:
            _TEST_DIR_SEEN.clear()
        _TEST_DIR_SEEN[directory] = seen
    return seen


def file_type_for(path: str, binary: bool, symlink: bool = False) -> str:
    """source, test, doc, config, data, binary or symlink; from the path alone."""
    return describe(path, binary, symlink)[1]


def describe(path: str, binary: bool, symlink: bool = False) -> tuple[str | None, str]:
    """``(language_for(path), file_type_for(path, binary, symlink))`` in one reading of the name:
    called once per file of a package at indexing (43,000 times for some), so kept to plain
    string tests."""
    slash = path.rfind("/")
    base = path[slash + 1:]
    lower = base.lower()
    suffix = _suffix(lower)
    language = _language(base, suffix if base == lower else None)  # ``.d.ts`` is told by case
    if symlink:
        return language, "symlink"
    if binary:
        return language, "binary"
    name = lower
    if name in _CONFIG_NAMES:
        return language, "config"
    if name.startswith(_DOC_NAMES) or suffix in _DOC_EXT:
        return language, "doc"
    if (slash > 0 and _in_test_dir(path[:slash].lower())) or name.startswith("test_") or ".test." in name \
            or ".spec." in name or name.endswith(("_test.py", "_test.go")) or name == "conftest.py":
        return language, "test"
    if suffix in _CONFIG_EXT or name.startswith(".") or name.endswith("rc"):
        return language, "config"
    if suffix in _DATA_EXT:
        return language, "data"
    if language is not None:
        return language, "source"
    return language, "other"
