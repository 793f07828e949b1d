"""The tar reader's fast header path reads every header exactly as tarfile's own does.

archive/tar.py reads plain ASCII headers itself and hands every other one to
``tarfile.TarInfo.frombuf``; tarfile is the oracle here: headers written by tarfile in each of
its formats (and hand-made odd ones) must come out field for field the same, and what tarfile
refuses must still be refused.
"""

from __future__ import annotations

import io
import tarfile

import pytest

from codenav.archive.tar import _Header

FIELDS = ("name", "mode", "uid", "gid", "size", "mtime", "chksum", "type", "linkname", "uname", "gname",
          "devmajor", "devminor")


def _headers(fmt: int, infos: list[tarfile.TarInfo]) -> list[bytes]:
    """Every 512-byte header block tarfile writes for ``infos`` in format ``fmt`` (data blocks left out)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=fmt) as tar:
        for info in infos:
            tar.addfile(info, io.BytesIO(b"x" * info.size) if info.isreg() else None)
    data, blocks, offset = out.getvalue(), [], 0
    while offset + 512 <= len(data):
        block = data[offset:offset + 512]
        if block == bytes(512):
            break
        info = tarfile.TarInfo.frombuf(block, "utf-8", "surrogateescape")
        blocks.append(block)
        offset += 512 + (info.size + 511) // 512 * 512
    return blocks


def _info(name: str, kind: bytes = tarfile.REGTYPE, size: int = 0, **extra: object) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, size
    for key, value in extra.items():
        setattr(info, key, value)
    return info


MEMBERS = [
    _info("package/index.js", size=3, mode=0o644, mtime=1_700_000_000, uid=1000, gid=1000, uname="u", gname="g"),
    _info("package/bin/run", size=1, mode=0o4755),
    _info("package/lib", tarfile.DIRTYPE, mode=0o755),
    _info("package/link", tarfile.SYMTYPE, linkname="index.js"),
    _info("package/hard", tarfile.LNKTYPE, linkname="package/index.js"),
    _info("package/" + "d" * 90 + "/" + "f" * 90 + ".js", size=2),  # ustar prefix, or a long name
    _info("package/" + "n" * 120, size=1),  # longer than the name field: pax or GNU long name
    _info("package/caf\u00e9.js", size=1),  # not ASCII: always tarfile's own reading
    _info("package/fifo", tarfile.FIFOTYPE),
    _info("package/big", size=5, mtime=2**40),  # mtime past 11 octal digits: pax record or base-256
]


@pytest.mark.parametrize("fmt", [tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT, tarfile.PAX_FORMAT],
                         ids=["ustar", "gnu", "pax"])
def test_every_header_tarfile_writes_reads_the_same(fmt):
    """Headers of files, directories, links, long and prefixed names, non-ASCII names and large
    numbers, in ustar, GNU and pax form, give the same fields through both readers."""
    infos = [i for i in MEMBERS if fmt != tarfile.USTAR_FORMAT or (len(i.name) <= 100 or "d" * 90 in i.name)
             and i.mtime < 8**11 and i.name.isascii()]
    blocks = _headers(fmt, infos)
    assert len(blocks) >= len(infos)
    for block in blocks:
        theirs = tarfile.TarInfo.frombuf(block, "utf-8", "surrogateescape")
        ours = _Header.frombuf(block, "utf-8", "surrogateescape")
        assert isinstance(ours, _Header)
        assert {f: getattr(ours, f) for f in FIELDS} == {f: getattr(theirs, f) for f in FIELDS}


def _block(name: bytes, *, kind: bytes = b"0", size: bytes = b"00000000001\0", chksum: bytes | None = None) -> bytes:
    block = bytearray(512)
    block[0:len(name)] = name
    block[100:108] = b"0000644\0"
    block[124:136] = size
    block[156:157] = kind
    block[257:263] = b"ustar\0"
    block[263:265] = b"00"
    block[148:156] = b" " * 8
    total = sum(block)
    block[148:156] = chksum if chksum is not None else b"%06o\0 " % total
    return bytes(block)


def test_a_v7_directory_and_a_space_padded_number_read_the_same():
    """A regular-file type whose name ends in '/' is a directory (V7), and ' 12 ' style numbers are read alike."""
    for block in (_block(b"package/dir/", kind=b"\0"), _block(b"package/a.js", size=b"        12 \0")):
        theirs = tarfile.TarInfo.frombuf(block, "utf-8", "surrogateescape")
        ours = _Header.frombuf(block, "utf-8", "surrogateescape")
        assert {f: getattr(ours, f) for f in FIELDS} == {f: getattr(theirs, f) for f in FIELDS}


@pytest.mark.parametrize("block", [
    _block(b"package/a.js", chksum=b"0000001\0"),
    _block(b"package/a.js", size=b"0000000001x\0"),
    _block(b"package/a.js", size=b"00000000_01\0"[:12]),
], ids=["bad checksum", "not octal", "underscore"])
def test_what_tarfile_refuses_is_still_refused(block):
    """A bad checksum or a number field that is not octal is an error, as tarfile says it is."""
    try:
        expected = tarfile.TarInfo.frombuf(block, "utf-8", "surrogateescape")
    except tarfile.HeaderError as exc:
        with pytest.raises(type(exc)):
            _Header.frombuf(block, "utf-8", "surrogateescape")
    else:
        ours = _Header.frombuf(block, "utf-8", "surrogateescape")
        assert {f: getattr(ours, f) for f in FIELDS} == {f: getattr(expected, f) for f in FIELDS}
