"""The tar reader's fast loop extracts exactly what tarfile alone would, and what GNU tar does.

archive/tar.py reads plain headers and small members' data itself and hands every other header
(pax and GNU records, non-ASCII names, base-256 numbers, special files) to tarfile, taking the
stream back after it when nothing lasting was read. The oracle is the same extraction with the
fast loop switched off (every header read by tarfile, as before the loop existed): the result,
the bytes on disk and every error must be the same, on well-formed, odd and broken archives.
GNU tar, where installed, must write the same regular files.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from codenav.archive import CHUNK_SIZE, Limits, extract, tar
from codenav.errors import CodenavError
from tests.support.archives import Dir, File, Hardlink, Special, Symlink, tar_bytes

BASIC = [
    Dir("package"),
    File("package/package.json", b'{"name": "x"}'),
    File("package/index.js", b"module.exports = 1;\n"),
    File("package/bin/run", b"#!/bin/sh\n", mode=0o755),
    File("package/empty.txt", b""),
    Symlink("package/link.js", "index.js"),
    Hardlink("package/copy.js", "package/index.js"),
    File("package/" + "d" * 90 + "/" + "f" * 90 + ".js", b"prefix"),  # ustar splits it into prefix + name
    File("package/big.bin", bytes(range(256)) * (CHUNK_SIZE // 128 + 3)),  # streamed, not taken whole
    File("package/exact.txt", b"e" * CHUNK_SIZE),
    File("package/last.txt", b"the end\n"),
]
ODD = [
    *BASIC[:3],
    File("package/" + "n" * 120 + ".js", b"long name"),  # pax record or GNU long name
    Symlink("package/far", "x" * 120),  # a long link target
    File("package/caf\u00e9.js", b"not ascii"),
    Special("package/fifo", "fifo"),
    Special("package/null", "chr"),
    File("package/after.js", b"read by the fast loop again"),
]


def _archive(members: list, fmt: int, **extra: object) -> bytes:
    return tar_bytes(members, gzip=False, fmt=fmt, **extra)


def _headers(data: bytes) -> list[int]:
    """The offset of every member's own header block (pax and GNU records included)."""
    offsets, offset = [], 0
    while offset + 512 <= len(data) and data[offset:offset + 512] != bytes(512):
        info = tarfile.TarInfo.frombuf(data[offset:offset + 512], "utf-8", "surrogateescape")
        offsets.append(offset)
        offset += 512 + (info.size + 511) // 512 * 512
    return offsets


def _forge(data: bytes, offset: int, **fields: bytes) -> bytes:
    """``data`` with header fields of the block at ``offset`` replaced, its checksum made right
    unless ``chksum`` is given."""
    spans = {"name": (0, 100), "mode": (100, 108), "uid": (108, 116), "mtime": (136, 148), "chksum": (148, 156),
             "type": (156, 157)}
    block = bytearray(data[offset:offset + 512])
    for key, value in fields.items():
        start, end = spans[key]
        block[start:end] = value.ljust(end - start, b"\0")
    if "chksum" not in fields:
        block[148:156] = b" " * 8
        block[148:156] = b"%06o\0 " % sum(block)
    return data[:offset] + bytes(block) + data[offset + 512:]


def _second(data: bytes) -> int:
    return _headers(data)[1]


