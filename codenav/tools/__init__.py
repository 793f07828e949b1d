"""The ordered tool registry: MCP name -> (module, CLI command), modules imported lazily.

``tools/list``, the CLI subcommands and the README tool table all follow this order, which is
that of ``grammar.TOOLS``: a tool's command line is declared there, once (issue 22).

A tool module provides:
  NAME, COMMAND, HELP        MCP name, CLI subcommand, one-line CLI help
  DESCRIPTION, EPILOG        optional: the text of ``codenav COMMAND --help`` around the options
  ERROR_EXIT                 CLI exit code for an error (1, or 2 for grep-like tools)
  call(ns, cli) -> (tool, args)   optional: the MCP arguments of a command line the grammar
                             alone cannot read (``arguments`` below reads the others)
  run(args, cli=None) -> dict   the shared logic; on the MCP path ``args`` are schema-valid;
                             ``cli`` is the command line's CliOptions (below), never an MCP
                             argument
  exit_code(result) -> int   CLI exit code for a success (grep: 1 when nothing matched)
  text(result, words=None) -> str   the TEXT answer (SPEC §4.4): the default MCP answer and
                             `--verbose` stdout; ``words`` None speaks MCP, words.for_cli the CLI
  render(result, out, err)   plain output, for pipes
  TARGET_VERSIONED           optional, default True: False when ``target`` names no version

A command line becomes a call here (``call``): the grammar (codenav/grammar.py) declares every
command line, and its namespace is read by it — the target (``targets.cli_target``), the operands
after it, each option into its MCP argument, converted by its kind. What the CLI asks beyond the
MCP arguments (plain output, diff's summary views, …) never joins them: it travels to
``run(args, cli=...)`` as one ``CliOptions`` (docs/decisions.md, issue 22).
"""

from __future__ import annotations

from ..errors import invalid
from ..grammar import LIST, NUMBER, RANGE, SWITCH, TARGET, TOOLS

TYPE_CHECKING = False  # annotations only: a warm call imports neither importlib nor types
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

    from ..grammar import Command, Operand, Option

# MCP tool name -> CLI subcommand, in tools/list order.
REGISTRY: dict[str, str] = {name: command.name for name, command in TOOLS.items()}
# CLI subcommand -> the tool whose module is its adapter: the first with that command. `grep`
# is grep_file's, whose call() routes a call to grep_repo.
COMMANDS: dict[str, str] = {}
for _tool, _subcommand in REGISTRY.items():
    COMMANDS.setdefault(_subcommand, _tool)


def load(name: str) -> ModuleType:
    """The module of tool ``name`` (KeyError for an unknown tool)."""
    if name not in REGISTRY:
        raise KeyError(name)
    return getattr(__import__(__name__, fromlist=[name]), name)


def names() -> list[str]:
    return list(REGISTRY)


# --- a command line -> the call it asks for -------------------------------------------------

class CliOptions:
    """What the command line asks of a run beyond its MCP arguments; never part of an envelope.

    ``plain``: the result is only rendered for a pipe (neither --json nor --verbose), so it is
    not cut to the output budget (SPEC §5) and may carry only what plain output prints
    (list_files: the bare paths). ``max_columns``: grep_repo's window around a match in plain
    output (--max-columns). ``view``: diff's summary view (``stat``, ``numstat``,
    ``name-only``) of the whole patch. ``opened``: the target, already opened to route the call
    (grep: a directory PATH goes to grep_repo). ``from_bytes``: grep_repo's plain output is
    every match as ``path:line:text`` and nothing else, so it is made from the files' bytes
    (search/plain.py; set by ``_grep.call``). ``output``: the plain stdout bytes a run already
    made that way (set by grep_repo's ``run``), written before what ``render`` writes — so the
    result itself stays schema-shaped.
    """

    __slots__ = ("plain", "max_columns", "view", "opened", "from_bytes", "output")

    def __init__(self, plain: bool = False, max_columns: int | None = None, view: str | None = None,
                 opened: Any = None, from_bytes: bool = False) -> None:
        self.plain, self.max_columns, self.view, self.opened = plain, max_columns, view, opened
        self.from_bytes = from_bytes
        self.output: bytes | None = None


def call(ns: Any) -> tuple[str, dict[str, Any], CliOptions]:
    """(tool, MCP arguments, CLI options) of a tool command's namespace; INVALID_ARGUMENT for a
    value the tools cannot take (a word where a number goes, an operand too many)."""
    name = COMMANDS[ns.command]
    cli = CliOptions(plain=not (ns.json or ns.verbose))
    hook = getattr(load(name), "call", None)
    if hook is not None:
        name, args = hook(ns, cli)
    else:
        args = arguments(ns, TOOLS[name])
    return name, args, cli


def arguments(ns: Any, command: Command) -> dict[str, Any]:
    """The MCP arguments of ``ns``: target, operands, then the options in declaration order."""
    if command.target and _several(ns):  # --target SPEC..., --deps, --all-deps (tools/_many.py)
        from ._many import cli_arguments

        args = cli_arguments(ns, command)
    elif command.target:
        args, rest = split_operands(ns, command.usage, command.operands)
        args.update((operand.argument, value) for operand, value in zip(command.operands, rest, strict=True)
                    if value is not None)
    else:
        args = {o.argument: getattr(ns, o.argument) for o in command.operands if getattr(ns, o.argument) is not None}
    args.update(option_arguments(ns, command))
    return args


def _several(ns: Any) -> bool:
    """Whether a command line names several targets (read without importing tools/_many.py)."""
    return bool(getattr(ns, "target", None) or getattr(ns, "deps", False) or getattr(ns, "all_deps", False))


def split_operands(ns: Any, usage: str, operands: tuple[Operand, ...]) -> tuple[dict[str, Any], list[str | None]]:
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


def option_arguments(ns: Any, command: Command) -> dict[str, Any]:
    """The MCP arguments of ``command``'s options given in ``ns`` (the target's are
    targets.cli_target's; an option without an MCP argument is the CLI's own)."""
    args: dict[str, Any] = {}
    for option in command.options:
        if option.argument is None or option in TARGET:
            continue
        value = getattr(ns, option.dest, None)
        if value is None or value is False or value == []:
            continue
        if option.kind == NUMBER:
            args[option.argument] = number_argument(value, option)
        elif option.kind == RANGE:
            from ..text import range_arguments

            args.update(range_arguments(value))
        elif option.kind == SWITCH:
            args[option.argument] = True
        elif option.kind == LIST:
            args[option.argument] = list(value)
        else:
            args[option.argument] = value
    return args


def number_argument(value: str, option: Option) -> int:
    """A NUMBER option's value, or INVALID_ARGUMENT naming its argument (targets.cli_int)."""
    from ..targets import cli_int

    return cli_int(value, option.flags[0], option.argument or option.dest)
