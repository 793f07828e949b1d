"""Open a target that is not cached: the indexing lifecycle (SPEC §3).

``cache.open_entry`` tries the warm lookup first (one alias, one manifest header); when that
misses, ``open_target`` resolves a git ref or re-reads the alias, then starts
the indexer in its own session, leashed to this process (a fork of the ``codenav`` command,
cache/forked.py, or ``python -m codenav.cache.indexer`` through proc.spawn), and waits up to
``wait_ms`` for it to name the published entry on its stdout; past that it returns INDEXING and the indexer carries on while
this process lives (or, released by the CLI's exit, alone), so a retry finds the entry.
Readers never see a half-built entry: an entry exists only once renamed.
"""

from __future__ import annotations

import os
import sys
import time

from ..errors import CodenavError
from ..paths import short_hash
from ..targets import GitTarget, git_key
from . import aliases, store
from .locks import busy, is_locked, job_result_path, lock_path, try_lock  # noqa: F401  (their old home)

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from typing import Any

    from ..targets import Target

LOG_CAP = 1024 * 1024  # bytes of tmp/indexer.log kept before it is started afresh
MAX_SPAWNS = 3  # indexers one call may start: a clear or a kill may sweep a build away mid-way
POLL_SECONDS = 0.02  # how often a caller looks for the entry while its indexer runs
# The folder holding this codenav package: on the PYTHONPATH of every indexer, fork or process.
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def open_target(target: Target, wait_ms: int) -> store.Entry:
    """The cached entry of ``target``, indexing it first if needed (the lifecycle)."""
    if isinstance(target, GitTarget):
        from ..remotes import git

        url = git.check_url(target.repo_url)
        commit = git.resolve(url, target.git_ref)
        alias = f"git|{url}|{commit}"
        job = {"kind": "git", "repo_url": url, "git_ref": target.git_ref, "commit": commit}
        found = store.find(git_key(url, commit)) or _index_and_wait({**job, "alias": alias}, wait_ms)
        # One entry per commit serves every ref naming it: echo the ref this request used.
        return store.Entry(found.key, found.path, echo={"repoUrl": git.redact(url), "gitRef": target.git_ref,
                                                        "commit": commit})
    job = package_job(target)
    found = aliases.read_alias(job["alias"])
    if found is not None:
        return found
    return _index_and_wait(job, wait_ms)


def package_job(target: Any) -> dict[str, Any]:
    """The indexer's job for a package target (its request's alias included)."""
    alias, ttl = aliases.alias_of(target)
    return {"kind": "package", "registry": target.registry, "name": target.name,
            "version": target.version, "ttl": ttl, "alias": alias,
            **({"artifact": target.artifact} if target.artifact is not None else {})}


# --- the lifecycle ---------------------------------------------------------------------------------

def _spawn(job: dict[str, Any], deadline: float) -> Any:
    from .. import proc

    job = {**job, "leash": True, "notify": True, "progressUntil": deadline if _progress_wanted() else None}
    log = open_log()
    try:
        from . import forked

        if forked.possible():  # the CLI: this process forks, without a second interpreter's start
            return forked.start(job, None if job["progressUntil"] else log.fileno(), PACKAGE_PARENT)
        import json

        # Its stdout is a pipe on which it says when the entry is published (indexing._tell_waiter).
        return spawn_leashed("indexer", [json.dumps(job)], None if job["progressUntil"] else log)
    except proc.NotStarted as exc:
        raise CodenavError("INTERNAL", f"the indexer could not be started ({exc})", retryable=True) from None
    finally:
        log.close()


def spawn_leashed(module: str, args: list[str], stderr: Any) -> Any:
    """``python -m codenav.cache.MODULE ARGS``, leashed (its own session, stdin a pipe from this
    process), not proc.run: it must outlive a call that stops waiting, but not this process
    (indexer.py says how it stops); its stdout a pipe to this process; ``proc.NotStarted``."""
    import subprocess

    from .. import proc

    env = dict(os.environ)
    env["PYTHONPATH"] = PACKAGE_PARENT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        cwd = os.getcwd()  # where the caller stands (its configuration files), as before
    except OSError:
        cwd = None
    return proc.spawn([sys.executable, "-m", f"{__package__}.{module}", *args], tie="leash",
                      stdout=subprocess.PIPE, stderr=stderr, env=env, cwd=cwd)


