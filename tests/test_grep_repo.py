"""grep_repo: every match of a package against a plain Python loop, paging, globs, limits,
the regex time budget with the MCP server still answering, and CLI/MCP byte parity."""

from __future__ import annotations

import json
import os
import re
import sys
import time

import pytest

from codenav import contract
from codenav.errors import CodenavError
from codenav.search import grep
from codenav.search.globs import GlobSet
from codenav.tools import CliOptions, grep_repo, list_files
from tests.fakes.http import FakeServer
from tests.fakes.npm import FakeNpm
from tests.support.cli import ROOT, run_cli
from tests.support.mcp import McpSession

LONG_LINE = "x" * 3000 + " needle here " + "y" * 3000 + "\n"
FILES = {
    "index.js": b"const a = require('./lib/a');\nmodule.exports = a;\n// TODO: needle\n",
    "lib/a.js": b"// A\nfunction Alpha() {}\nexports.alpha = Alpha;\nvar alphabet = 'abc';\n",
    "lib/a.d.ts": b"export declare function Alpha(): void;\n",
    "lib/b.ts": b"export const b = 1;\nexport function beta() { return alpha_beta; }\n",
    "lib/sub/c.js": "".join(f"line {i} {'needle' if i % 3 == 0 else 'hay'}\n" for i in range(1, 40)).encode(),
    "crlf.txt": b"one needle\r\ntwo\r\nNEEDLE three\r\n",
    "unicode.txt": "Stra\u00dfe strasse STRASSE\n\u212aelvin kelvin\n\u00e9t\u00e9 \u00c9T\u00c9\n\u017fome some\ncaf\u00e9 needle\n".encode(),
    "no-newline.txt": b"last line needle",
    "empty.txt": b"",
    "long/min.js": LONG_LINE.encode() + b"short needle\n",
    "logo.png": b"\x89PNG\r\n\x1a\n\0\0\0needle",
    "latin1.txt": "caf\xe9 needle\n".encode("latin-1"),
    "test/alpha.test.js": b"describe('alpha', () => { it('Alpha works', () => {}); });\n",
    "data/many.txt": "".join(f"row {i} \"quoted\" \\ {'q' * 60}\n" for i in range(1, 3001)).encode(),
}
SPEC = "npm:demo@1.0.0"
TARGET = {"registry": "npm", "package_name": "demo", "version": "1.0.0"}
BINARY = {"logo.png", "latin1.txt"}  # a NUL byte; not UTF-8


@pytest.fixture(autouse=True)
def registry(monkeypatch):
    with FakeServer() as server:
        fake = FakeNpm(server)
        fake.publish("demo", "1.0.0", FILES)
        fake.publish("stuck", "1.0.0", {"a_first.txt": b"aaaa\nplain\n", "z_stuck.txt": b"a" * 60 + b"b\n"})
        monkeypatch.setenv("CODENAV_NPM_REGISTRY", fake.url)
        yield fake


def search(**args):
    return grep_repo.run({**TARGET, **args})


def shown(result) -> list[tuple[str, int, str]]:
    """The (path, line, text) of every match shown on a page, in order."""
    return [(f["path"], ln["line"], ln["text"]) for f in result["files"] for b in f["blocks"]
            for ln in b["lines"] if "column" in ln]


def oracle_lines(path: str) -> list[str]:
    text = FILES[path].decode("utf-8")
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def oracle(pattern: str, *, regex=False, case_sensitive=False, whole_words=False,
           paths=None) -> list[tuple[str, int, str, int]]:
    """Every matching line (path, line, text, column) by a plain loop over the files."""
    if regex:
        source = f"(?<!\\w)(?:{pattern})(?!\\w)" if whole_words else pattern
        rx = re.compile(source, 0 if case_sensitive else re.IGNORECASE)

        def find(line):
            m = rx.search(line)
            return None if m is None else m.start()
    else:
        needle = pattern if case_sensitive else pattern.casefold()
        bounded = re.compile(f"(?<!\\w){re.escape(needle)}(?!\\w)")

        def find(line):
            hay = line if case_sensitive else line.casefold()
            if whole_words:
                m = bounded.search(hay)
                pos = -1 if m is None else m.start()
            else:
                pos = hay.find(needle)
            if pos < 0:
                return None
            if hay is line:
                return pos
            folded = 0
            for index, ch in enumerate(line):
                folded += len(ch.casefold())
                if folded > pos:
                    return index
            return len(line)
    out = []
    for path in sorted(paths if paths is not None else FILES):
        if path in BINARY:
            continue
        for number, line in enumerate(oracle_lines(path), 1):
            column = find(line)
            if column is not None:
                out.append((path, number, line, column + 1))
    return out


