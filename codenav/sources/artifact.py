"""What a package target resolves to: one downloadable, hash-pinned artifact (SPEC §3).

Made by the sources (npm, PyPI) and consumed by the download and the cache's indexing, so
only an indexer imports it; ``codenav.targets.Artifact`` still names it.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple


class Artifact(NamedTuple):
    """One downloadable, hash-pinned artifact: what a package target resolves to."""

    registry: str
    name: str
    version: str
    filename: str
    url: str
    algorithm: str  # sha512 | sha256 | sha1
    digest: str  # hex
    fmt: str  # tar | zip
    strip_components: int = 0
    required_prefix: str | None = None
    headers: dict[str, str] | None = None  # auth for the download; never part of the identity

    @property
    def key(self) -> str:
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", self.name.replace("/", "__"))
        return f"{self.registry}/{safe}/{_safe(self.version)}-{self.digest[:16]}"

    def echo(self) -> dict[str, Any]:
        return {"registry": self.registry, "name": self.name, "version": self.version, "artifact": self.filename}


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]", "_", text)[:100]
