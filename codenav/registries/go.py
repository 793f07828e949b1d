"""Go modules: module paths, the GOPROXY protocol, the checksum database and h1 (SPEC §3).

Everything codenav knows about Go modules is here (the registry protocol of
registries/__init__.py). It is over 500 lines because it holds two small pieces of cryptography the
stdlib lacks and Go's checksum database needs: the ``h1:`` dirhash, an Ed25519 verifier
(RFC 8032 §5.1.7) for the database's signed tree note, and the tiled Merkle inclusion proof.

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
- verification: the module zip's ``h1:`` dirhash against the line the checksum database's
  ``/lookup`` gives. CODENAV_GOSUMDB (then GOSUMDB) is a plain base URL (TLS is the only
  trust) or Go's ``name+hash+key [url]`` form, whose signed tree note is verified with the
  key and the record proven to be in that tree from the database's tiles (RFC 6962); no
  tree is remembered between calls, so there is no consistency proof. GOSUMDB=off, GONOSUMCHECK=1,
  GOFLAGS=-insecure and GONOSUMDB/GOPRIVATE matches give ``verified: false`` with the reason;
- unpack: exactly ``{module}@{version}/`` is stripped (the module path has slashes).

Only ``os`` is imported at load: a warm call validates the name and finds the endpoint here.
"""

from __future__ import annotations

import os

from ..errors import CodenavError, invalid
from . import clean

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from .artifact import Artifact

PREFIX = "go"
ALIASES: tuple[str, ...] = ("golang",)
WHAT = "the Go module proxy"
SUMDB_WHAT = "the Go checksum database"
ENDPOINT_VARIABLE = "CODENAV_GOPROXY"
SUMDB_VARIABLE = "CODENAV_GOSUMDB"
# The public defaults, as the go command has them built in (written only here).
DEFAULT_GOPROXY = "https://proxy.golang.org,direct"
DEFAULT_GOSUMDB = "sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8"

_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")
_PATH_CHARS = _LOWER | _UPPER | _DIGITS | frozenset("-._~")
_IDENT_CHARS = _LOWER | _UPPER | _DIGITS | frozenset("-")
_WINDOWS_RESERVED = frozenset({"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)),
                               *(f"LPT{i}" for i in range(1, 10))})
DOC_CAP = 16 * 1024 * 1024  # bytes of a list, .info, .mod or lookup answer


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


def escape(text: str) -> str:
    """Go's case encoding for proxy URLs: each upper-case letter becomes ``!`` + lower case."""
    return "".join("!" + c.lower() if c in _UPPER else c for c in text)


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
    from .versions import semver_key

    return (*semver_key(version), version)


def _compare(a: str, b: str) -> int:
    from .versions import semver_key

    ka, kb = semver_key(a), semver_key(b)
    return (ka > kb) - (ka < kb)


def _is_prerelease(version: str) -> bool:
    parts = _semver_parts(version)
    return bool(parts and parts[1])


# --- the endpoint ------------------------------------------------------------------------------

def _goenv_file() -> str | None:
    configured = os.environ.get("GOENV")
    if configured == "off":
        return None
    if configured:
        return configured
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(config, "go", "env")


def _goenv_values() -> dict[str, str]:
    """KEY=VALUE lines of the ``go env -w`` file (Go reads it the same way)."""
    path = _goenv_file()
    values: dict[str, str] = {}
    if not path:
        return values
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return values
    for line in text.splitlines():
        key, eq, value = line.strip().partition("=")
        if eq and key[:1].isupper():
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            values[key.strip()] = value
    return values


def go_setting(name: str) -> str:
    """A go command setting: the environment wins over the ``go env -w`` file (as in Go)."""
    if name in os.environ:
        return os.environ[name]
    return _goenv_values().get(name, "")


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
    if not own and _matches(module, go_setting("GONOPROXY") or go_setting("GOPRIVATE")):
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