def every_match(**args) -> list[tuple[str, int, str, int]]:
    """All matches of a search, whole lines, read through grep_repo.run with the unbounded page."""
    result = grep_repo.run({**TARGET, **args}, cli=CliOptions(plain=True))
    assert not result["hasMore"]
    return [(f["path"], ln["line"], ln["text"], ln["column"]) for f in result["files"] for b in f["blocks"]
            for ln in b["lines"] if "column" in ln]


CASES = [
    ("needle", {}), ("NEEDLE", {"case_sensitive": True}), ("alpha", {}), ("alpha", {"whole_words": True}),
    ("Alpha", {"case_sensitive": True, "whole_words": True}), ("strasse", {}), ("kelvin", {}), ("some", {}),
    ("été", {}), ("ss", {}), ("\u00c9T\u00c9", {"case_sensitive": True}), ("export", {"whole_words": True}),
    (r"func\w+\s+\w+", {"regex": True}), (r"^export", {"regex": True, "case_sensitive": True}),
    (r"needle$", {"regex": True}), (r"\bbeta\b", {"regex": True}), (r"(?<=\.)alpha", {"regex": True}),
    (r"alpha|needle", {"regex": True, "whole_words": True}), (r"\d+ hay", {"regex": True}),
    (r"a\s*$", {"regex": True}), (r"\Aline", {"regex": True}), (r"kelvin", {"regex": True}), (r"x*", {"regex": True}),
    (r"CAF\w", {"regex": True}), (r"T\u00c9", {"regex": True}), (r"(?i)SOME", {"regex": True, "case_sensitive": True}),
    (r"stra(?-i:ss)e", {"regex": True}), (r"needle\b", {"regex": True, "whole_words": True}),
]


@pytest.mark.parametrize("pattern,options", CASES, ids=[f"{p}-{sorted(o)}" for p, o in CASES])
def test_every_match_equals_a_plain_loop_over_the_files(pattern, options):
    """Each matching line, its text and 1-based character column equal an independent per-line loop."""
    assert every_match(pattern=pattern, **options) == oracle(pattern, **options)


def test_counts_cover_the_whole_scope_whatever_the_page():
    """totalMatches and filesMatched are exact on a page of 2; the page holds 2 match lines."""
    expected = oracle("needle")
    result = search(pattern="needle", max_matches=2)
    assert result["totalMatches"] == len(expected)
    assert result["filesMatched"] == len({m[0] for m in expected})
    assert result["filesScanned"] == len(FILES) - len(BINARY)
    assert len(shown(result)) == 2 and result["hasMore"] and result["truncatedReason"] == "matches"
    per_file = {f["path"]: f["matchCount"] for f in result["files"]}
    assert per_file == {p: sum(1 for m in expected if m[0] == p) for p in per_file}


@pytest.mark.parametrize("options", [
    {"pattern": "needle", "max_matches": 3}, {"pattern": "needle", "max_matches": 1, "context": 2},
    {"pattern": r"l\w", "regex": True, "max_matches": 4}, {"pattern": "needle", "max_matches": 2, "max_matches_per_file": 2},
])
def test_cursors_page_through_every_match_exactly_once(options):
    """Following nextCursor from page to page shows each match once, in order, with no gap."""
    seen, cursor, pages = [], None, 0
    while True:
        result = search(**options, **({"cursor": cursor} if cursor else {}))
        contract.validator("grep_repo", "outputSchema").validate(result)
        seen += shown(result)
        pages += 1
        assert result["totalMatches"] == len(oracle(options["pattern"], regex=options.get("regex", False)))
        if not result["hasMore"]:
            assert "nextCursor" not in result
            break
        cursor = result["nextCursor"]
        assert pages < 100
    expected = [(p, n, t) for p, n, t, _ in oracle(options["pattern"], regex=options.get("regex", False))]
    cap = options.get("max_matches_per_file")
    if cap:
        expected = [m for i, m in enumerate(expected) if sum(1 for e in expected[:i] if e[0] == m[0]) < cap]
    assert [(p, n) for p, n, _ in seen] == [(p, n) for p, n, _ in expected]
    assert all(window in text for (_, _, window), (_, _, text) in zip(seen, expected, strict=True))  # long lines: a window
    assert pages > 1


