"""Build tar, tar.gz and zip archives member by member, hostile ones included.

Members are small records (``File``, ``Dir``, ``Symlink``, ``Hardlink``, ``Special``);
``build(fmt, members)`` turns a list of them into archive bytes with tarfile or zipfile, and a
few byte-level helpers forge what those modules refuse to write (NUL in a zip name, raw
non-UTF-8 zip names, overlapping zip records, a bad CRC, an encrypted flag).
"""

from __future__ import annotations

import io
import stat
import struct
import tarfile
import warnings
import zipfile
from dataclasses import dataclass

FORMATS = ("tar.gz", "tar", "zip")


@dataclass
class File:
    name: str
    data: bytes = b""
    mode: int = 0o644


@dataclass
class Dir:
    name: str
    mode: int = 0o755


@dataclass
class Symlink:
    name: str
    target: str


@dataclass
class Hardlink:
    name: str
    target: str  # tar only


@dataclass
class Special:
    name: str
    kind: str  # "chr" | "blk" | "fifo"


Member = File | Dir | Symlink | Hardlink | Special

_TAR_TYPES = {"chr": tarfile.CHRTYPE, "blk": tarfile.BLKTYPE, "fifo": tarfile.FIFOTYPE}
_ZIP_TYPES = {"chr": stat.S_IFCHR, "blk": stat.S_IFBLK, "fifo": stat.S_IFIFO}


def tar_bytes(members: list[Member], *, gzip: bool = True, fmt: int = tarfile.GNU_FORMAT,
              pax_headers: dict[str, str] | None = None) -> bytes:
    """A tar (gzip-compressed unless told otherwise); names may carry surrogate-escaped bytes."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if gzip else "w", format=fmt, encoding="utf-8",
                      errors="surrogateescape", pax_headers=pax_headers or {}) as tar:
        for member in members:
            info = tarfile.TarInfo(member.name)
            info.mtime = 1_700_000_000
            data = None
            if isinstance(member, File):
                info.size, info.mode, data = len(member.data), member.mode, io.BytesIO(member.data)
            elif isinstance(member, Dir):
                info.type, info.mode = tarfile.DIRTYPE, member.mode
            elif isinstance(member, Symlink):
                info.type, info.linkname = tarfile.SYMTYPE, member.target
            elif isinstance(member, Hardlink):
                info.type, info.linkname = tarfile.LNKTYPE, member.target
            else:
                info.type = _TAR_TYPES[member.kind]
                info.devmajor, info.devminor = 1, 3
            tar.addfile(info, data)
    return buffer.getvalue()


def zip_bytes(members: list[Member]) -> bytes:
    """A zip with Unix attributes, so modes, symlinks and special files can be expressed."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate names we mean to write
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for member in members:
                if isinstance(member, Hardlink):
                    raise ValueError("zip has no hardlinks")
                name = member.name + "/" if isinstance(member, Dir) and not member.name.endswith("/") else member.name
                info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
                info.create_system = 3
                data = b""
                if isinstance(member, File):
                    info.external_attr = (stat.S_IFREG | member.mode) << 16
                    data = member.data
                elif isinstance(member, Dir):
                    info.external_attr = (stat.S_IFDIR | member.mode) << 16 | 0x10
                elif isinstance(member, Symlink):
                    info.external_attr = (stat.S_IFLNK | 0o777) << 16
                    data = member.target.encode("utf-8", "surrogateescape")
                else:
                    info.external_attr = (_ZIP_TYPES[member.kind] | 0o644) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, data)
    return buffer.getvalue()


def build(fmt: str, members: list[Member]) -> bytes:
    if fmt == "tar.gz":
        return tar_bytes(members)
    if fmt == "tar":
        return tar_bytes(members, gzip=False)
    if fmt == "zip":
        return zip_bytes(members)
    raise ValueError(fmt)


# --- forging zip bytes ------------------------------------------------------------------------


def replace_in_names(data: bytes, old: bytes, new: bytes) -> bytes:
    """Swap bytes inside zip names (local and central records alike); same length only."""
    assert len(old) == len(new)
    return data.replace(old, new)


def set_central_flag(data: bytes, name: bytes, flag: int, on: bool = True) -> bytes:
    """Set or clear a general-purpose flag bit in the central record of ``name``."""
    out = bytearray(data)
    at = 0
    while (at := out.find(b"PK\x01\x02", at)) >= 0:
        (name_length,) = struct.unpack("<H", out[at + 28:at + 30])
        if out[at + 46:at + 46 + name_length] == name:
            (flags,) = struct.unpack("<H", out[at + 8:at + 10])
            flags = flags | flag if on else flags & ~flag
            out[at + 8:at + 10] = struct.pack("<H", flags)
        at += 4
    return bytes(out)


def stored_zip(entries: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in entries:
            archive.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), data)
    return buffer.getvalue()


def _central_records(data: bytes) -> tuple[int, list[bytes], int]:
    """(central directory offset, its records, where the end record starts)."""
    end = data.rfind(b"PK\x05\x06")
    count, size, offset = struct.unpack("<HII", data[end + 10:end + 20])
    records, at = [], offset
    for _ in range(count):
        name_length, extra_length, comment_length = struct.unpack("<HHH", data[at + 28:at + 34])
        length = 46 + name_length + extra_length + comment_length
        records.append(data[at:at + length])
        at += length
    return offset, records, end


def _with_records(data: bytes, records: list[bytes]) -> bytes:
    offset, _, end = _central_records(data)
    central = b"".join(records)
    tail = bytearray(data[end:])
    tail[8:20] = struct.pack("<HHII", len(records), len(records), len(central), offset)
    return data[:offset] + central + bytes(tail)


def _with_offset(record: bytes, offset: int) -> bytes:
    return record[:42] + struct.pack("<I", offset) + record[46:]


def zip_same_offset_bomb() -> bytes:
    """Two central records pointing at one local record (the fully overlapping zip bomb)."""
    data = stored_zip([("a.txt", b"A" * 100)])
    _, records, _ = _central_records(data)
    twin = records[0].replace(b"a.txt", b"b.txt")
    return _with_records(data, [records[0], twin])


def zip_quoted_overlap() -> bytes:
    """Entry ``b.txt`` lives inside the stored data of ``a.txt`` (the quoted-overlap bomb)."""
    inner = stored_zip([("b.txt", b"B" * 100)])
    inner_offset, inner_records, _ = _central_records(inner)
    local_b = inner[:inner_offset]
    outer = stored_zip([("a.txt", local_b)])
    _, outer_records, _ = _central_records(outer)
    data_start = 30 + len("a.txt")  # a.txt's local header has no extra field
    return _with_records(outer, [outer_records[0], _with_offset(inner_records[0], data_start)])
