"""What a member's name may be, how it is shown, and where an archive's symlink leads (SPEC §2.2, §3).

Pure decisions on names, for ``Tree`` (tree.py) to act on; nothing here touches the disk.
``member_segments`` refuses the archive for an absolute name or a ``..`` segment; ``unaddressable``
says why a mapped path cannot be listed (it is then skipped and reported); ``resolve_link``
follows a symlink lexically through the archive's other symlinks and returns None when it
leaves the tree. ``printable`` and ``quoted`` are how every message names a member.
"""

from __future__ import annotations

import unicodedata

from ..errors import CodenavError

MAX_COMPONENT_BYTES = 255  # NAME_MAX on Linux and macOS
MAX_PATH_BYTES = 4095  # PATH_MAX (4096) counts the terminating NUL
MAX_LINK_HOPS = 40  # Linux's MAXSYMLINKS
MAX_SYMLINK_TARGET_BYTES = 4095


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


def member_segments(name: str) -> list[str]:
    """The member name as path segments; absolute names and ``..`` reject the archive."""
    if name.startswith("/"):
        # Named without its leading '/' so that no message ever holds an absolute path (SPEC §4).
        shown = name.lstrip("/")
        raise CodenavError("UNSAFE_ARCHIVE", f"archive member {quoted(shown)} has an absolute path (a leading '/')",
                           details={"member": printable(shown)})
    parts = [segment for segment in name.split("/") if segment not in ("", ".")]
    if ".." in parts:
        raise CodenavError("UNSAFE_ARCHIVE", f"archive member {quoted(name)} has a '..' path segment",
                           details={"member": printable(name)})
    return parts


def _unshowable(char: str) -> bool:
    # Cc: C0/C1 controls incl. NUL, newline, tab, DEL; Zl/Zp: U+2028/U+2029, which some
    # readers treat as line breaks (SPEC §2.2: one path per line); Cs: bytes that were not UTF-8.
    return unicodedata.category(char) in ("Cc", "Zl", "Zp", "Cs")


def unaddressable(parts: list[str]) -> str | None:
    """Why a path cannot be listed or addressed (SPEC §2.2), or None when it can."""
    path = "/".join(parts)
    if not path.isprintable():  # C-speed pre-check; most names never reach the detailed scan
        if "\0" in path:
            return "the name holds a NUL byte"
        if any(0xDC80 <= ord(char) <= 0xDCFF for char in path):
            return "the name is not valid UTF-8"
        if any(_unshowable(char) for char in path):
            return "the name holds control characters"
    if "\\" in path:
        return "the name holds a backslash (a path separator on Windows)"
    if any(len(segment.encode("utf-8")) > MAX_COMPONENT_BYTES for segment in parts):
        return f"a path component is longer than {MAX_COMPONENT_BYTES} bytes"
    if len(path.encode("utf-8")) > MAX_PATH_BYTES:
        return f"the path is longer than {MAX_PATH_BYTES} bytes"
    return None


def valid_link_text(target: str) -> bool:
    if not target or len(target.encode("utf-8", "surrogateescape")) > MAX_SYMLINK_TARGET_BYTES:
        return False
    return target.isprintable() or not any(_unshowable(char) for char in target)


class LinkLoop(Exception):
    """A symlink that takes more hops than the kernel would follow."""


def resolve_link(links: dict[str, str], path: str) -> str | None:
    """Where the symlink ``path`` leads inside the tree, following the other ``links`` (path ->
    raw target); None if it escapes.

    Lexical, like the PEP 706 check but on the archive's own links rather than the disk
    (there are none on disk): a chain such as ``up -> ..`` then ``x -> up/..`` escapes.
    A loop raises ``LinkLoop`` after as many hops as the kernel would follow.
    """
    parts = path.split("/")[:-1]
    pending = list(reversed(links[path].split("/")))
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
        target = links.get(candidate)
        if target is None:
            parts.append(segment)
            continue
        hops += 1
        if hops > MAX_LINK_HOPS:
            raise LinkLoop
        if target.startswith("/"):
            return None
        pending.extend(reversed(target.split("/")))
    return "/".join(parts)
