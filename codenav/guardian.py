"""The guardian: kills codenav's child processes when codenav ends, however it ends.

Started by proc.py before codenav's first guarded child, as a script (``python -I -S
guardian.py``, the standard library only) in its own session, so a signal sent to codenav's
process group does not end it first. Its stdin is a pipe that only codenav writes to:

- ``+PGID``: a child group started; ``-PGID``: that child was reaped (its number may be
  reused: it is not killed any more); ``.``: codenav is ending in order, having ended its
  children itself (the sweep below is not needed).
- The end of the pipe is codenav's end — an exit, a crash or SIGKILL alike, since the kernel
  closes a dead process's descriptors. Every group still listed gets SIGKILL; then, where
  /proc exists (Linux), so does every process whose environment holds
  ``CODENAV_GUARDIAN=<this guardian's pid>``, the mark proc.py puts in each guarded child's
  environment and its descendants inherit: a child started in the instant before codenav died,
  too soon to be listed, or a helper that left its group, is found that way (unless codenav
  said ``.``). Then it exits.

This is the watchdog of docs/decisions.md (issue 27): unlike a parent-death signal it works on
every POSIX system, reaches git's own helpers (the whole group), and does not depend on which
thread started the child.
"""

from __future__ import annotations

import os

KILL = 9  # SIGKILL; `signal` would import enum for one constant


def main() -> int:
    groups: set[int] = set()
    orderly = False
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
            orderly = line == b"."
    for group in groups:
        try:
            os.killpg(group, KILL)
        except OSError:
            pass
    for _ in range(0 if orderly else 2):  # twice: a process forking as it was found leaves a marked child
        for pid in marked(f"CODENAV_GUARDIAN={os.getpid()}".encode()):
            try:
                os.kill(pid, KILL)
            except OSError:
                pass
    return 0


def marked(mark: bytes) -> list[int]:
    """The processes whose environment holds ``mark`` (none without /proc)."""
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                if mark in handle.read().split(b"\0"):
                    found.append(int(name))
        except OSError:
            continue  # gone, or not ours to read
    return found


if __name__ == "__main__":
    raise SystemExit(main())