def test_a_page_stays_within_the_output_budget_and_continues_after_it():
    """1000 requested matches of 100-byte lines are cut at the 50 KiB budget (truncatedReason
    "budget"); the cursors then reach all 3000 matches, once each."""
    result, seen, pages = search(pattern="row ", max_matches=1000), [], 0
    assert result["truncatedReason"] == "budget" and result["hasMore"]
    while True:
        assert len(contract.dumps(result).encode("utf-8")) <= 50 * 1024
        seen += [n for _, n, _ in shown(result)]
        pages += 1
        if not result["hasMore"]:
            break
        result = search(pattern="row ", max_matches=1000, cursor=result["nextCursor"])
    assert seen == list(range(1, 3001)) and pages >= 6


def test_a_cursor_of_another_search_is_refused():
    """A cursor replayed with a different pattern is INVALID_ARGUMENT naming cursor."""
    cursor = search(pattern="needle", max_matches=1)["nextCursor"]
    for args in ({"pattern": "hay", "cursor": cursor}, {"pattern": "needle", "cursor": "garbage"}):
        with pytest.raises(CodenavError) as info:
            search(**args)
        assert info.value.code == "INVALID_ARGUMENT" and info.value.details["field"] == "cursor"


def test_globs_include_and_exclude_files():
    """glob ["*.js", "!lib/**"] searches the .js files outside lib/; only `!` globs search the rest."""
    js = every_match(pattern="a", glob=["*.js", "!lib/**"])
    keep = GlobSet(["*.js", "!lib/**"])
    assert {m[0] for m in js} == {"index.js", "test/alpha.test.js"}
    assert js == oracle("a", paths=[p for p in FILES if keep.includes(p)])
    rest = every_match(pattern="alpha", glob=["!*.d.ts", "!test/"])
    assert {m[0] for m in rest} == {"lib/a.js", "lib/b.ts"}


def test_path_prefix_limits_the_search_to_a_directory():
    """path_prefix 'lib' searches lib/ only, its subdirectories included."""
    assert {m[0] for m in every_match(pattern="e", path_prefix="lib")} == {"lib/a.js", "lib/a.d.ts", "lib/b.ts", "lib/sub/c.js"}


def test_long_lines_show_a_window_around_the_hit():
    """A 6000-character line is shown as a window of at most 300 characters holding the hit, marked cut."""
    result = search(pattern="needle here")
    (line,) = [ln for f in result["files"] for b in f["blocks"] for ln in b["lines"]]
    assert line["cut"] is True and len(line["text"]) <= grep.WINDOW and "needle here" in line["text"]
    assert line["column"] == 3002
    assert LONG_LINE[line["windowStart"] - 1:].startswith(line["text"])


def test_binary_and_oversized_files_are_skipped_and_counted(monkeypatch):
    """Binary files in scope and files over CODENAV_SEARCH_MAX_FILE_BYTES are counted, never searched."""
    result = search(pattern="needle")
    assert (result["binaryFilesSkipped"], result["largeFilesSkipped"]) == (len(BINARY), 0)
    assert not {f["path"] for f in result["files"]} & BINARY
    monkeypatch.setenv("CODENAV_SEARCH_MAX_FILE_BYTES", "100")
    result = search(pattern="needle", max_matches=1000)
    big = {p for p, data in FILES.items() if len(data) > 100 and p not in BINARY}
    assert result["largeFilesSkipped"] == len(big) and big
    assert {f["path"] for f in result["files"]} == {m[0] for m in oracle("needle") if m[0] not in big}
    assert "CODENAV_SEARCH_MAX_FILE_BYTES" in result["hint"]


