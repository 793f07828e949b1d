"""Upgrade review: what moving from one version to another changes, read from the artifacts.

``build(old_entry, new_entry)`` computes the five parts of SPEC §2.8.1 from two published cache
entries (a registry release or a git commit each) and returns them whole; ``page(review,
cursor)`` fits them into the output budget (SPEC §5) with a cursor, the counts of every part
on each page. Each part is computed on its own and says when it could not be and why
(``status: "unavailable"`` and a ``reason``); nothing one part lacks fails the others or
the call. Parts, in the order they are shown: ``supplyChain`` (supply.py), ``advisories``
(advisories.py over remotes/osv.py), ``dependencies`` (manifests.py, dependencies.py),
``api`` (api.py, api_js.py), ``changelog`` (changelog.py). ``review_text`` (render.py) is the
person's reading of it.
"""

from __future__ import annotations

from ..errors import CodenavError, invalid
from .render import review_text

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .side import Side

__all__ = ["build", "page", "review_text"]

PARTS = ("supplyChain", "advisories", "dependencies", "api", "changelog")
# The lists of each part, in the order a page is filled.
LISTS = (("supplyChain", "findings"), ("advisories", "fixed"), ("advisories", "affecting"),
         ("dependencies", "removed"), ("dependencies", "changed"), ("dependencies", "added"),
         ("api", "removed"), ("api", "changed"), ("api", "added"), ("changelog", "entries"))
# manifest format -> (registry prefix, OSV ecosystem): a git tree's package, for advisories and versions
_FORMAT_REGISTRY = {"package.json": "npm", "METADATA": "pypi", "pyproject.toml": "pypi", "Cargo.toml": "crates",
                    "go.mod": "go", "pom.xml": "maven", "gemspec": "rubygems", "nuspec": "nuget", "mix.exs": "hex",
                    "composer.json": "packagist"}


def _unavailable(reason: str) -> dict[str, Any]:
    return {"status": "unavailable", "reason": reason}


