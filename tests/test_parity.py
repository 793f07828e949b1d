"""Byte parity: `codenav <cmd> --json` prints exactly the MCP text payload, for every tool,
on success and on every error code the tool can return (SPEC §4, §7)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.fakes import grepapp
from tests.fakes.github import FakeGitHub
from tests.fakes.http import FakeServer, Reply
from tests.fakes.npm import FakeNpm
from tests.support.archives import File, build
from tests.support.cli import ROOT, run_cli
from tests.support.mcp import McpSession, check

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid"}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Fake npm, grep.app and GitHub, a git repo, and one MCP server sharing the CLI's env."""
    base = tmp_path_factory.mktemp("parity")
    repo = base / "repo"
    repo.mkdir()
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "x"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, env={**os.environ, **GIT_ENV})
    with FakeServer() as dead:
        dead_url = dead.url  # closed again below: nobody listens there (NETWORK)
    with FakeServer() as npm_server, grepapp.FakeGrepApp() as grep, FakeServer() as gh_server:
        npm = FakeNpm(npm_server)
        npm.publish("demo", "1.0.0", {
            "index.js": b"const x = require('x');\nmodule.exports = x;\n", "logo.png": b"\x89PNG\0\0",
            "empty.txt": b"", "big.txt": "".join(f"row {i} \"quoted\" \\ {'y' * 40}\n" for i in range(4000)).encode(),
        })
        npm.publish("tampered", "1.0.0", {"a.js": b"1"})
        npm.packages["tampered"]["1.0.0"].tarball = npm.packages["demo"]["1.0.0"].tarball
        npm.publish("evil", "1.0.0", {}, tarball=build("tar.gz", [File("package/ok.js"), File("package/../../escape", b"x")]))
        # Each file under the per-file limit, together over the extracted total: TOO_LARGE.
        npm.publish("huge", "1.0.0", {f"zeros{i}.bin": bytes(900 * 1024) for i in range(3)})
        # One file over the per-file limit: listed as too large, the rest served (SPEC §3.7).
        npm.publish("bigmember", "1.0.0", {"zeros.bin": bytes(1536 * 1024), "index.js": b"x = 1;\n"})
        npm.publish("slow", "1.0.0", {"a.js": b""})
        npm.publish("changed", "1.0.0", {"a.js": b"one\ntwo\n", "gone.txt": b"x", "logo.png": b"\x89PNG\0\1",
                                         "lib/old.js": b"same\n"})
        npm.publish("changed", "2.0.0", {"a.js": b"one\n\"2\"\r\n", "born.txt": b"", "logo.png": b"\x89PNG\0\2",
                                         "lib/new.js": b"same\n"})
        npm.publish("pages", "1.0.0", {f"{i:02}.txt": b"old \\ line\n" * 300 for i in range(40)})
        npm.publish("pages", "2.0.0", {f"{i:02}.txt": b"new \" line\n" * 300 for i in range(40)})
        gh_server.route_prefix("GET", "/repos/limited/", lambda h: Reply(429, b'{"message":"slow down"}', {
            "Content-Type": "application/json", "Retry-After": "60"}))  # before FakeGitHub's catch-all
        github = FakeGitHub(gh_server)
        github.add_file("octo/demo", "src/app.py", b"print('hi')\n")
        github.add_file("octo/demo", "data.bin", b"\0\1\2")
        github.add_file("octo/demo", "empty.txt", b"")
        env = {**os.environ, "PYTHONPATH": str(ROOT), "CODENAV_CACHE_DIR": str(base / "cache"),
               "HOME": str(base), "CODENAV_NPM_REGISTRY": npm.url, "CODENAV_PYPI_INDEX_URL": dead_url + "/simple/",
               "CODENAV_GREP_APP_URL": grep.url, "CODENAV_GITHUB_API_URL": gh_server.url,
               "CODENAV_GREP_APP_TIMEOUT": "1", "CODENAV_MAX_FILE_BYTES": str(1024 * 1024),
               "CODENAV_MAX_EXTRACTED_BYTES": str(2 * 1024 * 1024),
               "PATH": os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "gh").exists())}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        npm.tarball_delay = 0.0
        session, text_session = McpSession(env), McpSession(env, json_answers=False)
        yield {"env": env, "mcp": session, "text": text_session, "npm": npm, "grep": grep, "repo": str(repo)}
        session.close()
        text_session.close()


