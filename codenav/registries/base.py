"""The registry contract: what a registry module provides, the default of every optional hook,
and the helpers that every registry would otherwise write again (SPEC §3, §9).

Adding a registry is one module, one table line, one fake and one adapter:

1. ``codenav/registries/NAME.py``. Its docstring says what codenav knows about the registry
   (names, versions, the endpoint ladder, resolve, verification, unpack: rubygems.py is a short
   model, pypi.py the one with several files per release, hex.py one with a signed index). It
   defines the required hooks below and only the optional ones that differ from their
   defaults here (tests/test_registry_contract.py checks that, and holds a toy registry).
2. One line in ``TABLE`` of registries/__init__.py (its alias prefixes in ``ALIASES``) and the
   prefix in the ``registry`` enum of schemas/defs.json (tests/test_registries.py checks both).
3. A fake in tests/fakes/ that speaks the registry's real wire format, and an adapter for the
   conformance kit in tests/support/; the module's own tests hold only what is peculiar to it.

Nothing else changes: the cache, the download, the archive rules and both surfaces read a
registry only through ``Registry`` (what ``registries.load`` returns), never with ``getattr``.

A registry module imports only ``os`` at module level (and this package's light modules:
``..errors``, ``.base``): a warm call validates the name and finds the endpoint through it, and
tests/test_registries.py checks that nothing heavier is loaded. ``json``, ``re``, ``urllib``,
net.py and the version grammars are imported inside ``resolve`` and what it calls.

Required hooks (every registry module defines them):

  PREFIX                          its target prefix (``crates``), the TABLE key
  WHAT                            how messages name it ("the crates index")
  ENDPOINT_VARIABLE               codenav's own variable for its base URL
  normalize_name(name) -> str     the name as the registry keys it; INVALID_ARGUMENT otherwise
  is_exact(version) -> bool       a version no publish can move: its cache alias is kept
                                  forever (anything else is resolved again after the TTL)
  endpoint() -> str               the ladder: codenav's variable, then the package manager's
                                  configuration, then the public default written once in the
                                  module (npm and pip: the package manager itself is asked).
                                  It is part of the cache alias, so it must be cheap
  resolve(name, version) -> Artifact
                                  indexer side: the artifact, its ``Unpack`` recipe and its
                                  ``Verification`` (registries/artifact.py); ``version`` None
                                  means latest as the registry's own tool picks it. NOT_FOUND,
                                  VERSION_NOT_FOUND (``version_not_found`` below) otherwise
  version_key(version)            the ecosystem's one version order, as its own tool sorts
                                  (semver.sort_key, pep440.sort_key, Maven's, …)

Optional hooks (the defaults are defined below, under the same names):

  ALIASES = ()                    alias prefixes (``cargo`` for ``crates``), echoed canonical
  PACKAGE_MANAGER = None          "npm" or "pip": whose proxy and TLS settings apply (§8.1)
  ARTIFACT_WORDS = ()             a release holds several files and ``artifact`` picks one
                                  (pypi: "sdist", "wheel" or a file name; a conda subdir
                                  would be the same); ``resolve`` then takes ``artifact=``
                                  and says in ``Artifact.choice`` which file and why,
                                  ``platformMatch: false`` for another platform's build. A
                                  choice that depends on this machine goes in ``alias_extra``
  classify_version(version)       "exact", "range" or "tag" for a version that is not plain
                                  (npm ranges and dist-tags, PEP 440 specifiers); the default
                                  takes plain versions only (``is_plain_version``) as exact
  alias_extra(artifact) -> str    what else decides the file, appended to the cache alias
                                  (pypi: the artifact asked for and this machine's tags)
  top_folder_matches(artifact, found) -> bool
                                  a top folder spelled otherwise than ``Unpack.required_prefix``
                                  is that folder all the same (sdists)
  verify(artifact, path)          a ``custom`` Verification's check of the downloaded file
                                  (Go's h1 dirhash); digests need none (checked while streaming)

What an Artifact can say (registries/artifact.py). ``Unpack``: a tar (gzip, bzip2, xz or plain)
or a zip; N leading components stripped (npm), or one required top folder (``NAME/``,
``{name}-{version}/``), or one member of an outer tar unpacked instead (a gem's
``data.tar.gz``). ``Verification``: ``digest`` is any hashlib hash the registry publishes
(sha512 … md5), checked while the bytes stream in, its ``source`` saying what it is checked
against and what that proves (an MD5 says it is a corruption check only); ``custom`` is the
module's ``verify``; ``none`` says why nothing can be checked (the cache key then comes from
the URL). A release the registry withdrew (yanked, retired, unlisted, retracted) is used only
when pinned: ``latest(withdrawn=…)`` skips it, and ``Artifact.yanked`` or the verification
text says why it was read.

The helpers below are what the registries would each repeat: ``Client`` (GET and GET+JSON with
the registry's timeout, headers and errors), ``ladder`` and its discovery helpers (``clean``,
``ask``, ``cached``), ``is_semver`` (the common exact-version test), ``latest``,
``nearest_first`` and ``version_not_found`` (choosing a release and saying what else there
is), ``require_digest`` and ``directories_up``.
"""

