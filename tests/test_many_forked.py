"""A cold search over many targets (cache/many.py): the indexers are forks — of the CLI command, or
of one helper process the MCP server starts — side by side within CODENAV_FETCH_CONCURRENCY, each
publishing a whole entry; a failure is the indexer's own (no second try); one late process,
holding every entry's lock, derives the late sidecars; both surfaces give the same answer."""

from __future__ import annotations

import fcntl
import json
import threading
import time
from pathlib import Path

import pytest

from codenav.cache.indexing import LATE_SIDECARS
from tests.fakes.http import FakeServer
from tests.fakes.npm import FakeNpm
from tests.support.cli import isolated_subprocess_env, run_cli
from tests.support.mcp import McpSession
from tests.support.processes import Marks, processes

NAMES = [f"p{i}" for i in range(5)]
MISSING = "npm:absent@1.0.0"


def _processes(cache: Path) -> list[str]:
    """The command lines of the live processes working on ``cache``."""
    return [line for _, line in processes(Marks(cache))]


@pytest.fixture
def upstream(tmp_path):
    """The fake registry, counting the tarball downloads under way (each held 0.3 s) and, at
    each, which processes work on the cache; the packument requests by name."""
    with FakeServer() as server:
        fake = FakeNpm(server)
        for name in NAMES:
            fake.publish(name, "1.0.0", {"index.js": f"const needle = '{name}';\n".encode(),
                                         "lib/a.js": b"function helper() { return 1; }\n"})
        state = {"live": 0, "peak": 0, "seen": [], "asked": [], "cache": tmp_path / "cache"}
        lock = threading.Lock()
        serve = fake._serve

        def counting(handler):
            if not handler.path.startswith("/-/"):
                with lock:
                    state["asked"].append(handler.path)
                return serve(handler)
            with lock:
                state["live"] += 1
                state["peak"] = max(state["peak"], state["live"])
                state["seen"] += _processes(state["cache"])
            try:
                time.sleep(0.3)  # long enough for the others to arrive
                return serve(handler)
            finally:
                with lock:
                    state["live"] -= 1

        server.prefix_routes.insert(0, ("GET", "/", counting))
        state["env"] = {"CODENAV_NPM_REGISTRY": fake.url, "CODENAV_CACHE_DIR": str(state["cache"]),
                        "CODENAV_FETCH_CONCURRENCY": "2", "CODENAV_NO_DISCOVERY": "1"}
        yield state


