"""10,000 generated frames against one ``python -m codenav mcp`` process (SPEC §6).

The frames are drawn from a seeded RNG (``CODENAV_FUZZ_SEED`` replays or changes the run,
``random`` picks a fresh seed; ``CODENAV_FUZZ_FRAMES`` changes the count; the seed is printed):
random JSON values; valid requests of every method in both eras with one field replaced by a
value of the wrong type — ``jsonrpc``, ``id``, ``method``, ``params``, ``params.name``,
``params.arguments`` and every argument of every tool, ``params._meta`` and the 2026 envelope
keys; huge ids (big integers, long strings); U+2028/U+2029/U+0085 and control characters
inside strings, raw and escaped; bytes that are not UTF-8; lines at and over the 4 MiB cap;
requests without an id (notifications); ``tools/call`` requests followed by
``notifications/cancelled`` for them; batches.

Tool calls never leave the machine: the package is a pinned npm package already in the cache,
grep.app and the GitHub API are local fakes, PyPI is a closed port, ``gh`` is not on PATH.

Every frame has an expected outcome, derived from JSON-RPC 2.0 and SPEC §6 (not from the
server's code): a request with a valid id gets exactly one response with that id (a cancelled
``tools/call`` at most one); a notification, or a response sent by the client, gets none; a
frame whose id cannot be read (not JSON, not UTF-8, too long, not an object, a batch, an id
of the wrong type) gets exactly one error with ``"id": null``. Frames are written in batches
by one thread while another reads, so 10,000 frames take seconds, not minutes.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from codenav import contract, tools
from codenav.mcp.framing import MAX_LINE
from tests.fakes.github import FakeGitHub
from tests.fakes.grepapp import FakeGrepApp, hit_text, json_reply, result
from tests.fakes.http import FakeServer, Reply
from tests.fakes.npm import FakeNpm
from tests.support.cli import isolated_subprocess_env

pytestmark = pytest.mark.hardening

DEFAULT_SEED = 20260728
DEFAULT_FRAMES = 10_000
BATCH = 250  # frames per write
MODERN = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPS_KEY = "io.modelcontextprotocol/clientCapabilities"
ENVELOPE = {VERSION_KEY: MODERN, CAPS_KEY: {}, "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "0"}}
DEMO = {"registry": "npm", "package_name": "demo", "version": "1.0.0", "wait_timeout_ms": 50}
BLOB = "https://github.com/octo/demo/blob/main/src/app.py"
# Arguments that succeed (or fail as a tool) without leaving the fakes and the warm cache.
TOOL_ARGUMENTS: dict[str, list[dict[str, Any]]] = {
    "list_files": [dict(DEMO), {**DEMO, "path_prefix": "lib"}, {**DEMO, "path_prefix": "*.js"}],
    "read_file": [{**DEMO, "path": "index.js"}, {**DEMO, "path": "index.js", "start_line": 2, "end_line": 9},
                  {**DEMO, "path": "nope.js"}],
    "grep_file": [{**DEMO, "path": "index.js", "pattern": "a", "context": 1}, {**DEMO, "path": "lib/a.js", "pattern": "\\d"}],
    "grep_repo": [{**DEMO, "pattern": "a", "context": 1, "glob": ["*.js"], "max_matches": 5}, {**DEMO, "pattern": "x"}],
    "diff_versions": [{"registry": "npm", "package_name": "demo", "from_version": "1.0.0", "to_version": "1.0.0"},
                      {"registry": "npm", "package_name": "demo", "from_version": "1.0.0", "to_version": "1.0.0",
                       "context": 0, "path_prefix": "lib"}],
    "search_symbols": [{**DEMO, "query": "a"}, {**DEMO, "query": "x", "match": "substring", "kind": ["variable"],
                                                "max_results": 1, "path_prefix": "lib"}],
    "codesearch": [{"query": "os.sep"}, {"query": "x", "regex": True, "case_sensitive": True, "language": ["Python"]},
                   {"query": "slow down", "repo": "octo/"}],
    "codefetch": [{"repo": "octo/demo", "path": "src/app.py"}, {"url": BLOB, "start_line": 1, "end_line": 1},
                  {"repo": "octo/demo", "path": "nope.py", "ref": "main"}],
    "list_deps": [{"all": True}, {"cursor": "0"}, {"project_dir": "sub"}],
}
SEPARATORS = "\u2028\u2029\u0085"
CONTROLS = "".join(chr(c) for c in range(0x20) if c != 0x0A) + "\x7f"
LONE_SURROGATES = ("\udc80", "\udcff", "\udfff")  # low halves only: a high one before them would pair up


def _seed() -> int:
    raw = os.environ.get("CODENAV_FUZZ_SEED", "")
    if raw == "random":
        return random.SystemRandom().randrange(2**32)
    return int(raw) if raw else DEFAULT_SEED


SEED = _seed()
FRAMES = int(os.environ.get("CODENAV_FUZZ_FRAMES") or DEFAULT_FRAMES)


# --- the oracle: what one frame must get back --------------------------------------------------


@dataclass
class Frame:
    data: bytes  # one line, with its b"\n"
    kind: str
    expect: str  # "answer" | "none" | "null"
    id: Any = None  # for "answer"
    null_code: int | None = None  # for "null"
    message: Any = None  # the decoded object, when there is one
    queued: bool = False  # a well-formed tools/call: a worker runs it, and it can be cancelled


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def expected(message: Any) -> tuple[str, int | None]:
    """What JSON-RPC 2.0 and SPEC §6 say a decoded frame gets: ("answer"|"none"|"null", code)."""
    if not isinstance(message, dict):
        return "null", -32600  # a batch or a bare value: one invalid-request error, id null
    if "id" not in message:
        return "none", None  # a notification (or a malformed one): never answered
    if "method" not in message and ("result" in message or "error" in message):
        return "none", None  # a response from the client: this server sends no requests
    if not _valid_id(message["id"]):
        return "null", -32600
    return "answer", None


def encode(message: Any, ascii_only: bool = True) -> bytes:
    """Compact JSON bytes; raw UTF-8 when asked, unless a lone surrogate forces its escape."""
    try:
        return json.dumps(message, ensure_ascii=ascii_only).encode("utf-8")
    except UnicodeEncodeError:  # only the \\uXXXX escape can carry a lone surrogate
        return json.dumps(message).encode("ascii")


def key(request_id: Any) -> tuple[str, Any]:
    return (type(request_id).__name__, request_id)  # 1 and "1" are different ids


# --- the generator ---------------------------------------------------------------------------


class Generator:
    """Seeded frames; ids are unique across the run (a counter is part of every id)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.n = 0
        self.calls: list[Any] = []  # ids of queued tools/call requests, newest last

    # values

    def new_id(self) -> Any:
        self.n += 1
        n, pick = self.n, self.rng.random()
        if pick < 0.45:
            return n
        if pick < 0.55:
            return -n
        if pick < 0.65:
            return n + 2 ** self.rng.choice([31, 32, 53, 63, 64, 128, 1000])  # big integers
        if pick < 0.70:
            return int(f"{n}{'9' * self.rng.randint(50, 4000)}")  # hundreds or thousands of digits
        if pick < 0.75:
            return f"{n}:" + "x" * self.rng.randint(1000, 100_000)  # long strings
        if pick < 0.90:
            return f"{n}:{self.text(12)}"
        return str(n)

    def text(self, size: int) -> str:
        """A string mixing ASCII, line separators, control characters and other scripts."""
        alphabet = ["a", "Z", "0", " ", '"', "\\", "/", "é", "€", "😀", "\u200b", "\ufeff", *SEPARATORS, *CONTROLS,
                    *LONE_SURROGATES]
        return "".join(self.rng.choice(alphabet) for _ in range(self.rng.randint(0, size)))

    def value(self, depth: int = 0) -> Any:
        """Any JSON value."""
        choice = self.rng.randrange(10 if depth < 3 else 7)
        if choice == 0:
            return None
        if choice == 1:
            return self.rng.choice([True, False])
        if choice == 2:
            return self.rng.choice([0, -1, 1, 2**63, -(2**64), 10**30, self.rng.randint(-1000, 1000)])
        if choice == 3:
            return self.rng.choice([0.0, -0.5, 1.5, 1e300, 2.0, 1e-300])
        if choice in (4, 5, 6):
            return self.text(20)
        if choice in (7, 8):
            return [self.value(depth + 1) for _ in range(self.rng.randint(0, 4))]
        return {self.text(6): self.value(depth + 1) for _ in range(self.rng.randint(0, 4))}

    def wrong_value(self, current: Any) -> Any:
        """A value whose JSON type differs from ``current``'s (or a deeply nested one)."""
        pool = [None, True, 0, -1, 2**64, 1.5, 2.0, 1e300, -0.0, "", "x", self.text(30), [], [1, "a"], {},
                {"a": {"b": [None]}}, "\u2028", self.rng.choice(("\ud800", *LONE_SURROGATES)), "a" * self.rng.randint(5000, 200_000),
                self.nested(self.rng.randint(10, 800))]

        def json_type(v: Any) -> str:
            # int and float apart: 2.0 in an integer field is what JSON Schema calls an integer.
            return "bool" if isinstance(v, bool) else type(v).__name__

        choices = [v for v in pool if json_type(v) != json_type(current)]
        return self.rng.choice(choices)

    def nested(self, depth: int) -> Any:
        value: Any = "deep"
        for level in range(depth):
            value = [value] if level % 2 else {"k": value}
        return value

    # requests

    def request(self) -> dict[str, Any]:
        """A valid request of any method, in either era."""
        modern = self.rng.random() < 0.4
        method = self.rng.choice(["tools/call"] * 5 + ["tools/list", "ping", "initialize", "server/discover"])
        params: dict[str, Any] | None
        if method == "tools/call":
            name = self.rng.choice(list(tools.REGISTRY))
            params = {"name": name, "arguments": json.loads(json.dumps(self.rng.choice(TOOL_ARGUMENTS[name])))}
        elif method == "initialize":
            params = {"protocolVersion": self.rng.choice(["2024-11-05", "2025-11-25", "2099-01-01", MODERN]),
                      "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "0"}}
            modern = False
        elif method == "server/discover":
            params, modern = {}, True
        else:
            params = self.rng.choice([None, {}])
        if modern:
            params = {**(params or {}), "_meta": json.loads(json.dumps(ENVELOPE))}
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.new_id(), "method": method}
        if params is not None:
            message["params"] = params
        return message

    def paths(self, message: dict[str, Any]) -> list[tuple[str, ...]]:
        """Every field of a request a mutation may hit; arguments and envelope keys often."""
        paths: list[tuple[str, ...]] = [("jsonrpc",), ("id",), ("method",), ("params",)]
        params = message.get("params")
        if isinstance(params, dict):
            paths += [("params", k) for k in params]
            paths += [("params", k) for k in ("name", "arguments", "_meta", "cursor", "protocolVersion")]
            arguments = params.get("arguments")
            if isinstance(arguments, dict):
                paths += [("params", "arguments", k) for k in arguments] * 4
                schema = contract.tool_spec(params["name"])["inputSchema"]["properties"]
                paths += [("params", "arguments", k) for k in schema]
            if isinstance(params.get("_meta"), dict):
                paths += [("params", "_meta", k) for k in (VERSION_KEY, CAPS_KEY)] * 3
        return paths

    def mutate(self, message: dict[str, Any], path: tuple[str, ...] | None = None, may_drop: bool = True) -> str:
        """Replace (or drop) one field with a wrong-typed value; a label naming the field."""
        path = path or self.rng.choice(self.paths(message))
        label = "/".join(path)
        if path[:2] == ("params", "arguments") and len(path) == 3:
            label += f" [{message['params']['name']}]"
        parent: Any = message
        for step in path[:-1]:
            parent = parent.setdefault(step, {})
        # Dropping the version would make the target "latest": resolved upstream, not cached.
        if may_drop and path[-1] in parent and path[-1] != "version" and self.rng.random() < 0.15:
            del parent[path[-1]]
            return label + " (dropped)"
        if path == ("id",):
            # Ids must stay unique to be counted: a wrong-typed id is one no request may use.
            parent["id"] = self.rng.choice([None, True, False, 1.5, -0.0, 1e300, [], [self.n], {}, {"id": self.n},
                                            self.nested(self.rng.randint(2, 50))])
        else:
            current = parent.get(path[-1])
            if current is None and len(path) == 3 and path[:2] == ("params", "arguments"):  # absent: by the schema
                schema = contract.tool_spec(message["params"]["name"])["inputSchema"]
                kind = schema["properties"][path[-1]]
                kind = schema["$defs"][kind["$ref"].rsplit("/", 1)[1]] if "$ref" in kind else kind
                current = {"string": "x", "integer": 1, "boolean": True, "array": ["x"]}[kind.get("type", "string")]
            parent[path[-1]] = self.wrong_value(current)
        return label

    def systematic(self) -> list[Frame]:
        """One wrong-typed value in every envelope field and every argument of every tool, so
        that any seed covers them all; the random frames then hit them again and again."""
        frames = []
        for name in tools.REGISTRY:
            for modern in (False, True):
                base = {"jsonrpc": "2.0", "method": "tools/call",
                        "params": {"name": name, "arguments": dict(TOOL_ARGUMENTS[name][0])}}
                if modern:
                    base["params"]["_meta"] = dict(ENVELOPE)
                for path in dict.fromkeys(self.paths({**base, "id": 0})):
                    message = json.loads(json.dumps({**base, "id": self.new_id()}))
                    label = self.mutate(message, path, may_drop=False)
                    frames.append(self.frame_of(message, "wrong-type " + label, ascii_only=self.rng.random() < 0.5))
        return frames

    # frames

    def frame_of(self, message: Any, kind: str, *, ascii_only: bool = True) -> Frame:
        data = encode(message, ascii_only) + b"\n"
        outcome, code = expected(message)
        if outcome != "answer":
            return Frame(data, kind, outcome, None, code, message)
        # A well-formed tools/call goes to a worker; only those can be cancelled (SPEC §6).
        queued = (message.get("jsonrpc") == "2.0" and message.get("method") == "tools/call"
                  and (message.get("params") is None or isinstance(message.get("params"), dict)))
        if queued:
            self.calls.append(message["id"])
        return Frame(data, kind, outcome, message["id"], code, message, queued)

    def raw(self, data: bytes, kind: str, outcome: str, code: int | None = None, request_id: Any = None) -> Frame:
        return Frame(data if data.endswith(b"\n") else data + b"\n", kind, outcome, request_id, code)

    def next(self) -> Frame:
        r = self.rng.random()
        if r < 0.30:
            return self.frame_of(self.request(), "valid", ascii_only=self.rng.random() < 0.5)
        if r < 0.58:
            message = self.request()
            return self.frame_of(message, "wrong-type " + self.mutate(message), ascii_only=self.rng.random() < 0.5)
        if r < 0.64:
            return self.frame_of(self.value(), "random value")
        if r < 0.68:
            message = {self.text(5): self.value() for _ in range(self.rng.randint(0, 5))}
            if self.rng.random() < 0.5:
                message["id"] = self.new_id()
            return self.frame_of(message, "random object", ascii_only=False)
        if r < 0.74:
            return self.separators()
        if r < 0.78:
            return self.invalid_utf8()
        if r < 0.82:
            return self.raw_controls()
        if r < 0.88:
            message = self.request()
            del message["id"]  # a request without an id is a notification: it gets nothing
            return self.frame_of(message, "notification (request without id)")
        if r < 0.95:
            return self.cancel()
        if r < 0.97:
            batch = [self.request() for _ in range(self.rng.randint(0, 4))]
            return self.frame_of(batch, "batch")
        if r < 0.98:
            return self.frame_of({"jsonrpc": "2.0", "id": self.new_id(), "result": self.value()}, "client response")
        if r < 0.99:
            digits = "7" * self.rng.randint(4400, 9000)  # past the interpreter's int parsing limit
            return self.raw(b'{"jsonrpc":"2.0","id":' + digits.encode() + b',"method":"ping"}', "id too long to parse",
                            "null", -32700)
        return self.frame_of({"jsonrpc": "2.0", "method": self.rng.choice(["notifications/initialized",
                                                                            "notifications/progress", self.text(8)]),
                              "params": self.value()}, "notification")

    def separators(self) -> Frame:
        """U+2028/U+2029/U+0085 raw inside strings (valid JSON: one frame, not three)."""
        message = self.request()
        request_id = f"{self.n}{self.rng.choice(SEPARATORS)}{self.text(5)}"
        message["id"] = request_id
        params = message.setdefault("params", {})
        if isinstance(params, dict):
            params[f"extra{self.rng.choice(SEPARATORS)}"] = self.text(40)
            arguments = params.get("arguments")
            if isinstance(arguments, dict):
                for k, v in arguments.items():
                    if isinstance(v, str) and k in ("path", "pattern", "query"):
                        arguments[k] = v + self.rng.choice(SEPARATORS)
        return self.frame_of(message, "line separators", ascii_only=False)

    def invalid_utf8(self) -> Frame:
        data = encode(self.request(), ascii_only=False)
        bad = self.rng.choice([b"\xff", b"\xfe", b"\xc3\x28", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
                               b"\xe2\x82", b"\x80"])
        at = data.index(b'"method"') + 1
        return self.raw(data[:at] + bad + data[at:], "invalid utf-8", "null", -32700)

    def raw_controls(self) -> Frame:
        """A raw control character (not newline) inside a JSON string: not JSON."""
        data = encode(self.request())
        control = self.rng.choice(CONTROLS[:-1]).encode()  # not DEL: JSON allows it raw
        at = data.index(b'"2.0"') + 2
        return self.raw(data[:at] + control + data[at:], "raw control character", "null", -32700)

    def cancel(self) -> Frame:
        """notifications/cancelled: mostly for a recent tools/call, sometimes for anything."""
        pick = self.rng.random()
        if self.calls and pick < 0.7:
            target = self.rng.choice(self.calls[-8:])
        elif self.calls and pick < 0.8:
            target = str(self.calls[-1]) if not isinstance(self.calls[-1], str) else 10**40  # same digits, other type
        else:
            target = self.rng.choice([None, 1.5, [], {}, "never-sent", 10**30, self.new_id()])
        params: Any = {"requestId": target, "reason": self.text(10)}
        if self.rng.random() < 0.1:
            params = self.value()
        return self.frame_of({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params},
                             "cancel")


