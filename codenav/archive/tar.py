"""Reading tar archives (gzip, bzip2, xz or plain) into the Tree, in one streaming pass."""

from __future__ import annotations

import tarfile
from pathlib import Path
from typing import IO

from ..errors import CodenavError
from .tree import CHUNK_SIZE, HEADER_ALLOWANCE, TRAILER_ALLOWANCE, Limits, Member, Tree, quoted, reading

_ZERO_BLOCK = bytes(tarfile.BLOCKSIZE)
_PLAIN_TYPES = (tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.CONTTYPE)


class _CountingStream:
    """The decompressed tar stream, with a ceiling on how far tarfile may read ahead.

    tarfile reads a pax header or a GNU long name into memory whole; the ceiling (moved
    forward by the caller before each header) makes a gigantic one fail early (TOO_LARGE).
    """

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.position = 0
        self.ceiling: int | None = None
        self.where = "the start of the archive"

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(CHUNK_SIZE if size is None or size < 0 else size)
        self.position += len(data)
        if self.ceiling is not None and self.position > self.ceiling:
            raise CodenavError(
                "TOO_LARGE", f"tar metadata after {self.where} is larger than {HEADER_ALLOWANCE} bytes",
                details={"limit": HEADER_ALLOWANCE},
            )
        return data


class _Header(tarfile.TarInfo):
    """tarfile's TarInfo, with a faster reading of the plain header most archives are made of.

    A header that is all ASCII (so the signed and unsigned checksums agree and every name
    decodes the same in any ASCII-compatible encoding), whose number fields are octal text
    and which is not an old GNU sparse member, is read here field by field as
    ``TarInfo.frombuf`` reads it; any other header, and any field this reading cannot take,
    goes to ``TarInfo.frombuf`` itself, which decides (and raises) as always. Pax and GNU
    long-name records are still processed by tarfile on top of it.
    """

    __slots__ = ()

    @classmethod
    def frombuf(cls, buf: bytes, encoding: str, errors: str) -> tarfile.TarInfo:
        if len(buf) != tarfile.BLOCKSIZE or not buf.isascii() or buf == _ZERO_BLOCK \
                or buf[156:157] == tarfile.GNUTYPE_SPARSE:
            return super().frombuf(buf, encoding, errors)
        try:
            chksum = _octal(buf[148:156])
            # Unsigned and signed sums are one sum for ASCII; the checksum field counts as spaces.
            if chksum != 256 + sum(buf) - sum(buf[148:156]):
                raise ValueError("bad checksum")
            obj = cls()
            obj.name = buf[0:100].split(b"\0", 1)[0].decode("ascii")
            obj.mode = _octal(buf[100:108])
            obj.uid = _octal(buf[108:116])
            obj.gid = _octal(buf[116:124])
            obj.size = _octal(buf[124:136])
            obj.mtime = _octal(buf[136:148])
            obj.devmajor = _octal(buf[329:337])
            obj.devminor = _octal(buf[337:345])
        except ValueError:
            return super().frombuf(buf, encoding, errors)
        obj.chksum = chksum
        obj.type = buf[156:157]
        obj.linkname = buf[157:257].split(b"\0", 1)[0].decode("ascii")
        obj.uname = buf[265:297].split(b"\0", 1)[0].decode("ascii")
        obj.gname = buf[297:329].split(b"\0", 1)[0].decode("ascii")
        prefix = buf[345:500].split(b"\0", 1)[0].decode("ascii")
        if obj.type == tarfile.AREGTYPE and obj.name.endswith("/"):
            obj.type = tarfile.DIRTYPE  # the old V7 spelling of a directory
        if obj.type == tarfile.DIRTYPE:
            obj.name = obj.name.rstrip("/")
        if prefix and obj.type not in tarfile.GNU_TYPES:
            obj.name = prefix + "/" + obj.name
        return obj


def _octal(field: bytes) -> int:
    """A tar number field written as octal text (``tarfile.nti`` for that encoding; the base-256
    one never reaches here: its bytes are not ASCII). ValueError for anything else."""
    return int(field.split(b"\0", 1)[0].decode("ascii").strip() or "0", 8)


class _Data:
    """The data of a plain regular member, read straight from tarfile's stream.

    What ``tar.extractfile`` returns for such a member does the same through four layers of
    buffering and seeking; this reads exactly ``size`` bytes from where tarfile left the stream
    (the member's data), and a stream that ends sooner is an error, as tarfile's is.
    """

    __slots__ = ("stream", "left")

    def __init__(self, stream: IO[bytes], size: int) -> None:
        self.stream = stream
        self.left = size

    def read(self, size: int) -> bytes:
        if self.left <= 0:
            return b""
        wanted = min(size, self.left)
        data = self.stream.read(wanted)
        if len(data) != wanted:
            raise tarfile.ReadError("unexpected end of data")
        self.left -= wanted
        return data

    def close(self) -> None:
        pass


