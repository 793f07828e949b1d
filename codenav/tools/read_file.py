"""read_file / ``codenav read``: a file of a target, whole or a line range (SPEC §2.3, §5)."""

from __future__ import annotations

from .. import text as _text
from ..targets import validate_path
from . import _target
from ._content import content_result

TYPE_CHECKING = False  # annotations only: a warm call must not import typing
if TYPE_CHECKING:
    from typing import Any, TextIO

NAME = "read_file"
COMMAND = "read"
HELP = "print a file of a package or repository (like cat), whole or a line range"
DESCRIPTION = (
    "Print a file of a package or git repository. Plain output is the file's bytes, verbatim.\n\n"
    + _target.SPEC_HELP + "\n\nPATH is exactly as `codenav files` prints it. --lines N-M (also N- and -M) picks "
    "an inclusive, 1-based range; a range past the end is clipped."
)
ERROR_EXIT = 1


def run(args: dict[str, Any], cli: Any = None) -> dict[str, Any]:
    path = validate_path(args.get("path"))
    _text.check_range(args.get("start_line"), args.get("end_line"))  # before any download
    entry = _target.open_entry(args, cli)
    row, data = entry.read(path)
    # Plain `read` is cat: never cut (SPEC §5).
    result = content_result({"target": entry.target, "path": path, "language": row.language}, data,
                            args.get("start_line"), args.get("end_line"), path=path,
                            unbounded=cli is not None and cli.plain)
    return _target.with_warnings(result, entry)


def exit_code(result: dict[str, Any]) -> int:
    return 0


def text(result: dict[str, Any], words: Any = None) -> str:
    """The TEXT answer (SPEC §4.4): header, notes, then ``N<TAB>line`` for every line read."""
    from . import _answer

    header = _answer.content_header(f"{_answer.target_label(result['target'])} {result['path']}", result, words)
    body = "" if result["isBinary"] else _answer.numbered(result)
    return _answer.join(header, _answer.notes(result, words), body)


def render(result: dict[str, Any], out: TextIO, err: TextIO) -> None:
    """Plain output: the file's bytes (cat); notes on stderr."""
    if result["isBinary"]:
        err.write(f"codenav: {result['path']} is a binary file ({result['size']} bytes); not printed\n")
        return
    out.write(result["content"])
    if result.get("hasMore"):
        from ..words import for_cli

        err.write(f"codenav: {for_cli(result['hint'])}\n")
