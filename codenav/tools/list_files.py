"""list_files / ``codenav files``: the files of a target, sorted by path (SPEC §2.5)."""

from __future__ import annotations

from ..targets import path_prefix
from . import _target

TYPE_CHECKING = False  # annotations only: a warm call must not import typing
if TYPE_CHECKING:
    from typing import Any, TextIO

NAME = "list_files"
COMMAND = "files"
HELP = "list the files of a package or repository"
DESCRIPTION = (
    "List the files of a package or git repository, sorted by path.\n\n" + _target.SPEC_HELP + "\n\n"
    "PATH_PREFIX is a literal directory prefix, not a glob: 'lib' lists lib/..., '*.ts' matches nothing;\n"
    "--glob/-g GLOB (repeatable, ripgrep -g rules, !GLOB excludes) filters by glob."
)
ERROR_EXIT = 1
MAX_ENTRIES = 2000  # SPEC §5 budget for MCP and --json; plain output lists everything
_GLOB = set("*?[]{}")


def _globs(raw: Any) -> Any:
    """The GlobSet of the ``glob`` argument, or None."""
    if raw is None:
        return None
    from ..search.globs import GlobSet, check

    return GlobSet(check(raw))


def run(args: dict[str, Any], cli: Any = None) -> dict[str, Any]:
    prefix = path_prefix(args.get("path_prefix"))
    globs = _globs(args.get("glob"))
    entry = _target.open_entry(args, cli)
    # Plain output is for pipes: never cut (the budget is for MCP, --json and --verbose), and it
    # prints the paths and nothing else of a row.
    plain = cli is not None and cli.plain
    listing = entry.listing() if plain else None
    if listing is not None:
        # For the CLI's notes only (this result never becomes JSON): no manifest is decoded.
        return _target.with_warnings({**_paths_only(listing, prefix, globs),
                                      "target": {**entry.request, **entry.echo}}, entry)
    rows = entry.files()
    if prefix:
        with_slash = prefix + "/"
        rows = [r for r in rows if r.path == prefix or r.path.startswith(with_slash)]
    if globs is not None:
        rows = [r for r in rows if globs.includes(r.path)]
    total = len(rows)
    cut = not plain and total > MAX_ENTRIES
    shown = rows[:MAX_ENTRIES] if cut else rows
    files = []
    for row in shown:
        item = {"path": row.path, "size": row.size, "language": row.language, "fileType": row.file_type}
        if row.link is not None:
            item["linkTarget"] = row.link
        if row.skipped is not None:
            item["skipped"] = row.skipped
        files.append(item)
    result: dict[str, Any] = {"target": entry.target, "files": files, "totalFiles": total, "hasMore": cut}
    given = {"pathPrefix": args.get("path_prefix"), "glob": args.get("glob")}
    if any(value is not None for value in given.values()):
        result["filter"] = {key: value for key, value in given.items() if value is not None}
    skipped = entry.manifest.get("skipped") or []
    result = _notes(result, rows, cut, prefix, len(skipped), skipped[:5])
    large = sum(1 for r in rows if r.skipped is not None)
    if large:
        note = (f"{large} file{'s are' if large != 1 else ' is'} over the per-file limit and listed but not stored "
                f"(skipped: too large); raise CODENAV_MAX_FILE_BYTES and index again to read "
                f"{'them' if large != 1 else 'it'}")
        result["hint"] = f"{result['hint']} {note}" if result.get("hint") else note
    return _target.with_warnings(result, entry)


def _paths_only(listing: tuple[str, int, int], prefix: str | None, globs: Any = None) -> dict[str, Any]:
    """The plain listing from the entry's listing file: ``paths`` is the text to print, so a
    20,000-file tree is listed without decoding its manifest (bench/, SPEC §3 manifest)."""
    text, total, skipped = listing
    if prefix or globs is not None:
        with_slash = (prefix or "") + "/"
        paths = [p for p in text.split("\n")[:-1]
                 if (not prefix or p == prefix or p.startswith(with_slash)) and (globs is None or globs.includes(p))]
        text, total = "".join(p + "\n" for p in paths), len(paths)
    return _notes({"paths": text, "totalFiles": total, "hasMore": False}, [], False, prefix, skipped, [])


def _notes(result: dict[str, Any], rows: list[list], cut: bool, prefix: str | None, skipped: int,
           examples: list) -> dict[str, Any]:
    """The hints and the skipped-entries note of a listing."""
    total = result["totalFiles"]
    hints = []
    if cut:
        hints.append(f"showing {MAX_ENTRIES} of {total} files; narrow the listing with a path_prefix such as "
                     f"{_top_dirs(rows)}")
    if total == 0 and prefix and _GLOB & set(prefix):
        hints.append("path_prefix is a literal directory prefix, not a glob: pass the pattern as glob (CLI: "
                     "--glob), or give a folder such as 'lib'")
    elif total == 0 and prefix:
        hints.append(f"no file under {prefix!r}; list without a path_prefix to see the top-level folders")
    if skipped and not prefix:
        result["skipped"] = {"count": skipped, "examples": examples}
    if hints:
        result["hint"] = " ".join(hints)
    return result


def _top_dirs(rows: list[list]) -> str:
    dirs = sorted({r.path.split("/", 1)[0] for r in rows if "/" in r.path})[:5]
    return ", ".join(repr(d) for d in dirs) or "a folder name"


def exit_code(result: dict[str, Any]) -> int:
    return 0


def _skipped_note(skipped: dict[str, Any]) -> str:
    examples = ", ".join(f"{e['path']} ({e['reason']})" for e in skipped.get("examples", ()))
    return (f"note: {skipped['count']} archive entries were skipped (unsafe or unaddressable names)"
            + (f", e.g. {examples}" if examples else ""))


def text(result: dict[str, Any], words: Any = None) -> str:
    """The TEXT answer (SPEC §4.4): header with the count, notes, then one path per line (a
    symlink's target and a file not stored are said beside it)."""
    from . import _answer

    # The filter is the caller's own and every path shows it: not repeated here.
    header = f"{_answer.target_label(result['target'])} · {_answer.plural(result['totalFiles'], 'file')}"
    if result["hasMore"]:
        header += f" · first {len(result['files'])} shown"
    lines = _answer.notes(result, words)
    if result.get("skipped"):
        lines.append(_skipped_note(result["skipped"]))
    body = []
    for f in result["files"]:
        extra = f" -> {f['linkTarget']}" if "linkTarget" in f else ""
        if "skipped" in f:
            extra += f" (not stored: {f['skipped']}, {f['size']} bytes)"
        body.append(f"{f['path']}{extra}\n")
    return _answer.join(header, lines, "".join(body))


def render(result: dict[str, Any], out: TextIO, err: TextIO) -> None:
    """Plain output: every path, one per line; notes on stderr."""
    if "paths" in result:  # from the listing file (a plain run)
        out.write(result["paths"])
    for f in result.get("files", ()):
        out.write(f["path"] + "\n")
    if result.get("hint"):
        from ..words import for_cli

        err.write(f"codenav: {for_cli(result['hint'])}\n")
    if result.get("skipped"):
        err.write(f"codenav: {result['skipped']['count']} archive entries were skipped (unsafe or unaddressable names)\n")
