"""A threaded http.server on 127.0.0.1:0 whose routes a test fills in.

Each route maps (method, path) to a function ``(handler) -> Reply``; a ``Reply`` is a status,
headers and a body (bytes, or an iterable of chunks with optional delays for slow or broken
streams). Every request is recorded so tests can assert what went over the wire.
With ``ssl_context`` it serves HTTPS (the handshake runs in the request's thread, so a client
that refuses the certificate never blocks the accept loop); ``host`` is the name its ``url``
gives (``localhost``, or a name only a proxy resolves).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Self
from urllib.parse import urlsplit


@dataclass
class Reply:
    status: int = 200
    body: bytes | Iterable[bytes] = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before the status line
    chunk_delay: float = 0.0  # seconds between body chunks
    length: int | None = None  # Content-Length to declare (default: the real length when body is bytes)
    abort_after: int | None = None  # close the connection after this many body bytes

    @classmethod
    def json(cls, obj: Any, status: int = 200, **kw: Any) -> Reply:
        headers = {"Content-Type": "application/json", **kw.pop("headers", {})}
        return cls(status, json.dumps(obj).encode(), headers, **kw)


@dataclass
class Seen:
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes


Route = Callable[["Handler"], Reply]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FakeServer  # type: ignore[assignment]

    def log_message(self, format: str, *args: Any) -> None:  # silence
        pass

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        seen = Seen(self.command, parts.path, parts.query, {k.lower(): v for k, v in self.headers.items()}, body)
        self.server.seen.append(seen)
        route = self.server.route_for(self.command, parts.path)
        reply = route(self) if route else Reply(404, b'{"error":"Not found"}', {"Content-Type": "application/json"})
        self._send(reply)

    def _send(self, reply: Reply) -> None:
        if reply.delay:
            time.sleep(reply.delay)
        self.send_response(reply.status)
        chunks = [reply.body] if isinstance(reply.body, (bytes, bytearray)) else list(reply.body)
        total = sum(len(c) for c in chunks)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(reply.length if reply.length is not None else total))
        self.send_header("Connection", "close")
        self.end_headers()
        sent = 0
        try:
            for chunk in chunks:
                if reply.abort_after is not None and sent + len(chunk) > reply.abort_after:
                    self.wfile.write(chunk[: reply.abort_after - sent])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(chunk)
                self.wfile.flush()
                sent += len(chunk)
                if reply.chunk_delay:
                    time.sleep(reply.chunk_delay)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    do_GET = do_POST = do_HEAD = do_PUT = _handle


class Routed:
    """A fake upstream on a FakeServer (a dataclass with a ``server`` field): its ``ROUTES``
    (method, path, handler method name; a path ending in ``*`` is a prefix) are registered when
    it is made, and ``url`` is the server's URL plus ``BASE``."""

    server: FakeServer
    ROUTES: ClassVar[tuple[tuple[str, str, str], ...]] = ()
    BASE: ClassVar[str] = "/"

    def __post_init__(self) -> None:
        for method, path, handler in self.ROUTES:
            if path.endswith("*"):
                self.server.route_prefix(method, path[:-1], getattr(self, handler))
            else:
                self.server.route(method, path, getattr(self, handler))

    @property
    def url(self) -> str:
        return self.server.url + self.BASE


class InThread:
    """``with server:`` serves in a daemon thread and shuts down on the way out."""

    def __enter__(self) -> Self:
        # A short poll interval: shutdown() waits for one, and the default 0.5 s adds up.
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()
        self.server_close()


class FakeServer(InThread, ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, ssl_context: Any = None, host: str = "127.0.0.1") -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.routes: dict[tuple[str, str], Route] = {}
        self.prefix_routes: list[tuple[str, str, Route]] = []
        self.seen: list[Seen] = []
        self.ssl_context = ssl_context
        self.host = host
        self.handshake_failures = 0

    @property
    def url(self) -> str:
        scheme = "https" if self.ssl_context is not None else "http"
        return f"{scheme}://{self.host}:{self.server_address[1]}"

    def finish_request(self, request: Any, client_address: Any) -> None:
        if self.ssl_context is not None:
            import ssl

            request.settimeout(10)
            try:
                request = self.ssl_context.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError):
                self.handshake_failures += 1  # the client refused the certificate
                return
            try:
                super().finish_request(request, client_address)
            finally:
                request.close()  # the TLS wrapper owns the socket now
            return
        super().finish_request(request, client_address)

    def route(self, method: str, path: str, fn: Route) -> None:
        self.routes[(method, path)] = fn

    def route_prefix(self, method: str, prefix: str, fn: Route) -> None:
        self.prefix_routes.append((method, prefix, fn))

    def route_for(self, method: str, path: str, skip: Route | None = None) -> Route | None:
        """The route answering ``method path`` (an exact one first), passing over ``skip``."""
        if self.routes.get((method, path), skip) is not skip:
            return self.routes[(method, path)]
        for m, prefix, fn in self.prefix_routes:
            if m == method and path.startswith(prefix) and fn is not skip:
                return fn
        return None

    def reset(self) -> FakeServer:
        """Forget every route and every request seen (a server reused by the next test)."""
        self.routes.clear()
        self.prefix_routes.clear()
        self.seen.clear()
        return self
