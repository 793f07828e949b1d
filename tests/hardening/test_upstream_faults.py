"""Every upstream misbehaving in every way: typed errors, the right ``retryable``, nothing cached.

One table, one runner. The upstreams are the npm registry (packument and tarball), the PyPI
simple index (project page and file), a git remote over HTTP, the GitHub REST API (codefetch
with no gh on PATH), gh (a fake gh on PATH that forwards to the same faulty server, so both
transports meet the fault and the error carries both reasons) and grep.app (codesearch). The
faults are real local-server behaviours (tests/fakes/http.py): a stall past the deadline, a
body that drips past it, a connection closed mid-body, 5xx, 429 with Retry-After, a body
shorter than its Content-Length, a body over the cap, a redirect, unreadable JSON or SSE, and
the wrong content type. After each call the cache holds no entry, no alias and no debris.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from codenav import net
from codenav.errors import CodenavError
from codenav.tools import codefetch, codesearch, list_files
from tests.fakes.github import FakeGitHub, install_fake_gh
from tests.fakes.grepapp import NO_RESULTS, hit_text, result
from tests.fakes.http import FakeServer, Reply
from tests.fakes.npm import FakeNpm
from tests.fakes.pypi import FakePypi

from .support import STALL_SLACK, assert_nothing_cached

pytestmark = pytest.mark.hardening

TIMEOUT = "0.5"  # seconds, for every CODENAV_*_TIMEOUT a row sets
STALL = 3.0  # a stalled reply waits this long before its status line
BIG = 65 * 1024 * 1024  # declared size over every cap (registry documents are capped at 64 MiB)
REPO = "octo/demo"
CONTENTS = "/repos/octo/demo/contents/src/app.py"
# An ambiguous blob URL: "release" is tried as the ref first (404), then refs are listed.
SLASH_REF_URL = "https://github.com/octo/demo/blob/release/v1/src/app.py"
MATCHING_REFS = "/repos/octo/demo/git/matching-refs/heads/release"


# --- the faults -----------------------------------------------------------------------------


def _body(reply: Reply) -> bytes:
    return reply.body if isinstance(reply.body, bytes) else b"".join(reply.body)


def _drip(reply: Reply) -> Reply:
    """The healthy answer in small pieces spread over about 2 s: each read is quick, the whole is late."""
    body = _body(reply)
    step = max(1, len(body) // 40)
    pieces = [body[i:i + step] for i in range(0, len(body), step)]
    return Reply(reply.status, pieces, reply.headers, chunk_delay=2.0 / len(pieces))


FAULTS: dict[str, Callable[[Reply, str], Reply]] = {
    "stall": lambda good, other: Reply(good.status, good.body, good.headers, delay=STALL),
    "drip": lambda good, other: _drip(good),
    "reset-mid-body": lambda good, other: Reply(200, _body(good) + b" " * 20000, good.headers,
                                                length=len(_body(good)) + 20000, abort_after=64),
    "500": lambda good, other: Reply(500, b"<html>Internal Server Error</html>", {"Content-Type": "text/html"}),
    "502": lambda good, other: Reply(502, b"<html>Bad Gateway</html>", {"Content-Type": "text/html"}),
    "503": lambda good, other: Reply(503, b"Service Unavailable", {"Retry-After": "3"}),
    "504": lambda good, other: Reply(504, b"<html>504 Gateway Time-out</html>", {"Content-Type": "text/html"}),
    "429": lambda good, other: Reply(429, b"Too Many Requests", {"Retry-After": "7"}),
    "truncated": lambda good, other: Reply(200, _body(good)[:40], good.headers, length=len(_body(good)) + 5000),
    "oversized": lambda good, other: Reply(200, b"{}", good.headers, length=BIG),
    "redirect": lambda good, other: Reply(302, b"", {"Location": other}),
    "invalid-json": lambda good, other: Reply(200, b'{"versions": {"1.0.0": ', {"Content-Type": "application/json"}),
    "invalid-sse": lambda good, other: Reply(200, b"event: message\ndata: {not json at all\n\n",
                                             {"Content-Type": "text/event-stream"}),
    "wrong-content-type": lambda good, other: Reply(200, b"<!DOCTYPE html><html><body>Sign in to continue"
                                                         b"</body></html>", {"Content-Type": "text/html"}),
}

# (upstream, fault) -> (code, retryable); a row absent here is not a fault that upstream can have.
R, N = True, False
TABLE: dict[tuple[str, str], tuple[str, bool]] = {}
_HTTP_COMMON = {
    "stall": ("TIMEOUT", R), "drip": ("TIMEOUT", R), "reset-mid-body": ("NETWORK", R),
    "500": ("UPSTREAM_ERROR", R), "502": ("UPSTREAM_ERROR", R), "503": ("UPSTREAM_ERROR", R),
    "504": ("UPSTREAM_ERROR", R), "429": ("RATE_LIMITED", R), "truncated": ("NETWORK", R),
    "oversized": ("TOO_LARGE", N), "redirect": ("PROTOCOL_ERROR", N),
}
for _upstream in ("npm", "pypi", "github-api", "gh", "grep.app"):
    for _fault, _expected in _HTTP_COMMON.items():
        TABLE[(_upstream, _fault)] = _expected
    TABLE[(_upstream, "invalid-json")] = ("PROTOCOL_ERROR", N)
    TABLE[(_upstream, "wrong-content-type")] = ("PROTOCOL_ERROR", N)
for _upstream in ("npm-tarball", "pypi-file"):
    # The artifact download goes through the same status mapping as the document before it;
    # what differs is the streaming: stalls, drips, cuts, the download cap.
    for _fault in ("stall", "drip", "reset-mid-body", "503", "truncated", "oversized"):
        TABLE[(_upstream, _fault)] = _HTTP_COMMON[_fault]
    # An HTML page instead of the archive (a captive portal) cannot match the published hash.
    TABLE[(_upstream, "wrong-content-type")] = ("INTEGRITY_ERROR", N)
TABLE[("grep.app", "invalid-sse")] = ("PROTOCOL_ERROR", N)
# gh follows redirects under its own policy (GitHub redirects renamed repositories); only
# codenav's own HTTP refuses them (SPEC §8). The row pins that the fallback is not consulted.
TABLE[("gh", "redirect")] = ("OK", N)
TABLE.update({
    ("git", "stall"): ("TIMEOUT", R),
    ("git", "drip"): ("TIMEOUT", R),
    ("git", "reset-mid-body"): ("NETWORK", R),
    ("git", "500"): ("UPSTREAM_ERROR", R),
    ("git", "502"): ("UPSTREAM_ERROR", R),
    ("git", "503"): ("UPSTREAM_ERROR", R),
    ("git", "504"): ("UPSTREAM_ERROR", R),
    ("git", "429"): ("RATE_LIMITED", R),
    ("git", "truncated"): ("NETWORK", R),
    ("git", "oversized"): ("TOO_LARGE", N),
    # git follows a redirect of its first request itself (http.followRedirects=initial); here
    # it leads to a port nobody listens on.
    ("git", "redirect"): ("NETWORK", R),
    ("git", "invalid-json"): ("PROTOCOL_ERROR", N),
    # An HTML page makes git fall back to the dumb protocol, which finds no refs: that cannot be
    # told from an empty repository, so it is REF_NOT_FOUND and the message says both.
    ("git", "wrong-content-type"): ("REF_NOT_FOUND", N),
    ("git", "bogus-host"): ("NETWORK", R),
    ("git", "refused"): ("NETWORK", R),
})


def _rows() -> list:
    return [pytest.param(upstream, fault, code, retryable, id=f"{upstream}-{fault}")
            for (upstream, fault), (code, retryable) in TABLE.items()]


# --- the upstreams ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Any:
    with FakeServer() as server:
        yield server


@pytest.fixture
def fresh(server: FakeServer) -> FakeServer:
    server.routes.clear()
    server.prefix_routes.clear()
    server.seen.clear()
    return server


@pytest.fixture(autouse=True)
def no_gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PATH holds git but no gh unless a row installs the fake one (a real gh must never answer)."""
    import shutil

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    git = shutil.which("git")
    assert git is not None
    (bin_dir / "git").symlink_to(git)
    monkeypatch.setenv("PATH", str(bin_dir))


