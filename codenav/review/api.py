"""The ``api`` part: public definitions added, removed and changed (SPEC §2.8.1).

Read from each version's symbol index (search/symbols, the ``symbols.tsv`` sidecar, derived on
first use like search_symbols does), through its public ``parse_line`` and ``is_test_path``.
What is public, per language (the index's ``exported`` flag is each extractor's reading of the
language's visibility; this module adds what is about the package, not the file):

- JavaScript/TypeScript: what the package's entry points export, as Node resolves them
  (``exports``/``main``, and the ``types`` declarations) — api_js.py;
- Python: ``exported`` definitions (``__all__``, else no leading ``_``) of modules that are not
  tests and not private (no path part starting with ``_`` but ``__init__``); a module's ``.pyi``
  stands for its ``.py``;
- Rust: ``pub`` items under ``src/`` outside binaries (``src/main.rs``, ``src/bin/``);
- Go: capitalised identifiers of packages that are not ``main``, ``internal`` or test code;
- Java, Kotlin, C#, Ruby, Elixir, PHP: the index's ``exported``, test code left out.

A registry's artifact is read in its own language only (npm: JS/TS, PyPI: Python, crates:
Rust, …); a git tree in all. A definition's identity is ``(unit, container, name)`` — the unit
is the Python module, Rust module path, Go package directory, JS entry, or (for the languages
whose containers are already qualified) nothing — so ``changed`` means same name and container,
another kind or signature. Overloads are one definition with their signatures joined by `` | ``.
"""

from __future__ import annotations

import os

from .model import Definition

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from ..search.symbols import Symbol
    from .side import Side

SIDECAR = "symbols.tsv"
LANGUAGES = {"npm": ("javascript",), "pypi": ("python",), "crates": ("rust",), "go": ("go",),
             "maven": ("java", "kotlin"), "rubygems": ("ruby",), "nuget": ("csharp",), "hex": ("elixir",),
             "packagist": ("php",)}
_NOT_API_DIRS = ("docs", "doc", "examples", "example", "benchmarks", "bench", "testdata", "fixtures")


def index_symbols(entry: Any) -> tuple[list[Symbol], dict[str, int]]:
    """Every symbol of ``entry``'s index and the counts its build recorded."""
    from ..search.symbols import HEADER, counts, language, parse_line
    from ..search.symbols.sidecar import write

    if entry.ranged and not os.path.exists(entry.sidecar_path(SIDECAR)):
        from ..cache import lazy

        lazy.ensure(entry, [r.path for r in entry.files() if not r.binary and r.link is None
                            and language(r.path) is not None], "the symbol index")
    index = entry.sidecar(SIDECAR, write)
    symbols = []
    with open(index, encoding="utf-8", newline="\n") as handle:
        if handle.readline() != HEADER:
            raise ValueError("the symbol index is of another format version")
        for line in handle:
            if line[0] != "\t":
                symbols.append(parse_line(line))
    return symbols, counts(index) or {}


def definitions(side: Side, symbols: list[Symbol]) -> tuple[dict[tuple, list[Definition]], list[str]]:
    """The public definitions of one version, by identity; and notes on what was left out."""
    from ..search.symbols import language

    wanted = LANGUAGES.get(side.registry or "", None)
    by_lang: dict[str, list[Symbol]] = {}
    for symbol in symbols:
        lang = language(symbol.path)
        if lang is not None and (wanted is None or lang in wanted):
            by_lang.setdefault(lang, []).append(symbol)
    out: dict[tuple, list[Definition]] = {}
    notes: list[str] = []
    for lang, group in sorted(by_lang.items()):
        if lang == "javascript" and "package.json" in side.rows:
            from . import api_js

            found, js_notes = api_js.definitions(side, group)
            notes += js_notes
        else:
            found = list(_generic(lang, group))
        for definition in found:
            out.setdefault(definition.key, []).append(definition)
    return out, notes


def _excluded(path: str) -> bool:
    from ..search.symbols import is_test_path

    parts = path.split("/")
    return is_test_path(path) or any(p in _NOT_API_DIRS for p in parts[:-1])


def python_module(path: str) -> str | None:
    """The dotted module of a Python file, or None when it is not a public module's."""
    parts = path.split("/")
    if parts[0].endswith((".dist-info", ".data")) or parts[-1] in ("setup.py", "conftest.py", "noxfile.py"):
        return None
    if parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    stem = parts[-1].rsplit(".", 1)[0]
    if stem == "__init__":
        parts = parts[:-1]
    else:
        parts = parts[:-1] + [stem]
    if not parts or any(p.startswith("_") for p in parts) or any("-" in p or "." in p for p in parts):
        return None
    return ".".join(parts)


