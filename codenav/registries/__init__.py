"""The package registries: an ordered table, one module per registry (SPEC §3).

``TABLE`` maps a target prefix to its module, in the order help texts and errors list them;
an alias prefix (``cargo:`` for ``crates:``) is accepted and echoed canonical. Modules are
imported lazily, so a call pays only for the registry it names. ``load`` gives a module seen
through the registry contract (registries/base.py: every hook, its default, and how to add a
registry), which is how the rest of codenav reads a registry.
"""

from __future__ import annotations

from .base import Registry

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
    "conda": "conda",
    "cran": "cran",
    "pub": "pub",
}
# alias prefix -> canonical prefix
ALIASES: dict[str, str] = {"cargo": "crates", "golang": "go", "gem": "rubygems", "composer": "packagist",
                          "conda-forge": "conda", "dart": "pub"}


def names() -> tuple[str, ...]:
    """The canonical prefixes, in table order."""
    return tuple(TABLE)


def listed(aliases: bool = False) -> str:
    """The prefixes in table order as prose names them, ``npm, pypi, crates (cargo), …`` with
    ``aliases``: the one list the server's instructions and the skill print (no second copy)."""
    def name(prefix: str) -> str:
        extra = [alias for alias, canonical in ALIASES.items() if canonical == prefix] if aliases else []
        return f"{prefix} ({', '.join(extra)})" if extra else prefix

    return ", ".join(name(prefix) for prefix in TABLE)


def canonical(prefix: str) -> str | None:
    """The canonical prefix for ``prefix`` (an alias included), or None."""
    if prefix in TABLE:
        return prefix
    return ALIASES.get(prefix)


_LOADED: dict[str, Registry] = {}  # one wrapper a module: the contract checked once (it reads the module afresh)


def load(prefix: str) -> Registry:
    """Registry ``prefix`` (canonical or alias) through its contract; KeyError for an unknown one."""
    name = TABLE[canonical(prefix) or prefix]
    module = getattr(__import__(__name__, fromlist=[name]), name)
    loaded = _LOADED.get(name)
    if loaded is None or loaded.module is not module:
        loaded = _LOADED[name] = Registry(module)
    return loaded
