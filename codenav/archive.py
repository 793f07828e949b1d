"""Safe, streaming extraction of tar (gzip, bzip2, xz or plain) and zip archives (SPEC §3).

``extract(archive, dest, fmt=...)`` writes the regular files of an archive under ``dest`` and
returns what it wrote (``Extracted.files``, sorted by path) and what it refused to write
(``Extracted.skipped``). Nothing is ever written outside ``dest``; modelled on CPython's
tarfile ``data`` filter (PEP 706) and on pip's and npm's unpackers.

The policy, one line each:

- An entry named with an absolute path or a ``..`` segment (anywhere, even ``a/../b``) makes
  the whole archive ``UNSAFE_ARCHIVE``: no honest packer writes one (pip and PEP 706 refuse
  them too). Empty and ``.`` segments are dropped (``./package/x`` is fine).
- A name that is merely unaddressable (SPEC §2.2) is skipped and reported: NUL, control
  characters (newline, tab, DEL, C1, U+2028/U+2029), not valid UTF-8, a backslash (a
  separator on Windows), a component over 255 bytes, a path of 4096 bytes or more.
- Only regular files and directories reach the disk: files 0o644, or 0o755 when any exec bit
  was set (never setuid, setgid or sticky), directories 0o755, every file opened with
  ``O_CREAT|O_EXCL|O_NOFOLLOW``. No symlink is ever created, so no later write can follow one.
- A symlink is listed (``FileEntry.link``) when its target, resolved lexically from the
  link's directory and through the archive's other symlinks, stays inside the tree; one that
  escapes, loops, or names the top of the tree is skipped and reported. A dangling link that
  stays inside is listed (reading it finds nothing).
- A hardlink to a regular file extracted before it is written as a copy; any other hardlink
  (escaping, dangling, to a link) is skipped and reported. Devices, FIFOs, sockets, unknown
  tar types, encrypted zip entries and unsupported zip methods are skipped and reported.
- Duplicates: the last entry wins for files and links (tar and unzip semantics) and the
  replacement is reported; an entry whose path, or a parent of it, is already taken by an
  entry of another kind is skipped and reported. Names differing only in case are both kept
  (a case-insensitive file system makes the second one a reported collision).
- Limits (``Limits``, overridable by environment): ``max_files`` bounds every entry we create
  or report (archive members plus implied directories), ``max_file_bytes`` one regular
  member, ``max_total_bytes`` the sum of all regular members, kept or skipped (a skipped tar
  member is still decompressed). Declared sizes are checked before anything is written and
  real bytes are counted while writing, so a bomb stops at the limit (``TOO_LARGE``).
- A corrupt or truncated archive is ``UNSAFE_ARCHIVE`` ("the archive is corrupt"); a zip
  member failing its CRC-32 is ``INTEGRITY_ERROR``; zip entries whose local records overlap
  (the zip-bomb construction) are ``UNSAFE_ARCHIVE``.

Messages name the member as the archive spells it (escaped to be printable) and never carry an
absolute path. On an error ``dest`` is left half-written: the caller deletes it.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
import struct
import tarfile
import unicodedata
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import IO

from .errors import CodenavError

CHUNK_SIZE = 64 * 1024  # bytes read and written at a time; binary sniffing is incremental
SNIFF_BYTES = 8192  # SPEC §2.3: a NUL in the first 8 KiB makes a file binary
MAX_COMPONENT_BYTES = 255  # NAME_MAX on Linux and macOS
MAX_PATH_BYTES = 4095  # PATH_MAX (4096) counts the terminating NUL
MAX_LINK_HOPS = 40  # Linux's MAXSYMLINKS
MAX_SYMLINK_TARGET_BYTES = 4095
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


@dataclass(frozen=True)
class Limits:
    """SPEC §3 limits on what one archive may expand to."""

    max_files: int = 100_000  # env CODENAV_MAX_FILES
    max_total_bytes: int = 1 << 30  # env CODENAV_MAX_EXTRACTED_BYTES
    max_file_bytes: int = 50 << 20  # env CODENAV_MAX_FILE_BYTES

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


@dataclass(frozen=True)
class FileEntry:
    path: str  # relative, '/'-separated, validated (SPEC §2.2)
    size: int  # bytes
    binary: bool  # NUL in the first 8 KiB or not valid UTF-8 (text.is_binary), sniffed while streaming
    link: str | None  # a symlink kept as a link: its resolved target inside the tree; None for files


@dataclass
class Extracted:
    files: list[FileEntry]  # sorted by path
    skipped: list[dict[str, str]]  # [{"path": printable member name, "reason": "..."}], sorted


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


def _shown(name: str) -> str:
    return f"'{printable(name)}'"


def _segments(name: str) -> list[str]:
    """The member name as path segments; absolute names and ``..`` reject the archive."""
    if name.startswith("/"):
        # Named without its leading '/' so that no message ever holds an absolute path (SPEC §4).
        shown = name.lstrip("/")
        raise CodenavError("UNSAFE_ARCHIVE", f"archive member {_shown(shown)} has an absolute path (a leading '/')",
                           details={"member": printable(shown)})
    segments = [segment for segment in name.split("/") if segment not in ("", ".")]
    if ".." in segments:
        raise CodenavError("UNSAFE_ARCHIVE", f"archive member {_shown(name)} has a '..' path segment",
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


@dataclass
class _Member:
    """One archive member, format-neutral."""

    name: str  # as the archive spells it (surrogate-escaped where it is not UTF-8)
    kind: str  # "file" | "dir" | "symlink" | "hardlink" | "skip"
    size: int = 0
    executable: bool = False
    linkname: str = ""
    reason: str = ""  # for "skip": why
    open: Callable[[], IO[bytes]] | None = None  # the data of a "file" member


class _Sniffer:
    """Binary detection while streaming: same rule as ``text.is_binary``, never a re-read."""

    def __init__(self) -> None:
        self.seen = 0
        self.binary = False
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")

    def feed(self, chunk: bytes) -> None:
        if self.binary:
            return
        if self.seen < SNIFF_BYTES and b"\0" in chunk[: SNIFF_BYTES - self.seen]:
            self.binary = True
            return
        self.seen += len(chunk)
        if chunk.isascii() and not self._decoder.getstate()[0]:
            return  # nothing pending and nothing to decode: the common case, kept cheap
        try:
            self._decoder.decode(chunk)
        except UnicodeDecodeError:
            self.binary = True

    def finish(self) -> bool:
        if not self.binary:
            try:
                self._decoder.decode(b"", final=True)
            except UnicodeDecodeError:
                self.binary = True
        return self.binary


def _corrupt_detail(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror  # str(OSError) may carry a file name
    return str(exc) or type(exc).__name__


_ARCHIVE_ERRORS = (tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error, OSError, struct.error,
                   ValueError, NotImplementedError, RuntimeError)


@contextmanager
def _reading(where: str, member: str | None = None) -> Iterator[None]:
    """Map a failure to read the archive itself to UNSAFE_ARCHIVE (or INTEGRITY_ERROR for a bad CRC).

    Only reads are wrapped, never writes: a full disk is not a corrupt archive.
    """
    try:
        yield
    except CodenavError:
        raise
    except _ARCHIVE_ERRORS as exc:
        detail = _corrupt_detail(exc)
        details = {"member": printable(member)} if member is not None else None
        if isinstance(exc, zipfile.BadZipFile) and "CRC" in detail:
            raise CodenavError("INTEGRITY_ERROR", f"archive member {where} fails its CRC-32 check",
                               details=details) from None
        raise CodenavError("UNSAFE_ARCHIVE", f"the archive is corrupt ({detail}) at {where}",
                           details=details) from None


# --- the tree under dest ----------------------------------------------------------------------

_KIND_WORDS = {"dir": "directory", "file": "file", "link": "symlink"}


class _Tree:
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

    # limits

    def count(self, name: str) -> None:
        self.entries += 1
        if self.entries > self.limits.max_files:
            raise CodenavError(
                "TOO_LARGE",
                f"the archive has more than {self.limits.max_files} entries (files, directories and "
                f"links; CODENAV_MAX_FILES), at member {_shown(name)}",
                details={"limit": self.limits.max_files, "variable": "CODENAV_MAX_FILES"},
            )

    def check_file_size(self, name: str, size: int) -> None:
        if size > self.limits.max_file_bytes:
            raise CodenavError(
                "TOO_LARGE",
                f"archive member {_shown(name)} is over the {self.limits.max_file_bytes}-byte limit for one "
                f"file (CODENAV_MAX_FILE_BYTES)",
                details={"limit": self.limits.max_file_bytes, "variable": "CODENAV_MAX_FILE_BYTES"},
            )

    def check_total(self, name: str, total: int) -> None:
        if total > self.limits.max_total_bytes:
            raise CodenavError(
                "TOO_LARGE",
                f"the archive expands to more than {self.limits.max_total_bytes} bytes "
                f"(CODENAV_MAX_EXTRACTED_BYTES), at member {_shown(name)}",
                details={"limit": self.limits.max_total_bytes, "variable": "CODENAV_MAX_EXTRACTED_BYTES"},
            )

    def reserve(self, name: str, size: int) -> None:
        """Account for a regular member's declared size before any of it is written."""
        if size < 0:
            raise CodenavError("UNSAFE_ARCHIVE", f"the archive is corrupt (negative size) at {_shown(name)}")
        self.check_file_size(name, size)
        self.check_total(name, self.total + size)
        self.total += size

    # members

    def skip(self, name: str, reason: str) -> None:
        self.skipped.append({"path": printable(name), "reason": reason})

    def add(self, member: _Member) -> None:
        """Place one member: written, recorded, or skipped and reported."""
        self.count(member.name)
        segments = _segments(member.name)
        if member.kind == "file":
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
            if segments[: len(self.prefix)] != self.prefix:
                return f"outside the {'/'.join(self.prefix)}/ folder"
            segments = segments[len(self.prefix):]
        return segments

    # disk

    def full(self, path: str) -> str:
        return os.path.join(self.root, *path.split("/"))

    def make_parents(self, name: str, segments: list[str]) -> str | None:
        """Create the missing parent directories; or say why the path cannot have them."""
        for depth in range(1, len(segments)):
            parent = "/".join(segments[:depth])
            kind = self.kinds.get(parent)
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
            raise CodenavError("UNSAFE_ARCHIVE", f"archive member {_shown(name)} would land outside the tree")
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
        existing = self.kinds.get(path)
        if existing is None:
            return self.make_parents(name, segments)
        if existing != kind:
            return f"conflicts with an earlier {_KIND_WORDS[existing]} of the same path"
        # Same kind: the last entry wins, as tar and unzip do; say so.
        self.skip(name, "duplicate path: this later entry replaced an earlier one")
        if kind == "file":
            os.unlink(self.full(path))
            del self.kinds[path]
            self.files.pop(path, None)
        return None

    def add_dir(self, name: str, segments: list[str]) -> None:
        path = "/".join(segments)
        existing = self.kinds.get(path)
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
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)  # exact mode whatever the umask; never setuid/setgid/sticky
        return fd

    def add_file(self, member: _Member, segments: list[str]) -> None:
        name, path = member.name, "/".join(segments)
        reason = self.claim(name, segments, "file")
        if reason:
            self.skip(name, reason)
            return
        mode = _EXEC_MODE if member.executable else _FILE_MODE
        fd = self.create(name, path, mode)
        if isinstance(fd, str):
            self.skip(name, fd)
            return
        self.kinds[path] = "file"
        assert member.open is not None
        base = self.total - member.size  # reserve() already counted the declared size
        sniffer = _Sniffer()
        written = 0
        where = _shown(name)
        with open(fd, "wb") as out:
            with _reading(where, name):
                source = member.open()
            try:
                while True:
                    with _reading(where, name):
                        chunk = source.read(CHUNK_SIZE)
                    if not chunk:
                        break
                    written += len(chunk)
                    # Real bytes are counted too: a header that lies about its size stops here.
                    if written > member.size:
                        self.check_file_size(name, written)
                        self.check_total(name, base + written)
                    sniffer.feed(chunk)
                    out.write(chunk)
            finally:
                source.close()
        self.total = base + max(written, member.size)
        self.files[path] = FileEntry(path, written, sniffer.finish(), None)
        self.modes[path] = mode

    def add_symlink(self, member: _Member, segments: list[str]) -> None:
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

    def add_hardlink(self, member: _Member, segments: list[str]) -> None:
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
        entry = self.files.get(target) if target else None
        if target is None or entry is None or self.kinds.get(target) != "file":
            self.skip(name, f"the hardlink target {_shown(member.linkname)} is not a file extracted before it")
            return
        if target == path:
            self.skip(name, "the hardlink points at itself")
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
        self.files[path] = FileEntry(path, entry.size, entry.binary, None)
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
        self.finish_links()
        files = sorted(self.files.values(), key=lambda entry: entry.path)
        skipped = sorted(self.skipped, key=lambda item: (item["path"], item["reason"]))
        return Extracted(files=files, skipped=skipped)


