"""A fake RubyGems source on a FakeServer, speaking the real wire format.

``/info/<name>`` is the compact index (``text/plain``, a ``---`` line, then
``VERSION[-PLATFORM] DEPS|REQS`` with ``checksum:`` per line, ETag and ``Repr-Digest``, gzipped
when the client accepts it; yanked versions are absent, an unknown gem is 404),
``/api/v1/versions/<name>.json`` the JSON API (newest first, not yanked; 404 with the plain
text the real controller sends) and ``/gems/<file>.gem`` the gems. A ``.gem`` is a plain USTAR
tar of ``metadata.gz``, ``data.tar.gz`` (the files, no top folder) and ``checksums.yaml.gz``.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import tarfile
from dataclasses import dataclass, field

from .archives import make_tgz
from .http import FakeServer, Reply, Routed


def make_gem(name: str, version: str, files: dict[str, bytes], *, data_tar: bytes | None = None) -> bytes:
    """A .gem as ``gem build`` writes it: a plain tar whose data.tar.gz holds the files."""
    data = data_tar if data_tar is not None else make_tgz(files, top="")
    metadata = gzip.compress(f"--- !ruby/object:Gem::Specification\nname: {name}\nversion: !ruby/object:"
                             f"Gem::Version\n  version: {version}\n".encode())
    checksums = gzip.compress(("---\nSHA256:\n  metadata.gz: " + hashlib.sha256(metadata).hexdigest()
                               + "\n  data.tar.gz: " + hashlib.sha256(data).hexdigest() + "\n").encode())
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for member, body in (("metadata.gz", metadata), ("data.tar.gz", data), ("checksums.yaml.gz", checksums)):
            info = tarfile.TarInfo(member)
            info.size = len(body)
            info.mode = 0o444
            tar.addfile(info, io.BytesIO(body))
    return buf.getvalue()


@dataclass
class GemVersion:
    version: str
    platform: str  # "ruby" for the pure-source gem
    data: bytes
    checksum: str
    yanked: bool = False

    @property
    def filename(self) -> str:
        suffix = "" if self.platform == "ruby" else f"-{self.platform}"
        return f"{{name}}-{self.version}{suffix}.gem"

    def info_line(self) -> str:
        spec = self.version if self.platform == "ruby" else f"{self.version}-{self.platform}"
        return f"{spec} activesupport:= {self.version},rack:>= 2.2.4&< 4|checksum:{self.checksum},ruby:>= 3.1.0\n"


@dataclass
class FakeRubygems(Routed):
    """Routes the compact index, the JSON versions API and the gems on a FakeServer."""

    server: FakeServer
    gems: dict[str, list[GemVersion]] = field(default_factory=dict)  # case-sensitive names
    gem_hits: int = 0

    ROUTES = (("GET", "/info/*", "_info"), ("GET", "/api/v1/versions/*", "_api_versions"), ("GET", "/gems/*", "_gem"))

    def publish(self, name: str, version: str, files: dict[str, bytes] | None = None, *, platform: str = "ruby",
                yanked: bool = False, gem: bytes | None = None, checksum: str | None = None) -> bytes:
        data = gem if gem is not None else make_gem(name, version, files or {})
        self.gems.setdefault(name, []).append(
            GemVersion(version, platform, data, checksum if checksum is not None else hashlib.sha256(data).hexdigest(),
                       yanked))
        return data

    def record(self, name: str, version: str, platform: str = "ruby") -> GemVersion:
        return next(g for g in self.gems[name] if (g.version, g.platform) == (version, platform))

    def info_text(self, name: str) -> str:
        # The real file starts with "---"; created_at lines and the like sit before it in some mirrors.
        return "---\n" + "".join(g.info_line() for g in self.gems[name] if not g.yanked)

    def _info(self, handler) -> Reply:
        name = handler.path.split("?", 1)[0][len("/info/"):]
        if name not in self.gems:
            return Reply(404, b"This gem could not be found\n", {"Content-Type": "text/plain"})
        body = self.info_text(name).encode()
        digest = base64.b64encode(hashlib.sha256(body).digest()).decode()
        headers = {"Content-Type": "text/plain; charset=utf-8", "ETag": '"' + hashlib.md5(body).hexdigest() + '"',
                   "Repr-Digest": f"sha-256=:{digest}:", "Accept-Ranges": "bytes"}
        if "gzip" in (handler.headers.get("Accept-Encoding") or ""):
            body = gzip.compress(body)
            headers.update({"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})
        return Reply(200, body, headers)

    def _api_versions(self, handler) -> Reply:
        name = handler.path.split("?", 1)[0][len("/api/v1/versions/"):].removesuffix(".json")
        live = [g for g in self.gems.get(name, []) if not g.yanked]
        if not live:
            return Reply(404, b"This rubygem could not be found.", {"Content-Type": "text/plain"})
        doc = [{"number": g.version, "platform": g.platform, "prerelease": any(c.isalpha() for c in g.version),
                "sha": g.checksum, "summary": "demo", "licenses": ["MIT"]} for g in reversed(live)]
        return Reply.json(doc)

    def _gem(self, handler) -> Reply:
        filename = handler.path.split("?", 1)[0][len("/gems/"):]
        for name, versions in self.gems.items():
            for g in versions:
                if g.filename.format(name=name) == filename:
                    self.gem_hits += 1
                    return Reply(200, g.data, {"Content-Type": "application/octet-stream"})
        return Reply(404, b"<html><body>Not Found</body></html>", {"Content-Type": "text/html"})
