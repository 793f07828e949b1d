"""The MCP server over a real pipe: raw frames into ``python -m codenav mcp``, lines out.

Every line the server writes on stdout is checked to be one JSON-RPC object (the wire carries
nothing else, SPEC §6). Tool calls go to codesearch, whose upstream is a local fake grep.app.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from codenav import __version__, contract, tools
from tests.fakes.grepapp import FakeGrepApp, hit_text, json_reply, result
from tests.fakes.http import FakeServer, Reply
from tests.support.cli import ROOT

MODERN = "2026-07-28"
HANDSHAKE = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"}}
SERVER_INFO = {"name": "codenav", "version": __version__}
OPEN_WORLD = {"codesearch", "codefetch"}


class Mcp:
    """A ``codenav mcp`` subprocess: frames in, parsed lines out (with a timeout)."""

    def __init__(self, env: dict[str, str] | None = None, argv: list[str] | None = None) -> None:
        full_env = dict(os.environ)
        full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
        full_env.update(env or {})
        self.proc = subprocess.Popen(
            [sys.executable, *(argv or ["-m", "codenav", "mcp"])], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env,
        )
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        self.bad: list[bytes] = []  # stdout lines that are not one JSON-RPC object
        self.stderr = b""
        self._threads = [threading.Thread(target=self._pump_out, daemon=True),
                         threading.Thread(target=self._pump_err, daemon=True)]
        for t in self._threads:
            t.start()

    def _pump_out(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:  # binary: splits on b"\n" only
            try:
                message = json.loads(raw.decode("ascii"))
                assert raw.endswith(b"\n") and isinstance(message, dict) and message["jsonrpc"] == "2.0"
                assert "id" in message and ("result" in message) != ("error" in message)
            except (ValueError, AssertionError, KeyError):
                self.bad.append(raw)
                continue
            self.lines.put(message)

    def _pump_err(self) -> None:
        assert self.proc.stderr is not None
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):  # type: ignore[union-attr]
            self.stderr += chunk

    def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.proc.stdin is not None
        data = message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def recv(self, timeout: float = 10) -> dict[str, Any]:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no response within {timeout} s; bad lines {self.bad!r}") from None

    def request(self, method: str, params: dict[str, Any] | None = None, id: Any = 1,
                timeout: float = 10) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        response = self.recv(timeout)
        assert response["id"] == id and type(response["id"]) is type(id)
        return response

    def result(self, method: str, params: dict[str, Any] | None = None, id: Any = 1) -> dict[str, Any]:
        response = self.request(method, params, id)
        assert "result" in response, response
        return response["result"]

    def error(self, method: str, params: dict[str, Any] | None = None, id: Any = 1) -> dict[str, Any]:
        response = self.request(method, params, id)
        assert "error" in response, response
        return response["error"]

    def silent(self, seconds: float = 0.3) -> bool:
        time.sleep(seconds)
        return self.lines.empty()

    def ping_works(self, id: Any = "after") -> None:
        assert self.request("ping", id=id) == {"jsonrpc": "2.0", "id": id, "result": {}}

    def close(self, timeout: float = 5) -> tuple[int, float]:
        """Close stdin; the exit code and how long the server took to exit."""
        assert self.proc.stdin is not None
        started = time.monotonic()
        self.proc.stdin.close()
        code = self.proc.wait(timeout)
        elapsed = time.monotonic() - started
        for t in self._threads:
            t.join(2)
        return code, elapsed

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def start() -> Iterator[Any]:
    """Start servers; at teardown each must exit 0 on EOF with only JSON-RPC on stdout."""
    started: list[Mcp] = []

    def _start(argv: list[str] | None = None, **env: str) -> Mcp:
        server = Mcp(env, argv)
        started.append(server)
        return server

    yield _start
    for server in started:
        try:
            if server.proc.poll() is None:
                code, _ = server.close()
                assert code == 0, server.stderr.decode(errors="replace")
            assert server.bad == [], server.bad[:3]
        finally:
            server.kill()


@pytest.fixture
def mcp(start: Any) -> Mcp:
    return start()


JSON_ANSWERS = ["-m", "codenav", "mcp", "--json"]


@pytest.fixture
def json_mcp(start: Any) -> Mcp:
    """`codenav mcp --json`: results carry structuredContent, tools their outputSchema."""
    return start(JSON_ANSWERS)


def modern(**params: Any) -> dict[str, Any]:
    return {**params, "_meta": dict(ENVELOPE)}


HIT = hit_text("acme/widgets", "src/app.py", [(10, ["import os", "print(os.sep)"])])


@pytest.fixture
def grepapp() -> Iterator[FakeGrepApp]:
    """A fake grep.app that finds one hit for any query."""
    with FakeGrepApp() as server:
        server.answer(json_reply(result([HIT])))
        yield server


def slow(seconds: float = 1.5) -> Reply:
    """The same hit, after a delay."""
    return replace(json_reply(result([HIT])), delay=seconds)


# --- the handshake era ---------------------------------------------------------------------


@pytest.mark.parametrize("version", HANDSHAKE)
def test_initialize_echoes_each_supported_version(mcp: Mcp, version: str) -> None:
    """initialize answers with the version asked for when it is a handshake version."""
    result = mcp.result("initialize", {"protocolVersion": version, "capabilities": {},
                                       "clientInfo": {"name": "t", "version": "1"}}, id=0)
    assert result["protocolVersion"] == version


@pytest.mark.parametrize("asked", ["2099-01-01", "2024-10-07", MODERN])
def test_initialize_offers_the_latest_handshake_version_otherwise(mcp: Mcp, asked: str) -> None:
    """An unknown version, or 2026-07-28 asked through initialize, is answered 2025-11-25."""
    result = mcp.result("initialize", {"protocolVersion": asked, "capabilities": {}})
    assert result["protocolVersion"] == "2025-11-25"


def test_initialize_result_is_tools_only_with_server_info_and_instructions(mcp: Mcp) -> None:
    """The handshake advertises tools (listChanged false) only, names the server, and warns
    that returned code is untrusted; no 2026 fields leak into it."""
    result = mcp.result("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
    assert set(result) == {"protocolVersion", "capabilities", "serverInfo", "instructions"}
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"] == SERVER_INFO
    assert "untrusted" in result["instructions"]


def test_initialize_without_a_version_is_invalid_params(mcp: Mcp) -> None:
    """initialize must name the version it asks for."""
    assert mcp.error("initialize", {"capabilities": {}})["code"] == -32602


def test_ping_result_is_exactly_an_empty_object(mcp: Mcp) -> None:
    """ping answers {} and nothing else: the TS client's schema for it is strict."""
    mcp.result("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
    mcp.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert mcp.request("ping", id=7) == {"jsonrpc": "2.0", "id": 7, "result": {}}


@pytest.mark.parametrize("request_id", [0, "0", "", "abc", -1, 2**53 + 1])
def test_request_ids_are_echoed_with_their_json_type(mcp: Mcp, request_id: Any) -> None:
    """Id 0 works (TS clients start there) and a string id stays a string."""
    mcp.ping_works(request_id)


def test_notifications_are_never_answered(mcp: Mcp) -> None:
    """Known, unknown and faulty notifications get no response; the next ping is the next line."""
    for message in (
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/whatever", "params": {"x": 1}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "not an object"},
        {"jsonrpc": "1.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": 42},
        {"jsonrpc": "2.0", "result": {}, "id": 5},  # a response: this server sends no requests
    ):
        mcp.send(message)
    mcp.ping_works()


def test_tools_list_returns_every_tool_in_registry_order_on_one_page(json_mcp: Mcp) -> None:
    """tools/list holds every registered tool, in order, with object schemas and read-only
    annotations; openWorldHint only for the tools that reach the internet."""
    result = json_mcp.result("tools/list")
    assert set(result) == {"tools"}  # one page, no cursor, no 2026 fields
    assert [tool["name"] for tool in result["tools"]] == list(tools.REGISTRY)
    for tool in result["tools"]:
        spec = contract.tool_spec(tool["name"])
        assert {**tool, "outputSchema": None} == {**spec, "outputSchema": None}
        assert tool["description"]
        assert tool["inputSchema"]["type"] == "object"
        assert tool["outputSchema"]["type"] == "object"
        assert tool["annotations"]["readOnlyHint"] is True
        assert tool["annotations"]["openWorldHint"] is (tool["name"] in OPEN_WORLD)


def test_advertised_output_schemas_admit_the_result_and_the_error_envelope(json_mcp: Mcp) -> None:
    """Each outputSchema is the tool's result schema OR the error envelope: TS clients validate
    structuredContent against it even on isError results."""
    from jsonschema import Draft202012Validator

    envelope = {"error": {"code": "NOT_FOUND", "message": "no such package", "retryable": False,
                          "details": {"action": "check the name"}}}
    for tool in json_mcp.result("tools/list")["tools"]:
        schema = tool["outputSchema"]
        Draft202012Validator.check_schema(schema)
        success = {k: v for k, v in contract.tool_spec(tool["name"])["outputSchema"].items() if k != "$defs"}
        assert schema["anyOf"][0] == success
        Draft202012Validator(schema).validate(envelope)
        assert not Draft202012Validator(schema).is_valid({"error": {"code": "NOPE"}})


def _wire_validator(mcp: Mcp, name: str) -> Any:
    from jsonschema import Draft202012Validator

    tool = next(t for t in mcp.result("tools/list", id="list")["tools"] if t["name"] == name)
    return Draft202012Validator(tool["outputSchema"])


def test_tools_list_with_empty_params_is_the_same_page(mcp: Mcp) -> None:
    """TS clients send params {}; the Python client omits params; both get the same list."""
    assert mcp.result("tools/list", {}, id=1) == mcp.result("tools/list", None, id=2)


def test_tools_list_with_a_cursor_is_invalid_params(mcp: Mcp) -> None:
    """No cursor is ever issued, so any cursor is bogus (-32602 lets the client evict it)."""
    assert mcp.error("tools/list", {"cursor": "bogus"})["code"] == -32602


# --- the 2026-07-28 era --------------------------------------------------------------------


def _assert_modern_stamp(result: dict[str, Any]) -> None:
    assert result["resultType"] == "complete"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == SERVER_INFO


def test_discover_advertises_the_modern_version_and_cache_hints(mcp: Mcp) -> None:
    """server/discover lists 2026-07-28 (and the handshake versions), tools only, with the
    fields every 2026 result carries."""
    result = mcp.result("server/discover", modern())
    assert result["supportedVersions"] == [*HANDSHAKE, MODERN]
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert 60_000 <= result["ttlMs"] <= 300_000
    assert result["cacheScope"] == "public"
    assert "untrusted" in result["instructions"]
    _assert_modern_stamp(result)


def test_modern_tools_list_adds_cache_hints_to_the_same_tools(mcp: Mcp) -> None:
    """A 2026 tools/list carries resultType, ttlMs, cacheScope and serverInfo around the same
    tools as the handshake-era one, without a prior discover."""
    result = mcp.result("tools/list", modern())
    _assert_modern_stamp(result)
    assert 60_000 <= result["ttlMs"] <= 300_000 and result["cacheScope"] == "public"
    assert result["tools"] == mcp.result("tools/list", id=2)["tools"]


def test_unsupported_modern_version_is_32022_with_supported_and_requested(mcp: Mcp) -> None:
    """A version the server does not serve gets -32022 naming both lists' keys."""
    params = {"_meta": {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2027-01-01"}}
    error = mcp.error("server/discover", params)
    assert error["code"] == -32022
    assert error["data"] == {"supported": [*HANDSHAKE, MODERN], "requested": "2027-01-01"}


@pytest.mark.parametrize("meta", [
    {"io.modelcontextprotocol/protocolVersion": MODERN},  # no clientCapabilities
    {"io.modelcontextprotocol/protocolVersion": 20260728, "io.modelcontextprotocol/clientCapabilities": {}},
    {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": []},
])
def test_a_broken_envelope_is_invalid_params(mcp: Mcp, meta: dict[str, Any]) -> None:
    """Missing capabilities, a non-string version or non-object capabilities are -32602."""
    assert mcp.error("tools/list", {"_meta": meta})["code"] == -32602


def test_discover_without_the_envelope_is_invalid_params(mcp: Mcp) -> None:
    """discover exists here, so its missing envelope is -32602, not 'method not found'."""
    assert mcp.error("server/discover")["code"] == -32602
    assert mcp.error("server/discover", {"_meta": {"progressToken": 1}})["code"] == -32602


def test_methods_removed_in_2026_are_method_not_found(mcp: Mcp) -> None:
    """ping with the 2026 envelope is -32601; so is any unknown method in either era."""
    assert mcp.error("ping", modern())["code"] == -32601
    assert mcp.error("logging/setLevel", modern(level="info"))["code"] == -32601
    assert mcp.error("resources/list")["code"] == -32601
    assert mcp.error("nope/nothing", modern())["code"] == -32601


def test_a_bare_meta_is_not_the_modern_envelope(mcp: Mcp) -> None:
    """A handshake-era request with only progressToken in _meta stays legacy (ping works)."""
    assert mcp.request("ping", {"_meta": {"progressToken": 3}}) == {"jsonrpc": "2.0", "id": 1, "result": {}}


def test_modern_tool_call_carries_result_type(start: Any, grepapp: FakeGrepApp) -> None:
    """A 2026 tools/call result is the tool result plus resultType and the serverInfo stamp."""
    mcp = start(JSON_ANSWERS, CODENAV_GREP_APP_URL=grepapp.url)
    result = mcp.result("tools/call", modern(name="codesearch", arguments={"query": "os.sep"}))
    _assert_modern_stamp(result)
    assert result["isError"] is False
    assert result["structuredContent"]["results"][0]["repo"] == "acme/widgets"


# --- tools/call ----------------------------------------------------------------------------


def test_tool_call_result_is_structured_content_plus_the_same_json_as_text(start: Any, grepapp: FakeGrepApp) -> None:
    """Success: structuredContent is the result and the one text block is contract.dumps of it."""
    mcp = start(JSON_ANSWERS, CODENAV_GREP_APP_URL=grepapp.url)
    result = mcp.result("tools/call", {"name": "codesearch", "arguments": {"query": "os.sep"}})
    assert set(result) == {"content", "structuredContent", "isError"}
    assert result["isError"] is False
    assert result["content"] == [{"type": "text", "text": contract.dumps(result["structuredContent"])}]
    assert result["structuredContent"]["results"][0]["path"] == "src/app.py"
    contract.validator("codesearch", "outputSchema").validate(result["structuredContent"])
    _wire_validator(mcp, "codesearch").validate(result["structuredContent"])


def test_tool_text_block_matches_the_cli_json_bytes(start: Any, grepapp: FakeGrepApp) -> None:
    """The MCP text payload is byte-identical to `codenav search --json` minus its newline."""
    env = {"CODENAV_GREP_APP_URL": grepapp.url}
    mcp = start(JSON_ANSWERS, **env)
    text = mcp.result("tools/call", {"name": "codesearch", "arguments": {"query": "os.sep"}})["content"][0]["text"]
    from tests.support.cli import run_cli

    cli = run_cli("search", "os.sep", "--json", env=env)
    assert cli.stdout == text.encode("utf-8") + b"\n"


@pytest.mark.parametrize("arguments", [{}, {"query": 5}, {"query": "x", "surprise": True}])
def test_invalid_arguments_are_an_is_error_result_with_the_envelope(json_mcp: Mcp, arguments: dict[str, Any]) -> None:
    """Schema failures are isError results carrying INVALID_ARGUMENT, not JSON-RPC errors."""
    result = json_mcp.result("tools/call", {"name": "codesearch", "arguments": arguments})
    assert result["isError"] is True
    error = result["structuredContent"]["error"]
    assert error["code"] == "INVALID_ARGUMENT" and error["retryable"] is False
    assert result["content"] == [{"type": "text", "text": contract.dumps(result["structuredContent"])}]
    contract.validator("error").validate(result["structuredContent"])


def test_tool_failure_is_an_is_error_result_and_the_server_goes_on(start: Any, grepapp: FakeGrepApp) -> None:
    """A CodenavError from the tool (HTTP 500 upstream) becomes an isError envelope; the
    session keeps serving."""
    grepapp.answer(Reply(500, b"upstream down"))
    mcp = start(JSON_ANSWERS, CODENAV_GREP_APP_URL=grepapp.url)
    result = mcp.result("tools/call", {"name": "codesearch", "arguments": {"query": "x"}})
    assert result["isError"] is True
    assert result["structuredContent"]["error"]["code"] == "UPSTREAM_ERROR"
    assert result["content"][0]["text"] == contract.dumps(result["structuredContent"])
    _wire_validator(mcp, "codesearch").validate(result["structuredContent"])
    mcp.ping_works()


def test_unknown_tool_is_invalid_params(mcp: Mcp) -> None:
    """An unknown tool name is a protocol error (-32602), as the SDK clients expect."""
    error = mcp.error("tools/call", {"name": "rm_rf", "arguments": {}})
    assert error["code"] == -32602 and "rm_rf" in error["message"]
    assert mcp.error("tools/call", {"arguments": {}}, id=2)["code"] == -32602


def test_arguments_that_are_not_an_object_are_invalid_params(mcp: Mcp) -> None:
    """arguments must be an object (absent counts as {})."""
    assert mcp.error("tools/call", {"name": "codesearch", "arguments": ["q"]})["code"] == -32602


# A server whose codesearch misbehaves in every way a buggy tool can, chosen by the query.
_ROGUE_SERVER = """
import os, subprocess, sys
from codenav.tools import codesearch

def rogue(args):
    if args["query"] == "print":
        print("stray print")
        os.write(1, b"stray fd 1 write\\n")
        child = subprocess.run([sys.executable, "-c", "import sys; print('child saw stdin', repr(sys.stdin.read()))"])
        return {"child": child.returncode}
    if args["query"] == "exit":
        sys.exit(3)
    raise RuntimeError("boom")

codesearch.run = rogue
from codenav.mcp.server import serve
sys.exit(serve(json_answers="--json" in sys.argv))
"""


def test_a_misbehaving_tool_never_corrupts_the_wire_or_kills_the_server(start: Any) -> None:
    """A tool that prints, writes to fd 1, runs a child with inherited stdio, raises or calls
    sys.exit: stdout stays pure JSON-RPC, the child reads EOF (not our requests), the noise
    lands on stderr, failures are INTERNAL envelopes without a traceback, and pings go on."""
    mcp = start(["-c", _ROGUE_SERVER, "--json"])
    printed = mcp.result("tools/call", {"name": "codesearch", "arguments": {"query": "print"}})
    assert printed["structuredContent"] == {"child": 0}
    mcp.ping_works(2)
    for n, query in enumerate(["boom", "exit"], 3):
        failed = mcp.result("tools/call", {"name": "codesearch", "arguments": {"query": query}}, id=n)
        assert failed["isError"] is True
        error = failed["structuredContent"]["error"]
        assert error["code"] == "INTERNAL" and "Traceback" not in error["message"]
    mcp.ping_works(5)
    assert mcp.close()[0] == 0
    assert mcp.bad == []
    assert b"stray print" in mcp.stderr and b"stray fd 1 write" in mcp.stderr
    assert b"child saw stdin ''" in mcp.stderr
    assert b"Traceback" in mcp.stderr and b"RuntimeError: boom" in mcp.stderr


# --- framing and malformed input -----------------------------------------------------------


@pytest.mark.parametrize("frame, code, echoed_id", [
    (b"{not json}\n", -32700, None),
    (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\xff\xfe"}}\n', -32700, None),
    (b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}\n', -32700, None),
    (b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n', -32600, None),
    (b'"ping"\n', -32600, None),
    (b'{"jsonrpc":"1.0","id":3,"method":"ping"}\n', -32600, 3),
    (b'{"id":3,"method":"ping"}\n', -32600, 3),
    (b'{"jsonrpc":"2.0","id":3,"method":7}\n', -32600, 3),
    (b'{"jsonrpc":"2.0","id":3}\n', -32600, 3),
    (b'{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[1]}\n', -32602, 3),
    (b'{"jsonrpc":"2.0","id":3,"method":"tools/list","params":"x"}\n', -32602, 3),
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}\n', -32600, None),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}\n', -32600, None),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}\n', -32600, None),
    (b'{"jsonrpc":"2.0","id":null,"method":"ping"}\n', -32600, None),
])
def test_malformed_frames_get_one_error_and_the_server_goes_on(mcp: Mcp, frame: bytes, code: int,
                                                               echoed_id: Any) -> None:
    """Each malformed frame gets exactly one error (id null when it cannot be echoed), then
    a ping is answered."""
    mcp.send(frame)
    response = mcp.recv()
    assert response["error"]["code"] == code
    assert response["id"] == echoed_id
    assert set(response) == {"jsonrpc", "id", "error"}
    mcp.ping_works()


def test_a_line_over_the_cap_is_refused_without_killing_the_server(mcp: Mcp) -> None:
    """A 5 MiB line is skipped and answered -32600; the server still reads the next line."""
    huge = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"a" * (5 * 1024 * 1024) + b'"}}\n'
    mcp.send(huge)
    response = mcp.recv()
    assert response["error"]["code"] == -32600 and response["id"] is None
    mcp.ping_works()


def test_blank_lines_and_crlf_are_tolerated(mcp: Mcp) -> None:
    """A blank line is no message (nothing is answered); a CRLF-terminated request works."""
    mcp.send(b"\n \n\r\n")
    assert mcp.silent()
    mcp.send(b'{"jsonrpc":"2.0","id":4,"method":"ping"}\r\n')
    assert mcp.recv() == {"jsonrpc": "2.0", "id": 4, "result": {}}


def test_unicode_line_separators_inside_strings_do_not_split_a_frame(mcp: Mcp) -> None:
    """Raw U+2028/U+2029 (and U+0085) inside a JSON string stay in that one message."""
    request_id = "a\u2028b\u2029c\u0085d"
    mcp.send(b'{"jsonrpc":"2.0","id":"' + request_id.encode("utf-8") + b'","method":"ping"}\n')
    assert mcp.recv() == {"jsonrpc": "2.0", "id": request_id, "result": {}}
    assert mcp.silent(0.1)


def test_a_final_line_without_newline_is_still_answered(mcp: Mcp) -> None:
    """The last request needs no trailing newline: it is answered before the server exits."""
    mcp.send(b'{"jsonrpc":"2.0","id":9,"method":"ping"}')
    code, _ = mcp.close()
    assert code == 0
    assert mcp.recv() == {"jsonrpc": "2.0", "id": 9, "result": {}}


def test_output_is_pure_ascii_json_lines(mcp: Mcp) -> None:
    """Non-ASCII in a response is escaped, so the wire is ASCII whatever the locale."""
    mcp.ping_works("é€😀")
    code, _ = mcp.close()
    assert code == 0 and mcp.bad == []


def test_stderr_stays_empty_in_a_clean_session(mcp: Mcp) -> None:
    """No banner and no chatter: stderr is for warnings only."""
    mcp.result("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
    mcp.result("tools/list", id=2)
    mcp.ping_works()
    assert mcp.close()[0] == 0
    assert mcp.stderr == b""


def test_stderr_is_capped_when_a_client_floods_the_server_with_garbage(mcp: Mcp) -> None:
    """Thousands of bad frames produce at most ~32 KiB of warnings (the Inspector never reads
    stderr and a full pipe would block the server)."""
    mcp.send(b"garbage\n" * 3000)
    for _ in range(3000):
        assert mcp.recv()["error"]["code"] == -32700
    mcp.ping_works()
    assert mcp.close()[0] == 0
    assert 0 < len(mcp.stderr) <= 32 * 1024 + 200
    assert b"CODENAV_MCP_LOG" in mcp.stderr


def test_verbose_log_goes_to_the_file_named_by_codenav_mcp_log(start: Any, tmp_path: Path) -> None:
    """CODENAV_MCP_LOG receives a log of requests while stderr stays quiet."""
    log_file = tmp_path / "mcp.log"
    mcp = start(CODENAV_MCP_LOG=str(log_file))
    mcp.ping_works(41)
    assert mcp.close()[0] == 0
    assert mcp.stderr == b""
    assert "request 41 ping" in log_file.read_text(encoding="utf-8")


# --- concurrency, cancellation, EOF --------------------------------------------------------


def test_a_slow_tool_call_does_not_block_other_requests(start: Any, grepapp: FakeGrepApp) -> None:
    """While a call waits on its upstream, a ping is answered first; responses match by id."""
    grepapp.answer(slow())
    mcp = start(CODENAV_GREP_APP_URL=grepapp.url)
    mcp.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
              "params": {"name": "codesearch", "arguments": {"query": "x"}}})
    mcp.ping_works(2)
    late = mcp.recv(timeout=10)
    assert late["id"] == 1 and late["result"]["isError"] is False


def test_a_cancelled_call_gets_no_response(start: Any, grepapp: FakeGrepApp) -> None:
    """notifications/cancelled for a running call drops its response; pings still answer."""
    grepapp.answer(slow())
    mcp = start(CODENAV_GREP_APP_URL=grepapp.url)
    mcp.send({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
              "params": {"name": "codesearch", "arguments": {"query": "x"}}})
    for _ in range(500):  # until the call runs (a loaded machine may take a while to start the server)
        if grepapp.seen:
            break
        time.sleep(0.02)
    mcp.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5, "reason": "test"}})
    mcp.ping_works(6)
    time.sleep(1.8)  # the upstream has answered by now; the call has finished, unseen
    assert len(grepapp.seen) == 1
    mcp.ping_works(7)
    assert mcp.silent(0.2)


