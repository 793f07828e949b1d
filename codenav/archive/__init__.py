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
  or report (archive members plus implied directories), ``max_total_bytes`` the sum of all
  regular members, kept or skipped (a skipped tar member is still decompressed; a zip member
  over the per-file limit is never read and does not count). A regular member declared over
  ``max_file_bytes`` is not written but listed (``FileEntry.skipped == "too large"``, with
  its declared size): one huge library never costs the package. Declared sizes are checked
  before anything is written and real bytes are counted while writing, so a member that lies
  about its size (a bomb) stops at the limit and fails the archive (``TOO_LARGE``).
- A corrupt or truncated archive is ``UNSAFE_ARCHIVE`` ("the archive is corrupt"); a zip
  member failing its CRC-32 is ``INTEGRITY_ERROR``; zip entries whose local records overlap
  (the zip-bomb construction) are ``UNSAFE_ARCHIVE``.

Messages name the member as the archive spells it (escaped to be printable) and never carry an
absolute path. On an error ``dest`` is left half-written: the caller deletes it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .limits import Limits
from .names import printable
from .records import Extracted, FileEntry
from .stream import CHUNK_SIZE
from .tree import Tree


def extract(archive: Path, dest: Path, *, fmt: str, strip_components: int = 0,
            required_prefix: str | None = None, limits: Limits | None = None,
            percent_names: bool = False, same_folder: Callable[[str], bool] | None = None) -> Extracted:
    """Extract ``archive`` (``fmt`` "tar" or "zip") into the existing directory ``dest``.

    ``strip_components`` drops that many leading components of every name (npm: 1, whatever
    the folder is called); ``required_prefix`` keeps only entries under that folder and removes
    it (sdists: ``"{name}-{version}/"``); ``same_folder(found)`` says whether a top folder spelled
    otherwise is that folder all the same (PyPI: equal after PEP 503 and PEP 440 normalisation),
    and when no entry lies under the folder at all the archive is PROTOCOL_ERROR naming the
    folders found, never an empty tree. ``percent_names`` (zip only) decodes %-escaped entry
    names before every rule above applies to them (zip.percent_decoded). Raises CodenavError UNSAFE_ARCHIVE, TOO_LARGE or
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
    tree = Tree(dest, limits or Limits.from_env(), strip_components, prefix)
    tree.same_folder = same_folder
    try:
        if fmt == "tar":
            from .tar import extract_tar

            extract_tar(archive, tree)
        else:
            from .zip import extract_zip

            extract_zip(archive, tree, percent_names=percent_names)
        return tree.result()
    finally:
        tree.close()  # a failure stops the helper process before the caller deletes dest


def extract_member(archive: Path, member: str, dest: Path, *, limits: Limits | None = None) -> None:
    """Copy the regular member ``member`` of the tar or zip ``archive`` to the file ``dest``.

    For artifacts whose files sit in an inner archive (a RubyGems ``.gem``'s ``data.tar.gz``,
    Hex's ``contents.tar.gz``, a conda ``.conda``'s ``pkg-*.tar.zst``): the inner archive is
    then extracted by ``extract`` with every rule above. A missing member, or one that is not a
    regular file, is UNSAFE_ARCHIVE; one larger than the extracted-bytes limit is TOO_LARGE.
    """
    with open(archive, "rb") as raw:
        zipped = raw.read(4) == b"PK\x03\x04"
    if zipped:
        from .zip import copy_member
    else:
        from .tar import copy_member  # type: ignore[assignment]

    copy_member(archive, member, dest, limits or Limits.from_env())


__all__ = ["CHUNK_SIZE", "Extracted", "FileEntry", "Limits", "extract", "extract_member", "printable"]
