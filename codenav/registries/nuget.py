"""NuGet (v3): package ids, where the feed is, and registration -> .nupkg (SPEC §3, reference §5).

Everything codenav knows about NuGet feeds is here (the registry contract of
registries/base.py):

- names: NuGet ids (letters, digits, ``_``, runs separated by ``.``, ``-`` or ``_``, at most
  100 characters), case-insensitive: keyed lower-cased, echoed as the feed spells the id
  (``catalogEntry.id``);
- versions: NuGet SemVer 2 (``1.2.3[.4][-pre.release][+build]``); every version is exact (a
  feed never changes a published package). Ordering: numbers, then a release above its
  prereleases, prerelease labels part by part (numeric below alphanumeric, alphanumeric
  case-insensitive), build metadata ignored. No version means the highest listed release,
  else the highest listed prerelease; an unlisted version is used only when pinned;
- the endpoint: CODENAV_NUGET_SOURCE (a service index URL, or a base URL under which
  ``index.json`` is), then the first enabled v3 source of the NuGet.Config files (the
  directory's and its parents', then the user's), then the public feed, written once below;
- resolve: the service index names the flat container (``PackageBaseAddress/3.0.0``) and the
  registration (``RegistrationsBaseUrl/3.6.0``, gzip-encoded, SemVer 2 included); the
  registration's leaves (inlined or in pages) give listing and the catalog leaf, whose base64
  ``packageHash`` (SHA-512) is the digest checked; the .nupkg comes from the flat container;
- unpack: an OPC zip with no top folder, listed as it is (``[Content_Types].xml``, ``_rels/``,
  ``package/``), entry names %-decoded and then held to every archive rule.
"""

from __future__ import annotations

import os

from ..errors import CodenavError, invalid, protocol_error
from .base import Client, clean, directories_up, ladder, latest, version_not_found

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from ..net import Response
    from .artifact import Artifact

PREFIX = "nuget"
WHAT = "the NuGet feed"
ENDPOINT_VARIABLE = "CODENAV_NUGET_SOURCE"
DEFAULT_SOURCE = "https://api.nuget.org/v3/index.json"
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_DOC_CAP = 32 * 1024 * 1024
_HTTP = Client(WHAT, headers={"Accept": "application/json", "Accept-Encoding": "gzip"})
_REGISTRATION_TYPES = ("RegistrationsBaseUrl/3.6.0", "RegistrationsBaseUrl/Versioned", "RegistrationsBaseUrl/3.4.0",
                       "RegistrationsBaseUrl/3.0.0-rc", "RegistrationsBaseUrl")


# --- names and versions ------------------------------------------------------------------------

def normalize_name(name: str) -> str:
    """The id lower-cased (.NET ToLowerInvariant, as the feeds key it), or INVALID_ARGUMENT."""
    words = name.replace("-", ".").replace("_", ".").split(".") if name else [""]
    if len(name) > 100 or not all(w and set(w) <= _WORD for w in words) or name[0] in "._-" or name[-1] in "._-":
        raise invalid(f"{name!r} is not a valid NuGet package id", "package_name")
    return name.lower()


def _split(version: str) -> tuple[list[int], list[str]] | None:
    core, _, _build = version.partition("+")
    numbers, dash, pre = core.partition("-")
    parts = numbers.split(".")
    if not 1 <= len(parts) <= 4 or not all(p.isascii() and p.isdigit() for p in parts):
        return None
    labels = pre.split(".") if dash else []
    if dash and not all(label and all(c.isascii() and (c.isalnum() or c == "-") for c in label) for label in labels):
        return None
    return [int(p) for p in parts] + [0] * (4 - len(parts)), labels


def is_exact(version: str) -> bool:
    """Every well-formed NuGet version names one immutable package."""
    return _split(version) is not None


def normalized(version: str) -> str:
    """NuGet's normalized form: no leading zeros, no zero fourth part, no build, lower case."""
    split = _split(version)
    if split is None:
        return version.lower()
    numbers, labels = split
    text = ".".join(str(n) for n in (numbers if numbers[3] else numbers[:3]))
    return (text + ("-" + ".".join(labels) if labels else "")).lower()


def is_prerelease(version: str) -> bool:
    split = _split(version)
    return bool(split and split[1])


