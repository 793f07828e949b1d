"""npm: names, exact versions, where the registry is, and packument -> tarball (SPEC §3).

Everything codenav knows about npm is here (the registry contract of registries/base.py):

- names: ``(@scope/)?name`` of letters, digits and ``._~-``, kept as given;
- exact versions: ``MAJOR.MINOR.PATCH[-PRE][+BUILD]`` (cached forever; a dist-tag is not);
- the endpoint: CODENAV_NPM_REGISTRY, then ``registry`` from npm's layers (config/npmrc.py:
  builtin, global, user, project .npmrc, ``npm_config_*``), then ``npm config get registry``
  asked once. No public registry host is written here.
  Auth tokens found in .npmrc are attached to requests but never echoed anywhere;
- resolve: a package (scoped or not) is first asked for its one version document
  (``/<name>/<version-or-tag>``, a few KB); only when the registry has none does codenav read
  the packument, in its abbreviated form (``application/vnd.npm.install-v1+json``), which
  carries ``dist-tags`` and every version's ``dist`` — and the choices for VERSION_NOT_FOUND.
  Large packuments (typescript's is over 10 MB) are then never parsed on the happy path.
  Integrity is the strongest SRI hash in ``dist.integrity`` (sha512); ``dist.shasum`` (sha1)
  is used only when there is none; ``dist.unpackedSize`` is kept (``Artifact.unpacked_size``)
  so the extracted-bytes limit is decided before the tarball is downloaded;
- unpack: the first path component of every entry is stripped, whatever it is called, as
  npm itself does.
"""

from __future__ import annotations

import os

from ..errors import CodenavError, invalid, protocol_error
from .base import Client, ask, cached, is_semver, ladder, nearest_first, version_not_found

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from .artifact import Artifact

PREFIX = "npm"
WHAT = "the npm registry"
PACKAGE_MANAGER = "npm"  # whose trust, proxy and strict-ssl settings apply (config/trust.py)
ENDPOINT_VARIABLE = "CODENAV_NPM_REGISTRY"

_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_NAME_CHARS = _ALNUM | frozenset("._~-")
_HTTP = Client(WHAT, manager=PACKAGE_MANAGER)
ACCEPT = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8"
_SRI_ORDER = ("sha512", "sha384", "sha256")


# --- names and versions ------------------------------------------------------------------------

def is_name(name: str) -> bool:
    """``(@scope/)?name`` of letters, digits and ``._~-``; the scope starts with a letter or digit."""
    if name.startswith("@"):
        scope, slash, name = name[1:].partition("/")
        if not slash or not scope or scope[0] not in _ALNUM or not set(scope) <= _NAME_CHARS:
            return False
    return bool(name) and set(name) <= _NAME_CHARS


def normalize_name(name: str) -> str:
    """The name as npm spells it (npm names are case-sensitive and not normalised)."""
    if not is_name(name) or "/" in name.lstrip("@").split("/", 1)[-1]:
        raise invalid(f"{name!r} is not a valid npm package name", "package_name")
    return name


is_exact = is_semver  # MAJOR.MINOR.PATCH[-PRE][+BUILD]: a version no publish can move (a dist-tag can)


def is_clean_semver(version: str) -> bool:
    """``MAJOR.MINOR.PATCH`` in digits without leading zeros, each below 2**53: an exact version
    that is its own clean form, decided without semver's grammar (narrower than the contract's
    ``base.is_plain_version``, which also admits ``v1.2.3`` or ``1.2.3-rc.1``; tests/test_cold_path.py
    checks it against semver)."""
    numbers = version.split(".")
    return len(numbers) == 3 and all(n.isascii() and n.isdigit() and len(n) <= 15 and (n == "0" or n[0] != "0")
                                     for n in numbers)


def classify_version(version: str) -> str:
    """``"exact"``, ``"range"`` or ``"tag"`` as npm reads the string; INVALID_ARGUMENT otherwise."""
    if is_exact(version):
        return "exact"  # decided without the range grammar (and its `re`): a warm call's common case
    from .semver import classify

    return classify(version)


