"""A fake Hex (HTTP API and repository) on one FakeServer, speaking the real wire format.

The API under ``/api/``: ``packages/<name>`` (releases newest first, ``retirements`` keyed by
version, ``latest_version``/``latest_stable_version`` as the real API computes them — which
ignore retirement) and ``packages/<name>/releases/<version>`` (``checksum``: sha256 of the
outer tarball, lower-case hex; ``retirement``); JSON, 404 ``{"status":404,"message":"Page not
found"}``, ``X-RateLimit-*`` headers, and 400 for a request without a User-Agent, as Hex does.
The repository under ``/repo/``: ``tarballs/<name>-<version>.tar``, a plain tar of
``VERSION`` ("3"), ``CHECKSUM`` (the inner checksum, upper-case hex), ``metadata.config``
(Erlang terms) and ``contents.tar.gz`` (the files, no top folder).
"""

from __future__ import annotations

import hashlib
import io
import tarfile
from dataclasses import dataclass, field

from .archives import make_tgz
from .http import FakeServer, Reply


def make_tarball(name: str, version: str, files: dict[str, bytes], *, contents: bytes | None = None) -> bytes:
    """A Hex package tarball (format 3) as hex_core builds it."""
    inner = contents if contents is not None else make_tgz(files, top="")
    metadata = (f'{{<<"name">>,<<"{name}">>}}.\n{{<<"version">>,<<"{version}">>}}.\n'
                f'{{<<"app">>,<<"{name}">>}}.\n{{<<"build_tools">>,[<<"mix">>]}}.\n').encode()
    checksum = hashlib.sha256(b"3" + metadata + inner).hexdigest().upper().encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for member, body in (("VERSION", b"3"), ("CHECKSUM", checksum), ("metadata.config", metadata),
                             ("contents.tar.gz", inner)):
            info = tarfile.TarInfo(member)
            info.size = len(body)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(body))
    return buf.getvalue()


def _rough_order(version: str) -> tuple:
    """Enough of SemVer for the fake's listing order (codenav must not rely on it anyway)."""
    core, _, pre = version.split("+")[0].partition("-")
    return tuple(int(n) for n in core.split(".")), not pre, pre


@dataclass
class HexRelease:
    version: str
    data: bytes
    checksum: str | None
    retirement: dict | None = None


@dataclass
class FakeHex:
    """Routes ``/api/packages/…`` and ``/repo/tarballs/…`` on a FakeServer."""

    server: FakeServer
    packages: dict[str, list[HexRelease]] = field(default_factory=dict)
    tarball_hits: int = 0

    def __post_init__(self) -> None:
        self.server.route_prefix("GET", "/api/packages/", self._api)
        self.server.route_prefix("GET", "/repo/tarballs/", self._tarball)

    @property
    def api_url(self) -> str:
        return self.server.url + "/api/"

    @property
    def repo_url(self) -> str:
        return self.server.url + "/repo/"

    def publish(self, name: str, version: str, files: dict[str, bytes] | None = None, *,
                retired: str | None = None, tarball: bytes | None = None, checksum: str | None = "real") -> bytes:
        data = tarball if tarball is not None else make_tarball(name, version, files or {})
        retirement = {"reason": retired, "message": f"{version} is {retired}"} if retired else None
        self.packages.setdefault(name, []).append(HexRelease(
            version, data, hashlib.sha256(data).hexdigest() if checksum == "real" else checksum, retirement))
        return data

    def release(self, name: str, version: str) -> HexRelease:
        return next(r for r in self.packages[name] if r.version == version)

    def package_doc(self, name: str) -> dict:
        releases = sorted(self.packages[name], key=lambda r: _rough_order(r.version), reverse=True)
        stable = [r.version for r in releases if "-" not in r.version.split("+")[0]]
        return {
            "name": name, "repository": "hexpm", "url": f"{self.api_url}packages/{name}",
            "html_url": f"{self.server.url}/packages/{name}",
            "releases": [{"version": r.version, "url": f"{self.api_url}packages/{name}/releases/{r.version}",
                          "has_docs": True, "inserted_at": "2024-06-18T12:00:00.000000Z"} for r in releases],
            "retirements": {r.version: r.retirement for r in releases if r.retirement},
            # The real fields ignore retirement: codenav must not trust them for "latest".
            "latest_version": releases[0].version if releases else None,
            "latest_stable_version": stable[0] if stable else None,
            "meta": {"links": {"GitHub": "https://github.com/example/" + name}, "licenses": ["MIT"]},
        }

    def _api(self, handler) -> Reply:
        limits = {"X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "99", "X-RateLimit-Reset": "1700000000"}
        if not handler.headers.get("User-Agent"):
            return Reply.json({"status": 400, "message": "a User-Agent header is required"}, status=400)
        parts = handler.path.split("?", 1)[0][len("/api/packages/"):].split("/")
        not_found = Reply.json({"status": 404, "message": "Page not found"}, status=404, headers=limits)
        if parts[0] not in self.packages:
            return not_found
        if len(parts) == 1:
            return Reply.json(self.package_doc(parts[0]), headers=limits)
        if len(parts) == 3 and parts[1] == "releases":
            for r in self.packages[parts[0]]:
                if r.version == parts[2]:
                    doc = {"version": r.version, "has_docs": True, "retirement": r.retirement,
                           "meta": {"app": parts[0], "build_tools": ["mix"], "elixir": "~> 1.14"},
                           "requirements": {}, "publisher": {"username": "someone"}}
                    if r.checksum is not None:
                        doc["checksum"] = r.checksum
                    return Reply.json(doc, headers=limits)
        return not_found

    def _tarball(self, handler) -> Reply:
        filename = handler.path.split("?", 1)[0][len("/repo/tarballs/"):]
        for name, releases in self.packages.items():
            for r in releases:
                if filename == f"{name}-{r.version}.tar":
                    self.tarball_hits += 1
                    return Reply(200, r.data, {"Content-Type": "application/octet-stream"})
        return Reply(404, b"Not Found", {"Content-Type": "text/plain"})
