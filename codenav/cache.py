"""The cache and the indexing lifecycle (SPEC §3).

Layout under the cache root (``$CODENAV_CACHE_DIR``, ``$XDG_CACHE_HOME/codenav`` or
``~/.cache/codenav``)::

  entries/<key>/manifest.json   immutable, published by one rename; lists every file
  entries/<key>/paths.txt       the same paths as the plain listing prints them (entries.py)
  entries/<key>/tree/...        the files (regular files only: links live in the manifest)
  aliases/<h>.json              what a request (registry, endpoint, name, version) resolved to
  locks/<h>.lock                flock per request: one indexer at a time, others wait
  jobs/<h>.json                 the outcome of the last indexing job that failed
  tmp/                          build directories and downloads in progress
  state/                        discovered endpoints

A call whose target is not cached starts ``python -m codenav.indexer`` in its own session and
waits up to ``wait_ms``; past that it returns INDEXING and the indexer carries on, so a retry
finds the entry. Readers never see a half-built entry: an entry exists only once renamed.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from . import entries
from .errors import CodenavError
from .targets import GitTarget, Target, git_key, short_hash

MANIFEST_VERSION = 1
LOG_CAP = 1024 * 1024  # bytes of tmp/indexer.log kept before it is started afresh
MAX_SPAWNS = 3  # indexers one call may start: a clear or a kill may sweep a build away mid-way


def root() -> Path:
    return Path(entries.root())


def state_dir() -> Path:
    return Path(entries.state_dir())


def _dir(name: str) -> Path:
    path = root() / name
    path.mkdir(parents=True, exist_ok=True)
    return path


# --- entries: the read side lives in entries.py, light enough for a warm call -----------------

Entry = entries.Entry
_entry = entries.find


# --- aliases: request -> entry --------------------------------------------------------------

_hash = short_hash
alias_of = entries.alias_of
_read_alias = entries.read_alias


def write_alias(alias: str, key: str, ttl: float | None) -> None:
    now = time.time()
    data = {"alias": alias, "key": key, "expires": None if ttl is None else now + ttl, "resolved": now}
    _atomic_write(_dir("aliases") / f"{_hash(alias)}.json", json.dumps(data, sort_keys=True), remake_parent=True)


def _atomic_write(path: Path, text: str, *, remake_parent: bool = False) -> None:
    """Write ``path`` whole or not at all. ``remake_parent``: a concurrent ``cache clear`` may
    have moved the folder away (aliases/, jobs/); make it again. Never for a build directory,
    which must not come back half-empty."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    for attempt in range(3):
        try:
            with open(tmp, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
            return
        except FileNotFoundError:
            if not remake_parent or attempt == 2:
                raise
            path.parent.mkdir(parents=True, exist_ok=True)


# --- the lifecycle ----------------------------------------------------------------------------

def open_target(target: Target, wait_ms: int) -> Entry:
    """The cached entry of ``target``, indexing it first if needed (SPEC §3 lifecycle)."""
    if isinstance(target, GitTarget):
        from .remotes import git

        url = git.check_url(target.repo_url)
        commit = git.resolve(url, target.git_ref)
        alias = f"git|{url}|{commit}"
        job = {"kind": "git", "repo_url": url, "git_ref": target.git_ref, "commit": commit}
        found = _entry(git_key(url, commit)) or _index_and_wait({**job, "alias": alias}, wait_ms)
        # One entry per commit serves every ref naming it: echo the ref this request used.
        found.echo = {"repoUrl": git.redact(url), "gitRef": target.git_ref, "commit": commit}
        return found
    else:
        alias, ttl = alias_of(target)
        found = _read_alias(alias)
        job = {"kind": "package", "registry": target.registry, "name": target.name,
               "version": target.version, "ttl": ttl}
    if found is not None:
        return found
    job["alias"] = alias
    return _index_and_wait(job, wait_ms)


def _lock_path(alias: str) -> Path:
    return _dir("locks") / f"{_hash(alias)}.lock"


def _job_result_path(alias: str) -> Path:
    return _dir("jobs") / f"{_hash(alias)}.json"


def _busy(alias: str) -> bool:
    """True while an indexer holds the lock of this request."""
    with open(_lock_path(alias), "a+b") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                return True
            raise
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def _spawn(job: dict[str, Any], deadline: float) -> Any:
    import subprocess

    package_parent = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = package_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    job = {**job, "progressUntil": deadline if _progress_wanted() else None}
    log = _open_log()
    try:
        return subprocess.Popen(
            [sys.executable, "-m", f"{__package__}.indexer", json.dumps(job)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=None if job["progressUntil"] else log,
            env=env, start_new_session=True, close_fds=True,
        )
    finally:
        log.close()


def _open_log() -> Any:
    """tmp/indexer.log for the indexer's stderr; a concurrent clear may move tmp/ away at any time."""
    for _ in range(3):
        try:
            path = _dir("tmp") / "indexer.log"
            # Only tracebacks of indexer bugs land here; start afresh past 1 MiB so it cannot grow forever.
            big = path.exists() and path.stat().st_size > LOG_CAP
            return open(path, "wb" if big else "ab")
        except FileNotFoundError:
            continue
    return open(os.devnull, "ab")


def _progress_wanted() -> bool:
    # Progress is for a person watching a terminal, never for pipes; the MCP server's stderr
    # stream reports isatty() False, so the wire's neighbour stays quiet too.
    return sys.stderr is not None and sys.stderr.isatty()


def _index_and_wait(job: dict[str, Any], wait_ms: int) -> Entry:
    import subprocess

    alias = job["alias"]
    start = time.monotonic()
    began = time.time()
    deadline = start + wait_ms / 1000.0
    proc = None if _busy(alias) else _spawn(job, time.time() + wait_ms / 1000.0)
    spawns = 0 if proc is None else 1
    while True:
        if job["kind"] == "package":
            found = _read_alias(alias, resolved_since=began)
        else:
            found = _entry(git_key(job["repo_url"], job["commit"]))
        if found is not None:
            return found
        left = deadline - time.monotonic()
        if proc is not None:
            try:
                proc.wait(timeout=max(0.0, left))
            except subprocess.TimeoutExpired:
                pass
            if proc.returncode is None:
                break  # still running past the wait: leave it to finish in the background
            proc = None
            continue  # re-check the entry first
        if not _busy(alias):
            outcome = _read_result(alias)
            if outcome is not None:
                raise outcome
            # No entry and no recorded failure: nobody indexed it yet, or an indexer stopped
            # without an answer (killed, or `cache clear` swept its build or its alias away).
            # Index again while the wait lasts, a bounded number of times.
            if spawns < MAX_SPAWNS and left > 0:
                proc = _spawn(job, time.time() + left)
                spawns += 1
                continue
            raise CodenavError(
                "INTERNAL", "indexing stopped before it finished; retry the call", retryable=True
            )
        if left <= 0:
            break
        time.sleep(min(0.02, left))
    raise CodenavError(
        "INDEXING",
        f"still indexing after {wait_ms} ms; it continues in the background, retry shortly",
        details={"indexingRef": _hash(alias), "action": "retry the same call in a few seconds"},
    )


def _read_result(alias: str) -> CodenavError | None:
    try:
        data = json.loads(_job_result_path(alias).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    error = data.get("error") or {}
    if "code" not in error:
        return None
    return CodenavError(error["code"], error["message"], retryable=error.get("retryable"),
                        details=error.get("details"))


# --- building an entry (runs in the indexer process) ---------------------------------------

def build(job: dict[str, Any]) -> str:
    """Resolve, download, verify, extract and publish one job; returns the entry key.

    Holds the request's lock throughout; when another indexer already published the entry,
    returns at once. Any failure leaves nothing behind but the error in ``jobs/``.
    """
    alias = job["alias"]
    with open(_lock_path(alias), "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        result_path = _job_result_path(alias)
        result_path.unlink(missing_ok=True)
        try:
            key = _build_locked(job)
        except _Cleared:
            # Not a failure of the target: record nothing, so a waiter indexes it again.
            sys.stderr.write("codenav: the cache was cleared while indexing; nothing was published\n")
            return ""
        except CodenavError as exc:
            _atomic_write(result_path, json.dumps(exc.to_envelope(), sort_keys=True), remake_parent=True)
            raise
        except Exception as exc:
            from .errors import internal

            _atomic_write(result_path, json.dumps(internal(exc).to_envelope(), sort_keys=True), remake_parent=True)
            raise
        return key


def _build_locked(job: dict[str, Any]) -> str:
    from . import archive

    limits = archive.Limits.from_env()
    if job["kind"] == "git":
        from .remotes import git

        key = git_key(job["repo_url"], job["commit"])
        if _entry(key) is not None:
            return key
        # A token embedded in the URL must never come back out in a result (SPEC §3).
        target_echo = {"repoUrl": git.redact(job["repo_url"]), "gitRef": job.get("git_ref"),
                       "commit": job["commit"]}

        def fetch(download: Path) -> None:
            # git archive writes an uncompressed tar: one larger than the archive limits could
            # ever accept (each member costs a few header blocks on top of its data) is stopped
            # while it is written, before it can fill the disk.
            git.export(job["repo_url"], job["commit"], download, ref=job.get("git_ref"),
                       max_bytes=limits.max_total_bytes + limits.max_files * 4096)

        _publish(key, target_echo, fetch, fmt="tar", strip=0, prefix=None, limits=limits)
        return key

    from .sources import npm, pypi

    source = npm if job["registry"] == "npm" else pypi
    artifact = source.resolve(job["name"], job.get("version"))
    if _entry(artifact.key) is None:
        from .download import fetch_artifact

        def fetch(download: Path) -> None:
            fetch_artifact(artifact, download, progress_until=job.get("progressUntil"))

        _publish(artifact.key, artifact.echo(), fetch, fmt=artifact.fmt, strip=artifact.strip_components,
                 prefix=artifact.required_prefix, limits=limits)
    write_alias(job["alias"], artifact.key, job.get("ttl"))
    return artifact.key


class _Cleared(Exception):
    """``codenav cache clear`` moved the build directory away mid-build (never leaves this module)."""


def _publish(key: str, target_echo: dict, fetch: Any, *, fmt: str, strip: int, prefix: str | None,
             limits: Any) -> None:
    work = Path(os_tempdir(_dir("tmp"), key))
    try:
        _build_in(work, key, target_echo, fetch, fmt=fmt, strip=strip, prefix=prefix, limits=limits)
    except Exception:
        if not work.exists():
            # clear() renames tmp/ away whole: whatever failed, it failed because of that.
            raise _Cleared from None
        raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _build_in(work: Path, key: str, target_echo: dict, fetch: Any, *, fmt: str, strip: int, prefix: str | None,
              limits: Any) -> None:
    """Download into ``work``, extract, write the manifest, publish by one rename."""
    from . import archive
    from .text import file_type_for, language_for

    download = work / "artifact"
    fetch(download)
    build_dir = work / "entry"
    tree = build_dir / "tree"
    build_dir.mkdir()  # never parents=True: a work dir that a clear moved away must not come back
    tree.mkdir()
    extracted = archive.extract(download, tree, fmt=fmt, strip_components=strip,
                                required_prefix=prefix, limits=limits)
    download.unlink()
    rows = [
        [f.path, f.size, language_for(f.path), file_type_for(f.path, f.binary, f.link is not None),
         f.binary, f.link]
        for f in extracted.files
    ]
    manifest = {"version": MANIFEST_VERSION, "target": target_echo, "files": rows,
                "skipped": extracted.skipped}
    _atomic_write(build_dir / "manifest.json", json.dumps(manifest, sort_keys=True, separators=(",", ":")))
    entries.write_listing(str(build_dir), rows, len(extracted.skipped))
    final = root() / "entries" / key
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(build_dir, final)
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
        # Someone published the same immutable entry first: theirs is as good as ours.
    _fsync_dir(final.parent)


def os_tempdir(parent: Path, key: str) -> str:
    import tempfile

    return tempfile.mkdtemp(prefix=re.sub(r"[^A-Za-z0-9]", "_", key)[-60:] + ".", dir=parent)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# --- maintenance (codenav cache ...) --------------------------------------------------------

def list_entries() -> list[dict[str, Any]]:
    out = []
    base = root() / "entries"
    if not base.is_dir():
        return out
    for manifest in sorted(base.glob("*/*/*/manifest.json")) + sorted(base.glob("git/*/*/manifest.json")):
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        key = manifest.parent.relative_to(base).as_posix()
        out.append({"key": key, "target": data["target"], "files": len(data["files"]),
                    "bytes": sum(r[1] for r in data["files"])})
    unique = {e["key"]: e for e in out}
    return [unique[k] for k in sorted(unique)]


def clear() -> int:
    """Remove every entry (readers in flight get an error, never a partial tree)."""
    base = root()
    if not base.is_dir():
        return 0
    count = len(list_entries())
    trash = base / f".trash-{os.getpid()}-{time.time_ns()}"
    for name in ("entries", "aliases", "jobs", "tmp", "state"):
        if (base / name).exists():
            trash.mkdir(exist_ok=True)
            try:
                os.rename(base / name, trash / name)  # one rename: an entry vanishes whole
            except FileNotFoundError:
                continue  # a concurrent clear took it first
    shutil.rmtree(trash, ignore_errors=True)
    return count


def prune() -> dict[str, int]:
    """Remove debris: build dirs no live indexer owns, expired or dangling aliases, old results."""
    base = root()
    removed = {"tmp": 0, "aliases": 0, "jobs": 0, "trash": 0}
    for trash in base.glob(".trash-*"):
        shutil.rmtree(trash, ignore_errors=True)
        removed["trash"] += 1
    tmp = base / "tmp"
    if tmp.is_dir():
        for item in tmp.iterdir():
            if item.name == "indexer.log":
                continue
            if item.is_dir() and not _owned_by_live_indexer():
                shutil.rmtree(item, ignore_errors=True)
                removed["tmp"] += 1
    aliases = base / "aliases"
    if aliases.is_dir():
        for item in aliases.glob("*.json"):
            try:
                data = json.loads(item.read_text(encoding="utf-8"))
                dangling = _entry(data["key"]) is None
                expired = data.get("expires") is not None and time.time() > data["expires"]
            except (OSError, ValueError, KeyError):
                dangling, expired = True, False
            if dangling or expired:
                item.unlink(missing_ok=True)
                removed["aliases"] += 1
        for item in aliases.glob(".*.tmp"):
            item.unlink(missing_ok=True)
    jobs = base / "jobs"
    if jobs.is_dir():
        for item in jobs.iterdir():
            item.unlink(missing_ok=True)
            removed["jobs"] += 1
    return removed


def _owned_by_live_indexer() -> bool:
    """True if any indexer holds a lock right now (then its build dir must stay)."""
    locks = root() / "locks"
    if not locks.is_dir():
        return False
    for lock in locks.glob("*.lock"):
        with open(lock, "a+b") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
    return False
