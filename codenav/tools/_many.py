"""What grep_repo and search_symbols share when they search several targets (SPEC §2.12).

``targets`` (a list of target strings, at most ``MAX_TARGETS``) or ``deps`` (``"direct"`` or
``"all"``: the packages the project's lockfiles pin, lockfiles/project.py) stands in place of
the one target. ``target_args`` turns either into one argument dict per target (before any
download: a malformed string is INVALID_ARGUMENT for the whole call); ``open_all`` opens them,
warm ones in this thread and cold ones concurrently (``CODENAV_FETCH_CONCURRENCY``, default 8),
and sets a target that fails aside as a ``skippedTargets`` row (its target string, code,
message, whether a retry can help) — the call fails only when every target does.

Order is the targets' as given (``deps``: the lockfile table's order, then name and version),
each target once: the tools search them in that order, so one cursor (the target's index and
that target's own cursor) pages through the union without a gap or a repeat.
"""

from __future__ import annotations

from ..errors import CodenavError, invalid

TYPE_CHECKING = False  # annotations only: a warm call must not import typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ._target import Opened

MAX_TARGETS = 50
DEFAULT_CONCURRENCY = 8
CONCURRENCY_VARIABLE = "CODENAV_FETCH_CONCURRENCY"
DEPS = ("direct", "all")
# The one-target fields ``targets`` and ``deps`` replace: giving both is a mistake.
SINGLE_FIELDS = ("target", "registry", "package_name", "version", "artifact", "repo_url", "git_ref")


def requested(args: dict[str, Any]) -> bool:
    """Whether ``args`` name several targets (``targets`` or ``deps``) instead of one."""
    return args.get("targets") is not None or args.get("deps") is not None


def target_args(args: dict[str, Any]) -> list[dict[str, Any]]:
    """One argument dict per target (the seed's fields, plus the shared ``wait_timeout_ms`` and
    ``project_dir``), each target once, in order; INVALID_ARGUMENT before any download."""
    from ..targets import parse_target

    many, deps = args.get("targets"), args.get("deps")
    key = "targets" if many is not None else "deps"
    if many is not None and deps is not None:
        raise invalid("give targets or deps, not both", "deps")
    given = [field for field in SINGLE_FIELDS if args.get(field) is not None]
    if given:
        raise invalid(f"give {key} or {given[0]}, not both: {key} stands in place of the one target", key)
    shared = {k: args[k] for k in ("wait_timeout_ms", "project_dir") if args.get(k) is not None}
    if deps is not None:
        items = _locked(deps, args)
    else:
        if (not isinstance(many, list) or not many or len(many) > MAX_TARGETS
                or not all(isinstance(t, str) for t in many)):
            raise invalid(f"targets must be a list of 1 to {MAX_TARGETS} target strings such as "
                          "'npm:express@4.21.2'", "targets")
        items = []
        for text in many:
            try:
                items.append(parse_target(text))
            except CodenavError as exc:
                raise invalid(f"targets: {exc.message}", "targets", target=text) from None
    seen: set[tuple] = set()
    unique = []
    for item in items:
        mark = tuple(sorted(item.items()))
        if mark not in seen:
            seen.add(mark)
            unique.append({**item, **shared})
    return unique


def _locked(deps: Any, args: dict[str, Any]) -> list[dict[str, Any]]:
    """The project's locked packages as target fields: direct dependencies, or ``all``."""
    if deps not in DEPS:
        raise invalid("deps must be 'direct' (the project's direct dependencies) or 'all' (every locked package)",
                      "deps")
    from ..lockfiles.project import locked_dependencies
    from ..targets import project_dir

    start = project_dir(args)
    locks = locked_dependencies(start)
    chosen = [d for d in locks.dependencies if deps == "all" or d.direct]
    if not chosen:
        found = ", ".join(f for _, f in locks.lockfiles)
        why = f"{found} lock no {'package' if deps == 'all' else 'direct dependency'}" if found else (
            "no lockfile was found from the project directory up to the project root (a directory holding .git)")
        raise invalid(f"deps={deps}: {why}; pass project_dir (CLI: --project DIR) to name the project, or targets",
                      "deps")
    return [{"registry": d.registry, "package_name": d.name, "version": d.version} for d in chosen]


