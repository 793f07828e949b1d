"""The helper process that creates an extraction's small files while Tree goes on reading: both
ends of its protocol (``serve`` in the helper, ``Writer`` in the parent), so the records are
written and read in one module.

Creating tens of thousands of small files is mostly the kernel's work (open, write, close);
run in a second process it overlaps with the parent's decompression, header checks and
hashing, and a many-file package extracts in about the time of the slower half rather than
their sum. ``Tree`` (tree.py) decides everything: it validates every path, makes every
directory, reserves the limits and hashes the bytes; this process only creates the files it is
handed, each with ``O_CREAT|O_EXCL|O_NOFOLLOW``, below the root it was started with.

Run as a script (``python -I -S filewriter.py ROOT FCHMOD``) so it imports nothing but the
standard library (``Writer`` imports proc.py only inside its methods, which run in the
parent). On stdin, records; on stdout, answers:

- ``F`` + struct ``<HHQ`` (mode, path length, data length) + the path (UTF-8, relative,
  validated by Tree) + the data: create the file and write the data.
- ``S``: answer ``<errno>\\t<path>\\n`` for each file that could not be created since the last
  ``S`` (EEXIST, ENAMETOOLONG, ELOOP: Tree turns each into a reported skip), then ``ok\\n``;
  or ``fatal\\t<errno>\\t<message>\\n`` when a write failed (a full disk), after which the
  process stops.

The end of stdin is the end of the work, and so the end of its parent too: an indexer that
dies, even by SIGKILL, leaves this process nothing to read, and it exits (proc.py, tie "pipe").
"""

from __future__ import annotations

import errno
import os
import struct
import sys

TYPE_CHECKING = False  # annotations only: this script imports nothing it does not run
if TYPE_CHECKING:
    from typing import IO

HEADER = struct.Struct("<HHQ")
SKIPPABLE = (errno.EEXIST, errno.ENAMETOOLONG, errno.ELOOP)
BATCH = 1 << 18  # bytes of records the parent sends at a time
FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
         | getattr(os, "O_BINARY", 0))


def write_all(fd: int, data: bytes) -> None:
    """os.write until all of ``data`` is written (a regular file may take less at once)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    data = stream.read(size)
    if len(data) != size:
        raise EOFError
    return data


def serve(root: str, fchmod: bool, stdin: IO[bytes], stdout: IO[bytes]) -> int:
    """Create the files ``stdin`` asks for under ``root`` until it ends (the protocol above)."""
    failed: list[str] = []
    fatal = ""
    while True:
        kind = stdin.read(1)
        if not kind:
            return 0
        if kind == b"S":
            answer = "".join(failed) + (fatal or "ok\n")
            stdout.write(answer.encode("utf-8", "surrogateescape"))
            stdout.flush()
            failed.clear()
            if fatal:
                return 1
            continue
        mode, path_length, size = HEADER.unpack(_read_exactly(stdin, HEADER.size))
        raw_path = _read_exactly(stdin, path_length)
        data = _read_exactly(stdin, size)
        if fatal:
            continue  # drain to the next S, which reports it
        path = root + "/" + raw_path.decode("utf-8", "surrogateescape")
        try:
            fd = os.open(path, FLAGS, mode)
        except OSError as exc:
            if exc.errno in SKIPPABLE:
                failed.append(f"{exc.errno}\t{raw_path.decode('utf-8', 'surrogateescape')}\n")
                continue
            fatal = f"fatal\t{exc.errno or 0}\t{exc.strerror or type(exc).__name__}\n"
            continue
        try:
            if fchmod:
                os.fchmod(fd, mode)
            write_all(fd, data)
        except OSError as exc:
            fatal = f"fatal\t{exc.errno or 0}\t{exc.strerror or type(exc).__name__}\n"
        finally:
            os.close(fd)


class Writer:
    """The parent's end (Tree's): starts the helper, sends it records, reads back what failed."""

    def __init__(self, root: str, fchmod: bool) -> None:
        import subprocess

        from .. import proc

        if not sys.executable or not os.path.isfile(__file__):
            # An embedded interpreter, or codenav imported from a zip: no script to run.
            raise OSError(errno.ENOENT, "the file-writing helper cannot be started here")
        try:
            # Tied by its stdin: it ends when this process does, however that ends (proc.py).
            self.process = proc.spawn(
                [sys.executable, "-I", "-S", __file__, os.path.abspath(root), "1" if fchmod else "0"],
                tie="pipe", stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except proc.NotStarted as exc:
            raise OSError(errno.EAGAIN, f"the file-writing helper cannot be started ({exc})") from None
        try:  # a deeper pipe (Linux: 1 MiB, the unprivileged maximum) keeps both sides busy longer
            import fcntl

            fcntl.fcntl(self.process.stdin.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)
        except (ImportError, AttributeError, OSError):
            pass
        self.records: list[bytes] = []
        self.size = 0
        self.pending: dict[str, str] = {}  # path -> member name, sent since the last answer

    def put(self, name: str, path: str, mode: int, data: bytes) -> None:
        raw = path.encode("utf-8", "surrogateescape")
        self.records += (b"F", HEADER.pack(mode, len(raw), len(data)), raw, data)
        self.size += len(data) + len(raw)
        self.pending[path] = name
        if self.size >= BATCH:
            self._send()

    def _send(self) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(b"".join(self.records))
        except BrokenPipeError:
            raise OSError(errno.EIO, "the process creating the files stopped") from None
        self.records.clear()
        self.size = 0

    def sync(self) -> list[tuple[str, str, int]]:
        """(member name, path, errno) of each file sent since the last sync that could not be
        created; OSError when a write failed (the helper then stops)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.records.append(b"S")
        self._send()
        try:
            self.process.stdin.flush()
        except BrokenPipeError:
            raise OSError(errno.EIO, "the process creating the files stopped") from None
        failed = []
        while True:
            line = self.process.stdout.readline().decode("utf-8", "surrogateescape")
            if line == "ok\n":
                break
            fields = line.rstrip("\n").split("\t", 2)
            if fields[0] == "fatal" and len(fields) == 3:
                raise OSError(int(fields[1]) if fields[1].isdigit() else errno.EIO, fields[2])
            if len(fields) != 2 or not fields[0].isdigit() or fields[1] not in self.pending:
                raise OSError(errno.EIO, "the process creating the files stopped")
            failed.append((self.pending[fields[1]], fields[1], int(fields[0])))
        self.pending.clear()
        return failed

    def close(self) -> None:
        from .. import proc

        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()
        proc.forget(self.process)
        if self.process.stdout is not None:
            self.process.stdout.close()

    def kill(self) -> None:
        from .. import proc

        proc.kill(self.process)
        for stream in (self.process.stdin, self.process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


def main() -> int:
    root, fchmod = sys.argv[1], sys.argv[2] == "1"
    try:
        with open(0, "rb", buffering=1 << 18, closefd=False) as stdin:
            return serve(root, fchmod, stdin, sys.stdout.buffer)
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        return 1  # the parent went away or stopped mid-record: nothing it will read is left to say


if __name__ == "__main__":
    sys.exit(main())
