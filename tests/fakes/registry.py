"""A fake npm registry and a fake PyPI simple index, serving artifacts built by the tests.

Both speak the real wire formats: the npm abbreviated packument (dist-tags, versions[].dist
with tarball, integrity, shasum) and the simple repository API (PEP 691 JSON or PEP 503 HTML,
chosen from the Accept header or forced with ``html_only``).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
import zipfile
from dataclasses import dataclass, field
from html import escape
from urllib.parse import quote, unquote

from .http import FakeServer, Reply


def make_tgz(files: dict[str, bytes], top: str = "package") -> bytes:
    """A gzipped tarball with every file under ``top/`` (npm's layout)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for path, data in sorted(files.items()):
            info = tarfile.TarInfo(f"{top}/{path}" if top else path)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def make_zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, data in sorted(files.items()):
            zf.writestr(path, data)
    return buf.getvalue()


def sri(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


@dataclass
class NpmVersion:
    tarball: bytes
    integrity: str | None
    shasum: str | None
    filename: str


@dataclass
class FakeNpm:
    """Routes ``GET /<name>`` (packument) and ``GET /-/<file>.tgz`` (tarballs) on a FakeServer."""

    server: FakeServer
    packages: dict[str, dict[str, NpmVersion]] = field(default_factory=dict)
    tags: dict[str, dict[str, str]] = field(default_factory=dict)
    tarball_delay: float = 0.0
    tarball_chunk_delay: float = 0.0  # > 0: the tarball is sent in 16 KiB chunks, this far apart
    tarball_hits: int = 0
    version_documents: bool = True  # serve /<name>/<version-or-tag> as the real registry does

    def __post_init__(self) -> None:
        self.server.route_prefix("GET", "/", self._serve)

    @property
    def url(self) -> str:
        return self.server.url + "/"

    def publish(self, name: str, version: str, files: dict[str, bytes], *, top: str = "package",
                integrity: bool = True, shasum: bool = True, tarball: bytes | None = None,
                tag_latest: bool = True) -> bytes:
        data = tarball if tarball is not None else make_tgz(files, top)
        base = name.rsplit("/", 1)[-1]
        self.packages.setdefault(name, {})[version] = NpmVersion(
            data, sri(data) if integrity else None, hashlib.sha1(data).hexdigest() if shasum else None,
            f"{base}-{version}.tgz",
        )
        if tag_latest:
            self.tags.setdefault(name, {})["latest"] = version
        return data

    def tag(self, name: str, tag: str, version: str) -> None:
        self.tags.setdefault(name, {})[tag] = version

    def packument(self, name: str) -> dict:
        versions = {}
        for version, v in self.packages[name].items():
            dist = {"tarball": f"{self.server.url}/-/{quote(name, safe='')}/{v.filename}"}
            if v.integrity:
                dist["integrity"] = v.integrity
            if v.shasum:
                dist["shasum"] = v.shasum
            versions[version] = {"name": name, "version": version, "dist": dist}
        return {"name": name, "dist-tags": self.tags.get(name, {}), "versions": versions}

    def _serve(self, handler) -> Reply:
        path = handler.path.split("?", 1)[0]
        if path.startswith("/-/"):
            _, _, rest = path.partition("/-/")
            name_enc, _, filename = rest.partition("/")
            name = unquote(name_enc)
            for v in self.packages.get(name, {}).values():
                if v.filename == filename:
                    self.tarball_hits += 1
                    body = v.tarball
                    if self.tarball_chunk_delay:
                        body = [body[i:i + 16384] for i in range(0, len(body), 16384)]
                    return Reply(200, body, {"Content-Type": "application/octet-stream"},
                                 delay=self.tarball_delay, chunk_delay=self.tarball_chunk_delay)
            return Reply(404, b'{"error":"Not found"}', {"Content-Type": "application/json"})
        name = unquote(path[1:])
        if name not in self.packages and "/" in name and not name.startswith("@"):
            name, _, wanted = name.partition("/")
            doc = self.packument(name) if self.version_documents and name in self.packages else None
            version = doc["dist-tags"].get(wanted, wanted) if doc else None
            if doc is None or version not in doc["versions"]:
                return Reply.json({"error": "Not found"}, status=404)
            return Reply.json(doc["versions"][version])
        if name not in self.packages:
            return Reply.json({"error": "Not found"}, status=404)
        return Reply.json(self.packument(name), headers={
            "Content-Type": "application/vnd.npm.install-v1+json"})


@dataclass
class PypiFile:
    filename: str
    data: bytes
    yanked: bool = False
    sha256: str | None = None  # None: the real one


@dataclass
class FakePypi:
    """Routes ``GET /simple/<project>/`` and ``GET /files/<filename>`` on a FakeServer."""

    server: FakeServer
    projects: dict[str, list[PypiFile]] = field(default_factory=dict)
    html_only: bool = False

    def __post_init__(self) -> None:
        self.server.route_prefix("GET", "/simple/", self._index)
        self.server.route_prefix("GET", "/files/", self._file)

    @property
    def url(self) -> str:
        return self.server.url + "/simple/"

    def add(self, project: str, filename: str, data: bytes, *, yanked: bool = False, sha256: str | None = None) -> None:
        self.projects.setdefault(project, []).append(PypiFile(filename, data, yanked, sha256))

    def add_wheel(self, project: str, version: str, files: dict[str, bytes], tag: str = "py3-none-any",
                  **kw) -> bytes:
        data = make_zip(files)
        self.add(project, f"{project.replace('-', '_')}-{version}-{tag}.whl", data, **kw)
        return data

    def add_sdist(self, project: str, version: str, files: dict[str, bytes], **kw) -> bytes:
        stem = f"{project}-{version}"
        data = make_tgz(files, top=stem)
        self.add(project, f"{stem}.tar.gz", data, **kw)
        return data

    def _index(self, handler) -> Reply:
        project = handler.path.split("?", 1)[0][len("/simple/"):].strip("/")
        files = self.projects.get(project)
        if files is None:
            return Reply(404, b"Not Found", {"Content-Type": "text/plain"})
        accept = handler.headers.get("Accept", "")
        if "application/vnd.pypi.simple.v1+json" in accept and not self.html_only:
            doc = {"meta": {"api-version": "1.1"}, "name": project, "files": [
                {"filename": f.filename, "url": f"../../files/{f.filename}",
                 "hashes": {"sha256": f.sha256 or hashlib.sha256(f.data).hexdigest()},
                 **({"yanked": True} if f.yanked else {"yanked": False})}
                for f in files]}
            return Reply(200, json.dumps(doc).encode(), {"Content-Type": "application/vnd.pypi.simple.v1+json"})
        links = "".join(
            f'<a href="/files/{escape(f.filename)}#sha256={f.sha256 or hashlib.sha256(f.data).hexdigest()}"'
            f'{" data-yanked" if f.yanked else ""}>{escape(f.filename)}</a><br/>\n'
            for f in files)
        body = f"<!DOCTYPE html><html><body><h1>Links for {escape(project)}</h1>\n{links}</body></html>"
        return Reply(200, body.encode(), {"Content-Type": "text/html"})

    def _file(self, handler) -> Reply:
        filename = unquote(handler.path.split("?", 1)[0][len("/files/"):])
        for files in self.projects.values():
            for f in files:
                if f.filename == filename:
                    return Reply(200, f.data, {"Content-Type": "application/octet-stream"})
        return Reply(404, b"Not Found")