def _grep(upstream: dict, *extra: str) -> dict:
    argv = [f"--target=npm:{name}@1.0.0" for name in NAMES]
    proc = run_cli("grep", *argv, *extra, "needle", "--json", env=upstream["env"])
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _wait_for_locks(cache: Path) -> None:
    """Block until nobody holds a request's lock of ``cache`` (the late phase holds them)."""
    for path in sorted((cache / "locks").glob("*.lock")):
        with open(path, "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)


def test_the_cli_forks_its_indexers_side_by_side_within_the_bound(upstream):
    """Every cold target is fetched by a fork of the command (no indexer interpreter is started),
    two at a time, and the answer holds each target's match once."""
    found = _grep(upstream)
    assert [f["target"] for f in found["files"]] == [f"npm:{name}@1.0.0" for name in NAMES]
    assert found["totalMatches"] == len(NAMES) and found["skippedTargets"] == []
    assert upstream["peak"] == 2
    assert upstream["seen"] and not [line for line in upstream["seen"] if "codenav.cache.indexer" in line]
    assert all(" -m codenav grep " in line for line in upstream["seen"])


def test_one_late_process_derives_every_entry_s_late_sidecars_holding_their_locks(upstream):
    """Once the command answered, each entry gets its symbol index and marks while its lock is
    held: whoever waits for the locks finds them all there."""
    _grep(upstream)
    _wait_for_locks(upstream["cache"])
    manifests = sorted(upstream["cache"].glob("entries/npm/*/*/manifest.json"))
    assert len(manifests) == len(NAMES)
    for manifest in manifests:
        assert sorted(p.name for p in manifest.parent.iterdir() if p.name in LATE_SIDECARS) == sorted(LATE_SIDECARS)


def test_a_target_that_fails_is_reported_as_its_indexer_recorded_it_without_a_second_try(upstream):
    """Its version and package documents are asked once each, and the row is the one the threaded path (the MCP server's) gives."""
    found = _grep(upstream, f"--target={MISSING}")
    assert found["skippedTargets"] == [{"target": MISSING, "code": "NOT_FOUND", "retryable": False,
                                        "message": "npm package 'absent' was not found in the registry"}]
    assert sorted(path for path in upstream["asked"] if "absent" in path) == ["/absent", "/absent/1.0.0"]
    assert found["totalMatches"] == len(NAMES)


def test_the_mcp_server_has_one_helper_fork_its_indexers(upstream, tmp_path):
    """The server runs threads, which rule out forking: one `python -m codenav.cache.many` does it
    for the call, within the same bound, and the answer is the CLI's."""
    session = McpSession({**isolated_subprocess_env(tmp_path), **upstream["env"]})
    try:
        result = session.call("grep_repo", {"targets": [f"npm:{name}@1.0.0" for name in NAMES] + [MISSING],
                                            "pattern": "needle"})
    finally:
        session.close()
    assert result["isError"] is False
    assert upstream["peak"] == 2
    assert upstream["seen"] and any("-m codenav.cache.many " in line for line in upstream["seen"])
    assert not [line for line in upstream["seen"] if "codenav.cache.indexer" in line]
    upstream["env"]["CODENAV_CACHE_DIR"] = str(tmp_path / "cli")
    forked = _grep(upstream, f"--target={MISSING}")
    answer = result["structuredContent"]
    assert answer["files"] == forked["files"] and answer["skippedTargets"] == forked["skippedTargets"]


@pytest.fixture
def stalling(tmp_path):
    """A registry with `fast`, and `slow`, whose tarball sends its first bytes and then nothing
    for a minute; the requests for slow's tarball, counted."""
    import random

    from tests.fakes.archives import make_tgz
    from tests.fakes.http import Reply

    with FakeServer() as server:
        fake = FakeNpm(server)
        fake.publish("fast", "1.0.0", {"index.js": b"const needle = 1;\n"})
        tarball = make_tgz({"index.js": b"needle\n", "data.bin": random.Random(3).randbytes(64 * 1024)})
        asked = []

        def stall(handler):
            asked.append(handler.path)
            return Reply(200, [tarball[:1000], tarball[1000:]], {"Content-Type": "application/octet-stream"},
                         chunk_delay=60)

        for name in ("slow", "later"):
            fake.publish(name, "1.0.0", {}, tarball=tarball)
            server.route("GET", f"/-/{name}/{name}-1.0.0.tgz", stall)
        yield {"url": fake.url, "asked": asked}


@pytest.mark.parametrize("surface", ["cli", "mcp"])
def test_a_target_still_downloading_when_the_wait_ends_is_indexing_and_asked_once(stalling, tmp_path, surface):
    """Past the wait, a target whose indexer is still at work is skipped as INDEXING (retryable,
    with its indexingRef), the others answered; nobody starts a second indexer for it. Under the
    MCP server, one the helper has not started yet (one at a time here) is INDEXING too: the
    helper goes on with it, so the call does not start one of its own."""
    specs = ["npm:fast@1.0.0", "npm:slow@1.0.0"] + (["npm:later@1.0.0"] if surface == "mcp" else [])
    env = {**isolated_subprocess_env(tmp_path), "CODENAV_NPM_REGISTRY": stalling["url"],
           "CODENAV_FETCH_CONCURRENCY": "1"}
    if surface == "cli":
        proc = run_cli("grep", *[f"--target={s}" for s in specs], "needle", "--wait", "1500", "--json", env=env)
        assert proc.returncode == 0, proc.stderr
        answer = json.loads(proc.stdout)
    else:
        session = McpSession(env)
        try:
            answer = session.call("grep_repo", {"targets": specs, "pattern": "needle",
                                                "wait_timeout_ms": 1500})["structuredContent"]
        finally:
            session.close()
    assert answer["targets"] == ["npm:fast@1.0.0"] and answer["totalMatches"] == 1
    assert [(s["target"], s["code"], s["retryable"]) for s in answer["skippedTargets"]] == [
        (spec, "INDEXING", True) for spec in specs[1:]]
    assert all(s["message"].startswith("still indexing after 1500 ms") for s in answer["skippedTargets"])
    assert stalling["asked"] == ["/-/slow/slow-1.0.0.tgz"]
