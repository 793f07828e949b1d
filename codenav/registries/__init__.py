"""The package registries: an ordered table, one module per registry (SPEC §3).

``TABLE`` maps a target prefix to its module, in the order help texts and errors list them;
an alias prefix (``cargo:`` for ``crates:``) is accepted and echoed canonical. Modules are
imported lazily, so a call pays only for the registry it names.

A registry module provides (npm.py is the model):

  PREFIX, ALIASES, WHAT            its prefix, alias prefixes, how messages name it
  ENDPOINT_VARIABLE                codenav's own variable for its base URL
  normalize_name(name) -> str      the name as the registry keys it, or INVALID_ARGUMENT
  is_exact(version) -> bool        a version no publish can move (its alias is kept forever)
  endpoint() -> str                the discovery ladder: codenav's variable, the package
                                   manager's configuration, then the package manager itself
                                   or a public default written once in that module
  resolve(name, version) -> Artifact   indexer side: the artifact, its Unpack recipe and its
                                   Verification (registries/artifact.py)
  version_key(version) -> tuple    the ecosystem's own version order (availableVersions)
  verify(artifact, path)           only for a ``custom`` verification kind

It imports only ``os`` at module level (tests/test_registries.py checks it): a warm call
validates the name and finds the endpoint through it. Its fake lives in tests/fakes/.
Adding a registry is that module, its fake, and one line here.

The discovery helpers every ladder shares live here too (``clean``, ``ask``, ``cached``): a
package manager's answer is cached in the cache's ``state/endpoints.json``, so a warm call
never starts npm or pip — and reads no module more than it must.
"""

from __future__ import annotations

import os

from ..errors import CodenavError

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType

# prefix -> module name (one line per registry)
TABLE: dict[str, str] = {
    "npm": "npm",
    "pypi": "pypi",
    "crates": "crates",
    "go": "go",
    "maven": "maven",
    "rubygems": "rubygems",
    "nuget": "nuget",
    "hex": "hex",
    "packagist": "packagist",
}
# alias prefix -> canonical prefix
ALIASES: dict[str, str] = {"cargo": "crates", "golang": "go", "gem": "rubygems", "composer": "packagist"}


def names() -> tuple[str, ...]:
    """The canonical prefixes, in table order."""
    return tuple(TABLE)


def canonical(prefix: str) -> str | None:
    """The canonical prefix for ``prefix`` (an alias included), or None."""
    if prefix in TABLE:
        return prefix
    return ALIASES.get(prefix)


def load(prefix: str) -> ModuleType:
    """The module of registry ``prefix`` (canonical or alias); KeyError for an unknown one."""
    name = TABLE[canonical(prefix) or prefix]
    return getattr(__import__(__name__, fromlist=[name]), name)


# --- endpoint discovery, shared by the registry modules ---------------------------------------

DISCOVERY_TIMEOUT = 30.0  # seconds a package manager gets to report its configuration


def clean(url: str) -> str:
    """A configured base URL without quotes, ending in one ``/``."""
    url = url.strip().strip('"').strip("'")
    return url if url.endswith("/") else url + "/"


def redact(url: str) -> str:
    """A URL with any user:password removed, for messages."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        if parts.port:
            host += f":{parts.port}"
        return urlunsplit((parts.scheme, "***@" + host, parts.path, parts.query, parts.fragment))
    return url


def ask(argv: list[str], *, cwd: str | None = None) -> str | None:
    """A package manager's one-line answer when it is an http(s) URL, else None."""
    from ..proc import output

    value = (output(argv, DISCOVERY_TIMEOUT, cwd=cwd) or "").strip()
    return value if value.startswith(("http://", "https://")) else None


def cached(kind: str, ask_tool: Callable[[], str | None], variable: str, what: str, tool: str) -> str:
    """The endpoint ``ask_tool`` reports, asked once per cache and remembered in ``state/``."""
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
