"""Interop: the TypeScript SDK client and the Inspector CLI drive ``python -m codenav mcp``.

Both only know the handshake era (TS SDK 1.32.2 always initializes at 2025-11-25) and are
strict where the Python client is lenient: ping must be exactly ``{}``, error envelopes
admit no extra keys, and ``structuredContent`` is checked against ``outputSchema`` even on
``isError`` results. The packages are installed with npm into a cache directory outside the
repository (``CODENAV_TEST_NODE_DIR``, default /tmp/codenav-test-node); without node, npm or
the npm registry these tests skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codenav import __version__, tools
from tests.fakes.github import FakeGitHub
from tests.fakes.grepapp import FakeGrepApp, hit_text, json_reply, result
from tests.fakes.http import FakeServer, Reply
from tests.support.cli import ROOT
from tests.support.samples import locked_project

pytestmark = pytest.mark.live

PACKAGES = {"@modelcontextprotocol/sdk": "1.32.2", "@modelcontextprotocol/inspector-cli": "1.0.3"}
HIT = hit_text("acme/widgets", "src/app.ts", [(7, ["export const answer = 42;"])])


def _installed(prefix: Path) -> bool:
    for name, version in PACKAGES.items():
        manifest = prefix / "node_modules" / name / "package.json"
        try:
            if json.loads(manifest.read_text(encoding="utf-8")).get("version") != version:
                return False
        except (OSError, ValueError):
            return False
    return True


@pytest.fixture(scope="module")
def node_dir() -> Path:
    """The npm prefix holding the pinned TS SDK and Inspector CLI (installed once, reused)."""
    if not (shutil.which("node") and shutil.which("npm")):
        pytest.skip("node and npm are needed for the TS SDK interop tests")
    prefix = Path(os.environ.get("CODENAV_TEST_NODE_DIR", "/tmp/codenav-test-node"))
    if not _installed(prefix):
        prefix.mkdir(parents=True, exist_ok=True)
        if not (prefix / "package.json").exists():
            (prefix / "package.json").write_text('{"name": "codenav-test-node", "private": true}\n')
        env = dict(os.environ, npm_config_cache=str(prefix / ".npm-cache"))
        specs = [f"{name}@{version}" for name, version in PACKAGES.items()]
        try:
            done = subprocess.run(["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", *specs],
                                  capture_output=True, env=env, timeout=300, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            pytest.skip("npm install timed out (is the npm registry reachable?)")
        if done.returncode != 0 or not _installed(prefix):
            pytest.skip(f"npm install failed: {done.stderr.decode(errors='replace')[-300:]}")
    return prefix


@pytest.fixture
def grepapp() -> Iterator[FakeGrepApp]:
    """A fake grep.app that finds one hit for any query."""
    with FakeGrepApp() as server:
        server.answer(json_reply(result([HIT])))
        yield server


# Drives one session through the TS SDK Client and prints what it saw as one JSON object.
_TS_SCRIPT = r"""
import { pathToFileURL } from "node:url";
const [sdk, python, root, serverEnv, serverOptions, callsJson] = process.argv.slice(2);
const { Client } = await import(pathToFileURL(`${sdk}/dist/esm/client/index.js`).href);
const { StdioClientTransport } = await import(pathToFileURL(`${sdk}/dist/esm/client/stdio.js`).href);

