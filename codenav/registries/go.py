"""Go modules: module paths, versions, the GOPROXY protocol (SPEC §3.11).

The registry module of Go (the contract of registries/base.py); the checksum database and the
h1 hash are gosumdb.py, the go command's settings goenv.py, Ed25519 signatures.py.

- names: module paths (``github.com/pkg/errors``), case-sensitive, echoed as given; on the
  wire every upper-case letter is ``!`` + its lower case (``!burnt!sushi``);
- versions: canonical ``vX.Y.Z[-pre][+incompatible]`` or pseudo-versions, ordered by semver
  (a pseudo-version is a prerelease); ``0.9.1`` gains its ``v``. Latest is the highest
  release in ``@v/list`` (else the highest prerelease, else ``@latest``), skipping versions
  the latest go.mod ``retract``s; a pinned version is served even when retracted;
- the endpoint: CODENAV_GOPROXY, GOPROXY (environment, then the ``go env -w`` file at
  ``$GOENV`` or the user config dir), then the public proxy written once below. A list
  (``,`` falls through on 404/410 only, ``|`` on any error) is honoured; ``direct`` (version
  control) and ``file://`` cannot be served by codenav and are skipped, ``off`` stops;
  GONOPROXY/GOPRIVATE modules (with Go's own GOPROXY) would be fetched from version control,
  so they are CONFIG_ERROR;
- verification (``custom``, ``verify``): the module zip's ``h1:`` dirhash against the line the
  checksum database's ``/lookup`` gives (gosumdb.py: CODENAV_GOSUMDB, then GOSUMDB; a key's
  signed tree note and the record's inclusion proof), or ``verified: false`` and why (GOSUMDB=off,
  GONOSUMCHECK=1, GOFLAGS=-insecure, GONOSUMDB/GOPRIVATE);
- unpack: exactly ``{module}@{version}/`` is stripped (the module path has slashes).
"""

from __future__ import annotations

import os

from ..errors import CodenavError, invalid, protocol_error
from .base import Client, clean, version_not_found
from .goenv import escape, matches
from .goenv import setting as go_setting

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from .artifact import Artifact

PREFIX = "go"
ALIASES: tuple[str, ...] = ("golang",)
WHAT = "the Go module proxy"
ENDPOINT_VARIABLE = "CODENAV_GOPROXY"
# The public proxy, as the go command has it built in (written only here; the database's
# default is in gosumdb.py).
DEFAULT_GOPROXY = "https://proxy.golang.org,direct"

_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")
_PATH_CHARS = _LOWER | _UPPER | _DIGITS | frozenset("-._~")
_IDENT_CHARS = _LOWER | _UPPER | _DIGITS | frozenset("-")
_WINDOWS_RESERVED = frozenset({"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)),
                               *(f"LPT{i}" for i in range(1, 10))})
DOC_CAP = 16 * 1024 * 1024  # bytes of a list, .info or .mod answer
_HTTP = Client(WHAT)


# --- names and versions ------------------------------------------------------------------------

def normalize_name(name: str) -> str:
    """A module path as Go's module.CheckPath accepts it; echoed as given (paths are case-sensitive)."""
    reason = _path_problem(name)
    if reason:
        raise invalid(f"{name!r} is not a valid Go module path: {reason}", "package_name")
    return name


def _path_problem(path: str) -> str | None:
    if not path:
        return "it is empty"
    elements = path.split("/")
    if any(e == "" for e in elements):
        return "it has an empty path element (a leading, trailing or double slash)"
    first = elements[0]
    if "." not in first:
        return "its first element must be a host name with a dot"
    if first.startswith("-") or not set(first) <= (_LOWER | _DIGITS | frozenset(".-")):
        return "its first element may hold only lower-case letters, digits, dots and dashes"
    for element in elements:
        if not set(element) <= _PATH_CHARS:
            return f"{element!r} holds characters other than letters, digits and -._~"
        if element.startswith(".") or element.endswith("."):
            return f"{element!r} starts or ends with a dot"
        if element.split(".", 1)[0].upper() in _WINDOWS_RESERVED:
            return f"{element!r} is a reserved file name on Windows"
        tilde = element.rfind("~")
        if tilde > 0 and element[tilde + 1:].isdigit():
            return f"{element!r} looks like a Windows short name"
    return None