def cli_arguments(ns: Any, command: Any) -> dict[str, Any]:
    """The target part of a command line that names several targets, and its operands: PATTERN
    or QUERY, then the project DIR (--deps, --all-deps: ``rg PATTERN DIR`` names where to look)
    or PATH_PREFIX (--target). The other options are read as for one target."""
    from ..targets import cli_int

    deps = "all" if getattr(ns, "all_deps", False) else "direct" if getattr(ns, "deps", False) else None
    if deps is not None and getattr(ns, "target", None):
        raise invalid("give --target or --deps/--all-deps, not both", "deps")
    if getattr(ns, "deps", False) and getattr(ns, "all_deps", False):
        raise invalid("give --deps or --all-deps, not both", "deps")
    for flag, dest in (("--repo-url", "repo_url"), ("--git-ref", "git_ref"), ("--artifact", "artifact"),
                       ("--no-project", "no_project")):
        if getattr(ns, dest, None) not in (None, False):
            raise invalid(f"{flag} names one target; with --target, --deps or --all-deps give each as a SPEC",
                          dest)
    first, second = command.operands[0], command.operands[-1]
    operands = list(ns.operands)
    if not 1 <= len(operands) <= 2:
        usage = f"codenav {command.name} --target SPEC... | --deps | --all-deps {first.metavar} [DIR|PATH_PREFIX]"
        raise invalid(f"expected {first.metavar} and at most one DIR or PATH_PREFIX after it; usage: {usage}",
                      first.argument)
    args: dict[str, Any] = {first.argument: operands[0]}
    if ns.wait is not None:
        args["wait_timeout_ms"] = cli_int(ns.wait, "--wait", "wait_timeout_ms")
    if getattr(ns, "project", None) is not None:
        args["project_dir"] = ns.project
    if len(operands) == 2:
        if deps is None:
            args[second.argument] = operands[1]
        elif "project_dir" in args:
            raise invalid("give the project as DIR or --project DIR, not both", "project_dir")
        else:
            args["project_dir"] = operands[1]
    if deps is not None:
        args["deps"] = deps
    return args


def concurrency() -> int:
    """How many cold targets are fetched at once (``CODENAV_FETCH_CONCURRENCY``, 1 to 64)."""
    import os

    try:
        value = int(os.environ.get(CONCURRENCY_VARIABLE, DEFAULT_CONCURRENCY))
    except ValueError:
        return DEFAULT_CONCURRENCY
    return min(max(value, 1), 64)


def open_all(items: list[dict[str, Any]], progress: bool = False) -> tuple[list[Opened], list[dict[str, Any]]]:
    """(the opened targets, in order; the ``skippedTargets`` rows of those that failed).

    A target the cache holds opens here at once; the others are opened by a pool of threads
    (each waits on its indexer process), ``progress`` drawing one line on stderr meanwhile.
    Every target failing raises the first one's error, naming all of them.
    """
    from ..cache.aliases import hold_endpoints

    with hold_endpoints():  # each registry's endpoint read once for all the targets
        return _open_all(items, progress)