def _matches(module: str, patterns: str) -> bool:
    """Go's module.MatchPrefixPatterns: a comma list of globs, each matching a path prefix."""
    from fnmatch import fnmatchcase

    elements = module.split("/")
    for pattern in patterns.split(","):
        pattern = pattern.strip().strip("/")
        if not pattern:
            continue
        parts = pattern.split("/")
        if len(parts) <= len(elements) and all(
                fnmatchcase(e, p) for e, p in zip(elements[:len(parts)], parts, strict=False)):
            return True
    return False


# --- the proxy protocol -------------------------------------------------------------------------

def _ask(proxies: list[tuple[str, bool]], path: str):
    """The first 200 answer for ``path`` along the proxy list, as (base, Response); None when
    every proxy says 404/410. A ``,`` after a proxy moves on only on 404/410, a ``|`` on any
    error (GOPROXY semantics)."""
    from .. import net

    last_error: CodenavError | None = None
    for base, any_error in proxies:
        try:
            resp = net.request("GET", base + path, what=WHAT, redirects="https", max_bytes=DOC_CAP,
                               timeout=net.timeout_from_env("CODENAV_REGISTRY_TIMEOUT"))
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
            raise CodenavError("PROTOCOL_ERROR", f"{WHAT} sent a version list for {module} that cannot be read")
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
        raise CodenavError("PROTOCOL_ERROR", f"{WHAT} sent version information for {module} that is not "
                                             "the .info JSON") from None
    if not isinstance(version, str) or canonical(version) != version:
        raise CodenavError("PROTOCOL_ERROR", f"{WHAT} named a version for {module} that is not canonical")
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
                raise CodenavError("PROTOCOL_ERROR", f"{WHAT} answered {served} when asked for {module}@{version}")
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
    from .artifact import Artifact, Unpack

    leaf = module.rsplit("/", 1)[-1]
    return Artifact(
        registry=PREFIX, name=module, version=version, filename=f"{leaf}@{version}.zip",
        url=f"{base}{escape(module)}/@v/{escape(version)}.zip",
        # Every entry starts with the unescaped module path and version: strip exactly that.
        unpack=Unpack("zip", required_prefix=f"{module}@{version}/"),
        verification=_verification(module, version, proxies),
    )


def _not_found(module: str) -> CodenavError:
    return CodenavError("NOT_FOUND", f"Go module {module} was not found on the proxy", details={
        "action": "check the module path (a package inside a module is not a module; major versions "
                  "from v2 on end in /vN)"})


def _version_not_found(module: str, wanted: str, versions: list[str], retracted: list[tuple[str, str]],
                       latest: str | None, why: str) -> CodenavError:
    from .versions import nearest_first

    live = [v for v in versions if not _retracted(v, retracted)]
    choices = [v for v in live if not _is_prerelease(v)] or live
    return CodenavError(
        "VERSION_NOT_FOUND",
        f"Go module {module} version {wanted!r} {why}" + (f"; latest is {latest}" if latest else ""),
        details={"availableVersions": nearest_first(choices, wanted, version_key), "latest": latest,
                 "action": "pick one of availableVersions, or omit the version for latest"},
    )


# --- the checksum database ----------------------------------------------------------------------

def _sumdb_setting() -> str:
    own = os.environ.get(SUMDB_VARIABLE, "").strip()
    return own or go_setting("GOSUMDB").strip() or DEFAULT_GOSUMDB


def _unchecked_reason(module: str) -> str | None:
    """Why the go command would not consult the checksum database for ``module``, or None."""
    setting = _sumdb_setting()
    if setting == "off":
        return "GOSUMDB is off: the checksum database is not consulted"
    if go_setting("GONOSUMCHECK") == "1":
        return "GONOSUMCHECK=1: the checksum database is not consulted"
    if any(flag.split("=", 1)[0].lstrip("-") == "insecure" and not flag.endswith("=false")
           for flag in go_setting("GOFLAGS").split()):
        return "GOFLAGS has -insecure: the checksum database is not consulted"
    patterns = go_setting("GONOSUMDB") or go_setting("GOPRIVATE")
    if _matches(module, patterns):
        which = "GONOSUMDB" if go_setting("GONOSUMDB") else "GOPRIVATE"
        return f"{module} matches {which} ({patterns}): a private module is not in the checksum database"
    return None