def open_log() -> Any:
    """tmp/indexer.log for the indexer's stderr; a concurrent clear may move tmp/ away at any time."""
    from ..paths import cache_subdir

    for _ in range(3):
        try:
            path = os.path.join(cache_subdir("tmp"), "indexer.log")
            # Only tracebacks of indexer bugs land here; start afresh past 1 MiB so it cannot grow forever.
            big = os.path.exists(path) and os.path.getsize(path) > LOG_CAP
            return open(path, "wb" if big else "ab")
        except FileNotFoundError:
            continue
    return open(os.devnull, "ab")


def _progress_wanted() -> bool:
    # Progress is for a person watching a terminal, never for pipes; the MCP server's stderr
    # stream reports isatty() False, so the wire's neighbour stays quiet too.
    return sys.stderr is not None and sys.stderr.isatty()


def _index_and_wait(job: dict[str, Any], wait_ms: int) -> store.Entry:
    started: list[Any] = []  # the indexers started here: their pipes are closed on the way out
    try:
        return _wait(job, wait_ms, started)
    finally:
        for child in started:
            child.stdout.close()


def _wait(job: dict[str, Any], wait_ms: int, started: list[Any]) -> store.Entry:
    alias = job["alias"]
    start = time.monotonic()
    began = time.time()
    deadline = start + wait_ms / 1000.0
    child = None if busy(alias) else _spawn(job, time.time() + wait_ms / 1000.0)
    started += [child] if child is not None else []
    spawns = len(started)
    while True:
        if job["kind"] == "package":
            found = aliases.read_alias(alias, resolved_since=began)
        else:
            found = store.find(git_key(job["repo_url"], job["commit"]))
        if found is not None:
            return found
        left = deadline - time.monotonic()
        if child is not None:
            # Not waited for whole: the indexer publishes the entry, then derives the late
            # sidecars (the symbol index of 43,000 files takes many seconds); the caller answers
            # as soon as the entry is there, which the indexer says on its stdout (its key).
            key = _wait_for_news(child, max(0.0, left))
            found = store.find(key) if key else None
            if found is not None:
                return found
            if child.returncode is None:
                if left <= 0:
                    break  # still running past the wait: leave it to finish in the background
                continue
            child = None
            continue  # re-check the entry first
        if not busy(alias):
            outcome = read_result(alias)
            if outcome is not None:
                raise outcome
            # No entry and no recorded failure: nobody indexed it yet, or an indexer stopped
            # without an answer (killed, or `cache clear` swept its build or its alias away).
            # Index again while the wait lasts, a bounded number of times.
            if spawns < MAX_SPAWNS and left > 0:
                child = _spawn(job, time.time() + left)
                started.append(child)
                spawns += 1
                continue
            raise CodenavError(
                "INTERNAL", "indexing stopped before it finished; retry the call", retryable=True
            )
        if left <= 0:
            break
        time.sleep(min(0.02, left))
    raise still_indexing(alias, wait_ms)


def still_indexing(alias: str, wait_ms: int) -> CodenavError:
    """INDEXING: the wait ran out while an indexer goes on with the request ``alias``."""
    return CodenavError(
        "INDEXING",
        f"still indexing after {wait_ms} ms; it continues in the background, retry shortly",
        details={"indexingRef": short_hash(alias), "action": "retry the same call in a few seconds"},
    )


def _wait_for_news(child: Any, seconds: float) -> str | None:
    """Wait up to ``seconds`` for ``child`` (an indexer) to name the entry it published, or to
    end; the key it named, if it did. Its stdout carries the key at publication and closes when
    it exits; once closed, the exit itself is waited for in short steps."""
    import select

    pipe = child.stdout
    if not pipe.closed:
        said = b""
        if select.select([pipe], [], [], seconds)[0]:
            said = os.read(pipe.fileno(), 4096)
            if not said:
                pipe.close()  # end of file: the indexer is ending
        child.poll()
        named = said.decode("utf-8", "replace").split()
        return named[-1] if named else None  # the key is the last line it wrote
    import subprocess

    try:
        child.wait(timeout=min(seconds, POLL_SECONDS))
    except subprocess.TimeoutExpired:
        pass
    return None


def read_result(alias: str) -> CodenavError | None:
    from ..paths import read_json

    try:
        data = read_json(job_result_path(alias))
    except (OSError, ValueError):
        return None
    error = data.get("error") or {}
    if "code" not in error:
        return None
    return CodenavError(error["code"], error["message"], retryable=error.get("retryable"),
                        details=error.get("details"))
