"""Integrity: a changed byte is refused, and a changing registry never corrupts the cache (SPEC §3).

- One byte changed anywhere in an artifact (first, middle, last) is INTEGRITY_ERROR before any
  extraction, for npm's SRI sha512, npm's sha1 ``shasum`` (only when there is no integrity),
  and PyPI's sha256 (wheel and sdist); nothing is cached.
- An artifact with no usable hash is refused rather than trusted.
- A registry that changes the artifact behind an exact version that is already cached does not
  touch the cached entry: the verified copy keeps being served, without asking the network. A
  fresh resolution (a latest alias whose TTL ran out) that finds a new hash builds a new entry
  beside the old one; the two never mix.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import pytest

from codenav.tools import list_files, read_file
from tests.fakes.archives import make_tgz, make_zip
from tests.fakes.http import Reply
from tests.fakes.npm import FakeNpm
from tests.fakes.pypi import FakePypi

from .support import assert_nothing_cached, cache_report, check_entry, error_of, snapshot

pytestmark = pytest.mark.hardening

FILES = {"index.js": b"module.exports = 'original';\n", "lib/util.js": b"exports.x = 1;\n" * 50}


def _flip(data: bytes, where: str) -> bytes:
    at = {"first": 0, "middle": len(data) // 2, "last": len(data) - 1}[where]
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:]


def _tamper(kind: str, where: str, npm: FakeNpm, pypi: FakePypi) -> dict:
    """Publish an artifact, then serve it with one byte changed under the published hash."""
    if kind.startswith("npm"):
        npm.publish("victim", "1.0.0", FILES, integrity=kind == "npm-sha512")
        record = npm.packages["victim"]["1.0.0"]
        record.tarball = _flip(record.tarball, where)
        return {"registry": "npm", "package_name": "victim", "version": "1.0.0"}
    if kind == "pypi-wheel":
        data, filename = make_zip({f"victim/{k}": v for k, v in FILES.items()}), "victim-1.0-py3-none-any.whl"
    else:
        data, filename = make_tgz(FILES, top="victim-1.0"), "victim-1.0.tar.gz"
    pypi.add("victim", filename, _flip(data, where), sha256=hashlib.sha256(data).hexdigest())
    return {"registry": "pypi", "package_name": "victim", "version": "1.0"}


ALGORITHM = {"npm-sha512": "sha512", "npm-sha1-only": "sha1", "pypi-wheel": "sha256", "pypi-sdist": "sha256"}


@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("kind", list(ALGORITHM))
def test_one_changed_byte_is_an_integrity_error_and_nothing_is_cached(
    kind: str, where: str, npm: FakeNpm, pypi: FakePypi, cache_dir: Path,
) -> None:
    """An artifact with one byte changed fails its published hash: INTEGRITY_ERROR, not retryable,
    found before extraction, and no entry, alias or debris is left."""
    args = _tamper(kind, where, npm, pypi)
    error = error_of(list_files.run, args)
    assert (error.code, error.retryable) == ("INTEGRITY_ERROR", False), error.message
    assert f"does not match its published {ALGORITHM[kind]} hash" in error.message
    assert_nothing_cached(cache_dir)


def test_sha512_is_checked_and_a_wrong_sha1_beside_it_is_ignored(npm: FakeNpm, cache_dir: Path) -> None:
    """With an SRI integrity present, the legacy shasum plays no part (npm does the same)."""
    npm.publish("both", "1.0.0", FILES)
    npm.packages["both"]["1.0.0"].shasum = hashlib.sha1(b"something else").hexdigest()
    assert [f["path"] for f in list_files.run({"registry": "npm", "package_name": "both",
                                                "version": "1.0.0"})["files"]] == sorted(FILES)


@pytest.mark.parametrize("case", ["npm-no-hash", "npm-malformed-sri", "pypi-no-sha256"])
def test_an_artifact_without_a_usable_hash_is_refused(case: str, npm: FakeNpm, pypi: FakePypi,
                                                      cache_dir: Path) -> None:
    """No hash, or only an unreadable one, is INTEGRITY_ERROR: codenav never trusts bytes blindly."""
    if case.startswith("npm"):
        npm.publish("bare", "1.0.0", FILES, integrity=False, shasum=False)
        if case == "npm-malformed-sri":
            npm.packages["bare"]["1.0.0"].integrity = "sha512-not*base64!"
        args = {"registry": "npm", "package_name": "bare", "version": "1.0.0"}
    else:
        doc = {"meta": {"api-version": "1.1"}, "name": "bare", "files": [
            {"filename": "bare-1.0-py3-none-any.whl", "url": "../../files/bare-1.0-py3-none-any.whl", "hashes": {}}]}
        pypi.add("bare", "bare-1.0-py3-none-any.whl", make_zip({"bare.py": b""}))
        pypi.server.route("GET", "/simple/bare/", lambda h: Reply(
            200, json.dumps(doc).encode(), {"Content-Type": "application/vnd.pypi.simple.v1+json"}))
        args = {"registry": "pypi", "package_name": "bare", "version": "1.0"}
    error = error_of(list_files.run, args)
    assert (error.code, error.retryable) == ("INTEGRITY_ERROR", False), error.message
    assert_nothing_cached(cache_dir)


def test_a_zip_member_failing_its_crc_is_an_integrity_error(pypi: FakePypi, cache_dir: Path) -> None:
    """A wheel whose published hash matches but whose member fails CRC-32 is refused, nothing cached."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("crc/data.txt", b"A" * 1000)
    data = buffer.getvalue().replace(b"A" * 1000, b"A" * 999 + b"B", 1)
    pypi.add("crc", "crc-1.0-py3-none-any.whl", data)
    error = error_of(list_files.run, {"registry": "pypi", "package_name": "crc", "version": "1.0"})
    assert (error.code, error.retryable) == ("INTEGRITY_ERROR", False), error.message
    assert "CRC" in error.message
    assert_nothing_cached(cache_dir)


