"""The live processes of one test case, found in /proc by what names them (Linux)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Marks:
    """What names one case's processes: its cache dir (in their environment or command line)
    and its upstream's port (in a git command line)."""

    cache: Path
    port: int | None = None

    def named(self, cmdline: bytes, environ: bytes) -> bool:
        if f"CODENAV_CACHE_DIR={self.cache}".encode() in environ.split(b"\0"):
            return True
        words = [str(self.cache).encode()] + ([f"127.0.0.1:{self.port}".encode()] if self.port else [])
        return any(word in cmdline for word in words)


def processes(marks: Marks) -> list[tuple[int, str]]:
    """(pid, command line) of every live process the marks name (zombies have neither)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as handle:
                cmdline = handle.read()
            with open(f"/proc/{entry.name}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue  # gone meanwhile
        if cmdline and marks.named(cmdline, environ):
            found.append((int(entry.name), cmdline.replace(b"\0", b" ").decode("utf-8", "replace").strip()))
    return found
