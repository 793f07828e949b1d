"""Reading tar archives (gzip, bzip2, xz, zstd where the interpreter has it, or plain) into the Tree, in one
streaming pass."""

from __future__ import annotations

import tarfile
import zlib
from pathlib import Path
from typing import IO

from ..errors import CodenavError, too_large
from .limits import Limits, inner_too_large
from .names import quoted
from .records import Member
from .stream import ARCHIVE_ERRORS, CHUNK_SIZE, corrupt, reading
from .tree import HEADER_ALLOWANCE, TRAILER_ALLOWANCE, Tree

_ZERO_BLOCK = bytes(tarfile.BLOCKSIZE)
_PLAIN_TYPES = (tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.CONTTYPE)


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
    if magic[:4] == b"\x28\xb5\x2f\xfd" and (zstd := zstd_module()) is not None:
        return zstd.ZstdFile(raw, mode="rb"), True  # a .conda's inner tars
    return raw, False


def zstd_module():
    """This interpreter's zstd (``compression.zstd``, Python 3.14+, else the ``backports.zstd``
    package when installed) or None: without it a zstd stream is read as the plain tar it is not."""
    try:
        from compression import zstd  # type: ignore[import-not-found]
    except ImportError:
        try:
            from backports import zstd  # type: ignore[import-not-found,no-redef]
        except ImportError:
            return None
    return zstd


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


class _Exact:
    """The decompressed tar stream, read ahead in pieces but consumed to the byte.

    The fast loop of ``extract_tar`` takes headers and data from it itself; a header only
    tarfile can read (pax, GNU long names, sparse files, other encodings) is handed to a
    ``tarfile`` in stream mode reading 512 bytes at a time, which asks for no byte past the
    headers it parses, so the two never disagree on where the stream is. ``ceiling`` bounds
    how far tarfile may read: it reads a pax record or a GNU long name into memory whole, and the
    ceiling (moved forward before each header it reads) makes a gigantic one fail early
    (TOO_LARGE, HEADER_ALLOWANCE).
    """

    __slots__ = ("raw", "buffer", "at", "position", "ceiling", "where")

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.buffer = b""
        self.at = 0  # where in ``buffer`` the stream is
        self.position = 0  # bytes consumed since the start of the archive
        self.ceiling: int | None = None
        self.where = "the start of the archive"

    def _fill(self, size: int) -> int:
        """Make ``size`` bytes available past ``at`` when the stream has them; how many are."""
        have = len(self.buffer) - self.at
        if have >= size:
            return have
        parts = [self.buffer[self.at:]]
        while have < size:
            chunk = self.raw.read(max(CHUNK_SIZE, size - have))
            if not chunk:
                break
            parts.append(chunk)
            have += len(chunk)
        self.buffer = b"".join(parts)
        self.at = 0
        return have

    def peek(self, size: int) -> bytes:
        self._fill(size)
        return self.buffer[self.at:self.at + size]

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            size = CHUNK_SIZE
        self._fill(size)
        data = self.buffer[self.at:self.at + size]
        self.at += len(data)
        self.position += len(data)
        if self.ceiling is not None and self.position > self.ceiling:
            raise too_large(
                f"tar metadata after {self.where} is larger than {HEADER_ALLOWANCE} bytes",
                limit=HEADER_ALLOWANCE,
            )
        return data

    def skip_to(self, position: int) -> None:
        """Pass over the rest of a member's data and padding; a stream that ends sooner is
        corrupt, as tarfile's ``next`` finds it ("unexpected end of data")."""
        while self.position < position:
            have = self._fill(min(position - self.position, CHUNK_SIZE))
            if have == 0:
                raise tarfile.ReadError("unexpected end of data")
            step = min(have, position - self.position)
            self.at += step
            self.position += step


# Header types the fast loop reads itself, and what each member is; any other goes to tarfile.
_FAST_KINDS = {tarfile.REGTYPE: "file", tarfile.AREGTYPE: "file", tarfile.CONTTYPE: "file",
               tarfile.DIRTYPE: "dir", tarfile.SYMTYPE: "symlink", tarfile.LNKTYPE: "hardlink"}


