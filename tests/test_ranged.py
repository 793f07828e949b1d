"""Ranged entries and sizes decided up front (SPEC §3.7): a wheel over the download limit is
listed from its central directory and read member by member over byte ranges, counted by a
real file server on 127.0.0.1; a size the index states refuses an oversized artifact before
any body is sent."""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor

import pytest

from codenav.errors import CodenavError
from codenav.tools import diff_versions, grep_file, grep_repo, list_files, read_file, search_symbols
from tests.fakes.archives import make_tgz, make_zip
from tests.fakes.http import FakeServer
from tests.fakes.npm import FakeNpm
from tests.fakes.pypi import FakePypi
from tests.support.archives import replace_in_names, stored_zip, zip_same_offset_bomb
from tests.support.cli import ROOT, run_cli

MIB = 1 << 20
BIG = {"registry": "pypi", "package_name": "big", "version": "1.0"}
SOURCE = {"big/__init__.py": b"from .core import answer\n",
          "big/core.py": b"def answer():\n    return 42  # needle\n",
          "big/util/text.py": b"class Shout:\n    pass  # needle too\n"}


def _big_wheel() -> bytes:
    """About 20 MiB of incompressible members, with small source files between them."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        for index in range(80):
            archive.writestr(f"big/_data/blob{index:03}.bin", os.urandom(256 * 1024))
            if index == 20:
                archive.writestr("big/core.py", SOURCE["big/core.py"])
            if index == 50:
                archive.writestr("big/util/text.py", SOURCE["big/util/text.py"])
        archive.writestr("big/__init__.py", SOURCE["big/__init__.py"])
        archive.writestr("big-1.0.dist-info/RECORD", b"")
    return buf.getvalue()


def _as_zip64(data: bytes) -> bytes:
    """The same zip with ZIP64 end records (as a writer must past 65,535 entries or 4 GiB)."""
    end = data.rfind(b"PK\x05\x06")
    _, _, _, count, total, cd_size, cd_offset, _ = struct.unpack("<4s4H2LH", data[end:end + 22])
    record = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, total, cd_size, cd_offset)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, end, 1)
    tail = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    return data[:end] + record + locator + tail


@pytest.fixture(scope="module")
def wheel() -> bytes:
    return _big_wheel()


@pytest.fixture(scope="module")
def server():
    with FakeServer() as running:
        yield running


@pytest.fixture(scope="module")
def index(server, wheel) -> FakePypi:
    fake = FakePypi(server)
    fake.add("big", "big-1.0-py3-none-any.whl", wheel)
    fake.add("bigz", "bigz-1.0-py3-none-any.whl", _as_zip64(wheel))
    fake.add("liar", "liar-1.0-py3-none-any.whl", make_zip({"liar/__init__.py": b"x = 1\n"}), size=99)
    fake.add("bomb", "bomb-1.0-py3-none-any.whl", zip_same_offset_bomb())
    fake.add("dotdot", "dotdot-1.0-py3-none-any.whl", replace_in_names(
        stored_zip([("ok/a.py", b"a"), ("xx/evil.py", b"e")]), b"xx/evil.py", b"../evil.py"))
    odd = stored_zip([("a_b.py", b"x"), ("cafXX.py", b"c"), ("keep.py", b"k")])  # no UTF-8 flag: ASCII names
    odd = replace_in_names(replace_in_names(odd, b"cafXX", "caf\u00e9".encode()), b"a_b.py", b"a\0b.py")
    fake.add("odd", "odd-1.0-py3-none-any.whl", odd)
    fake.add("heavy", "heavy-1.0.tar.gz", make_tgz({"setup.py": os.urandom(300_000)}, top="heavy-1.0"))
    return fake


@pytest.fixture
def pypi_big(index, monkeypatch) -> FakePypi:
    """The module's fake index, honouring ranges, its counters reset, with a 1 MiB download cap."""
    monkeypatch.setenv("CODENAV_PYPI_INDEX_URL", index.url)
    monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", str(MIB))
    index.ranges = "honour"
    index.file_hits = index.bytes_sent = 0
    index.ranges_seen.clear()
    return index


def _error(fn, args: dict) -> CodenavError:
    with pytest.raises(CodenavError) as caught:
        fn(args)
    return caught.value


