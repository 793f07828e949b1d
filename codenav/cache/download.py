"""Streamed, size-capped, verified artifact download (SPEC §3, §8).

The body goes straight to disk while being hashed; a digest mismatch is INTEGRITY_ERROR and
the caller discards the file. Progress is drawn on stderr only while a person is waiting.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path

from .. import net
from ..errors import CodenavError, protocol_error, too_large

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from ..registries.artifact import Artifact

MAX_DOWNLOAD = 200 * 1024 * 1024


def _limit() -> int:
    raw = os.environ.get("CODENAV_MAX_DOWNLOAD_BYTES")
    if not raw:
        return MAX_DOWNLOAD
    try:
        return int(raw)
    except ValueError:
        raise CodenavError("CONFIG_ERROR", f"CODENAV_MAX_DOWNLOAD_BYTES must be an integer, got {raw!r}") from None


def over_limit(filename: str, limit: int) -> CodenavError:
    """TOO_LARGE for a file over the download limit (the same words whether told before or during the download)."""
    return too_large(
        f"{filename} is larger than the {limit // (1024 * 1024)} MiB download limit",
        limitBytes=limit, action="raise CODENAV_MAX_DOWNLOAD_BYTES if this is expected",
    )


def size_mismatch(artifact: Artifact, what: str, served: int) -> CodenavError:
    """PROTOCOL_ERROR: the index stated one size (PEP 700), the server serves another."""
    return protocol_error(
        f"{what} lists {artifact.filename} as {artifact.size} bytes, but its server sends {served}",
        artifact=artifact.filename, indexSize=artifact.size, serverSize=served,
    )


def fetch_artifact(artifact: Artifact, dest: Path, *, progress_until: float | None = None) -> None:
    """Download ``artifact`` to ``dest`` and verify it as its Verification says (registries/artifact.py)."""
    check = artifact.verification
    hasher = hashlib.new(check.algorithm) if check.kind == "digest" else None
    limit = _limit()
    label = f"{artifact.name} {artifact.version}"
    state = {"bytes": 0, "drawn": 0.0}

    def on_chunk(chunk: bytes) -> None:
        if hasher is not None:
            hasher.update(chunk)
        state["bytes"] += len(chunk)
        if progress_until is not None and time.time() < progress_until and time.monotonic() - state["drawn"] > 0.2:
            state["drawn"] = time.monotonic()
            sys.stderr.write(f"\rcodenav: downloading {label}: {state['bytes'] // 1024} KiB")
            sys.stderr.flush()

    from .. import registries

    registry = registries.load(artifact.registry)
    what = registry.WHAT
    # Not fsynced: the file is read back by the extraction and deleted; what is made durable is
    # the published entry (its manifest and folder, indexing._finish).
    with open(dest, "wb") as sink:
        resp = net.request(
            "GET", artifact.url, what=what, headers=dict(artifact.headers or {}), redirects="https",
            timeout=net.timeout_from_env("CODENAV_DOWNLOAD_TIMEOUT", 600.0), max_bytes=limit,
            sink=sink, on_chunk=on_chunk, too_large=lambda: over_limit(artifact.filename, limit),
            manager=registry.PACKAGE_MANAGER,  # its proxy and TLS settings apply
        )
    if progress_until is not None and state["drawn"]:
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()
    if resp.status != 200:
        raise net.status_error(what, resp, not_found=CodenavError(
            "NOT_FOUND", f"{what} lists {artifact.filename} but does not serve it (HTTP 404)", retryable=True,
        ))
    if hasher is not None and hasher.hexdigest() != check.expected:
        raise CodenavError(
            "INTEGRITY_ERROR",
            f"{artifact.filename} does not match its published {check.algorithm} hash; nothing was cached",
            details={"artifact": artifact.filename, "algorithm": check.algorithm},
        )
    # Checked once the body is whole (its Content-Length held by the reader): a body cut short
    # stays NETWORK (retryable) and a different file (a captive portal's page) INTEGRITY_ERROR;
    # the right file at a size the index did not state is the index's fault.
    if artifact.size is not None and state["bytes"] != artifact.size:
        raise size_mismatch(artifact, what, state["bytes"])
    if check.kind == "custom":
        registry.verify(artifact, dest)  # raises INTEGRITY_ERROR itself
