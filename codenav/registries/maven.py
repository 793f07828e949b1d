"""Maven: ``group:artifact`` names, where the repository is, and metadata -> sources jar (SPEC §3).

Everything codenav knows about Maven repositories is here (the registry contract of
registries/base.py; reference §3):

- names: ``groupId:artifactId`` of letters, digits and ``._-``; repository paths are
  case-sensitive, so a name is used and echoed exactly as given;
- versions: every named version is exact (a release repository never changes a deployed
  file). SNAPSHOTs are refused: release repositories do not hold them. No version means the
  highest version of ``maven-metadata.xml`` by Maven's own ComparableVersion ordering that has
  no prerelease qualifier (alpha, beta, milestone, rc/cr, snapshot) — never ``<release>``,
  which is only the last one deployed;
- the endpoint: CODENAV_MAVEN_REPOSITORY, then the mirror of ``central`` in Maven's
  settings.xml (the user's ``~/.m2/settings.xml``, then ``$MAVEN_HOME/conf/settings.xml``),
  then the public Maven Central repository, written once below;
- resolve: the ``-sources.jar`` (the source is what an agent reads). When a version has none
  (old artifacts), the binary jar, and the echoed verification says so. A ``pom``-packaging
  artifact (a BOM, a parent) has neither: NOT_FOUND saying why. The digest is the strongest
  side file published beside the file: ``.sha512``, else ``.sha256``, else ``.sha1``; it comes
  from the same origin as the file, which the echo says;
- unpack: a jar has no top folder; nothing is stripped.

XML (the metadata, settings.xml) is read through xmlsafe: a size cap, no DTD.
"""

from __future__ import annotations

import os

from ..errors import CodenavError, invalid, protocol_error
from .base import Client, ladder, latest, version_not_found

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from .artifact import Artifact

PREFIX = "maven"
WHAT = "the Maven repository"
ENDPOINT_VARIABLE = "CODENAV_MAVEN_REPOSITORY"
DEFAULT_REPOSITORY = "https://repo.maven.apache.org/maven2/"  # Maven's built-in "central"
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
# Strongest first (reference §3.6): the first side file present is the one checked.
_SIDE_FILES = (("sha512", 128), ("sha256", 64), ("sha1", 40))
_METADATA_CAP = 16 * 1024 * 1024
_SIDE_FILE_CAP = 64 * 1024
_HTTP = Client(WHAT)


# --- names and versions ------------------------------------------------------------------------

def normalize_name(name: str) -> str:
    """``groupId:artifactId`` as given (repository paths are case-sensitive), or INVALID_ARGUMENT."""
    group, colon, artifact = name.partition(":")
    segments = group.split(".")
    if (not colon or not artifact or not set(group) <= _ID_CHARS or not set(artifact) <= _ID_CHARS
            or any(s in ("", "-") for s in segments) or artifact in (".", "..")):
        raise invalid(f"{name!r} is not a Maven coordinate; use groupId:artifactId, e.g. org.slf4j:slf4j-api",
                      "package_name")
    return name


def is_exact(version: str) -> bool:
    """A deployed release never changes; a SNAPSHOT (refused at resolve) would."""
    return "snapshot" not in version.lower()


def version_key(version: str) -> MavenVersion:
    """The order of availableVersions: Maven's ComparableVersion (an orderable key, not a tuple)."""
    return MavenVersion(version)


def is_prerelease(version: str) -> bool:
    """True when a qualifier ranks below the release: alpha, beta, milestone, rc (cr), snapshot."""
    return _has_prerelease(_parse(version))


# --- Maven's ComparableVersion ---------------------------------------------------------------
#
# Maven orders versions by parsing them into nested lists of items (its own rules, as the
# maven-artifact jar of Maven 3.8 applies them; tests/test_registry_maven.py checks this code
# against that jar when it is installed):
# - lower-cased; '.' separates items, '-' starts a sub-list, and so does a change between
#   digits and letters ("1.0alpha1" is 1, 0, [alpha, [1]]); a string item after '.' also
#   starts a sub-list ("1.0.0.RC1" == "1.0.0-RC1");
# - numbers compare as numbers; known qualifiers in the order alpha < beta < milestone < rc <
#   snapshot < "" (the release; also "ga", "final", "release") < sp; "cr" is "rc", and a
#   single a, b or m followed by a digit is alpha, beta, milestone; an unknown qualifier
#   ranks after all of them, alphabetically;
# - a number ranks above a qualifier or a sub-list, a sub-list above a qualifier;
# - trailing "null" items (0, the release qualifier, an empty list) are dropped, so
#   "1.0" == "1" == "1-ga"; a missing item compares as null ("1-sp" > "1" > "1-rc"), and a
#   sub-list against a missing item is its first item that is not null ("1-0.1" > "1").