DEMO = {"registry": "npm", "package_name": "demo", "version": "1.0.0"}


@pytest.mark.parametrize("arguments,argv,code", [
    (DEMO, ["files", "npm:demo@1.0.0"], None),
    ({**DEMO, "path_prefix": "*.js"}, ["files", "npm:demo@1.0.0", "*.js"], None),
    ({"registry": "npm", "package_name": "nope"}, ["files", "npm:nope"], "NOT_FOUND"),
    ({**DEMO, "version": "9.9.9"}, ["files", "npm:demo@9.9.9"], "VERSION_NOT_FOUND"),
    ({**DEMO, "path_prefix": "../x"}, ["files", "npm:demo@1.0.0", "../x"], "INVALID_ARGUMENT"),
    ({"registry": "npm", "package_name": "tampered", "version": "1.0.0"}, ["files", "npm:tampered@1.0.0"],
     "INTEGRITY_ERROR"),
    ({"registry": "npm", "package_name": "evil", "version": "1.0.0"}, ["files", "npm:evil@1.0.0"], "UNSAFE_ARCHIVE"),
    ({"registry": "npm", "package_name": "huge", "version": "1.0.0"}, ["files", "npm:huge@1.0.0"], "TOO_LARGE"),
    ({"registry": "npm", "package_name": "bigmember", "version": "1.0.0"}, ["files", "npm:bigmember@1.0.0"], None),
    ({"registry": "pypi", "package_name": "anything"}, ["files", "pypi:anything"], "NETWORK"),
])
def test_list_files_parity(world, arguments, argv, code):
    """list_files: success, glob hint and each error code are byte-identical on both surfaces."""
    check(world, "list_files", arguments, argv, code=code)


def test_git_target_parity(world):
    """Git targets, and an unknown ref (REF_NOT_FOUND), are byte-identical."""
    check(world, "list_files", {"repo_url": world["repo"]}, ["files", "--repo-url", world["repo"]])
    check(world, "list_files", {"repo_url": world["repo"], "git_ref": "nope"},
          ["files", "--repo-url", world["repo"], "--git-ref", "nope"], code="REF_NOT_FOUND")


def test_indexing_parity(world):
    """A cold target with no wait is INDEXING with the same indexingRef on both surfaces."""
    world["npm"].tarball_delay = 3.0
    try:
        payload = check(world, "list_files", {"registry": "npm", "package_name": "slow", "version": "1.0.0",
                                              "wait_timeout_ms": 0}, ["files", "npm:slow@1.0.0", "--wait", "0"],
                        code="INDEXING")
    finally:
        world["npm"].tarball_delay = 0.0
    assert payload["error"]["retryable"] is True and payload["error"]["details"]["indexingRef"]


