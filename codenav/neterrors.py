"""Network failures told in words: no Python repr, no ``_ssl.c``, no proxy credentials (SPEC §8.1).

requests wraps urllib3 wraps ``ssl``/``socket`` errors (http.client, net.py's direct transport,
raises them as they are), and every layer's ``str()`` is a repr of the one below (``HTTPSConnectionPool(host=…): Max retries exceeded … SSLError(…)``). Here the
chain is walked for the error that says what happened, and that is put in a sentence:

- a certificate that cannot be verified: ``TLS_ERROR`` (not retryable), with OpenSSL's reason
  (``verify_message``), the host, every CA source consulted and how to add one;
- a proxy that refuses the tunnel or cannot be reached: ``NETWORK`` naming the proxy (redacted)
  and the setting it came from;
- a host name that does not resolve, a refused or reset connection, a failed handshake:
  ``NETWORK`` in those words.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from .errors import CodenavError


def host_of(url: str) -> str:
    """``host:port`` of a URL (``host`` when it names no port), for messages."""
    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port}" if parts.port else (parts.hostname or url)


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and everything it wraps (requests -> urllib3 -> ssl/socket), outermost first."""
    found: list[BaseException] = []
    stack = [exc]
    while stack:
        current = stack.pop(0)
        if current is None or any(current is seen for seen in found):
            continue
        found.append(current)
        reason = getattr(current, "reason", None)
        stack += [reason if isinstance(reason, BaseException) else None, current.__cause__, current.__context__]
        stack += [arg for arg in getattr(current, "args", ()) if isinstance(arg, BaseException)]
    return found


def connect_error(exc: BaseException, what: str, url: str, via: tuple[str, str] | None) -> CodenavError:
    """The error for an exchange that could not start, in words: no reprs, no credentials.

    A certificate that cannot be verified is TLS_ERROR (not retryable: retrying changes
    nothing), naming the host, OpenSSL's reason and every CA source consulted.
    """
    import socket
    import ssl

    from .config import proxy as proxies
    from .config import trust

    host = host_of(url)
    causes = _causes(exc)
    through = f" through the proxy {proxies.redact(via[0])} ({via[1]})" if via else ""
    for cause in causes:
        if isinstance(cause, ssl.SSLCertVerificationError):
            reason = (cause.verify_message or cause.reason or "the certificate was not accepted").rstrip(".")
            reason = reason[:1].lower() + reason[1:]
            consulted = trust.consulted()
            return CodenavError(
                "TLS_ERROR",
                f"the TLS certificate of {host} ({what}) could not be verified{through}: {reason}. CAs trusted: "
                f"{'; '.join(consulted)}. To trust another CA, {trust.HOW_TO_ADD}",
                retryable=False,
                details={"host": host, "reason": reason, "caSources": consulted, "action": trust.HOW_TO_ADD},
            )
    # By class name: requests (and urllib3) are imported only when a proxied exchange used them.
    is_proxy = any(kind.__name__ == "ProxyError" for c in causes for kind in type(c).__mro__)
    oserrors = [c for c in causes if isinstance(c, OSError)
                and not any(kind.__module__.split(".")[0] in ("urllib3", "requests") for kind in type(c).__mro__)]
    if is_proxy and via:
        tunnel = next((str(c) for c in causes if str(c).startswith("Tunnel connection failed")), None)
        if tunnel:
            answer = tunnel.split(":", 1)[1].strip() or "an error"
            return CodenavError("NETWORK", f"the proxy {proxies.redact(via[0])} ({via[1]}) refused to open a tunnel to "
                                           f"{host} ({what}): it answered {answer}", retryable=False,
                                details={"host": host, "proxy": proxies.redact(via[0])})
        return CodenavError("NETWORK", f"could not reach the proxy {proxies.redact(via[0])} ({via[1]}) on the way to "
                                       f"{what}: {_os_words(oserrors, 'the connection failed')}",
                            details={"host": host, "proxy": proxies.redact(via[0])})
    for cause in causes:
        if isinstance(cause, ssl.SSLError):
            words = (getattr(cause, "reason", None) or "").replace("_", " ").lower() or "the handshake failed"
            return CodenavError("NETWORK", f"the TLS handshake with {host} ({what}) failed{through}: {words}",
                                details={"host": host})
    if any(isinstance(c, socket.gaierror) for c in causes) or any(type(c).__name__ == "NameResolutionError"
                                                                   for c in causes):
        return CodenavError("NETWORK", f"could not reach {what}{through}: the host name {urlsplit(url).hostname} "
                                       f"could not be resolved", details={"host": host})
    return CodenavError("NETWORK", f"could not reach {what} at {host}{through}: "
                                   f"{_os_words(oserrors, 'the connection failed')}", details={"host": host})


def _os_words(errors: list[BaseException], default: str) -> str:
    import errno

    for error in errors:
        if isinstance(error, ConnectionRefusedError):
            return "connection refused"
        if isinstance(error, ConnectionResetError):
            return "the connection was reset"
        if isinstance(error, ConnectionAbortedError):
            return "the connection was aborted"
        number = getattr(error, "errno", None)
        if number in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return "no route to the host"
        if isinstance(error, OSError) and error.strerror:
            return error.strerror[:1].lower() + error.strerror[1:]
    return default


def why(exc: BaseException) -> str:
    """Why a body read failed, in words (the OSErrors of _read_body are already words)."""
    causes = _causes(exc)
    if type(exc) is OSError and exc.args and isinstance(exc.args[0], str):
        return exc.args[0]
    plain = [c for c in causes if isinstance(c, OSError)]
    return _os_words(plain, "the connection broke")