def _advertisement(tags: int = 0) -> bytes:
    """A smart-HTTP (protocol v0) ref advertisement: HEAD, main and ``tags`` tags."""
    def pkt(text: bytes) -> bytes:
        return b"%04x" % (len(text) + 4) + text

    sha = b"1" * 40
    refs = [sha + b" HEAD\0symref=HEAD:refs/heads/main\n", sha + b" refs/heads/main\n"]
    refs += [sha + b" refs/tags/t%06d\n" % i for i in range(tags)]
    return pkt(b"# service=git-upload-pack\n") + b"0000" + b"".join(pkt(r) for r in refs) + b"0000"


GIT_CT = {"Content-Type": "application/x-git-upload-pack-advertisement", "Cache-Control": "no-cache"}


def _arrange(upstream: str, fault: str, server: FakeServer, tmp_path: Path,
             monkeypatch: pytest.MonkeyPatch) -> Callable[[], Any]:
    """Put ``fault`` in place for ``upstream``; return the call that meets it."""
    other = f"http://localhost:{server.server_address[1]}/elsewhere"  # another host, plain http
    make = FAULTS.get(fault)

    if upstream in ("npm", "npm-tarball"):
        npm = FakeNpm(server)
        npm.publish("pkg", "1.0.0", {"index.js": b"module.exports = 1;\n"})
        monkeypatch.setenv("CODENAV_NPM_REGISTRY", npm.url)
        if upstream == "npm":
            good = Reply.json(npm.packument("pkg"), headers={"Content-Type": "application/vnd.npm.install-v1+json"})
            server.route("GET", "/pkg", lambda h: make(good, other))
            # The version document is asked first (sources/npm.py): the same fault meets it there.
            good_version = Reply.json(npm.packument("pkg")["versions"]["1.0.0"])
            server.route("GET", "/pkg/1.0.0", lambda h: make(good_version, other))
        else:
            tarball = npm.packages["pkg"]["1.0.0"].tarball
            good = Reply(200, tarball, {"Content-Type": "application/octet-stream"})
            if fault == "oversized":  # the download cap is configurable: exceed it for real
                monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", str(len(tarball) - 1))
                make = lambda good, other: good  # noqa: E731
            server.route("GET", "/-/pkg/pkg-1.0.0.tgz", lambda h: make(good, other))
        return lambda: list_files.run({"registry": "npm", "package_name": "pkg", "version": "1.0.0"})

    if upstream in ("pypi", "pypi-file"):
        pypi = FakePypi(server)
        data = pypi.add_wheel("demo", "1.0", {"demo/__init__.py": b"x = 1\n"})
        monkeypatch.setenv("CODENAV_PYPI_INDEX_URL", pypi.url)
        if upstream == "pypi":
            good = Reply(200, json.dumps({"meta": {"api-version": "1.1"}, "name": "demo", "files": [
                {"filename": "demo-1.0-py3-none-any.whl", "url": "../../files/demo-1.0-py3-none-any.whl",
                 "hashes": {"sha256": hashlib.sha256(data).hexdigest()}}]}).encode(),
                {"Content-Type": "application/vnd.pypi.simple.v1+json"})
            if fault == "wrong-content-type":
                # Neither JSON nor HTML: what a misconfigured index URL (a plain file server,
                # an API gateway) answers. Reading it as an empty HTML page would say "no releases".
                make = lambda good, other: Reply(200, b"demo-1.0-py3-none-any.whl\n",  # noqa: E731
                                                 {"Content-Type": "text/plain"})
            server.route("GET", "/simple/demo/", lambda h: make(good, other))
        else:
            good = Reply(200, data, {"Content-Type": "application/octet-stream"})
            if fault == "oversized":
                monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", str(len(data) - 1))
                make = lambda good, other: good  # noqa: E731
            server.route("GET", "/files/demo-1.0-py3-none-any.whl", lambda h: make(good, other))
        return lambda: list_files.run({"registry": "pypi", "package_name": "demo", "version": "1.0"})

    if upstream == "git":
        if fault == "bogus-host":
            return lambda: list_files.run({"repo_url": "http://no-such-host.invalid/repo.git"})
        if fault == "refused":
            return lambda: list_files.run({"repo_url": f"http://127.0.0.1:{_dead_port()}/repo.git"})
        good = Reply(200, _advertisement(), GIT_CT)
        if fault == "redirect":
            make = lambda good, other: Reply(302, b"", {"Location": f"http://127.0.0.1:{_dead_port()}/r"})  # noqa: E731
        elif fault == "invalid-json":  # git's wire is pkt-lines: garbage where a length belongs
            make = lambda good, other: Reply(200, b'{"not": "a ref advertisement"}', GIT_CT)  # noqa: E731
        elif fault == "oversized":
            # A ref listing over git.REFS_CAP (64 MiB; 4 KiB here, the resolution runs in this
            # process) is refused while git prints it, never buffered without end.
            from codenav.remotes import git

            monkeypatch.setattr(git, "REFS_CAP", 4096)
            big = _advertisement(tags=200)
            make = lambda good, other: Reply(200, big, GIT_CT)  # noqa: E731
            server.route_prefix("GET", "/repo.git/", lambda h: make(good, other))
            # A branch is looked up among all heads and tags (HEAD alone would print one line).
            return lambda: list_files.run({"repo_url": f"{server.url}/repo.git", "git_ref": "main"})
        server.route_prefix("GET", "/repo.git/", lambda h: make(good, other))
        return lambda: list_files.run({"repo_url": f"{server.url}/repo.git"})

    if upstream in ("github-api", "gh"):
        github = FakeGitHub(server)
        github.add_file(REPO, "src/app.py", b"print('hi')\n")
        github.add_file(REPO, "moved.py", b"moved\n")
        monkeypatch.setenv("CODENAV_GITHUB_API_URL", server.url)
        if upstream == "gh":
            install_fake_gh(tmp_path / "bin")
            monkeypatch.setenv("FAKE_GH_API", server.url)
        good = Reply(200, b"print('hi')\n", {"Content-Type": "text/plain; charset=utf-8"})
        if fault == "oversized":
            # A real body over the 2 MiB cap: gh has no Content-Length to go by.
            make = lambda good, other: Reply(200, b"y" * (net.API_CAP + 1024), good.headers)  # noqa: E731
        if fault == "redirect":
            other = f"http://localhost:{server.server_address[1]}/repos/octo/demo/contents/moved.py"
        if fault in ("invalid-json", "wrong-content-type"):
            # Only the JSON endpoints can be unreadable: the contents endpoint answers raw bytes.
            server.route("GET", MATCHING_REFS, lambda h: make(good, other))
            return lambda: codefetch.run({"url": SLASH_REF_URL})
        server.route("GET", CONTENTS, lambda h: make(good, other))
        return lambda: codefetch.run({"repo": REPO, "path": "src/app.py"})

    assert upstream == "grep.app"
    monkeypatch.setenv("CODENAV_GREP_APP_URL", server.url + "/")
    good = Reply.json(result([hit_text("a/b", "x.py", [(1, ["x = 1"])])]))
    if fault == "invalid-json":
        make = lambda good, other: Reply(200, b'{"jsonrpc": "2.0", "id": 1, "result": {"content": [',  # noqa: E731
                                         {"Content-Type": "application/json"})
    elif fault == "oversized":
        make = lambda good, other: Reply.json(result([NO_RESULTS + " " * (net.API_CAP + 10)]))  # noqa: E731
    server.route("POST", "/", lambda h: make(good, other))
    return lambda: codesearch.run({"query": "x = 1"})


