"""No process outlives codenav (issue 27, SPEC §8): however the MCP server or the CLI ends, the
programs, indexers and workers it started end with it, and no cache entry is left half-written.

Each case starts codenav as a host does — a subprocess given only HOME, PATH, the cache dir and
the upstream it needs — runs a call whose child hangs, ends codenav one way, and walks /proc:
within 10 s no process whose command line or environment names the case's port or cache dir
may be left. The late-sidecar indexer, bounded and without a socket, is the one designed
exception; it is tested on its own at the end. The hangs:

- ``git``: a silent git remote (``git://`` to a listener that accepts and never answers);
- ``git-http``: the same over HTTP, where git's own helper (git-remote-http) is a grandchild;
- ``indexer``: a registry whose tarball stalls after its first bytes (the detached indexer);
- ``regex``: a catastrophic regex in the MCP server's search worker (60 s of budget).

The ways of ending one kind of hang run side by side, one codenav each, to keep the module fast.
"""

from __future__ import annotations

import json
import os
import random
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from codenav.cache.indexer import HARD_STOP, PUBLISH_GRACE
from codenav.tools import list_files
from tests.fakes.archives import make_tgz
from tests.fakes.http import FakeServer, Reply
from tests.fakes.npm import FakeNpm
from tests.support.cache import cache_report, check_entry
from tests.support.cli import ROOT, run_cli, settle
from tests.support.processes import Marks, processes

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self") or shutil.which("git") is None,
                                reason="walks /proc; runs git")

GONE_WITHIN = 10.0  # seconds from the end of codenav to the end of everything it started
READY_WITHIN = 60.0  # seconds for a hang to set in (server start-up on a loaded machine included)
SERVER_WAYS = {  # how the server is ended -> the exit status it must report
    "stdin EOF": 0, "SIGTERM": 128 + signal.SIGTERM, "SIGINT": 128 + signal.SIGINT,
    "SIGHUP": 128 + signal.SIGHUP, "stdout closed": 0, "SIGKILL": -signal.SIGKILL,
}
CLI_WAYS = {"SIGINT": 128 + signal.SIGINT, "SIGTERM": 128 + signal.SIGTERM, "SIGKILL": -signal.SIGKILL}
STUCK_LINE = b"a" * 60 + b"b\n"  # (a+)+$ backtracks on it for far longer than any test


# --- what codenav left behind ----------------------------------------------------------------------

