"""Reading zip archives (wheels, sdists, jars, nupkgs) into the Tree, with the zip-bomb checks;
%-escaped entry names (NuGet) decoded first when the artifact says so."""

from __future__ import annotations

import os
import stat
import struct
import zipfile
from itertools import pairwise
from pathlib import Path
from typing import IO

from ..errors import CodenavError
from .limits import inner_too_large, too_many_declared
from .names import MAX_SYMLINK_TARGET_BYTES, printable, quoted
from .records import Member
from .stream import CHUNK_SIZE, admit_zip_errors, reading
from .tree import Tree

admit_zip_errors()  # zipfile's BadZipFile is a corrupt archive, as tarfile's errors are

_ZIP_SPECIAL = {stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
                stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket"}


def _zip_methods() -> set[int]:
    methods = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}
    for method, module in ((zipfile.ZIP_BZIP2, "bz2"), (zipfile.ZIP_LZMA, "lzma")):
        try:
            __import__(module)
        except ImportError:
            continue
        methods.add(method)
    return methods


def _zip_name(info: zipfile.ZipInfo) -> str:
    """The entry name as UTF-8, surrogate-escaped where its bytes are not UTF-8.

    Without the UTF-8 flag zipfile decodes names as cp437; most tools write UTF-8 there anyway,
    so the bytes are taken back and read as UTF-8 (never guessed as cp437). ``orig_filename``
    keeps a NUL that ``filename`` cuts off.
    """
    name = info.orig_filename
    if info.flag_bits & 0x800:
        return name
    try:
        raw = name.encode("cp437")
    except UnicodeEncodeError:
        return name
    return raw.decode("utf-8", "surrogateescape")


def _zip_declared_entries(raw: IO[bytes]) -> int | None:
    """The entry count the end-of-central-directory record declares (zip64 aware), if readable."""
    raw.seek(0, os.SEEK_END)
    size = raw.tell()
    tail_size = min(size, 22 + 0xFFFF)
    raw.seek(size - tail_size)
    tail = raw.read(tail_size)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        return None
    (entries,) = struct.unpack("<H", tail[at + 10:at + 12])
    if entries != 0xFFFF or at < 20 or tail[at - 20:at - 16] != b"PK\x06\x07":
        return entries
    (zip64_offset,) = struct.unpack("<Q", tail[at - 12:at - 4])
    raw.seek(zip64_offset)
    record = raw.read(56)
    if len(record) < 56 or record[:4] != b"PK\x06\x06":
        return None
    (entries64,) = struct.unpack("<Q", record[32:40])
    return entries64


def _check_zip_layout(archive: zipfile.ZipFile, raw: IO[bytes]) -> None:
    """Each entry's local record must not overlap another's, nor the central directory.

    Overlapping records let a few KiB name the same compressed bytes many times over (the
    classic non-recursive zip bomb); honest writers never produce them.
    """
    raw.seek(0, os.SEEK_END)
    size = raw.tell()
    end_of_data = getattr(archive, "start_dir", size)
    spans: list[tuple[int, int, str]] = []
    for info in archive.infolist():
        raw.seek(info.header_offset)
        header = raw.read(30)
        if len(header) < 30 or header[:4] != b"PK\x03\x04":
            raise CodenavError("UNSAFE_ARCHIVE",
                               f"the archive is corrupt (no local header for {quoted(info.orig_filename)})")
        name_length, extra_length = struct.unpack("<HH", header[26:30])
        end = info.header_offset + 30 + name_length + extra_length + info.compress_size
        spans.append((info.header_offset, end, info.orig_filename))
    spans.sort()
    for (_, end, first), (start, _, second) in pairwise(spans):
        if start < end:
            raise CodenavError(
                "UNSAFE_ARCHIVE",
                f"zip entries {quoted(first)} and {quoted(second)} overlap (a zip-bomb construction)",
                details={"member": printable(second)},
            )
    if spans and spans[-1][1] > end_of_data:
        raise CodenavError("UNSAFE_ARCHIVE",
                           f"the archive is corrupt (entry {quoted(spans[-1][2])} runs into the central directory)")


