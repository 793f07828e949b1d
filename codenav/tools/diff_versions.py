"""diff_versions / ``codenav diff``: what changed between two versions of a target (SPEC §2.8).

Both versions are opened like any other target (cached, verified); the rows of their manifests
and search/diff.py do the rest, so files whose sha256 is equal are never read. MCP and
``--json`` page the result by file within the output budget (SPEC §5) with a cursor; plain CLI
output is the whole patch, which ``git apply`` accepts against the "from" tree.

Exit status: 0 on success whether or not the versions differ (``git diff`` without
``--exit-code``), 1 on an error.
"""

from __future__ import annotations

from ..errors import CodenavError, invalid
from ..grammar import DIFF
from ..targets import cli_target, validate_path
from . import _target, option_arguments

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from typing import Any, TextIO

NAME = "diff_versions"
COMMAND = "diff"
HELP = "show what changed between two versions of a package or two refs of a repository"
DESCRIPTION = (
    "Print the changes from version FROM to version TO of a package as a git-style patch.\n\n"
    "SPEC is REGISTRY:NAME without a version, e.g. npm:express. With --repo-url URL, FROM and TO are\n"
    "git refs. --from V / --to V give one version as an option (then only PATH_PREFIX may follow);\n"
    "TO left out means the latest version (or the default branch).\n\n"
    "Plain output is the whole patch, for `git apply`; --json pages it by file (see --cursor).\n"
    "Exit status: 0 whether or not the versions differ, 1 on an error."
)
ERROR_EXIT = 1
TARGET_VERSIONED = False  # its target names the package or repository; the versions come beside it
MAX_CONTEXT = 20
DEFAULT_CONTEXT = 3
_PACKAGE_KEYS = ("registry", "package_name", "from_version", "to_version")
_GIT_KEYS = ("repo_url", "from_ref", "to_ref")


def call(ns: Any, cli: Any) -> tuple[str, dict[str, Any]]:
    """The arguments of a ``diff`` command line: FROM and TO are versions, or refs after
    --repo-url; --from/--to give them as options. A summary view (--stat, …) is the CLI's own."""
    usage = DIFF.usage
    target, rest = cli_target(ns, list(ns.operands), usage)
    git = "repo_url" in target
    if "git_ref" in target:
        raise invalid("give the two refs as FROM_REF TO_REF (or --from/--to), not --git-ref", "git_ref")
    if "version" in target:
        raise invalid(f"give the versions after SPEC, not in it; usage: {usage}", "from_version")
    from_key, to_key = ("from_ref", "to_ref") if git else ("from_version", "to_version")
    if ns.from_ is not None or ns.to is not None:
        versions = [ns.from_, ns.to]
        names: tuple[str, ...] = ("PATH_PREFIX",)
    else:
        versions = []
        names = ("FROM", "TO", "PATH_PREFIX")
    if len(rest) > len(names) or len(rest) < len(names) - 1:
        raise invalid(f"expected {' '.join(names)} after the target; usage: {usage}",
                      from_key if len(names) == 3 and len(rest) < 2 else "path_prefix")
    versions = versions or rest[:2]
    prefix = rest[-1] if len(rest) == len(names) else None
    args = {key: target[key] for key in ("registry", "package_name", "artifact", "repo_url", "wait_timeout_ms",
                                         "project_dir")
            if key in target}
    for key, value in ((from_key, versions[0]), (to_key, versions[1])):
        if value is not None:
            args[key] = value
    if prefix is not None:
        args["path_prefix"] = prefix
    args.update(option_arguments(ns, DIFF))
    if ns.review:
        args["view"] = "review"
    if not ns.json:
        # MCP has no summary view: --verbose --stat is git's view under the TEXT header.
        cli.view = "stat" if ns.stat else "numstat" if ns.numstat else "name-only" if ns.name_only else None
    return NAME, args


