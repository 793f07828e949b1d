"""The read side of the cache (SPEC §3): its root, what a request resolved to, published entries.

A warm call — ``codenav read`` of a package already cached — needs only this module, so it
imports nothing heavier than ``os``: no ``json`` (which imports ``re``), no ``pathlib``, no
locks. Indexing, publishing and maintenance are ``cache.py``'s; it builds on this module.
The layout is described there. Paths here are plain strings.

An entry holds ``manifest.json`` (every file with its size, language, type, binary flag and
link) and ``paths.txt``: the paths as the plain listing prints them, so ``codenav files``
never decodes a manifest of many thousand rows (SPEC §3: listing never walks the tree). An
entry published without it (by an older codenav) is listed from the manifest.
"""

from __future__ import annotations

import os
import time

from .errors import CodenavError
from .targets import GitTarget, short_hash

TYPE_CHECKING = False  # annotations only: see the module docstring
if TYPE_CHECKING:
    from typing import Any

    from .targets import PackageTarget, Target

RESOLVE_TTL = 300.0  # seconds a "latest"/dist-tag resolution is reused (npm caches packuments 5 min too)
LISTING = "paths.txt"
_LISTING_HEADER = "codenav-listing 1"  # then " files=N skipped=M", a newline, one path per line


def root() -> str:
    if os.environ.get("CODENAV_CACHE_DIR"):
        return os.environ["CODENAV_CACHE_DIR"]
    if os.environ.get("XDG_CACHE_HOME"):
        return os.path.join(os.environ["XDG_CACHE_HOME"], "codenav")
    return os.path.join(os.path.expanduser("~"), ".cache", "codenav")


def state_dir() -> str:
    return os.path.join(root(), "state")


# --- JSON without the json package -----------------------------------------------------------

class _Decoding:
    # What json.JSONDecoder hands its C scanner by default (json.loads with no options).
    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


_scanner: Any = None


def loads(text: str) -> Any:
    """``json.loads(text)``, decoded by the same C scanner but without importing ``json``.

    ``json`` imports ``re`` at load, which alone costs half of Python's start-up. Anything the
    fast path does not accept as a whole document (bad JSON, a BOM, a Python without the C
    scanner) goes to ``json.loads``, which returns the same value or raises its own error.
    """
    global _scanner
    if _scanner is None:
        try:
            from _json import make_scanner
        except ImportError:
            make_scanner = None
        _scanner = make_scanner(_Decoding()) if make_scanner is not None else False
    if _scanner and not text.startswith("\ufeff"):
        start = len(text) - len(text.lstrip(" \t\n\r"))
        try:
            value, end = _scanner(text, start)
        except (StopIteration, ValueError):
            pass
        else:
            if not text[end:].strip(" \t\n\r"):
                return value
    import json

    return json.loads(text)


def read_json(path: str) -> Any:
    with open(path, encoding="utf-8") as handle:
        return loads(handle.read())


# --- entries ---------------------------------------------------------------------------------

def _removed() -> CodenavError:
    return CodenavError(
        "NOT_FOUND", "the cached copy of this target was removed (cache clear?); retry to index it again",
        retryable=True,
    )


class Entry:
    """One published, immutable file tree and its manifest."""

    def __init__(self, key: str, path: str) -> None:
        self.key = key
        self.path = path
        self._manifest: dict[str, Any] | None = None
        self._index: dict[str, list] | None = None
        self.echo: dict[str, Any] | None = None  # per-request echo (git: the ref asked for)

    @property
    def manifest(self) -> dict[str, Any]:
        if self._manifest is None:
            try:
                self._manifest = read_json(os.path.join(self.path, "manifest.json"))
            except FileNotFoundError:
                raise _removed() from None
        return self._manifest

    @property
    def target(self) -> dict[str, Any]:
        return self.echo if self.echo is not None else self.manifest["target"]

    def files(self) -> list[list]:
        """Rows ``[path, size, language, fileType, isBinary, link]`` sorted by path."""
        return self.manifest["files"]

    def listing(self) -> tuple[str, int, int] | None:
        """(the paths, one per line, each ending in a newline; how many; how many entries were
        skipped) from ``paths.txt``, or None when this entry has none (list from the manifest)."""
        try:
            with open(os.path.join(self.path, LISTING), encoding="utf-8") as handle:
                text = handle.read()
        except OSError:
            return None
        head, newline, body = text.partition("\n")
        fields = head.split(" ")
        if not newline or " ".join(fields[:2]) != _LISTING_HEADER or len(fields) != 4:
            return None
        try:
            count, skipped = int(fields[2].removeprefix("files=")), int(fields[3].removeprefix("skipped="))
        except ValueError:
            return None
        return body, count, skipped

    def row(self, path: str) -> list:
        if self._index is None:
            self._index = {r[0]: r for r in self.files()}
        found = self._index.get(path)
        if found is None:
            details: dict[str, Any] = {"filePath": path, "action": "list the files with list_files"}
            close = _close_matches(path, self._index)
            if close:
                details["didYouMean"] = close
            raise CodenavError("FILE_NOT_FOUND", f"{path} is not a file of this target", details=details)
        return found

    def read(self, path: str) -> tuple[list, bytes]:
        """(row, bytes) of a file; a symlink row is followed inside the tree."""
        row = self.row(path)
        seen = 0
        while row[5] is not None:  # a link kept in the manifest (never followed on disk)
            seen += 1
            if seen > 16:
                raise CodenavError("FILE_NOT_FOUND", f"{path} is a symlink loop", details={"filePath": path})
            try:
                row = self.row(row[5])
            except CodenavError:
                raise CodenavError(
                    "FILE_NOT_FOUND", f"{path} is a symlink to {row[5]}, which this target does not ship",
                    details={"filePath": path},
                ) from None
        try:
            with open(os.path.join(self.path, "tree", row[0]), "rb") as handle:
                return row, handle.read()
        except FileNotFoundError:
            raise _removed() from None


