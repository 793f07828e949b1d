"""Ranking for lockfiles laid out like node_modules (npm's ``packages``, bun's ``packages``).

Both formats key every copy by its install path, so the copy an importer uses is found the way
Node resolves ``require(name)``: the importer's own nested copy first, then the root's hoisted
one (lockfiles.md §4.1, §7). The format modules turn their file into ``Copy`` rows and importer
declarations; this module assigns the tiers of §2.
"""

from __future__ import annotations

from ._common import (
    ALIAS,
    HOISTED,
    ROOT_DIRECT,
    TRANSITIVE,
    Candidate,
    importer_tiers,
)


class Copy:
    """One install path: the folder's name, the real package name, its version and source."""

    __slots__ = ("key", "installed", "name", "version", "source", "ref")

    def __init__(self, key: str, installed: str, name: str, version: str | None, source: str,
                 ref: str | None) -> None:
        self.key, self.installed, self.name = key, installed, name
        self.version, self.source, self.ref = version, source, ref


def rank(name: str, copies: dict[str, Copy], importers: dict[str, dict], rel: str,
         nested_key, hoisted_key) -> list[Candidate]:
    """Candidates for ``name``.

    ``importers`` maps an importer path ('.' for the root) to the ranges it declares;
    ``nested_key(importer, dep)`` is the key of the importer's own copy of dep (or None);
    ``hoisted_key(dep)`` the root's copy.
    """
    tier: dict[str, int] = {}
    for key, copy in copies.items():
        if copy.name == name and copy.installed == name:
            tier[key] = HOISTED if key == hoisted_key(name) else TRANSITIVE
        elif copy.name == name or copy.installed == name:
            tier[key] = ALIAS
    levels = importer_tiers(rel, importers)
    for imp, declared in importers.items():
        spec = declared.get(name)
        if spec is None or str(spec).startswith("npm:"):  # an alias is not the package itself
            continue
        nested = nested_key(imp, name)
        key = nested if nested in copies else hoisted_key(name)
        if key not in copies or copies[key].name != name:
            continue
        tier[key] = min(tier.get(key, TRANSITIVE), levels[imp])
    out = []
    for key, level in tier.items():
        copy = copies[key]
        alias = copy.installed if copy.installed != copy.name else None
        out.append(Candidate(copy.name, copy.version, key, level, copy.source, copy.ref, alias))
    return out


def every(copies: dict[str, Copy], importers: dict[str, dict], nested_key, hoisted_key) -> list[Candidate]:
    """Every copy once, the ones an importer declares (aliases included) at ``ROOT_DIRECT``."""
    direct: set[str] = set()
    for imp, declared in importers.items():
        for dep in declared:
            nested = nested_key(imp, dep)
            key = nested if nested in copies else hoisted_key(dep)
            if key in copies:
                direct.add(key)
    out = []
    for key, copy in copies.items():
        alias = copy.installed if copy.installed != copy.name else None
        out.append(Candidate(copy.name, copy.version, key, ROOT_DIRECT if key in direct else TRANSITIVE,
                             copy.source, copy.ref, alias))
    return out
