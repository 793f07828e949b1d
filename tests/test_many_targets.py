"""grep_repo and search_symbols over several targets (issue 23 item 3, SPEC §2.12): the union of
the one-target searches, one cursor across them, a failing target set aside, the project's
locked dependencies as the targets, cold targets fetched concurrently, both surfaces."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from codenav.errors import CodenavError
from codenav.tools import grep_repo, list_deps, search_symbols
from tests.fakes.http import FakeServer
from tests.fakes.npm import FakeNpm
from tests.support.cli import isolated_subprocess_env, run_cli
from tests.support.mcp import McpSession, check

PACKAGES = {
    ("alpha", "1.0.0"): {"index.js": b"function needle() {}\nneedle();\n// needle again\n",
                         "lib/x.js": b"exports.needleLong = 1;\n", "lib/y.js": b"no match here\n"},
    ("beta", "2.0.0"): {"index.js": b"const needle = 1;\nmodule.exports = needle;\n"},
    ("gamma", "3.1.0"): {"a.js": b"class Needle {}\n", "b/needle.js": b"x\nNEEDLE\nneedle\n"},
}
TARGETS = ["npm:alpha@1.0.0", "npm:beta@2.0.0", "npm:gamma@3.1.0"]
MISSING = "npm:absent@1.0.0"


def _publish(fake: FakeNpm) -> None:
    for (name, version), files in PACKAGES.items():
        fake.publish(name, version, files)


@pytest.fixture
def registry(monkeypatch):
    with FakeServer() as server:
        fake = FakeNpm(server)
        _publish(fake)
        monkeypatch.setenv("CODENAV_NPM_REGISTRY", fake.url)
        yield fake


def _lines(result: dict) -> list[tuple[str, str, int, str]]:
    """(target, path, line, text) of every matching line a grep_repo page shows."""
    return [(item.get("target", ""), item["path"], ln["line"], ln["text"]) for item in result["files"]
            for block in item["blocks"] for ln in block["lines"] if "column" in ln]


def _fields(spec: str) -> dict:
    from codenav.targets import parse_target

    return parse_target(spec)


@pytest.mark.parametrize("options", [
    {"pattern": "needle"}, {"pattern": "needle", "case_sensitive": True}, {"pattern": r"need\w+", "regex": True},
    {"pattern": "needle", "whole_words": True}, {"pattern": "needle", "glob": ["*.js", "!b/**"]},
    {"pattern": "needle", "path_prefix": "lib"}, {"pattern": "nothing at all"},
])
def test_a_search_over_several_targets_is_the_union_of_the_single_searches(registry, options):
    """Every match of every target once, in target order, each naming its target as read_file
    takes it; the totals are the sums of the single searches'; a target that 404s is skipped."""
    many = grep_repo.run({"targets": [*TARGETS[:2], MISSING, TARGETS[2]], "max_matches": 1000, **options})
    singles = [grep_repo.run({**_fields(spec), "max_matches": 1000, **options}) for spec in TARGETS]
    assert _lines(many) == [(spec, *row[1:]) for spec, one in zip(TARGETS, singles, strict=True)
                            for row in _lines(one)]
    for key in ("totalMatches", "filesMatched", "filesScanned", "binaryFilesSkipped", "largeFilesSkipped"):
        assert many[key] == sum(one[key] for one in singles), key
    assert many["targets"] == TARGETS and many["hasMore"] is False
    assert many["skippedTargets"] == [{"target": MISSING, "code": "NOT_FOUND", "retryable": False,
                                       "message": "npm package 'absent' was not found in the registry"}]


