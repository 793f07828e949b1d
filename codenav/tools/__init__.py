"""The ordered tool registry: MCP name -> (module, CLI command), modules imported lazily.

``tools/list``, the CLI subcommands and the README tool table all follow this order, which is
that of ``grammar.TOOLS``: a tool's command line is declared there, once (issue 22).

A tool module provides:
  NAME, COMMAND, HELP        MCP name, CLI subcommand, one-line CLI help
  DESCRIPTION, EPILOG        optional: the text of ``codenav COMMAND --help`` around the options
  ERROR_EXIT                 CLI exit code for an error (1, or 2 for grep-like tools)
  call(ns, cli) -> (tool, args)   optional: the MCP arguments of a command line the grammar
                             alone cannot read (tools/_command.py reads the others)
  run(args, cli=None) -> dict   the shared logic; on the MCP path ``args`` are schema-valid;
                             ``cli`` is the command line's CliOptions (tools/_command.py), never
                             an MCP argument
  exit_code(result) -> int   CLI exit code for a success (grep: 1 when nothing matched)
  text(result, words=None) -> str   the TEXT answer (SPEC §4.4): the default MCP answer and
                             `--verbose` stdout; ``words`` None speaks MCP, words.for_cli the CLI
  render(result, out, err)   plain output, for pipes
  TARGET_VERSIONED           optional, default True: False when ``target`` names no version
"""

from __future__ import annotations

from ..grammar import TOOLS

TYPE_CHECKING = False  # annotations only: a warm call imports neither importlib nor types
if TYPE_CHECKING:
    from types import ModuleType

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
