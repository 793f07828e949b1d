"""Hex: names, exact versions, where the repository and API are, and release -> tarball (SPEC §3).

Everything codenav knows about Hex is here (the contract of registries/base.py):

- names: a lower-case letter, then lower-case letters, digits and ``_`` (Hex's own rule);
- exact versions: SemVer 2.0 ``MAJOR.MINOR.PATCH[-PRE][+BUILD]`` (cached forever); none means
  latest: the highest release that is neither retired nor a prerelease, by SemVer — never
  whatever a ``latest_stable_version`` field says. A retired release is used only when pinned;
- the endpoints: the repository (tarballs) from CODENAV_HEX_REPO, HEX_MIRROR, ``mirror_url``
  in ``$HEX_HOME/hex.config``, then the public repository; the HTTP API (releases, checksums,
  retirements) from CODENAV_HEX_API, HEX_API_URL, ``api_url`` in hex.config, then the public
  API. Both defaults are written once below. ``endpoint()`` is the repository: what the
  artifact's bytes come from;
- resolve, through the API: ``{api}packages/{name}`` lists releases and retirements;
  ``{api}packages/{name}/releases/{version}`` gives the release's ``checksum``;
- resolve, through the signed registry, when CODENAV_HEX_PUBLIC_KEY is set or a repository is
  configured without an API (a mirror proxies the repository only): ``{repo}packages/{name}``
  is gzip of a protobuf ``Signed{payload, signature}``; the signature is RSASSA-PKCS1-v1_5 over
  SHA-512 of the payload (registries/signatures.py), checked with CODENAV_HEX_PUBLIC_KEY (PEM
  text or file) or the repository's ``public_key``; the payload ``Package{releases, name, repository}`` must name
  this package in ``hexpm``, and each ``Release`` gives its version, retirement and
  ``outer_checksum``;
- verification: sha256 of the outer ``.tar`` against the API's ``checksum`` or the signed
  registry's ``outer_checksum``;
- unpack: the outer file is a plain tar (``VERSION``, ``CHECKSUM``, ``metadata.config``,
  ``contents.tar.gz``); only ``contents.tar.gz`` is unpacked, and it has no top folder.
"""

from __future__ import annotations

import os

from ..errors import CodenavError, invalid, protocol_error
from .base import Client, is_semver, ladder, latest, require_digest, version_not_found

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from .artifact import Artifact

PREFIX = "hex"
WHAT = "Hex"
ENDPOINT_VARIABLE = "CODENAV_HEX_REPO"
API_VARIABLE = "CODENAV_HEX_API"
# The public repository and API: the defaults when neither codenav nor Hex's configuration names one.
DEFAULT_REPO = "https://repo.hex.pm/"
DEFAULT_API = "https://hex.pm/api/"
# Hex refuses a request without a User-Agent (HTTP 400).
USER_AGENT = "codenav (Hex API client)"
_HTTP = Client(WHAT, headers={"User-Agent": USER_AGENT})

_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_NAME_CHARS = _LOWER | frozenset("0123456789_")
API_CAP = 16 * 1024 * 1024  # a package document lists every release; the largest are a few MiB


# --- names and versions ------------------------------------------------------------------------

def normalize_name(name: str) -> str:
    """The package name as Hex keys it: a letter, then letters, digits and ``_``, lower case."""
    lowered = name.lower()
    if not (lowered and lowered[0] in _LOWER and set(lowered) <= _NAME_CHARS and name.isascii()):
        raise invalid(f"{name!r} is not a valid Hex package name (a letter, then letters, digits and '_')",
                      "package_name")
    return lowered


is_exact = is_semver  # MAJOR.MINOR.PATCH[-PRE][+BUILD]: a release no publish can move


def version_key(version: str) -> tuple:
    """The order of availableVersions: SemVer precedence (Elixir's Version)."""
    from .semver import sort_key

    return sort_key(version)


# --- the endpoints -----------------------------------------------------------------------------

def endpoint() -> str:
    """The repository the tarballs come from."""
    return ladder((ENDPOINT_VARIABLE, "HEX_MIRROR"), lambda: _hex_config().get("mirror_url"), DEFAULT_REPO)


def api_endpoint() -> str:
    """The HTTP API that lists releases, checksums and retirements."""
    return ladder((API_VARIABLE, "HEX_API_URL"), lambda: _hex_config().get("api_url"), DEFAULT_API)


