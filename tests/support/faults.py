"""HTTP faults any fake upstream can meet, and what each must become (SPEC §4, §8).

``FAULTS`` maps a fault to a function ``(good, other) -> Reply`` that turns the healthy answer
``good`` into the faulty one (``other`` is a URL on another host, for the redirect): a stall past
the deadline, a body that drips past it, a connection closed mid-body, 5xx, 429 with
Retry-After, a body shorter than its Content-Length, a body over the cap, a redirect, unreadable
JSON or SSE, and the wrong content type.

What a fault must become depends on what was being fetched:

- ``DOCUMENT``: a registry's metadata (JSON, XML or text): every HTTP fault, and unreadable
  content, is its code below;
- ``ARTIFACT``: the download of the archive itself: the same statuses, and an HTML page (a
  captive portal) cannot match the published hash, so it is INTEGRITY_ERROR;
- ``HOP``: a redirect on the way to the artifact (it has no body to cut, drip or inflate).

``fault_route(server, paths, fault)`` puts a fault on routes a fake already serves, wrapping
their healthy answer; ``assert_fault_outcome`` asserts what every fault owes: its code and
``retryable``, a one-line message with no traceback, repr or local path, Retry-After passed on,
a deadline kept, and nothing cached.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.fakes.http import FakeServer, Reply

from .cache import assert_nothing_cached

TIMEOUT = "0.5"  # seconds, for every CODENAV_*_TIMEOUT a fault test sets
STALL = 3.0  # a stalled reply waits this long before its status line
BIG = 65 * 1024 * 1024  # declared size over every cap (registry documents are capped at 64 MiB)
# A stall or a drip must end near its timeout, far below the 30 s default; this much more is
# allowed for starting the indexer process on a loaded machine (CI runs two test workers).
STALL_SLACK = 4.0
TIMEOUT_VARIABLES = ("CODENAV_REGISTRY_TIMEOUT", "CODENAV_DOWNLOAD_TIMEOUT", "CODENAV_GIT_TIMEOUT",
                     "CODENAV_GITHUB_TIMEOUT", "CODENAV_GH_TIMEOUT", "CODENAV_GREP_APP_TIMEOUT")


def body_of(reply: Reply) -> bytes:
    return reply.body if isinstance(reply.body, bytes) else b"".join(reply.body)


def _drip(reply: Reply) -> Reply:
    """The healthy answer in small pieces spread over about 2 s: each read is quick, the whole is late."""
    body = body_of(reply)
    step = max(1, len(body) // 40)
    pieces = [body[i:i + step] for i in range(0, len(body), step)]
    return Reply(reply.status, pieces, reply.headers, chunk_delay=2.0 / len(pieces))


Fault = Callable[[Reply, str], Reply]

FAULTS: dict[str, Fault] = {
    "stall": lambda good, other: Reply(good.status, good.body, good.headers, delay=STALL),
    "drip": lambda good, other: _drip(good),
    "reset-mid-body": lambda good, other: Reply(200, body_of(good) + b" " * 20000, good.headers,
                                                length=len(body_of(good)) + 20000, abort_after=64),
    "500": lambda good, other: Reply(500, b"<html>Internal Server Error</html>", {"Content-Type": "text/html"}),
    "502": lambda good, other: Reply(502, b"<html>Bad Gateway</html>", {"Content-Type": "text/html"}),
    "503": lambda good, other: Reply(503, b"Service Unavailable", {"Retry-After": "3"}),
    "504": lambda good, other: Reply(504, b"<html>504 Gateway Time-out</html>", {"Content-Type": "text/html"}),
    "429": lambda good, other: Reply(429, b"Too Many Requests", {"Retry-After": "7"}),
    "truncated": lambda good, other: Reply(200, body_of(good)[:40], good.headers, length=len(body_of(good)) + 5000),
    "oversized": lambda good, other: Reply(200, b"{}", good.headers, length=BIG),
    "redirect": lambda good, other: Reply(302, b"", {"Location": other}),
    "invalid-json": lambda good, other: Reply(200, b'{"versions": {"1.0.0": ', {"Content-Type": "application/json"}),
    "invalid-sse": lambda good, other: Reply(200, b"event: message\ndata: {not json at all\n\n",
                                             {"Content-Type": "text/event-stream"}),
    "wrong-content-type": lambda good, other: Reply(200, b"<!DOCTYPE html><html><body>Sign in to continue"
                                                         b"</body></html>", {"Content-Type": "text/html"}),
}

R, N = True, False
HTTP_COMMON: dict[str, tuple[str, bool]] = {
    "stall": ("TIMEOUT", R), "drip": ("TIMEOUT", R), "reset-mid-body": ("NETWORK", R),
    "500": ("UPSTREAM_ERROR", R), "502": ("UPSTREAM_ERROR", R), "503": ("UPSTREAM_ERROR", R),
    "504": ("UPSTREAM_ERROR", R), "429": ("RATE_LIMITED", R), "truncated": ("NETWORK", R),
    "oversized": ("TOO_LARGE", N), "redirect": ("PROTOCOL_ERROR", N),
}
DOCUMENT = {**HTTP_COMMON, "invalid-json": ("PROTOCOL_ERROR", N), "wrong-content-type": ("PROTOCOL_ERROR", N)}
ARTIFACT = {**HTTP_COMMON, "wrong-content-type": ("INTEGRITY_ERROR", N)}
HOP = {fault: expected for fault, expected in ARTIFACT.items()
       if fault not in ("drip", "reset-mid-body", "truncated", "oversized")}
EXPECTED = {"document": DOCUMENT, "artifact": ARTIFACT, "hop": HOP}


def other_host(server: FakeServer) -> str:
    """A URL on another host name (plain http), where a redirect may point."""
    return f"http://localhost:{server.server_address[1]}/elsewhere"


def fault_route(server: FakeServer, paths: tuple[str, ...], make: Fault, *, prefix: bool = False) -> None:
    """Make ``paths`` (exact, or prefixes with ``prefix``) meet ``make``: each request is first
    answered by the route the fake already has for it, then that healthy answer is spoiled."""
    other = other_host(server)
    originals = {} if prefix else {path: server.route_for("GET", path) for path in paths}

    def spoiled(handler: Any) -> Reply:
        path = handler.path.split("?", 1)[0]
        original = originals.get(path) or server.route_for("GET", path, skip=spoiled)
        good = original(handler) if original else Reply(404, b"")
        return make(good, other)

    for path in paths:
        if prefix:
            server.prefix_routes.insert(0, ("GET", path, spoiled))
        else:
            server.route("GET", path, spoiled)


def set_timeouts(monkeypatch: Any) -> None:
    for variable in TIMEOUT_VARIABLES:
        monkeypatch.setenv(variable, TIMEOUT)


def assert_fault_outcome(call: Callable[[], Any], fault: str, code: str, retryable: bool, tmp_path: Path, *,
                         budget: float = float(TIMEOUT)) -> Any:
    """Run ``call`` and assert the fault became ``code``/``retryable`` promptly, in one clean line,
    leaving nothing cached; return the error."""
    from codenav.errors import CodenavError

    started = time.monotonic()
    try:
        outcome: Any = call()
    except CodenavError as exc:
        outcome = exc
    elapsed = time.monotonic() - started
    assert isinstance(outcome, CodenavError), f"expected {code}, got a result"
    assert (outcome.code, outcome.retryable) == (code, retryable), outcome.message
    # One line, no traceback frames, no Python reprs, no local paths (SPEC §4).
    message = outcome.to_envelope()["error"]["message"]
    assert "\n" not in message and 'File "' not in message and str(tmp_path) not in message, message
    assert "IncompleteRead" not in message and "Error(" not in message, message
    if fault in ("stall", "drip"):
        # Deadlines cover the whole exchange (SPEC §8): a stall or a drip ends near the timeout,
        # not when the server gives up.
        assert elapsed < budget + STALL_SLACK, f"took {elapsed:.1f} s"
    assert_nothing_cached(tmp_path / "cache")
    return outcome
