"""Aliases: what a request resolved to (SPEC §3), read on every warm call.

An alias is ``registry|endpoint|name|version`` (the version as asked, empty for latest), plus
what else decides the file where the registry says so (PyPI's ``alias_extra``: the artifact
asked for and the machine a wheel is chosen for), and names a published entry. An exact version (the registry module's ``is_exact``) is kept
forever; a dist-tag or an omitted version is re-resolved after ``CODENAV_RESOLVE_TTL``
seconds (default 300: npm caches packuments five minutes too). Imports only ``os`` and
``time`` at load.
"""

from __future__ import annotations

import os
import time

from ..paths import read_json, root, short_hash
from ..targets import GitTarget
from . import store

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from ..targets import PackageTarget, Target

RESOLVE_TTL = 300.0  # seconds a "latest"/dist-tag resolution is reused


def alias_of(target: PackageTarget) -> tuple[str, float | None]:
    """The alias text of a request and how long its resolution may be reused (None: forever)."""
    if isinstance(target, GitTarget):
        raise TypeError("git targets are keyed by commit")
    from .. import registries

    registry = registries.load(target.registry)
    exact = target.version is not None and registry.is_exact(target.version)
    ttl = None if exact else float(os.environ.get("CODENAV_RESOLVE_TTL", RESOLVE_TTL))
    tail = registry.alias_extra(target.artifact)
    endpoint = _endpoint(target.registry, registry)
    return f"{target.registry}|{endpoint}|{target.name}|{target.version or ''}{tail}", ttl


# One call that opens many targets (tools/_many.py) asks each registry's endpoint once: npm's is
# read from its configuration files, which is 0.2 ms a target checked again for each of hundreds.
held_endpoints: dict[str, str] | None = None


class hold_endpoints:
    """``with hold_endpoints():`` each registry's endpoint is worked out once inside the block."""

    def __enter__(self) -> None:
        global held_endpoints
        self.saved, held_endpoints = held_endpoints, {} if held_endpoints is None else held_endpoints

    def __exit__(self, *exc: object) -> None:
        global held_endpoints
        held_endpoints = self.saved


def _endpoint(name: str, registry: object) -> str:
    if held_endpoints is None:
        return registry.endpoint()  # type: ignore[attr-defined]
    if name not in held_endpoints:
        held_endpoints[name] = registry.endpoint()  # type: ignore[attr-defined]
    return held_endpoints[name]


def alias_path(alias: str) -> str:
    return os.path.join(root(), "aliases", f"{short_hash(alias)}.json")


def read_alias(alias: str, resolved_since: float | None = None) -> store.Entry | None:
    """The entry an alias names, unless it expired; ``resolved_since`` (wall clock) also accepts
    an expired alias resolved at or after that time: the resolution a waiter asked for."""
    try:
        data = read_json(alias_path(alias))
    except (OSError, ValueError):
        return None
    if data.get("alias") != alias:
        return None
    expires = data.get("expires")
    if expires is not None and time.time() > expires:
        # A short TTL (CODENAV_RESOLVE_TTL=0: always resolve afresh) can expire between the
        # indexer writing the alias and its waiter reading it; the waiter still wants that answer.
        resolved = data.get("resolved")
        if resolved_since is None or not isinstance(resolved, (int, float)) or resolved < resolved_since:
            return None
    found = store.find(data["key"])
    if found is not None and isinstance(data.get("named"), dict):
        found.named = data["named"]
    return found


def write_alias(alias: str, key: str, ttl: float | None, named: dict[str, str] | None = None) -> None:
    """Record that ``alias`` resolved to entry ``key``; ``named``: the registry, name and version
    the entry holds, so a search over many targets labels each without reading its manifest."""
    import json

    from ..paths import atomic_write, cache_subdir

    now = time.time()
    data = {"alias": alias, "key": key, "expires": None if ttl is None else now + ttl, "resolved": now}
    if named is not None:
        data["named"] = named
    atomic_write(os.path.join(cache_subdir("aliases"), f"{short_hash(alias)}.json"),
                 json.dumps(data, sort_keys=True), remake_parent=True)


def cached(target: Target) -> store.Entry | None:
    """The entry a package request already resolved to; None when it must be (re)indexed, and
    for git targets, whose ref resolution is the cache's (open.open_target)."""
    if isinstance(target, GitTarget):
        return None
    return read_alias(alias_of(target)[0])
