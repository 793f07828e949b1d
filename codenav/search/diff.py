"""What changed between two file trees, in git's terms (issue 17, the engine of diff_versions).

Contract:
- Input: two trees as rows ``(path, size, sha256 | None, is_binary, is_executable,
  link_target | None)`` and two readers ``read(path) -> bytes``. A file is read only when its
  digest does not already say it is unchanged (or, for rename pairing, when it has no digest).
- Lines are split on ``\\n`` only and keep it, so CRLF and a missing final newline are kept
  byte for byte. A record without its ``\\n`` differs from the same text with one, as in git.
- Hunks are git's: the Myers diff of git's xdiff with its preprocessing (common ends trimmed,
  lines without a match discarded, runs of many-times-repeated lines dropped), its cost
  heuristics, its group sliding with the indent heuristic (git's default since 2.14), three
  lines of context by default, hunks joined when their contexts touch, and the default
  function-name rule in ``@@`` headers. So ``added``/``removed`` equal ``git diff --numstat``.
- Renames are exact only: a removed and an added path with the same content (same digest,
  same kind: file or symlink), paired like git (same base name first), empty files included.
- A file over ``size_limit`` (either side) or whose diff runs past ``time_budget`` seconds is
  summarised without a diff: counts are None and its patch is written the way git writes a
  file over ``core.bigFileThreshold``, as "Binary files … differ". Binary files never get a body.
- The patch is git's extended format; binary sections carry full blob ids, so ``git apply``
  accepts them in a repository that holds the new blobs (git refuses a binary section whose
  index line is abbreviated).
- Binary is the rows' flag (codenav's rule: a NUL in the first 8 KiB, or not UTF-8), so a
  Latin-1 text that git would count as lines is "Binary files … differ" here.
- Pure: no I/O of its own, no global state; the output is a plain dict with camelCase keys.
"""

from __future__ import annotations

from ..budget import fit
from .xdiff import DEFAULT_CONTEXT, DiffTimeout, edit_script, split_records, unified_hunks

TYPE_CHECKING = False  # typing is for annotations only
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any

__all__ = ["DiffTimeout", "blob_id", "diff_trees", "edit_script", "page", "quote_path", "split_records",
           "unified_hunks", "whole_patch"]

DEFAULT_SIZE_LIMIT = 1024 * 1024  # bytes, either side; bigger files are named, not diffed
DEFAULT_TIME_BUDGET = 2.0  # seconds of diffing per file
PAGE_BYTES = 50 * 1024  # SPEC §5's output budget
PAGE_LINES = 2000
CUT_MARKER = "\\ [diff cut here: {n} more lines of this file's patch did not fit the output budget]\n"

MODE_FILE = "100644"
MODE_EXEC = "100755"
MODE_LINK = "120000"
_NULL_ID = "0" * 40
_ABBREV = 7  # git's abbreviation outside a repository


# --- git blob ids ---------------------------------------------------------------------------

