"""list_files, read_file and grep_file: SPEC §2.1–§2.5 through the CLI and the shared `run`."""

from __future__ import annotations

import json

import pytest

from codenav import contract
from codenav.errors import CodenavError
from codenav.targets import from_args
from codenav.tools import _grep, grep_file, list_files, read_file
from tests.support.cli import run_cli

LONG = "".join(f"line {i} " + "x" * 60 + "\n" for i in range(1, 3001))
FILES = {
    "index.js": b"const a = require('./lib/a');\nmodule.exports = a;\n",
    "lib/a.js": b"// A\nfunction Alpha() {}\nexports.alpha = Alpha;\n",
    "lib/b.ts": b"export const b = 1;\n",
    "crlf.txt": b"one\r\ntwo\r\nthree",
    "empty.txt": b"",
    "logo.png": b"\x89PNG\r\n\x1a\n\0\0\0data",
    "latin1.txt": "caf\xe9\n".encode("latin-1"),
    "big.txt": LONG.encode(),
    "grep.txt": "".join(f"{'MATCH' if i in (3, 4, 10, 20, 23) else 'other'} {i}\n" for i in range(1, 31)).encode(),
    "regex.txt": b"a.b*c (x) [y] ^z$ | end\n",
}
SPEC = "npm:demo@1.0.0"
TARGET = {"registry": "npm", "package_name": "demo", "version": "1.0.0"}


@pytest.fixture(autouse=True)
def registry(npm):
    """The fake npm registry, with demo@1.0.0 published."""
    npm.publish("demo", "1.0.0", FILES)
    return npm


def cli(*args: str):
    proc = run_cli(*args)
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def err(fn, **args) -> CodenavError:
    with pytest.raises(CodenavError) as info:
        fn({**TARGET, **args})
    return info.value


# --- §2.1 dual addressing ---------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    {**TARGET, "repo_url": "/tmp/x"},
    {"registry": "npm", "package_name": "demo", "git_ref": "main"},
    {},
])
def test_target_must_be_a_package_xor_a_repository(args):
    """Both or neither addressing forms are INVALID_ARGUMENT, not retryable."""
    with pytest.raises(CodenavError) as info:
        list_files.run(args)
    assert (info.value.code, info.value.retryable) == ("INVALID_ARGUMENT", False)


def test_a_spec_after_repo_url_is_refused_not_taken_as_a_prefix():
    """In --repo-url mode a first positional like npm:x is an error that says why."""
    code, out, errout = cli("files", "--repo-url", "/nonexistent", "npm:express")
    assert code == 1 and out == ""
    assert "looks like a package spec" in errout


def test_bad_spec_registry_is_explained():
    """An unknown registry prefix gets a message naming the accepted ones."""
    code, _, errout = cli("files", "nosuch:serde")
    assert code == 1 and "npm, pypi" in errout


# --- §2.2 paths -------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/etc/passwd", "../x", "lib/../a.js", "lib//a.js", "./index.js", "lib/./a.js",
                                  "a\0b", "lib\\a.js"])
def test_paths_must_be_clean_relative_paths(path):
    """Absolute, dotted, empty-segment, NUL and backslash paths are INVALID_ARGUMENT naming `path`."""
    e = err(read_file.run, path=path)
    assert e.code == "INVALID_ARGUMENT" and e.details["field"] == "path"


def test_listing_paths_feed_read_and_grep_unchanged():
    """Every path list_files returns reads and greps as is."""
    for f in list_files.run(TARGET)["files"]:
        assert read_file.run({**TARGET, "path": f["path"]})["path"] == f["path"]
        assert grep_file.run({**TARGET, "path": f["path"], "pattern": "a"})["path"] == f["path"]


def test_unknown_file_is_file_not_found_with_a_hint():
    """A path the target does not ship is FILE_NOT_FOUND with filePath and an action."""
    e = err(read_file.run, path="lib/c.js")
    assert e.code == "FILE_NOT_FOUND" and e.details["filePath"] == "lib/c.js"
    assert "list_files" in e.details["action"]


# --- §2.5 list_files --------------------------------------------------------------------------

