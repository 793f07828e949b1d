"""What grep_file and grep_repo share: the ``grep`` command line and its routing, the regex nudge.

``codenav grep [SPEC] PATTERN [PATH]`` (grammar.GREP) is one command for two tools, as
``rg PATTERN [PATH]`` is one command: grep_file's ``call`` reads the command line and ``route``
decides which tool runs. Both tools import this module; neither imports the other.
"""

from __future__ import annotations

import sys

from ..errors import invalid
from ..grammar import GREP, OUTPUT, TARGET
from . import _several, _target, number_argument, option_arguments, split_operands

TYPE_CHECKING = False  # annotations only: a warm call must not import typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from . import CliOptions

FILE, REPO = "grep_file", "grep_repo"
MAX_PATTERN = 1000
# The flags only grep_repo knows (all but the target's, the output's and grep_file's --context):
# given with a file PATH, that file is searched through grep_repo.
REPO_FLAGS = tuple(o.dest for o in GREP.options if o not in TARGET + OUTPUT and o.argument != "context")
_MAX_COLUMNS = next(o for o in GREP.options if o.dest == "max_columns")

# Deliberate regex signals (SPEC §2.4). Bare . * ? ^ $ | () are NOT signals: common in code.
# Compiled on first use: only a search that found nothing asks, and `re` costs a warm call.
_REGEX_SIGNALS_PATTERN = (
    r"\\[bBdDwWsS]"                      # \b \d \w \s-class escapes
    r"|\\[.()\[\]{}*+?|^$]"              # escaped metacharacters
    r"|\[\^|\[[^\]]*[A-Za-z0-9]-[A-Za-z0-9][^\]]*\]|\[\[:[a-z]+:\]\]"  # character classes
    r"|\(\?[=!]|\(\?<[=!]"               # lookaround
    r"|\(\?P?<[A-Za-z_]"                 # named groups
    r"|\(\?[aiLmsux]+\)"                 # inline flags
    r"|[^\s{(]\{\d+(?:,\d*)?\}"          # brace quantifiers
)


def check_pattern(pattern: Any) -> str:
    """The pattern both tools take, or INVALID_ARGUMENT: a non-empty single line (matching is
    line by line) of at most MAX_PATTERN characters."""
    if not isinstance(pattern, str) or pattern == "":
        raise invalid("pattern must be a non-empty string", "pattern")
    if len(pattern) > MAX_PATTERN:
        raise invalid(f"pattern is longer than {MAX_PATTERN} characters", "pattern")
    if "\n" in pattern or "\r" in pattern:
        raise invalid("pattern must be a single line: matching is line by line", "pattern")
    return pattern


def looks_like_regex(pattern: str) -> bool:
    import re

    return bool(re.search(_REGEX_SIGNALS_PATTERN, pattern))


def call(ns: Any, cli: CliOptions, checked: Callable[[dict[str, Any]], Any]) -> tuple[str, dict[str, Any]]:
    """The tool a ``grep`` command line runs and its arguments: grep_file's (PATTERN, PATH,
    --context), or grep_repo's, whose path_prefix is PATH (see ``route``)."""
    if _several(ns):
        from ._many import cli_arguments  # several targets: always grep_repo, its PATH a prefix

        args = {**cli_arguments(ns, GREP), **option_arguments(ns, GREP)}
        path = args.pop("path", None)
        if path is not None:
            args["path_prefix"] = path.rstrip("/") if path.strip("/") else path
        return REPO, _repo_output(ns, args, cli)
    args, (pattern, path) = split_operands(ns, GREP.usage, GREP.operands)
    if path is not None and path.endswith("/") and path.strip("/"):
        path = path.rstrip("/")  # `rg x lib/` names the directory lib
    if route(ns, args, pattern, path, checked, cli) == FILE:
        return FILE, {**args, "pattern": pattern, "path": path, **option_arguments(ns, GREP)}
    args = {**args, "pattern": pattern}
    if path is not None:
        args["path_prefix"] = path
    args.update(option_arguments(ns, GREP))
    return REPO, _repo_output(ns, args, cli)


def _repo_output(ns: Any, args: dict[str, Any], cli: CliOptions) -> dict[str, Any]:
    """``args``, with what the command line asks of grep_repo's plain output set on ``cli``."""
    if cli.plain and ns.max_columns is not None:
        # Plain output is rg's: every match, whole lines (--max-columns asks for the window).
        cli.max_columns = number_argument(ns.max_columns, _MAX_COLUMNS)
        if cli.max_columns < 1:
            raise invalid("--max-columns must be 1 or more", "max_columns")
    cli.from_bytes = plain_bytes(args, cli)
    return args


def route(ns: Any, args: dict[str, Any], pattern: str, path: str | None, checked: Callable[[dict[str, Any]], Any],
          cli: CliOptions) -> str:
    """Which tool a ``grep`` command line runs, as ``rg PATTERN [PATH]`` would search: grep_repo
    without a PATH, with a directory PATH or with a flag only grep_repo knows; grep_file for a
    file (or a path the target lacks: grep_file names the close matches).

    A directory is told from a file by the entry's tree, so the target is opened here (and kept
    in ``cli.opened`` for the run) — but only for a call grep_file would accept: a mistake
    goes to grep_file, which refuses it without any lookup, worded as the schema words it.
    """
    if path is None or any(getattr(ns, key, None) not in (None, False) for key in REPO_FLAGS):
        return REPO
    import os

    from ..contract import text_error
    from ..errors import CodenavError

    try:
        probe = {**args, "pattern": pattern, "path": path, **option_arguments(ns, GREP)}
        checked(probe)
        if text_error(probe) is not None:
            return FILE
        cli.opened = _target.open_entry(probe)
    except CodenavError as exc:
        if exc.code != "INVALID_ARGUMENT":
            raise
        return FILE
    return REPO if os.path.isdir(os.path.join(cli.opened.path, "tree", path)) else FILE


def plain_bytes(args: dict[str, Any], cli: CliOptions) -> bool:
    """Whether grep_repo prints every match from the files' bytes (search/plain.py): plain output
    that is every match as ``path:line:text`` and nothing else (no context, window, limit or
    cursor), to a stdout that encodes UTF-8."""
    return (cli.plain and cli.max_columns is None and not args.get("context")
            and args.get("max_matches") is None and args.get("cursor") is None and _utf8(sys.stdout))


def _utf8(stream: Any) -> bool:
    """Whether text written to ``stream`` is encoded as UTF-8 (then a valid UTF-8 line can be
    written as its bytes)."""
    import codecs

    try:
        return codecs.lookup(stream.encoding).name == "utf-8" and hasattr(stream, "buffer")
    except (AttributeError, LookupError, TypeError):
        return False
