"""The helper process that creates an extraction's small files while Tree goes on reading.

Creating tens of thousands of small files is mostly the kernel's work (open, write, close);
run in a second process it overlaps with the parent's decompression, header checks and
hashing, and a many-file package extracts in about the time of the slower half rather than
their sum. ``Tree`` (tree.py) decides everything: it validates every path, makes every
directory, reserves the limits and hashes the bytes; this process only creates the files it is
handed, each with ``O_CREAT|O_EXCL|O_NOFOLLOW``, below the root it was started with.

Run as a script (``python -I -S filewriter.py ROOT FCHMOD``) so it imports nothing but the
standard library. On stdin, records; on stdout, answers:

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
FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
         | getattr(os, "O_BINARY", 0))


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
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        except OSError as exc:
            fatal = f"fatal\t{exc.errno or 0}\t{exc.strerror or type(exc).__name__}\n"
        finally:
            os.close(fd)


def main() -> int:
    root, fchmod = sys.argv[1], sys.argv[2] == "1"
    try:
        with open(0, "rb", buffering=1 << 18, closefd=False) as stdin:
            return serve(root, fchmod, stdin, sys.stdout.buffer)
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        return 1  # the parent went away or stopped mid-record: nothing it will read is left to say


if __name__ == "__main__":
    sys.exit(main())
