"""Every tool's command line, declared once as data (SPEC §2, §4.3; ripgrep's flags/defs.rs).

An ``Option`` is one flag: its spellings, its metavar and help, how it takes its value, and the
MCP argument it stands for. An ``Operand`` is a positional. A ``Command`` is a subcommand's
operands and options; ``TOOLS`` maps each MCP tool, in tools/list order, to its command line
(``grep_file`` and ``grep_repo`` share ``grep``). Everything about the command line is built
from these declarations:

- the argparse subparsers, their help and their usage errors (``configure``, cli.py);
- the quick reading of a command line without argparse (``quick_namespace``: the warm path;
  tests/test_warm_path.py holds it to argparse on thousands of command lines);
- the MCP arguments a namespace stands for (``tools.call``);
- the CLI words: how a hint names an argument or a tool on the command line (``cli_words``,
  for words.for_cli).

argparse keeps every value as the string given (no ``type=``): the tools convert them, so a
bad value is an INVALID_ARGUMENT envelope like every other bad argument, not a usage error.
Imports nothing: a warm call reads this module.
"""

from __future__ import annotations

TYPE_CHECKING = False  # annotations only: a warm call must not import typing
if TYPE_CHECKING:
    from typing import Any

# How an option takes its value, and what the MCP argument gets.
TEXT = "text"  # --cursor C: the string
NUMBER = "number"  # --max N: a whole number (targets.cli_int)
RANGE = "range"  # --lines N-M: start_line and/or end_line (text.range_arguments)
SWITCH = "switch"  # --regex: true when given
LIST = "list"  # --glob G, repeatable: the list of values

# How a hint names an argument on the command line (``said``).
FLAG = "flag"  # the long flag: --repo-url
FLAG_VALUE = "flag value"  # the long flag and its metavar: --project DIR


class Option:
    """One flag: ``flags`` (long first), where argparse keeps it (``dest``), how it takes its
    value (``kind``), the MCP ``argument`` it stands for (None: the CLI's own), and how a hint
    names that argument (``said``: FLAG, FLAG_VALUE, or None when hints keep the MCP name)."""

    __slots__ = ("flags", "kind", "metavar", "help", "argument", "dest", "said")

    def __init__(self, *flags: str, kind: str = TEXT, metavar: str | None = None, help: str = "",  # noqa: A002
                 argument: str | None = None, dest: str | None = None, said: str | None = None) -> None:
        self.flags, self.kind, self.metavar, self.help = flags, kind, metavar, help
        self.argument, self.said = argument, said
        self.dest = dest or flags[0].lstrip("-").replace("-", "_")

    def spelled(self) -> str:
        """The option as a hint names it: ``--wait``, ``--project DIR``."""
        return f"{self.flags[0]} {self.metavar}" if self.said == FLAG_VALUE else self.flags[0]


class Operand:
    """One positional: its ``metavar``, the MCP ``argument`` it fills, whether it may be left out,
    and whether a hint names that argument by the metavar (``said``)."""

    __slots__ = ("metavar", "argument", "optional", "help", "said")

    def __init__(self, metavar: str, argument: str, *, optional: bool = False, help: str = "",  # noqa: A002
                 said: bool = False) -> None:
        self.metavar, self.argument, self.optional, self.help, self.said = metavar, argument, optional, help, said


class Command:
    """A subcommand: its operands and options.

    ``target``: the operands follow a target (SPEC, or --repo-url), read as one list
    (``operands``) and split by ``tools.split_operands``; the target options come first. ``usage`` is
    the short usage messages quote, ``synopsis`` the rest of argparse's usage line; ``metavar``
    names the operand list in help. ``exclusive``: options of which at most one may be given.
    ``said``: the operands after ``codenav COMMAND`` when a hint names the tool, None when hints
    keep the tool's MCP name.
    """

    __slots__ = ("name", "usage", "synopsis", "operands", "options", "target", "metavar", "exclusive", "said")

    def __init__(self, name: str, *, usage: str, operands: tuple[Operand, ...] = (), options: tuple[Option, ...] = (),
                 target: bool = False, synopsis: str = "", metavar: str = "", exclusive: tuple[Option, ...] = (),
                 said: tuple[str, ...] | None = None) -> None:
        self.name, self.usage, self.synopsis, self.operands = name, usage, synopsis, operands
        self.options = (TARGET if target else ()) + options + exclusive + OUTPUT
        self.target, self.metavar, self.exclusive, self.said = target, metavar, exclusive, said