@pytest.mark.parametrize("arguments,argv,code", [
    ({**DEMO, "path": "index.js"}, ["read", "npm:demo@1.0.0", "index.js"], None),
    ({**DEMO, "path": "index.js", "start_line": 2}, ["read", "npm:demo@1.0.0", "index.js", "--lines", "2-"], None),
    ({**DEMO, "path": "logo.png"}, ["read", "npm:demo@1.0.0", "logo.png"], None),
    ({**DEMO, "path": "empty.txt"}, ["read", "npm:demo@1.0.0", "empty.txt"], None),
    ({**DEMO, "path": "big.txt"}, ["read", "npm:demo@1.0.0", "big.txt"], None),
    ({**DEMO, "path": "nope.js"}, ["read", "npm:demo@1.0.0", "nope.js"], "FILE_NOT_FOUND"),
    ({"registry": "npm", "package_name": "bigmember", "version": "1.0.0", "path": "zeros.bin"},
     ["read", "npm:bigmember@1.0.0", "zeros.bin"], "TOO_LARGE"),
    ({**DEMO, "path": "index.js", "start_line": 9}, ["read", "npm:demo@1.0.0", "index.js", "--lines", "9-"],
     "INVALID_ARGUMENT"),
    ({**DEMO, "path": "../x"}, ["read", "npm:demo@1.0.0", "../x"], "INVALID_ARGUMENT"),
])
def test_read_file_parity(world, arguments, argv, code):
    """read_file: whole, range, binary, empty, budget cut and errors are byte-identical."""
    check(world, "read_file", arguments, argv, code=code)


@pytest.mark.parametrize("arguments,argv,code", [
    ({**DEMO, "path": "index.js", "pattern": "REQUIRE", "context": 1},
     ["grep", "npm:demo@1.0.0", "REQUIRE", "index.js", "--context", "1"], None),
    ({**DEMO, "path": "index.js", "pattern": r"\d+"}, ["grep", "npm:demo@1.0.0", r"\d+", "index.js"], None),
    ({**DEMO, "path": "logo.png", "pattern": "x"}, ["grep", "npm:demo@1.0.0", "x", "logo.png"], None),
    ({**DEMO, "path": "nope.js", "pattern": "x"}, ["grep", "npm:demo@1.0.0", "x", "nope.js"], "FILE_NOT_FOUND"),
    ({"registry": "npm", "package_name": "bigmember", "version": "1.0.0", "path": "zeros.bin", "pattern": "x"},
     ["grep", "npm:bigmember@1.0.0", "x", "zeros.bin"], "TOO_LARGE"),
    ({**DEMO, "path": "index.js", "pattern": "a\nb"}, ["grep", "npm:demo@1.0.0", "a\nb", "index.js"],
     "INVALID_ARGUMENT"),
])
def test_grep_file_parity(world, arguments, argv, code):
    """grep_file: matches, no match with the regex nudge, binary and errors are byte-identical."""
    check(world, "grep_file", arguments, argv, code=code)


@pytest.mark.parametrize("arguments,argv,code", [
    ({**DEMO, "pattern": "x"}, ["grep", "npm:demo@1.0.0", "x"], None),
    ({**DEMO, "pattern": "quoted", "context": 1, "max_matches": 3},
     ["grep", "npm:demo@1.0.0", "quoted", "-C", "1", "-m", "3"], None),
    ({**DEMO, "pattern": r"\d+"}, ["grep", "npm:demo@1.0.0", r"\d+"], None),
    ({**DEMO, "pattern": "(", "regex": True}, ["grep", "npm:demo@1.0.0", "(", "--regex"], "INVALID_ARGUMENT"),
])
def test_grep_repo_parity(world, arguments, argv, code):
    """grep_repo: matches, a capped page with a cursor, no match and an error are byte-identical."""
    check(world, "grep_repo", arguments, argv, code=code)


CHANGED = {"registry": "npm", "package_name": "changed", "from_version": "1.0.0", "to_version": "2.0.0"}


