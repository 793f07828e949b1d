"""Reading a member's bytes: what a failure to read the archive becomes, and the binary sniff.

Only reads are mapped (``reading``, ``corrupt``), never writes: a full disk is not a corrupt
archive. ``Sniffer`` applies ``text.is_binary``'s rule to bytes as they stream by, so a file's
kind is known once it is written, without reading it again.
"""

from __future__ import annotations

import codecs
import struct
import sys
import tarfile
import zlib
from contextlib import contextmanager

from ..errors import CodenavError
from .names import printable

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Iterator

CHUNK_SIZE = 64 * 1024  # bytes read and written at a time; binary sniffing is incremental
SNIFF_BYTES = 8192  # SPEC §2.3: a NUL in the first 8 KiB makes a file binary


def _corrupt_detail(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror  # str(OSError) may carry a file name
    return str(exc) or type(exc).__name__


# What reading a tar (or a decompressor) raises for a corrupt archive. READ_ERRORS is that, and
# zipfile.BadZipFile once a zip reader is imported (admit_zip_errors): a tarball's extraction
# never imports zipfile (several milliseconds of a cold call). admit_zip_errors rebinds it, so
# other modules read it as ``stream.READ_ERRORS``, never import the name.
ARCHIVE_ERRORS = READ_ERRORS = (tarfile.TarError, EOFError, zlib.error, OSError, struct.error,
                                ValueError, NotImplementedError, RuntimeError)


def admit_zip_errors() -> None:
    """Called by the zip readers (zip.py, ranged.py) as they are imported: zipfile's BadZipFile is
    then a corrupt archive too, wherever ``READ_ERRORS`` is caught."""
    global READ_ERRORS
    import zipfile

    if zipfile.BadZipFile not in READ_ERRORS:
        READ_ERRORS = (*READ_ERRORS, zipfile.BadZipFile)


def _bad_zip(exc: BaseException) -> bool:
    zipfile = sys.modules.get("zipfile")
    return zipfile is not None and isinstance(exc, zipfile.BadZipFile)


@contextmanager
def reading(where: str, member: str | None = None) -> Iterator[None]:
    """Map a failure to read the archive itself to UNSAFE_ARCHIVE (or INTEGRITY_ERROR for a bad CRC).

    Only reads are wrapped, never writes: a full disk is not a corrupt archive.
    """
    try:
        yield
    except CodenavError:
        raise
    except READ_ERRORS as exc:
        raise corrupt(exc, where, member) from None


def corrupt(exc: BaseException, where: str, member: str | None = None) -> CodenavError:
    """The error ``reading`` raises for ``exc``: for hot loops that catch ``READ_ERRORS`` inline
    (a context manager per chunk of 43,000 small members is measurable)."""
    detail = _corrupt_detail(exc)
    details = {"member": printable(member)} if member is not None else None
    if _bad_zip(exc) and "CRC" in detail:
        return CodenavError("INTEGRITY_ERROR", f"archive member {where} fails its CRC-32 check", details=details)
    return CodenavError("UNSAFE_ARCHIVE", f"the archive is corrupt ({detail}) at {where}", details=details)


class Sniffer:
    """Binary detection while streaming: same rule as ``text.is_binary``, never a re-read."""

    __slots__ = ("seen", "binary", "_decoder")

    def __init__(self) -> None:
        self.seen = 0
        self.binary = False
        self._decoder: codecs.IncrementalDecoder | None = None  # made at the first non-ASCII chunk

    def feed(self, chunk: bytes) -> None:
        if self.binary:
            return
        if self.seen < SNIFF_BYTES and b"\0" in chunk[: SNIFF_BYTES - self.seen]:
            self.binary = True
            return
        self.seen += len(chunk)
        if chunk.isascii() and (self._decoder is None or not self._decoder.getstate()[0]):
            return  # nothing pending and nothing to decode: the common case, kept cheap
        if self._decoder is None:
            self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
        try:
            self._decoder.decode(chunk)
        except UnicodeDecodeError:
            self.binary = True

    def finish(self) -> bool:
        if not self.binary and self._decoder is not None:
            try:
                self._decoder.decode(b"", final=True)
            except UnicodeDecodeError:
                self.binary = True
        return self.binary


def is_binary(data: bytes) -> bool:
    """``Sniffer``'s verdict on ``data`` fed whole."""
    if b"\0" in data[:SNIFF_BYTES]:
        return True
    if data.isascii():
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False
