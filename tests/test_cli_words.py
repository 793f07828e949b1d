"""Issue 12: what the plain CLI tells a person — uncut grep, words of the surface, versions,
suggestions, yanked and deprecated releases — each pinned as exact text, with ``--json``
still the MCP envelope byte for byte."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from codenav import contract
from codenav.cache import open_entry
from codenav.targets import from_args
from tests.support.cli import run_cli

# 600 lines, 598 of them matching "function" (the shape of @types/node's index.d.ts), wider
# than the output budget all together; and a file whose matches are apart (the shape of ms).
MANY = "".join(f"declare function f{i}(x: number): void; // {'y' * 100}\n" for i in range(1, 599)).encode()
MANY = b"// head\n" + MANY + b"// tail\n"
APART = (b"/**\n * Helpers.\n */\n\nmodule.exports = function (val) {\n  return parse(val);\n};\n\n"
         b"function parse(str) {\n  return Number(str);\n}\n\nfunction fmtShort(ms) {\n  return ms;\n}\n\n"
         b"// A FUNCTION in capitals and a Function in title case.\nfunction plural(ms, n) {\n  return n;\n}\n")
FILES = {"index.d.ts": MANY, "index.js": APART, "src/cryptography/fernet.py": b"class Fernet: ...\n",
         "tests/test_fernet.py": b"", "docs/fernet.py": b""}
SPEC = "npm:demo@1.0.0"
TARGET = {"registry": "npm", "package_name": "demo", "version": "1.0.0"}


@pytest.fixture(autouse=True)
def registry(npm):
    """The fake npm registry, with demo@1.0.0 published."""
    npm.publish("demo", "1.0.0", FILES)
    return npm


def cli(*args: str) -> tuple[int, str, str]:
    proc = run_cli(*args)
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def mcp_text(tool: str, args: dict) -> str:
    """The text block the MCP server's tools/call handler answers for one call."""
    from codenav.mcp import handlers

    handlers.set_answer_form(json=True)  # the envelope, as `codenav mcp --json` answers
    try:
        return handlers.call_tool({"name": tool, "arguments": args}, handlers.Session())["content"][0]["text"]
    finally:
        handlers.set_answer_form(json=False)


# --- item 5: plain grep is grep(1) --------------------------------------------------------------

def cached_file(path: str) -> str:
    """The file as the cache holds it (after a listing has downloaded the package)."""
    assert cli("files", SPEC)[0] == 0
    entry = open_entry(from_args(TARGET), 0)
    return os.path.join(entry.path, "tree", path)


def gnu_grep(*args: str) -> str:
    if shutil.which("grep") is None:
        pytest.skip("grep(1) is not installed")
    proc = subprocess.run(["grep", *args], capture_output=True, check=False)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout.decode("utf-8")


@pytest.mark.parametrize(("path", "pattern"), [("index.d.ts", "function"), ("index.js", "function"),
                                                 ("index.js", "RETURN")])
def test_plain_grep_prints_what_gnu_grep_prints_without_context(path, pattern):
    """Without --context plain grep prints every matching line and nothing else, as grep -F -i does."""
    expected = gnu_grep("-F", "-i", pattern, cached_file(path))
    code, out, errout = cli("grep", SPEC, pattern, path)
    assert (code, errout) == (0, "")
    assert out.splitlines() == expected.splitlines()
    assert out == expected


@pytest.mark.parametrize(("path", "pattern", "context"), [("index.js", "function", "0"),
                                                          ("index.js", "function", "1"),
                                                          ("index.js", "function", "2"),
                                                          ("index.js", "return", "3"),
                                                          ("index.d.ts", "function", "1")])
def test_plain_grep_with_context_prints_what_gnu_grep_prints(path, pattern, context):
    """With --context N the groups and their `--` separators are those of grep -F -i -C N."""
    expected = gnu_grep("-F", "-i", "-C", context, pattern, cached_file(path))
    code, out, errout = cli("grep", SPEC, pattern, path, "--context", context)
    assert (code, errout) == (0, "")
    assert out == expected


