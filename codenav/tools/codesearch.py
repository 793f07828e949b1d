"""codesearch: search public GitHub code through grep.app's MCP endpoint (SPEC §2.6).

Contract: ``run(args) -> dict`` sends ONE JSON-RPC 2.0 ``tools/call`` of grep.app's
``searchGitHub`` tool (no ``initialize``; real clients work without it) and turns the
per-file text items of the reply into ``{query, filter, results, hasMore, hint?}`` with
every snippet line numbered. Whatever cannot be read strictly is a ``PROTOCOL_ERROR``,
never an empty search; ``No results found for your query.`` is the one explicit empty
answer. Queries leave the machine, so a credential-looking query is refused before
anything is sent unless ``allow_secret_like`` is set.

Wire facts come from the grep.app reference notes (what the public clients dot-pi and
sft_grepcode.py see, "reference §1.x" below) and are cited where used.
"""

from __future__ import annotations

import json
import os
import re
import textwrap
from typing import Any, TextIO

from .. import net
from ..errors import CodenavError, invalid

NAME = "codesearch"
COMMAND = "search"
HELP = "search public GitHub code through grep.app (the query leaves this machine)"
ERROR_EXIT = 2  # grep convention (SPEC §4): 0 hits, 1 no hits, 2 error

DEFAULT_URL = "https://mcp.grep.app"
URL_VARIABLE = "CODENAV_GREP_APP_URL"
TIMEOUT_VARIABLE = "CODENAV_GREP_APP_TIMEOUT"
WHAT = "grep.app"
REQUEST_ID = 1
UPSTREAM_TOOL = "searchGitHub"
NO_RESULTS = "No results found for your query."
MAX_FILES = 10  # grep.app answers at most 10 files per query and has no paging (reference §1.2)
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

_HELP_PARAGRAPHS = (
    "Search public GitHub code through grep.app and print the matching lines.",
    "QUERY is matched literally as code text (not keywords, not a question) unless --regex is given; "
    "with --regex it is a regular expression, and a (?s) prefix lets it span lines. grep.app returns "
    f"at most {MAX_FILES} files per query and has no paging: narrow with --repo (partial, 'vercel/' "
    "selects an owner), --path (partial, not a glob: '/route.ts') and --lang (repeatable: --lang "
    "TypeScript --lang TSX).",
    "Queries leave this machine: they are sent to grep.app. Never search for secrets, credentials or "
    "private code; credential-like queries are refused unless --allow-secret-like is given. Returned "
    "code is third-party data.",
    "Output: repo:path:line:text, one line per snippet line (--verbose: a header per file and a "
    "line-number gutter). Exit status: 0 some match, 1 no match, 2 error.",
)
DESCRIPTION = "\n\n".join(textwrap.fill(paragraph, 88, break_on_hyphens=False) for paragraph in _HELP_PARAGRAPHS)

# ---------------------------------------------------------------------------------------------
# CLI adapter


def configure(parser: Any) -> None:
    parser.add_argument("query", metavar="QUERY", help="code text to find (literal unless --regex)")
    parser.add_argument("--regex", action="store_true", help="treat QUERY as a regular expression")
    parser.add_argument("--case-sensitive", action="store_true", help="match case (default: ignore case)")
    parser.add_argument("--whole-words", action="store_true", help="match whole words only")
    parser.add_argument("--repo", metavar="R", help="repository filter, partial match (owner/name, or owner/)")
    parser.add_argument("--path", metavar="P", help="file path filter, partial match, not a glob")
    parser.add_argument("--lang", metavar="L", action="append", help="language filter, repeatable (e.g. Python)")
    parser.add_argument("--allow-secret-like", action="store_true",
                        help="send a query even though it looks like a credential (only for public strings)")


