"""Many cold packages indexed at once by the CLI: forked indexers side by side (SPEC §2.12, §3.6).

A search over a project's locked tree may find a hundred packages not cached. Opened one by one
from a pool of threads (tools/_many.py), each would start a second interpreter (threads rule out
forking: forked.py) and, once published, a third for its late sidecars: about 150 ms of CPU a
package before any of its own work, most of a cold ``--all-deps`` on two cores. From the CLI's
one thread, ``index`` forks the indexers instead, up to the concurrency bound at a time, after
loading once what each of them needs (the indexing code, the registries' modules, the TLS
context, the registry hosts' addresses: httpclient.py), and waits for them in one ``select``
loop. Each is the leashed fork a cold one-target call runs, but leaves its late sidecars
(``"late": "later"``): once all are done, one fork takes
every published entry's lock and derives them all as ``--late`` (indexer.py), within the one
bound a late phase has, what is left over derived on a tool's first use.

A process with threads (the MCP server) must not fork: ``index_elsewhere`` has a helper,
``python -m codenav.cache.many``, leashed to it as an indexer is, run ``index`` for it; the helper
watches the leash in its select loop, so the caller's end stops it and, through their own
leashes, its forks.

What it does not settle — an alias another process is indexing, an indexer that ended without
an entry or a recorded failure, a wait that ran out — the caller's threaded path opens as before.
"""

from __future__ import annotations

import os
import time

from ..errors import CodenavError
from . import forked, store
from .locks import busy, lock_path, try_lock

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def possible() -> bool:
    """Whether this process may fork its indexers (the CLI, with one thread: forked.py)."""
    return forked.possible()


def index(jobs: list[dict[str, Any]], wait_ms: int, concurrency: int,
          done: Callable[[], None] | None = None, *, leash: int | None = None,
          ended_one: Callable[[int, bool], None] | None = None) -> dict[int, CodenavError]:
    """Index the package ``jobs`` (cache/open.py's ``package_job``) side by side, ``done()`` after
    each; the failures recorded by their indexers and INDEXING for those still at work when the
    wait ran out, by position. The published ones are in the cache when this returns; any other
    (not started in the wait among them) is the caller's to open (module docstring). The helper
    process (``main``) also watches its ``leash`` (``Cut`` when it ends) and tells each job's end
    to ``ended_one(position, published)``."""
    from .open import PACKAGE_PARENT, open_log, read_result, still_indexing

    _load_what_indexers_need(jobs)
    deadline = time.monotonic() + wait_ms / 1000.0
    waiting = [i for i, job in enumerate(jobs) if not busy(job["alias"])]
    waiting.reverse()  # popped from the end: in the callers' order
    running: dict[int, tuple[int, forked.Forked]] = {}  # its stdout's descriptor -> (position, child)
    ended: list[forked.Forked] = []
    published: dict[int, str] = {}
    failed: dict[int, CodenavError] = {}
    log = open_log()
    try:
        while waiting or running:
            while waiting and len(running) < concurrency and time.monotonic() < deadline:
                position = waiting.pop()
                job = {**jobs[position], "leash": True, "notify": True, "progressUntil": None, "late": "later"}
                child = forked.start(job, log.fileno(), PACKAGE_PARENT)
                running[child.stdout.fileno()] = (position, child)
            left = deadline - time.monotonic()
            if not running or left <= 0:
                break
            for fd in _ready([*running, *([leash] if leash is not None else [])], left):
                if fd == leash:
                    if b"r" not in os.read(fd, 64):  # its end: whoever started this is gone
                        raise Cut
                    leash = None  # released: finish alone
                    continue
                position, child = running[fd]
                said = os.read(fd, 4096)
                if said.split():
                    published[position] = said.split()[-1].decode("utf-8", "replace")
                    continue
                del running[fd]  # end of file: the indexer is ending
                child.stdout.close()
                ended.append(child)
                if position not in published:
                    outcome = read_result(jobs[position]["alias"])
                    if outcome is not None:
                        failed[position] = outcome
                if ended_one is not None:
                    ended_one(position, position in published)
                if done is not None:
                    done()
            _reap(ended)
    finally:
        for position, child in running.values():  # past the wait: they go on, leashed, as after INDEXING
            child.stdout.close()
            failed[position] = still_indexing(jobs[position]["alias"], wait_ms)
        log.close()
    _reap(ended, wait=True)
    _derive_late([(jobs[p]["alias"], key) for p, key in sorted(published.items())])
    return failed


def _load_what_indexers_need(jobs: list[dict[str, Any]]) -> None:
    """Imported and built once here, inherited by every fork rather than redone by each."""
    from .. import net, registries
    from ..config import trust
    from . import download, indexer, indexing, lazy  # noqa: F401

    trust.context()
    for name in sorted({job["registry"] for job in jobs}):
        registry = registries.load(name)
        net.look_up_ahead(registry.endpoint(), getattr(registry, "PACKAGE_MANAGER", None))