def _semver_parts(version: str) -> tuple[str, str, str] | None:
    """(core, prerelease, build) of a ``vX.Y.Z[-pre][+build]`` version, or None (no regex:
    this runs on the warm path through is_exact)."""
    if not version.startswith("v"):
        return None
    rest, plus, build = version[1:].partition("+")
    if plus and not build:
        return None
    core, dash, pre = rest.partition("-")
    if dash and (not pre or any(not p or not set(p) <= _IDENT_CHARS for p in pre.split("."))):
        return None
    numbers = core.split(".")
    if len(numbers) != 3 or not all(n and set(n) <= _DIGITS and (n == "0" or n[0] != "0") for n in numbers):
        return None
    return core, pre, build


def canonical(version: str) -> str | None:
    """The canonical module version (``0.9.1`` -> ``v0.9.1``), or None when it is not one.
    Module versions carry no build metadata but ``+incompatible``."""
    if version[:1].isdigit():
        version = "v" + version
    parts = _semver_parts(version)
    if parts is None or parts[2] not in ("", "incompatible"):
        return None
    return version


def is_exact(version: str) -> bool:
    """A canonical version or a pseudo-version: a proxy serves the same zip for it forever."""
    return canonical(version) is not None


def is_pseudo(version: str) -> bool:
    """``vX.Y.Z-[pre.]yyyymmddhhmmss-abcdefabcdef``: a commit, not a tag."""
    parts = _semver_parts(version)
    if parts is None or not parts[1]:
        return False
    fields = parts[1].rsplit("-", 2)
    if len(fields) < 2:
        return False
    stamp, rev = fields[-2].rsplit(".", 1)[-1], fields[-1]
    return len(stamp) == 14 and stamp.isdigit() and len(rev) >= 12 and set(rev) <= _IDENT_CHARS


def version_key(version: str) -> tuple:
    """Semver precedence (Go's semver.Compare: build metadata such as ``+incompatible`` is
    ignored); the text breaks ties so the order is total."""
    from .semver import sort_key

    return (*sort_key(version), version)


def _compare(a: str, b: str) -> int:
    from .semver import sort_key

    ka, kb = sort_key(a), sort_key(b)
    return (ka > kb) - (ka < kb)


def _is_prerelease(version: str) -> bool:
    parts = _semver_parts(version)
    return bool(parts and parts[1])


# --- the endpoint ------------------------------------------------------------------------------

def _goproxy() -> tuple[str, bool]:
    """The proxy list text and whether it is codenav's own setting."""
    own = os.environ.get(ENDPOINT_VARIABLE, "").strip()
    if own:
        return own, True
    return go_setting("GOPROXY").strip() or DEFAULT_GOPROXY, False


def endpoint() -> str:
    """The effective GOPROXY list, each URL ending in ``/`` (part of the cache alias)."""
    text, _ = _goproxy()
    return "".join(item if item in (",", "|") else _clean_element(item) for item in _split_list(text))


def _split_list(text: str) -> list[str]:
    """``a,b|c`` -> ``["a", ",", "b", "|", "c"]`` (empty elements dropped, as Go does)."""
    out: list[str] = []
    current = ""
    for char in text + ",":
        if char in ",|":
            if current.strip():
                out += [current.strip(), char]
            current = ""
        else:
            current += char
    return out[:-1]


def _clean_element(element: str) -> str:
    if element in ("direct", "off"):
        return element
    if "://" not in element:
        element = "https://" + element  # a bare host, as some setups write it
    return clean(element)


def _proxies(module: str) -> list[tuple[str, bool]]:
    """(base URL, fall through on any error) for each usable GOPROXY element, in order."""
    text, own = _goproxy()
    if not own and matches(module, go_setting("GONOPROXY") or go_setting("GOPRIVATE")):
        raise CodenavError(
            "CONFIG_ERROR",
            f"{module} matches GONOPROXY/GOPRIVATE, so Go fetches it from version control, which codenav does not do",
            details={"action": f"set {ENDPOINT_VARIABLE} to a proxy that serves it, or read the repository "
                               "with --repo-url"},
        )
    items = _split_list(text)
    usable: list[tuple[str, bool]] = []
    skipped: list[str] = []
    for index in range(0, len(items), 2):
        element = items[index]
        any_error = index + 1 < len(items) and items[index + 1] == "|"
        if element == "off":
            if not usable:
                raise CodenavError("CONFIG_ERROR", "GOPROXY=off forbids module downloads",
                                   details={"action": f"set {ENDPOINT_VARIABLE} to a module proxy URL"})
            break
        cleaned = _clean_element(element)
        if element == "direct" or not cleaned.startswith(("http://", "https://")):
            skipped.append(element)
            continue
        usable.append((cleaned, any_error))
    if not usable:
        raise CodenavError(
            "CONFIG_ERROR",
            f"GOPROXY names no module proxy codenav can use (skipped: {', '.join(skipped) or 'nothing'}); "
            "'direct' means version control and file:// proxies are not supported",
            details={"action": f"set {ENDPOINT_VARIABLE} to a module proxy URL, or read the repository "
                               "with --repo-url"},
        )
    return usable


