"""The regex search's child process (the parent's side is grep.run_in_child, through proc.Conversation).

``python -m codenav.search.grep_worker`` reads jobs (grep.scan's, plus ``seconds``: the time
left), one JSON line each, from stdin until it closes, and answers each with lines of JSON
arrays of events, the last array ending in ``["d"]`` (done), ``["t"]`` (the deadline stopped
it: what it found by then is in the arrays before) or ``["e", code, message, details]`` (an
error). It stops itself at the deadline (grep.scan_until: SIGALRM, which ``re`` checks while
matching), so it stays usable for the next job; the parent kills it only if it does not.
Events go out in batches: one JSON line per few hundred events, not one per file. Files read
stay in memory for the next job (grep.keep_files_in_memory).

It is a guarded child (proc.py): killed when the MCP server ends, however it ends, when the
call it serves is cancelled, and at its deadline plus a grace if it did not stop itself.
"""

from __future__ import annotations

from ..errors import CodenavError

BATCH = 500


def main() -> None:
    import json
    import sys
    import time

    from .grep import keep_files_in_memory, scan_until

    keep_files_in_memory()  # a warm worker serves many searches: the files it read stay
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        job = json.loads(line)
        batch: list[list] = []

        def emit(event: list, batch: list[list] = batch) -> None:
            batch.append(event)
            if len(batch) >= BATCH:
                out.write(json.dumps(batch, ensure_ascii=False).encode("utf-8") + b"\n")
                batch.clear()

        try:
            timed_out = scan_until(job, emit, time.monotonic() + job["seconds"])
            batch.append(["t"] if timed_out else ["d"])
        except CodenavError as exc:
            batch.append(["e", exc.code, exc.message, exc.details])
        out.write(json.dumps(batch, ensure_ascii=False).encode("utf-8") + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
