"""A fake PyPI simple index on a FakeServer: PEP 691 JSON or PEP 503 HTML (chosen from the
Accept header, or forced with ``html_only``) and the files, built by the tests.

The JSON pages state each file's PEP 700 ``size`` (``PypiFile.size`` overrides it: an index
that lies). ``ranges`` picks how the file host answers a ``Range`` request: "ignore" (200 with
the whole body, the default), "honour" (206 with ``Content-Range``), "wrong-total" (206 with a
total one byte off), "416", "501". ``file_hits``, ``bytes_sent`` and ``ranges_seen`` count what
the file host served, so a test can prove what went over the wire.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from html import escape
from urllib.parse import unquote

from .archives import make_tgz, make_zip
from .http import FakeServer, Reply, Routed


def _yank_attribute(yanked: bool | str) -> str:
    if isinstance(yanked, str):
        return f' data-yanked="{escape(yanked)}"'
    return " data-yanked" if yanked else ""


@dataclass
class PypiFile:
    filename: str
    data: bytes
    yanked: bool | str = False  # a string: yanked with that reason (PEP 592)
    sha256: str | None = None  # None: the real one
    size: int | None = None  # the PEP 700 size the JSON page states; None: the real one


@dataclass
class FakePypi(Routed):
    """Routes ``GET /simple/<project>/`` and ``GET /files/<filename>`` on a FakeServer."""

    server: FakeServer
    projects: dict[str, list[PypiFile]] = field(default_factory=dict)
    html_only: bool = False
    ranges: str = "ignore"
    file_hits: int = 0
    bytes_sent: int = 0
    ranges_seen: list[str] = field(default_factory=list)

    ROUTES = (("GET", "/simple/*", "_index"), ("GET", "/files/*", "_file"))
    BASE = "/simple/"

    def add(self, project: str, filename: str, data: bytes, *, yanked: bool | str = False,
            sha256: str | None = None, size: int | None = None) -> None:
        self.projects.setdefault(project, []).append(PypiFile(filename, data, yanked, sha256, size))

    def add_wheel(self, project: str, version: str, files: dict[str, bytes], tag: str = "py3-none-any",
                  **kw) -> bytes:
        data = make_zip(files)
        self.add(project, f"{project.replace('-', '_')}-{version}-{tag}.whl", data, **kw)
        return data

    def add_sdist(self, project: str, version: str, files: dict[str, bytes], *, top: str | None = None,
                  **kw) -> bytes:
        """``top``: the folder inside, when it is spelled unlike the file name."""
        stem = f"{project}-{version}"
        data = make_tgz(files, top=top or stem)
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
                 "yanked": f.yanked, "size": f.size if f.size is not None else len(f.data)}
                for f in files]}
            return Reply(200, json.dumps(doc).encode(), {"Content-Type": "application/vnd.pypi.simple.v1+json"})
        links = "".join(
            f'<a href="/files/{escape(f.filename)}#sha256={f.sha256 or hashlib.sha256(f.data).hexdigest()}"'
            f'{_yank_attribute(f.yanked)}>{escape(f.filename)}</a><br/>\n'
            for f in files)
        body = f"<!DOCTYPE html><html><body><h1>Links for {escape(project)}</h1>\n{links}</body></html>"
        return Reply(200, body.encode(), {"Content-Type": "text/html"})

    def _file(self, handler) -> Reply:
        filename = unquote(handler.path.split("?", 1)[0][len("/files/"):])
        for files in self.projects.values():
            for f in files:
                if f.filename == filename:
                    return self._serve(handler, f.data)
        return Reply(404, b"Not Found")

    def _serve(self, handler, data: bytes) -> Reply:
        self.file_hits += 1
        wanted = handler.headers.get("Range")
        total = len(data)
        if wanted:
            self.ranges_seen.append(wanted)
        if wanted and self.ranges != "ignore":
            if self.ranges in ("416", "501"):
                return Reply(int(self.ranges), b"", {"Content-Range": f"bytes */{total}"})
            first, _, last = wanted.removeprefix("bytes=").partition("-")
            start, end = int(first), min(int(last), total - 1)
            body = data[start:end + 1]
            self.bytes_sent += len(body)
            shown = total + 1 if self.ranges == "wrong-total" else total
            return Reply(206, body, {"Content-Type": "application/octet-stream",
                                     "Content-Range": f"bytes {start}-{end}/{shown}"})
        self.bytes_sent += total
        return Reply(200, data, {"Content-Type": "application/octet-stream", "Accept-Ranges": "bytes"})
