"""Finding the project's lockfiles: the walk up and the order inside one directory (lockfiles.md §1).

``walk`` goes up from the start directory to the nearest directory holding one of the
ecosystem's files (§1.1): it stops after a directory holding ``.git``, before entering ``$HOME``
from below, at the filesystem root, and at a directory seen twice (a symlink loop). ``ordered``
sorts the files present there in the row's precedence, an explicit tool choice first (§1.2).
Both read only the file system's names: the warm path runs them on every call.
"""

from __future__ import annotations

import os

from .locked import reason_of


def _rel(path: str, start: str) -> str:
    return os.path.relpath(path, start).replace(os.sep, "/")


def walk(row, start: str, warnings: list[str]):
    """(directories visited from ``start`` upwards, the lockfile directory, its files)."""
    names = row.names()
    home = os.path.abspath(os.path.expanduser("~"))
    seen: set[tuple[int, int]] = set()
    dirs: list[str] = []
    d = start
    while True:
        if d == home and d != start:
            break  # a stray ~/package-lock.json must not lock every project below it (§1.1)
        try:
            st = os.stat(d)
        except FileNotFoundError:
            st = None  # a start directory that does not exist (yet): look above it
        except OSError as e:
            warnings.append(f"{_rel(d, start)}: directory skipped ({reason_of(e)})")
            st = None
        if st is not None:
            ident = (st.st_dev, st.st_ino)
            if ident not in seen:  # a path through a symlink to a directory already looked at
                seen.add(ident)
                dirs.append(d)
                present = _present(row, d, start, names, warnings)
                if present:
                    return dirs, d, present
                if _exists(os.path.join(d, ".git")):
                    break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return dirs, None, []


def _exists(path: str) -> bool:
    try:
        os.lstat(path)
        return True
    except OSError:
        return False


def _present(row, d: str, start: str, names, warnings: list[str]) -> list[str]:
    """The row's file names present in ``d``; a file that cannot be checked counts as present."""
    out = []
    denied = False
    for fname in names:
        try:
            os.stat(os.path.join(d, fname))
        except (FileNotFoundError, NotADirectoryError):
            continue
        except PermissionError:
            denied = True
            continue
        except OSError:
            pass  # a symlink loop, say: present, and skipped with a warning when read
        out.append(fname)
    if row.patterns:
        try:
            for entry in sorted(os.listdir(d)):
                if row.matches(entry) is not None:
                    out.append(entry)
        except OSError:
            denied = True
    if denied and not out:
        warnings.append(f"{_rel(d, start) if d != start else '.'}: directory skipped (permission denied)")
    return out


def ordered(row, lock_dir: str, present: list[str]) -> list[tuple[str, str, str]]:
    """The readable files present, in the row's precedence; an explicit tool choice first."""
    from .ecosystems import hook
    detected = set(row.detected)
    rows = sorted((row.row(p) for p in present if p not in detected), key=lambda r: (row.position(r[0]), r[0]))
    preferred = hook(row, "preferred")(lock_dir)
    return sorted(rows, key=lambda r: r[0] not in preferred)  # stable: keeps §1.2 order