def _open_all(items: list[dict[str, Any]], progress: bool) -> tuple[list[Opened], list[dict[str, Any]]]:
    outcomes = _open_warm(items)
    cold = [index for index, outcome in enumerate(outcomes) if outcome is None]
    if cold:
        _open_cold(items, cold, outcomes, progress)
    opened, skipped = [], []
    for item, outcome in zip(items, outcomes, strict=True):
        if isinstance(outcome, CodenavError):
            skipped.append({"target": _spelled(item), "code": outcome.code, "message": outcome.message,
                            "retryable": outcome.retryable})
        else:
            opened.append(outcome)
    if not opened:
        first = next(o for o in outcomes if isinstance(o, CodenavError))
        if len(skipped) == 1:
            raise first
        raise CodenavError(first.code, f"none of the {len(skipped)} targets could be searched: "
                           + "; ".join(f"{s['target']}: {s['code']}" for s in skipped),
                           retryable=any(s["retryable"] for s in skipped), details={"skippedTargets": skipped})
    return opened, skipped


def _open_warm(items: list[dict[str, Any]]) -> list[Any]:
    """Each target opened as ``_target.open_warm`` opens it (None: not cached; a CodenavError),
    its entry from the record of the last call that opened these same targets when there is
    one still valid (cache/openings.py), and such a record written when every target opened."""
    from ..cache import aliases, openings
    from . import _target

    before = openings.stamp()  # aliases/ as it was before any alias was read
    requests: list[Any] = []
    names: list[tuple[str, float | None] | None] = []  # (alias, how long it is kept) of each package
    for item in items:
        try:
            target, opened = _target.request(item)
            name = aliases.alias_of(target) if opened is not None else None
        except CodenavError as exc:
            requests.append(exc)
            names.append(None)
            continue
        requests.append((target, opened))
        names.append(name)
    forever = [name[0] for name in names if name is not None and name[1] is None]
    recordable = len(forever) == len(items)
    recalled = openings.recall(forever) if recordable else None
    outcomes: list[Any] = []
    for index, request in enumerate(requests):
        if isinstance(request, CodenavError):
            outcomes.append(request)
            continue
        opened = request[1]
        if opened is not None:  # a package (a git target's ref is resolved by the cold path)
            opened.entry = recalled[index] if recalled is not None else aliases.read_alias(names[index][0])
        outcomes.append(opened if opened is not None and opened.entry is not None else None)
    if recordable and recalled is None and all(o is not None and not isinstance(o, CodenavError) for o in outcomes):
        openings.keep(forever, [o.entry for o in outcomes], before)
    return outcomes


def _open_cold(items: list[dict[str, Any]], cold: list[int], outcomes: list[Any], progress: bool) -> None:
    from concurrent.futures import ThreadPoolExecutor, as_completed

    from ..cache import many
    from . import _target

    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress:
            _progress(f"fetched {min(done, len(cold))} of {len(cold)} targets not yet cached")

    if many.possible():  # the CLI: its indexers forked side by side (cache/many.py), the rest below
        cold = _index_forked(items, cold, outcomes, lambda jobs, wait: many.index(jobs, wait, concurrency(), tick))
    elif len(cold) > 1:  # the MCP server, with threads: a helper process forks them for it
        cold = _index_forked(items, cold, outcomes, lambda jobs, wait: many.index_elsewhere(jobs, wait, concurrency()))

    def one(index: int) -> Any:
        try:
            return _target.open_entry(items[index])
        except CodenavError as exc:
            return exc
        except Exception as exc:  # a bug opening one target: that target's INTERNAL row, not the call's
            from ..errors import internal

            return internal(exc)

    if cold:
        with ThreadPoolExecutor(max_workers=min(concurrency(), len(cold)), thread_name_prefix="codenav-fetch") as pool:
            futures = {pool.submit(one, index): index for index in cold}
            for future in as_completed(futures):
                outcomes[futures[future]] = future.result()
                tick()
    if progress:
        _progress("")