def _entries(tmp_path) -> list[str]:
    root = tmp_path / "cache" / "entries"
    return sorted(str(p.relative_to(root)) for p in root.glob("*/*/*")) if root.exists() else []


def test_listing_a_20_mib_wheel_transfers_under_one_mib(pypi_big, wheel):
    """Over a 1 MiB cap, a 20 MiB wheel is listed from its central directory: under 1 MiB sent, all by range."""
    assert len(wheel) > 20 * MIB
    result = list_files.run(BIG)
    with zipfile.ZipFile(io.BytesIO(wheel)) as archive:
        names = sorted(archive.namelist())
    assert [f["path"] for f in result["files"]] == names
    assert result["target"]["verified"] is False
    assert "byte range" in result["target"]["verification"] and "CODENAV_MAX_DOWNLOAD_BYTES" in result["target"]["verification"]
    assert pypi_big.bytes_sent < MIB
    assert pypi_big.file_hits == len(pypi_big.ranges_seen) <= 2  # every request named a range
    sent = [seen.headers for seen in pypi_big.server.seen if seen.path.startswith("/files/big-")][-2:]
    assert {h.get("accept-encoding") for h in sent} == {"identity"}


def test_an_entry_says_it_is_ranged_alike_from_its_files_and_from_its_manifest(pypi_big, tmp_path):
    """Whether an entry is ranged, asked before its manifest is read (its zip's directory beside
    it) and after, is the same answer for a ranged wheel and a downloaded one."""
    from codenav.cache import store

    list_files.run(BIG)
    list_files.run({"registry": "pypi", "package_name": "heavy", "version": "1.0"})  # under the cap: downloaded
    found = {}
    for key in _entries(tmp_path):
        early = store.find(key).ranged
        entry = store.find(key)
        entry.manifest  # noqa: B018 — read, then asked
        found[key] = (early, entry.ranged)
    assert sorted(early for early, _ in found.values()) == [False, True], found
    assert all(early == late for early, late in found.values()), found


def test_zip64_end_records_are_followed(pypi_big):
    """A wheel ending in ZIP64 records lists the same files by range."""
    result = list_files.run({**BIG, "package_name": "bigz"})
    assert "big/core.py" in [f["path"] for f in result["files"]] and result["target"]["verified"] is False
    assert pypi_big.bytes_sent < MIB


def test_reading_one_member_fetches_only_its_range(pypi_big, wheel):
    """A member is fetched on first read with one range about its compressed size, then served from the entry."""
    list_files.run(BIG)
    before, hits = pypi_big.bytes_sent, pypi_big.file_hits
    result = read_file.run({**BIG, "path": "big/core.py"})
    assert result["content"] == SOURCE["big/core.py"].decode() and result["target"]["verified"] is False
    with zipfile.ZipFile(io.BytesIO(wheel)) as archive:
        info = archive.getinfo("big/core.py")
    assert pypi_big.file_hits == hits + 1
    assert pypi_big.bytes_sent - before < info.compress_size + 30 + len(info.filename) + 2048
    start = int(pypi_big.ranges_seen[-1].removeprefix("bytes=").split("-")[0])
    assert start == info.header_offset
    again = grep_file.run({**BIG, "path": "big/core.py", "pattern": "needle"})
    assert again["matchCount"] == 1 and again["target"]["verified"] is False
    assert pypi_big.file_hits == hits + 1  # stored in the entry: no second request


def test_grep_repo_fetches_the_members_in_scope(pypi_big):
    """grep_repo over a ranged entry fetches only the text members in scope, in few requests."""
    list_files.run(BIG)
    before = pypi_big.bytes_sent
    result = grep_repo.run({**BIG, "pattern": "needle"})
    assert [f["path"] for f in result["files"]] == ["big/core.py", "big/util/text.py"]
    assert result["target"]["verified"] is False
    assert pypi_big.bytes_sent - before < 2 * 64 * 1024 + 8192  # the sources, never the blobs
    scoped = grep_repo.run({**BIG, "pattern": "shout", "path_prefix": "big/util"})
    assert scoped["totalMatches"] == 1


def test_grep_repo_over_the_bound_is_too_large(pypi_big, monkeypatch):
    """Members in scope whose ranges exceed the download cap are refused with a way to narrow the search."""
    list_files.run(BIG)
    monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", "100")  # the entry exists: only the fetch is bounded
    err = _error(grep_repo.run, {**BIG, "pattern": "needle"})
    assert err.code == "TOO_LARGE" and "path_prefix" in err.message


