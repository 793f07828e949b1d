"""Maven: maven-metadata.xml, a -sources.jar listed as it is, verified by the strongest checksum
side file beside it (.sha512, .sha256, then .sha1)."""

from __future__ import annotations

from tests.fakes.maven import ALL_SIDES, FakeMaven

from ..hostile import ZIP
from ..registries import Adapter, Place, flip

SIDES = {"sha512": ALL_SIDES, "sha256": ("md5", "sha1", "sha256"), "sha1": ("md5", "sha1")}


class MavenAdapter(Adapter):
    registry = "maven"
    live = ("org.slf4j:slf4j-api", "2.0.16", "org/slf4j/Logger.java", True)
    fake_class = FakeMaven
    endpoint_variable = "CODENAV_MAVEN_REPOSITORY"
    variables = ("CODENAV_MAVEN_REPOSITORY", "MAVEN_HOME")
    kind = ZIP
    hashes = ("sha512", "sha256", "sha1")
    bad_names = ("org.slf4j", "org.slf4j:", ":api", "org..slf4j:api", "org/slf4j:api", "g:a:jar:1", "org.slf4j:..",
                 "org.slf4j:a\nb", "org.slf4j:a b")
    bad_versions = ("../../1", "1.0-SNAPSHOT")  # a SNAPSHOT is never in a release repository

    def package(self, stem: str) -> str:
        return f"org.example:{stem}"

    def jar(self, name: str, version: str) -> str:
        artifact = name.partition(":")[2]
        return f"{FakeMaven.folder(name)}{version}/{artifact}-{version}-sources.jar"

    def publish(self, name: str, version: str, files: dict[str, bytes], hash: str | None = None) -> bytes:
        return self.fake.publish(name, version, files, sides=SIDES[hash or "sha512"])

    def publish_archive(self, name: str, version: str, data: bytes) -> None:
        self.fake.publish(name, version, sources_jar=data)

    def corrupt(self, name: str, version: str, where: str) -> None:
        path = self.jar(name, version)
        self.fake.files[path] = flip(self.fake.files[path], where)

    def forget(self, name: str) -> None:
        folder = self.fake.folder(name)
        self.fake.versions.pop(name, None)
        for path in [p for p in self.fake.files if p.startswith(folder)]:
            del self.fake.files[path]

    def places(self, name: str, version: str) -> list[Place]:
        jar = "/maven2/" + self.jar(name, version)
        return [Place("metadata", (f"/maven2/{FakeMaven.folder(name)}maven-metadata.xml",), "document"),
                Place("side-file", (jar + ".sha512",), "document"),
                Place("jar", (jar,), "artifact")]

    def echo(self, name: str, version: str) -> dict:
        return {"registry": "maven", "name": name, "version": version,
                "artifact": f"{name.partition(':')[2]}-{version}-sources.jar", "verified": True,
                "verification": "sha512 of the downloaded file matches the .sha512 side file beside it (same origin)"}

    def extra_files(self, name: str, version: str) -> tuple[str, ...]:
        return ("META-INF/MANIFEST.MF",)
