"""Concurrency: many processes, one cache (SPEC §3: one downloads, the others wait).

- 16 CLI processes started together on one cold package: one tarball download, 16 identical
  successes.
- 16 CLI processes on 16 different packages: all succeed, each with its own files.
- Readers looping over ``read``/``files`` while ``codenav cache clear`` runs again and again:
  every answer is the whole, correct content or an error envelope — never a partial tree,
  never a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from codenav.errors import CodenavError
from tests.fakes.npm import FakeNpm
from tests.support.cache import cache_report, check_entry
from tests.support.cli import ROOT, run_cli

pytestmark = pytest.mark.hardening

PROCESSES = 16


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _start_together(argvs: list[list[str]]) -> list[tuple[int, bytes, bytes]]:
    """Start every command before waiting for any; (returncode, stdout, stderr) in order."""
    procs = [subprocess.Popen([sys.executable, "-m", "codenav", *argv], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env()) for argv in argvs]
    outs = [p.communicate(timeout=90) for p in procs]
    return [(p.returncode, out, err) for p, (out, err) in zip(procs, outs, strict=True)]


def test_sixteen_processes_on_one_cold_package_download_it_once(npm: FakeNpm, cache_dir: Path) -> None:
    """16 processes started together all succeed with identical output; the tarball is fetched once."""
    files = {f"lib/f{i:03d}.js": f"module.exports = {i};\n".encode() for i in range(300)}
    npm.publish("cold", "1.0.0", files)
    npm.tarball_delay = 0.3  # keep the first download in flight while the others arrive
    results = _start_together([["files", "npm:cold@1.0.0", "--json"]] * PROCESSES)
    assert [(code, err) for code, _, err in results] == [(0, b"")] * PROCESSES
    assert len({out for _, out, _ in results}) == 1
    assert [f["path"] for f in json.loads(results[0][1])["files"]] == sorted(files)
    assert npm.tarball_hits == 1
    report = cache_report(cache_dir)
    assert len(report.entries) == 1 and report.half_built == [] and report.debris == []
    check_entry(cache_dir / "entries" / report.entries[0])


def test_sixteen_processes_on_sixteen_packages_all_succeed(npm: FakeNpm, cache_dir: Path) -> None:
    """16 processes indexing 16 different packages at once each get their own, complete listing."""
    for i in range(PROCESSES):
        npm.publish(f"pkg{i}", "1.0.0", {f"only-{i}.js": b"x\n", "index.js": f"{i}\n".encode()})
    results = _start_together([["read", f"npm:pkg{i}@1.0.0", "index.js", "--json"] for i in range(PROCESSES)])
    assert [(code, err) for code, _, err in results] == [(0, b"")] * PROCESSES
    assert [json.loads(out)["content"] for _, out, _ in results] == [f"{i}\n" for i in range(PROCESSES)]
    assert npm.tarball_hits == PROCESSES
    report = cache_report(cache_dir)
    assert len(report.entries) == PROCESSES and report.half_built == [] and report.debris == []
    for key in report.entries:
        check_entry(cache_dir / "entries" / key)


# A reader process: read_file and list_files in a loop, in-process (as an MCP server would),
# recording each outcome. Anything that is neither the whole expected answer nor a
# CodenavError is recorded with its traceback.
_READER = textwrap.dedent("""
    import json, sys, time, traceback
    from codenav.errors import CodenavError
    from codenav.tools import list_files, read_file
    with open(sys.argv[1], encoding="utf-8") as handle:
        args, expected_files, expected, seconds = json.load(handle)
    outcomes = []
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
        try:
            if n % 3:
                got = read_file.run({**args, "path": "lib/big.js"})
                outcomes.append("ok" if got["content"] == expected else "PARTIAL content")
            else:
                got = list_files.run(args)
                paths = [f["path"] for f in got["files"]]
                outcomes.append("ok" if paths == expected_files else f"PARTIAL tree of {len(paths)}")
        except CodenavError as exc:
            outcomes.append("error " + exc.code + (" retryable" if exc.retryable else ""))
        except BaseException:
            outcomes.append("TRACEBACK " + traceback.format_exc())
    print(json.dumps(outcomes))