def test_plain_grep_is_never_cut_but_json_is_and_equals_mcp():
    """The 598 matches of a file wider than the budget all print in plain mode; --json keeps the cut and MCP's bytes."""
    code, out, errout = cli("grep", SPEC, "function", "index.d.ts")
    assert (code, errout) == (0, "")
    assert len(out.splitlines()) == 598
    args = {**TARGET, "pattern": "function", "path": "index.d.ts"}
    code, out, _ = cli("grep", SPEC, "function", "index.d.ts", "--json")
    assert '"hasMore":true' in out
    contract.validator("grep_file", "outputSchema").validate(json.loads(out))
    assert out == mcp_text("grep_file", args) + "\n"


# --- item 1: the words of the surface ------------------------------------------------------------

@pytest.mark.parametrize(("neutral", "cli_words"), [
    ("start_line 500 is past the end of requests/api.py, which has 120 lines",
     "--lines 500- is past the end of requests/api.py, which has 120 lines"),
    ("Continue with start_line=1493 (CLI: --lines 1493-).", "Continue with --lines 1493-."),
    ("Continue with start_line=5, end_line=1200 (CLI: --lines 5-1200).", "Continue with --lines 5-1200."),
    ("path_prefix is a literal directory prefix", "PATH_PREFIX is a literal directory prefix"),
    ("list the files with list_files", "list the files with codenav files SPEC"),
    ("read further with read_file start_line=400", "read further with codenav read SPEC PATH --lines 400-"),
    ("name a branch or tag with git_ref", "name a branch or tag with --git-ref"),
    ("pick one of availableVersions, or omit the version for latest",
     "pick one of the versions above, or omit the version for latest"),
    ("a start_line_x or my_path_prefix stays", "a start_line_x or my_path_prefix stays"),
])
def test_for_cli_respells_argument_and_tool_names(neutral, cli_words):
    """The one wording table turns MCP names into what a person types, whole words only."""
    from codenav.words import for_cli

    assert for_cli(neutral) == cli_words


def check_surfaces(argv: list[str], tool: str, args: dict, stderr: str, code: int = 1) -> str:
    """Plain stderr is exactly ``stderr``; --json is MCP's text block byte for byte; returns the JSON."""
    got = cli(*argv)
    assert (got[0], got[1], got[2]) == (code, got[1], stderr)
    json_out = cli(*argv, "--json")[1]
    assert json_out == mcp_text(tool, args) + "\n"
    return json_out


def test_a_line_past_the_end_speaks_of_lines_on_the_cli_and_start_line_in_json():
    """`--lines 500-600` past the end says `--lines 500-` on stderr, `start_line 500` in the envelope."""
    json_out = check_surfaces(["read", SPEC, "index.js", "--lines", "500-600"], "read_file",
                              {**TARGET, "path": "index.js", "start_line": 500, "end_line": 600},
                              "codenav: --lines 500- is past the end of index.js, which has 20 lines\n")
    assert "start_line 500 is past the end" in json_out and "--lines" not in json_out


def test_a_glob_hint_speaks_of_path_prefix_in_capitals_on_the_cli():
    """A glob given as PATH_PREFIX is explained with the CLI's operand name; the envelope keeps path_prefix."""
    code, out, errout = cli("files", SPEC, "*.js")
    assert (code, out) == (0, "")
    assert errout == ("codenav: PATH_PREFIX is a literal directory prefix, not a glob: pass the pattern as glob, or give a "
                      "folder such as 'lib'\n")
    json_out = cli("files", SPEC, "*.js", "--json")[1]
    assert json_out == mcp_text("list_files", {**TARGET, "path_prefix": "*.js"}) + "\n"
    assert "path_prefix is a literal" in json_out and "PATH_PREFIX" not in json_out


