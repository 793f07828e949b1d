"""Symbol indexes kept in memory by the MCP server answer exactly as a scan of the file does."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codenav.search import symbols
from codenav.search.symbols import build_index, query

DATA = Path(__file__).parent / "data" / "symbols"

EXTRA = {
    "lib/case.py": (
        "class Router:\n    def route(self): pass\n    def Route(self): pass\n"
        "def router(): pass\ndef ROUTER_X(): pass\n"
        "ΑΣ = 1\nΑΣΒ = 2\nστάση = 3\nİx = 4\n"
        "class Outer:\n    class Inner:\n        def route(self): pass\n"
    ),
    "tests/test_case.py": "def route(): pass\ndef router_test(): pass\n",
    "src/a.ts": "export function route(): void {}\nexport class Router {}\nconst routeLocal = 1;\n",
}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> str:
    files = sorted((str(p.relative_to(DATA)), p.read_bytes()) for p in DATA.rglob("*") if p.is_file())
    files += [(path, text.encode()) for path, text in EXTRA.items()]
    out = tmp_path_factory.mktemp("symbols") / "symbols.tsv"
    build_index(iter(files), str(out))
    return str(out)


def _queries(index: str) -> list[str]:
    names = sorted({s.name for s in query(index, "", "prefix")})
    texts = {"", "r", "R", "route", "Route", "ROUTE", "router", "rout", "Outer.Inner", "Inner.route", "ΑΣ", "ας",
             "στ", "İ", "i", "zzz-none"}
    for name in names[::12]:
        texts.update({name, name[:2], name.lower(), name.upper(), name[1:4]})
    return sorted(texts)


def _both(index: str, *args, **kwargs):
    symbols._MEMORY = None
    scanned = query(index, *args, **kwargs)
    symbols.keep_indexes_in_memory()
    try:
        kept = query(index, *args, **kwargs)
        again = query(index, *args, **kwargs)  # the second query is served from memory
    finally:
        symbols._MEMORY = None
    return scanned, kept, again


def test_every_query_kept_in_memory_equals_the_scan_of_the_file(index: str) -> None:
    """For every mode, case rule, kind filter and path prefix, memory gives the scan's results in its order."""
    checked = 0
    combinations = [(match, case_sensitive, None, "") for match in ("exact", "prefix", "substring")
                    for case_sensitive in (False, True)]
    combinations += [("prefix", False, ["method", "function"], ""), ("prefix", True, None, "lib/")]
    for text in _queries(index):
        for match, case_sensitive, kinds, prefix in combinations:
            scanned, kept, again = _both(index, text, match, case_sensitive, kinds, prefix)
            assert kept == scanned == again, (text, match, case_sensitive, kinds, prefix)
            checked += bool(scanned)
    assert checked > 150  # the queries do find things: the comparison is not between empty lists


def test_a_rewritten_index_is_read_again_and_only_a_few_are_kept(index: str, tmp_path: Path) -> None:
    """A new file under the same path is noticed (inode, size, mtime), and at most eight indexes stay in memory."""
    symbols.keep_indexes_in_memory()
    try:
        copy = tmp_path / "copy.tsv"
        build_index(iter([("a.py", b"def first(): pass\n")]), str(copy))
        assert [s.name for s in query(str(copy), "first")] == ["first"]
        fresh = tmp_path / "fresh.tsv"
        build_index(iter([("a.py", b"def second(): pass\n")]), str(fresh))
        os.replace(fresh, copy)
        assert [s.name for s in query(str(copy), "first")] == []
        assert [s.name for s in query(str(copy), "second")] == ["second"]
        for n in range(12):
            other = tmp_path / f"i{n}.tsv"
            build_index(iter([("a.py", f"def f{n}(): pass\n".encode())]), str(other))
            assert [s.name for s in query(str(other), f"f{n}")] == [f"f{n}"]
        assert len(symbols._MEMORY) == symbols._MEMORY_ENTRIES
        assert str(tmp_path / "i11.tsv") in symbols._MEMORY and str(copy) not in symbols._MEMORY
    finally:
        symbols._MEMORY = None


def test_large_javascript_files_in_arrays_give_the_same_symbols(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tokens kept in arrays (the form for texts over COMPACT_FROM_CHARS) give the real
    JavaScript and TypeScript files of the test data, and the samples of test_symbols, exactly
    the symbols the tuples give."""
    from codenav.search.symbols import javascript, javascript_tokens
    from tests.support.samples import JS_SOURCE, TS_SOURCE

    sources = [(str(p), p.read_bytes()) for p in DATA.rglob("*")
               if p.is_file() and p.name.endswith((".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"))]
    sources += [("lib/app.js", JS_SOURCE.encode()), ("src/widget.ts", TS_SOURCE.encode()),
                ("src/view.tsx", b"export const View = () => <div a={`x${1}`}>{/re/g}</div>;\nexport class A {}\n")]
    assert len(sources) >= 7
    as_tuples = [javascript.extract(path, data) for path, data in sources]
    assert sum(map(len, as_tuples)) > 150
    monkeypatch.setattr(javascript_tokens, "COMPACT_FROM_CHARS", 0)
    assert isinstance(javascript_tokens._Tokens("var a;").tokens, javascript_tokens._CompactTokens)
    assert [javascript.extract(path, data) for path, data in sources] == as_tuples