# --- the proxy protocol -------------------------------------------------------------------------

def _ask(proxies: list[tuple[str, bool]], path: str):
    """The first 200 answer for ``path`` along the proxy list, as (base, Response); None when
    every proxy says 404/410. A ``,`` after a proxy moves on only on 404/410, a ``|`` on any
    error (GOPROXY semantics)."""
    from .. import net

    last_error: CodenavError | None = None
    for base, any_error in proxies:
        try:
            resp = _HTTP.get(base + path, DOC_CAP)
        except CodenavError as exc:
            if not any_error:
                raise
            last_error = exc
            continue
        if resp.status == 200:
            return base, resp
        if resp.status in (404, 410):
            last_error = None
            continue
        error = net.status_error(WHAT, resp)
        if not any_error:
            raise error
        last_error = error
    if last_error is not None:
        raise last_error
    return None


def _list(proxies: list[tuple[str, bool]], module: str) -> tuple[str, list[str]] | None:
    found = _ask(proxies, f"{escape(module)}/@v/list")
    if found is None:
        return None
    base, resp = found
    versions = []
    for line in resp.body.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if not line:
            continue
        if canonical(line) != line:
            raise protocol_error(f"{WHAT} sent a version list for {module} that cannot be read")
        versions.append(line)
    return base, versions


def _info(proxies: list[tuple[str, bool]], module: str, query: str) -> tuple[str, str] | None:
    import json

    found = _ask(proxies, f"{escape(module)}/@{query}" if query == "latest"
                 else f"{escape(module)}/@v/{escape(query)}.info")
    if found is None:
        return None
    base, resp = found
    try:
        version = json.loads(resp.body)["Version"]
    except (ValueError, KeyError, TypeError):
        raise protocol_error(f"{WHAT} sent version information for {module} that is not the .info JSON") from None
    if not isinstance(version, str) or canonical(version) != version:
        raise protocol_error(f"{WHAT} named a version for {module} that is not canonical")
    return base, version


def retractions(gomod: str) -> list[tuple[str, str]]:
    """The ``retract`` directives of a go.mod as (low, high) intervals (a single version: low == high)."""
    out: list[tuple[str, str]] = []
    in_block = False
    for raw in gomod.splitlines():
        line = raw.split("//", 1)[0].strip()
        if not line:
            continue
        if in_block:
            if line == ")":
                in_block = False
                continue
            spec = line
        else:
            fields = line.replace("(", " (", 1).split(None, 1)
            verb, spec = fields[0], (fields[1].strip() if len(fields) > 1 else "")
            if verb == "retract" and spec == "(":
                in_block = True
                continue
            if verb != "retract":
                continue
        spec = spec.strip()
        if spec.startswith("[") and spec.endswith("]"):
            low, _, high = spec[1:-1].partition(",")
            low, high = low.strip().strip('"'), high.strip().strip('"')
        else:
            low = high = spec.strip('"')
        # Go refuses a go.mod with a malformed version; here such a line retracts nothing.
        if low and canonical(low) == low and canonical(high) == high:
            out.append((low, high))
    return out


def _retracted(version: str, intervals: list[tuple[str, str]]) -> bool:
    return any(_compare(low, version) <= 0 <= _compare(high, version) for low, high in intervals)


def _retractions_of(proxies: list[tuple[str, bool]], module: str, versions: list[str]) -> list[tuple[str, str]]:
    """Retractions from the go.mod of the latest listed version (Go reads them there)."""
    releases = [v for v in versions if not _is_prerelease(v)]
    pool = releases or versions
    if not pool:
        return []
    newest = max(pool, key=version_key)
    found = _ask(proxies, f"{escape(module)}/@v/{escape(newest)}.mod")
    if found is None:
        return []
    return retractions(found[1].body.decode("utf-8", "replace"))


