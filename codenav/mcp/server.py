"""``codenav mcp``: serve the tools over stdio until stdin ends (SPEC §6).

While serving, the process's own descriptors are moved out of the way, as the Python SDK's
stdio server does: the wire is a private duplicate of fd 1, fd 1 itself points at stderr and
fd 0 at the null device, so a stray ``print`` or a child process that forgot
``stdin=DEVNULL`` can neither corrupt a frame nor eat a request. ``sys.stdout`` and
``sys.stderr`` become one capped stream on stderr: the Inspector CLI pipes the server's
stderr and never reads it, and a full pipe would block the server (mcp-stdio reference §4).
Warnings only by default; ``CODENAV_MCP_LOG=FILE`` appends a verbose log there.

The reader thread answers cheap requests inline and hands ``tools/call`` to a few worker
threads, so a ping or a cancel is read while a tool waits on the network or on indexing.
Responses go out in completion order, matched by id. ``notifications/cancelled`` for a call
still running drops its response and kills the programs it runs (proc.stop_children; the
thread cannot be killed, it finishes unseen).

The server ends when stdin ends (running calls get a short grace, exit 0), when stdout breaks
(the host stopped reading: exit 0 at once) or on SIGTERM, SIGINT or SIGHUP (exit 128 + the
signal, at once). Either way every process it started ends with it (proc.shutdown): programs
and the regex worker are killed, the indexers' leashes are cut; and if the server is killed
outright, the guardian and the leashes do the same (docs/decisions.md, issue 27). The main
thread only waits for one of these ends; a reader thread reads the requests.
"""

from __future__ import annotations

import io
import logging
import os
import queue
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from .. import proc
from . import dispatch, handlers
from .framing import INTERNAL_ERROR, RpcError, Writer, decode, encode, error_response, read_line

log = logging.getLogger("codenav.mcp")

WORKERS = 4  # concurrent tool calls; more queue up
EOF_GRACE = 1.0  # seconds running calls get after stdin ends (SDK clients SIGTERM after 2 s)
STDERR_CAP = 32 * 1024  # below the 64 KiB pipe buffer: a reader that never reads cannot block us


class _CappedStderr(io.TextIOBase):
    """A text stream onto fd 2 that stops writing after ``cap`` bytes, saying so once."""

    encoding = "utf-8"

    def __init__(self, cap: int = STDERR_CAP) -> None:
        self._left = cap
        self._lock = threading.Lock()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False  # no progress bars on the server's stderr (SPEC §4)

    def fileno(self) -> int:
        return 2

    def write(self, text: str) -> int:
        with self._lock:
            if self._left <= 0:
                return len(text)
            data = text.encode("utf-8", "replace")
            if len(data) >= self._left:
                data = data[: self._left] + b"\n[codenav mcp: stderr limit reached; set CODENAV_MCP_LOG=FILE for a full log]\n"
                self._left = 0
            else:
                self._left -= len(data)
            try:
                os.write(2, data)
            except OSError:
                self._left = 0
        return len(text)


