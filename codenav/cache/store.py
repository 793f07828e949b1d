"""The read side of a published cache entry (SPEC §3): manifest rows, files, sidecars.

A warm call — ``codenav read`` of a package already cached — needs only this module, so it
imports nothing heavier than ``os``: no ``json`` (``paths.read_json`` decodes without it), no
``pathlib``, no locks. Paths here are plain strings.

An entry is a directory holding ``manifest.json`` and ``tree/`` (the files). The manifest is
``{"version", "fields", "target", "files", "skipped"}``; each row of ``files`` is a list whose
meaning ``fields`` names: ``path, size, language, fileType, binary, link, sha256`` (version 2),
and an eighth (``optionalFields``), ``skipped``, only on a file listed but not stored (``"too large"``: over the
per-file limit, which the manifest then records as ``maxFileBytes``; SPEC §3).
Version 1 manifests (no ``fields``, no sha256) are still read; a manifest of any other version
is never misread: ``find`` answers None, so the target is indexed again and the new entry
replaces the old one.

A ranged entry (cache/lazy.py, SPEC §3.7) adds ``ranged`` to its manifest and an eighth row
field, ``skipped`` ("too large": listed, never stored); its members reach ``tree/`` on first
read, fetched by range (``Entry.read``), so a missing file there is fetched, not an error.

Sidecars are files derived from the tree at indexing time and published with it (the same
rename), such as ``paths.txt``: the paths as the plain listing prints them, so ``codenav files``
never decodes a manifest of many thousand rows (SPEC §3: listing never walks the tree), and
``text.txt``: the files grep_repo may search (text, with their sizes) and the binary ones it
counts, so a search neither decodes the manifest rows nor opens a binary file. An entry
published before a sidecar existed gets it on first use (``Entry.sidecar``), written whole or
not at all.
"""

from __future__ import annotations

import os

from ..errors import CodenavError, cache_removed, too_large
from ..paths import read_json, root

TYPE_CHECKING = False  # annotations only: see the module docstring
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

MANIFEST_VERSION = 2
READABLE_VERSIONS = (1, 2)
FIELDS = ("path", "size", "language", "fileType", "binary", "link", "sha256")
OPTIONAL_FIELDS = ("skipped",)  # trailing, present only on the rows that have them
LISTING = "paths.txt"
TEXT_LIST = "text.txt"
# then " text=N binary=M large=K", a newline, and one line a file: "size\tpath" (text),
# "\tpath" (binary) or "-\tpath" (listed but not stored: over the per-file limit)
_TEXT_HEADER = "codenav-text 1"
_VERSION_HEAD = b'{"version":'
_LISTING_HEADER = "codenav-listing 1"  # then " files=N skipped=M", a newline, one path per line


class Row(tuple):
    """One file of an entry: ``(path, size, language, fileType, binary, link, sha256)``.

    A tuple, so the many rows of a large manifest cost what a list costs; the names say what
    each position is. ``link`` is the target inside the tree of a symlink kept as a link;
    ``sha256`` is None in entries indexed before version 2.
    """

    __slots__ = ()

    path = property(lambda self: self[0])
    size = property(lambda self: self[1])
    language = property(lambda self: self[2])
    file_type = property(lambda self: self[3])
    binary = property(lambda self: self[4])
    link = property(lambda self: self[5])
    sha256 = property(lambda self: self[6] if len(self) > 6 else None)
    # Why the file is listed but not stored ("too large"); None (absent) for a stored file.
    skipped = property(lambda self: self[7] if len(self) > 7 else None)


