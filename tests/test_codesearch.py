"""codesearch against a fake grep.app MCP endpoint that replays the real wire format (SPEC §2.6)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codenav import contract
from codenav.errors import CodenavError
from codenav.remotes import grepapp as grepapp_client
from codenav.tools import codesearch
from tests.fakes.grepapp import (
    NO_RESULTS,
    FakeGrepApp,
    hit_text,
    json_reply,
    result,
    rpc_error,
    sse_reply,
)
from tests.fakes.http import Reply
from tests.support.cli import run_cli

DATA = Path(__file__).parent / "data" / "grepapp"
HEADERS_ACCEPT = "application/json, text/event-stream"


@pytest.fixture
def grepapp(monkeypatch: pytest.MonkeyPatch) -> Any:
    with FakeGrepApp() as server:
        monkeypatch.setenv("CODENAV_GREP_APP_URL", server.url)
        yield server


def search(**args: Any) -> dict[str, Any]:
    """Run the tool and check the success against its outputSchema."""
    out = codesearch.run(args)
    errors = list(contract.validator("codesearch", "outputSchema").iter_errors(out))
    assert not errors, errors[0].message
    return out


def fails(**args: Any) -> CodenavError:
    with pytest.raises(CodenavError) as caught:
        codesearch.run(args)
    envelope = caught.value.to_envelope()
    assert not list(contract.validator("error").iter_errors(envelope))
    return caught.value


def numbered(start: int, code: list[str]) -> dict[str, Any]:
    return {"startLine": start, "lines": [{"line": start + i, "text": t} for i, t in enumerate(code)]}


def hit(repo: str, path: str, snippets: list[dict[str, Any]], license: str = "MIT") -> dict[str, Any]:
    return {"repo": repo, "path": path, "url": f"https://github.com/{repo}/blob/main/{path}", "license": license,
            "snippets": snippets}


TEN = [(f"org{i}/repo{i}", f"src/mod{i}.ts", [(10 * i + 1, [f"  const a{i} = useState(0);", "  return a;"]),
                                               (100 + i, ["", "    useState(1)"])])
       for i in range(10)]


# --- the two framings and the parser ---------------------------------------------------------


def test_ten_json_items_become_ten_results_numbered_line_by_line(grepapp: FakeGrepApp) -> None:
    """A plain-JSON reply with ten items gives ten results, every line numbered start + offset, and the cap hint."""
    grepapp.answer(json_reply(result([hit_text(r, p, s) for r, p, s in TEN])))
    out = search(query="useState(")
    assert out == {
        "query": "useState(",
        "filter": {},
        "results": [hit(r, p, [numbered(start, list(code)) for start, code in s]) for r, p, s in TEN],
        "hasMore": False,
        "hint": codesearch.CAP_HINT,
    }
    assert [line["line"] for line in out["results"][3]["snippets"][0]["lines"]] == [31, 32]
    assert [line["line"] for line in out["results"][3]["snippets"][1]["lines"]] == [103, 104]


@pytest.mark.parametrize("framing", [
    {},
    {"data_space": False},
    {"split": True},
    {"crlf": True},
    {"before": [": keepalive\n\n", "event: message\ndata: [DONE]\n\n", "data: not json\n\n",
                'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n',
                'data: {"jsonrpc":"2.0","id":7,"result":{"content":[]}}\n\n']},
], ids=["plain", "no-space", "multi-line-data", "crlf", "noise-before"])
def test_sse_framings_give_the_same_result_as_json(grepapp: FakeGrepApp, framing: dict[str, Any]) -> None:
    """SSE replies (comments, event:/id:, data:x, multi-line data, CRLF, [DONE], notifications, other ids) read like JSON."""
    message = result([hit_text(r, p, s) for r, p, s in TEN[:3]])
    grepapp.answer(json_reply(message))
    expected = search(query="useState(")
    grepapp.answer(sse_reply(message, **framing))
    assert search(query="useState(") == expected
    assert len(expected["results"]) == 3


def test_sse_event_with_a_bare_json_line_is_read(grepapp: FakeGrepApp) -> None:
    """A JSON line after `event: message` without `data:` (seen from GitHub's MCP server) is tolerated."""
    message = result([hit_text("a/b", "x.go", [(3, ["func main() {"])])])
    grepapp.answer(Reply(200, f"event: message\n{json.dumps(message)}\n\n".encode(),
                         {"Content-Type": "text/event-stream"}))
    assert search(query="func main")["results"] == [hit("a/b", "x.go", [numbered(3, ["func main() {"])])]


def test_golden_sse_capture_parses_to_the_golden_result(grepapp: FakeGrepApp) -> None:
    """The real-format SSE capture (SOFA item, a snippet holding header-like code) gives the golden result."""
    grepapp.answer(Reply(200, (DATA / "sofa.sse").read_bytes(), {"Content-Type": "text/event-stream"}))
    out = search(query="sofa.fetch(", language=["TypeScript"])
    assert out == json.loads((DATA / "sofa.expected.json").read_text())


def test_header_lines_inside_a_snippet_stay_code(grepapp: FakeGrepApp) -> None:
    """`Path: x` and `Repository: y` lines inside a snippet are code, not a new record."""
    code = ["config = {", "Repository: y", "Path: x", "URL: z", "License: w", "", "Snippets:", "}"]
    grepapp.answer(sse_reply(result([hit_text("a/b", "c.yaml", [(40, code), (90, ["Path: again"])])])))
    assert search(query="Path:")["results"] == [hit("a/b", "c.yaml", [numbered(40, code), numbered(90, ["Path: again"])])]


def test_leading_blank_lines_and_indentation_are_kept(grepapp: FakeGrepApp) -> None:
    """Leading blank lines, inner blank lines and indentation survive, so numbers match the file."""
    code = ["", "", "    def handler(self):", "\t\treturn 1  ", "", "        pass"]
    grepapp.answer(json_reply(result([hit_text("a/b", "x.py", [(5, code)])])))
    lines = search(query="return 1")["results"][0]["snippets"][0]["lines"]
    assert lines == [{"line": 5, "text": ""}, {"line": 6, "text": ""}, {"line": 7, "text": "    def handler(self):"},
                     {"line": 8, "text": "\t\treturn 1  "}, {"line": 9, "text": ""}, {"line": 10, "text": "        pass"}]


def test_trailing_separator_lines_are_dropped_whatever_the_item_ending(grepapp: FakeGrepApp) -> None:
    """Blank lines before the next marker or the item end are separators; whitespace-only code lines stay."""
    text = ("Repository: a/b\nPath: p.c\nURL: https://github.com/a/b/blob/main/p.c\nLicense: Unknown\n\nSnippets:\n"
            "--- Snippet 1 (Line 3) ---\nint x;\n   \n\n\n--- Snippet 2 (Line 20) ---\nint y;")
    grepapp.answer(json_reply(result([text])))
    assert search(query="int")["results"][0]["snippets"] == [numbered(3, ["int x;", "   "]), numbered(20, ["int y;"])]


def test_unicode_line_separators_are_not_line_breaks(grepapp: FakeGrepApp) -> None:
    """Only \\n splits lines: U+2028 and form feeds inside code keep the numbering right."""
    code = ["a = '\u2028'", "\x0c", "b = 2"]
    grepapp.answer(json_reply(result([hit_text("a/b", "u.py", [(1, code)])])))
    assert search(query="a")["results"][0]["snippets"] == [numbered(1, code)]


def test_no_results_text_is_an_explicit_empty_result(grepapp: FakeGrepApp) -> None:
    """`No results found for your query.` is an empty result with a hint, not an error."""
    grepapp.answer(sse_reply(result([NO_RESULTS])))
    out = search(query="zzzqqq", repo="a/")
    assert out["results"] == [] and out["hasMore"] is False and out["filter"] == {"repo": "a/"}
    assert "literally" in out["hint"] and "filter" in out["hint"]


# --- the request on the wire -----------------------------------------------------------------


def test_minimal_request_body_is_exact(grepapp: FakeGrepApp) -> None:
    """One POST: JSON-RPC tools/call of searchGitHub, the three booleans false, nothing null, the two headers."""
    search(query="useState(")
    assert len(grepapp.seen) == 1
    seen = grepapp.seen[0]
    assert (seen.method, seen.path) == ("POST", "/")
    assert seen.headers["content-type"] == "application/json"
    assert seen.headers["accept"] == HEADERS_ACCEPT
    assert "mcp-session-id" not in seen.headers
    assert json.loads(seen.body) == {
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "searchGitHub", "arguments": {
            "query": "useState(", "useRegexp": False, "matchCase": False, "matchWholeWords": False}},
    }
    assert b"null" not in seen.body