def _dead_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again at once: connecting is refused


TIMEOUT_VARIABLES = ("CODENAV_REGISTRY_TIMEOUT", "CODENAV_DOWNLOAD_TIMEOUT", "CODENAV_GIT_TIMEOUT",
                     "CODENAV_GITHUB_TIMEOUT", "CODENAV_GH_TIMEOUT", "CODENAV_GREP_APP_TIMEOUT")


@pytest.mark.parametrize(("upstream", "fault", "code", "retryable"), _rows())
def test_upstream_fault_is_a_typed_error_and_nothing_is_cached(
    upstream: str, fault: str, code: str, retryable: bool, fresh: FakeServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each upstream fault becomes its specified code and retryable flag, promptly, and leaves no
    entry, alias or debris in the cache."""
    for variable in TIMEOUT_VARIABLES:
        monkeypatch.setenv(variable, TIMEOUT)
    call = _arrange(upstream, fault, fresh, tmp_path, monkeypatch)
    started = time.monotonic()
    try:
        outcome: Any = call()
    except CodenavError as exc:
        outcome = exc
    elapsed = time.monotonic() - started

    if code == "OK":
        assert not isinstance(outcome, CodenavError), outcome.message
        assert outcome["content"] == "moved\n"
    else:
        assert isinstance(outcome, CodenavError), f"expected {code}, got a result"
        assert (outcome.code, outcome.retryable) == (code, retryable), outcome.message
        # One line, no traceback frames, no Python reprs, no local paths (SPEC §4).
        message = outcome.to_envelope()["error"]["message"]
        assert "\n" not in message and 'File "' not in message and str(tmp_path) not in message, message
        assert "IncompleteRead" not in message and "Error(" not in message, message
        if fault in ("429", "503") and upstream != "git":
            # Retry-After reaches the caller (SPEC §4 details): 7 s on the 429, 3 s on the 503.
            assert outcome.details["retryAfterSeconds"] == (7 if fault == "429" else 3)
        if upstream == "gh" and code not in ("TOO_LARGE", "PROTOCOL_ERROR"):
            # gh failed as a transport, so the API was asked too: both reasons are given.
            assert outcome.message.startswith("gh: ") and "; GitHub API: " in outcome.message
        if upstream == "git" and fault == "wrong-content-type":
            assert "not a git repository" in outcome.message
    if fault in ("stall", "drip"):
        # Deadlines cover the whole exchange (SPEC §8): a stall or a drip ends near the timeout,
        # not when the server gives up. gh and the API fallback each have their own deadline.
        budget = float(TIMEOUT) * (2 if upstream == "gh" else 1) + STALL_SLACK
        assert elapsed < budget, f"took {elapsed:.1f} s"
    assert_nothing_cached(tmp_path / "cache")
    if upstream in ("npm", "npm-tarball", "pypi", "pypi-file"):
        # The failure is recorded for the waiting caller, and nothing else is left.
        assert len(list((tmp_path / "cache" / "jobs").iterdir())) == 1
    else:
        assert not (tmp_path / "cache" / "entries").exists()


def test_a_git_tree_larger_than_the_archive_limits_is_stopped_while_it_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """git archive's tar is read against a cap derived from the archive limits: a tree that could
    never be accepted is TOO_LARGE before it fills the disk, and nothing is cached."""
    import subprocess

    repo = tmp_path / "big-repo"
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    (repo / "blob.bin").write_bytes(os.urandom(300_000))
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", "big"], check=True, env=env)
    monkeypatch.setenv("CODENAV_MAX_EXTRACTED_BYTES", "50000")
    monkeypatch.setenv("CODENAV_MAX_FILES", "10")  # cap: 50000 + 10 * 4096 bytes of tar
    with pytest.raises(CodenavError) as info:
        list_files.run({"repo_url": str(repo)})
    assert (info.value.code, info.value.retryable) == ("TOO_LARGE", False)
    assert info.value.message.startswith("git could not archive") and str(tmp_path) not in info.value.message
    assert_nothing_cached(tmp_path / "cache")
