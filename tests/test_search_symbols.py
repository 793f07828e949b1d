"""search_symbols / `codenav symbols` over cached npm and PyPI targets (SPEC §2.9, issue 16)."""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

import pytest

from codenav import cli, contract, paths, tools
from codenav.errors import CodenavError
from codenav.search.symbols import counts, query
from tests.support.cli import settle

JS = {
    "package.json": b'{"name": "demo", "version": "1.0.0"}\n',
    "index.js": b"""'use strict';
/**
 * Create an express-like application.
 */
function createApplication() {
  return new Router();
}

exports = module.exports = createApplication;
exports.Router = Router;

function Router(options) {
  this.stack = [];
}

/** Dispatch a route. */
Router.prototype.route = function route(path) {
  return path;
};
""",
    "lib/router.ts": b"""export interface RouterOptions {
  strict?: boolean;
}

export class Router {
  constructor(private options: RouterOptions) {}
  route(path: string): Route { return new Route(path); }
}

export type Handler = (req: unknown) => void;
export enum Method { Get, Post }
const routerCache = new Map<string, Router>();
""",
    "types/index.d.ts": b"""declare namespace demo {
  function router(options?: object): unknown;
}
export = demo;
""",
    "test/router.test.js": b"function Router() {}\n",
    "lib/bundle.min.js": b"!function(){}" * 5000,  # one 65 KB line: minified, skipped
    "logo.png": b"\x89PNG\r\n\x1a\n\0\0",
}
SPEC = "npm:demo@1.0.0"
DEMO = {"registry": "npm", "package_name": "demo", "version": "1.0.0", "wait_timeout_ms": 60000}

PY = {
    "demo_pkg/__init__.py": b'''"""Demo package."""
from .core import Session, request

__all__ = ["Session", "request", "get"]


def get(url, **kwargs):
    """Send a GET request."""
    return request("get", url, **kwargs)
''',
    "demo_pkg/core.py": b'''class Session:
    """A session."""

    timeout = 10

    def request(self, method, url):
        """Send a request."""
        return method, url

    class Adapter:
        def send(self):
            pass


def request(method, url):
    """Module-level request."""
    return Session().request(method, url)


def _private():
    pass
''',
    "demo_pkg/bad.py": b"def broken(:\n",
    "demo_pkg-1.0.dist-info/METADATA": b"Name: demo-pkg\nVersion: 1.0\n",
}
WHEEL = {"registry": "pypi", "package_name": "demo-pkg", "version": "1.0", "wait_timeout_ms": 60000}


@pytest.fixture()
def js(npm):
    npm.publish("demo", "1.0.0", JS)
    return npm


@pytest.fixture()
def wheel(pypi):
    pypi.add_wheel("demo-pkg", "1.0", PY)
    return pypi


def call(args: dict) -> dict:
    return tools.load("search_symbols").run(args)


def rows(result: dict) -> list[tuple]:
    return [(r["path"], r["line"], r["kind"], r.get("container", ""), r["name"]) for r in result["results"]]


def symbols_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(["symbols", *argv])
    return status, out.getvalue(), err.getvalue()


def index_files() -> list[Path]:
    return sorted(Path(paths.root(), "entries").rglob("symbols.tsv"))


def test_js_and_ts_definitions_come_back_exact_exported_and_source_first(js):
    """An exact query finds every definition of the name, exported before internal, source before tests."""
    result = call({**DEMO, "query": "Router"})
    assert result["matchMode"] == "exact"
    assert rows(result) == [
        ("index.js", 10, "variable", "", "Router"),
        ("index.js", 12, "function", "", "Router"),
        ("lib/router.ts", 5, "class", "", "Router"),
        ("types/index.d.ts", 2, "function", "demo", "router"),  # the letter case differs: after the same-case ones
        ("test/router.test.js", 1, "function", "", "Router"),  # a test, and a script that exports nothing: last
    ]
    assert result["totalResults"] == 5 and result["hasMore"] is False and result["nextCursor"] is None
    contract.validator("search_symbols", "outputSchema").validate(result)
    method = call({**DEMO, "query": "Router.route"})["results"]
    assert [(m["path"], m["line"], m["signature"], m.get("doc")) for m in method] == [
        ("index.js", 17, "Router.prototype.route = function route(path)", "Dispatch a route."),
        ("lib/router.ts", 7, "route(path: string): Route", None)]
    assert call({**DEMO, "query": "router"})["results"][0]["path"] == "types/index.d.ts"  # demo.router, by case rank


def test_the_kind_filter_and_the_path_prefix_narrow_the_results(js):
    """kind keeps only the kinds listed; path_prefix keeps one directory, never a longer name sharing its prefix."""
    assert rows(call({**DEMO, "query": "Router", "kind": ["class", "interface"]})) == [
        ("lib/router.ts", 5, "class", "", "Router")]
    assert rows(call({**DEMO, "query": "router", "match": "prefix", "kind": ["interface"]})) == [
        ("lib/router.ts", 1, "interface", "", "RouterOptions")]
    assert [r[0] for r in rows(call({**DEMO, "query": "Router", "path_prefix": "lib/"}))] == ["lib/router.ts"]
    assert call({**DEMO, "query": "Router", "path_prefix": "li"})["results"] == []


