"""Direct HTTP/1.1 exchanges over ``http.client``: net.py's transport when no proxy is involved.

``requests`` costs 70-120 ms to import, most of a cold call's own time; a direct exchange
needs none of it. net.py decides the route (config/proxy.py, config/trust.py) and comes here
only for a connection that goes straight to the host with TLS verified by the process's one
context (config/trust.py), where requests would have done exactly this: the proxied, the
insecure (opted-in ``strict-ssl=false``) and the ``.netrc`` cases stay on requests.

What it keeps of requests' behaviour: the same default headers (net.DEFAULT_HEADERS), the
URL quoted as ``requests.utils.requote_uri`` quotes it, the fragment dropped, a dropped
keep-alive connection noticed before reuse, repeated header fields joined with ``", "``,
bodies read raw (no decoding: net.decoded_body does that) and a body shorter than its
``Content-Length`` reported as such. One kept-alive connection per (thread, scheme, host,
port): a version document and its tarball share it.

Errors leave as the exceptions of ``socket``/``ssl``/``http.client`` (neterrors.py puts them
in words), ``TimeoutError`` for the deadline, and ``OSError`` with words for a broken body.
"""

from __future__ import annotations

import http.client
import socket
from _thread import get_ident
from urllib.parse import quote, urlsplit

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

# requests.utils.requote_uri's safe set: what is already a valid URL character stays as it is.
_SAFE = "!#$%&'()*+,/:;=?@[]~"
_REDIRECTS = (301, 302, 303, 307, 308)  # requests' REDIRECT_STATI
_POOL: dict[tuple[int, str, str, int], http.client.HTTPConnection] = {}
_CLOSING: list = []  # the exit hook, once registered
_ADDRESSES: dict[tuple[str, int], tuple[float, list]] = {}  # (host, port) -> (when asked, getaddrinfo's answer)
DNS_TTL = 300.0  # seconds a host's addresses are reused, as npm's agent keeps its lookups


class Exchange:
    """One answer: ``status``, ``headers`` (lower-cased names), the body by ``chunks``."""

    def __init__(self, conn: http.client.HTTPConnection, resp: http.client.HTTPResponse, sock: object,
                 key: tuple) -> None:
        self.status = resp.status
        headers: dict[str, str] = {}
        for name, value in resp.getheaders():
            name = name.lower()
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        self.headers = headers
        self._conn, self._resp, self._sock, self._key = conn, resp, sock, key

    @property
    def is_redirect(self) -> bool:
        return "location" in self.headers and self.status in _REDIRECTS

    def chunks(self, remaining: Callable[[], float]) -> Iterator[bytes]:
        """The body as it arrives, each read given the time ``remaining()`` leaves (which raises
        TimeoutError once none is left)."""
        resp, sock, got = self._resp, self._sock, 0
        while True:
            sock = give_time(sock, remaining())
            try:
                chunk = resp.read1(256 * 1024)
            except http.client.IncompleteRead:
                raise OSError("the connection closed before the body was complete") from None
            except http.client.HTTPException:
                raise OSError("the connection broke") from None
            if not chunk:
                if resp.length:  # what Content-Length declared and never came (None: chunked or to the close)
                    raise OSError(f"the connection closed after {got} bytes, {resp.length} short of the declared length")
                resp.close()  # read to its end: the connection can carry the next request
                return
            got += len(chunk)
            yield chunk

    def close(self) -> None:
        """Done with the answer: a connection whose body was not read to its end is not reused."""
        if not self._resp.isclosed():
            self._resp.close()
            self._conn.close()
            if _POOL.get(self._key) is self._conn:
                del _POOL[self._key]


def give_time(sock: object, seconds: float) -> object:
    """Let the next read on ``sock`` wait ``seconds`` at most; the socket, or None once http.client
    closed it (the declared body complete: the next read returns b"" without touching it)."""
    if sock is not None:
        try:
            sock.settimeout(seconds)  # type: ignore[attr-defined]
        except OSError:
            return None
    return sock


