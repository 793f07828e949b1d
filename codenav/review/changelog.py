"""The ``changelog`` part: the entries after FROM up to TO, from the changelog TO ships (SPEC §2.8.1).

The file: at the top of the tree, named CHANGELOG, CHANGES, HISTORY, NEWS, RELEASES or
RELEASE-NOTES (any case, ``-``/``_``), with no extension or ``.md``, ``.markdown``, ``.rst``,
``.txt``; TO's file first, FROM's when TO ships none.

Headings: Markdown ``#`` headings, setext and reStructuredText underlined titles (``===``,
``---``, ``~~~``…), and — in a file that has neither with a version — lines that start with a
version. A heading is an entry's when it holds a version (``1.2.3``, ``v1.2.3``,
``[1.2.3](…) - date``, ``Version 3.1.0``, ``5.0.0-beta.1 / 2024-09-10``, ``3.1.0rc1``); of
those, only the style most used delimits entries, so ``### 1.2 migration notes`` inside a
``## 1.3.0`` entry stays in its text. An entry is kept when FROM < version ≤ TO in the
registry's own version order; its text is capped at ``TEXT_CHARS`` (``cut: true`` then).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .side import Side

TEXT_CHARS = 4000
_STEMS = ("changelog", "changes", "history", "news", "releases", "release-notes", "release_notes", "releasenotes")
_EXTENSIONS = ("", ".md", ".markdown", ".rst", ".txt")
_VERSION = re.compile(r"(?<![\w.])v?(\d+(?:\.\d+)+(?:(?:-|\.|)(?:alpha|beta|rc|pre|preview|dev|post|a|b|c)"
                      r"(?:[.-]?\d+)*)?(?:-[0-9A-Za-z][0-9A-Za-z.-]*)?)(?![\w])", re.I)
_ATX = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_UNDERLINE = re.compile(r"^([=\-~^*+#`'\"])\1{2,}\s*$")


def find(side: Side) -> str | None:
    """The changelog file at the top of ``side``'s tree, by name priority, or None."""
    best = None
    for path in side.rows:
        if "/" in path:
            continue
        lower = path.lower()
        for rank, stem in enumerate(_STEMS):
            if any(lower == stem + ext for ext in _EXTENSIONS) and (best is None or rank < best[0]):
                best = (rank, path)
    return best[1] if best else None


def version_in(heading: str) -> str | None:
    """The first version a heading holds, without a leading ``v``."""
    match = _VERSION.search(heading)
    return match.group(1) if match else None


def headings(text: str) -> list[tuple[int, int, str, str]]:
    """``(line index, body start index, heading text, version)`` of the entry headings, in file order."""
    lines = text.split("\n")
    found: list[tuple[tuple, int, int, str]] = []  # (style, index, body start, heading)
    fence = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence:
            continue
        atx = _ATX.match(line)
        if atx:
            found.append((("atx", len(atx.group(1))), i, i + 1, atx.group(2)))
            continue
        below = lines[i + 1] if i + 1 < len(lines) else ""
        if stripped and not _UNDERLINE.match(line) and _UNDERLINE.match(below) and len(below.strip()) >= 3:
            above = lines[i - 1] if i > 0 else ""
            overlined = bool(_UNDERLINE.match(above)) and above.strip()[0] == below.strip()[0]
            found.append((("title", below.strip()[0], overlined), i, i + 2, stripped))
    versioned = [(style, i, start, h, version_in(h)) for style, i, start, h in found if version_in(h)]
    if not versioned:  # plain text: lines that start with a version
        versioned = [(("plain",), i, i + 1, line.strip(), version_in(line)) for i, line in enumerate(lines)
                     if re.match(r"^v?\d+\.\d+", line) and version_in(line.split()[0] if line.split() else "")]
    if not versioned:
        return []
    styles: dict[tuple, int] = {}
    for style, *_ in versioned:
        styles[style] = styles.get(style, 0) + 1
    main = max(styles, key=lambda s: (styles[s], -next(i for st, i, *_ in versioned if st == s)))
    return [(i, start, h, v) for style, i, start, h, v in versioned if style == main]


def entries(text: str, old: str, new: str, version_key: Callable[[str], Any]) -> list[dict[str, Any]]:
    """The entries with ``old < version <= new``, in file order."""
    lines = text.split("\n")
    marks = headings(text)
    low, high = version_key(old), version_key(new)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for n, (_i, start, heading, version) in enumerate(marks):
        try:
            key = version_key(version)
        except Exception:  # a heading version the registry's order cannot read is no entry of it
            continue
        if not low < key <= high or version in seen:
            continue
        seen.add(version)
        end = marks[n + 1][0] if n + 1 < len(marks) else len(lines)
        body = "\n".join(lines[start:end]).strip("\n")
        body = "\n".join(line.rstrip() for line in body.split("\n")).strip()
        item: dict[str, Any] = {"version": version, "heading": heading}
        if len(body) > TEXT_CHARS:
            item["text"] = body[:TEXT_CHARS]
            item["cut"] = True
        else:
            item["text"] = body
        out.append(item)
    return out


def generic_key(version: str) -> tuple:
    """A version order for a tree of no known registry: numbers first, a pre-release before its release."""
    match = re.match(r"v?(\d+(?:\.\d+)*)(.*)$", version.strip())
    if not match:
        raise ValueError(f"not a version: {version}")
    numbers = [int(x) for x in match.group(1).split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    rest = match.group(2).lstrip("-.+")
    return (tuple(numbers), 0 if rest else 1, tuple((0, int(p)) if p.isdigit() else (1, p)
                                                    for p in re.split(r"[.-]", rest) if p))