def _guarded(compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """A part, or why it could not be computed (its failure never fails the review)."""
    try:
        return {"status": "complete", **compute()}
    except CodenavError as exc:
        return _unavailable(exc.message)
    except (OSError, ValueError) as exc:
        return _unavailable(f"{type(exc).__name__} while reading the artifacts")


def _package(old: Side, new: Side, old_m: list[Any], new_m: list[Any]) -> tuple[str | None, str | None, str, str, str]:
    """(registry prefix, package name, from version, to version, where that came from)."""
    if new.registry:
        return new.registry, new.target.get("name"), old.target.get("version", ""), new.target.get("version", ""), \
            "the registry"
    from .changelog import version_in

    for fmt in _FORMAT_REGISTRY:
        a = next((m for m in old_m if m.format == fmt and not m.error), None)
        b = next((m for m in new_m if m.format == fmt and not m.error), None)
        if b is None or not b.name:
            continue
        versions = []
        for side, manifest in ((old, a), (new, b)):
            stated = manifest.version if manifest is not None else None
            ref = side.target.get("gitRef") or ""
            versions.append(stated or (version_in(ref) if version_in(ref) and ref.lstrip("v")[:1].isdigit() else ""))
        return _FORMAT_REGISTRY[fmt], b.name, versions[0], versions[1], b.path
    return None, None, "", "", ""


def _version_key(registry: str | None) -> Callable[[str], Any]:
    from .changelog import generic_key

    if registry:
        from .. import registries

        module = registries.load(registry)
        if hasattr(module, "version_key"):
            return module.version_key
    return generic_key


def build(old_entry: Any, new_entry: Any) -> tuple[dict[str, Any], list[str]]:
    """Every part of the review, whole; and the warnings to put on the result."""
    from . import api, changelog, dependencies, manifests, supply
    from .side import Side

    warnings: list[str] = []
    for entry in (old_entry, new_entry):
        if getattr(entry, "ranged", False):  # text members fetched by range up front, in as few requests as allowed
            from ..cache import lazy

            try:
                lazy.ensure(entry, [r.path for r in entry.files() if r.link is None and r.skipped is None
                                    and not r.binary], "the review")
            except CodenavError as exc:
                warnings.append(f"{entry.target.get('version', '')}: {exc.message}; parts that read its files may be "
                                f"unavailable")
    old, new = Side(old_entry), Side(new_entry)
    old_m, new_m = manifests.read(old), manifests.read(new)
    registry, name, v_old, v_new, source = _package(old, new, old_m, new_m)
    parts: dict[str, Any] = {
        "supplyChain": _guarded(lambda: {"findings": supply.compute(old, new, old_m, new_m)}),
        "advisories": _advisories(registry, name, v_old, v_new, source, bool(new.registry), warnings),
        "dependencies": (_guarded(lambda: _without_empty(dependencies.compute(old_m, new_m)))
                         if old_m or new_m else _unavailable("neither version ships a manifest codenav reads "
                                                             "(package.json, METADATA, Cargo.toml, go.mod, a POM, "
                                                             "a gemspec, a nuspec, mix.exs, composer.json)")),
        "api": _guarded(lambda: _without_empty(api.compute(old, new))),
        "changelog": _changelog(old, new, registry, v_old, v_new, changelog),
    }
    return parts, warnings


def _without_empty(part: dict[str, Any]) -> dict[str, Any]:
    if not part.get("notes"):
        part.pop("notes", None)
    return part


def _advisories(registry: str | None, name: str | None, v_old: str, v_new: str, source: str, is_registry: bool,
                warnings: list[str]) -> dict[str, Any]:
    from ..remotes import osv

    try:
        root = osv.root()
    except CodenavError as exc:
        warnings.append(f"advisories: {exc.message}")
        return _unavailable(exc.message)
    if root is None:
        return {"status": "off", "reason": f"{osv.URL_VARIABLE}=off: OSV is not asked"}
    if registry is None or not name:
        return _unavailable("the repository is not a known package's: no manifest names one")
    if not (v_old and v_new):
        return _unavailable(f"the versions of {name} at the two refs are unknown (neither the manifest nor the ref "
                            f"states one)")
    package = {"ecosystem": osv.ECOSYSTEMS[registry], "name": name, "from": v_old, "to": v_new}
    if not is_registry:
        package["source"] = source
    from . import advisories

    try:
        found = advisories.compute(package["ecosystem"], name, v_old, v_new, _version_key(registry))
    except CodenavError as exc:
        warnings.append(f"advisories are missing: OSV could not be asked ({exc.message})")
        return {**_unavailable(f"OSV could not be asked: {exc.message}"), "package": package}
    return {"status": "complete", "package": package, **found}


def _changelog(old: Side, new: Side, registry: str | None, v_old: str, v_new: str, changelog: Any) -> dict[str, Any]:
    path = changelog.find(new)
    side = new
    if path is None:
        path, side = changelog.find(old), old
    if path is None:
        return _unavailable("neither version ships a changelog (CHANGELOG, CHANGES, HISTORY, NEWS, RELEASES)")
    if not (v_old and v_new):
        return {**_unavailable("the versions at the two refs are unknown, so no entry can be placed in range"),
                "file": path}

    def compute() -> dict[str, Any]:
        text = side.text(path)
        if text is None:
            raise CodenavError("TOO_LARGE", f"{path} is too large to read as a changelog")
        found = changelog.entries(text, v_old, v_new, _version_key(registry))
        out: dict[str, Any] = {"file": path, "entries": found}
        if side is old:
            out["notes"] = [f"{v_new} ships no changelog; this is {v_old}'s"]
        elif not any(e["version"] == v_new for e in found):
            out["notes"] = [f"{path} has no entry headed {v_new}"]
        return out

    return _guarded(compute)


def counts(parts: dict[str, Any]) -> dict[str, Any]:
    """How many items each part holds (every page carries these)."""
    out: dict[str, Any] = {}
    for part, name in LISTS:
        if parts[part].get("status") == "complete":
            out.setdefault(part, {})[name] = len(parts[part].get(name, ()))
    return out


def _fingerprint(parts: dict[str, Any]) -> str:
    from zlib import crc32

    from .. import contract

    return f"{crc32(contract.dumps(parts).encode('utf-8')):08x}"


def page(shell: dict[str, Any], parts: dict[str, Any], cursor: str | None, whole: bool = False) -> dict[str, Any]:
    """The result page starting at ``cursor``: whole when ``whole``, else fitted to SPEC §5's budget."""
    from .. import budget

    items = [(part, name, item) for part, name in LISTS for item in parts[part].get(name, ())]
    mark = _fingerprint(parts)
    start = 0
    if cursor is not None:
        number, _, got = cursor.partition("-")
        if not number.isdigit() or got != mark or int(number) > len(items):
            raise invalid("the cursor is not one this review gave out, or the review changed since (new "
                          "advisories); start again without a cursor", "cursor")
        start = int(number)
    paged = set(LISTS)
    heads = {part: {k: ([] if (part, k) in paged else v) for k, v in body.items()} for part, body in parts.items()}
    result = {**shell, "view": "review", "counts": counts(parts), "review": heads, "hasMore": False}
    end = len(items) if whole else start
    if not whole:
        used = budget.json_size(result) + 400  # room for the cursor and the hint
        lines = 40
        while end < len(items):
            size = budget.json_size(items[end][2]) + 1
            if end > start and (used + size > budget.BUDGET_BYTES or lines + 8 > budget.BUDGET_LINES):
                break
            used += size
            lines += 8  # a pretty-printed item is a few lines
            end += 1
    for part, name, item in items[start:end]:
        heads[part][name].append(item)
    if end < len(items):
        result["hasMore"] = True
        result["nextCursor"] = f"{end}-{mark}"
        result["hint"] = (f"showing review items {start + 1}-{end} of {len(items)}; call again with the same "
                          f"arguments and cursor \"{result['nextCursor']}\" for the rest")
    return result