def test_eof_exits_zero_promptly(mcp: Mcp) -> None:
    """Closing stdin ends the server with exit code 0 well within the clients' 2 s grace."""
    mcp.ping_works()
    code, elapsed = mcp.close()
    assert code == 0 and elapsed < 2


def test_eof_with_a_call_in_flight_still_exits_zero_promptly(start: Any) -> None:
    """A call stuck on its upstream does not hold the process past EOF."""
    with FakeServer() as stuck:
        stuck.route("POST", "/", lambda h: Reply(200, b"{}", delay=10))
        mcp = start(CODENAV_GREP_APP_URL=stuck.url + "/")
        mcp.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                  "params": {"name": "codesearch", "arguments": {"query": "x"}}})
        time.sleep(0.3)
        code, elapsed = mcp.close()
    assert code == 0 and elapsed < 2


def test_the_server_does_not_import_jsonschema_or_requests_to_start() -> None:
    """Startup, the handshake and tools/list stay clear of jsonschema and requests (SPEC §6:
    a warm start pays for neither); the first tools/call loads jsonschema."""
    script = (
        "import io, sys\n"
        "from codenav.mcp.server import Server\n"
        "from codenav.mcp.framing import Writer\n"
        "frames = b'{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}\\n'"
        " + b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\\n'\n"
        "out = io.BytesIO()\n"
        "assert Server(io.BytesIO(frames), Writer(out)).run() == 0\n"
        "assert out.getvalue().count(b'\\n') == 2\n"
        "print(sorted(m for m in ('jsonschema', 'requests') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, cwd=ROOT, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"[]\n"


# --- the two answer forms (SPEC §6.3) ------------------------------------------------------


def test_the_default_tools_list_declares_no_output_schema(mcp: Mcp, json_mcp: Mcp) -> None:
    """Without --json no tool declares an outputSchema (which would oblige structuredContent);
    name, description, inputSchema and annotations are those of --json."""
    listed = mcp.result("tools/list")["tools"]
    assert [tool["name"] for tool in listed] == list(tools.REGISTRY)
    for tool, with_schema in zip(listed, json_mcp.result("tools/list")["tools"], strict=True):
        assert "outputSchema" not in tool
        assert tool == {k: v for k, v in with_schema.items() if k != "outputSchema"}


def test_the_default_answer_is_text_only_and_equals_verbose_stdout(start: Any, grepapp: FakeGrepApp) -> None:
    """A default tools/call result is one text block and isError, no structuredContent, in both
    eras; the text is `codenav search --verbose` stdout."""
    from tests.support.cli import run_cli

    mcp = start(CODENAV_GREP_APP_URL=grepapp.url)
    legacy = mcp.result("tools/call", {"name": "codesearch", "arguments": {"query": "os.sep"}})
    assert set(legacy) == {"content", "isError"} and legacy["isError"] is False
    text = legacy["content"][0]["text"]
    assert text == run_cli("search", "os.sep", "--verbose", env={"CODENAV_GREP_APP_URL": grepapp.url}).stdout.decode()
    assert text.startswith("grep.app · 1 file, 1 snippet\n")
    assert "acme/widgets/src/app.py:10:import os\n" in text
    current = mcp.result("tools/call", modern(name="codesearch", arguments={"query": "os.sep"}), id=2)
    _assert_modern_stamp(current)
    assert set(current) == {"content", "isError", "resultType", "_meta"} and current["content"] == legacy["content"]


@pytest.mark.parametrize("arguments, starts", [
    ({}, "INVALID_ARGUMENT: query is required\nretry: will not help as is\nargument: query\n"),
    ({"query": "x", "surprise": True}, "INVALID_ARGUMENT: unknown argument \"surprise\""),
])
def test_a_default_error_is_text_starting_with_its_code(mcp: Mcp, arguments: dict[str, Any], starts: str) -> None:
    """An error answer is isError with TEXT: the code and message, whether a retry helps, the
    details, the next action; no structuredContent."""
    result = mcp.result("tools/call", {"name": "codesearch", "arguments": arguments})
    assert set(result) == {"content", "isError"} and result["isError"] is True
    text = result["content"][0]["text"]
    assert text.startswith(starts) and text.endswith("next: correct the argument and call again\n")


def test_a_renderer_or_tool_failure_is_an_internal_error_text(start: Any) -> None:
    """A tool that raises, exits or returns what its renderer cannot read gives an INTERNAL
    error answer in text; the server goes on."""
    mcp = start(["-c", _ROGUE_SERVER])
    for n, query in enumerate(["print", "boom", "exit"], 1):
        failed = mcp.result("tools/call", {"name": "codesearch", "arguments": {"query": query}}, id=n)
        assert set(failed) == {"content", "isError"} and failed["isError"] is True
        assert failed["content"][0]["text"].startswith("INTERNAL: internal error (")
        assert "Traceback" not in failed["content"][0]["text"]
    mcp.ping_works()


def test_instructions_teach_the_text_answers_only_in_the_default_form(mcp: Mcp, json_mcp: Mcp) -> None:
    """The instructions say how to read a text answer (header, more:, grep notation) by
    default, and not with --json; both name the target forms and the untrusted-data rule."""
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    text = mcp.result("initialize", params)["instructions"]
    plain = json_mcp.result("initialize", params)["instructions"]
    assert "more: " in text and "N<TAB>text" in text and "more: " not in plain
    for both in (text, plain):
        assert "github:owner/repo" in both and "untrusted" in both


# What each description's first 80 characters must say: when to pick this tool over the others
# (a host may show only those).
FIRST_WORDS = {"list_files": "List the files", "read_file": "Read one file", "grep_file": "ONE file",
               "grep_repo": "EVERY file", "diff_versions": "Compare two versions", "search_symbols": "DEFINED",
               "list_deps": "lockfiles pin",
               "codesearch": "public GitHub code", "codefetch": "github.com"}


def test_each_description_says_first_when_to_pick_the_tool() -> None:
    """The first 80 characters of each description carry the words that set the tool apart."""
    assert set(FIRST_WORDS) == set(tools.REGISTRY)
    for name, words in FIRST_WORDS.items():
        assert words in contract.tool_spec(name)["description"][:80], name
