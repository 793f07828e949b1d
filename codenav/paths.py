"""Where codenav keeps things, and how a file is written whole or not at all (SPEC §3).

The cache root is ``$CODENAV_CACHE_DIR``, else ``$XDG_CACHE_HOME/codenav``, else
``~/.cache/codenav``; ``state/`` under it holds discovered endpoints and other small answers.
A warm call reads through this module, so it imports only ``os``: ``read_json`` decodes with
the C scanner ``json.loads`` uses, without importing ``json`` (which imports ``re``, alone half
of Python's start-up). Paths are plain strings.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from typing import Any


def root() -> str:
    if os.environ.get("CODENAV_CACHE_DIR"):
        return os.environ["CODENAV_CACHE_DIR"]
    if os.environ.get("XDG_CACHE_HOME"):
        return os.path.join(os.environ["XDG_CACHE_HOME"], "codenav")
    return os.path.join(os.path.expanduser("~"), ".cache", "codenav")


def state_dir() -> str:
    return os.path.join(root(), "state")


def cache_subdir(name: str) -> str:
    """``root()/name``, made if missing (aliases/, locks/, jobs/, tmp/)."""
    path = os.path.join(root(), name)
    os.makedirs(path, exist_ok=True)
    return path


def short_hash(text: str) -> str:
    """A stable 32-hex-digit name for a string (cache file names)."""
    try:  # the builtin module loads in microseconds; hashlib pulls in OpenSSL (warm path)
        from _sha256 import sha256
    except ImportError:
        from hashlib import sha256
    return sha256(text.encode("utf-8")).hexdigest()[:32]


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

    Anything the fast path does not accept as a whole document (bad JSON, a BOM, a Python
    without the C scanner) goes to ``json.loads``, which returns the same value or raises its
    own error.
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


# --- writing ---------------------------------------------------------------------------------

def atomic_write(path: str, text: str, *, remake_parent: bool = False) -> None:
    """Write ``path`` whole or not at all (temp file, fsync, rename).

    ``remake_parent``: a concurrent ``cache clear`` may have moved the folder away (aliases/,
    jobs/, state/); make it again. Never for a build directory, which must not come back
    half-empty.
    """
    path = os.fspath(path)
    tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.{os.getpid()}.tmp")
    for attempt in range(3):
        try:
            with open(tmp, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
            return
        except FileNotFoundError:
            if not remake_parent or attempt == 2:
                raise
            os.makedirs(os.path.dirname(path), exist_ok=True)


def fsync_dir(path: str) -> None:
    """Make a rename inside ``path`` durable (best effort: some file systems refuse)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