def version_key(version: str) -> tuple:
    """The order of availableVersions: node-semver's (a plain ``1.2.3`` keyed here without
    compiling the semver grammar: a project's lockfile is mostly such versions)."""
    if is_clean_semver(version):
        major, minor, patch = version.split(".")
        return (1, (int(major), int(minor), int(patch), 1, ()))
    from .semver import sort_key

    return sort_key(version)


# --- the endpoint ------------------------------------------------------------------------------

def endpoint() -> str:
    return ladder((ENDPOINT_VARIABLE,), _configured,
                  lambda: cached("npm", _ask_npm, ENDPOINT_VARIABLE, "npm registry", "npm"))


def _configured() -> str | None:
    rc = _npmrc().get("registry")  # every layer, the npm_config_* variables on top
    return rc if isinstance(rc, str) else None


def _ask_npm() -> str | None:
    # From the caller's directory: npm reads the project's .npmrc there.
    return ask(["npm", "config", "get", "registry"], cwd=os.getcwd())


def _npmrc():
    """npm's merged configuration (config/npmrc.py), read afresh: a few small files."""
    from ..config import npmrc

    return npmrc.load()


def auth_headers(url: str) -> dict[str, str]:
    """Authorization for ``url`` from .npmrc ``//host/path/:_authToken=`` (longest match)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    target = f"//{parts.netloc}{parts.path}"
    best: tuple[int, dict[str, str]] | None = None
    for key, value in _npmrc().items().items():
        if not key.startswith("//") or not isinstance(value, str):
            continue
        prefix, _, setting = key.rpartition(":")
        if not target.startswith(prefix):
            continue
        header = None
        if setting == "_authToken":
            header = {"Authorization": f"Bearer {value}"}
        elif setting == "_auth":
            header = {"Authorization": f"Basic {value}"}
        if header and (best is None or len(prefix) > best[0]):
            best = (len(prefix), header)
    return best[1] if best else {}



# --- resolve: packument -> artifact (indexer side) ----------------------------------------------

def packument_url(registry: str, name: str) -> str:
    from urllib.parse import quote

    # Scoped names keep their '@' and encode the slash, as the npm CLI does.
    return registry + quote(name, safe="@")


def resolve(name: str, wanted: str | None) -> Artifact:
    registry = endpoint()
    what = WHAT
    if wanted and is_clean_semver(wanted):
        kind = "exact"  # what semver.classify and semver.clean say of it, without compiling their grammar
    else:
        from . import semver

        kind = semver.classify(wanted) if wanted else "tag"
        if kind == "exact":
            wanted = semver.clean(wanted) or wanted  # "v1.2.3", "=1.2.3": the version npm looks up
    if kind != "range":
        # Scoped names too (@types/node's abbreviated packument is 9 MB, parsed it is most of
        # the indexer's memory); a registry without version documents answers 404 and the
        # packument follows. A range needs the list of versions: the packument.
        found = _version_document(registry, name, wanted or "latest", what)
        if found is not None:
            return found
    from . import semver

    url = packument_url(registry, name)
    missing = CodenavError("NOT_FOUND", f"npm package {name!r} was not found in the registry",
                           details={"action": "check the package name (scoped names look like @scope/name)"})
    doc = _HTTP.json(url, 64 * 1024 * 1024, f"a packument for {name!r}",
                     headers={"Accept": ACCEPT, **auth_headers(url)}, not_found=missing)
    if not isinstance(doc, dict) or not isinstance(doc.get("versions"), dict):
        raise protocol_error(f"{what} sent a packument for {name!r} without versions")
    versions: dict = doc["versions"]
    tags = doc.get("dist-tags") if isinstance(doc.get("dist-tags"), dict) else {}
    latest = tags.get("latest")
    version = wanted or "latest"
    if kind == "range":
        # Exactly as npm picks (npm-pick-manifest): latest when it satisfies the range, else the
        # highest satisfying version that is not deprecated, deprecated ones as a last resort.
        picked = semver.pick(versions, tags, wanted)
        if picked is None:
            satisfying = [v for v in versions if semver.satisfies(v, wanted, loose=True, include_prerelease=True)]
            others = nearest_first([v for v in versions if v not in satisfying and not semver.is_prerelease(v)]
                                   or [v for v in versions if v not in satisfying], None, semver.sort_key)
            raise CodenavError(
                "VERSION_NOT_FOUND",
                f"npm package {name!r} has no version matching {wanted!r}" + (f"; latest is {latest}" if latest else ""),
                details={"availableVersions": (sorted(satisfying, key=semver.sort_key, reverse=True) + others)[:20],
                         "latest": latest,
                         "action": "pick one of availableVersions, widen the range, or omit the version for latest"},
            )
        return _artifact(name, picked, versions[picked], what)
    if version not in versions and version in tags:
        version = tags[version]  # a dist-tag names a version
    if version not in versions:
        raise version_not_found(f"npm package {name!r} has no version or dist-tag {version!r}", wanted,
                                [v for v in versions if not semver.is_prerelease(v)] or list(versions), latest,
                                semver.sort_key)
    return _artifact(name, version, versions[version], what)


def _version_document(registry: str, name: str, wanted: str, what: str) -> Artifact | None:
    """The artifact from ``/<name>/<version-or-tag>``, or None when the registry has no such
    document (then the packument decides between NOT_FOUND and VERSION_NOT_FOUND)."""
    import json
    from urllib.parse import quote

    from .. import net

    url = packument_url(registry, name) + "/" + quote(wanted, safe="")
    resp = _HTTP.get(url, 4 * 1024 * 1024, headers={"Accept": "application/json", **auth_headers(url)})
    if resp.status == 429 or resp.status >= 500:
        raise net.status_error(what, resp)
    if resp.status != 200:
        return None
    try:
        doc = json.loads(resp.body)
    except ValueError:
        return None
    if not isinstance(doc, dict) or doc.get("name") != name or not isinstance(doc.get("version"), str):
        return None
    return _artifact(name, doc["version"], doc, what)


def _artifact(name: str, version: str, manifest: object, what: str) -> Artifact:
    import posixpath
    from urllib.parse import urlsplit

    from ..config.trust import insecure_note
    from .artifact import Artifact, Unpack, Verification

    dist = manifest.get("dist") if isinstance(manifest, dict) else None
    if not isinstance(dist, dict) or not isinstance(dist.get("tarball"), str):
        raise protocol_error(f"{what} lists {name}@{version} without a tarball")
    algorithm, digest = _integrity(dist, name, version)
    tarball = dist["tarball"]
    return Artifact(
        registry=PREFIX, name=name, version=version,
        filename=posixpath.basename(urlsplit(tarball).path) or f"{name}-{version}.tgz",
        url=tarball, unpack=Unpack("tar", strip_components=1),
        verification=Verification("digest", algorithm, digest,
                                  "the registry's dist.integrity" if algorithm != "sha1" else "the registry's dist.shasum"),
        headers=auth_headers(tarball),
        deprecated=_deprecation(manifest),
        unpacked_size=_count(dist.get("unpackedSize")),
        insecure=insecure_note(tarball, PACKAGE_MANAGER),  # an opted-in strict-ssl=false
    )


def _count(value: object) -> int | None:
    """A byte count the registry states, or None when it states none usable."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _deprecation(manifest: dict) -> str | None:
    """npm's deprecation message of a version, or None; npm treats any truthy value as one."""
    message = manifest.get("deprecated")
    if isinstance(message, str):
        return message.strip() or None
    return "this version is deprecated" if message else None


def _integrity(dist: dict, name: str, version: str) -> tuple[str, str]:
    import base64

    integrity = dist.get("integrity")
    if isinstance(integrity, str) and integrity.strip():
        found: dict[str, str] = {}
        for item in integrity.split():
            algo, _, b64 = item.partition("-")
            b64 = b64.split("?", 1)[0]
            try:
                found.setdefault(algo, base64.b64decode(b64, validate=True).hex())
            except ValueError:
                continue
        for algo in _SRI_ORDER:
            if algo in found:
                return algo, found[algo]
    shasum = dist.get("shasum")
    if isinstance(shasum, str) and len(shasum) == 40:
        return "sha1", shasum.lower()
    raise CodenavError(
        "INTEGRITY_ERROR", f"the registry gives no usable integrity hash for {name}@{version}; refusing to use it"
    )