class _LinkLoop(Exception):
    pass


# --- tar --------------------------------------------------------------------------------------


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


def _tar_member(tar: tarfile.TarFile, info: tarfile.TarInfo) -> _Member:
    name = info.name
    if info.isdir():
        return _Member(name, "dir")
    if info.isreg():
        return _Member(name, "file", size=info.size, executable=bool(info.mode & 0o111),
                       open=lambda: tar.extractfile(info))
    if info.issym():
        return _Member(name, "symlink", linkname=info.linkname)
    if info.islnk():
        return _Member(name, "hardlink", linkname=info.linkname)
    if info.type in _TAR_SPECIAL:
        return _Member(name, "skip", reason=f"the member is {_TAR_SPECIAL[info.type]}")
    return _Member(name, "skip", reason=f"unsupported tar member type {info.type!r}")


def _extract_tar(archive: Path, tree: _Tree) -> None:
    with open(archive, "rb") as raw:
        with _reading("the start of the archive"):
            plain, compressed = _decompressed(raw)
        stream = _CountingStream(plain)
        # One pass, no seeking back (tarfile stream mode); names that are not UTF-8 survive
        # as surrogates so they can be reported rather than guessed at.
        stream.ceiling = HEADER_ALLOWANCE
        with _reading("the start of the archive"):
            tar = tarfile.open(fileobj=stream, mode="r|", encoding="utf-8", errors="surrogateescape")
        previous = "the start of the archive"
        while True:
            with _reading(f"the member after {previous}"):
                info = tar.next()
            if info is None:
                break
            previous = _shown(info.name)
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
            with _reading("the end of the archive"):
                while left > 0 and (chunk := plain.read(min(CHUNK_SIZE, left))):
                    left -= len(chunk)


