"""The output budget (SPEC §5): fit an envelope into 50 KiB / 2,000 lines, and say what was cut.

Agents have small context windows, so MCP payloads and ``--json`` envelopes are capped; plain
CLI output of local files is not (it is ``cat``). Everything here measures what goes on the
wire: compact JSON bytes (escapes included) and the lines of text a result carries.

One rule fits every tool: leading items are kept while the bytes and lines of those before
them plus their own fit, and the first is kept whatever it costs — cut short when the caller
can cut it (a line, a patch, a snippet), whole otherwise — so every call makes progress
(``Meter`` counts, ``fit`` applies it to a list). Two shapes cover every result:

- flat: leading lines of one text (``fit_lines``: read_file, codefetch, grep_file), leading
  rows after an envelope (``fit_rows``: search_symbols, list_deps), leading files of a patch
  (search/diff.page), leading matches of a search as they are found (search/grep.Page);
- nested: leading items of leading groups — snippets of files (``fit_nested``: codesearch).

Escapes can make JSON longer than the text measured: ``refit`` builds a result again with
less room until its whole envelope fits. A single line longer than the budget is cut with a
marker rather than dropped (``cut_line``).
"""

from __future__ import annotations

TYPE_CHECKING = False  # annotations only: read_file's warm path imports this module
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

BUDGET_BYTES = 50 * 1024
BUDGET_LINES = 2000
CUT_MARKER = " … [line cut: {n} more bytes]"


def utf8_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def json_size(obj: Any) -> int:
    """Bytes of ``obj`` as the envelope carries it (compact, sorted JSON)."""
    from .contract import dumps

    return len(dumps(obj).encode("utf-8"))


def cut_line(line: str, max_bytes: int) -> str:
    """``line`` shortened to about ``max_bytes`` UTF-8 bytes, with a marker saying how much went."""
    raw = line.encode("utf-8")
    room = max(0, max_bytes - 64)
    head = raw[:room].decode("utf-8", "ignore")
    rest = len(raw) - len(head.encode("utf-8"))
    return head + CUT_MARKER.format(n=rest) + ("\n" if line.endswith("\n") else "")


class Meter:
    """The running count of a page against its budget (the one rule of this module)."""

    __slots__ = ("max_bytes", "max_lines", "bytes", "lines")

    def __init__(self, max_bytes: int = BUDGET_BYTES, max_lines: int = BUDGET_LINES) -> None:
        self.max_bytes, self.max_lines = max_bytes, max_lines
        self.bytes = self.lines = 0

    def admits(self, size: int, lines: int = 1) -> bool:
        """Whether one more item of ``size`` bytes and ``lines`` lines fits after those counted."""
        return self.bytes + size <= self.max_bytes and self.lines + lines <= self.max_lines

    def count(self, size: int, lines: int = 1) -> None:
        self.bytes += size
        self.lines += lines


def fit(items: list[Any], measure: Callable[[Any], tuple[int, int]], *, max_bytes: int = BUDGET_BYTES,
        max_lines: int = BUDGET_LINES, partial: Callable[[Any, int, int], Any] | None = None) -> tuple[list[Any], bool]:
    """The leading ``items`` that fit the budget, and whether any was left out.

    ``measure(item)`` is its (bytes, lines). When not even the first fits, ``partial(item,
    max_bytes, max_lines)`` stands for it (a line cut with a marker, a patch cut short), or with
    no ``partial`` the first is kept whole.
    """
    meter = Meter(max_bytes, max_lines)
    kept: list[Any] = []
    for item in items:
        size, lines = measure(item)
        if not meter.admits(size, lines):
            if not kept:
                kept.append(item if partial is None else partial(item, max_bytes, max_lines))
            return kept, True
        kept.append(item)
        meter.count(size, lines)
    return kept, False


def _line_cost(line: str) -> tuple[int, int]:
    return utf8_size(line), 1


def _cut(line: str, max_bytes: int, max_lines: int) -> str:
    return cut_line(line, max_bytes)


