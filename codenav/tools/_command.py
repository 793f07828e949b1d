"""A command line -> the call it asks for: the tool, its MCP arguments, and the CLI's own options.

The grammar (codenav/grammar.py) declares every command line; this module reads argparse's (or
the quick reader's) namespace by it: the target (``targets.cli_target``), the operands after it,
and each option into its MCP argument, converted by its kind. A command that needs more — grep
routes a call to grep_repo, diff reads FROM and TO as versions or refs — has a ``call(ns, cli)``
hook in its tool module, which returns the tool and its arguments.

What the CLI asks beyond the MCP arguments (plain output, diff's summary views, …) never joins
them: it travels to ``run(args, cli=...)`` as one ``CliOptions`` (docs/decisions.md, issue 22).
"""

from __future__ import annotations

from .. import grammar
from ..errors import invalid

TYPE_CHECKING = False  # annotations only: a warm call must not import typing
if TYPE_CHECKING:
    from typing import Any


class CliOptions:
    """What the command line asks of a run beyond its MCP arguments; never part of an envelope.

    ``plain``: the result is only rendered for a pipe (neither --json nor --verbose), so it is
    not cut to the output budget (SPEC §5) and may carry only what plain output prints
    (list_files: the bare paths). ``max_columns``: grep_repo's window around a match in plain
    output (--max-columns). ``view``: diff's summary view (``stat``, ``numstat``,
    ``name-only``) of the whole patch. ``opened``: the target, already opened to route the call
    (grep: a directory PATH goes to grep_repo).
    """

    __slots__ = ("plain", "max_columns", "view", "opened")

    def __init__(self, plain: bool = False, max_columns: int | None = None, view: str | None = None,
                 opened: Any = None) -> None:
        self.plain, self.max_columns, self.view, self.opened = plain, max_columns, view, opened


def call(ns: Any) -> tuple[str, dict[str, Any], CliOptions]:
    """(tool, MCP arguments, CLI options) of a tool command's namespace; INVALID_ARGUMENT for a
    value the tools cannot take (a word where a number goes, an operand too many)."""
    from . import COMMANDS, load

    name = COMMANDS[ns.command]
    cli = CliOptions(plain=not (ns.json or ns.verbose))
    hook = getattr(load(name), "call", None)
    if hook is not None:
        name, args = hook(ns, cli)
    else:
        args = arguments(ns, grammar.TOOLS[name])
    return name, args, cli


def arguments(ns: Any, command: grammar.Command) -> dict[str, Any]:
    """The MCP arguments of ``ns``: target, operands, then the options in declaration order."""
    if command.target:
        args, rest = split(ns, command.usage, command.operands)
        args.update((operand.argument, value) for operand, value in zip(command.operands, rest, strict=True)
                    if value is not None)
    else:
        args = {o.argument: getattr(ns, o.argument) for o in command.operands if getattr(ns, o.argument) is not None}
    args.update(options(ns, command))
    return args


def split(ns: Any, usage: str, operands: tuple[grammar.Operand, ...]) -> tuple[dict[str, Any], list[str | None]]:
    """The target arguments, and one value per operand after the target (None for an optional
    one left out); INVALID_ARGUMENT naming the first operand missing or the last one too many."""
    from ..targets import cli_target

    args, rest = cli_target(ns, list(ns.operands), usage)
    high = len(operands)
    low = high - sum(1 for operand in operands if operand.optional)
    if not low <= len(rest) <= high:
        want = " ".join(operand.metavar for operand in operands)
        raise invalid(f"expected {want} after the target; usage: {usage}", operands[min(len(rest), high - 1)].argument)
    return args, rest + [None] * (high - len(rest))


def options(ns: Any, command: grammar.Command) -> dict[str, Any]:
    """The MCP arguments of ``command``'s options given in ``ns`` (the target's are
    targets.cli_target's; an option without an MCP argument is the CLI's own)."""
    args: dict[str, Any] = {}
    for option in command.options:
        if option.argument is None or option in grammar.TARGET:
            continue
        value = getattr(ns, option.dest, None)
        if value is None or value is False or value == []:
            continue
        if option.kind == grammar.NUMBER:
            args[option.argument] = number(value, option)
        elif option.kind == grammar.RANGE:
            from ..text import range_arguments

            args.update(range_arguments(value))
        elif option.kind == grammar.SWITCH:
            args[option.argument] = True
        elif option.kind == grammar.LIST:
            args[option.argument] = list(value)
        else:
            args[option.argument] = value
    return args


def number(value: str, option: grammar.Option) -> int:
    """A NUMBER option's value, or INVALID_ARGUMENT naming its argument (targets.cli_int)."""
    from ..targets import cli_int

    return cli_int(value, option.flags[0], option.argument or option.dest)