def version_key(version: str) -> tuple:
    """The order of availableVersions: NuGet's SemVer 2 precedence."""
    split = _split(version)
    if split is None:
        return (0, (), 0, ())
    numbers, labels = split
    pre = tuple((0, int(p), "") if p.isdigit() else (1, 0, p.lower()) for p in labels)
    return (1, tuple(numbers), 0 if labels else 1, pre)


# --- the endpoint ------------------------------------------------------------------------------

def endpoint() -> str:
    return ladder((ENDPOINT_VARIABLE,), _config_source, DEFAULT_SOURCE, tidy=_service_index)


def _service_index(configured: str) -> str:
    """A service index URL (ending in ``.json``) as it is; a base URL gets ``index.json``."""
    configured = configured.strip().strip('"').strip("'")
    if configured.lower().endswith(".json"):
        return configured
    return clean(configured) + "index.json"


def _config_files() -> list[str]:
    """Farthest first: the user's NuGet.Config, then each directory from the root down to here."""
    user = os.path.join(os.path.expanduser("~"), ".nuget", "NuGet", "NuGet.Config")
    files = [user]
    for directory in reversed(directories_up(os.getcwd())):
        for spelling in ("nuget.config", "NuGet.config", "NuGet.Config"):
            path = os.path.join(directory, spelling)
            if os.path.isfile(path) and path not in files:
                files.append(path)
                break
    return files


def _config_source() -> str | None:
    """The first enabled v3 package source of the NuGet.Config files (the closest file's first)."""
    sources: list[tuple[str, str, str | None]] = []  # (key, url, protocolVersion), closest file first
    disabled: set[str] = set()
    from . import xmlsafe

    for path in _config_files():
        root = xmlsafe.config_file(path, "NuGet.Config")
        if root is None:
            continue
        here: list[tuple[str, str, str | None]] = []
        section = root.find("packageSources")
        if section is not None:
            for element in section:
                if element.tag == "clear":
                    sources, here = [], []
                elif element.tag == "add" and element.get("key") and element.get("value"):
                    here = [s for s in here if s[0].lower() != element.get("key", "").lower()]
                    here.append((element.get("key", ""), element.get("value", ""), element.get("protocolVersion")))
        for element in root.iterfind("disabledPackageSources/add"):
            if (element.get("value") or "").strip().lower() == "true":
                disabled.add((element.get("key") or "").lower())
        keys = {s[0].lower() for s in here}
        sources = here + [s for s in sources if s[0].lower() not in keys]
    for key, url, protocol in sources:
        v3 = protocol == "3" or url.lower().rstrip("/").endswith("index.json")
        if key.lower() not in disabled and v3 and url.startswith(("http://", "https://")):
            return url
    return None


# --- resolve: service index -> registration -> catalog leaf -> artifact (indexer side) ---------

def _get_json(url: str, what: str, *, not_found: CodenavError | None = None) -> object:
    return _HTTP.json(url, _DOC_CAP, what, not_found=not_found, body=_gunzipped)


def _gunzipped(resp: Response) -> bytes:
    """Registrations are served with Content-Encoding: gzip, which codenav's HTTP layer does
    not undo; the magic bytes decide (JSON never starts with them)."""
    import zlib

    data = resp.body
    if data[:2] != b"\x1f\x8b":
        return data
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, _DOC_CAP + 1)
    except zlib.error:
        raise ValueError("the gzip stream is corrupt") from None
    if len(out) > _DOC_CAP or inflater.unconsumed_tail:
        raise ValueError("the decompressed document is too large")
    if not inflater.eof:
        raise ValueError("the gzip stream is truncated")
    return out


def _services(index_url: str) -> tuple[str, str]:
    """(flat container base, registration base) from the service index."""
    doc = _get_json(index_url, "a service index")
    resources = doc.get("resources") if isinstance(doc, dict) else None
    if not isinstance(resources, list):
        raise protocol_error(f"{WHAT} sent a service index without resources")
    by_type: dict[str, str] = {}
    for resource in resources:
        if isinstance(resource, dict) and isinstance(resource.get("@id"), str):
            kinds = resource.get("@type")
            for kind in kinds if isinstance(kinds, list) else [kinds]:
                if isinstance(kind, str):
                    by_type.setdefault(kind, resource["@id"])
    flat = by_type.get("PackageBaseAddress/3.0.0")
    registration = next((by_type[k] for k in _REGISTRATION_TYPES if k in by_type), None)
    if not flat or not registration:
        raise protocol_error(f"{WHAT}'s service index names no PackageBaseAddress or RegistrationsBaseUrl resource")
    return clean(flat), clean(registration)