from __future__ import annotations

import os

from ..errors import CodenavError, invalid

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from types import ModuleType
    from typing import Any

    from ..net import Response
    from .artifact import Artifact

REQUIRED = ("PREFIX", "WHAT", "ENDPOINT_VARIABLE", "normalize_name", "is_exact", "endpoint", "resolve",
            "version_key")
OPTIONAL = ("ALIASES", "PACKAGE_MANAGER", "ARTIFACT_WORDS", "classify_version", "alias_extra",
            "top_folder_matches", "verify")


class Registry:
    """A registry module read through the contract: each hook is the module's own, else the
    default of this module; a name that is not a hook is an AttributeError."""

    __slots__ = ("module",)

    def __init__(self, module: ModuleType) -> None:
        missing = [name for name in REQUIRED if name not in vars(module)]
        if missing:
            raise TypeError(f"registry module {module.__name__} lacks {', '.join(missing)} (registries/base.py)")
        self.module = module

    def __getattr__(self, name: str) -> Any:
        own = vars(self.module)  # read afresh: a test may patch the module
        if name in own and (name in REQUIRED or name in OPTIONAL):
            return own[name]
        if name in OPTIONAL:
            return globals()[name]
        raise AttributeError(f"{name!r} is not a hook of the registry contract (registries/base.py)")

    def __repr__(self) -> str:
        return f"Registry({self.module.__name__})"


# --- the defaults of the optional hooks --------------------------------------------------------

ALIASES: tuple[str, ...] = ()
PACKAGE_MANAGER: str | None = None
ARTIFACT_WORDS: tuple[str, ...] = ()

_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_VERSION_CHARS = _ALNUM | frozenset(".+_!-")


def is_plain_version(version: str) -> bool:
    """Letters, digits and ``.+_!-``, starting with a letter or digit: the characters of every
    registry's versions; anything else is a range, a tag grammar or a mistake."""
    return bool(version) and version[0] in _ALNUM and set(version) <= _VERSION_CHARS


def classify_version(version: str) -> str:
    """A registry without ranges or tags: a plain version is exact, anything else INVALID_ARGUMENT."""
    if is_plain_version(version):
        return "exact"
    raise invalid(f"{version!r} is not a valid version", "version")


def alias_extra(artifact: str | None) -> str:
    """Name and version decide the file: nothing to add to the alias."""
    return ""


def top_folder_matches(artifact: Artifact, found: str) -> bool:
    """Only the folder ``Unpack.required_prefix`` names is the top folder."""
    return False


def verify(artifact: Artifact, path: Any) -> None:
    """Only a registry whose ``resolve`` returns a ``custom`` Verification checks anything here."""
    raise CodenavError("INTERNAL", f"the {artifact.registry} registry has no check for its "
                                   f"{artifact.verification.algorithm} verification")


# --- HTTP: one request, one JSON document --------------------------------------------------------

