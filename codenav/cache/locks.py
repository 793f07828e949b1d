"""Where a request's lock and its last failure live (SPEC §3.5), shared by the caller
(cache/open.py), the indexer (cache/indexing.py) and ``cache prune`` (cache/maintenance.py).

``locks/<h>.lock``: an indexer holds an exclusive flock on it while it builds the request's
entry; ``jobs/<h>.json``: the error of the last build that failed. Imports only ``os``.
"""

from __future__ import annotations

import os

from ..paths import short_hash


def lock_path(alias: str) -> str:
    from ..paths import cache_subdir

    return os.path.join(cache_subdir("locks"), f"{short_hash(alias)}.lock")


def job_result_path(alias: str) -> str:
    from ..paths import cache_subdir

    return os.path.join(cache_subdir("jobs"), f"{short_hash(alias)}.json")


def busy(alias: str) -> bool:
    """True while an indexer holds the lock of this request."""
    return is_locked(lock_path(alias))


def is_locked(path: str) -> bool:
    import fcntl

    with open(path, "a+b") as handle:
        if not try_lock(handle.fileno()):
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def try_lock(fd: int) -> bool:
    """Take an exclusive flock on ``fd`` without waiting; False if another process holds it."""
    import errno
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
            return False
        raise
    return True
