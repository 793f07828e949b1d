"""npm: a tarball whose first path component is stripped, verified by dist.integrity (sha512) or,
without one, by the legacy dist.shasum (sha1)."""

from __future__ import annotations

from tests.fakes.npm import FakeNpm

from ..archives import File
from ..hostile import TAR, Case
from ..registries import Adapter, Place, flip


class NpmAdapter(Adapter):
    registry = "npm"
    fake_class = FakeNpm
    endpoint_variable = "CODENAV_NPM_REGISTRY"
    variables = ("CODENAV_NPM_REGISTRY", "npm_config_registry", "NPM_CONFIG_REGISTRY", "npm_config_userconfig",
                 "NPM_CONFIG_USERCONFIG")
    kind = TAR
    hashes = ("sha512", "sha1")
    bad_names = ("a b", "../x", "@/x", "@scope", "a\nb", "x" * 215)

    def publish(self, name: str, version: str, files: dict[str, bytes], hash: str | None = None) -> bytes:
        return self.fake.publish(name, version, files, integrity=hash in (None, "sha512"))

    def publish_archive(self, name: str, version: str, data: bytes) -> None:
        self.fake.publish(name, version, {}, tarball=data)

    def top(self, name: str, version: str) -> str:
        return "package/"

    def corrupt(self, name: str, version: str, where: str) -> None:
        record = self.fake.packages[name][version]
        record.tarball = flip(record.tarball, where)

    def forget(self, name: str) -> None:
        self.fake.packages.pop(name, None)
        self.fake.tags.pop(name, None)

    def places(self, name: str, version: str) -> list[Place]:
        return [Place("document", (f"/{name}/{version}", f"/{name}"), "document"),  # the version document first
                Place("tarball", (f"/-/{name}/{name}-{version}.tgz",), "artifact")]

    def echo(self, name: str, version: str) -> dict:
        return {"registry": "npm", "name": name, "version": version, "artifact": f"{name}-{version}.tgz",
                "verified": True, "verification": "sha512 of the downloaded file matches the registry's dist.integrity"}

    @classmethod
    def hostile_cases(cls) -> list[tuple[str, Case]]:
        # Every entry loses its first component whatever it is called, as npm unpacks: a file
        # with nothing under it is left with no name.
        return [("member-outside-the-top-folder", Case([File("index.js", b"top"), File("@TOP@a.js", b"a")],
                                                       skipped={"index.js": "nothing is left"},
                                                       files={"a.js": b"a"}))]
