"""The argparse face of codenav: one subcommand per tool, plus ``mcp`` and ``cache``.

Plain mode writes data to stdout and every hint to stderr; ``--json`` writes exactly the
envelope the MCP server would put in its text block; ``--verbose`` is for people. Exit codes
are decided here: 0 success, 1 error (tools with ``ERROR_EXIT = 2``: 1 = no match, 2 = error).
"""

from __future__ import annotations

import sys

from . import __version__
from .errors import CodenavError, internal

TYPE_CHECKING = False  # annotations only: a warm call must not import typing
if TYPE_CHECKING:
    from typing import Any


def _build_parser(command: str | None) -> Any:
    import argparse

    from . import grammar, targets, tools

    parser = argparse.ArgumentParser(
        prog="codenav",
        description="Look inside third-party code: registry packages, git repositories, public GitHub code.",
    )
    parser.add_argument("--version", action="version", version=f"codenav {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, cmd in tools.REGISTRY.items():
        if command is not None and cmd != command:
            continue  # only the chosen tool is imported (keeps a warm call cheap)
        if tools.COMMANDS[cmd] != name:
            continue  # a second tool of one command (grep_repo): its adapter routes to it
        module = tools.load(name)
        p = sub.add_parser(cmd, help=module.HELP, description=getattr(module, "DESCRIPTION", module.HELP),
                           epilog=getattr(module, "EPILOG", None), formatter_class=argparse.RawDescriptionHelpFormatter)
        # The help names the tool's limits and defaults, and the target's, in braces.
        grammar.configure(p, grammar.TOOLS[name], {**vars(targets), **vars(module)})
    if command in (None, "mcp"):
        mcp = sub.add_parser("mcp", help="serve the tools over MCP (stdio, newline-delimited JSON-RPC)",
                             description="Serve the tools over MCP on stdio. Answers are compact text for a "
                                         "model; --json answers as `codenav <cmd> --json` does, with "
                                         "structuredContent and outputSchema, for programs.")
        mcp.add_argument("--json", action="store_true",
                         help="answer with the JSON envelope in structuredContent and the text block")
    if command in (None, "cache"):
        from .commands import cache as cache_command

        cache_command.configure(sub.add_parser("cache", help="list, locate, clear or prune the local cache"))
    if command in (None, "skill"):
        from .commands import skill

        skill.configure(sub.add_parser("skill", help="print a SKILL.md that teaches an agent this CLI"))
    return parser


def _first_command(argv: list[str]) -> str | None:
    from .tools import COMMANDS

    for arg in argv:
        if arg.startswith("-"):
            return None  # global option first (--help, --version): build the full parser
        return arg if arg in COMMANDS or arg in ("mcp", "cache", "skill") else None
    return None


class _Signalled(BaseException):
    """SIGTERM or SIGHUP while a command runs: unwound as Ctrl-C's KeyboardInterrupt is."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_signalled(signum: int, frame: Any) -> None:
    raise _Signalled(signum)


def main(argv: list[str] | None = None) -> int:
    program = argv is None  # run as the program: a cold call may fork its indexer (cache/forked.py)
    argv = sys.argv[1:] if argv is None else list(argv)
    from .grammar import quick_namespace

    ns: Any = quick_namespace(argv)
    if ns is None:
        parser = _build_parser(_first_command(argv))
        ns = parser.parse_args(argv)
        if ns.command is None:
            parser.print_help(sys.stderr)
            return 2
    if ns.command == "mcp":
        from .mcp.server import serve

        return serve(json_answers=ns.json)  # it ends its children itself, on its own signals
    if program:  # the server (above) runs threads: its indexers are processes
        import codenav

        codenav.fork_indexer = True
    import _signal  # loaded at start-up; `signal` would cost a warm call enum and functools

    handled = (_signal.SIGTERM, _signal.SIGHUP)
    try:
        previous = [_signal.signal(number, _raise_signalled) for number in handled]
    except ValueError:  # not the main thread (an embedding program): its signals are its own
        previous = []
    answered = False
    try:
        if ns.command == "cache":
            from .commands import cache as cache_command

            status = cache_command.run(ns)
        elif ns.command == "skill":
            from .commands import skill

            status = skill.run(ns)
        else:
            status = _run_tool(ns)
        answered = True
        return status
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, and keep Python's exit-time
        # flush of stdout from raising again (the recipe of the signal module docs).
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        answered = True
        return 0
    except KeyboardInterrupt:
        return 130
    except _Signalled as exc:
        return 128 + exc.signum
    finally:
        for number, handler in zip(handled, previous, strict=False):  # none when not installed
            _signal.signal(number, handler)
        _end_children(answered)


def _end_children(answered: bool) -> None:
    """No process this command started outlives it (SPEC §8): programs are killed; an indexer
    still running is released to finish alone once the command answered (INDEXING), and
    stopped when the command was interrupted."""
    proc = sys.modules.get(f"{__package__}.proc")  # never imported: nothing was started
    if proc is not None:
        import _thread

        proc.end_children(_thread.get_ident(), release=answered)


def _run_tool(ns: Any) -> int:
    from . import tools
    from .contract import dumps, text_error
    from .tools import call

    name = tools.COMMANDS[ns.command]
    module = tools.load(name)
    error_exit = getattr(module, "ERROR_EXIT", 1)
    args: dict[str, Any] | None = None
    try:
        name, args, options = call(ns)  # one command, two tools (grep): the tool chosen
        module = tools.load(name)
        problem = text_error(args)
        if problem is not None:
            raise problem
        result = module.run(args, cli=options)
    except CodenavError as exc:
        if exc.code == "INVALID_ARGUMENT" and args is not None:
            exc = _schema_error(name, args) or exc
        return _fail(exc, ns, error_exit)
    except Exception as exc:  # a bug: never a traceback on stdout or in JSON
        import traceback

        traceback.print_exc(file=sys.stderr)
        return _fail(internal(exc), ns, error_exit)
    view = {"view": options.view} if options.view else {}  # diff's summary views (grammar.DIFF)
    if ns.json:
        sys.stdout.write(dumps(result) + "\n")
    elif ns.verbose:
        # The MCP TEXT answer in the CLI's words: its notes ride in it, none go to stderr.
        from .words import for_cli

        _write_utf8(module.text(result, for_cli, **view))
    else:
        _notes(result, sys.stderr)
        if options.output is not None:  # plain output the run already made (grep_repo, from the bytes)
            sys.stdout.flush()
            sys.stdout.buffer.write(options.output)
        module.render(result, sys.stdout, sys.stderr, **view)
        target = result.get("target")
        if isinstance(target, dict) and (target.get("yanked") or target.get("deprecated")):
            from .words import target_notes

            for note in target_notes(target):
                sys.stderr.write(f"codenav: {note}\n")
    sys.stdout.flush()
    return module.exit_code(result)


def _write_utf8(text: str) -> None:
    """``text`` on stdout as UTF-8 whatever the locale: the bytes of the MCP TEXT answer."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    buffer.write(text.encode("utf-8"))


def _notes(result: dict[str, Any], err: Any) -> None:
    """What a person should know about the target before its data, one stderr line each: the
    lockfile the version came from, and every warning (a skipped lockfile, …)."""
    target = result.get("target")
    source = target.get("versionSource") if isinstance(target, dict) else None
    if source and source.get("kind") in ("lockfile", "installed"):
        err.write(f"codenav: {target['name']} {target['version']} from {source['file']}\n")
    for warning in result.get("warnings") or ():
        err.write(f"codenav: warning: {warning}\n")


def _schema_error(name: str, args: dict[str, Any]) -> CodenavError | None:
    """What the MCP server says for these arguments, when its inputSchema refuses them too.

    The server validates against the schema before a tool runs; the CLI skips that on its
    warm path (jsonschema costs ~100 ms to import) and relies on the tool's own checks. When
    a tool refuses the arguments, asking the schema here gives one mistake one envelope on
    both surfaces (SPEC §4 byte parity).
    """
    from .contract import validation_error

    return validation_error(name, args)


def _fail(exc: CodenavError, ns: Any, error_exit: int) -> int:
    if ns.json:
        from .contract import dumps

        sys.stdout.write(dumps(exc.to_envelope()) + "\n")
    elif ns.verbose:
        from .words import error_text, for_cli  # the error TEXT, in the CLI's words (SPEC §4.4)

        for line in error_text(exc.to_envelope(), for_cli).splitlines():
            sys.stderr.write(f"codenav: {line}\n")
    else:
        from .words import error_lines  # the CLI's words for the envelope's (SPEC §4.3)

        for line in error_lines(exc.code, exc.message, exc.details):
            sys.stderr.write(f"codenav: {line}\n")
    return error_exit