def test_prefix_is_the_fallback_when_nothing_is_exact_and_matchmode_says_so(js):
    """With no exact name, the default match returns the prefix matches and reports matchMode prefix."""
    result = call({**DEMO, "query": "createApp"})
    assert result["matchMode"] == "prefix"
    assert rows(result) == [("index.js", 5, "function", "", "createApplication")]
    assert call({**DEMO, "query": "createApp", "match": "exact"})["results"] == []
    substring = call({**DEMO, "query": "outerOpt", "match": "substring"})
    assert substring["matchMode"] == "substring" and rows(substring) == [
        ("lib/router.ts", 1, "interface", "", "RouterOptions")]
    assert call({**DEMO, "query": "router", "case_sensitive": True})["results"][0]["name"] == "router"
    none = call({**DEMO, "query": "zzz"})
    assert none["results"] == [] and "substring" in none["hint"]


def test_pages_by_cursor_cover_every_result_once(js):
    """Following nextCursor with max_results 2 returns the full ordered list, with no duplicate and no gap."""
    whole = call({**DEMO, "query": "r", "match": "substring", "max_results": 500})
    assert whole["totalResults"] > 6 and not whole["hasMore"]
    seen, cursor, pages = [], None, 0
    while True:
        page = call({**DEMO, "query": "r", "match": "substring", "max_results": 2,
                     **({"cursor": cursor} if cursor else {})})
        assert page["totalResults"] == whole["totalResults"] and len(page["results"]) <= 2
        seen += page["results"]
        pages += 1
        cursor = page["nextCursor"]
        assert page["hasMore"] is (cursor is not None)
        if cursor is None:
            break
    assert seen == whole["results"] and pages == (whole["totalResults"] + 1) // 2


def test_a_cursor_of_another_query_or_made_up_is_refused(js):
    """A cursor is tied to its query: another query's cursor or an invented one is INVALID_ARGUMENT on cursor."""
    cursor = call({**DEMO, "query": "r", "match": "substring", "max_results": 1})["nextCursor"]
    for bad in (cursor.replace(cursor[-1], "g"), "abc", "99999-" + cursor.split("-")[1]):
        with pytest.raises(CodenavError) as caught:
            call({**DEMO, "query": "r", "match": "substring", "max_results": 1, "cursor": bad})
        assert caught.value.code == "INVALID_ARGUMENT" and caught.value.details["field"] == "cursor"
    with pytest.raises(CodenavError):
        call({**DEMO, "query": "Router", "max_results": 1, "cursor": cursor})


def test_an_unparseable_file_is_counted_not_fatal(js, wheel):
    """A minified bundle and a Python syntax error are counted in filesSkipped; the other files are indexed."""
    result = call({**DEMO, "query": "Router"})
    assert (result["filesIndexed"], result["filesSkipped"]) == (4, 1)
    python = call({**WHEEL, "query": "request"})
    assert (python["filesIndexed"], python["filesSkipped"]) == (2, 1)


def test_python_wheel_results_with_containers_and_internal_names_last(wheel):
    """Python definitions keep their class chain in container; public names rank before private ones."""
    assert rows(call({**WHEEL, "query": "request"})) == [
        ("demo_pkg/core.py", 6, "method", "Session", "request"),
        ("demo_pkg/core.py", 15, "function", "", "request"),
    ]
    assert rows(call({**WHEEL, "query": "Session.Adapter.send"})) == [
        ("demo_pkg/core.py", 11, "method", "Session.Adapter", "send")]
    got = call({**WHEEL, "query": "_", "match": "prefix"})
    assert rows(got) == [("demo_pkg/core.py", 20, "function", "", "_private")]
    assert got["results"][0]["exported"] is False
    doc = call({**WHEEL, "query": "get"})["results"][0]
    assert (doc["signature"], doc["doc"], doc["endLine"]) == ("def get(url, **kwargs)", "Send a GET request.", 9)


def test_the_index_is_written_at_indexing_and_derived_on_first_use_when_missing(js):
    """A new entry carries symbols.tsv; an entry published without it gets it on the first query, same results."""
    first = call({**DEMO, "query": "Router"})
    settle()  # the indexer writes the index too, after publishing: let it finish
    (index,) = index_files()
    assert counts(str(index)) == {"files": 4, "symbols": 17, "skipped": 1, "other": 0}
    before = index.read_bytes()
    index.unlink()  # as an entry cached before the symbol index existed
    assert call({**DEMO, "query": "Router"}) == first
    assert index.read_bytes() == before
    assert not [p for p in index.parent.iterdir() if p.name.endswith(".tmp")]


