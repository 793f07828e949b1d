"""search_symbols / ``codenav symbols``: where a name is defined in a target (SPEC §2.9).

The entry's symbol index (search/symbols/, the ``symbols.tsv`` sidecar) is read line by line;
an entry cached before the index existed gets it derived on first use. Results come best
first (search/symbols docstring), a page at a time: ``max_results`` per page, fewer when the
output budget (SPEC §5) is reached, and an opaque ``nextCursor`` for the rest. Exit codes
follow grep(1): 0 a symbol found, 1 none, 2 an error.
"""

from __future__ import annotations

import os

from ..errors import invalid
from ..targets import path_prefix
from . import _many, _target

TYPE_CHECKING = False  # annotations only: a warm call must not import typing
if TYPE_CHECKING:
    from typing import Any, TextIO

NAME = "search_symbols"
COMMAND = "symbols"
HELP = "find where a function, class, method, type or variable is defined in a package or repository"
DESCRIPTION = (
    "Find the definitions named QUERY in a package or git repository (Python, JavaScript/TypeScript, Rust, Go, "
    "Java, Kotlin, Ruby, C#, Elixir, PHP).\n\n" + _target.SPEC_HELP + "\n\n"
    "QUERY is a name, or container.name (e.g. Router.route). Matching ignores case unless --case-sensitive; "
    "by default exact names, or names starting with QUERY when none is exact. PATH_PREFIX keeps definitions "
    "under one directory.\n\nExit status as grep: 0 a definition was found, 1 none was, 2 an error."
)
ERROR_EXIT = 2
SIDECAR = "symbols.tsv"
MAX_QUERY = 1000
MAX_RESULTS = 500
DEFAULT_RESULTS = 50
MATCHES = ("exact", "prefix", "substring")
_ROOM = 600  # bytes kept for the hint and cursor when the page is fitted to the budget


def _check(args: dict[str, Any]) -> tuple[str, str | None, list[str] | None, str | None, bool, int]:
    """The validated (query, path_prefix, kinds, match, case_sensitive, max_results)."""
    from ..search.symbols import KINDS

    query = args.get("query")
    if not isinstance(query, str) or not query:
        raise invalid("query must be a non-empty name such as 'Router' or 'Router.route'", "query")
    if len(query) > MAX_QUERY:
        raise invalid(f"query is longer than {MAX_QUERY} characters", "query")
    if "\t" in query or "\n" in query or "\r" in query:
        raise invalid("query must be a name on one line, without tabs", "query")
    prefix = path_prefix(args.get("path_prefix"))
    kinds = args.get("kind")
    if kinds is not None:
        if not isinstance(kinds, list) or not kinds or any(k not in KINDS for k in kinds):
            raise invalid("kind must be a list of: " + ", ".join(KINDS), "kind")
    match = args.get("match")
    if match is not None and match not in MATCHES:
        raise invalid("match must be exact, prefix or substring", "match")
    case_sensitive = args.get("case_sensitive", False)
    if not isinstance(case_sensitive, bool):
        raise invalid("case_sensitive must be true or false", "case_sensitive")
    limit = args.get("max_results", DEFAULT_RESULTS)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RESULTS:
        raise invalid(f"max_results must be an integer from 1 to {MAX_RESULTS}", "max_results")
    return query, prefix, kinds, match, case_sensitive, limit


def _fingerprint(query: str, prefix: str | None, kinds: list[str] | None, match: str | None,
                 case_sensitive: bool) -> str:
    """What a cursor is tied to: the same query on the same target continues, another is refused."""
    from zlib import crc32

    key = "\x00".join((query, prefix or "", ",".join(sorted(kinds or ())), match or "", str(case_sensitive)))
    return f"{crc32(key.encode('utf-8')):08x}"


def _offset(cursor: Any, fingerprint: str) -> int:
    """The position a cursor of this query continues from (checked before any download)."""
    if cursor is None:
        return 0
    number, _, mark = cursor.partition("-") if isinstance(cursor, str) else ("", "", "")
    if not number.isdigit() or len(number) > 9 or mark != fingerprint:
        raise invalid("the cursor is not one this query gave out; start again without a cursor", "cursor")
    return int(number)


