"""The guardian: kills codenav's child process groups when codenav ends, however it ends.

Started by proc.py with codenav's first guarded child, as a script (``python -I -S guardian.py``,
the standard library only) in its own session, so a signal sent to codenav's process group
does not end it first. Its stdin is a pipe that only codenav writes to:

- ``+PGID``: a child group started; ``-PGID``: that child was reaped (the group may not be
  killed any more: the number could be reused).
- The end of the pipe is codenav's end — an exit, a crash or SIGKILL alike, since the kernel
  closes a dead process's descriptors: every group still listed gets SIGKILL, and the
  guardian exits.

This is the watchdog of docs/decisions.md (issue 27): unlike a parent-death signal it works on
every POSIX system, reaches git's own helpers (the whole group), and does not depend on which
thread started the child.
"""

from __future__ import annotations

import os


def main() -> int:
    groups: set[int] = set()
    pending = b""
    while True:
        try:
            chunk = os.read(0, 4096)
        except InterruptedError:
            continue
        except OSError:
            break
        if not chunk:
            break
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            if line[1:].isdigit():
                (groups.add if line[:1] == b"+" else groups.discard)(int(line[1:]))
    for group in groups:
        try:
            os.killpg(group, 9)  # SIGKILL; `signal` would import enum for one constant
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
