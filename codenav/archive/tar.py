"""Reading tar archives (gzip, bzip2, xz or plain) into the Tree, in one streaming pass."""

from __future__ import annotations

import tarfile
from pathlib import Path
from typing import IO

from ..errors import CodenavError
from .tree import CHUNK_SIZE, HEADER_ALLOWANCE, TRAILER_ALLOWANCE, Limits, Member, Tree, quoted, reading


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
            tar = tarfile.open(fileobj=stream, mode="r|", encoding="utf-8", errors="surrogateescape")
        previous = "the start of the archive"
        tree.reads_skipped = True  # tar has no index: a skipped member is decompressed to pass it
        while True:
            with reading(f"the member after {previous}"):
                info = tar.next()
            if info is None:
                break
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