const transport = new StdioClientTransport({
  command: python, args: ["-m", "codenav", "mcp", ...JSON.parse(serverOptions)], cwd: root, stderr: "pipe",
  env: JSON.parse(serverEnv),
});
let stderr = "";
transport.stderr.on("data", (chunk) => { stderr += chunk; });
const received = [];
const start = transport.start.bind(transport);
transport.start = async () => {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => { received.push(message); deliver(message, extra); };
  return start();
};
const client = new Client({ name: "codenav-test", version: "0" });
const errors = [];
client.onerror = (error) => errors.push(String(error));
const out = {};
await client.connect(transport);
out.initialize = received.find((m) => m.id === 0)?.result;
out.tools = (await client.listTools()).tools;
out.found = await client.callTool({ name: "codesearch", arguments: { query: "answer" } });
out.invalid = await client.callTool({ name: "codesearch", arguments: { query: "x", bogus: true } });
out.fetched = await client.callTool({ name: "codefetch", arguments: { repo: "octo/demo", path: "src/app.ts" } });
out.missing = await client.callTool({ name: "codefetch", arguments: { repo: "octo/demo", path: "nope.ts" } });
try {
  await client.callTool({ name: "no_such_tool", arguments: {} });
  out.unknown = null;
} catch (error) {
  out.unknown = { code: error.code, message: error.message };
}
out.ping = await client.ping();
out.again = await client.callTool({ name: "codesearch", arguments: { query: "answer" } });
out.calls = [];
for (const [name, args] of JSON.parse(callsJson)) {
  out.calls.push(await client.callTool({ name, arguments: args }));
}
await client.close();
out.errors = errors;
out.stderr = stderr;
process.stdout.write(JSON.stringify(out));
"""


def _run_ts_client(node_dir: Path, tmp_path: Path, upstream: str, github: str, options: tuple[str, ...] = ("--json",),
                   calls: list[tuple[str, dict[str, Any]]] | None = None, env: dict[str, str] | None = None) -> dict[str, Any]:
    script = tmp_path / "drive.mjs"
    script.write_text(_TS_SCRIPT, encoding="utf-8")
    sdk = node_dir / "node_modules" / "@modelcontextprotocol" / "sdk"
    no_gh = tmp_path / "no-gh"  # PATH without gh: codefetch uses the REST fallback
    no_gh.mkdir()
    server_env = {"PYTHONPATH": str(ROOT), "PATH": str(no_gh), "CODENAV_CACHE_DIR": os.environ["CODENAV_CACHE_DIR"],
                  "CODENAV_GREP_APP_URL": upstream, "CODENAV_GITHUB_API_URL": github, **(env or {})}
    done = subprocess.run(["node", str(script), str(sdk), sys.executable, str(ROOT), json.dumps(server_env),
                           json.dumps(list(options)), json.dumps(calls or [])],
                          capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return json.loads(done.stdout)


@pytest.fixture
def github() -> Iterator[str]:
    """A fake GitHub REST API holding octo/demo@main:src/app.ts; its URL."""
    with FakeServer() as server:
        FakeGitHub(server).add_file("octo/demo", "src/app.ts", b"export const answer = 42;\n")
        yield server.url


def test_ts_sdk_client_handshakes_lists_and_calls_tools(node_dir: Path, tmp_path: Path,
                                                         grepapp: FakeGrepApp, github: str) -> None:
    """The TS client (ids from 0, strict schemas, Ajv on every structuredContent) initializes
    at 2025-11-25, lists the tools, gets results and typed errors, pings, and sees no
    protocol error on the way."""
    out = _run_ts_client(node_dir, tmp_path, grepapp.url, github)
    assert out["initialize"]["protocolVersion"] == "2025-11-25"
    assert out["initialize"]["serverInfo"] == {"name": "codenav", "version": __version__}
    assert [tool["name"] for tool in out["tools"]] == list(tools.REGISTRY)
    assert out["found"]["isError"] is False
    assert out["found"]["structuredContent"]["results"][0]["repo"] == "acme/widgets"
    # The error envelope passes the client's outputSchema check (it validates on isError too).
    assert out["invalid"]["isError"] is True
    assert out["invalid"]["structuredContent"]["error"]["code"] == "INVALID_ARGUMENT"
    assert out["fetched"]["isError"] is False
    assert out["fetched"]["structuredContent"]["content"] == "export const answer = 42;\n"
    assert out["missing"]["isError"] is True
    assert out["missing"]["structuredContent"]["error"]["code"] in ("FILE_NOT_FOUND", "NOT_FOUND")
    assert out["unknown"]["code"] == -32602
    assert out["ping"] == {}
    assert out["again"]["isError"] is False
    assert out["errors"] == []
    assert out["stderr"] == ""


def _inspector(node_dir: Path, upstream: str, *args: str, options: tuple[str, ...] = ("--json",),
               **env: str) -> subprocess.CompletedProcess[bytes]:
    # Inspector CLI 1.0.3 finds its own package.json relative to the working directory, so it
    # runs from its build folder; it forwards the whole environment to the server (node is
    # named by its path, so env may give the server a PATH without gh).
    build = node_dir / "node_modules" / "@modelcontextprotocol" / "inspector-cli" / "build"
    env = dict(os.environ, PYTHONPATH=str(ROOT), CODENAV_GREP_APP_URL=upstream, **env)
    return subprocess.run([shutil.which("node") or "node", str(build / "index.js"), sys.executable, *args, "--",
                           "-m", "codenav", "mcp", *options],
                          cwd=build, env=env, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)


def test_inspector_cli_shows_a_tool_error_as_a_result(node_dir: Path, grepapp: FakeGrepApp) -> None:
    """An upstream failure is an isError result the Inspector prints (exit 0), envelope intact."""
    grepapp.answer(Reply(503, b"busy"))
    done = _inspector(node_dir, grepapp.url, "--method", "tools/call", "--tool-name", "codesearch",
                      "--tool-arg", "query=answer")
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    called = json.loads(done.stdout)
    assert called["isError"] is True
    assert called["structuredContent"]["error"]["code"] == "UPSTREAM_ERROR"


def test_inspector_cli_reports_an_unknown_tool(node_dir: Path, grepapp: FakeGrepApp) -> None:
    """An unknown tool is the -32602 protocol error, which the Inspector reports with exit 1."""
    done = _inspector(node_dir, grepapp.url, "--method", "tools/call", "--tool-name", "no_such_tool")
    assert done.returncode == 1
    assert b"-32602" in done.stderr


# --- every tool, in both answer forms -----------------------------------------------------------

DEMO = "npm:demo@1.0.0"
CALLS: list[tuple[str, dict[str, Any], str]] = [  # tool, arguments, how the TEXT answer starts
    ("list_files", {"target": DEMO}, "npm:demo@1.0.0 · 1 file\nlib/a.js\n"),
    ("read_file", {"target": DEMO, "path": "lib/a.js"}, "npm:demo@1.0.0 lib/a.js · JavaScript · lines 1-1 of 1\n"),
    ("grep_file", {"target": DEMO, "path": "lib/a.js", "pattern": "answer"}, "npm:demo@1.0.0 lib/a.js · 1 matching"),
    ("grep_repo", {"target": DEMO, "pattern": "answer"}, "npm:demo@1.0.0 · 1 matching line in 1 file"),
    ("search_symbols", {"target": DEMO, "query": "answer"}, "npm:demo@1.0.0 · 1 definition (exact match)\nlib/a.js:1:"),
    ("diff_versions", {"target": "npm:demo", "from_version": "0.9.0", "to_version": "1.0.0"},
     "npm:demo@0.9.0 -> npm:demo@1.0.0 · 1 file changed"),
    ("codesearch", {"query": "answer"}, "grep.app · 1 file, 1 snippet\n"),
    ("codefetch", {"repo": "octo/demo", "path": "src/app.ts"}, "https://github.com/octo/demo/blob/HEAD/src/app.ts"),
    ("list_deps", {"project_dir": "{project}"}, "deps from package-lock.json: 1 direct (npm 1)\nnpm:demo@1.0.0\n"),
    ("grep_repo", {"targets": ["npm:demo@0.9.0", DEMO], "pattern": "answer"},
     "2 targets · 2 matching lines in 2 files (2 searched)\n[npm:demo@0.9.0]\nlib/a.js:1:"),
    ("search_symbols", {"deps": "direct", "project_dir": "{project}", "query": "answer"},
     "npm:demo@1.0.0 · 1 definition (exact match)\n[npm:demo@1.0.0]\nlib/a.js:1:"),
    ("read_file", {"target": DEMO, "path": "nope.js"}, "FILE_NOT_FOUND: "),
]


def test_the_calls_cover_every_tool() -> None:
    """CALLS drives every tool of the registry (a tool added later joins the interop runs)."""
    assert sorted({name for name, _, _ in CALLS}) == sorted(tools.REGISTRY)


def _calls(project: Path) -> list[tuple[str, dict[str, Any], str]]:
    """CALLS with ``{project}`` replaced by the locked project's directory."""
    return [(name, {k: str(project) if v == "{project}" else v for k, v in arguments.items()}, starts)
            for name, arguments, starts in CALLS]


