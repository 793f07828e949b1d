"""Bad arguments on every tool and every CLI command: one table, both surfaces (SPEC §2, §4).

Each row is one mistake — path traversal, NUL, absolute paths, backslashes, wrong types,
negative or huge ranges and contexts, empty or 1 MB patterns and queries, unknown keys, both
or neither target forms, bad registries, specs and URLs, text that is not UTF-8 — given as
MCP ``tools/call`` arguments, as a CLI command line, or both. Every one must come back as
``INVALID_ARGUMENT`` (not retryable) whose message names the field and whose
``details.field`` is that field; with the tool's error exit code on the CLI (1, or 2 for
``grep``/``search``); with no traceback anywhere; and without a single request reaching the
fake npm registry, PyPI index, grep.app, GitHub API, ``gh`` or ``git``. Where both surfaces
can say the same thing (the CLI builds exactly the row's MCP arguments), ``--json`` prints
byte for byte the MCP text payload.

Command lines that argparse itself cannot parse (an unknown option, an option without its
value, a missing subcommand) are usage errors: exit 2 with the usage on stderr and nothing on
stdout, ``--json`` or not — the argparse/POSIX convention, decided in docs/decisions.md. A
bad *value* of an option (``--wait soon``, ``--context x``, ``--lines abc``) is not a usage
error: it is an INVALID_ARGUMENT like any other.

Everything runs once per module: one MCP server gets every row pipelined, and the CLI runs
are spread over a few processes at a time; the tests then read the recorded outcomes.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import threading
import traceback
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from codenav import cli, contract, targets, tools
from tests.fakes.github import FakeGitHub, gh_calls, install_fake_gh
from tests.fakes.grepapp import FakeGrepApp
from tests.fakes.http import FakeServer
from tests.fakes.npm import FakeNpm
from tests.fakes.pypi import FakePypi
from tests.support.cli import isolated_subprocess_env

pytestmark = pytest.mark.hardening

MB = 1024 * 1024
# One command-line argument is capped by Linux at 128 KiB (MAX_ARG_STRLEN), so the CLI's
# "huge" values are 120 KB: still far over every schema limit.
CLI_HUGE = 120_000
DEMO = {"registry": "npm", "package_name": "demo", "version": "1.0.0"}
SPEC = "npm:demo@1.0.0"
SECRET = "AKIAIOSFODNN7EXAMPLE"  # AWS's documented example key id: credential-shaped, not a credential
BLOB = "https://github.com/octo/demo/blob/main/src/app.py"
ERROR_EXIT = {"list_files": 1, "read_file": 1, "grep_file": 2, "grep_repo": 2, "diff_versions": 1, "search_symbols": 2,
              "codesearch": 2, "codefetch": 1, "list_deps": 1}


@dataclass(frozen=True)
class Row:
    """One bad call: MCP arguments and/or a CLI command line (after the subcommand)."""

    tool: str
    kind: str
    mcp: dict[str, Any] | None = None
    argv: tuple[str | bytes, ...] | None = None
    field: str | None = None  # details.field; None: the envelope names no single field
    names: str | None = None  # what the message must mention, when it is not the field

    @property
    def id(self) -> str:
        return f"{self.tool}-{self.kind}"


ROWS: list[Row] = []


def row(tool: str, kind: str, field: str | None, mcp: dict[str, Any] | None = None,
        argv: tuple[str | bytes, ...] | None = None, names: str | None = None) -> None:
    ROWS.append(Row(tool, kind, mcp, argv, field, names))


# --- paths (SPEC §2.2), shared by list_files' path_prefix, read_file, grep_file and codefetch ----

# kind, value, also on the command line (NUL cannot be in an argv string)
PATHS: list[tuple[str, Any, bool]] = [
    ("traversal", "../x", True),
    ("traversal-inner", "a/../../b", True),
    ("dot-segment", "./a", True),
    ("empty-segment", "a//b", True),
    ("absolute", "/etc/passwd", True),
    ("backslash", "lib\\a.js", True),
    ("backslash-traversal", "..\\x", True),
    ("newline", "a\nb", True),
    ("tab", "a\tb", True),
    ("nul", "a\0b", False),
    ("huge", "a" * MB, False),
    ("huge-cli", "a" * CLI_HUGE, True),
    ("non-utf8", "\udcff", True),  # the CLI gets the byte 0xff
    ("type-int", 5, False),
    ("type-list", ["index.js"], False),
    ("type-null", None, False),
    ("type-bool", True, False),
    ("type-object", {"path": "index.js"}, False),
]


def _cli(value: str) -> str | bytes:
    """A str with surrogate escapes goes out as the raw bytes it stands for."""
    return os.fsencode(value) if any("\udc80" <= c <= "\udcff" for c in value) else value


for kind, value, on_cli in PATHS:
    cli_value = _cli(value) if on_cli else None
    row("list_files", f"prefix-{kind}", "path_prefix", {**DEMO, "path_prefix": value},
        (SPEC, cli_value) if on_cli else None)
    row("read_file", f"path-{kind}", "path", {**DEMO, "path": value}, (SPEC, cli_value) if on_cli else None)
    row("grep_file", f"path-{kind}", "path", {**DEMO, "pattern": "x", "path": value},
        (SPEC, "x", cli_value) if on_cli else None)
    row("codefetch", f"path-{kind}", "path", {"repo": "octo/demo", "path": value},
        ("--repo", "octo/demo", "--path", cli_value) if on_cli else None)
    row("search_symbols", f"prefix-{kind}", "path_prefix", {**DEMO, "query": "x", "path_prefix": value},
        (SPEC, "x", cli_value) if on_cli else None)
for tool, key in (("read_file", "path"), ("grep_file", "path"), ("codefetch", "path")):
    extra = {"pattern": "x"} if tool == "grep_file" else {}
    base = {"repo": "octo/demo"} if tool == "codefetch" else dict(DEMO)
    argv: tuple[str, ...] = ("--repo", "octo/demo", "--path", "") if tool == "codefetch" else (
        (SPEC, "x", "") if tool == "grep_file" else (SPEC, ""))
    row(tool, "path-empty", key, {**base, **extra, key: ""}, argv)

# --- targets (SPEC §2.1): both forms, neither, registries, specs, names, versions, git --------

GIT_URL = "http://127.0.0.1:9/never.git"  # refused before git ever runs in every row below
for tool, extra, cli_extra in (("list_files", {}, ()), ("read_file", {"path": "index.js"}, ("index.js",)),
                               ("grep_file", {"pattern": "x", "path": "index.js"}, ("x", "index.js")),
                               ("search_symbols", {"query": "x"}, ("x",))):
    row(tool, "both-forms", "repo_url", {**DEMO, **extra, "repo_url": GIT_URL})
    row(tool, "both-forms-cli", "spec", None, ("--repo-url", GIT_URL, SPEC, *cli_extra), names="package spec")
    row(tool, "both-forms-git-ref", "repo_url", {**DEMO, **extra, "git_ref": "main"})
    row(tool, "git-ref-without-repo-url-cli", "git_ref", None, (SPEC, *cli_extra, "--git-ref", "main"))
    row(tool, "neither-form", "package_name", dict(extra))
    row(tool, "git-ref-only", "repo_url", {**extra, "git_ref": "main"})
    row(tool, "version-only", "registry", {**extra, "version": "1.0.0"})
    row(tool, "registry-only", "package_name", {**extra, "registry": "npm"})
    row(tool, "bad-registry", "registry", {**extra, "registry": "cargo", "package_name": "serde"})
    row(tool, "bad-registry-cli", "spec", None, ("nosuch:serde", *cli_extra), names="npm, pypi, crates")
    row(tool, "spec-empty-name", "package_name", {**extra, "registry": "npm", "package_name": ""},
        ("npm:", *cli_extra))
    row(tool, "spec-bare-at", "package_name", {**extra, "registry": "npm", "package_name": "@"},
        ("npm:@", *cli_extra), names="package name")
    row(tool, "spec-empty-version", "version", {**extra, "registry": "pypi", "package_name": "a", "version": ""},
        ("pypi:a@", *cli_extra))
row("list_files", "bad-registry-case", "registry", {"registry": "NPM", "package_name": "demo"})
row("list_files", "bad-registry-type", "registry", {"registry": ["npm"], "package_name": "demo"})
row("list_files", "spec-no-colon-cli", "spec", None, ("npm",), names="npm, pypi")
row("list_files", "spec-missing-cli", "spec", None, ())
row("list_files", "spec-scope-only", "package_name", {"registry": "npm", "package_name": "@/x"}, ("npm:@/x",),
    names="package name")
row("list_files", "name-space", "package_name", {"registry": "npm", "package_name": "a b"}, ("npm:a b",),
    names="package name")
row("list_files", "name-traversal", "package_name", {"registry": "npm", "package_name": "../x"}, ("npm:../x",),
    names="package name")
row("list_files", "name-pypi-bad", "package_name", {"registry": "pypi", "package_name": "-x-"}, ("pypi:-x-",),
    names="project name")
row("list_files", "name-long", "package_name", {"registry": "pypi", "package_name": "a" * 300},
    ("pypi:" + "a" * 300,))
row("list_files", "name-huge", "package_name", {"registry": "npm", "package_name": "a" * MB})
row("list_files", "name-type", "package_name", {"registry": "npm", "package_name": 7})
row("list_files", "version-shell", "version", {**DEMO, "version": "1.0.0 ; rm -rf /"}, ("npm:demo@1.0.0 ; rm -rf /",))
row("list_files", "version-traversal", "version", {**DEMO, "version": "../../1"}, ("npm:demo@../../1",))
row("list_files", "version-long", "version", {**DEMO, "version": "1" * 300}, ("npm:demo@" + "1" * 300,))
row("list_files", "version-type", "version", {**DEMO, "version": 1})
row("list_files", "name-non-utf8", "package_name", {"registry": "npm", "package_name": "\udcff"},
    (b"npm:\xff",))
# git targets: URLs that must never reach git (SPEC §3 git)
for kind, url in (("ext-transport", "ext::sh -c touch% /tmp/pwned"), ("fd-transport", "fd::17"),
                  ("leading-dash", "-oProxyCommand=touch /tmp/pwned"), ("ssh-dash-host", "ssh://-oProxyCommand=x/y"),
                  ("unsupported-scheme", "ftp://example.invalid/x.git"), ("no-host", "http://"),
                  ("control", "http://127.0.0.1:9/a\nb.git"), ("blank", "   ")):
    row("list_files", f"repo-url-{kind}", "repo_url", {"repo_url": url}, (f"--repo-url={url}",))
row("list_files", "repo-url-empty", "repo_url", {"repo_url": ""}, ("--repo-url", ""))
row("list_files", "repo-url-long", "repo_url", {"repo_url": "http://127.0.0.1:9/" + "a" * 3000},
    ("--repo-url", "http://127.0.0.1:9/" + "a" * 3000))
row("list_files", "repo-url-type", "repo_url", {"repo_url": {"url": GIT_URL}})
for kind, ref in (("dash", "-x"), ("dotdot", "a..b"), ("space", "a b"), ("blank", " "), ("newline", "main\n"),
                  ("long", "a" * 2000)):
    row("list_files", f"git-ref-{kind}", "git_ref", {"repo_url": GIT_URL, "git_ref": ref},
        ("--repo-url", GIT_URL, f"--git-ref={ref}"))
row("list_files", "git-ref-empty", "git_ref", {"repo_url": GIT_URL, "git_ref": ""})
row("list_files", "git-ref-type", "git_ref", {"repo_url": GIT_URL, "git_ref": 1})
# wait_timeout_ms (SPEC §3: 0-60000)
for kind, value, argv_value in (("negative", -1, "-1"), ("too-big", 60001, "60001"), ("huge", 10**30, str(10**30))):
    row("list_files", f"wait-{kind}", "wait_timeout_ms", {**DEMO, "wait_timeout_ms": value},
        (SPEC, "--wait", argv_value))
for kind, value in (("string", "100"), ("float", 1.5), ("bool", True), ("null", None)):
    row("list_files", f"wait-type-{kind}", "wait_timeout_ms", {**DEMO, "wait_timeout_ms": value})
row("list_files", "wait-word-cli", "wait_timeout_ms", None, (SPEC, "--wait", "soon"), names="--wait")
row("read_file", "wait-word-cli", "wait_timeout_ms", None, (SPEC, "index.js", "--wait", "1e3"), names="--wait")
row("grep_file", "wait-negative", "wait_timeout_ms", {**DEMO, "pattern": "x", "path": "index.js",
                                                      "wait_timeout_ms": -5}, (SPEC, "x", "index.js", "--wait", "-5"))
row("list_files", "extra-operand-cli", "path_prefix", None, (SPEC, "lib", "more"), names="PATH_PREFIX")

# --- read_file: ranges (SPEC §2.3) ----------------------------------------------------------

R = {**DEMO, "path": "index.js"}
row("read_file", "start-zero", "start_line", {**R, "start_line": 0, "end_line": 3}, (SPEC, "index.js", "--lines", "0-3"))
row("read_file", "start-negative", "start_line", {**R, "start_line": -1})
row("read_file", "end-zero", "end_line", {**R, "end_line": 0}, (SPEC, "index.js", "--lines", "-0"))
row("read_file", "end-before-start", "end_line", {**R, "start_line": 5, "end_line": 2},
    (SPEC, "index.js", "--lines", "5-2"), names="start_line")
row("read_file", "start-past-eof-huge", "start_line", {**R, "start_line": 10**20},
    (SPEC, "index.js", "--lines", f"{10**20}-"))
row("read_file", "start-type-string", "start_line", {**R, "start_line": "1"})
row("read_file", "start-type-float", "start_line", {**R, "start_line": 1.5})
row("read_file", "end-type-bool", "end_line", {**R, "end_line": False})
row("read_file", "lines-word-cli", "lines", None, (SPEC, "index.js", "--lines", "abc"))
row("read_file", "lines-three-parts-cli", "lines", None, (SPEC, "index.js", "--lines", "1-2-3"))
row("read_file", "lines-dash-only-cli", "lines", None, (SPEC, "index.js", "--lines", "-"))
row("read_file", "lines-plus-cli", "lines", None, (SPEC, "index.js", "--lines", "+1-2"))
row("read_file", "path-missing", "path", {**DEMO})
row("read_file", "path-missing-cli", "path", None, (SPEC,))
row("read_file", "extra-operand-cli", "path", None, (SPEC, "index.js", "more"))
for tool, base in (("list_files", DEMO), ("read_file", R), ("grep_file", {**R, "pattern": "x"}),
                   ("search_symbols", {**DEMO, "query": "x"})):
    row(tool, "unknown-key", "bogus", {**base, "bogus": 1})
    row(tool, "unknown-key-cli-switch", "_unbounded", {**base, "_unbounded": True})  # a CLI-only switch
    row(tool, "unknown-key-camel-case", "packageName", {**base, "packageName": "demo"})

# --- grep_file: pattern and context (SPEC §2.4) ---------------------------------------------

G = {**DEMO, "path": "index.js"}
row("grep_file", "pattern-empty", "pattern", {**G, "pattern": ""}, (SPEC, "", "index.js"))
row("grep_file", "pattern-huge", "pattern", {**G, "pattern": "a" * MB})
row("grep_file", "pattern-huge-cli", "pattern", {**G, "pattern": "a" * CLI_HUGE}, (SPEC, "a" * CLI_HUGE, "index.js"))
row("grep_file", "pattern-newline", "pattern", {**G, "pattern": "a\nb"}, (SPEC, "a\nb", "index.js"))
row("grep_file", "pattern-non-utf8", "pattern", {**G, "pattern": "\udcff"}, (SPEC, b"\xff", "index.js"))
row("grep_file", "pattern-type-int", "pattern", {**G, "pattern": 5})
row("grep_file", "pattern-type-list", "pattern", {**G, "pattern": ["x"]})
row("grep_file", "pattern-missing", "pattern", dict(G))
row("grep_file", "operand-missing-cli", "pattern", None, (SPEC,))
for kind, value in (("negative", -1), ("too-big", 101), ("huge", 10**20)):
    row("grep_file", f"context-{kind}", "context", {**G, "pattern": "x", "context": value},
        (SPEC, "x", "index.js", "--context", str(value)))
for kind, value in (("string", "2"), ("float", 1.5), ("bool", True), ("null", None)):
    row("grep_file", f"context-type-{kind}", "context", {**G, "pattern": "x", "context": value})
row("grep_file", "context-word-cli", "context", None, (SPEC, "x", "index.js", "--context", "x"), names="--context")
row("grep_file", "context-short-flag-cli", "context", None, (SPEC, "x", "index.js", "-C", "1.5"), names="--context")

# --- grep_repo: pattern, regex, globs, limits, cursor ------------------------------------------

row("grep_repo", "pattern-empty", "pattern", {**DEMO, "pattern": ""}, (SPEC, ""))
row("grep_repo", "pattern-huge", "pattern", {**DEMO, "pattern": "a" * MB})
row("grep_repo", "pattern-huge-cli", "pattern", {**DEMO, "pattern": "a" * CLI_HUGE}, (SPEC, "a" * CLI_HUGE))
row("grep_repo", "pattern-non-utf8", "pattern", {**DEMO, "pattern": "\udcff"}, (SPEC, b"\xff"))
row("grep_repo", "pattern-newline", "pattern", {**DEMO, "pattern": "a\nb"}, (SPEC, "a\nb"))
row("grep_repo", "pattern-type-int", "pattern", {**DEMO, "pattern": 5})
row("grep_repo", "pattern-missing", "pattern", dict(DEMO))
row("grep_repo", "regex-invalid", "pattern", {**DEMO, "pattern": "(", "regex": True}, (SPEC, "(", "--regex"))
row("grep_repo", "regex-type-string", "regex", {**DEMO, "pattern": "x", "regex": "yes"})
row("grep_repo", "context-too-big", "context", {**DEMO, "pattern": "x", "context": 11}, (SPEC, "x", "-C", "11"))
row("grep_repo", "max-matches-zero", "max_matches", {**DEMO, "pattern": "x", "max_matches": 0}, (SPEC, "x", "-m", "0"))
row("grep_repo", "max-matches-huge", "max_matches", {**DEMO, "pattern": "x", "max_matches": 10**20})
row("grep_repo", "glob-type-string", "glob", {**DEMO, "pattern": "x", "glob": "*.js"})
row("grep_repo", "glob-empty", "glob", {**DEMO, "pattern": "x", "glob": [""]})
row("grep_repo", "cursor-garbage", "cursor", {**DEMO, "pattern": "x", "cursor": "zz"}, (SPEC, "x", "--cursor", "zz"))
row("grep_repo", "prefix-traversal", "path_prefix", {**DEMO, "pattern": "x", "path_prefix": "../x"})
row("grep_repo", "unknown-key", "bogus", {**DEMO, "pattern": "x", "bogus": 1})
row("grep_repo", "unknown-key-cli-switch", "_unbounded", {**DEMO, "pattern": "x", "_unbounded": True})

# --- search_symbols: query, kind, match, max_results, cursor (SPEC §2.9) ----------------------

S = {**DEMO, "query": "x"}
row("search_symbols", "query-empty", "query", {**DEMO, "query": ""}, (SPEC, ""))
row("search_symbols", "query-huge", "query", {**DEMO, "query": "q" * MB})
row("search_symbols", "query-huge-cli", "query", {**DEMO, "query": "q" * CLI_HUGE}, (SPEC, "q" * CLI_HUGE))
row("search_symbols", "query-newline", "query", {**DEMO, "query": "a\nb"}, (SPEC, "a\nb"))
row("search_symbols", "query-tab", "query", {**DEMO, "query": "a\tb"}, (SPEC, "a\tb"))
row("search_symbols", "query-non-utf8", "query", {**DEMO, "query": "\udcff"}, (SPEC, b"\xff"))
row("search_symbols", "query-type-int", "query", {**DEMO, "query": 5})
row("search_symbols", "query-type-list", "query", {**DEMO, "query": ["x"]})
row("search_symbols", "query-missing", "query", dict(DEMO))
row("search_symbols", "query-missing-cli", "query", None, (SPEC,))
row("search_symbols", "extra-operand-cli", "path_prefix", None, (SPEC, "x", "lib", "more"), names="PATH_PREFIX")
row("search_symbols", "kind-unknown", "kind", {**S, "kind": ["widget"]}, (SPEC, "x", "--kind", "widget"))
row("search_symbols", "kind-empty-name", "kind", {**S, "kind": [""]}, (SPEC, "x", "--kind", ""))
row("search_symbols", "kind-empty-list", "kind", {**S, "kind": []})
row("search_symbols", "kind-type-string", "kind", {**S, "kind": "function"})
row("search_symbols", "kind-item-type", "kind", {**S, "kind": [1]})
row("search_symbols", "match-unknown", "match", {**S, "match": "fuzzy"}, (SPEC, "x", "--match", "fuzzy"))
row("search_symbols", "match-type", "match", {**S, "match": 1})
row("search_symbols", "case-sensitive-type", "case_sensitive", {**S, "case_sensitive": "yes"})
for kind, value in (("zero", 0), ("too-big", 501), ("huge", 10**20), ("negative", -1)):
    row("search_symbols", f"max-{kind}", "max_results", {**S, "max_results": value}, (SPEC, "x", "--max", str(value)))
for kind, value in (("string", "5"), ("float", 1.5), ("bool", True), ("null", None)):
    row("search_symbols", f"max-type-{kind}", "max_results", {**S, "max_results": value})
row("search_symbols", "max-word-cli", "max_results", None, (SPEC, "x", "--max", "five"), names="--max")
row("search_symbols", "cursor-empty", "cursor", {**S, "cursor": ""}, (SPEC, "x", "--cursor", ""))
row("search_symbols", "cursor-made-up", "cursor", {**S, "cursor": "abc"}, (SPEC, "x", "--cursor", "abc"))
row("search_symbols", "cursor-huge", "cursor", {**S, "cursor": "1" * MB})
row("search_symbols", "cursor-type", "cursor", {**S, "cursor": 5})

# --- codesearch (SPEC §2.6) -----------------------------------------------------------------

row("codesearch", "query-empty", "query", {"query": ""}, ("",))
row("codesearch", "query-huge", "query", {"query": "q" * MB})
row("codesearch", "query-huge-cli", "query", {"query": "q" * CLI_HUGE}, ("q" * CLI_HUGE,))
row("codesearch", "query-huge-secret", "query", {"query": SECRET + "q" * 5000})
row("codesearch", "query-secret", "query", {"query": SECRET}, (SECRET,))
row("codesearch", "query-non-utf8", "query", {"query": "\udcff"}, (b"\xff",))
row("codesearch", "query-type-int", "query", {"query": 5})
row("codesearch", "query-type-null", "query", {"query": None})
row("codesearch", "query-missing", "query", {})
row("codesearch", "query-missing-with-options", "query", {"regex": True, "repo": "octo/"})
for key, value in (("regex", "yes"), ("case_sensitive", 1), ("whole_words", None), ("allow_secret_like", "true")):
    row("codesearch", f"{key}-type", key, {"query": "x", key: value})
row("codesearch", "repo-empty", "repo", {"query": "x", "repo": ""}, ("x", "--repo", ""))
row("codesearch", "repo-long", "repo", {"query": "x", "repo": "o/" + "n" * 300}, ("x", "--repo", "o/" + "n" * 300))
row("codesearch", "repo-secret", "repo", {"query": "x", "repo": SECRET}, ("x", "--repo", SECRET))
row("codesearch", "repo-type", "repo", {"query": "x", "repo": ["octo/demo"]})
row("codesearch", "path-empty", "path", {"query": "x", "path": ""}, ("x", "--path", ""))
row("codesearch", "path-long", "path", {"query": "x", "path": "p" * 2000}, ("x", "--path", "p" * 2000))
row("codesearch", "path-non-utf8", "path", {"query": "x", "path": "\udcff"}, ("x", "--path", b"\xff"))
row("codesearch", "language-empty-list", "language", {"query": "x", "language": []})
row("codesearch", "language-empty-name", "language", {"query": "x", "language": [""]}, ("x", "--lang", ""))
row("codesearch", "language-string", "language", {"query": "x", "language": "Python"})
row("codesearch", "language-item-type", "language", {"query": "x", "language": [1]})
row("codesearch", "language-too-many", "language", {"query": "x", "language": ["Python"] * 21},
    ("x", *["--lang", "Python"] * 21))
row("codesearch", "language-long-name", "language", {"query": "x", "language": ["L" * 101]}, ("x", "--lang", "L" * 101))
row("codesearch", "unknown-key", "lang", {"query": "x", "lang": ["Python"]})
row("codesearch", "unknown-key-wire-name", "useRegexp", {"query": "x", "useRegexp": True})

# --- codefetch (SPEC §2.7) ------------------------------------------------------------------

row("codefetch", "both-forms", "url", {"url": BLOB, "repo": "octo/demo"}, (BLOB, "--repo", "octo/demo"))
row("codefetch", "both-forms-ref", "url", {"url": BLOB, "ref": "main"}, (BLOB, "--ref", "main"))
row("codefetch", "neither-form", "url", {}, ())
row("codefetch", "repo-without-path", "path", {"repo": "octo/demo"}, ("--repo", "octo/demo"))
row("codefetch", "path-without-repo", "repo", {"path": "src/app.py"}, ("--path", "src/app.py"))
row("codefetch", "ref-only", "url", {"ref": "main"}, ("--ref", "main"))
for kind, url in (("not-a-url", "not a url"), ("http", "http://github.com/octo/demo/blob/main/src/app.py"),
                  ("other-host", "https://gitlab.com/octo/demo/blob/main/src/app.py"),
                  ("enterprise", "https://github.example.com/octo/demo/blob/main/src/app.py"),
                  ("gist", "https://gist.github.com/octo/0123456789abcdef"),
                  ("raw-host", "https://raw.githubusercontent.com/octo/demo/main/src/app.py"),
                  ("tree", "https://github.com/octo/demo/tree/main/src"),
                  ("repo-only", "https://github.com/octo/demo"), ("no-file", "https://github.com/octo/demo/blob/main"),
                  ("traversal", "https://github.com/octo/demo/blob/main/../secret"),
                  ("encoded-traversal", "https://github.com/octo/demo/blob/main/%2e%2e/secret"),
                  ("encoded-nul", "https://github.com/octo/demo/blob/main/a%00b"),
                  ("encoded-slash", "https://github.com/octo/demo/blob/main/a%2Fb"),
                  ("encoded-non-utf8", "https://github.com/octo/demo/blob/main/a%ff"),
                  ("credentials", "https://user:pw@github.com/octo/demo/blob/main/src/app.py"),
                  ("port", "https://github.com:8443/octo/demo/blob/main/src/app.py"),
                  ("javascript", "javascript:alert(1)"), ("file", "file:///etc/passwd"),
                  ("bad-port", "https://github.com:99999/octo/demo/blob/main/x"),
                  ("ipv6-garbage", "https://[::1/octo/demo/blob/main/x"),
                  ("long", "https://github.com/octo/demo/blob/main/" + "a/" * 4500 + "x"),
                  ("raw-non-utf8", "https://github.com/octo/demo/blob/main/\udcff")):
    row("codefetch", f"url-{kind}", "url", {"url": url}, (_cli(url),))
row("codefetch", "url-empty", "url", {"url": ""}, ("",))
row("codefetch", "url-huge", "url", {"url": "https://github.com/" + "a" * MB})
row("codefetch", "url-type", "url", {"url": 5})
for kind, repo in (("no-slash", "octo"), ("three-parts", "octo/demo/x"), ("traversal", "../demo"),
                   ("dash-owner", "-x/demo"), ("dotdot-name", "octo/.."), ("url-shaped", "https://github.com/octo/demo"),
                   ("long", "o/" + "n" * 300)):
    row("codefetch", f"repo-{kind}", "repo", {"repo": repo, "path": "src/app.py"},
        (f"--repo={repo}", "--path", "src/app.py"))  # --repo=VALUE: argparse takes "-x/demo" for an option
row("codefetch", "repo-type", "repo", {"repo": ["octo", "demo"], "path": "src/app.py"})
for kind, ref in (("space", "a b"), ("newline", "main\nx"), ("long", "r" * 2000), ("empty", "")):
    row("codefetch", f"ref-{kind}", "ref", {"repo": "octo/demo", "path": "src/app.py", "ref": ref},
        ("--repo", "octo/demo", "--path", "src/app.py", "--ref", ref))
row("codefetch", "ref-type", "ref", {"repo": "octo/demo", "path": "src/app.py", "ref": None})
F = {"repo": "octo/demo", "path": "src/app.py"}
row("codefetch", "start-zero", "start_line", {**F, "start_line": 0, "end_line": 3},
    ("--repo", "octo/demo", "--path", "src/app.py", "--lines", "0-3"))
row("codefetch", "end-before-start", "end_line", {"url": BLOB, "start_line": 9, "end_line": 2}, (BLOB, "--lines", "9-2"),
    names="start_line")
row("codefetch", "start-type", "start_line", {**F, "start_line": "1"})
row("codefetch", "end-type-float", "end_line", {**F, "end_line": 2.5})
row("codefetch", "lines-word-cli", "lines", None, (BLOB, "--lines", "ten"))
row("codefetch", "unknown-key", "branch", {**F, "branch": "main"})
row("codefetch", "unknown-key-url-camel", "startLine", {"url": BLOB, "startLine": 1})

# --- diff_versions (SPEC §2.8) --------------------------------------------------------------

D = {**{k: v for k, v in DEMO.items() if k != "version"}, "from_version": "1.0.0", "to_version": "1.0.0"}
DS = ("npm:demo", "1.0.0", "1.0.0")
row("diff_versions", "from-empty", "from_version", {**D, "from_version": ""}, ("npm:demo", "", "1.0.0"))
row("diff_versions", "from-huge", "from_version", {**D, "from_version": "1" * MB})
row("diff_versions", "from-huge-cli", "from_version", {**D, "from_version": "1" * CLI_HUGE},
    ("npm:demo", "1" * CLI_HUGE, "1.0.0"))
row("diff_versions", "from-non-utf8", "from_version", {**D, "from_version": "\udcff"}, ("npm:demo", b"\xff", "1.0.0"))
row("diff_versions", "from-type-int", "from_version", {**D, "from_version": 5})
row("diff_versions", "to-type-list", "to_version", {**D, "to_version": ["2.0.0"]})
row("diff_versions", "to-bad-version", "to_version", {**D, "to_version": "1..2 <>"}, ("npm:demo", "1.0.0", "1..2 <>"))
row("diff_versions", "context-too-big", "context", {**D, "context": 21}, (*DS, "--context", "21"))
row("diff_versions", "context-negative", "context", {**D, "context": -1}, (*DS, "-U", "-1"))
row("diff_versions", "context-type-string", "context", {**D, "context": "3"})
row("diff_versions", "context-word-cli", "context", None, (*DS, "--context", "x"), names="--context")
row("diff_versions", "path-traversal", "path", {**D, "path": "../x"}, (*DS, "--path", "../x"))
row("diff_versions", "path-empty", "path", {**D, "path": ""}, (*DS, "--path", ""))
row("diff_versions", "prefix-absolute", "path_prefix", {**D, "path_prefix": "/etc"}, (*DS, "/etc"))
row("diff_versions", "cursor-empty", "cursor", {**D, "cursor": ""}, (*DS, "--cursor", ""))
row("diff_versions", "cursor-type", "cursor", {**D, "cursor": 7})
row("diff_versions", "unknown-key", "bogus", {**D, "bogus": 1})
row("diff_versions", "unknown-key-git-ref", "git_ref", {**D, "git_ref": "main"})
row("diff_versions", "unknown-key-version", "version", {**D, "version": "1.0.0"})
row("diff_versions", "unknown-key-cli-switch", "_whole", {**D, "_whole": True})
row("diff_versions", "both-forms", "repo_url", {**D, "repo_url": GIT_URL})
row("diff_versions", "both-forms-cli", "spec", None, ("--repo-url", GIT_URL, *DS), names="package spec")
row("diff_versions", "from-ref-missing", "from_ref", {"repo_url": GIT_URL, "to_ref": "main"},
    ("--repo-url", GIT_URL, "--to", "main"))
row("diff_versions", "git-ref-cli", "git_ref", None, ("--repo-url", GIT_URL, "--git-ref", "main", "a", "b"),
    names="--git-ref")
row("diff_versions", "spec-with-version-cli", "from_version", None, (SPEC, "1.0.0", "1.0.0"), names="SPEC")
row("diff_versions", "operand-missing-cli", "from_version", None, ("npm:demo", "1.0.0"), names="FROM TO")
row("diff_versions", "extra-operand-cli", "path_prefix", None, (*DS, "lib", "more"), names="PATH_PREFIX")

# --- command lines argparse refuses: usage errors, exit 2 -----------------------------------

# --- list_deps (SPEC §2.10) -----------------------------------------------------------------

row("list_deps", "project-empty", "project_dir", {"project_dir": ""}, ("--project", ""))
row("list_deps", "project-huge", "project_dir", {"project_dir": "a" * MB})
row("list_deps", "project-huge-cli", "project_dir", None, ("--project", "a" * CLI_HUGE))
row("list_deps", "project-non-utf8", "project_dir", {"project_dir": "\udcff"}, ("--project", b"\xff"))
row("list_deps", "project-type", "project_dir", {"project_dir": 5})
row("list_deps", "all-type", "all", {"all": "yes"})
row("list_deps", "cursor-bad", "cursor", {"cursor": "x"}, ("--cursor", "x"))
row("list_deps", "cursor-empty", "cursor", {"cursor": ""}, ("--cursor", ""))
row("list_deps", "cursor-type", "cursor", {"cursor": 3})
row("list_deps", "unknown-key", "deps", {"deps": "all"})

USAGE_ERRORS: list[tuple[str, ...]] = [
    ("files", "--bogus"), ("files", "--repo-url"), ("read", SPEC, "index.js", "--lines"),
    ("grep", SPEC, "x", "index.js", "--context"), ("search",), ("search", "x", "--lang"), ("fetch", "--repo"),
    ("fetch", BLOB, "extra"), ("cache",), ("cache", "bogus"), ("cache", "list", "--bogus"),
    ("diff", *DS, "--stat", "--numstat"), ("cache", "path", "extra"), ("cache", "clear", "--json"),
    ("cache", "prune", "--all"), ("nosuchcommand",), ("deps", "--all=yes"), ("deps", "extra"),
]

# Command lines also run as real processes: every usage error, and one row in five.
SAMPLED = [(" ".join(a), mode) for a in USAGE_ERRORS for mode in ("json", "plain")] + [
    (r.id, mode) for r in [r for r in ROWS if r.argv is not None][::5] for mode in ("json", "plain")]

# --- the world: fakes, a warm cache, one MCP server, every CLI run --------------------------


@dataclass
class Cli:
    code: int
    stdout: bytes
    stderr: bytes


def _environment(base: Path, bin_dir: Path, urls: dict[str, str]) -> dict[str, str]:
    """The test environment, built explicitly: module fixtures run outside the autouse one."""
    env = isolated_subprocess_env(base, first_on_path=(bin_dir,))
    env.update({
        "FAKE_GH_LOG": str(base / "gh.log"), "FAKE_GH_API": urls["github"], "FAKE_GIT_LOG": str(base / "git.log"),
        "CODENAV_NPM_REGISTRY": urls["npm"], "CODENAV_PYPI_INDEX_URL": urls["pypi"],
        "CODENAV_GREP_APP_URL": urls["grep"], "CODENAV_GITHUB_API_URL": urls["github"],
        "CODENAV_GREP_APP_TIMEOUT": "2",
    })
    return env


def _install_logging_git(bin_dir: Path) -> None:
    """A ``git`` first on PATH that records each call, then runs the real one."""
    real = shutil.which("git")
    assert real, "git is needed"
    script = bin_dir / "git"
    script.write_text(f'#!/bin/sh\necho "$*" >> "$FAKE_GIT_LOG"\nexec "{real}" "$@"\n', encoding="utf-8")
    script.chmod(0o755)


def _run(argv: tuple[str | bytes, ...], env: dict[str, str]) -> Cli:
    """``python -m codenav ARGV`` in a subprocess."""
    done = subprocess.run([sys.executable, "-m", "codenav", *argv], capture_output=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=60)
    return Cli(done.returncode, done.stdout, done.stderr)


def _run_here(argv: tuple[str | bytes, ...]) -> Cli:
    """``cli.main(ARGV)`` in this process, with stdout and stderr captured as a process's are.

    Arguments are decoded as Python decodes a real argv (surrogateescape), the exit code is
    main's return value or SystemExit's (argparse), and an exception escaping main is written
    to the captured stderr as the interpreter would print it — so the checks below see it.
    """
    out, err = io.BytesIO(), io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True)
    stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = stdout, stderr
    try:
        code = cli.main([os.fsdecode(a) for a in argv])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc(file=stderr)
        code = 1
    finally:
        sys.stdout, sys.stderr = saved
        for stream in (stdout, stderr):
            try:
                stream.flush()
            except ValueError:
                pass
    return Cli(code, out.getvalue(), err.getvalue())


@contextmanager
def _environ(env: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _mcp_calls(rows: list[Row], env: dict[str, str]) -> tuple[dict[str, dict[str, Any]], bytes]:
    """Every row's tools/call pipelined into one server; results by row id, and its stderr.

    stdin stays open until the last answer is in: at EOF the server gives running calls only
    a short grace (SPEC §6), and this is about answers, not about EOF.
    """
    frames = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {}}},
              {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    for n, r in enumerate(rows, 1):
        frames.append({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                       "params": {"name": r.tool, "arguments": r.mcp}})
    # ensure_ascii keeps lone surrogates as \udcff escapes: JSON can carry them, UTF-8 cannot.
    wire = b"".join(json.dumps(f, ensure_ascii=True).encode("ascii") + b"\n" for f in frames)
    proc = subprocess.Popen([sys.executable, "-m", "codenav", "mcp", "--json"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stderr: list[bytes] = []
    pumps = [threading.Thread(target=lambda: (proc.stdin.write(wire), proc.stdin.flush()), daemon=True),
             threading.Thread(target=lambda: stderr.append(proc.stderr.read()), daemon=True)]
    for pump in pumps:
        pump.start()
    by_id: dict[int, dict[str, Any]] = {}
    try:
        while len(by_id) < len(rows) + 1:
            line = proc.stdout.readline()
            assert line, "the server closed stdout before answering every call"
            message = json.loads(line)
            assert message["id"] not in by_id, f"two responses for id {message['id']}"
            by_id[message["id"]] = message
        pumps[0].join()
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0
        pumps[1].join()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert sorted(by_id) == list(range(len(rows) + 1))
    return {r.id: by_id[n] for n, r in enumerate(rows, 1)}, b"".join(stderr)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("bad-arguments")
    (base / "home").mkdir()
    bin_dir = base / "bin"
    install_fake_gh(bin_dir)
    _install_logging_git(bin_dir)
    with FakeServer() as npm_server, FakeServer() as pypi_server, FakeGrepApp() as grep, \
            FakeServer() as github_server:
        npm = FakeNpm(npm_server)
        npm.publish("demo", "1.0.0", {"index.js": b"const a = 1;\nmodule.exports = a;\n", "lib/a.js": b"//\n"})
        pypi = FakePypi(pypi_server)
        pypi.add_wheel("demo", "1.0.0", {"demo/__init__.py": b""})
        FakeGitHub(github_server).add_file("octo/demo", "src/app.py", b"print('hi')\n")
        urls = {"npm": npm.url, "pypi": pypi.url, "grep": grep.url, "github": github_server.url}
        env = _environment(base, bin_dir, urls)
        # Warm the cache for the pinned demo package: rows that need the file (a start line
        # past its end) then read it without a request.
        warm = _run(("files", SPEC, "--json"), env)
        assert warm.code == 0, warm.stderr
        # The tripwires work: a good fetch runs the fake gh, a git target runs git.
        assert _run(("fetch", "--repo", "octo/demo", "--path", "src/app.py"), env).code == 0
        _run(("files", "--repo-url", str(base / "no-such-repo"), "--wait", "0"), env)
        assert gh_calls(base / "gh.log") and (base / "git.log").read_text()
        (base / "gh.log").unlink()
        (base / "git.log").unlink()
        servers = {"npm": npm_server, "pypi": pypi_server, "grep.app": grep, "github": github_server}
        for server in servers.values():
            server.seen.clear()
        mcp, mcp_stderr = _mcp_calls([r for r in ROWS if r.mcp is not None], env)
        jobs: dict[tuple[str, str], tuple[str | bytes, ...]] = {}
        for r in ROWS:
            if r.argv is not None:
                command = tools.REGISTRY[r.tool]
                jobs[(r.id, "json")] = (command, *r.argv, "--json")
                jobs[(r.id, "plain")] = (command, *r.argv)
        for argv in USAGE_ERRORS:
            jobs[(" ".join(argv), "json")] = (*argv, "--json")
            jobs[(" ".join(argv), "plain")] = argv
        # Every command line runs in this process (a few ms each); a sample also runs as a real
        # `python -m codenav` process, and the two must agree (test_in_process_runs_match...).
        with _environ(env):
            runs = {key: _run_here(argv) for key, argv in jobs.items()}
        with ThreadPoolExecutor(max_workers=2 * (os.cpu_count() or 2)) as pool:
            futures = {key: pool.submit(_run, jobs[key], env) for key in SAMPLED}
            processes = {key: future.result() for key, future in futures.items()}
        yield {"mcp": mcp, "mcp_stderr": mcp_stderr, "cli": runs, "processes": processes,
               "seen": {name: list(server.seen) for name, server in servers.items()},
               "gh": gh_calls(base / "gh.log"),
               "git": (base / "git.log").read_text() if (base / "git.log").exists() else ""}


def _named(message: str, what: str) -> bool:
    """Whether ``message`` mentions ``what``, as argument (start_line) or as words (start line)."""
    def norm(text: str) -> str:
        return text.lower().replace("_", " ").replace("-", " ")

    return norm(what).strip() in norm(message)


def _no_traceback(*outputs: bytes | str) -> None:
    for output in outputs:
        text = output.decode("utf-8", "replace") if isinstance(output, bytes) else output
        assert "Traceback" not in text and 'File "' not in text, text[:2000]


def _check_envelope(envelope: dict[str, Any], r: Row) -> None:
    contract.validator("error").validate(envelope)
    error = envelope["error"]
    assert (error["code"], error["retryable"]) == ("INVALID_ARGUMENT", False), error
    assert error.get("details", {}).get("field") == r.field, error
    assert _named(error["message"], r.names or r.field or ""), error["message"]
    assert len(contract.dumps(envelope)) < 4096, "an error envelope quotes a huge value"


MCP_ROWS = [r for r in ROWS if r.mcp is not None]
CLI_ROWS = [r for r in ROWS if r.argv is not None]
BOTH = [r for r in ROWS if r.mcp is not None and r.argv is not None]


@pytest.mark.parametrize("r", MCP_ROWS, ids=[r.id for r in MCP_ROWS])
def test_mcp_bad_arguments_are_an_invalid_argument_result_naming_the_field(world: dict[str, Any], r: Row) -> None:
    """tools/call with the bad arguments: an isError result carrying INVALID_ARGUMENT with the
    field, the text block the same JSON, no traceback."""
    response = world["mcp"][r.id]
    assert "result" in response, response
    result = response["result"]
    assert result["isError"] is True
    envelope = result["structuredContent"]
    assert result["content"] == [{"type": "text", "text": contract.dumps(envelope)}]
    _check_envelope(envelope, r)
    _no_traceback(result["content"][0]["text"])


@pytest.mark.parametrize("r", CLI_ROWS, ids=[r.id for r in CLI_ROWS])
def test_cli_json_bad_arguments_print_the_envelope_and_exit_with_the_error_code(world: dict[str, Any],
                                                                                r: Row) -> None:
    """`codenav <cmd> … --json`: exactly one envelope line on stdout, the tool's error exit code
    (1; 2 for grep and search), no traceback on stdout or stderr."""
    run = world["cli"][(r.id, "json")]
    assert run.code == ERROR_EXIT[r.tool], (run.code, run.stderr)
    assert run.stdout.endswith(b"\n") and run.stdout.count(b"\n") == 1, run.stdout[:500]
    _check_envelope(json.loads(run.stdout), r)
    _no_traceback(run.stdout, run.stderr)
    assert run.stderr == b""


@pytest.mark.parametrize("r", CLI_ROWS, ids=[r.id for r in CLI_ROWS])
def test_cli_plain_bad_arguments_say_why_on_stderr_and_nothing_on_stdout(world: dict[str, Any], r: Row) -> None:
    """Plain mode: stdout stays empty (pipes stay clean), stderr says the envelope's message and
    action in the CLI's words (`codenav: …` lines, SPEC §4.3), same exit code, no traceback."""
    from codenav.words import error_lines

    run, as_json = world["cli"][(r.id, "plain")], world["cli"][(r.id, "json")]
    error = json.loads(as_json.stdout)["error"]
    assert run.code == ERROR_EXIT[r.tool]
    assert run.stdout == b""
    lines = run.stderr.decode("utf-8").splitlines()
    expected = [f"codenav: {line}" for line in error_lines(error["code"], error["message"], error.get("details", {}))]
    assert lines == expected
    assert len(lines) <= 1 + ("action" in error.get("details", {})) + 1  # message, recovery facts, action
    _no_traceback(run.stderr)