def _leaves(registration: str, lower_id: str, name: str) -> list[dict]:
    """Every catalog entry of the registration index, its pages fetched when not inlined."""
    not_found = CodenavError("NOT_FOUND", f"NuGet package {name!r} was not found on the feed",
                             details={"action": "check the package id"})
    doc = _get_json(f"{registration}{lower_id}/index.json", "a registration index", not_found=not_found)
    pages = doc.get("items") if isinstance(doc, dict) else None
    if not isinstance(pages, list):
        raise protocol_error(f"{WHAT} sent a registration index for {name!r} without items")
    entries: list[dict] = []
    for page in pages:
        if not isinstance(page, dict):
            continue
        items = page.get("items")
        if items is None and isinstance(page.get("@id"), str):
            fetched = _get_json(page["@id"], "a registration page")
            items = fetched.get("items") if isinstance(fetched, dict) else None
        if not isinstance(items, list):
            raise protocol_error(f"{WHAT} sent a registration page for {name!r} without items")
        for leaf in items:
            entry = leaf.get("catalogEntry") if isinstance(leaf, dict) else None
            if isinstance(entry, dict) and isinstance(entry.get("version"), str):
                entries.append(entry)
    return entries


def _choose(name: str, entries: list[dict], wanted: str | None) -> dict:
    listed = [e["version"] for e in entries if e.get("listed", True) is not False]
    newest = latest(listed, version_key, prerelease=is_prerelease)
    if wanted is None:
        if newest is None:
            raise CodenavError("NOT_FOUND", f"NuGet package {name!r} has no listed version")
        return next(e for e in entries if e["version"] == newest and e.get("listed", True) is not False)
    for entry in entries:  # pinned: unlisted versions too, as restore allows
        if normalized(entry["version"]) == normalized(wanted):
            return entry
    raise version_not_found(f"NuGet package {name!r} has no version {wanted!r}", wanted, listed, newest, version_key)


def _package_hash(entry: dict, label: str) -> str:
    """The catalog leaf's base64 SHA-512 ``packageHash``, as hex."""
    import base64
    import binascii

    if not isinstance(entry.get("@id"), str):
        raise protocol_error(f"{WHAT} links no catalog leaf for {label}")
    leaf = _get_json(entry["@id"], "a catalog leaf")
    if not isinstance(leaf, dict):
        raise protocol_error(f"{WHAT} sent a catalog leaf for {label} that is not an object")
    algorithm = str(leaf.get("packageHashAlgorithm") or "").upper()
    encoded = leaf.get("packageHash")
    if algorithm != "SHA512" or not isinstance(encoded, str):
        raise CodenavError("INTEGRITY_ERROR",
                           f"the catalog gives no SHA-512 packageHash for {label}; refusing to use it")
    try:
        digest = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        digest = b""
    if len(digest) != 64:
        raise protocol_error(f"the catalog's packageHash for {label} is not a base64 SHA-512")
    return digest.hex()


def resolve(name: str, wanted: str | None) -> Artifact:
    from urllib.parse import quote

    from .artifact import Artifact, Unpack, Verification

    lower_id = name.lower()
    flat, registration = _services(endpoint())
    entry = _choose(name, _leaves(registration, quote(lower_id, safe=""), name), wanted)
    package_id = entry.get("id") if isinstance(entry.get("id"), str) else name
    version = entry["version"]
    label = f"{package_id} {version}"
    digest = _package_hash(entry, label)
    lower_version = normalized(version)
    filename = f"{lower_id}.{lower_version}.nupkg"
    url = f"{flat}{quote(lower_id, safe='')}/{quote(lower_version, safe='')}/{quote(filename, safe='')}"
    source = "the catalog's packageHash (base64 SHA-512, trusted over TLS)"
    if entry.get("listed", True) is False:
        source += "; this version is unlisted, used because it was pinned"
    return Artifact(registry=PREFIX, name=package_id, version=version.split("+", 1)[0], filename=filename, url=url,
                    unpack=Unpack("zip", percent_names=True),
                    verification=Verification("digest", "sha512", digest, source))
