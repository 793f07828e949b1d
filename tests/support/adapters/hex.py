"""Hex: the HTTP API (or, for a mirror of the repository alone, the signed registry file), an outer
tar whose contents.tar.gz holds the files with no top folder, verified by the release's sha256."""

from __future__ import annotations

import shutil

import pytest

from tests.fakes.hex import FakeHex, make_tarball

from ..hostile import TAR
from ..registries import Adapter, Place, flip


def _mirror_alone(adapter: HexAdapter, monkeypatch: pytest.MonkeyPatch) -> None:
    """A mirror of the repository without the API: the signed registry file is read."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl makes the fake's signing key")
    adapter.fake.signed = True
    monkeypatch.delenv("CODENAV_HEX_API")


class HexAdapter(Adapter):
    registry = "hex"
    live = ("jason", "1.4.4", "lib/jason.ex", True)
    fake_class = FakeHex
    variables = ("CODENAV_HEX_REPO", "CODENAV_HEX_API", "CODENAV_HEX_PUBLIC_KEY", "HEX_MIRROR", "HEX_REPO_URL",
                 "HEX_API_URL", "HEX_HOME")
    kind = TAR  # the outer tar's contents.tar.gz
    bad_names = ("1abc", "_x", "a-b", "a.b", "a b", "a/b", "../x", "naïve")
    bad_versions = ("1.0.0 ; rm -rf /", "../../1")

    def env(self) -> dict[str, str]:
        return {"CODENAV_HEX_API": self.fake.api_url, "CODENAV_HEX_REPO": self.fake.repo_url}

    def publish_archive(self, name: str, version: str, data: bytes) -> None:
        self.fake.publish(name, version, tarball=make_tarball(name, version, {}, contents=data))

    def corrupt(self, name: str, version: str, where: str) -> None:
        record = self.fake.release(name, version)
        record.data = flip(record.data, where)

    def forget(self, name: str) -> None:
        self.fake.packages.pop(name, None)

    def places(self, name: str, version: str) -> list[Place]:
        return [Place("api", (f"/api/packages/{name}",), "document"),
                Place("download", (f"/repo/tarballs/{name}-{version}.tar",), "artifact"),
                Place("registry", (f"/repo/packages/{name}",), "document", setup=_mirror_alone)]

    def echo(self, name: str, version: str) -> dict:
        return {"registry": "hex", "name": name, "version": version, "artifact": f"{name}-{version}.tar",
                "verified": True,
                "verification": "sha256 of the downloaded file matches the checksum of the Hex API's release"}