def test_search_symbols_and_diff_read_a_ranged_entry(pypi_big):
    """search_symbols indexes the fetched sources; diff_versions compares fetched members."""
    found = search_symbols.run({**BIG, "query": "Shout"})
    assert [r["path"] for r in found["results"]] == ["big/util/text.py"] and found["target"]["verified"] is False
    diff = diff_versions.run({"registry": "pypi", "package_name": "big", "from_version": "1.0",
                              "to_version": "1.0", "path_prefix": "big/util"})
    assert diff["summary"]["filesChanged"] == 0


def test_a_member_over_the_file_limit_is_listed_never_fetched(pypi_big, monkeypatch):
    """Members over CODENAV_MAX_FILE_BYTES are listed as skipped, and reading one is TOO_LARGE without a request."""
    monkeypatch.setenv("CODENAV_MAX_FILE_BYTES", "100000")
    result = list_files.run(BIG)
    assert "big/_data/blob000.bin" in [f["path"] for f in result["files"]]
    hits = pypi_big.file_hits
    err = _error(read_file.run, {**BIG, "path": "big/_data/blob000.bin"})
    assert err.code == "TOO_LARGE" and err.details["variable"] == "CODENAV_MAX_FILE_BYTES"
    assert pypi_big.file_hits == hits
    assert read_file.run({**BIG, "path": "big/core.py"})["content"] == SOURCE["big/core.py"].decode()


@pytest.mark.parametrize("mode,code,words", [
    ("ignore", "TOO_LARGE", "download limit"),
    ("wrong-total", "PROTOCOL_ERROR", "the index says"),
    ("416", "UPSTREAM_ERROR", "HTTP 416"),
    ("501", "UPSTREAM_ERROR", "HTTP 501"),
])
def test_servers_that_do_not_serve_the_range_fail_clearly(pypi_big, tmp_path, mode, code, words):
    """A whole body, a wrong total, 416 and 501 are typed errors, and nothing is cached."""
    pypi_big.ranges = mode
    err = _error(list_files.run, BIG)
    assert (err.code, words in err.message) == (code, True), err.message
    assert _entries(tmp_path) == []


def test_an_index_size_unlike_the_served_length_is_a_protocol_error(pypi_big, tmp_path):
    """A PEP 700 size that disagrees with the server's Content-Length is PROTOCOL_ERROR, nothing cached."""
    err = _error(list_files.run, {**BIG, "package_name": "liar"})
    assert err.code == "PROTOCOL_ERROR" and err.details["indexSize"] == 99 and _entries(tmp_path) == []


def test_a_stated_oversized_sdist_is_refused_without_a_download(pypi_big, tmp_path, monkeypatch):
    """An sdist whose stated size is over the cap is TOO_LARGE before any request for its file."""
    monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", "100000")
    err = _error(list_files.run, {**BIG, "package_name": "heavy"})
    assert err.code == "TOO_LARGE" and "download limit" in err.message
    assert pypi_big.file_hits == 0 and _entries(tmp_path) == []


def test_an_npm_unpacked_size_over_the_limit_is_refused_without_a_download(tmp_path, monkeypatch):
    """npm's dist.unpackedSize over CODENAV_MAX_EXTRACTED_BYTES is TOO_LARGE before the tarball is asked for."""
    with FakeServer() as server:
        npm = FakeNpm(server)
        npm.publish("wide", "1.0.0", {"index.js": b"x"})
        npm.unpacked_sizes[("wide", "1.0.0")] = 5_000_000
        monkeypatch.setenv("CODENAV_NPM_REGISTRY", npm.url)
        monkeypatch.setenv("CODENAV_MAX_EXTRACTED_BYTES", "1000000")
        err = _error(list_files.run, {"registry": "npm", "package_name": "wide", "version": "1.0.0"})
        assert err.code == "TOO_LARGE" and err.details["variable"] == "CODENAV_MAX_EXTRACTED_BYTES"
        assert npm.tarball_hits == 0 and _entries(tmp_path) == []
        monkeypatch.setenv("CODENAV_MAX_EXTRACTED_BYTES", "10000000")
        assert list_files.run({"registry": "npm", "package_name": "wide", "version": "1.0.0"})["totalFiles"] == 1


