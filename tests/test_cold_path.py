"""The cold path's shortcuts answer exactly as the general code they stand in for.

A cold call no longer imports ``requests`` for a direct exchange (net.py sends it through
http.client, httpclient.py) and no longer compiles npm's semver grammar for a plain
``MAJOR.MINOR.PATCH``. Each shortcut is checked here against the code it replaces: the same
answer (status, headers, body, final URL) or the same error, and the same request on the wire.
"""

from __future__ import annotations

import gzip
import os
import random
import subprocess
import sys

import pytest

from codenav import net
from codenav.errors import CodenavError
from codenav.registries import npm, semver
from tests.fakes.http import FakeServer, Reply
from tests.support.cli import ROOT

BODY = b"".join(b"line %d of the body\n" % i for i in range(4000))  # 80 KB: several reads
# Headers the two transports may legitimately differ in: the fake's clock, and the connection
# handling each library announces.
VOLATILE = {"date", "server"}


def _routes(server: FakeServer) -> None:
    server.route("GET", "/ok", lambda h: Reply(200, BODY, {"Content-Type": "text/plain", "X-Twice": "a"}))
    server.route("GET", "/gzip", lambda h: Reply(200, gzip.compress(BODY, mtime=0),
                                                 {"Content-Type": "application/json", "Content-Encoding": "gzip"}))
    server.route("GET", "/missing", lambda h: Reply(404, b'{"error":"Not found"}', {"Content-Type": "application/json"}))
    server.route("GET", "/busy", lambda h: Reply(503, b"busy", {"Retry-After": "3"}))
    server.route("GET", "/moved", lambda h: Reply(302, b"", {"Location": "/ok"}))
    server.route("GET", "/loop", lambda h: Reply(302, b"", {"Location": "/loop"}))
    server.route("GET", "/truncated", lambda h: Reply(200, BODY[:100], {}, length=len(BODY)))
    server.route("GET", "/reset", lambda h: Reply(200, BODY, {}, abort_after=5000))
    server.route("GET", "/oversized", lambda h: Reply(200, b"{}", {}, length=10 * 1024 * 1024))
    server.route("GET", "/stall", lambda h: Reply(200, BODY, {}, delay=2.0))
    server.route("GET", "/drip", lambda h: Reply(200, [BODY[i:i + 4000] for i in range(0, len(BODY), 4000)], {},
                                                 chunk_delay=0.1))
    server.route("HEAD", "/ok", lambda h: Reply(200, b"", {"Content-Type": "text/plain"}, length=len(BODY)))
    server.route("POST", "/search", lambda h: Reply.json({"echo": h.rfile is not None}))


CASES = [
    ("GET", "/ok", {}),
    ("GET", "/ok", {"headers": {"Accept": "application/json", "user-agent": "someone/1"}}),
    ("GET", "/ok?q=a%20b&x=1#fragment", {}),
    ("GET", "/a path/with spaces", {}),
    ("GET", "/gzip", {}),
    ("GET", "/missing", {}),
    ("GET", "/busy", {}),
    ("GET", "/moved", {"redirects": "https"}),
    ("GET", "/moved", {}),
    ("GET", "/loop", {"redirects": "https"}),
    ("GET", "/truncated", {}),
    ("GET", "/reset", {}),
    ("GET", "/oversized", {"max_bytes": 1024 * 1024}),
    ("GET", "/ok", {"max_bytes": 1000}),
    ("GET", "/stall", {"timeout": 0.5}),
    ("GET", "/drip", {"timeout": 0.5}),
    ("HEAD", "/ok", {}),
    ("POST", "/search", {"json_body": {"query": "x = 1", "n": [1, 2]}}),
]


def test_credentials_in_the_url_are_sent_as_requests_sends_them(server):
    """A registry URL with user:password@ gets the same request as before (requests' Basic auth)."""
    import base64

    server.seen.clear()
    url = server.url.replace("http://", "http://user:s%40cret@") + "/ok"
    assert net.request("GET", url, what="x").body == BODY
    assert server.seen[-1].headers["authorization"] == "Basic " + base64.b64encode(b"user:s@cret").decode()


def _outcome(method: str, url: str, options: dict) -> tuple:
    try:
        resp = net.request(method, url, what="the upstream", **options)
    except CodenavError as exc:
        return ("error", exc.code, exc.message, exc.retryable, exc.details)
    headers = {k: v for k, v in resp.headers.items() if k not in VOLATILE}
    return ("answer", resp.status, headers, resp.body, resp.url)


def _seen(server: FakeServer) -> list:
    return [(s.method, s.path, s.query, s.body, {k: v for k, v in s.headers.items()}) for s in server.seen]


@pytest.fixture(scope="module")
def server():
    with FakeServer() as server:
        _routes(server)
        yield server