def _index_forked(items: list[dict[str, Any]], cold: list[int], outcomes: list[Any],
                  run: Callable[[list[dict[str, Any]], int], dict[int, CodenavError]]) -> list[int]:
    """Index the cold packages by forked indexers (``run(jobs, wait_ms)``: cache/many.py); the
    positions still to open the threaded way (a git target, one another process indexes, one
    whose indexer left no entry nor failure, one past the wait)."""
    from ..cache.open import package_job
    from ..targets import wait_ms
    from . import _target

    packages = [index for index in cold if "repo_url" not in items[index]]
    jobs = [package_job(_target.target_of(items[index])) for index in packages]
    failed = run(jobs, wait_ms(items[packages[0]])) if packages else {}
    left = [index for index in cold if index not in packages]
    for position, index in enumerate(packages):
        if position in failed:
            outcomes[index] = failed[position]
            continue
        try:
            outcomes[index] = _target.open_warm(items[index])
        except CodenavError as exc:
            outcomes[index] = exc
        if outcomes[index] is None:
            left.append(index)
    return sorted(left)


def _progress(line: str) -> None:
    import sys

    sys.stderr.write("\r\x1b[2K" + (f"codenav: {line}" if line else ""))
    sys.stderr.flush()


def _spelled(item: dict[str, Any]) -> str:
    """A target's fields as the target string a caller gave or would give."""
    if "repo_url" in item:
        return f"git:{item['repo_url']}" + (f"#{item['git_ref']}" if item.get("git_ref") else "")
    return f"{item['registry']}:{item['package_name']}" + (f"@{item['version']}" if item.get("version") else "")


def labels(opened: list[Opened]) -> list[str]:
    """Each opened target as the target string read_file takes, resolved version included."""
    from ._answer import label

    # A package's alias names it (cache/aliases.py): no manifest read per target.
    return [label(o.entry.named or o.target) for o in opened]


def warnings(opened: list[Opened]) -> list[str]:
    """The targets' warnings, each once, in order."""
    out: list[str] = []
    for o in opened:
        out.extend(w for w in o.warnings if w not in out)
    return out


# --- the answer ---------------------------------------------------------------------------------

def summary(result: dict[str, Any]) -> str:
    """The header's opening: what was searched (the one target's string when there is one)."""
    from ._answer import plural

    searched = result["targets"]
    text = searched[0] if len(searched) == 1 else plural(len(searched), "target")
    if result["skippedTargets"]:
        text += f" ({len(result['skippedTargets'])} skipped)"
    return text


def skipped_lines(result: dict[str, Any]) -> list[str]:
    """One line per target that could not be searched: its string, the error code and message."""
    return [f"skipped {s['target']}: {s['code']}: {s['message']}" + (" (a retry may help)" if s["retryable"] else "")
            for s in result.get("skippedTargets") or ()]


def render_skipped(result: dict[str, Any], err: Any) -> None:
    """The plain CLI's stderr lines for the targets that could not be searched."""
    for line in skipped_lines(result):
        err.write(f"codenav: {line}\n")


# --- one cursor across the targets ---------------------------------------------------------------

def encode_cursor(fingerprint: str, index: int, inner: str) -> str:
    """The cursor that continues at target ``index`` with that target's own cursor ``inner``
    (``m<index>.<fingerprint>.<inner>``: the inner cursor is URL-safe already)."""
    return f"m{index}.{fingerprint}.{inner}"


def decode_cursor(cursor: str, fingerprint: str, count: int) -> tuple[int, str]:
    """(target index, that target's cursor) of a cursor this search issued, or INVALID_ARGUMENT."""
    index, mark, inner = (cursor[1:].split(".", 2) + ["", ""])[:3] if cursor.startswith("m") else ("", "", "")
    if not index.isdigit() or len(index) > 3 or mark != fingerprint or not inner or int(index) >= count:
        raise invalid("cursor is not one this search returned; repeat the search without it", "cursor")
    return int(index), inner


def fingerprint(opened: list[Opened], *parts: Any) -> str:
    """What a cursor of a search over ``opened`` is tied to: the targets, in order, and ``parts``."""
    from ..paths import short_hash

    return short_hash(repr([o.key for o in opened] + list(parts)))[:12]