@pytest.mark.parametrize("arguments,argv,code", [
    (CHANGED, ["diff", "npm:changed", "1.0.0", "2.0.0"], None),
    ({**CHANGED, "path_prefix": "lib", "context": 0}, ["diff", "npm:changed", "1.0.0", "2.0.0", "lib", "-U", "0"], None),
    ({k: v for k, v in CHANGED.items() if k != "to_version"}, ["diff", "npm:changed", "--from", "1.0.0"], None),
    ({**CHANGED, "to_version": "9.9.9"}, ["diff", "npm:changed", "1.0.0", "9.9.9"], "VERSION_NOT_FOUND"),
    ({**CHANGED, "path": "nope.js"}, ["diff", "npm:changed", "1.0.0", "2.0.0", "--path", "nope.js"], "FILE_NOT_FOUND"),
    ({**CHANGED, "context": 21}, ["diff", "npm:changed", "1.0.0", "2.0.0", "--context", "21"], "INVALID_ARGUMENT"),
    ({**CHANGED, "cursor": "bogus"}, ["diff", "npm:changed", "1.0.0", "2.0.0", "--cursor", "bogus"],
     "INVALID_ARGUMENT"),
])
def test_diff_versions_parity(world, arguments, argv, code):
    """diff_versions: a diff, a narrowed one, the latest as default and each error are byte-identical."""
    check(world, "diff_versions", arguments, argv, code=code)


def test_diff_versions_pages_are_byte_identical(world):
    """Following nextCursor gives the same pages on both surfaces, to the last one."""
    arguments = {"registry": "npm", "package_name": "pages", "from_version": "1.0.0", "to_version": "2.0.0"}
    argv = ["diff", "npm:pages", "1.0.0", "2.0.0"]
    payload = check(world, "diff_versions", arguments, argv)
    pages = 1
    while payload["hasMore"]:
        cursor = payload["nextCursor"]
        payload = check(world, "diff_versions", {**arguments, "cursor": cursor}, [*argv, "--cursor", cursor])
        pages += 1
    assert pages > 1


@pytest.mark.parametrize("arguments,argv,code", [
    ({**DEMO, "query": "x"}, ["symbols", "npm:demo@1.0.0", "x"], None),
    ({**DEMO, "query": "X", "match": "prefix", "kind": ["variable"], "max_results": 1},
     ["symbols", "npm:demo@1.0.0", "X", "--match", "prefix", "--kind", "variable", "--max", "1"], None),
    ({**DEMO, "query": "nothing"}, ["symbols", "npm:demo@1.0.0", "nothing"], None),
    ({"registry": "npm", "package_name": "nope", "query": "x"}, ["symbols", "npm:nope", "x"], "NOT_FOUND"),
    ({**DEMO, "query": "x", "cursor": "7-00000000"}, ["symbols", "npm:demo@1.0.0", "x", "--cursor", "7-00000000"],
     "INVALID_ARGUMENT"),
    ({**DEMO, "query": "x", "kind": ["widget"]}, ["symbols", "npm:demo@1.0.0", "x", "--kind", "widget"],
     "INVALID_ARGUMENT"),
])
def test_search_symbols_parity(world, arguments, argv, code):
    """search_symbols: found, prefix page, none found and errors are byte-identical."""
    check(world, "search_symbols", arguments, argv, code=code)


HIT = grepapp.hit_text("octo/demo", "src/app.py", [(3, ["", "  def get(", "Path: x"])])


@pytest.mark.parametrize("reply,arguments,argv,code", [
    (grepapp.sse_reply(grepapp.result([HIT])), {"query": "def get(", "repo": "octo/"},
     ["search", "def get(", "--repo", "octo/"], None),
    (grepapp.json_reply(grepapp.result([grepapp.NO_RESULTS])), {"query": "zzz"}, ["search", "zzz"], None),
    (grepapp.json_reply(grepapp.rpc_error(-32602, "Invalid arguments")), {"query": "x"}, ["search", "x"],
     "INVALID_ARGUMENT"),
    (grepapp.json_reply(grepapp.result(["boom"], is_error=True)), {"query": "x"}, ["search", "x"], "UPSTREAM_ERROR"),
    (Reply(429, b"", {"Retry-After": "30"}), {"query": "x"}, ["search", "x"], "RATE_LIMITED"),
    (Reply(504, b"Gateway Timeout"), {"query": "x"}, ["search", "x"], "UPSTREAM_ERROR"),
    (Reply(200, b"<html>", {"Content-Type": "text/html"}), {"query": "x"}, ["search", "x"], "PROTOCOL_ERROR"),
    (Reply(200, b"{}", delay=2.0), {"query": "x"}, ["search", "x"], "TIMEOUT"),
    (Reply(302, b"", {"Location": "http://127.0.0.1:1/"}), {"query": "x"}, ["search", "x"], "PROTOCOL_ERROR"),
    (Reply(200, b"x" * (3 * 1024 * 1024)), {"query": "x"}, ["search", "x"], "TOO_LARGE"),
    (grepapp.json_reply(grepapp.result([grepapp.NO_RESULTS])), {"query": "AKIAIOSFODNN7EXAMPLE"},
     ["search", "AKIAIOSFODNN7EXAMPLE"], "INVALID_ARGUMENT"),
])
def test_codesearch_parity(world, reply, arguments, argv, code):
    """codesearch: hits, no results and each upstream failure are byte-identical."""
    world["grep"].answer(reply)
    check(world, "codesearch", arguments, argv, code=code)