def test_list_is_sorted_with_size_language_and_type():
    """Entries are sorted by path and carry size, language and fileType."""
    files = list_files.run(TARGET)["files"]
    assert [f["path"] for f in files] == sorted(FILES)
    by = {f["path"]: f for f in files}
    assert by["lib/b.ts"] == {"path": "lib/b.ts", "size": 20, "language": "TypeScript", "fileType": "source"}
    assert by["logo.png"]["fileType"] == "binary"
    assert by["empty.txt"]["size"] == 0


def test_plain_list_is_bare_paths_and_verbose_is_the_text_answer():
    """Plain output is one path per line; --verbose adds the TEXT header (target, count, prefix)."""
    code, out, errout = cli("files", SPEC, "lib")
    assert (code, out, errout) == (0, "lib/a.js\nlib/b.ts\n", "")
    assert cli("files", SPEC, "lib", "--verbose") == (0, "npm:demo@1.0.0 · 2 files\nlib/a.js\nlib/b.ts\n", "")


def test_prefix_is_literal_and_a_glob_gets_a_hint_on_stderr():
    """'*.ts' matches nothing; plain mode says why on stderr and keeps stdout empty."""
    code, out, errout = cli("files", SPEC, "*.ts")
    assert (code, out) == (0, "")
    assert "not a glob" in errout
    result = list_files.run({**TARGET, "path_prefix": "*.ts"})
    assert result["files"] == [] and "not a glob" in result["hint"]
    assert result["filter"] == {"pathPrefix": "*.ts"}


def test_prefix_matches_whole_directories():
    """'li' does not match lib/: the prefix is a directory, not a string start."""
    assert list_files.run({**TARGET, "path_prefix": "li"})["files"] == []
    assert [f["path"] for f in list_files.run({**TARGET, "path_prefix": "lib/"})["files"]] == ["lib/a.js", "lib/b.ts"]


def test_filter_echoes_only_what_the_caller_gave():
    """No prefix given: no filter key in the result."""
    assert "filter" not in list_files.run(TARGET)


# --- §2.3 read_file ---------------------------------------------------------------------------

def test_plain_read_is_the_bytes_verbatim():
    """CRLF and a missing final newline survive plain output byte for byte."""
    proc = run_cli("read", SPEC, "crlf.txt")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"one\r\ntwo\r\nthree", b"")


def test_verbose_read_has_header_and_numbered_lines():
    """--verbose prints `TARGET PATH · language · lines N-M of T`, then `N<TAB>line`; a last
    line without its newline is followed by git's marker."""
    code, out, _ = cli("read", SPEC, "lib/a.js", "--lines", "2-3", "--verbose")
    assert out == ("npm:demo@1.0.0 lib/a.js · JavaScript · lines 2-3 of 3\n"
                   "2\tfunction Alpha() {}\n"
                   "3\texports.alpha = Alpha;\n")
    proc = run_cli("read", SPEC, "crlf.txt", "--verbose")
    assert proc.stdout == (b"npm:demo@1.0.0 crlf.txt \xc2\xb7 Text \xc2\xb7 lines 1-3 of 3\n"
                           b"1\tone\r\n2\ttwo\r\n3\tthree\n\\ No newline at end of file\n")


@pytest.mark.parametrize("spec,expected", [("2-3", "function Alpha() {}\nexports.alpha = Alpha;\n"),
                                           ("2-", "function Alpha() {}\nexports.alpha = Alpha;\n"),
                                           ("-1", "// A\n"), ("3-99", "exports.alpha = Alpha;\n")])
def test_line_ranges(spec, expected):
    """N-M, N-, -M are inclusive and 1-based; a range past EOF is clipped."""
    assert cli("read", SPEC, "lib/a.js", "--lines", spec)[1] == expected


def test_start_past_eof_states_the_line_count():
    """A start beyond the end is INVALID_ARGUMENT carrying lineCount."""
    e = err(read_file.run, path="lib/a.js", start_line=4)
    assert e.code == "INVALID_ARGUMENT" and e.details["lineCount"] == 3 and "3 lines" in e.message


@pytest.mark.parametrize("path", ["logo.png", "latin1.txt"])
def test_binary_files_have_no_content(path):
    """NUL or invalid UTF-8: isBinary true, content absent, size given; plain prints nothing."""
    result = read_file.run({**TARGET, "path": path})
    assert result["isBinary"] is True and "content" not in result and result["size"] == len(FILES[path])
    code, out, errout = cli("read", SPEC, path)
    assert (code, out) == (0, "") and "binary" in errout