# --- the declarations --------------------------------------------------------------------------

# Every tool that reads a target (SPEC §2.1); ``tools.call`` reads them through targets.cli_target.
TARGET = (
    Option("--repo-url", metavar="URL", argument="repo_url", said=FLAG, help="a git repository instead of a registry SPEC"),
    Option("--git-ref", metavar="REF", argument="git_ref", said=FLAG,
           help="branch, tag or commit of --repo-url (default: HEAD)"),
    Option("--wait", kind=NUMBER, metavar="MS", argument="wait_timeout_ms", said=FLAG,
           help="wait up to MS ms for a package not yet cached (0-{MAX_WAIT_MS}, default {DEFAULT_WAIT_MS})"),
    Option("--project", metavar="DIR", argument="project_dir", said=FLAG_VALUE,
           help="with no version, read the version DIR's lockfile pins (default: this directory)"),
    Option("--artifact", metavar="FILE", argument="artifact",
           help="which file of a PyPI release: sdist, wheel, or a file name (default: the wheel for this machine)"),
    Option("--no-project", kind=SWITCH,
           help="with no version, take the registry's latest, not the project's locked version"),
)
# Every tool command: the answer's form (SPEC §4.3, §4.4).
OUTPUT = (
    Option("--json", kind=SWITCH, help="print the JSON envelope (the MCP result) on stdout"),
    Option("--verbose", "-v", kind=SWITCH, help="human-oriented output with headers and hints inline"),
)
# Several targets at once instead of SPEC (grep_repo, search_symbols; tools/_many.py): the
# operand after PATTERN or QUERY is the project DIR with --deps/--all-deps, else PATH_PREFIX.
MANY = (
    Option("--target", kind=LIST, metavar="SPEC", argument="targets", said=FLAG,
           help="search this target too, instead of one SPEC (repeatable, at most 50)"),
    Option("--deps", kind=SWITCH, help="search the direct dependencies the project's lockfiles pin (DIR: the project)"),
    Option("--all-deps", kind=SWITCH, help="search every package the project's lockfiles pin (DIR: the project)"),
)
# How a hint names the parts of SPEC (they have no flag of their own).
SPEC_WORDS = {"package_name": "the NAME of SPEC"}
TARGET_SYNOPSIS = " [--repo-url URL [--git-ref REF]] [--wait MS] [--json] [--verbose]"

PATH_PREFIX = Operand("PATH_PREFIX", "path_prefix", optional=True, said=True)
GLOB_HELP = "(ripgrep -g rules; !GLOB excludes); repeatable"
# A RANGE names the first of its two arguments (start_line; end_line follows).
LINES = Option("--lines", kind=RANGE, metavar="N-M", argument="start_line", said=FLAG,
               help="inclusive 1-based line range: N-M, N- or -M")