def percent_decoded(name: str) -> tuple[str, str | None]:
    """A %-escaped entry name decoded segment by segment (NuGet's PackageArchiveReader unescapes
    OPC part names), and why it must be skipped, if it must.

    The decoded name then meets every rule of the policy: ``%2E%2E`` becomes a ``..`` segment
    and refuses the archive, ``%00`` or ``%0A`` make it unaddressable, ``%5C`` a backslash. An
    escaped ``/`` (``%2F``) would make a separator no packer wrote (``..%2Fx`` is one segment
    as written, ``../x`` decoded): such an entry is skipped and reported, never split.
    """
    if "%" not in name:
        return name, None
    from urllib.parse import unquote

    segments = [unquote(segment, errors="surrogateescape") for segment in name.split("/")]
    if any("/" in segment for segment in segments):
        return name, "the name holds an escaped '/' (%2F), which would become a path separator"
    return "/".join(segments), None


def _zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, methods: set[int],
                percent_names: bool = False) -> Member:
    name = _zip_name(info)
    if percent_names:
        name, refused = percent_decoded(name)
        if refused:
            return Member(name, "skip", reason=refused)
    mode = info.external_attr >> 16 if info.create_system == 3 else 0  # 3: Unix attributes
    kind = stat.S_IFMT(mode)
    if info.is_dir() or kind == stat.S_IFDIR:
        return Member(name, "dir")
    if info.flag_bits & 0x1:
        return Member(name, "skip", reason="the entry is encrypted")
    if kind in _ZIP_SPECIAL:
        return Member(name, "skip", reason=f"the entry is {_ZIP_SPECIAL[kind]}")
    if info.compress_type not in methods:
        return Member(name, "skip", reason=f"unsupported zip compression method {info.compress_type}")
    if kind == stat.S_IFLNK:
        if info.file_size > MAX_SYMLINK_TARGET_BYTES:
            return Member(name, "skip", reason="the symlink target is too long")
        with reading(quoted(name), name), archive.open(info) as source:
            target = source.read(MAX_SYMLINK_TARGET_BYTES + 1)
        return Member(name, "symlink", linkname=target.decode("utf-8", "surrogateescape"))
    return Member(name, "file", size=info.file_size, executable=bool(mode & 0o111),
                   open=lambda: archive.open(info))


def extract_zip(archive_path: Path, tree: Tree, *, percent_names: bool = False) -> None:
    with open(archive_path, "rb") as raw:
        with reading("the central directory"):
            declared = _zip_declared_entries(raw)
        if declared is not None and declared > tree.limits.max_files:
            # Checked before zipfile builds one object per entry.
            raise too_many_declared(tree.limits.max_files, declared, "declares")
        raw.seek(0)
        with reading("the central directory"):
            archive = zipfile.ZipFile(raw)
        with archive:
            infos = archive.infolist()
            with reading("the central directory"):
                _check_zip_layout(archive, raw)
            if len(infos) > tree.limits.max_files:
                raise too_many_declared(tree.limits.max_files, len(infos))
            # Every declared size is known up front: refuse a bomb before writing a byte. A member
            # over the per-file limit is never read, so it is listed as skipped and costs nothing.
            declared_total = 0
            for info in infos:
                if not info.is_dir() and info.file_size <= tree.limits.max_file_bytes:
                    declared_total += info.file_size
                    tree.check_total(_zip_name(info), declared_total)
            methods = _zip_methods()
            for info in infos:
                tree.add(_zip_member(archive, info, methods, percent_names))


def copy_member(archive_path: Path, member: str, dest: Path, limits) -> None:
    """Stream the regular member ``member`` of a zip to ``dest`` (a .conda's ``pkg-*.tar.zst``;
    see archive.extract_member); its CRC-32 is checked as it is read."""
    wanted = member.strip("/")
    with open(archive_path, "rb") as raw:
        with reading("the central directory"):
            archive = zipfile.ZipFile(raw)
        with archive:
            info = next((i for i in archive.infolist() if _zip_name(i).lstrip("./") == wanted), None)
            if info is None or info.is_dir() or info.flag_bits & 0x1 or info.compress_type not in _zip_methods():
                raise CodenavError("UNSAFE_ARCHIVE", f"the archive has no regular member {quoted(wanted)} to unpack",
                                   details={"member": wanted})
            if info.file_size > limits.max_total_bytes:
                raise inner_too_large(limits.max_total_bytes, wanted)
            with reading(quoted(wanted), wanted), archive.open(info) as source, open(dest, "wb") as out:
                while chunk := source.read(CHUNK_SIZE):
                    out.write(chunk)


# --- entry point ------------------------------------------------------------------------------
