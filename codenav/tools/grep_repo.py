"""grep_repo / ``codenav grep`` without a file: search every text file of a target.

The engine is ``search/grep.py``; this module checks the arguments, picks the files in scope
(``path_prefix``, ``glob``; binaries and files over the size limit are counted, not read),
and shapes the envelope. The ``grep`` command is grep_file's adapter, which routes here
(``_grep.route``); the plain output is rg's: ``path:line:text``, every match, unpaged.
"""

from __future__ import annotations

from ..budget import BUDGET_BYTES, BUDGET_LINES
from ..errors import invalid
from ..paths import short_hash
from . import _many, _target

TYPE_CHECKING = False  # annotations only: a warm call must not import typing
if TYPE_CHECKING:
    from typing import Any, TextIO

NAME = "grep_repo"
COMMAND = "grep"
HELP = "search every file of a package or repository (literal or Python regex)"
ERROR_EXIT = 2
MAX_CONTEXT = 10
DEFAULT_MATCHES = 50
MAX_MATCHES = 1000
_BOOLEANS = ("regex", "case_sensitive", "whole_words")
_FILTER_KEYS = {"regex": "regex", "case_sensitive": "caseSensitive", "whole_words": "wholeWords",
                "path_prefix": "pathPrefix", "glob": "glob", "context": "context", "max_matches": "maxMatches",
                "max_matches_per_file": "maxMatchesPerFile"}


def _int(args: dict[str, Any], key: str, low: int, high: int | None, default: int | None) -> int | None:
    value = args.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bounds = f"from {low} to {high}" if high is not None else f"of {low} or more"
        raise invalid(f"{key} must be an integer {bounds}", key)
    return value


def _check(args: dict[str, Any]) -> dict[str, Any]:
    """The search options, or INVALID_ARGUMENT naming the field; before any download."""
    from ._grep import check_pattern

    pattern = check_pattern(args.get("pattern"))
    for key in _BOOLEANS:
        if not isinstance(args.get(key, False), bool):
            raise invalid(f"{key} must be true or false", key)
    options = {"pattern": pattern, **{key: bool(args.get(key, False)) for key in _BOOLEANS}}
    if options["regex"]:
        from ..search.grep import compile_regex

        compile_regex(pattern, options["case_sensitive"], options["whole_words"])
    from ..targets import path_prefix

    options["path_prefix"] = path_prefix(args.get("path_prefix"))
    globs = args.get("glob")
    if globs is not None:
        from ..search.globs import check

        globs = check(globs)
    options["glob"] = globs or []
    options["context"] = _int(args, "context", 0, MAX_CONTEXT, 0)
    options["max_matches"] = _int(args, "max_matches", 1, MAX_MATCHES, DEFAULT_MATCHES)
    options["max_matches_per_file"] = _int(args, "max_matches_per_file", 1, None, None)
    cursor = args.get("cursor")
    if cursor is not None and (not isinstance(cursor, str) or not cursor):
        raise invalid("cursor must be the nextCursor string of an earlier result", "cursor")
    return options


def _scope(searchable: tuple[list[list], list[str], list[str]], options: dict[str, Any]) -> tuple[list[list], int, int]:
    """(the text files to search as [path, size], binaries in scope, files over a size limit:
    the search's, or the per-file limit at indexing that kept them out of the tree), from the
    entry's list of text and binary files (store.Entry.searchable: no manifest rows decoded,
    no binary opened)."""
    from ..search.grep import max_file_bytes

    files, binaries, not_stored = searchable
    prefix = options["path_prefix"]
    if prefix:
        with_slash = prefix + "/"
        files = [f for f in files if f[0] == prefix or f[0].startswith(with_slash)]
        binaries = [p for p in binaries if p == prefix or p.startswith(with_slash)]
        not_stored = [p for p in not_stored if p == prefix or p.startswith(with_slash)]
    if options["glob"]:
        from ..search.globs import GlobSet

        matcher = GlobSet(options["glob"])
        files = [f for f in files if matcher.includes(f[0])]
        binaries = [p for p in binaries if matcher.includes(p)]
        not_stored = [p for p in not_stored if matcher.includes(p)]
    limit = max_file_bytes()
    searched = [f for f in files if f[1] <= limit]
    return searched, len(binaries), len(files) - len(searched) + len(not_stored)