FILES = Command(
    "files", usage="codenav files [SPEC] [PATH_PREFIX]", synopsis=TARGET_SYNOPSIS, target=True,
    metavar="[SPEC] [PATH_PREFIX]", operands=(PATH_PREFIX,), said=("SPEC",),
    options=(Option("--glob", "-g", kind=LIST, metavar="GLOB", argument="glob", help="only files matching GLOB " + GLOB_HELP),),
)
READ = Command(
    "read", usage="codenav read [SPEC] PATH [--lines N-M]", synopsis=TARGET_SYNOPSIS, target=True,
    metavar="[SPEC] PATH", operands=(Operand("PATH", "path"),), options=(LINES,), said=("SPEC", "PATH"),
)
# grep_file's command line, and grep_repo's through it (tools/_grep.py routes a call): PATH is
# grep_file's path or grep_repo's path_prefix; the flags after --context are grep_repo's.
GREP = Command(
    "grep", usage="codenav grep [SPEC] PATTERN [PATH] [--context N] [grep_repo flags]", synopsis=TARGET_SYNOPSIS,
    target=True, metavar="[SPEC] PATTERN [PATH]", said=("SPEC", "PATTERN", "PATH"),
    operands=(Operand("PATTERN", "pattern"), Operand("PATH", "path", optional=True)),
    options=(
        Option("--context", "-C", kind=NUMBER, metavar="N", argument="context",
               help="show N lines before and after each match (default 0)"),
        Option("--regex", kind=SWITCH, argument="regex", help="PATTERN is a Python regular expression"),
        Option("--case-sensitive", "-s", kind=SWITCH, argument="case_sensitive", help="match case exactly"),
        Option("--whole-words", "-w", kind=SWITCH, argument="whole_words", help="match only whole words"),
        Option("--glob", "-g", kind=LIST, metavar="GLOB", argument="glob", help="include files matching GLOB " + GLOB_HELP),
        Option("--max-matches", "-m", kind=NUMBER, metavar="N", argument="max_matches",
               help="stop after N matching lines (plain output: default every one)"),
        Option("--cursor", metavar="CURSOR", argument="cursor", help="continue a --json page from its nextCursor"),
        Option("--max-columns", kind=NUMBER, metavar="N",  # plain output only (CliOptions.max_columns)
               help="print at most N characters of a line, around the match"),
        *MANY,
    ),
)
DIFF = Command(
    "diff", usage="codenav diff SPEC FROM TO [PATH_PREFIX]", target=True, metavar="SPEC FROM TO [PATH_PREFIX]",
    synopsis=(" | --repo-url URL FROM_REF TO_REF [PATH_PREFIX] [--from V] [--to V] [--context N]"
              " [--stat | --numstat | --name-only | --review] [--cursor C] [--wait MS] [--json] [--verbose]"),
    # FROM and TO are versions or refs, --from/--to their option forms: diff_versions.call reads them.
    operands=(Operand("FROM", "from_version"), Operand("TO", "to_version"), PATH_PREFIX),
    options=(
        Option("--from", metavar="V", dest="from_", help="the old version (or ref)"),
        Option("--to", metavar="V", help="the new version (or ref); default: the latest"),
        Option("--context", "-U", kind=NUMBER, metavar="N", argument="context",
               help="lines of context around each change (0-{MAX_CONTEXT}, default {DEFAULT_CONTEXT})"),
        Option("--path", metavar="PATH", argument="path", help="only this one file"),
        Option("--glob", "-g", kind=LIST, metavar="GLOB", argument="glob", help="only paths matching GLOB " + GLOB_HELP),
        Option("--cursor", metavar="C", argument="cursor", help="continue a paged --json result"),
    ),
    # git's summary views of the whole patch (CliOptions.view): the CLI's own, not MCP's.
    exclusive=(
        Option("--stat", kind=SWITCH, help="one line per file with a +/- graph, as git diff --stat"),
        Option("--numstat", kind=SWITCH, help="added, removed and path per file, as git diff --numstat"),
        Option("--name-only", kind=SWITCH, help="the changed paths only"),
        Option("--review", kind=SWITCH,
               help="an upgrade review instead of the patch: supply chain, advisories, dependencies, API, changelog"),
    ),
)
SYMBOLS = Command(
    "symbols", usage="codenav symbols [SPEC] QUERY [PATH_PREFIX]", target=True, metavar="[SPEC] QUERY [PATH_PREFIX]",
    synopsis=" [--kind K]... [--match MODE] [--case-sensitive] [--max N] [--cursor C]" + TARGET_SYNOPSIS,
    operands=(Operand("QUERY", "query"), PATH_PREFIX),
    options=(
        Option("--kind", kind=LIST, metavar="K", argument="kind",
               help="only this kind (repeatable): function, class, method, variable, constant, type, interface, enum, "
                    "module, namespace, property"),
        Option("--match", metavar="MODE", argument="match", help="exact, prefix or substring (default: exact, then prefix)"),
        Option("--case-sensitive", kind=SWITCH, argument="case_sensitive", help="match the letter case of QUERY"),
        Option("--max", kind=NUMBER, metavar="N", argument="max_results",
               help="results per page (default {DEFAULT_RESULTS}, at most {MAX_RESULTS})"),
        Option("--cursor", metavar="C", argument="cursor", help="the nextCursor of the previous page"),
        *MANY,
    ),
)
DEPS = Command(
    "deps", usage="codenav deps [--project DIR] [--all]", synopsis=" [--json] [--verbose]",
    options=(
        Option("--project", metavar="DIR", argument="project_dir",
               help="the project's directory; its lockfiles are found from there up (default: this directory)"),
        Option("--all", kind=SWITCH, argument="all", help="every locked package, not only the direct dependencies"),
        Option("--cursor", metavar="C", argument="cursor", help="the nextCursor of the previous page (--json)"),
    ),
)
SEARCH = Command(
    "search", usage="", said=(),
    operands=(Operand("QUERY", "query", help="code text to find (literal unless --regex)"),),
    options=(
        Option("--regex", kind=SWITCH, argument="regex", help="treat QUERY as a regular expression"),
        Option("--case-sensitive", kind=SWITCH, argument="case_sensitive", help="match case (default: ignore case)"),
        Option("--whole-words", kind=SWITCH, argument="whole_words", help="match whole words only"),
        Option("--repo", metavar="R", argument="repo", help="repository filter, partial match (owner/name, or owner/)"),
        Option("--path", metavar="P", argument="path", help="file path filter, partial match, not a glob"),
        Option("--lang", kind=LIST, metavar="L", argument="language", help="language filter, repeatable (e.g. Python)"),
        Option("--allow-secret-like", kind=SWITCH, argument="allow_secret_like",
               help="send a query even though it looks like a credential (only for public strings)"),
    ),
)
FETCH = Command(
    "fetch", usage="", said=(),
    operands=(Operand("URL", "url", optional=True, help="GitHub blob URL: https://github.com/OWNER/NAME/blob/REF/PATH"),),
    options=(
        Option("--repo", metavar="OWNER/NAME", argument="repo", help="repository, instead of URL (needs --path)"),
        Option("--path", metavar="PATH", argument="path", help="file path inside the repository"),
        Option("--ref", metavar="REF", argument="ref", help="branch, tag or commit, taken exactly (default: default branch)"),
        Option("--lines", kind=RANGE, metavar="N-M", argument="start_line",
               help="1-based inclusive line range: N-M, N- or -M"),
    ),
)

