"""net.py's transport through ``requests``: for a proxied or insecure exchange, or one a ``.netrc``
may add credentials to (a direct one goes through httpclient.py, without importing requests).

One ``requests.Session`` per thread and kind (verified or insecure); its adapters carry the
process's one TLS context (config/trust.py) for direct and proxied connections alike. The
answer is handed back in httpclient.Exchange's shape (``status``, ``headers``,
``is_redirect``, ``chunks(remaining)``, ``close()``); a failure to connect is already put in
words (neterrors.py), a timeout is ``TimeoutError``.
"""

from __future__ import annotations

from . import neterrors
from .httpclient import give_time

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

_SESSIONS: dict[tuple[int, bool], Any] = {}


def _session(insecure: bool = False) -> Any:
    """One ``requests.Session`` per thread: a packument and its tarball on the same host share a
    connection (the indexer makes both requests).

    An ``insecure`` session (an opted-in ``strict-ssl=false``) is separate: urllib3 sets
    ``verify_mode`` on the context it is given, so the shared one never meets it.
    """
    import threading

    import requests

    key = (threading.get_ident(), insecure)
    session = _SESSIONS.get(key)
    if session is None:
        session = _SESSIONS[key] = requests.Session()
        if insecure:
            import urllib3

            urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)  # the result says so
        else:
            adapter = _trust_adapter()
            session.mount("https://", adapter)
            session.mount("http://", adapter)
    return session


def _trust_adapter() -> Any:
    from requests.adapters import HTTPAdapter

    from .config import trust

    class TrustAdapter(HTTPAdapter):
        """Both managers get the context: a proxied request uses the proxy manager's pools."""

        def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
            kwargs["ssl_context"] = trust.context()
            super().init_poolmanager(*args, **kwargs)

        def proxy_manager_for(self, proxy: str, **kwargs: Any) -> Any:
            kwargs["ssl_context"] = trust.context()
            return super().proxy_manager_for(proxy, **kwargs)

        # The context already holds every bundle (certifi, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE):
        # a bundle path handed to urllib3 would be parsed into it again on every connection.
        def build_connection_pool_key_attributes(self, request: Any, verify: Any, cert: Any = None) -> Any:
            return super().build_connection_pool_key_attributes(request, bool(verify), cert)

        def cert_verify(self, conn: Any, url: str, verify: Any, cert: Any) -> None:
            super().cert_verify(conn, url, bool(verify), cert)
            if verify and url.lower().startswith("https"):
                conn.ca_certs = conn.ca_cert_dir = None

    return TrustAdapter()


def send(method: str, url: str, headers: dict[str, str], body: bytes | None, remaining: Callable[[], float],
         what: str, proxies: dict[str, Any] | None, via: tuple[str, str] | None, insecure: bool) -> Answer:
    """Send one request and read the answer's status and headers (not its body)."""
    import requests

    session = _session(insecure)
    try:
        left = remaining()
        resp = session.request(
            method, url, headers=headers, data=body, timeout=(min(left, 10.0), left), allow_redirects=False,
            stream=True, proxies=proxies, verify=False if insecure else True,
        )
    except requests.exceptions.Timeout:
        raise TimeoutError from None
    except requests.exceptions.RequestException as exc:
        raise neterrors.connect_error(exc, what, url, via) from None
    return Answer(resp)


class Answer:
    """A requests response in httpclient.Exchange's shape."""

    def __init__(self, resp: Any) -> None:
        self.resp = resp
        self.status = resp.status_code
        self.headers = {k.lower(): v for k, v in resp.headers.items()}
        self.is_redirect = resp.is_redirect

    def chunks(self, remaining: Callable[[], float]) -> Iterator[bytes]:
        """The raw body as it arrives, each read given the time ``remaining()`` leaves."""
        import requests
        import urllib3

        raw = self.resp.raw
        sock = _socket_of(raw)
        while True:
            sock = give_time(sock, remaining())
            try:
                chunk = raw.read1(256 * 1024) if hasattr(raw, "read1") else raw.read(64 * 1024)
            except urllib3.exceptions.ReadTimeoutError:
                raise TimeoutError from None
            except urllib3.exceptions.ProtocolError as exc:
                raise OSError(_broken(exc)) from None
            except urllib3.exceptions.DecodeError:
                raise OSError("the body could not be decoded") from None
            except requests.exceptions.RequestException as exc:
                raise OSError(neterrors.why(exc)) from None
            if not chunk:
                # urllib3 reports a short body (Content-Length not reached) as an error when
                # enforce_content_length is on, which is the default in urllib3 2.
                return
            yield chunk

    def close(self) -> None:
        self.resp.close()


def _socket_of(raw: Any) -> Any:
    """The socket under a urllib3 response, to give each read the remaining time (best effort)."""
    try:
        return raw._fp.fp.raw._sock  # http.client.HTTPResponse -> BufferedReader -> SocketIO
    except AttributeError:
        return None


def _broken(exc: BaseException) -> str:
    """Why a body stopped, in words: urllib3's ProtocolError text is a nested tuple repr.

    A connection closed before the declared Content-Length (a reset or a truncated body) shows
    as ``IncompleteRead(N bytes read, M more expected)`` somewhere in its arguments.
    """
    for arg in (exc, *getattr(exc, "args", ())):
        partial = getattr(arg, "partial", None)
        expected = getattr(arg, "expected", None)
        if isinstance(partial, int) and isinstance(expected, int):
            return f"the connection closed after {partial} bytes, {expected} short of the declared length"
    if "IncompleteRead" in str(exc):
        return "the connection closed before the body was complete"
    if "reset" in str(exc).lower():
        return "the connection was reset"
    return "the connection broke"