def run(args: dict[str, Any], cli: Any = None) -> dict[str, Any]:
    import time

    from ..search import grep

    options = _check(args)
    if _many.requested(args):
        return _run_many(args, options, cli)
    entry = _target.open_entry(args, cli)
    listed = entry.searchable()
    files, binary, large = _scope(listed, options)
    if entry.ranged:  # the members in scope, fetched by range first (bounded: cache/lazy.py)
        from ..cache import lazy

        lazy.ensure(entry, [f[0] for f in files], "this search")
    # A cursor belongs to one search: the target and what decides which lines match (not the
    # page size or the context, which a caller may change between pages).
    fingerprint = short_hash(repr([entry.key] + [options[k] for k in (
        "pattern", "regex", "case_sensitive", "whole_words", "path_prefix", "glob", "max_matches_per_file")]))[:12]
    start = None
    if args.get("cursor") is not None:
        path, line, offset, shown = grep.decode_cursor(args["cursor"], fingerprint)
        index = next((i for i, f in enumerate(files) if f[0] == path), None)
        if index is None:
            raise invalid("cursor is not one this search returned; repeat the search without it", "cursor")
        start = (index, line, offset, shown)
    unbounded = cli is not None and cli.plain  # plain output is rg's: every match, whole lines
    plain = None
    if unbounded and cli.from_bytes and start is None:  # every match, printed from the bytes
        found, plain = _plain_search(entry, listed[0], files, options, time.monotonic() + grep.timeout())
    else:
        found = grep.search(
            entry.path + "/tree", files, options, start=start,
            max_matches=args.get("max_matches") if unbounded else options["max_matches"],
            cap=options["max_matches_per_file"], context=options["context"],
            window=cli.max_columns if unbounded else grep.WINDOW,
            deadline=time.monotonic() + grep.timeout(),
            encode=lambda *where: grep.encode_cursor(fingerprint, *where),
            budget=None if unbounded else BUDGET_BYTES - 2048,
            line_budget=None if unbounded else BUDGET_LINES - 50,
        )
    result: dict[str, Any] = {"target": entry.target, "pattern": options["pattern"]}
    given = {_FILTER_KEYS[k]: args[k] for k in _FILTER_KEYS if args.get(k) is not None}
    if given:
        result["filter"] = given
    result.update(found)
    result["binaryFilesSkipped"] = binary
    result["largeFilesSkipped"] = large
    hint = _hint(result, options, grep.max_file_bytes(), unbounded)
    if hint:
        result["hint"] = hint
    if plain is not None:
        cli.output = plain  # the CLI's output, already made (cli.py writes it before render)
    return _target.with_warnings(result, entry)


def _plain_search(entry: Any, listed: list[list], files: list[list], options: dict[str, Any],
                  deadline: float) -> tuple[dict[str, Any], bytes]:
    """The plain CLI's search of ``files`` (of ``listed``, the entry's text files), with the line
    marks of its big files (search/marks.py) when one is in scope and the pack of its small ones
    (search/pack.py) when the entry has one; a ranged entry has neither."""
    from ..search import pack
    from ..search import plain as plain_grep
    from ..search.grep import MARK_STEP

    marks = None
    if not entry.ranged and any(size >= 2 * MARK_STEP for _, size in files):
        from ..search import marks as line_marks  # only for a big file in scope

        marks = line_marks.load(entry)
    return plain_grep.search(entry.path + "/tree", files, options, deadline, marks=marks,
                             pack=None if entry.ranged else pack.load(entry, listed))