def test_full_request_maps_every_option_and_the_filter_echoes_them(grepapp: FakeGrepApp) -> None:
    """Every option goes out under its wire name; filter echoes exactly what the caller supplied."""
    out = search(query="(?s)use.*State", regex=True, case_sensitive=False, whole_words=True,
                 repo="facebook/react", path="/route.ts", language=["TypeScript", "TSX"])
    assert grepapp.bodies[0]["params"]["arguments"] == {
        "query": "(?s)use.*State", "useRegexp": True, "matchCase": False, "matchWholeWords": True,
        "repo": "facebook/react", "path": "/route.ts", "language": ["TypeScript", "TSX"]}
    assert out["filter"] == {"regex": True, "caseSensitive": False, "wholeWords": True, "repo": "facebook/react",
                             "path": "/route.ts", "language": ["TypeScript", "TSX"]}


@pytest.mark.parametrize("args, field", [
    ({"query": ""}, "query"),
    ({"query": "x", "repo": ""}, "repo"),
    ({"query": "x", "language": []}, "language"),
    ({"query": "x", "regex": "yes"}, "regex"),
    ({"query": "x", "limit": 5}, "limit"),
])
def test_bad_arguments_are_refused_before_sending(grepapp: FakeGrepApp, args: dict[str, Any], field: str) -> None:
    """An empty query or a malformed option is INVALID_ARGUMENT naming the field, and nothing is sent."""
    error = fails(**args)
    assert (error.code, error.details.get("field")) == ("INVALID_ARGUMENT", field)
    assert grepapp.seen == []


