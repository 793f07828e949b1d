"""grep_repo's deadline runner: a scan stopped at its deadline, here or in a warm child process.

``run_until`` runs a scan (search/grep.py) in the main thread under ``SIGALRM``: Python's
``re`` checks for signals while it matches, so even a catastrophically backtracking pattern
stops. In any other thread (the MCP server's workers) no signal can reach, and ``re`` holds the
GIL, so ``run_in_child`` runs the scan in a ``python -m codenav.search.grep_worker`` process
kept warm between calls, which stops itself the same way and is killed only if it does not.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any


class _Stop(Exception):
    """The deadline's SIGALRM, raised inside the scan only (never while an event is handled)."""


def run_until(events: Iterator[Any], on_event: Callable[[list], None], deadline: float) -> bool | None:
    """Run a scan (its ``events``) here, feeding them to ``on_event``, stopped at ``deadline`` by SIGALRM
    (``re`` checks for signals while it matches, so a stuck pattern stops too). True when the
    deadline stopped it, False when it finished; None, without running it, outside the main
    thread, where Python delivers no signal (the caller runs it in a child then)."""
    import _signal as signal  # loaded at start-up; `signal` would cost a CLI regex its enums (1 ms)
    import time

    state = {"armed": False, "rang": False}

    def ring(signum: int, frame: Any) -> None:
        state["rang"] = True
        if state["armed"]:
            raise _Stop

    try:
        previous = signal.signal(signal.SIGALRM, ring)
    except (ValueError, AttributeError):  # not the main thread (or no SIGALRM on this platform)
        return None
    try:
        signal.setitimer(signal.ITIMER_REAL, max(deadline - time.monotonic(), 0.001))
        while True:
            state["armed"] = True
            try:
                if state["rang"]:
                    raise _Stop
                event = next(events)
            except StopIteration:
                return False
            finally:
                state["armed"] = False
            on_event(event)
    except _Stop:
        return True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        events.close()


_IDLE: list[Any] = []  # warm grep_worker conversations between calls (a server reuses them)
_KEEP = 2  # at most this many kept: one per concurrent regex search of the MCP server's workers
_GRACE = 2.0  # seconds past the deadline before a worker that did not stop itself is killed


def _take_worker() -> Any:
    from .. import proc

    while _IDLE:
        try:
            worker = _IDLE.pop()
        except IndexError:  # another thread took the last one
            break
        if worker.alive():
            return worker
        worker.kill()
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": package_root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    import sys

    return proc.Conversation([sys.executable, "-m", f"{__package__}.grep_worker"], env=env)


def run_in_child(job: dict[str, Any], on_event: Callable[[list], None], deadline: float) -> bool:
    """Run ``job`` in a ``python -m codenav.search.grep_worker`` process (a warm one when a
    previous call left it), feeding its events to ``on_event``; True when the deadline stopped
    it. The worker stops itself at the deadline (scan_until) and stays reusable; one that does
    not within a grace period is killed. Python's ``re`` holds the GIL inside one search, so
    only another process can be stopped without stopping this one."""
    import json
    import time

    from .. import proc
    from ..errors import CodenavError

    outcome: dict[str, Any] = {}

    def on_line(line: bytes) -> bool:
        for event in json.loads(line):
            kind = event[0]
            if kind in ("d", "t"):
                outcome["timed_out"] = kind == "t"
                return True
            if kind == "e":
                outcome["error"] = CodenavError(event[1], event[2], details=event[3])
                return True
            on_event(event)
        return False

    try:
        worker = _take_worker()
    except proc.NotStarted as exc:
        raise CodenavError("INTERNAL", f"the regex search process could not be started ({exc})") from None
    request = json.dumps({**job, "seconds": deadline - time.monotonic()}).encode("utf-8") + b"\n"
    answered = worker.ask(request, deadline + _GRACE, on_line)
    if answered is None:
        return True
    if not answered:
        raise CodenavError("INTERNAL", "the regex search process stopped unexpectedly")
    if len(_IDLE) < _KEEP:
        _IDLE.append(worker)
    else:
        worker.close()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["timed_out"]
