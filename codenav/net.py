"""HTTP with whole-exchange deadlines, byte caps, a redirect policy, trust and proxies (SPEC §8).

``requests`` is imported inside ``fetch`` only, so nothing on a warm path pays for it. The
deadline covers connect, headers and body: every socket read is given the time that remains,
and the body is read with ``read1`` (one ``recv`` at most) so a slow drip cannot stretch it.
Every connection verifies against the process's one TLS context (config/trust.py) and takes
its proxy from the environment or the package manager's configuration (config/proxy.py);
failures are told in words (neterrors.py): no Python repr, no proxy credentials.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from . import neterrors
from .errors import CodenavError
from .proc import Deadline

API_CAP = 2 * 1024 * 1024  # bytes, for API/search/fetch bodies
DEFAULT_TIMEOUT = 30.0


def timeout_from_env(variable: str, default: float = DEFAULT_TIMEOUT) -> float:
    raw = os.environ.get(variable) or os.environ.get("CODENAV_HTTP_TIMEOUT")
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise CodenavError("CONFIG_ERROR", f"{variable} must be a number of seconds, got {raw!r}") from None
    if value <= 0:
        raise CodenavError("CONFIG_ERROR", f"{variable} must be positive, got {raw!r}")
    return value


@dataclass
class Response:
    status: int
    headers: dict[str, str]  # lower-cased names
    body: bytes = b""
    url: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def header(self, name: str, default: str | None = None) -> str | None:
        return self.headers.get(name.lower(), default)


def _redirect_allowed(policy: str, origin: str, target: str) -> bool:
    """'never' refuses every redirect; 'https' follows only to https or the same loopback host."""
    if policy != "https":
        return False
    parts, start = urlsplit(target), urlsplit(origin)
    if parts.scheme == "https":
        return True
    return parts.hostname in ("127.0.0.1", "localhost", "::1") and parts.hostname == start.hostname


def _socket_of(raw: Any) -> Any:
    """The socket under a urllib3 response, to give each read the remaining time (best effort)."""
    try:
        return raw._fp.fp.raw._sock  # http.client.HTTPResponse -> BufferedReader -> SocketIO
    except AttributeError:
        return None


_SESSIONS: dict[tuple[int, bool], Any] = {}


def _session(insecure: bool = False) -> Any:
    """One ``requests.Session`` per thread: the trust context is shared, and a packument and
    its tarball on the same host share a connection (the indexer makes both requests).

    Its adapters carry the process's one TLS context (config/trust.py) for direct and proxied
    connections alike. An ``insecure`` session (an opted-in ``strict-ssl=false``) is separate:
    urllib3 sets ``verify_mode`` on the context it is given, so the shared one never meets it.
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


def _route(url: str, manager: str | None) -> tuple[dict[str, Any] | None, tuple[str, str] | None, bool]:
    """(proxies to pass, (proxy, where it is set) for messages, TLS checks off) for ``url``.

    The environment first, as requests reads it; then the package manager's own proxy. A
    setting that turns TLS checks off is refused here unless the user opted in.
    """
    import requests

    from .config import proxy, trust

    insecure = False
    found = trust.insecure(url, manager)
    if found is not None:
        setting, where = found
        if not trust.insecure_allowed():
            raise CodenavError(
                "CONFIG_ERROR",
                f"{setting} in {where} turns off TLS certificate checks for {neterrors.host_of(url)}; codenav does not "
                f"download code it cannot verify. Remove the setting and trust your CA instead "
                f"({trust.HOW_TO_ADD}), or set {trust.INSECURE_VARIABLE}=1 to go on without checks "
                f"(every result then says so)",
                details={"setting": setting, "file": where,
                         "action": f"remove {setting} from {where}, or set {trust.INSECURE_VARIABLE}=1"},
            )
        insecure = True
    scheme = url.split(":", 1)[0].lower()
    from_env = requests.utils.get_environ_proxies(url)
    chosen = from_env.get(scheme) or from_env.get("all")
    if chosen:
        return None, (chosen, f"{scheme}_proxy in the environment"), insecure
    configured = proxy.configured(url, manager) if manager else None
    if configured:
        return {"http": configured[0], "https": configured[0]}, configured, insecure
    return None, None, insecure


