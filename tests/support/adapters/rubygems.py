"""RubyGems: the compact index, a .gem (a plain tar) whose data.tar.gz holds the files with no top
folder, verified by the index line's sha256 ``checksum``."""

from __future__ import annotations

from tests.fakes.rubygems import FakeRubygems, make_gem

from ..hostile import TAR
from ..registries import Adapter, Place


class RubygemsAdapter(Adapter):
    registry = "rubygems"
    live = ("rack", "3.1.8", "lib/rack.rb", True)
    fake_class = FakeRubygems
    endpoint_variable = "CODENAV_RUBYGEMS_SOURCE"
    aliases = ("gem",)
    variables = ("CODENAV_RUBYGEMS_SOURCE", "GEMRC")
    kind = TAR  # the .gem's data.tar.gz
    bad_names = ("123", "-x", ".x", ".hidden", "a b", "a/b", "../x", "..", "naïve")
    bad_versions = ("1.0.0 ; rm -rf /", "../../1")

    def publish_archive(self, name: str, version: str, data: bytes) -> None:
        self.fake.publish(name, version, gem=make_gem(name, version, {}, data_tar=data))

    def forget(self, name: str) -> None:
        self.fake.gems.pop(name, None)

    def places(self, name: str, version: str) -> list[Place]:
        return [Place("index", (f"/info/{name}",), "document"),
                Place("download", (f"/gems/{name}-{version}.gem",), "artifact")]

    def echo(self, name: str, version: str) -> dict:
        return {"registry": "rubygems", "name": name, "version": version, "artifact": f"{name}-{version}.gem",
                "verified": True,
                "verification": "sha256 of the downloaded file matches the compact index's checksum"}
