"""HTTP with whole-exchange deadlines, byte caps, a redirect policy, trust and proxies (SPEC §8).

A direct exchange goes through ``http.client`` (httpclient.py); ``requests`` is imported only
for a proxied or insecure one, or one a ``.netrc`` may give credentials to, so neither a warm
call nor a cold one on an open network pays for it. The
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
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from . import __version__, errors, neterrors
from .errors import CodenavError, protocol_error
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


class Response:
    """An answer: its status, headers (lower-cased names), whole body and final URL."""

    __slots__ = ("status", "headers", "body", "url", "extra")

    def __init__(self, status: int, headers: dict[str, str], body: bytes = b"", url: str = "",
                 extra: dict[str, Any] | None = None) -> None:
        self.status, self.headers, self.body, self.url = status, headers, body, url
        self.extra: dict[str, Any] = {} if extra is None else extra

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


def _route(url: str, manager: str | None) -> tuple[dict[str, Any] | None, tuple[str, str] | None, bool]:
    """(proxies to pass, (proxy, where it is set) for messages, TLS checks off) for ``url``.

    The environment first, as requests reads it; then the package manager's own proxy. A
    setting that turns TLS checks off is refused here unless the user opted in.
    """
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
    if _environment_may_proxy():
        import requests

        from_env = requests.utils.get_environ_proxies(url)
        chosen = from_env.get(scheme) or from_env.get("all")
        if chosen:
            return None, (chosen, f"{scheme}_proxy in the environment"), insecure
    configured = proxy.configured(url, manager) if manager else None
    if configured:
        return {"http": configured[0], "https": configured[0]}, configured, insecure
    return None, None, insecure


def _direct(url: str, via: tuple[str, str] | None, insecure: bool) -> bool:
    """Whether an exchange with ``url`` goes straight to its host through http.client."""
    return via is None and not insecure and "@" not in urlsplit(url).netloc and not _netrc_present()


def look_up_ahead(url: str, manager: str | None) -> None:
    """Resolve ``url``'s host now when an exchange with it would connect to it directly, so the
    forks started next inherit the answer (cache/many.py); a failure is left to the exchange."""
    try:
        _, via, insecure = _route(url, manager)
        if _direct(url, via, insecure):
            from . import httpclient

            parts = urlsplit(url)
            httpclient.addresses(parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))
    except (CodenavError, OSError, ValueError):
        pass


def _environment_may_proxy() -> bool:
    """Whether requests could find a proxy for some URL in the environment: a ``*_proxy``
    variable (any case, as urllib reads them), or a system whose proxy settings live outside
    it (macOS, Windows). Without one, requests' answer is "no proxy" and need not be asked."""
    import sys

    if sys.platform in ("darwin", "win32"):
        return True
    return any(value and name.lower().endswith("_proxy") and name.lower() != "no_proxy"
               for name, value in os.environ.items())


def _netrc_present() -> bool:
    """Whether requests would look into a ``.netrc`` for credentials (NETRC, ~/.netrc, ~/_netrc):
    those exchanges stay on requests, which applies it."""
    named = os.environ.get("NETRC")
    candidates = (named,) if named else ("~/.netrc", "~/_netrc")
    return any(os.path.exists(os.path.expanduser(path)) for path in candidates)


# Sent with every exchange unless the caller names the header: requests' defaults, with
# codenav's name (registries that want their own, such as crates and Hex, pass one).
DEFAULT_HEADERS = {"User-Agent": f"codenav/{__version__}", "Accept-Encoding": "gzip, deflate", "Accept": "*/*",
                   "Connection": "keep-alive"}


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

    A direct connection goes through http.client (httpclient.py); a proxied or insecure one, or
    one with credentials in its URL or a ``.netrc`` that may add them, through requests (which
    sends them as Basic auth).
    """
    from .config import trust

    trust.context()  # the first call builds the trust context: setup, not part of the exchange's deadline
    sent = _headers(headers)
    body = None
    if json_body is not None:
        import json

        body = json.dumps(json_body, allow_nan=False).encode("utf-8")
        sent.setdefault("Content-Type", "application/json")
    deadline = Deadline(timeout)
    hops = 0
    current = url
    while True:
        proxies, via, insecure = _route(current, manager)
        try:
            if _direct(current, via, insecure):
                from . import httpclient

                try:
                    resp: Any = httpclient.send(method, current, sent, body, deadline.left)
                except (OSError, ValueError, httpclient.http.client.HTTPException) as exc:
                    if isinstance(exc, TimeoutError):
                        raise
                    raise neterrors.connect_error(exc, what, current, None) from None
            else:
                from . import netrequests

                resp = netrequests.send(method, current, sent, body, deadline.left, what, proxies, via, insecure)
        except TimeoutError:
            raise _timeout(what, timeout) from None
        if resp.is_redirect:
            from urllib.parse import urljoin

            target = urljoin(current, resp.headers.get("location", ""))
            resp.close()
            hops += 1
            if hops > 5 or not _redirect_allowed(redirects, current, target):
                raise CodenavError(
                    "PROTOCOL_ERROR",
                    f"{what} answered with a redirect (HTTP {resp.status}), which codenav does not follow here",
                    details={"status": resp.status},
                )
            current = target
            continue
        break
    out = Response(status=resp.status, headers=resp.headers, url=current)
    if on_headers is not None:
        try:
            on_headers(out)
        except BaseException:
            resp.close()
            raise
    declared = resp.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > max_bytes and 200 <= resp.status < 300:
        resp.close()
        raise (too_large() if too_large else _too_large(what, max_bytes))
    chunks: list[bytes] = []
    total = 0
    try:
        for chunk in resp.chunks(deadline.left):
            total += len(chunk)
            if total > max_bytes:
                raise (too_large() if too_large else _too_large(what, max_bytes))
            if on_chunk is not None:
                on_chunk(chunk)
            if sink is not None and 200 <= resp.status < 300:
                sink.write(chunk)
            else:
                chunks.append(chunk)
    except TimeoutError:
        raise _timeout(what, timeout) from None
    except OSError as exc:
        if "timed out" in str(exc):
            raise _timeout(what, timeout) from None
        raise CodenavError("NETWORK", f"the connection to {what} failed while reading: {neterrors.why(exc)}") from None
    finally:
        resp.close()
    out.body = b"".join(chunks)
    return out


def _headers(given: dict[str, str] | None) -> dict[str, str]:
    """DEFAULT_HEADERS with the caller's on top (names compared without case, as HTTP does)."""
    merged = dict(DEFAULT_HEADERS)
    for name, value in (given or {}).items():
        for default in [d for d in merged if d.lower() == name.lower()]:
            del merged[default]
        merged[name] = value
    return merged


def _timeout(what: str, seconds: float) -> CodenavError:
    return CodenavError(
        "TIMEOUT", f"{what} did not answer within {seconds:g} s", details={"timeoutSeconds": seconds}
    )


def _too_large(what: str, cap: int) -> CodenavError:
    return errors.too_large(f"the response from {what} is larger than the {cap // 1024} KiB limit", limitBytes=cap)


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
        raise protocol_error(f"{where} sent {what} in an encoding codenav cannot read ({encoding})")
    import zlib

    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        data = inflate.decompress(resp.body, cap + 1)
    except zlib.error:
        raise protocol_error(f"{where} sent {what} as gzip that cannot be decompressed") from None
    if len(data) > cap:
        raise errors.too_large(f"{what} from {where} is larger than the {cap // 1024} KiB limit", limitBytes=cap)
    return data