class Client:
    """How a registry talks HTTP: its name in messages (``what``), the headers every request
    carries (a User-Agent some registries require), and the package manager whose proxy and
    TLS settings apply. Every request follows https redirects only, has CODENAV_REGISTRY_TIMEOUT
    for the whole exchange and reads at most ``cap`` bytes."""

    __slots__ = ("what", "headers", "manager")

    def __init__(self, what: str, headers: dict[str, str] | None = None, manager: str | None = None) -> None:
        self.what, self.headers, self.manager = what, headers, manager

    def get(self, url: str, cap: int, *, headers: dict[str, str] | None = None, method: str = "GET") -> Response:
        """The answer, whatever its status."""
        from .. import net

        sent = {**self.headers, **(headers or {})} if self.headers else headers
        return net.request(method, url, what=self.what, headers=sent, redirects="https",
                           timeout=net.timeout_from_env("CODENAV_REGISTRY_TIMEOUT"), max_bytes=cap,
                           manager=self.manager)

    def get_ok(self, url: str, cap: int, *, headers: dict[str, str] | None = None,
               not_found: CodenavError | None = None) -> Response:
        """A 200 answer; any other status is net.status_error's (``not_found`` for a 404)."""
        from .. import net

        resp = self.get(url, cap, headers=headers)
        if resp.status != 200:
            raise net.status_error(self.what, resp, not_found=not_found)
        return resp

    def json(self, url: str, cap: int, document: str, *, headers: dict[str, str] | None = None,
             not_found: CodenavError | None = None, missing_ok: bool = False, obj: bool = False,
             body: Callable[[Response], bytes] | None = None) -> Any:
        """The JSON document at ``url``. ``document`` names it in the PROTOCOL_ERROR for a body
        that is not JSON ("{what} sent {document} that is not JSON"; with ``obj``, not a JSON
        object: anything but an object is refused). ``missing_ok``: a 404 is None. ``body``
        turns the answer into the JSON bytes (a gzip the server did not label); its
        ValueError or OSError is that PROTOCOL_ERROR too."""
        import json

        from .. import net

        resp = self.get(url, cap, headers=headers)
        if missing_ok and resp.status == 404:
            return None
        if resp.status != 200:
            raise net.status_error(self.what, resp, not_found=not_found)
        try:
            doc = json.loads(body(resp) if body is not None else resp.body)
        except (ValueError, OSError, EOFError):
            doc = _NOT_JSON
        if doc is _NOT_JSON or (obj and not isinstance(doc, dict)):
            from ..errors import protocol_error

            raise protocol_error(f"{self.what} sent {document} that is not {'a JSON object' if obj else 'JSON'}")
        return doc


_NOT_JSON = object()


# --- the endpoint ladder -------------------------------------------------------------------------

DISCOVERY_TIMEOUT = 30.0  # seconds a package manager gets to report its configuration


def clean(url: str) -> str:
    """A configured base URL without quotes, ending in one ``/``."""
    url = url.strip().strip('"').strip("'")
    return url if url.endswith("/") else url + "/"


def ladder(variables: Iterable[str], configured: Callable[[], str | None], default: str | Callable[[], str],
           *, tidy: Callable[[str], str] = clean) -> str:
    """The endpoint: the first of ``variables`` that is set (codenav's own first), else what
    ``configured()`` reads from the package manager's configuration, else ``default`` (the
    public default written once in the module, or a function that asks the package manager).
    A value from the environment or the configuration goes through ``tidy``."""
    for variable in variables:
        if os.environ.get(variable):
            return tidy(os.environ[variable])
    value = configured()
    if value:
        return tidy(value)
    return default() if callable(default) else default


def ask(argv: list[str], *, cwd: str | None = None) -> str | None:
    """A package manager's one-line answer when it is an http(s) URL, else None."""
    from ..proc import output

    value = (output(argv, DISCOVERY_TIMEOUT, cwd=cwd) or "").strip()
    return value if value.startswith(("http://", "https://")) else None


def cached(kind: str, ask_tool: Callable[[], str | None], variable: str, what: str, tool: str) -> str:
    """The endpoint ``ask_tool`` reports, asked once per cache and remembered in ``state/``
    (``endpoints.json``), so a warm call never starts npm or pip."""
    from ..paths import atomic_write, read_json, state_dir

    state = os.path.join(state_dir(), "endpoints.json")
    try:
        known = read_json(state)
    except (OSError, ValueError):
        known = {}
    if isinstance(known.get(kind), str):
        return known[kind]
    answer = None if os.environ.get("CODENAV_NO_DISCOVERY") else ask_tool()
    if not answer:
        raise CodenavError(
            "CONFIG_ERROR",
            f"no {what} is configured and {tool} could not report one; set {variable} to the registry URL",
            details={"action": f"set {variable}"},
        )
    known[kind] = clean(answer)
    import json

    os.makedirs(os.path.dirname(state), exist_ok=True)
    atomic_write(state, json.dumps(known, sort_keys=True), remake_parent=True)
    return known[kind]