@pytest.mark.parametrize(("method", "path", "options"), CASES, ids=[f"{m} {p} {sorted(o)}" for m, p, o in CASES])
def test_the_direct_transport_answers_as_requests_does(server, method, path, options, tmp_path, monkeypatch):
    """Every answer and every error of a direct exchange (http.client) equals what the same
    exchange gives through requests, and the server receives the same request."""
    server.seen.clear()
    direct = _outcome(method, server.url + path, options)
    wire_direct = _seen(server)
    server.seen.clear()
    netrc = tmp_path / "netrc"
    netrc.write_text("")  # requests would read it: the exchange goes through requests
    monkeypatch.setenv("NETRC", str(netrc))
    from codenav import netrequests

    sent = []
    monkeypatch.setattr(netrequests, "send", lambda *a, _send=netrequests.send: sent.append(a) or _send(*a))
    through_requests = _outcome(method, server.url + path, options)
    wire_requests = _seen(server)
    assert sent, "the exchange did not go through requests"
    assert direct == through_requests
    assert wire_direct == wire_requests


def test_a_kept_alive_connection_carries_the_next_request_and_a_dropped_one_is_replaced():
    """Two exchanges with one host share a connection; when the server closes it between them,
    the second goes out on a new one and still succeeds."""
    import http.server
    import threading

    connections = []

    class KeepAlive(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path == "/close":
                self.close_connection = True
            connections.append(self.client_address)
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), KeepAlive)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{httpd.server_address[1]}"
        assert [net.request("GET", base + p, what="x").body for p in ("/a", "/b", "/close", "/c")] == [b"ok"] * 4
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert connections[0] == connections[1] == connections[2] != connections[3]


def test_a_host_is_looked_up_once_for_many_connections_and_again_once_none_answers(server, monkeypatch):
    """Each new connection to one host reuses the addresses the first looked up (this machine's
    resolver stalls 5 s on one lookup in a few); when none of them accepts a connection they are
    forgotten, and the next connection asks again; past DNS_TTL they are asked again too."""
    import socket

    from codenav import httpclient

    asked = []
    real = socket.getaddrinfo
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *rest: asked.append(host) or real(host, *rest))
    monkeypatch.setattr(httpclient, "_ADDRESSES", {})
    url = server.url.replace("127.0.0.1", "localhost") + "/ok"
    for _ in range(3):
        assert net.request("GET", url, what="x").body == BODY
        httpclient._close_all()  # a new connection each time
    assert asked == ["localhost"]
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there: every connection is refused
    for _ in range(2):
        with pytest.raises(CodenavError):
            net.request("GET", f"http://localhost:{port}/", what="x")
    assert asked == ["localhost"] * 3
    monkeypatch.setattr(httpclient, "DNS_TTL", 0.0)
    for _ in range(2):
        assert net.request("GET", url, what="x").body == BODY
        httpclient._close_all()
    assert asked == ["localhost"] * 5


def test_a_direct_exchange_does_not_import_requests(server):
    """On an open network (no proxy variable, no .netrc) fetching imports neither requests nor urllib3."""
    code = ("import sys\nfrom codenav import net\n"
            f"assert net.request('GET', {server.url + '/ok'!r}, what='x').status == 200\n"
            "print(sorted(m for m in ('requests', 'urllib3') if m in sys.modules))\n")
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["PYTHONPATH"] = str(ROOT)
    env.pop("NETRC", None)
    env["HOME"] = os.environ["HOME"]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_proxy_variable_sends_the_exchange_through_requests(server, monkeypatch):
    """A *_proxy variable in the environment leaves the routing to requests, as before (the
    proxies themselves are pinned in tests/test_trust.py)."""
    monkeypatch.setenv("FTP_PROXY", "http://127.0.0.1:9")  # no proxy for http: requests goes direct
    assert net._environment_may_proxy()
    assert net.request("GET", server.url + "/ok", what="x").body == BODY
    assert "requests" in sys.modules


def _versions(rnd: random.Random) -> list[str]:
    parts = ["0", "1", "01", "00", "9", "10", "123", "9007199254740991", "9007199254740992", "999999999999999",
             "1234567890123456", "x", "*", "", " 1", "1 ", "v1", "=1", "-1", "1a", "\u0661"]
    found = ["1.2.3", "v1.2.3", "=1.2.3", " 1.2.3 ", "1.2.3-beta", "1.2.3+build", "1.2", "1.2.3.4", "^1.2.3",
             "latest", "next", "1.2.3 - 2.0.0", ">=1", "1.x"]
    for _ in range(3000):
        found.append(".".join(rnd.choice(parts) for _ in range(rnd.choice((2, 3, 3, 3, 4)))))
    return found


