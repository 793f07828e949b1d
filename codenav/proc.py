"""The one hardened subprocess runner, and the lifetime of every process codenav starts (SPEC §8).

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
to a callback as it arrives, the child killed at a deadline.

No child outlives codenav (SPEC §8, docs/decisions.md "issue 27"). Every child is started by
``spawn`` and kept in this process's table until it is reaped, tied to codenav in one of three
ways:

- ``guard`` (programs, the regex worker): it leads its own process group, and a guardian
  process (guardian.py, started with the first such child) kills every group still listed when
  codenav ends, however it ends — exit, crash or SIGKILL: the guardian reads the end of a pipe
  only codenav writes to as codenav's death. The group takes git's own helpers with it; on
  Linux the guardian also ends every process whose environment carries its mark
  (``CODENAV_GUARDIAN``, set in each guarded child's), so a child codenav had no time to list,
  or a helper that left the group, goes too.
- ``leash`` (the indexer, which may outlive a call): its stdin is a pipe from codenav. ``r`` on it
  releases the child to finish alone (the CLI answered INDEXING); the pipe's end without ``r``
  tells it codenav is gone, and it stops itself (cache/indexer.py). The CLI forks itself into
  its indexer rather than start one (cache/forked.py): ``adopt`` keeps that fork in the table
  on the same leash, and ``forked_child`` makes the fork forget its parent's children.
- ``pipe`` (the file-writing helper): it stays in codenav's process group and ends when its
  stdin, a pipe from codenav, ends.

``stop_children(thread)`` kills the children one thread is running (a cancelled MCP call);
``end_children`` kills the guarded children of one thread or of all and cuts or releases
their leashes (the CLI's exit); ``shutdown`` does it for every child and refuses new ones (the
MCP server's exit).
"""

from __future__ import annotations

import _thread  # threading would cost a warm call functools and collections
import os
import time

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable
    from typing import IO, Any

STDERR_KEEP = 64 * 1024  # bytes of stderr kept: the tail, where programs put the reason
_CHUNK = 256 * 1024
_GUARDIAN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guardian.py")
GUARDIAN_MARK = "CODENAV_GUARDIAN"  # in a guarded child's environment: its guardian's pid


class Deadline:
    """One deadline shared by the several steps of one operation (processes, an HTTP exchange)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        return self.end - time.monotonic()

    def left(self) -> float:
        """The seconds that remain; TimeoutError when none do (for socket timeouts)."""
        left = self.end - time.monotonic()
        if left <= 0:
            raise TimeoutError
        return left


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


# --- the children of this process --------------------------------------------------------------

class _Child:
    __slots__ = ("popen", "tie", "leash", "owner")

    def __init__(self, popen: subprocess.Popen[bytes], tie: str, leash: int | None, owner: int | None) -> None:
        self.popen, self.tie, self.leash, self.owner = popen, tie, leash, owner


_lock = _thread.allocate_lock()
_children: dict[int, _Child] = {}  # pid -> child, until reaped
_guardian: list = []  # [Popen] of the running guardian; empty before the first guarded child
_closed = False  # after shutdown(): no new child
_unlisted = False  # a start was interrupted: a child may run that no table lists (_release_guardian)


def spawn(argv: list[str], *, tie: str = "guard", stdin: int | IO[bytes] | None = None,
          stdout: int | IO[bytes] | None = None, stderr: int | IO[bytes] | None = None,
          env: dict[str, str] | None = None, cwd: str | None = None) -> subprocess.Popen[bytes]:
    """Start ``argv`` tied to this process (``tie``: guard, leash or pipe; the module docstring).

    stdin defaults to /dev/null (a leash replaces it), cwd to the filesystem root. The child is
    kept in this process's table, owned by the calling thread, until ``forget`` is told it was
    reaped. ``NotStarted`` when it cannot be started, or after ``shutdown``.
    """
    import subprocess

    global _unlisted
    leash_read = leash_write = None
    with _lock:
        if _closed:
            raise NotStarted("codenav is shutting down")
        _prune()
        if tie == "leash":
            leash_read, leash_write = os.pipe()  # both ends close-on-exec; Popen makes the child's its stdin
            stdin = leash_read
        if tie == "guard" and _guardian_running():
            # The mark the guardian also looks for (Linux): whatever descends from this child,
            # listed or not yet, it carries the guardian's number in its environment.
            env = {**(os.environ if env is None else env), GUARDIAN_MARK: str(_guardian[0].pid)}
        try:
            popen = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL if stdin is None else stdin, stdout=stdout, stderr=stderr,
                env=env, cwd=cwd if cwd is not None else os.path.abspath(os.sep),
                start_new_session=tie != "pipe", close_fds=True,
            )
        except BaseException as exc:
            if leash_write is not None:
                os.close(leash_write)
            if isinstance(exc, OSError):
                raise NotStarted(exc.strerror or type(exc).__name__) from None
            _unlisted = True  # a signal inside Popen, maybe after the start: the guardian must sweep
            raise
        finally:
            if leash_read is not None:
                os.close(leash_read)
        _children[popen.pid] = _Child(popen, tie, leash_write, _thread.get_ident())
        if tie == "guard":
            _tell_guardian(f"+{popen.pid}\n")
    return popen


def adopt(child: Any, leash: int) -> None:
    """Keep ``child``, this process's fork running the indexer (cache/forked.py), in the table,
    leashed by ``leash``: the write end of the pipe that is its stdin."""
    with _lock:
        _children[child.pid] = _Child(child, "leash", leash, _thread.get_ident())


def forked_child() -> None:
    """First thing in that fork: the table and the guardian are the parent's; forget them (its
    copy of the guardian's pipe closed, so no stale file object closes a reused descriptor)."""
    global _unlisted
    _unlisted = False
    _children.clear()
    for popen in _guardian:
        popen.stdin.close()
    _guardian.clear()