def _hex_config() -> dict[str, str]:
    """``{key, <<"value">>}.`` terms of ``$HEX_HOME/hex.config`` (what ``mix hex.config`` writes)."""
    home = os.environ.get("HEX_HOME") or os.path.join(os.path.expanduser("~"), ".hex")
    try:
        with open(os.path.join(home, "hex.config"), encoding="utf-8") as handle:
            text = handle.read()
    except OSError:
        return {}
    values: dict[str, str] = {}
    for term in text.split("}."):
        key, comma, value = term.strip().lstrip("{").partition(",")
        value = value.strip()
        if comma and value.startswith('<<"') and value.endswith('">>'):
            values[key.strip()] = value[3:-3]
        elif comma and value.startswith('"') and value.endswith('"'):
            values[key.strip()] = value[1:-1]
    return values


# --- resolve: the API -> artifact (indexer side) ------------------------------------------------

def _get_json(url: str, what: str, not_found: CodenavError) -> dict:
    return _HTTP.json(url, API_CAP, what, headers={"Accept": "application/json"}, not_found=not_found, obj=True)


class _Listing:
    """What either metadata path says: the releases, which are retired, and each checksum."""

    def __init__(self, name: str, versions: list[str], retired: set[str], checksum, source: str) -> None:
        self.name, self.versions, self.retired, self.checksum, self.source = name, versions, retired, checksum, source


def _api_listing(name: str) -> _Listing:
    from urllib.parse import quote

    api = api_endpoint()
    package = _get_json(f"{api}packages/{name}", f"the package document of {name!r}", CodenavError(
        "NOT_FOUND", f"Hex package {name!r} was not found", details={"action": "check the package name"}))
    releases = package.get("releases")
    retirements = package.get("retirements") or {}
    if not isinstance(releases, list) or not isinstance(retirements, dict) or not all(
            isinstance(r, dict) and isinstance(r.get("version"), str) for r in releases):
        raise protocol_error(f"{WHAT} sent a package document for {name!r} without releases")

    def checksum(version: str) -> object:
        release = _get_json(f"{api}packages/{name}/releases/{quote(version, safe='')}",
                            f"the release document of {name} {version}",
                            protocol_error(f"{WHAT} lists {name} {version} but has no release document"))
        return release.get("checksum")

    canonical = package.get("name") if isinstance(package.get("name"), str) else name
    return _Listing(canonical, [r["version"] for r in releases], set(retirements), checksum,
                    "the checksum of the Hex API's release")


def resolve(name: str, wanted: str | None) -> Artifact:
    from urllib.parse import quote

    from . import semver
    from .artifact import Artifact, Unpack, Verification

    listing = _registry_listing(name) if _use_repository() else _api_listing(name)
    newest = latest(listing.versions, semver.sort_key, prerelease=semver.is_prerelease,
                    withdrawn=listing.retired.__contains__)
    if wanted is None and newest is None:
        raise CodenavError("NOT_FOUND", f"every release of Hex package {name!r} is retired",
                           details={"action": "name a version to read a retired release"})
    version = wanted or newest
    if version not in listing.versions:  # a retired release too: pinned
        live = [v for v in listing.versions if v not in listing.retired]
        raise version_not_found(f"Hex package {name!r} has no release {wanted!r}", wanted, live, newest,
                                semver.sort_key)
    checksum = require_digest(listing.checksum(version), f"{WHAT} gives no sha256 checksum for {name} {version}")
    canonical = listing.name
    return Artifact(
        registry=PREFIX, name=canonical, version=version, filename=f"{canonical}-{version}.tar",
        url=f"{endpoint()}tarballs/{canonical}-{quote(version, safe='+')}.tar",
        unpack=Unpack("tar", inner_member="contents.tar.gz"),
        verification=Verification("digest", "sha256", checksum, listing.source),
        headers={"User-Agent": USER_AGENT},
    )


# --- the signed registry: {repo}packages/NAME (mirror-friendly) ---------------------------------

REGISTRY_CAP = 16 * 1024 * 1024
KEY_VARIABLE = "CODENAV_HEX_PUBLIC_KEY"