@pytest.mark.parametrize("arguments,argv,code", [
    ({"repo": "octo/demo", "path": "src/app.py"}, ["fetch", "--repo", "octo/demo", "--path", "src/app.py"], None),
    ({"url": "https://github.com/octo/demo/blob/main/src/app.py", "start_line": 1, "end_line": 1},
     ["fetch", "https://github.com/octo/demo/blob/main/src/app.py", "--lines", "1-1"], None),
    ({"repo": "octo/demo", "path": "data.bin"}, ["fetch", "--repo", "octo/demo", "--path", "data.bin"], None),
    ({"repo": "octo/demo", "path": "empty.txt"}, ["fetch", "--repo", "octo/demo", "--path", "empty.txt"], None),
    ({"repo": "octo/demo", "path": "nope.py"}, ["fetch", "--repo", "octo/demo", "--path", "nope.py"],
     "FILE_NOT_FOUND"),
    ({"repo": "octo/none", "path": "a.py"}, ["fetch", "--repo", "octo/none", "--path", "a.py"], "NOT_FOUND"),
    ({"repo": "octo/demo", "path": "src/app.py", "ref": "nope"},
     ["fetch", "--repo", "octo/demo", "--path", "src/app.py", "--ref", "nope"], "REF_NOT_FOUND"),
    ({"repo": "octo/demo", "path": "src"}, ["fetch", "--repo", "octo/demo", "--path", "src"], "INVALID_ARGUMENT"),
    ({"repo": "limited/repo", "path": "a.py"}, ["fetch", "--repo", "limited/repo", "--path", "a.py"], "RATE_LIMITED"),
    ({"url": "https://gitlab.com/a/b/blob/main/x"}, ["fetch", "https://gitlab.com/a/b/blob/main/x"],
     "INVALID_ARGUMENT"),
])
def test_codefetch_parity(world, arguments, argv, code):
    """codefetch: file, range, binary, empty and each error are byte-identical."""
    check(world, "codefetch", arguments, argv, code=code)


def test_schema_validation_failure_is_an_error_envelope(world):
    """An MCP argument of the wrong type is an isError result with INVALID_ARGUMENT naming the field."""
    result = world["mcp"].call("read_file", {**DEMO, "path": "index.js", "start_line": "two"})
    assert result["isError"] is True
    error = result["structuredContent"]["error"]
    assert error["code"] == "INVALID_ARGUMENT" and "start_line" in error["message"]
    assert error["details"]["field"] == "start_line"
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


