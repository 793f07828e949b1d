"""A fake NuGet v3 feed on a FakeServer, speaking the real wire format (reference §5).

``/v3/index.json`` (the service index naming the flat container and the gzip-encoded SemVer 2
registration), ``/v3-flatcontainer/{id}/index.json`` (lower-cased, normalized versions,
unlisted ones included) and ``…/{id}/{ver}/{id}.{ver}.nupkg``, ``/v3/registration5-gz-semver2/{id}/
index.json`` (``Content-Encoding: gzip``; leaves inlined, or in pages fetched by their ``@id``
when ``paged``), and the catalog leaves with the base64 SHA-512 ``packageHash``. Ids match
case-insensitively. nupkgs are OPC zips: ``[Content_Types].xml``, ``_rels/.rels``, the
``.nuspec``, ``package/services/metadata/core-properties/*.psmdcp``, ``.signature.p7s``.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import zipfile
from dataclasses import dataclass, field
from urllib.parse import unquote

from .http import FakeServer, Reply, Routed

NOT_FOUND = b'<?xml version="1.0" encoding="utf-8"?><Error><Code>BlobNotFound</Code></Error>'


def nupkg(package_id: str, version: str, files: dict[str, bytes], *, raw_names: bool = False) -> bytes:
    """An OPC package; ``files`` names are %-escaped as NuGet packs them unless ``raw_names``."""
    from urllib.parse import quote

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("_rels/.rels", b'<?xml version="1.0"?><Relationships/>')
        zf.writestr(f"{package_id}.nuspec", f'<?xml version="1.0"?><package><metadata><id>{package_id}</id>'
                                            f"<version>{version}</version></metadata></package>".encode())
        for path, data in files.items():
            zf.writestr(path if raw_names else quote(path, safe="/"), data)
        zf.writestr("[Content_Types].xml", b'<?xml version="1.0"?><Types/>')
        zf.writestr("package/services/metadata/core-properties/0123abcd.psmdcp", b"<coreProperties/>")
        zf.writestr(".signature.p7s", b"\x30\x82 signature")
    return buf.getvalue()


@dataclass
class NugetVersion:
    version: str
    data: bytes
    listed: bool = True
    package_hash: str | None = None  # None: the real one


@dataclass
class FakeNuget(Routed):
    server: FakeServer
    ids: dict[str, str] = field(default_factory=dict)  # lower id -> id as published
    packages: dict[str, list[NugetVersion]] = field(default_factory=dict)  # lower id -> versions
    paged: set[str] = field(default_factory=set)  # lower ids whose registration is paged

    ROUTES = (("GET", "/v3*", "_serve"),)  # /v3/… and /v3-flatcontainer/…
    BASE = "/v3/index.json"

    def publish(self, package_id: str, version: str, files: dict[str, bytes] | None = None, *, listed: bool = True,
                data: bytes | None = None) -> bytes:
        data = data if data is not None else nupkg(package_id, version, files or {"lib/net8.0/A.xml": b"<doc/>"})
        self.ids[package_id.lower()] = package_id
        self.packages.setdefault(package_id.lower(), []).append(NugetVersion(version, data, listed))
        return data

    def service_index(self) -> dict:
        base = self.server.url
        return {"version": "3.0.0", "resources": [
            {"@id": f"{base}/v3/query", "@type": "SearchQueryService"},
            {"@id": f"{base}/v3-flatcontainer/", "@type": "PackageBaseAddress/3.0.0",
             "comment": "Base URL of where NuGet packages are stored"},
            {"@id": f"{base}/v3/registration5-semver1/", "@type": "RegistrationsBaseUrl"},
            {"@id": f"{base}/v3/registration5-gz-semver2/", "@type": "RegistrationsBaseUrl/3.6.0"},
        ]}

    def _leaf(self, lower: str, v: NugetVersion) -> dict:
        base = self.server.url
        package_id = self.ids[lower]
        return {
            "@id": f"{base}/v3/registration5-gz-semver2/{lower}/{v.version.lower()}.json", "@type": "Package",
            "catalogEntry": {
                "@id": f"{base}/v3/catalog0/data/2026.08.01.12.00.00/{lower}.{v.version.lower()}.json",
                "@type": "PackageDetails", "id": package_id, "version": v.version, "listed": v.listed,
                "published": "2026-08-01T12:00:00+00:00" if v.listed else "1900-01-01T00:00:00+00:00",
            },
            "packageContent": f"{base}/v3-flatcontainer/{lower}/{v.version.lower()}/{lower}.{v.version.lower()}.nupkg",
        }

    def registration(self, lower: str) -> dict:
        base = self.server.url
        versions = self.packages[lower]
        page = {"@id": f"{base}/v3/registration5-gz-semver2/{lower}/page/{versions[0].version.lower()}/"
                       f"{versions[-1].version.lower()}.json",
                "count": len(versions), "lower": versions[0].version.lower(), "upper": versions[-1].version.lower()}
        if lower not in self.paged:
            page["items"] = [self._leaf(lower, v) for v in versions]
        return {"@id": f"{base}/v3/registration5-gz-semver2/{lower}/index.json", "count": 1, "items": [page]}

    def _gz(self, obj: dict) -> Reply:
        return Reply(200, gzip.compress(json.dumps(obj).encode()), {
            "Content-Type": "application/json", "Content-Encoding": "gzip"})

    def _serve(self, handler) -> Reply:
        path = unquote(handler.path.split("?", 1)[0])
        missing = Reply(404, NOT_FOUND, {"Content-Type": "application/xml"})
        if path == "/v3/index.json":
            return Reply.json(self.service_index())
        parts = path.strip("/").split("/")
        if path.startswith("/v3-flatcontainer/"):
            lower = parts[1].lower() if len(parts) > 1 else ""
            if lower not in self.packages:
                return missing
            if len(parts) == 3 and parts[2] == "index.json":
                return Reply.json({"versions": [v.version.lower() for v in self.packages[lower]]})
            if len(parts) == 4:
                for v in self.packages[lower]:
                    if parts[2] == v.version.lower() and parts[3] == f"{lower}.{v.version.lower()}.nupkg":
                        return Reply(200, v.data, {"Content-Type": "application/octet-stream"})
            return missing
        if path.startswith("/v3/registration5-gz-semver2/"):
            lower = parts[2].lower() if len(parts) > 2 else ""
            if lower not in self.packages:
                return missing
            if parts[3:] == ["index.json"]:
                return self._gz(self.registration(lower))
            if len(parts) > 3 and parts[3] == "page":
                return self._gz({"items": [self._leaf(lower, v) for v in self.packages[lower]]})
            return missing
        if path.startswith("/v3/catalog0/data/"):
            for lower, versions in self.packages.items():
                for v in versions:
                    if parts[-1] == f"{lower}.{v.version.lower()}.json":
                        digest = v.package_hash or base64.b64encode(hashlib.sha512(v.data).digest()).decode()
                        return Reply.json({"@id": handler.path, "id": self.ids[lower], "version": v.version,
                                           "packageHash": digest, "packageHashAlgorithm": "SHA512",
                                           "packageSize": len(v.data), "listed": v.listed})
        return missing