class SumDB:
    """Where and how to ask: a plain URL (trusted over TLS) or a named database with its key."""

    def __init__(self, name: str, url: str | None, key: bytes | None, key_text: str) -> None:
        self.name, self.url, self.key, self.key_text = name, url, key, key_text


def parse_sumdb(setting: str) -> SumDB:
    """``https://host/path`` | ``name+hash+key [url]`` | ``sum.golang.org [url]`` (the built-in key)."""
    if setting.startswith(("http://", "https://")):
        return SumDB(setting, clean(setting), None, "")
    fields = setting.split()
    if not fields or len(fields) > 2:
        raise _sumdb_config(setting, "expected 'name+hash+key [url]' or a base URL")
    named = fields[0]
    if "+" not in named:
        default = DEFAULT_GOSUMDB.split("+", 1)[0]
        if named != default:
            raise _sumdb_config(setting, f"{named} is not a database codenav knows the key of; give name+hash+key")
        named = DEFAULT_GOSUMDB
    name, key = parse_verifier_key(named, setting)
    url = clean(fields[1] if "://" in fields[1] else "https://" + fields[1]) if len(fields) == 2 else None
    return SumDB(name, url, key, named)


def parse_verifier_key(text: str, setting: str | None = None) -> tuple[str, bytes]:
    """A note verifier key ``name+hash+base64(0x01 || ed25519 key)``: (name, 32-byte key);
    the hash must be the first 4 bytes of sha256(name + "\\n" + 0x01 || key)."""
    import base64
    import binascii
    import hashlib

    name, _, rest = text.partition("+")
    key_hash, _, data = rest.partition("+")
    try:
        raw = base64.b64decode(data, validate=True)
        wanted = int(key_hash, 16)
    except (ValueError, binascii.Error):
        raise _sumdb_config(setting or text, "the key is not name+hash+base64") from None
    if not name or len(key_hash) != 8 or len(raw) != 33 or raw[0] != 1:
        raise _sumdb_config(setting or text, "the key is not an Ed25519 note verifier key")
    digest = hashlib.sha256(name.encode() + b"\n" + raw).digest()
    if int.from_bytes(digest[:4], "big") != wanted:
        raise _sumdb_config(setting or text, "the key's hash does not match its name and key")
    return name, raw[1:]


def _sumdb_config(setting: str, why: str) -> CodenavError:
    return CodenavError("CONFIG_ERROR", f"the checksum database setting {setting!r} cannot be used: {why}",
                        details={"action": f"set {SUMDB_VARIABLE} to a base URL or to GOSUMDB's name+hash+key [url]"})


def _verification(module: str, version: str, proxies: list[tuple[str, bool]]):
    from .artifact import Verification

    reason = _unchecked_reason(module)
    if reason:
        return Verification("none", source=reason)
    db = parse_sumdb(_sumdb_setting())
    url = db.url or _sumdb_via_proxy(db.name, proxies) or f"https://{db.name}/"
    body = _lookup(url, module, version)
    record, sep, note = body.partition("\n\n")
    expected = None
    for line in record.splitlines()[1:]:
        fields = line.split()
        if len(fields) == 3 and fields[0] == module and fields[1] == version and fields[2].startswith("h1:"):
            expected = fields[2]
    if not record.split("\n", 1)[0].strip().isdigit() or expected is None:
        raise CodenavError("PROTOCOL_ERROR", f"{SUMDB_WHAT} sent a lookup for {module}@{version} without its h1 line")
    if db.key is None:
        source = ("the checksum database's h1 line, from a plain URL: no key, so the note signature "
                  "is not verified and only the connection is trusted")
    else:
        if not sep or not _note_signed(note, db.name, db.key):
            raise CodenavError(
                "INTEGRITY_ERROR",
                f"{SUMDB_WHAT} answer for {module}@{version} is not signed by the key of {db.name}; nothing was cached",
                details={"key": db.key_text},
            )
        _prove_record(url, record, note, module, version)
        source = (f"the checksum database's h1 line, its tree note signed by {db.name} and the record's "
                  "inclusion in that tree proven")
    return Verification("custom", "h1", expected, source)


