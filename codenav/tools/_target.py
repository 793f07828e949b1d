"""What the target tools share: the SPEC help, opening a target (``Opened``), the gutter."""

from __future__ import annotations

from .. import registries
from ..targets import from_args, wait_ms

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


class Opened:
    """An opened target: the cached entry — shared, never changed — and what this request adds.

    ``echo`` joins the target's echo (``versionSource``, ``otherLockedVersions``), ``warnings``
    are this request's (a skipped lockfile, …), ``request`` the name and version it resolved to
    (read without the manifest). Everything else is the entry's: ``opened.read(path)`` is
    ``opened.entry.read(path)``. Nothing of one request can reach another through the entry.
    """

    __slots__ = ("entry", "echo", "warnings", "request")

    def __init__(self, entry: Any, echo: dict[str, Any] | None = None, warnings: list[str] | None = None,
                 request: dict[str, Any] | None = None) -> None:
        self.entry = entry
        self.echo = echo or {}
        self.warnings = warnings or []
        self.request = request or {}

    @property
    def target(self) -> dict[str, Any]:
        base = self.entry.target
        return {**base, **self.echo} if self.echo else base

    def __getattr__(self, name: str) -> Any:
        return getattr(self.entry, name)


def open_entry(args: dict[str, Any], cli: Any = None) -> Opened:
    """The target ``args`` name, opened, with what this request adds to its echo: where the
    version came from (``versionSource``), other locked versions, warnings; or the target the
    command line already opened to route the call (``cli.opened``: tools/_grep.route)."""
    if cli is not None and cli.opened is not None:
        return cli.opened
    from ..cache import open_entry as open_cached

    target, opened = request(args)
    if opened is None:
        return Opened(open_cached(target, wait_ms(args)))
    opened.entry = open_cached(target, wait_ms(args))
    return opened


def open_warm(args: dict[str, Any]) -> Opened | None:
    """``open_entry`` when the cache already holds the package (no lock, no process), else None
    (a git target's ref is resolved by the cold path: tools/_many.py opens those there)."""
    from ..cache.aliases import cached

    target, opened = request(args)
    if opened is None:
        return None
    opened.entry = cached(target)
    return opened if opened.entry is not None else None


def target_of(args: dict[str, Any]) -> Any:
    """The target ``args`` name, its version as the request resolves it (a lockfile's, …)."""
    return request(args)[0]


def request(args: dict[str, Any]) -> tuple[Any, Opened | None]:
    """(the target to open, and for a package the request's ``Opened`` without its entry yet)."""
    from ..targets import PackageTarget, version_source

    target = from_args(args)
    wait_ms(args)  # checked before the lockfile is read, as ever
    if not isinstance(target, PackageTarget):
        return target, None
    target, source, others, warnings = version_source(target, args)
    echo: dict[str, Any] = {"versionSource": source}
    if others:
        echo["otherLockedVersions"] = others
    return target, Opened(None, echo, warnings, {"name": target.name, "version": target.version})


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