def test_an_unknown_path_says_codenav_files_on_the_cli_and_list_files_in_json():
    """FILE_NOT_FOUND's action names `codenav files SPEC` on stderr and list_files in the envelope."""
    json_out = check_surfaces(["read", SPEC, "nope.js"], "read_file", {**TARGET, "path": "nope.js"},
                              "codenav: nope.js is not a file of this target\n"
                              "codenav: list the files with codenav files SPEC\n")
    assert '"action":"list the files with list_files"' in json_out


# --- item 2: the versions that exist -------------------------------------------------------------

def test_an_unknown_version_prints_the_nearest_versions_and_latest(registry):
    """VERSION_NOT_FOUND lists a few available versions, nearest first, and latest, before the action."""
    for version in ("3.0.0", "4.19.0", "4.20.0", "4.21.1", "4.21.2", "5.0.0"):
        registry.publish("express", version, {"index.js": b""})
    registry.tag("express", "latest", "4.21.2")
    json_out = check_surfaces(
        ["files", "npm:express@4.99.0"], "list_files", {"registry": "npm", "package_name": "express",
                                                        "version": "4.99.0"},
        "codenav: npm package 'express' has no version or dist-tag '4.99.0'; latest is 4.21.2\n"
        "codenav: nearest versions: 4.21.2, 4.21.1, 4.20.0, 4.19.0, 5.0.0; latest 4.21.2\n"
        "codenav: pick one of the versions above, or omit the version for latest\n")
    assert '"availableVersions":["4.21.2","4.21.1","4.20.0","4.19.0","5.0.0","3.0.0"]' in json_out
    # --verbose prints the error TEXT in the CLI's words: the code first, every version.
    code, out, errout = cli("files", "npm:express@4.99.0", "--verbose")
    assert (code, out) == (1, "")
    assert errout == ("codenav: VERSION_NOT_FOUND: npm package 'express' has no version or dist-tag '4.99.0'; "
                      "latest is 4.21.2\n"
                      "codenav: retry: will not help as is\n"
                      "codenav: available versions: 4.21.2, 4.21.1, 4.20.0, 4.19.0, 5.0.0, 3.0.0\n"
                      "codenav: latest: 4.21.2\n"
                      "codenav: next: pick one of the versions above, or omit the version for latest\n")


# --- item 4: the paths meant ---------------------------------------------------------------------

def test_an_unknown_path_suggests_the_nearest_listed_paths():
    """`cryptography/fernet.py` suggests src/cryptography/fernet.py first, in details.suggestions and on stderr."""
    json_out = check_surfaces(
        ["read", SPEC, "cryptography/fernet.py"], "read_file", {**TARGET, "path": "cryptography/fernet.py"},
        "codenav: cryptography/fernet.py is not a file of this target\n"
        "codenav: did you mean src/cryptography/fernet.py or docs/fernet.py?\n"
        "codenav: list the files with codenav files SPEC\n")
    assert '"suggestions":["src/cryptography/fernet.py","docs/fernet.py"]' in json_out
    code, _, errout = cli("grep", SPEC, "x", "src/cryptography/fernet.js")
    assert code == 2 and "codenav: did you mean src/cryptography/fernet.py?\n" in errout


# --- item 8: pip's spelling of a pin -------------------------------------------------------------

@pytest.mark.parametrize("argv", [["files", "npm:express==4.21.2"], ["files", "npm:express==4.21.2", "--json"]])
def test_a_pip_pin_on_npm_is_answered_with_the_spec_meant(argv):
    """pip's spelling of a pin on npm (`npm:express==4.21.2`) is INVALID_ARGUMENT suggesting
    npm:express@4.21.2, before any download (on PyPI the PEP 508 spelling is understood:
    tests/test_versions.py)."""
    code, out, errout = cli(*argv)
    assert code == 1
    if "--json" in argv:
        assert out == ('{"error":{"code":"INVALID_ARGUMENT","details":{"field":"spec","suggestion":'
                       '"npm:express@4.21.2"},"message":"npm:express==4.21.2 is not a package spec: the '
                       'version follows \'@\'","retryable":false}}\n')
    else:
        assert (out, errout) == ("", "codenav: npm:express==4.21.2 is not a package spec: the version follows '@'\n"
                                     "codenav: did you mean npm:express@4.21.2?\n")