def _ready(fds: list[int], seconds: float) -> list[int]:
    import select

    return select.select(fds, [], [], seconds)[0]


def _reap(children: list[forked.Forked], wait: bool = False) -> None:
    """Forget the indexers that have exited (their leashes closed); with ``wait``, give the last
    ones a moment (they exit right after closing their stdout)."""
    from .. import proc

    for child in list(children):
        if (child.wait(1.0) if wait else child.poll()) is not None:
            proc.forget(child)  # type: ignore[arg-type]
            children.remove(child)


def _derive_late(published: list[tuple[str, str]]) -> None:
    """One fork derives the late sidecars of every published entry that lacks them, holding the
    request's lock of each (taken here, so nobody sees the entry idle before they are derived)."""
    from .indexing import lacks_late

    entries: list[tuple[str, int]] = []
    for alias, key in published:
        entry = store.find(key)
        if entry is None or entry.ranged or not lacks_late(entry):
            continue
        fd = os.open(lock_path(alias), os.O_RDWR | os.O_CREAT, 0o644)
        if try_lock(fd):
            entries.append((key, fd))
        else:
            os.close(fd)  # another indexer has it: it derives them
    if not entries:
        return
    from .open import PACKAGE_PARENT, open_log

    log = open_log()
    try:
        child = forked.start({"kind": "late", "entries": entries}, log.fileno(), PACKAGE_PARENT,
                             keep=tuple(fd for _, fd in entries))
        child.stdout.close()  # it says nothing: the late phase's stdout is /dev/null
    finally:
        log.close()
        for _, fd in entries:
            os.close(fd)  # the fork holds them now


# --- the helper process, for a caller that may not fork (the MCP server) -------------------------

HELPER_WAIT_MS = 600_000  # the helper indexes every job it was given: its caller's wait is its own


class Cut(Exception):
    """The helper's leash ended without a release: its caller is gone."""


def index_elsewhere(jobs: list[dict[str, Any]], wait_ms: int, concurrency: int) -> dict[int, CodenavError]:
    """``index`` run by a helper process, ``python -m codenav.cache.many`` (a process with threads
    must not fork), leashed to this one as an indexer is: this waits up to ``wait_ms`` for the
    jobs' ends, which it tells on its stdout; past that it carries on while this process lives,
    and every job it has not ended is INDEXING."""
    import json
    import select

    from .. import proc
    from ..paths import atomic_write, cache_subdir
    from .open import open_log, read_result, spawn_leashed, still_indexing

    listing = os.path.join(cache_subdir("tmp"), f"many-{os.getpid()}-{time.monotonic_ns()}.json")
    atomic_write(listing, json.dumps(jobs), remake_parent=True)
    log = open_log()
    try:
        child = spawn_leashed("many", [listing, str(concurrency)], log)
    except proc.NotStarted:
        os.unlink(listing)
        return {}  # the caller's threaded path opens each as before
    finally:
        log.close()
    ended: dict[int, bool] = {}
    deadline = time.monotonic() + wait_ms / 1000.0
    said = b""
    gone = False  # the helper ended before telling every job's end: the rest are nobody's
    try:
        while len(ended) < len(jobs):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([child.stdout], [], [], left)[0]:
                break
            chunk = os.read(child.stdout.fileno(), 65536)
            if not chunk:
                gone = True
                break
            said += chunk
            *lines, said = said.split(b"\n")
            for line in lines:
                position, _, outcome = line.decode("ascii", "replace").partition(" ")
                if position.isdigit() and int(position) < len(jobs):
                    ended[int(position)] = outcome == "published"
    finally:
        child.stdout.close()
        if child.poll() is not None:
            proc.forget(child)
    failed = {}
    for position, published in ended.items():
        outcome = None if published else read_result(jobs[position]["alias"])
        if outcome is not None:
            failed[position] = outcome
    if not gone:  # the wait ran out: the helper goes on with every job it has not ended
        failed.update({position: still_indexing(job["alias"], wait_ms)
                       for position, job in enumerate(jobs) if position not in ended})
    return failed


def main(argv: list[str] | None = None) -> int:
    """The helper: index the jobs listed in the file ``argv[0]`` (removed once read), ``argv[1]``
    at a time, each job's end told on stdout as ``POSITION published|ended``."""
    import json
    import sys

    import codenav

    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0], encoding="utf-8") as handle:
        jobs = json.load(handle)
    os.unlink(argv[0])
    codenav.fork_indexer = True  # one thread, started for this: its indexers are forks

    def tell(position: int, published: bool) -> None:
        try:
            os.write(1, f"{position} {'published' if published else 'ended'}\n".encode())
        except OSError:
            pass  # the caller stopped waiting and went: the jobs go on all the same

    try:
        index(jobs, HELPER_WAIT_MS, int(argv[1]), leash=0, ended_one=tell)
    except Cut:
        return 1  # at exit the indexers' leashes end too: each stops as it would without its caller
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