# --- zip --------------------------------------------------------------------------------------

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
                               f"the archive is corrupt (no local header for {_shown(info.orig_filename)})")
        name_length, extra_length = struct.unpack("<HH", header[26:30])
        end = info.header_offset + 30 + name_length + extra_length + info.compress_size
        spans.append((info.header_offset, end, info.orig_filename))
    spans.sort()
    for (_, end, first), (start, _, second) in pairwise(spans):
        if start < end:
            raise CodenavError(
                "UNSAFE_ARCHIVE",
                f"zip entries {_shown(first)} and {_shown(second)} overlap (a zip-bomb construction)",
                details={"member": printable(second)},
            )
    if spans and spans[-1][1] > end_of_data:
        raise CodenavError("UNSAFE_ARCHIVE",
                           f"the archive is corrupt (entry {_shown(spans[-1][2])} runs into the central directory)")


def _zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, methods: set[int]) -> _Member:
    name = _zip_name(info)
    mode = info.external_attr >> 16 if info.create_system == 3 else 0  # 3: Unix attributes
    kind = stat.S_IFMT(mode)
    if info.is_dir() or kind == stat.S_IFDIR:
        return _Member(name, "dir")
    if info.flag_bits & 0x1:
        return _Member(name, "skip", reason="the entry is encrypted")
    if kind in _ZIP_SPECIAL:
        return _Member(name, "skip", reason=f"the entry is {_ZIP_SPECIAL[kind]}")
    if info.compress_type not in methods:
        return _Member(name, "skip", reason=f"unsupported zip compression method {info.compress_type}")
    if kind == stat.S_IFLNK:
        if info.file_size > MAX_SYMLINK_TARGET_BYTES:
            return _Member(name, "skip", reason="the symlink target is too long")
        with _reading(_shown(name), name), archive.open(info) as source:
            target = source.read(MAX_SYMLINK_TARGET_BYTES + 1)
        return _Member(name, "symlink", linkname=target.decode("utf-8", "surrogateescape"))
    return _Member(name, "file", size=info.file_size, executable=bool(mode & 0o111),
                   open=lambda: archive.open(info))