# --- item 3: yanked and deprecated releases ------------------------------------------------------

@pytest.mark.parametrize("html_only", [False, True])
@pytest.mark.parametrize(("yanked", "echo", "note"), [
    ("broken TLS verification", "broken TLS verification", ": broken TLS verification"),
    (True, True, " (no reason given)"),
])
def test_a_yanked_release_is_served_with_a_warning_and_the_reason(pypi, html_only, yanked, echo, note):
    """A pinned yanked release is read, with target.yanked (the reason or true) and one stderr line in plain mode."""
    pypi.html_only = html_only
    pypi.add_wheel("requests", "2.32.3", {"requests/__init__.py": b""})
    pypi.add_wheel("requests", "2.32.0", {"requests/__init__.py": b""}, yanked=yanked)
    args = {"registry": "pypi", "package_name": "requests", "version": "2.32.0"}
    code, out, errout = cli("files", "pypi:requests@2.32.0")
    assert (code, out) == (0, "requests/__init__.py\n")
    assert errout == f"codenav: warning: pypi:requests@2.32.0 is yanked{note}\n"
    json_out = cli("files", "pypi:requests@2.32.0", "--json")[1]
    assert json_out == mcp_text("list_files", args) + "\n"
    assert json.loads(json_out)["target"]["yanked"] == echo
    contract.validator("list_files", "outputSchema").validate(json.loads(json_out))
    assert cli("files", "pypi:requests@2.32.3")[2] == ""  # the release that is not yanked says nothing


def test_a_deprecated_npm_version_is_served_with_npms_message(registry):
    """A deprecated version echoes target.deprecated with npm's message and warns once on stderr."""
    registry.publish("old", "1.0.0", {"a.js": b"1\n"})
    registry.deprecate("old", "1.0.0", "use new instead")
    args = {"registry": "npm", "package_name": "old", "version": "1.0.0"}
    code, out, errout = cli("read", "npm:old@1.0.0", "a.js")
    assert (code, out, errout) == (0, "1\n", "codenav: warning: npm:old@1.0.0 is deprecated: use new instead\n")
    json_out = cli("read", "npm:old@1.0.0", "a.js", "--json")[1]
    assert json_out == mcp_text("read_file", {**args, "path": "a.js"}) + "\n"
    assert '"deprecated":"use new instead"' in json_out
    contract.validator("read_file", "outputSchema").validate(json.loads(json_out))
    assert '"deprecated"' not in cli("files", SPEC, "--json")[1]


def test_verbose_hints_speak_the_cli_words_too():
    """--verbose shows the hint inline on stdout, in the CLI's words like plain mode's stderr."""
    code, out, errout = cli("files", SPEC, "*.js", "--verbose")
    assert (code, errout) == (0, "")
    assert out.endswith("hint: PATH_PREFIX is a literal directory prefix, not a glob: pass the pattern as glob, or give a "
                        "folder such as 'lib'\n")


def test_error_lines_order_message_recovery_then_action():
    """words.error_lines puts what details offers between the message and the action, at most 5 of each list."""
    from codenav.words import error_lines

    details = {"availableRefs": [f"v{i}" for i in range(8)], "requestedRef": "v9",
               "action": "check the ref, or name a branch or tag with git_ref"}
    assert error_lines("REF_NOT_FOUND", "no ref v9", details) == [
        "no ref v9", "nearest refs: v0, v1, v2, v3, v4", "check the ref, or name a branch or tag with --git-ref"]
    assert error_lines("VERSION_NOT_FOUND", "no version 9", {"availableVersions": [], "latest": None}) == [
        "no version 9"]
    paths = {"suggestions": [f"p{i}/a.py" for i in range(5)]}
    assert error_lines("FILE_NOT_FOUND", "a.py is not a file", paths) == [
        "a.py is not a file", "did you mean one of p0/a.py, p1/a.py, p2/a.py, p3/a.py, p4/a.py?"]