_QUALIFIERS = ("alpha", "beta", "milestone", "rc", "snapshot", "", "sp")
_QUALIFIER_ALIASES = {"ga": "", "final": "", "release": "", "cr": "rc"}
_RELEASE_RANK = str(_QUALIFIERS.index(""))
_PRERELEASE = frozenset(("alpha", "beta", "milestone", "rc", "snapshot"))


class _Qualifier(str):
    """A string item (a str subclass only so that it is told apart from the list items)."""

    __slots__ = ()


def _qualifier(text: str, followed_by_digit: bool) -> _Qualifier:
    if followed_by_digit and len(text) == 1:
        text = {"a": "alpha", "b": "beta", "m": "milestone"}.get(text, text)
    return _Qualifier(_QUALIFIER_ALIASES.get(text, text))


def _rank(qualifier: str) -> str:
    return str(_QUALIFIERS.index(qualifier)) if qualifier in _QUALIFIERS else f"{len(_QUALIFIERS)}-{qualifier}"


def _is_null(item: object) -> bool:
    if isinstance(item, int):
        return item == 0
    if isinstance(item, _Qualifier):
        return _rank(item) == _RELEASE_RANK
    return not item


def _parse(version: str) -> list:
    version = version.lower()
    top: list = []
    current = top
    lists = [top]
    is_digit = False
    start = 0

    def sublist() -> list:
        nonlocal current
        new: list = []
        current.append(new)
        lists.append(new)
        current = new
        return new

    def item(digits: bool, text: str) -> object:
        return int(text) if digits else _qualifier(text, False)

    for i, char in enumerate(version):
        if char in ".-":
            current.append(0 if i == start else item(is_digit, version[start:i]))
            start = i + 1
            if char == "-":
                sublist()
        elif "0" <= char <= "9":
            if not is_digit and i > start:
                if current:  # ".X1" is read as "-X1"
                    sublist()
                current.append(_qualifier(version[start:i], True))
                start = i
                sublist()
            is_digit = True
        else:
            if is_digit and i > start:
                current.append(int(version[start:i]))
                start = i
                sublist()
            is_digit = False
    if len(version) > start:
        if not is_digit and current:  # a trailing ".X" is read as "-X"
            sublist()
        current.append(item(is_digit, version[start:]))
    for items in reversed(lists):  # innermost first, as each list's emptiness counts outside it
        for i in range(len(items) - 1, -1, -1):
            if _is_null(items[i]):
                del items[i]
            elif not isinstance(items[i], list):
                break
    return top


def _compare(left: object, right: object) -> int:
    """Maven's Item.compareTo: negative, zero or positive; ``right`` None is a missing item."""
    if isinstance(left, int):
        if right is None:
            return 0 if left == 0 else 1
        if isinstance(right, int):
            return (left > right) - (left < right)
        return 1
    if isinstance(left, _Qualifier):
        if right is None:
            a, b = _rank(left), _RELEASE_RANK
        elif isinstance(right, _Qualifier):
            a, b = _rank(left), _rank(right)
        else:
            return -1
        return (a > b) - (a < b)
    assert isinstance(left, list)
    if right is None:
        # Every item against null, not only the first ("1-0.1" > "1"; Maven's MNG-6964).
        return next((r for r in (_compare(i, None) for i in left) if r), 0)
    if isinstance(right, int):
        return -1
    if isinstance(right, _Qualifier):
        return 1
    assert isinstance(right, list)
    for i in range(max(len(left), len(right))):
        a = left[i] if i < len(left) else None
        b = right[i] if i < len(right) else None
        result = -_compare(b, a) if a is None else _compare(a, b)
        if result:
            return result
    return 0