def _extract_zip(archive_path: Path, tree: _Tree) -> None:
    with open(archive_path, "rb") as raw:
        with _reading("the central directory"):
            declared = _zip_declared_entries(raw)
        if declared is not None and declared > tree.limits.max_files:
            # Checked before zipfile builds one object per entry.
            raise CodenavError(
                "TOO_LARGE", f"the archive declares {declared} entries, more than {tree.limits.max_files} "
                f"(CODENAV_MAX_FILES)", details={"limit": tree.limits.max_files, "variable": "CODENAV_MAX_FILES"},
            )
        raw.seek(0)
        with _reading("the central directory"):
            archive = zipfile.ZipFile(raw)
        with archive:
            infos = archive.infolist()
            with _reading("the central directory"):
                _check_zip_layout(archive, raw)
            if len(infos) > tree.limits.max_files:
                raise CodenavError(
                    "TOO_LARGE", f"the archive has {len(infos)} entries, more than {tree.limits.max_files} "
                    f"(CODENAV_MAX_FILES)", details={"limit": tree.limits.max_files, "variable": "CODENAV_MAX_FILES"},
                )
            # Every declared size is known up front: refuse a bomb before writing a byte.
            declared_total = 0
            for info in infos:
                if not info.is_dir():
                    tree.check_file_size(_zip_name(info), info.file_size)
                    declared_total += info.file_size
                    tree.check_total(_zip_name(info), declared_total)
            methods = _zip_methods()
            for info in infos:
                tree.add(_zip_member(archive, info, methods))


