"""The README's commands, read as a shell would read them, and the output it shows for each.

Every fenced code block of the README is read: in a block that holds ``$ `` prompts, the prompted
lines are commands and the lines after each, up to the next prompt, are the output the README
shows for it; in a block without a prompt (``sh`` blocks, the registries' examples), every line
is a command line. A command line is split as the shell splits it (quotes, ``&&``, ``|``, ``;``,
a redirection, a ``# comment``); a command is a codenav command when its first word, after any
``NAME=value`` assignments, is ``codenav`` or a path to it, or when the command a wrapper runs
after ``--`` is (``claude mcp add codenav -- /absolute/path/to/codenav mcp``): its argv is what
follows. JSON blocks are configuration, not commands (tests/test_packaging.py reads them).

``matches(shown, printed)`` compares the output the README shows with what the command printed:
line for line, where a line ``…`` stands for any number of printed lines.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from .cli import ROOT

README = ROOT / "README.md"
ELIDED = "…"
_FENCE = re.compile(r"^```(\w*)\s*$")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_OPERATORS = {"&&", "||", ";", "|", "&"}


@dataclass(frozen=True)
class Example:
    """One codenav command of the README: where it is, its argv (after ``codenav``), the
    variables set before it, whether it was shown with a prompt, and the output shown for it."""

    line: int
    text: str
    argv: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    prompted: bool = False
    shown: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return f"README:{self.line}: codenav {' '.join(self.argv)}"[:100]


def blocks(text: str) -> list[tuple[str, int, list[str]]]:
    """(language, line number of the block's first line, its lines) of every fenced block."""
    found: list[tuple[str, int, list[str]]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        found.append((opening.group(1), index + 2, lines[index + 1:end]))
        index = end + 1
    return found


def commands(line: str) -> list[list[str]]:
    """The simple commands of a shell line, each a list of words (redirections dropped)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    found: list[list[str]] = [[]]
    words = list(lexer)
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in _OPERATORS:
            found.append([])
        elif word in (">", ">>", "<", "2>", "&>"):
            skip = True  # the redirection's target
        else:
            found[-1].append(word)
    return [command for command in found if command]


def codenav_argv(words: list[str]) -> tuple[dict[str, str], tuple[str, ...]] | None:
    """(assignments, argv after ``codenav``) when ``words`` runs codenav, else None."""
    env: dict[str, str] = {}
    rest = list(words)
    while rest and _ASSIGNMENT.match(rest[0]):
        name, _, value = rest.pop(0).partition("=")
        env[name] = value
    if rest and (rest[0] == "codenav" or rest[0].endswith("/codenav")):
        return env, tuple(rest[1:])
    if "--" in rest:  # a wrapper's command after `--` (`claude mcp add NAME -- COMMAND ARGS`)
        return codenav_argv(rest[rest.index("--") + 1:])
    return None


def examples(text: str | None = None) -> list[Example]:
    """Every codenav command in the README's code blocks, in order."""
    text = README.read_text(encoding="utf-8") if text is None else text
    found: list[Example] = []
    for language, first, lines in blocks(text):
        if language == "json":
            continue
        prompted = any(line.startswith("$ ") for line in lines)
        for offset, line in enumerate(lines):
            if prompted and not line.startswith("$ "):
                continue
            command_line = line[2:] if prompted else line
            shown: list[str] = []
            if prompted:
                for after in lines[offset + 1:]:
                    if after.startswith("$ "):
                        break
                    shown.append(after)
            for words in commands(command_line):
                parsed = codenav_argv(words)
                if parsed is not None:
                    env, argv = parsed
                    found.append(Example(first + offset, command_line, argv, env, prompted, tuple(shown)))
    return found


def matches(shown: tuple[str, ...] | list[str], printed: str) -> bool:
    """Whether ``printed`` is the output ``shown``: every shown line in order, each ``…`` line
    standing for any number of printed lines (none included), nothing else before or after."""
    pattern = "".join(r"(?:[^\n]*\n)*?" if line == ELIDED else re.escape(line) + r"\n" for line in shown)
    return re.fullmatch(pattern, printed if printed.endswith("\n") or not printed else printed + "\n") is not None
