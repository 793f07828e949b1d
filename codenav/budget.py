"""The output budget (SPEC §5): fit an envelope into 50 KiB / 2,000 lines, and say what was cut.

Agents have small context windows, so MCP payloads and ``--json`` envelopes are capped; plain
CLI output of local files is not (it is ``cat``). Everything here measures what goes on the
wire: compact JSON bytes (escapes included) and the lines of text a result carries. Two shapes
cover every tool:

- ``fit_lines``: leading lines of one text (read_file, codefetch);
- ``fit_nested``: leading items of leading groups — snippets of files (codesearch), blocks of
  files (grep_repo) — kept whole while the envelope fits, with a partial first item when not
  even one fits, so a caller always makes progress.

A single line longer than the budget is cut with a marker rather than dropped (``cut_line``).
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


def fit_lines(lines: list[str], *, max_bytes: int = BUDGET_BYTES,
              max_lines: int = BUDGET_LINES) -> tuple[list[str], bool]:
    """As many leading lines as fit the budget; (kept, was_cut). A first line longer than the
    budget is cut with a marker."""
    if len(lines) <= max_lines and utf8_size("".join(lines)) <= max_bytes:
        return list(lines), False  # the usual case, decided at C speed (a line loop is most of a call)
    kept: list[str] = []
    used = 0
    for line in lines:
        size = utf8_size(line)
        if len(kept) >= max_lines or used + size > max_bytes:
            if not kept:
                kept.append(cut_line(line, max_bytes))
            return kept, True
        kept.append(line)
        used += size
    return kept, False


def fit_nested(shell: dict[str, Any], groups: list[dict[str, Any]], *, group_key: str, item_key: str,
               item_lines: Callable[[dict[str, Any]], int],
               partial: Callable[[dict[str, Any], int, int], dict[str, Any]],
               max_bytes: int = BUDGET_BYTES, max_lines: int = BUDGET_LINES,
               used_lines: int = 0) -> tuple[list[dict[str, Any]], int, bool]:
    """Keep whole leading items of leading groups while ``shell`` + them fits the budget.

    ``shell`` is the envelope with ``group_key`` empty and every other field final (its hint
    sized for the worst case). Sizes add up exactly in compact JSON: an element costs its own
    dump plus one comma after the first. When not even the first item fits, ``partial(item,
    room_bytes, room_lines)`` makes a shortened one. Returns (kept groups, items kept, cut).
    """
    used_bytes = json_size(shell)
    kept: list[dict[str, Any]] = []
    count = 0
    for group in groups:
        holder = dict(group, **{item_key: []})
        holder_cost = json_size(holder) + (1 if kept else 0)
        for item in group[item_key]:
            first_here = not holder[item_key]
            cost = json_size(item) + (holder_cost if first_here else 1)
            lines = item_lines(item)
            if used_bytes + cost > max_bytes or used_lines + lines > max_lines:
                if count == 0:
                    holder[item_key].append(partial(item, max_bytes - used_bytes - holder_cost,
                                                    max_lines - used_lines))
                    kept.append(holder)
                    count = 1
                return kept, count, True
            if first_here:
                kept.append(holder)
            holder[item_key].append(item)
            count += 1
            used_bytes += cost
            used_lines += lines
    return kept, count, False


def shrink_to(make: Callable[[int], dict[str, Any]], room: int) -> dict[str, Any]:
    """``make(allowance)`` with the largest allowance whose JSON fits ``room`` bytes (escapes
    can make JSON longer than the text), never below zero."""
    allowance = room
    while True:
        candidate = make(allowance)
        over = json_size(candidate) - room
        if over <= 0 or allowance <= 0:
            return candidate
        allowance -= over
