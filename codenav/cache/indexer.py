"""``python -m codenav.cache.indexer JOB``: build one cache entry, detached from the caller (SPEC §3.6).

Started by ``cache.open`` in its own session and leashed (proc.spawn): its stdin is a pipe from
the process that started it, so it may outlive a call that stopped waiting (INDEXING) but not
that process (docs/decisions.md, issue 27):

- ``r`` on the pipe releases it: the CLI answered and lets it finish alone, within the
  deadlines of SPEC §8.
- The pipe's end without ``r`` means that process is gone (it exited, was stopped, or was
  killed outright). While anything is still being fetched (resolution, download, git fetch)
  the indexer then stops at once: SIGTERM to itself unwinds the build — its programs killed,
  its build directory removed, nothing published, no failure recorded. Once all is fetched
  (extract, derive, publish: local work) it may finish the publication within
  ``PUBLISH_GRACE`` seconds, else it stops the same way. Either way it exits without the late
  sidecars. A stop that has not unwound after ``HARD_STOP`` seconds ends the process outright;
  an entry exists only once renamed, so even that leaves no half of one.
- Otherwise, once published, it derives the late sidecars (the symbol index) as a fresh
  process: it re-executes itself as ``--late KEY LOCK_FD``, which closes every socket it held,
  keeps the request's lock, and is stopped after ``CODENAV_SIDECAR_TIMEOUT`` seconds (default
  120) by a timer that survives the exec. This late phase is the one designed exception: it may
  outlive the process that started the indexer — bounded in time, with no network connection.

The outcome is the published entry, or an error left in ``jobs/``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading

PUBLISH_GRACE = 30.0  # seconds a cut-loose indexer may go on publishing what it has fetched
HARD_STOP = 5.0  # seconds a stopping indexer gets to unwind before it exits regardless
SIDECAR_TIMEOUT = 120.0  # seconds for the late sidecars, CODENAV_SIDECAR_TIMEOUT
LATE = "--late"


class Stopped(BaseException):
    """SIGTERM (the leash was cut, or someone stopped the indexer): unwind, publish nothing."""


class OutOfTime(BaseException):
    """The late sidecars' time is up (SIGALRM), or the late phase was stopped (SIGTERM)."""


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [LATE]:  # --late KEY LOCK_FD [KEY LOCK_FD ...]
        return _late(list(zip(argv[1::2], map(int, argv[2::2]), strict=True)))
    return run(json.loads(argv[0]))


def run(job: dict) -> int:
    """Build ``job``'s entry; the exit status (a failure is recorded in jobs/ for the waiter).
    Also what a forked indexer runs (cache/forked.py), with the same leash on its stdin."""
    from ..errors import CodenavError
    from .indexing import build

    if job.get("kind") == "late":  # the late sidecars of many entries, their locks inherited (cache/many.py)
        _exec_late([(key, fd) for key, fd in job["entries"]])
    signal.signal(signal.SIGTERM, _raise_once(Stopped))
    leash = _Leash() if job.get("leash") else None

    def late(key: str, lock_fd: int) -> None:
        if job.get("late") == "later":
            return  # its caller hands them, with the lock, to one process for many entries (cache/many.py)
        if leash is None or leash.keep_for_late():
            _exec_late([(key, lock_fd)])
        # else cut loose while publishing: nobody waits for the sidecars (a tool derives them on first use)

    try:
        build(job, fetched=leash.fetched if leash is not None else None, late=late)
    except Stopped:
        return 128 + signal.SIGTERM
    except CodenavError:
        return 1
    except Exception:
        import traceback

        traceback.print_exc(file=sys.stderr)
        return 1
    return 0