@pytest.mark.parametrize("page_size", [1, 2, 3])
def test_pages_across_targets_have_no_gap_or_repeat_and_exact_totals(registry, page_size):
    """Following nextCursor from page to page gives the unpaged answer exactly, and every page
    carries the totals of the whole search."""
    whole = grep_repo.run({"targets": TARGETS, "pattern": "needle", "max_matches": 1000})
    seen, cursor, pages = [], None, 0
    while True:
        page = grep_repo.run({"targets": TARGETS, "pattern": "needle", "max_matches": page_size,
                              **({"cursor": cursor} if cursor else {})})
        assert page["totalMatches"] == whole["totalMatches"] == 9
        assert len(_lines(page)) <= page_size
        seen += _lines(page)
        pages += 1
        cursor = page.get("nextCursor")
        if not cursor:
            break
        assert page["hasMore"] is True and pages < 20
    assert seen == _lines(whole)


def test_a_cursor_of_other_targets_or_another_search_is_refused(registry):
    """A cursor continues only the search that gave it: the same targets, in the same order."""
    cursor = grep_repo.run({"targets": TARGETS, "pattern": "needle", "max_matches": 1})["nextCursor"]
    for args in ({"targets": TARGETS[::-1]}, {"targets": TARGETS, "case_sensitive": True}):
        with pytest.raises(CodenavError) as caught:
            grep_repo.run({"pattern": "needle", "cursor": cursor, **args})
        assert (caught.value.code, caught.value.details["field"]) == ("INVALID_ARGUMENT", "cursor")


def test_every_target_failing_fails_the_search_naming_each(registry):
    """A search fails only when no target can be searched: one alone fails with its own error,
    several with the first's code and every target in the details."""
    with pytest.raises(CodenavError) as one:
        grep_repo.run({"targets": [MISSING], "pattern": "x"})
    assert one.value.message == "npm package 'absent' was not found in the registry"
    with pytest.raises(CodenavError) as both:
        grep_repo.run({"targets": [MISSING, "npm:alpha@9.9.9"], "pattern": "x"})
    assert both.value.code == "NOT_FOUND"
    assert both.value.message == ("none of the 2 targets could be searched: npm:absent@1.0.0: NOT_FOUND; "
                                  "npm:alpha@9.9.9: VERSION_NOT_FOUND")
    assert [s["target"] for s in both.value.details["skippedTargets"]] == [MISSING, "npm:alpha@9.9.9"]


@pytest.mark.parametrize(("args", "field"), [
    ({"targets": TARGETS, "registry": "npm", "package_name": "alpha"}, "targets"),
    ({"targets": TARGETS, "target": "npm:alpha"}, "targets"),
    ({"deps": "direct", "repo_url": "https://example.invalid/x.git"}, "deps"),
    ({"targets": TARGETS, "deps": "all"}, "deps"),
    ({"targets": []}, "targets"),
    ({"targets": [f"npm:p{i}@1.0.0" for i in range(51)]}, "targets"),
    ({"targets": ["npm:alpha", "nosuch:thing"]}, "targets"),
    ({"deps": "some"}, "deps"),
])
def test_bad_target_lists_are_refused_before_any_download(registry, args, field):
    """Several targets beside one, both ways of naming several, an empty or too long list, a
    malformed target string or an unknown deps value is INVALID_ARGUMENT naming the field."""
    for tool, extra in ((grep_repo, {"pattern": "x"}), (search_symbols, {"query": "x"})):
        with pytest.raises(CodenavError) as caught:
            tool.run({**args, **extra})
        assert (caught.value.code, caught.value.details["field"]) == ("INVALID_ARGUMENT", field)
    assert registry.tarball_hits == 0


def _project(base: Path) -> Path:
    """A project whose package-lock.json locks alpha and beta directly and gamma through alpha."""
    project = base / "project"
    (project / ".git").mkdir(parents=True)
    packages = {"": {"name": "app", "dependencies": {"alpha": "^1", "beta": "^2"}},
                "node_modules/alpha": {"version": "1.0.0", "dependencies": {"gamma": "^3"}},
                "node_modules/beta": {"version": "2.0.0"},
                "node_modules/gamma": {"version": "3.1.0"}}
    (project / "package-lock.json").write_text(json.dumps({"lockfileVersion": 3, "packages": packages}))
    return project