def test_plain_cli_prints_path_line_kind_qualified_name_and_signature(js):
    """Plain output is one `path:line:kind:container.name  signature` line per result; exit 1 when none."""
    status, out, err = symbols_cli(SPEC, "route", "--kind", "method", "--kind", "function", "--wait", "60000")
    assert status == 0, err
    assert out == ("index.js:17:method:Router.route  Router.prototype.route = function route(path)\n"
                   "lib/router.ts:7:method:Router.route  route(path: string): Route\n")
    status, out, err = symbols_cli(SPEC, "Router", "lib", "--max", "1", "--case-sensitive")
    assert (status, out) == (0, "lib/router.ts:5:class:Router  export class Router\n")
    status, out, err = symbols_cli(SPEC, "zzz")
    assert (status, out) == (1, "") and "no definition found" in err
    status, out, err = symbols_cli(SPEC, "Router", "--max", "2")
    assert out.count("\n") == 2 and "--cursor " in err  # the hint in the CLI's words


def test_cli_json_equals_the_tool_result_and_bad_values_are_invalid_arguments(js):
    """--json prints the envelope; --max x and an unknown kind are INVALID_ARGUMENT with exit 2."""
    status, out, _ = symbols_cli(SPEC, "Router", "--json", "--wait", "60000")
    assert status == 0 and json.loads(out) == call({**DEMO, "query": "Router"})
    for argv, field in ((["--max", "x"], "max_results"), (["--kind", "widget"], "kind"),
                        (["--match", "fuzzy"], "match")):
        status, out, _ = symbols_cli(SPEC, "Router", *argv, "--json")
        assert status == 2
        assert json.loads(out)["error"]["details"]["field"] == field


def test_results_are_cut_to_the_output_budget_with_a_cursor_to_go_on(npm):
    """Many long signatures are cut at the budget before max_results; the cursor resumes after the last shown."""
    body = "".join(f"export function handler{i}(" + ", ".join(f"argument{j}: string" for j in range(8)) + ") {}\n"
                   for i in range(400))
    npm.publish("wide", "1.0.0", {"index.ts": body.encode()})
    args = {"registry": "npm", "package_name": "wide", "version": "1.0.0", "wait_timeout_ms": 60000,
            "query": "handler", "match": "prefix", "max_results": 500}
    first = call(args)
    assert first["totalResults"] == 400 and first["hasMore"] and 50 < len(first["results"]) < 400
    assert len(contract.dumps(first).encode()) <= 50 * 1024
    second = call({**args, "cursor": first["nextCursor"]})
    assert second["results"][0]["name"] != first["results"][-1]["name"]
    names = [r["name"] for r in first["results"] + second["results"]]
    assert len(set(names)) == len(names)


def test_query_reads_past_the_counts_line(tmp_path):
    """The counts line at the end of an index is never returned as a symbol, even for an empty prefix."""
    from codenav.search.symbols import build_index

    out = tmp_path / "symbols.tsv"
    build_index([("a.py", b"def f(): pass\n")], str(out))
    assert [s.name for s in query(str(out), "", match="prefix")] == ["a", "f"]
    assert counts(str(out)) == {"files": 1, "symbols": 2, "skipped": 0, "other": 0}
    os.truncate(out, out.stat().st_size - len(out.read_text().split("\n")[-2]) - 1)
    assert counts(str(out)) is None


# One definition named ``probe`` (any letter case) that each extractor reads.
PROBES = {"python": b"def probe():\n    pass\n", "javascript": b"export function probe() {}\n",
          "rust": b"pub fn probe() {}\n", "go": b"package p\n\nfunc Probe() {}\n",
          "php": b"<?php\nfunction probe() {}\n", "java": b"class Probe {}\n", "kotlin": b"fun probe() {}\n",
          "ruby": b"def probe\nend\n", "csharp": b"class Probe {}\n", "elixir": b"defmodule Probe do\nend\n"}


def test_every_file_search_symbols_indexes_is_listed_with_its_language(npm):
    """One file per extension of the language table: list_files gives each a language, and exactly the files
    whose language has an extractor are indexed (among them .ex, .exs, .kts, .rake and .gemspec)."""
    from codenav import text
    from codenav.search.symbols import EXTRACTORS

    assert set(EXTRACTORS) <= set(text._LANGUAGES.values())  # no extractor waits for a language never listed
    files = {"package.json": b'{"name": "demo", "version": "1.0.0"}\n'}
    for suffix, name in text._LANGUAGES.items():
        files[f"src/probe{suffix}"] = PROBES.get(EXTRACTORS.get(name, ""), b"probe\n")
    npm.publish("demo", "1.0.0", files)
    listed = {f["path"]: f["language"] for f in tools.load("list_files").run(DEMO)["files"]}
    found = call({**DEMO, "query": "probe", "max_results": 500})
    indexed = {r["path"] for r in found["results"]}
    assert indexed == {path for path, name in listed.items() if name in EXTRACTORS}
    assert found["filesIndexed"] == len(indexed) and found["filesSkipped"] == 0
    assert {suffix: listed[f"src/probe{suffix}"] for suffix in (".ex", ".exs", ".kts", ".rake", ".gemspec")} == {
        ".ex": "Elixir", ".exs": "Elixir", ".kts": "Kotlin", ".rake": "Ruby", ".gemspec": "Ruby"}
    assert len(indexed) >= 23