def test_empty_file_is_reported_as_empty():
    """An empty file is a success with no lines, not an error."""
    result = read_file.run({**TARGET, "path": "empty.txt"})
    assert (result["content"], result["totalLines"], result["hint"]) == ("", 0, "the file is empty")
    assert cli("read", SPEC, "empty.txt")[:2] == (0, "")


def test_json_read_is_cut_at_the_budget_with_a_continuation_hint():
    """--json stops at 2000 lines / 50 KiB with hasMore and the next start line; plain is whole."""
    code, out, _ = cli("read", SPEC, "big.txt", "--json")
    result = json.loads(out)
    assert result["hasMore"] is True and len(out.encode()) <= 52 * 1024
    nxt = result["endLine"] + 1
    assert f"start_line={nxt}" in result["hint"]
    follow = read_file.run({**TARGET, "path": "big.txt", "start_line": nxt})
    assert follow["content"].startswith(f"line {nxt} ")
    assert cli("read", SPEC, "big.txt")[1] == LONG


# --- §2.4 grep_file ---------------------------------------------------------------------------

def test_grep_is_case_insensitive_and_literal():
    """`alpha` finds Alpha; regex metacharacters match themselves."""
    assert cli("grep", SPEC, "alpha", "lib/a.js")[1] == "function Alpha() {}\nexports.alpha = Alpha;\n"
    assert cli("grep", SPEC, "(x) [y] ^z$ |", "regex.txt")[1] == "a.b*c (x) [y] ^z$ | end\n"
    assert cli("grep", SPEC, "a.*c", "regex.txt")[0] == 1


def test_grep_exit_codes_follow_grep_in_plain_and_json():
    """0 on a match, 1 on none, 2 on an error, with or without --json."""
    assert cli("grep", SPEC, "alpha", "lib/a.js")[0] == 0
    assert cli("grep", SPEC, "zzz", "lib/a.js")[0] == 1
    assert cli("grep", SPEC, "zzz", "lib/a.js", "--json")[0] == 1
    assert cli("grep", SPEC, "zzz", "nope.js")[0] == 2
    code, out, _ = cli("grep", SPEC, "zzz", "nope.js", "--json")
    assert code == 2 and json.loads(out)["error"]["code"] == "FILE_NOT_FOUND"


def test_grep_context_merges_touching_blocks_and_separates_others():
    """Matches 3,4,10,20,23 with -C2: 3-4 merge, 20/23 touch and merge, `--` between blocks."""
    out = cli("grep", SPEC, "match", "grep.txt", "--context", "2")[1]
    expected = [f"{'MATCH' if i in (3, 4, 10, 20, 23) else 'other'} {i}" for i in
                [*range(1, 7), "--", *range(8, 13), "--", *range(18, 26)]]
    expected = ["--" if "--" in e else e for e in expected]
    assert out.splitlines() == expected


@pytest.mark.parametrize("matches,context,expected", [
    ([10, 3, 4], 0, [(3, 4), (10, 10)]),         # unsorted matches; adjacent lines merge
    ([5, 7], 1, [(4, 8)]),                       # a match inside another's context: one block
    ([2, 6], 1, [(1, 3), (5, 7)]),               # a gap of one line keeps two blocks
    ([2, 5], 1, [(1, 6)]),                       # contexts that touch merge
    ([1, 30], 3, [(1, 4), (27, 30)]),            # clipped at both ends
    ([4, 4], 0, [(4, 4)]),                       # duplicates collapse
])
def test_block_merging(matches, context, expected):
    """Blocks follow grep -C: overlapping or touching ranges merge, never duplicating a line."""
    assert grep_file._blocks(matches, context, 30) == expected


def test_verbose_grep_numbers_lines_as_grep_n():
    """--verbose prints a header, then `N:line` for a match and `N-line` for context."""
    out = cli("grep", SPEC, "alpha", "lib/a.js", "-C", "1", "--verbose")[1]
    assert out == ("npm:demo@1.0.0 lib/a.js · 2 matching lines of 3 · context 1\n"
                   "1-// A\n"
                   "2:function Alpha() {}\n"
                   "3:exports.alpha = Alpha;\n")


