"""The one writer under an extraction's destination, and what it records (see archive/__init__.py).

``Tree`` is the only code that decides what is created under ``dest``: every name goes through
its mapping (strip rule, required prefix, the policy's refusals), every file is opened with
``O_CREAT|O_EXCL|O_NOFOLLOW``, no symlink is ever created. It is kept whole in this one module,
over 500 lines, so that invariant can be checked in one read; the tar and zip readers only
turn members into ``Member`` records for it. Past ``WRITER_AFTER`` files, small files are
handed to a helper process (filewriter.py, ``_Writer`` here) that only creates the validated
paths it is given, with the same flags, so their creation overlaps the reading of the next
members; everything Tree later looks up about such a file waits for it (``_settled``).
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import os
import struct
import sys
import tarfile
import unicodedata
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from ..errors import CodenavError, protocol_error, too_large

CHUNK_SIZE = 64 * 1024  # bytes read and written at a time; binary sniffing is incremental
SNIFF_BYTES = 8192  # SPEC §2.3: a NUL in the first 8 KiB makes a file binary
MAX_COMPONENT_BYTES = 255  # NAME_MAX on Linux and macOS
MAX_PATH_BYTES = 4095  # PATH_MAX (4096) counts the terminating NUL
MAX_LINK_HOPS = 40  # Linux's MAXSYMLINKS
MAX_SYMLINK_TARGET_BYTES = 4095
# A package with more files than this has the rest created by the helper process (filewriter.py):
# below it the process costs more than it saves. Files over WRITER_MAX_BYTES are always written here.
WRITER_AFTER = 384
WRITER_MAX_BYTES = 1 << 20
_WRITER_BATCH = 1 << 18  # bytes of records sent at a time
_WRITER_SYNC_EVERY = 8192  # files between two answers from the helper: bounds what is remembered
HEADER_ALLOWANCE = 1 << 20  # tar metadata (pax, GNU long names) allowed between two members
TRAILER_ALLOWANCE = 1 << 20  # compressed tail read after the last member to verify the stream

_FILE_MODE = 0o644
_EXEC_MODE = 0o755
_DIR_MODE = 0o755
_OPEN_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


# --- limits ---------------------------------------------------------------------------------

_LIMIT_VARIABLES = {
    "max_files": "CODENAV_MAX_FILES",
    "max_total_bytes": "CODENAV_MAX_EXTRACTED_BYTES",
    "max_file_bytes": "CODENAV_MAX_FILE_BYTES",
}


class Limits:
    """SPEC §3 limits on what one archive may expand to (immutable, compared by value)."""

    __slots__ = ("max_files", "max_total_bytes", "max_file_bytes")

    def __init__(self, max_files: int = 100_000,  # env CODENAV_MAX_FILES
                 max_total_bytes: int = 1 << 30,  # env CODENAV_MAX_EXTRACTED_BYTES
                 max_file_bytes: int = 50 << 20) -> None:  # env CODENAV_MAX_FILE_BYTES
        for name, value in (("max_files", max_files), ("max_total_bytes", max_total_bytes),
                            ("max_file_bytes", max_file_bytes)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Limits are immutable: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Limits) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Limits(max_files={self.max_files!r}, max_total_bytes={self.max_total_bytes!r}, "
                f"max_file_bytes={self.max_file_bytes!r})")

    def _key(self) -> tuple[int, int, int]:
        return self.max_files, self.max_total_bytes, self.max_file_bytes

    @classmethod
    def from_env(cls) -> Limits:
        """The defaults, each overridden by its variable when set; a bad value is CONFIG_ERROR."""
        values: dict[str, int] = {}
        for name, variable in _LIMIT_VARIABLES.items():
            raw = os.environ.get(variable, "").strip()
            if not raw:
                continue
            try:
                value = int(raw)
            except ValueError:
                value = 0
            if value < 1:
                raise CodenavError(
                    "CONFIG_ERROR", f"{variable} must be a positive whole number, got {raw!r}",
                    details={"variable": variable},
                )
            values[name] = value
        return cls(**values)


# --- results --------------------------------------------------------------------------------


class FileEntry:
    """One path written (or listed) under the tree. Plain classes, not dataclasses: importing
    ``dataclasses`` (with ``inspect``) costs a cold call several milliseconds."""

    __slots__ = ("path", "size", "binary", "link", "sha256", "skipped")

    def __init__(self, path: str, size: int, binary: bool, link: str | None, sha256: str | None = None,
                 skipped: str | None = None) -> None:
        self.path = path  # relative, '/'-separated, validated (SPEC §2.2)
        self.size = size  # bytes
        # NUL in the first 8 KiB or not valid UTF-8 (text.is_binary), sniffed while streaming
        self.binary = binary
        # a symlink kept as a link: its resolved target inside the tree; None for files
        self.link = link
        # sha256 of the bytes written (hex), computed while writing: the manifest keeps it so that
        # two versions can be compared without reading a file twice. None for links.
        self.sha256 = sha256
        # "too large": a member over the per-file limit, listed with its size but not written (SPEC §3)
        self.skipped = skipped

    def __eq__(self, other: object) -> bool:  # sha256 and skipped are not compared (as before)
        return isinstance(other, FileEntry) and (self.path, self.size, self.binary, self.link) == (
            other.path, other.size, other.binary, other.link)

    def __hash__(self) -> int:
        return hash((self.path, self.size, self.binary, self.link))

    def __repr__(self) -> str:
        return (f"FileEntry(path={self.path!r}, size={self.size!r}, binary={self.binary!r}, link={self.link!r}, "
                f"sha256={self.sha256!r}, skipped={self.skipped!r})")


class Extracted:
    """What an extraction wrote: ``files`` sorted by path, ``skipped`` as
    ``[{"path": printable member name, "reason": "..."}]``, sorted."""

    __slots__ = ("files", "skipped")

    def __init__(self, files: list[FileEntry], skipped: list[dict[str, str]]) -> None:
        self.files, self.skipped = files, skipped

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Extracted) and (self.files, self.skipped) == (other.files, other.skipped)

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass was

    def __repr__(self) -> str:
        return f"Extracted(files={self.files!r}, skipped={self.skipped!r})"


# --- names ----------------------------------------------------------------------------------


def printable(name: str) -> str:
    """``name`` with everything that cannot be shown on one line escaped, repr-style.

    Bytes that were not UTF-8 (surrogate-escaped) show as ``\\xNN``; a backslash is doubled so
    the escaped form is unambiguous.
    """
    if name.isprintable() and "\\" not in name:
        return name  # the common case, at C speed
    out: list[str] = []
    for char in name:
        code = ord(char)
        if char == "\\":
            out.append("\\\\")
        elif 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif char.isprintable():
            out.append(char)
        else:
            out.append(repr(char)[1:-1])  # \n, \t, \x1b, \u2028 ...
    return "".join(out)


def quoted(name: str) -> str:
    return f"'{printable(name)}'"


def _segments(name: str) -> list[str]:
    """The member name as path segments; absolute names and ``..`` reject the archive."""
    if name.startswith("/"):
        # Named without its leading '/' so that no message ever holds an absolute path (SPEC §4).
        shown = name.lstrip("/")
        raise CodenavError("UNSAFE_ARCHIVE", f"archive member {quoted(shown)} has an absolute path (a leading '/')",
                           details={"member": printable(shown)})
    segments = [segment for segment in name.split("/") if segment not in ("", ".")]
    if ".." in segments:
        raise CodenavError("UNSAFE_ARCHIVE", f"archive member {quoted(name)} has a '..' path segment",
                           details={"member": printable(name)})
    return segments


def _unshowable(char: str) -> bool:
    # Cc: C0/C1 controls incl. NUL, newline, tab, DEL; Zl/Zp: U+2028/U+2029, which some
    # readers treat as line breaks (SPEC §2.2: one path per line); Cs: bytes that were not UTF-8.
    return unicodedata.category(char) in ("Cc", "Zl", "Zp", "Cs")


def _unaddressable(segments: list[str]) -> str | None:
    """Why a path cannot be listed or addressed (SPEC §2.2), or None when it can."""
    path = "/".join(segments)
    if not path.isprintable():  # C-speed pre-check; most names never reach the detailed scan
        if "\0" in path:
            return "the name holds a NUL byte"
        if any(0xDC80 <= ord(char) <= 0xDCFF for char in path):
            return "the name is not valid UTF-8"
        if any(_unshowable(char) for char in path):
            return "the name holds control characters"
    if "\\" in path:
        return "the name holds a backslash (a path separator on Windows)"
    if any(len(segment.encode("utf-8")) > MAX_COMPONENT_BYTES for segment in segments):
        return f"a path component is longer than {MAX_COMPONENT_BYTES} bytes"
    if len(path.encode("utf-8")) > MAX_PATH_BYTES:
        return f"the path is longer than {MAX_PATH_BYTES} bytes"
    return None


def _valid_link_text(target: str) -> bool:
    if not target or len(target.encode("utf-8", "surrogateescape")) > MAX_SYMLINK_TARGET_BYTES:
        return False
    return target.isprintable() or not any(_unshowable(char) for char in target)


# --- members --------------------------------------------------------------------------------


class Member:
    """One archive member, format-neutral."""

    __slots__ = ("name", "kind", "size", "executable", "linkname", "reason", "open", "data")

    def __init__(self, name: str, kind: str, size: int = 0, executable: bool = False, linkname: str = "",
                 reason: str = "", open: Callable[[], IO[bytes]] | None = None, data: bytes | None = None) -> None:
        self.name = name  # as the archive spells it (surrogate-escaped where it is not UTF-8)
        self.kind = kind  # "file" | "dir" | "symlink" | "hardlink" | "skip"
        self.size = size
        self.executable = executable
        self.linkname = linkname
        self.reason = reason  # for "skip": why
        self.open = open  # the data of a "file" member
        self.data = data  # or the data itself, already read (a small tar member)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Member) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "Member(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__) + ")"


class _Sniffer:
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


def _is_binary(data: bytes) -> bool:
    """``_Sniffer``'s verdict on ``data`` fed whole."""
    if b"\0" in data[:SNIFF_BYTES]:
        return True
    if data.isascii():
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _corrupt_detail(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror  # str(OSError) may carry a file name
    return str(exc) or type(exc).__name__


# zipfile.BadZipFile joins them when a zip reader is imported (admit_zip_errors): a tarball's
# extraction never imports zipfile (several milliseconds of a cold call).
ARCHIVE_ERRORS = _ARCHIVE_ERRORS = (tarfile.TarError, EOFError, zlib.error, OSError, struct.error,
                   ValueError, NotImplementedError, RuntimeError)


def admit_zip_errors() -> None:
    """Called by the zip readers (zip.py, ranged.py) as they are imported: zipfile's BadZipFile is
    then a corrupt archive too, wherever ``_ARCHIVE_ERRORS`` is caught in this module."""
    global _ARCHIVE_ERRORS
    import zipfile

    if zipfile.BadZipFile not in _ARCHIVE_ERRORS:
        _ARCHIVE_ERRORS = (*_ARCHIVE_ERRORS, zipfile.BadZipFile)


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
    except _ARCHIVE_ERRORS as exc:
        raise corrupt(exc, where, member) from None


def corrupt(exc: BaseException, where: str, member: str | None = None) -> CodenavError:
    """The error ``reading`` raises for ``exc``: for hot loops that catch ``_ARCHIVE_ERRORS`` inline
    (a context manager per chunk of 43,000 small members is measurable)."""
    detail = _corrupt_detail(exc)
    details = {"member": printable(member)} if member is not None else None
    if _bad_zip(exc) and "CRC" in detail:
        return CodenavError("INTEGRITY_ERROR", f"archive member {where} fails its CRC-32 check", details=details)
    return CodenavError("UNSAFE_ARCHIVE", f"the archive is corrupt ({detail}) at {where}", details=details)


# --- the tree under dest ----------------------------------------------------------------------

_KIND_WORDS = {"dir": "directory", "file": "file", "link": "symlink"}


class Tree:
    """What has been written under ``dest`` and what each relative path is.

    Only this class writes under ``dest``. It never creates a symlink, every path it writes is
    made of validated segments below a directory it created itself, and ``O_EXCL|O_NOFOLLOW``
    guard the last component: so no write can leave ``dest``.
    """

    def __init__(self, dest: Path, limits: Limits, strip_components: int, prefix: list[str]) -> None:
        self.root = os.path.realpath(dest)
        self.limits = limits
        self.strip = strip_components
        self.prefix = prefix
        self.kinds: dict[str, str] = {"": "dir"}  # path -> "dir" | "file" | "link"
        self.files: dict[str, FileEntry] = {}
        self.modes: dict[str, int] = {}
        self.links: dict[str, str] = {}  # symlink path -> its raw target, resolved at the end
        self.link_names: dict[str, str] = {}  # symlink path -> the member name, for reports
        self.skipped: list[dict[str, str]] = []
        self.entries = 0
        self.total = 0
        self.reads_skipped = False  # the format decompresses a skipped member anyway (tar): it counts
        self.same_folder: Callable[[str], bool] | None = None  # a differently spelled top folder that is the prefix
        self.in_prefix = False  # some entry lay under the required folder
        self.other_tops: list[str] = []  # top folders found instead, for the error
        # fchmod after create only when the umask could have cleared a bit of the mode: the
        # result is the exact mode either way, one system call fewer per file when it cannot.
        self.umask = _current_umask()
        self.written = 0  # files created so far (by this process or the helper)
        self.writer: _Writer | None = None
        self.writer_after = WRITER_AFTER  # tests set 0 to send every small file to the helper

    # limits

    def count(self, name: str) -> None:
        self.entries += 1
        if self.entries > self.limits.max_files:
            raise too_large(
                f"the archive has more than {self.limits.max_files} entries (files, directories and "
                f"links; CODENAV_MAX_FILES), at member {quoted(name)}",
                limit=self.limits.max_files, variable="CODENAV_MAX_FILES",
            )

    def check_file_size(self, name: str, size: int) -> None:
        if size > self.limits.max_file_bytes:
            raise too_large(
                f"archive member {quoted(name)} is over the {self.limits.max_file_bytes}-byte limit for one "
                f"file (CODENAV_MAX_FILE_BYTES)",
                limit=self.limits.max_file_bytes, variable="CODENAV_MAX_FILE_BYTES",
            )

    def check_total(self, name: str, total: int) -> None:
        if total > self.limits.max_total_bytes:
            raise too_large(
                f"the archive expands to more than {self.limits.max_total_bytes} bytes "
                f"(CODENAV_MAX_EXTRACTED_BYTES), at member {quoted(name)}",
                limit=self.limits.max_total_bytes, variable="CODENAV_MAX_EXTRACTED_BYTES",
            )

    def reserve(self, name: str, size: int) -> None:
        """Account for a regular member's declared size before any of it is written."""
        if size < 0:
            raise CodenavError("UNSAFE_ARCHIVE", f"the archive is corrupt (negative size) at {quoted(name)}")
        self.check_file_size(name, size)
        self.check_total(name, self.total + size)
        self.total += size

    # members

    def skip(self, name: str, reason: str) -> None:
        self.skipped.append({"path": printable(name), "reason": reason})

    def add(self, member: Member) -> None:
        """Place one member: written, recorded, or skipped and reported."""
        self.count(member.name)
        segments = _segments(member.name)
        if member.kind == "file" and member.size > self.limits.max_file_bytes:
            # Over the per-file limit: listed, not written (add_file). Its bytes count towards the
            # total only where the format makes us decompress them anyway (tar).
            if self.reads_skipped:
                self.check_total(member.name, self.total + member.size)
                self.total += member.size
        elif member.kind == "file":
            # Limits apply to every regular member, kept or skipped: its data is read anyway.
            self.reserve(member.name, member.size)
        if member.kind == "skip":
            self.skip(member.name, member.reason)
            return
        mapped = self.map(segments)
        if isinstance(mapped, str):
            self.skip(member.name, mapped)
            return
        if not mapped:
            if member.kind != "dir":  # a directory that maps to the top itself is not news
                self.skip(member.name, "the name is empty" if not segments
                          else "nothing is left of the name once the top folder is removed")
            return
        reason = _unaddressable(mapped)
        if reason:
            self.skip(member.name, reason)
            return
        path = "/".join(mapped)
        if member.kind == "dir":
            self.add_dir(member.name, mapped)
        elif member.kind == "file":
            self.add_file(member, mapped)
        elif member.kind == "symlink":
            self.add_symlink(member, mapped)
        elif member.kind == "hardlink":
            self.add_hardlink(member, mapped)
        else:  # pragma: no cover - the readers only produce the kinds above
            raise AssertionError(f"unknown member kind {member.kind!r} for {path!r}")

    def map(self, segments: list[str]) -> list[str] | str:
        """Apply the per-registry rule (SPEC §3): strip N components, or remove the one folder."""
        if self.strip:
            segments = segments[self.strip:]
        if self.prefix:
            if (segments[: len(self.prefix)] != self.prefix and not self.in_prefix and len(self.prefix) == 1
                    and len(segments) > 1 and self.same_folder is not None and self.same_folder(segments[0])):
                self.prefix = [segments[0]]  # the same folder, spelled otherwise (ruamel.yaml.clib-0.2.15/)
            if segments[: len(self.prefix)] != self.prefix:
                top = segments[0] + ("/" if len(segments) > 1 else "") if segments else ""
                if top and top not in self.other_tops and len(self.other_tops) < 5:
                    self.other_tops.append(top)
                return f"outside the {'/'.join(self.prefix)}/ folder"
            self.in_prefix = True
            segments = segments[len(self.prefix):]
        return segments

    # disk

    def full(self, path: str) -> str:
        # ``path`` is validated segments joined by '/': no empty, '.' or '..' segment.
        return self.root + "/" + path if self.root != "/" else "/" + path

    def make_parents(self, name: str, segments: list[str]) -> str | None:
        """Create the missing parent directories; or say why the path cannot have them."""
        # A path is recorded as "dir" only once all its ancestors are directories, and a
        # directory is never unrecorded: a known parent settles the whole chain at once.
        if len(segments) == 1 or self.kinds.get("/".join(segments[:-1])) == "dir":
            return None
        for depth in range(1, len(segments)):
            parent = "/".join(segments[:depth])
            kind = self._settled(parent)
            if kind == "dir":
                continue
            if kind is not None:
                return f"its parent {printable(parent)} is a {_KIND_WORDS[kind]}"
            reason = self.mkdir(name, parent)
            if reason:
                return reason
        return None

    def mkdir(self, name: str, path: str) -> str | None:
        self.count(name)  # implied directories are entries too: no inode bomb through deep names
        full = self.full(path)
        # PEP 706's containment check (realpath + commonpath), as defence in depth: the parent
        # is a directory this tree made, so it cannot be elsewhere, but nothing is created
        # until that is certain. mkdir itself never follows a symlink in the last component.
        if os.path.commonpath([self.root, os.path.realpath(os.path.dirname(full))]) != self.root:
            raise CodenavError("UNSAFE_ARCHIVE", f"archive member {quoted(name)} would land outside the tree")
        try:
            os.mkdir(full, _DIR_MODE)
        except FileExistsError:
            return f"{printable(path)} collides with a path already on disk (a case-insensitive file system?)"
        except OSError as exc:
            if exc.errno == errno.ENAMETOOLONG:
                return "the path is too long for this file system"
            raise
        os.chmod(full, _DIR_MODE)  # independent of the umask
        self.kinds[path] = "dir"
        return None

    def claim(self, name: str, segments: list[str], kind: str) -> str | None:
        """Make room for a file or link at this path; None when it may be written."""
        path = "/".join(segments)
        existing = self._settled(path)
        if existing is None:
            return self.make_parents(name, segments)
        if existing != kind:
            return f"conflicts with an earlier {_KIND_WORDS[existing]} of the same path"
        # Same kind: the last entry wins, as tar and unzip do; say so.
        self.skip(name, "duplicate path: this later entry replaced an earlier one")
        if kind == "file":
            earlier = self.files.get(path)
            if earlier is None or earlier.skipped is None:  # a skipped one never reached the disk
                os.unlink(self.full(path))
            del self.kinds[path]
            self.files.pop(path, None)
        return None

    def add_dir(self, name: str, segments: list[str]) -> None:
        path = "/".join(segments)
        existing = self._settled(path)
        if existing == "dir":
            return
        if existing is not None:
            self.skip(name, f"conflicts with an earlier {_KIND_WORDS[existing]} of the same path")
            return
        reason = self.make_parents(name, segments) or self.mkdir(name, path)
        if reason:
            self.skip(name, reason)

    def create(self, name: str, path: str, mode: int) -> int | str:
        """An fd for a new regular file at ``path``, or why it cannot be created."""
        try:
            fd = os.open(self.full(path), _OPEN_FLAGS, mode)
        except FileExistsError:
            return f"{printable(path)} collides with a path already on disk (a case-insensitive file system?)"
        except OSError as exc:
            if exc.errno in (errno.ENAMETOOLONG, errno.ELOOP):
                return "the path cannot be created on this file system"
            raise
        if hasattr(os, "fchmod") and (self.umask is None or self.umask & mode):
            os.fchmod(fd, mode)  # exact mode whatever the umask; never setuid/setgid/sticky
        return fd

    def add_file(self, member: Member, segments: list[str]) -> None:
        name, path = member.name, "/".join(segments)
        reason = self.claim(name, segments, "file")
        if reason:
            self.skip(name, reason)
            return
        mode = _EXEC_MODE if member.executable else _FILE_MODE
        if member.size > self.limits.max_file_bytes:
            self.kinds[path] = "file"
            self.files[path] = FileEntry(path, member.size, False, None, None, "too large")
            self.modes[path] = mode
            return
        if member.size <= WRITER_MAX_BYTES and self.written >= self.writer_after and self._start_writer():
            chunks: list[bytes] = []
            written, binary, digest = self._copy(member, chunks.append)
            assert self.writer is not None
            self.writer.put(name, path, mode, chunks[0] if len(chunks) == 1 else b"".join(chunks))
            if len(self.writer.pending) >= _WRITER_SYNC_EVERY:
                self._sync()
        else:
            fd = self.create(name, path, mode)
            if isinstance(fd, str):
                self.skip(name, fd)
                return
            self.kinds[path] = "file"
            try:
                written, binary, digest = self._copy(member, lambda chunk: _write_all(fd, chunk))
            finally:
                os.close(fd)
        self.kinds[path] = "file"
        self.written += 1
        self.files[path] = FileEntry(path, written, binary, None, digest)
        self.modes[path] = mode

    def _copy(self, member: Member, sink: Callable[[bytes], object]) -> tuple[int, bool, str]:
        """Read a regular member's data into ``sink``: (bytes read, binary, sha256 hex)."""
        name = member.name
        if member.data is not None:
            data = member.data
            sink(data)
            return len(data), _is_binary(data), hashlib.sha256(data).hexdigest()
        assert member.open is not None
        base = self.total - member.size  # reserve() already counted the declared size
        sniffer = _Sniffer()
        digest = hashlib.sha256()
        written = 0
        # Reads are mapped to UNSAFE_ARCHIVE inline (as ``reading`` does), writes never are.
        try:
            source = member.open()
        except _ARCHIVE_ERRORS as exc:
            raise corrupt(exc, quoted(name), name) from None
        try:
            while True:
                try:
                    chunk = source.read(CHUNK_SIZE)
                except CodenavError:
                    raise
                except _ARCHIVE_ERRORS as exc:
                    raise corrupt(exc, quoted(name), name) from None
                if not chunk:
                    break
                written += len(chunk)
                # Real bytes are counted too: a header that lies about its size stops here.
                if written > member.size:
                    self.check_file_size(name, written)
                    self.check_total(name, base + written)
                sniffer.feed(chunk)
                digest.update(chunk)
                sink(chunk)
        finally:
            source.close()
        self.total = base + max(written, member.size)
        return written, sniffer.finish(), digest.hexdigest()

    # the helper process

    def _start_writer(self) -> bool:
        """True when the helper process runs (started now if need be); False, for good, when it
        cannot be started: every file is then written here."""
        if self.writer is None:
            try:
                self.writer = _Writer(self.root, self.umask is None or bool(self.umask & _EXEC_MODE))
            except OSError:
                self.writer_after = 1 << 62
                return False
        return True

    def _settled(self, path: str) -> str | None:
        """What ``path`` is, once the helper has said whether a file handed to it was created."""
        kind = self.kinds.get(path)
        if kind == "file" and self.writer is not None and path in self.writer.pending:
            self._sync()
            kind = self.kinds.get(path)
        return kind

    def _sync(self) -> None:
        """Wait for the helper's files; each it could not create becomes a reported skip, as
        ``create`` reports it."""
        assert self.writer is not None
        for name, path, number in self.writer.sync():
            self.kinds.pop(path, None)
            self.files.pop(path, None)
            self.modes.pop(path, None)
            self.written -= 1
            self.skip(name, f"{printable(path)} collides with a path already on disk (a case-insensitive file system?)"
                      if number == errno.EEXIST else "the path cannot be created on this file system")

    def close(self) -> None:
        """Stop the helper process (extraction failed: nothing more is written)."""
        if self.writer is not None:
            self.writer.kill()
            self.writer = None

    def add_symlink(self, member: Member, segments: list[str]) -> None:
        name, target = member.name, member.linkname
        if not _valid_link_text(target):
            self.skip(name, "the symlink target is not a usable path")
            return
        if target.startswith("/"):
            self.skip(name, "the symlink target is absolute (outside the tree)")
            return
        reason = self.claim(name, segments, "link")
        if reason:
            self.skip(name, reason)
            return
        path = "/".join(segments)
        self.kinds[path] = "link"
        self.links[path] = target  # nothing on disk; resolved once every link is known
        self.link_names[path] = name

    def add_hardlink(self, member: Member, segments: list[str]) -> None:
        name, path = member.name, "/".join(segments)
        # A hardlink's target is a member name (relative to the archive root), so it goes
        # through the same mapping as names; escaping it is skipped, not fatal (SPEC §3).
        if member.linkname.startswith("/"):
            self.skip(name, "the hardlink target is absolute (outside the tree)")
            return
        parts: list[str] = []
        for segment in member.linkname.split("/"):
            if segment in ("", "."):
                continue
            if segment == "..":
                if not parts:
                    self.skip(name, "the hardlink target is outside the tree")
                    return
                parts.pop()
            else:
                parts.append(segment)
        mapped = self.map(parts)
        target = "/".join(mapped) if isinstance(mapped, list) else None
        if target:
            self._settled(target)  # the copy reads it from disk
        entry = self.files.get(target) if target else None
        if target is None or entry is None or self.kinds.get(target) != "file":
            self.skip(name, f"the hardlink target {quoted(member.linkname)} is not a file extracted before it")
            return
        if target == path:
            self.skip(name, "the hardlink points at itself")
            return
        if entry.skipped is not None:
            reason = self.claim(name, segments, "file")
            if reason:
                self.skip(name, reason)
                return
            self.kinds[path] = "file"
            self.files[path] = FileEntry(path, entry.size, False, None, None, entry.skipped)
            self.modes[path] = self.modes[target]
            return
        self.reserve(name, entry.size)
        reason = self.claim(name, segments, "file")
        if reason:
            self.skip(name, reason)
            return
        mode = self.modes[target]
        fd = self.create(name, path, mode)
        if isinstance(fd, str):
            self.skip(name, fd)
            return
        self.kinds[path] = "file"
        source_fd = os.open(self.full(target), _READ_FLAGS)
        with open(source_fd, "rb") as source, open(fd, "wb") as out:
            while chunk := source.read(CHUNK_SIZE):
                out.write(chunk)
        self.files[path] = FileEntry(path, entry.size, entry.binary, None, entry.sha256)
        self.modes[path] = mode

    # symlinks, once all are known

    def resolve(self, path: str) -> str | None:
        """Where a symlink leads inside the tree, following other symlinks; None if it escapes.

        Lexical, like the PEP 706 check but on the archive's own links rather than the disk
        (there are none on disk): a chain such as ``up -> ..`` then ``x -> up/..`` escapes.
        A loop raises ``_LinkLoop`` after as many hops as the kernel would follow.
        """
        parts = path.split("/")[:-1]
        pending = list(reversed(self.links[path].split("/")))
        hops = 0
        while pending:
            segment = pending.pop()
            if segment in ("", "."):
                continue
            if segment == "..":
                if not parts:
                    return None
                parts.pop()
                continue
            candidate = "/".join([*parts, segment])
            target = self.links.get(candidate)
            if target is None:
                parts.append(segment)
                continue
            hops += 1
            if hops > MAX_LINK_HOPS:
                raise _LinkLoop
            if target.startswith("/"):
                return None
            pending.extend(reversed(target.split("/")))
        return "/".join(parts)

    def finish_links(self) -> None:
        for path in self.links:
            shown = self.link_names[path]
            try:
                target = self.resolve(path)
            except _LinkLoop:
                self.skip(shown, "the symlink is part of a loop")
                continue
            if target is None:
                self.skip(shown, "the symlink target is outside the tree")
            elif target == "":
                self.skip(shown, "the symlink points at the top of the tree")
            else:
                self.files[path] = FileEntry(path, 0, False, target)

    def result(self) -> Extracted:
        if self.prefix and not self.in_prefix and self.other_tops:
            found = ", ".join(printable(top) for top in self.other_tops)
            raise protocol_error(
                f"the archive has no {'/'.join(self.prefix)}/ folder, which its name promises (found {found}); "
                "nothing was cached",
                expectedFolder="/".join(self.prefix) + "/", found=[printable(t) for t in self.other_tops],
            )
        if self.writer is not None:
            self._sync()
            self.writer.close()
            self.writer = None
        self.finish_links()
        files = sorted(self.files.values(), key=lambda entry: entry.path)
        skipped = sorted(self.skipped, key=lambda item: (item["path"], item["reason"]))
        return Extracted(files=files, skipped=skipped)


class _LinkLoop(Exception):
    pass


class _Writer:
    """The parent's end of the helper process (filewriter.py): records out, failures back."""

    def __init__(self, root: str, fchmod: bool) -> None:
        import subprocess
        import sys

        from .. import proc
        from . import filewriter

        if not sys.executable or not os.path.isfile(filewriter.__file__):
            # An embedded interpreter, or codenav imported from a zip: no script to run.
            raise OSError(errno.ENOENT, "the file-writing helper cannot be started here")
        self.header = filewriter.HEADER
        try:
            # Tied by its stdin: it ends when this process does, however that ends (proc.py).
            self.process = proc.spawn(
                [sys.executable, "-I", "-S", filewriter.__file__, os.path.abspath(root), "1" if fchmod else "0"],
                tie="pipe", stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except proc.NotStarted as exc:
            raise OSError(errno.EAGAIN, f"the file-writing helper cannot be started ({exc})") from None
        try:  # a deeper pipe (Linux: 1 MiB, the unprivileged maximum) keeps both sides busy longer
            import fcntl

            fcntl.fcntl(self.process.stdin.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)
        except (ImportError, AttributeError, OSError):
            pass
        self.records: list[bytes] = []
        self.size = 0
        self.pending: dict[str, str] = {}  # path -> member name, sent since the last answer

    def put(self, name: str, path: str, mode: int, data: bytes) -> None:
        raw = path.encode("utf-8", "surrogateescape")
        self.records += (b"F", self.header.pack(mode, len(raw), len(data)), raw, data)
        self.size += len(data) + len(raw)
        self.pending[path] = name
        if self.size >= _WRITER_BATCH:
            self._send()

    def _send(self) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(b"".join(self.records))
        except BrokenPipeError:
            raise OSError(errno.EIO, "the process creating the files stopped") from None
        self.records.clear()
        self.size = 0

    def sync(self) -> list[tuple[str, str, int]]:
        """(member name, path, errno) of each file sent since the last sync that could not be
        created; OSError when a write failed (the helper then stops)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.records.append(b"S")
        self._send()
        try:
            self.process.stdin.flush()
        except BrokenPipeError:
            raise OSError(errno.EIO, "the process creating the files stopped") from None
        failed = []
        while True:
            line = self.process.stdout.readline().decode("utf-8", "surrogateescape")
            if line == "ok\n":
                break
            fields = line.rstrip("\n").split("\t", 2)
            if fields[0] == "fatal" and len(fields) == 3:
                raise OSError(int(fields[1]) if fields[1].isdigit() else errno.EIO, fields[2])
            if len(fields) != 2 or not fields[0].isdigit() or fields[1] not in self.pending:
                raise OSError(errno.EIO, "the process creating the files stopped")
            failed.append((self.pending[fields[1]], fields[1], int(fields[0])))
        self.pending.clear()
        return failed

    def close(self) -> None:
        from .. import proc

        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()
        proc.forget(self.process)
        if self.process.stdout is not None:
            self.process.stdout.close()

    def kill(self) -> None:
        from .. import proc

        proc.kill(self.process)
        for stream in (self.process.stdin, self.process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


def _write_all(fd: int, data: bytes) -> None:
    """os.write until all of ``data`` is written (a regular file may take less at once)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _current_umask() -> int | None:
    """This process's umask from /proc (Linux), without setting it; None when unknown, so every
    created file gets its fchmod."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return None
