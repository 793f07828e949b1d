"""Drive one ``codenav mcp`` session over stdio: the handshake, then sequential tool calls.

Latency is measured in this client from writing a request line to reading its response
line, so it includes the server's framing and JSON both ways and the pipe round trip. The
client itself stays out of the figure as far as it can: it writes pre-encoded requests and
parses every 100th response in full (each one is checked to answer its id without error).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness import percentile


@dataclass
class Load:
    calls: int
    seconds: float
    latencies_ms: list[float]

    @property
    def calls_per_second(self) -> float:
        return self.calls / self.seconds

    @property
    def p50_ms(self) -> float:
        return statistics.median(self.latencies_ms)

    @property
    def p99_ms(self) -> float:
        return percentile(self.latencies_ms, 99)


class Session:
    def __init__(self, argv: Sequence[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self._next = 0

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next += 1
        self._send({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"codenav mcp closed the connection during {method}")
        reply = json.loads(line)
        if reply.get("id") != self._next or "error" in reply:
            raise RuntimeError(f"unexpected reply to {method}: {line[:300]!r}")
        return reply["result"]

    def call_quickly(self, params: dict[str, Any]) -> None:
        """One tools/call whose answer is checked without decoding it: its id, and no error."""
        self._next += 1
        self._send({"jsonrpc": "2.0", "id": self._next, "method": "tools/call", "params": params})
        line = self.proc.stdout.readline()
        if not line.startswith(b'{"jsonrpc":"2.0","id":%d,"result":' % self._next) or b'"isError":false' not in line:
            raise RuntimeError(f"unexpected reply to tools/call: {line[:300]!r}")

    def notify(self, method: str) -> None:
        self._send({"jsonrpc": "2.0", "method": method})

    def _send(self, message: dict[str, Any]) -> None:
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def read_file_load(argv: Sequence[str], env: dict[str, str], arguments: dict[str, Any], calls: int,
                   warmup: int) -> Load:
    """``warmup`` uncounted then ``calls`` timed sequential tools/call read_file on one session."""
    return tool_load(argv, env, "read_file", arguments, calls, warmup)


def tool_load(argv: Sequence[str], env: dict[str, str], name: str, arguments: dict[str, Any], calls: int,
              warmup: int) -> Load:
    """``warmup`` uncounted then ``calls`` timed sequential tools/call ``name`` on one session."""
    session = Session(argv, env)
    try:
        session.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                       "clientInfo": {"name": "codenav-bench", "version": "1"}})
        session.notify("notifications/initialized")
        params = {"name": name, "arguments": arguments}
        for _ in range(warmup):
            result = session.request("tools/call", params)
            if result.get("isError"):
                raise RuntimeError(f"{name} failed: {result['content'][0]['text'][:300]}")
        latencies = []
        clock = time.perf_counter
        start = clock()
        for index in range(calls):
            sent = clock()
            if index % 100 == 0:
                session.request("tools/call", params)
            else:
                session.call_quickly(params)
            latencies.append((clock() - sent) * 1000)
        elapsed = clock() - start
    finally:
        session.close()
    return Load(calls, elapsed, latencies)
