"""A fake npm registry on a FakeServer, speaking the real wire format.

The abbreviated packument (dist-tags, versions[].dist with tarball, integrity, shasum), the
version document ``/<name>/<version-or-tag>`` and the tarballs, built by the tests.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

from .archives import make_tgz
from .http import FakeServer, Reply, Routed


def sri(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


@dataclass
class NpmVersion:
    tarball: bytes
    integrity: str | None
    shasum: str | None
    filename: str


@dataclass
class FakeNpm(Routed):
    """Routes ``GET /<name>`` (packument) and ``GET /-/<file>.tgz`` (tarballs) on a FakeServer."""

    server: FakeServer
    packages: dict[str, dict[str, NpmVersion]] = field(default_factory=dict)
    tags: dict[str, dict[str, str]] = field(default_factory=dict)
    tarball_delay: float = 0.0
    tarball_chunk_delay: float = 0.0  # > 0: the tarball is sent in 16 KiB chunks, this far apart
    tarball_hits: int = 0
    version_documents: bool = True  # serve /<name>/<version-or-tag> as the real registry does
    deprecations: dict[tuple[str, str], object] = field(default_factory=dict)  # (name, version) -> `deprecated`
    unpacked_sizes: dict[tuple[str, str], int] = field(default_factory=dict)  # (name, version) -> dist.unpackedSize

    ROUTES = (("GET", "/*", "_serve"),)

    def publish(self, name: str, version: str, files: dict[str, bytes], *, top: str = "package",
                integrity: bool = True, shasum: bool = True, tarball: bytes | None = None,
                tag_latest: bool = True) -> bytes:
        data = tarball if tarball is not None else make_tgz(files, top)
        base = name.rsplit("/", 1)[-1]
        self.packages.setdefault(name, {})[version] = NpmVersion(
            data, sri(data) if integrity else None, hashlib.sha1(data).hexdigest() if shasum else None,
            f"{base}-{version}.tgz",
        )
        if tag_latest:
            self.tags.setdefault(name, {})["latest"] = version
        return data

    def deprecate(self, name: str, version: str, message: object) -> None:
        """Mark a version as `npm deprecate` does: its manifest gains ``deprecated``."""
        self.deprecations[(name, version)] = message

    def tag(self, name: str, tag: str, version: str) -> None:
        self.tags.setdefault(name, {})[tag] = version

    def packument(self, name: str) -> dict:
        versions = {}
        for version, v in self.packages[name].items():
            dist = {"tarball": f"{self.server.url}/-/{quote(name, safe='')}/{v.filename}"}
            if v.integrity:
                dist["integrity"] = v.integrity
            if v.shasum:
                dist["shasum"] = v.shasum
            if (name, version) in self.unpacked_sizes:
                dist["unpackedSize"] = self.unpacked_sizes[(name, version)]
            versions[version] = {"name": name, "version": version, "dist": dist}
            if (name, version) in self.deprecations:
                versions[version]["deprecated"] = self.deprecations[(name, version)]
        return {"name": name, "dist-tags": self.tags.get(name, {}), "versions": versions}

    def _serve(self, handler) -> Reply:
        path = handler.path.split("?", 1)[0]
        if path.startswith("/-/"):
            _, _, rest = path.partition("/-/")
            name_enc, _, filename = rest.partition("/")
            name = unquote(name_enc)
            for v in self.packages.get(name, {}).values():
                if v.filename == filename:
                    self.tarball_hits += 1
                    body = v.tarball
                    if self.tarball_chunk_delay:
                        body = [body[i:i + 16384] for i in range(0, len(body), 16384)]
                    return Reply(200, body, {"Content-Type": "application/octet-stream"},
                                 delay=self.tarball_delay, chunk_delay=self.tarball_chunk_delay)
            return Reply(404, b'{"error":"Not found"}', {"Content-Type": "application/json"})
        name = unquote(path[1:])
        # /<name>/<version-or-tag>, the name scoped (@scope%2Fname, or its slash left bare) or not.
        slashes = 2 if name.startswith("@") else 1
        if name not in self.packages and name.count("/") >= slashes:
            parts = name.split("/")
            name, wanted = "/".join(parts[:slashes]), "/".join(parts[slashes:])
            doc = self.packument(name) if self.version_documents and name in self.packages else None
            version = doc["dist-tags"].get(wanted, wanted) if doc else None
            if doc is None or version not in doc["versions"]:
                return Reply.json({"error": "Not found"}, status=404)
            return Reply.json(doc["versions"][version])
        if name not in self.packages:
            return Reply.json({"error": "Not found"}, status=404)
        return Reply.json(self.packument(name), headers={
            "Content-Type": "application/vnd.npm.install-v1+json"})