def _plain(buf: bytes) -> tuple[str, str, int, int, str] | None:
    """(name, kind, size, mode, linkname) of a header that ``tarfile.TarInfo.frombuf`` reads
    the same way and that needs nothing more (no pax or GNU record, no sparse map); None for
    any other, which tarfile reads instead. Field for field as ``_Header.frombuf``."""
    if len(buf) != tarfile.BLOCKSIZE or not buf.isascii():
        return None
    kind = _FAST_KINDS.get(buf[156:157])
    if kind is None:
        return None
    try:
        # The sum of 512 ASCII bytes is at most 65,024, below adler32's modulus: its low half
        # is 1 + the plain sum, computed in C. Unsigned and signed sums agree for ASCII.
        total = (zlib.adler32(buf) & 0xFFFF) - 1
        if _number(buf[148:156]) != 256 + total - sum(buf[148:156]):
            return None
        size = _number(buf[124:136])
        mode = _number(buf[100:108])
        # tarfile reads uid, gid, mtime, devmajor and devminor too, and refuses a header where
        # one is not a number: so must this.
        _number(buf[108:116]), _number(buf[116:124]), _number(buf[136:148]), _number(buf[329:337])
        _number(buf[337:345])
    except ValueError:
        return None
    name = buf[0:100].split(b"\0", 1)[0].decode("ascii")
    linkname = buf[157:257].split(b"\0", 1)[0].decode("ascii") if kind != "file" else ""
    prefix = buf[345:500].split(b"\0", 1)[0]
    if kind == "file" and buf[156:157] == tarfile.AREGTYPE and name.endswith("/"):
        kind = "dir"  # the old V7 spelling of a directory
    if kind == "dir":
        name = name.rstrip("/")
    if prefix:
        name = prefix.decode("ascii") + "/" + name
    return name, kind, size, mode, linkname


_NUMBERS: dict[bytes, int] = {}  # header number fields already read: most repeat member after member


def _number(field: bytes) -> int:
    """``_octal(field)``, remembered (a few thousand distinct fields at most)."""
    value = _NUMBERS.get(field)
    if value is None:
        value = _octal(field)
        if len(_NUMBERS) < 4096:
            _NUMBERS[field] = value
    return value


def _fast_member(stream: _Exact, kind: str, name: str, size: int, mode: int, linkname: str) -> Member:
    if kind == "file":
        if size <= CHUNK_SIZE:
            # A small member's bytes are read now (they are decompressed to pass them anyway),
            # so Tree takes them whole rather than through a reader.
            data = stream.read(size)
            if len(data) != size:
                raise corrupt(tarfile.ReadError("unexpected end of data"), quoted(name), name)
            return Member(name, "file", size=size, executable=bool(mode & 0o111), data=data)
        return Member(name, "file", size=size, executable=bool(mode & 0o111), open=lambda: _Data(stream, size))
    if kind == "dir":
        return Member(name, "dir")
    return Member(name, kind, linkname=linkname)


def extract_tar(archive: Path, tree: Tree) -> None:
    with open(archive, "rb") as raw:
        with reading("the start of the archive"):
            plain, compressed = _decompressed(raw)
        stream = _Exact(plain)
        tree.reads_skipped = True  # tar has no index: a skipped member is decompressed to pass it
        name = None  # the member before, named in errors
        while True:
            # Reads are mapped to UNSAFE_ARCHIVE inline, as ``reading`` does (a context manager
            # per member of 43,000 is measurable).
            try:
                header = stream.peek(tarfile.BLOCKSIZE)
                fields = _plain(header)
                if fields is None:
                    if stream.position and _ends_archive(header):
                        break
                    start = stream.position
                    tar, info = _tarfile_next(stream, _after(name))
                    if info is None:
                        break
                    if not _continues_plainly(tar, info, stream.position - start):
                        _extract_rest(tar, info, stream, tree)
                        break
                    name, size = info.name, info.size
                    if info.type in _TAR_SPECIAL:  # a device or FIFO: no data follows
                        kind, member = "special", _tar_member(tar, info)
                    else:
                        kind = _FAST_KINDS[info.type]
                        member = _fast_member(stream, kind, name, size, info.mode, info.linkname)
                else:
                    name, kind, size, mode, linkname = fields
                    stream.read(tarfile.BLOCKSIZE)
                    member = _fast_member(stream, kind, name, size, mode, linkname)
            except CodenavError:
                raise
            except ARCHIVE_ERRORS as exc:
                raise corrupt(exc, _after(name)) from None
            data_end = stream.position + (_block(size) - size if member.data is not None else _block(size))
            tree.add(member)
            if kind == "file":
                try:
                    stream.skip_to(data_end)
                except ARCHIVE_ERRORS as exc:
                    raise corrupt(exc, _after(name)) from None
        if compressed:
            # Read the compressed tail so a truncated stream or a bad gzip CRC is caught; a tail
            # larger than the allowance is left unread rather than decompressed.
            left = TRAILER_ALLOWANCE
            with reading("the end of the archive"):
                while left > 0 and (chunk := plain.read(min(CHUNK_SIZE, left))):
                    left -= len(chunk)


