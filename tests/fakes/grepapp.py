"""A fake grep.app MCP endpoint that replays the real wire format (reference §1).

The server answers one stateless ``POST /`` of a JSON-RPC ``tools/call`` for ``searchGitHub``.
By default it checks the arguments the way the real one does (strict object, no nulls, right
types) and answers a -32602 error in its wording when they are wrong; otherwise it replies
with whatever the test queued, framed as plain JSON or as SSE. Builders here produce the
real text format of a hit item (six-line header, ``--- Snippet K (Line N) ---`` blocks).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

from .http import FakeServer, Handler, Reply

NO_RESULTS = "No results found for your query."

# searchGitHub's inputSchema as captured from the live tools/list (reference §1.2).
_TYPES = {"query": str, "matchCase": bool, "matchWholeWords": bool, "useRegexp": bool, "repo": str,
          "path": str, "language": list}


def snippet_block(ordinal: int, start: int, code: Sequence[str]) -> str:
    """One ``--- Snippet K (Line N) ---`` block as grep.app writes it: the code, then two blank lines."""
    return f"--- Snippet {ordinal} (Line {start}) ---\n" + "".join(line + "\n" for line in code) + "\n\n"


def hit_text(repo: str, path: str, snippets: Sequence[tuple[int, Sequence[str]]], *, license: str = "MIT",
             branch: str = "main") -> str:
    """The text of one content item: the six-line header and its snippets (start line, code lines)."""
    header = (f"Repository: {repo}\nPath: {path}\nURL: https://github.com/{repo}/blob/{branch}/{path}\n"
              f"License: {license}\n\nSnippets:\n")
    return header + "".join(snippet_block(k, start, code) for k, (start, code) in enumerate(snippets, 1))


def result(texts: Sequence[str], *, is_error: bool = False, id: Any = 1) -> dict[str, Any]:
    """A JSON-RPC response whose ``result.content`` holds one text item per string."""
    body: dict[str, Any] = {"content": [{"type": "text", "text": t} for t in texts]}
    if is_error:
        body["isError"] = True
    return {"jsonrpc": "2.0", "id": id, "result": body}


def rpc_error(code: int, message: str, id: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}


def json_reply(message: dict[str, Any], status: int = 200) -> Reply:
    return Reply.json(message, status=status)


def sse_reply(message: dict[str, Any], *, before: Sequence[str] = (), data_space: bool = True,
              split: bool = False, crlf: bool = False, status: int = 200) -> Reply:
    """``message`` as one SSE event (``event: message``), after the raw events in ``before``.

    ``data_space=False`` writes ``data:{…}``; ``split=True`` spreads the JSON over several
    ``data:`` lines (joined with ``\\n`` by the reader, which JSON tolerates between tokens).
    """
    payload = json.dumps(message)
    prefix = "data: " if data_space else "data:"
    if split:
        # Break between tokens only, after each top-level comma of the outer object.
        parts = payload.replace(', "', ',\n"').split("\n")
        data = "".join(f"{prefix}{part}\n" for part in parts)
    else:
        data = f"{prefix}{payload}\n"
    text = "".join(before) + f"event: message\nid: 1\n{data}\n"
    if crlf:
        text = text.replace("\n", "\r\n")
    return Reply(status, text.encode(), {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})


def invalid_arguments(arguments: Any) -> str | None:
    """The real server's -32602 message for bad arguments (zod wording), or None when they are fine."""
    if not isinstance(arguments, dict):
        return "Invalid arguments for tool searchGitHub: expected object"
    issues: list[dict[str, Any]] = []
    for key, value in arguments.items():
        expected = _TYPES.get(key)
        if expected is None:
            issues.append({"code": "unrecognized_keys", "keys": [key], "path": [],
                           "message": f"Unrecognized key(s) in object: '{key}'"})
        elif value is None:
            issues.append({"code": "invalid_type", "expected": expected.__name__, "received": "null",
                           "path": [key], "message": f"Expected {expected.__name__}, received null"})
        elif not isinstance(value, expected) or (expected is list and not all(isinstance(v, str) for v in value)):
            issues.append({"code": "invalid_type", "expected": expected.__name__, "received": type(value).__name__,
                           "path": [key], "message": "Invalid type"})
    if "query" not in arguments:
        issues.append({"code": "invalid_type", "expected": "string", "received": "undefined", "path": ["query"],
                       "message": "Required"})
    if not issues:
        return None
    return "Invalid arguments for tool searchGitHub: " + json.dumps(issues)


class FakeGrepApp(FakeServer):
    """``POST /`` answers the queued reply (``answer``); bad arguments get the real -32602."""

    def __init__(self) -> None:
        super().__init__()
        self.reply: Reply = json_reply(result([NO_RESULTS]))
        self.check_arguments = True
        self.route("POST", "/", self._answer)

    def __enter__(self) -> FakeGrepApp:
        # A short poll interval: shutdown() waits for one, and the base default is 0.5 s.
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()
        return self

    def answer(self, reply: Reply) -> None:
        self.reply = reply

    def _answer(self, handler: Handler) -> Reply:
        if self.check_arguments:
            try:
                message = json.loads(self.seen[-1].body)
                arguments = message["params"]["arguments"]
            except (ValueError, KeyError, TypeError):
                return json_reply(rpc_error(-32700, "Parse error", id=None), status=400)
            problem = invalid_arguments(arguments)
            if problem:
                return sse_reply(rpc_error(-32602, problem, id=message.get("id")))
        return self.reply

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies of the requests received, in order."""
        return [json.loads(seen.body) for seen in self.seen]
