"""The one writer under an extraction's destination, and what it records (see archive/__init__.py).

``Tree`` is the only code that decides what is created under ``dest``: every name goes through
its mapping (strip rule, required prefix, the policy's refusals in names.py), every file is
opened with ``O_CREAT|O_EXCL|O_NOFOLLOW``, no symlink is ever created. The tar and zip readers
only turn members into ``Member`` records for it; what it decides from a name alone (names.py),
the limits and their errors (limits.py) and what a read failure becomes (stream.py) are pure
helpers that write nothing. Past ``WRITER_AFTER`` files, small files are handed to a helper
process (filewriter.py) that only creates the validated paths it is given, with the same
flags, so their creation overlaps the reading of the next members; everything Tree later
looks up about such a file waits for it (``_settled``).
"""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path

from ..errors import CodenavError, protocol_error
from . import stream
from .filewriter import FLAGS as _OPEN_FLAGS
from .filewriter import Writer, write_all
from .limits import Limits, file_too_large, too_many_entries, total_too_large
from .names import LinkLoop, member_segments, printable, quoted, resolve_link, unaddressable, valid_link_text
from .records import Extracted, FileEntry, Member
from .stream import CHUNK_SIZE, Sniffer, corrupt, is_binary

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable

# A package with more files than this has the rest created by the helper process (filewriter.py):
# below it the process costs more than it saves. Files over WRITER_MAX_BYTES are always written here.
WRITER_AFTER = 384
WRITER_MAX_BYTES = 1 << 20
_WRITER_SYNC_EVERY = 8192  # files between two answers from the helper: bounds what is remembered
HEADER_ALLOWANCE = 1 << 20  # tar metadata (pax, GNU long names) allowed between two members
TRAILER_ALLOWANCE = 1 << 20  # compressed tail read after the last member to verify the stream

_FILE_MODE = 0o644
_EXEC_MODE = 0o755
_DIR_MODE = 0o755
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


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
        self.writer: Writer | None = None
        self.writer_after = WRITER_AFTER  # tests set 0 to send every small file to the helper

    # limits

    def count(self, name: str) -> None:
        self.entries += 1
        if self.entries > self.limits.max_files:
            raise too_many_entries(self.limits.max_files, name)

    def check_file_size(self, name: str, size: int) -> None:
        if size > self.limits.max_file_bytes:
            raise file_too_large(self.limits.max_file_bytes, name)

    def check_total(self, name: str, total: int) -> None:
        if total > self.limits.max_total_bytes:
            raise total_too_large(self.limits.max_total_bytes, name)

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
        segments = member_segments(member.name)
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
        reason = unaddressable(mapped)
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
                written, binary, digest = self._copy(member, lambda chunk: write_all(fd, chunk))
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
            return len(data), is_binary(data), hashlib.sha256(data).hexdigest()
        assert member.open is not None
        base = self.total - member.size  # reserve() already counted the declared size
        sniffer = Sniffer()
        digest = hashlib.sha256()
        written = 0
        # Reads are mapped to UNSAFE_ARCHIVE inline (as ``reading`` does), writes never are.
        try:
            source = member.open()
        except stream.READ_ERRORS as exc:
            raise corrupt(exc, quoted(name), name) from None
        try:
            while True:
                try:
                    chunk = source.read(CHUNK_SIZE)
                except CodenavError:
                    raise
                except stream.READ_ERRORS as exc:
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
                self.writer = Writer(self.root, self.umask is None or bool(self.umask & _EXEC_MODE))
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
        if not valid_link_text(target):
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

    def finish_links(self) -> None:
        for path in self.links:
            shown = self.link_names[path]
            try:
                target = resolve_link(self.links, path)
            except LinkLoop:
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
