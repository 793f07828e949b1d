"""Ranged entries: a zip over the download limit, listed from its central directory and read
member by member over HTTP byte ranges (SPEC §3.7).

``plan(artifact, limits)`` decides before any body is requested, from the sizes the index
states: over CODENAV_MAX_DOWNLOAD_BYTES a zip without auth headers is "ranged", anything else
TOO_LARGE at once; npm's stated unpacked size over CODENAV_MAX_EXTRACTED_BYTES is TOO_LARGE at
once. ``build`` (the indexer) writes the manifest of a ranged entry from the central directory,
keeps the directory's bytes (``ranged.dir``) so later reads open the zip without a request, and
makes the folders. ``fetch_member`` (store.Entry.read, any process) fetches one member on first
read, checks its CRC-32 and declared size, and renames it into the tree whole. ``ensure``
fetches many members (grep_repo, search_symbols, diff_versions) in coalesced ranges, bounded
by the download limit. The whole file's sha256 cannot be checked from parts, so every result
of such an entry says ``verified: false`` and why.
"""

from __future__ import annotations

import os

from ..errors import too_large

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from ..archive import Limits
    from ..registries.artifact import Artifact

    Entry = Row = Any  # store.Entry and store.Row: store imports this module, so not named here

DIRECTORY = "ranged.dir"  # the central directory and the end records, as fetched
FIELDS = ("path", "size", "language", "fileType", "binary", "link", "sha256", "skipped")
GAP = 64 * 1024  # members closer than this are fetched in one request (their gap is fetched too)
MAX_GROUPS = 16  # requests one ``ensure`` may make; closer groups are merged to stay within it
REASON = ("read by byte range: the file is over the CODENAV_MAX_DOWNLOAD_BYTES limit and its sha256 covers the "
          "whole file only; raise CODENAV_MAX_DOWNLOAD_BYTES and run `codenav cache clear` for a whole, verified "
          "download")


def plan(artifact: Artifact, limits: Limits) -> str:
    """"whole" or "ranged" for ``artifact``; TOO_LARGE before any download when the index says so."""
    from .download import _limit, over_limit

    if artifact.unpacked_size is not None and artifact.unpacked_size > limits.max_total_bytes:
        raise too_large(
            f"{artifact.filename} unpacks to {artifact.unpacked_size} bytes, more than the "
            f"{limits.max_total_bytes}-byte limit (CODENAV_MAX_EXTRACTED_BYTES), as the registry states",
            limit=limits.max_total_bytes, variable="CODENAV_MAX_EXTRACTED_BYTES",
            unpackedSize=artifact.unpacked_size,
        )
    limit = _limit()
    if artifact.size is None or artifact.size <= limit:
        return "whole"
    if artifact.unpack.fmt == "zip" and artifact.unpack.inner_member is None and not artifact.headers:
        return "ranged"
    raise over_limit(artifact.filename, limit)


def _upstream(registry: str) -> tuple[str, str | None]:
    """How errors name the registry, and the package manager whose proxy settings apply."""
    from .. import registries

    module = registries.load(registry)
    return module.WHAT, module.PACKAGE_MANAGER


def _file(url: str, size: int, upstream: tuple[str, str | None], max_requests: int | None = None) -> Any:
    from .. import net, ranges
    from ..archive.ranged import MAX_REQUESTS, RangeFile
    from .download import _limit, over_limit

    timeout = net.timeout_from_env("CODENAV_DOWNLOAD_TIMEOUT", 600.0)
    what, manager = upstream

    def fetch(start: int, end: int) -> bytes:
        try:
            return ranges.get_range(url, start, end, total=size, what=what, timeout=timeout, manager=manager)
        except ranges.RangeRefused:
            # The server sent the whole file instead (closed at once): as without ranges, the
            # file is over the download limit.
            raise over_limit(url.rsplit("/", 1)[-1].split("?", 1)[0], _limit()) from None

    return RangeFile(size, fetch, max_requests or MAX_REQUESTS)


def build(artifact: Artifact, build_dir: Path, tree: Path, limits: Limits) -> tuple[dict, list, list, dict]:
    """(target, rows, skipped, extra) of the manifest of a ranged entry of ``artifact``
    (store.manifest_text with ``fields=FIELDS``); its folders are made under ``tree``."""
    from ..archive import ranged
    from ..text import file_type_for, language_for

    assert artifact.size is not None
    raw = _file(artifact.url, artifact.size, _upstream(artifact.registry))
    with ranged.open_zip(raw) as archive:
        files, skipped, oversized, index = ranged.list_zip(archive, tree, limits)
        offset, directory = ranged.directory_bytes(archive, raw)
    with open(build_dir / DIRECTORY, "wb") as out:
        out.write(directory)
    rows = [[f.path, f.size, language_for(f.path), file_type_for(f.path, f.binary), f.binary, None, None,
             "too large" if f.path in oversized else None] for f in files]
    target = {**artifact.echo(), "verified": False, "verification": "not verified: " + REASON}
    extra = {"ranged": {"url": artifact.url, "size": artifact.size, "directoryOffset": offset,
                        "requests": raw.requests, "bytes": raw.fetched,
                        "members": {path: index[path] for path in sorted(index)}}}
    return target, rows, skipped, extra