@pytest.mark.parametrize("pattern", [r"\bfoo", r"\d+", r"foo\.bar", r"[a-z]+", r"[^x]", "(?=x)", "(?<!x)",
                                     "(?P<n>x)", "(?i)foo", r"x{2,3}", "[[:alpha:]]", r"\(x\)"])
def test_regex_signals_get_a_literal_nudge_on_stderr(pattern):
    """A no-match pattern carrying deliberate regex syntax gets one nudge line on stderr."""
    code, out, errout = cli("grep", SPEC, pattern, "lib/a.js")
    assert (code, out) == (1, "")
    assert "literally" in errout and len(errout.splitlines()) == 1


@pytest.mark.parametrize("pattern", ["foo.bar", "a*", "x?", "^start", "end$", "a|b", "f()", "arr[0]", "{}"])
def test_common_code_characters_are_not_regex_signals(pattern):
    """Bare . * ? ^ $ | () and indexing brackets are code, not regex: no nudge."""
    assert not _grep.looks_like_regex(pattern)
    assert cli("grep", SPEC, pattern, "lib/b.ts")[2] == ""


def test_the_semantics_sentence_is_shared_verbatim():
    """One sentence in the MCP tool description, the MCP pattern description and the CLI help."""
    spec = contract.tool_spec("grep_file")
    assert grep_file.SEMANTICS in spec["description"]
    assert spec["inputSchema"]["properties"]["pattern"]["description"] == grep_file.SEMANTICS
    help_text = " ".join(cli("grep", "--help")[1].split())
    assert " ".join(grep_file.SEMANTICS.split()) in help_text


@pytest.mark.parametrize("args,field", [({"pattern": "", "path": "a"}, "pattern"),
                                        ({"pattern": "x" * 1001, "path": "a"}, "pattern"),
                                        ({"pattern": "a\nb", "path": "a"}, "pattern"),
                                        ({"pattern": "a", "path": "a", "context": -1}, "context"),
                                        ({"pattern": "a", "path": "a", "context": 10**9}, "context")])
def test_bad_grep_arguments_name_the_field(args, field):
    """Empty, huge or multi-line patterns and bad contexts are INVALID_ARGUMENT naming the field."""
    e = err(grep_file.run, **args)
    assert (e.code, e.details["field"]) == ("INVALID_ARGUMENT", field)


def test_results_validate_against_their_output_schemas():
    """Every success result of the three tools fits its outputSchema."""
    for name, fn, args in [("list_files", list_files.run, {}), ("read_file", read_file.run, {"path": "big.txt"}),
                           ("read_file", read_file.run, {"path": "logo.png"}),
                           ("grep_file", grep_file.run, {"path": "grep.txt", "pattern": "match", "context": 1})]:
        contract.validator(name, "outputSchema").validate(fn({**TARGET, **args}))


def test_version_flag():
    """codenav --version prints the version."""
    assert cli("--version")[1].startswith("codenav ")


@pytest.mark.parametrize("text,expected", [
    ("npm:express@4.21.2", {"registry": "npm", "package_name": "express", "version": "4.21.2"}),
    ("npm:@types/node@^20", {"registry": "npm", "package_name": "@types/node", "version": "^20"}),
    ("pypi:requests>=2.30,<2.32", {"registry": "pypi", "package_name": "requests", "version": ">=2.30,<2.32"}),
    ("cargo:serde", {"registry": "crates", "package_name": "serde"}),
    ("github:octo/demo", {"repo_url": "https://github.com/octo/demo"}),
    ("github:octo/demo.js@release/1.x", {"repo_url": "https://github.com/octo/demo.js", "git_ref": "release/1.x"}),
    ("git:https://example.invalid/r.git#v1", {"repo_url": "https://example.invalid/r.git", "git_ref": "v1"}),
    ("git:git@example.invalid:o/r.git", {"repo_url": "git@example.invalid:o/r.git"}),
])
def test_target_strings_name_the_seed_fields(text, expected):
    """A target string is the CLI's SPEC grammar plus github:OWNER/NAME[@REF] and git:URL[#REF]."""
    from codenav.targets import parse_target

    assert parse_target(text) == expected