def test_concurrent_reads_of_different_members_both_succeed(pypi_big, tmp_path):
    """Two processes reading two unread members at once both get whole files; nothing half-written stays."""
    list_files.run(BIG)
    paths = ["big/core.py", "big/util/text.py"]
    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda p: run_cli("read", "pypi:big@1.0", p), paths))
    assert [r.stdout for r in runs] == [SOURCE[p] for p in paths], [r.stderr for r in runs]
    entry = next((tmp_path / "cache" / "entries" / "pypi" / "big").iterdir())
    assert [p.name for p in entry.iterdir() if p.name.startswith(".")] == []
    for path in paths:
        assert (entry / "tree" / path).read_bytes() == SOURCE[path]


def test_cli_json_equals_mcp_for_a_ranged_entry(pypi_big):
    """`codenav files --json` and `read --json` print exactly the MCP text payload of a ranged entry."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "codenav", "mcp", "--json"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)

    def call(ident: int, method: str, params: dict) -> dict:
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}).encode() + b"\n")
        proc.stdin.flush()
        while True:
            message = json.loads(proc.stdout.readline())
            if message.get("id") == ident:
                return message

    try:
        call(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "ranged", "version": "0"}})
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        listed = call(2, "tools/call", {"name": "list_files", "arguments": {**BIG, "wait_timeout_ms": 60000}})
        read = call(3, "tools/call", {"name": "read_file", "arguments": {**BIG, "path": "big/core.py"}})
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    from codenav import contract

    cli_list = run_cli("files", "pypi:big@1.0", "--json")
    cli_read = run_cli("read", "pypi:big@1.0", "big/core.py", "--json")
    assert cli_list.stdout.decode() == listed["result"]["content"][0]["text"] + "\n"
    assert cli_read.stdout.decode() == read["result"]["content"][0]["text"] + "\n"
    assert json.loads(cli_read.stdout)["target"]["verified"] is False
    contract.validator("list_files", "outputSchema").validate(json.loads(cli_list.stdout))
    contract.validator("read_file", "outputSchema").validate(json.loads(cli_read.stdout))


def test_a_range_file_bounds_its_requests_and_caches_what_it_fetched():
    """RangeFile serves repeated reads from its cache and refuses a request past its bound."""
    from codenav.archive.ranged import READ_AHEAD, RangeFile

    data = os.urandom(8 * READ_AHEAD)
    asked: list[tuple[int, int]] = []

    def fetch(start: int, end: int) -> bytes:
        asked.append((start, end))
        return data[start:end + 1]

    raw = RangeFile(len(data), fetch, max_requests=2)
    raw.seek(10)
    assert raw.read(5) == data[10:15] and raw.read(5) == data[15:20]
    raw.seek(-3, os.SEEK_END)
    assert raw.read() == data[-3:]
    assert asked == [(10, 10 + READ_AHEAD - 1), (len(data) - 3, len(data) - 1)]
    raw.seek(4 * READ_AHEAD)
    with pytest.raises(CodenavError) as caught:
        raw.read(1)
    assert caught.value.code == "TOO_LARGE" and len(asked) == 2


@pytest.mark.parametrize("project,code,words", [("bomb", "UNSAFE_ARCHIVE", "overlap"),
                                                ("dotdot", "UNSAFE_ARCHIVE", "'..'")])
def test_a_ranged_listing_refuses_what_extraction_refuses(pypi_big, tmp_path, monkeypatch, project, code, words):
    """Overlapping records and '..' names refuse a ranged archive as they refuse a downloaded one."""
    monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", "100")
    err = _error(list_files.run, {**BIG, "package_name": project})
    assert err.code == code and words in err.message and _entries(tmp_path) == []


def test_a_ranged_listing_skips_unaddressable_names_and_reads_non_utf8_flagged_ones(pypi_big, monkeypatch):
    """A NUL name is skipped and reported; a UTF-8 name without the UTF-8 flag is listed and read."""
    monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", "100")
    result = list_files.run({**BIG, "package_name": "odd"})
    assert [f["path"] for f in result["files"]] == ["caf\u00e9.py", "keep.py"]
    assert result["skipped"]["count"] == 1 and "NUL" in result["skipped"]["examples"][0]["reason"]
    assert read_file.run({**BIG, "package_name": "odd", "path": "caf\u00e9.py"})["content"] == "c"
