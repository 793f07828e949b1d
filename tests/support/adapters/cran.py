"""CRAN: ``src/contrib/PACKAGES.gz`` for the current version, the ``Archive/NAME/`` listing for
older ones, and a source tarball whose ``NAME/`` folder is removed; the current version is
verified by its ``MD5sum``, an archived one is read unverified (CRAN publishes no checksum)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fakes.cran import FakeCran

from ..archives import File
from ..hostile import TAR, Case
from ..registries import Adapter, Place


def _archive_everything(adapter: CranAdapter, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every version moved to the Archive, as CRAN does when a package is archived: a pin is
    then read from the Archive listing and downloaded from ``Archive/NAME/``."""
    for package in adapter.fake.packages:
        package.archived = True


class CranAdapter(Adapter):
    registry = "cran"
    live = ("jsonlite", "1.8.0", "DESCRIPTION", False)  # archived long ago: no published checksum
    fake_class = FakeCran
    endpoint_variable = "CODENAV_CRAN_REPOS"
    variables = ("CODENAV_CRAN_REPOS", "R_PROFILE", "R_PROFILE_USER")
    kind = TAR
    hashes = ("md5",)
    bad_names = ("1abc", "a", "a.", "a_b", "a-b", "a b", "a/b", "../x", "naïve")
    bad_versions = (">> 1", "1", "^1.2", "1.2a", "../../1")

    def isolate(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        """No Rprofile.site of this machine (R_PROFILE names an empty file)."""
        monkeypatch.setenv("R_PROFILE", os.devnull)

    def publish(self, name: str, version: str, files: dict[str, bytes], hash: str | None = None) -> bytes:
        self._archive_current(name)
        return self.fake.publish(name, version, files)

    def publish_archive(self, name: str, version: str, data: bytes) -> None:
        self._archive_current(name)
        self.fake.publish(name, version, tarball=data)

    def _archive_current(self, name: str) -> None:
        """A new version moves the current one to ``Archive/NAME/``, as CRAN does."""
        for package in self.fake.packages:
            if package.name == name:
                package.archived = True

    def top(self, name: str, version: str) -> str:
        return f"{name}/"

    def forget(self, name: str) -> None:
        self.fake.packages = [p for p in self.fake.packages if p.name != name]

    def places(self, name: str, version: str) -> list[Place]:
        archive = f"/src/contrib/Archive/{name}/"
        return [Place("archive-listing", (archive,), "document", setup=_archive_everything),
                Place("packages", ("/src/contrib/PACKAGES.gz",), "document"),
                Place("tarball", (f"/src/contrib/{name}_{version}.tar.gz",), "artifact"),
                # no checksum to fail: a page served instead of the tarball is found corrupt when unpacked
                Place("archived-tarball", (f"{archive}{name}_{version}.tar.gz",), "artifact",
                      expected={"wrong-content-type": ("UNSAFE_ARCHIVE", False)}, setup=_archive_everything)]

    def echo(self, name: str, version: str) -> dict:
        return {"registry": "cran", "name": name, "version": version, "artifact": f"{name}_{version}.tar.gz",
                "verified": True,
                "verification": "md5 of the downloaded file matches the MD5sum in PACKAGES (a corruption check, "
                                "not a tamper check: whoever can change the tarball can change the index)"}

    def extra_files(self, name: str, version: str) -> tuple[str, ...]:
        return ("DESCRIPTION", "LICENSE", "MD5", "NAMESPACE")

    @classmethod
    def hostile_cases(cls) -> list[tuple[str, Case]]:
        # Only what is under the package's NAME/ folder is the package; another folder is skipped.
        return [("member-outside-its-folder", Case([File("@TOP@DESCRIPTION", b"d"), File("stray/x.R", b"x")],
                                                   skipped={"stray/x.R": "outside the"},
                                                   files={"DESCRIPTION": b"d"}))]