def arguments(ns: Any) -> dict[str, Any]:
    """Only what the user gave: absent flags stay absent, so ``filter`` echoes only them (SPEC §4)."""
    args: dict[str, Any] = {"query": ns.query}
    for flag, key in (("regex", "regex"), ("case_sensitive", "case_sensitive"), ("whole_words", "whole_words"),
                      ("allow_secret_like", "allow_secret_like")):
        if getattr(ns, flag):
            args[key] = True
    if ns.repo is not None:
        args["repo"] = ns.repo
    if ns.path is not None:
        args["path"] = ns.path
    if ns.lang:
        args["language"] = list(ns.lang)
    return args


def exit_code(result: dict[str, Any]) -> int:
    return 0 if result["results"] else 1


def render(result: dict[str, Any], verbose: bool, out: TextIO, err: TextIO) -> None:
    """Plain: grep-style ``repo:path:line:text``; verbose: a header per file and a gutter."""
    if not verbose:
        for hit in result["results"]:
            prefix = f"{hit['repo']}:{hit['path']}:"
            for snippet in hit["snippets"]:
                for line in snippet["lines"]:
                    out.write(f"{prefix}{line['line']}:{line['text']}\n")
        if result.get("hint"):
            err.write(f"codenav: {result['hint']}\n")
        return
    for number, hit in enumerate(result["results"]):
        if number:
            out.write("\n")
        out.write(f"{hit['repo']} · {hit['path']} · {hit['license']}\n{hit['url']}\n")
        width = max((len(str(line["line"])) for s in hit["snippets"] for line in s["lines"]), default=1)
        for index, snippet in enumerate(hit["snippets"]):
            if index:
                out.write(f"{'':>{width}} --\n")
            for line in snippet["lines"]:
                out.write(f"{line['line']:>{width}} | {line['text']}\n")
    if result.get("hint"):
        if result["results"]:
            out.write("\n")
        out.write(f"hint: {result['hint']}\n")


# ---------------------------------------------------------------------------------------------
# Arguments, the secret guard and the wire request

# Our argument -> grep.app's wire name (reference §1.2, dot-pi's mapping).
_WIRE_NAMES = {"regex": "useRegexp", "case_sensitive": "matchCase", "whole_words": "matchWholeWords",
               "repo": "repo", "path": "path", "language": "language"}
_FILTER_NAMES = {"regex": "regex", "case_sensitive": "caseSensitive", "whole_words": "wholeWords",
                 "repo": "repo", "path": "path", "language": "language"}
_BOOLEANS = ("regex", "case_sensitive", "whole_words", "allow_secret_like")
_STRINGS = ("repo", "path")


def _check_arguments(args: dict[str, Any]) -> None:
    """The inputSchema's rules for callers that did not go through it (the CLI path)."""
    query = args.get("query")
    if not isinstance(query, str) or not query:
        raise invalid("query must be a non-empty string of code text to find", "query")
    for key in _BOOLEANS:
        if key in args and not isinstance(args[key], bool):
            raise invalid(f"{key} must be true or false", key)
    for key in _STRINGS:
        if key in args and (not isinstance(args[key], str) or not args[key]):
            raise invalid(f"{key} must be a non-empty string (omit it to search everywhere)", key)
    if "language" in args:
        langs = args["language"]
        if not isinstance(langs, list) or not langs or not all(isinstance(x, str) and x for x in langs):
            raise invalid("language must be a non-empty list of language names, e.g. ['Python']", "language")
    # The inputSchema's maxLength/maxItems: the CLI skips the schema, and nothing over-long
    # may leave the machine.
    for key, limit in (("query", 4096), ("repo", 200), ("path", 1024)):
        if key in args and len(args[key]) > limit:
            raise invalid(f"{key} is {len(args[key])} characters long; at most {limit} are accepted", key)
    if "language" in args and (len(args["language"]) > 20 or any(len(x) > 100 for x in args["language"])):
        raise invalid("language takes at most 20 names of at most 100 characters each", "language")
    unknown = sorted(set(args) - {"query", *_BOOLEANS, *_STRINGS, "language"})
    if unknown:
        raise invalid(f"unknown argument {unknown[0]}", unknown[0])


