"""The ordered tool registry: MCP name -> (module, CLI command), modules imported lazily.

``tools/list``, the CLI subcommands and the README tool table all follow this order.

A tool module provides:
  NAME, COMMAND, HELP        MCP name, CLI subcommand, one-line CLI help
  ERROR_EXIT                 CLI exit code for an error (1, or 2 for grep-like tools)
  configure(parser)          add its positionals and flags to an argparse subparser
  arguments(ns) -> dict      CLI namespace -> the MCP argument dict (snake_case)
  run(args) -> dict          the shared logic; args already schema-valid on the MCP path
  exit_code(result) -> int   CLI exit code for a success (grep: 1 when nothing matched)
  text(result, words=None) -> str   the TEXT answer (SPEC §4.4): the default MCP answer and
                             `--verbose` stdout; ``words`` None speaks MCP, words.for_cli the CLI
  render(result, out, err)   plain output, for pipes
  TARGET_VERSIONED           optional, default True: False when ``target`` names no version
"""

from __future__ import annotations

TYPE_CHECKING = False  # annotations only: a warm call imports neither importlib nor types
if TYPE_CHECKING:
    from types import ModuleType

# MCP tool name -> CLI subcommand, in tools/list order.
REGISTRY: dict[str, str] = {
    "list_files": "files",
    "read_file": "read",
    "grep_file": "grep",
    "grep_repo": "grep",
    "diff_versions": "diff",
    "search_symbols": "symbols",
    "list_deps": "deps",
    "codesearch": "search",
    "codefetch": "fetch",
}
# CLI subcommand -> the tool whose module is its adapter: the first with that command. `grep`
# is grep_file's, whose arguments() routes a call to grep_repo by returning ``_tool``.
COMMANDS: dict[str, str] = {}
for _name, _command in REGISTRY.items():
    COMMANDS.setdefault(_command, _name)


def load(name: str) -> ModuleType:
    """The module of tool ``name`` (KeyError for an unknown tool)."""
    if name not in REGISTRY:
        raise KeyError(name)
    return getattr(__import__(__name__, fromlist=[name]), name)


def names() -> list[str]:
    return list(REGISTRY)