def indexers(marks: Marks, *, forks_only: bool = False) -> list[int]:
    """The indexers among the case's processes: the server's ``python -m codenav.cache.indexer``,
    or the CLI's fork of itself (cache/forked.py), known by its command line, its parent's."""
    found = processes(marks)
    lines = dict(found)
    return [pid for pid, line in found if lines.get(_parent(pid)) == line
            or (not forks_only and "codenav.cache.indexer" in line)]


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return int(handle.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def wait_until(condition: Callable[[], object], seconds: float, what: str) -> object:
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {seconds:g} s")
        time.sleep(0.01)


def assert_all_gone(marks: Marks, since: float, late_allowed: bool = False, within: float = GONE_WITHIN) -> None:
    """Within ``within`` seconds of ``since`` no process of the case is left (but a late-sidecar
    indexer, when allowed)."""
    while True:
        left = [(pid, line) for pid, line in processes(marks) if not (late_allowed and " --late " in line)]
        if not left:
            return
        if time.monotonic() - since > within:
            raise AssertionError(f"still running {within:g} s after codenav ended: {left}")
        time.sleep(0.05)


def assert_cache_whole(cache: Path, entries: int | None = None) -> None:
    """Every entry under ``cache`` is whole, none is half-built, no build or temp file is left
    (and there are ``entries`` entries, when given)."""
    report = cache_report(cache)
    assert (report.half_built, report.alias_temps, report.debris) == ([], [], []), report
    assert entries is None or len(report.entries) == entries, report
    for key in report.entries:
        check_entry(cache / "entries" / key)
        assert not [p.name for p in (cache / "entries" / key).glob(".*.tmp")], key


# --- hangs -----------------------------------------------------------------------------------------

class SilentListener:
    """A TCP listener on 127.0.0.1 that accepts every connection and never says a word."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = threading.Event()
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)
            self.accepted.set()

    def close(self) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


@dataclass
class Hang:
    """One call whose child hangs: the tool call, the environment it needs, when it has set in."""

    tool: str
    arguments: dict
    marks: Marks
    env: dict[str, str] = field(default_factory=dict)
    ready: Callable[[], bool] = lambda: True
    cli: list[str] = field(default_factory=list)
    entries: int | None = None  # entries the cache must hold afterwards (None: any number)


def git_hang(base: Path, scheme: str, stack: list[Callable[[], None]]) -> Hang:
    listener = SilentListener()
    stack.append(listener.close)
    url = f"{scheme}://127.0.0.1:{listener.port}/x.git"
    marks = Marks(base / "cache", listener.port)
    # git:// is one git process; http:// adds git-remote-http, a grandchild of codenav.
    wanted = 1 if scheme == "git" else 2
    return Hang("list_files", {"repo_url": url, "wait_timeout_ms": 60000}, marks,
                ready=lambda: listener.accepted.is_set() and len(processes(Marks(Path("/nonexistent"), listener.port))) >= wanted,
                cli=["files", "--repo-url", url, "--wait", "60000"])


def stalled(npm: FakeNpm, name: str) -> threading.Event:
    """Publish ``name``@1.0.0, whose tarball sends its first bytes and then nothing for a minute;
    the event is set once it is asked for."""
    tarball = make_tgz({"src/index.js": b"export const x = 1;\n", "data.bin": random.Random(7).randbytes(64 * 1024)})
    assert len(tarball) > 32 * 1024  # the stall below comes long before its end
    npm.publish(name, "1.0.0", {}, tarball=tarball)
    asked = threading.Event()

    def stall(handler: object) -> Reply:
        asked.set()
        return Reply(200, [tarball[:1000], tarball[1000:]], {"Content-Type": "application/octet-stream"},
                     chunk_delay=60)

    npm.server.route("GET", f"/-/{name}/{name}-1.0.0.tgz", stall)
    return asked


def many_hang(base: Path, npm: FakeNpm, prefix: str) -> Hang:
    """A search over two packages whose downloads stall, fetched side by side by forked indexers
    (the CLI's own forks, or the MCP server's helper's: cache/many.py)."""
    names = [f"{prefix}-a", f"{prefix}-b"]
    asked = [stalled(npm, name) for name in names]
    marks = Marks(base / "cache")

    def ready() -> bool:
        return all(event.is_set() for event in asked) and len(indexers(marks, forks_only=True)) >= 2

    specs = [f"npm:{name}@1.0.0" for name in names]
    return Hang("grep_repo", {"targets": specs, "pattern": "x", "wait_timeout_ms": 60000}, marks,
                env={"CODENAV_NPM_REGISTRY": npm.url}, ready=ready,
                cli=["grep", *[f"--target={spec}" for spec in specs], "x", "--wait", "60000"], entries=0)


def indexer_hang(base: Path, npm: FakeNpm, name: str) -> Hang:
    """A package whose tarball sends its first bytes and then nothing for a minute."""
    asked = stalled(npm, name)
    marks = Marks(base / "cache")

    def ready() -> bool:  # asked, and the indexer is the one reading it
        return asked.is_set() and bool(indexers(marks))

    return Hang("list_files", {"registry": "npm", "package_name": name, "version": "1.0.0", "wait_timeout_ms": 60000},
                marks, env={"CODENAV_NPM_REGISTRY": npm.url}, ready=ready,
                cli=["files", f"npm:{name}@1.0.0", "--wait", "60000"], entries=0)


def regex_hang(base: Path, npm: FakeNpm, template: Path, *, worker: bool = True) -> Hang:
    """A catastrophic regex over a package already in the cache (a copy of ``template``)."""
    shutil.copytree(template, base / "cache")
    marks = Marks(base / "cache")

    def ready() -> bool:
        found = [pid for pid, line in processes(marks) if "codenav.search.grep_worker" in line]
        return bool(found) and _busy(found[0])

    return Hang("grep_repo", {"registry": "npm", "package_name": "stuck", "version": "1.0.0", "pattern": "(a+)+$",
                              "regex": True}, marks,
                env={"CODENAV_NPM_REGISTRY": npm.url, "CODENAV_SEARCH_TIMEOUT": "60"},
                ready=ready if worker else lambda: True,
                cli=["grep", "npm:stuck@1.0.0", "(a+)+$", "--regex"])


def _busy(pid: int) -> bool:
    """The process has used some CPU: the regex is running in it."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
    except OSError:
        return False
    return int(fields[11]) + int(fields[12]) > 30  # utime + stime, in clock ticks (0.3 s)


@pytest.fixture
def npm_upstream() -> Iterator[FakeNpm]:
    with FakeServer() as server:
        yield FakeNpm(server)


@pytest.fixture
def template(npm_upstream: FakeNpm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache holding npm:stuck@1.0.0, indexed through ``npm_upstream``, its indexer finished."""
    npm_upstream.publish("stuck", "1.0.0", {"a_first.txt": b"aaaa\nplain\n", "z_stuck.txt": STUCK_LINE})
    cache = tmp_path / "template"
    monkeypatch.setenv("CODENAV_CACHE_DIR", str(cache))
    monkeypatch.setenv("CODENAV_NPM_REGISTRY", npm_upstream.url)
    list_files.run({"registry": "npm", "package_name": "stuck", "version": "1.0.0"})
    settle(cache)
    return cache


# --- codenav as a host starts it -------------------------------------------------------------------

def host_env(base: Path, extra: dict[str, str]) -> dict[str, str]:
    """HOME, PATH and the cache dir, as a host gives them (plus where codenav's code is, and the
    upstream the case needs)."""
    (base / "home").mkdir(parents=True, exist_ok=True)
    return {"HOME": str(base / "home"), "PATH": os.environ["PATH"], "CODENAV_CACHE_DIR": str(base / "cache"),
            "PYTHONPATH": str(ROOT), **extra}


def read_frame(fd: int, seconds: float) -> dict:
    data = b""
    deadline = time.monotonic() + seconds
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise AssertionError(f"no frame from the server within {seconds:g} s (got {data!r})")
        chunk = os.read(fd, 65536)
        if not chunk:
            raise AssertionError(f"the server closed stdout (got {data!r})")
        data += chunk
    return json.loads(data.split(b"\n", 1)[0])


def end_server(server: subprocess.Popen[bytes], way: str) -> None:
    assert server.stdin is not None and server.stdout is not None
    if way == "stdin EOF":
        server.stdin.close()
    elif way == "stdout closed":
        server.stdout.close()
    else:
        server.send_signal(getattr(signal, way))


def run_server_case(base: Path, hang: Hang, way: str) -> None:
    """Start the server, hang a call, end it ``way``; then nothing of it may be left."""
    with open(base / "stderr", "wb") as stderr:
        server = subprocess.Popen([sys.executable, "-m", "codenav", "mcp"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=stderr, env=host_env(base, hang.env), cwd=base)

    def call() -> None:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
            .encode() + b"\n")
        server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": hang.tool, "arguments": hang.arguments}}).encode() + b"\n")
        server.stdin.flush()
        assert read_frame(server.stdout.fileno(), READY_WITHIN)["id"] == 0

    end_and_check(server, base, hang, way, SERVER_WAYS[way], call, lambda: end_server(server, way))


def run_cli_case(base: Path, hang: Hang, way: str) -> None:
    """Run the CLI on the hang, interrupt it ``way``; then nothing of it may be left."""
    with open(base / "stderr", "wb") as stderr:
        cli = subprocess.Popen([sys.executable, "-m", "codenav", *hang.cli], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=stderr, env=host_env(base, hang.env), cwd=base,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    end_and_check(cli, base, hang, way, CLI_WAYS[way], lambda: None, lambda: cli.send_signal(getattr(signal, way)))


def end_and_check(child: subprocess.Popen[bytes], base: Path, hang: Hang, way: str, status: int,
                  start: Callable[[], None], end: Callable[[], None]) -> None:
    """``start()`` the call; once the hang has set in, ``end()`` codenav: it must exit with
    ``status`` and no traceback, leave no process after GONE_WITHIN seconds, the cache whole."""
    try:
        start()
        wait_until(hang.ready, READY_WITHIN, f"{way}: the hang set in")
        ended = time.monotonic()
        end()
        code = child.wait(GONE_WITHIN)
        stderr = (base / "stderr").read_bytes()
        assert code == status and b"Traceback" not in stderr, (way, code, stderr[-2000:])
        assert_all_gone(hang.marks, ended)
        assert_cache_whole(hang.marks.cache, hang.entries)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def side_by_side(cases: dict[str, Callable[[], None]]) -> None:
    """Run the cases at once; fail with every case's failure."""
    with ThreadPoolExecutor(len(cases)) as pool:
        futures = {name: pool.submit(case) for name, case in cases.items()}
    failures = [f"{name}: {type(error).__name__}: {error}" for name, future in futures.items()
                if (error := future.exception()) is not None]
    if failures:
        pytest.fail("\n".join(failures), pytrace=False)


@pytest.fixture
def cleanup() -> Iterator[list[Callable[[], None]]]:
    stack: list[Callable[[], None]] = []
    yield stack
    for action in reversed(stack):
        action()


def make_hang(kind: str, base: Path, npm: FakeNpm, request: pytest.FixtureRequest,
              stack: list[Callable[[], None]], *, worker: bool = True) -> Hang:
    base.mkdir(parents=True)
    if kind in ("git", "git-http"):
        return git_hang(base, "git" if kind == "git" else "http", stack)
    if kind == "indexer":
        return indexer_hang(base, npm, f"stall-{base.name}")
    if kind == "many":
        return many_hang(base, npm, f"many-{base.name}")
    return regex_hang(base, npm, request.getfixturevalue("template"), worker=worker)


# --- the server ------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["git", "git-http", "indexer", "many", "regex"])
def test_nothing_the_server_started_outlives_it_however_it_ends(
        kind: str, tmp_path: Path, npm_upstream: FakeNpm, request: pytest.FixtureRequest,
        cleanup: list[Callable[[], None]]) -> None:
    """A call hangs on a child (silent git remote, stalled download, catastrophic regex); the
    server is ended by stdin EOF, SIGTERM, SIGINT, SIGHUP, a closed stdout or SIGKILL: it exits
    with the status of that way, and within 10 s nothing it started is left, the cache whole."""
    hangs = {way: make_hang(kind, tmp_path / f"s{n}", npm_upstream, request, cleanup)
             for n, way in enumerate(SERVER_WAYS)}
    side_by_side({way: (lambda way=way, n=n: run_server_case(tmp_path / f"s{n}", hangs[way], way))
                  for n, way in enumerate(SERVER_WAYS)})


def test_a_cancelled_call_ends_the_program_it_runs(tmp_path: Path, cleanup: list[Callable[[], None]]) -> None:
    """notifications/cancelled for a call waiting on a silent git remote kills that git at once
    (not at its 30 s deadline); the call is never answered and the server goes on."""
    hang = git_hang(tmp_path, "git", cleanup)
    server = subprocess.Popen([sys.executable, "-m", "codenav", "mcp"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=host_env(tmp_path, {}))
    assert server.stdin is not None and server.stdout is not None

    def send(message: dict) -> None:
        server.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        server.stdin.flush()

    try:
        send({"id": 1, "method": "tools/call", "params": {"name": hang.tool, "arguments": hang.arguments}})
        wait_until(hang.ready, READY_WITHIN, "git started")
        cancelled = time.monotonic()
        send({"method": "notifications/cancelled", "params": {"requestId": 1}})
        wait_until(lambda: not processes(Marks(Path("/nonexistent"), hang.marks.port)), GONE_WITHIN, "git ended")
        assert time.monotonic() - cancelled < 5
        send({"id": 2, "method": "ping"})
        assert read_frame(server.stdout.fileno(), 10) == {"jsonrpc": "2.0", "id": 2, "result": {}}
        server.stdin.close()
        assert server.wait(10) == 0
        assert server.stdout.read() == b""  # the cancelled call got no answer
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


@pytest.mark.parametrize("codenav", ["server", "cli"])
def test_an_indexer_cut_loose_after_its_download_finishes_publishing_whole(
        codenav: str, tmp_path: Path, npm_upstream: FakeNpm) -> None:
    """The server — or the CLI, whose indexer is a fork of itself — is killed (SIGKILL) once the
    indexer's download is complete: the indexer, left with local work only (extraction,
    publication), still publishes the entry — whole — and ends."""
    files = {f"src/m{i:04d}.js": f"export const m{i} = {i};\n".encode() for i in range(1000)}
    tarball = make_tgz(files)
    npm_upstream.publish("many", "1.0.0", {}, tarball=tarball)
    env = host_env(tmp_path, {"CODENAV_NPM_REGISTRY": npm_upstream.url})
    cache = tmp_path / "cache"
    if codenav == "server":
        process = subprocess.Popen([sys.executable, "-m", "codenav", "mcp"], stdin=subprocess.PIPE,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        assert process.stdin is not None
        process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "list_files", "arguments": {"registry": "npm", "package_name": "many", "version": "1.0.0"}}})
            .encode() + b"\n")
        process.stdin.flush()
    else:
        process = subprocess.Popen([sys.executable, "-m", "codenav", "files", "npm:many@1.0.0"],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   env=env)
    try:
        # The build's tree is made once the download is complete and verified: extraction has begun.
        wait_until(lambda: list(cache.glob("tmp/*/entry/tree")), READY_WITHIN, "the extraction began")
        assert codenav == "server" or indexers(Marks(cache), forks_only=True)
        process.kill()
        killed = time.monotonic()
        process.wait()
        assert cache_report(cache).entries == []  # not published yet when codenav died
        assert_all_gone(Marks(cache), killed, within=PUBLISH_GRACE + HARD_STOP)  # its bound
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    report = cache_report(cache)
    assert len(report.entries) == 1, report
    assert sorted(row[0] for row in check_entry(cache / "entries" / report.entries[0])["files"]) == sorted(files)
    assert_cache_whole(cache, 1)


# --- the CLI ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["git", "indexer", "many", "regex"])
def test_nothing_the_cli_started_outlives_it_when_interrupted(
        kind: str, tmp_path: Path, npm_upstream: FakeNpm, request: pytest.FixtureRequest,
        cleanup: list[Callable[[], None]]) -> None:
    """The CLI on the same hangs (its regex runs in its own process, its indexer is a fork of
    itself), interrupted with SIGINT or SIGTERM — or killed: it exits 130 / 143, and within 10 s
    nothing it started is left."""
    hangs = {way: make_hang(kind, tmp_path / f"c{n}", npm_upstream, request, cleanup, worker=False)
             for n, way in enumerate(CLI_WAYS)}
    if kind == "indexer":  # the CLI forks itself into its indexer (cache/forked.py): the hang is the fork's
        for hang in hangs.values():
            hang.ready = (lambda ready=hang.ready, marks=hang.marks: ready() and bool(indexers(marks, forks_only=True)))
    if kind == "regex":  # no child: the CLI itself must stop, not wait out the regex's budget
        for hang in hangs.values():
            hang.ready = (lambda marks=hang.marks: any(_busy(pid) for pid, line in processes(marks)
                                                       if "codenav" in line))
    side_by_side({way: (lambda way=way, n=n: run_cli_case(tmp_path / f"c{n}", hangs[way], way))
                  for n, way in enumerate(CLI_WAYS)})


def test_a_cli_that_answered_indexing_lets_its_indexer_finish_alone(npm: FakeNpm) -> None:
    """`--wait 0` answers INDEXING and exits; the indexer it started is released, not stopped:
    it finishes (the retry finds the entry) and then ends."""
    tarball = make_tgz({"index.js": b"module.exports = 1;\n", "data.bin": random.Random(3).randbytes(32 * 1024)})
    npm.publish("slow", "1.0.0", {}, tarball=tarball)
    pieces = [tarball[i:i + 4096] for i in range(0, len(tarball), 4096)]
    npm.server.route("GET", "/-/slow/slow-1.0.0.tgz",
                     lambda handler: Reply(200, pieces, {"Content-Type": "application/octet-stream"}, chunk_delay=0.1))
    answered = run_cli("files", "npm:slow@1.0.0", "--wait", "0")
    assert answered.returncode == 1 and b"still indexing" in answered.stderr, answered
    ended = time.monotonic()
    cache = Path(os.environ["CODENAV_CACHE_DIR"])
    wait_until(lambda: cache_report(cache).entries, 30, "the released indexer published the entry")
    assert_all_gone(Marks(cache), ended, late_allowed=True)
    settle(cache)
    assert_cache_whole(cache, 1)
    assert run_cli("files", "npm:slow@1.0.0", "--wait", "0").stdout == b"data.bin\nindex.js\n"


def test_the_file_writing_helper_ends_when_the_indexer_is_killed(tmp_path: Path) -> None:
    """The helper that creates an extraction's small files (archive/filewriter.py) reads the end
    of its stdin as its parent's death: SIGKILL to the parent alone ends it too."""
    root = tmp_path / "root"
    root.mkdir()
    script = ("import sys, time\nfrom codenav.archive.filewriter import Writer\n"
              "print(Writer(sys.argv[1], False).process.pid, flush=True)\ntime.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, "-c", script, str(root)], stdout=subprocess.PIPE,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert parent.stdout is not None
        writer = int(parent.stdout.readline())
        assert sorted(pid for pid, _ in processes(Marks(root))) == sorted([parent.pid, writer])
        parent.kill()
        killed = time.monotonic()
        parent.wait()
        assert_all_gone(Marks(root), killed)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_a_program_that_leaves_its_group_still_ends_with_codenav(tmp_path: Path) -> None:
    """A program codenav runs starts a helper in a session of its own (out of reach of the group
    kill); when codenav is killed with SIGKILL the guardian still ends both: the helper carries
    the guardian's mark in its environment."""
    mark = tmp_path / "mark"
    helper = [sys.executable, "-c", "import time; time.sleep(60)", str(mark)]  # the mark only names it
    program = f"import subprocess, time\nsubprocess.Popen({helper!r}, start_new_session=True)\ntime.sleep(60)\n"
    script = ("import sys\nfrom codenav import proc\n"
              "child = proc.spawn([sys.executable, '-c', sys.argv[1]])\nprint(child.pid, flush=True)\n"
              "import time; time.sleep(60)\n")
    codenav = subprocess.Popen([sys.executable, "-c", script, program], stdout=subprocess.PIPE,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert codenav.stdout is not None
        child = int(codenav.stdout.readline())
        escaped = wait_until(lambda: [pid for pid, line in processes(Marks(mark)) if line == " ".join(helper)],
                             READY_WITHIN, "the helper started")
        assert os.getsid(escaped[0]) != os.getsid(child)  # out of the group codenav listed
        codenav.kill()
        killed = time.monotonic()
        codenav.wait()
        assert_all_gone(Marks(mark), killed)
        wait_until(lambda: not os.path.exists(f"/proc/{child}/cmdline") or not Path(f"/proc/{child}/cmdline")
                   .read_bytes(), GONE_WITHIN, "the program ended")
    finally:
        if codenav.poll() is None:
            codenav.kill()
            codenav.wait()


# --- the late sidecars: the one designed exception ---------------------------------------------

def test_the_late_sidecar_indexer_holds_no_socket_keeps_the_lock_and_stops_at_its_bound(npm: FakeNpm) -> None:
    """After the CLI's answer the indexer derives the symbol index as ``--late``: a fresh process
    with no socket, holding the request's lock; at CODENAV_SIDECAR_TIMEOUT it is stopped and
    removes its half-written sidecar, leaving the entry whole (a tool derives the index later)."""
    body = "".join(f"export function f{i}(a, b) {{ return a + b; }}\nexport class C{i} {{ m() {{ return 1; }} }}\n"
                   for i in range(400))
    npm.publish("symbolic", "1.0.0", {f"src/m{i:03d}.js": body.encode() for i in range(200)})
    cache = Path(os.environ["CODENAV_CACHE_DIR"])
    answered = run_cli("files", "npm:symbolic@1.0.0", env={"CODENAV_SIDECAR_TIMEOUT": "1"})
    assert answered.returncode == 0, answered.stderr
    late = wait_until(lambda: [pid for pid, line in processes(Marks(cache)) if " --late " in line], 10,
                      "the late phase started")
    started = time.monotonic()
    sockets = []
    for fd in os.listdir(f"/proc/{late[0]}/fd"):
        try:
            sockets += [fd] if os.readlink(f"/proc/{late[0]}/fd/{fd}").startswith("socket:") else []
        except OSError:
            pass
    assert sockets == []
    from codenav.cache.open import is_locked

    assert [is_locked(str(lock)) for lock in (cache / "locks").glob("*.lock")] == [True]
    assert_all_gone(Marks(cache), started)
    assert time.monotonic() - started < 1 + 5  # its bound, plus the backstop's margin at most
    entry = cache / "entries" / cache_report(cache).entries[0]
    assert not (entry / "symbols.tsv").exists()  # 1 s was not enough for 80,000 symbols
    assert_cache_whole(cache, 1)
    assert [is_locked(str(lock)) for lock in (cache / "locks").glob("*.lock")] == [False]