def test_a_plain_version_is_what_semver_calls_an_exact_version_in_its_clean_form():
    """Every string npm.is_clean_semver accepts, semver classifies as exact and cleans to itself,
    and npm.version_key orders every string as semver.sort_key does; the common shapes are accepted."""
    rnd = random.Random(25)
    accepted = 0
    for text in _versions(rnd):
        if npm.is_clean_semver(text):
            accepted += 1
            assert semver.classify(text) == "exact", text
            assert semver.clean(text) == text, text
    assert accepted > 30
    assert all(npm.is_clean_semver(v) for v in ("0.0.0", "4.21.2", "10.20.30", "999999999999999.0.1"))
    # and npm's version order keys such a version as semver's sort key does, without its grammar
    assert all(npm.version_key(v) == semver.sort_key(v) for v in _versions(random.Random(26)))
    assert not any(npm.is_clean_semver(v) for v in ("01.2.3", "1.2.3-rc.1", "v1.2.3", "1.2", "1.2.3 "))


# --- the forked indexer (cache/forked.py) ------------------------------------------------------

def _entry_files(cache) -> dict[str, bytes]:
    """Every file of every published entry and alias of ``cache`` (the aliases' times left out)."""
    import json as _json
    from pathlib import Path

    found = {}
    for path in sorted(Path(cache, "entries").rglob("*")):
        if path.is_file():
            found[str(path.relative_to(cache))] = path.read_bytes()
    for path in sorted(Path(cache, "aliases").glob("*.json")):
        data = _json.loads(path.read_bytes())
        found[str(path.relative_to(cache))] = (data["alias"], data["key"])
    return found


@pytest.mark.parametrize("argv", [["files", "npm:demo@1.0.0"], ["files", "npm:nope@1.0.0", "--json"],
                                  ["read", "npm:demo@1.0.0", "lib/a.js", "--json"]])
def test_a_cold_command_forks_its_indexer_and_answers_as_the_indexer_process_does(argv, npm, tmp_path, monkeypatch):
    """The codenav command (run as the program) forks its indexer; its answer, exit status and
    the entry it leaves (after the late sidecars) equal a call whose indexer is a process of its own."""
    import contextlib
    import io

    from codenav import cli
    from codenav.cache import forked
    from tests.support.cli import run_cli, settle

    npm.publish("demo", "1.0.0", {"package.json": b'{"name": "demo"}\n', "lib/a.js": b"function a() {}\n"})
    fork_cache, process_cache = tmp_path / "fork-cache", tmp_path / "process-cache"
    done = run_cli(*argv, env={"CODENAV_CACHE_DIR": str(fork_cache)})
    settle(fork_cache)
    monkeypatch.setenv("CODENAV_CACHE_DIR", str(process_cache))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(argv)  # not the program: the indexer is a process (no fork in the test runner)
    settle(process_cache)
    assert not forked.possible()
    assert (done.returncode, done.stdout.decode()) == (status, out.getvalue())
    assert _entry_files(fork_cache) == _entry_files(process_cache)
    assert (fork_cache / "tmp" / "indexer.log").read_bytes() == b""


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the indexer through /proc")
def test_the_forked_indexer_leaves_the_callers_pipes_and_session(npm, tmp_path):
    """The caller's pipes close when the command exits, whatever the forked indexer still does, and
    the indexer leads a session of its own (a terminal's Ctrl-C does not reach it)."""
    import time as _time

    from tests.support.cli import run_cli, settle

    files = {f"src/m{i}.js": f"export function f{i}() {{ return {i}; }}\n".encode() * 50 for i in range(400)}
    npm.publish("many", "1.0.0", files)
    cache = tmp_path / "cache"
    started = _time.monotonic()
    done = run_cli("files", "npm:many@1.0.0", env={"CODENAV_CACHE_DIR": str(cache)})
    answered = _time.monotonic() - started
    assert done.returncode == 0 and done.stdout.decode().splitlines() == sorted(files)
    entry = next((cache / "entries" / "npm" / "many").iterdir())
    # The late symbol index of 400 files takes the indexer well over the answer's time.
    assert not (entry / "symbols.tsv").exists(), f"answered after {answered:.2f} s, with the late sidecar"
    # Looked for a few times: a scan that meets the indexer in the middle of its exec into the
    # late phase reads an empty environment.
    deadline = _time.monotonic() + 5
    while not (indexers := _processes_of(cache)) and _time.monotonic() < deadline:
        _time.sleep(0.01)
    leaders = {pid: _session_leader(pid) for pid in indexers}
    assert indexers and False not in leaders.values(), (leaders, _commands(indexers))
    settle(cache)
    assert (entry / "symbols.tsv").exists()


def _processes_of(cache) -> list[int]:
    """The live processes whose environment names ``cache`` as the codenav cache."""
    wanted = f"CODENAV_CACHE_DIR={cache}".encode()
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as handle:
                    if wanted in handle.read().split(b"\0"):
                        found.append(int(entry.name))
            except OSError:
                continue
    return found


def _session_leader(pid: int) -> bool | None:
    """Whether ``pid`` leads its session (None: it has ended meanwhile, its work done)."""
    try:
        return os.getsid(pid) == pid
    except ProcessLookupError:
        return None


def _commands(pids: list[int]) -> dict[int, bytes]:
    found = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                found[pid] = handle.read().replace(b"\0", b" ")
        except OSError:
            found[pid] = b"(gone)"
    return found