def request(
    method: str,
    url: str,
    *,
    what: str,
    headers: dict[str, str] | None = None,
    json_body: Any = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = API_CAP,
    redirects: str = "never",
    sink: BinaryIO | None = None,
    on_chunk: Any = None,
    too_large: Any = None,
    on_headers: Any = None,
    manager: str | None = None,
) -> Response:
    """One HTTP exchange; the whole of it must finish within ``timeout`` seconds.

    ``what`` names the upstream in error messages ("the npm registry"). The body is kept in
    memory up to ``max_bytes`` or, with ``sink``, streamed into it (``on_chunk(bytes)`` sees
    every chunk, e.g. to hash while downloading). Over the cap: ``too_large()`` builds the
    error (default TOO_LARGE). Non-2xx statuses are returned, not raised: callers map them.
    ``on_headers(response)`` sees the status and headers before any of the body is read; what
    it raises closes the connection at once (a range request answered with a whole body).
    ``manager`` ("npm", "pip") names the package manager whose proxy and insecure settings
    apply (SPEC §8.1); trust is the same for every exchange.
    """
    import requests

    _session()  # the first call builds the trust context: setup, not part of the exchange's deadline
    deadline = Deadline(timeout)
    hops = 0
    current = url
    while True:
        proxies, via, insecure = _route(current, manager)
        session = _session(insecure)
        try:
            left = deadline.left()
            resp = session.request(
                method,
                current,
                headers=headers,
                json=json_body,
                timeout=(min(left, 10.0), left),
                allow_redirects=False,
                stream=True,
                proxies=proxies,
                verify=False if insecure else True,
            )
        except TimeoutError:
            raise _timeout(what, timeout) from None
        except requests.exceptions.Timeout:
            raise _timeout(what, timeout) from None
        except requests.exceptions.RequestException as exc:
            raise neterrors.connect_error(exc, what, current, via) from None
        if resp.is_redirect:
            location = resp.headers.get("location", "")
            target = requests.compat.urljoin(current, location)
            resp.close()
            hops += 1
            if hops > 5 or not _redirect_allowed(redirects, current, target):
                raise CodenavError(
                    "PROTOCOL_ERROR",
                    f"{what} answered with a redirect (HTTP {resp.status_code}), which codenav does not follow here",
                    details={"status": resp.status_code},
                )
            current = target
            continue
        break
    out = Response(
        status=resp.status_code,
        headers={k.lower(): v for k, v in resp.headers.items()},
        url=current,
    )
    if on_headers is not None:
        try:
            on_headers(out)
        except BaseException:
            resp.close()
            raise
    declared = resp.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > max_bytes and 200 <= resp.status_code < 300:
        resp.close()
        raise (too_large() if too_large else _too_large(what, max_bytes))
    chunks: list[bytes] = []
    total = 0
    try:
        for chunk in _read_body(resp, deadline):
            total += len(chunk)
            if total > max_bytes:
                raise (too_large() if too_large else _too_large(what, max_bytes))
            if on_chunk is not None:
                on_chunk(chunk)
            if sink is not None and 200 <= resp.status_code < 300:
                sink.write(chunk)
            else:
                chunks.append(chunk)
    except TimeoutError:
        raise _timeout(what, timeout) from None
    except requests.exceptions.RequestException as exc:
        raise CodenavError("NETWORK", f"the connection to {what} failed while reading: {neterrors.why(exc)}") from None
    except OSError as exc:
        if isinstance(exc, TimeoutError) or "timed out" in str(exc):
            raise _timeout(what, timeout) from None
        raise CodenavError("NETWORK", f"the connection to {what} failed while reading: {neterrors.why(exc)}") from None
    finally:
        resp.close()
    out.body = b"".join(chunks)
    return out


def _read_body(resp: Any, deadline: Deadline) -> Iterator[bytes]:
    import urllib3

    raw = resp.raw
    sock = _socket_of(raw)
    while True:
        left = deadline.left()
        if sock is not None:
            try:
                sock.settimeout(left)
            except OSError:
                # http.client closes the socket once the declared body is complete; the next
                # read then returns b"" without touching it.
                sock = None
        try:
            chunk = raw.read1(256 * 1024) if hasattr(raw, "read1") else raw.read(64 * 1024)
        except urllib3.exceptions.ReadTimeoutError:
            raise TimeoutError from None
        except urllib3.exceptions.ProtocolError as exc:
            raise OSError(_broken(exc)) from None
        except urllib3.exceptions.DecodeError:
            raise OSError("the body could not be decoded") from None
        if not chunk:
            # urllib3 reports a short body (Content-Length not reached) as an error when
            # enforce_content_length is on, which is the default in urllib3 2.
            return
        yield chunk


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