# --- the secret guard ------------------------------------------------------------------------

SECRET_LIKE = [
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA",
    "-----BEGIN PRIVATE KEY-----",
    "aws_access_key_id = AKIAQ3EGTWNA5MZ2XJ7P",
    "token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "gho_" + "Z" * 36,
    "ghs_" + "0123456789abcdefABCDEF0123456789abcd",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
    "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
    "OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLmN0pQrStUvWxYz123456",
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]


@pytest.mark.parametrize("query", SECRET_LIKE)
def test_credential_like_query_is_refused_and_never_sent(grepapp: FakeGrepApp, query: str) -> None:
    """A query shaped like a credential is INVALID_ARGUMENT, not echoed, and the fake sees no request."""
    error = fails(query=query)
    assert error.code == "INVALID_ARGUMENT" and error.details["field"] == "query"
    assert "allow_secret_like" in error.details["action"]
    assert query not in error.message and query not in json.dumps(error.to_envelope())
    assert grepapp.seen == []


def test_secret_in_repo_or_path_is_refused_too(grepapp: FakeGrepApp) -> None:
    """The guard covers every free-text field that leaves the machine."""
    assert fails(query="x", path="AKIAQ3EGTWNA5MZ2XJ7P").details["field"] == "path"
    assert grepapp.seen == []


def test_allow_secret_like_sends_the_query(grepapp: FakeGrepApp) -> None:
    """allow_secret_like lets a public, key-shaped string through (e.g. searching for PEM parsers)."""
    search(query="-----BEGIN RSA PRIVATE KEY-----", allow_secret_like=True)
    assert grepapp.bodies[0]["params"]["arguments"]["query"] == "-----BEGIN RSA PRIVATE KEY-----"
    assert "allow_secret_like" not in grepapp.bodies[0]["params"]["arguments"]


@pytest.mark.parametrize("query", [
    'token.startswith("ghp_")', "sk-learn", "risk-assessment-for-the-whole-project-2024-Q1-v2", "AKIA",
    "xoxb-", "-----BEGIN CERTIFICATE-----", "-----BEGIN PUBLIC KEY-----", "github_pat_", "hf_hub_download(",
    "npm_config_registry", "sk_live_", "eyJhbGciOiJIUzI1NiJ9", "AIza",
])
def test_ordinary_code_is_not_mistaken_for_a_secret(grepapp: FakeGrepApp, query: str) -> None:
    """Token prefixes, certificates and public keys as they appear in code are sent normally."""
    search(query=query)
    assert len(grepapp.seen) == 1


