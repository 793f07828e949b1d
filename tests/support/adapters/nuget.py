"""NuGet: the v3 service index, the gzip-encoded registration, the catalog leaf's packageHash
(base64 SHA-512) and the .nupkg, an OPC zip listed as it is with %-escaped names decoded."""

from __future__ import annotations

import base64
import hashlib

from tests.fakes.nuget import FakeNuget

from ..archives import File
from ..hostile import ZIP, Case
from ..registries import Adapter, Place, flip

LEAF = "/v3/catalog0/data/2026.08.01.12.00.00/"  # the fake's catalog folder


class NugetAdapter(Adapter):
    registry = "nuget"
    live = ("Newtonsoft.Json", "13.0.3", "[Content_Types].xml", True)
    fake_class = FakeNuget
    endpoint_variable = "CODENAV_NUGET_SOURCE"
    variables = ("CODENAV_NUGET_SOURCE",)
    kind = ZIP
    hashes = ("sha512",)
    bad_names = ("Newtonsoft..Json", ".Json", "Json.", "-x", "a b", "a/b", "a%2Fb", "x" * 101, "Json\nx")

    def publish_archive(self, name: str, version: str, data: bytes) -> None:
        self.fake.publish(name, version, data=data)

    def _record(self, name: str, version: str):
        return next(v for v in self.fake.packages[name.lower()] if v.version == version)

    def corrupt(self, name: str, version: str, where: str) -> None:
        record = self._record(name, version)
        record.package_hash = base64.b64encode(hashlib.sha512(record.data).digest()).decode()
        record.data = flip(record.data, where)

    def forget(self, name: str) -> None:
        self.fake.packages.pop(name.lower(), None)

    def places(self, name: str, version: str) -> list[Place]:
        lower = name.lower()
        return [Place("registration", (f"/v3/registration5-gz-semver2/{lower}/index.json",), "document"),
                Place("service-index", ("/v3/index.json",), "document"),
                Place("catalog-leaf", (f"{LEAF}{lower}.{version}.json",), "document"),
                Place("nupkg", (f"/v3-flatcontainer/{lower}/{version}/{lower}.{version}.nupkg",), "artifact")]

    def echo(self, name: str, version: str) -> dict:
        return {"registry": "nuget", "name": name, "version": version,
                "artifact": f"{name.lower()}.{version}.nupkg", "verified": True,
                "verification": "sha512 of the downloaded file matches the catalog's packageHash (base64 SHA-512, "
                                "trusted over TLS)"}

    def extra_files(self, name: str, version: str) -> tuple[str, ...]:
        return (".signature.p7s", f"{name}.nuspec", "[Content_Types].xml", "_rels/.rels",
                "package/services/metadata/core-properties/0123abcd.psmdcp")

    @classmethod
    def hostile_cases(cls) -> list[tuple[str, Case]]:
        # NuGet packs names %-escaped: decoding them never opens a way out. A decoded '..'
        # refuses the archive, an escaped '/' is skipped rather than split, decoded control
        # bytes and non-UTF-8 are skipped and reported.
        return [
            ("escaped-dotdot", Case([File("%2E%2E/%2E%2E/escape.txt", b"x")], error=("UNSAFE_ARCHIVE", "'..' path segment"))),
            ("escaped-slash", Case([File("lib/..%2F..%2Fescape.txt", b"x"), File("ok.txt", b"x")],
                                   skipped={"lib/..%2F..%2Fescape.txt": "escaped '/'"}, files={"ok.txt": b"x"})),
            ("escaped-absolute", Case([File("%2Fabs.txt", b"x")], skipped={"%2Fabs.txt": "escaped '/'"}, files={})),
            ("escaped-newline", Case([File("a%0Ab.txt", b"x"), File("ok.txt", b"x")],
                                     skipped={"a\\nb.txt": "control characters"}, files={"ok.txt": b"x"})),
            ("escaped-non-utf8", Case([File("a%FFb.txt", b"x"), File("ok.txt", b"x")],
                                      skipped={"a\\xffb.txt": "not valid UTF-8"}, files={"ok.txt": b"x"})),
        ]
