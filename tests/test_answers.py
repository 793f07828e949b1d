"""The error TEXT every tool answers with by default (SPEC §4.4): one renderer for every code."""

from __future__ import annotations

import pytest

from codenav import tools, words
from codenav.errors import CODES, CodenavError
from codenav.mcp import handlers

# Every key SPEC §4.2 lists for details, with a value each.
DETAILS = {"field": "path_prefix", "availableVersions": [f"4.{n}.0" for n in range(20, 0, -1)], "latest": "4.20.0",
           "indexingRef": "npm/express/4.21.2", "requestedRef": "mian", "availableRefs": ["main", "maint"],
           "filePath": "lib/x.js", "suggestions": ["lib/y.js", "src/x.js"], "suggestion": "pypi:requests@2.32.3",
           "lineCount": 12, "retryAfterSeconds": 60, "resetAt": "2026-01-01T00:00:00Z", "status": 503,
           "limit": 2000, "limitBytes": 1048576, "variable": "CODENAV_MAX_FILE_BYTES", "host": "registry.invalid",
           "reason": "certificate has expired", "caSources": ["/etc/ssl/certs/ca.pem"], "proxy": "http://***@proxy:8080",
           "setting": "strict-ssl", "file": "~/.npmrc", "action": "list the files with list_files (CLI: codenav files)"}


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_error_kind_is_text_with_nothing_of_the_envelope_lost(code):
    """Each code's default answer is isError text without structuredContent: the code first,
    the message, whether a retry helps, every detail value (all 20 versions) and the action last,
    in MCP words; --verbose's CLI words respell only the sentences."""
    envelope = CodenavError(code, "it failed", details=DETAILS).to_envelope()
    answer = handlers._answer("read_file", envelope, is_error=True)
    assert set(answer) == {"content", "isError"} and answer["isError"] is True
    text = answer["content"][0]["text"]
    assert text.startswith(f"{code}: it failed\nretry: ")
    assert ("may help" in text) is CODES[code]
    for key, value in DETAILS.items():
        if key != "action":
            shown = ", ".join(value) if isinstance(value, list) else str(value)
            assert shown in text, key
    assert text.endswith("next: list the files with list_files\n")
    cli = words.error_text(envelope, words.for_cli)
    assert cli.endswith("next: list the files with codenav files SPEC\n") and "argument: PATH_PREFIX\n" in cli


def test_an_error_without_an_action_still_says_what_to_do_next():
    """The next action falls back to one by code, or 'call again later' for a retryable one."""
    assert words.error_text(CodenavError("FILE_NOT_FOUND", "x").to_envelope()).endswith(
        "next: call list_files to see the paths\n")
    assert words.error_text(CodenavError("NETWORK", "x").to_envelope()).endswith("next: call again later\n")
    for code in CODES:  # every kind ends with what to do
        assert "\nnext: " in words.error_text(CodenavError(code, "x").to_envelope()), code


def test_every_tool_has_a_text_renderer_and_a_plain_one():
    """The module contract: text(result, words=None) and render(result, out, err) in every tool; a
    command with summary views (diff) takes the CLI's ``view`` as one more parameter, with a default."""
    import inspect

    for name in tools.REGISTRY:
        module = tools.load(name)
        for function, parameters in ((module.text, ["result", "words"]), (module.render, ["result", "out", "err"])):
            given = inspect.signature(function).parameters
            assert list(given)[:len(parameters)] == parameters, name
            assert [p for p in list(given)[len(parameters):] if given[p].default is inspect.Parameter.empty] == [], name


@pytest.mark.parametrize("mcp,cli", [
    (" · more: cursor=MQoyMDhk_-x", " · more: --cursor MQoyMDhk_-x"),
    ("call again with cursor=12-0a1b2c3d for more, or narrow", "call again with --cursor 12-0a1b2c3d for more, or narrow"),
    (" · more: start_line=787", " · more: --lines 787-"),
    (" · more: read_file start_line=12", " · more: codenav read SPEC PATH --lines 12-"),
    ("Continue with cursor=nextCursor (CLI: --cursor), or narrow", "Continue with --cursor nextCursor, or narrow"),
])
def test_the_more_clause_reads_as_a_flag_on_the_cli(mcp, cli):
    """What a header's more: names is respelled as the flag a person types; MCP keeps the argument."""
    assert words.for_cli(mcp) == cli
    assert words.for_mcp(mcp) == mcp.replace(" (CLI: --cursor)", "")