def _cli_arguments(r: Row) -> dict[str, Any]:
    """The MCP arguments the CLI builds from the row's command line (its own options travel apart)."""
    from codenav.tools import call

    command = tools.REGISTRY[r.tool]
    assert r.argv is not None
    ns = cli._build_parser(command).parse_args([command, *(os.fsdecode(a) for a in r.argv)])
    return call(ns)[1]  # one command, one adapter (grep: grep_file's)


@pytest.mark.parametrize("r", BOTH, ids=[r.id for r in BOTH])
def test_both_surfaces_give_one_envelope_for_one_mistake(world: dict[str, Any], r: Row) -> None:
    """The CLI builds exactly the row's MCP arguments, and its --json line is byte for byte the
    MCP text payload plus a newline (SPEC §4 parity)."""
    assert _cli_arguments(r) == r.mcp
    text = world["mcp"][r.id]["result"]["content"][0]["text"]
    assert world["cli"][(r.id, "json")].stdout == text.encode("utf-8") + b"\n"


@pytest.mark.parametrize("argv", USAGE_ERRORS, ids=[" ".join(a) for a in USAGE_ERRORS])
def test_unparsable_command_lines_are_usage_errors_exit_2(world: dict[str, Any], argv: tuple[str, ...]) -> None:
    """argparse's refusals (unknown option, option without its value, missing or unknown
    subcommand) exit 2 with the usage on stderr, nothing on stdout even with --json, no traceback."""
    for mode in ("json", "plain"):
        run = world["cli"][(" ".join(argv), mode)]
        assert run.code == 2, (mode, run.stderr)
        assert run.stdout == b""
        assert b"usage: codenav" in run.stderr and b"error:" in run.stderr
        _no_traceback(run.stderr)


