"""A fake pub repository (pub.dev's hosted API) on a FakeServer, speaking the real wire format.

Dart is not installable here, so the fake follows the sources (provenance):

- dart-lang/pub ec276d1 ``doc/repository-spec-v2.md``: ``GET /api/packages/<package>`` with
  ``Accept: application/vnd.pub.v2+json`` answers ``{name, isDiscontinued?, replacedBy?, latest,
  versions: [{version, retracted?, archive_url, archive_sha256, pubspec, published}]}``;
  ``archive_url`` is fetched following redirects and is a gzipped tar;
- dart-lang/pub-dev 6992033 ``app/lib/package/backend.dart`` (``listVersions``,
  ``toApiVersionInfo``): versions sorted ascending by semantic version, ``retracted`` present
  only when true, ``latest`` the package's latest version (a release unless there are only
  prereleases); ``app/lib/frontend/handlers/package.dart`` (``listVersionsHandler``): the body
  gzipped with ``content-encoding: gzip`` when the client accepts it,
  ``content-type: application/json; charset="utf-8"``; ``app/lib/shared/urls.dart``: the archive
  at ``/api/archives/<package>-<version>.tar.gz``; ``pkg/api_builder`` ``ApiResponseException``:
  a 404 is ``{"error": {"code": "NotFound", "message": …}, "code": …, "message": …}``;
- the archive (pub's ``createTarGz`` of the package directory): files at the root of the tar,
  no top folder.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass, field

from .archives import make_tgz
from .http import FakeServer, Reply


def make_archive(name: str, version: str, files: dict[str, bytes]) -> bytes:
    """A package archive as ``dart pub publish`` uploads it: pubspec.yaml and the files, no top folder."""
    pubspec = f"name: {name}\nversion: {version}\ndescription: A demo package.\nenvironment:\n  sdk: ^3.0.0\n".encode()
    return make_tgz({"pubspec.yaml": pubspec, **files}, top="")


def _order(version: str) -> tuple:
    """Enough of pub's order for the fake's ascending listing (codenav must not rely on it)."""
    core, _, pre = version.split("+")[0].partition("-")
    return tuple(int(n) for n in core.split(".")), not pre, pre


@dataclass
class PubVersion:
    version: str
    data: bytes
    sha256: str | None  # None: the listing omits archive_sha256 (optional in the spec)
    retracted: bool = False


@dataclass
class FakePub:
    """Routes the version listing and the archives on a FakeServer."""

    server: FakeServer
    packages: dict[str, list[PubVersion]] = field(default_factory=dict)
    discontinued: dict[str, str | None] = field(default_factory=dict)  # name -> replacedBy
    archive_hits: int = 0

    def __post_init__(self) -> None:
        self.server.route_prefix("GET", "/api/packages/", self._listing)
        self.server.route_prefix("GET", "/api/archives/", self._archive)

    @property
    def url(self) -> str:
        return self.server.url + "/"

    def publish(self, name: str, version: str, files: dict[str, bytes] | None = None, *, retracted: bool = False,
                archive: bytes | None = None, sha256: str | None = "real") -> bytes:
        data = archive if archive is not None else make_archive(name, version, files or {})
        self.packages.setdefault(name, []).append(
            PubVersion(version, data, hashlib.sha256(data).hexdigest() if sha256 == "real" else sha256, retracted))
        return data

    def record(self, name: str, version: str) -> PubVersion:
        return next(v for v in self.packages[name] if v.version == version)

    def info(self, name: str, v: PubVersion) -> dict:
        entry = {"version": v.version,
                 "pubspec": {"name": name, "version": v.version, "description": "A demo package.",
                             "environment": {"sdk": "^3.0.0"}},
                 "archive_url": f"{self.server.url}/api/archives/{name}-{v.version}.tar.gz",
                 "published": "2024-05-02T08:00:02.000Z"}
        if v.sha256 is not None:
            entry["archive_sha256"] = v.sha256
        if v.retracted:
            entry["retracted"] = True
        return entry

    def listing(self, name: str) -> dict:
        versions = sorted(self.packages[name], key=lambda v: _order(v.version))
        stable = [v for v in versions if "-" not in v.version.split("+")[0]]
        doc = {"name": name, "latest": self.info(name, (stable or versions)[-1]),
               "versions": [self.info(name, v) for v in versions]}
        if name in self.discontinued:
            doc["isDiscontinued"] = True
            if self.discontinued[name]:
                doc["replacedBy"] = self.discontinued[name]
        return doc

    def _listing(self, handler) -> Reply:
        name = handler.path.split("?", 1)[0][len("/api/packages/"):]
        headers = {"Content-Type": 'application/json; charset="utf-8"', "X-Content-Type-Options": "nosniff",
                   "Vary": "Accept-Encoding"}
        if not self.packages.get(name):
            message = f'Could not find `package "{name}"`.'
            body = {"error": {"code": "NotFound", "message": message}, "code": "NotFound", "message": message}
            return Reply(404, json.dumps(body).encode(), headers)
        body = json.dumps(self.listing(name)).encode()
        if "gzip" in (handler.headers.get("Accept-Encoding") or ""):
            body = gzip.compress(body)
            headers["Content-Encoding"] = "gzip"
        return Reply(200, body, headers)

    def _archive(self, handler) -> Reply:
        filename = handler.path.split("?", 1)[0][len("/api/archives/"):]
        for name, versions in self.packages.items():
            for v in versions:
                if filename == f"{name}-{v.version}.tar.gz":
                    self.archive_hits += 1
                    return Reply(200, v.data, {"Content-Type": "application/octet-stream"})
        return Reply(404, b"Not Found", {"Content-Type": "text/plain"})
