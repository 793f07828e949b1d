"""What a package target resolves to: one artifact, how to unpack it, how to verify it (SPEC §3).

Made by a registry's ``resolve`` (indexer side only) and consumed by the download and the
cache's indexing. Three small records say everything the rest of the pipeline needs, so a new
registry never edits the pipeline:

- ``Artifact``: the file (URL, name, auth headers) and the version actually served;
- ``Unpack``: the archive format, the folder to strip (a number of leading components, or one
  required top folder), and optionally one inner member to unpack instead of the outer archive
  (a RubyGems ``.gem`` is a tar whose ``data.tar.gz`` holds the files; Hex's outer tar holds
  ``contents.tar.gz``), and whether zip entry names are %-escaped (a NuGet ``.nupkg``);
- ``Verification``: what the artifact is checked against. ``digest`` kinds are checked while
  the bytes stream to disk (the expected value in hex, whatever encoding the registry used);
  ``custom`` kinds are checked by the registry module's ``verify(artifact, path)`` after the
  download (Go's ``h1:`` dirhash of the module zip); ``none`` says why nothing can be checked
  (the result then says ``verified: false``).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple


class Unpack(NamedTuple):
    fmt: str  # "tar" (any compression) | "zip": the format of what is unpacked
    strip_components: int = 0  # leading components dropped from every name (npm: 1)
    required_prefix: str | None = None  # keep only this top folder, removed (sdists: "name-1.0/")
    inner_member: str | None = None  # unpack this member of the outer tar instead ("data.tar.gz")
    percent_names: bool = False  # zip entry names are %-escaped (NuGet's OPC packages): list them decoded


class Verification(NamedTuple):
    kind: str  # "digest" | "custom" | "none"
    algorithm: str = ""  # digest: sha512 | sha256 | sha1; custom: the registry's name for it ("h1")
    expected: str = ""  # digest: hex; custom: as the registry states it
    source: str = ""  # against what, in words ("dist.integrity", "the index's sha256")

    @property
    def verified(self) -> bool:
        return self.kind != "none"

    def describe(self) -> str:
        """For the echo: what was checked against what, or why nothing could be."""
        if self.kind == "digest":
            return f"{self.algorithm} of the downloaded file matches {self.source}"
        if self.kind == "custom":
            return f"{self.algorithm} of the unpacked files matches {self.source}"
        return f"not verified: {self.source}"

    def identity(self) -> str:
        """A stable string that names the artifact's content in the cache key."""
        return self.expected.replace("/", "_").replace("+", "-").replace("=", "")


class Artifact(NamedTuple):
    """One downloadable artifact: what a package target resolves to."""

    registry: str
    name: str
    version: str
    filename: str
    url: str
    unpack: Unpack
    verification: Verification
    headers: dict[str, str] | None = None  # auth for the download; never part of the identity
    # What the registry says against this release at resolve time, echoed in ``target``
    # (SPEC §2.1): PEP 592's yank reason (True when none is given), npm's deprecation message.
    yanked: str | bool | None = None
    deprecated: str | None = None
    # What the index states before any download (SPEC §3 limits, decided up front): the file's
    # bytes (PEP 700 ``size``) and the extracted total (npm's ``dist.unpackedSize``).
    size: int | None = None
    unpacked_size: int | None = None
    # Set when TLS checks were off for this artifact (an opted-in strict-ssl=false or pip
    # trusted-host, config/trust.py): the digest came over the same unchecked connection, so
    # the echo says ``verified: false`` and why (SPEC §8.1).
    insecure: str | None = None
    # Why this file of the release was taken, echoed in ``target`` (SPEC §3): ``artifactReason``,
    # and ``platformMatch: false`` for a wheel built for another machine.
    choice: dict[str, Any] | None = None

    @property
    def key(self) -> str:
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", self.name.replace("/", "__"))
        identity = self.verification.identity() or _url_digest(self.url)
        return f"{self.registry}/{safe}/{_safe(self.version)}-{identity[:16]}"

    def echo(self) -> dict[str, Any]:
        echo = {"registry": self.registry, "name": self.name, "version": self.version, "artifact": self.filename,
                "verified": self.verification.verified, "verification": self.verification.describe()}
        if self.insecure:
            echo["verified"] = False
            echo["verification"] = (f"not verified: TLS certificate checks were off ({self.insecure}), so the "
                                    f"digest came over an unverified connection; {echo['verification']}")
        if self.yanked:
            echo["yanked"] = self.yanked
        if self.deprecated:
            echo["deprecated"] = self.deprecated
        if self.choice:
            echo.update(self.choice)
        return echo


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]", "_", text)[:100]


def _url_digest(url: str) -> str:
    import hashlib

    return hashlib.sha256(url.encode("utf-8")).hexdigest()
