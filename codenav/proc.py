"""The one hardened subprocess runner: a deadline, capped pipes, the whole group killed (SPEC §8).

Every program codenav starts and waits for — git, gh, npm and pip asked for their
configuration, and whatever discovery command a registry adds — goes through ``run``:

- stdin is ``/dev/null``: nothing a child prints or asks can reach the MCP wire (SPEC §6);
- the child gets a new session: no controlling terminal to prompt on, and one process group,
  so a timeout kills every helper it started (git-remote-https, ssh, upload-pack…);
- one deadline covers the whole run; stdout is read as it fills, against a byte cap, into
  memory or straight into a file; only the tail of stderr is kept;
- an overrun is ``TimedOut``, too much output ``OverCap``, a program that cannot be started
  ``NotStarted``. Each caller turns these into its own words (a git TIMEOUT, gh's fallback).

``Conversation`` is the same runner for a long-lived child spoken to in lines (the regex
search's worker, kept warm by the MCP server): a request in, each stdout line of the answer
to a callback as it arrives, the child killed at a deadline. The indexer, which must outlive its caller, is
detached instead (cache/open.py).
"""

from __future__ import annotations

import os
import subprocess
import time

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO

STDERR_KEEP = 64 * 1024  # bytes of stderr kept: the tail, where programs put the reason
_CHUNK = 256 * 1024


class Deadline:
    """One deadline shared by the several processes of one operation."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        return self.end - time.monotonic()


class TimedOut(Exception):
    """The deadline passed before the program exited; it has been killed."""


class OverCap(Exception):
    """The program wrote more than the cap to stdout; it has been killed."""


class NotStarted(Exception):
    """The program could not be started; ``str()`` says why in a few words."""


class Outcome:
    """A finished run: exit status, captured stdout (empty when it went to a file), stderr's tail."""

    __slots__ = ("returncode", "stdout", "stderr")

    def __init__(self, returncode: int, stdout: bytes, stderr: bytes) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr

    def stderr_text(self) -> str:
        return self.stderr.decode("utf-8", "replace")


def run(argv: list[str], deadline: Deadline | float, *, cap: int, sink: IO[bytes] | None = None,
        env: dict[str, str] | None = None, cwd: str | None = None, stderr_keep: int = STDERR_KEEP) -> Outcome:
    """Run ``argv`` to its end within ``deadline`` (seconds or a shared Deadline).

    stdout goes to ``sink`` when given, else it is returned; either way at most ``cap`` bytes.
    ``cwd`` defaults to the filesystem root: never inside whatever project the caller is in.
    """
    if not isinstance(deadline, Deadline):
        deadline = Deadline(deadline)
    if deadline.remaining() <= 0:
        raise TimedOut
    try:
        child = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, cwd=cwd if cwd is not None else os.path.abspath(os.sep), start_new_session=True,
        )
    except OSError as exc:
        raise NotStarted(exc.strerror or type(exc).__name__) from None
    captured: list[bytes] = []
    try:
        err = _pump(child, deadline, sink, captured, cap, stderr_keep)
    except BaseException:  # TimedOut, OverCap, KeyboardInterrupt: no child outlives the call
        kill(child)
        raise
    return Outcome(child.returncode, b"".join(captured), err)


def _pump(child: subprocess.Popen[bytes], deadline: Deadline, sink: IO[bytes] | None,
          captured: list[bytes], cap: int, stderr_keep: int) -> bytes:
    """Copy stdout to ``sink`` (or into ``captured``) and keep stderr's tail until the child exits.

    ``communicate`` would buffer whatever a hostile peer makes the child print; this reads both
    pipes as they fill, as net.request reads a body.
    """
    import selectors

    assert child.stdout is not None and child.stderr is not None
    err = b""
    size = 0
    with selectors.DefaultSelector() as selector:
        selector.register(child.stdout, selectors.EVENT_READ, "out")
        selector.register(child.stderr, selectors.EVENT_READ, "err")
        while selector.get_map():
            left = deadline.remaining()
            if left <= 0:
                raise TimedOut
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, _CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                elif key.data == "err":
                    err = (err + chunk)[-stderr_keep:]
                else:
                    size += len(chunk)
                    if size > cap:
                        raise OverCap
                    if sink is not None:
                        sink.write(chunk)
                    else:
                        captured.append(chunk)
    child.stdout.close()
    child.stderr.close()
    try:
        child.wait(timeout=max(0.0, deadline.remaining()))
    except subprocess.TimeoutExpired:  # closed its pipes but lingers
        raise TimedOut from None
    return err


def kill(child: subprocess.Popen[bytes]) -> None:
    """Kill the child's whole process group and reap it."""
    import signal

    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):
        child.kill()
    try:
        child.communicate(timeout=5)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        pass


def output(argv: list[str], seconds: float, *, cwd: str | None = None, cap: int = 1024 * 1024) -> str | None:
    """The stdout of a short query (``npm config get registry``) as text, or None when the
    program is missing, fails, or overruns: discovery then moves on to the next rung.
    ``cwd``: where the program looks for project configuration (npm reads ./.npmrc)."""
    try:
        done = run(argv, seconds, cap=cap, cwd=cwd)
    except (TimedOut, OverCap, NotStarted):
        return None
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


class Conversation:
    """A long-lived child spoken to in lines (the regex search's worker): ``ask`` writes one
    request to its stdin and hands each stdout line to a callback until the callback says the
    answer is complete. It runs in its own session with stdin/stdout as pipes, stderr discarded;
    at a deadline its whole group is killed. A server keeps one between calls, so a call does
    not pay for starting Python."""

    def __init__(self, argv: list[str], *, env: dict[str, str] | None = None) -> None:
        try:
            self.child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, env=env, cwd=os.path.abspath(os.sep),
                                          start_new_session=True, close_fds=True)
        except OSError as exc:
            raise NotStarted(exc.strerror or type(exc).__name__) from None
        self._pending = b""

    def ask(self, request: bytes, deadline: float, on_line: Callable[[bytes], bool]) -> bool | None:
        """Send ``request`` (``deadline`` is a ``time.monotonic()`` value); True when ``on_line``
        said the answer is complete, False when the child ended first (then it is reaped), None
        when the deadline passed (then it is killed)."""
        import select

        child = self.child
        assert child.stdin is not None and child.stdout is not None
        try:
            child.stdin.write(request)
            child.stdin.flush()
            fd = child.stdout.fileno()
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                    self.kill()
                    return None
                chunk = os.read(fd, _CHUNK)
                if not chunk:
                    self.kill()
                    return False
                *lines, self._pending = (self._pending + chunk).split(b"\n")
                for line in lines:
                    if on_line(line):
                        return True
        except BrokenPipeError:
            self.kill()
            return False
        except BaseException:
            self.kill()  # an answer half read cannot be resumed
            raise

    def alive(self) -> bool:
        return self.child.poll() is None

    def close(self) -> None:
        """End the conversation: stdin closed (the child's cue to exit), killed if it lingers."""
        try:
            assert self.child.stdin is not None
            self.child.stdin.close()
            self.child.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            self.kill()
        if self.child.stdout is not None:
            self.child.stdout.close()

    def kill(self) -> None:
        if self.child.poll() is None:
            kill(self.child)
        else:
            self.child.wait()