def _close_matches(path: str, index: dict[str, list]) -> list[str]:
    base = path.rsplit("/", 1)[-1]
    same_name = [p for p in index if p.rsplit("/", 1)[-1] == base]
    if same_name:
        return sorted(same_name)[:5]
    import difflib

    return difflib.get_close_matches(path, list(index), n=3, cutoff=0.75)


def find(key: str) -> Entry | None:
    """The published entry ``key``, or None."""
    path = os.path.join(root(), "entries", key)
    return Entry(key, path) if os.path.isfile(os.path.join(path, "manifest.json")) else None


def write_listing(entry_dir: str, rows: list[list], skipped: int) -> None:
    """Write ``paths.txt`` into an entry being built (before it is published)."""
    body = "".join(row[0] + "\n" for row in rows)
    with open(os.path.join(entry_dir, LISTING), "w", encoding="utf-8") as handle:
        handle.write(f"{_LISTING_HEADER} files={len(rows)} skipped={skipped}\n{body}")


# --- aliases: request -> entry ----------------------------------------------------------------

def _exact_npm_version(version: str) -> bool:
    """``MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]``: a version no publish can move (no dist-tag)."""
    core, plus, build = version.partition("+")
    if plus and not _semver_word(build):
        return False
    core, dash, pre = core.partition("-")
    if dash and not _semver_word(pre):
        return False
    numbers = core.split(".")
    return len(numbers) == 3 and all(n.isascii() and n.isdigit() for n in numbers)


_SEMVER_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")


def _semver_word(text: str) -> bool:
    return bool(text) and set(text) <= _SEMVER_WORD


def alias_of(target: PackageTarget) -> tuple[str, float | None]:
    """The alias text of a request and how long its resolution may be reused (None: forever)."""
    if isinstance(target, GitTarget):
        raise TypeError("git targets are keyed by commit")
    from .sources import endpoints

    if target.registry == "npm":
        base = endpoints.npm_registry()
        exact = target.version is not None and _exact_npm_version(target.version)
    else:
        base = endpoints.pypi_index()
        exact = target.version is not None
    ttl = None if exact else float(os.environ.get("CODENAV_RESOLVE_TTL", RESOLVE_TTL))
    return f"{target.registry}|{base}|{target.name}|{target.version or ''}", ttl


def alias_path(alias: str) -> str:
    return os.path.join(root(), "aliases", f"{short_hash(alias)}.json")


def read_alias(alias: str, resolved_since: float | None = None) -> Entry | None:
    """The entry an alias names, unless it expired; ``resolved_since`` (wall clock) also accepts
    an expired alias resolved at or after that time: the resolution a waiter asked for."""
    try:
        data = read_json(alias_path(alias))
    except (OSError, ValueError):
        return None
    if data.get("alias") != alias:
        return None
    expires = data.get("expires")
    if expires is not None and time.time() > expires:
        # A short TTL (CODENAV_RESOLVE_TTL=0: always resolve afresh) can expire between the
        # indexer writing the alias and its waiter reading it; the waiter still wants that answer.
        resolved = data.get("resolved")
        if resolved_since is None or not isinstance(resolved, (int, float)) or resolved < resolved_since:
            return None
    return find(data["key"])


def cached(target: Target) -> Entry | None:
    """The entry a package request already resolved to; None when it must be (re)indexed, and
    for git targets, whose ref resolution is the cache's (``cache.open_target``)."""
    if isinstance(target, GitTarget):
        return None
    return read_alias(alias_of(target)[0])