def directories_up(start: str) -> list[str]:
    """``start`` and each of its parents up to the root, nearest first (where Cargo and NuGet
    look for their configuration files)."""
    found = [start]
    while os.path.dirname(found[-1]) != found[-1]:
        found.append(os.path.dirname(found[-1]))
    return found


# --- versions: the exact test, latest, and what else there is -----------------------------------

_SEMVER_WORD = _ALNUM | frozenset(".-")


def is_semver(version: str) -> bool:
    """``MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]`` with no ``v``: the exact versions of npm,
    Cargo and Hex (a range or a tag is anything else)."""
    core, plus, build = version.partition("+")
    if plus and not (build and set(build) <= _SEMVER_WORD):
        return False
    core, dash, pre = core.partition("-")
    if dash and not (pre and set(pre) <= _SEMVER_WORD):
        return False
    numbers = core.split(".")
    return len(numbers) == 3 and all(n.isascii() and n.isdigit() for n in numbers)


def latest(versions: Iterable[str], key: Callable[[str], Any], *, prerelease: Callable[[str], bool],
           withdrawn: Callable[[str], bool] | None = None) -> str | None:
    """The highest version that is neither withdrawn (yanked, retired, unlisted) nor a
    prerelease, else the highest one not withdrawn; None when there is none."""
    live = [v for v in versions if withdrawn is None or not withdrawn(v)]
    stable = [v for v in live if not prerelease(v)]
    return max(stable or live, key=key, default=None)


def nearest_first(versions: Iterable[str], requested: str | None, key: Callable[[str], Any],
                  limit: int = 20) -> list[str]:
    """Newest first; when ``requested`` parses, versions sharing more of its leading release
    numbers come first, so ``4.21.9`` suggests ``4.21.2`` before ``5.1.0``."""
    newest = sorted(set(versions), key=key, reverse=True)
    wanted = _numbers(requested) if requested else ()
    if not wanted:
        return newest[:limit]

    def shared(v: str) -> int:
        n = 0
        for a, b in zip(_numbers(v), wanted, strict=False):
            if a != b:
                break
            n += 1
        return n

    # sorted() is stable: within one "shared prefix" group the newest-first order stays.
    return sorted(newest, key=shared, reverse=True)[:limit]


def _numbers(version: str) -> tuple[int, ...]:
    """The leading release numbers: ``v4.21.9-rc1`` -> (4, 21, 9)."""
    text = version[1:] if version[:1] == "v" else version
    numbers: list[int] = []
    for part in text.split("."):
        digits = part[:len(part) - len(part.lstrip("0123456789"))]
        if not digits:
            break
        numbers.append(int(digits))
        if digits != part:
            break
    return tuple(numbers)


def version_not_found(message: str, wanted: str, choices: Iterable[str], latest: str | None,
                      key: Callable[[str], Any], note: str = "") -> CodenavError:
    """VERSION_NOT_FOUND: ``message`` ("crate 'x' has no version '9.9.9'"), then "; latest is
    …" and ``note``; ``availableVersions`` are ``choices`` nearest to ``wanted`` first."""
    return CodenavError(
        "VERSION_NOT_FOUND", message + (f"; latest is {latest}" if latest else "") + note,
        details={"availableVersions": nearest_first(choices, wanted, key), "latest": latest,
                 "action": "pick one of availableVersions, or omit the version for latest"},
    )


def require_digest(value: object, refusal: str, length: int = 64) -> str:
    """``value`` in lower case when it is ``length`` hex digits (64: a sha256); else
    INTEGRITY_ERROR "{refusal}; refusing to use it" (nothing unverified is read)."""
    if isinstance(value, str) and len(value) == length and all(c in "0123456789abcdefABCDEF" for c in value):
        return value.lower()
    raise CodenavError("INTEGRITY_ERROR", f"{refusal}; refusing to use it")
