"""npm: packument -> version or dist-tag -> tarball URL + integrity (SPEC §3).

An unscoped package is first asked for its one version document (``/<name>/<version-or-tag>``,
a few KB); only when the registry has none does codenav read the packument, in its
abbreviated form (``application/vnd.npm.install-v1+json``), which carries ``dist-tags`` and
every version's ``dist`` — and the choices for VERSION_NOT_FOUND. Large packuments (typescript's
is over 10 MB) are then never parsed on the happy path. Integrity is the strongest SRI
hash in ``dist.integrity`` (sha512); ``dist.shasum`` (sha1) is used only when there is none.
"""

from __future__ import annotations

import base64
import json
import posixpath
from urllib.parse import quote, urlsplit

from .. import net
from ..errors import CodenavError
from ..targets import Artifact
from . import endpoints
from .versions import nearest_first, semver_is_prerelease, semver_key

ACCEPT = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8"
_SRI_ORDER = ("sha512", "sha384", "sha256")


def packument_url(registry: str, name: str) -> str:
    # Scoped names keep their '@' and encode the slash, as the npm CLI does.
    return registry + quote(name, safe="@")


def resolve(name: str, wanted: str | None) -> Artifact:
    registry = endpoints.npm_registry()
    what = "the npm registry"
    if not name.startswith("@"):
        # Scoped packages have no version document on every registry: they go straight on.
        found = _version_document(registry, name, wanted or "latest", what)
        if found is not None:
            return found
    url = packument_url(registry, name)
    headers = {"Accept": ACCEPT, **endpoints.npm_auth_headers(url)}
    resp = net.request(
        "GET", url, what=what, headers=headers, redirects="https",
        timeout=net.timeout_from_env("CODENAV_REGISTRY_TIMEOUT"), max_bytes=64 * 1024 * 1024,
    )
    if resp.status != 200:
        raise net.status_error(what, resp, not_found=CodenavError(
            "NOT_FOUND", f"npm package {name!r} was not found in the registry",
            details={"action": "check the package name (scoped names look like @scope/name)"},
        ))
    try:
        doc = json.loads(resp.body)
    except ValueError:
        raise CodenavError("PROTOCOL_ERROR", f"{what} sent a packument for {name!r} that is not JSON") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("versions"), dict):
        raise CodenavError("PROTOCOL_ERROR", f"{what} sent a packument for {name!r} without versions")
    versions: dict = doc["versions"]
    tags = doc.get("dist-tags") if isinstance(doc.get("dist-tags"), dict) else {}
    latest = tags.get("latest")
    version = wanted or "latest"
    if version not in versions and version in tags:
        version = tags[version]  # a dist-tag names a version
    if version not in versions:
        available = nearest_first(
            [v for v in versions if not semver_is_prerelease(v)] or list(versions), wanted, semver_key
        )
        raise CodenavError(
            "VERSION_NOT_FOUND",
            f"npm package {name!r} has no version or dist-tag {version!r}"
            + (f"; latest is {latest}" if latest else ""),
            details={"availableVersions": available, "latest": latest,
                     "action": "pick one of availableVersions, or omit the version for latest"},
        )
    return _artifact(name, version, versions[version], what)


def _version_document(registry: str, name: str, wanted: str, what: str) -> Artifact | None:
    """The artifact from ``/<name>/<version-or-tag>``, or None when the registry has no such
    document (then the packument decides between NOT_FOUND and VERSION_NOT_FOUND)."""
    url = packument_url(registry, name) + "/" + quote(wanted, safe="")
    resp = net.request(
        "GET", url, what=what, headers={"Accept": "application/json", **endpoints.npm_auth_headers(url)},
        redirects="https", timeout=net.timeout_from_env("CODENAV_REGISTRY_TIMEOUT"), max_bytes=4 * 1024 * 1024,
    )
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
    dist = manifest.get("dist") if isinstance(manifest, dict) else None
    if not isinstance(dist, dict) or not isinstance(dist.get("tarball"), str):
        raise CodenavError("PROTOCOL_ERROR", f"{what} lists {name}@{version} without a tarball")
    algorithm, digest = _integrity(dist, name, version)
    tarball = dist["tarball"]
    return Artifact(
        registry="npm", name=name, version=version,
        filename=posixpath.basename(urlsplit(tarball).path) or f"{name}-{version}.tgz",
        url=tarball, algorithm=algorithm, digest=digest, fmt="tar", strip_components=1,
        headers=endpoints.npm_auth_headers(tarball),
    )


def _integrity(dist: dict, name: str, version: str) -> tuple[str, str]:
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
