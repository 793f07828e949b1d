"""The regex search's child process (the parent's side is grep.run_in_child, through proc.stream).

``python -m codenav.search.grep_worker`` reads one job (grep.scan's) as JSON on stdin and
writes each event as one JSON line on stdout, flushed at once: when the parent kills it at
the deadline (Python's ``re`` holds the GIL and cannot be interrupted inside one search, so
a thread would not do), every match found before the stall has already reached the parent.
The last line is ``["d"]`` (done) or ``["e", code, message, details]`` (an error).
"""

from __future__ import annotations

from ..errors import CodenavError


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