# MCP tool -> its command line, in tools/list order (tools.REGISTRY is derived from it).
TOOLS: dict[str, Command] = {
    "list_files": FILES,
    "read_file": READ,
    "grep_file": GREP,
    "grep_repo": GREP,
    "diff_versions": DIFF,
    "search_symbols": SYMBOLS,
    "list_deps": DEPS,
    "codesearch": SEARCH,
    "codefetch": FETCH,
}
# Subcommand -> its command line, and the tool whose command it is (the first: grep is grep_file's).
COMMANDS: dict[str, Command] = {}
_FIRST: dict[str, str] = {}
for _tool, _line in TOOLS.items():
    COMMANDS.setdefault(_line.name, _line)
    _FIRST.setdefault(_line.name, _tool)


# --- argparse ----------------------------------------------------------------------------------

def configure(parser: Any, command: Command, constants: dict[str, Any]) -> None:
    """Add ``command``'s operands and options to an argparse (sub)parser. ``constants`` fills
    the ``{NAME}`` placeholders of the help (the tool's limits and defaults)."""
    if command.usage:
        parser.usage = command.usage + command.synopsis
    if command.target:
        parser.add_argument("operands", nargs="*", metavar=command.metavar, help="see usage")
    else:
        for operand in command.operands:
            parser.add_argument(operand.argument, nargs="?" if operand.optional else None, metavar=operand.metavar,
                                help=operand.help)
    group = parser.add_mutually_exclusive_group() if command.exclusive else None
    for option in command.options:
        where = group if group is not None and option in command.exclusive else parser
        keywords: dict[str, Any] = {"help": option.help.format_map(constants)}
        if option.kind == SWITCH:
            keywords["action"] = "store_true"
        else:
            keywords["metavar"] = option.metavar
            if option.kind == LIST:
                keywords["action"] = "append"
        if option.dest != option.flags[0].lstrip("-").replace("-", "_"):
            keywords["dest"] = option.dest
        where.add_argument(*option.flags, **keywords)


