"""A zip read by byte range: list it from its central directory, read members one at a time
(SPEC §3.7, ranged entries).

``RangeFile`` is a seekable raw file over a ``fetch(start, end) -> bytes`` function (inclusive
offsets; ranges.get_range in practice) with a cache of the spans already fetched, so stdlib
``zipfile`` reads the end record, the ZIP64 locator and the central directory over it, and a
member's local header and data, as from a file. Every read that misses the cache is one
request, and a file allows at most ``max_requests`` of them.

``list_zip`` turns the central directory into the Tree's records without writing a file: the
names meet every rule of the policy (archive/__init__.py) because they go through the same
``Tree`` (absolute and ``..`` names refuse the archive; unaddressable ones are skipped and
reported; directories are made under ``dest``). What cannot be decided without a member's
bytes is not guessed but said: a symlink entry is skipped and reported (its target is data),
a member over the per-file limit is listed as skipped (``"too large"``) and never fetched.
``read_member`` reads one member with its CRC-32 checked and its size held to the declared one.
"""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

from ..errors import CodenavError, too_large
from .limits import Limits, file_too_large, too_many_declared
from .names import printable, quoted
from .records import FileEntry, Member
from .stream import admit_zip_errors, reading
from .tree import Tree

admit_zip_errors()  # zipfile's BadZipFile is a corrupt archive, as tarfile's errors are

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable

TAIL_BYTES = 64 * 1024 + 22 + 20 + 56  # the largest end record (with a full comment) and its ZIP64 records
READ_AHEAD = 64 * 1024  # a cache miss fetches at least this much: zipfile reads headers in small pieces
MAX_REQUESTS = 32  # per file object: listing takes one or two, a member one or two
LOCAL_SLACK = 1024  # bytes fetched past a local header's name for its extra field (often unlike the central one)


class RangeFile(io.RawIOBase):
    """A read-only, seekable file of ``size`` bytes whose bytes come from ``fetch``."""

    def __init__(self, size: int, fetch: Callable[[int, int], bytes], max_requests: int = MAX_REQUESTS) -> None:
        super().__init__()
        self.size = size
        self._fetch = fetch
        self._pos = 0
        self._spans: list[tuple[int, bytes]] = []  # (offset, bytes), fetched or seeded
        self.requests = 0
        self.fetched = 0  # bytes that came over the wire
        self.max_requests = max_requests

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self._pos, os.SEEK_END: self.size}[whence]
        if base + offset < 0:
            raise OSError("negative seek position")
        self._pos = base + offset
        return self._pos

    def seed(self, offset: int, data: bytes) -> None:
        """Bytes known without a request (a central directory kept from the listing)."""
        self._spans.append((offset, data))

    def forget(self, keep: int = 0) -> None:
        """Drop every cached span but the first ``keep`` (seeded ones): bounds memory between members."""
        del self._spans[keep:]

    def load(self, start: int, end: int) -> None:
        """Make bytes ``start`` to ``end`` (exclusive) cached, in one request when they are not."""
        start, end = max(0, start), min(self.size, end)
        if start >= end or self._cached(start, end) is not None:
            return
        if self.requests >= self.max_requests:
            raise too_large(
                f"reading this archive by byte range needs more than {self.max_requests} requests",
                limit=self.max_requests,
            )
        self.requests += 1
        data = self._fetch(start, end - 1)
        self.fetched += len(data)
        self._spans.append((start, data))

    def _cached(self, start: int, end: int) -> bytes | None:
        """Bytes ``start``..``end`` from the cached spans (several may cover them together), or None."""
        for offset, data in self._spans:
            if offset <= start and end <= offset + len(data):
                return data[start - offset:end - offset]
        pieces, at = [], start
        for offset, data in sorted(self._spans, key=lambda span: span[0]):
            if offset <= at < offset + len(data):
                take = data[at - offset:end - offset]
                pieces.append(take)
                at += len(take)
                if at >= end:
                    return b"".join(pieces)
        return None

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        start = self._pos
        end = min(self.size, start + len(buffer))
        if start >= end:
            return 0
        if self._cached(start, end) is None:
            self.load(start, max(end, start + READ_AHEAD))
        data = self._cached(start, end)
        assert data is not None
        buffer[:len(data)] = data
        self._pos += len(data)
        return len(data)

    def read(self, size: int = -1) -> bytes:
        end = self.size if size is None or size < 0 else min(self.size, self._pos + size)
        if self._pos >= end:
            return b""
        if self._cached(self._pos, end) is None:
            self.load(self._pos, max(end, self._pos + READ_AHEAD))
        data = self._cached(self._pos, end) or b""
        self._pos += len(data)
        return data

    readall = read


def open_zip(raw: RangeFile) -> zipfile.ZipFile:
    """The zip over ``raw``: its tail in one request, its central directory in at most one more."""
    raw.load(raw.size - TAIL_BYTES, raw.size)
    with reading("the central directory"):
        return zipfile.ZipFile(raw)


def directory_bytes(archive: zipfile.ZipFile, raw: RangeFile) -> tuple[int, bytes]:
    """(offset, bytes) of the central directory and the tail after it: what opens the zip again
    without a request (``RangeFile.seed``)."""
    start = max(0, min(getattr(archive, "start_dir", 0), raw.size - TAIL_BYTES))
    data = raw._cached(start, raw.size)
    if data is None:  # pragma: no cover - open_zip read both
        raise CodenavError("INTERNAL", "the central directory was not kept")
    return start, data