CASES = {
    "ustar": lambda: _archive(BASIC, tarfile.USTAR_FORMAT),
    "gnu": lambda: _archive(BASIC + ODD, tarfile.GNU_FORMAT),
    "pax": lambda: _archive(BASIC + ODD, tarfile.PAX_FORMAT),
    "gzip": lambda: tar_bytes(BASIC + ODD),
    "pax global comment (git archive)": lambda: _archive(BASIC, tarfile.PAX_FORMAT, pax_headers={"comment": "0" * 40}),
    "pax global uid (read by tarfile to the end)": lambda: _archive(BASIC, tarfile.PAX_FORMAT, pax_headers={"uid": "7"}),
    "v7 directory (a regular type ending in /)": lambda: _forge(_archive(BASIC, tarfile.USTAR_FORMAT), 0,
                                                              name=b"package/", type=b"\0"),
    "bad checksum on the second member (tarfile stops there)": lambda: _forge(
        _archive(BASIC, tarfile.USTAR_FORMAT), _second(_archive(BASIC, tarfile.USTAR_FORMAT)), chksum=b"0000001\0"),
    "bad checksum on the first member": lambda: _forge(_archive(BASIC, tarfile.USTAR_FORMAT), 0, chksum=b"0000001\0"),
    "mtime not a number on the second member": lambda: _forge(
        _archive(BASIC, tarfile.USTAR_FORMAT), _second(_archive(BASIC, tarfile.USTAR_FORMAT)), mtime=b"12x4"),
    "mode with spaces and a sign (int() reads them)": lambda: _forge(
        _archive(BASIC, tarfile.USTAR_FORMAT), _second(_archive(BASIC, tarfile.USTAR_FORMAT)), mode=b" +755 "),
    "no end blocks": lambda: _archive(BASIC, tarfile.USTAR_FORMAT).rstrip(b"\0") + b"\0" * 3,
    "garbage after the end": lambda: _archive(BASIC, tarfile.USTAR_FORMAT) + b"garbage" * 100,
    "only end blocks": lambda: bytes(1024),
    "empty file": lambda: b"",
    "half a header": lambda: _archive(BASIC, tarfile.USTAR_FORMAT)[:300],
}
for _cut in ("in a header", "in a small member's data", "in a large member's data", "after a member"):
    CASES[f"cut {_cut}"] = (lambda cut: lambda: _cut_archive(cut))(_cut)


def _cut_archive(where: str) -> bytes:
    data = _archive(BASIC, tarfile.USTAR_FORMAT)
    offsets = _headers(data)
    names = [tarfile.TarInfo.frombuf(data[o:o + 512], "utf-8", "strict").name for o in offsets]
    big = offsets[names.index("package/big.bin")]
    small = offsets[names.index("package/index.js")]
    return {"in a header": data[:offsets[3] + 100], "in a small member's data": data[:small + 515],
            "in a large member's data": data[:big + 512 + CHUNK_SIZE + 7],
            "after a member": data[:offsets[4]]}[where]


def _base_256_uid(data: bytes) -> bytes:
    offset = _second(data)
    block = bytearray(data[offset:offset + 512])
    block[108:116] = b"\x80" + (10 ** 9).to_bytes(7, "big")
    block[148:156] = b" " * 8
    block[148:156] = b"%06o\0 " % sum(block)
    return data[:offset] + bytes(block) + data[offset + 512:]


CASES["base-256 uid"] = lambda: _base_256_uid(_archive([BASIC[1], File("package/owned", b"x"), BASIC[2]],
                                                       tarfile.GNU_FORMAT))