def forget(child: subprocess.Popen[bytes]) -> None:
    """``child`` has been reaped: drop it from the table (and from the guardian's list)."""
    with _lock:
        record = _children.pop(child.pid, None)
        if record is not None:
            _let_go(record, release=False)
            if record.tie == "guard":
                _tell_guardian(f"-{child.pid}\n")


def own(child: subprocess.Popen[bytes], thread: int | None) -> None:
    """Say which thread runs ``child`` now (None: nobody; an idle Conversation)."""
    with _lock:
        record = _children.get(child.pid)
        if record is not None:
            record.owner = thread


def stop_children(thread: int) -> None:
    """Kill the guarded children ``thread`` is running (its call was cancelled); leashed ones
    carry on, as after an INDEXING answer."""
    with _lock:
        for record in list(_children.values()):
            if record.owner == thread and record.tie == "guard":
                _kill_group(record.popen)


def end_children(thread: int | None = None, *, release: bool = False) -> None:
    """End the children of ``thread`` (every thread's when None): kill the guarded ones' groups
    and cut the leashes — or, with ``release``, let each leashed child finish alone."""
    with _lock:
        for pid, record in list(_children.items()):
            if thread is not None and record.owner != thread:
                continue
            if record.tie == "guard":
                _kill_group(record.popen)
            elif record.tie == "leash":
                _let_go(record, release)
                del _children[pid]


def shutdown() -> None:
    """The process is ending: refuse new children, end every one, and let the guardian go."""
    import subprocess

    global _closed
    with _lock:
        _closed = True
    end_children()
    with _lock:
        killed = [record.popen for record in _children.values() if record.tie == "guard"]
    for popen in killed:  # reaped here or by the thread that ran it, then off the guardian's list
        try:
            popen.wait(timeout=1)
        except subprocess.TimeoutExpired:
            continue  # still listed: the guardian kills it again
        forget(popen)
    _release_guardian()


def _release_guardian() -> None:
    """An orderly end (shutdown, or the interpreter's exit): every child has been ended, so the
    guardian is told ``.`` (no sweep for unlisted ones is needed — unless a start was interrupted),
    its pipe is closed, and it is waited for a moment — it kills what is still listed and exits."""
    import subprocess

    with _lock:
        for popen in _guardian:
            try:
                if not _unlisted:
                    os.write(popen.stdin.fileno(), b".\n")
                popen.stdin.close()
                popen.wait(timeout=1)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        _guardian.clear()


def _prune() -> None:
    """Reap the leashed and piped children that have exited (the caller holds ``_lock``)."""
    for pid, record in list(_children.items()):
        if record.tie != "guard" and record.popen.poll() is not None:
            _let_go(record, release=False)
            del _children[pid]


def _let_go(record: _Child, release: bool) -> None:
    if record.leash is not None:
        try:
            if release:
                os.write(record.leash, b"r")
        except OSError:
            pass  # it has gone already
        os.close(record.leash)
        record.leash = None