def _has_prerelease(items: list) -> bool:
    return any(_has_prerelease(i) if isinstance(i, list) else i in _PRERELEASE for i in items
               if not isinstance(i, int))


class MavenVersion:
    """A version ordered as Maven orders it; equal when Maven says equal ("1.0" == "1")."""

    __slots__ = ("items", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.items = _parse(text)

    def compare(self, other: MavenVersion) -> int:
        return _compare(self.items, other.items)

    def __lt__(self, other: MavenVersion) -> bool:
        return self.compare(other) < 0

    def __gt__(self, other: MavenVersion) -> bool:
        return self.compare(other) > 0

    def __le__(self, other: MavenVersion) -> bool:
        return self.compare(other) <= 0

    def __ge__(self, other: MavenVersion) -> bool:
        return self.compare(other) >= 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MavenVersion) and self.compare(other) == 0

    def __hash__(self) -> int:
        return hash(repr(self.items))

    def __repr__(self) -> str:
        return f"MavenVersion({self.text!r})"


# --- the endpoint ------------------------------------------------------------------------------

def endpoint() -> str:
    return ladder((ENDPOINT_VARIABLE,), _settings_mirror, DEFAULT_REPOSITORY)


def _settings_files() -> list[str]:
    """User settings first: Maven merges them over the global ones (the user's mirrors win)."""
    files = [os.path.join(os.path.expanduser("~"), ".m2", "settings.xml")]
    home = os.environ.get("MAVEN_HOME") or os.environ.get("M2_HOME")
    if home:
        files.append(os.path.join(home, "conf", "settings.xml"))
    return files


def _settings_mirror() -> str | None:
    """The URL of the mirror that settings.xml puts in front of ``central``, if any."""
    mirrors: list[tuple[str, str, str]] = []  # (id, mirrorOf, url) in merge order
    from . import xmlsafe

    for path in _settings_files():
        root = xmlsafe.config_file(path, "settings.xml", mentions=b"mirror")
        if root is None:
            continue
        seen = {m[0] for m in mirrors}
        for mirror in root.iterfind("mirrors/mirror"):
            ident = xmlsafe.text(mirror, "id") or "default"  # Maven's default mirror id
            of, url = xmlsafe.text(mirror, "mirrorOf"), xmlsafe.text(mirror, "url")
            if of and url and ident not in seen:
                mirrors.append((ident, of, _interpolate(url)))
    # Maven's DefaultMirrorSelector: a mirror naming the repository id exactly wins; otherwise
    # the first whose pattern matches, in declaration order.
    for _, of, url in mirrors:
        if of.strip() == "central":
            return url
    for _, of, url in mirrors:
        if _mirror_of_central(of):
            return url
    return None


def _mirror_of_central(pattern: str) -> bool:
    """Maven's mirrorOf patterns for the ``central`` repository: ``*``, ``external:*``
    (central is not on localhost), ``central``, comma lists, ``!id`` exclusions."""
    matched = False
    for part in (p.strip() for p in pattern.split(",")):
        if part in ("!central", "!*"):
            return False
        if part in ("*", "external:*", "central"):
            matched = True
    return matched


def _interpolate(value: str) -> str:
    """``${env.NAME}`` and ``${user.home}`` as Maven expands them in settings.xml."""
    import re

    def one(match: re.Match) -> str:
        key = match.group(1)
        if key.startswith("env."):
            return os.environ.get(key[4:], match.group(0))
        if key == "user.home":
            return os.path.expanduser("~")
        return match.group(0)

    return re.sub(r"\$\{([^}]+)\}", one, value)


# --- resolve: metadata -> artifact (indexer side) ----------------------------------------------

def _directory(base: str, name: str) -> str:
    """``{base}{group with . as /}/{artifactId}/``: only the groupId's dots become slashes."""
    group, _, artifact = name.partition(":")
    return f"{base}{group.replace('.', '/')}/{artifact}/"


