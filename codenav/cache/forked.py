"""The indexer as a fork of the ``codenav`` command itself, for a cold CLI call (SPEC §3.6).

``python -m codenav.cache.indexer JOB`` starts a second interpreter that imports again what the
command already holds: 20-30 ms of a cold call whose network part takes about 70. A command
with one thread can fork instead: the child does what the indexer process does, in the same
conditions (its own session; stdin the leash, a pipe from the command (proc.py); stdout a pipe
on which it names the published entry; stderr to ``tmp/indexer.log`` unless progress is drawn on
the terminal; every other descriptor closed; ``PYTHONPATH`` naming this codenav for what it
starts in turn, the late phase included), and leaves with ``os._exit``, never through the
parent's exit handlers or buffers.

It is tied to the command as the indexer process is (issue 27): the parent keeps the leash's
other end in proc's table (``proc.adopt``), so the command's exit releases it once it answered
and cuts it otherwise, and the command's death (even SIGKILL) cuts it; the child forgets the
parent's children and guardian (``proc.forked_child``) and, at its end, ends its own
(``proc.shutdown``), as the indexer process does at its exit.

Only ``cli.main`` run as the program (``argv=None``; ``codenav.fork_indexer``) allows it, and only while the process has
one thread: the MCP server, embedders and tests calling ``cli.main([...])`` start the indexer
process as before (cache/open.py).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from typing import Any

def possible() -> bool:
    """Whether this process may fork its indexer: allowed (``codenav.fork_indexer``), on a POSIX
    system, with one thread."""
    from .. import fork_indexer

    if not fork_indexer or not hasattr(os, "fork"):
        return False
    threading = sys.modules.get("threading")  # not imported: no thread was started through it
    return threading is None or threading.active_count() == 1


class Forked:
    """The forked indexer, as much of ``subprocess.Popen`` as cache/open.py uses."""

    def __init__(self, pid: int, stdout: Any) -> None:
        self.pid, self.stdout, self.returncode = pid, stdout, None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped already: its status is lost, it is gone all the same
                pid, status = self.pid, 255 << 8
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds for the exit (in short sleeps: it is rare, and late)."""
        import time

        end = time.monotonic() + timeout
        while self.poll() is None and time.monotonic() < end:
            time.sleep(min(0.005, max(0.0, end - time.monotonic())))
        return self.returncode


def start(job: dict[str, Any], log_fd: int | None, package_parent: str, keep: tuple[int, ...] = ()) -> Forked:
    """Fork, run ``job`` in the child as the indexer process would, and return the parent's handle,
    leashed in proc's table; ``log_fd`` becomes the child's stderr (None: it keeps this one, for
    progress); the descriptors ``keep`` stay open in the child (the locks a late phase inherits)."""
    from .. import proc

    leash_read, leash_write = os.pipe()
    read_end, write_end = os.pipe()
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()  # nothing written before the fork may be written twice
    pid = os.fork()
    if pid == 0:  # the child: it never returns from here
        status = 1
        try:
            os.setsid()
            import signal

            signal.signal(signal.SIGHUP, signal.SIG_DFL)  # the command's handler is not the indexer's
            proc.forked_child()
            _descriptors(leash_read, write_end, log_fd, keep)
            os.environ["PYTHONPATH"] = package_parent + (
                os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
            from .indexer import run

            status = run(job)
        finally:
            try:
                proc.shutdown()  # what the indexer process's exit does: its programs end with it
            finally:
                os._exit(status)
    os.close(write_end)
    os.close(leash_read)
    child = Forked(pid, os.fdopen(read_end, "rb", buffering=0))
    proc.adopt(child, leash_write)
    return child


def _descriptors(stdin_fd: int, stdout_fd: int, log_fd: int | None, keep: tuple[int, ...] = ()) -> None:
    """stdin from ``stdin_fd`` (the leash), stdout to ``stdout_fd``, stderr to ``log_fd`` (kept
    when None: progress for the terminal), every other descriptor but ``keep`` closed, as
    ``Popen(close_fds=True, pass_fds=keep)``."""
    os.dup2(stdin_fd, 0)
    os.dup2(stdout_fd, 1)
    if log_fd is not None:
        os.dup2(log_fd, 2)
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, _max_fd())


def _max_fd() -> int:
    try:
        return os.sysconf("SC_OPEN_MAX")
    except (AttributeError, ValueError, OSError):
        return 1024
