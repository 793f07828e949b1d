"""conda: the anaconda.org per-package API (or, for a channel elsewhere, its repodata.json) and
a ``.tar.bz2`` with no top folder holding ``info/`` beside the files, verified by the sha256 the
channel lists. No pin is kept for ever: a channel adds builds to published versions."""

from __future__ import annotations

import pytest

from tests.fakes.conda import CHANNEL, FakeConda
from tests.fakes.http import Reply

from ..hostile import TAR
from ..registries import Adapter, Place, flip

SUBDIR = "linux-64"
API_CAP = 256 * 1024 * 1024  # conda.API_CAP and REPODATA_CAP: a declared length over them is refused
REPODATA_CAP = 128 * 1024 * 1024


def _over(cap: int):
    return {"oversized": lambda good, other: Reply(200, b"{}", good.headers, length=cap + 1)}


def _repodata(adapter: CondaAdapter, monkeypatch: pytest.MonkeyPatch) -> None:
    """A channel off anaconda.org (a mirror, a private channel): its repodata.json is read."""
    monkeypatch.delenv("CODENAV_CONDA_API")


class CondaAdapter(Adapter):
    registry = "conda"
    live = ("tzdata", "2024b", "share/zoneinfo/UTC", True)
    fake_class = FakeConda
    aliases = ("conda-forge",)
    variables = ("CODENAV_CONDA_CHANNEL", "CODENAV_CONDA_API", "CONDARC", "CONDA_PREFIX", "CONDA_ROOT",
                 "CONDA_SUBDIR")
    kind = TAR
    bad_names = ("-dash", ".dot", "a b", "a/b", "naïve", "a\nb")
    bad_versions = (">=1,<", "^1.2$", "1.2,", "../../1")
    pins_forever = False  # a channel may add a build to a published version: a pin is resolved again

    def env(self) -> dict[str, str]:
        return {"CODENAV_CONDA_CHANNEL": self.fake.channel, "CODENAV_CONDA_API": self.fake.api,
                "CONDA_SUBDIR": SUBDIR}

    def filename(self, name: str, version: str) -> str:
        return f"{name}-{version}-h1a2b3c4_0.tar.bz2"  # the fake's build string for build number 0

    def publish(self, name: str, version: str, files: dict[str, bytes], hash: str | None = None) -> bytes:
        return self.fake.publish(name, version, files, subdir=SUBDIR).data

    def publish_archive(self, name: str, version: str, data: bytes) -> None:
        self.fake.publish(name, version, subdir=SUBDIR, data=data)

    def corrupt(self, name: str, version: str, where: str) -> None:
        record = next(f for f in self.fake.files if f.fn == self.filename(name, version))
        record.data = flip(record.data, where)

    def forget(self, name: str) -> None:
        self.fake.files = [f for f in self.fake.files if f.name != name]

    def places(self, name: str, version: str) -> list[Place]:
        return [Place("api", (f"/api/package/{CHANNEL}/{name}/files",), "document", faults=_over(API_CAP)),
                Place("file", (f"/{CHANNEL}/{SUBDIR}/{self.filename(name, version)}",), "artifact"),
                Place("repodata", tuple(f"/{CHANNEL}/{subdir}/repodata.json" for subdir in (SUBDIR, "noarch")),
                      "document", faults=_over(REPODATA_CAP), setup=_repodata)]

    def echo(self, name: str, version: str) -> dict:
        return {"registry": "conda", "name": name, "version": version, "artifact": self.filename(name, version),
                "artifactReason": "platform-build", "subdir": SUBDIR, "verified": True,
                "verification": "sha256 of the downloaded file matches the sha256 the channel lists"}

    def extra_files(self, name: str, version: str) -> tuple[str, ...]:
        return ("info/files", "info/index.json", "info/paths.json")