# --- the Merkle inclusion proof (transparent log tiles, height 8) ---------------------------------

def _node(left: bytes, right: bytes) -> bytes:
    import hashlib

    return hashlib.sha256(b"\x01" + left + right).digest()


def tile_path(level: int, index: int, width: int) -> str:
    """``tile/8/L/x001/x234/067[.p/W]``: the tile's index in groups of three digits."""
    groups = [f"{index % 1000:03d}"]
    index //= 1000
    while index:
        groups.append(f"x{index % 1000:03d}")
        index //= 1000
    return f"tile/8/{level}/{'/'.join(reversed(groups))}" + (f".p/{width}" if width < 256 else "")


class _Tiles:
    """Stored hashes of a tree of ``size`` records, read from the database's tiles on demand."""

    def __init__(self, url: str, size: int) -> None:
        self.url, self.size, self.tiles = url, size, {}

    def tile(self, level: int, index: int, width: int) -> bytes:
        from .. import net

        path = tile_path(level, index, width)
        if path not in self.tiles:
            resp = net.request("GET", self.url + path, what=SUMDB_WHAT, redirects="https", max_bytes=256 * 32,
                               timeout=net.timeout_from_env("CODENAV_REGISTRY_TIMEOUT"))
            if resp.status in (404, 410):
                raise CodenavError("INTEGRITY_ERROR", f"{SUMDB_WHAT} does not serve the tile {path}, so the record "
                                                      "cannot be proven to be in its signed tree")
            if resp.status != 200:
                raise net.status_error(SUMDB_WHAT, resp)
            if len(resp.body) != width * 32:
                raise CodenavError("PROTOCOL_ERROR", f"{SUMDB_WHAT} sent a tile {path} of the wrong size")
            self.tiles[path] = resp.body
        return self.tiles[path]

    def stored(self, level: int, index: int) -> bytes:
        """The hash of the complete subtree of 2**level records starting at record index << level."""
        tile_level, height = divmod(level, 8)
        first = index << height  # its first node at level 8 * tile_level
        number, offset = divmod(first, 256)
        width = min(256, (self.size >> (8 * tile_level)) - number * 256)
        data = self.tile(tile_level, number, width)
        hashes = [data[i * 32:(i + 1) * 32] for i in range(offset, offset + (1 << height))]
        while len(hashes) > 1:
            hashes = [_node(hashes[i], hashes[i + 1]) for i in range(0, len(hashes), 2)]
        return hashes[0]

    def range_hash(self, low: int, high: int) -> bytes:
        """RFC 6962 MTH of records [low, high): its complete subtrees, folded right to left."""
        parts = []
        while low < high:
            level = 0
            while low % (2 << level) == 0 and low + (2 << level) <= high:
                level += 1
            parts.append(self.stored(level, low >> level))
            low += 1 << level
        digest = parts[-1]
        for part in reversed(parts[:-1]):
            digest = _node(part, digest)
        return digest

    def root_with(self, index: int, low: int, high: int, leaf: bytes) -> bytes:
        """The tree hash of [low, high) computed with ``leaf`` at ``index``: equal to the signed
        root only if that record is in the tree (RFC 6962 §2.1.1 audit path)."""
        if high - low == 1:
            return leaf
        split = 1 << ((high - low - 1).bit_length() - 1)  # the largest power of two below the size
        if index < low + split:
            return _node(self.root_with(index, low, low + split, leaf), self.range_hash(low + split, high))
        return _node(self.range_hash(low, low + split), self.root_with(index, low + split, high, leaf))