TARGET_CASES = [  # tool, the seed's fields, the same call as a target string
    ("list_files", DEMO, {"target": "npm:demo@1.0.0"}),
    ("read_file", {**DEMO, "path": "index.js", "start_line": 2}, {"target": "npm:demo@1.0.0", "path": "index.js",
                                                                   "start_line": 2}),
    ("grep_file", {**DEMO, "path": "index.js", "pattern": "x"}, {"target": "npm:demo@1.0.0", "path": "index.js",
                                                                  "pattern": "x"}),
    ("grep_repo", {**DEMO, "pattern": "module"}, {"target": "npm:demo@1.0.0", "pattern": "module"}),
    ("search_symbols", {**DEMO, "query": "x"}, {"target": "npm:demo@1.0.0", "query": "x"}),
    ("list_files", {"registry": "npm", "package_name": "demo", "version": "^1"}, {"target": "npm:demo@^1"}),
    ("list_files", {**DEMO, "version": "9.9.9"}, {"target": "npm:demo@9.9.9"}),
    ("diff_versions", CHANGED, {"target": "npm:changed", "from_version": "1.0.0", "to_version": "2.0.0"}),
]


def test_every_tool_taking_a_target_has_a_target_case():
    """Each tool whose inputSchema takes `target` is among the target/seed comparisons."""
    from codenav import contract, tools

    taking = {name for name in tools.REGISTRY if "target" in contract.tool_spec(name)["inputSchema"]["properties"]}
    assert taking == {tool for tool, _, _ in TARGET_CASES}


@pytest.mark.parametrize("tool,seed,target", TARGET_CASES)
def test_a_target_string_answers_exactly_as_the_seed_fields(world, tool, seed, target):
    """`target` and the seed's fields give byte-identical answers in both forms, errors included."""
    for session in (world["mcp"], world["text"]):
        assert session.call(tool, target) == session.call(tool, seed)


def test_a_git_target_string_answers_exactly_as_repo_url(world):
    """git:URL and git:URL#REF equal repo_url (+ git_ref), on MCP and as the CLI's SPEC."""
    repo = world["repo"]
    for session in (world["mcp"], world["text"]):
        assert session.call("list_files", {"target": f"git:{repo}"}) == session.call("list_files", {"repo_url": repo})
        assert (session.call("list_files", {"target": f"git:{repo}#main"})
                == session.call("list_files", {"repo_url": repo, "git_ref": "main"}))
    by_spec = run_cli("files", f"git:{repo}#main", "--json", env=world["env"])
    assert by_spec.returncode == 0
    assert by_spec.stdout == run_cli("files", "--repo-url", repo, "--git-ref", "main", "--json", env=world["env"]).stdout


@pytest.mark.parametrize("tool,arguments,message", [
    ("list_files", {"target": "npm:demo@1.0.0", "registry": "npm"}, "give target or registry, not both"),
    ("read_file", {"target": "npm:demo", "version": "1.0.0", "path": "a"}, "give target or version, not both"),
    ("list_files", {"target": "github:owner/repo", "git_ref": "main"}, "give target or git_ref, not both"),
    ("grep_file", {"target": "npm:demo@1.0.0", "package_name": "demo", "path": "a", "pattern": "x"},
     "give target or package_name, not both"),
    ("search_symbols", {"target": "github:owner/repo", "repo_url": "https://github.com/owner/repo", "query": "x"},
     "give target or repo_url, not both"),
    ("list_files", {"target": "left-pad"}, "not a package spec"),
    ("list_files", {"target": "github:owner"}, "is not github:OWNER/NAME[@REF]"),
    ("list_files", {"target": "git:#main"}, "is not git:URL[#REF]"),
    ("diff_versions", {"target": "npm:changed@1.0.0", "to_version": "2.0.0"}, "give the versions as from_version"),
])
def test_a_bad_or_doubled_target_is_invalid_argument_on_target(world, tool, arguments, message):
    """target beside the seed's fields, or a target string of no known form, is INVALID_ARGUMENT
    naming target, before anything is fetched."""
    result = world["mcp"].call(tool, arguments)
    error = result["structuredContent"]["error"]
    assert result["isError"] is True and error["code"] == "INVALID_ARGUMENT"
    assert error["details"]["field"] == "target" and message in error["message"]