def _use_repository() -> bool:
    """The signed registry is read when a public key is configured, or when a repository is
    configured without an API (a mirror proxies the repository, not the API)."""
    if os.environ.get(KEY_VARIABLE):
        return True
    config = _hex_config()
    repo = any(os.environ.get(v) for v in (ENDPOINT_VARIABLE, "HEX_MIRROR")) or "mirror_url" in config
    api = any(os.environ.get(v) for v in (API_VARIABLE, "HEX_API_URL")) or "api_url" in config
    return repo and not api


def _fields(data: bytes) -> list[tuple[int, int | bytes]]:
    """``(field number, value)`` of one protobuf message: varints as ints, length-delimited as bytes."""
    out: list[tuple[int, int | bytes]] = []
    at = 0

    def varint() -> int:
        nonlocal at
        value = shift = 0
        while True:
            if at >= len(data) or shift > 63:
                raise ValueError("truncated varint")
            byte = data[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    while at < len(data):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            out.append((number, varint()))
        elif wire == 2:
            size = varint()
            if at + size > len(data):
                raise ValueError("truncated field")
            out.append((number, data[at:at + size]))
            at += size
        elif wire in (1, 5):
            at += 8 if wire == 1 else 4
        else:
            raise ValueError(f"wire type {wire}")
    return out


def _repository_key(repo: str) -> tuple[int, int]:
    from .signatures import rsa_public_key

    pem = os.environ.get(KEY_VARIABLE, "")
    if pem and "-----BEGIN" not in pem:
        try:
            with open(os.path.expanduser(pem), encoding="ascii") as handle:
                pem = handle.read()
        except (OSError, UnicodeDecodeError):
            raise CodenavError("CONFIG_ERROR", f"{KEY_VARIABLE} names no readable PEM file",
                               details={"action": f"set {KEY_VARIABLE} to the repository's public key"}) from None
    if not pem:
        pem = _HTTP.get_ok(f"{repo}public_key", 64 * 1024).body.decode("ascii", "replace")
    try:
        return rsa_public_key(pem)
    except (ValueError, IndexError):
        raise CodenavError("CONFIG_ERROR" if os.environ.get(KEY_VARIABLE) else "PROTOCOL_ERROR",
                           "the Hex repository's public key is not an RSA public key in PEM") from None


def _registry_listing(name: str) -> _Listing:
    import gzip
    import zlib

    from .signatures import rsa_sha512_verify

    repo = endpoint()
    resp = _HTTP.get_ok(f"{repo}packages/{name}", REGISTRY_CAP, not_found=CodenavError(
        "NOT_FOUND", f"Hex package {name!r} was not found", details={"action": "check the package name"}))
    try:
        inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        signed = dict(_fields(inflate.decompress(resp.body, REGISTRY_CAP)))
        payload, signature = signed[1], signed[2]
        if not isinstance(payload, bytes) or not isinstance(signature, bytes):
            raise ValueError("not a Signed message")
    except (ValueError, KeyError, zlib.error, gzip.BadGzipFile):
        raise protocol_error(f"{WHAT} sent a registry file for {name!r} that is not a gzipped, signed "
                             "protobuf") from None
    if not rsa_sha512_verify(payload, signature, _repository_key(repo)):
        raise CodenavError("INTEGRITY_ERROR", f"the registry file of {name!r} is not signed by the repository's key",
                           details={"action": f"check {KEY_VARIABLE} and the repository URL"})
    versions, retired, checksums = [], set(), {}
    try:
        fields = _fields(payload)
        package = {number: value for number, value in fields if number in (2, 3)}
        if package.get(2) != name.encode() or package.get(3, b"hexpm") != b"hexpm":
            raise ValueError("another package")
        for number, value in fields:
            if number != 1 or not isinstance(value, bytes):
                continue
            release = _fields(value)
            version = next(v for k, v in release if k == 1).decode("utf-8")
            versions.append(version)
            if any(k == 4 for k, _ in release):
                retired.add(version)
            outer = next((v for k, v in release if k == 5), None)
            checksums[version] = outer.hex() if isinstance(outer, bytes) and len(outer) == 32 else None
    except (ValueError, StopIteration, UnicodeDecodeError, AttributeError):
        raise protocol_error(f"{WHAT} sent a signed registry file that does not describe {name!r}") from None
    return _Listing(name, versions, retired, checksums.get, "the outer checksum in the signed registry")
