"""The wire level of the MCP server (SPEC §6): bytes lines in, JSON values out, and back.

One message per line. Lines are split on b"\\n" only — never ``str.splitlines()``, which
would also split on U+2028/U+2029 inside a JSON string. A line must be UTF-8 JSON (no
``NaN``/``Infinity``); anything else is a -32700 parse error. A line longer than
``MAX_LINE`` is skipped in bounded chunks and answered -32600, so a runaway client cannot
make the server hold an unbounded line in memory.

Output is compact, pure-ASCII JSON (``ensure_ascii`` sidesteps every locale question) plus
"\\n", flushed, written under a lock so frames from worker threads never interleave.
"""

from __future__ import annotations

import json
import threading
from typing import IO, Any

MAX_LINE = 4 * 1024 * 1024  # bytes per incoming message; the TS client caps its buffer at 10 MiB
_SKIP_CHUNK = 64 * 1024

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
UNSUPPORTED_PROTOCOL_VERSION = -32022  # MCP 2026-07-28


class RpcError(Exception):
    """A JSON-RPC error object: a code, one sentence, optional data."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_error(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def error_response(request_id: int | str | None, exc: RpcError) -> dict[str, Any]:
    """A JSON-RPC error response. ``None`` goes out as ``"id": null`` (JSON-RPC 2.0 §5 for an
    undeterminable id; the Python client accepts and drops it, an omitted id it rejects)."""
    return {"jsonrpc": "2.0", "id": request_id, "error": exc.to_error()}


def read_line(stream: IO[bytes], limit: int = MAX_LINE) -> bytes | None:
    """The next line without its b"\\n", or None at EOF.

    A final line without a newline still counts. A line longer than ``limit`` is consumed in
    bounded chunks up to its newline and reported as ``RpcError(INVALID_REQUEST)``.
    """
    line = stream.readline(limit + 1)
    if not line:
        return None
    if line.endswith(b"\n"):
        return line[:-1]
    if len(line) <= limit:
        return line  # the last line, without a newline
    while True:
        chunk = stream.readline(_SKIP_CHUNK)
        if not chunk or chunk.endswith(b"\n"):
            break
    raise RpcError(INVALID_REQUEST, f"message too large: one message is at most {limit} bytes")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode(line: bytes) -> Any:
    """The JSON value of one line; ``RpcError(PARSE_ERROR)`` when it is not UTF-8 JSON."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise RpcError(PARSE_ERROR, "Parse error: the message is not valid UTF-8") from None
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):  # RecursionError: absurdly deep nesting
        raise RpcError(PARSE_ERROR, "Parse error: the message is not valid JSON") from None


def encode(message: dict[str, Any]) -> bytes:
    """One frame: compact ASCII JSON and a newline (ValueError for NaN/Infinity, TypeError for
    a non-JSON value)."""
    text = json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.encode("ascii") + b"\n"


class Writer:
    """Writes frames to the wire, one at a time, until closed or the reader goes away."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.closed = False

    def send(self, frame: bytes) -> None:
        with self._lock:
            if self.closed:
                return
            try:
                self._stream.write(frame)
                self._stream.flush()
            except (OSError, ValueError):  # the client closed our stdout: nobody is listening
                self.closed = True

    def fileno(self) -> int:
        """The wire's descriptor (the server watches it for a reader that went away)."""
        return self._stream.fileno()

    def close(self, timeout: float = 0.5) -> None:
        """Drop every later frame. A writer blocked on a full pipe is not waited for forever."""
        acquired = self._lock.acquire(timeout=timeout)
        self.closed = True
        if acquired:
            self._lock.release()