def _generic(lang: str, symbols: list[Symbol]) -> Iterator[Definition]:
    go_main = {s.path.rsplit("/", 1)[0] if "/" in s.path else "" for s in symbols
               if lang == "go" and s.kind == "module" and s.name == "main"}
    stubs = {python_module(s.path) for s in symbols if lang == "python" and s.path.endswith(".pyi")}
    for s in symbols:
        if s.exported is not True or _excluded(s.path):
            continue
        directory = s.path.rsplit("/", 1)[0] if "/" in s.path else ""
        qualified = f"{s.container}.{s.name}" if s.container else s.name
        if lang == "python":
            module = python_module(s.path)
            if module is None or (module in stubs and not s.path.endswith(".pyi")) or s.kind == "module":
                continue
            unit, name = module, f"{module}.{qualified}"
        elif lang == "rust":
            unit = rust_module(s.path)
            if unit is None:
                continue
            name = f"{unit}::{qualified}" if unit else qualified
        elif lang == "go":
            parts = s.path.split("/")
            if (s.path.endswith("_test.go") or directory in go_main or "internal" in parts[:-1]
                    or "vendor" in parts[:-1] or s.kind == "module"):
                continue
            unit, name = directory, f"{directory or '.'}.{qualified}"
        elif lang in ("java", "kotlin"):
            if s.path.startswith("src/test/") or s.kind == "namespace":
                continue
            unit, name = directory, qualified
        elif lang == "javascript":
            unit, name = s.path.rsplit(".", 1)[0], qualified
        else:  # Ruby, Elixir, PHP, C#: the container holds the namespace
            if s.kind == "namespace":
                continue
            unit, name = "", qualified
        yield Definition((lang, unit, s.container, s.name), name, s.kind, s.path, s.line, s.signature)


def rust_module(path: str) -> str | None:
    """``a::b`` for ``src/a/b.rs`` or ``src/a/b/mod.rs``, ``""`` for ``src/lib.rs``; None off the library."""
    if not path.startswith("src/") or path == "src/main.rs" or path.startswith("src/bin/"):
        return None
    parts = path[4:-3].split("/") if path.endswith(".rs") else None
    if not parts:
        return None
    if parts[-1] in ("lib", "mod"):
        parts = parts[:-1]
    return "::".join(parts)


def _summary(group: list[Definition]) -> tuple[str, str]:
    kinds = sorted({d.kind for d in group})
    signatures = sorted({d.signature for d in group if d.signature})
    return "/".join(kinds), " | ".join(signatures)


def _where(d: Definition, signature: str) -> dict[str, Any]:
    out: dict[str, Any] = {"path": d.path, "line": d.line}
    if signature:
        out["signature"] = signature
    return out


def compare(old: dict[tuple, list[Definition]], new: dict[tuple, list[Definition]]) -> dict[str, list[dict[str, Any]]]:
    """``{added, removed, changed}``, each sorted by name then path."""
    added, removed, changed = [], [], []
    for key in old.keys() | new.keys():
        a, b = old.get(key), new.get(key)
        if a is None or b is None:
            group = sorted(a or b or [], key=lambda d: (d.path, d.line))
            kind, signature = _summary(group)
            item = {"kind": kind, "name": group[0].name, **_where(group[0], signature)}
            (added if a is None else removed).append(item)
            continue
        (kind_a, sig_a), (kind_b, sig_b) = _summary(a), _summary(b)
        if (kind_a, sig_a) != (kind_b, sig_b):
            first_a, first_b = min(a, key=lambda d: (d.path, d.line)), min(b, key=lambda d: (d.path, d.line))
            item = {"kind": kind_b, "name": first_b.name, "from": _where(first_a, sig_a), "to": _where(first_b, sig_b)}
            if kind_a != kind_b:
                item["fromKind"] = kind_a
            changed.append(item)

    def order(item: dict[str, Any]) -> tuple:
        return item["name"], item.get("path") or item["to"]["path"]

    return {"added": sorted(added, key=order), "removed": sorted(removed, key=order),
            "changed": sorted(changed, key=order)}


def compute(old: Side, new: Side) -> dict[str, Any]:
    """The api part of two versions: ``{added, removed, changed, notes}``."""
    notes: list[str] = []
    sides = []
    for side in (old, new):
        symbols, recorded = index_symbols(side.entry)
        found, side_notes = definitions(side, symbols)
        if recorded.get("skipped"):
            notes.append(f"{side.label}: {recorded['skipped']} source files could not be parsed and are not read")
        notes += [f"{side.label}: {n}" for n in side_notes]
        sides.append(found)
    return {**compare(*sides), "notes": notes}
