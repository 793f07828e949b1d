"""Hex: names, exact versions, where the repository and API are, and release -> tarball (SPEC §3).

Everything codenav knows about Hex is here (the protocol of registries/__init__.py):

- names: a lower-case letter, then lower-case letters, digits and ``_`` (Hex's own rule);
- exact versions: SemVer 2.0 ``MAJOR.MINOR.PATCH[-PRE][+BUILD]`` (cached forever); none means
  latest: the highest release that is neither retired nor a prerelease, by SemVer — never
  whatever a ``latest_stable_version`` field says. A retired release is used only when pinned;
- the endpoints: the repository (tarballs) from CODENAV_HEX_REPO, HEX_MIRROR, ``mirror_url``
  in ``$HEX_HOME/hex.config``, then the public repository; the HTTP API (releases, checksums,
  retirements) from CODENAV_HEX_API, HEX_API_URL, ``api_url`` in hex.config, then the public
  API. Both defaults are written once below. ``endpoint()`` is the repository: what the
  artifact's bytes come from;
- resolve: ``{api}packages/{name}`` lists releases and retirements;
  ``{api}packages/{name}/releases/{version}`` gives the release's ``checksum``;
- verification: sha256 of the outer ``.tar`` against the API's ``checksum`` (the outer checksum);
- unpack: the outer file is a plain tar (``VERSION``, ``CHECKSUM``, ``metadata.config``,
  ``contents.tar.gz``); only ``contents.tar.gz`` is unpacked, and it has no top folder.

Only ``os`` is imported at load: a warm call validates the name and finds the endpoint here.
"""

from __future__ import annotations

import os

from ..errors import CodenavError, invalid
from . import discovery

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from ..net import Response
    from .artifact import Artifact

PREFIX = "hex"
ALIASES: tuple[str, ...] = ()
WHAT = "Hex"
ENDPOINT_VARIABLE = "CODENAV_HEX_REPO"
API_VARIABLE = "CODENAV_HEX_API"
# The public repository and API: the defaults when neither codenav nor Hex's configuration names one.
DEFAULT_REPO = "https://repo.hex.pm/"
DEFAULT_API = "https://hex.pm/api/"
# Hex refuses a request without a User-Agent (HTTP 400).
USER_AGENT = "codenav (Hex API client)"

_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_NAME_CHARS = _LOWER | frozenset("0123456789_")
_SEMVER_WORD = _LOWER | frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")
API_CAP = 16 * 1024 * 1024  # a package document lists every release; the largest are a few MiB


# --- names and versions ------------------------------------------------------------------------

def normalize_name(name: str) -> str:
    """The package name as Hex keys it: a letter, then letters, digits and ``_``, lower case."""
    lowered = name.lower()
    if not (lowered and lowered[0] in _LOWER and set(lowered) <= _NAME_CHARS and name.isascii()):
        raise invalid(f"{name!r} is not a valid Hex package name (a letter, then letters, digits and '_')",
                      "package_name")
    return lowered


def is_exact(version: str) -> bool:
    """``MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]``: a release no publish can move."""
    core, plus, build = version.partition("+")
    if plus and not (build and set(build) <= _SEMVER_WORD):
        return False
    core, dash, pre = core.partition("-")
    if dash and not (pre and set(pre) <= _SEMVER_WORD):
        return False
    numbers = core.split(".")
    return len(numbers) == 3 and all(n.isascii() and n.isdigit() for n in numbers)


def version_key(version: str) -> tuple:
    """The order of availableVersions: SemVer precedence (Elixir's Version)."""
    from .versions import semver_key

    return semver_key(version)


# --- the endpoints -----------------------------------------------------------------------------

def endpoint() -> str:
    """The repository the tarballs come from."""
    for var in (ENDPOINT_VARIABLE, "HEX_MIRROR"):
        if os.environ.get(var):
            return discovery.clean(os.environ[var])
    configured = _hex_config().get("mirror_url")
    return discovery.clean(configured) if configured else DEFAULT_REPO


def api_endpoint() -> str:
    """The HTTP API that lists releases, checksums and retirements."""
    for var in (API_VARIABLE, "HEX_API_URL"):
        if os.environ.get(var):
            return discovery.clean(os.environ[var])
    configured = _hex_config().get("api_url")
    return discovery.clean(configured) if configured else DEFAULT_API


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
    import json

    from .. import net

    resp: Response = net.request(
        "GET", url, what=WHAT, headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
        redirects="https", timeout=net.timeout_from_env("CODENAV_REGISTRY_TIMEOUT"), max_bytes=API_CAP,
    )
    if resp.status != 200:
        raise net.status_error(WHAT, resp, not_found=not_found)
    try:
        doc = json.loads(resp.body)
    except ValueError:
        doc = None
    if not isinstance(doc, dict):
        raise CodenavError("PROTOCOL_ERROR", f"{WHAT} sent {what} that is not a JSON object")
    return doc


def resolve(name: str, wanted: str | None) -> Artifact:
    import re
    from urllib.parse import quote

    from .artifact import Artifact, Unpack, Verification
    from .versions import nearest_first, semver_is_prerelease, semver_key

    api = api_endpoint()
    package = _get_json(f"{api}packages/{name}", f"the package document of {name!r}", CodenavError(
        "NOT_FOUND", f"Hex package {name!r} was not found", details={"action": "check the package name"}))
    releases = package.get("releases")
    retirements = package.get("retirements") or {}
    if not isinstance(releases, list) or not isinstance(retirements, dict) or not all(
            isinstance(r, dict) and isinstance(r.get("version"), str) for r in releases):
        raise CodenavError("PROTOCOL_ERROR", f"{WHAT} sent a package document for {name!r} without releases")
    versions = [r["version"] for r in releases]
    live = [v for v in versions if v not in retirements]
    stable = [v for v in live if not semver_is_prerelease(v)]
    latest = max(stable or live, key=semver_key, default=None)
    if wanted is None:
        if latest is None:
            raise CodenavError("NOT_FOUND", f"every release of Hex package {name!r} is retired",
                               details={"action": "name a version to read a retired release"})
        version = latest
    elif wanted in versions:
        version = wanted
    else:
        raise CodenavError(
            "VERSION_NOT_FOUND",
            f"Hex package {name!r} has no release {wanted!r}" + (f"; latest is {latest}" if latest else ""),
            details={"availableVersions": nearest_first(live, wanted, semver_key), "latest": latest,
                     "action": "pick one of availableVersions, or omit the version for latest"},
        )
    release = _get_json(f"{api}packages/{name}/releases/{quote(version, safe='')}",
                        f"the release document of {name} {version}", CodenavError(
                            "PROTOCOL_ERROR", f"{WHAT} lists {name} {version} but has no release document for it"))
    checksum = release.get("checksum")
    if not isinstance(checksum, str) or not re.fullmatch(r"[0-9a-fA-F]{64}", checksum):
        raise CodenavError("INTEGRITY_ERROR", f"{WHAT} gives no sha256 checksum for {name} {version}; refusing to use it")
    canonical = package.get("name") if isinstance(package.get("name"), str) else name
    return Artifact(
        registry=PREFIX, name=canonical, version=version, filename=f"{canonical}-{version}.tar",
        url=f"{endpoint()}tarballs/{canonical}-{quote(version, safe='+')}.tar",
        unpack=Unpack("tar", inner_member="contents.tar.gz"),
        verification=Verification("digest", "sha256", checksum.lower(), "the checksum of the Hex API's release"),
        headers={"User-Agent": USER_AGENT},
    )
