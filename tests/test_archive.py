"""Safe archive extraction (SPEC §2.2, §3): hostile tar, tar.gz and zip archives never write
outside the entry directory; they are rejected or their bad entries are skipped and reported."""

from __future__ import annotations

import errno
import io
import os
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from codenav.archive import CHUNK_SIZE, Extracted, FileEntry, Limits, extract
from codenav.errors import CodenavError
from tests.support.archives import (
    FORMATS,
    Dir,
    File,
    Hardlink,
    Member,
    Special,
    Symlink,
    build,
    replace_in_names,
    set_central_flag,
    stored_zip,
    tar_bytes,
    zip_bytes,
    zip_quoted_overlap,
    zip_same_offset_bomb,
)

hostile = pytest.mark.hardening


@pytest.fixture(autouse=True, params=["written here", "written by the helper process"])
def file_writer(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test runs twice: small files created by this process, and (as past WRITER_AFTER
    files in a real package) all of them handed to archive/filewriter.py."""
    if request.param == "written by the helper process":
        monkeypatch.setattr("codenav.archive.tree.WRITER_AFTER", 0)
    return request.param

TAR_FORMATS = ("tar.gz", "tar")


# --- the sandbox ------------------------------------------------------------------------------


@dataclass
class Sandbox:
    root: Path  # everything the test owns; snapshotted around each extraction
    dest: Path  # the entry being built: the only place writes may land
    decoy: Path  # a directory outside dest that hostile links aim at


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    root = tmp_path / "sandbox"
    dest = root / "cache" / "entry" / "build"
    dest.mkdir(parents=True)
    decoy = root / "decoy"
    decoy.mkdir()
    (decoy / "secret.txt").write_text("secret")
    (root / "cache" / "neighbour.txt").write_text("neighbour")
    (root / "cache" / "entry" / "escape.txt").write_text("already here")
    return Sandbox(root, dest, decoy)


def snapshot(top: Path, skip: Path) -> dict[str, tuple]:
    """Every path under ``top`` except ``skip``'s subtree, with its kind, size, mode and mtime."""
    seen: dict[str, tuple] = {}
    for current, dirs, files in os.walk(top, followlinks=False):
        here = Path(current)
        dirs[:] = [name for name in dirs if here / name != skip]
        for name in [*dirs, *files]:
            path = here / name
            info = path.lstat()
            seen[str(path.relative_to(top))] = (stat.S_IFMT(info.st_mode), info.st_size, info.st_mode,
                                                info.st_mtime_ns)
        seen[str(here.relative_to(top))] = ("dir", here.lstat().st_mtime_ns)
    return seen


def on_disk(dest: Path, planted: frozenset[str] = frozenset()) -> dict[str, bytes]:
    """The regular files under dest, by relative path; asserts nothing else is there.

    ``planted`` names paths a test put in dest itself (they are left out).
    """
    found: dict[str, bytes] = {}
    for current, dirs, files in os.walk(dest, followlinks=False):
        for name in [*dirs, *files]:
            path = Path(current) / name
            if str(path.relative_to(dest)) in planted:
                continue
            mode = path.lstat().st_mode
            assert stat.S_ISDIR(mode) or stat.S_ISREG(mode), f"{path} is neither a file nor a directory"
            assert not mode & (stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX), f"{path} has a special bit"
            if stat.S_ISREG(mode):
                found[str(path.relative_to(dest))] = path.read_bytes()
    return found


def run(sandbox: Sandbox, data: bytes, fmt: str, planted: frozenset[str] = frozenset(),
        **options) -> Extracted | CodenavError:
    """Extract ``data`` into the sandbox's dest; prove nothing outside dest changed."""
    archive = sandbox.root / ("archive." + fmt)
    archive.write_bytes(data)
    before = snapshot(sandbox.root.parent, sandbox.dest)
    try:
        outcome: Extracted | CodenavError = extract(archive, sandbox.dest, fmt="zip" if fmt == "zip" else "tar",
                                                    **options)
    except CodenavError as exc:
        outcome = exc
        assert str(sandbox.root) not in exc.message, exc.message  # SPEC §4: no absolute paths
    assert snapshot(sandbox.root.parent, sandbox.dest) == before
    assert (sandbox.decoy / "secret.txt").read_text() == "secret"
    on_disk(sandbox.dest, planted)  # only files and directories, no special bits
    return outcome


def reasons(result: Extracted) -> dict[str, str]:
    return {item["path"]: item["reason"] for item in result.skipped}


def entries(result: Extracted) -> dict[str, FileEntry]:
    return {entry.path: entry for entry in result.files}


# --- the hostile table ------------------------------------------------------------------------

ABS = "@ROOT@/abs-escape.txt"  # an absolute name inside the sandbox, so the snapshot would see it


@dataclass
class Case:
    members: list[Member]
    error: tuple[str, str] | None = None  # (code, message fragment)
    skipped: dict[str, str] | None = None  # printable member name -> reason fragment
    files: dict[str, bytes | str] | None = None  # path -> content, or the link target (str)
    options: dict | None = None


def _cases() -> list:
    """Each case is run in every format it names; ``hostile`` cases prove containment."""
    table: list[tuple[str, tuple[str, ...], Case]] = [
        ("dotdot", FORMATS, Case([File("ok.txt", b"ok"), File("../../escape.txt", b"pwned")],
                                 error=("UNSAFE_ARCHIVE", "'../../escape.txt' has a '..' path segment"))),
        ("dotdot-nested", FORMATS, Case([File("pkg/../../../escape.txt", b"pwned")],
                                        error=("UNSAFE_ARCHIVE", "'..' path segment"))),
        ("dotdot-inside-still-refused", ("zip",), Case([File("a/../b.txt", b"x")], error=("UNSAFE_ARCHIVE", "'..'"))),
        ("dotdot-after-strip", ("tar.gz",), Case([File("package/../../escape.txt", b"x")],
                                                 error=("UNSAFE_ARCHIVE", "'..'"), options={"strip_components": 1})),
        ("absolute", FORMATS, Case([File(ABS, b"pwned")], error=("UNSAFE_ARCHIVE", "has an absolute path"))),
        ("symlink-escaping", FORMATS, Case([Symlink("evil", "../../../decoy"), File("ok.txt", b"ok")],
                                           skipped={"evil": "outside the tree"}, files={"ok.txt": b"ok"})),
        ("symlink-absolute", FORMATS, Case([Symlink("evil", "@ROOT@/decoy/secret.txt")],
                                           skipped={"evil": "absolute"}, files={})),
        ("symlink-chain-through-parent", FORMATS,
         Case([Symlink("a/up", ".."), Symlink("b", "a/up/../decoy")],
              skipped={"b": "outside the tree", "a/up": "top of the tree"}, files={})),
        ("symlink-chain-to-escaping-link", TAR_FORMATS,
         Case([Symlink("l1", "l2/secret.txt"), Symlink("l2", "../../../decoy")],
              skipped={"l1": "outside the tree", "l2": "outside the tree"}, files={})),
        ("symlink-inside-kept", FORMATS,
         Case([File("lib/index.js", b"x"), Symlink("main.js", "lib/index.js"), Symlink("lib/self.js", "./index.js")],
              files={"lib/index.js": b"x", "main.js": "lib/index.js", "lib/self.js": "lib/index.js"})),
        ("symlink-chain-inside-resolved", ("tar.gz",),
         Case([File("real/file.txt", b"x"), Symlink("c", "b"), Symlink("b", "real/./file.txt")],
              files={"real/file.txt": b"x", "b": "real/file.txt", "c": "real/file.txt"})),
        ("symlink-loop", ("tar",), Case([Symlink("x", "y"), Symlink("y", "x")],
                                        skipped={"x": "loop", "y": "loop"}, files={})),
        ("write-through-escaping-dir-link", FORMATS,
         Case([Symlink("lnk", "../../../decoy"), File("lnk/pwn.txt", b"pwned")],
              skipped={"lnk": "outside the tree", "lnk/pwn.txt": "parent lnk is a symlink"}, files={})),
        ("write-through-inside-dir-link", FORMATS,
         Case([Dir("real"), Symlink("lnk", "real"), File("lnk/x.txt", b"x")],
              skipped={"lnk/x.txt": "parent lnk is a symlink"}, files={"lnk": "real"})),
        ("dir-link-after-dir", ("tar.gz",),
         Case([File("lib/a.js", b"a"), Symlink("lib", "../../../decoy"), File("lib/b.js", b"b")],
              skipped={"lib": "conflicts with an earlier directory"}, files={"lib/a.js": b"a", "lib/b.js": b"b"})),
        ("hardlink-escaping", TAR_FORMATS, Case([Hardlink("h", "../../../decoy/secret.txt")],
                                                skipped={"h": "outside the tree"}, files={})),
        ("hardlink-absolute", TAR_FORMATS, Case([Hardlink("h", "@ROOT@/decoy/secret.txt")],
                                                skipped={"h": "absolute"}, files={})),
        ("hardlink-dangling", TAR_FORMATS, Case([Hardlink("h", "nothere.txt"), File("nothere.txt", b"late")],
                                                skipped={"h": "not a file extracted before it"},
                                                files={"nothere.txt": b"late"})),
        ("hardlink-inside-copied", TAR_FORMATS, Case([File("a/orig.txt", b"shared"), Hardlink("b/copy.txt", "a/orig.txt")],
                                                     files={"a/orig.txt": b"shared", "b/copy.txt": b"shared"})),
        ("hardlink-to-symlink", TAR_FORMATS, Case([File("f", b"x"), Symlink("s", "f"), Hardlink("h", "s")],
                                                  skipped={"h": "not a file"}, files={"f": b"x", "s": "f"})),
        ("char-device", FORMATS, Case([Special("dev/null", "chr"), File("ok", b"")],
                                      skipped={"dev/null": "character device"}, files={"ok": b""})),
        ("block-device", FORMATS, Case([Special("sda", "blk")], skipped={"sda": "block device"}, files={})),
        ("fifo", FORMATS, Case([Special("pipe", "fifo")], skipped={"pipe": "FIFO"}, files={})),
        ("file-under-file", FORMATS, Case([File("a", b"file"), File("a/b", b"under")],
                                          skipped={"a/b": "parent a is a file"}, files={"a": b"file"})),
        ("file-over-dir", FORMATS, Case([Dir("d"), File("d/in", b"in"), File("d", b"over")],
                                        skipped={"d": "conflicts with an earlier directory"}, files={"d/in": b"in"})),
        ("dir-over-file", TAR_FORMATS, Case([File("d", b"file"), Dir("d")],
                                            skipped={"d": "conflicts with an earlier file"}, files={"d": b"file"})),
        ("duplicate-last-wins", FORMATS, Case([File("x.txt", b"first"), File("x.txt", b"second")],
                                              skipped={"x.txt": "duplicate path"}, files={"x.txt": b"second"})),
        ("case-only-both-kept", FORMATS, Case([File("README", b"upper"), File("readme", b"lower")],
                                              files={"README": b"upper", "readme": b"lower"})),
        ("control-characters", FORMATS,
         Case([File("new\nline.txt", b"x"), File("tab\there.txt", b"x"), File("esc\x1b[31m.txt", b"x"),
               File("del\x7f.txt", b"x"), File("c1\x85.txt", b"x"), File("ls\u2028.txt", b"x"), File("ok.txt", b"x")],
              skipped={"new\\nline.txt": "control characters", "tab\\there.txt": "control characters",
                       "esc\\x1b[31m.txt": "control characters", "del\\x7f.txt": "control characters",
                       "c1\\x85.txt": "control characters", "ls\\u2028.txt": "control characters"},
              files={"ok.txt": b"x"})),
        ("invalid-utf8-name", TAR_FORMATS, Case([File("bad\udcffname.txt", b"x")],
                                                skipped={"bad\\xffname.txt": "not valid UTF-8"}, files={})),
        ("backslash-name", FORMATS, Case([File("..\\..\\evil.txt", b"x")],
                                         skipped={"..\\\\..\\\\evil.txt": "backslash"}, files={})),
        ("long-component", FORMATS, Case([File("d/" + "x" * 256, b"x"), File("d/" + "y" * 255, b"y")],
                                         skipped={"d/" + "x" * 256: "longer than 255 bytes"},
                                         files={"d/" + "y" * 255: b"y"})),
        ("long-path", FORMATS, Case([File("/".join(["p" * 200] * 21), b"x")],
                                    skipped={"/".join(["p" * 200] * 21): "longer than 4095 bytes"}, files={})),
        ("setuid-stripped", FORMATS,
         Case([File("suid", b"#!/bin/sh\n", 0o4755), File("sgid", b"x", 0o2644), File("sticky", b"x", 0o1600)],
              files={"suid": b"#!/bin/sh\n", "sgid": b"x", "sticky": b"x"})),
        ("npm-strip-any-top-folder", TAR_FORMATS,
         Case([Dir("node"), File("node/package.json", b"{}"), File("./node/lib/x.js", b"x"), File("README", b"top")],
              skipped={"README": "nothing is left"}, files={"package.json": b"{}", "lib/x.js": b"x"},
              options={"strip_components": 1})),
        ("npm-strip-weird-top-folder-name", ("tar.gz",),
         Case([File("pack\nage/index.js", b"x")], files={"index.js": b"x"}, options={"strip_components": 1})),
        ("sdist-required-prefix", FORMATS,
         Case([Dir("requests-2.32.3"), File("requests-2.32.3/setup.py", b"s"), File("other/evil.py", b"e"),
               File("requests-2.32.3-extra/x.py", b"x")],
              skipped={"other/evil.py": "outside the requests-2.32.3/ folder",
                       "requests-2.32.3-extra/x.py": "outside the requests-2.32.3/ folder"},
              files={"setup.py": b"s"}, options={"required_prefix": "requests-2.32.3/"})),
        ("empty-files", FORMATS, Case([File("empty.txt", b""), File("dir/.keep", b"")],
                                      files={"empty.txt": b"", "dir/.keep": b""})),
        ("over-file-count", FORMATS, Case([File(f"f{i}.txt", b"x") for i in range(10)],
                                          error=("TOO_LARGE", "more than 5"), options={"limits": Limits(max_files=5)})),
        ("over-total-size", FORMATS, Case([File(f"f{i}.bin", b"z" * 400) for i in range(3)],
                                          error=("TOO_LARGE", "more than 1000 bytes"),
                                          options={"limits": Limits(max_total_bytes=1000)})),
        ("sdist-folder-unrelated", FORMATS,
         Case([File("something-else-1.0/setup.py", b"s")],
              error=("PROTOCOL_ERROR", "no requests-2.32.3/ folder, which its name promises (found something-else-1.0/)"),
              options={"required_prefix": "requests-2.32.3/"})),
        ("implied-dirs-count", ("tar.gz",), Case([File("/".join("abcdefgh") + "/deep.txt", b"x")],
                                                 error=("TOO_LARGE", "entries"),
                                                 options={"limits": Limits(max_files=5)})),
    ]
    params = []
    for name, formats, case in table:
        for fmt in formats:
            params.append(pytest.param(fmt, case, id=f"{name}-{fmt}"))
    return params


def _rooted(text: str, sandbox: Sandbox) -> str:
    return text.replace("@ROOT@", str(sandbox.root))


def _materialize(case: Case, sandbox: Sandbox) -> list[Member]:
    members = []
    for member in case.members:
        copy = type(member)(**vars(member))
        copy.name = _rooted(copy.name, sandbox)
        if isinstance(copy, Symlink | Hardlink):
            copy.target = _rooted(copy.target, sandbox)
        members.append(copy)
    return members


@hostile
@pytest.mark.parametrize(("fmt", "case"), _cases())
def test_hostile_archive_never_writes_outside_dest(sandbox: Sandbox, fmt: str, case: Case) -> None:
    """Each crafted archive is rejected or its bad entries skipped and reported; nothing lands outside dest."""
    outcome = run(sandbox, build(fmt, _materialize(case, sandbox)), fmt, **(case.options or {}))
    if case.error:
        code, fragment = case.error
        assert isinstance(outcome, CodenavError), f"expected {code}, got {outcome}"
        assert (outcome.code, fragment in outcome.message) == (code, True), outcome.message
        return
    assert isinstance(outcome, Extracted), outcome
    got = reasons(outcome)
    for name, fragment in (case.skipped or {}).items():
        assert fragment in got.get(name, "<not skipped>"), (name, got)
    assert set(got) == set(case.skipped or {}), got
    if case.files is not None:
        listed = entries(outcome)
        assert set(listed) == set(case.files)
        disk = on_disk(sandbox.dest)
        for path, expected in case.files.items():
            if isinstance(expected, str):
                assert listed[path] == FileEntry(path, 0, False, expected)
                assert path not in disk
            else:
                assert disk[path] == expected
                assert (listed[path].size, listed[path].link) == (len(expected), None)
        assert set(disk) == {path for path, value in case.files.items() if isinstance(value, bytes)}


# --- hostile cases that need bytes tarfile/zipfile will not write -----------------------------


@hostile
@pytest.mark.parametrize("maker", [zip_same_offset_bomb, zip_quoted_overlap], ids=["same-offset", "quoted-overlap"])
def test_zip_with_overlapping_entries_is_unsafe(sandbox: Sandbox, maker) -> None:
    """Zip entries whose local records overlap (the non-recursive zip bomb) reject the archive before any write."""
    outcome = run(sandbox, maker(), "zip")
    assert isinstance(outcome, CodenavError)
    assert outcome.code == "UNSAFE_ARCHIVE" and "overlap" in outcome.message
    assert on_disk(sandbox.dest) == {}


@hostile
def test_zip_name_with_nul_is_skipped(sandbox: Sandbox) -> None:
    """A zip name holding a NUL byte (which zipfile would silently cut) is skipped and reported."""
    data = replace_in_names(stored_zip([("a_b.txt", b"x"), ("a", b"keep")]), b"a_b.txt", b"a\0b.txt")
    outcome = run(sandbox, data, "zip")
    assert isinstance(outcome, Extracted)
    assert reasons(outcome) == {"a\\x00b.txt": "the name holds a NUL byte"}
    assert on_disk(sandbox.dest) == {"a": b"keep"}


@hostile
def test_zip_name_not_utf8_without_flag_is_skipped(sandbox: Sandbox) -> None:
    """A zip name whose raw bytes are not UTF-8 is skipped and reported, never guessed as cp437."""
    data = replace_in_names(stored_zip([("bad_name.txt", b"x")]), b"bad_name", b"bad\xffname")
    outcome = run(sandbox, data, "zip")
    assert isinstance(outcome, Extracted)
    assert reasons(outcome) == {"bad\\xffname.txt": "the name is not valid UTF-8"}


def test_zip_utf8_name_without_flag_is_read_as_utf8(sandbox: Sandbox) -> None:
    """A zip name written in UTF-8 without the UTF-8 flag (common) is kept as UTF-8."""
    data = replace_in_names(stored_zip([("caf__.txt", b"x")]), b"caf__", "café".encode())
    outcome = run(sandbox, data, "zip")
    assert isinstance(outcome, Extracted)
    assert [entry.path for entry in outcome.files] == ["café.txt"]


@hostile
def test_zip_name_flagged_utf8_but_invalid_is_a_corrupt_archive(sandbox: Sandbox) -> None:
    """A name flagged UTF-8 whose bytes are not UTF-8 makes the zip unreadable: UNSAFE_ARCHIVE, corrupt."""
    data = replace_in_names(stored_zip([("b_d.txt", b"x")]), b"b_d", b"b\xffd")
    data = set_central_flag(data, b"b\xffd.txt", 0x800)
    outcome = run(sandbox, data, "zip")
    assert isinstance(outcome, CodenavError)
    assert outcome.code == "UNSAFE_ARCHIVE" and "corrupt" in outcome.message


@hostile
def test_zip_entry_with_bad_crc_is_an_integrity_error(sandbox: Sandbox) -> None:
    """A zip member whose bytes do not match its CRC-32 is INTEGRITY_ERROR naming the member."""
    data = stored_zip([("hello.txt", b"hello world")]).replace(b"hello world", b"jello world")
    outcome = run(sandbox, data, "zip")
    assert isinstance(outcome, CodenavError)
    assert outcome.code == "INTEGRITY_ERROR" and "'hello.txt'" in outcome.message


@hostile
def test_encrypted_zip_entry_is_skipped(sandbox: Sandbox) -> None:
    """An encrypted zip entry is skipped and reported; the others are extracted."""
    data = set_central_flag(stored_zip([("secret.txt", b"xx"), ("open.txt", b"ok")]), b"secret.txt", 0x1)
    outcome = run(sandbox, data, "zip")
    assert isinstance(outcome, Extracted)
    assert reasons(outcome) == {"secret.txt": "the entry is encrypted"}
    assert on_disk(sandbox.dest) == {"open.txt": b"ok"}


@hostile
@pytest.mark.parametrize(("fmt", "cut"), [("tar.gz", "half"), ("tar.gz", "trailer"), ("tar", "half"),
                                          ("zip", "half"), ("zip", "garbage")])
def test_truncated_or_garbage_archive_is_corrupt(sandbox: Sandbox, fmt: str, cut: str) -> None:
    """A truncated gzip (even one missing only its CRC trailer), tar or zip is UNSAFE_ARCHIVE saying it is corrupt."""
    data = build(fmt, [File("a.bin", os.urandom(50_000)), File("b.txt", b"b" * 50_000)])
    data = {"half": data[: len(data) // 2], "trailer": data[:-8], "garbage": b"not an archive at all" * 10}[cut]
    outcome = run(sandbox, data, fmt)
    assert isinstance(outcome, CodenavError)
    assert outcome.code == "UNSAFE_ARCHIVE" and "corrupt" in outcome.message


@hostile
def test_gzip_bomb_stops_before_writing(sandbox: Sandbox) -> None:
    """A small tar.gz declaring 16 MiB of zeros is, from its header alone, listed as too large over the
    per-file limit and TOO_LARGE over the total limit (tar decompresses what it skips); no byte of it is written."""
    data = tar_bytes([File("zeros.bin", bytes(16 << 20))])
    assert len(data) < 100_000
    outcome = run(sandbox, data, "tar.gz", limits=Limits(max_file_bytes=1 << 20))
    assert isinstance(outcome, Extracted)
    assert outcome.files == [FileEntry("zeros.bin", 16 << 20, False, None)]
    assert outcome.files[0].skipped == "too large"
    assert on_disk(sandbox.dest) == {}
    outcome = run(sandbox, data, "tar.gz", limits=Limits(max_file_bytes=1 << 20, max_total_bytes=1 << 20))
    assert isinstance(outcome, CodenavError) and outcome.code == "TOO_LARGE"
    assert "CODENAV_MAX_EXTRACTED_BYTES" in outcome.message
    assert on_disk(sandbox.dest) == {}


@pytest.mark.parametrize("fmt", FORMATS)
def test_member_over_the_file_limit_is_listed_not_written(sandbox: Sandbox, fmt: str) -> None:
    """One member over the per-file limit is listed with its size and skipped "too large"; the others are written."""
    members: list[Member] = [File("ok.txt", b"ok"), File("big.bin", b"\0" * 2000), File("z.txt", b"z")]
    outcome = run(sandbox, build(fmt, members), fmt, limits=Limits(max_file_bytes=1000))
    assert isinstance(outcome, Extracted), outcome
    assert [(f.path, f.size, f.skipped) for f in outcome.files] == [
        ("big.bin", 2000, "too large"), ("ok.txt", 2, None), ("z.txt", 1, None)]
    assert on_disk(sandbox.dest) == {"ok.txt": b"ok", "z.txt": b"z"}
    assert outcome.skipped == []


def test_zip_member_over_the_file_limit_does_not_count_towards_the_total(sandbox: Sandbox) -> None:
    """A zip member over the per-file limit is never read, so it does not count towards the extracted total; a tar one does."""
    members: list[Member] = [File("ok.txt", b"o" * 600), File("big.bin", b"\0" * 2000)]
    limits = Limits(max_file_bytes=1000, max_total_bytes=1500)
    outcome = run(sandbox, build("zip", members), "zip", limits=limits)
    assert isinstance(outcome, Extracted) and entries(outcome)["big.bin"].skipped == "too large"
    outcome = run(sandbox, build("tar.gz", members), "tar.gz", limits=limits)
    assert isinstance(outcome, CodenavError) and outcome.code == "TOO_LARGE"


@pytest.mark.parametrize("fmt", FORMATS)
def test_sdist_folder_spelled_otherwise_is_taken_when_it_is_the_same(sandbox: Sandbox, fmt: str) -> None:
    """A top folder that ``same_folder`` accepts stands for the required prefix; other top folders stay outside."""
    members: list[Member] = [File("ruamel.yaml.clib-0.2.15/setup.py", b"s"), File("stray/x.py", b"x")]
    outcome = run(sandbox, build(fmt, members), fmt, required_prefix="ruamel_yaml_clib-0.2.15/",
                  same_folder=lambda found: found == "ruamel.yaml.clib-0.2.15")
    assert isinstance(outcome, Extracted), outcome
    assert [f.path for f in outcome.files] == ["setup.py"]
    assert reasons(outcome) == {"stray/x.py": "outside the ruamel.yaml.clib-0.2.15/ folder"}


@hostile
@pytest.mark.parametrize("fmt", FORMATS)
def test_total_limit_stops_streaming_early(sandbox: Sandbox, fmt: str) -> None:
    """Over the total limit, extraction stops at the member that crosses it: what is on disk stays under the limit."""
    members: list[Member] = [File(f"f{i}.bin", b"z" * 300) for i in range(10)]
    outcome = run(sandbox, build(fmt, members), fmt, limits=Limits(max_total_bytes=1000))
    assert isinstance(outcome, CodenavError) and outcome.code == "TOO_LARGE"
    written = sum(len(data) for data in on_disk(sandbox.dest).values())
    assert written <= 1000
    if fmt == "zip":
        assert written == 0  # every size is declared up front in the central directory


@hostile
def test_oversized_pax_header_is_refused(sandbox: Sandbox) -> None:
    """A pax header of megabytes (which tarfile would read into memory) is TOO_LARGE."""
    data = tar_bytes([File("a.txt", b"x")], fmt=tarfile.PAX_FORMAT, pax_headers={"comment": "x" * (2 << 20)})
    outcome = run(sandbox, data, "tar.gz")
    assert isinstance(outcome, CodenavError) and outcome.code == "TOO_LARGE"


@hostile
def test_unknown_tar_member_type_is_skipped(sandbox: Sandbox) -> None:
    """A tar member of a type tarfile does not know is skipped and reported, not written as a file."""
    info = tarfile.TarInfo("odd")
    info.type, info.size = b"Z", 3
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as tar:
        tar.addfile(info, io.BytesIO(b"abc"))
        tar.addfile(tarfile.TarInfo("after.txt"))
    outcome = run(sandbox, buffer.getvalue(), "tar")
    assert isinstance(outcome, Extracted)
    assert reasons(outcome) == {"odd": "unsupported tar member type b'Z'"}
    assert on_disk(sandbox.dest) == {"after.txt": b""}


@hostile
@pytest.mark.parametrize("fmt", ("tar", "zip"))
def test_preexisting_symlink_in_dest_is_never_followed(sandbox: Sandbox, fmt: str) -> None:
    """Even a symlink already inside dest is not written through: O_EXCL|O_NOFOLLOW and mkdir refuse it."""
    (sandbox.dest / "evil").symlink_to(sandbox.decoy)
    (sandbox.dest / "evil.txt").symlink_to(sandbox.decoy / "secret.txt")
    outcome = run(sandbox, build(fmt, [File("evil/pwn.txt", b"x"), File("evil.txt", b"pwned")]), fmt,
                  planted=frozenset({"evil", "evil.txt"}))
    assert isinstance(outcome, Extracted)
    assert set(reasons(outcome)) == {"evil/pwn.txt", "evil.txt"}
    assert sorted(os.listdir(sandbox.decoy)) == ["secret.txt"]


# --- what a good archive yields ---------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_modes_are_0644_or_0755_and_dirs_0755(sandbox: Sandbox, fmt: str) -> None:
    """Files get 0o644, or 0o755 when any exec bit was set; setuid/setgid/sticky never survive."""
    members: list[Member] = [File("bin/run", b"#!/bin/sh\n", 0o4711), File("data.txt", b"d", 0o600),
                             File("tool", b"t", 0o2775), File("plain", b"p", 0o1644)]
    outcome = run(sandbox, build(fmt, members), fmt)
    assert isinstance(outcome, Extracted)
    modes = {name: stat.S_IMODE((sandbox.dest / name).stat().st_mode) for name in ("bin/run", "data.txt", "tool",
                                                                                    "plain", "bin")}
    assert modes == {"bin/run": 0o755, "data.txt": 0o644, "tool": 0o755, "plain": 0o644, "bin": 0o755}


@pytest.mark.parametrize("fmt", FORMATS)
def test_binary_detection_streams_like_text_is_binary(sandbox: Sandbox, fmt: str) -> None:
    """Binary = NUL in the first 8 KiB or invalid UTF-8 anywhere; a multi-byte char split across chunks is text."""
    split = b"a" * (CHUNK_SIZE - 1) + "é".encode() + b"b" * 100  # é straddles the first chunk boundary
    members: list[Member] = [
        File("nul-early.bin", b"abc\0def"),
        File("nul-late.txt", b"a" * 9000 + b"\0"),  # past 8 KiB and valid UTF-8: text
        File("bad-utf8-late.bin", b"a" * (3 * CHUNK_SIZE + 17) + b"\xff" + b"a" * 10),
        File("split.txt", split),
        File("split-across-second.txt", b"a" * (2 * CHUNK_SIZE - 2) + "€".encode()),
        File("cut-short.bin", b"a" * 10 + "€".encode()[:2]),
        File("empty.txt", b""),
        File("utf8.txt", "naïve — ✓\n".encode()),
    ]
    outcome = run(sandbox, build(fmt, members), fmt)
    assert isinstance(outcome, Extracted)
    got = {entry.path: (entry.binary, entry.size) for entry in outcome.files}
    assert got == {
        "nul-early.bin": (True, 7), "nul-late.txt": (False, 9001), "bad-utf8-late.bin": (True, 3 * CHUNK_SIZE + 28),
        "split.txt": (False, len(split)), "split-across-second.txt": (False, 2 * CHUNK_SIZE + 1),
        "cut-short.bin": (True, 12), "empty.txt": (False, 0), "utf8.txt": (False, len("naïve — ✓\n".encode())),
    }
    assert on_disk(sandbox.dest)["split.txt"] == split


@pytest.mark.parametrize("fmt", FORMATS)
def test_files_larger_than_a_chunk_and_the_header_allowance_extract_whole(sandbox: Sandbox, fmt: str) -> None:
    """A member of several MiB streams through in chunks and lands byte for byte."""
    big = os.urandom(1 << 16) * 40  # 2.5 MiB, more than the 1 MiB tar metadata allowance
    outcome = run(sandbox, build(fmt, [File("big.bin", big), File("after.txt", b"after")]), fmt)
    assert isinstance(outcome, Extracted)
    assert on_disk(sandbox.dest) == {"big.bin": big, "after.txt": b"after"}
    assert entries(outcome)["big.bin"] == FileEntry("big.bin", len(big), True, None)


def test_result_is_sorted_and_skips_are_sorted(sandbox: Sandbox) -> None:
    """Files come back sorted by path and skipped entries sorted, whatever the archive order."""
    members: list[Member] = [File("z.txt", b""), Special("y", "fifo"), File("a/b.txt", b""), Symlink("m", "z.txt"),
                             Special("b", "chr")]
    outcome = run(sandbox, build("tar.gz", members), "tar.gz")
    assert isinstance(outcome, Extracted)
    assert [entry.path for entry in outcome.files] == ["a/b.txt", "m", "z.txt"]
    assert outcome.skipped == [{"path": "b", "reason": "the member is a character device"},
                               {"path": "y", "reason": "the member is a FIFO"}]


def test_wheel_style_zip_is_listed_as_is(sandbox: Sandbox) -> None:
    """With neither strip nor prefix, a zip is listed as it is, dot segments normalised away."""
    outcome = run(sandbox, zip_bytes([File("pkg/__init__.py", b""), File("./pkg-1.0.dist-info/RECORD", b"r")]), "zip")
    assert isinstance(outcome, Extracted)
    assert [entry.path for entry in outcome.files] == ["pkg-1.0.dist-info/RECORD", "pkg/__init__.py"]
    assert outcome.skipped == []


def test_tar_bz2_and_xz_are_read_too(sandbox: Sandbox) -> None:
    """Old sdists come as .tar.bz2 or .tar.xz; the stream is told by its magic bytes."""
    for mode in ("w:bz2", "w:xz"):
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode=mode) as tar:
            info = tarfile.TarInfo(f"{mode[2:]}.txt")
            info.size = 2
            tar.addfile(info, io.BytesIO(b"ok"))
        target = sandbox.dest / mode[2:]
        target.mkdir()
        archive = sandbox.root / "archive"
        archive.write_bytes(buffer.getvalue())
        outcome = extract(archive, target, fmt="tar")
        assert [entry.path for entry in outcome.files] == [f"{mode[2:]}.txt"]


# --- limits from the environment --------------------------------------------------------------


def test_limits_default_and_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Limits default to SPEC §3 values; each variable overrides its own limit."""
    assert Limits.from_env() == Limits(100_000, 1 << 30, 50 << 20)
    monkeypatch.setenv("CODENAV_MAX_FILES", "12")
    monkeypatch.setenv("CODENAV_MAX_EXTRACTED_BYTES", " 4096 ")
    monkeypatch.setenv("CODENAV_MAX_FILE_BYTES", "")
    assert Limits.from_env() == Limits(max_files=12, max_total_bytes=4096)


@pytest.mark.parametrize("value", ["ten", "0", "-5", "1.5"])
def test_bad_limit_variable_is_config_error(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """A limit variable that is not a positive whole number is CONFIG_ERROR naming the variable."""
    monkeypatch.setenv("CODENAV_MAX_FILE_BYTES", value)
    with pytest.raises(CodenavError) as caught:
        Limits.from_env()
    assert caught.value.code == "CONFIG_ERROR"
    assert "CODENAV_MAX_FILE_BYTES" in caught.value.message


def test_extract_reads_limits_from_env_when_none_given(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without an explicit Limits, extract applies the environment's."""
    monkeypatch.setenv("CODENAV_MAX_FILES", "2")
    outcome = run(sandbox, build("zip", [File(f"{i}", b"") for i in range(3)]), "zip")
    assert isinstance(outcome, CodenavError) and outcome.code == "TOO_LARGE"
    assert outcome.details["variable"] == "CODENAV_MAX_FILES"


def test_zip_declared_size_is_checked_per_file(sandbox: Sandbox) -> None:
    """A zip member whose declared size is over the per-file limit is never read: listed as too large, not written."""
    outcome = run(sandbox, zip_bytes([File("small", b"s"), File("large", b"L" * 5000)]), "zip",
                  limits=Limits(max_file_bytes=4096))
    assert isinstance(outcome, Extracted)
    assert [(f.path, f.size, f.skipped) for f in outcome.files] == [("large", 5000, "too large"), ("small", 1, None)]
    assert on_disk(sandbox.dest) == {"small": b"s"}


def test_zip_file_count_checked_from_central_directory(sandbox: Sandbox) -> None:
    """A zip declaring more entries than allowed is refused from its end record, before extraction."""
    data = zip_bytes([File(f"f{i}", b"") for i in range(20)])
    outcome = run(sandbox, data, "zip", limits=Limits(max_files=19))
    assert isinstance(outcome, CodenavError) and outcome.code == "TOO_LARGE" and "declares 20 entries" in outcome.message
    assert zipfile.is_zipfile(io.BytesIO(data))


# --- the helper process that creates small files (archive/filewriter.py) ------------------------


@pytest.mark.parametrize("fmt", ("tar", "zip"))
def test_paths_that_cannot_be_created_are_reported_by_either_writer(sandbox: Sandbox, fmt: str) -> None:
    """A path taken on disk by a file or a link (EEXIST: O_EXCL wins over the link) is a reported skip, and what follows
    it (a later copy of that path, a child under it) is decided as if it had never been: the
    same whether this process or the helper created the files."""
    (sandbox.dest / "taken.txt").write_bytes(b"planted")
    (sandbox.dest / "loop.txt").symlink_to("taken.txt")
    members: list[Member] = [File("taken.txt", b"first"), File("loop.txt", b"x"), File("ok.txt", b"ok"),
                             File("loop.txt/child", b"c"), File("taken.txt", b"second")]
    outcome = run(sandbox, build(fmt, members), fmt, planted=frozenset({"taken.txt", "loop.txt"}))
    assert isinstance(outcome, Extracted)
    assert sorted(entries(outcome)) == ["ok.txt"]
    collides = "collides with a path already on disk (a case-insensitive file system?)"
    assert outcome.skipped == [
        {"path": "loop.txt", "reason": f"loop.txt {collides}"},
        {"path": "loop.txt/child", "reason": f"loop.txt {collides}"},
        {"path": "taken.txt", "reason": f"taken.txt {collides}"},
        {"path": "taken.txt", "reason": f"taken.txt {collides}"},
    ]
    assert (sandbox.dest / "taken.txt").read_bytes() == b"planted"


def _children() -> list[str]:
    return [child for task in Path(f"/proc/{os.getpid()}/task").iterdir()
            for child in (task / "children").read_text().split()]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="child processes are read from Linux's /proc")
def test_a_failed_extraction_stops_the_helper_process(sandbox: Sandbox) -> None:
    """An archive refused half-way (TOO_LARGE after 50 files) leaves no helper process behind."""
    before = _children()
    members: list[Member] = [File(f"f{i}.txt", b"x" * 100) for i in range(50)] + [File("big.bin", b"y" * 10_000)]
    outcome = run(sandbox, build("tar.gz", members), "tar.gz", limits=Limits(max_total_bytes=8_000))
    assert isinstance(outcome, CodenavError) and outcome.code == "TOO_LARGE"
    assert _children() == before


def test_the_helper_takes_over_past_writer_after(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past WRITER_AFTER files one helper process is started, and every file still holds its bytes."""
    from codenav.archive import tree

    started = []
    real = tree.Writer

    def counting(*args: object) -> object:
        started.append(args)
        return real(*args)

    monkeypatch.setattr(tree, "WRITER_AFTER", 3)
    monkeypatch.setattr(tree, "Writer", counting)
    members: list[Member] = [File(f"d{i % 3}/f{i}.txt", f"file {i}".encode()) for i in range(40)]
    outcome = run(sandbox, build("tar.gz", members), "tar.gz")
    assert isinstance(outcome, Extracted) and len(started) == 1
    assert on_disk(sandbox.dest) == {f"d{i % 3}/f{i}.txt": f"file {i}".encode() for i in range(40)}


def test_the_helper_answers_what_it_could_not_create_and_stops_at_a_failed_write(tmp_path: Path) -> None:
    """filewriter.serve: a taken path is answered as skippable and the others are created; a
    failure that is not the path's (here a missing directory) is fatal and ends it."""
    from codenav.archive import filewriter

    root = tmp_path / "root"
    root.mkdir()
    (root / "taken").write_bytes(b"planted")

    def record(path: str, data: bytes, mode: int = 0o644) -> bytes:
        raw = path.encode()
        return b"F" + filewriter.HEADER.pack(mode, len(raw), len(data)) + raw + data

    stdin = io.BytesIO(record("a.txt", b"a") + record("taken", b"t") + b"S" + record("gone/b.txt", b"b")
                       + record("c.txt", b"c") + b"S")
    stdout = io.BytesIO()
    assert filewriter.serve(str(root), False, stdin, stdout) == 1
    assert stdout.getvalue().decode().split("\n")[:2] == [f"{errno.EEXIST}\ttaken", "ok"]
    assert stdout.getvalue().decode().split("\n")[2].startswith(f"fatal\t{errno.ENOENT}\t")
    assert sorted(os.listdir(root)) == ["a.txt", "taken"]
    assert (root / "a.txt").read_bytes() == b"a"


def test_without_a_helper_script_every_file_is_written_here(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the helper cannot be started (codenav imported from a zip: no script file), the
    extraction writes every file itself and gives the same result."""
    from codenav.archive import filewriter

    monkeypatch.setattr(filewriter, "__file__", str(sandbox.root / "codenav.zip" / "filewriter.py"))
    members: list[Member] = [File(f"f{i}.txt", f"file {i}".encode()) for i in range(20)]
    outcome = run(sandbox, build("tar.gz", members), "tar.gz")
    assert isinstance(outcome, Extracted) and not outcome.skipped
    assert on_disk(sandbox.dest) == {f"f{i}.txt": f"file {i}".encode() for i in range(20)}
