"""A fake Go module proxy and checksum database on a FakeServer, speaking the real wire format.

The proxy lives under ``/proxy/`` (the layout of ``$GOMODCACHE/cache/download``):
``$module/@v/list`` (plain text, unordered, retracted versions included, never pseudo-versions),
``$module/@v/$version.info`` (``{"Version","Time"}``), ``.mod`` (synthesised ``module <path>``
when the module has none), ``.zip`` and the optional ``$module/@latest``; module paths and
versions arrive case-escaped (``!b`` for ``B``) and an unescaped capital is refused. Unknown
modules and versions answer 404 (or 410, as some proxies do) with a ``not found:`` text body.

The checksum database lives under ``/sumdb/`` (or, mirrored through the proxy, under
``/proxy/sumdb/<name>/`` once ``mirror_sumdb`` is set): ``/lookup/$module@$version`` answers
the record number, the two go.sum lines, a blank line and a tree note (size, root hash)
signed with a test Ed25519 key generated here; ``/tile/8/L/x001/234[.p/W]`` serves the hashes
of the log (filler records first, so the tiles of level 1 are partial and real). The h1
lines are computed from the served zips by this fake's own few lines of hashlib, not by
codenav's code; so are the tree (RFC 6962 by its definition) and the signature (a separate,
projective-coordinate Ed25519 signer, checked against RFC 8032's vectors in the tests).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import zipfile
from dataclasses import dataclass, field

from .http import FakeServer, Reply, Routed

TEXT = {"Content-Type": "text/plain; charset=UTF-8"}


# --- an independent h1 and Ed25519 signer (test side) -------------------------------------------

def h1_of_files(entries: list[tuple[str, bytes]]) -> str:
    """dirhash Hash1 of (name, content) pairs, written apart from codenav's version."""
    summary = "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in sorted(entries))
    return "h1:" + base64.b64encode(hashlib.sha256(summary.encode()).digest()).decode()


