"""Every upstream that is not a package registry misbehaving in every way: typed errors, the
right ``retryable``, nothing cached (the registries' faults: test_registry_faults.py).

One table, one runner. The upstreams are a git remote over HTTP, the GitHub REST API (codefetch
with no gh on PATH), gh (a fake gh on PATH that forwards to the same faulty server, so both
transports meet the fault and the error carries both reasons) and grep.app (codesearch). The
faults are tests/support/faults.py's, real local-server behaviours: a stall past the deadline, a
body that drips past it, a connection closed mid-body, 5xx, 429 with Retry-After, a body
shorter than its Content-Length, a body over the cap, a redirect, unreadable JSON or SSE, and
the wrong content type. After each call the cache holds no entry, no alias and no debris.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from codenav import net
from codenav.errors import CodenavError
from codenav.tools import codefetch, codesearch, list_files
from tests.fakes.github import FakeGitHub, install_fake_gh
from tests.fakes.grepapp import NO_RESULTS, hit_text, result
from tests.fakes.http import FakeServer, Reply
from tests.support.cache import assert_nothing_cached
from tests.support.faults import (
    DOCUMENT,
    FAULTS,
    TIMEOUT,
    N,
    R,
    assert_fault_outcome,
    other_host,
    set_timeouts,
)

pytestmark = pytest.mark.hardening

REPO = "octo/demo"
CONTENTS = "/repos/octo/demo/contents/src/app.py"
# An ambiguous blob URL: "release" is tried as the ref first (404), then refs are listed.
SLASH_REF_URL = "https://github.com/octo/demo/blob/release/v1/src/app.py"
MATCHING_REFS = "/repos/octo/demo/git/matching-refs/heads/release"


# (upstream, fault) -> (code, retryable); a row absent here is not a fault that upstream can have.
TABLE: dict[tuple[str, str], tuple[str, bool]] = {}
for _upstream in ("github-api", "gh", "grep.app"):
    TABLE.update({(_upstream, fault): expected for fault, expected in DOCUMENT.items()})
TABLE[("grep.app", "invalid-sse")] = ("PROTOCOL_ERROR", N)
# gh follows redirects under its own policy (GitHub redirects renamed repositories); only
# codenav's own HTTP refuses them (SPEC §8). The row pins that the fallback is not consulted.
TABLE[("gh", "redirect")] = ("OK", N)
TABLE.update({("git", fault): expected for fault, expected in {
    **DOCUMENT,
    # git follows a redirect of its first request itself (http.followRedirects=initial); here
    # it leads to a port nobody listens on.
    "redirect": ("NETWORK", R),
    # An HTML page makes git fall back to the dumb protocol, which finds no refs: that cannot be
    # told from an empty repository, so it is REF_NOT_FOUND and the message says both.
    "wrong-content-type": ("REF_NOT_FOUND", N),
    "bogus-host": ("NETWORK", R),
    "refused": ("NETWORK", R),
}.items()})


def _rows() -> list:
    return [pytest.param(upstream, fault, code, retryable, id=f"{upstream}-{fault}")
            for (upstream, fault), (code, retryable) in TABLE.items()]


# --- the upstreams ----------------------------------------------------------------------------


@pytest.fixture
def fresh() -> Iterator[FakeServer]:
    with FakeServer() as server:
        yield server


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
    other = other_host(server)  # another host, plain http
    make = FAULTS.get(fault)

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


@pytest.mark.parametrize(("upstream", "fault", "code", "retryable"), _rows())
def test_upstream_fault_is_a_typed_error_and_nothing_is_cached(
    upstream: str, fault: str, code: str, retryable: bool, fresh: FakeServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each upstream fault becomes its specified code and retryable flag, promptly, and leaves no
    entry, alias or debris in the cache."""
    set_timeouts(monkeypatch)
    call = _arrange(upstream, fault, fresh, tmp_path, monkeypatch)
    if code == "OK":
        assert call()["content"] == "moved\n"
        assert_nothing_cached(tmp_path / "cache")
        return
    # gh and the API fallback each have their own deadline.
    outcome = assert_fault_outcome(call, fault, code, retryable, tmp_path,
                                   budget=float(TIMEOUT) * (2 if upstream == "gh" else 1))
    if fault in ("429", "503") and upstream != "git":
        # Retry-After reaches the caller (SPEC §4 details): 7 s on the 429, 3 s on the 503.
        assert outcome.details["retryAfterSeconds"] == (7 if fault == "429" else 3)
    if upstream == "gh" and code not in ("TOO_LARGE", "PROTOCOL_ERROR"):
        # gh failed as a transport, so the API was asked too: both reasons are given.
        assert outcome.message.startswith("gh: ") and "; GitHub API: " in outcome.message
    if upstream == "git" and fault == "wrong-content-type":
        assert "not a git repository" in outcome.message
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
