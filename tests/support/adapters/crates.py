"""crates: Cargo's sparse index, a .crate whose ``{name}-{version}/`` folder is removed, verified by
the index line's sha256 ``cksum``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.crates import FakeCrates, index_path

from ..hostile import TAR
from ..registries import Adapter, Place, flip


class CratesAdapter(Adapter):
    registry = "crates"
    live = ("serde", "1.0.210", "src/lib.rs", True)
    fake_class = FakeCrates
    aliases = ("cargo",)
    variables = ("CODENAV_CRATES_INDEX", "CARGO_HOME", "CARGO_REGISTRIES_CRATES_IO_PROTOCOL")
    kind = TAR
    bad_names = ("9lives", "-x", "_under", "a.b", "a b", "a/b", "../x", "naïve", "a" * 65)
    bad_versions = ("1.0.0 ; rm -rf /", "../../1")

    def env(self) -> dict[str, str]:
        return {"CODENAV_CRATES_INDEX": "sparse+" + self.fake.url}  # as Cargo writes a sparse index

    def isolate(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        """A working directory with no .cargo/config.toml above it."""
        work = tmp_path / "work"
        work.mkdir(exist_ok=True)
        monkeypatch.chdir(work)

    def publish_archive(self, name: str, version: str, data: bytes) -> None:
        self.fake.publish(name, version, crate=data)

    def top(self, name: str, version: str) -> str:
        return f"{name}-{version}/"

    def corrupt(self, name: str, version: str, where: str) -> None:
        record = next(r for r in self.fake.crates[name.lower()] if r.vers == version)
        record.data = flip(record.data, where)

    def forget(self, name: str) -> None:
        self.fake.crates.pop(name.lower(), None)

    def places(self, name: str, version: str) -> list[Place]:
        return [Place("index", (f"/index/{index_path(name)}",), "document"),
                Place("download", (f"/crates/{name}/{name}-{version}.crate",), "artifact")]

    def echo(self, name: str, version: str) -> dict:
        return {"registry": "crates", "name": name, "version": version, "artifact": f"{name}-{version}.crate",
                "verified": True, "verification": "sha256 of the downloaded file matches the index's cksum"}

    def extra_files(self, name: str, version: str) -> tuple[str, ...]:
        return ("Cargo.toml", "Cargo.toml.orig")
