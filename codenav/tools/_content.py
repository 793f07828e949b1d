"""The content part of read_file and codefetch results: range, binary, empty, budget (SPEC §2.3, §5).

Both tools answer in one shape so an agent sees one form: ``isBinary``, ``totalLines``,
``startLine``, ``endLine``, ``content`` (absent for binary files), ``hasMore`` and a ``hint``.
"""

from __future__ import annotations

from .. import text

TYPE_CHECKING = False  # annotations only: a warm call must not import typing
if TYPE_CHECKING:
    from typing import Any


def content_result(base: dict[str, Any], data: bytes, start: int | None, end: int | None, *, path: str,
                   unbounded: bool = False) -> dict[str, Any]:
    """``base`` plus the content fields for ``data`` read from ``start`` to ``end``.

    ``unbounded`` (plain ``codenav read``, which is cat) skips the output budget.
    """
    base = {**base, "size": len(data)}
    if text.is_binary(data):
        # A range means nothing for bytes; it is not an error to ask (the caller could not know).
        return {**base, "isBinary": True, "hasMore": False, "hint": "binary file: content not shown"}
    lines = text.split_lines(data.decode("utf-8"))
    window = text.select(len(lines), start, end, path=path)
    chosen = lines[window.start - 1:window.end] if window.total else []
    if unbounded:
        return _shaped(base, window, chosen, False, False, end)
    return _within_budget(base, window, chosen, end)


def _within_budget(base: dict[str, Any], window: text.Window, chosen: list[str],
                   asked_end: int | None) -> dict[str, Any]:
    """The result with as many lines as keep its whole JSON envelope within SPEC §5's budget.

    JSON escaping can grow a line (quotes, backslashes, control characters), so the envelope
    itself is measured and the content budget shrunk until it fits. One line is left for the
    hint, which the budget includes.
    """
    from .. import budget

    def make(room: int) -> dict[str, Any]:
        kept, cut = budget.fit_lines(chosen, max_bytes=room, max_lines=budget.BUDGET_LINES - 1)
        shortened = bool(kept) and kept[-1] != chosen[len(kept) - 1]
        return _shaped(base, window, kept, cut, shortened, asked_end)

    # 1 KiB for the fields around the content; each retry leaves 256 bytes more than the excess.
    return budget.refit(make, budget.BUDGET_BYTES - 1024, floor=1024, margin=256)


def _shaped(base: dict[str, Any], window: text.Window, kept: list[str], cut: bool, shortened: bool,
            asked_end: int | None) -> dict[str, Any]:
    last = window.start + len(kept) - 1 if kept else window.end
    result = {**base, "isBinary": False, "totalLines": window.total, "startLine": window.start,
              "endLine": last, "content": "".join(kept), "hasMore": cut}
    if cut:
        result["hint"] = _cut_hint(window, last, shortened, asked_end)
    elif window.total == 0:
        result["hint"] = "the file is empty"
    return result


def _cut_hint(window: text.Window, last: int, shortened: bool, asked_end: int | None) -> str:
    following = last + 1
    from .. import budget

    hint = (f"Output cut at the {budget.BUDGET_BYTES // 1024} KiB / {budget.BUDGET_LINES}-line budget: "
            f"lines {window.start}-{last} of {window.total} shown.")
    if shortened:
        hint += f" Line {last} alone is longer than the budget and was shortened."
    if following <= window.end:
        upto = f"{asked_end}" if asked_end is not None and asked_end < window.total else ""
        end_arg = f", end_line={asked_end}" if upto else ""
        hint += f" Continue with start_line={following}{end_arg} (CLI: --lines {following}-{upto})."
    return hint
