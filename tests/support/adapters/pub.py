"""pub.dev: the hosted repository's version listing (``/api/packages/NAME``) and an archive with
no top folder, verified by the listing's ``archive_sha256``."""

from __future__ import annotations

from tests.fakes.pub import FakePub

from ..hostile import TAR
from ..registries import Adapter, Place


class PubAdapter(Adapter):
    registry = "pub"
    live = ("path", "1.9.0", "lib/path.dart", True)
    fake_class = FakePub
    endpoint_variable = "CODENAV_PUB_URL"
    aliases = ("dart",)
    variables = ("CODENAV_PUB_URL", "PUB_HOSTED_URL")
    kind = TAR
    bad_names = ("1abc", "a-b", "a.b", "a b", "a/b", "../x", "naïve", "x" * 65)
    bad_versions = ("~1.0", "1.0", ">=1.0.0 ^2.0.0", "../../1")

    def publish(self, name: str, version: str, files: dict[str, bytes], hash: str | None = None) -> bytes:
        return self.fake.publish(name, version, files)

    def publish_archive(self, name: str, version: str, data: bytes) -> None:
        self.fake.publish(name, version, archive=data)

    def forget(self, name: str) -> None:
        self.fake.packages.pop(name, None)

    def places(self, name: str, version: str) -> list[Place]:
        return [Place("listing", (f"/api/packages/{name}",), "document"),
                Place("archive", (f"/api/archives/{name}-{version}.tar.gz",), "artifact")]

    def echo(self, name: str, version: str) -> dict:
        return {"registry": "pub", "name": name, "version": version, "artifact": f"{name}-{version}.tar.gz",
                "verified": True, "verification": "sha256 of the downloaded file matches the listing's archive_sha256"}

    def extra_files(self, name: str, version: str) -> tuple[str, ...]:
        return ("pubspec.yaml",)