def blob_id(data: bytes) -> str:
    """The git object id of a blob holding ``data``: sha1 of ``blob <len>\\0`` + data."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


# --- paths in patch headers ------------------------------------------------------------------

_C_ESCAPES = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r",
              34: '\\"', 92: "\\\\"}


def quote_path(name: str) -> str:
    """A path as git writes it in a patch (quote.c's quote_c_style with core.quotePath on)."""
    raw = name.encode("utf-8", "surrogateescape")
    if all(32 <= byte < 127 and byte not in (34, 92) for byte in raw):
        return name
    parts = ['"']
    for byte in raw:
        if byte in _C_ESCAPES:
            parts.append(_C_ESCAPES[byte])
        elif 32 <= byte < 127:
            parts.append(chr(byte))
        else:
            parts.append(f"\\{byte:03o}")
    parts.append('"')
    return "".join(parts)


def _label(prefix: str, path: str) -> str:
    # diff.c: "--- a/name" gets a trailing tab when the name holds a space, so tools that cut
    # at whitespace still find its end.
    quoted = quote_path(prefix + path)
    return quoted + ("\t" if " " in path else "")


# --- one file --------------------------------------------------------------------------------

class _File:
    """One side of a path: the row's facts, with the content read at most once."""

    __slots__ = ("path", "size", "sha256", "binary", "mode", "link", "_read", "_data")

    def __init__(self, row: Sequence[Any], read: Callable[[str], bytes]) -> None:
        self.path, self.size, self.sha256 = row[0], row[1], row[2]
        self.binary, self.link = bool(row[3]), row[5]
        self.mode = MODE_LINK if self.link is not None else MODE_EXEC if row[4] else MODE_FILE
        if self.link is not None:
            self.binary = False
        self._read = read
        self._data: bytes | None = None

    def data(self) -> bytes:
        if self._data is None:
            self._data = self.link.encode("utf-8", "surrogateescape") if self.link is not None else self._read(self.path)
        return self._data

    def digest(self) -> str:
        if self.link is None and self.sha256:
            return self.sha256
        import hashlib

        return hashlib.sha256(self.data()).hexdigest()

    def same_content(self, other: _File) -> bool:
        if (self.link is None) != (other.link is None):
            return False
        if self.link is not None:
            return self.link == other.link
        if self.sha256 and other.sha256:
            return self.sha256 == other.sha256
        return self.size == other.size and self.data() == other.data()


def _section(old: _File | None, new: _File | None, *, context: int, size_limit: int,
             time_budget: float, clock: Callable[[], float]) -> tuple[str, int | None, int | None, str | None, bool]:
    """One ``diff --git`` section with content: (patch, added, removed, skipped reason, binary)."""
    path_a = (old or new).path
    path_b = (new or old).path
    head = [f"diff --git {quote_path('a/' + path_a)} {quote_path('b/' + path_b)}\n"]
    if old is None:
        head.append(f"new file mode {new.mode}\n")
    elif new is None:
        head.append(f"deleted file mode {old.mode}\n")
    elif old.mode != new.mode:
        head.append(f"old mode {old.mode}\nnew mode {new.mode}\n")
    mode_tail = f" {old.mode}" if old is not None and new is not None and old.mode == new.mode else ""
    binary = bool((old and old.binary) or (new and new.binary))
    skipped = None
    if not binary and max(old.size if old else 0, new.size if new else 0) > size_limit:
        skipped = "tooLarge"
    data_a = old.data() if old is not None else b""
    data_b = new.data() if new is not None else b""
    records_a = records_b = script = None
    if not binary and skipped is None:
        try:
            data_a.decode("utf-8")
            data_b.decode("utf-8")
        except UnicodeDecodeError:
            binary = True  # only UTF-8 text is shown as lines
    if not binary and skipped is None:
        records_a, records_b = split_records(data_a), split_records(data_b)
        try:
            script = edit_script(records_a, records_b, clock=clock, deadline=clock() + time_budget)
        except DiffTimeout:
            skipped = "timedOut"
    id_a = blob_id(data_a) if old is not None else _NULL_ID
    id_b = blob_id(data_b) if new is not None else _NULL_ID
    if binary or skipped is not None:
        # Full ids: git apply refuses a binary section whose index line is abbreviated.
        head.append(f"index {id_a}..{id_b}{mode_tail}\n")
        label_a = "/dev/null" if old is None else quote_path("a/" + path_a)
        label_b = "/dev/null" if new is None else quote_path("b/" + path_b)
        head.append(f"Binary files {label_a} and {label_b} differ\n")
        return "".join(head), None, None, skipped, binary
    head.append(f"index {id_a[:_ABBREV]}..{id_b[:_ABBREV]}{mode_tail}\n")
    added = sum(c2 for _, _, _, c2 in script)
    removed = sum(c1 for _, _, c1, _ in script)
    if script:  # git prints no ---/+++ and no hunk for an empty file added or deleted
        head.append(f"--- {'/dev/null' if old is None else _label('a/', path_a)}\n")
        head.append(f"+++ {'/dev/null' if new is None else _label('b/', path_b)}\n")
        head.extend(unified_hunks(records_a, records_b, script, context))
    return "".join(head), added, removed, None, False


def _entry(status: str, old: _File | None, new: _File | None, **extra: Any) -> dict[str, Any]:
    entry = {
        "path": (new or old).path,
        "status": status,
        "oldMode": old.mode if old else None,
        "newMode": new.mode if new else None,
        "binary": False,
        "added": 0,
        "removed": 0,
    }
    if status == "renamed":
        entry["oldPath"] = old.path
    entry.update(extra)
    return entry


# --- two trees -------------------------------------------------------------------------------

def _pair_renames(removed: dict[str, _File], added: dict[str, _File]) -> list[tuple[_File, _File]]:
    """Exact renames: same content and kind; a source with the same base name is preferred.

    Only sizes that occur on both sides are compared, so most files are never read here.
    """
    import posixpath

    sizes = {f.size for f in removed.values() if f.link is None} & {f.size for f in added.values() if f.link is None}
    by_key: dict[tuple[Any, ...], list[_File]] = {}
    for f in removed.values():
        if f.link is not None:
            by_key.setdefault(("link", f.link), []).append(f)
        elif f.size in sizes:
            by_key.setdefault(("file", f.size, f.digest()), []).append(f)
    pairs = []
    used: set[str] = set()
    for path in sorted(added):
        f = added[path]
        if f.link is not None:
            key: tuple[Any, ...] = ("link", f.link)
        elif f.size in sizes:
            key = ("file", f.size, f.digest())
        else:
            continue
        candidates = [c for c in by_key.get(key, ()) if c.path not in used]
        if not candidates:
            continue
        base = posixpath.basename(path)
        source = next((c for c in candidates if posixpath.basename(c.path) == base), candidates[0])
        used.add(source.path)
        pairs.append((source, f))
    return pairs


def _selected(path: str, prefix: str, path_filter: Callable[[str], bool] | None) -> bool:
    if prefix and not (path == prefix or path.startswith(prefix + "/")):
        return False
    return path_filter is None or bool(path_filter(path))


def diff_trees(rows_a: Iterable[Sequence[Any]], rows_b: Iterable[Sequence[Any]],
               read_a: Callable[[str], bytes], read_b: Callable[[str], bytes], *,
               path_prefix: str = "", path_filter: Callable[[str], bool] | None = None,
               context: int = DEFAULT_CONTEXT, size_limit: int = DEFAULT_SIZE_LIMIT,
               time_budget: float = DEFAULT_TIME_BUDGET,
               clock: Callable[[], float] | None = None) -> dict[str, Any]:
    """The changes from tree a to tree b: ``{"summary": {...}, "files": [entry, ...]}``.

    ``files`` is sorted by path (the new path for renames). Each entry: ``path``, ``status``
    (added, removed, modified, renamed, modeChanged), ``oldPath`` (renames), ``oldMode``,
    ``newMode``, ``binary``, ``added``/``removed`` (git's --numstat; None for binaries and for
    files not diffed), ``skipped`` ("tooLarge" or "timedOut", only when so), ``patch`` (its
    ``diff --git`` section(s)).
    """
    if clock is None:
        import time

        clock = time.monotonic
    if context < 0:
        from ..errors import invalid

        raise invalid(f"context must be 0 or more, got {context}", "context")
    prefix = path_prefix.strip("/")
    side_a = {row[0]: _File(row, read_a) for row in rows_a if _selected(row[0], prefix, path_filter)}
    side_b = {row[0]: _File(row, read_b) for row in rows_b if _selected(row[0], prefix, path_filter)}
    options = {"context": context, "size_limit": size_limit, "time_budget": time_budget, "clock": clock}

    entries: list[dict[str, Any]] = []
    removed = {p: f for p, f in side_a.items() if p not in side_b}
    added = {p: f for p, f in side_b.items() if p not in side_a}
    for old, new in _pair_renames(removed, added):
        del removed[old.path], added[new.path]
        head = [f"diff --git {quote_path('a/' + old.path)} {quote_path('b/' + new.path)}\n"]
        if old.mode != new.mode:
            head.append(f"old mode {old.mode}\nnew mode {new.mode}\n")
        head.append(f"similarity index 100%\nrename from {quote_path(old.path)}\nrename to {quote_path(new.path)}\n")
        entries.append(_unchanged_content("renamed", old, new, "".join(head)))

    for old in removed.values():
        entries.append(_content_entry("removed", old, None, options))
    for new in added.values():
        entries.append(_content_entry("added", None, new, options))
    for path in side_a.keys() & side_b.keys():
        old, new = side_a[path], side_b[path]
        if (old.link is None) != (new.link is None):
            # A symlink became a file or back: git writes a deletion and a creation.
            gone = _content_entry("removed", old, None, options)
            born = _content_entry("added", None, new, options)
            entry = _entry("modified", old, new, binary=gone["binary"] or born["binary"],
                           patch=gone["patch"] + born["patch"])
            for key in ("added", "removed"):
                entry[key] = None if gone[key] is None or born[key] is None else gone[key] + born[key]
            if gone.get("skipped") or born.get("skipped"):
                entry["skipped"] = gone.get("skipped") or born.get("skipped")
            entries.append(entry)
        elif old.same_content(new):
            if old.mode != new.mode:
                patch = (f"diff --git {quote_path('a/' + path)} {quote_path('b/' + path)}\n"
                         f"old mode {old.mode}\nnew mode {new.mode}\n")
                entries.append(_unchanged_content("modeChanged", old, new, patch))
        else:
            entries.append(_content_entry("modified", old, new, options))
    entries.sort(key=lambda e: (e["path"], e.get("oldPath", "")))
    return {"summary": _summary(entries), "files": entries}


def _unchanged_content(status: str, old: _File, new: _File, patch: str) -> dict[str, Any]:
    # git's --numstat says "-" for a binary file even when only its name or mode changed.
    binary = old.binary or new.binary
    counts = None if binary else 0
    return _entry(status, old, new, binary=binary, added=counts, removed=counts, patch=patch)


def _content_entry(status: str, old: _File | None, new: _File | None, options: dict[str, Any]) -> dict[str, Any]:
    patch, added, removed, skipped, binary = _section(old, new, **options)
    entry = _entry(status, old, new, binary=binary, added=added, removed=removed, patch=patch)
    if skipped:
        entry["skipped"] = skipped
    return entry


def _summary(entries: list[dict[str, Any]]) -> dict[str, int]:
    summary = {"filesChanged": len(entries), "added": 0, "removed": 0, "modified": 0, "renamed": 0,
               "modeChanged": 0, "binaryChanged": 0, "notDiffed": 0, "linesAdded": 0, "linesRemoved": 0}
    for e in entries:
        summary[e["status"]] += 1
        if e["binary"] and e["status"] in ("added", "removed", "modified"):
            summary["binaryChanged"] += 1
        if e.get("skipped"):
            summary["notDiffed"] += 1
        summary["linesAdded"] += e["added"] or 0
        summary["linesRemoved"] += e["removed"] or 0
    return summary


def whole_patch(result: dict[str, Any]) -> str:
    """The whole patch, every file, for plain CLI output (``git apply`` reads it)."""
    return "".join(entry["patch"] for entry in result["files"])


# --- paging ----------------------------------------------------------------------------------

def _fingerprint(files: list[dict[str, Any]]) -> str:
    import hashlib

    digest = hashlib.sha1()
    for entry in files:
        digest.update(f"{entry.get('oldPath', '')}\0{entry['path']}\0{len(entry['patch'])}\0".encode())
    return digest.hexdigest()[:12]


def _cursor(index: int, fingerprint: str) -> str:
    import base64

    return base64.urlsafe_b64encode(f"diff:{index}:{fingerprint}".encode()).decode().rstrip("=")


def _cursor_index(cursor: str, fingerprint: str, total: int) -> int:
    import base64

    from ..errors import invalid

    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        kind, index_text, mark = text.split(":")
        index = int(index_text)
    except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
        raise invalid("the cursor is not one this tool gave out; start again without a cursor", "cursor") from None
    if kind != "diff" or mark != fingerprint or not 0 <= index <= total:
        raise invalid("the cursor belongs to another diff (other versions, paths or filters); "
                      "start again without a cursor", "cursor")
    return index


def page(files: list[dict[str, Any]], cursor: str | None = None, budget_bytes: int = PAGE_BYTES,
         budget_lines: int = PAGE_LINES) -> tuple[list[dict[str, Any]], str | None]:
    """The next whole files of ``files`` whose patches fit the budget, and the cursor after them.

    At least one file is always returned; a file whose patch alone exceeds the budget is cut
    (its copy gets ``patchCut: true`` and a marker line) and the cursor still moves past it.
    The cursor is None after the last file. Cursors are opaque, deterministic, and refused
    (INVALID_ARGUMENT) for a different list of files.
    """
    fingerprint = _fingerprint(files)
    start = 0 if cursor is None else _cursor_index(cursor, fingerprint, len(files))
    chunk, _ = fit(files[start:], lambda entry: (len(entry["patch"].encode("utf-8")), entry["patch"].count("\n")),
                   max_bytes=budget_bytes, max_lines=budget_lines, partial=_cut_entry)
    index = start + len(chunk)
    return chunk, (_cursor(index, fingerprint) if index < len(files) else None)


def _cut_entry(entry: dict[str, Any], budget_bytes: int, budget_lines: int) -> dict[str, Any]:
    return dict(entry, patch=_cut_patch(entry["patch"], budget_bytes, budget_lines), patchCut=True)


def _cut_patch(patch: str, budget_bytes: int, budget_lines: int) -> str:
    lines = patch.split("\n")[:-1]  # every patch line ends with "\n"
    room_bytes = budget_bytes - len(CUT_MARKER) - 16
    kept: list[str] = []
    used = 0
    for line in lines:
        size = len(line.encode("utf-8")) + 1
        if len(kept) + 1 >= budget_lines or used + size > room_bytes:
            break
        kept.append(line)
        used += size
    rest = len(lines) - len(kept)
    return "".join(line + "\n" for line in kept) + CUT_MARKER.format(n=rest)