@pytest.mark.parametrize("spec", ["pypi:requests==2.32.3", "npm:express@latest", "gem:rails@~> 7.1", "go:golang.org/x/mod@v0.20.0"])
def test_a_registry_target_is_read_as_the_cli_reads_its_spec(spec):
    """Every registry form of the CLI's SPEC means the same as a target (one grammar)."""
    from codenav.targets import parse_spec, parse_target

    assert parse_target(spec) == parse_spec(spec)


# --- the locked version and the opened entry (SPEC §3.9; issue 22 items 3 and 6) ---------------

def locked_project(tmp_path, version: str = "1.0.0"):
    """A project whose package-lock.json locks demo at ``version``, beside a bun.lock that cannot be read
    (skipped, which the answer warns of)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()
    lock = {"name": "p", "lockfileVersion": 3, "requires": True,
            "packages": {"": {"dependencies": {"demo": "^1.0.0"}}, "node_modules/demo": {"version": version}}}
    (project / "package-lock.json").write_text(json.dumps(lock))
    (project / "bun.lock").write_text("{}")
    return project


def mcp_payload(tool: str, args: dict) -> dict:
    """The envelope the MCP server answers (validated against the inputSchema first)."""
    from codenav.mcp import handlers

    handlers.set_answer_form(json=True)
    try:
        result = handlers.call_tool({"name": tool, "arguments": args}, handlers.Session())
    finally:
        handlers.set_answer_form(json=False)
    return json.loads(result["content"][0]["text"])


@pytest.mark.parametrize(("tool", "args", "argv"), [
    ("grep_repo", {"pattern": "Alpha"}, ["grep", "npm:demo", "Alpha"]),
    ("search_symbols", {"query": "Alpha"}, ["symbols", "npm:demo", "Alpha"]),
])
def test_grep_repo_and_search_symbols_take_project_dir_and_read_its_locked_version(registry, tmp_path, tool, args,
                                                                                     argv):
    """project_dir names the project whose lockfile pins the version, on MCP as on the CLI (--project)."""
    registry.publish("demo", "2.0.0", {"lib/a.js": b"function Alpha() {}\n"})
    project = locked_project(tmp_path)
    payload = mcp_payload(tool, {"registry": "npm", "package_name": "demo", "project_dir": str(project), **args})
    assert "error" not in payload, payload
    assert (payload["target"]["version"], payload["target"]["versionSource"]["kind"]) == ("1.0.0", "lockfile")
    code, out, _ = cli(*argv, "--project", str(project), "--json")
    assert (code, json.loads(out)) == (0, payload)


def test_an_opened_target_leaves_the_shared_cache_entry_as_it_was(registry, tmp_path, monkeypatch):
    """What one request adds (where its version came from, its warnings) rides beside the cached entry,
    so a server that keeps the entry answers the next request with nothing of the first."""
    from codenav import cache

    assert list_files.run(dict(TARGET))["target"]["version"] == "1.0.0"  # indexed
    shared = cache.open_entry(from_args(TARGET), 0)
    before = (shared.target, sorted(vars(shared)))
    monkeypatch.setattr(cache, "open_entry", lambda target, wait: shared)
    locked = read_file.run({"registry": "npm", "package_name": "demo", "project_dir": str(locked_project(tmp_path)),
                            "path": "index.js"})
    assert locked["target"]["versionSource"]["kind"] == "lockfile" and locked["warnings"]
    exact = read_file.run({**TARGET, "path": "index.js"})
    assert exact["target"]["versionSource"] == {"kind": "exact", "spec": "1.0.0"} and "warnings" not in exact
    assert (shared.target, sorted(vars(shared))) == before and "versionSource" not in shared.target


def test_plain_grep_repo_hints_speak_the_cli_words():
    """A search that found nothing because the pattern was taken literally says --regex on stderr, in
    the CLI's words; the envelope keeps regex=true."""
    code, out, errout = cli("grep", SPEC, "\\d+x")
    assert (code, out) == (1, "")
    assert errout == "codenav: No match; the pattern is matched literally: pass --regex for a regular expression.\n"
    assert "pass regex=true (CLI: --regex)" in json.loads(cli("grep", SPEC, "\\d+x", "--json")[1])["hint"]