@pytest.mark.parametrize("deps", ["direct", "all"])
def test_deps_searches_exactly_the_packages_list_deps_lists(registry, tmp_path, deps):
    """deps=direct searches the direct dependencies, deps=all every locked package: the targets
    list_deps gives, in its order, at their locked versions."""
    project = str(_project(tmp_path))
    listed = list_deps.run({"project_dir": project, "all": deps == "all"})["dependencies"]
    wanted = [f"{d['registry']}:{d['name']}@{d['version']}" for d in listed]
    found = grep_repo.run({"deps": deps, "project_dir": project, "pattern": "needle", "max_matches": 1000})
    assert found["targets"] == wanted == TARGETS[:2 if deps == "direct" else 3]
    assert _lines(found) == _lines(grep_repo.run({"targets": wanted, "pattern": "needle", "max_matches": 1000}))


def test_deps_without_a_lockfile_says_how_to_name_the_project(registry, tmp_path):
    """No lockfile from the project directory up: INVALID_ARGUMENT on deps, naming project_dir."""
    bare = tmp_path / "bare"
    (bare / ".git").mkdir(parents=True)
    with pytest.raises(CodenavError) as caught:
        grep_repo.run({"deps": "direct", "project_dir": str(bare), "pattern": "x"})
    assert caught.value.details["field"] == "deps" and "project_dir" in caught.value.message


def _symbols(result: dict) -> list[tuple[str, str, int, str]]:
    return [(r.get("target", ""), r["path"], r["line"], r["name"]) for r in result["results"]]


@pytest.mark.parametrize("match", ["exact", "prefix", "substring"])
def test_symbols_over_several_targets_are_the_union_of_the_single_answers(registry, match):
    """With a match mode, the definitions of every target in target order, each once."""
    many = search_symbols.run({"targets": [*TARGETS, MISSING], "query": "needle", "match": match,
                               "max_results": 500})
    singles = [search_symbols.run({**_fields(spec), "query": "needle", "match": match, "max_results": 500})
               for spec in TARGETS]
    assert _symbols(many) == [(spec, *row[1:]) for spec, one in zip(TARGETS, singles, strict=True)
                              for row in _symbols(one)]
    assert many["totalResults"] == sum(one["totalResults"] for one in singles) == len(_symbols(many))
    assert [s["target"] for s in many["skippedTargets"]] == [MISSING]


def test_symbols_default_to_exact_names_wherever_one_target_has_one(registry):
    """The one-target rule over the union: exact names when any target defines one (alpha's
    needle, beta's needle, gamma's Needle), else the prefix matches of every target."""
    exact = search_symbols.run({"targets": TARGETS, "query": "needle"})
    assert exact["matchMode"] == "exact"
    assert _symbols(exact) == [("npm:alpha@1.0.0", "index.js", 1, "needle"), ("npm:beta@2.0.0", "index.js", 1, "needle"),
                               ("npm:gamma@3.1.0", "a.js", 1, "Needle")]
    prefix = search_symbols.run({"targets": TARGETS, "query": "needleL"})
    assert prefix["matchMode"] == "prefix" and _symbols(prefix) == [("npm:alpha@1.0.0", "lib/x.js", 1, "needleLong")]


def test_symbols_pages_across_targets_without_gap_or_repeat(registry):
    """One cursor pages through the union; a cursor of other targets is refused."""
    whole = search_symbols.run({"targets": TARGETS, "query": "needle", "match": "substring"})
    seen, cursor = [], None
    while True:
        page = search_symbols.run({"targets": TARGETS, "query": "needle", "match": "substring", "max_results": 1,
                                   **({"cursor": cursor} if cursor else {})})
        seen += _symbols(page)
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert seen == _symbols(whole) and len(seen) == 4
    first = search_symbols.run({"targets": TARGETS, "query": "needle", "match": "substring", "max_results": 1})
    with pytest.raises(CodenavError) as caught:
        search_symbols.run({"targets": TARGETS[1:], "query": "needle", "match": "substring",
                            "cursor": first["nextCursor"]})
    assert caught.value.details["field"] == "cursor"