class Entry:
    """One published, immutable file tree and its manifest.

    Nothing of a request is kept here: what a request adds to the echo (where its version came
    from, its warnings) rides in the tool's wrapper (tools/_target.Opened), so one entry can
    serve many requests. ``echo`` is what the cache says of the tree it opened, in place of
    the manifest's target: a git entry serves every ref naming its commit, so ``open_target``
    echoes the ref resolved.
    """

    def __init__(self, key: str, path: str, echo: dict[str, Any] | None = None) -> None:
        self.key = key
        self.path = path
        self.echo = echo
        self.named: dict[str, str] | None = None  # registry, name, version, as its alias says (aliases.py)
        self._manifest: dict[str, Any] | None = None
        self._index: dict[str, list] | None = None
        self._rows: list[Row] | None = None
        self._searchable: tuple[list[list], list[str], list[str]] | None = None
        self._ranged: bool | None = None

    @property
    def manifest(self) -> dict[str, Any]:
        if self._manifest is None:
            try:
                self._manifest = read_json(os.path.join(self.path, "manifest.json"))
            except FileNotFoundError:
                raise cache_removed() from None
        return self._manifest

    @property
    def target(self) -> dict[str, Any]:
        return self.echo if self.echo is not None else self.manifest["target"]

    def files(self) -> list[Row]:
        """Every file's Row, sorted by path."""
        if self._rows is None:
            self._rows = [Row(r) for r in self.manifest["files"]]
        return self._rows

    def listing(self) -> tuple[str, int, int] | None:
        """(the paths, one per line, each ending in a newline; how many; how many entries were
        skipped) from ``paths.txt``, or None when this entry has none (list from the manifest)."""
        try:
            with open(self.sidecar_path(LISTING), encoding="utf-8") as handle:
                text = handle.read()
        except OSError:
            return None
        head, newline, body = text.partition("\n")
        fields = head.split(" ")
        if not newline or " ".join(fields[:2]) != _LISTING_HEADER or len(fields) != 4:
            return None  # also a fifth field, `flagged`: see write_listing
        try:
            count, skipped = int(fields[2].removeprefix("files=")), int(fields[3].removeprefix("skipped="))
        except ValueError:
            return None
        return body, count, skipped

    def searchable(self) -> tuple[list[list], list[str], list[str]]:
        """(the text files as ``[path, size]``, the binary files' paths, the paths listed but
        not stored), each in path order; symlinks kept as links are in none. From ``text.txt``,
        derived on first use for an entry indexed before it existed; from the manifest when
        the sidecar is unreadable; read once per Entry (the lists are shared: never change them)."""
        if self._searchable is None:
            self._searchable = self._read_searchable()
        return self._searchable

    def preset_searchable(self, listed: tuple[list[list], list[str], list[str]]) -> None:
        """What ``searchable()`` returns, as a record of it says (cache/openings.py)."""
        self._searchable = listed

    def _read_searchable(self) -> tuple[list[list], list[str], list[str]]:
        try:
            with open(self.sidecar(TEXT_LIST, write_text_list), encoding="utf-8") as handle:
                text = handle.read()
        except OSError:
            text = ""
        head, _, body = text.partition("\n")
        fields = head.split(" ")
        if " ".join(fields[:2]) == _TEXT_HEADER and len(fields) == 5:
            files: list[list] = []
            binary: list[str] = []
            large: list[str] = []
            for line in body.split("\n")[:-1]:
                size, _, path = line.partition("\t")
                if size == "-":
                    large.append(path)
                elif size:
                    files.append([path, int(size)])
                else:
                    binary.append(path)
            if fields[2:] == [f"text={len(files)}", f"binary={len(binary)}", f"large={len(large)}"]:
                return files, binary, large
        rows = [r for r in self.files() if r.link is None]
        return ([[r.path, r.size] for r in rows if not r.binary and r.skipped is None],
                [r.path for r in rows if r.binary and r.skipped is None], [r.path for r in rows if r.skipped is not None])

    def sidecar_path(self, name: str) -> str:
        return os.path.join(self.path, name)

    def sidecar(self, name: str, build: Callable[[Entry, str], None]) -> str:
        """The path of sidecar ``name``, derived now by ``build(entry, tmp_path)`` if this entry
        was published without it. Written to a temporary name and renamed: a reader never sees
        half a sidecar, and two processes deriving it at once both publish a whole one."""
        path = self.sidecar_path(name)
        if os.path.exists(path):
            return path
        tmp = os.path.join(self.path, f".{name}.{os.getpid()}.tmp")
        try:
            build(self, tmp)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        return path

    @property
    def ranged(self) -> bool:
        """True for an entry listed from a zip's central directory, its members fetched by range
        on first read (cache/lazy.py); its results say ``verified: false``."""
        if self._manifest is not None:
            return "ranged" in self._manifest
        if self._ranged is None:
            # Published with its zip's directory beside the manifest (lazy.DIRECTORY): a stat, not
            # a parse of every row (a search over 157 targets asked it of each, three times).
            self._ranged = os.path.exists(os.path.join(self.path, "ranged.dir"))
        return self._ranged

    def row(self, path: str) -> Row:
        if self._index is None:
            # The raw rows: a warm read wraps only the one it needs.
            self._index = {r[0]: r for r in self.manifest["files"]}
        found = self._index.get(path)
        if found is None:
            details: dict[str, Any] = {"filePath": path, "action": "list the files with list_files"}
            close = suggestions(path, list(self._index))
            if close:
                details["suggestions"] = close
            raise CodenavError("FILE_NOT_FOUND", f"{path} is not a file of this target", details=details)
        return Row(found)

    def read(self, path: str) -> tuple[Row, bytes]:
        """(row, bytes) of a file; a symlink row is followed inside the tree."""
        row = self.row(path)
        seen = 0
        while row.link is not None:  # a link kept in the manifest (never followed on disk)
            seen += 1
            if seen > 16:
                raise CodenavError("FILE_NOT_FOUND", f"{path} is a symlink loop", details={"filePath": path})
            try:
                row = self.row(row.link)
            except CodenavError:
                raise CodenavError(
                    "FILE_NOT_FOUND", f"{path} is a symlink to {row.link}, which this target does not ship",
                    details={"filePath": path},
                ) from None
        if row.skipped is not None:
            raise self.not_stored(row)
        try:
            with open(os.path.join(self.path, "tree", row.path), "rb") as handle:
                return row, handle.read()
        except FileNotFoundError:
            if not self.ranged:
                raise cache_removed() from None
        from .lazy import fetch_member  # a ranged entry's member not read yet: fetched now

        return row, fetch_member(self, row)

    def not_stored(self, row: Row) -> CodenavError:
        """TOO_LARGE for a file listed but not stored: what it is, the limit, the variable."""
        variable = "CODENAV_MAX_FILE_BYTES"
        limit = self.manifest.get("maxFileBytes")
        if not isinstance(limit, int):  # a ranged entry: the limit of this process (archive.Limits' default)
            raw = os.environ.get(variable, "").strip()
            limit = int(raw) if raw.isdigit() else 50 << 20
        return too_large(
            f"{row.path} is {row.size} bytes, over the {limit}-byte limit for one file, so it was listed but not extracted; raise {variable} "
            f"and index the package again (codenav cache clear) to read it",
            path=row.path, size=row.size, limitBytes=limit, variable=variable,
            action=f"raise {variable} above {row.size}, clear the cache, and retry",
        )


