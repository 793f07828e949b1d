"""The records of an extraction: ``Member`` (what the tar and zip readers hand ``Tree``) and
``FileEntry``/``Extracted`` (what the Tree hands back).

Plain classes, not dataclasses: importing ``dataclasses`` (with ``inspect``) costs a cold call
several milliseconds.
"""

from __future__ import annotations

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO


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


class FileEntry:
    """One path written (or listed) under the tree."""

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