def test_cold_targets_are_fetched_concurrently_within_the_bound(registry, monkeypatch):
    """Targets not yet cached are fetched at once, at most CODENAV_FETCH_CONCURRENCY at a time."""
    live, peak, lock = [0], [0], threading.Lock()
    serve = registry._serve

    def counting(handler):
        if not handler.path.startswith("/-/"):
            return serve(handler)
        with lock:
            live[0] += 1
            peak[0] = max(peak[0], live[0])
        try:
            import time

            time.sleep(0.4)  # long enough for the others to arrive
            return serve(handler)
        finally:
            with lock:
                live[0] -= 1

    for (name, version) in [(f"p{i}", "1.0.0") for i in range(4)]:
        registry.publish(name, version, {"a.js": b"needle\n"})
    registry.server.prefix_routes.insert(0, ("GET", "/", counting))
    monkeypatch.setenv("CODENAV_FETCH_CONCURRENCY", "2")
    found = grep_repo.run({"targets": [f"npm:p{i}@1.0.0" for i in range(4)], "pattern": "needle"})
    assert found["totalMatches"] == 4 and peak[0] == 2


# --- both surfaces --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The fake registry, both MCP servers and the CLI's environment, and a locked project."""
    base = tmp_path_factory.mktemp("many")
    with FakeServer() as server:
        fake = FakeNpm(server)
        _publish(fake)
        env = {**isolated_subprocess_env(base), "CODENAV_NPM_REGISTRY": fake.url, "CODENAV_PROJECT_DIR": ""}
        mcp, text = McpSession(env), McpSession(env, json_answers=False)
        yield {"env": env, "mcp": mcp, "text": text, "project": str(_project(base))}
        mcp.close()
        text.close()


CASES = [
    ("grep_repo", {"targets": TARGETS, "pattern": "needle"}, ["grep", *[f"--target={t}" for t in TARGETS], "needle"]),
    ("grep_repo", {"targets": [MISSING, *TARGETS], "pattern": "needle", "max_matches": 2},
     ["grep", f"--target={MISSING}", *[f"--target={t}" for t in TARGETS], "needle", "-m", "2"]),
    ("grep_repo", {"targets": TARGETS, "pattern": "needle", "path_prefix": "lib"},
     ["grep", *[f"--target={t}" for t in TARGETS], "needle", "lib"]),
    ("grep_repo", {"deps": "all", "project_dir": "PROJECT", "pattern": "needle", "context": 1},
     ["grep", "--all-deps", "needle", "PROJECT", "-C", "1"]),
    ("search_symbols", {"targets": TARGETS, "query": "needle"}, ["symbols", *[f"--target={t}" for t in TARGETS], "needle"]),
    ("search_symbols", {"deps": "direct", "project_dir": "PROJECT", "query": "needle", "max_results": 1},
     ["symbols", "--deps", "needle", "PROJECT", "--max", "1"]),
]


@pytest.mark.parametrize(("tool", "arguments", "argv"), CASES)
def test_several_targets_answer_alike_on_the_cli_and_mcp(world, tool, arguments, argv):
    """`--json` prints exactly the `mcp --json` payload (valid against the output schema), and
    the default server's TEXT is `--verbose` stdout."""
    project = world["project"]
    arguments = {k: project if v == "PROJECT" else v for k, v in arguments.items()}
    argv = [project if a == "PROJECT" else a for a in argv]
    payload = check(world, tool, arguments, argv)
    assert "targets" in payload and "target" not in payload