def _run_many(args: dict[str, Any], options: dict[str, Any], cli: Any) -> dict[str, Any]:
    """grep_repo over several targets (tools/_many.py): each searched in turn, as one search
    would search them, with exact totals over all and one cursor across them (SPEC §2.12)."""
    import sys
    import time

    from ..search import grep

    items = _many.target_args(args)  # before any download
    progress = cli is not None and sys.stderr.isatty()
    opened, skipped = _many.open_all(items, progress)
    specs = _many.labels(opened)
    keys = [options[k] for k in ("pattern", "regex", "case_sensitive", "whole_words", "path_prefix", "glob",
                                 "max_matches_per_file")]
    fingerprint = _many.fingerprint(opened, *keys)
    first, inner = 0, None
    if args.get("cursor") is not None:
        first, inner = _many.decode_cursor(args["cursor"], fingerprint, len(opened))
    unbounded = cli is not None and cli.plain
    room = args.get("max_matches") if unbounded else options["max_matches"]
    budget, lines_left = (None, None) if unbounded else (BUDGET_BYTES - 4096 - budget_of(specs, skipped),
                                                        BUDGET_LINES - 50 - len(skipped))
    deadline = time.monotonic() + grep.timeout()
    totals = {"totalMatches": 0, "filesMatched": 0, "filesScanned": 0}
    files_out: list[dict[str, Any]] = []
    plain: list[bytes] = []
    binary = large = 0
    cursor = reason = None
    for index, (entry, spec) in enumerate(zip(opened, specs, strict=True)):
        listed = entry.searchable()
        files, skipped_binary, skipped_large = _scope(listed, options)
        binary += skipped_binary
        large += skipped_large
        if entry.ranged:
            from ..cache import lazy

            lazy.ensure(entry, [f[0] for f in files], "this search")
        own = short_hash(repr([entry.key] + keys))[:12]  # the one-target search's fingerprint
        start = None
        if index == first and inner is not None:
            path, line, offset, shown = grep.decode_cursor(inner, own)
            at = next((i for i, f in enumerate(files) if f[0] == path), None)
            if at is None:
                raise invalid("cursor is not one this search returned; repeat the search without it", "cursor")
            start = (at, line, offset, shown)
        detailing = index >= first and cursor is None  # this target's lines may join the page
        want = room if detailing else 0
        if detailing and budget is not None and budget < 2048:  # the page is full: count only, from here on
            want, reason = 0, "budget"
        if unbounded and cli.from_bytes and detailing:
            found, out = _plain_search(entry, listed[0], files, options, deadline)
            if out:
                prefix = spec.encode() + b" "
                plain.append(prefix + out[:-1].replace(b"\n", b"\n" + prefix) + b"\n")
        else:
            found = grep.search(
                entry.path + "/tree", files, options, start=start,
                max_matches=want,
                cap=options["max_matches_per_file"], context=options["context"],
                window=cli.max_columns if unbounded else grep.WINDOW, deadline=deadline,
                encode=lambda *where, own=own: grep.encode_cursor(own, *where),
                budget=budget if detailing else None, line_budget=lines_left if detailing else None)
        for key in totals:
            totals[key] += found[key]
        if detailing:
            for item in found["files"]:
                files_out.append({"target": spec, **item})
            shown = sum(1 for item in found["files"] for block in item["blocks"] for ln in block["lines"]
                        if "column" in ln)
            if room is not None:
                room -= shown
            if budget is not None:
                from ..budget import json_size

                budget -= json_size(found["files"]) + len(spec) * len(found["files"])
                lines_left -= sum(len(block["lines"]) for item in found["files"] for block in item["blocks"])
            if found["hasMore"] and found.get("nextCursor"):
                cursor = _many.encode_cursor(fingerprint, index, found["nextCursor"])
                reason = reason or found.get("truncatedReason")
        if found.get("truncatedReason") == "time":
            reason = "time"
            break  # the deadline is the whole search's: what is left is not searched
    result: dict[str, Any] = {"targets": specs, "skippedTargets": skipped, "pattern": options["pattern"]}
    given = {_FILTER_KEYS[k]: args[k] for k in _FILTER_KEYS if args.get(k) is not None}
    if given:
        result["filter"] = given
    result.update(files=files_out, **totals, binaryFilesSkipped=binary, largeFilesSkipped=large,
                  hasMore=cursor is not None or reason == "time")
    if cursor is not None:
        result["nextCursor"] = cursor
    if reason is not None:
        result["truncatedReason"] = reason
    hint = _hint(result, options, grep.max_file_bytes(), unbounded)
    if hint:
        result["hint"] = hint
    if cli is not None and cli.from_bytes:
        cli.output = b"".join(plain)
    found_warnings = _many.warnings(opened)
    if found_warnings:
        result["warnings"] = found_warnings
    return result


def budget_of(specs: list[str], skipped: list[dict[str, Any]]) -> int:
    """The bytes the list of targets and the skipped ones take in the envelope."""
    from ..budget import json_size

    return json_size(specs) + json_size(skipped)


