"""Interop: the official MCP Python SDK client drives ``python -m codenav mcp`` (SPEC §7).

Both eras: ``mode='auto'`` probes server/discover and must settle on 2026-07-28,
``mode='legacy'`` handshakes at 2025-11-25, and a pinned ``mode='2026-07-28'`` sends no
discover at all. The client validates every result against its own models and every
``structuredContent`` against the tool's outputSchema, so a passing call is a shape check.
The SDK passes the server only HOME/PATH/… unless ``env`` is given, so the test's
environment is passed explicitly.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp", reason="the MCP Python SDK is a test dependency (pip install 'mcp==2.3.0')")

import anyio  # noqa: E402  (installed with mcp)
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError  # noqa: E402

from codenav import __version__, contract, tools  # noqa: E402
from tests.fakes.github import FakeGitHub  # noqa: E402
from tests.fakes.grepapp import FakeGrepApp, hit_text, json_reply, result  # noqa: E402
from tests.fakes.http import FakeServer  # noqa: E402
from tests.support.cli import ROOT  # noqa: E402
from tests.support.samples import locked_project  # noqa: E402

# What the server needs from the test's (isolated) environment.
_PASSED = ("CODENAV_CACHE_DIR", "XDG_CONFIG_HOME", "PIP_CONFIG_FILE", "CODENAV_NO_DISCOVERY", "CODENAV_NPM_REGISTRY",
           "CODENAV_PROJECT_DIR")


HIT = hit_text("acme/widgets", "lib/util.py", [(3, ["def helper():", "    return 42"])])


@pytest.fixture
def grepapp() -> Iterator[FakeGrepApp]:
    """A fake grep.app that finds one hit for any query."""
    with FakeGrepApp() as server:
        server.answer(json_reply(result([HIT])))
        yield server


@pytest.fixture
def github(tmp_path: Path) -> Iterator[str]:
    """A fake GitHub REST API holding octo/demo@main:src/app.py; its URL."""
    with FakeServer() as server:
        FakeGitHub(server).add_file("octo/demo", "src/app.py", b"import os\nprint(os.sep)\n")
        yield server.url


def _session(mode: str, upstream: str, errlog: Any, problems: list[Any], github: str,
             options: tuple[str, ...] = ("--json",)) -> Client:
    env = {name: os.environ[name] for name in _PASSED if name in os.environ}
    no_gh = Path(os.environ["HOME"]) / "no-gh"  # PATH without gh: codefetch uses the REST fallback
    no_gh.mkdir(exist_ok=True)
    env.update(PYTHONPATH=str(ROOT), CODENAV_GREP_APP_URL=upstream, CODENAV_GITHUB_API_URL=github,
               PATH=str(no_gh))
    params = StdioServerParameters(command=sys.executable, args=["-m", "codenav", "mcp", *options], env=env,
                                   cwd=str(ROOT))

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):  # a line on stdout the client could not parse
            problems.append(message)

    return Client(stdio_client(params, errlog=errlog), mode=mode, message_handler=on_message)


def _drive(mode: str, upstream: str, tmp_path: Path, body: Any, github: str = "http://127.0.0.1:9",
           options: tuple[str, ...] = ("--json",)) -> None:
    """Run ``body(client)`` in a session of `codenav mcp OPTIONS`; the server must write
    nothing unparseable on stdout and nothing at all on stderr."""
    problems: list[Any] = []
    errlog_path = tmp_path / "server-stderr.txt"

    async def main() -> None:
        with errlog_path.open("w") as errlog:
            async with _session(mode, upstream, errlog, problems, github, options) as client:
                await body(client)

    anyio.run(main)
    assert problems == []
    assert errlog_path.read_text() == ""


async def _exercise_tools(client: Client) -> None:
    listing = await client.list_tools()
    assert [tool.name for tool in listing.tools] == list(tools.REGISTRY)
    for tool in listing.tools:
        assert tool.input_schema == contract.tool_spec(tool.name)["inputSchema"]
        assert tool.annotations is not None and tool.annotations.read_only_hint is True

    found = await client.call_tool("codesearch", {"query": "return 42"})
    assert found.is_error is False
    assert found.structured_content is not None
    assert found.structured_content["results"][0]["repo"] == "acme/widgets"
    assert found.content[0].text == contract.dumps(found.structured_content)  # type: ignore[union-attr]

    # A typed error: isError with the envelope in structuredContent.
    bad = await client.call_tool("codesearch", {"query": "x", "bogus": 1})
    assert bad.is_error is True
    assert bad.structured_content is not None
    assert bad.structured_content["error"]["code"] == "INVALID_ARGUMENT"
    assert bad.content[0].text == contract.dumps(bad.structured_content)  # type: ignore[union-attr]

    with pytest.raises(MCPError) as unknown:
        await client.call_tool("no_such_tool", {})
    assert unknown.value.code == -32602

    # codefetch's outputSchema (if/then/else on isBinary) holds for a real result, and a
    # missing file is a typed error.
    fetched = await client.call_tool("codefetch", {"repo": "octo/demo", "path": "src/app.py", "start_line": 2})
    assert fetched.is_error is False
    assert fetched.structured_content is not None
    assert fetched.structured_content["content"] == "print(os.sep)\n"
    missing = await client.call_tool("codefetch", {"repo": "octo/demo", "path": "nope.py"})
    assert missing.is_error is True
    assert missing.structured_content is not None
    assert missing.structured_content["error"]["code"] in ("FILE_NOT_FOUND", "NOT_FOUND")

    # The session keeps working after a tool error and a protocol error.
    again = await client.call_tool("codesearch", {"query": "helper"})
    assert again.is_error is False
    assert [tool.name for tool in (await client.list_tools()).tools] == list(tools.REGISTRY)


def test_auto_mode_negotiates_2026_07_28_and_uses_the_tools(grepapp: FakeGrepApp, github: str,
                                                             tmp_path: Path) -> None:
    """mode='auto': discover succeeds, the era is 2026-07-28, tools list and call, errors
    come back typed, and the session survives them."""
    async def body(client: Client) -> None:
        assert client.protocol_version == "2026-07-28"
        assert client.server_info is not None
        assert (client.server_info.name, client.server_info.version) == ("codenav", __version__)
        assert client.server_capabilities.tools is not None
        assert "untrusted" in (client.instructions or "")
        await _exercise_tools(client)

    _drive("auto", grepapp.url, tmp_path, body, github)


def test_legacy_mode_handshakes_at_2025_11_25_and_uses_the_tools(grepapp: FakeGrepApp, github: str,
                                                                  tmp_path: Path) -> None:
    """mode='legacy': initialize answers 2025-11-25, ping works, the same tools behave the same."""
    async def body(client: Client) -> None:
        assert client.protocol_version == "2025-11-25"
        assert client.server_info is not None and client.server_info.name == "codenav"
        with pytest.warns(MCPDeprecationWarning):  # legacy-only, and still served
            await client.send_ping()
        await _exercise_tools(client)

    _drive("legacy", grepapp.url, tmp_path, body, github)


def test_pinned_modern_mode_works_without_discover(grepapp: FakeGrepApp, tmp_path: Path) -> None:
    """mode='2026-07-28' sends no discover: every request stands on its own envelope."""
    async def body(client: Client) -> None:
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool("codesearch", {"query": "helper"})
        assert result.is_error is False

    _drive("2026-07-28", grepapp.url, tmp_path, body)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_client_timeout_cancels_the_call_and_the_session_goes_on(grepapp: FakeGrepApp, tmp_path: Path,
                                                                    mode: str) -> None:
    """A call that outlives the client's timeout raises there; the client's
    notifications/cancelled drops the late response and the next call works."""
    grepapp.answer(replace(json_reply(result([HIT])), delay=1.5))

    async def body(client: Client) -> None:
        with pytest.raises(MCPError):
            await client.call_tool("codesearch", {"query": "slow"}, read_timeout_seconds=0.4)
        await anyio.sleep(1.5)  # the upstream answers meanwhile; nothing may reach the client
        listing = await client.list_tools()
        assert len(listing.tools) == len(tools.REGISTRY)

    _drive(mode, grepapp.url, tmp_path, body)


# --- every tool, in both answer forms -----------------------------------------------------------

DEMO = "npm:demo@1.0.0"
CALLS: list[tuple[str, dict[str, Any], str]] = [  # tool, arguments, how the TEXT answer starts
    ("list_files", {"target": DEMO}, "npm:demo@1.0.0 · 2 files\n"),
    ("read_file", {"target": DEMO, "path": "lib/a.js", "start_line": 2},
     "npm:demo@1.0.0 lib/a.js · JavaScript · lines 2-2 of 2\n2\tfunction helper() { return 42; }\n"),
    ("grep_file", {"registry": "npm", "package_name": "demo", "version": "1.0.0", "path": "lib/a.js",
                   "pattern": "HELPER"}, "npm:demo@1.0.0 lib/a.js · 1 matching line of 2\n2:function helper()"),
    ("grep_repo", {"target": DEMO, "pattern": "helper"}, "npm:demo@1.0.0 · 2 matching lines in 2 files (2 searched)\n"),
    ("search_symbols", {"target": DEMO, "query": "helper"}, "npm:demo@1.0.0 · 1 definition (exact match)\nlib/a.js:2:function:helper"),
    ("diff_versions", {"target": "npm:demo", "from_version": "0.9.0", "to_version": "1.0.0"},
     "npm:demo@0.9.0 -> npm:demo@1.0.0 · 1 file changed, +1 -1 (1 modified)\ndiff --git a/lib/a.js b/lib/a.js\n"),
    ("codesearch", {"query": "return 42"}, "grep.app · 1 file, 1 snippet\nhttps://github.com/acme/widgets/blob/"),
    ("codefetch", {"repo": "octo/demo", "path": "src/app.py"},
     "https://github.com/octo/demo/blob/HEAD/src/app.py · Python · lines 1-2 of 2\n1\timport os\n"),
    ("list_deps", {"project_dir": "{project}"}, "deps from package-lock.json: 1 direct (npm 1)\nnpm:demo@1.0.0\n"),
]
ERRORS: list[tuple[str, dict[str, Any], str]] = [  # tool, arguments, the error code
    ("read_file", {"target": DEMO, "path": "nope.js"}, "FILE_NOT_FOUND"),
    ("list_files", {"target": "npm:demo@9.9.9"}, "VERSION_NOT_FOUND"),
    ("grep_repo", {"target": DEMO, "pattern": "x", "registry": "npm"}, "INVALID_ARGUMENT"),
    ("list_deps", {"project_dir": "{project}", "cursor": "x"}, "INVALID_ARGUMENT"),
]


def test_the_calls_cover_every_tool() -> None:
    """CALLS drives every tool of the registry (a tool added later joins the interop runs)."""
    assert sorted({name for name, _, _ in CALLS}) == sorted(tools.REGISTRY)


@pytest.fixture
def demo(npm: Any) -> Any:
    """npm:demo at 0.9.0 and 1.0.0 on the fake npm registry."""
    npm.publish("demo", "0.9.0", {"lib/a.js": b"// a\nfunction helper() { return 41; }\n", "README.md": b"helper\n"})
    npm.publish("demo", "1.0.0", {"lib/a.js": b"// a\nfunction helper() { return 42; }\n", "README.md": b"helper\n"})
    return npm


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("answers", ["text", "json"])
def test_the_sdk_client_drives_every_tool_in_both_answer_forms(demo: Any, grepapp: FakeGrepApp, github: str,
                                                               tmp_path: Path, mode: str, answers: str) -> None:
    """Every tool answers the Python client in both eras: `codenav mcp` with one text block and
    no structuredContent (no tool declares an outputSchema), `codenav mcp --json` with
    structuredContent (checked by the client against the outputSchema) and its JSON as text;
    errors are isError in the same form."""
    json_form = answers == "json"
    project = str(locked_project(tmp_path, {"demo": "1.0.0"}))

    def placed(arguments: dict[str, Any]) -> dict[str, Any]:
        return {k: project if v == "{project}" else v for k, v in arguments.items()}

    async def body(client: Client) -> None:
        listing = await client.list_tools()
        assert [tool.name for tool in listing.tools] == list(tools.REGISTRY)
        assert all((tool.output_schema is not None) is json_form for tool in listing.tools)
        for name, arguments, starts in CALLS:
            result = await client.call_tool(name, placed(arguments))
            assert result.is_error is False, (name, result.content)
            text = result.content[0].text  # type: ignore[union-attr]
            if json_form:
                assert result.structured_content is not None and text == contract.dumps(result.structured_content)
            else:
                assert result.structured_content is None and len(result.content) == 1
                assert text.startswith(starts), (name, text)
        for name, arguments, code in ERRORS:
            result = await client.call_tool(name, placed(arguments))
            assert result.is_error is True
            text = result.content[0].text  # type: ignore[union-attr]
            if json_form:
                assert result.structured_content is not None and result.structured_content["error"]["code"] == code
            else:
                assert result.structured_content is None and text.startswith(code + ": ")

    _drive(mode, grepapp.url, tmp_path, body, github, ("--json",) if json_form else ())