def _outcome(archive: Path, dest: Path) -> tuple:
    """What extracting ``archive`` gives: every file with its digest and skip, the skipped
    members and the bytes on disk; or the error's code, message and details."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir()
    try:
        result = extract(archive, dest, fmt="tar", strip_components=1, limits=Limits())
    except CodenavError as exc:
        return ("error", exc.code, exc.message, exc.details)
    disk = {}
    for top, _, names in os.walk(dest):
        for name in names:
            path = Path(top, name)
            disk[str(path.relative_to(dest))] = path.read_bytes()
    return ([(f.path, f.size, f.binary, f.link, f.sha256, f.skipped) for f in result.files], result.skipped, disk)


def _tarfile_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the fast loop off: every header goes to tarfile, which reads to the end."""
    monkeypatch.setattr(tar, "_plain", lambda buf: None)
    monkeypatch.setattr(tar, "_continues_plainly", lambda *args: False)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_fast_reader_extracts_what_tarfile_alone_extracts(case: str, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Well-formed, odd and broken tars: the same files, digests, skips, bytes on disk and errors
    with the fast loop as with every header read by tarfile."""
    archive = tmp_path / "a.tar"
    archive.write_bytes(CASES[case]())
    fast = _outcome(archive, tmp_path / "fast")
    with monkeypatch.context() as patch:
        _tarfile_only(patch)
        reference = _outcome(archive, tmp_path / "reference")
    assert fast == reference


def test_the_oracle_cases_reach_both_readers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The corpus exercises the fast loop, tarfile for one member, and tarfile to the end."""
    seen = {"fast": 0, "one": 0, "rest": 0}
    plain, rest = tar._plain, tar._extract_rest

    def counting_plain(buf: bytes) -> object:
        found = plain(buf)
        seen["fast"] += found is not None
        return found

    def counting_rest(*args: object) -> None:
        seen["rest"] += 1
        rest(*args)

    real_next = tar._tarfile_next

    def counting_next(*args: object) -> object:
        seen["one"] += 1
        return real_next(*args)

    monkeypatch.setattr(tar, "_plain", counting_plain)
    monkeypatch.setattr(tar, "_extract_rest", counting_rest)
    monkeypatch.setattr(tar, "_tarfile_next", counting_next)
    for case in ("gnu", "pax global uid (read by tarfile to the end)"):
        archive = tmp_path / "a.tar"
        archive.write_bytes(CASES[case]())
        _outcome(archive, tmp_path / "x")
    assert seen["fast"] > 10 and seen["one"] > 3 and seen["rest"] == 1


def test_a_git_archive_reads_like_tarfile_and_like_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``git archive`` (a global pax header with the commit id, then plain members) extracts the
    same either way, and holds what the commit holds."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "src").mkdir()
    (repo / "src" / "a.py").write_text("print('a')\n")
    (repo / "README").write_text("readme\n")
    (repo / ("l" * 150 + ".txt")).write_text("long\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}
    for argv in (["init", "-q"], ["add", "."], ["commit", "-qm", "x"]):
        subprocess.run(["git", *argv], cwd=repo, check=True, env=env)
    archive = tmp_path / "a.tar"
    archive.write_bytes(subprocess.run(["git", "archive", "--prefix=top/", "HEAD"], cwd=repo, check=True,
                                       capture_output=True).stdout)
    fast = _outcome(archive, tmp_path / "fast")
    with monkeypatch.context() as patch:
        _tarfile_only(patch)
        assert _outcome(archive, tmp_path / "reference") == fast
    assert sorted(fast[2]) == sorted(["README", "src/a.py", "l" * 150 + ".txt"])


WELL_FORMED = ("ustar", "gnu", "pax", "gzip", "pax global comment (git archive)")


@pytest.mark.skipif(shutil.which("tar") is None, reason="GNU tar is the oracle here and is not installed")
@pytest.mark.parametrize("case", WELL_FORMED)
def test_regular_files_are_what_gnu_tar_extracts(case: str, tmp_path: Path) -> None:
    """Every regular file codenav writes holds the bytes GNU tar writes for it."""
    archive = tmp_path / "a.tar"
    archive.write_bytes(CASES[case]())
    ours = _outcome(archive, tmp_path / "ours")[2]
    theirs_dir = tmp_path / "theirs"
    theirs_dir.mkdir()
    subprocess.run(["tar", "-xf", str(archive), "-C", str(theirs_dir), "--strip-components=1",
                    "--no-same-owner", "--exclude=package/fifo", "--exclude=package/null"], check=True)
    theirs = {}
    for top, _, names in os.walk(theirs_dir):
        for name in names:
            path = Path(top, name)
            if path.is_file() and not path.is_symlink():
                theirs[str(path.relative_to(theirs_dir))] = path.read_bytes()
    assert ours == theirs


def test_a_giant_pax_record_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A pax record larger than the header allowance is TOO_LARGE, even after plain members."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as out:
        for member in BASIC[1:3]:
            info = tarfile.TarInfo(member.name)
            info.size = len(member.data)
            out.addfile(info, io.BytesIO(member.data))
        info = tarfile.TarInfo("package/huge")
        info.pax_headers = {"comment": "c" * (2 << 20)}
        out.addfile(info, io.BytesIO(b""))
    archive = tmp_path / "a.tar"
    archive.write_bytes(buffer.getvalue())
    outcome = _outcome(archive, tmp_path / "x")
    assert outcome[:2] == ("error", "TOO_LARGE") and "'package/index.js'" in outcome[2]