def _hint(result: dict[str, Any], options: dict[str, Any], limit: int, plain: bool) -> str:
    reason = result.get("truncatedReason")
    notes = []
    if reason == "time":
        notes.append("The search stopped at its time budget: counts cover only the files searched so far"
                     + (" (a regular expression this slow may backtrack catastrophically)" if options["regex"] else "")
                     + ".")
    elif reason == "budget":
        notes.append(f"Page cut at the {BUDGET_BYTES // 1024} KiB / {BUDGET_LINES}-line budget.")
    if result.get("nextCursor") and not plain:  # plain output with -m stops there, as rg -m does
        notes.append("Continue with cursor=nextCursor (CLI: --cursor), or narrow the search with path_prefix or glob.")
    if result["largeFilesSkipped"]:
        notes.append(f"{result['largeFilesSkipped']} file(s) over {limit} bytes were not searched "
                     "(CODENAV_SEARCH_MAX_FILE_BYTES).")
    if not result["totalMatches"] and not options["regex"] and reason is None:
        from ._grep import looks_like_regex

        if looks_like_regex(options["pattern"]):
            notes.append("No match; the pattern is matched literally: pass regex=true (CLI: --regex) for a "
                         "regular expression.")
    return " ".join(notes)


def exit_code(result: dict[str, Any]) -> int:
    return 0 if result["totalMatches"] else 1


def _shown(ln: dict[str, Any]) -> str:
    """A line's text; a window of a longer line is marked with … where it was cut."""
    if not ln.get("cut"):
        return ln["text"]
    return ("…" if ln.get("windowStart", 1) > 1 else "") + ln["text"] + "…"


def text(result: dict[str, Any], words: Any = None) -> str:
    """The TEXT answer (SPEC §4.4): header with the exact totals, notes, then rg's
    ``path:N:text`` / ``path-N-text`` lines, ``--`` between blocks when context was asked."""
    from . import _answer

    many = "targets" in result
    scope = [f"{result['filesScanned']} searched"]
    if result["binaryFilesSkipped"]:
        scope.append(f"{result['binaryFilesSkipped']} binary")
    if result["largeFilesSkipped"]:
        scope.append(f"{result['largeFilesSkipped']} too large")
    header = (f"{_many.summary(result)} · " if many else f"{_answer.target_label(result['target'])} · ") + (
              f"{_answer.plural(result['totalMatches'], 'matching line')} in "
              f"{_answer.plural(result['filesMatched'], 'file')} ({', '.join(scope)})")
    if result.get("truncatedReason") == "time":
        header += " · stopped at the time limit"
    if result.get("nextCursor"):
        header += _answer.more(f"cursor={result['nextCursor']}", words)
    separate = bool(result.get("filter", {}).get("context"))
    body: list[str] = []
    group = None
    for item in result["files"]:
        path = item["path"]
        if many and item["target"] != group:  # one line names the target of the lines under it
            group = item["target"]
            body.append(f"[{group}]\n")
        elif separate and body:
            body.append("--\n")
        shown = 0
        for index, block in enumerate(item["blocks"]):
            if index and separate:
                body.append("--\n")
            for ln in block["lines"]:
                mark = ":" if ln["match"] else "-"
                shown += "column" in ln
                body.append(f"{path}{mark}{ln['line']}{mark}{_shown(ln)}\n")
        if item["matchCount"] > shown:
            body.append(f"{path}: {item['matchCount'] - shown} more matching lines not shown\n")
    return _answer.join(header, _many.skipped_lines(result) + _answer.notes(result, words), "".join(body))


def render(result: dict[str, Any], out: TextIO, err: TextIO) -> None:
    """rg's --no-heading output: ``path:line:text``, context ``path-line-text``, ``--`` between
    blocks that do not touch (only when context was asked)."""
    separate = bool(result.get("filter", {}).get("context"))
    first = True
    write = out.write
    for item in result["files"]:
        path = f"{item['target']} {item['path']}" if "target" in item else item["path"]
        for block in item["blocks"]:
            if separate and not first:
                write("--\n")
            first = False
            for ln in block["lines"]:
                mark = ":" if ln["match"] else "-"
                write(f"{path}{mark}{ln['line']}{mark}{ln['text']}\n")
    _many.render_skipped(result, err)
    if result.get("hint"):
        from ..words import for_cli

        err.write(f"codenav: {for_cli(result['hint'])}\n")