def run(args: dict[str, Any], cli: Any = None) -> dict[str, Any]:
    query, prefix, kinds, match, case_sensitive, limit = _check(args)  # before any download
    fingerprint = _fingerprint(query, prefix, kinds, match, case_sensitive)
    if _many.requested(args):
        return _run_many(args, cli, fingerprint)
    start = _offset(args.get("cursor"), fingerprint)
    entry = _target.open_entry(args, cli)
    mode, found, recorded = _definitions(entry, query, prefix, kinds, match, case_sensitive)
    page = _page(found, start, limit)
    result: dict[str, Any] = {"target": entry.target, "query": query, "matchMode": mode, "results": page,
                              "totalResults": len(found), "hasMore": False, "nextCursor": None,
                              "filesIndexed": recorded.get("files", 0), "filesSkipped": recorded.get("skipped", 0)}
    return _paged(result, page, start, len(found), fingerprint, cli, mode, kinds, prefix, case_sensitive)


def _definitions(entry: Any, query: str, prefix: str | None, kinds: list[str] | None, match: str | None,
                 case_sensitive: bool) -> tuple[str, list[Any], dict[str, int]]:
    """(match mode, the definitions found best first, the index's counts) in one target."""
    from ..search.symbols import counts, search
    from ..search.symbols.sidecar import write

    if entry.ranged and not os.path.exists(entry.sidecar_path(SIDECAR)):
        # The index reads every source file: fetch them by range first (bounded: cache/lazy.py).
        from ..cache import lazy
        from ..search.symbols import language

        lazy.ensure(entry, [r.path for r in entry.files() if not r.binary and r.link is None
                            and language(r.path) is not None], "the symbol index")
    index = entry.sidecar(SIDECAR, write)
    mode, found = search(index, query, match, case_sensitive, kinds, prefix or "")
    if prefix:  # the core tests a string prefix; a directory prefix must not take 'libx' for 'lib'
        under = prefix + "/"
        found = [s for s in found if s.path == prefix or s.path.startswith(under)]
    return mode, found, counts(index) or {}


def _page(found: list[Any], start: int, limit: int) -> list[dict[str, Any]]:
    if start > len(found):
        raise invalid("the cursor is past the last result; start again without a cursor", "cursor")
    return [s if isinstance(s, dict) else s.as_dict() for s in found[start:start + limit]]  # multi: dicts already


def _run_many(args: dict[str, Any], cli: Any, fingerprint: str) -> dict[str, Any]:
    """search_symbols over several targets (tools/_many.py): the union of the one-target
    answers in target order; by default exact names wherever one target has one, else the
    prefix matches (the one-target rule, over the union: SPEC §2.12)."""
    import sys

    query, prefix, kinds, match, case_sensitive, limit = _check(args)
    items = _many.target_args(args)  # before any download
    cursor = args.get("cursor")
    if cursor is not None:  # the query's part before any download, the targets' once they are open
        _offset(cursor.rpartition(".")[0] if isinstance(cursor, str) else cursor, fingerprint)
    opened, skipped = _many.open_all(items, cli is not None and sys.stderr.isatty())
    specs = _many.labels(opened)
    fingerprint = f"{fingerprint}.{_many.fingerprint(opened)[:8]}"  # a cursor names the targets too
    start = _offset(cursor, fingerprint)
    per = [_definitions(entry, query, prefix, kinds, match, case_sensitive) for entry in opened]
    mode = match or ("exact" if any(m == "exact" and found for m, found, _ in per) else "prefix")
    found = [{"target": spec, **s.as_dict()} for spec, (m, hits, _) in zip(specs, per, strict=True)
             if m == mode for s in hits]
    page = _page(found, start, limit)
    result: dict[str, Any] = {"targets": specs, "skippedTargets": skipped, "query": query, "matchMode": mode,
                              "results": page, "totalResults": len(found), "hasMore": False, "nextCursor": None,
                              "filesIndexed": sum(c.get("files", 0) for _, _, c in per),
                              "filesSkipped": sum(c.get("skipped", 0) for _, _, c in per)}
    result = _paged(result, page, start, len(found), fingerprint, cli, mode, kinds, prefix, case_sensitive)
    found_warnings = _many.warnings(opened)
    if found_warnings:
        result["warnings"] = found_warnings
    return result