@pytest.fixture
def demo(npm: Any) -> Any:
    """npm:demo at 0.9.0 and 1.0.0 on the fake npm registry."""
    npm.publish("demo", "0.9.0", {"lib/a.js": b"export const answer = 41;\n"})
    npm.publish("demo", "1.0.0", {"lib/a.js": b"export const answer = 42;\n"})
    return npm


@pytest.mark.parametrize("answers", ["text", "json"])
def test_ts_sdk_client_drives_every_tool_in_both_answer_forms(node_dir: Path, tmp_path: Path, grepapp: FakeGrepApp,
                                                               github: str, demo: Any, answers: str) -> None:
    """Every tool answers the TS client (which validates structuredContent against outputSchema,
    on errors too): the default form with text only, --json with structuredContent."""
    json_form = answers == "json"
    calls = _calls(locked_project(tmp_path, {"demo": "1.0.0"}))
    out = _run_ts_client(node_dir, tmp_path, grepapp.url, github, ("--json",) if json_form else (),
                         [(name, arguments) for name, arguments, _ in calls],
                         {"CODENAV_NPM_REGISTRY": demo.url, "CODENAV_PROJECT_DIR": ""})
    assert out["errors"] == [] and out["stderr"] == ""
    assert all(("outputSchema" in tool) is json_form for tool in out["tools"])
    for (name, _, starts), answer in zip(calls, out["calls"], strict=True):
        assert answer["isError"] is starts.startswith("FILE_NOT_FOUND"), (name, answer)
        if json_form:
            assert json.loads(answer["content"][0]["text"]) == answer["structuredContent"]
        else:
            assert "structuredContent" not in answer and answer["content"][0]["text"].startswith(starts), (name, answer)