def test_an_invalid_regex_quotes_the_compiler_message():
    """A pattern that does not compile is INVALID_ARGUMENT with re's own message."""
    with pytest.raises(CodenavError) as info:
        search(pattern="(unclosed", regex=True)
    assert info.value.code == "INVALID_ARGUMENT" and info.value.details["field"] == "pattern"
    assert "missing ), unterminated subpattern at position 0" in info.value.message


def test_the_case_folding_table_is_complete():
    """FOLDS_TO_ASCII holds exactly the non-ASCII characters whose casefold has an ASCII character."""
    table = {chr(c): chr(c).casefold() for c in range(128, sys.maxunicode + 1)
             if any(x.isascii() for x in chr(c).casefold())}
    assert table == grep.FOLDS_TO_ASCII


def test_the_ignorecase_table_is_complete():
    """IGNORECASE_TO_ASCII holds exactly the non-ASCII characters re.IGNORECASE matches to an ASCII letter."""
    letters = re.compile("[a-z]", re.IGNORECASE)
    table = {chr(c): next(x for x in "abcdefghijklmnopqrstuvwxyz" if re.fullmatch(x, chr(c), re.IGNORECASE))
             for c in range(128, sys.maxunicode + 1) if letters.fullmatch(chr(c))}
    assert table == grep.IGNORECASE_TO_ASCII


def test_required_literals_are_taken_only_where_every_match_has_them():
    """The prefilter literal of a regex is a run every match contains; alternatives give none."""
    assert grep.analyse(r"function\s+\w+Node", re.M)[0] == "function"
    assert grep.analyse(r"(?:get|set)_value", re.M)[0] == "_value"
    assert grep.analyse(r"a|b", re.M)[0] == ""
    assert grep.analyse(r"x(?=y)", re.M)[2] is True


# --- the regex time budget, with the server answering meanwhile --------------------------------

def server_env(registry, **extra) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CODENAV_NPM_REGISTRY": registry.url, **extra}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def test_a_catastrophic_regex_stops_at_the_budget_while_the_server_answers(registry):
    """(a+)+$ on a long run of a's is stopped at CODENAV_SEARCH_TIMEOUT with what it found, and a ping
    and another tools/call sent meanwhile are answered before it."""
    session = McpSession(server_env(registry, CODENAV_SEARCH_TIMEOUT="3"))
    try:
        stuck = {"registry": "npm", "package_name": "stuck", "version": "1.0.0"}
        assert not session.call("list_files", stuck)["isError"]  # index it first
        started = time.monotonic()
        session.send({"jsonrpc": "2.0", "id": 100, "method": "tools/call",
                      "params": {"name": "grep_repo", "arguments": {**stuck, "pattern": "(a+)+$", "regex": True}}})
        time.sleep(0.5)
        session.send({"jsonrpc": "2.0", "id": 101, "method": "ping"})
        session.send({"jsonrpc": "2.0", "id": 102, "method": "tools/call",
                      "params": {"name": "list_files", "arguments": stuck}})
        order, replies = [], {}
        while len(order) < 3:
            message = json.loads(session.proc.stdout.readline())
            order.append(message["id"])
            replies[message["id"]] = (message, time.monotonic() - started)
        assert order[-1] == 100 and replies[101][1] < 2.5 and replies[102][1] < 2.5
        result = replies[100][0]["result"]["structuredContent"]
        assert 2.5 < replies[100][1] < 10
        assert result["hasMore"] is True and result["truncatedReason"] == "time"
        assert shown(result) == [("a_first.txt", 1, "aaaa")]  # found before the stall, kept
        assert "nextCursor" in result
    finally:
        session.close()


# --- the CLI --------------------------------------------------------------------------------

def cli(*args: str):
    proc = run_cli(*args)
    return proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")


def test_plain_grep_without_a_path_prints_every_match_as_rg_does():
    """`codenav grep SPEC PATTERN` prints path:line:text for every match, unpaged, exit 0."""
    code, out, err = cli("grep", SPEC, "needle", "--wait", "60000")
    expected = "".join(f"{p}:{n}:{t}\n" for p, n, t, _ in oracle("needle"))
    assert (code, out, err) == (0, expected, "")