def _paged(result: dict[str, Any], page: list[dict[str, Any]], start: int, total: int, fingerprint: str, cli: Any,
           mode: str, kinds: list[str] | None, prefix: str | None, case_sensitive: bool) -> dict[str, Any]:
    """``result`` with its page fitted to the output budget, the cursor and the hint."""
    if cli is None or not cli.plain:  # plain output is for pipes: max_results alone bounds it
        page = _fit(result, page)
        result["results"] = page
    end = start + len(page)
    if end < total:
        result["hasMore"] = True
        result["nextCursor"] = f"{end}-{fingerprint}"
        result["hint"] = (f"showing results {start + 1}-{end} of {total}; call again with cursor="
                          f"{result['nextCursor']} for more, or narrow with kind or path_prefix")
    elif not total:
        result["hint"] = _none_hint(mode, kinds, prefix, case_sensitive)
    return result


def _fit(result: dict[str, Any], page: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The leading results of ``page`` that fit the output budget (at least one)."""
    from .. import budget

    return budget.fit_rows(dict(result, results=[]), page, room=budget.BUDGET_BYTES - _ROOM)


def _none_hint(mode: str, kinds: list[str] | None, prefix: str | None, case_sensitive: bool) -> str:
    widen = []
    if mode != "substring":
        widen.append("a substring match (match substring)")
    if kinds:
        widen.append("no kind filter")
    if prefix:
        widen.append("no path_prefix")
    if case_sensitive:
        widen.append("ignoring case")
    return "no definition found; try " + ", ".join(widen) if widen else (
        "no definition found; grep_file or read_file find uses and text that are not definitions")


def exit_code(result: dict[str, Any]) -> int:
    return 0 if result["results"] else 1


def _line(item: dict[str, Any]) -> str:
    name = f"{item['container']}.{item['name']}" if item.get("container") else item["name"]
    signature = item.get("signature", "")
    return f"{item['path']}:{item['line']}:{item['kind']}:{name}" + (f"  {signature}" if signature else "")


def text(result: dict[str, Any], words: Any = None) -> str:
    """The TEXT answer (SPEC §4.4): header with the counts and the page, notes, then one
    ``path:line:kind:container.name  signature`` line per definition."""
    from . import _answer

    total, page = result["totalResults"], result["results"]
    # The query is the caller's own; files the index could not parse are worth knowing (a
    # definition there is not found), the count of those it could is not.
    many = "targets" in result
    header = (f"{_many.summary(result) if many else _answer.target_label(result['target'])} · "
              f"{_answer.plural(total, 'definition')} "
              f"({result['matchMode']} match"
              + (f"; {result['filesSkipped']} of {result['filesIndexed'] + result['filesSkipped']} files unparsed"
                 if result["filesSkipped"] else "") + ")")
    if page and len(page) < total:
        # A page ends where the next cursor starts (``END-FINGERPRINT``), or at the last result.
        end = int(result["nextCursor"].split("-")[0]) if result.get("nextCursor") else total
        header += f" · {end - len(page) + 1}-{end} shown"
    if result.get("nextCursor"):
        header += _answer.more(f"cursor={result['nextCursor']}", words)
    # The notation, as plain output: a doc line would double the cost of an answer
    # (read_file at the line shows it with the code; --json carries it). docs/decisions.md.
    body, group = [], None
    for item in page:
        if many and item["target"] != group:  # one line names the target of the definitions under it
            group = item["target"]
            body.append(f"[{group}]\n")
        body.append(_line(item) + "\n")
    return _answer.join(header, _many.skipped_lines(result) + _answer.notes(result, words), "".join(body))


def render(result: dict[str, Any], out: TextIO, err: TextIO) -> None:
    """Plain output: one line per definition; the hint (with the cursor) on stderr."""
    for item in result["results"]:
        out.write((f"{item['target']} " if "target" in item else "") + _line(item) + "\n")
    _many.render_skipped(result, err)
    if result.get("hint"):
        from ..words import for_cli

        err.write(f"codenav: {for_cli(result['hint'])}\n")
