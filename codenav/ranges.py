"""HTTP byte ranges (SPEC §3: ranged entries): one explicit ``bytes=a-b`` GET through
net.request, with every check a ranged reader needs before it trusts the bytes."""

from __future__ import annotations

from .errors import CodenavError, protocol_error
from .net import DEFAULT_TIMEOUT, Response, request, status_error


class RangeRefused(Exception):
    """The server answered a range request with the whole body (HTTP 200): it ignores ranges."""


def get_range(url: str, start: int, end: int, *, total: int, what: str, headers: dict[str, str] | None = None,
              timeout: float = DEFAULT_TIMEOUT, manager: str | None = None) -> bytes:
    """Bytes ``start``..``end`` (inclusive) of the ``total``-byte file at ``url``, by one range GET.

    Only an explicit ``bytes=a-b`` range is sent, with ``Accept-Encoding: identity`` (a
    compressed part could not be placed in the file). The answer must be 206 with exactly
    ``Content-Range: bytes a-b/total`` and that many bytes: a 200 closes the connection at once
    and raises ``RangeRefused``; another total, range or length is PROTOCOL_ERROR; 416 and 501
    are errors that say the server cannot serve ranges of this file.
    """
    want = end - start + 1

    def check(resp: Response) -> None:
        if resp.status == 200:
            raise RangeRefused
        if resp.status != 206:
            return
        declared = (resp.header("content-range") or "").strip()
        unit, _, rest = declared.partition(" ")
        span, _, size = rest.partition("/")
        first, _, last = span.partition("-")
        if unit != "bytes" or not size.isdigit() or not first.isdigit() or not last.isdigit():
            raise protocol_error(
                f"{what} answered a range request without a usable Content-Range",
                contentRange=declared[:100],
            )
        if int(size) != total:
            raise protocol_error(
                f"{what} says the file has {size} bytes, but the index says {total}",
                indexSize=total, serverSize=int(size),
            )
        if (int(first), int(last)) != (start, end):
            raise protocol_error(
                f"{what} answered bytes {first}-{last} for a request of {start}-{end}",
                contentRange=declared[:100],
            )
        encoding = (resp.header("content-encoding") or "identity").strip().lower()
        if encoding not in ("", "identity"):
            raise protocol_error(f"{what} sent a byte range in an encoding ({encoding[:40]})")

    resp = request("GET", url, what=what, headers={**(headers or {}), "Range": f"bytes={start}-{end}",
                                                   "Accept-Encoding": "identity"},
                   redirects="https", timeout=timeout, max_bytes=max(want, 64 * 1024), on_headers=check,
                   manager=manager,
                   too_large=lambda: protocol_error(f"{what} sent more than the byte range asked for"))
    if resp.status == 416:
        raise CodenavError("UPSTREAM_ERROR", f"{what} refused a byte range of the file (HTTP 416: range not "
                           "satisfiable); the file may have changed since the index listed it", retryable=False,
                           details={"status": 416})
    if resp.status == 501:
        raise CodenavError("UPSTREAM_ERROR", f"{what} does not serve byte ranges of this file (HTTP 501)",
                           retryable=False, details={"status": 501})
    if resp.status != 206:
        raise status_error(what, resp)
    if len(resp.body) != want:
        raise protocol_error(f"{what} sent {len(resp.body)} bytes for a range of {want}")
    return resp.body
