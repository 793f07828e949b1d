"""Building a cache entry, in the indexer process (SPEC §3): resolve, download, verify, extract,
derive, publish.

``build(job)`` holds the request's lock throughout; when another indexer already published the
entry it returns at once. The registry module resolves the artifact (registries/), the
download verifies it (download.py), the archive package extracts it safely (archive/), then the
manifest and every sidecar of ``SIDECARS`` are written into the build directory, and one rename
publishes it all: a reader sees the whole entry or none of it. Any failure leaves nothing
behind but the error in ``jobs/``.

Derived data is one more line in ``SIDECARS`` (written before the rename, so it is there for
the first reader) or ``LATE_SIDECARS`` (costly ones, such as the symbol index, derived right
after publication with the lock still held — by the indexer in a fresh process of its own,
bounded in time and holding no socket: indexer.py): a name and a ``build(entry, out_path)``
function.
Entries published before a sidecar existed get it on first use (store.Entry.sidecar).
"""

from __future__ import annotations

import errno
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import CodenavError
from ..paths import atomic_write, cache_subdir, fsync_dir
from ..targets import git_key
from . import aliases, store
from .locks import job_result_path, lock_path

# name -> "module:function" building it from a finished entry (imported when an entry is built)
SIDECARS: dict[str, str] = {
    store.LISTING: "codenav.cache.store:write_listing",
    store.TEXT_LIST: "codenav.cache.store:write_text_list",
}
# Derived right after publication: costly (the symbol index of a large package takes
# seconds), so a caller waiting for its first listing or read does not wait for them; a tool
# that needs one before it exists derives it itself (store.Entry.sidecar).
LATE_SIDECARS: dict[str, str] = {
    "marks.txt": "codenav.search.marks:write",
    "symbols.tsv": "codenav.search.symbols.sidecar:write",
    "pack.bin": "codenav.search.pack:write",
}