def _sides(args: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The argument dicts of the two targets (SPEC §2.1's forms, one per side)."""
    has_package = any(args.get(k) is not None for k in _PACKAGE_KEYS)
    has_git = any(args.get(k) is not None for k in _GIT_KEYS)
    if has_package and has_git:
        raise invalid("give either registry + package_name + from_version (+ to_version) or "
                      "repo_url + from_ref (+ to_ref), not both", "repo_url")
    common = {k: args[k] for k in ("wait_timeout_ms",) if k in args}
    if has_git and args.get("artifact") is not None:
        raise invalid("artifact chooses a file of a registry release; a git target has none", "artifact")
    if has_git:
        if args.get("repo_url") is None:
            raise invalid("from_ref and to_ref need repo_url", "repo_url")
        if args.get("from_ref") is None:
            raise invalid("from_ref is required: the ref to compare from", "from_ref")
        base = {**common, "repo_url": args["repo_url"]}
        old = {**base, "git_ref": args["from_ref"]}
        new = {**base, "git_ref": args["to_ref"]} if args.get("to_ref") is not None else base
        return old, new
    if not has_package:
        raise invalid("name a target: registry + package_name + from_version, or repo_url + from_ref",
                      "package_name")
    base = {**common, "registry": args.get("registry"), "package_name": args.get("package_name"),
            **({"artifact": args["artifact"]} if args.get("artifact") is not None else {})}
    # from_version omitted: the version the project locks (SPEC §3.9), else the latest;
    # to_version omitted: the registry's latest, never the lockfile's.
    old = ({**base, "version": args["from_version"]} if args.get("from_version") is not None
           else {**base, **({"project_dir": args["project_dir"]} if "project_dir" in args else {})})
    new = {**base, "version": args["to_version"]} if args.get("to_version") is not None else {**base, "project_dir": ""}
    from ..targets import from_args

    for side, key in ((old, "from_version"), (new, "to_version")):
        try:
            from_args(side)
        except CodenavError as exc:
            if exc.details.get("field") != "version":
                raise
            # from_args knows one version; name the one of the two that is wrong.
            message = (exc.message.replace("version", key, 1) if exc.message.startswith("version")
                       else f"{key}: {exc.message}")
            raise invalid(message, key) from None
    return old, new


def _prefix(raw: Any) -> str:
    if raw is None:
        return ""
    if not isinstance(raw, str) or raw.startswith("/"):
        raise invalid("path_prefix must be a relative directory prefix such as 'lib' or 'src/utils'", "path_prefix")
    prefix = raw.rstrip("/")
    return validate_path(prefix, "path_prefix") if prefix else ""


def _rows(entry: Any) -> list[tuple[Any, ...]]:
    # The manifest records no file modes: every file is 100644 (docs/decisions.md).
    return [(r.path, r.size, r.sha256, r.binary, False, r.link) for r in entry.files()]


def run(args: dict[str, Any], cli: Any = None) -> dict[str, Any]:
    from ..search import diff

    context = args.get("context", DEFAULT_CONTEXT)
    if isinstance(context, bool) or not isinstance(context, int) or not 0 <= context <= MAX_CONTEXT:
        raise invalid(f"context must be an integer from 0 to {MAX_CONTEXT}", "context")
    prefix = _prefix(args.get("path_prefix"))
    path = validate_path(args["path"]) if args.get("path") is not None else None
    cursor = args.get("cursor")
    if cursor is not None and (not isinstance(cursor, str) or not cursor):
        raise invalid("cursor must be a string this tool gave out", "cursor")
    matcher = None
    if args.get("glob") is not None:
        from ..search.globs import GlobSet, check

        matcher = GlobSet(check(args["glob"])).includes
    old_args, new_args = _sides(args)
    if args.get("view", "patch") not in ("patch", "review"):
        raise invalid("view must be patch or review", "view")
    if args.get("view") == "review":
        return _review(args, old_args, new_args, cursor, cli)
    old, new = _target.open_entry(old_args), _target.open_entry(new_args)
    rows_a, rows_b = _rows(old), _rows(new)
    for side, rows in ((old, rows_a), (new, rows_b)):
        if side.ranged:  # no sha256 to compare by: the files in scope are fetched by range (bounded)
            from ..cache import lazy

            lazy.ensure(side, [r[0] for r in rows if (path is None or r[0] == path)
                               and (not prefix or r[0].startswith(prefix))
                               and (matcher is None or matcher(r[0]))], "this comparison")
    if path is not None and not any(r[0] == path for r in rows_a) and not any(r[0] == path for r in rows_b):
        raise CodenavError("FILE_NOT_FOUND", f"{path} is a file of neither version",
                           details={"filePath": path, "action": "list the files with list_files"})
    result = diff.diff_trees(rows_a, rows_b, lambda p: old.read(p)[1], lambda p: new.read(p)[1],
                             path_prefix=prefix,
                             path_filter=(lambda p: p == path) if path is not None else matcher,
                             context=context)
    shell: dict[str, Any] = {"from": old.target, "to": new.target, "summary": result["summary"]}
    filters = {key: value for key, value in (("pathPrefix", args.get("path_prefix")), ("glob", args.get("glob")),
                                             ("path", path), ("context", args.get("context"))) if value is not None}
    if filters:
        shell["filter"] = filters
    files = [_public(entry) for entry in result["files"]]
    if cli is not None and (cli.plain or cli.view):  # the CLI's whole patch (or a view of it), never paged
        if cursor is not None:
            files = diff.page(files, cursor, 1 << 62, 1 << 62)[0]
        return {**shell, "files": files, "hasMore": False}
    return _fit(shell, files, cursor)


def _review(args: dict[str, Any], old_args: dict[str, Any], new_args: dict[str, Any],
            cursor: str | None, cli: Any) -> dict[str, Any]:
    """view "review": the upgrade review of codenav/review/ (SPEC §2.8.1), paged like the patch."""
    from .. import review

    narrowed = [key for key in ("path_prefix", "path", "glob", "context") if args.get(key) is not None]
    if narrowed:
        raise invalid(f"{narrowed[0]} narrows the patch; a review covers the whole artifact", narrowed[0])
    old, new = _target.open_entry(old_args), _target.open_entry(new_args)
    parts, warnings = review.build(old, new)
    result = review.page({"from": old.target, "to": new.target}, parts, cursor,
                         whole=cli is not None and bool(cli.plain or cli.view))
    warnings = list(old.warnings) + [w for w in new.warnings if w not in old.warnings] + warnings
    if warnings:
        result["warnings"] = warnings
    return result


def _public(entry: dict[str, Any]) -> dict[str, Any]:
    item = {key: entry[key] for key in ("path", "status", "added", "removed", "binary", "patch")}
    for key in ("oldPath", "skipped"):
        if key in entry:
            item[key] = entry[key]
    return item


def _fit(shell: dict[str, Any], files: list[dict[str, Any]], cursor: str | None) -> dict[str, Any]:
    """The page of files after ``cursor`` whose whole envelope fits SPEC §5's budget."""
    from .. import budget
    from ..search import diff

    room = budget.BUDGET_BYTES - budget.json_size({**shell, "files": [], "hasMore": True,
                                                   "nextCursor": "x" * 40, "hint": _hint("x" * 40)})
    lines = budget.BUDGET_LINES - 20  # the envelope's own lines, when a client pretty-prints it

    def make(room: int) -> dict[str, Any]:
        chunk, after = diff.page(files, cursor, max(room, 256), lines)
        result: dict[str, Any] = {**shell, "files": chunk, "hasMore": after is not None}
        if after is not None:
            result["nextCursor"] = after
            result["hint"] = _hint(after)
        return result

    return budget.refit(make, room, floor=256)  # JSON escapes can make the patches longer than their text


def _hint(cursor: str) -> str:
    return f"more files changed: call again with the same arguments and cursor \"{cursor}\" for the next ones"


def exit_code(result: dict[str, Any]) -> int:
    return 0


def _numstat_path(item: dict[str, Any]) -> str:
    if "oldPath" not in item:
        return item["path"]
    return rename_label(item["oldPath"], item["path"])


def rename_label(old: str, new: str) -> str:
    """``old => new`` with the directories both share outside braces, as git's --stat shows it:
    ``lib/{a.js => b.js}``, ``{lib => src}/a.js``."""
    # The shared head ends at a '/'; the shared tail starts at one, and may reuse the head's '/'.
    head = 0
    for i, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            break
        if a == "/":
            head = i + 1
    tail = 0
    i, j = len(old), len(new)
    floor = head - 1 if head else 0
    while i >= floor and j >= floor:
        a = old[i] if i < len(old) else "\0"
        b = new[j] if j < len(new) else "\0"
        if a != b:
            break
        if a == "/":
            tail = len(old) - i
        i -= 1
        j -= 1
    mid_old = old[head:max(head, len(old) - tail)]
    mid_new = new[head:max(head, len(new) - tail)]
    if head + tail:
        return f"{old[:head]}{{{mid_old} => {mid_new}}}{old[len(old) - tail:]}"
    return f"{mid_old} => {mid_new}"


def _stat(files: list[dict[str, Any]], out: TextIO) -> None:
    if not files:
        return
    names = [_numstat_path(f) for f in files]
    counts = [None if f["added"] is None else f["added"] + f["removed"] for f in files]
    name_width = max(len(n) for n in names)
    count_width = max(len(str(c)) if c is not None else 3 for c in counts)
    widest = max((c for c in counts if c is not None), default=0)
    graph_room = max(10, 80 - name_width - count_width - 4)
    for item, name, count in zip(files, names, counts, strict=True):
        if count is None:
            out.write(f" {name:<{name_width}} | {'Bin':>{count_width}}\n")
            continue
        plus, minus = item["added"], item["removed"]
        if widest > graph_room:  # scaled as git does when the graph would not fit: never to zero
            plus = -(-plus * graph_room // widest) if plus else 0
            minus = -(-minus * graph_room // widest) if minus else 0
        graph = "+" * plus + "-" * minus
        out.write(f" {name:<{name_width}} | {count:>{count_width}}{' ' + graph if graph else ''}\n")
    added = sum(f["added"] or 0 for f in files)
    removed = sum(f["removed"] or 0 for f in files)
    parts = [f" {len(files)} file{'s' if len(files) != 1 else ''} changed"]
    if added or not removed:
        parts.append(f"{added} insertion{'s' if added != 1 else ''}(+)")
    if removed or not added:
        parts.append(f"{removed} deletion{'s' if removed != 1 else ''}(-)")
    out.write(", ".join(parts) + "\n")


def _view(result: dict[str, Any], view: str | None) -> str:
    """The files as git prints them: the patch, or one of its summary views."""
    from io import StringIO

    from ..search.diff import whole_patch

    files = result["files"]
    if view == "name-only":
        return "".join(f["path"] + "\n" for f in files)
    if view == "numstat":
        return "".join(("-\t-" if f["added"] is None else f"{f['added']}\t{f['removed']}") + f"\t{_numstat_path(f)}\n"
                       for f in files)
    if view == "stat":
        out = StringIO()
        _stat(files, out)
        return out.getvalue()
    return whole_patch(result)


def text(result: dict[str, Any], words: Any = None, view: str | None = None) -> str:
    """The TEXT answer (SPEC §4.4): the two targets and git's summary of every changed file,
    the page and the cursor for the rest, notes, then the page's patch as git prints it (or the
    CLI's summary ``view`` of it)."""
    from . import _answer

    if result.get("view") == "review":
        from ..review import review_text
        from ..words import for_mcp

        return review_text(result, words or for_mcp)
    summary = result["summary"]
    counts = ", ".join(f"{summary[key]} {word}" for key, word in (
        ("added", "added"), ("removed", "removed"), ("modified", "modified"), ("renamed", "renamed"),
        ("modeChanged", "mode changed"), ("binaryChanged", "binary"), ("notDiffed", "not diffed")) if summary.get(key))
    header = (f"{_answer.label(result['from'])} -> {_answer.label(result['to'])} · "
              f"{_answer.plural(summary['filesChanged'], 'file')} changed, +{summary['linesAdded']} "
              f"-{summary['linesRemoved']}" + (f" ({counts})" if counts else ""))
    if result.get("hasMore"):
        header += f" · {len(result['files'])} shown" + _answer.more(f"cursor={result['nextCursor']}", words)
    lines = _answer.notes(result, words, targets=("from", "to"))
    return _answer.join(header, lines, _view(result, view))


def render(result: dict[str, Any], out: TextIO, err: TextIO, view: str | None = None) -> None:
    """Plain output: the whole patch (``git apply`` reads it), or the summary ``view`` asked for; a
    review as its sections (its warnings are on stderr already)."""
    if result.get("view") == "review":
        from ..review import review_text
        from ..words import for_cli

        out.write(review_text({k: v for k, v in result.items() if k != "warnings"}, for_cli))
        return
    out.write(_view(result, view))