@pytest.mark.parametrize("key", SAMPLED, ids=[f"{k}-{m}" for k, m in SAMPLED])
def test_in_process_runs_match_real_processes(world: dict[str, Any], key: tuple[str, str]) -> None:
    """`python -m codenav …` exits with the same code and prints the same bytes as the
    in-process run the other tests check."""
    assert world["processes"][key] == world["cli"][key]


def test_no_bad_argument_reached_any_upstream(world: dict[str, Any]) -> None:
    """Not one request reached the fake npm registry, PyPI index, grep.app or GitHub API, and
    neither gh nor git was run: every refusal happened before the network."""
    assert {name: [(s.method, s.path) for s in seen] for name, seen in world["seen"].items()} == {
        "npm": [], "pypi": [], "grep.app": [], "github": []}
    assert world["gh"] == []
    assert world["git"] == ""


def test_the_server_logged_no_traceback(world: dict[str, Any]) -> None:
    """No row made a tool fail with an exception: the server's stderr holds no traceback."""
    _no_traceback(world["mcp_stderr"])
    assert world["mcp_stderr"] == b""


@pytest.mark.parametrize("tool", list(tools.REGISTRY))
def test_the_table_covers_every_tool_on_both_surfaces(tool: str) -> None:
    """Each tool has rows on both surfaces, parity rows, and rows for unknown keys, wrong types,
    huge values, text that is not UTF-8 and empty values."""
    mine = [r for r in ROWS if r.tool == tool]
    assert any(r.mcp is not None for r in mine) and any(r.argv is not None for r in mine)
    assert any(r.mcp is not None and r.argv is not None for r in mine)
    assert any(r.kind.startswith("unknown-key") for r in mine)
    assert any("type" in r.kind for r in mine)
    assert any("huge" in r.kind for r in mine)
    assert any("non-utf8" in r.kind for r in mine)
    assert any("empty" in r.kind for r in mine)


def test_row_ids_are_unique() -> None:
    """Every row has its own id (a typo would otherwise hide a row)."""
    ids = [r.id for r in ROWS]
    assert len(ids) == len(set(ids))


def test_cli_length_limits_are_the_schema_limits() -> None:
    """The limits the CLI path enforces without jsonschema are the schemas' maxLength."""
    defs = json.loads((contract.schema_dir() / "defs.json").read_text(encoding="utf-8"))["$defs"]
    assert (targets.MAX_NAME, targets.MAX_VERSION, targets.MAX_REPO_URL, targets.MAX_GIT_REF, targets.MAX_PATH) == (
        defs["package_name"]["maxLength"], defs["version"]["maxLength"], defs["repo_url"]["maxLength"],
        defs["git_ref"]["maxLength"], defs["path"]["maxLength"])
    from codenav.tools import codefetch

    fetch_props = contract.tool_spec("codefetch")["inputSchema"]["properties"]
    assert codefetch._MAX_LENGTH == {key: fetch_props[key]["maxLength"] for key in codefetch._MAX_LENGTH}