def build(job: dict[str, Any], *, fetched: Callable[[], None] | None = None,
          late: Callable[[str, int], None] | None = None) -> str:
    """Resolve, download, verify, extract and publish one job; returns the entry key.

    ``fetched()`` is called once nothing more is downloaded (what remains is local work: the
    indexer's leash tells the two apart). When the entry lacks a late sidecar, ``late(key,
    lock_fd)`` derives them with the request's lock held — by default right here; the indexer
    hands them to a fresh process that keeps the lock (indexer.py). With the job's ``notify``
    the key is written on stdout first, for the caller waiting there (``_tell_waiter``)."""
    import fcntl
    import json

    alias = job["alias"]
    with open(lock_path(alias), "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        result_path = job_result_path(alias)
        if os.path.exists(result_path):
            os.unlink(result_path)
        try:
            key, wants_late = _build_locked(job, fetched or _nothing)
        except _Cleared:
            # Not a failure of the target: record nothing, so a waiter indexes it again.
            sys.stderr.write("codenav: the cache was cleared while indexing; nothing was published\n")
            return ""
        except CodenavError as exc:
            atomic_write(result_path, json.dumps(exc.to_envelope(), sort_keys=True), remake_parent=True)
            raise
        except Exception as exc:
            from ..errors import internal

            atomic_write(result_path, json.dumps(internal(exc).to_envelope(), sort_keys=True), remake_parent=True)
            raise
        if job.get("notify"):
            _tell_waiter(key)
        if wants_late:
            (late or _derive_late_here)(key, lock.fileno())
        return key


def _nothing() -> None:
    pass


def _derive_late_here(key: str, lock_fd: int) -> None:
    derive_late(key)


def _build_locked(job: dict[str, Any], fetched: Callable[[], None]) -> tuple[str, bool]:
    """The entry key, and whether its late sidecars are still to be derived."""
    from .. import archive

    limits = archive.Limits.from_env()
    if job["kind"] == "git":
        from ..registries.artifact import Unpack
        from ..remotes import git

        key = git_key(job["repo_url"], job["commit"])
        if store.find(key) is not None:
            return key, False
        # A token embedded in the URL must never come back out in a result (SPEC §3).
        target_echo = {"repoUrl": git.redact(job["repo_url"]), "gitRef": job.get("git_ref"),
                       "commit": job["commit"]}

        def fetch(download: Path) -> None:
            # git archive writes an uncompressed tar: one larger than the archive limits could
            # ever accept (each member costs a few header blocks on top of its data) is stopped
            # while it is written, before it can fill the disk.
            git.export(job["repo_url"], job["commit"], download, ref=job.get("git_ref"),
                       max_bytes=limits.max_total_bytes + limits.max_files * 4096)
            fetched()

        _publish(key, target_echo, fetch, Unpack("tar"), limits)
        return key, True

    from .. import registries

    choice = {"artifact": job["artifact"]} if job.get("artifact") is not None else {}
    registry = registries.load(job["registry"])
    artifact = registry.resolve(job["name"], job.get("version"), **choice)
    if store.find(artifact.key) is None:
        from . import lazy
        from .download import fetch_artifact

        # Decided from the sizes the index states, before any body is asked for (SPEC §3.7).
        ranged = lazy.plan(artifact, limits) == "ranged"

        def fetch(download: Path) -> None:
            fetch_artifact(artifact, download, progress_until=job.get("progressUntil"))
            fetched()

        def same_folder(found: str) -> bool:
            return registry.top_folder_matches(artifact, found)

        def listing(build_dir: Path, tree: Path) -> str:
            rows = lazy.build(artifact, build_dir, tree, limits)
            fetched()
            return store.manifest_text(*rows, fields=lazy.FIELDS)

        _publish(artifact.key, artifact.echo(), fetch, artifact.unpack, limits,
                 ranged=listing if ranged else None, same_folder=same_folder)
        aliases.write_alias(job["alias"], artifact.key, job.get("ttl"), _named(artifact))
        # A ranged entry holds no member yet: its symbol index is built on first use (lazy.ensure).
        return artifact.key, not ranged
    aliases.write_alias(job["alias"], artifact.key, job.get("ttl"), _named(artifact))
    existing = store.find(artifact.key)
    # Published by an indexer that may have stopped short of its late sidecars.
    return artifact.key, existing is not None and not existing.ranged and lacks_late(existing)


def _named(artifact: Any) -> dict[str, str]:
    return {"registry": artifact.registry, "name": artifact.name, "version": artifact.version}


def lacks_late(entry: store.Entry) -> bool:
    return any(not os.path.exists(entry.sidecar_path(name)) for name in LATE_SIDECARS)


def _tell_waiter(key: str) -> None:
    """The entry ``key`` is published, its build directory removed and its alias written: its key
    on stdout, where the caller that started this indexer waits (cache/open.py), so it answers now
    rather than at its next look (nothing of the build is left for it to see; the late sidecars
    follow inside the entry, in a process whose stdout is no longer this pipe). That caller may
    have stopped waiting and gone (INDEXING): then nobody reads, and that is fine."""
    try:
        os.write(1, f"{key}\n".encode())
    except OSError:
        pass


class _Cleared(Exception):
    """``codenav cache clear`` moved the build directory away mid-build (never leaves this module)."""


def _publish(key: str, target_echo: dict, fetch: Any, unpack: Any, limits: Any, ranged: Any = None,
             same_folder: Any = None) -> None:
    path, owner = _owned_tempdir(cache_subdir("tmp"), key)
    work = Path(path)
    try:
        _build_in(work, key, target_echo, fetch, unpack, limits, ranged, same_folder)
    except Exception:
        if not work.exists():
            # clear() renames tmp/ away whole: whatever failed, it failed because of that.
            raise _Cleared from None
        raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
        os.close(owner)


def _build_in(work: Path, key: str, target_echo: dict, fetch: Any, unpack: Any, limits: Any,
              ranged: Any = None, same_folder: Any = None) -> None:
    """Download into ``work``, extract, write the manifest and sidecars, publish by one rename.
    With ``ranged(build_dir, tree) -> manifest text`` nothing is downloaded: the entry is
    listed by byte range (cache/lazy.py). ``same_folder(found)`` tells whether a top folder
    spelled otherwise is the one the unpack recipe requires (pypi.top_folder_matches)."""
    build_dir = work / "entry"
    tree = build_dir / "tree"
    if ranged is not None:
        build_dir.mkdir()
        tree.mkdir()
        atomic_write(str(build_dir / "manifest.json"), ranged(build_dir, tree))
        _finish(key, build_dir)
        return
    from .. import archive
    from ..text import describe

    download = work / "artifact"
    fetch(download)
    build_dir.mkdir()  # never parents=True: a work dir that a clear moved away must not come back
    tree.mkdir()
    if unpack.inner_member is not None:
        inner = work / "inner"
        archive.extract_member(download, unpack.inner_member, inner, limits=limits)
        download.unlink()
        download = inner
    extracted = archive.extract(download, tree, fmt=unpack.fmt, strip_components=unpack.strip_components,
                                required_prefix=unpack.required_prefix, limits=limits,
                                percent_names=unpack.percent_names, same_folder=same_folder)
    download.unlink()
    rows = [
        [f.path, f.size, *describe(f.path, f.binary, f.link is not None), f.binary, f.link, f.sha256,
         *((f.skipped,) if f.skipped else ())]
        for f in extracted.files
    ]
    large = {"maxFileBytes": limits.max_file_bytes} if any(f.skipped for f in extracted.files) else {}
    store.write_manifest(str(build_dir / "manifest.json"), target_echo, rows, extracted.skipped, **large)
    # The sidecars read the manifest just written: hand them these rows rather than decode it.
    _finish(key, build_dir, {"version": store.MANIFEST_VERSION, "fields": list(store.FIELDS),
                             "optionalFields": list(store.OPTIONAL_FIELDS), "target": target_echo,
                             "files": rows, "skipped": extracted.skipped, **large})


def _finish(key: str, build_dir: Path, manifest: dict | None = None) -> None:
    """Derive the sidecars of the built entry and publish it by one rename; ``manifest``, when
    given, is what manifest.json holds, already decoded."""
    entry = store.Entry(key, str(build_dir))
    if manifest is not None:
        entry._manifest = manifest
    _derive(entry)
    final = Path(store.entry_dir(key))
    final.parent.mkdir(parents=True, exist_ok=True)
    _move_aside_unreadable(final, key)
    try:
        os.rename(build_dir, final)
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
        # Someone published the same immutable entry first: theirs is as good as ours.
    fsync_dir(str(final.parent))


def _derive(entry: store.Entry) -> None:
    """Every sidecar of SIDECARS, written into the entry before it is published."""
    from importlib import import_module

    for name, where in SIDECARS.items():
        module, _, function = where.partition(":")
        getattr(import_module(module), function)(entry, entry.sidecar_path(name))


def derive_late(key: str) -> None:
    """Every sidecar of LATE_SIDECARS the published entry ``key`` lacks; a failure here is the
    sidecar's, never the entry's (a tool derives it again on first use)."""
    from importlib import import_module

    entry = store.find(key)
    if entry is None:
        return
    for name, where in LATE_SIDECARS.items():
        module, _, function = where.partition(":")
        try:
            entry.sidecar(name, getattr(import_module(module), function))
        except Exception as exc:  # noqa: BLE001 — logged, and the entry stays served
            sys.stderr.write(f"codenav: the {name} sidecar of {key} was not built ({type(exc).__name__})\n")


def _move_aside_unreadable(final: Path, key: str) -> None:
    """An entry whose manifest this codenav cannot read (another format version, or none) is
    moved out of the way, so the new one can take its place by the same rename."""
    if not final.exists() or store.find(key) is not None:
        return
    trash = Path(cache_subdir("tmp")) / f".stale-{os.getpid()}-{final.name}"
    try:
        os.rename(final, trash)
    except OSError:
        return
    shutil.rmtree(trash, ignore_errors=True)


def _owned_tempdir(parent: str, key: str) -> tuple[str, int]:
    """A fresh build directory and an open descriptor of it holding an exclusive flock.

    The lock is what tells ``cache prune`` that this directory is a live build (maintenance.py
    skips a directory whose lock it cannot take). Between mkdtemp and flock a prune may take
    the directory: the descriptor then no longer names the path, and a new one is made.
    """
    import fcntl
    import re
    import tempfile

    prefix = re.sub(r"[^A-Za-z0-9]", "_", key)[-60:] + "."
    for _ in range(5):
        path = tempfile.mkdtemp(prefix=prefix, dir=parent)
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return path, fd
        except FileNotFoundError:
            pass
        os.close(fd)
    raise OSError(f"could not keep a build directory in {parent}: something removes them as they are made")
