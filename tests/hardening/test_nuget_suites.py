"""The hardening suites, run against the fake NuGet feed: the same cases, the same guarantees.

- hostile archives: every zip case of test_hostile_archives_e2e (its "wheel" rows: a zip listed
  as it is, which is what a .nupkg is) published as a .nupkg, names %-decoded on the way;
- integrity: one byte changed first, in the middle or last, under the catalog's packageHash;
- upstream faults: the HTTP fault table of test_upstream_faults, met by the service index, the
  gzip-encoded registration, the catalog leaf and the .nupkg download;
- bad arguments: ids refused before any request, on both surfaces.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codenav.errors import CodenavError
from codenav.tools import list_files
from tests.conftest import run_cli
from tests.fakes.http import FakeServer, Reply
from tests.fakes.nuget import FakeNuget, nupkg

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

ARGS = {"registry": "nuget", "package_name": "Victim.Package", "version": "1.0.0"}


@pytest.fixture(scope="module")
def nuget_server() -> Iterator[FakeServer]:
    with FakeServer() as server:
        yield server


@pytest.fixture
def feed(nuget_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeNuget:
    """A fresh fake NuGet feed (on the module's server) that CODENAV_NUGET_SOURCE points at."""
    nuget_server.routes.clear()
    nuget_server.prefix_routes.clear()
    nuget_server.seen.clear()
    fake = FakeNuget(nuget_server)
    monkeypatch.setenv("CODENAV_NUGET_SOURCE", fake.url)
    return fake


# --- hostile archives ---------------------------------------------------------------------------

ZIP_CASES = [p for p in _cases() if p.values[0] == "wheel"]


@pytest.mark.parametrize(("fmt", "case"), ZIP_CASES)
def test_a_hostile_nupkg_never_escapes_the_entry(fmt: str, case: Case, tmp_path: Path, feed: FakeNuget,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A crafted .nupkg is refused (nothing cached) or its bad entries are skipped and reported;
    nothing outside the new entry's tree appears or changes."""
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    feed.publish("Victim.Package", "1.0.0", data=_archive(case, fmt, "", tmp_path))
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
    expected = {name.replace("@TOP@", ""): fragment for name, fragment in case.skipped.items()}  # no top folder
    assert set(got) == set(expected), got
    assert all(fragment in got[name] for name, fragment in expected.items())
    listed = listed_files(result, case)  # too-large members are listed apart (SPEC §3.7)
    assert case.files is not None and set(listed) == set(case.files)
    for path, content in case.files.items():
        if isinstance(content, str):
            assert listed[path] == content
        else:
            assert (cache / "entries" / new[0] / "tree" / path).read_bytes() == content


ESCAPED = [  # (names as packed, %-escaped) -> the outcome once decoded
    pytest.param(["%2E%2E/%2E%2E/escape.txt"], ("UNSAFE_ARCHIVE", "'..' path segment"), {}, id="escaped-dotdot"),
    pytest.param(["lib/..%2F..%2Fescape.txt", "ok.txt"], None, {"lib/..%2F..%2Fescape.txt": "escaped '/'"},
                 id="escaped-slash"),
    pytest.param(["%2Fabs.txt"], None, {"%2Fabs.txt": "escaped '/'"}, id="escaped-absolute"),
    pytest.param(["a%0Ab.txt", "ok.txt"], None, {"a\\nb.txt": "control characters"}, id="escaped-newline"),
    pytest.param(["a%FFb.txt", "ok.txt"], None, {"a\\xffb.txt": "not valid UTF-8"}, id="escaped-non-utf8"),
]


@pytest.mark.parametrize(("names", "error", "skipped"), ESCAPED)
def test_escaped_names_are_held_to_every_rule_once_decoded(names: list[str], error: tuple[str, str] | None,
                                                           skipped: dict[str, str], feed: FakeNuget,
                                                           cache_dir: Path) -> None:
    """%-decoding never opens a way out: a decoded '..' refuses the archive, an escaped '/' is
    skipped rather than split, decoded control bytes and non-UTF-8 are skipped and reported."""
    feed.publish("Victim.Package", "1.0.0", data=nupkg("Victim.Package", "1.0.0", {n: b"x" for n in names},
                                                        raw_names=True))
    try:
        result: Any = list_files.run(ARGS)
    except CodenavError as exc:
        result = exc
    if error is not None:
        assert isinstance(result, CodenavError) and (result.code, error[1] in result.message) == (error[0], True)
        assert_nothing_cached(cache_dir)
        return
    assert not isinstance(result, CodenavError), result.message
    got = {item["path"]: item["reason"] for item in result["skipped"]["examples"]}
    assert set(got) == set(skipped) and all(f in got[k] for k, f in skipped.items()), got


# --- integrity ----------------------------------------------------------------------------------

@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_one_changed_byte_is_an_integrity_error(where: str, feed: FakeNuget, cache_dir: Path) -> None:
    """One byte changed anywhere fails the catalog's packageHash: INTEGRITY_ERROR naming sha512, not
    retryable, and nothing is cached."""
    data = feed.publish("Victim.Package", "1.0.0")
    record = feed.packages["victim.package"][0]
    record.package_hash = base64.b64encode(hashlib.sha512(data).digest()).decode()
    record.data = _flip(data, where)
    error = error_of(list_files.run, ARGS)
    assert (error.code, error.retryable) == ("INTEGRITY_ERROR", False), error.message
    assert "does not match its published sha512 hash" in error.message
    assert_nothing_cached(cache_dir)


def test_a_catalog_leaf_with_another_algorithm_is_refused(feed: FakeNuget, cache_dir: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A packageHashAlgorithm other than SHA512 is never trusted: INTEGRITY_ERROR, nothing cached."""
    feed.publish("Victim.Package", "1.0.0")
    leaf = "/v3/catalog0/data/2026.08.01.12.00.00/victim.package.1.0.0.json"
    feed.server.route("GET", leaf, lambda h: Reply.json({"packageHash": "AAAA", "packageHashAlgorithm": "MD5"}))
    error = error_of(list_files.run, ARGS)
    assert error.code == "INTEGRITY_ERROR"
    assert_nothing_cached(cache_dir)


# --- upstream faults ----------------------------------------------------------------------------

PLACES = {
    "service-index": "/v3/index.json",
    "registration": "/v3/registration5-gz-semver2/victim.package/index.json",
    "catalog-leaf": "/v3/catalog0/data/2026.08.01.12.00.00/victim.package.1.0.0.json",
    "nupkg": "/v3-flatcontainer/victim.package/1.0.0/victim.package.1.0.0.nupkg",
}
ROWS = []
for _place in PLACES:
    for _fault, _expected in _HTTP_COMMON.items():
        ROWS.append(pytest.param(_place, _fault, *_expected, id=f"nuget-{_place}-{_fault}"))
    # a captive portal's page: unreadable as a document, or not matching the published digest
    ROWS.append(pytest.param(_place, "wrong-content-type", "INTEGRITY_ERROR" if _place == "nupkg" else "PROTOCOL_ERROR",
                             False, id=f"nuget-{_place}-wrong-content-type"))
    if _place != "nupkg":
        ROWS.append(pytest.param(_place, "invalid-json", "PROTOCOL_ERROR", False, id=f"nuget-{_place}-invalid-json"))


def _good(feed: FakeNuget, place: str) -> Reply:
    if place == "service-index":
        return Reply.json(feed.service_index())
    if place == "registration":
        return Reply(200, gzip.compress(json.dumps(feed.registration("victim.package")).encode()),
                     {"Content-Type": "application/json", "Content-Encoding": "gzip"})
    if place == "catalog-leaf":
        data = feed.packages["victim.package"][0].data
        return Reply.json({"packageHash": base64.b64encode(hashlib.sha512(data).digest()).decode(),
                           "packageHashAlgorithm": "SHA512", "packageSize": len(data)})
    return Reply(200, feed.packages["victim.package"][0].data, {"Content-Type": "application/octet-stream"})


@pytest.mark.parametrize(("place", "fault", "code", "retryable"), ROWS)
def test_a_feed_fault_is_a_typed_error_and_nothing_is_cached(place: str, fault: str, code: str, retryable: bool,
                                                             feed: FakeNuget, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Each fault of the shared table, met by the service index, the registration, the catalog leaf
    or the .nupkg, becomes its code and retryable flag, promptly, and leaves nothing cached."""
    for variable in TIMEOUT_VARIABLES:
        monkeypatch.setenv(variable, TIMEOUT)
    feed.publish("Victim.Package", "1.0.0")
    good = _good(feed, place)
    make = FAULTS[fault]
    if fault == "oversized" and place == "nupkg":
        monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", str(len(good.body) - 1))
        make = lambda good, other: good  # noqa: E731
    other = f"http://localhost:{feed.server.server_address[1]}/elsewhere"
    feed.server.route("GET", PLACES[place], lambda h: make(good, other))
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

BAD = ["Newtonsoft..Json", ".Json", "Json.", "a b", "a/b", "a%2Fb", "x" * 101, "Json\nx"]


@pytest.mark.parametrize("name", BAD)
def test_a_bad_id_is_one_invalid_argument_on_both_surfaces(name: str, feed: FakeNuget) -> None:
    """A bad id is INVALID_ARGUMENT naming package_name, the same envelope from the in-process run and
    the CLI's --json, exit 1, and no request reaches the feed."""
    error = error_of(list_files.run, {"registry": "nuget", "package_name": name, "version": "1.0.0"})
    assert (error.code, error.details.get("field")) == ("INVALID_ARGUMENT", "package_name")
    proc = run_cli("files", f"nuget:{name}@1.0.0", "--json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout) == error.to_envelope()
    assert feed.server.seen == []
