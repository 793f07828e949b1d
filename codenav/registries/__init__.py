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
"""

from __future__ import annotations

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from types import ModuleType

# prefix -> module name (one line per registry)
TABLE: dict[str, str] = {
    "npm": "npm",
    "pypi": "pypi",
    "go": "go",
}
# alias prefix -> canonical prefix
ALIASES: dict[str, str] = {"golang": "go"}


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
