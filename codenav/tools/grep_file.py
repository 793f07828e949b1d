"""grep_file / ``codenav grep``: case-insensitive substring search in one file (SPEC §2.4).

Exit codes follow grep(1): 0 a match, 1 none, 2 an error — in plain and --json mode alike.
"""

from __future__ import annotations

from .. import budget
from .. import text as _text
from ..errors import invalid
from ..targets import validate_path
from . import _grep, _target

TYPE_CHECKING = False  # annotations only: a warm call must not import typing
if TYPE_CHECKING:
    from typing import Any, TextIO

NAME = "grep_file"
COMMAND = "grep"
# The one sentence describing the matching rule: used verbatim in the MCP tool description,
# the MCP `pattern` description and the CLI help (a test pins all three).
SEMANTICS = (
    "PATTERN is matched as a literal, case-insensitive substring of each line, never as a regular "
    "expression: every character, including . * ( [ \\ and |, matches itself."
)
HELP = "find the lines of one file that contain a string (literal, case-insensitive)"
DESCRIPTION = (
    "Print the lines of one file of a package or git repository that contain PATTERN.\n\n" + SEMANTICS + "\n\n"
    + _target.SPEC_HELP + "\n\nExit status as grep: 0 a line matched, 1 none did, 2 an error."
)
EPILOG = SEMANTICS
ERROR_EXIT = 2
MAX_CONTEXT = 100


def call(ns: Any, cli: Any) -> tuple[str, dict[str, Any]]:
    """The tool a ``grep`` command line runs (this one, or grep_repo) and its arguments."""
    return _grep.call(ns, cli, _checked)


def _line_cost(text: str) -> tuple[int, int]:
    """A line object's cost: its text and, roughly, its JSON keys."""
    return len(text.encode("utf-8")) + 40, 1


def _blocks(matches: list[int], context: int, total: int) -> list[tuple[int, int]]:
    """Inclusive line ranges; ranges that overlap or touch merge (grep -C convention)."""
    spans: list[tuple[int, int]] = []
    for line in sorted(set(matches)):
        start, end = max(1, line - context), min(total, line + context)
        if spans and start <= spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], max(spans[-1][1], end))
        else:
            spans.append((start, end))
    return spans


def _checked(args: dict[str, Any]) -> tuple[str, int, str]:
    """(pattern, context, path), or INVALID_ARGUMENT: what can be said before the file is read."""
    pattern = _grep.check_pattern(args.get("pattern"))
    context = args.get("context", 0)
    if isinstance(context, bool) or not isinstance(context, int) or not 0 <= context <= MAX_CONTEXT:
        raise invalid(f"context must be an integer from 0 to {MAX_CONTEXT}", "context")
    return pattern, context, validate_path(args.get("path"))


def run(args: dict[str, Any], cli: Any = None) -> dict[str, Any]:
    pattern, context, path = _checked(args)
    entry = _target.open_entry(args, cli)
    row, data = entry.read(path)
    result: dict[str, Any] = {"target": entry.target, "path": path, "pattern": pattern}
    if args.get("context") is not None:  # as given, 0 included: grep -C 0 still separates groups
        result["filter"] = {"context": context}
    if _text.is_binary(data):
        result.update({"isBinary": True, "matchCount": 0, "blocks": [], "hasMore": False,
                       "hint": "binary file: not searched"})
        return _target.with_warnings(result, entry)
    lines = _text.split_lines(data.decode("utf-8"))
    needle = pattern.casefold()
    matches = [i + 1 for i, line in enumerate(lines) if needle in line.rstrip("\n").casefold()]
    numbers = [number for start, end in _blocks(matches, context, len(lines)) for number in range(start, end + 1)]
    texts = [lines[number - 1].rstrip("\n") for number in numbers]
    kept, cut = texts, False
    if cli is None or not cli.plain:  # plain `grep` is grep(1): never cut, like plain `read` (SPEC §5)
        # One huge line is shown cut, never nothing.
        kept, cut = budget.fit_lines(texts, max_bytes=budget.BUDGET_BYTES, max_lines=budget.BUDGET_LINES, cost=_line_cost)
    blocks: list[dict[str, Any]] = []
    for number, text, whole in zip(numbers, kept, texts, strict=False):  # the numbers of the lines kept
        if not blocks or blocks[-1]["lines"][-1]["line"] + 1 != number:  # blocks never touch (_blocks)
            blocks.append({"startLine": number, "lines": []})
        blocks[-1]["lines"].append({"line": number, "text": text, "match": needle in whole.casefold()})
    shown = numbers[len(kept) - 1] if kept else 0
    result.update({"isBinary": False, "totalLines": len(lines), "matchCount": len(matches), "blocks": blocks,
                   "hasMore": cut})
    if cut:
        result["hint"] = (f"output cut at the size budget after line {shown}; read further with read_file "
                          f"start_line={shown + 1}, or search for a longer pattern")
    elif not matches and _grep.looks_like_regex(pattern):
        result["hint"] = ("no match; note that the pattern is matched literally, not as a regular expression "
                          "- search for a plain substring instead")
    return _target.with_warnings(result, entry)


def exit_code(result: dict[str, Any]) -> int:
    return 0 if result["matchCount"] else 1


def _lines(blocks: list[dict[str, Any]], separate: bool, prefix: str = "") -> list[str]:
    """grep notation: ``N:text`` for a match, ``N-text`` for context, ``--`` between blocks
    when a context was asked (as grep -n prints them; ``prefix`` for a path)."""
    out = []
    for index, block in enumerate(blocks):
        if index and separate:
            out.append("--\n")
        for ln in block["lines"]:
            mark = ":" if ln["match"] else "-"
            out.append(f"{prefix}{ln['line']}{mark}{ln['text']}\n")
    return out


def text(result: dict[str, Any], words: Any = None) -> str:
    """The TEXT answer (SPEC §4.4): header, notes, then the lines as ``grep -n`` prints them."""
    from . import _answer

    where = f"{_answer.target_label(result['target'])} {result['path']}"
    if result["isBinary"]:
        return _answer.join(f"{where} · binary, not searched", _answer.notes(result, words))
    header = f"{where} · {_answer.plural(result['matchCount'], 'matching line')} of {result['totalLines']}"
    if "context" in result.get("filter", {}):
        header += f" · context {result['filter']['context']}"
    if result.get("hasMore"):
        shown = result["blocks"][-1]["lines"][-1]["line"] if result["blocks"] else 0
        header += _answer.more(f"read_file start_line={shown + 1}", words)
    separate = "context" in result.get("filter", {})
    return _answer.join(header, _answer.notes(result, words), "".join(_lines(result["blocks"], separate)))


def render(result: dict[str, Any], out: TextIO, err: TextIO) -> None:
    """Plain output: the lines as grep prints them; notes on stderr."""
    if result["isBinary"]:
        err.write(f"codenav: {result['path']} is a binary file; not searched\n")
        return
    # As grep(1): the `--` between groups only with --context (-C 0 too); without it every line is a match
    # and `| wc -l` counts them.
    separate = "context" in result.get("filter", {})
    for index, block in enumerate(result["blocks"]):
        if index and separate:
            out.write("--\n")
        for ln in block["lines"]:
            out.write(ln["text"] + "\n")
    if result.get("hint"):
        from ..words import for_cli

        err.write(f"codenav: {for_cli(result['hint'])}\n")