# --- entry point ------------------------------------------------------------------------------


def extract(archive: Path, dest: Path, *, fmt: str, strip_components: int = 0,
            required_prefix: str | None = None, limits: Limits | None = None) -> Extracted:
    """Extract ``archive`` (``fmt`` "tar" or "zip") into the existing directory ``dest``.

    ``strip_components`` drops that many leading components of every name (npm: 1, whatever
    the folder is called); ``required_prefix`` keeps only entries under that folder and removes
    it (sdists: ``"{name}-{version}/"``). Raises CodenavError UNSAFE_ARCHIVE, TOO_LARGE or
    INTEGRITY_ERROR; on an error ``dest`` may hold a partial tree, which the caller deletes.
    """
    if fmt not in ("tar", "zip"):
        raise ValueError(f"unknown archive format {fmt!r}")
    if strip_components < 0:
        raise ValueError("strip_components must be 0 or more")
    prefix: list[str] = []
    if required_prefix is not None:
        prefix = [segment for segment in required_prefix.split("/") if segment not in ("", ".")]
        if not prefix or ".." in prefix:
            raise ValueError(f"bad required_prefix {required_prefix!r}")
    tree = _Tree(dest, limits or Limits.from_env(), strip_components, prefix)
    if fmt == "tar":
        _extract_tar(archive, tree)
    else:
        _extract_zip(archive, tree)
    return tree.result()


__all__ = ["CHUNK_SIZE", "Extracted", "FileEntry", "Limits", "extract", "printable"]
