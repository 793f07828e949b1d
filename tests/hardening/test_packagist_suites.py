"""The hardening suites, run against the fake Composer repository: the same cases, the same guarantees.

- hostile archives: every zip case of test_hostile_archives_e2e built from members (its "wheel"
  rows) inside the zipball's one top folder ``{Owner}-{repo}-{sha7}/``, which is stripped;
- integrity: one byte changed first, in the middle or last, under a published ``dist.shasum``;
  without one, nothing is claimed (``verified: false``);
- upstream faults: the HTTP fault table of test_upstream_faults, met by packages.json, the p2
  file, the zipball's 302 hop and the codeload download;
- bad arguments: names refused before any request, on both surfaces.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codenav.errors import CodenavError
from codenav.tools import list_files
from tests.conftest import run_cli
from tests.fakes.http import FakeServer
from tests.fakes.packagist import FakePackagist

from .support import STALL_SLACK, assert_nothing_cached, changes, check_entry, error_of, snapshot
from .test_hostile_archives_e2e import (
    _BOOKKEEPING,
    NEIGHBOUR_KEY,
    Case,
    _archive,
    _cases,
    _entries,
    _plant,
    listed_files,
)
from .test_integrity import _flip
from .test_upstream_faults import _HTTP_COMMON, FAULTS, TIMEOUT, TIMEOUT_VARIABLES

pytestmark = pytest.mark.hardening

NAME = "acme/victim"
ARGS = {"registry": "packagist", "package_name": NAME, "version": "1.0.0"}
TOP = "Acme-victim-abcdef0/"


@pytest.fixture(scope="module")
def packagist_server() -> Iterator[FakeServer]:
    with FakeServer() as server:
        yield server


@pytest.fixture
def repo(packagist_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakePackagist:
    """A fresh fake Composer repository (on the module's server) that CODENAV_COMPOSER_REPOSITORY points at."""
    packagist_server.routes.clear()
    packagist_server.prefix_routes.clear()
    packagist_server.seen.clear()
    fake = FakePackagist(packagist_server)
    monkeypatch.setenv("CODENAV_COMPOSER_REPOSITORY", fake.url)
    return fake


# --- hostile archives ---------------------------------------------------------------------------

# Cases given as raw bytes have no top folder to strip; every other zip case is built inside one.
ZIP_CASES = [p for p in _cases() if p.values[0] == "wheel" and not isinstance(p.values[1].members, bytes)]


@pytest.mark.parametrize(("fmt", "case"), ZIP_CASES)
def test_a_hostile_zipball_never_escapes_the_entry(fmt: str, case: Case, tmp_path: Path, repo: FakePackagist,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A crafted dist zip is refused (nothing cached) or its bad entries are skipped and reported;
    nothing outside the new entry's tree appears or changes."""
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    repo.publish(NAME, "1.0.0", {}, zip_bytes=_archive(case, fmt, TOP, tmp_path))
    _plant(tmp_path)
    cache = tmp_path / "cache"
    before = snapshot(tmp_path)
    try:
        result: dict | CodenavError = list_files.run(ARGS)
    except CodenavError as exc:
        result = exc
    new = sorted(_entries(cache) - {NEIGHBOUR_KEY})
    after = snapshot(tmp_path, skip=tuple(cache / "entries" / key for key in new))
    unexpected = {path: how for path, how in changes(before, after).items() if not _BOOKKEEPING.match(path)}
    assert unexpected == {}, "something outside the new entry appeared or changed"
    assert sorted(p.name for p in (cache / "tmp").iterdir()) == ["indexer.log"], "build debris left behind"
    if case.error is not None:
        code, fragment = case.error
        assert isinstance(result, CodenavError), f"expected {code}, got a listing"
        assert (result.code, result.retryable) == (code, False) and fragment in result.message, result.message
        assert str(tmp_path) not in result.message
        assert new == [] and not any((cache / "aliases").glob("*"))
        return
    assert not isinstance(result, CodenavError), result.message
    manifest = check_entry(cache / "entries" / new[0])
    got = {item["path"]: item["reason"] for item in manifest["skipped"]}
    expected = {name.replace("@TOP@", TOP): fragment for name, fragment in case.skipped.items()}
    assert set(got) == set(expected), got
    assert all(fragment in got[name] for name, fragment in expected.items())
    listed = listed_files(result, case)  # too-large members are listed apart (SPEC §3.7)
    assert case.files is not None and set(listed) == set(case.files)
    for path, content in case.files.items():
        if isinstance(content, str):
            assert listed[path] == content
        else:
            assert (cache / "entries" / new[0] / "tree" / path).read_bytes() == content


# --- integrity ----------------------------------------------------------------------------------

@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_one_changed_byte_under_a_shasum_is_an_integrity_error(where: str, repo: FakePackagist,
                                                               cache_dir: Path) -> None:
    """With a published dist.shasum, one byte changed anywhere is INTEGRITY_ERROR naming sha1, not
    retryable, and nothing is cached."""
    data = repo.publish(NAME, "1.0.0", {"src/A.php": b"<?php class A {}\n" * 40}, shasum=True)
    sha = repo.releases[NAME][0]["dist"]["reference"]
    repo.zips[sha] = _flip(data, where)
    error = error_of(list_files.run, ARGS)
    assert (error.code, error.retryable) == ("INTEGRITY_ERROR", False), error.message
    assert "does not match its published sha1 hash" in error.message
    assert_nothing_cached(cache_dir)


def test_without_a_shasum_nothing_is_claimed(repo: FakePackagist) -> None:
    """A dist without shasum is read but never reported verified; the reason names the git reference."""
    repo.publish(NAME, "1.0.0", {"src/A.php": b"<?php\n"})
    echo = list_files.run(ARGS)["target"]
    assert echo["verified"] is False and echo["verification"].startswith("not verified: the repository publishes no")


# --- upstream faults ----------------------------------------------------------------------------

PLACES = ("packages.json", "p2", "zipball", "codeload")
ROWS = []
for _place in PLACES:
    for _fault, _expected in _HTTP_COMMON.items():
        if _place == "zipball" and _fault in ("drip", "reset-mid-body", "truncated", "oversized"):
            continue  # the 302 hop has no body to cut, drip or inflate
        ROWS.append(pytest.param(_place, _fault, *_expected, id=f"packagist-{_place}-{_fault}"))
    if _place in ("packages.json", "p2"):
        ROWS.append(pytest.param(_place, "invalid-json", "PROTOCOL_ERROR", False, id=f"packagist-{_place}-invalid-json"))
        ROWS.append(pytest.param(_place, "wrong-content-type", "PROTOCOL_ERROR", False,
                                 id=f"packagist-{_place}-wrong-content-type"))
    else:  # a captive portal's page cannot match the published shasum
        ROWS.append(pytest.param(_place, "wrong-content-type", "INTEGRITY_ERROR", False,
                                 id=f"packagist-{_place}-wrong-content-type"))


@pytest.mark.parametrize(("place", "fault", "code", "retryable"), ROWS)
def test_a_repository_fault_is_a_typed_error_and_nothing_is_cached(place: str, fault: str, code: str,
                                                                    retryable: bool, repo: FakePackagist,
                                                                    tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Each fault of the shared table, met by packages.json, the p2 file, the zipball hop or the zip
    itself, becomes its code and retryable flag, promptly, and leaves nothing cached."""
    for variable in TIMEOUT_VARIABLES:
        monkeypatch.setenv(variable, TIMEOUT)
    data = repo.publish(NAME, "1.0.0", {"src/A.php": b"<?php\n"}, shasum=True)
    sha = repo.releases[NAME][0]["dist"]["reference"]
    paths = {"packages.json": "/packages.json", "p2": f"/p2/{NAME}.json",
             "zipball": f"/repos/Seldaek/victim/zipball/{sha}", "codeload": f"/codeload/Seldaek/victim/legacy.zip/{sha}"}
    handlers = {"packages.json": repo._root, "p2": repo._p2, "zipball": repo._zipball, "codeload": repo._codeload}
    make = FAULTS[fault]
    if fault == "oversized" and place == "codeload":
        monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", str(len(data) - 1))
        make = lambda good, other: good  # noqa: E731
    other = f"http://localhost:{repo.server.server_address[1]}/elsewhere"
    handler = handlers[place]
    repo.server.route("GET", paths[place], lambda h: make(handler(h), other))
    started = time.monotonic()
    try:
        outcome: Any = list_files.run(ARGS)
    except CodenavError as exc:
        outcome = exc
    elapsed = time.monotonic() - started
    assert isinstance(outcome, CodenavError), f"expected {code}, got a result"
    assert (outcome.code, outcome.retryable) == (code, retryable), outcome.message
    message = outcome.to_envelope()["error"]["message"]
    assert "\n" not in message and 'File "' not in message and str(tmp_path) not in message, message
    if fault in ("429", "503"):
        assert outcome.details["retryAfterSeconds"] == (7 if fault == "429" else 3)
    if fault in ("stall", "drip"):
        assert elapsed < float(TIMEOUT) + STALL_SLACK, f"took {elapsed:.1f} s"
    assert_nothing_cached(tmp_path / "cache")


# --- bad arguments ------------------------------------------------------------------------------

BAD = ["monolog", "monolog/", "/monolog", "a b/c", "a/b/c", "-a/b", "a/b.", "a..b/c", "a/b\nc", "a/b%2Fc"]


@pytest.mark.parametrize("name", BAD)
def test_a_bad_name_is_one_invalid_argument_on_both_surfaces(name: str, repo: FakePackagist) -> None:
    """A bad name is INVALID_ARGUMENT naming package_name, the same envelope from the in-process run
    and the CLI's --json, exit 1, and no request reaches the repository."""
    error = error_of(list_files.run, {"registry": "packagist", "package_name": name, "version": "1.0.0"})
    assert (error.code, error.details.get("field")) == ("INVALID_ARGUMENT", "package_name")
    proc = run_cli("files", f"packagist:{name}@1.0.0", "--json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout) == error.to_envelope()
    assert repo.server.seen == []
