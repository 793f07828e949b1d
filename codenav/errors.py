"""The one error family of codenav (SPEC §4).

Every failure on every surface is a ``CodenavError`` with a stable string code. Surfaces map
it to their wire form at exactly one boundary: the CLI prints ``to_envelope()`` (``--json``)
or the message (plain), the MCP server returns it as an ``isError`` tool result.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is for annotations only: a warm call must not import it
if TYPE_CHECKING:
    from typing import Any

# code -> retryable by default
CODES: dict[str, bool] = {
    "INVALID_ARGUMENT": False,
    "NOT_FOUND": False,
    "VERSION_NOT_FOUND": False,
    "REF_NOT_FOUND": False,
    "FILE_NOT_FOUND": False,
    "INDEXING": True,
    "NETWORK": True,
    "TLS_ERROR": False,
    "TIMEOUT": True,
    "RATE_LIMITED": True,
    "UPSTREAM_ERROR": True,
    "INTEGRITY_ERROR": False,
    "UNSAFE_ARCHIVE": False,
    "TOO_LARGE": False,
    "CONFIG_ERROR": False,
    "PROTOCOL_ERROR": False,
    "INTERNAL": False,
}


class CodenavError(Exception):
    """A failure a caller can act on: a code, a human message, and recovery details."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        retryable: bool | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        if code not in CODES:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = CODES[code] if retryable is None else retryable
        self.details = dict(details or {})

    def to_envelope(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message, "retryable": self.retryable}
        if self.details:
            error["details"] = self.details
        return {"error": error}

    def __repr__(self) -> str:
        return f"CodenavError({self.code!r}, {self.message!r})"


def invalid(message: str, field: str | None = None, **details: Any) -> CodenavError:
    """An INVALID_ARGUMENT error; ``field`` names the argument at fault."""
    if field is not None:
        details["field"] = field
    return CodenavError("INVALID_ARGUMENT", message, details=details)


def too_large(message: str, **details: Any) -> CodenavError:
    """A TOO_LARGE error: something is over a limit; ``details`` name the limit (``limit`` or
    ``limitBytes``) and the variable that raises it."""
    return CodenavError("TOO_LARGE", message, details=details)


def protocol_error(message: str, **details: Any) -> CodenavError:
    """A PROTOCOL_ERROR: an upstream answered in a form codenav cannot read."""
    return CodenavError("PROTOCOL_ERROR", message, details=details)


def redact_url(url: str) -> str:
    """``url`` as a message may show it: the credentials before ``@`` in its authority (a
    ``user:password``, a token) become ``***``; an ssh login name (``ssh://git@host``, or
    scp-like ``git@host:path``) is not a secret and stays."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority = rest[:end]
    if "@" not in authority:
        return url
    userinfo, _, host = authority.rpartition("@")
    if scheme.lower() in ("", "ssh", "git+ssh", "ssh+git") and ":" not in userinfo:
        return url
    return (scheme + sep if sep else "") + "***@" + host + rest[end:]


def internal(exc: BaseException) -> CodenavError:
    """Wrap an unexpected exception without leaking a traceback or a path."""
    return CodenavError("INTERNAL", f"internal error ({type(exc).__name__}); see stderr for the traceback")


def cache_removed() -> CodenavError:
    """A cached entry vanished under a reader (``codenav cache clear``): retrying re-indexes it."""
    return CodenavError(
        "NOT_FOUND", "the cached copy of this target was removed (cache clear?); retry to index it again",
        retryable=True,
    )