def _open(entry: Entry, max_requests: int | None = None) -> tuple[Any, Any]:
    """(RangeFile, ZipFile) of a ranged entry, opened from its kept directory without a request."""
    from ..archive import ranged
    from ..errors import cache_removed

    info = entry.manifest["ranged"]
    raw = _file(info["url"], info["size"], _upstream(entry.manifest["target"].get("registry", "pypi")), max_requests)
    try:
        with open(entry.sidecar_path(DIRECTORY), "rb") as handle:
            raw.seed(info["directoryOffset"], handle.read())
    except FileNotFoundError:
        raise cache_removed() from None
    return raw, ranged.open_zip(raw)


def _limits() -> Limits:
    from ..archive import Limits

    return Limits.from_env()


def fetch_member(entry: Entry, row: Row) -> bytes:
    """The bytes of ``row``, fetched by range now, stored in the entry and returned."""
    from ..archive import ranged

    raw, archive = _open(entry)
    with archive:
        info = archive.infolist()[entry.manifest["ranged"]["members"][row.path]]
        data = ranged.read_member(archive, raw, info, _limits().max_file_bytes)
    _store(entry, row.path, data)
    return data


def _store(entry: Entry, path: str, data: bytes) -> None:
    """Write a fetched member into the tree whole: a temporary name in the entry, then a rename,
    so a concurrent reader sees the file complete or not at all."""
    import secrets

    from ..errors import cache_removed

    final = os.path.join(entry.path, "tree", *path.split("/"))
    tmp = os.path.join(entry.path, f".member-{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except FileNotFoundError:
        raise cache_removed() from None
    try:
        with open(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, final)
    except FileNotFoundError:
        raise cache_removed() from None
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def missing(entry: Entry, paths: list[str]) -> list[str]:
    """The listed, fetchable members of ``paths`` not in the tree yet."""
    tree = os.path.join(entry.path, "tree")
    members = entry.manifest["ranged"]["members"]
    oversized = {row.path for row in entry.files() if row.skipped}
    return [p for p in paths if p in members and p not in oversized
            and not os.path.exists(os.path.join(tree, *p.split("/")))]


def ensure(entry: Entry, paths: list[str], why: str) -> None:
    """Fetch every member of ``paths`` not stored yet, in at most MAX_GROUPS range requests.

    Their compressed bytes (with the gaps fetched between close members) must stay within
    CODENAV_MAX_DOWNLOAD_BYTES, else TOO_LARGE saying how to narrow ``why`` (the search).
    """
    from ..archive import ranged
    from .download import _limit

    wanted = missing(entry, paths)
    if not wanted:
        return
    members = entry.manifest["ranged"]["members"]
    raw, archive = _open(entry, MAX_GROUPS + 8)
    with archive:
        infos = archive.infolist()
        spans = sorted((*ranged.member_span(archive, infos[members[p]]), p) for p in wanted)
        groups: list[list[Any]] = []
        for start, end, path in spans:
            if groups and start - groups[-1][1] <= GAP:
                groups[-1][1] = max(groups[-1][1], end)
                groups[-1][2].append(path)
            else:
                groups.append([start, end, [path]])
        while len(groups) > MAX_GROUPS:  # merge across the smallest gap
            at = min(range(len(groups) - 1), key=lambda i: groups[i + 1][0] - groups[i][1])
            first, second = groups[at], groups.pop(at + 1)
            first[1], first[2] = max(first[1], second[1]), first[2] + second[2]
        total, limit = sum(end - start for start, end, _ in groups), _limit()
        if total > limit:
            raise too_large(
                f"{why} needs {len(wanted)} files of this ranged entry, {total} bytes to fetch, more than the "
                f"{limit}-byte download limit; narrow it with path_prefix or glob, or raise "
                "CODENAV_MAX_DOWNLOAD_BYTES and run `codenav cache clear` for a whole download",
                limitBytes=limit, bytesNeeded=total, variable="CODENAV_MAX_DOWNLOAD_BYTES",
            )
        max_bytes = _limits().max_file_bytes
        for start, end, group in groups:
            raw.load(start, end)
            for path in group:
                _store(entry, path, ranged.read_member(archive, raw, infos[members[path]], max_bytes))
            raw.forget(keep=1)  # the seeded directory stays; the group's bytes go
