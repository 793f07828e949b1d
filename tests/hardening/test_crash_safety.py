"""Crash safety: an indexer killed at any moment never leaves a half-built entry (SPEC §3).

The indexer (``python -m codenav.cache.indexer``, started detached by a tool call that returned
INDEXING) is found by scanning /proc for its command line and this test's cache directory in
its environment, and SIGKILLed at 50 moments drawn with a seeded RNG from the measured duration
of one full index — across start-up and resolution, the (slowed) download and its hash check,
extraction and publication. After every kill:

- every directory under ``entries/`` is whole (its manifest lists exactly the files on disk)
  and no half-built one is visible;
- the next call for the same package succeeds with the complete listing;
- at the end, ``codenav cache prune`` removes the debris the kills left (build directories,
  temp files, stale job results) and nothing that is in use.
"""

from __future__ import annotations

import os
import random
import signal
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from codenav.errors import CodenavError
from codenav.tools import list_files
from tests.fakes.archives import make_tgz
from tests.fakes.http import Reply
from tests.fakes.npm import FakeNpm
from tests.support.cache import cache_report, check_entry, error_of
from tests.support.cli import run_cli

pytestmark = [pytest.mark.hardening,
              pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the indexers through /proc")]

KILLS = 50
SEED = int(os.environ.get("CODENAV_CRASH_SEED", "20240607"))
FILES = {f"src/mod{i:04d}.js": (f"// module {i}\n" + "export const x = 1;\n" * 8).encode() for i in range(300)}
CHUNKS = 20  # a first download comes in this many pieces ...
CHUNK_DELAY = 0.01  # ... this many seconds apart: a window to die in


def _indexers(cache: Path, name: str) -> list[int]:
    """PIDs of live indexers of package ``name`` for this cache (its job is in their command line,
    the cache directory in their environment)."""
    wanted = f"CODENAV_CACHE_DIR={cache}".encode()
    job = f'"name": "{name}"'.encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as handle:
                cmdline = handle.read()
            if b"codenav.cache.indexer" not in cmdline or job not in cmdline:
                continue
            with open(f"/proc/{entry.name}/environ", "rb") as handle:
                if wanted not in handle.read().split(b"\0"):
                    continue
        except OSError:
            continue  # gone already, or not ours to read
        found.append(int(entry.name))
    return found


def _phase(cache: Path, name: str) -> str:
    """Where the build of ``name`` stands, judged from the disk just before the kill."""
    if any((cache / "entries" / "npm" / name).glob("*/manifest.json")):
        return "published"
    works = list((cache / "tmp").glob(f"npm_{name}_1_0_0_*")) if (cache / "tmp").is_dir() else []
    if not works:
        return "start-up/resolve"
    work = works[0]
    if (work / "entry" / "manifest.json").exists() or any(work.glob("entry/.manifest.json.*")):
        return "publish"
    if (work / "entry" / "tree").exists():
        return "extract"
    if (work / "artifact").exists():
        return "download/verify"
    return "start-up/resolve"


def _slow_first_download(npm: FakeNpm, name: str, tarball: bytes) -> None:
    """Serve ``name``'s tarball in slow chunks the first time, at full speed after that."""
    hits = Counter()
    size = -(-len(tarball) // CHUNKS)
    chunks = [tarball[i:i + size] for i in range(0, len(tarball), size)]

    def serve(handler) -> Reply:
        hits[name] += 1
        npm.tarball_hits += 1
        if hits[name] == 1:
            return Reply(200, chunks, {"Content-Type": "application/octet-stream"}, chunk_delay=CHUNK_DELAY)
        return Reply(200, tarball, {"Content-Type": "application/octet-stream"})

    npm.server.route("GET", f"/-/{name}/{name}-1.0.0.tgz", serve)


def _assert_no_half_built_entry(cache: Path, name: str) -> None:
    report = cache_report(cache)
    assert report.half_built == [], f"half-built entries visible: {report.half_built}"
    for key in report.entries:
        if key.startswith(f"npm/{name}/"):
            check_entry(cache / "entries" / key)


def _lane(names: list[str], rng: random.Random, full: float, cache: Path) -> Counter[str]:
    """Kill the indexer of each package at a random moment, check the cache, call again."""
    phases: Counter[str] = Counter()
    for name in names:
        offset = rng.uniform(0.0, full * 1.05)
        args = {"registry": "npm", "package_name": name, "version": "1.0.0"}
        t0 = time.monotonic()
        assert error_of(list_files.run, {**args, "wait_timeout_ms": 0}).code == "INDEXING"
        pids: list[int] = []
        for _ in range(200):  # a process that has just been exec'd may not show its environment yet
            pids = _indexers(cache, name)
            if pids:
                break
            time.sleep(0.005)
        assert len(pids) == 1, pids
        time.sleep(max(0.0, t0 + offset - time.monotonic()))
        phase = _phase(cache, name)
        try:
            os.killpg(pids[0], signal.SIGKILL)  # the indexer leads its own session
        except ProcessLookupError:
            phase = "finished before the kill"
        try:
            os.waitpid(pids[0], 0)
        except ChildProcessError:
            pass  # reaped by subprocess's own clean-up already
        phases[phase] += 1

        _assert_no_half_built_entry(cache, name)
        try:
            listing = list_files.run(args)
        except CodenavError as exc:
            pytest.fail(f"the call after a kill at {offset:.3f} s ({phase}) failed: {exc.to_envelope()}")
        assert [f["path"] for f in listing["files"]] == sorted(FILES)
        _assert_no_half_built_entry(cache, name)
    return phases


def test_an_indexer_killed_at_any_moment_leaves_no_half_built_entry(npm: FakeNpm, cache_dir: Path) -> None:
    """50 SIGKILLs at random moments of indexing: never a half-built entry, the next call always
    succeeds, and prune clears the debris."""
    print(f"crash-safety seed: {SEED} (set CODENAV_CRASH_SEED to replay)")
    tarball = make_tgz(FILES)
    names = ["calibrate"] + [f"crash{i}" for i in range(KILLS)]
    for name in names:
        npm.publish(name, "1.0.0", {}, tarball=tarball)
        _slow_first_download(npm, name, tarball)

    started = time.monotonic()
    assert len(list_files.run({"registry": "npm", "package_name": "calibrate", "version": "1.0.0"})["files"]) == len(FILES)
    full = time.monotonic() - started
    print(f"one full index (slow download) takes {full:.2f} s")

    # Two lanes of kills run side by side (the machine has two cores); each lane draws its
    # moments from its own seeded RNG, so a seed names the same moments every time.
    lanes = [names[1::2], names[2::2]]
    with ThreadPoolExecutor(len(lanes)) as pool:
        futures = [pool.submit(_lane, lane, random.Random(SEED + number), full, cache_dir)
                   for number, lane in enumerate(lanes)]
        phases = sum((future.result() for future in futures), Counter())
    print("kills by phase:", dict(sorted(phases.items())))
    assert sum(phases.values()) == KILLS
    # The draws are random, but a download window this wide is always hit, and start-up too.
    assert phases["download/verify"] > 0 and phases["start-up/resolve"] > 0, phases

    # Every entry is whole and each package has exactly one.
    report = cache_report(cache_dir)
    assert sorted(key.split("/")[1] for key in report.entries) == sorted(names)
    for key in report.entries:
        check_entry(cache_dir / "entries" / key)

    # A failed job leaves a result; prune takes it with the kills' debris.
    npm.publish("broken", "1.0.0", {}, tarball=tarball)
    npm.packages["broken"]["1.0.0"].integrity = npm.packages["crash0"]["1.0.0"].integrity[:-4] + "AAA="
    assert error_of(list_files.run, {"registry": "npm", "package_name": "broken", "version": "1.0.0"}).code == \
        "INTEGRITY_ERROR"
    before = cache_report(cache_dir)
    assert before.jobs, "the failed job left no result"
    print(f"debris before prune: {len(before.debris)} build dirs, {len(before.alias_temps)} alias temp files")
    proc = run_cli("cache", "prune")
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    after = cache_report(cache_dir)
    assert (after.debris, after.alias_temps, after.jobs, after.half_built) == ([], [], [], [])
    assert after.entries == before.entries
    assert len(list_files.run({"registry": "npm", "package_name": "crash0", "version": "1.0.0"})["files"]) == len(FILES)


def test_prune_during_a_live_index_does_not_break_it(npm: FakeNpm, cache_dir: Path) -> None:
    """`codenav cache prune` while an indexer is mid-download removes the debris beside it and
    leaves its build alone: it publishes."""
    tarball = make_tgz(FILES)
    npm.publish("live", "1.0.0", {}, tarball=tarball)
    _slow_first_download(npm, "live", tarball)
    args = {"registry": "npm", "package_name": "live", "version": "1.0.0"}
    assert error_of(list_files.run, {**args, "wait_timeout_ms": 0}).code == "INDEXING"
    debris = cache_dir / "tmp" / "npm_old.stale"
    debris.mkdir(parents=True)
    deadline = time.monotonic() + 5
    while not list((cache_dir / "tmp").glob("npm_live_*")) and time.monotonic() < deadline:
        time.sleep(0.01)
    proc = run_cli("cache", "prune")
    assert proc.returncode == 0, proc.stderr
    # Debris goes at once although an indexer is live: prune asks each build dir's own lock.
    assert not debris.exists()
    assert [f["path"] for f in list_files.run(args)["files"]] == sorted(FILES)
    assert npm.tarball_hits == 1, "the live build was broken and redone"
    _assert_no_half_built_entry(cache_dir, "live")
    assert run_cli("cache", "prune").returncode == 0