# --- a registry that changes an artifact behind the cache ---------------------------------------


def _read(args: dict, path: str) -> str:
    return read_file.run({**args, "path": path})["content"]


def _listing(args: dict) -> list[str]:
    return [f["path"] for f in list_files.run(args)["files"]]


def _entry_dirs(cache: Path) -> list[Path]:
    return [cache / "entries" / key for key in cache_report(cache).entries]


@pytest.mark.parametrize("registry", ["npm", "pypi"])
def test_a_republished_exact_version_never_corrupts_the_cached_entry(
    registry: str, npm: FakeNpm, pypi: FakePypi, cache_dir: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After the registry swaps the artifact (and its hash) behind a cached exact version, the
    pin keeps serving the verified original without network; a fresh resolution makes a second
    entry for the new hash; each entry holds only its own files."""
    monkeypatch.setenv("CODENAV_RESOLVE_TTL", "0")  # every "latest" is resolved afresh
    old = {"index.js": b"original\n", "only-old.js": b"old\n"}
    new = {"index.js": b"replaced\n", "only-new.js": b"new\n"}
    if registry == "npm":
        npm.publish("swap", "1.0.0", old)
        pinned, latest, server = {"registry": "npm", "package_name": "swap", "version": "1.0.0"}, \
            {"registry": "npm", "package_name": "swap"}, npm.server
    else:
        pypi.add_wheel("swap", "1.0", old)
        pinned, latest, server = {"registry": "pypi", "package_name": "swap", "version": "1.0"}, \
            {"registry": "pypi", "package_name": "swap"}, pypi.server
    assert _read(pinned, "index.js") == "original\n"
    (first,) = _entry_dirs(cache_dir)
    first_before = snapshot(first)

    # The registry republishes the same version with other bytes and the matching new hash.
    if registry == "npm":
        npm.publish("swap", "1.0.0", new)
    else:
        pypi.projects["swap"].clear()
        pypi.add_wheel("swap", "1.0", new)
    requests_before = len(server.seen)
    assert _read(pinned, "index.js") == "original\n"
    assert _listing(pinned) == ["index.js", "only-old.js"]
    assert len(server.seen) == requests_before, "an exact, cached version must not ask the registry"

    # A fresh resolution sees the new hash: a second entry, built beside the first.
    assert _read(latest, "index.js") == "replaced\n"
    assert _listing(latest) == ["index.js", "only-new.js"]
    assert error_of(read_file.run, {**latest, "path": "only-old.js"}).code == "FILE_NOT_FOUND"
    entries = _entry_dirs(cache_dir)
    assert len(entries) == 2 and first in entries
    assert snapshot(first) == first_before, "the first entry changed"
    for entry in entries:
        check_entry(entry)
    assert _read(pinned, "only-old.js") == "old\n"


@pytest.mark.parametrize("registry", ["npm", "pypi"])
def test_bytes_changed_under_an_unchanged_hash_are_never_downloaded_again(
    registry: str, npm: FakeNpm, pypi: FakePypi, cache_dir: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When only the served bytes change (the hash does not), a fresh resolution lands on the
    same verified entry: no second download, the original content."""
    monkeypatch.setenv("CODENAV_RESOLVE_TTL", "0")
    if registry == "npm":
        npm.publish("same", "1.0.0", FILES)
        args = {"registry": "npm", "package_name": "same"}
    else:
        data = pypi.add_wheel("same", "1.0", FILES)
        args = {"registry": "pypi", "package_name": "same"}
    assert _read(args, "index.js") == FILES["index.js"].decode()
    if registry == "npm":
        npm.packages["same"]["1.0.0"].tarball = make_tgz({"index.js": b"evil\n"})
    else:
        pypi.projects["same"][0].sha256 = hashlib.sha256(data).hexdigest()
        pypi.projects["same"][0].data = make_zip({"index.js": b"evil\n"})
    server = npm.server if registry == "npm" else pypi.server
    downloads = [s.path for s in server.seen if s.path.startswith(("/-/", "/files/"))]
    assert len(downloads) == 1
    assert _read(args, "index.js") == FILES["index.js"].decode()
    assert len(_entry_dirs(cache_dir)) == 1
    assert [s.path for s in server.seen if s.path.startswith(("/-/", "/files/"))] == downloads


def test_a_tampered_replacement_leaves_the_cached_original_intact(npm: FakeNpm, cache_dir: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A new hash whose bytes do not match it is INTEGRITY_ERROR for the fresh resolution, and the
    already-cached original is neither removed nor changed."""
    monkeypatch.setenv("CODENAV_RESOLVE_TTL", "0")
    npm.publish("guarded", "1.0.0", FILES)
    pinned = {"registry": "npm", "package_name": "guarded", "version": "1.0.0"}
    assert _read(pinned, "index.js") == FILES["index.js"].decode()
    (first,) = _entry_dirs(cache_dir)
    before = snapshot(first)
    npm.publish("guarded", "1.0.0", {"index.js": b"second\n"})
    npm.packages["guarded"]["1.0.0"].tarball = make_tgz({"index.js": b"tampered\n"})
    error = error_of(list_files.run, {"registry": "npm", "package_name": "guarded"})
    assert error.code == "INTEGRITY_ERROR"
    assert _entry_dirs(cache_dir) == [first] and snapshot(first) == before
    assert cache_report(cache_dir).debris == []
    assert _read(pinned, "index.js") == FILES["index.js"].decode()