class _Leash:
    """The indexer's end of the pipe from the process that started it (the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fetching = True
        self._late = False
        self._cut = False
        threading.Thread(target=self._watch, name="leash", daemon=True).start()

    def fetched(self) -> None:
        """Nothing more is downloaded: a cut from now on leaves PUBLISH_GRACE to publish."""
        with self._lock:
            self._fetching = False

    def keep_for_late(self) -> bool:
        """False when the leash was cut; else True, and a later cut changes nothing."""
        with self._lock:
            self._late = not self._cut
            return self._late

    def _watch(self) -> None:
        while True:
            try:
                chunk = os.read(0, 64)
            except InterruptedError:
                continue
            except OSError:
                chunk = b""
            if b"r" in chunk:
                return  # released: finish alone
            if not chunk:
                break
        with self._lock:
            if self._late:
                return
            self._cut = True
            fetching = self._fetching
        if fetching:
            _stop_self()
        else:
            timer = threading.Timer(PUBLISH_GRACE, _stop_self)
            timer.daemon = True
            timer.start()


def _stop_self() -> None:
    os.kill(os.getpid(), signal.SIGTERM)


def _raise_once(error: type[BaseException]) -> object:
    """A signal handler raising ``error`` in the main thread the first time, then nothing (so
    an unwinding is never cut short), with the backstop armed."""
    raised: list[bool] = []

    def handler(signum: int, frame: object) -> None:
        if raised:
            return
        raised.append(True)
        _backstop(HARD_STOP)
        raise error

    return handler


def _backstop(seconds: float) -> None:
    """End the process after ``seconds`` whatever it is doing (a thread: the main one may be
    stuck in a call that lets no signal handler run); its guarded programs are killed first."""

    def end() -> None:
        import time

        time.sleep(seconds)
        from .. import proc

        proc.end_children()
        os._exit(1)

    threading.Thread(target=end, name="backstop", daemon=True).start()


def _exec_late(entries: list[tuple[str, int]]) -> None:
    """Become ``--late KEY LOCK_FD ...`` (never returns): each entry's lock stays held across the
    exec, every other descriptor (sockets included) is closed by it, and the timer set here
    survives it: one bound for all the entries."""
    seconds = _sidecar_timeout()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    for _, lock_fd in entries:
        os.set_inheritable(lock_fd, True)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)  # the leash is not the late phase's: it answers to its own timer
    os.dup2(null, 1)  # nor the caller's pipe, which was told the entry is published
    os.close(null)
    # Until the new process installs its handler, SIGALRM's default action ends it: the bound
    # holds even if it never gets that far.
    signal.setitimer(signal.ITIMER_REAL, seconds)
    pairs = [str(part) for entry in entries for part in entry]
    os.execv(sys.executable, [sys.executable, "-m", f"{__package__}.indexer", LATE, *pairs])


def _late(entries: list[tuple[str, int]]) -> int:
    """Derive the late sidecars of each entry (its lock held through its descriptor, let go once
    they are derived), within the time the exec'ing indexer set; a sidecar not finished in time
    is removed whole, not left half, and the entries after it are left to a tool's first use."""
    from .indexing import derive_late

    left = signal.getitimer(signal.ITIMER_REAL)[0]
    if not left:  # run by hand: the bound is set here
        left = _sidecar_timeout()
        signal.setitimer(signal.ITIMER_REAL, left)
    signal.signal(signal.SIGALRM, _raise_once(OutOfTime))
    signal.signal(signal.SIGTERM, _raise_once(OutOfTime))
    _backstop(left + HARD_STOP)
    key = ""
    try:
        for key, lock_fd in entries:
            derive_late(key)
            os.close(lock_fd)
    except OutOfTime:
        sys.stderr.write(f"codenav: the late sidecars of {key} were stopped at their time limit "
                         "(CODENAV_SIDECAR_TIMEOUT); a tool derives them on first use\n")
        return 1
    return 0


def _sidecar_timeout() -> float:
    raw = os.environ.get("CODENAV_SIDECAR_TIMEOUT")
    try:
        value = float(raw) if raw else SIDECAR_TIMEOUT
    except ValueError:
        value = 0.0
    if not 0 < value < 1e7:  # nobody to answer CONFIG_ERROR to here: say so in the log, keep the default
        sys.stderr.write(f"codenav: CODENAV_SIDECAR_TIMEOUT must be a positive number of seconds, got {raw!r}; "
                         f"the late sidecars get {SIDECAR_TIMEOUT:g} s\n")
        return SIDECAR_TIMEOUT
    return value


if __name__ == "__main__":
    raise SystemExit(main())