def _kill_group(popen: subprocess.Popen[bytes]) -> bool:
    """SIGKILL to the group ``popen`` leads; False when there is none (already reaped, or not a
    group leader)."""
    import signal

    if popen.returncode is not None:
        return False
    try:
        os.killpg(popen.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _guardian_running() -> bool:
    """True once the guardian runs, started first if need be (the caller holds ``_lock``); False
    where it cannot run (the exit paths still kill every group)."""
    import subprocess
    import sys

    if _guardian and _guardian[0].poll() is not None:
        _guardian.clear()  # killed from outside: the next one is told every group still running
    if not _guardian:
        if not sys.executable or not os.path.isfile(_GUARDIAN):
            return False  # an embedded interpreter, or codenav imported from a zip
        try:
            _guardian.append(subprocess.Popen(
                [sys.executable, "-I", "-S", _GUARDIAN], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, cwd=os.path.abspath(os.sep), start_new_session=True, close_fds=True))
        except OSError:
            return False
        import atexit

        atexit.register(_release_guardian)  # idempotent: after shutdown() there is none to release
        listed = "".join(f"+{pid}\n" for pid, record in _children.items() if record.tie == "guard")
        if listed and not _tell_guardian(listed):
            return False
    return True


def _tell_guardian(line: str) -> bool:
    """Send the guardian one line (the caller holds ``_lock``); False when it has gone (the next
    guarded child starts another)."""
    if not _guardian:
        return False
    try:
        os.write(_guardian[0].stdin.fileno(), line.encode("ascii"))  # under PIPE_BUF: one atomic write
        return True
    except OSError:
        _guardian.clear()
        return False


# --- running a program to its end -------------------------------------------------------------------

def run(argv: list[str], deadline: Deadline | float, *, cap: int, sink: IO[bytes] | None = None,
        env: dict[str, str] | None = None, cwd: str | None = None, stderr_keep: int = STDERR_KEEP) -> Outcome:
    """Run ``argv`` to its end within ``deadline`` (seconds or a shared Deadline).

    stdout goes to ``sink`` when given, else it is returned; either way at most ``cap`` bytes.
    ``cwd`` defaults to the filesystem root: never inside whatever project the caller is in.
    """
    import subprocess

    if not isinstance(deadline, Deadline):
        deadline = Deadline(deadline)
    if deadline.remaining() <= 0:
        raise TimedOut
    child = spawn(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd)
    captured: list[bytes] = []
    try:
        err = _pump(child, deadline, sink, captured, cap, stderr_keep)
    except BaseException:  # TimedOut, OverCap, KeyboardInterrupt: no child outlives the call
        kill(child)
        raise
    forget(child)
    return Outcome(child.returncode, b"".join(captured), err)


def _pump(child: subprocess.Popen[bytes], deadline: Deadline, sink: IO[bytes] | None,
          captured: list[bytes], cap: int, stderr_keep: int) -> bytes:
    """Copy stdout to ``sink`` (or into ``captured``) and keep stderr's tail until the child exits.

    ``communicate`` would buffer whatever a hostile peer makes the child print; this reads both
    pipes as they fill, as net.request reads a body.
    """
    import selectors
    import subprocess

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
    """Kill the child's whole process group, reap it and forget it."""
    import subprocess

    if not _kill_group(child):
        try:
            child.kill()  # not a group leader (a ``pipe`` child)
        except OSError:
            pass
    try:
        child.communicate(timeout=5)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        pass
    forget(child)


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
    answer is complete. It is a guarded child (its own session, killed with codenav) with
    stdin/stdout as pipes, stderr discarded; at a deadline its whole group is killed. A server
    keeps one between calls, so a call does not pay for starting Python."""

    def __init__(self, argv: list[str], *, env: dict[str, str] | None = None) -> None:
        import subprocess

        self.child = spawn(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        own(self.child, None)  # idle until asked: a cancelled call must not take a kept worker
        self._pending = b""

    def ask(self, request: bytes, deadline: float, on_line: Callable[[bytes], bool]) -> bool | None:
        """Send ``request`` (``deadline`` is a ``time.monotonic()`` value); True when ``on_line``
        said the answer is complete, False when the child ended first (then it is reaped), None
        when the deadline passed (then it is killed)."""
        import select

        child = self.child
        assert child.stdin is not None and child.stdout is not None
        own(child, _thread.get_ident())
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
        finally:
            own(child, None)

    def alive(self) -> bool:
        return self.child.poll() is None

    def close(self) -> None:
        """End the conversation: stdin closed (the child's cue to exit), killed if it lingers."""
        import subprocess

        try:
            assert self.child.stdin is not None
            self.child.stdin.close()
            self.child.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            self.kill()
        if self.child.stdout is not None:
            self.child.stdout.close()
        forget(self.child)

    def kill(self) -> None:
        if self.child.poll() is None:
            kill(self.child)
        else:
            self.child.wait()
            forget(self.child)
