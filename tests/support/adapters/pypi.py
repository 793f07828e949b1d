"""PyPI: the simple index (PEP 691 JSON, PEP 503 HTML) and two kinds of release file, each an
adapter of its own: a wheel is a zip listed as it is, an sdist a tarball whose
``{name}-{version}/`` folder is removed; both verified by the sha256 the index lists."""

from __future__ import annotations

from tests.fakes.http import Reply
from tests.fakes.pypi import FakePypi

from ..archives import File
from ..hostile import TAR, ZIP, Case
from ..registries import Adapter, Place, flip, sha256

# Neither JSON nor HTML (an HTML page is a valid PEP 503 index): what a misconfigured index URL
# (a plain file server, an API gateway) answers. Reading it as an empty page would say "no releases".
NOT_AN_INDEX = {"wrong-content-type": lambda good, other: Reply(200, b"victim-1.0.0-py3-none-any.whl\n",
                                                                 {"Content-Type": "text/plain"})}


class WheelAdapter(Adapter):
    registry = "pypi"
    fake_class = FakePypi
    endpoint_variable = "CODENAV_PYPI_INDEX_URL"
    id = "pypi-wheel"
    variables = ("CODENAV_PYPI_INDEX_URL", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL")
    kind = ZIP
    bad_names = ("-x-", "a b", "../x", "a/b", "a" * 300)
    # Any other version is looked up in the index (an unknown one is VERSION_NOT_FOUND): only
    # what is no PEP 440 version or PEP 508 specifier at all is refused.
    bad_versions = ("1.0 ; rm -rf /", "==", ">=1,<")

    def filename(self, name: str, version: str) -> str:
        return f"{name.replace('-', '_')}-{version}-py3-none-any.whl"

    def publish(self, name: str, version: str, files: dict[str, bytes], hash: str | None = None) -> bytes:
        return self.fake.add_wheel(name, version, files)

    def publish_archive(self, name: str, version: str, data: bytes) -> None:
        self.fake.add(name, self.filename(name, version), data)

    def corrupt(self, name: str, version: str, where: str) -> None:
        record = next(f for f in self.fake.projects[name] if f.filename == self.filename(name, version))
        record.sha256 = sha256(record.data)
        record.data = flip(record.data, where)

    def forget(self, name: str) -> None:
        self.fake.projects.pop(name, None)

    def places(self, name: str, version: str) -> list[Place]:
        return [Place("index", (f"/simple/{name}/",), "document", faults=NOT_AN_INDEX),
                Place("file", (f"/files/{self.filename(name, version)}",), "artifact")]

    def echo(self, name: str, version: str) -> dict:
        return {"registry": "pypi", "name": name, "version": version, "artifact": self.filename(name, version),
                "artifactReason": "pure-wheel", "verified": True,
                "verification": "sha256 of the downloaded file matches the sha256 the index lists"}


class SdistAdapter(WheelAdapter):
    id = "pypi-sdist"
    kind = TAR

    def package(self, stem: str) -> str:
        return f"{stem}sdist"  # distinct from the wheels' names when both share one index

    def filename(self, name: str, version: str) -> str:
        return f"{name}-{version}.tar.gz"

    def publish(self, name: str, version: str, files: dict[str, bytes], hash: str | None = None) -> bytes:
        return self.fake.add_sdist(name, version, files)

    def top(self, name: str, version: str) -> str:
        return f"{name}-{version}/"

    def echo(self, name: str, version: str) -> dict:
        return {**super().echo(name, version), "artifactReason": "sdist"}

    @classmethod
    def hostile_cases(cls) -> list[tuple[str, Case]]:
        # Only what is under the sdist's own folder is the release; another folder is skipped.
        return [("member-outside-its-folder", Case([File("@TOP@setup.py", b"s"), File("other/evil.py", b"e")],
                                                   skipped={"other/evil.py": "outside the"},
                                                   files={"setup.py": b"s"}))]