def test_plain_context_marks_context_lines_and_separates_blocks():
    """-C 1 prints context as path-line-text and `--` between blocks that do not touch."""
    code, out, _ = cli("grep", SPEC, "line 3", "lib/sub", "-C", "1", "-m", "2")
    assert code == 0
    assert out == ("lib/sub/c.js-2-line 2 hay\nlib/sub/c.js:3:line 3 needle\nlib/sub/c.js-4-line 4 hay\n--\n"
                   "lib/sub/c.js-29-line 29 hay\nlib/sub/c.js:30:line 30 needle\nlib/sub/c.js:31:line 31 hay\n")
    # (line 31 matches too: shown as context past -m, it keeps the ':' of a matching line)
    code, out, _ = cli("grep", SPEC, "needle", "lib/sub", "-C", "1", "-m", "2")
    assert "--" not in out.split("\n")  # blocks 2-4 and 5-7 touch: one block, as rg prints them


def test_a_file_path_keeps_grep_file_unless_a_grep_repo_flag_is_given():
    """A file PATH prints grep_file's bare lines (no `--` without context, as grep(1)); with
    --regex it is searched through grep_repo."""
    assert cli("grep", SPEC, "needle", "crlf.txt")[:2] == (0, "one needle\r\nNEEDLE three\r\n")
    assert cli("grep", SPEC, "NEE.LE", "crlf.txt", "--regex", "-s")[:2] == (0, "crlf.txt:3:NEEDLE three\r\n")


def test_exit_codes_follow_grep():
    """0 on a match, 1 on none, 2 on an error (an invalid regex)."""
    assert cli("grep", SPEC, "no-such-text-anywhere")[0] == 1
    code, out, err = cli("grep", SPEC, "(", "--regex")
    assert (code, out) == (2, "") and "unterminated subpattern" in err


def test_max_columns_prints_a_window_of_long_lines():
    """--max-columns N prints N characters around the hit instead of the whole line."""
    code, out, _ = cli("grep", SPEC, "needle here", "--max-columns", "40")
    (line,) = out.splitlines()
    assert code == 0 and line.startswith("long/min.js:1:") and "needle here" in line
    assert len(line) == len("long/min.js:1:") + 40


def test_list_files_takes_globs_on_both_surfaces():
    """list_files glob filters like ripgrep's -g, through run and `codenav files -g`."""
    result = list_files.run({**TARGET, "glob": ["*.ts", "!*.d.ts"]})
    assert [f["path"] for f in result["files"]] == ["lib/b.ts"]
    assert result["filter"] == {"glob": ["*.ts", "!*.d.ts"]}
    assert cli("files", SPEC, "-g", "lib/**", "-g", "!*.ts")[:2] == (0, "lib/a.js\nlib/sub/c.js\n")


# --- parity --------------------------------------------------------------------------------

@pytest.mark.parametrize("arguments,argv,code", [
    ({"pattern": "needle", "context": 1, "max_matches": 3}, ["needle", "-C", "1", "-m", "3"], None),
    ({"pattern": r"alpha\w*", "regex": True, "glob": ["*.js"]}, [r"alpha\w*", "--regex", "-g", "*.js"], None),
    ({"pattern": "needle", "path_prefix": "lib"}, ["needle", "lib"], None),
    ({"pattern": "(", "regex": True}, ["(", "--regex"], "INVALID_ARGUMENT"),
    ({"pattern": "x", "context": 11}, ["x", "-C", "11"], "INVALID_ARGUMENT"),
    ({"pattern": "x", "cursor": "nope"}, ["x", "--cursor", "nope"], "INVALID_ARGUMENT"),
])
def test_cli_json_is_the_mcp_payload(registry, tmp_path, arguments, argv, code):
    """`codenav grep ... --json` prints byte for byte the text block MCP returns, on success and errors."""
    env = server_env(registry, CODENAV_CACHE_DIR=str(tmp_path / "cache"))
    session = McpSession(env)
    try:
        result = session.call("grep_repo", {**TARGET, **arguments})
    finally:
        session.close()
    proc = run_cli("grep", SPEC, *argv, "--json", env=env)
    text = result["content"][0]["text"]
    assert proc.stdout.decode("utf-8") == text + "\n"
    payload = json.loads(text)
    assert result["isError"] is (code is not None)
    if code is None:
        contract.validator("grep_repo", "outputSchema").validate(payload)
        assert len(text.encode()) <= 50 * 1024
    else:
        assert payload["error"]["code"] == code and proc.returncode == 2
