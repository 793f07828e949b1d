"""The hardening suites, run against the fake Maven repository: the same cases, the same guarantees.

- hostile archives: every zip case of test_hostile_archives_e2e (its "wheel" rows: a zip listed
  as it is, which is what a sources jar is) published as a -sources.jar;
- integrity: one byte changed first, in the middle or last, under each side-file digest;
- upstream faults: the HTTP fault table of test_upstream_faults, met by maven-metadata.xml, by a
  side file and by the jar download;
- bad arguments: coordinates and versions refused before any request, on both surfaces.
"""

from __future__ import annotations

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
from tests.fakes.archives import make_zip
from tests.fakes.http import FakeServer, Reply
from tests.fakes.maven import FakeMaven

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

NAME = "org.example:victim"
JAR_PATH = "org/example/victim/1.0/victim-1.0-sources.jar"


@pytest.fixture(scope="module")
def maven_server() -> Iterator[FakeServer]:
    with FakeServer() as server:
        yield server


@pytest.fixture
def repo(maven_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeMaven:
    """A fresh fake Maven repository (on the module's server) that CODENAV_MAVEN_REPOSITORY points at."""
    maven_server.routes.clear()
    maven_server.prefix_routes.clear()
    maven_server.seen.clear()
    fake = FakeMaven(maven_server)
    monkeypatch.setenv("CODENAV_MAVEN_REPOSITORY", fake.url)
    return fake


# --- hostile archives ---------------------------------------------------------------------------

ZIP_CASES = [p for p in _cases() if p.values[0] == "wheel"]


@pytest.mark.parametrize(("fmt", "case"), ZIP_CASES)
def test_a_hostile_sources_jar_never_escapes_the_entry(fmt: str, case: Case, tmp_path: Path, repo: FakeMaven,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A crafted -sources.jar is refused (nothing cached) or its bad entries are skipped and reported;
    nothing outside the new entry's tree appears or changes."""
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    repo.publish(NAME, "1.0", sources_jar=_archive(case, fmt, "", tmp_path))
    _plant(tmp_path)
    cache = tmp_path / "cache"
    before = snapshot(tmp_path)
    try:
        result: dict | CodenavError = list_files.run({"registry": "maven", "package_name": NAME, "version": "1.0"})
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
    expected = {name.replace("@TOP@", ""): fragment for name, fragment in case.skipped.items()}  # a jar has no top
    assert set(got) == set(expected), got
    assert all(fragment in got[name] for name, fragment in expected.items())
    listed = listed_files(result, case)  # too-large members are listed apart (SPEC §3.7)
    assert case.files is not None and set(listed) == set(case.files)
    for path, expected in case.files.items():
        if isinstance(expected, str):
            assert listed[path] == expected
        else:
            assert (cache / "entries" / new[0] / "tree" / path).read_bytes() == expected


# --- integrity ----------------------------------------------------------------------------------

SIDES = {"sha512": ("md5", "sha1", "sha256", "sha512"), "sha256": ("md5", "sha1", "sha256"), "sha1": ("md5", "sha1")}


@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("algorithm", list(SIDES))
def test_one_changed_byte_is_an_integrity_error_under_each_side_file(algorithm: str, where: str, repo: FakeMaven,
                                                                      cache_dir: Path) -> None:
    """One byte changed anywhere fails the strongest side file present: INTEGRITY_ERROR naming that
    algorithm, not retryable, and nothing is cached."""
    data = make_zip({"org/example/Victim.java": b"class Victim {}\n" * 40})
    repo.publish(NAME, "1.0", sources_jar=data, sides=SIDES[algorithm])
    repo.files[JAR_PATH] = _flip(data, where)
    error = error_of(list_files.run, {"registry": "maven", "package_name": NAME, "version": "1.0"})
    assert (error.code, error.retryable) == ("INTEGRITY_ERROR", False), error.message
    assert f"does not match its published {algorithm} hash" in error.message
    assert_nothing_cached(cache_dir)


def test_a_weaker_side_file_never_stands_in_for_a_wrong_stronger_one(repo: FakeMaven, cache_dir: Path) -> None:
    """A wrong .sha512 beside a right .sha1 is still an integrity error: the strongest one is checked."""
    data = make_zip({"a.java": b"a\n"})
    repo.publish(NAME, "1.0", sources_jar=data)
    repo.files[JAR_PATH + ".sha512"] = hashlib.sha512(b"other bytes").hexdigest().encode()
    error = error_of(list_files.run, {"registry": "maven", "package_name": NAME, "version": "1.0"})
    assert error.code == "INTEGRITY_ERROR"
    assert_nothing_cached(cache_dir)


# --- upstream faults ----------------------------------------------------------------------------

PLACES = {"metadata": "org/example/victim/maven-metadata.xml", "side-file": JAR_PATH + ".sha512",
          "jar": JAR_PATH}
ROWS = []
for _place in PLACES:
    for _fault, _expected in _HTTP_COMMON.items():
        ROWS.append(pytest.param(_place, _fault, *_expected, id=f"maven-{_place}-{_fault}"))
    if _place != "jar":
        ROWS.append(pytest.param(_place, "wrong-content-type", "PROTOCOL_ERROR", False,
                                 id=f"maven-{_place}-wrong-content-type"))
    else:  # a captive portal's page instead of the jar cannot match the published digest
        ROWS.append(pytest.param(_place, "wrong-content-type", "INTEGRITY_ERROR", False,
                                 id="maven-jar-wrong-content-type"))


@pytest.mark.parametrize(("place", "fault", "code", "retryable"), ROWS)
def test_a_repository_fault_is_a_typed_error_and_nothing_is_cached(place: str, fault: str, code: str,
                                                                    retryable: bool, repo: FakeMaven, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Each fault of the shared table, met by the metadata, a side file or the jar, becomes its code
    and retryable flag, promptly, with a one-line message, and leaves nothing cached."""
    for variable in TIMEOUT_VARIABLES:
        monkeypatch.setenv(variable, TIMEOUT)
    repo.publish(NAME, "1.0", {"org/example/A.java": b"class A {}\n"})
    path = PLACES[place]
    kind = {"metadata": "text/xml", "side-file": "text/plain", "jar": "application/java-archive"}[place]
    good = Reply(200, repo.files[path], {"Content-Type": kind})
    make = FAULTS[fault]
    if fault == "oversized" and place == "jar":
        monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", str(len(repo.files[path]) - 1))
        make = lambda good, other: good  # noqa: E731
    other = f"http://localhost:{repo.server.server_address[1]}/elsewhere"
    repo.server.route("GET", "/maven2/" + path, lambda h: make(good, other))
    started = time.monotonic()
    try:
        outcome: Any = list_files.run({"registry": "maven", "package_name": NAME, "version": "1.0"})
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

BAD = [("org.slf4j", "package_name"), ("org.slf4j:", "package_name"), (":api", "package_name"),
       ("org..slf4j:api", "package_name"), ("org/slf4j:api", "package_name"), ("g:a:jar:1", "package_name"),
       ("org.slf4j:..", "package_name"), ("org.slf4j:a\nb", "package_name")]


@pytest.mark.parametrize(("name", "field"), BAD)
def test_a_bad_coordinate_is_one_invalid_argument_on_both_surfaces(name: str, field: str, repo: FakeMaven,
                                                                   tmp_path: Path) -> None:
    """A bad coordinate is INVALID_ARGUMENT naming the field, the same envelope from the MCP-side
    run and the CLI's --json, exit 1, and no request reaches the repository."""
    error = error_of(list_files.run, {"registry": "maven", "package_name": name, "version": "1.0"})
    assert (error.code, error.details.get("field")) == ("INVALID_ARGUMENT", field)
    proc = run_cli("files", f"maven:{name}@1.0", "--json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout) == error.to_envelope()
    assert repo.server.seen == []


def test_a_snapshot_version_is_refused_before_any_request(repo: FakeMaven) -> None:
    """`-SNAPSHOT` names no release: INVALID_ARGUMENT on version, nothing asked."""
    error = error_of(list_files.run, {"registry": "maven", "package_name": NAME, "version": "1.0-SNAPSHOT"})
    assert (error.code, error.details.get("field")) == ("INVALID_ARGUMENT", "version")
    assert repo.server.seen == []