def generate(seed: int, count: int) -> list[Frame]:
    gen = Generator(random.Random(seed))
    frames = gen.systematic()
    frames += [gen.next() for _ in range(count - 3 - len(frames))]
    # The 4 MiB cap (framing.MAX_LINE): a line of exactly the cap passes, one byte more is
    # refused; the refusal skips to the next newline and the frame after it is read normally.
    pad = MAX_LINE - len(b'{"jsonrpc":"2.0","id":"cap","method":"ping","params":{"pad":""}}')
    at_cap = b'{"jsonrpc":"2.0","id":"cap","method":"ping","params":{"pad":"' + b"a" * pad + b'"}}'
    assert len(at_cap) == MAX_LINE
    over = at_cap.replace(b'"cap"', b'"cap+"', 1)
    huge = b'{"jsonrpc":"2.0","id":"huge","method":"ping","params":{"pad":"' + b"b" * (6 * 1024 * 1024) + b'"}}'
    for offset, frame in ((count // 4, gen.raw(at_cap, "line at the cap", "answer", request_id="cap")),
                          (count // 2, gen.raw(over, "line over the cap", "null", -32600)),
                          (3 * count // 4, gen.raw(huge, "line over the cap", "null", -32600))):
        frames.insert(offset, frame)
    return frames


# --- the session -----------------------------------------------------------------------------


@dataclass
class Session:
    frames: list[Frame]
    lines: list[bytes] = field(default_factory=list)
    alive_until_eof: bool = False
    exit_code: int | None = None
    elapsed: float = 0.0
    log: str = ""
    stderr: bytes = b""
    npm_requests: int = -1
    parsed: list[dict[str, Any]] | None = None


def _environment(base: Path, urls: dict[str, str]) -> dict[str, str]:
    env = isolated_subprocess_env(base)
    env.update({
        "CODENAV_NPM_REGISTRY": urls["npm"], "CODENAV_PYPI_INDEX_URL": urls["closed"] + "/simple/",
        "CODENAV_GREP_APP_URL": urls["grep"], "CODENAV_GITHUB_API_URL": urls["github"],
        "CODENAV_HTTP_TIMEOUT": "2", "CODENAV_MCP_LOG": str(base / "mcp.log"),
    })
    return env


def _slow_or_hit(grep: FakeGrepApp) -> Callable[[Any], Reply]:
    """grep.app's answer: one hit, after 0.1 s when the query starts with 'slow' (so that
    cancellations meet calls that are still running)."""
    hit = json_reply(result([hit_text("octo/demo", "src/app.py", [(1, ["import os", "print(os.sep)"])])]))

    def answer(handler: Any) -> Reply:
        body = json.loads(grep.seen[-1].body)
        if str(body["params"]["arguments"].get("query", "")).startswith("slow"):
            return Reply(hit.status, hit.body, hit.headers, delay=0.1)
        return hit

    return answer


def run_session(frames: list[Frame], env: dict[str, str], base: Path) -> Session:
    session = Session(frames)
    answers = {key(f.id) for f in frames if f.expect == "answer" and not f.queued}
    calls = {key(f.id) for f in frames if f.queued}
    cancelled = {key(f.message["params"]["requestId"]) for f in frames
                 if f.kind == "cancel" and isinstance(f.message.get("params"), dict)
                 and _valid_id(f.message["params"].get("requestId"))}
    must = answers | (calls - cancelled)
    nulls = sum(1 for f in frames if f.expect == "null")
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "codenav", "mcp", "--json"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    assert proc.stdin and proc.stdout and proc.stderr
    got: set[tuple[str, Any]] = set()
    null_seen = 0
    done = threading.Event()
    stderr: list[bytes] = []

    def read() -> None:
        nonlocal null_seen
        for line in proc.stdout:  # type: ignore[union-attr]
            session.lines.append(line)
            try:
                message = json.loads(line)
                if message.get("id") is None:
                    null_seen += 1
                else:
                    got.add(key(message["id"]))
            except (ValueError, AttributeError):
                pass
            if must <= got and null_seen >= nulls:
                done.set()
        done.set()

    def write() -> None:
        try:
            for start in range(0, len(frames), BATCH):
                proc.stdin.write(b"".join(f.data for f in frames[start:start + BATCH]))  # type: ignore[union-attr]
                proc.stdin.flush()  # type: ignore[union-attr]
        except OSError:  # the server died: the checks say so
            done.set()

    threads = [threading.Thread(target=read, daemon=True), threading.Thread(target=write, daemon=True),
               threading.Thread(target=lambda: stderr.append(proc.stderr.read()), daemon=True)]  # type: ignore[union-attr]
    for thread in threads:
        thread.start()
    try:
        threads[1].join(120)
        done.wait(120)
        session.alive_until_eof = proc.poll() is None
        proc.stdin.close()
        session.exit_code = proc.wait(timeout=10)
        threads[0].join(5)
        threads[2].join(5)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    session.elapsed = time.monotonic() - started
    session.stderr = b"".join(stderr)
    log = base / "mcp.log"
    session.log = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    return session


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[Session]:
    base = tmp_path_factory.mktemp("mcp-fuzz")
    (base / "home").mkdir()
    with FakeServer() as closed:
        closed_url = closed.url  # nobody listens there once the block ends
    with FakeServer() as npm_server, FakeGrepApp() as grep, FakeServer() as github_server:
        npm = FakeNpm(npm_server)
        npm.publish("demo", "1.0.0", {"index.js": b"const a = 1;\nmodule.exports = a;\n", "lib/a.js": b"// 42\n"})
        grep.route("POST", "/", _slow_or_hit(grep))
        FakeGitHub(github_server).add_file("octo/demo", "src/app.py", b"import os\nprint(os.sep)\n")
        env = _environment(base, {"npm": npm.url, "grep": grep.url, "github": github_server.url,
                                  "closed": closed_url})
        warm = subprocess.run([sys.executable, "-m", "codenav", "files", "npm:demo@1.0.0", "--json"],
                              capture_output=True, env=env, timeout=60)
        assert warm.returncode == 0, warm.stderr
        # and its latest, for diff_versions frames whose to_version was dropped (5 minutes' alias)
        warm = subprocess.run([sys.executable, "-m", "codenav", "files", "npm:demo", "--no-project", "--json"],
                              capture_output=True, env=env, timeout=60)
        assert warm.returncode == 0, warm.stderr
        warm_requests = len(npm_server.seen)
        frames = generate(SEED, FRAMES)
        session = run_session(frames, env, base)
        session.npm_requests = len(npm_server.seen) - warm_requests
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print(f"\nmcp fuzz: seed {SEED}, {len(frames)} frames in {session.elapsed:.1f} s "
              f"(replay: CODENAV_FUZZ_SEED={SEED}; CODENAV_FUZZ_SEED=random for a fresh seed)")
    yield session


def _responses(session: Session) -> list[dict[str, Any]]:
    """The responses, parsed once (lines that do not parse are the well-formedness test's)."""
    if session.parsed is None:
        session.parsed = []
        for line in session.lines:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and "id" in message:
                session.parsed.append(message)
    return session.parsed


def _context(session: Session) -> str:
    return f"seed {SEED} (replay with CODENAV_FUZZ_SEED={SEED})"


# --- the checks ------------------------------------------------------------------------------


def test_the_server_stays_up_through_every_frame_and_exits_zero_at_eof(fuzz: Session) -> None:
    """The process is still running after the last frame is answered, and exits 0 at EOF."""
    assert fuzz.alive_until_eof, (_context(fuzz), fuzz.stderr[-2000:])
    assert fuzz.exit_code == 0, _context(fuzz)


def test_every_stdout_line_is_one_well_formed_json_rpc_response(fuzz: Session) -> None:
    """Each line is ASCII JSON: an object with jsonrpc 2.0, an id, and exactly one of result
    (an object) or error ({code: int, message: str[, data]}), nothing else."""
    bad = []
    for line in fuzz.lines:
        try:
            message = json.loads(line.decode("ascii"))
            assert line.endswith(b"\n") and isinstance(message, dict)
            assert set(message) in ({"jsonrpc", "id", "result"}, {"jsonrpc", "id", "error"})
            assert message["jsonrpc"] == "2.0" and (message["id"] is None or _valid_id(message["id"]))
            if "result" in message:
                assert isinstance(message["result"], dict)
            else:
                error = message["error"]
                assert set(error) <= {"code", "message", "data"} and {"code", "message"} <= set(error)
                assert type(error["code"]) is int and isinstance(error["message"], str)
        except (ValueError, AssertionError, KeyError, TypeError):
            bad.append(line[:300])
    assert bad == [], (_context(fuzz), bad[:5])


def test_every_request_with_a_valid_id_gets_exactly_one_response(fuzz: Session) -> None:
    """Each request with a string or integer id is answered once, with that id and its JSON type
    (a tools/call cancelled by the client aside)."""
    cancelled = _cancelled(fuzz)
    counts = Counter(key(m["id"]) for m in _responses(fuzz) if m["id"] is not None)
    wrong = {}
    for frame in fuzz.frames:
        if frame.expect == "answer" and not (frame.queued and key(frame.id) in cancelled):
            if counts[key(frame.id)] != 1:
                wrong[repr(frame.id)[:80]] = (frame.kind, counts[key(frame.id)])
    assert wrong == {}, (_context(fuzz), list(wrong.items())[:10])


def _cancelled(session: Session) -> set[tuple[str, Any]]:
    return {key(f.message["params"]["requestId"]) for f in session.frames
            if f.kind == "cancel" and isinstance(f.message.get("params"), dict)
            and _valid_id(f.message["params"].get("requestId"))}


def test_cancelled_calls_get_at_most_one_response(fuzz: Session) -> None:
    """A tools/call followed by notifications/cancelled for it is answered once or not at all
    (once when it finished first); the run holds enough of them to mean something."""
    cancelled = _cancelled(fuzz)
    counts = Counter(key(m["id"]) for m in _responses(fuzz) if m["id"] is not None)
    calls = [f for f in fuzz.frames if f.queued and key(f.id) in cancelled]
    assert len(calls) >= FRAMES // 100, len(calls)
    assert [f.id for f in calls if counts[key(f.id)] > 1] == [], _context(fuzz)


def test_notifications_and_client_responses_are_never_answered(fuzz: Session) -> None:
    """No response carries an id that no answerable request used: notifications (requests
    without an id included), cancellations and client responses got nothing."""
    answerable = {key(f.id) for f in fuzz.frames if f.expect == "answer"}
    stray = [m["id"] for m in _responses(fuzz) if m["id"] is not None and key(m["id"]) not in answerable]
    assert stray == [], (_context(fuzz), stray[:5])
    kinds = Counter(f.kind for f in fuzz.frames if f.expect == "none")
    assert kinds["notification (request without id)"] and kinds["cancel"] and kinds["client response"]


def test_frames_without_a_usable_id_get_one_null_id_error_each_in_order(fuzz: Session) -> None:
    """Unparsable, non-UTF-8, over-long, non-object, batch and bad-id frames each get exactly
    one error with id null, in frame order: -32700 for what is not JSON, -32600 for the rest."""
    want = [f.null_code for f in fuzz.frames if f.expect == "null"]
    got = [m["error"]["code"] for m in _responses(fuzz) if m["id"] is None]
    assert got == want, (_context(fuzz), len(got), len(want))


def test_the_cap_passes_a_line_of_exactly_4_mib_and_refuses_one_byte_more(fuzz: Session) -> None:
    """The ping of exactly MAX_LINE bytes is answered; the one a byte longer, and the 6 MiB one,
    are refused with -32600 (counted above) without ending the session."""
    by_id = {key(m["id"]): m for m in _responses(fuzz) if m["id"] is not None}
    assert by_id[key("cap")] == {"jsonrpc": "2.0", "id": "cap", "result": {}}
    assert key("cap+") not in by_id and key("huge") not in by_id


def test_no_frame_causes_an_internal_error_or_a_traceback(fuzz: Session) -> None:
    """No -32603, no INTERNAL tool envelope, and no traceback in the server's log or stderr."""
    internal = [m for m in _responses(fuzz) if m.get("error", {}).get("code") == -32603
                or m.get("result", {}).get("structuredContent", {}).get("error", {}).get("code") == "INTERNAL"]
    assert internal == [], (_context(fuzz), internal[:3])
    for text in (fuzz.log, fuzz.stderr.decode("utf-8", "replace")):
        assert "Traceback" not in text and "Logging error" not in text, (_context(fuzz), text[-3000:])


def test_tool_results_carry_the_same_json_in_text_and_structured_content(fuzz: Session) -> None:
    """Every tools/call result holds one text block equal to contract.dumps(structuredContent);
    error envelopes validate against the error schema."""
    validator = contract.validator("error")
    checked = 0
    for m in _responses(fuzz):
        result = m.get("result", {})
        if "structuredContent" not in result:
            continue
        checked += 1
        assert result["content"] == [{"type": "text", "text": contract.dumps(result["structuredContent"])}]
        assert isinstance(result["isError"], bool)
        if result["isError"]:
            validator.validate(result["structuredContent"])
    assert checked >= FRAMES // 20, checked


def test_a_wrong_typed_argument_is_an_invalid_argument_naming_it(fuzz: Session) -> None:
    """A tools/call whose one mutated argument has the wrong type (or whose required argument
    was dropped) is INVALID_ARGUMENT with details.field naming that argument; the envelope quotes
    no huge value. (2.0 and 1e300 are integers to JSON Schema: accepted, and never a crash.)"""
    by_id = {key(m["id"]): m for m in _responses(fuzz) if m["id"] is not None}
    checked, wrong = 0, []
    for f in fuzz.frames:
        if not f.kind.startswith("wrong-type params/arguments/") or " [" not in f.kind or key(f.id) not in by_id:
            continue
        argument, tool = f.kind.removeprefix("wrong-type params/arguments/").split(" [")
        tool, dropped = tool.split("]")[0], f.kind.endswith("(dropped)")
        required = contract.tool_spec(tool)["inputSchema"].get("required", [])
        value = f.message["params"]["arguments"].get(argument)
        if (dropped and argument not in required) or (isinstance(value, float) and value.is_integer()):
            continue
        envelope = by_id[key(f.id)].get("result", {}).get("structuredContent", {})
        error = envelope.get("error", {})
        checked += 1
        if (error.get("code"), error.get("details", {}).get("field")) != ("INVALID_ARGUMENT", argument):
            wrong.append((f.kind, error))
        if len(contract.dumps(envelope)) > 4096:
            wrong.append((f.kind, f"envelope of {len(contract.dumps(envelope))} bytes"))
    assert checked >= 200, checked
    assert wrong == [], (_context(fuzz), wrong[:5])


def test_valid_tool_calls_succeed_against_the_fakes(fuzz: Session) -> None:
    """The unmutated tool calls run for real (cache, fake grep.app, fake GitHub): most succeed,
    so the fuzz exercises the tools and not only the argument checks."""
    by_id = {key(m["id"]): m for m in _responses(fuzz) if m["id"] is not None}
    outcomes = Counter()
    for f in fuzz.frames:
        if f.kind == "valid" and f.queued and key(f.id) in by_id:
            result = by_id[key(f.id)].get("result", {})
            error = result.get("structuredContent", {}).get("error", {}).get("code")
            outcomes[error or ("ok" if "structuredContent" in result else "protocol error")] += 1
    assert outcomes["ok"] > sum(outcomes.values()) / 2, outcomes
    assert set(outcomes) <= {"ok", "FILE_NOT_FOUND"}, outcomes


def test_no_tool_call_reached_the_registry(fuzz: Session) -> None:
    """The package comes from the warm cache: the npm fake saw nothing after the warm-up."""
    assert fuzz.npm_requests == 0


def test_the_mix_covers_every_kind_of_frame(fuzz: Session) -> None:
    """The run holds every kind of frame the module docstring promises, and wrong types in
    every field of the envelope, of params and of each tool's arguments."""
    kinds = Counter(f.kind.split(" ")[0] if f.kind.startswith("wrong-type") else f.kind for f in fuzz.frames)
    for kind in ("valid", "wrong-type", "random value", "random object", "line separators", "invalid utf-8",
                 "raw control character", "notification (request without id)", "cancel", "batch",
                 "client response", "id too long to parse", "notification", "line at the cap", "line over the cap"):
        assert kinds[kind] > 0, kind
    mutated = {f.kind.split(" ", 1)[1].removesuffix(" (dropped)") for f in fuzz.frames if f.kind.startswith("wrong-type")}
    for path in ("jsonrpc", "id", "method", "params", "params/name", "params/arguments", "params/_meta",
                 f"params/_meta/{VERSION_KEY}", f"params/_meta/{CAPS_KEY}"):
        assert path in mutated, path
    for name in tools.REGISTRY:
        for argument in contract.tool_spec(name)["inputSchema"]["properties"]:
            assert f"params/arguments/{argument} [{name}]" in mutated, (name, argument)


def test_ten_thousand_frames_take_well_under_a_minute(fuzz: Session) -> None:
    """Pipelined in batches, the whole run (server start to exit) stays under 60 s."""
    assert fuzz.elapsed < 60, fuzz.elapsed