def _timeout(what: str, seconds: float) -> CodenavError:
    return CodenavError(
        "TIMEOUT", f"{what} did not answer within {seconds:g} s", details={"timeoutSeconds": seconds}
    )


def _too_large(what: str, cap: int) -> CodenavError:
    return CodenavError(
        "TOO_LARGE", f"the response from {what} is larger than the {cap // 1024} KiB limit", details={"limitBytes": cap}
    )


def retry_after_seconds(headers: dict[str, str]) -> int | None:
    """Seconds from Retry-After (delta or HTTP date) or x-ratelimit-reset (epoch seconds)."""
    value = headers.get("retry-after")
    if value:
        if value.strip().isdigit():
            return int(value.strip())
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(value)
            return max(0, int(when.timestamp() - time.time()))
        except (TypeError, ValueError):
            pass
    reset = headers.get("x-ratelimit-reset")
    if reset and reset.strip().isdigit():
        return max(0, int(reset.strip()) - int(time.time()))
    return None


def status_error(what: str, resp: Response, *, not_found: CodenavError | None = None) -> CodenavError:
    """The SPEC §4 error for a non-2xx status."""
    status = resp.status
    if status == 404 and not_found is not None:
        return not_found
    if status == 429 or (status == 403 and resp.header("x-ratelimit-remaining") == "0"):
        seconds = retry_after_seconds(resp.headers)
        details: dict[str, Any] = {"status": status}
        if seconds is not None:
            details["retryAfterSeconds"] = seconds
        message = f"{what} is rate limiting requests (HTTP {status})"
        if seconds is not None:
            message += f"; retry in {seconds} s"
        return CodenavError("RATE_LIMITED", message, details=details)
    if status >= 500:
        details = {"status": status}
        # A 503 often says when to come back (RFC 9110 §10.2.3): pass it on (SPEC §4 details).
        seconds = retry_after_seconds({"retry-after": resp.header("retry-after") or ""})
        if seconds is not None:
            details["retryAfterSeconds"] = seconds
        return CodenavError("UPSTREAM_ERROR", f"{what} failed with HTTP {status}", details=details)
    if status in (401, 403):
        return CodenavError(
            "UPSTREAM_ERROR",
            f"{what} refused access (HTTP {status}); check the credentials configured for it",
            retryable=False,
            details={"status": status},
        )
    if status == 404:
        return CodenavError("NOT_FOUND", f"{what} has no such resource (HTTP 404)", details={"status": status})
    return CodenavError("UPSTREAM_ERROR", f"{what} answered HTTP {status}", retryable=False, details={"status": status})


def iter_sse_events(body: str) -> Iterator[str]:
    """The data of each Server-Sent Event in ``body`` (WHATWG event-stream rules).

    Lines starting with ``:`` are comments; ``event:``/``id:``/``retry:`` are ignored; one or more
    ``data:`` lines (space after the colon optional) are joined with ``\\n``; a blank line ends
    the event. A bare JSON line inside an event (seen from some MCP servers) counts as data.
    """
    data: list[str] = []
    for line in body.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line == "":
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue
        name, sep, value = line.partition(":")
        if name == "data" and sep:
            data.append(value[1:] if value.startswith(" ") else value)
        elif name in ("event", "id", "retry") and sep:
            continue
        elif line.lstrip().startswith(("{", "[")):
            data.append(line)
    if data:
        yield "\n".join(data)


def decoded_body(resp: Response, cap: int, what: str, where: str) -> bytes:
    """``resp``'s body, gunzipped (at most ``cap`` bytes) when ``Content-Encoding`` says gzip.

    Bodies are read raw (the deadline and the byte cap apply to the bytes on the wire), so a
    registry that compresses its index files is decoded here, once, for every registry.
    ``what`` names the document, ``where`` the upstream ("the crates index").
    """
    encoding = (resp.header("content-encoding") or "identity").strip().lower()
    if encoding in ("identity", ""):
        return resp.body
    if encoding not in ("gzip", "x-gzip"):
        raise CodenavError("PROTOCOL_ERROR", f"{where} sent {what} in an encoding codenav cannot read ({encoding})")
    import zlib

    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        data = inflate.decompress(resp.body, cap + 1)
    except zlib.error:
        raise CodenavError("PROTOCOL_ERROR", f"{where} sent {what} as gzip that cannot be decompressed") from None
    if len(data) > cap:
        raise CodenavError("TOO_LARGE", f"{what} from {where} is larger than the {cap // 1024} KiB limit",
                           details={"limitBytes": cap})
    return data
