"""Both surfaces at once: a raw MCP session with ``codenav mcp`` and the parity check.

``McpSession(env)`` speaks newline-delimited JSON-RPC to ``python -m codenav mcp --json`` (the
handshake era's ``initialize`` first); ``json_answers=False`` starts the default server, which
answers with TEXT. ``check(world, tool, arguments, argv, code=...)`` calls the tool over MCP and
runs the same command on the CLI with ``--json``, and asserts what SPEC §4 and §7 promise: the
same bytes, ``structuredContent`` equal to the text, ``isError`` and the exit status matching
the outcome, and the payload valid against its schema. ``world`` is any mapping with the
``--json`` session under ``"mcp"`` and the CLI's environment under ``"env"``; when it also
holds a default server under ``"text"``, ``check_text`` holds that server's TEXT answer to
``--verbose`` (SPEC §4.4).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from codenav import contract

from .cli import run_cli

# The tools whose failures exit 2 on the CLI (grep's convention: 1 means "no match").
EXIT_2_TOOLS = ("grep_file", "grep_repo", "search_symbols", "codesearch")


class McpSession:
    """A raw newline-delimited JSON-RPC session with `python -m codenav mcp --json` (``json_answers``
    False: the default server, which answers with TEXT)."""

    def __init__(self, env: dict[str, str], *, json_answers: bool = True) -> None:
        options = ["--json"] if json_answers else []
        self.proc = subprocess.Popen([sys.executable, "-m", "codenav", "mcp", *options], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.next_id = 0
        reply = self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                            "clientInfo": {"name": "parity", "version": "0"}})
        assert reply["result"]["protocolVersion"] == "2025-11-25"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed stdout"
            message = json.loads(line)
            if message.get("id") == self.next_id:
                return message

    def call(self, tool: str, arguments: dict) -> dict:
        return self.request("tools/call", {"name": tool, "arguments": arguments})["result"]

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def check(world: Mapping[str, Any], tool: str, arguments: dict, argv: list[str], *, code: str | None = None) -> dict:
    """Call both surfaces; assert byte parity, the error code, the exit status and the schema;
    return the payload. `codenav mcp --json` is held to the envelope's parity; a default server
    in the world (``"text"``) to the TEXT answer's (``check_text``)."""
    payload = _check_json(world, tool, arguments, argv, code=code)
    if "text" in world:
        check_text(world, tool, arguments, argv, payload, code=code)
    return payload


def _check_json(world: Mapping[str, Any], tool: str, arguments: dict, argv: list[str], *,
                code: str | None = None) -> dict:
    result = world["mcp"].call(tool, arguments)
    proc = run_cli(*argv, "--json", env=world["env"])
    text = result["content"][0]["text"]
    assert proc.stdout.decode("utf-8") == text + "\n", proc.stderr
    payload = json.loads(text)
    assert result["structuredContent"] == payload
    assert result["isError"] is (code is not None)
    if code is None:
        contract.validator(tool, "outputSchema").validate(payload)
    else:
        contract.validator("error").validate(payload)
        assert payload["error"]["code"] == code
        assert proc.returncode == (2 if tool in EXIT_2_TOOLS else 1)
        assert b"Traceback" not in proc.stderr
    return payload


# Words the CLI spells its own way: where a TEXT answer holds none, --verbose is byte-equal to it.
_MCP_WORDS = ("start_line", "end_line", "path_prefix", "project_dir", "list_files", "read_file", "cursor=", "=true")


def check_text(world: Mapping[str, Any], tool: str, arguments: dict, argv: list[str], payload: dict, *,
               code: str | None) -> None:
    """The default server answers with TEXT only (no structuredContent): a success is exactly
    `codenav <cmd> --verbose` stdout and the tool's renderer of the --json payload; an error is
    the error TEXT of the same envelope, code first, and --verbose prints it in CLI words."""
    from codenav import tools, words

    result = world["text"].call(tool, arguments)
    assert set(result) == {"content", "isError"} and result["isError"] is (code is not None)
    assert [block["type"] for block in result["content"]] == ["text"]
    text = result["content"][0]["text"]
    proc = run_cli(*argv, "--verbose", env=world["env"])
    if code is None:
        assert text == tools.load(tool).text(payload) and "(CLI:" not in text
        assert proc.stdout.decode("utf-8") == tools.load(tool).text(payload, words.for_cli)
        if not any(w in text for w in _MCP_WORDS):
            assert proc.stdout.decode("utf-8") == text
        assert proc.stderr == b""
    else:
        assert text == words.error_text(payload) and text.startswith(code + ": ")
        assert "(CLI:" not in text
        assert proc.stdout == b""
        assert proc.stderr.decode("utf-8") == "".join(
            f"codenav: {line}\n" for line in words.error_text(payload, words.for_cli).splitlines())
        assert proc.returncode == (2 if tool in EXIT_2_TOOLS else 1)