def _prove_record(url: str, record: str, note: str, module: str, version: str) -> None:
    """The lookup's record (its number, its go.sum lines) is in the tree the signed note names."""
    import base64
    import binascii
    import hashlib

    head, _, lines = record.partition("\n")
    fields = note.split("\n")
    try:
        size, root = int(fields[1]), base64.b64decode(fields[2], validate=True)
        index = int(head)
    except (IndexError, ValueError, binascii.Error):
        raise CodenavError("PROTOCOL_ERROR", f"{SUMDB_WHAT} sent a tree note that cannot be read") from None
    if not 0 <= index < size or len(root) != 32:
        raise CodenavError("INTEGRITY_ERROR", f"{SUMDB_WHAT} lists {module}@{version} outside its signed tree")
    leaf = hashlib.sha256(b"\x00" + (lines + "\n").encode("utf-8")).digest()
    if _Tiles(url, size).root_with(index, 0, size, leaf) != root:
        raise CodenavError(
            "INTEGRITY_ERROR",
            f"{SUMDB_WHAT} record for {module}@{version} is not in the tree its signed note names; nothing was cached",
        )


def _sumdb_via_proxy(name: str, proxies: list[tuple[str, bool]]) -> str | None:
    """A proxy that mirrors the database (``<proxy>/sumdb/<name>/supported`` is 200), as Go probes."""
    from .. import net

    for base, _ in proxies:
        try:
            resp = net.request("GET", f"{base}sumdb/{name}/supported", what=WHAT, redirects="https",
                               timeout=net.timeout_from_env("CODENAV_REGISTRY_TIMEOUT"), max_bytes=4096)
        except CodenavError:
            continue
        if resp.status == 200:
            return f"{base}sumdb/{name}/"
    return None


def _lookup(url: str, module: str, version: str) -> str:
    from .. import net

    resp = net.request("GET", f"{url}lookup/{escape(module)}@{escape(version)}", what=SUMDB_WHAT,
                       redirects="https", timeout=net.timeout_from_env("CODENAV_REGISTRY_TIMEOUT"),
                       max_bytes=DOC_CAP)
    if resp.status in (404, 410):
        raise CodenavError(
            "INTEGRITY_ERROR", f"{SUMDB_WHAT} has no record of {module}@{version}, so it cannot be verified",
            details={"action": "for a private module set GONOSUMDB or GOPRIVATE to its path"})
    if resp.status != 200:
        raise net.status_error(SUMDB_WHAT, resp)
    try:
        return resp.body.decode("utf-8")
    except UnicodeDecodeError:
        raise CodenavError("PROTOCOL_ERROR", f"{SUMDB_WHAT} sent a lookup that is not text") from None


def _note_signed(note: str, name: str, key: bytes) -> bool:
    """A signed note (golang.org/x/mod/sumdb/note): text, a blank line, ``— name base64`` lines;
    true when one line by ``name`` carries a valid Ed25519 signature of the text."""
    import base64
    import binascii
    import hashlib

    cut = note.rfind("\n\n")
    if cut < 0:
        return False
    text, signatures = note[:cut + 1], note[cut + 2:]
    if not text.startswith("go.sum database tree\n"):
        return False
    key_hash = hashlib.sha256(name.encode() + b"\n\x01" + key).digest()[:4]
    for line in signatures.splitlines():
        dash, _, rest = line.partition(" ")
        signer, _, data = rest.partition(" ")
        if dash != "\u2014" or signer != name:
            continue
        try:
            raw = base64.b64decode(data, validate=True)
        except (ValueError, binascii.Error):
            continue
        if len(raw) == 68 and raw[:4] == key_hash and ed25519_verify(key, text.encode("utf-8"), raw[4:]):
            return True
    return False


# --- h1: Go's dirhash.Hash1 over the module zip --------------------------------------------------

