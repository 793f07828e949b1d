"""pub.dev: names, pub's versions and constraints, where the hosted repository is, and the
version listing -> archive (SPEC §3.19).

Everything codenav knows about pub's hosted repositories is here (the contract of
registries/base.py; the wire format is dart-lang/pub's doc/repository-spec-v2.md):

- names: ``[a-zA-Z_][a-zA-Z0-9_]*``, at most 64 characters (pub.dev's own check; some old
  packages have capitals), passed through unchanged;
- versions: pub_semver's (registries/pubver.py). An exact version is
  ``MAJOR.MINOR.PATCH[-PRE][+BUILD]`` and matches a listed version by pub's equality (the
  spelling listed is echoed); a constraint is pub's (``^1.2.3``, ``'>=1.0.0 <2.0.0'``, ``any``)
  and is picked as pub's solver picks: the highest allowed release, else the highest allowed
  prerelease. None means the same over every version. A retracted version is never picked;
  a pin reads it, and ``target.yanked`` says it was retracted. The listing's ``latest`` is not
  used (pub does not use it either);
- the endpoint: CODENAV_PUB_URL, then PUB_HOSTED_URL (Dart's own variable), then the public
  repository, written once below; a URL with user-info, a query or a fragment, or another
  scheme than http(s), is CONFIG_ERROR (pub refuses them too);
- resolve: ``GET {hosted}api/packages/{name}`` (``Accept: application/vnd.pub.v2+json``, gzip
  accepted) gives ``versions[]`` with ``version``, ``archive_url``, ``archive_sha256``,
  ``retracted``, and the package's ``isDiscontinued``/``replacedBy`` (echoed as ``deprecated``);
- verification: sha256 of the archive against ``archive_sha256``. The field is optional in the
  repository spec; without it the archive is read unverified, saying why;
- unpack: the archive is a .tar.gz with no top folder; nothing is stripped.
"""

from __future__ import annotations

import os

from ..errors import CodenavError, invalid, protocol_error, redact_url
from .base import Client, is_semver, require_digest, version_not_found

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from .artifact import Artifact