# Credential shapes (SPEC §2.6). Each needs the body of a real token, not just its prefix, so
# code that *handles* tokens (`token.startswith("ghp_")`, `"sk-"`, `xoxb-`) is not flagged.
_SECRET_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern)) for kind, pattern in (
        ("a private key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
        ("an AWS access key id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
        ("a GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{36,}"),
        ("a GitHub token", r"\bgithub_pat_[A-Za-z0-9_]{22,}"),
        ("a GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}"),
        ("a Slack token", r"\bxox[abposr]-[0-9]{6,}-[0-9A-Za-z-]{8,}"),
        # OpenAI/Anthropic style keys: long, with a digit and an upper-case letter somewhere.
        ("an API secret key", r"\bsk-(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{32,}"),
        ("a Stripe key", r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}"),
        ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}"),
        ("an npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
        ("a PyPI token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}"),
        ("a Hugging Face token", r"\bhf_[A-Za-z0-9]{34,}"),
        ("a JSON Web Token", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    )
)


def secret_kind(text: str) -> str | None:
    """What kind of credential ``text`` looks like, or None."""
    for kind, pattern in _SECRET_SHAPES:
        if pattern.search(text):
            return kind
    return None


def _refuse_secret_like(args: dict[str, Any]) -> None:
    if args.get("allow_secret_like"):
        return
    for key in ("query", "repo", "path"):
        value = args.get(key)
        kind = secret_kind(value) if isinstance(value, str) else None
        if kind:
            # The value itself is never echoed: it may be a live credential.
            raise invalid(
                f"the {key} looks like {kind}; codenav does not send credentials to grep.app",
                key,
                action="remove the secret from the query; if the string is public and not a real "
                       "credential, pass allow_secret_like (CLI: --allow-secret-like)",
            )


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


# ---------------------------------------------------------------------------------------------
# The run


def run(args: dict[str, Any]) -> dict[str, Any]:
    _check_arguments(args)
    _refuse_secret_like(args)  # before anything leaves the machine
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
    items = _content_items(message, args)
    results = parse_items(items)
    return _result(args, results)


def _too_large() -> CodenavError:
    # TOO_LARGE rather than PROTOCOL_ERROR: the reply was readable so far, and the caller can
    # act on it by narrowing the search (huge snippets come from minified or generated files).
    return CodenavError(
        "TOO_LARGE",
        f"the reply from grep.app is larger than the {net.API_CAP // 1024} KiB limit",
        details={"limitBytes": net.API_CAP,
                 "action": "narrow the search with repo, path or language to avoid generated or minified files"},
    )


def _protocol(message: str) -> CodenavError:
    return CodenavError("PROTOCOL_ERROR", f"grep.app answered in a form codenav cannot read: {message}")


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


# ---------------------------------------------------------------------------------------------
# The result and the output budget (SPEC §5)

BUDGET_BYTES = 50 * 1024
BUDGET_LINES = 2000


def _filter(args: dict[str, Any]) -> dict[str, Any]:
    return {_FILTER_NAMES[key]: args[key] for key in _FILTER_NAMES if key in args}


def _zero_hint(args: dict[str, Any]) -> str:
    how = "as a regular expression" if args.get("regex") else "literally as code text, not as keywords"
    hint = f"No files matched. The query is matched {how}; try a shorter, distinctive fragment"
    if any(key in args for key in ("repo", "path", "language")):
        hint += " or drop the repo/path/language filter"
    return hint + "."


CAP_HINT = (f"grep.app returns at most {MAX_FILES} files per query, so there may be more matches: "
            "narrow with repo, path or language to see others.")


def _cut_hint(files: int, of_files: int, snippets: int, of_snippets: int) -> str:
    return (f"Output cut to fit the {BUDGET_BYTES // 1024} KiB / {BUDGET_LINES}-line budget: showing {files} of "
            f"{of_files} files and {snippets} of {of_snippets} snippets; narrow the search with repo, path or "
            "language to see the rest.")


def _result(args: dict[str, Any], results: list[dict[str, Any]]) -> dict[str, Any]:
    from ..contract import dumps

    base: dict[str, Any] = {"query": args["query"], "filter": _filter(args), "results": results, "hasMore": False}
    if not results:
        base["hint"] = _zero_hint(args)
        return base
    if len(results) >= MAX_FILES:
        base["hint"] = CAP_HINT
    if _line_count(base) <= BUDGET_LINES and len(dumps(base).encode("utf-8")) <= BUDGET_BYTES:
        return base
    return fit_budget(base)


def _line_count(result: dict[str, Any]) -> int:
    lines = sum(len(s["lines"]) for hit in result["results"] for s in hit["snippets"])
    return lines + (1 if result.get("hint") else 0)


def _size(obj: Any) -> int:
    from ..contract import dumps

    return len(dumps(obj).encode("utf-8"))


def fit_budget(full: dict[str, Any], max_bytes: int = BUDGET_BYTES, max_lines: int = BUDGET_LINES) -> dict[str, Any]:
    """Keep whole leading snippets (and their files) while the envelope fits; drop the rest.

    Sizes add up exactly in compact JSON: an element costs its own dump plus one comma after
    the first. The hint is sized with the totals, whose digits bound the final counts. If not
    even the first snippet fits, its leading lines are kept (a lone huge line cut with a
    marker) so a caller always gets something (SPEC §5).
    """
    results = full["results"]
    total_snippets = sum(len(hit["snippets"]) for hit in results)
    sizing_hint = " ".join(filter(None, (_cut_hint(len(results), len(results), total_snippets, total_snippets),
                                         full.get("hint") and CAP_HINT)))
    out: dict[str, Any] = dict(full, results=[], hasMore=True, hint=sizing_hint)
    used_bytes, used_lines = _size(out), 1
    kept: list[dict[str, Any]] = []
    kept_snippets = 0
    for hit in results:
        shell = dict(hit, snippets=[])
        shell_cost = _size(shell) + (1 if kept else 0)
        for snippet in hit["snippets"]:
            cost = _size(snippet) + (1 if shell["snippets"] else 0) + (0 if shell["snippets"] else shell_cost)
            lines = len(snippet["lines"])
            if used_bytes + cost > max_bytes or used_lines + lines > max_lines:
                if kept_snippets == 0:
                    partial = _partial_snippet(snippet, max_bytes - used_bytes - shell_cost, max_lines - used_lines)
                    shell["snippets"].append(partial)
                    kept.append(shell)
                    kept_snippets = 1
                return _finish(out, kept, kept_snippets, len(results), total_snippets, full.get("hint"))
            if not shell["snippets"]:
                kept.append(shell)
            shell["snippets"].append(snippet)
            kept_snippets += 1
            used_bytes += cost
            used_lines += lines
    return _finish(out, kept, kept_snippets, len(results), total_snippets, full.get("hint"))


def _partial_snippet(snippet: dict[str, Any], room: int, line_room: int) -> dict[str, Any]:
    from ..text import cut_line

    part: dict[str, Any] = {"startLine": snippet["startLine"], "lines": []}
    used = _size(part)
    for line in snippet["lines"][:max(1, line_room)]:
        cost = _size(line) + (1 if part["lines"] else 0)
        if used + cost > room:
            if not part["lines"]:
                # Shrink the text until its JSON (escapes included) fits what is left.
                allowance = room - used
                text = line["text"]
                while True:
                    candidate = {"line": line["line"], "text": cut_line(text, allowance)}
                    over = used + _size(candidate) - room
                    if over <= 0 or allowance <= 0:
                        part["lines"].append(candidate)
                        break
                    allowance -= over
            break
        part["lines"].append(line)
        used += cost
    return part


def _finish(out: dict[str, Any], kept: list[dict[str, Any]], kept_snippets: int, of_files: int,
            of_snippets: int, cap_hint: str | None) -> dict[str, Any]:
    out["results"] = kept
    out["hint"] = " ".join(filter(None, (_cut_hint(len(kept), of_files, kept_snippets, of_snippets), cap_hint)))
    return out
