"""A fake Hex (HTTP API and repository) on one FakeServer, speaking the real wire format.

The API under ``/api/``: ``packages/<name>`` (releases newest first, ``retirements`` keyed by
version, ``latest_version``/``latest_stable_version`` as the real API computes them — which
ignore retirement) and ``packages/<name>/releases/<version>`` (``checksum``: sha256 of the
outer tarball, lower-case hex; ``retirement``); JSON, 404 ``{"status":404,"message":"Page not
found"}``, ``X-RateLimit-*`` headers, and 400 for a request without a User-Agent, as Hex does.
The repository under ``/repo/``: ``tarballs/<name>-<version>.tar``, a plain tar of
``VERSION`` ("3"), ``CHECKSUM`` (the inner checksum, upper-case hex), ``metadata.config``
(Erlang terms) and ``contents.tar.gz`` (the files, no top folder); with ``signed`` on, also
``packages/<name>`` (gzip of a protobuf ``Signed{payload, signature}`` whose payload is
``Package{releases, name, repository}``, signed RSA PKCS#1 v1.5 / SHA-512 by ``openssl`` with a
key made for the test session) and ``public_key`` (its PEM).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass, field

from .archives import make_tgz
from .http import FakeServer, Reply, Routed


def make_tarball(name: str, version: str, files: dict[str, bytes], *, contents: bytes | None = None) -> bytes:
    """A Hex package tarball (format 3) as hex_core builds it."""
    inner = contents if contents is not None else make_tgz(files, top="")
    metadata = (f'{{<<"name">>,<<"{name}">>}}.\n{{<<"version">>,<<"{version}">>}}.\n'
                f'{{<<"app">>,<<"{name}">>}}.\n{{<<"build_tools">>,[<<"mix">>]}}.\n').encode()
    checksum = hashlib.sha256(b"3" + metadata + inner).hexdigest().upper().encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for member, body in (("VERSION", b"3"), ("CHECKSUM", checksum), ("metadata.config", metadata),
                             ("contents.tar.gz", inner)):
            info = tarfile.TarInfo(member)
            info.size = len(body)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(body))
    return buf.getvalue()


_KEY: dict[str, str] = {}


def signing_key() -> tuple[str, str]:
    """(private key file, public key PEM) of an RSA-2048 key made once per process by openssl."""
    if not _KEY:
        folder = tempfile.mkdtemp(prefix="fake-hex-key-")
        private = os.path.join(folder, "private.pem")
        subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                        "-out", private], check=True, capture_output=True)
        public = subprocess.run(["openssl", "pkey", "-in", private, "-pubout"], check=True,
                                capture_output=True).stdout.decode()
        _KEY.update(private=private, public=public)
    return _KEY["private"], _KEY["public"]


def sign(payload: bytes) -> bytes:
    """RSASSA-PKCS1-v1_5 over SHA-512, made by openssl (what hex_core's registry signing is)."""
    private, _ = signing_key()
    return subprocess.run(["openssl", "dgst", "-sha512", "-sign", private], input=payload, check=True,
                          capture_output=True).stdout


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, value: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def _rough_order(version: str) -> tuple:
    """Enough of SemVer for the fake's listing order (codenav must not rely on it anyway)."""
    core, _, pre = version.split("+")[0].partition("-")
    return tuple(int(n) for n in core.split(".")), not pre, pre


@dataclass
class HexRelease:
    version: str
    data: bytes
    checksum: str | None
    retirement: dict | None = None


@dataclass
class FakeHex(Routed):
    """Routes ``/api/packages/…`` and ``/repo/tarballs/…`` on a FakeServer."""

    server: FakeServer
    packages: dict[str, list[HexRelease]] = field(default_factory=dict)
    tarball_hits: int = 0
    signed: bool = False  # serve the signed registry /repo/packages/<name> and /repo/public_key
    signer: object = None  # payload -> signature; None: sign() with the session key

    ROUTES = (("GET", "/api/packages/*", "_api"), ("GET", "/repo/tarballs/*", "_tarball"),
              ("GET", "/repo/packages/*", "_registry"), ("GET", "/repo/public_key", "_public_key"))
    BASE = "/repo/"

    @property
    def api_url(self) -> str:
        return self.server.url + "/api/"

    @property
    def repo_url(self) -> str:
        return self.url

    def publish(self, name: str, version: str, files: dict[str, bytes] | None = None, *,
                retired: str | None = None, tarball: bytes | None = None, checksum: str | None = "real") -> bytes:
        data = tarball if tarball is not None else make_tarball(name, version, files or {})
        retirement = {"reason": retired, "message": f"{version} is {retired}"} if retired else None
        self.packages.setdefault(name, []).append(HexRelease(
            version, data, hashlib.sha256(data).hexdigest() if checksum == "real" else checksum, retirement))
        return data

    def release(self, name: str, version: str) -> HexRelease:
        return next(r for r in self.packages[name] if r.version == version)

    def package_doc(self, name: str) -> dict:
        releases = sorted(self.packages[name], key=lambda r: _rough_order(r.version), reverse=True)
        stable = [r.version for r in releases if "-" not in r.version.split("+")[0]]
        return {
            "name": name, "repository": "hexpm", "url": f"{self.api_url}packages/{name}",
            "html_url": f"{self.server.url}/packages/{name}",
            "releases": [{"version": r.version, "url": f"{self.api_url}packages/{name}/releases/{r.version}",
                          "has_docs": True, "inserted_at": "2024-06-18T12:00:00.000000Z"} for r in releases],
            "retirements": {r.version: r.retirement for r in releases if r.retirement},
            # The real fields ignore retirement: codenav must not trust them for "latest".
            "latest_version": releases[0].version if releases else None,
            "latest_stable_version": stable[0] if stable else None,
            "meta": {"links": {"GitHub": "https://github.com/example/" + name}, "licenses": ["MIT"]},
        }

    def _api(self, handler) -> Reply:
        limits = {"X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "99", "X-RateLimit-Reset": "1700000000"}
        if not handler.headers.get("User-Agent"):
            return Reply.json({"status": 400, "message": "a User-Agent header is required"}, status=400)
        parts = handler.path.split("?", 1)[0][len("/api/packages/"):].split("/")
        not_found = Reply.json({"status": 404, "message": "Page not found"}, status=404, headers=limits)
        if parts[0] not in self.packages:
            return not_found
        if len(parts) == 1:
            return Reply.json(self.package_doc(parts[0]), headers=limits)
        if len(parts) == 3 and parts[1] == "releases":
            for r in self.packages[parts[0]]:
                if r.version == parts[2]:
                    doc = {"version": r.version, "has_docs": True, "retirement": r.retirement,
                           "meta": {"app": parts[0], "build_tools": ["mix"], "elixir": "~> 1.14"},
                           "requirements": {}, "publisher": {"username": "someone"}}
                    if r.checksum is not None:
                        doc["checksum"] = r.checksum
                    return Reply.json(doc, headers=limits)
        return not_found

    def _tarball(self, handler) -> Reply:
        filename = handler.path.split("?", 1)[0][len("/repo/tarballs/"):]
        for name, releases in self.packages.items():
            for r in releases:
                if filename == f"{name}-{r.version}.tar":
                    self.tarball_hits += 1
                    return Reply(200, r.data, {"Content-Type": "application/octet-stream"})
        return Reply(404, b"Not Found", {"Content-Type": "text/plain"})

    def registry_payload(self, name: str, repository: str = "hexpm") -> bytes:
        """The ``Package`` message: releases in version order, as the registry lists them."""
        out = b""
        for r in sorted(self.packages[name], key=lambda r: _rough_order(r.version)):
            release = _field(1, r.version.encode()) + _field(2, hashlib.sha256(r.data).digest())
            if r.retirement:
                release += _field(4, b"\x08\x02" + _field(2, r.retirement["message"].encode()))  # reason, message
            if r.checksum is not None:
                release += _field(5, bytes.fromhex(r.checksum))
            out += _field(1, release)
        return out + _field(2, name.encode()) + _field(3, repository.encode())

    def _registry(self, handler) -> Reply:
        name = handler.path.split("?", 1)[0][len("/repo/packages/"):]
        if not self.signed or name not in self.packages:
            return Reply(404, b"Not Found", {"Content-Type": "text/plain"})
        payload = self.registry_payload(name)
        signature = (self.signer or sign)(payload)
        return Reply(200, gzip.compress(_field(1, payload) + _field(2, signature)),
                     {"Content-Type": "application/octet-stream"})

    def _public_key(self, handler) -> Reply:
        if not self.signed:
            return Reply(404, b"Not Found", {"Content-Type": "text/plain"})
        return Reply(200, signing_key()[1].encode(), {"Content-Type": "text/plain"})