# --- errors ----------------------------------------------------------------------------------


def test_invalid_params_error_is_invalid_argument_with_the_service_message(grepapp: FakeGrepApp) -> None:
    """JSON-RPC -32602 (grep.app's own argument check) is INVALID_ARGUMENT carrying its message."""
    text = ('Invalid arguments for tool searchGitHub: [{"code":"invalid_type","expected":"array",'
            '"received":"null","path":["language"],"message":"Expected array, received null"}]')
    grepapp.answer(sse_reply(rpc_error(-32602, text)))
    error = fails(query="x")
    assert (error.code, error.retryable) == ("INVALID_ARGUMENT", False)
    assert "Expected array, received null" in error.message and error.message.startswith("grep.app rejected")


def test_fake_rejects_nulls_like_the_real_server() -> None:
    """The fake answers a null option the way grep.app does, so the exact-body tests mean something."""
    from tests.fakes.grepapp import invalid_arguments

    assert "received" in (invalid_arguments({"query": "x", "language": None}) or "")
    assert invalid_arguments({"query": "x", "useRegexp": False, "language": ["Go"]}) is None


@pytest.mark.parametrize("code, retryable", [(-32603, True), (-32601, False)])
def test_other_jsonrpc_errors_are_upstream_errors(grepapp: FakeGrepApp, code: int, retryable: bool) -> None:
    """Any other JSON-RPC error is UPSTREAM_ERROR (retryable only for -32603, the server failing)."""
    grepapp.answer(json_reply(rpc_error(code, "boom")))
    error = fails(query="x")
    assert (error.code, error.retryable, error.details["upstreamCode"]) == ("UPSTREAM_ERROR", retryable, code)


def test_error_result_is_an_upstream_error_not_an_empty_search(grepapp: FakeGrepApp) -> None:
    """isError: true is UPSTREAM_ERROR carrying the service's text."""
    grepapp.answer(sse_reply(result(["Error: search backend unavailable"], is_error=True)))
    error = fails(query="x", regex=True)
    assert error.code == "UPSTREAM_ERROR" and "search backend unavailable" in error.message
    assert "regular expression" in error.details["action"]


def test_rate_limit_is_rate_limited_with_retry_after(grepapp: FakeGrepApp) -> None:
    """HTTP 429 is RATE_LIMITED, retryable, with retryAfterSeconds from Retry-After."""
    grepapp.answer(Reply(429, b"Too Many Requests", {"Retry-After": "17"}))
    error = fails(query="x")
    assert (error.code, error.retryable, error.details["retryAfterSeconds"]) == ("RATE_LIMITED", True, 17)


def test_gateway_timeout_is_a_retryable_upstream_error(grepapp: FakeGrepApp) -> None:
    """HTTP 504 (seen from grep.app on a slow first call) is UPSTREAM_ERROR, retryable."""
    grepapp.answer(Reply(504, b"<html>504 Gateway Time-out</html>", {"Content-Type": "text/html"}))
    error = fails(query="x")
    assert (error.code, error.retryable, error.details["status"]) == ("UPSTREAM_ERROR", True, 504)


def test_a_4xx_carrying_a_jsonrpc_error_is_read(grepapp: FakeGrepApp) -> None:
    """A 400 whose body is a -32602 JSON-RPC error is INVALID_ARGUMENT, not a bare HTTP error."""
    grepapp.answer(json_reply(rpc_error(-32602, "Invalid arguments"), status=400))
    assert fails(query="x").code == "INVALID_ARGUMENT"