""")


def test_readers_during_cache_clear_get_whole_answers_or_error_envelopes(npm: FakeNpm, cache_dir: Path,
                                                                         tmp_path: Path) -> None:
    """While `codenav cache clear` runs repeatedly, in-process readers and CLI readers each get the
    complete, correct content or a typed error; never a partial tree or a traceback."""
    big = "".join(f"line {i}: {'x' * 20}\n" for i in range(1500))  # inside the 50 KiB / 2000-line budget
    files = {"lib/big.js": big.encode(), **{f"lib/m{i:03d}.js": b"//\n" for i in range(400)}}
    npm.publish("shared", "1.0.0", files)
    args = {"registry": "npm", "package_name": "shared", "version": "1.0.0"}
    expected_files = sorted(files)
    seconds = 4.5
    params = tmp_path / "reader.json"
    params.write_text(json.dumps([args, expected_files, big, seconds]), encoding="utf-8")
    readers = [subprocess.Popen([sys.executable, "-c", _READER, str(params)],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
               for _ in range(3)]
    cli_outcomes: list[str] = []
    clears = 0
    end = time.monotonic() + seconds - 1.5  # the last 1.5 s are calm: every reader must then succeed
    cli = None
    while time.monotonic() < end:
        if cli is None:
            cli = subprocess.Popen([sys.executable, "-m", "codenav", "read", "npm:shared@1.0.0", "lib/big.js", "--json"],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=_env())
        clear = run_cli("cache", "clear")
        assert clear.returncode == 0 and b"Traceback" not in clear.stderr, clear.stderr
        clears += 1
        if cli.poll() is not None:
            cli_outcomes.append(_judge_cli(cli, big))
            cli = None
        time.sleep(0.15)
    if cli is not None:
        cli.wait(timeout=60)
        cli_outcomes.append(_judge_cli(cli, big))
    outcomes: list[str] = []
    for reader in readers:
        out, err = reader.communicate(timeout=90)
        assert reader.returncode == 0 and b"Traceback" not in err, err.decode()
        mine = json.loads(out)
        assert mine[-1] == "ok", mine[-5:]
        outcomes += mine
    outcomes += cli_outcomes
    bad = [o for o in outcomes if o != "ok" and not o.startswith("error ")]
    assert bad == [], ({o: outcomes.count(o) for o in sorted(set(outcomes))}, bad[:3])
    assert outcomes.count("ok") > 0 and clears >= 3, (clears, outcomes[:20])
    # After the storm the cache is whole: every entry complete, and the next read succeeds.
    report = cache_report(cache_dir)
    assert report.half_built == []
    for key in report.entries:
        check_entry(cache_dir / "entries" / key)
    final = run_cli("read", "npm:shared@1.0.0", "lib/big.js")
    assert (final.returncode, final.stdout) == (0, big.encode())
    print(f"clears={clears} outcomes={ {o: outcomes.count(o) for o in sorted(set(outcomes))} }")


def _judge_cli(proc: subprocess.Popen[bytes], expected: str) -> str:
    out, err = proc.communicate(timeout=60)
    if b"Traceback" in err:
        return "TRACEBACK " + err.decode()
    try:
        envelope = json.loads(out)
    except ValueError:
        return f"UNPARSABLE {out[:200]!r}"
    if proc.returncode == 0:
        return "ok" if envelope.get("content") == expected else "PARTIAL content"
    error = envelope.get("error", {})
    return f"error {error.get('code')}" + (" retryable" if error.get("retryable") else "")


def test_a_clear_during_indexing_costs_a_second_index_not_an_error(npm: FakeNpm, cache_dir: Path) -> None:
    """`codenav cache clear` while the only indexer is mid-download sweeps its build away; the call
    waiting on it indexes again within its wait and succeeds with the whole listing."""
    import threading

    from codenav.tools import list_files
    from tests.fakes.http import Reply

    files = {f"lib/f{i:03d}.js": b"x\n" for i in range(50)}
    tarball = npm.publish("swept", "1.0.0", files)
    hits: list[int] = []

    def serve(handler) -> Reply:
        hits.append(1)
        if len(hits) == 1:
            # The first download drips in 20 pieces, 0.25 s apart: the body is complete only after
            # about 5 s, time to clear under it even on a busy machine. (The tarball is small, so
            # pieces of a fixed size could be a single piece, sent at once: no window at all.)
            size = max(1, -(-len(tarball) // 20))
            return Reply(200, [tarball[i:i + size] for i in range(0, len(tarball), size)], chunk_delay=0.25)
        return Reply(200, tarball)

    npm.server.route("GET", "/-/swept/swept-1.0.0.tgz", serve)
    outcome: dict = {}

    def wait_for_it() -> None:
        try:
            outcome["result"] = list_files.run({"registry": "npm", "package_name": "swept", "version": "1.0.0"})
        except CodenavError as exc:
            outcome["result"] = exc.to_envelope()

    waiter = threading.Thread(target=wait_for_it)
    waiter.start()
    deadline = time.monotonic() + 10
    while not list((cache_dir / "tmp").glob("npm_swept_*/artifact")) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert run_cli("cache", "clear").returncode == 0
    waiter.join(30)
    assert "error" not in outcome["result"], outcome["result"]
    assert [f["path"] for f in outcome["result"]["files"]] == sorted(files)
    assert len(hits) == 2
    report = cache_report(cache_dir)
    assert len(report.entries) == 1 and report.half_built == []
