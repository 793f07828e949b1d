"""Both surfaces at once: a raw MCP session with ``codenav mcp`` and the parity check.

``McpSession(env)`` speaks newline-delimited JSON-RPC to ``python -m codenav mcp`` (the
handshake era's ``initialize`` first). ``check(world, tool, arguments, argv, code=...)`` calls
the tool over MCP and runs the same command on the CLI with ``--json``, and asserts what
SPEC §4 and §7 promise: the same bytes, ``structuredContent`` equal to the text, ``isError``
and the exit status matching the outcome, and the payload valid against its schema. ``world``
is any mapping with the session under ``"mcp"`` and the CLI's environment under ``"env"``.
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
    """A raw newline-delimited JSON-RPC session with `python -m codenav mcp`."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "codenav", "mcp"], stdin=subprocess.PIPE,
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
    return the payload."""
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
