"""Open a target that is not cached: the indexing lifecycle (SPEC §3).

``cache.open_entry`` tries the warm lookup first (one alias, one manifest header); when that
misses, ``open_target`` resolves a git ref or re-reads the alias, then starts
``python -m codenav.cache.indexer`` in its own session, leashed to this process (proc.spawn),
and waits up to ``wait_ms``; past that it returns INDEXING and the indexer carries on while
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

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from typing import Any

    from ..targets import Target

LOG_CAP = 1024 * 1024  # bytes of tmp/indexer.log kept before it is started afresh
MAX_SPAWNS = 3  # indexers one call may start: a clear or a kill may sweep a build away mid-way
POLL_SECONDS = 0.02  # how often a caller looks for the entry while its indexer runs


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
    alias, ttl = aliases.alias_of(target)
    found = aliases.read_alias(alias)
    if found is not None:
        return found
    job = {"kind": "package", "registry": target.registry, "name": target.name,
           "version": target.version, "ttl": ttl, "alias": alias,
           **({"artifact": target.artifact} if target.artifact is not None else {})}
    return _index_and_wait(job, wait_ms)


# --- locks and job results, shared with the indexer -------------------------------------------

def lock_path(alias: str) -> str:
    from ..paths import cache_subdir

    return os.path.join(cache_subdir("locks"), f"{short_hash(alias)}.lock")


def job_result_path(alias: str) -> str:
    from ..paths import cache_subdir

    return os.path.join(cache_subdir("jobs"), f"{short_hash(alias)}.json")


def busy(alias: str) -> bool:
    """True while an indexer holds the lock of this request."""
    return is_locked(lock_path(alias))


def is_locked(path: str) -> bool:
    import fcntl

    with open(path, "a+b") as handle:
        if not try_lock(handle.fileno()):
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def try_lock(fd: int) -> bool:
    """Take an exclusive flock on ``fd`` without waiting; False if another process holds it."""
    import errno
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
            return False
        raise
    return True


# --- the lifecycle ---------------------------------------------------------------------------------

def _spawn(job: dict[str, Any], deadline: float) -> Any:
    import json
    import subprocess

    from .. import proc

    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env["PYTHONPATH"] = package_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    job = {**job, "leash": True, "progressUntil": deadline if _progress_wanted() else None}
    try:
        cwd = os.getcwd()  # where the caller stands (its configuration files), as before
    except OSError:
        cwd = None
    log = _open_log()
    try:
        # Leashed (its own session, stdin a pipe from this process), not proc.run: it must
        # outlive a call that stops waiting, but not this process (indexer.py says how it stops).
        return proc.spawn([sys.executable, "-m", f"{__package__}.indexer", json.dumps(job)], tie="leash",
                          stdout=subprocess.DEVNULL, stderr=None if job["progressUntil"] else log, env=env, cwd=cwd)
    except proc.NotStarted as exc:
        raise CodenavError("INTERNAL", f"the indexer could not be started ({exc})", retryable=True) from None
    finally:
        log.close()


def _open_log() -> Any:
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
    import subprocess

    alias = job["alias"]
    start = time.monotonic()
    began = time.time()
    deadline = start + wait_ms / 1000.0
    child = None if busy(alias) else _spawn(job, time.time() + wait_ms / 1000.0)
    spawns = 0 if child is None else 1
    while True:
        if job["kind"] == "package":
            found = aliases.read_alias(alias, resolved_since=began)
        else:
            found = store.find(git_key(job["repo_url"], job["commit"]))
        if found is not None:
            return found
        left = deadline - time.monotonic()
        if child is not None:
            # Polled, not waited for whole: the indexer publishes the entry, then derives the
            # late sidecars (the symbol index of 43,000 files takes many seconds); the caller
            # answers as soon as the entry is there.
            try:
                child.wait(timeout=max(0.0, min(left, POLL_SECONDS)))
            except subprocess.TimeoutExpired:
                pass
            if child.returncode is None:
                if left <= 0:
                    break  # still running past the wait: leave it to finish in the background
                continue
            child = None
            continue  # re-check the entry first
        if not busy(alias):
            outcome = _read_result(alias)
            if outcome is not None:
                raise outcome
            # No entry and no recorded failure: nobody indexed it yet, or an indexer stopped
            # without an answer (killed, or `cache clear` swept its build or its alias away).
            # Index again while the wait lasts, a bounded number of times.
            if spawns < MAX_SPAWNS and left > 0:
                child = _spawn(job, time.time() + left)
                spawns += 1
                continue
            raise CodenavError(
                "INTERNAL", "indexing stopped before it finished; retry the call", retryable=True
            )
        if left <= 0:
            break
        time.sleep(min(0.02, left))
    raise CodenavError(
        "INDEXING",
        f"still indexing after {wait_ms} ms; it continues in the background, retry shortly",
        details={"indexingRef": short_hash(alias), "action": "retry the same call in a few seconds"},
    )


def _read_result(alias: str) -> CodenavError | None:
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
