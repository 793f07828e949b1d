"""What list_files, read_file and grep_file share: target arguments, opening, the gutter."""

from __future__ import annotations

from .. import registries
from ..errors import invalid
from ..targets import add_cli_options, cli_target, from_args, wait_ms

TYPE_CHECKING = False  # annotations only: a warm call must not import typing
if TYPE_CHECKING:
    from typing import Any, TextIO

TARGET_KEYS = ("registry", "package_name", "version", "artifact", "repo_url", "git_ref", "wait_timeout_ms",
               "project_dir")

SPEC_HELP = (
    "SPEC is REGISTRY:NAME[@VERSION], e.g. npm:express, npm:@types/node@20.11.30, pypi:requests@2.32.3,\n"
    f"REGISTRY one of {', '.join(registries.names())}; VERSION exact, a range (npm:react@^18,\n"
    "'pypi:requests>=2.30,<2.32') or a dist-tag; omitted, the version the project's lockfile pins.\n"
    "With --repo-url URL [--git-ref REF] a git repository replaces SPEC."
)


def configure(parser: Any, operands_metavar: str) -> None:
    parser.add_argument("operands", nargs="*", metavar=operands_metavar, help="see usage")
    add_cli_options(parser)


def split_cli(ns: Any, usage: str, names: tuple[str, ...], optional: int = 0) -> tuple[dict[str, Any], list[str | None]]:
    """Target arguments plus exactly ``names`` operands (the last ``optional`` may be absent)."""
    args, rest = cli_target(ns, list(ns.operands), usage)
    low, high = len(names) - optional, len(names)
    if not low <= len(rest) <= high:
        want = " ".join(names)
        raise invalid(f"expected {want} after the target; usage: {usage}", names[min(len(rest), high - 1)].lower())
    return args, rest + [None] * (high - len(rest))


def open_entry(args: dict[str, Any]):
    """The entry of the target ``args`` name, with what this request adds to its echo: where
    the version came from (``versionSource``), other locked versions, warnings. ``_entry`` is
    one the CLI already opened to route a command (grep_file.route)."""
    if args.get("_entry") is not None:
        return args["_entry"]
    from ..cache import open_entry as open_cached
    from ..targets import PackageTarget, version_source

    target = from_args(args)
    wait = wait_ms(args)
    if not isinstance(target, PackageTarget):
        return open_cached(target, wait)
    target, source, others, warnings = version_source(target, args)
    entry = open_cached(target, wait)
    entry.extra_echo = {"versionSource": source}
    if others:
        entry.extra_echo["otherLockedVersions"] = others
    entry.warnings = warnings
    entry.request = {"name": target.name, "version": target.version}
    return entry


def with_warnings(result: dict[str, Any], entry: Any) -> dict[str, Any]:
    """``result`` with this request's warnings (top level, as the schemas say), if any."""
    if entry.warnings:
        result["warnings"] = list(entry.warnings)
    return result


def gutter(lines: list[tuple[int, str, bool]], out: TextIO, marker: bool = False) -> None:
    """Right-aligned line numbers; with ``marker`` a '>' flags matching lines."""
    if not lines:
        return
    width = len(str(max(n for n, _, _ in lines)))
    for number, text, is_match in lines:
        flag = (">" if is_match else " ") if marker else ""
        out.write(f"{flag}{number:>{width}} | {text.rstrip(chr(10))}\n")


def cli_words(sentence: str) -> str:
    """``sentence`` in the CLI's words (codenav/words.py), imported only when a hint is shown."""
    from ..words import for_cli

    return for_cli(sentence)
