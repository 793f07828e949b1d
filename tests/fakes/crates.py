"""A fake Cargo sparse registry on a FakeServer, speaking the real wire format.

``/index/config.json`` (the ``dl`` template), ``/index/<prefix>/<name>`` (the index file:
``text/plain``, one JSON object per published version in publish order, with an ETag, gzipped
when the client accepts it, 404 for an unknown crate) and the ``.crate`` files at the static
``dl`` location; the API form ``/api/v1/crates/<name>/<version>/download`` redirects there, as
the real registry's does. Fixtures are built with ``tarfile``, every entry under
``{name}-{version}/``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass, field

from .archives import make_tgz
from .http import FakeServer, Reply, Routed

STATIC_TEMPLATE = "/crates/{crate}/{crate}-{version}.crate"  # the real registry's dl template


def index_path(name: str) -> str:
    """Cargo's index layout, written out independently of codenav's."""
    n = name.lower()
    if len(n) in (1, 2):
        return f"{len(n)}/{n}"
    if len(n) == 3:
        return f"3/{n[:1]}/{n}"
    return f"{n[:2]}/{n[2:4]}/{n}"


@dataclass
class CrateVersion:
    name: str
    vers: str
    data: bytes
    cksum: str
    yanked: bool = False
    v: int = 2
    extra: dict = field(default_factory=dict)

    def line(self) -> str:
        # Fields in the order the real index writes them; deps/features are opaque to codenav.
        entry = {"name": self.name, "vers": self.vers,
                 "deps": [{"name": "serde_derive", "req": "^1.0", "features": [], "optional": True,
                           "default_features": True, "target": None}],  # kind-less deps exist
                 "cksum": self.cksum, "features": {"default": ["std"], "std": [], "derive": ["serde_derive"]},
                 "yanked": self.yanked, "links": None, **self.extra}
        if self.v != 1:
            entry["v"] = self.v
        return json.dumps(entry, separators=(",", ":"))


@dataclass
class FakeCrates(Routed):
    """Routes the sparse index under ``/index/``, ``.crate`` files and the API download."""

    server: FakeServer
    crates: dict[str, list[CrateVersion]] = field(default_factory=dict)  # lower-cased name -> versions
    dl: str | None = None  # the config.json dl value; None: the static template on this server
    crate_hits: int = 0

    ROUTES = (("GET", "/index/config.json", "_config"), ("GET", "/index/*", "_index"), ("GET", "/crates/*", "_crate"),
              ("GET", "/api/v1/crates/*", "_api_download"))
    BASE = "/index/"

    def publish(self, name: str, version: str, files: dict[str, bytes] | None = None, *, yanked: bool = False,
                crate: bytes | None = None, cksum: str | None = None, v: int = 2) -> bytes:
        """Publish ``name`` ``version``: its files under ``{name}-{version}/`` (or raw ``crate`` bytes)."""
        data = crate if crate is not None else make_tgz(
            {"Cargo.toml": f'[package]\nname = "{name}"\nversion = "{version}"\n'.encode(),
             "Cargo.toml.orig": b"[package]\n", **(files or {})}, top=f"{name}-{version}")
        self.crates.setdefault(name.lower(), []).append(
            CrateVersion(name, version, data, cksum or hashlib.sha256(data).hexdigest(), yanked, v))
        return data

    def index_text(self, name: str) -> str:
        return "".join(entry.line() + "\n" for entry in self.crates[name.lower()])

    def _config(self, handler) -> Reply:
        dl = self.dl if self.dl is not None else self.server.url + STATIC_TEMPLATE
        body = json.dumps({"dl": dl, "api": self.server.url}).encode()
        return Reply(200, body, {"Content-Type": "application/json"})

    def _index(self, handler) -> Reply:
        path = handler.path.split("?", 1)[0][len("/index/"):]
        name = path.rsplit("/", 1)[-1]
        if name not in self.crates or index_path(name) != path:  # the index is keyed lower-case
            return Reply(404, b"Not Found\n", {"Content-Type": "text/plain"})
        body = self.index_text(name).encode()
        etag = '"' + hashlib.sha1(body).hexdigest() + '"'
        headers = {"Content-Type": "text/plain", "ETag": etag, "Cache-Control": "public,max-age=600"}
        if handler.headers.get("If-None-Match") == etag:
            return Reply(304, b"", headers)
        if "gzip" in (handler.headers.get("Accept-Encoding") or ""):
            body = gzip.compress(body)
            headers.update({"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})
        return Reply(200, body, headers)

    def _find(self, crate: str, version: str) -> CrateVersion | None:
        for entry in self.crates.get(crate.lower(), []):
            if entry.name == crate and entry.vers == version:
                return entry
        return None

    def _crate(self, handler) -> Reply:
        parts = handler.path.split("?", 1)[0].split("/")  # "", "crates", name, file
        if len(parts) == 4:
            entry = self._find(parts[2], parts[3][len(parts[2]) + 1:-len(".crate")])
            if entry is not None and parts[3] == f"{entry.name}-{entry.vers}.crate":
                self.crate_hits += 1
                return Reply(200, entry.data, {"Content-Type": "application/x-tar"})
        return Reply(404, b"Not Found\n", {"Content-Type": "text/plain"})

    def _api_download(self, handler) -> Reply:
        parts = handler.path.split("?", 1)[0].split("/")  # "", api, v1, crates, name, version, download
        if len(parts) == 7 and parts[6] == "download":
            entry = self._find(parts[4], parts[5])
            if entry is not None:
                return Reply(302, b"", {"Location": self.server.url + f"/crates/{entry.name}/{entry.name}-"
                                        f"{entry.vers}.crate"})
        return Reply.json({"errors": [{"detail": "Not Found"}]}, status=404)
