"""What grep_file and grep_repo share: the ``grep`` command line and its routing, the regex nudge.

``codenav grep [SPEC] PATTERN [PATH]`` is one command for two tools, as ``rg PATTERN [PATH]``
is one command: grep_file's adapter reads the command line and ``route`` decides which tool
runs. Both tools import this module; neither imports the other.
"""

from __future__ import annotations

import sys

from ..errors import invalid
from ..targets import cli_int
from . import _target

TYPE_CHECKING = False  # annotations only: a warm call must not import typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

FILE, REPO = "grep_file", "grep_repo"
# The flags only grep_repo knows: given with a file PATH, that file is searched through grep_repo.
REPO_FLAGS = ("regex", "case_sensitive", "whole_words", "glob", "max_matches", "cursor", "max_columns")
_BOOLEANS = ("regex", "case_sensitive", "whole_words")

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


def looks_like_regex(pattern: str) -> bool:
    import re

    return bool(re.search(_REGEX_SIGNALS_PATTERN, pattern))


def add_repo_flags(parser: Any) -> None:
    """The grep_repo flags of the ``grep`` command ."""
    parser.add_argument("--regex", action="store_true", help="PATTERN is a Python regular expression")
    parser.add_argument("--case-sensitive", "-s", action="store_true", help="match case exactly")
    parser.add_argument("--whole-words", "-w", action="store_true", help="match only whole words")
    parser.add_argument("--glob", "-g", action="append", metavar="GLOB",
                        help="include files matching GLOB (ripgrep -g rules; !GLOB excludes); repeatable")
    parser.add_argument("--max-matches", "-m", metavar="N", default=None,
                        help="stop after N matching lines (plain output: default every one)")
    parser.add_argument("--cursor", metavar="CURSOR", default=None, help="continue a --json page from its nextCursor")
    parser.add_argument("--max-columns", metavar="N", default=None,
                        help="print at most N characters of a line, around the match")


def route(ns: Any, args: dict[str, Any], pattern: str, path: str | None, checked: Callable[[dict[str, Any]], Any]) -> str:
    """Which tool a ``grep`` command line runs, as ``rg PATTERN [PATH]`` would search: grep_repo
    without a PATH, with a directory PATH or with a flag only grep_repo knows; grep_file for a
    file (or a path the target lacks: grep_file names the close matches).

    A directory is told from a file by the entry's tree, so the entry is opened here (and kept
    in ``args["_entry"]`` for the run) — but only for a call grep_file would accept: a mistake
    goes to grep_file, which refuses it without any lookup, worded as the schema words it.
    """
    if path is None or any(getattr(ns, key, None) not in (None, False) for key in REPO_FLAGS):
        return REPO
    import os

    from ..contract import text_error
    from ..errors import CodenavError

    try:
        probe = {**args, "pattern": pattern, "path": path}
        if ns.context is not None:
            probe["context"] = cli_int(ns.context, "--context", "context")
        checked(probe)
        if text_error(probe) is not None:
            return FILE
        entry = _target.open_entry(probe)
    except CodenavError as exc:
        if exc.code != "INVALID_ARGUMENT":
            raise
        return FILE
    args["_entry"] = entry
    return REPO if os.path.isdir(os.path.join(entry.path, "tree", path)) else FILE


def _utf8(stream: Any) -> bool:
    """Whether text written to ``stream`` is encoded as UTF-8 (then a valid UTF-8 line can be
    written as its bytes)."""
    import codecs

    try:
        return codecs.lookup(stream.encoding).name == "utf-8" and hasattr(stream, "buffer")
    except (AttributeError, LookupError, TypeError):
        return False


def repo_arguments(ns: Any, args: dict[str, Any], pattern: str, path: str | None) -> dict[str, Any]:
    """The grep_repo arguments of a ``grep`` command line (PATH, if any, becomes path_prefix)."""
    args = {**args, "pattern": pattern, "_tool": REPO}
    if path is not None:
        args["path_prefix"] = path
    for key in _BOOLEANS:
        if getattr(ns, key, False):
            args[key] = True
    if getattr(ns, "glob", None):
        args["glob"] = list(ns.glob)
    if getattr(ns, "context", None) is not None:
        args["context"] = cli_int(ns.context, "--context", "context")
    if getattr(ns, "max_matches", None) is not None:
        args["max_matches"] = cli_int(ns.max_matches, "--max-matches", "max_matches")
    if getattr(ns, "cursor", None) is not None:
        args["cursor"] = ns.cursor
    if not (ns.json or ns.verbose):
        # Plain output is rg's: every match, whole lines (--max-columns asks for the window).
        args["_unbounded"] = True
        # Every match as path:line:text and nothing else: made from the bytes (search/plain.py).
        args["_plain"] = not (ns.verbose or args.get("context") or args.get("max_matches") is not None
                              or args.get("cursor") is not None or getattr(ns, "max_columns", None) is not None
                              or not _utf8(sys.stdout))
        if getattr(ns, "max_columns", None) is not None:
            columns = cli_int(ns.max_columns, "--max-columns", "max_columns")
            if columns < 1:
                raise invalid("--max-columns must be 1 or more", "max_columns")
            args["_window"] = columns
    return args
