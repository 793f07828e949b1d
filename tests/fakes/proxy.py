"""A CONNECT proxy on 127.0.0.1:0 that tunnels to 127.0.0.1 whatever host is asked, and counts.

Every CONNECT is recorded (the ``host:port`` asked and the Proxy-Authorization sent), so a
test can prove which exchanges went through it. ``refuse`` answers 403 instead of tunnelling.
Any name resolves here, so a target such as ``registry.test`` is reachable only through it.
"""

from __future__ import annotations

import select
import socket
import socketserver
import threading

from .http import InThread


class _Tunnel(socketserver.StreamRequestHandler):
    server: ConnectProxy  # type: ignore[assignment]

    def handle(self) -> None:
        request_line = self.rfile.readline(65536).decode("latin-1").strip()
        headers: dict[str, str] = {}
        while True:
            line = self.rfile.readline(65536).decode("latin-1")
            if line in ("\r\n", "\n", ""):
                break
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        method, _, rest = request_line.partition(" ")
        target = rest.split(" ", 1)[0]
        with self.server.lock:
            self.server.connects.append((method, target, headers.get("proxy-authorization")))
        if method != "CONNECT" or self.server.refuse:
            self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        port = int(target.rpartition(":")[2])
        try:
            upstream = socket.create_connection(("127.0.0.1", port), timeout=10)
        except OSError:
            self.wfile.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        self.wfile.flush()
        client = self.connection
        try:
            while True:
                ready, _, _ = select.select([client, upstream], [], [], 10)
                if not ready:
                    return
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    (upstream if sock is client else client).sendall(data)
        except OSError:
            return
        finally:
            upstream.close()


class ConnectProxy(InThread, socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, refuse: bool = False) -> None:
        super().__init__(("127.0.0.1", 0), _Tunnel)
        self.refuse = refuse
        self.lock = threading.Lock()
        self.connects: list[tuple[str, str, str | None]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"
