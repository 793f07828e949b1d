"""Hostile archives: the cases every registry's extraction must survive, and what to plant and check.

A ``Case`` is a list of archive members (names may use ``@TOP@``, the registry's top folder, and
``@ROOT@``, the test's directory) or forged bytes, and the one outcome it must have: an error
(and then nothing cached), or a success whose skipped members are reported with a reason and
whose kept files are exactly ``files``. Each case names the archive kinds it applies to: tar
(hardlinks and non-UTF-8 tar names exist only there) or zip (forged zip bytes). The shared
suite (tests/hardening/test_registry_hostile.py) publishes every case of a registry's kind
through its adapter and checks, around ``list_files``, that nothing outside the new entry
appeared or changed.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from .archives import (
    Dir,
    File,
    Hardlink,
    Member,
    Special,
    Symlink,
    build,
    replace_in_names,
    stored_zip,
    zip_quoted_overlap,
    zip_same_offset_bomb,
)

TAR, ZIP = "tar", "zip"
BOTH = (TAR, ZIP)
NEIGHBOUR_KEY = "npm/neighbour/1.0.0-0123456789abcdef"

# The cache's own bookkeeping may change around a call; nothing else outside the new entry may.
BOOKKEEPING = re.compile(
    r"^cache(/(entries(/[^/]+(/[^/]+)?)?|aliases(/[0-9a-f]+\.json)?|locks(/[0-9a-f]+\.lock)?"
    r"|jobs(/[0-9a-f]+\.json)?|tmp(/indexer\.log)?))?$"
)


@dataclass
class Case:
    members: list[Member] | bytes  # names may use @TOP@ (the format's top folder) and @ROOT@ (tmp_path)
    error: tuple[str, str] | None = None  # (code, message fragment)
    skipped: dict[str, str] = field(default_factory=dict)  # printable member name -> reason fragment
    files: dict[str, bytes | str] | None = None  # path -> content, or a kept link's target (str)
    env: dict[str, str] = field(default_factory=dict)
    truncate: bool = False  # publish only the first half of the archive (with the hash of that half)
    too_large: dict[str, int] = field(default_factory=dict)  # path -> size: listed, not stored (SPEC §3)


_NOISE = random.Random(7).randbytes(60_000)  # incompressible: the download itself is over the limit


def _table() -> list[tuple[str, tuple[str, ...], Case]]:
    deep = "/".join(["p" * 200] * 21)
    return [
        # --- names that climb out or start at / : the whole archive is refused
        ("dotdot-to-test-dir", BOTH, Case([File("@TOP@ok.txt", b"ok"), File("@TOP@../../../../../escape.txt", b"x")],
                                         error=("UNSAFE_ARCHIVE", "'..' path segment"))),
        ("dotdot-to-cache-root", (TAR,), Case([File("../../../../escape-cache.txt", b"x")],
                                           error=("UNSAFE_ARCHIVE", "'..' path segment"))),
        ("dotdot-inside-a-name", (ZIP,), Case([File("a/../../../../../../escape.txt", b"x")],
                                                   error=("UNSAFE_ARCHIVE", "'..'"))),
        ("absolute-name", BOTH, Case([File("@ROOT@/abs-escape.txt", b"x")],
                                    error=("UNSAFE_ARCHIVE", "absolute path"))),
        # --- links: kept only when they stay inside; never created on disk, never followed
        ("symlink-escaping", BOTH, Case([Symlink("@TOP@evil", "../../../../../decoy"), File("@TOP@ok.txt", b"ok")],
                                       skipped={"@TOP@evil": "outside the tree"}, files={"ok.txt": b"ok"})),
        ("symlink-absolute", BOTH, Case([Symlink("@TOP@evil", "@ROOT@/decoy/secret.txt")],
                                       skipped={"@TOP@evil": "absolute"}, files={})),
        ("symlink-chained", BOTH, Case([Symlink("@TOP@d/up", ".."), Symlink("@TOP@esc", "d/up/../decoy"),
                                       File("@TOP@esc/pwned.txt", b"x")],
                                      skipped={"@TOP@d/up": "top of the tree", "@TOP@esc": "outside the tree",
                                               "@TOP@esc/pwned.txt": "is a symlink"}, files={})),
        ("write-through-escaping-dir-link", BOTH,
         Case([Symlink("@TOP@lnk", "../../../../../decoy"), File("@TOP@lnk/pwned.txt", b"x")],
              skipped={"@TOP@lnk": "outside the tree", "@TOP@lnk/pwned.txt": "parent lnk is a symlink"}, files={})),
        ("write-through-inside-dir-link", (TAR,),
         Case([Dir("@TOP@real"), Symlink("@TOP@lnk", "real"), File("@TOP@lnk/x.txt", b"x")],
              skipped={"@TOP@lnk/x.txt": "parent lnk is a symlink"}, files={"lnk": "real"})),
        ("hardlink-escaping", (TAR,), Case([Hardlink("@TOP@h", "../../../../../decoy/secret.txt")],
                                         skipped={"@TOP@h": "outside the tree"}, files={})),
        ("hardlink-absolute", (TAR,), Case([Hardlink("@TOP@h", "@ROOT@/decoy/secret.txt")],
                                         skipped={"@TOP@h": "absolute"}, files={})),
        ("hardlink-chained-through-symlink", (TAR,),
         Case([Symlink("@TOP@s", "@ROOT@/decoy/secret.txt"), Hardlink("@TOP@h", "@TOP@s")],
              skipped={"@TOP@s": "absolute", "@TOP@h": "not a file extracted before it"}, files={})),
        # --- special files are never created
        ("char-device", BOTH, Case([Special("@TOP@null", "chr"), File("@TOP@ok", b"")],
                                  skipped={"@TOP@null": "character device"}, files={"ok": b""})),
        ("block-device", (TAR,), Case([Special("@TOP@sda", "blk")], skipped={"@TOP@sda": "block device"}, files={})),
        ("fifo", BOTH, Case([Special("@TOP@pipe", "fifo")], skipped={"@TOP@pipe": "FIFO"}, files={})),
        # --- duplicates and case: last wins and says so; case-only names are distinct files
        ("duplicate-entries", BOTH, Case([File("@TOP@x.txt", b"first"), File("@TOP@x.txt", b"second")],
                                        skipped={"@TOP@x.txt": "duplicate path"}, files={"x.txt": b"second"})),
        ("file-under-file", (TAR,), Case([File("@TOP@a", b"file"), File("@TOP@a/b", b"under")],
                                           skipped={"@TOP@a/b": "parent a is a file"}, files={"a": b"file"})),
        ("case-only-difference", BOTH, Case([File("@TOP@README.md", b"upper"), File("@TOP@readme.md", b"lower")],
                                           files={"README.md": b"upper", "readme.md": b"lower"})),
        # --- names that cannot be shown one per line or addressed (SPEC §2.2)
        ("control-characters", BOTH,
         Case([File("@TOP@new\nline.js", b"x"), File("@TOP@tab\t.js", b"x"), File("@TOP@esc\x1b[2J.js", b"x"),
               File("@TOP@ok.js", b"x")],
              skipped={"@TOP@new\\nline.js": "control characters", "@TOP@tab\\t.js": "control characters",
                       "@TOP@esc\\x1b[2J.js": "control characters"}, files={"ok.js": b"x"})),
        ("non-utf8-name", (TAR,), Case([File("@TOP@bad\udcffname.js", b"x")],
                                     skipped={"@TOP@bad\\xffname.js": "not valid UTF-8"}, files={})),
        ("over-long-component", BOTH, Case([File("@TOP@" + "x" * 300, b"x"), File("@TOP@ok", b"y")],
                                          skipped={"@TOP@" + "x" * 300: "longer than 255 bytes"}, files={"ok": b"y"})),
        ("over-long-path", (TAR,), Case([File("@TOP@" + deep, b"x")],
                                                  skipped={"@TOP@" + deep: "longer than 4095 bytes"}, files={})),
        # --- modes: never setuid, setgid or sticky
        ("setuid-setgid-sticky", BOTH,
         Case([File("@TOP@suid", b"#!/bin/sh\n", 0o4755), File("@TOP@sgid", b"x", 0o2644),
               File("@TOP@sticky", b"x", 0o1600), Dir("@TOP@gdir", 0o2777), File("@TOP@gdir/f", b"f")],
              files={"suid": b"#!/bin/sh\n", "sgid": b"x", "sticky": b"x", "gdir/f": b"f"})),
        # --- bombs: over the limits of SPEC §3 (made small here) is TOO_LARGE, nothing cached
        ("bomb-total-size", BOTH, Case([File(f"@TOP@zeros{i}.bin", b"\0" * 300_000) for i in range(4)],
                                      error=("TOO_LARGE", "CODENAV_MAX_EXTRACTED_BYTES"),
                                      env={"CODENAV_MAX_EXTRACTED_BYTES": "1000000"})),
        # One member over the per-file limit is listed as too large, never written; the rest is served.
        ("bomb-one-file", BOTH, Case([File("@TOP@ok.txt", b"ok"), File("@TOP@zeros.bin", b"\0" * 2_000_000)],
                                    files={"ok.txt": b"ok"}, too_large={"zeros.bin": 2_000_000},
                                    env={"CODENAV_MAX_FILE_BYTES": "1000000"})),
        ("bomb-file-count", BOTH, Case([File(f"@TOP@f{i}.txt", b"") for i in range(200)],
                                      error=("TOO_LARGE", "CODENAV_MAX_FILES"), env={"CODENAV_MAX_FILES": "50"})),
        ("bomb-nested-directories", (TAR,), Case([File("@TOP@" + "d/" * 80 + "deep.txt", b"x")],
                                                           error=("TOO_LARGE", "CODENAV_MAX_FILES"),
                                                           env={"CODENAV_MAX_FILES": "50"})),
        ("bomb-download-size", (TAR,), Case([File("@TOP@noise.bin", _NOISE)],
                                                      error=("TOO_LARGE", "download limit"),
                                                      env={"CODENAV_MAX_DOWNLOAD_BYTES": "20000"})),
        # --- forged bytes the archive modules will not write
        ("zip-overlapping-same-offset", (ZIP,), Case(zip_same_offset_bomb(), error=("UNSAFE_ARCHIVE", "overlap"))),
        ("zip-overlapping-quoted", (ZIP,), Case(zip_quoted_overlap(), error=("UNSAFE_ARCHIVE", "overlap"))),
        ("zip-nul-in-name", (ZIP,),
         Case(replace_in_names(stored_zip([("a_b.py", b"x"), ("keep.py", b"k")]), b"a_b.py", b"a\0b.py"),
              skipped={"a\\x00b.py": "NUL"}, files={"keep.py": b"k"})),
        ("truncated-archive", BOTH, Case([File("@TOP@a.txt", b"a" * 5000), File("@TOP@b.txt", bytes(range(256)) * 64)],
                                        error=("UNSAFE_ARCHIVE", "corrupt"), truncate=True)),
    ]


CASES: list[tuple[str, tuple[str, ...], Case]] = _table()


def cases(kind: str) -> list[tuple[str, Case]]:
    """The shared cases that apply to archives of ``kind`` (``tar`` or ``zip``)."""
    return [(name, case) for name, kinds, case in CASES if kind in kinds]


def fill(text: str, top: str, root: Path) -> str:
    return text.replace("@TOP@", top).replace("@ROOT@", str(root))


def archive(case: Case, kind: str, top: str, root: Path, *, whole: bool = False) -> bytes:
    """The case's archive: a gzipped tar or a zip of its members under ``top`` (forged bytes as
    they are); cut in half for a ``truncate`` case unless ``whole``."""
    if isinstance(case.members, bytes):
        return case.members
    members = []
    for member in case.members:
        copy = type(member)(**vars(member))
        copy.name = fill(copy.name, top, root)
        if isinstance(copy, Symlink | Hardlink):
            copy.target = fill(copy.target, top, root)
        members.append(copy)
    data = build("zip" if kind == ZIP else "tar.gz", members)
    # Cut in the middle: the registry publishes the hash of the cut bytes, so only the
    # extractor can notice (the archive is corrupt, not tampered with).
    return data[: len(data) // 2] if case.truncate and not whole else data


def plant(root: Path) -> None:
    """What a hostile archive would love to reach: a decoy, HOME dotfiles, a neighbour entry."""
    (root / "decoy").mkdir()
    (root / "decoy" / "secret.txt").write_text("secret")
    (root / "home" / ".bashrc").write_text("# mine\n")
    neighbour = root / "cache" / "entries" / NEIGHBOUR_KEY
    (neighbour / "tree" / "lib").mkdir(parents=True)
    (neighbour / "tree" / "lib" / "index.js").write_text("module.exports = 1;\n")
    manifest = {"version": 1, "target": {"registry": "npm", "name": "neighbour", "version": "1.0.0",
                                         "artifact": "neighbour-1.0.0.tgz"},
                "files": [["lib/index.js", 20, "JavaScript", "source", False, None]], "skipped": []}
    (neighbour / "manifest.json").write_text(json.dumps(manifest))
    (root / "cache" / "neighbour.txt").write_text("neighbour")


def listed_files(result: dict, case: Case) -> dict[str, str | None]:
    """The stored files a listing shows (path -> link target), after checking that exactly the
    case's too-large members are listed with their size and ``skipped: "too large"``."""
    assert {f["path"]: (f["size"], f["skipped"]) for f in result["files"] if "skipped" in f} == {
        path: (size, "too large") for path, size in case.too_large.items()}
    return {f["path"]: f.get("linkTarget") for f in result["files"] if "skipped" not in f}


def entry_keys(cache: Path) -> set[str]:
    """Every directory three levels under ``entries/`` (whole or not)."""
    base = cache / "entries"
    return {p.relative_to(base).as_posix() for p in base.glob("*/*/*")}