# --- the quick reading ---------------------------------------------------------------------------

class Namespace:
    """The attributes argparse would have set."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)


def quick_namespace(argv: list[str]) -> Namespace | None:
    """The namespace argparse would return for a plain tool command line, or None.

    argparse, with gettext and re, costs a warm call more than the call itself, so the common
    shape is read here: the subcommand, its positionals in one run, and exact options with a
    separate or ``--option=value`` value. Anything else — help, abbreviations, combined short
    flags, ``--``, a word or value starting with '-', an empty word, positionals on both sides
    of an option, a positional too many or missing, two options of one exclusive group — returns
    None, and argparse decides as before.
    """
    command = COMMANDS.get(argv[0]) if argv else None
    if command is None:
        return None
    switches: dict[str, str] = {}
    valued: dict[str, Option] = {}
    values: dict[str, Any] = {"command": command.name}
    for option in command.options:
        for flag in option.flags:
            if option.kind == SWITCH:
                switches[flag] = option.dest
            else:
                valued[flag] = option
        values[option.dest] = False if option.kind == SWITCH else None
    operands: list[str] = []
    operands_done = False
    words = iter(argv[1:])
    for word in words:
        if not word:
            return None
        if not word.startswith("-"):
            if operands_done:
                return None
            operands.append(word)
            continue
        operands_done = bool(operands)
        if word in switches:
            values[switches[word]] = True
            continue
        name, equals, value = word.partition("=")
        option = valued.get(name)
        if option is None or (equals and not name.startswith("--")):
            return None
        if not equals:
            value = next(words, "")
        if not value or value.startswith("-"):
            return None
        if option.kind == LIST:
            values[option.dest] = [*(values[option.dest] or ()), value]
        else:
            values[option.dest] = value
    if sum(1 for option in command.exclusive if values[option.dest]) > 1:
        return None
    if command.target:
        values["operands"] = operands
    else:
        required = sum(1 for operand in command.operands if not operand.optional)
        if not required <= len(operands) <= len(command.operands):
            return None
        for index, operand in enumerate(command.operands):
            values[operand.argument] = operands[index] if index < len(operands) else None
    return Namespace(values)


# --- the CLI words -------------------------------------------------------------------------------

def cli_words() -> tuple[dict[str, str], dict[str, Option]]:
    """How hints name things on the command line (words.for_cli), from the declarations:
    (MCP name -> its CLI spelling when it stands alone — the tools and arguments declared
    ``said``; argument -> its option, for ``NAME=VALUE``). An argument two commands spell with
    different flags is left out of the second; a tool is said by its command's own tool only
    (grep says grep_file).
    """
    alone: dict[str, str] = dict(SPEC_WORDS)
    flags: dict[str, Option] = {}
    for tool, command in TOOLS.items():
        if command.said is not None and _FIRST[command.name] == tool:
            alone[tool] = " ".join(("codenav", command.name, *command.said))
        for operand in command.operands:
            if operand.said:
                alone[operand.argument] = operand.metavar
        for option in command.options:
            names = ("start_line", "end_line") if option.kind == RANGE else (option.argument,)
            for name in names:
                if name is None or flags.setdefault(name, option).flags[0] != option.flags[0]:
                    continue
                if option.said and option.kind == RANGE:
                    start, end = option.metavar.split("-")
                    alone["start_line"], alone["end_line"] = f"{option.flags[0]} {start}-", f"{option.flags[0]} -{end}"
                elif option.said:
                    alone[name] = option.spelled()
    return alone, flags