def suggestions(path: str, paths: list[str]) -> list[str]:
    """The listed paths nearest ``path``, nearest first (at most 5): FILE_NOT_FOUND's suggestions.

    Paths with the same file name come first — those that end with the whole asked path
    (``cryptography/fernet.py`` under ``src/``) before the rest, then by similarity; without
    one, the paths difflib finds close.
    """
    import difflib

    base = path.rsplit("/", 1)[-1]
    same_name = [p for p in paths if p.rsplit("/", 1)[-1] == base]
    if same_name:
        tail = "/" + path

        def nearness(candidate: str) -> tuple[bool, float, str]:
            ratio = difflib.SequenceMatcher(None, path, candidate).ratio()
            return (not candidate.endswith(tail), -ratio, candidate)

        return sorted(same_name, key=nearness)[:5]
    return difflib.get_close_matches(path, paths, n=3, cutoff=0.75)


def entry_dir(key: str) -> str:
    return os.path.join(root(), "entries", key)


def find(key: str) -> Entry | None:
    """The published entry ``key``, or None — also when its manifest is of a format this
    codenav does not know (then it is indexed again, never misread)."""
    path = entry_dir(key)
    return Entry(key, path) if manifest_version(os.path.join(path, "manifest.json")) in READABLE_VERSIONS else None