PREFIX = "pub"
ALIASES: tuple[str, ...] = ("dart",)
WHAT = "the pub repository"
ENDPOINT_VARIABLE = "CODENAV_PUB_URL"
PUB_VARIABLE = "PUB_HOSTED_URL"
# The public repository: the default when neither codenav's variable nor Dart's names one.
DEFAULT_URL = "https://pub.dev/"
USER_AGENT = "codenav (pub repository client)"
ACCEPT = "application/vnd.pub.v2+json"
_HTTP = Client(WHAT, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip"})

_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _LETTERS | frozenset("0123456789")
MAX_NAME = 64
LISTING_CAP = 64 * 1024 * 1024  # a listing holds every version's pubspec: the largest are a few MiB


# --- names and versions ------------------------------------------------------------------------

def normalize_name(name: str) -> str:
    """The package name as given, or INVALID_ARGUMENT."""
    if not (0 < len(name) <= MAX_NAME and name[0] in _LETTERS and set(name) <= _NAME_CHARS):
        raise invalid(f"{name!r} is not a valid pub package name (letters, digits and '_', not starting with a "
                      f"digit, at most {MAX_NAME} characters)", "package_name")
    return name


is_exact = is_semver  # MAJOR.MINOR.PATCH[-PRE][+BUILD]: a published version never changes


def classify_version(version: str) -> str:
    """``"exact"`` (a version) or ``"range"`` (a pub constraint); INVALID_ARGUMENT otherwise."""
    if is_exact(version):
        return "exact"
    from .pubver import parse_constraint

    parse_constraint(version)
    return "range"


def version_key(version: str) -> tuple:
    """The order of availableVersions: pub_semver's (build metadata counts)."""
    from .pubver import sort_key

    return sort_key(version)


# --- the endpoint ------------------------------------------------------------------------------

def endpoint() -> str:
    """The hosted URL: codenav's variable, then Dart's, then the public repository."""
    for variable in (ENDPOINT_VARIABLE, PUB_VARIABLE):
        value = os.environ.get(variable, "").strip()
        if value:
            return _checked(value, variable)
    return DEFAULT_URL


def _checked(url: str, variable: str) -> str:
    """``url`` ending in one ``/``, when pub would accept it as a hosted URL."""
    scheme, sep, rest = url.partition("://")
    authority = rest.split("/", 1)[0]
    if (scheme.lower() not in ("http", "https") or not sep or not authority or "@" in authority
            or "?" in rest or "#" in rest):
        raise CodenavError("CONFIG_ERROR", f"{variable}={redact_url(url)!r} is not a hosted pub URL (http or https, "
                           "no user-info, query or fragment)", details={"variable": variable,
                                                                     "action": f"fix or unset {variable}"})
    return url.rstrip("/") + "/"


# --- resolve: the version listing -> artifact (indexer side) ------------------------------------

def _listing(hosted: str, name: str) -> tuple[list[dict], str | None]:
    """The listing's versions (``archive_url`` made absolute) and the package's discontinued notice."""
    from urllib.parse import quote

    from .. import net

    url = f"{hosted}api/packages/{quote(name, safe='')}"
    doc = _HTTP.json(url, LISTING_CAP, f"a version listing for {name!r}", headers={"Accept": ACCEPT}, obj=True,
                     body=lambda resp: net.decoded_body(resp, LISTING_CAP, f"the version listing of {name!r}", WHAT),
                     not_found=CodenavError("NOT_FOUND", f"pub package {name!r} was not found in {redact_url(hosted)}",
                                            details={"action": "check the package name"}))
    versions = doc.get("versions")
    if not isinstance(versions, list) or not all(
            isinstance(v, dict) and isinstance(v.get("version"), str) and isinstance(v.get("archive_url"), str)
            for v in versions):
        raise protocol_error(f"{WHAT} sent a version listing for {name!r} without versions and their archive_url")
    for entry in versions:
        entry["archive_url"] = _absolute(url, entry["archive_url"], name)
    return versions, _discontinued(doc)


def _absolute(listing_url: str, archive_url: str, name: str) -> str:
    from urllib.parse import urljoin

    url = urljoin(listing_url, archive_url)
    if not url.startswith(("https://", "http://")):
        raise protocol_error(f"{WHAT} gives {name!r} an archive_url that is not http(s)")
    return url


def _discontinued(doc: dict) -> str | None:
    if doc.get("isDiscontinued") is not True:
        return None
    replaced = doc.get("replacedBy")
    return "the package is discontinued" + (f"; replaced by {replaced}" if isinstance(replaced, str) else "")


def resolve(name: str, wanted: str | None) -> Artifact:
    from . import pubver
    from .artifact import Artifact, Unpack, Verification

    hosted = endpoint()
    versions, discontinued = _listing(hosted, name)
    live = [v["version"] for v in versions if v.get("retracted") is not True]
    newest = pubver.best(live, pubver.parse_constraint("any"))
    if wanted is not None and is_exact(wanted):
        key = pubver.sort_key(wanted)
        found = [v for v in versions if v["version"] == wanted] or [v for v in versions if pubver.sort_key(v["version"]) == key]
        if not found:
            raise version_not_found(f"pub package {name!r} has no version {wanted!r}", wanted, live, newest,
                                    version_key)
        chosen = found[0]
    else:
        picked = pubver.best(live, pubver.parse_constraint(wanted or "any"))
        if picked is None:
            what = f"no version matching {wanted!r}" if wanted else "no version that is not retracted"
            raise version_not_found(f"pub package {name!r} has {what}", wanted or "", live, newest, version_key,
                                    " (a retracted version is read only when pinned)")
        chosen = next(v for v in versions if v["version"] == picked and v.get("retracted") is not True)
    version = chosen["version"]
    sha256 = chosen.get("archive_sha256")
    check = (Verification("digest", "sha256", require_digest(sha256, f"{WHAT} gives a malformed archive_sha256 for "
                                                                     f"{name} {version}"), "the listing's archive_sha256")
             if sha256 is not None else
             Verification("none", source=f"the repository gives no archive_sha256 for {name} {version} (the field is "
                                         "optional in pub's repository spec)"))
    return Artifact(
        registry=PREFIX, name=name, version=version, filename=f"{name}-{version}.tar.gz", url=chosen["archive_url"],
        unpack=Unpack("tar"), verification=check, headers={"User-Agent": USER_AGENT},
        yanked="retracted by its publisher; pub uses it only when a lockfile or an override pins it"
        if chosen.get("retracted") is True else None,
        deprecated=discontinued,
    )