def _versions(name: str, directory: str) -> list[str]:
    """The versions maven-metadata.xml lists, in deploy order."""
    from .. import net
    from . import xmlsafe

    resp = _HTTP.get(directory + "maven-metadata.xml", _METADATA_CAP)
    if resp.status in (404, 410):
        raise CodenavError("NOT_FOUND", f"Maven artifact {name!r} was not found in the repository",
                           details={"action": "check the groupId:artifactId (both are case-sensitive)"})
    if resp.status != 200:
        raise net.status_error(WHAT, resp)
    try:
        root = xmlsafe.parse(resp.body, f"the maven-metadata.xml of {name}")
    except ValueError as exc:
        raise protocol_error(f"{WHAT} sent metadata that cannot be read: {exc}") from None
    listed = root.find("versioning/versions") if root.tag == "metadata" else None
    if listed is None:
        raise protocol_error(f"{WHAT} sent a maven-metadata.xml for {name!r} without versions")
    versions = [v.text.strip() for v in listed.iterfind("version") if v.text and v.text.strip()]
    return [v for v in versions if is_exact(v)]  # a release repository holds no SNAPSHOT


def _choose(name: str, versions: list[str], wanted: str | None) -> str:
    newest = latest(versions, MavenVersion, prerelease=is_prerelease)
    if wanted is None:
        if newest is None:
            raise CodenavError("NOT_FOUND", f"Maven artifact {name!r} lists no released version")
        return newest
    if wanted in versions:
        return wanted
    # Another spelling of the same version ("2.0" for "2.0.0") names the one deployed; paths
    # need the deployed spelling.
    same = [v for v in versions if MavenVersion(v) == MavenVersion(wanted)]
    if same:
        return same[0]
    raise version_not_found(f"Maven artifact {name!r} has no version {wanted!r}", wanted, versions, newest,
                            MavenVersion)


def _side_file(url: str, filename: str) -> tuple[str, str] | None:
    """The strongest checksum side file of ``url``: (algorithm, hex), or None when there is none."""
    from .. import net

    for algorithm, length in _SIDE_FILES:
        resp = _HTTP.get(f"{url}.{algorithm}", _SIDE_FILE_CAP)
        if resp.status in (404, 410):
            continue
        if resp.status != 200:
            raise net.status_error(WHAT, resp)
        # Tolerant, as Maven is: old side files hold "hash  filename" or a BSD-style line.
        for token in resp.body.decode("ascii", "replace").replace("=", " ").split():
            if len(token) == length and all(c in "0123456789abcdefABCDEF" for c in token):
                return algorithm, token.lower()
        raise protocol_error(f"the .{algorithm} side file of {filename} holds no {algorithm} digest")
    return None


def _exists(url: str) -> bool:
    from .. import net

    resp = _HTTP.get(url, _SIDE_FILE_CAP, method="HEAD")
    if resp.status == 429 or resp.status >= 500:
        raise net.status_error(WHAT, resp)
    return resp.status == 200


def resolve(name: str, wanted: str | None) -> Artifact:
    from urllib.parse import quote

    from .artifact import Artifact, Unpack, Verification

    if wanted is not None and not is_exact(wanted):
        raise invalid(f"{wanted!r} is a SNAPSHOT; release repositories hold released versions only", "version")
    directory = _directory(endpoint(), name)
    version = _choose(name, _versions(name, directory), wanted)
    artifact_id = name.partition(":")[2]
    folder = f"{directory}{quote(version, safe='')}/"
    candidates = (f"{artifact_id}-{version}-sources.jar", f"{artifact_id}-{version}.jar")
    for filename in candidates:
        url = folder + quote(filename, safe="")
        found = _side_file(url, filename)
        if found is None:
            continue
        algorithm, digest = found
        source = f"the .{algorithm} side file beside it (same origin)"
        if filename == candidates[1]:
            source += ("; no -sources.jar is published for this version, so these are the compiled "
                       "classes of the binary jar")
        return Artifact(registry=PREFIX, name=name, version=version, filename=filename, url=url,
                        unpack=Unpack("zip"), verification=Verification("digest", algorithm, digest, source))
    for filename in candidates:
        if _exists(folder + quote(filename, safe="")):
            raise CodenavError("INTEGRITY_ERROR",
                               f"{WHAT} publishes no .sha512, .sha256 or .sha1 side file for {filename}; "
                               "refusing to use it unverified")
    raise CodenavError(
        "NOT_FOUND",
        f"Maven artifact {name}:{version} has no -sources.jar and no jar (a pom-packaging artifact, "
        "such as a BOM or a parent, has none)",
        details={"action": "read the project's source repository instead (see its POM's <scm>)"},
    )