def fit_lines(lines: list[str], *, max_bytes: int = BUDGET_BYTES, max_lines: int = BUDGET_LINES,
              cost: Callable[[str], tuple[int, int]] = _line_cost) -> tuple[list[str], bool]:
    """As many leading lines as fit the budget; (kept, was_cut). A first line longer than the
    budget is cut with a marker. ``cost`` measures a line (default: its UTF-8 bytes, one line)."""
    if cost is _line_cost and len(lines) <= max_lines and utf8_size("".join(lines)) <= max_bytes:
        return list(lines), False  # the usual case, decided at C speed (a line loop is most of a call)
    return fit(lines, cost, max_bytes=max_bytes, max_lines=max_lines, partial=_cut)


def fit_rows(shell: dict[str, Any], rows: list[dict[str, Any]], *, room: int,
             max_lines: int = BUDGET_LINES) -> list[dict[str, Any]]:
    """The leading ``rows`` (at least one) whose JSON fits ``room`` bytes after ``shell``'s (the
    envelope without them), at most ``max_lines`` of them. Each row is counted with a comma."""
    return fit(rows, lambda row: (json_size(row) + 1, 1), max_bytes=room - json_size(shell), max_lines=max_lines)[0]


def fit_nested(shell: dict[str, Any], groups: list[dict[str, Any]], *, group_key: str, item_key: str,
               item_lines: Callable[[dict[str, Any]], int],
               partial: Callable[[dict[str, Any], int, int], dict[str, Any]],
               max_bytes: int = BUDGET_BYTES, max_lines: int = BUDGET_LINES,
               used_lines: int = 0) -> tuple[list[dict[str, Any]], int, bool]:
    """Keep whole leading items of leading groups while ``shell`` + them fits the budget.

    ``shell`` is the envelope with ``group_key`` empty and every other field final (its hint
    sized for the worst case). Sizes add up exactly in compact JSON: an element costs its own
    dump plus one comma after the first; the first item of a group also costs its group's
    holder (the group with no items). When not even the first item fits, ``partial(item,
    room_bytes, room_lines)`` makes a shortened one. Returns (kept groups, items kept, cut).
    """
    flat: list[tuple[int, dict[str, Any], int]] = []  # (group, item, what it costs beside its own JSON)
    comma = 0
    for index, group in enumerate(groups):
        holder = json_size(dict(group, **{item_key: []})) + comma
        for position, item in enumerate(group[item_key]):
            flat.append((index, item, holder if position == 0 else 1))
            comma = 1

    def shortened(entry: tuple[int, dict[str, Any], int], room: int, line_room: int) -> tuple[int, dict[str, Any], int]:
        index, item, overhead = entry
        return index, partial(item, room - overhead, line_room), overhead

    kept, cut = fit(flat, lambda entry: (json_size(entry[1]) + entry[2], item_lines(entry[1])),
                    max_bytes=max_bytes - json_size(shell), max_lines=max_lines - used_lines, partial=shortened)
    out: list[dict[str, Any]] = []
    last = -1
    for index, item, _ in kept:
        if index != last:
            out.append(dict(groups[index], **{item_key: []}))
            last = index
        out[-1][item_key].append(item)
    return out, len(kept), cut


def refit(make: Callable[[int], Any], room: int, *, limit: int | None = None, floor: int = 0,
          margin: int = 0) -> Any:
    """``make(room)``, made again with less room until its JSON fits ``limit`` bytes (default
    the budget).

    Escapes can make JSON longer than the text ``make`` measured, so the result itself is
    measured and the room shrunk by the excess (plus ``margin``); at ``floor`` or below the
    result is taken as it is.
    """
    limit = BUDGET_BYTES if limit is None else limit
    while True:
        result = make(room)
        over = json_size(result) - limit
        if over <= 0 or room <= floor:
            return result
        room -= over + margin


def shrink_to(make: Callable[[int], dict[str, Any]], room: int) -> dict[str, Any]:
    """``make(allowance)`` with the largest allowance whose JSON fits ``room`` bytes (escapes
    can make JSON longer than the text), never below zero."""
    return refit(make, room, limit=room)
