"""list_deps / ``codenav deps``: what the project locks, every ecosystem at once (issue 23 item 2).

``run(args)`` reads the project's lockfiles through ``lockfiles.project`` and answers
``{dependencies, lockfiles, totalDirect, totalLocked, all, hasMore, nextCursor?, hint?,
warnings?}``: one row per locked registry package (``registry``, ``name``, ``version``,
``direct``, the ``file`` that states the version relative to the project directory, as
``versionSource`` says it, and its ``entry``), direct dependencies only unless ``all``. Rows
come in the table's registry order, then by name and version, so a ``cursor`` (an offset into
that order) pages through a long ``all`` listing without a gap or a repeat while the
lockfiles do not change. Plain CLI output is one ``REGISTRY:NAME@VERSION`` per line, ready
for ``codenav read``; the lockfiles read are named on stderr.
"""

from __future__ import annotations

from ..errors import invalid

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from typing import Any, TextIO

NAME = "list_deps"
COMMAND = "deps"
HELP = "list what the project locks, one REGISTRY:NAME@VERSION per line"
DESCRIPTION = (
    "List the packages the project's lockfiles pin, for every ecosystem (package-lock.json, uv.lock,\n"
    "Cargo.lock, go.mod, Gemfile.lock, composer.lock, mix.lock, packages.lock.json, pom.xml, …),\n"
    "one REGISTRY:NAME@VERSION per line: direct dependencies, or every locked package with --all."
)
ERROR_EXIT = 1
_ROOM = 600  # bytes kept for the hint and cursor when a page is fitted to the budget


def _offset(cursor: Any) -> int:
    if cursor is None:
        return 0
    if not isinstance(cursor, str) or not cursor.isdigit() or len(cursor) > 9:
        raise invalid("cursor must be the nextCursor of a previous list_deps answer", "cursor")
    return int(cursor)


def run(args: dict[str, Any], cli: Any = None) -> dict[str, Any]:
    from ..lockfiles.project import locked_dependencies
    from ..targets import project_dir

    every = bool(args.get("all"))
    offset = _offset(args.get("cursor"))
    locks = locked_dependencies(project_dir(args))
    chosen = [d for d in locks.dependencies if every or d.direct]
    rows = [{"registry": d.registry, "name": d.name, "version": d.version, "direct": d.direct, "file": d.file,
             "entry": d.entry} for d in chosen]
    result: dict[str, Any] = {
        "dependencies": rows[offset:], "all": every, "hasMore": False,
        "lockfiles": [{"registry": r, "file": f} for r, f in locks.lockfiles],
        "totalDirect": sum(1 for d in locks.dependencies if d.direct), "totalLocked": len(locks.dependencies),
    }
    if cli is None or not cli.plain:  # plain output is for pipes: never cut
        result = _fit(result, offset)
    if not locks.lockfiles:
        result["hint"] = ("no lockfile found from the project directory up to the project root (a directory holding "
                          ".git); pass project_dir (CLI: --project DIR) to name the project")
    if locks.warnings:
        result["warnings"] = list(locks.warnings)
    return result


def _fit(result: dict[str, Any], offset: int) -> dict[str, Any]:
    """The leading rows that fit the output budget (SPEC §5), with the cursor that continues."""
    from .. import budget
    rows = result["dependencies"]
    room = budget.BUDGET_BYTES - _ROOM
    if budget.json_size(result) <= room and len(rows) < budget.BUDGET_LINES:
        return result
    keep = len(budget.fit_rows({**result, "dependencies": []}, rows, room=room, max_lines=budget.BUDGET_LINES - 1))
    shown = {**result, "dependencies": rows[:keep], "hasMore": True, "nextCursor": str(offset + keep)}
    shown["hint"] = (f"showing {keep} of {len(rows)} from row {offset + 1}; pass cursor "
                     f"{offset + keep} for the next page (CLI plain output lists every one)")
    return shown


def exit_code(result: dict[str, Any]) -> int:
    return 0


def _header(result: dict[str, Any], words: Any) -> str:
    from . import _answer

    by_registry: dict[str, int] = {}
    for row in result["dependencies"]:
        by_registry[row["registry"]] = by_registry.get(row["registry"], 0) + 1
    files = ", ".join(f"{r['file']}" for r in result["lockfiles"]) or "no lockfile"
    counts = ", ".join(f"{r} {n}" for r, n in by_registry.items())
    if result["all"]:
        what = f"{result['totalLocked']} locked, {result['totalDirect']} direct"
        rest = ""
    else:
        what = f"{result['totalDirect']} direct"
        rest = f"; all {result['totalLocked']}: pass {_answer.say('all=true', words)}" if result["totalLocked"] > result["totalDirect"] else ""
    header = f"deps from {files}: {what}{f' ({counts})' if counts else ''}{rest}"
    if result.get("nextCursor"):
        header += _answer.more(f"cursor={result['nextCursor']}", words)
    return header


def text(result: dict[str, Any], words: Any = None) -> str:
    """The TEXT answer (SPEC §4.4; also ``--verbose``): a header with the totals, warnings, then
    one SPEC a line."""
    from . import _answer

    body = "".join(f"{r['registry']}:{r['name']}@{r['version']}\n" for r in result["dependencies"])
    return _answer.join(_header(result, words), _answer.notes(result, words), body)


def render(result: dict[str, Any], out: TextIO, err: TextIO) -> None:
    """Plain output: one SPEC a line on stdout, the lockfiles read (or the hint) on stderr."""
    files = ", ".join(r["file"] for r in result["lockfiles"])
    if files:
        err.write(f"codenav: read {files}\n")
    elif result.get("hint"):
        from ..words import for_cli

        err.write(f"codenav: {for_cli(result['hint'])}\n")
    for r in result["dependencies"]:
        out.write(f"{r['registry']}:{r['name']}@{r['version']}\n")