class _Listing(Tree):
    """The Tree's rules for names and kinds, without member data: files are recorded, not written."""

    def __init__(self, dest: Path, limits: Limits) -> None:
        super().__init__(dest, limits, 0, [])
        self.too_large: set[str] = set()
        self.index: dict[str, int] = {}  # listed path -> its position in the central directory
        self.current = -1

    def reserve(self, name: str, size: int) -> None:
        if size < 0:
            raise CodenavError("UNSAFE_ARCHIVE", f"the archive is corrupt (negative size) at {quoted(name)}")
        if size > self.limits.max_file_bytes:
            return  # listed as skipped, never fetched: it counts toward nothing
        self.check_total(name, self.total + size)
        self.total += size

    def add_file(self, member: Member, segments: list[str]) -> None:
        path = "/".join(segments)
        reason = self.claim(member.name, segments, "file")
        if reason:
            self.skip(member.name, reason)
            return
        self.kinds[path] = "file"
        if member.size > self.limits.max_file_bytes:
            self.too_large.add(path)
        # Binary or not is known once the bytes are read; until then the name decides (text.py).
        self.files[path] = FileEntry(path, member.size, _binary_by_name(path), None, None)
        self.index[path] = self.current


_BINARY_SUFFIXES = (".so", ".pyd", ".dll", ".dylib", ".a", ".lib", ".o", ".exe", ".bin", ".png", ".jpg",
                    ".jpeg", ".gif", ".ico", ".whl", ".zip", ".gz", ".pyc", ".pt", ".pth", ".npz", ".npy")


def _binary_by_name(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    return name.endswith(_BINARY_SUFFIXES) or ".so." in name


def list_zip(archive: zipfile.ZipFile, dest: Path, limits: Limits) -> tuple[list[FileEntry], list[dict[str, str]],
                                                                          set[str], dict[str, int]]:
    """(files, skipped, paths listed too large, path -> central-directory index) of ``archive``.

    Directories are made under ``dest`` (the entry's tree), so a member fetched later is
    written into a folder the Tree made. Limits on entry counts and the extracted total apply
    to what the central directory declares.
    """
    from .zip import _zip_methods, _zip_name

    infos = archive.infolist()
    if len(infos) > limits.max_files:
        raise too_many_declared(limits.max_files, len(infos))
    _check_offsets(infos)
    methods = _zip_methods()
    tree = _Listing(dest, limits)
    for position, info in enumerate(infos):
        tree.current = position
        name = _zip_name(info)
        mode = info.external_attr >> 16 if info.create_system == 3 else 0
        if info.is_dir() or stat.S_ISDIR(mode):
            tree.add(Member(name, "dir"))
        elif info.flag_bits & 0x1:
            tree.add(Member(name, "skip", reason="the entry is encrypted"))
        elif stat.S_IFMT(mode) not in (0, stat.S_IFREG):
            # A symlink's target is member data: it is not fetched just to list the archive.
            tree.add(Member(name, "skip", reason="not a regular file (not read in a ranged listing)"))
        elif info.compress_type not in methods:
            tree.add(Member(name, "skip", reason=f"unsupported zip compression method {info.compress_type}"))
        else:
            tree.add(Member(name, "file", size=info.file_size))
    result = tree.result()
    return result.files, result.skipped, tree.too_large, tree.index


def _check_offsets(infos: list[zipfile.ZipInfo]) -> None:
    """Members whose local records overlap (the zip-bomb construction), told from the central
    directory alone: each record takes at least its header, name and compressed data."""
    spans = sorted((info.header_offset, info.header_offset + 30 + _name_length(info) + info.compress_size,
                    info.orig_filename) for info in infos)
    for (_, end, first), (start, _, second) in zip(spans, spans[1:], strict=False):
        if start < end:
            raise CodenavError(
                "UNSAFE_ARCHIVE", f"zip entries {quoted(first)} and {quoted(second)} overlap (a zip-bomb construction)",
                details={"member": printable(second)},
            )


def _name_length(info: zipfile.ZipInfo) -> int:
    """The bytes of the name as stored: UTF-8 when flagged, else the cp437 zipfile decoded it from."""
    try:
        return len(info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437"))
    except UnicodeEncodeError:
        return len(info.orig_filename.encode("utf-8", "surrogateescape"))


def member_span(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> tuple[int, int]:
    """(start, end) of a member's local record and data, with room for its local extra field."""
    end = info.header_offset + 30 + _name_length(info) + len(info.extra) + LOCAL_SLACK + info.compress_size
    return info.header_offset, min(end, getattr(archive, "start_dir", end))


def read_member(archive: zipfile.ZipFile, raw: RangeFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    """The bytes of one member, fetched by range (one request when its span is not cached yet).

    zipfile checks the local header's name against the central directory and the CRC-32 at the
    end (a mismatch is INTEGRITY_ERROR); more bytes than declared, or over ``limit``, stop here.
    """
    name = info.orig_filename
    if info.file_size > limit:
        raise file_too_large(limit, name)
    raw.load(*member_span(archive, info))
    where = quoted(name)
    with reading(where, name), archive.open(info) as source:
        data = source.read(info.file_size + 1)
        if source.read(1):
            data += b"?"
    if len(data) != info.file_size:
        raise CodenavError("UNSAFE_ARCHIVE", f"archive member {where} does not hold the size its directory declares",
                           details={"member": printable(name)})
    return data