def h1_of_zip_bytes(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return h1_of_files([(i.filename, archive.read(i)) for i in archive.infolist()])


P = 2 ** 255 - 19
L = 2 ** 252 + 27742317777372353535851937790883648493
D = (-121665 * pow(121666, P - 2, P)) % P


def _inv(x: int) -> int:
    return pow(x, P - 2, P)


def _add(a: tuple[int, int, int], b: tuple[int, int, int]) -> tuple[int, int, int]:
    # Projective (X:Y:Z) unified addition on -x^2 + y^2 = 1 + d x^2 y^2 (no inversion).
    (x1, y1, z1), (x2, y2, z2) = a, b
    za = z1 * z2 % P
    zb = za * za % P
    c, dd = x1 * x2 % P, y1 * y2 % P
    e = D * c * dd % P
    f, g = (zb - e) % P, (zb + e) % P
    return (za * f * ((x1 + y1) * (x2 + y2) - c - dd) % P, za * g * (dd + c) % P, f * g % P)


def _mul(k: int, point: tuple[int, int]) -> tuple[int, int]:
    out, base = (0, 1, 1), (point[0], point[1], 1)
    for bit in bin(k)[2:]:
        out = _add(out, out)
        if bit == "1":
            out = _add(out, base)
    z = _inv(out[2])
    return (out[0] * z % P, out[1] * z % P)


def _base() -> tuple[int, int]:
    y = 4 * _inv(5) % P
    xx = (y * y - 1) * _inv(D * y * y + 1) % P
    x = pow(xx, (P + 3) // 8, P)
    if (x * x - xx) % P:
        x = x * pow(2, (P - 1) // 4, P) % P
    return (P - x if x & 1 else x, y)


def _enc(point: tuple[int, int]) -> bytes:
    x, y = point
    return (y + ((x & 1) << 255)).to_bytes(32, "little")


def _secret(seed: bytes) -> tuple[int, bytes]:
    h = hashlib.sha512(seed).digest()
    a = int.from_bytes(h[:32], "little")
    a = (a & ~7 & ((1 << 254) - 1)) | (1 << 254)
    return a, h[32:]


def public_key(seed: bytes) -> bytes:
    return _enc(_mul(_secret(seed)[0], _base()))


def sign(seed: bytes, message: bytes) -> bytes:
    """RFC 8032 §5.1.6 Ed25519 signing, plain and unhurried."""
    a, prefix = _secret(seed)
    pub = _enc(_mul(a, _base()))
    r = int.from_bytes(hashlib.sha512(prefix + message).digest(), "little") % L
    big_r = _enc(_mul(r, _base()))
    k = int.from_bytes(hashlib.sha512(big_r + pub + message).digest(), "little") % L
    return big_r + ((r + k * a) % L).to_bytes(32, "little")


@dataclass
class NoteKey:
    """A checksum-database signer: GOSUMDB's ``name+hash+key`` text and the signing seed."""

    name: str
    seed: bytes = field(default_factory=lambda: os.urandom(32))

    def __post_init__(self) -> None:
        self.public = public_key(self.seed)

    @property
    def raw(self) -> bytes:
        return b"\x01" + self.public

    @property
    def key_hash(self) -> bytes:
        return hashlib.sha256(self.name.encode() + b"\n" + self.raw).digest()[:4]

    @property
    def verifier(self) -> str:
        return f"{self.name}+{self.key_hash.hex()}+{base64.b64encode(self.raw).decode()}"

    def sign_note(self, text: str) -> str:
        signature = sign(self.seed, text.encode())
        return f"{text}\n\u2014 {self.name} {base64.b64encode(self.key_hash + signature).decode()}\n"


# --- the proxy and the database -----------------------------------------------------------------

def unescape(text: str) -> str | None:
    """``!b`` -> ``B``; None for an unescaped capital (the proxy refuses those)."""
    out, bang = [], False
    for char in text:
        if bang:
            if not char.islower():
                return None
            out.append(char.upper())
            bang = False
        elif char == "!":
            bang = True
        elif char.isupper():
            return None
        else:
            out.append(char)
    return None if bang else "".join(out)


def module_zip(module: str, version: str, files: dict[str, bytes]) -> bytes:
    """A module zip as the go command makes it: every entry under ``module@version/``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in sorted(files.items()):
            archive.writestr(f"{module}@{version}/{name}", data)
    return buf.getvalue()


@dataclass
class GoVersion:
    zip: bytes
    mod: bytes | None  # None: no go.mod, the proxy synthesises one
    time: str = "2024-01-02T03:04:05Z"
    listed: bool = True  # pseudo-versions are never in @v/list
    h1: str | None = None  # what the database says; None: the h1 of the zip as first published


@dataclass
class FakeGoProxy(Routed):
    server: FakeServer
    modules: dict[str, dict[str, GoVersion]] = field(default_factory=dict)
    latest: dict[str, str] = field(default_factory=dict)  # module -> @latest answer (optional endpoint)
    key: NoteKey = field(default_factory=lambda: NoteKey("sum.example.test"))
    missing_status: int = 404
    mirror_sumdb: bool = False  # answer /proxy/sumdb/<name>/supported and its lookups
    tamper_note: bool = False  # serve a tree note whose signature does not match
    forge_record: bool = False  # a lookup lists the h1 of the zip as served now, not the logged record
    log: list[bytes] = field(default_factory=list)  # the transparent log's records, in order
    ids: dict[tuple[str, str], int] = field(default_factory=dict)
    filler: int = 300  # records of other modules before the first test record (tiles beyond level 0)

    ROUTES = (("GET", "/proxy/*", "_proxy"), ("GET", "/sumdb/*", "_sumdb_direct"))
    BASE = "/proxy/"

    def __post_init__(self) -> None:
        self.log += [f"example.invalid/filler v1.0.{i} h1:{'A' * 43}=\n".encode() for i in range(self.filler)]
        super().__post_init__()

    @property
    def sumdb_url(self) -> str:
        return self.server.url + "/sumdb/"

    def gosumdb(self) -> str:
        """GOSUMDB's ``name+hash+key url`` form pointing at this fake."""
        return f"{self.key.verifier} {self.sumdb_url}"

    def publish(self, module: str, version: str, files: dict[str, bytes], *, gomod: bytes | str | None = "auto",
                listed: bool = True, zip_bytes: bytes | None = None) -> bytes:
        if gomod == "auto":
            gomod = f"module {module}\n".encode()
        if isinstance(gomod, str):
            gomod = gomod.encode()
        if gomod is not None and "go.mod" not in files:
            files = {**files, "go.mod": gomod}
        data = zip_bytes if zip_bytes is not None else module_zip(module, version, files)
        record = GoVersion(data, gomod, listed=listed, h1=h1_of_zip_bytes(data))
        self.modules.setdefault(module, {})[version] = record
        self.ids[(module, version)] = len(self.log)
        self.log.append(self._lines(module, version, record.h1, gomod).encode())
        return data

    @staticmethod
    def _lines(module: str, version: str, h1: str | None, gomod: bytes | None) -> str:
        gomod = gomod if gomod is not None else f"module {module}\n".encode()
        return f"{module} {version} {h1}\n{module} {version}/go.mod {h1_of_files([('go.mod', gomod)])}\n"

    # The log as a Merkle tree (RFC 6962), computed here by its definition.

    @staticmethod
    def _leaf(data: bytes) -> bytes:
        return hashlib.sha256(b"\x00" + data).digest()

    def _mth(self, leaves: list[bytes]) -> bytes:
        if len(leaves) == 1:
            return leaves[0]
        k = 1
        while k * 2 < len(leaves):
            k *= 2
        return hashlib.sha256(b"\x01" + self._mth(leaves[:k]) + self._mth(leaves[k:])).digest()

    def _level(self, level: int) -> list[bytes]:
        hashes = [self._leaf(r) for r in self.log]
        for _ in range(level):
            hashes = [hashlib.sha256(b"\x01" + hashes[i] + hashes[i + 1]).digest()
                      for i in range(0, len(hashes) - 1, 2)]
        return hashes

    def _tile(self, rest: str) -> Reply:
        level_text, _, where = rest.partition("/")
        where, _, width_text = where.partition(".p/")
        try:
            level, index = int(level_text), int("".join(g.lstrip("x") for g in where.split("/")))
            width = int(width_text) if width_text else 256
        except ValueError:
            return Reply(404, b"404 page not found\n", TEXT)
        hashes = self._level(8 * level)[index * 256: index * 256 + width]
        if len(hashes) != width:
            return Reply(404, b"not found: tile\n", TEXT)
        return Reply(200, b"".join(hashes), {"Content-Type": "application/octet-stream"})

    def _missing(self, what: str) -> Reply:
        return Reply(self.missing_status, f"not found: {what}\n".encode(), TEXT)

    def _proxy(self, handler) -> Reply:
        path = handler.path.split("?", 1)[0][len("/proxy/"):]
        if path.startswith("sumdb/"):
            if not self.mirror_sumdb:
                return Reply(404, b"404 page not found\n", TEXT)
            name, _, rest = path[len("sumdb/"):].partition("/")
            if name != self.key.name:
                return Reply(404, b"404 page not found\n", TEXT)
            if rest == "supported":
                return Reply(200, b"", TEXT)
            return self._sumdb(handler, f"/proxy/sumdb/{name}/")
        if "/@latest" in path and path.endswith("/@latest"):
            module = unescape(path[: -len("/@latest")])
            if module is None:
                return Reply(400, b"bad request: invalid escaped module path\n", TEXT)
            if module not in self.latest:
                return self._missing(f"{module}@latest")
            version = self.latest[module]
            return Reply.json({"Version": version, "Time": self.modules[module][version].time})
        escaped, sep, rest = path.partition("/@v/")
        module = unescape(escaped) if sep else None
        if module is None:
            return Reply(400, b"bad request: invalid escaped module path\n", TEXT)
        versions = self.modules.get(module)
        if versions is None:
            return self._missing(f"module {module}: reading {escaped}: 404 Not Found")
        if rest == "list":
            # Unordered, as the protocol allows: newest-last-but-one, never string order.
            listed = [v for v, record in versions.items() if record.listed]
            listed = listed[1::2] + listed[::2]
            return Reply(200, "".join(f"{v}\n" for v in listed).encode(), TEXT)
        stem, dot, ext = rest.rpartition(".")
        version = unescape(stem) if dot else None
        record = versions.get(version) if version else None
        if record is None:
            return self._missing(f"{module}@{stem}: invalid version: unknown revision {stem}")
        if ext == "info":
            return Reply.json({"Version": version, "Time": record.time})
        if ext == "mod":
            return Reply(200, record.mod if record.mod is not None else f"module {module}\n".encode(), TEXT)
        if ext == "zip":
            return Reply(200, record.zip, {"Content-Type": "application/zip"})
        return Reply(404, b"404 page not found\n", TEXT)

    def _sumdb_direct(self, handler) -> Reply:
        return self._sumdb(handler, "/sumdb/")

    def _sumdb(self, handler, prefix: str) -> Reply:
        path = handler.path.split("?", 1)[0][len(prefix):]
        if path.startswith("tile/8/"):
            return self._tile(path[len("tile/8/"):])
        if not path.startswith("lookup/"):
            return Reply(404, b"404 page not found\n", TEXT)
        target = path[len("lookup/"):]
        escaped, _, escaped_version = target.rpartition("@")
        return self.lookup(unescape(escaped) or "", unescape(escaped_version) or "")

    def lookup(self, module: str, version: str) -> Reply:
        """The database's answer for module@version: record number, go.sum lines, signed tree note."""
        record = self.modules.get(module, {}).get(version)
        if record is None:
            return Reply(404, f"not found: {module}@{version}\n".encode(), TEXT)
        if (module, version) not in self.ids:  # a record a test placed by hand
            self.ids[(module, version)] = len(self.log)
            self.log.append(self._lines(module, version, record.h1, record.mod).encode())
        index = self.ids[(module, version)]
        lines = self.log[index].decode()
        if self.forge_record:
            lines = self._lines(module, version, h1_of_zip_bytes(record.zip), record.mod)
        size = len(self.log)
        root = self._mth([self._leaf(r) for r in self.log])
        tree = f"go.sum database tree\n{size}\n{base64.b64encode(root).decode()}\n"
        note = self.key.sign_note(tree)
        if self.tamper_note:
            note = note.replace(f"\n{size}\n", f"\n{size + 1}\n", 1)
        body = f"{index}\n{lines}\n{note}"
        return Reply(200, body.encode(), {"Content-Type": "text/plain; charset=utf-8"})


def info_json(version: str) -> bytes:
    return json.dumps({"Version": version, "Time": "2024-01-02T03:04:05Z"}).encode()