def _latest(versions: list[str], retracted: list[tuple[str, str]]) -> str | None:
    """The highest release not retracted, else the highest prerelease not retracted, else
    (every version retracted) the highest listed one, as the go command falls back to."""
    live = [v for v in versions if not _retracted(v, retracted)]
    for pool in ([v for v in live if not _is_prerelease(v)], live, versions):
        if pool:
            return max(pool, key=version_key)
    return None


def resolve(name: str, wanted: str | None) -> Artifact:
    module = name
    proxies = _proxies(module)
    version = canonical(wanted) if wanted else None
    if version is not None:
        found = _info(proxies, module, version)
        if found is not None:
            base, served = found
            if served != version:
                raise protocol_error(f"{WHAT} answered {served} when asked for {module}@{version}")
            return _artifact(module, version, base, proxies)
    # Latest, or the choices for a version the proxy does not have: @v/list first (@latest is
    # optional in the protocol), retractions from the newest listed go.mod.
    listed = _list(proxies, module)
    versions = listed[1] if listed else []
    retracted = _retractions_of(proxies, module, versions) if versions else []
    latest = _latest(versions, retracted)
    base = listed[0] if listed else None
    if latest is None:
        found = _info(proxies, module, "latest")
        if found is not None:
            base, latest = found
    if latest is None and listed is None:
        raise _not_found(module)
    if wanted is not None:
        why = "is not on the proxy" if version else "is not a canonical Go module version (vX.Y.Z or a pseudo-version)"
        raise _version_not_found(module, wanted, versions, retracted, latest, why)
    if latest is None or base is None:
        raise CodenavError("NOT_FOUND", f"Go module {module} has no versions on the proxy")
    return _artifact(module, latest, base, proxies)


def _artifact(module: str, version: str, base: str, proxies: list[tuple[str, bool]]) -> Artifact:
    from . import gosumdb
    from .artifact import Artifact, Unpack

    leaf = module.rsplit("/", 1)[-1]
    return Artifact(
        registry=PREFIX, name=module, version=version, filename=f"{leaf}@{version}.zip",
        url=f"{base}{escape(module)}/@v/{escape(version)}.zip",
        # Every entry starts with the unescaped module path and version: strip exactly that.
        unpack=Unpack("zip", required_prefix=f"{module}@{version}/"),
        verification=gosumdb.verification(module, version, lambda name: _sumdb_via_proxy(name, proxies)),
    )


def _not_found(module: str) -> CodenavError:
    return CodenavError("NOT_FOUND", f"Go module {module} was not found on the proxy", details={
        "action": "check the module path (a package inside a module is not a module; major versions "
                  "from v2 on end in /vN)"})


def _version_not_found(module: str, wanted: str, versions: list[str], retracted: list[tuple[str, str]],
                       latest: str | None, why: str) -> CodenavError:
    live = [v for v in versions if not _retracted(v, retracted)]
    choices = [v for v in live if not _is_prerelease(v)] or live
    return version_not_found(f"Go module {module} version {wanted!r} {why}", wanted, choices, latest, version_key)


def _sumdb_via_proxy(name: str, proxies: list[tuple[str, bool]]) -> str | None:
    """A proxy that mirrors the database (``<proxy>/sumdb/<name>/supported`` is 200), as Go probes."""
    for base, _ in proxies:
        try:
            resp = _HTTP.get(f"{base}sumdb/{name}/supported", 4096)
        except CodenavError:
            continue
        if resp.status == 200:
            return f"{base}sumdb/{name}/"
    return None


def verify(artifact: Artifact, path) -> None:
    """The ``custom`` check of the download: the zip's h1 must be the checksum database's."""
    from ..archive import Limits
    from .gosumdb import h1_of_zip

    got = h1_of_zip(str(path), Limits.from_env().max_total_bytes)
    if got != artifact.verification.expected:
        raise CodenavError(
            "INTEGRITY_ERROR",
            f"{artifact.filename} does not match its published h1 hash; nothing was cached",
            details={"artifact": artifact.filename, "algorithm": "h1", "expected": artifact.verification.expected,
                     "actual": got},
        )