def h1_of_zip(path: str, max_bytes: int | None = None) -> str:
    """``h1:`` + base64(sha256 of the sorted ``"<sha256 hex>  <name>\\n"`` lines of every zip
    entry), names as the bytes Go reads; at most ``max_bytes`` are decompressed."""
    import base64
    import hashlib
    import zipfile

    lines: list[bytes] = []
    total = 0
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                # Without the UTF-8 flag Python decoded the name as cp437: recover Go's bytes.
                raw = info.filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437")
                if b"\n" in raw:
                    raise CodenavError("INTEGRITY_ERROR", "the module zip has a file name with a newline, which "
                                                          "the h1 hash cannot cover; nothing was cached")
                digest = hashlib.sha256()
                with archive.open(info) as member:
                    while chunk := member.read(1 << 20):
                        total += len(chunk)
                        if max_bytes is not None and total > max_bytes:
                            raise CodenavError(
                                "TOO_LARGE", f"the module zip expands to more than {max_bytes} bytes "
                                             "(CODENAV_MAX_EXTRACTED_BYTES)",
                                details={"limit": max_bytes, "variable": "CODENAV_MAX_EXTRACTED_BYTES"})
                        digest.update(chunk)
                lines.append(digest.hexdigest().encode() + b"  " + raw + b"\n")
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, OSError, ValueError) as exc:
        # A zip that cannot be read has no h1, so it cannot match the published one.
        reason = str(exc).strip().rstrip(".") or type(exc).__name__
        raise CodenavError("INTEGRITY_ERROR", f"the module zip cannot be read to compute its h1 hash ({reason}); "
                                              "nothing was cached") from None
    summary = b"".join(sorted(lines, key=lambda line: line.split(b"  ", 1)[1]))
    return "h1:" + base64.b64encode(hashlib.sha256(summary).digest()).decode()


def verify(artifact: Artifact, path) -> None:
    """The ``custom`` check of the download: the zip's h1 must be the checksum database's."""
    from ..archive import Limits

    got = h1_of_zip(str(path), Limits.from_env().max_total_bytes)
    if got != artifact.verification.expected:
        raise CodenavError(
            "INTEGRITY_ERROR",
            f"{artifact.filename} does not match its published h1 hash; nothing was cached",
            details={"artifact": artifact.filename, "algorithm": "h1", "expected": artifact.verification.expected,
                     "actual": got},
        )


# --- Ed25519 verification (RFC 8032 §5.1.7), for the checksum database's signed note -------------

_P = 2 ** 255 - 19
_L = 2 ** 252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _point_add(a: tuple, b: tuple) -> tuple:
    # Extended twisted Edwards coordinates (X, Y, Z, T), x = X/Z, y = Y/Z, xy = T/Z.
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    p = _P
    e = (y1 - x1) * (y2 - x2) % p
    f = (y1 + x1) * (y2 + x2) % p
    g = 2 * _D * t1 * t2 % p
    h = 2 * z1 * z2 % p
    e, h, f, g = f - e, f + e, h - g, h + g
    return (e * f % p, g * h % p, f * g % p, e * h % p)


def _scalar_mult(scalar: int, point: tuple) -> tuple:
    result = (0, 1, 1, 0)  # the neutral element
    while scalar:
        if scalar & 1:
            result = _point_add(result, point)
        point = _point_add(point, point)
        scalar >>= 1
    return result


def _decode_point(data: bytes) -> tuple | None:
    value = int.from_bytes(data, "little")
    sign, y = value >> 255, value & ((1 << 255) - 1)
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P:
        return None
    if x == 0 and sign:
        return None
    if x & 1 != sign:
        x = _P - x
    return (x, y, 1, x * y % _P)


def _encode_point(point: tuple) -> bytes:
    x, y, z, _ = point
    inverse = pow(z, _P - 2, _P)
    x, y = x * inverse % _P, y * inverse % _P
    return (y | (x & 1) << 255).to_bytes(32, "little")


_BASE = _decode_point((4 * pow(5, _P - 2, _P) % _P).to_bytes(32, "little"))


def ed25519_verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """RFC 8032 Ed25519 verification: encode([S]B - [k]A) == R, with S < L (as Go's crypto/ed25519)."""
    import hashlib

    if len(public_key) != 32 or len(signature) != 64:
        return False
    a = _decode_point(public_key)
    s = int.from_bytes(signature[32:], "little")
    if a is None or s >= _L or _decode_point(signature[:32]) is None:
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(), "little") % _L
    minus_a = ((_P - a[0]) % _P, a[1], a[2], (_P - a[3]) % _P)
    check = _point_add(_scalar_mult(s, _BASE), _scalar_mult(k, minus_a))
    return _encode_point(check) == signature[:32]
