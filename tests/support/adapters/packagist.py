"""Packagist: a Composer repository (packages.json, minified p2 files) whose dists are GitHub
zipballs behind a 302, one top folder removed, verified by ``dist.shasum`` (sha1) when published."""

from __future__ import annotations

import hashlib

from tests.fakes.packagist import FakePackagist

from ..hostile import ZIP, Case
from ..registries import Adapter, Place, flip


class PackagistAdapter(Adapter):
    registry = "packagist"
    live = ("monolog/monolog", "3.7.0", "src/Monolog/Logger.php", False)
    fake_class = FakePackagist
    endpoint_variable = "CODENAV_COMPOSER_REPOSITORY"
    aliases = ("composer",)
    variables = ("CODENAV_COMPOSER_REPOSITORY", "COMPOSER_HOME")
    kind = ZIP
    hashes = ("sha1",)
    bad_names = ("monolog", "monolog/", "Monolog/", "/monolog", "a b/c", "mono log/x", "a//b", "a/b/c", "-a/b", "a/b-",
                 "a/b.", "a/b---c", "a..b/c", "a/b\nc", "a/b%2Fc")

    def package(self, stem: str) -> str:
        return f"acme/{stem}"

    @staticmethod
    def reference(name: str, version: str) -> str:
        """The git commit the fake tags ``version`` at."""
        return hashlib.sha1(f"{name}@{version}".encode()).hexdigest()

    def publish(self, name: str, version: str, files: dict[str, bytes], hash: str | None = None) -> bytes:
        return self.fake.publish(name, version, files, shasum=True)

    def publish_archive(self, name: str, version: str, data: bytes) -> None:
        self.fake.publish(name, version, {}, zip_bytes=data, shasum=True)

    def top(self, name: str, version: str) -> str:
        return f"Acme-{name.split('/')[1]}-abcdef0/"  # GitHub's {Owner}-{repo}-{sha7}/, any one folder

    @classmethod
    def accepts(cls, case: Case) -> bool:
        return not isinstance(case.members, bytes)  # forged bytes have no top folder to strip

    def corrupt(self, name: str, version: str, where: str) -> None:
        sha = self.reference(name, version)
        self.fake.zips[sha] = flip(self.fake.zips[sha], where)

    def forget(self, name: str) -> None:
        self.fake.releases.pop(name, None)

    def places(self, name: str, version: str) -> list[Place]:
        repo, sha = name.split("/")[1], self.reference(name, version)
        return [Place("p2", (f"/p2/{name}.json",), "document"),
                Place("packages.json", ("/packages.json",), "document"),
                Place("zipball", (f"/repos/Seldaek/{repo}/zipball/{sha}",), "hop"),
                Place("codeload", (f"/codeload/Seldaek/{repo}/legacy.zip/{sha}",), "artifact")]

    def echo(self, name: str, version: str) -> dict:
        sha = self.reference(name, version)
        return {"registry": "packagist", "name": name, "version": version,
                "artifact": f"{name.replace('/', '-')}-{version}-{sha[:12]}.zip", "verified": True,
                "verification": "sha1 of the downloaded file matches the repository's dist.shasum"}