def _block(size: int) -> int:
    return (size + tarfile.BLOCKSIZE - 1) // tarfile.BLOCKSIZE * tarfile.BLOCKSIZE


def _decompressed(raw: IO[bytes]) -> tuple[IO[bytes], bool]:
    """The tar bytes of ``raw`` (gzip, bzip2, xz or plain, told by magic) and whether compressed."""
    magic = raw.read(6)
    raw.seek(0)
    if magic[:2] == b"\x1f\x8b":
        import gzip

        return gzip.GzipFile(fileobj=raw, mode="rb"), True
    if magic[:3] == b"BZh":
        import bz2

        return bz2.BZ2File(raw, mode="rb"), True
    if magic == b"\xfd7zXZ\x00":
        import lzma

        return lzma.LZMAFile(raw, mode="rb"), True
    return raw, False


_TAR_SPECIAL = {tarfile.CHRTYPE: "a character device", tarfile.BLKTYPE: "a block device",
                tarfile.FIFOTYPE: "a FIFO"}


def _tar_member(tar: tarfile.TarFile, info: tarfile.TarInfo) -> Member:
    name = info.name
    if info.isdir():
        return Member(name, "dir")
    if info.isreg():
        if info.type in _PLAIN_TYPES and info.sparse is None and tar.fileobj.tell() == info.offset_data:
            stream = tar.fileobj
            return Member(name, "file", size=info.size, executable=bool(info.mode & 0o111),
                          open=lambda: _Data(stream, info.size))
        return Member(name, "file", size=info.size, executable=bool(info.mode & 0o111),
                      open=lambda: tar.extractfile(info))
    if info.issym():
        return Member(name, "symlink", linkname=info.linkname)
    if info.islnk():
        return Member(name, "hardlink", linkname=info.linkname)
    if info.type in _TAR_SPECIAL:
        return Member(name, "skip", reason=f"the member is {_TAR_SPECIAL[info.type]}")
    return Member(name, "skip", reason=f"unsupported tar member type {info.type!r}")


def extract_tar(archive: Path, tree: Tree) -> None:
    with open(archive, "rb") as raw:
        with reading("the start of the archive"):
            plain, compressed = _decompressed(raw)
        stream = _CountingStream(plain)
        # One pass, no seeking back (tarfile stream mode); names that are not UTF-8 survive
        # as surrogates so they can be reported rather than guessed at.
        stream.ceiling = HEADER_ALLOWANCE
        with reading("the start of the archive"):
            tar = tarfile.open(fileobj=stream, mode="r|", encoding="utf-8", errors="surrogateescape",
                               tarinfo=_Header)
        previous = "the start of the archive"
        tree.reads_skipped = True  # tar has no index: a skipped member is decompressed to pass it
        while True:
            with reading(f"the member after {previous}"):
                info = tar.next()
            if info is None:
                break
            tar.members.clear()  # tarfile keeps every member it read; nothing here looks back
            previous = quoted(info.name)
            stream.where = previous
            # From here on: this member's data (read or skipped), padding, then the next header.
            carries_data = info.isreg() or info.type not in tarfile.SUPPORTED_TYPES
            stream.ceiling = stream.position + (_block(info.size) if carries_data else 0) + HEADER_ALLOWANCE
            tree.add(_tar_member(tar, info))
        if compressed:
            # Read the compressed tail so a truncated stream or a bad gzip CRC is caught; a tail
            # larger than the allowance is left unread rather than decompressed.
            stream.ceiling = None
            left = TRAILER_ALLOWANCE
            with reading("the end of the archive"):
                while left > 0 and (chunk := plain.read(min(CHUNK_SIZE, left))):
                    left -= len(chunk)


def copy_member(archive: Path, member: str, dest: Path, limits: Limits) -> None:
    """Stream the regular member ``member`` of a tar to ``dest`` (see archive.extract_member)."""
    wanted = member.strip("/")
    with open(archive, "rb") as raw:
        with reading("the start of the archive"):
            plain, _ = _decompressed(raw)
            tar = tarfile.open(fileobj=plain, mode="r|", encoding="utf-8", errors="surrogateescape")
        with reading(f"the member {quoted(wanted)}", wanted):
            for info in tar:
                if info.name.lstrip("./") != wanted and info.name != wanted:
                    continue
                if not info.isreg():
                    break
                if info.size > limits.max_total_bytes:
                    raise CodenavError(
                        "TOO_LARGE", f"the archive's {quoted(wanted)} is larger than the extracted-bytes limit",
                        details={"limitBytes": limits.max_total_bytes, "variable": "CODENAV_MAX_EXTRACTED_BYTES"})
                source = tar.extractfile(info)
                assert source is not None
                with open(dest, "wb") as out:
                    while chunk := source.read(CHUNK_SIZE):
                        out.write(chunk)
                return
    raise CodenavError("UNSAFE_ARCHIVE", f"the archive has no regular member {quoted(wanted)} to unpack",
                       details={"member": wanted})
