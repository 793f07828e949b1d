"""The grep.app client (SPEC §2.6): one JSON-RPC ``tools/call`` of ``searchGitHub``, read strictly.

``search(args)`` sends ONE JSON-RPC 2.0 ``tools/call`` of grep.app's ``searchGitHub`` tool
(no ``initialize``; real clients work without it) and returns one result per matching file,
``{repo, path, url, license, snippets: [{startLine, lines: [{line, text}]}]}``. Whatever cannot
be read strictly is a ``PROTOCOL_ERROR``, never an empty search; ``No results found for your
query.`` is the one explicit empty answer. The caller (tools/codesearch.py) checks the
arguments and refuses credential-looking queries before calling this.

Wire facts come from the grep.app reference notes (what the public clients dot-pi and
sft_grepcode.py see, "reference §1.x" below) and are cited where used.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from .. import net
from ..errors import CodenavError, protocol_error, too_large

DEFAULT_URL = "https://mcp.grep.app"
URL_VARIABLE = "CODENAV_GREP_APP_URL"
TIMEOUT_VARIABLE = "CODENAV_GREP_APP_TIMEOUT"
WHAT = "grep.app"
REQUEST_ID = 1
UPSTREAM_TOOL = "searchGitHub"
NO_RESULTS = "No results found for your query."
MAX_FILES = 10  # grep.app answers at most 10 files per query and has no paging (reference §1.2)
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

# Our argument -> grep.app's wire name (reference §1.2, dot-pi's mapping).
_WIRE_NAMES = {"regex": "useRegexp", "case_sensitive": "matchCase", "whole_words": "matchWholeWords"}

def wire_arguments(args: dict[str, Any]) -> dict[str, Any]:
    """grep.app's ``searchGitHub`` arguments; absent options are left out, never null.

    The three booleans are always sent (false by default), as dot-pi does: the server's own
    defaults are false today, but sending them pins the literal, case-insensitive, substring
    meaning the tool description promises, whatever the server's defaults become.
    """
    wire: dict[str, Any] = {"query": args["query"]}
    for key in ("regex", "case_sensitive", "whole_words"):
        wire[_WIRE_NAMES[key]] = bool(args.get(key, False))
    for key in ("repo", "path"):
        if args.get(key) is not None:
            wire[key] = args[key]
    if args.get("language"):
        wire["language"] = list(args["language"])
    return wire


def request_body(args: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": REQUEST_ID, "method": "tools/call",
            "params": {"name": UPSTREAM_TOOL, "arguments": wire_arguments(args)}}


def endpoint() -> str:
    url = os.environ.get(URL_VARIABLE) or DEFAULT_URL
    if not url.startswith(("https://", "http://")):
        raise CodenavError("CONFIG_ERROR", f"{URL_VARIABLE} must be an http(s) URL")
    return url


def search(args: dict[str, Any]) -> list[dict[str, Any]]:
    """The files grep.app finds for already-checked ``args`` (query, regex, case_sensitive,
    whole_words, repo, path, language)."""
    url = endpoint()
    timeout = net.timeout_from_env(TIMEOUT_VARIABLE)
    try:
        resp = net.request(
            "POST", url, what=WHAT, headers=HEADERS, json_body=request_body(args), timeout=timeout,
            max_bytes=net.API_CAP, redirects="never", too_large=_too_large,
        )
    except CodenavError as exc:
        if exc.code == "TIMEOUT":
            exc.details.setdefault(
                "action", f"retry: grep.app is sometimes slow on a first query; {TIMEOUT_VARIABLE} raises "
                          f"the limit (now {timeout:g} s)")
        raise
    message = _reply_message(resp)
    return parse_items(_content_items(message, args))


def _too_large() -> CodenavError:
    # TOO_LARGE rather than PROTOCOL_ERROR: the reply was readable so far, and the caller can
    # act on it by narrowing the search (huge snippets come from minified or generated files).
    return too_large(
        f"the reply from grep.app is larger than the {net.API_CAP // 1024} KiB limit",
        limitBytes=net.API_CAP, action="narrow the search with repo, path or language to avoid generated or minified files",
    )


def _protocol(message: str) -> CodenavError:
    return protocol_error(f"grep.app answered in a form codenav cannot read: {message}")


def _clip(text: str, limit: int = 500) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _reply_message(resp: net.Response) -> dict[str, Any]:
    """The JSON-RPC response in the body: plain JSON or the first fitting SSE event."""
    # A 404 means no MCP endpoint at that URL (a misconfiguration), not a missing package.
    # The URL is not echoed: a configured one could carry credentials (SPEC §4).
    not_found = CodenavError("UPSTREAM_ERROR", f"no grep.app MCP endpoint answers at the configured URL "
                             f"(HTTP 404); check {URL_VARIABLE}", retryable=False, details={"status": 404})
    if resp.status == 429 or resp.status >= 500:
        raise net.status_error(WHAT, resp)
    if not 200 <= resp.status < 300:
        # A 4xx may still carry a JSON-RPC error (e.g. -32602 from a strict front end): use it.
        try:
            message = decode_reply(resp.body)
        except CodenavError:
            raise net.status_error(WHAT, resp, not_found=not_found) from None
        if "error" not in message:
            raise net.status_error(WHAT, resp, not_found=not_found)
        return message
    return decode_reply(resp.body)


def _is_our_response(obj: Any) -> bool:
    # A response to our request: result or error, no method (notifications and server
    # requests have one), and our id or none (dot-pi's fixture `{"result": …}` carries none).
    return (isinstance(obj, dict) and "method" not in obj and ("result" in obj or "error" in obj)
            and obj.get("id", REQUEST_ID) in (REQUEST_ID, None))


def decode_reply(body: bytes) -> dict[str, Any]:
    """Plain JSON (body starts with ``{``) or an SSE stream, as dot-pi's ``shared/sse.ts`` reads it."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise _protocol("the body is not UTF-8") from None
    text = text.lstrip("\ufeff")
    if text.lstrip().startswith("{"):
        try:
            obj = json.loads(text)
        except ValueError:
            raise _protocol("the JSON body does not parse") from None
        if not _is_our_response(obj):
            raise _protocol("the JSON body is not a JSON-RPC response to the search")
        return obj
    for data in net.iter_sse_events(text):
        if data.strip() == "[DONE]":
            continue
        try:
            obj = json.loads(data)
        except ValueError:
            continue  # not JSON: skipped, as dot-pi skips it
        if _is_our_response(obj):
            return obj
    if not text.strip():
        raise _protocol("the body is empty")
    raise _protocol("the body is neither JSON nor an SSE stream holding a JSON-RPC response")


def _content_items(message: dict[str, Any], args: dict[str, Any]) -> list[str]:
    """The text of each ``result.content`` item; JSON-RPC errors and ``isError`` raise."""
    if "error" in message:
        error = message["error"]
        code = error.get("code") if isinstance(error, dict) else None
        text = error.get("message") if isinstance(error, dict) else None
        text = _clip(text) if isinstance(text, str) and text else "no message"
        if code == -32602:
            # grep.app's own argument check (zod), e.g. a null where an array belongs.
            raise CodenavError("INVALID_ARGUMENT", f"grep.app rejected the arguments: {text}",
                               details={"upstreamCode": code})
        # -32603 is the server failing internally, like a 5xx; other codes will not heal on retry.
        raise CodenavError("UPSTREAM_ERROR", f"grep.app answered with JSON-RPC error {code}: {text}",
                           retryable=code == -32603, details={"upstreamCode": code})
    result = message.get("result")
    if not isinstance(result, dict):
        raise _protocol("the JSON-RPC result is not an object")
    content = result.get("content")
    if not isinstance(content, list):
        raise _protocol("result.content is not a list")
    texts: list[str] = []
    for index, item in enumerate(content, 1):
        if not isinstance(item, dict) or item.get("type") != "text" or not isinstance(item.get("text"), str):
            raise _protocol(f"content item {index} is not a text item")
        texts.append(item["text"])
    if result.get("isError") is True:
        said = _clip(" ".join(texts)) or "no message"
        details: dict[str, Any] = {}
        if args.get("regex"):
            details["action"] = "check the regular expression, or search literally without regex"
        raise CodenavError("UPSTREAM_ERROR", f"grep.app reported a failed search: {said}", retryable=False,
                           details=details)
    return texts


# ---------------------------------------------------------------------------------------------
# The strict item parser (reference §1.4-1.5)

_HEADER = ("Repository: ", "Path: ", "URL: ", "License: ")
_MARKER = re.compile(r"--- Snippet ([1-9][0-9]*) \(Line ([1-9][0-9]*)\) ---")


def parse_items(texts: list[str]) -> list[dict[str, Any]]:
    """One result per text item; the single no-results text is an explicit empty result.

    An empty ``content`` list is not read as "no results": the real server always says so in
    words, so silence means a format we do not know (SPEC §2.6: never an empty search).
    """
    if not texts:
        raise _protocol("result.content is empty (no items and no 'No results' notice)")
    if len(texts) == 1 and texts[0].strip() == NO_RESULTS:
        return []
    return [parse_item(text, index) for index, text in enumerate(texts, 1)]


def parse_item(text: str, index: int = 1) -> dict[str, Any]:
    """One file: exactly the six-line header, then ``--- Snippet K (Line N) ---`` blocks.

    Lines are split on ``\\n`` only and never trimmed: a snippet's line numbers are its start
    line plus the offset, so a dropped leading blank line or indent would shift them. A
    metadata-looking line (``Path: x``) after the header is code. A marker counts only with the
    next ordinal K, so a code line that merely looks like a marker stays code.
    """
    lines = text.split("\n")
    if len(lines) < 6:
        raise _protocol(f"item {index} is shorter than the six-line file header")
    values: list[str] = []
    for row, prefix in enumerate(_HEADER):
        if not lines[row].startswith(prefix):
            raise _protocol(f"item {index}, line {row + 1} should start with {prefix.strip()!r}")
        values.append(lines[row][len(prefix):])
    if lines[4] != "" or lines[5] != "Snippets:":
        raise _protocol(f"item {index}: the header should end with an empty line and 'Snippets:'")
    repo, path, url, license_ = values
    for name, value in (("Repository", repo), ("Path", path), ("URL", url)):
        if not value:
            raise _protocol(f"item {index} has an empty {name}")
    blocks: list[tuple[int, list[str]]] = []
    for line in lines[6:]:
        marker = _MARKER.fullmatch(line)
        if marker and int(marker.group(1)) == len(blocks) + 1:
            blocks.append((int(marker.group(2)), []))
        elif blocks:
            blocks[-1][1].append(line)
        elif line != "":
            raise _protocol(f"item {index} has text before its first '--- Snippet' marker")
    snippets = []
    for start, raw in blocks:
        # Snippets are separated by blank lines, and the item ends with some too. Only the
        # trailing ones are dropped: they cannot shift any line number, while leading and
        # inner blank lines are real code and must stay. A real trailing blank code line is
        # indistinguishable from the separator and is lost, which changes no number.
        while raw and raw[-1] == "":
            raw.pop()
        snippets.append({"startLine": start,
                         "lines": [{"line": start + offset, "text": code} for offset, code in enumerate(raw)]})
    return {"repo": repo, "path": path, "url": url, "license": license_, "snippets": snippets}
