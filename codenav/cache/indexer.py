"""``python -m codenav.cache.indexer JOB``: build one cache entry, detached from the caller (SPEC §3).

Started by ``cache.open.open_target`` in its own session, so it outlives a caller that stopped
waiting (INDEXING). The outcome is the published entry, or an error left in ``jobs/``.
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    return run(json.loads(argv[0]))


def run(job: dict) -> int:
    """Build ``job``'s entry; the exit status (a failure is recorded in jobs/ for the waiter).
    Also what a forked indexer runs (cache/forked.py)."""
    from ..errors import CodenavError
    from .indexing import build

    try:
        build(job)
    except CodenavError:
        return 1
    except Exception:
        import traceback

        traceback.print_exc(file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
