"""Hostile archives served by the fake registries, end to end through list_files (SPEC §3).

Each archive is published as an npm tarball (tar.gz, top folder stripped), a PyPI wheel (zip,
listed as is) or a PyPI sdist (tar.gz, its ``{name}-{version}/`` folder removed), and asked
for with ``list_files.run`` — so the real path runs: packument or index, download, hash check,
extraction in the detached indexer, publish. Around each call the whole test directory (HOME,
a decoy directory, the cache with a neighbour entry) is snapshotted; afterwards the only
changes allowed are the new entry's own tree and the cache's bookkeeping files. The outcome is
the specified error (and then nothing cached) or a success whose skipped entries are reported.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from codenav.errors import CodenavError
from codenav.tools import list_files, read_file
from tests.archives import (
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
from tests.fakes.npm import FakeNpm
from tests.fakes.pypi import FakePypi

from .support import changes, check_entry, snapshot

pytestmark = pytest.mark.hardening

NEIGHBOUR_KEY = "npm/neighbour/1.0.0-0123456789abcdef"
ALL = ("npm", "wheel", "sdist")
TARS = ("npm", "sdist")  # hardlinks and non-UTF-8 tar names exist only in tar

# The cache's own bookkeeping may change around a call; nothing else outside the new entry may.
_BOOKKEEPING = re.compile(
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


def _cases() -> list:
    deep = "/".join(["p" * 200] * 21)
    table: list[tuple[str, tuple[str, ...], Case]] = [
        # --- names that climb out or start at / : the whole archive is refused
        ("dotdot-to-test-dir", ALL, Case([File("@TOP@ok.txt", b"ok"), File("@TOP@../../../../../escape.txt", b"x")],
                                         error=("UNSAFE_ARCHIVE", "'..' path segment"))),
        ("dotdot-to-cache-root", ("npm",), Case([File("../../../../escape-cache.txt", b"x")],
                                           error=("UNSAFE_ARCHIVE", "'..' path segment"))),
        ("dotdot-inside-a-name", ("wheel",), Case([File("a/../../../../../../escape.txt", b"x")],
                                                   error=("UNSAFE_ARCHIVE", "'..'"))),
        ("absolute-name", ALL, Case([File("@ROOT@/abs-escape.txt", b"x")],
                                    error=("UNSAFE_ARCHIVE", "absolute path"))),
        # --- links: kept only when they stay inside; never created on disk, never followed
        ("symlink-escaping", ALL, Case([Symlink("@TOP@evil", "../../../../../decoy"), File("@TOP@ok.txt", b"ok")],
                                       skipped={"@TOP@evil": "outside the tree"}, files={"ok.txt": b"ok"})),
        ("symlink-absolute", ("npm", "wheel"), Case([Symlink("@TOP@evil", "@ROOT@/decoy/secret.txt")],
                                       skipped={"@TOP@evil": "absolute"}, files={})),
        ("symlink-chained", ("npm", "wheel"), Case([Symlink("@TOP@d/up", ".."), Symlink("@TOP@esc", "d/up/../decoy"),
                                       File("@TOP@esc/pwned.txt", b"x")],
                                      skipped={"@TOP@d/up": "top of the tree", "@TOP@esc": "outside the tree",
                                               "@TOP@esc/pwned.txt": "is a symlink"}, files={})),
        ("write-through-escaping-dir-link", ALL,
         Case([Symlink("@TOP@lnk", "../../../../../decoy"), File("@TOP@lnk/pwned.txt", b"x")],
              skipped={"@TOP@lnk": "outside the tree", "@TOP@lnk/pwned.txt": "parent lnk is a symlink"}, files={})),
        ("write-through-inside-dir-link", ("npm",),
         Case([Dir("@TOP@real"), Symlink("@TOP@lnk", "real"), File("@TOP@lnk/x.txt", b"x")],
              skipped={"@TOP@lnk/x.txt": "parent lnk is a symlink"}, files={"lnk": "real"})),
        ("hardlink-escaping", TARS, Case([Hardlink("@TOP@h", "../../../../../decoy/secret.txt")],
                                         skipped={"@TOP@h": "outside the tree"}, files={})),
        ("hardlink-absolute", ("npm",), Case([Hardlink("@TOP@h", "@ROOT@/decoy/secret.txt")],
                                         skipped={"@TOP@h": "absolute"}, files={})),
        ("hardlink-chained-through-symlink", ("sdist",),
         Case([Symlink("@TOP@s", "@ROOT@/decoy/secret.txt"), Hardlink("@TOP@h", "@TOP@s")],
              skipped={"@TOP@s": "absolute", "@TOP@h": "not a file extracted before it"}, files={})),
        # --- special files are never created
        ("char-device", ALL, Case([Special("@TOP@null", "chr"), File("@TOP@ok", b"")],
                                  skipped={"@TOP@null": "character device"}, files={"ok": b""})),
        ("block-device", ("npm",), Case([Special("@TOP@sda", "blk")], skipped={"@TOP@sda": "block device"}, files={})),
        ("fifo", ("wheel", "sdist"), Case([Special("@TOP@pipe", "fifo")], skipped={"@TOP@pipe": "FIFO"}, files={})),
        # --- duplicates and case: last wins and says so; case-only names are distinct files
        ("duplicate-entries", ALL, Case([File("@TOP@x.txt", b"first"), File("@TOP@x.txt", b"second")],
                                        skipped={"@TOP@x.txt": "duplicate path"}, files={"x.txt": b"second"})),
        ("file-under-file", ("npm",), Case([File("@TOP@a", b"file"), File("@TOP@a/b", b"under")],
                                           skipped={"@TOP@a/b": "parent a is a file"}, files={"a": b"file"})),
        ("case-only-difference", ("npm", "wheel"), Case([File("@TOP@README.md", b"upper"), File("@TOP@readme.md", b"lower")],
                                           files={"README.md": b"upper", "readme.md": b"lower"})),
        # --- names that cannot be shown one per line or addressed (SPEC §2.2)
        ("control-characters", ALL,
         Case([File("@TOP@new\nline.js", b"x"), File("@TOP@tab\t.js", b"x"), File("@TOP@esc\x1b[2J.js", b"x"),
               File("@TOP@ok.js", b"x")],
              skipped={"@TOP@new\\nline.js": "control characters", "@TOP@tab\\t.js": "control characters",
                       "@TOP@esc\\x1b[2J.js": "control characters"}, files={"ok.js": b"x"})),
        ("non-utf8-name", ("npm",), Case([File("@TOP@bad\udcffname.js", b"x")],
                                     skipped={"@TOP@bad\\xffname.js": "not valid UTF-8"}, files={})),
        ("over-long-component", ("npm", "wheel"), Case([File("@TOP@" + "x" * 300, b"x"), File("@TOP@ok", b"y")],
                                          skipped={"@TOP@" + "x" * 300: "longer than 255 bytes"}, files={"ok": b"y"})),
        ("over-long-path", ("npm",), Case([File("@TOP@" + deep, b"x")],
                                                  skipped={"@TOP@" + deep: "longer than 4095 bytes"}, files={})),
        # --- modes: never setuid, setgid or sticky
        ("setuid-setgid-sticky", ALL,
         Case([File("@TOP@suid", b"#!/bin/sh\n", 0o4755), File("@TOP@sgid", b"x", 0o2644),
               File("@TOP@sticky", b"x", 0o1600), Dir("@TOP@gdir", 0o2777), File("@TOP@gdir/f", b"f")],
              files={"suid": b"#!/bin/sh\n", "sgid": b"x", "sticky": b"x", "gdir/f": b"f"})),
        # --- per-registry folder rules never become a way out
        ("npm-member-outside-the-top-folder", ("npm",), Case([File("index.js", b"top"), File("@TOP@a.js", b"a")],
                                                             skipped={"index.js": "nothing is left"},
                                                             files={"a.js": b"a"})),
        ("sdist-member-outside-its-folder", ("sdist",), Case([File("@TOP@setup.py", b"s"), File("other/evil.py", b"e")],
                                                              skipped={"other/evil.py": "outside the"},
                                                              files={"setup.py": b"s"})),
        # --- bombs: over the limits of SPEC §3 (made small here) is TOO_LARGE, nothing cached
        ("bomb-total-size", ALL, Case([File(f"@TOP@zeros{i}.bin", b"\0" * 300_000) for i in range(4)],
                                      error=("TOO_LARGE", "CODENAV_MAX_EXTRACTED_BYTES"),
                                      env={"CODENAV_MAX_EXTRACTED_BYTES": "1000000"})),
        # One member over the per-file limit is listed as too large, never written; the rest is served.
        ("bomb-one-file", ALL, Case([File("@TOP@ok.txt", b"ok"), File("@TOP@zeros.bin", b"\0" * 2_000_000)],
                                    files={"ok.txt": b"ok"}, too_large={"zeros.bin": 2_000_000},
                                    env={"CODENAV_MAX_FILE_BYTES": "1000000"})),
        ("bomb-file-count", ALL, Case([File(f"@TOP@f{i}.txt", b"") for i in range(200)],
                                      error=("TOO_LARGE", "CODENAV_MAX_FILES"), env={"CODENAV_MAX_FILES": "50"})),
        ("bomb-nested-directories", ("npm",), Case([File("@TOP@" + "d/" * 80 + "deep.txt", b"x")],
                                                           error=("TOO_LARGE", "CODENAV_MAX_FILES"),
                                                           env={"CODENAV_MAX_FILES": "50"})),
        ("bomb-download-size", ("npm",), Case([File("@TOP@noise.bin", _NOISE)],
                                                      error=("TOO_LARGE", "download limit"),
                                                      env={"CODENAV_MAX_DOWNLOAD_BYTES": "20000"})),
        # --- forged bytes the archive modules will not write
        ("zip-overlapping-same-offset", ("wheel",), Case(zip_same_offset_bomb(), error=("UNSAFE_ARCHIVE", "overlap"))),
        ("zip-overlapping-quoted", ("wheel",), Case(zip_quoted_overlap(), error=("UNSAFE_ARCHIVE", "overlap"))),
        ("zip-nul-in-name", ("wheel",),
         Case(replace_in_names(stored_zip([("a_b.py", b"x"), ("keep.py", b"k")]), b"a_b.py", b"a\0b.py"),
              skipped={"a\\x00b.py": "NUL"}, files={"keep.py": b"k"})),
        ("truncated-archive", ("npm", "wheel"), Case([File("@TOP@a.txt", b"a" * 5000), File("@TOP@b.txt", bytes(range(256)) * 64)],
                                        error=("UNSAFE_ARCHIVE", "corrupt"), truncate=True)),
    ]
    params = []
    for name, formats, case in table:
        for fmt in formats:
            params.append(pytest.param(fmt, case, id=f"{name}-{fmt}"))
    return params


# --- publishing a case ------------------------------------------------------------------------


def _top(fmt: str, project: str) -> str:
    return {"npm": "package/", "sdist": f"{project}-1.0/", "wheel": ""}[fmt]


def _fill(text: str, top: str, root: Path) -> str:
    return text.replace("@TOP@", top).replace("@ROOT@", str(root))


def _archive(case: Case, fmt: str, top: str, root: Path) -> bytes:
    if isinstance(case.members, bytes):
        return case.members
    members = []
    for member in case.members:
        copy = type(member)(**vars(member))
        copy.name = _fill(copy.name, top, root)
        if isinstance(copy, Symlink | Hardlink):
            copy.target = _fill(copy.target, top, root)
        members.append(copy)
    data = build("zip" if fmt == "wheel" else "tar.gz", members)
    # Cut in the middle: the registry publishes the hash of the cut bytes, so only the
    # extractor can notice (the archive is corrupt, not tampered with).
    return data[: len(data) // 2] if case.truncate else data


def _publish(fmt: str, data: bytes, npm: FakeNpm, pypi: FakePypi, project: str) -> dict:
    if fmt == "npm":
        npm.publish(project, "1.0.0", {}, tarball=data)
        return {"registry": "npm", "package_name": project, "version": "1.0.0"}
    filename = f"{project}-1.0.tar.gz" if fmt == "sdist" else f"{project}-1.0-py3-none-any.whl"
    pypi.add(project, filename, data)
    return {"registry": "pypi", "package_name": project, "version": "1.0"}


def _plant(root: Path) -> None:
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


def _entries(cache: Path) -> set[str]:
    base = cache / "entries"
    return {p.relative_to(base).as_posix() for p in base.glob("*/*/*")}


# --- the test ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("fmt", "case"), _cases())
def test_hostile_archive_from_the_registry_never_escapes_the_entry(
    fmt: str, case: Case, request: pytest.FixtureRequest, tmp_path: Path, npm: FakeNpm, pypi: FakePypi,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A crafted archive is refused (nothing cached) or its bad entries are skipped and reported;
    nothing outside the new entry's tree appears or changes."""
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    project = "hostile" + re.sub(r"[^a-z0-9]", "", request.node.callspec.id.lower())[-40:]
    top = _top(fmt, project)
    args = _publish(fmt, _archive(case, fmt, top, tmp_path), npm, pypi, project)
    _plant(tmp_path)
    cache = tmp_path / "cache"
    before = snapshot(tmp_path)

    try:
        result: dict | CodenavError = list_files.run(args)
    except CodenavError as exc:
        result = exc

    new = sorted(_entries(cache) - {NEIGHBOUR_KEY})
    after = snapshot(tmp_path, skip=tuple(cache / "entries" / key for key in new))
    unexpected = {path: how for path, how in changes(before, after).items() if not _BOOKKEEPING.match(path)}
    assert unexpected == {}, "something outside the new entry appeared or changed"
    assert (tmp_path / "decoy" / "secret.txt").read_text() == "secret"
    assert sorted(p.name for p in (cache / "tmp").iterdir()) == ["indexer.log"], "build debris left behind"

    if case.error is not None:
        code, fragment = case.error
        assert isinstance(result, CodenavError), f"expected {code}, got a listing"
        assert (result.code, result.retryable) == (code, False), result.message
        assert fragment in result.message
        assert str(tmp_path) not in result.message  # SPEC §4: no absolute paths
        assert new == [] and not any((cache / "aliases").glob("*")), "a refused archive left an entry or alias"
        return

    assert not isinstance(result, CodenavError), result.message
    assert len(new) == 1
    entry = cache / "entries" / new[0]
    manifest = check_entry(entry)
    expected_skips = {_fill(k, top, tmp_path): v for k, v in case.skipped.items()}
    got_skips = {item["path"]: item["reason"] for item in manifest["skipped"]}
    assert set(got_skips) == set(expected_skips), got_skips
    for name, fragment in expected_skips.items():
        assert fragment in got_skips[name], (name, got_skips[name])
    if expected_skips:
        assert result["skipped"]["count"] == len(expected_skips)
        assert result["skipped"]["examples"] == manifest["skipped"][:5]
    else:
        assert "skipped" not in result
    listed = listed_files(result, case)
    for path in case.too_large:
        assert not (entry / "tree" / path).exists()
        with pytest.raises(CodenavError) as refused:
            read_file.run({**args, "path": path})
        assert refused.value.code == "TOO_LARGE" and "CODENAV_MAX_FILE_BYTES" in refused.value.message
    assert case.files is not None
    assert set(listed) == set(case.files)
    for path, expected in case.files.items():
        if isinstance(expected, str):
            assert listed[path] == expected and not (entry / "tree" / path).exists()
        else:
            assert listed[path] is None and (entry / "tree" / path).read_bytes() == expected