@pytest.mark.parametrize("answers", ["text", "json"])
@pytest.mark.parametrize("call", range(len(CALLS)), ids=[f"{name}-{n}" for n, (name, _, _) in enumerate(CALLS)])
def test_inspector_cli_drives_every_tool_in_both_answer_forms(node_dir: Path, tmp_path: Path, grepapp: FakeGrepApp,
                                                              github: str, demo: Any, call: int, answers: str) -> None:
    """The Inspector calls each tool with arguments coerced from the command line (target strings
    included) and prints its answer: the default form one text block and no structuredContent,
    --json the envelope as structuredContent and as text; an error is an isError result (exit 0)."""
    json_form = answers == "json"
    name, arguments, starts = _calls(locked_project(tmp_path, {"demo": "1.0.0"}))[call]
    no_gh = tmp_path / "no-gh"  # PATH without gh: codefetch uses the REST fallback
    no_gh.mkdir()
    done = _inspector(node_dir, grepapp.url, "--method", "tools/call", "--tool-name", name,
                      *[word for key, value in arguments.items()
                        for word in ("--tool-arg", f"{key}={value if isinstance(value, str) else json.dumps(value)}")],
                      options=("--json",) if json_form else (), CODENAV_NPM_REGISTRY=demo.url,
                      CODENAV_PROJECT_DIR="", CODENAV_GITHUB_API_URL=github, PATH=str(no_gh))
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    called = json.loads(done.stdout)
    assert called["isError"] is starts.startswith("FILE_NOT_FOUND"), called
    assert [block["type"] for block in called["content"]] == ["text"]
    text = called["content"][0]["text"]
    if json_form:
        assert json.loads(text) == called["structuredContent"]
    else:
        assert "structuredContent" not in called and text.startswith(starts), text


@pytest.mark.parametrize("answers", ["text", "json"])
def test_inspector_cli_lists_output_schemas_only_in_the_json_form(node_dir: Path, grepapp: FakeGrepApp,
                                                                  answers: str) -> None:
    """tools/list names every tool in registry order; only `codenav mcp --json` declares outputSchema."""
    json_form = answers == "json"
    listed = json.loads(_inspector(node_dir, grepapp.url, "--method", "tools/list",
                                   options=("--json",) if json_form else ()).stdout)
    assert [tool["name"] for tool in listed["tools"]] == list(tools.REGISTRY)
    assert all(("outputSchema" in tool) is json_form for tool in listed["tools"])