def send(method: str, url: str, headers: dict[str, str], body: bytes | None,
         remaining: Callable[[], float]) -> Exchange:
    """Send one request and read the answer's status and headers (not its body)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    port = parts.port or (443 if scheme == "https" else 80)
    path = quote(parts.path or "/", safe=_SAFE) + (f"?{quote(parts.query, safe=_SAFE)}" if parts.query else "")
    key = (get_ident(), scheme, host, port)
    conn = _POOL.get(key)
    reused = conn is not None and conn.sock is not None and not _dropped(conn.sock)
    if conn is None or not reused:
        if conn is not None:
            conn.close()
        conn = _POOL[key] = _connection(scheme, host, port)
    while True:
        try:
            return _exchange(conn, key, method, path, headers, body, remaining)
        except BaseException as exc:
            # Whatever broke the exchange (a timeout mid-request included) leaves the connection
            # in no state to carry another: it is dropped.
            conn.close()
            if _POOL.get(key) is conn:
                del _POOL[key]
            if not (reused and isinstance(exc, (ConnectionError, http.client.BadStatusLine))):
                raise
            # The server closed a kept-alive connection as it was reused: once more on a new one
            # (nothing of the answer had arrived).
            reused = False
            conn = _POOL[key] = _connection(scheme, host, port)


def _exchange(conn: http.client.HTTPConnection, key: tuple, method: str, path: str, headers: dict[str, str],
              body: bytes | None, remaining: Callable[[], float]) -> Exchange:
    if conn.sock is None:
        conn.timeout = min(remaining(), 10.0)  # the connect and TLS handshake, as requests' connect timeout
        conn.connect()
    sock = conn.sock
    sock.settimeout(remaining())
    conn.request(method, path, body=body, headers=headers)
    resp = conn.getresponse()
    return Exchange(conn, resp, sock, key)


def _connection(scheme: str, host: str, port: int) -> http.client.HTTPConnection:
    if not _CLOSING:
        import atexit

        _CLOSING.append(atexit.register(_close_all))  # kept-alive connections closed at exit, not collected
    if scheme == "https":
        from .config import trust

        conn: http.client.HTTPConnection = http.client.HTTPSConnection(host, port, context=trust.context())
    else:
        conn = http.client.HTTPConnection(host, port)
    conn._create_connection = _create_connection  # type: ignore[attr-defined]
    return conn


def addresses(host: str, port: int) -> list:
    """``getaddrinfo``'s answer for (host, port), asked once per ``DNS_TTL`` by this process and
    the forks it starts after asking: some resolvers stall for seconds on one lookup in a few
    (docs/decisions.md), and one search may open hundreds of connections to one registry."""
    import time

    found = _ADDRESSES.get((host, port))
    if found is not None and time.monotonic() - found[0] < DNS_TTL:
        return found[1]
    answer = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)
    _ADDRESSES[(host, port)] = (time.monotonic(), answer)
    return answer


def _create_connection(address: tuple[str, int], timeout: float | None = None,
                       source_address: tuple[str, int] | None = None) -> socket.socket:
    """``socket.create_connection`` over the remembered addresses: each in turn until one
    connects; when none does, the answer is forgotten (the next connection asks again)."""
    host, port = address
    error: OSError | None = None
    for family, kind, proto, _, where in addresses(host, port):
        sock = socket.socket(family, kind, proto)
        try:
            if isinstance(timeout, (int, float)):  # else http.client's "the default" sentinel
                sock.settimeout(timeout)
            if source_address is not None:
                sock.bind(source_address)
            sock.connect(where)
            return sock
        except OSError as exc:
            error = exc
            sock.close()
    _ADDRESSES.pop((host, port), None)
    raise error if error is not None else OSError(f"no address found for {host}")


def _close_all() -> None:
    for conn in list(_POOL.values()):
        conn.close()
    _POOL.clear()


def _dropped(sock: object) -> bool:
    """True when a kept-alive connection can no longer carry a request: the server closed it
    (or sent something unasked), which shows as a readable socket (urllib3's test)."""
    import select

    try:
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True