def manifest_version(path: str) -> int | None:
    """The format version of a manifest; None when there is none or it cannot be read.

    Current manifests start with ``{"version":N,`` (indexing.py writes it first), so a warm
    call reads a few bytes, not a manifest of many thousand rows. Older ones are read whole.
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(32)
            if head.startswith(_VERSION_HEAD):
                number = head[len(_VERSION_HEAD):].partition(b",")[0]
                return int(number) if number.isdigit() else None
            handle.seek(0)
            from ..paths import loads

            data = loads(handle.read().decode("utf-8"))
    except (OSError, ValueError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, int) and not isinstance(version, bool) else None


def manifest_text(target: dict[str, Any], rows: list[list], skipped: list[dict[str, str]],
                  extra: dict[str, Any] | None = None, fields: tuple[str, ...] = FIELDS,
                  maxFileBytes: int | None = None) -> str:  # noqa: N803 — the manifest's own key
    """The manifest of a new entry: its version first, so ``manifest_version`` is cheap.
    ``extra`` adds top-level keys (``ranged``: cache/lazy.py); ``maxFileBytes``: the per-file
    limit, recorded when a row is ``skipped`` "too large"."""
    return "".join(_manifest_pieces(target, rows, skipped, extra, fields, maxFileBytes))


def write_manifest(path: str, target: dict[str, Any], rows: list[list], skipped: list[dict[str, str]],
                   maxFileBytes: int | None = None) -> None:  # noqa: N803 — the manifest's own key
    """``manifest_text`` written to ``path`` (in a build directory, published later by its
    rename) piece by piece: the text of 43,000 rows is never all in memory at once."""
    with open(path, "w", encoding="utf-8") as handle:
        for piece in _manifest_pieces(target, rows, skipped, None, FIELDS, maxFileBytes):
            handle.write(piece)
        handle.flush()
        os.fsync(handle.fileno())


def _manifest_pieces(target: dict[str, Any], rows: list[list], skipped: list[dict[str, str]],
                     extra: dict[str, Any] | None, fields: tuple[str, ...], max_file_bytes: int | None) -> Iterator[str]:
    """The manifest's text in pieces: what ``json.dumps(doc, sort_keys=True, separators=(",", ":"))``
    writes, with the rows encoded a thousand at a time."""
    import json

    doc: dict[str, Any] = {"fields": list(fields), "optionalFields": list(OPTIONAL_FIELDS), "target": target,
                           "files": None, "skipped": skipped, **(extra or {})}
    if max_file_bytes is not None:
        doc["maxFileBytes"] = max_file_bytes
    # Sorted, "files" is the second key after "fields" (a list of plain strings): the first
    # `"files":null` of the text is the placeholder, whatever the target holds.
    before, after = json.dumps(doc, sort_keys=True, separators=(",", ":")).split('"files":null', 1)
    yield _VERSION_HEAD.decode() + str(MANIFEST_VERSION) + "," + before[1:] + '"files":['
    for start in range(0, len(rows), 1000):
        yield ("," if start else "") + json.dumps(rows[start:start + 1000], separators=(",", ":"))[1:-1]
    yield "]" + after


def write_listing(entry: Entry, out_path: str) -> None:
    """The ``paths.txt`` sidecar of ``entry``, written to ``out_path``."""
    rows = entry.manifest["files"]
    body = "".join(row[0] + "\n" for row in rows)
    # A yanked or deprecated release is listed from the manifest, which holds the target and
    # so the warning (SPEC §2.1); `flagged` makes ``listing`` decline, as any reader that
    # knows only four fields does.
    target = entry.manifest.get("target") or {}
    # So does an entry with files over the per-file limit: its listing carries that note.
    flagged = (" flagged" if target.get("yanked") or target.get("deprecated") or any(len(r) > 7 and r[7] for r in rows)
               else "")
    with open(out_path, "w", encoding="utf-8") as handle:
        handle.write(f"{_LISTING_HEADER} files={len(rows)} skipped={len(entry.manifest['skipped'])}{flagged}\n{body}")




def write_text_list(entry: Entry, out_path: str) -> None:
    """The ``text.txt`` sidecar of ``entry`` (see Entry.searchable), written to ``out_path``."""
    lines, text, binary, large = [], 0, 0, 0
    for row in entry.manifest["files"]:  # the raw rows (Row's positions: 0 path, 1 size, 4 binary, 5 link, 7 skipped)
        if row[5] is not None:
            continue
        if len(row) > 7 and row[7] is not None:
            large += 1
            lines.append(f"-\t{row[0]}\n")
        elif row[4]:
            binary += 1
            lines.append(f"\t{row[0]}\n")
        else:
            text += 1
            lines.append(f"{row[1]}\t{row[0]}\n")
    with open(out_path, "w", encoding="utf-8") as handle:
        handle.write(f"{_TEXT_HEADER} text={text} binary={binary} large={large}\n{''.join(lines)}")