@contextmanager
def _claim_stdio() -> Iterator[tuple[IO[bytes], IO[bytes]]]:
    """Private duplicates of fds 0 and 1 for the wire; fd 0 -> /dev/null, fd 1 -> stderr."""
    for stream in (sys.stdout, sys.__stdout__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    wire_in_fd, wire_out_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = _CappedStderr()
    try:
        # closefd=False: a worker may still be blocked on the wire when serve() returns.
        yield os.fdopen(wire_in_fd, "rb", closefd=False), os.fdopen(wire_out_fd, "wb", closefd=False)
    finally:
        sys.stdout, sys.stderr = saved
        try:
            if sys.__stdout__ is not None:
                sys.__stdout__.flush()  # anything written to it while serving belongs on stderr
        except (OSError, ValueError):
            pass
        os.dup2(wire_in_fd, 0)
        os.dup2(wire_out_fd, 1)


@contextmanager
def _logging(stream: IO[str]) -> Iterator[None]:
    logger = logging.getLogger("codenav")
    saved = logger.level, logger.propagate, list(logger.handlers)
    console = logging.StreamHandler(stream)
    console.setLevel(logging.WARNING)
    console.setFormatter(logging.Formatter("codenav mcp: %(levelname)s: %(message)s"))
    added: list[logging.Handler] = [console]
    path = os.environ.get("CODENAV_MCP_LOG")
    if path:
        try:
            # backslashreplace: a method name or id may hold a lone surrogate (a JSON \\udc80
            # escape), which strict UTF-8 cannot write: each such line was a "Logging error".
            file_handler = logging.FileHandler(path, encoding="utf-8", errors="backslashreplace")
        except OSError as exc:
            stream.write(f"codenav mcp: cannot open CODENAV_MCP_LOG: {exc.strerror}\n")
        else:
            file_handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s [%(threadName)s] %(message)s"))
            added.append(file_handler)
    logger.handlers = added
    logger.setLevel(logging.DEBUG if len(added) > 1 else logging.WARNING)
    logger.propagate = False
    try:
        yield
    finally:
        for handler in added:
            handler.close()
        logger.level, logger.propagate, logger.handlers = saved[0], saved[1], saved[2]


def _key(request_id: Any) -> tuple[bool, Any]:
    return (isinstance(request_id, str), request_id)  # 1 and "1" are different ids


class _Call:
    def __init__(self, request: dispatch.Request) -> None:
        self.request = request
        self.cancelled = False
        self.thread: int | None = None  # the worker thread running it, once started


class Server:
    """One stdio connection: reads frames from ``wire_in`` until EOF, writes to ``writer``."""

    def __init__(self, wire_in: IO[bytes], writer: Writer, workers: int = WORKERS) -> None:
        self._in = wire_in
        self._writer = writer
        self._session = handlers.Session()
        self._queue: queue.Queue[_Call] = queue.Queue()
        self._running: dict[tuple[bool, Any], _Call] = {}
        self._lock = threading.Condition()
        self._ended = threading.Event()
        self._why: tuple[str, int] | None = None
        for n in range(workers):
            # daemon: a call stuck on the network must not hold the process past EOF
            threading.Thread(target=self._work, name=f"mcp-worker-{n}", daemon=True).start()

    def run(self) -> int:
        """Serve until stdin ends, stdout breaks or ``end`` is called (a signal); the exit code."""
        threading.Thread(target=self._read, name="mcp-reader", daemon=True).start()
        threading.Thread(target=self._watch_wire, name="mcp-wire", daemon=True).start()
        # A timed wait: a signal handler (run by this thread, between two waits) only sets
        # ``_why``: setting the event there could deadlock on the lock this very wait holds.
        while self._why is None:
            self._ended.wait(0.2)
        why, code = self._why
        log.debug("ending: %s", why)
        if why == "stdin closed":
            self._drain(EOF_GRACE)
        self._writer.close()
        return code

    def end(self, why: str, code: int, *, wake: bool = True) -> None:
        """End the server (the first reason given wins). A signal handler passes ``wake=False``:
        it takes no lock, and the main thread sees the reason within its next wait."""
        if self._why is None:
            self._why = (why, code)
        if wake:
            self._ended.set()

    def _read(self) -> None:
        while True:
            try:
                line = read_line(self._in)
            except RpcError as exc:
                log.warning("%s", exc.message)
                self._send(error_response(None, exc))
                continue
            except (OSError, ValueError):
                line = None  # the wire was closed under us: as good as EOF
            if line is None:
                break
            if not line.strip():
                continue  # a blank line carries no request: nothing to answer
            try:
                message = decode(line)
            except RpcError as exc:
                log.warning("%s", exc.message)
                self._send(error_response(None, exc))
                continue
            try:
                self._receive(message)
            except Exception as exc:  # the last line of defence: one frame never ends the session
                self._fault(message, exc)
        self.end("stdin closed", 0)

    def _watch_wire(self) -> None:
        """Notice a host that closed our stdout (its end of the pipe) while nothing is being
        written: poll reports an error on a pipe with no reader left, a hang-up on a socket."""
        import select

        try:
            fd = self._writer.fileno()
            poller = select.poll()
            poller.register(fd, 0)  # no event asked for: only POLLERR, POLLHUP and POLLNVAL come back
        except (AttributeError, OSError, ValueError):
            return  # not a real descriptor (an in-memory wire), or no poll on this platform
        while self._why is None:
            for _, events in poller.poll():
                if events & (select.POLLERR | select.POLLHUP):
                    self.end("stdout closed", 0)
                if events & select.POLLNVAL:
                    return

    def _fault(self, message: Any, exc: Exception) -> None:
        """A frame made the reader fail: log it, answer -32603 when it carried a usable id."""
        log.warning("internal error reading a frame:\n%s", "".join(traceback.format_exception(exc)).rstrip())
        if isinstance(message, dict) and "method" in message and dispatch.valid_id(message.get("id")):
            self._send(error_response(message["id"], RpcError(INTERNAL_ERROR, f"Internal error ({type(exc).__name__})")))

    def _receive(self, message: Any) -> None:
        item = dispatch.classify(message)
        if isinstance(item, dispatch.Request):
            log.debug("request %r %s%s", item.id, item.method, " (2026-07-28)" if item.modern else "")
            if item.method == "tools/call":
                call = _Call(item)
                with self._lock:
                    self._running[_key(item.id)] = call
                self._queue.put(call)
            else:
                self._send(dispatch.respond(item, self._session))
        elif isinstance(item, dispatch.Notification):
            self._notify(item)
        elif item is not None:
            self._send(item)

    def _notify(self, note: dispatch.Notification) -> None:
        log.debug("notification %s", note.method)
        if note.method == "notifications/initialized":
            self._session.initialized = True
        elif note.method == "notifications/cancelled":
            request_id = note.params.get("requestId")
            if not dispatch.valid_id(request_id):
                # A list or object is no request id, and would not even hash as a key: it once
                # killed the reader thread (and with it the server) while a call was queued.
                log.debug("cancel with an invalid requestId ignored")
                return
            with self._lock:
                call = self._running.pop(_key(request_id), None)
                if call is not None:
                    call.cancelled = True
                    if call.thread is not None:  # still under the lock: the thread runs this very call
                        proc.stop_children(call.thread)
                    self._lock.notify_all()
            log.debug("cancel %r: %s", request_id, "dropping its response" if call else "not running")

    def _work(self) -> None:
        while True:
            call = self._queue.get()
            with self._lock:
                if call.cancelled:
                    continue
                call.thread = threading.get_ident()
            started = time.monotonic()
            try:
                response = dispatch.respond(call.request, self._session)
            except BaseException as exc:  # respond never raises; this is the last line of defence
                response = error_response(call.request.id, RpcError(INTERNAL_ERROR, f"Internal error ({type(exc).__name__})"))
            with self._lock:
                call.thread = None
                if self._running.get(_key(call.request.id)) is call:
                    del self._running[_key(call.request.id)]
                    self._lock.notify_all()
                cancelled = call.cancelled
            log.debug("tools/call %r done in %.3f s%s", call.request.id, time.monotonic() - started,
                      ", cancelled: response dropped" if cancelled else "")
            if not cancelled:
                self._send(response)

    def _send(self, response: dict[str, Any]) -> None:
        try:
            frame = encode(response)
        except (ValueError, TypeError) as exc:
            log.warning("response to %r is not JSON (%s)", response.get("id"), exc)
            frame = encode(error_response(response.get("id"), RpcError(INTERNAL_ERROR, "Internal error: unencodable result")))
        self._writer.send(frame)
        if self._writer.closed and self._why is None:
            self.end("stdout closed", 0)  # the host stopped reading: nobody is left to answer

    def _drain(self, grace: float) -> None:
        deadline = time.monotonic() + grace
        with self._lock:
            while self._running:
                left = deadline - time.monotonic()
                if left <= 0:
                    log.debug("abandoning %d running call(s) at EOF", len(self._running))
                    return
                self._lock.wait(left)


def serve(json_answers: bool = False) -> int:
    """Serve MCP on this process's stdin/stdout until one of its ends (module docstring); the
    exit code. Every child process started meanwhile ends before it returns.

    ``json_answers``: answer as ``codenav <cmd> --json`` (structuredContent, outputSchema)
    instead of TEXT (SPEC §6.3); one form for the whole process, chosen by the host."""
    handlers.set_answer_form(json=json_answers)
    from ..search.grep import keep_files_in_memory
    from ..search.symbols import keep_indexes_in_memory

    keep_files_in_memory()  # a server answers many searches: files searched once stay in memory
    keep_indexes_in_memory()  # and the symbol indexes it queried, parsed
    with _claim_stdio() as (wire_in, wire_out), _logging(sys.stderr):
        server = Server(wire_in, Writer(wire_out))
        with _ending_on_signals(server):
            try:
                return server.run()
            finally:
                proc.shutdown()


@contextmanager
def _ending_on_signals(server: Server) -> Iterator[None]:
    """SIGTERM, SIGINT and SIGHUP end the server as stdin's end does, without the grace."""
    import signal

    def on_signal(signum: int, frame: Any) -> None:
        server.end(f"signal {signum}", 128 + signum, wake=False)

    previous = {}
    for name in ("SIGTERM", "SIGINT", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None:
            previous[number] = signal.signal(number, on_signal)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