def _after(name: str | None) -> str:
    return "the start of the archive" if name is None else f"the member after {quoted(name)}"


def _tarfile_next(stream: _Exact, where: str) -> tuple[tarfile.TarFile, tarfile.TarInfo | None]:
    """A tarfile reading the stream from the header at its position, and the member it opens
    (None at the end of the archive)."""
    stream.where = where.removeprefix("the member after ")
    stream.ceiling = stream.position + HEADER_ALLOWANCE
    tar = tarfile.open(fileobj=stream, mode="r|", bufsize=tarfile.BLOCKSIZE, encoding="utf-8",
                       errors="surrogateescape", tarinfo=_Header)
    info = tar.next()
    stream.ceiling = None
    return tar, info


def _ends_archive(header: bytes) -> bool:
    """True when tarfile's ``next`` ends the archive at this header (past the first one): a
    zero block, the end of the stream, a short or unreadable header."""
    try:
        tarfile.TarInfo.frombuf(header, "utf-8", "surrogateescape")
    except tarfile.HeaderError:
        return True
    return False


def _continues_plainly(tar: tarfile.TarFile, info: tarfile.TarInfo, consumed: int) -> bool:
    """Whether the fast loop can take the stream back after tarfile read ``info``: its data is
    plain (not sparse, a type the fast loop knows, or a device or FIFO, which has none), tarfile
    has read exactly up to it, and no global pax record changes the members that follow."""
    lasting = set(tar.pax_headers) - {"comment"}  # git archive's commit id changes no member
    return ((info.type in _FAST_KINDS or info.type in _TAR_SPECIAL) and info.sparse is None and not lasting
            and info.offset_data == consumed)


def _extract_rest(tar: tarfile.TarFile, info: tarfile.TarInfo, stream: _Exact, tree: Tree) -> None:
    """The rest of the archive, from ``info`` on, read through tarfile itself."""
    base = stream.position - tar.fileobj.tell()  # tarfile counts from where it was handed the stream
    # From here tarfile owns the stream: it may read ahead as it does by default (a record at a
    # time, not a block: a large member's data is read in 64 KiB pieces either way).
    tar.fileobj.bufsize = tarfile.RECORDSIZE
    while info is not None:
        tar.members.clear()  # tarfile keeps every member it read; nothing here looks back
        previous = quoted(info.name)
        stream.where = previous
        # From here on: this member's data (read or skipped), padding, then the next header.
        carries_data = info.isreg() or info.type not in tarfile.SUPPORTED_TYPES
        stream.ceiling = base + info.offset_data + (_block(info.size) if carries_data else 0) + HEADER_ALLOWANCE
        tree.add(_tar_member(tar, info))
        with reading(f"the member after {previous}"):
            info = tar.next()


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
                    raise inner_too_large(limits.max_total_bytes, wanted)
                source = tar.extractfile(info)
                assert source is not None
                with open(dest, "wb") as out:
                    while chunk := source.read(CHUNK_SIZE):
                        out.write(chunk)
                return
    raise CodenavError("UNSAFE_ARCHIVE", f"the archive has no regular member {quoted(wanted)} to unpack",
                       details={"member": wanted})