def test_slow_reply_past_the_timeout_is_timeout(grepapp: FakeGrepApp, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reply slower than CODENAV_GREP_APP_TIMEOUT is TIMEOUT, retryable, with an action."""
    monkeypatch.setenv("CODENAV_GREP_APP_TIMEOUT", "0.3")
    grepapp.answer(Reply(200, json.dumps(result([NO_RESULTS])).encode(), delay=1.5))
    error = fails(query="x")
    assert (error.code, error.retryable) == ("TIMEOUT", True)
    assert "CODENAV_GREP_APP_TIMEOUT" in error.details["action"]


def test_slow_drip_body_past_the_timeout_is_timeout(grepapp: FakeGrepApp, monkeypatch: pytest.MonkeyPatch) -> None:
    """The deadline covers the body too: an SSE stream that drips past it is TIMEOUT."""
    monkeypatch.setenv("CODENAV_GREP_APP_TIMEOUT", "0.4")
    grepapp.answer(Reply(200, [b": keepalive\n\n"] * 10, {"Content-Type": "text/event-stream"}, chunk_delay=0.1))
    assert fails(query="x").code == "TIMEOUT"


def test_oversized_body_is_too_large(grepapp: FakeGrepApp) -> None:
    """A body over the 2 MiB API cap is TOO_LARGE with an action to narrow the search."""
    big = result([hit_text("a/b", "min.js", [(1, ["x" * (3 * 1024 * 1024)])])])
    grepapp.answer(json_reply(big))
    error = fails(query="x")
    assert error.code == "TOO_LARGE" and "narrow" in error.details["action"]


def test_redirect_is_refused_never_followed(grepapp: FakeGrepApp) -> None:
    """A 302 from grep.app is PROTOCOL_ERROR and its Location is never requested."""
    grepapp.answer(Reply(302, b"", {"Location": grepapp.url + "/elsewhere"}))
    error = fails(query="x")
    assert error.code == "PROTOCOL_ERROR" and "redirect" in error.message
    assert [s.path for s in grepapp.seen] == ["/"]


def test_not_found_is_a_configuration_hint(grepapp: FakeGrepApp) -> None:
    """A 404 means no endpoint at the configured URL: UPSTREAM_ERROR naming the variable."""
    grepapp.answer(Reply(404, b"Not Found"))
    error = fails(query="x")
    assert error.code == "UPSTREAM_ERROR" and "CODENAV_GREP_APP_URL" in error.message


HEADER = "Repository: a/b\nPath: p\nURL: https://github.com/a/b/blob/main/p\nLicense: MIT\n\nSnippets:\n"
MALFORMED = {
    "html": Reply(200, b"<html><body>Sign in</body></html>", {"Content-Type": "text/html"}),
    "empty-body": Reply(200, b""),
    "not-utf8": Reply(200, b"\xff\xfe{", {"Content-Type": "application/json"}),
    "json-broken": Reply(200, b'{"jsonrpc":"2.0","id":1,"result":', {"Content-Type": "application/json"}),
    "json-no-result": json_reply({"jsonrpc": "2.0", "id": 1}),
    "wrong-id-only": sse_reply(result([NO_RESULTS], id=9)),
    "content-not-list": json_reply({"jsonrpc": "2.0", "id": 1, "result": {"content": "text"}}),
    "content-empty": json_reply(result([])),
    "image-item": json_reply({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "image", "data": ""}]}}),
    "no-results-among-hits": json_reply(result([NO_RESULTS, HEADER + "--- Snippet 1 (Line 1) ---\nx\n"])),
    "missing-license": json_reply(result([HEADER.replace("License: MIT\n", "") + "--- Snippet 1 (Line 1) ---\nx"])),
    "missing-blank": json_reply(result([HEADER.replace("MIT\n\n", "MIT\n") + "--- Snippet 1 (Line 1) ---\nx"])),
    "missing-snippets-line": json_reply(result([HEADER.replace("Snippets:\n", "") + "--- Snippet 1 (Line 1) ---"])),
    "header-reordered": json_reply(result(["Path: p\nRepository: a/b\nURL: u\nLicense: MIT\n\nSnippets:\n"])),
    "empty-repo": json_reply(result([HEADER.replace("a/b\n", "\n", 1)])),
    "text-before-marker": json_reply(result([HEADER + "x = 1\n--- Snippet 1 (Line 1) ---\nx"])),
    "snippet-zero": json_reply(result([HEADER + "--- Snippet 0 (Line 1) ---\nx"])),
    "line-zero": json_reply(result([HEADER + "--- Snippet 1 (Line 0) ---\nx"])),
    "free-text": json_reply(result(["Found 3 results in 2 files"])),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_replies_are_protocol_errors_never_empty(grepapp: FakeGrepApp, name: str) -> None:
    """Bodies or items that break the format are PROTOCOL_ERROR, never an empty search."""
    grepapp.answer(MALFORMED[name])
    error = fails(query="x")
    assert (error.code, error.retryable) == ("PROTOCOL_ERROR", False)


# --- the output budget -----------------------------------------------------------------------


def _big_hits(files: int, snippets: int, lines: int, width: int) -> list[str]:
    return [hit_text(f"o/r{f}", f"f{f}.js", [(1 + 100 * s, [f"{s:03d}" + "x" * width] * lines)
                                               for s in range(snippets)]) for f in range(files)]


def test_budget_cuts_whole_trailing_snippets_and_says_how_to_narrow(grepapp: FakeGrepApp) -> None:
    """Over 50 KiB the envelope keeps whole leading snippets, sets hasMore and a narrowing hint."""
    grepapp.answer(json_reply(result(_big_hits(10, 3, 40, 60))))
    full_results = grepapp_client.parse_items(_big_hits(10, 3, 40, 60))
    out = search(query="x")
    size = len(contract.dumps(out).encode())
    assert size <= 50 * 1024 and out["hasMore"] is True
    assert "narrow the search with repo, path or language" in out["hint"]
    kept = out["results"]
    assert 0 < len(kept) < 10
    for got, full in zip(kept[:-1], full_results, strict=False):
        assert got == full
    last = kept[-1]
    assert last["snippets"] == full_results[len(kept) - 1]["snippets"][: len(last["snippets"])]
    snippet_count = sum(len(h["snippets"]) for h in kept)
    assert f"showing {len(kept)} of 10 files and {snippet_count} of 30 snippets" in out["hint"]
    # Nothing droppable was dropped: the next snippet would not have fitted.
    following = [s for h in full_results for s in h["snippets"]][snippet_count]
    assert size + len(contract.dumps(following).encode()) > 50 * 1024


def test_budget_caps_lines_at_two_thousand_including_the_notice() -> None:
    """Many short lines are cut at 2000 lines, the hint counting as one (bytes set loose to isolate the rule)."""
    full = {"query": "x", "filter": {}, "results": grepapp_client.parse_items(_big_hits(3, 6, 150, 0)), "hasMore": False}
    out = codesearch.fit_budget(full, max_bytes=10**7)
    lines = sum(len(s["lines"]) for h in out["results"] for s in h["snippets"])
    assert out["hasMore"] is True and lines == 13 * 150 and lines + 1 <= 2000
    assert [len(h["snippets"]) for h in out["results"]] == [6, 6, 1]
    assert "showing 3 of 3 files and 13 of 18 snippets" in out["hint"]


def test_single_huge_line_is_cut_with_a_marker_not_dropped(grepapp: FakeGrepApp) -> None:
    """A first line longer than the budget is kept, cut with a marker, so the caller sees something."""
    grepapp.answer(json_reply(result([hit_text("a/b", "bundle.min.js", [(7, ["z" * 200_000, "next"])])])))
    out = search(query="z")
    line = out["results"][0]["snippets"][0]["lines"]
    assert len(line) == 1 and line[0]["line"] == 7 and "[line cut:" in line[0]["text"]
    assert len(contract.dumps(out).encode()) <= 50 * 1024 and out["hasMore"] is True


# --- the CLI ---------------------------------------------------------------------------------


def test_cli_prints_grep_style_lines_and_exits_0(grepapp: FakeGrepApp) -> None:
    """Plain output is repo:path:line:text per snippet line, stderr only carries hints; exit 0."""
    grepapp.answer(sse_reply(result([hit_text("a/b", "x.py", [(5, ["", "  foo()"]), (30, ["foo(1)"])])])))
    proc = run_cli("search", "foo(", "--lang", "Python", "--lang", "Starlark", env={"CODENAV_GREP_APP_URL": grepapp.url})
    assert (proc.returncode, proc.stdout.decode(), proc.stderr) == (
        0, "a/b:x.py:5:\na/b:x.py:6:  foo()\na/b:x.py:30:foo(1)\n", b"")
    assert grepapp.bodies[0]["params"]["arguments"]["language"] == ["Python", "Starlark"]


def test_cli_verbose_is_the_text_answer_grouped_per_file(grepapp: FakeGrepApp) -> None:
    """--verbose prints the TEXT answer: a header with the counts, then per file its URL and
    licence once and `repo/path:N:text` lines, `--` between snippets."""
    grepapp.answer(json_reply(result([hit_text("a/b", "x.py", [(9, ["a", "b"]), (12, ["c"])], license="Apache-2.0")])))
    proc = run_cli("search", "a", "--verbose", env={"CODENAV_GREP_APP_URL": grepapp.url})
    assert proc.returncode == 0 and proc.stderr == b""
    assert proc.stdout.decode() == (
        "grep.app · 1 file, 2 snippets\nhttps://github.com/a/b/blob/main/x.py (Apache-2.0)\n"
        "a/b/x.py:9:a\na/b/x.py:10:b\n--\na/b/x.py:12:c\n")


@pytest.mark.parametrize("json_flag", [False, True])
def test_cli_no_results_exits_1(grepapp: FakeGrepApp, json_flag: bool) -> None:
    """No hits: exit 1 in plain and --json mode alike; plain stdout stays empty, the hint goes to stderr."""
    grepapp.answer(sse_reply(result([NO_RESULTS])))
    proc = run_cli("search", "nothing", *(["--json"] if json_flag else []), env={"CODENAV_GREP_APP_URL": grepapp.url})
    assert proc.returncode == 1
    if json_flag:
        out = json.loads(proc.stdout)
        assert out["results"] == [] and out["filter"] == {} and proc.stderr == b""
    else:
        assert proc.stdout == b"" and b"No files matched" in proc.stderr


def test_cli_json_matches_the_run_result(grepapp: FakeGrepApp) -> None:
    """--json prints exactly contract.dumps of the result, exit 0."""
    grepapp.answer(json_reply(result([hit_text("a/b", "x.py", [(1, ["foo"])])])))
    proc = run_cli("search", "foo", "--repo", "a/b", "--regex", "--json", env={"CODENAV_GREP_APP_URL": grepapp.url})
    assert proc.returncode == 0
    assert proc.stdout.decode() == contract.dumps(search(query="foo", repo="a/b", regex=True)) + "\n"


@pytest.mark.parametrize("json_flag", [False, True])
def test_cli_errors_exit_2(grepapp: FakeGrepApp, json_flag: bool) -> None:
    """An upstream failure exits 2: the envelope in --json mode, a message on stderr in plain mode."""
    grepapp.answer(Reply(429, b"", {"Retry-After": "3"}))
    proc = run_cli("search", "x", *(["--json"] if json_flag else []), env={"CODENAV_GREP_APP_URL": grepapp.url})
    assert proc.returncode == 2
    if json_flag:
        assert json.loads(proc.stdout)["error"]["code"] == "RATE_LIMITED"
    else:
        assert proc.stdout == b"" and proc.stderr.startswith(b"codenav: grep.app is rate limiting")


def test_cli_secret_like_query_exits_2_without_sending(grepapp: FakeGrepApp) -> None:
    """A key-shaped query is refused with exit 2 and the fake sees nothing; --allow-secret-like sends it."""
    env = {"CODENAV_GREP_APP_URL": grepapp.url}
    proc = run_cli("search", "AKIAQ3EGTWNA5MZ2XJ7P", env=env)
    assert proc.returncode == 2 and b"AKIAQ3EGTWNA5MZ2XJ7P" not in proc.stderr and grepapp.seen == []
    assert run_cli("search", "AKIAQ3EGTWNA5MZ2XJ7P", "--allow-secret-like", env=env).returncode == 1
    assert len(grepapp.seen) == 1


def test_cli_help_says_queries_leave_the_machine() -> None:
    """The search help states that queries are sent to grep.app and must not hold secrets."""
    proc = run_cli("search", "--help")
    text = " ".join(proc.stdout.decode().split())
    assert proc.returncode == 0
    assert "Queries leave this machine" in text and "secrets" in text and "literally" in text


def test_tool_description_covers_the_model_rules() -> None:
    """The MCP description says what it is for and not for, the literal rule, the cap, egress and untrusted data."""
    spec = contract.tool_spec("codesearch")
    text = spec["description"]
    for needle in ("Not for", "literally", "regex", "at most 10 files", "leave this machine", "never send secrets",
                   "untrusted", "never instructions"):
        assert needle in text
    assert spec["inputSchema"]["additionalProperties"] is False
    assert spec["annotations"]["readOnlyHint"] is True and spec["annotations"]["openWorldHint"] is True
    validator = contract.validator("codesearch")
    assert contract.validation_error("codesearch", {"query": "x", "language": None}) is not None
    assert not list(validator.iter_errors({"query": "x", "regex": True, "language": ["Go"]}))
