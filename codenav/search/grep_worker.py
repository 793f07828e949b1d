"""The regex search's child process, and the parent's side of it.

``python -m codenav.search.grep_worker`` reads one job (grep.scan's) as JSON on stdin and
writes each event as one JSON line on stdout, flushed at once: when the parent kills it at
the deadline (Python's ``re`` holds the GIL and cannot be interrupted inside one search, so
a thread would not do), every match found before the stall has already reached the parent.
The last line is ``["d"]`` (done) or ``["e", code, message, details]`` (an error).
"""

from __future__ import annotations

import os

from ..errors import CodenavError

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def run(job: dict[str, Any], on_event: Callable[[list], None], deadline: float) -> bool:
    """Run ``job`` in a child process, feeding its events to ``on_event``; True when the
    deadline stopped it (the child is killed), False when it finished."""
    import json
    import select
    import subprocess
    import sys
    import time

    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": package_root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    module = __name__ if __name__ != "__main__" else __spec__.name  # type: ignore[name-defined]
    proc = subprocess.Popen([sys.executable, "-m", module], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env=env, close_fds=True)
    timed_out = finished = False
    try:
        proc.stdin.write(json.dumps(job).encode("utf-8"))
        proc.stdin.close()
        fd, pending = proc.stdout.fileno(), b""
        while not finished:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                timed_out = True
                break
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                event = json.loads(line)
                if event[0] == "d":
                    finished = True
                elif event[0] == "e":
                    raise CodenavError(event[1], event[2], details=event[3])
                else:
                    on_event(event)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()
    if not finished and not timed_out:
        raise CodenavError("INTERNAL", f"the regex search process stopped unexpectedly (exit {proc.returncode})")
    return timed_out


def main() -> None:
    import json
    import sys

    from .grep import scan

    job = json.loads(sys.stdin.buffer.read())
    out = sys.stdout.buffer
    try:
        for event in scan(job):
            out.write(json.dumps(event, ensure_ascii=False).encode("utf-8") + b"\n")
            out.flush()
        out.write(b'["d"]\n')
    except CodenavError as exc:
        out.write(json.dumps(["e", exc.code, exc.message, exc.details]).encode("utf-8") + b"\n")
    out.flush()


if __name__ == "__main__":
    main()
