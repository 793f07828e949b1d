"""Issue 12: what the plain CLI tells a person — uncut grep, words of the surface, versions,
suggestions, yanked and deprecated releases — each pinned as exact text, with ``--json``
still the MCP envelope byte for byte."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from codenav.cache import open_entry
from codenav.targets import from_args
from tests.conftest import run_cli
from tests.fakes.http import FakeServer
from tests.fakes.npm import FakeNpm

# 600 lines, 598 of them matching "function" (the shape of @types/node's index.d.ts), wider
# than the output budget all together; and a file whose matches are apart (the shape of ms).
MANY = "".join(f"declare function f{i}(x: number): void; // {'y' * 100}\n" for i in range(1, 599)).encode()
MANY = b"// head\n" + MANY + b"// tail\n"
APART = (b"/**\n * Helpers.\n */\n\nmodule.exports = function (val) {\n  return parse(val);\n};\n\n"
         b"function parse(str) {\n  return Number(str);\n}\n\nfunction fmtShort(ms) {\n  return ms;\n}\n\n"
         b"// A FUNCTION in capitals and a Function in title case.\nfunction plural(ms, n) {\n  return n;\n}\n")
FILES = {"index.d.ts": MANY, "index.js": APART}
SPEC = "npm:demo@1.0.0"
TARGET = {"registry": "npm", "package_name": "demo", "version": "1.0.0"}


@pytest.fixture(autouse=True)
def registry(monkeypatch):
    with FakeServer() as server:
        fake = FakeNpm(server)
        fake.publish("demo", "1.0.0", FILES)
        monkeypatch.setenv("CODENAV_NPM_REGISTRY", fake.url)
        yield fake


def cli(*args: str) -> tuple[int, str, str]:
    proc = run_cli(*args)
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def mcp_text(tool: str, args: dict) -> str:
    """The text block the MCP server's tools/call handler answers for one call."""
    from codenav.mcp import handlers

    return handlers.call_tool({"name": tool, "arguments": args}, handlers.Session())["content"][0]["text"]


# --- item 5: plain grep is grep(1) --------------------------------------------------------------

def cached_file(path: str) -> str:
    """The file as the cache holds it (after a listing has downloaded the package)."""
    assert cli("files", SPEC)[0] == 0
    entry = open_entry(from_args(TARGET), 0)
    return os.path.join(entry.path, "tree", path)


def gnu_grep(*args: str) -> str:
    if shutil.which("grep") is None:
        pytest.skip("grep(1) is not installed")
    proc = subprocess.run(["grep", *args], capture_output=True, check=False)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout.decode("utf-8")


@pytest.mark.parametrize(("path", "pattern"), [("index.d.ts", "function"), ("index.js", "function"),
                                                 ("index.js", "RETURN")])
def test_plain_grep_prints_what_gnu_grep_prints_without_context(path, pattern):
    """Without --context plain grep prints every matching line and nothing else, as grep -F -i does."""
    expected = gnu_grep("-F", "-i", pattern, cached_file(path))
    code, out, errout = cli("grep", SPEC, pattern, path)
    assert (code, errout) == (0, "")
    assert out.splitlines() == expected.splitlines()
    assert out == expected


@pytest.mark.parametrize(("path", "pattern", "context"), [("index.js", "function", "1"),
                                                          ("index.js", "function", "2"),
                                                          ("index.js", "return", "3"),
                                                          ("index.d.ts", "function", "1")])
def test_plain_grep_with_context_prints_what_gnu_grep_prints(path, pattern, context):
    """With --context N the groups and their `--` separators are those of grep -F -i -C N."""
    expected = gnu_grep("-F", "-i", "-C", context, pattern, cached_file(path))
    code, out, errout = cli("grep", SPEC, pattern, path, "--context", context)
    assert (code, errout) == (0, "")
    assert out == expected


def test_plain_grep_is_never_cut_but_json_is_and_equals_mcp():
    """The 598 matches of a file wider than the budget all print in plain mode; --json keeps the cut and MCP's bytes."""
    code, out, errout = cli("grep", SPEC, "function", "index.d.ts")
    assert (code, errout) == (0, "")
    assert len(out.splitlines()) == 598
    args = {**TARGET, "pattern": "function", "path": "index.d.ts"}
    code, out, _ = cli("grep", SPEC, "function", "index.d.ts", "--json")
    assert '"hasMore":true' in out
    assert out == mcp_text("grep_file", args) + "\n"