@pytest.mark.parametrize("argv", [
    ["--target", MISSING, "--target", TARGETS[0], "--target", TARGETS[1]],
    ["--deps", "PROJECT"],
])
def test_plain_output_prefixes_each_line_with_its_target_and_path(world, argv):
    """Plain `codenav grep` prints `SPEC PATH:N:text`, what `codenav read SPEC PATH` takes, and
    names each skipped target on stderr."""
    args = [world["project"] if a == "PROJECT" else a for a in argv]
    pattern_first = [a for a in args if a.startswith("--") or a in (MISSING, *TARGETS)]
    rest = [a for a in args if a not in pattern_first]
    proc = run_cli("grep", *pattern_first, "needle", *rest, env=world["env"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode() == (
        "npm:alpha@1.0.0 index.js:1:function needle() {}\n"
        "npm:alpha@1.0.0 index.js:2:needle();\n"
        "npm:alpha@1.0.0 index.js:3:// needle again\n"
        "npm:alpha@1.0.0 lib/x.js:1:exports.needleLong = 1;\n"
        "npm:beta@2.0.0 index.js:1:const needle = 1;\n"
        "npm:beta@2.0.0 index.js:2:module.exports = needle;\n")
    skipped = "codenav: skipped npm:absent@1.0.0: NOT_FOUND: npm package 'absent' was not found in the registry\n"
    assert proc.stderr.decode() == (skipped if MISSING in argv else "")
    read = run_cli("read", "npm:beta@2.0.0", "index.js", env=world["env"])
    assert read.stdout.startswith(b"const needle = 1;")


def test_plain_symbols_prefix_each_line_with_its_target(world):
    """Plain `codenav symbols --target …` prints `SPEC path:line:kind:name  signature`."""
    proc = run_cli("symbols", "--target", TARGETS[0], "--target", TARGETS[2], "needle", env=world["env"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode() == ("npm:alpha@1.0.0 index.js:1:function:needle  function needle()\n"
                                    "npm:gamma@3.1.0 a.js:1:class:Needle  class Needle\n")


def test_a_search_over_many_targets_asks_each_registry_for_its_endpoint_once(registry, monkeypatch):
    """npm's endpoint comes from its configuration files: a search over many targets reads it once
    and names each target's cache entry exactly as a one-target call does."""
    from codenav.cache import aliases
    from codenav.registries import npm

    grep_repo.run({"targets": TARGETS, "pattern": "needle"})  # warm every target
    asked = []
    real = npm.endpoint
    monkeypatch.setattr(npm, "endpoint", lambda: asked.append(1) or real())
    many = grep_repo.run({"targets": TARGETS, "pattern": "needle", "max_matches": 1000})
    assert len(asked) == 1 and aliases.held_endpoints is None
    singles = [grep_repo.run({**_fields(spec), "max_matches": 1000, "pattern": "needle"}) for spec in TARGETS]
    assert len(asked) == 1 + len(TARGETS)
    assert _lines(many) == [(spec, *row[1:]) for spec, one in zip(TARGETS, singles, strict=True)
                            for row in _lines(one)]


def test_each_target_is_labelled_from_its_alias_as_its_manifest_labels_it(registry):
    """The alias of a package indexed now names its registry, name and version, so a search over
    many labels each target without reading its manifest; an alias written before it did (no
    name) gives the same label from the manifest."""
    import glob
    import os

    from codenav.paths import read_json

    first = grep_repo.run({"targets": TARGETS, "pattern": "needle"})
    written = [read_json(path) for path in glob.glob(os.path.join(os.environ["CODENAV_CACHE_DIR"], "aliases", "*.json"))]
    assert sorted(f"{a['named']['registry']}:{a['named']['name']}@{a['named']['version']}" for a in written) == TARGETS
    for path in glob.glob(os.path.join(os.environ["CODENAV_CACHE_DIR"], "aliases", "*.json")):
        data = read_json(path)
        del data["named"]
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
    assert grep_repo.run({"targets": TARGETS, "pattern": "needle"}) == first
