"""Go: a module proxy (``@v/list``, ``.info``, ``.zip``) and a signed checksum database; the zip's
``{module}@{version}/`` prefix is removed and the files are verified by their h1 (which covers
names and contents, not the zip's bytes), its record proven in the signed tree."""

from __future__ import annotations

import io
import zipfile

from tests.fakes.go import FakeGoProxy, GoVersion

from ..archives import stored_zip
from ..hostile import ZIP, Case, archive
from ..registries import Adapter, Place, flip

# A tile is at most 256 hashes (8 KiB): a reset that declares 20,000 bytes more than the tile is
# refused from its Content-Length before a byte is read.
TILE = {"reset-mid-body": ("TOO_LARGE", False)}


class GoAdapter(Adapter):
    registry = "go"
    live = ("github.com/pkg/errors", "v0.9.1", "errors.go", True)
    fake_class = FakeGoProxy
    aliases = ("golang",)
    variables = ("CODENAV_GOPROXY", "CODENAV_GOSUMDB", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GOPRIVATE", "GONOPROXY",
                 "GOFLAGS", "GONOSUMCHECK", "GOENV", "GOINSECURE")
    kind = ZIP
    hashes = ("h1",)
    bad_names = ("errors", "GitHub.com/pkg/errors", "github.com//errors", "github.com/pkg/", "github.com/../etc",
                 "github.com/a b", "github.com/!pkg/errors", "github.com/a\nb")
    bad_versions = ("v1/../x", "", "../../1")
    republishes = False  # the checksum database holds one h1 per version for ever

    def env(self) -> dict[str, str]:
        return {"CODENAV_GOPROXY": self.fake.url, "CODENAV_GOSUMDB": self.fake.gosumdb()}

    def package(self, stem: str) -> str:
        return f"example.com/{stem}"

    def version(self, text: str) -> str:
        return "v" + text

    def publish_archive(self, name: str, version: str, data: bytes) -> None:
        self.fake.publish(name, version, {}, zip_bytes=data)

    def publish_hostile(self, name: str, version: str, case: Case, root) -> Case:
        """The database lists the h1 of what the publisher hashed, so the outcome can differ from
        an archive verified by its bytes."""
        top = self.top(name, version)
        if case.truncate:
            # The database lists the h1 of the whole zip; the proxy serves half of it.
            whole = archive(case, ZIP, top, root, whole=True)
            self.fake.publish(name, version, {}, zip_bytes=whole)
            self.fake.modules[name][version].zip = whole[: len(whole) // 2]
            return Case(case.members, error=("INTEGRITY_ERROR", "h1"))
        expected = case
        if not isinstance(case.members, bytes) and any("\n" in m.name for m in case.members):
            # Go's dirhash cannot hash a name holding a newline, so no h1 can vouch for it.
            expected = Case(case.members, error=("INTEGRITY_ERROR", "newline"))
        if isinstance(case.members, bytes) and case.error is None:
            # Forged bytes have every member outside {module}@{version}/: no module there at all,
            # an error naming the folder, never an empty listing (SPEC §3.2, §3.11).
            expected = Case(case.members, error=("PROTOCOL_ERROR", f"no {top} folder"))
        data = archive(case, ZIP, top, root)
        try:
            self.fake.publish(name, version, {}, zip_bytes=data)
        except Exception:
            # zipfile cannot read it to list an h1: the database vouches for some h1 anyway,
            # and codenav, unable to read the zip either, must refuse it.
            self.fake.modules[name] = {version: GoVersion(data, None, h1="h1:" + "A" * 43 + "=")}
            expected = Case(case.members, error=("INTEGRITY_ERROR", "cannot be read"))
        return expected

    def top(self, name: str, version: str) -> str:
        return f"{name}@{version}/"

    def corrupt(self, name: str, version: str, where: str) -> None:
        """One byte of the largest file's content changed (the h1 covers contents, not the zip's
        own bytes), in a stored zip so the change is the file's."""
        record = self.fake.modules[name][version]
        with zipfile.ZipFile(io.BytesIO(record.zip)) as zf:
            entries = [(info.filename, zf.read(info)) for info in zf.infolist()]
        largest = max(range(len(entries)), key=lambda i: len(entries[i][1]))
        path, body = entries[largest]
        entries[largest] = (path, flip(body, where))
        record.zip = stored_zip(entries)

    def forget(self, name: str) -> None:
        self.fake.modules.pop(name, None)

    def places(self, name: str, version: str) -> list[Place]:
        return [Place("info", (f"/proxy/{name}/@v/{version}.info",), "document"),
                Place("list", (f"/proxy/{name}/@v/list",), "document", pinned=False),
                Place("zip", (f"/proxy/{name}/@v/{version}.zip",), "artifact"),
                Place("sumdb", (f"/sumdb/lookup/{name}@{version}",), "document"),
                # every tile the inclusion proof reads meets the fault
                Place("tile", ("/sumdb/tile/",), "document", prefix=True, expected=TILE)]

    def echo(self, name: str, version: str) -> dict:
        return {"registry": "go", "name": name, "version": version,
                "artifact": f"{name.rsplit('/', 1)[-1]}@{version}.zip", "verified": True,
                "verification": "h1 of the unpacked files matches the checksum database's h1 line, its tree note "
                                "signed by sum.example.test and the record's inclusion in that tree proven"}

    def extra_files(self, name: str, version: str) -> tuple[str, ...]:
        return ("go.mod",)

    def integrity_message(self, hash: str) -> str:
        return "h1"
