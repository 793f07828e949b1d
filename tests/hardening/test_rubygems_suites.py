"""The hardening suites run against the fake RubyGems source: same cases, same guarantees.

- hostile archives: every tar case the suite runs for npm or a PyPI sdist (but the two folder
  rules, which a gem does not have), as the ``data.tar.gz`` of a well-formed .gem with no top
  folder, run by the suite's own test body;
- integrity: one changed byte (first, middle, last) of the .gem is INTEGRITY_ERROR with nothing
  cached, and a republished version never touches the cached entry;
- upstream faults: every HTTP fault of the suite's table, on the compact index and on the .gem
  download, with the suite's own test body and expectations;
- bad arguments: gem names and versions RubyGems would refuse are INVALID_ARGUMENT naming the
  field, from the CLI and from the tool the MCP server runs, and no request reaches the registry.
"""

from __future__ import annotations

import json

import pytest

from codenav.tools import list_files
from tests.conftest import run_cli
from tests.fakes.http import FakeServer, Reply
from tests.fakes.rubygems import FakeRubygems, make_gem
from tests.hardening import test_hostile_archives_e2e as hostile
from tests.hardening import test_integrity as integrity
from tests.hardening import test_upstream_faults as faults

from .support import (
    assert_a_republish_keeps_the_pin,
    assert_nothing_cached,
    error_of,
)

pytestmark = pytest.mark.hardening


@pytest.fixture(autouse=True)
def no_gem_config(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CODENAV_RUBYGEMS_SOURCE", "GEMRC"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def gems_server():
    with FakeServer() as server:
        yield server


@pytest.fixture
def gems(gems_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeRubygems:
    for table in (gems_server.routes, gems_server.prefix_routes, gems_server.seen):
        table.clear()
    fake = FakeRubygems(gems_server)
    monkeypatch.setenv("CODENAV_RUBYGEMS_SOURCE", fake.url)
    return fake


# --- hostile archives -----------------------------------------------------------------------------

FOLDER_RULES = {"npm-member-outside-the-top-folder", "sdist-member-outside-its-folder"}


def _tar_cases() -> list:
    """Every tar case of the suite once (data.tar.gz is a tar.gz), except the folder rules."""
    chosen: dict[str, object] = {}
    for p in hostile._cases():
        name = p.id.rsplit("-", 1)[0]
        if p.values[0] in ("npm", "sdist") and name not in FOLDER_RULES:
            chosen.setdefault(name, p.values[1])
    return [pytest.param("rubygems", case, id=name) for name, case in chosen.items()]


TAR_CASES = _tar_cases()


@pytest.mark.parametrize(("fmt", "case"), TAR_CASES)
def test_hostile_gem_never_escapes_the_entry(fmt, case, request, tmp_path, gems, monkeypatch):
    """A crafted data.tar.gz is refused (nothing cached) or its bad entries are skipped and reported;
    nothing outside the new entry's tree appears or changes (the suite's own assertions)."""
    def top(fmt: str, project: str) -> str:
        return ""  # a gem's files have no top folder

    def publish(fmt: str, data: bytes, npm, pypi, project: str) -> dict:
        gems.publish(project, "1.0.0", gem=make_gem(project, "1.0.0", {}, data_tar=data))
        return {"registry": "rubygems", "package_name": project, "version": "1.0.0"}

    monkeypatch.setattr(hostile, "_top", top)
    monkeypatch.setattr(hostile, "_publish", publish)
    hostile.test_hostile_archive_from_the_registry_never_escapes_the_entry(
        fmt, case, request, tmp_path, None, None, monkeypatch)


def test_the_hostile_cases_cover_every_tar_case_of_the_suite():
    """The gem run takes every npm and sdist case but the two folder rules, each once."""
    names = {p.id.rsplit("-", 1)[0] for p in hostile._cases() if p.values[0] in ("npm", "sdist")}
    assert {p.id for p in TAR_CASES} == names - FOLDER_RULES


# --- integrity ------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_one_changed_byte_is_an_integrity_error_and_nothing_is_cached(where, gems, tmp_path):
    """A .gem with one byte changed fails the index's sha256: INTEGRITY_ERROR, not retryable, nothing cached."""
    gems.publish("victim", "1.0.0", integrity.FILES)
    record = gems.record("victim", "1.0.0")
    record.data = integrity._flip(record.data, where)
    error = error_of(list_files.run, {"registry": "rubygems", "package_name": "victim", "version": "1.0.0"})
    assert (error.code, error.retryable) == ("INTEGRITY_ERROR", False), error.message
    assert "does not match its published sha256 hash" in error.message
    assert_nothing_cached(tmp_path / "cache")


def test_a_republished_exact_version_never_corrupts_the_cached_entry(gems, tmp_path, monkeypatch):
    """After the index swaps the .gem (and its checksum) behind a cached exact version, the pin keeps
    serving the verified original without asking; a fresh resolution makes a second entry."""
    monkeypatch.setenv("CODENAV_RESOLVE_TTL", "0")
    assert_a_republish_keeps_the_pin("rubygems", gems, lambda: gems.gems["swap"].clear(), tmp_path / "cache")


# --- upstream faults ------------------------------------------------------------------------------

UPSTREAMS = {"rubygems": "rubygems-index", "rubygems-gem": "rubygems-download"}
FAULT_ROWS = [pytest.param(upstream, fault, code, retryable, id=f"{name}-{fault}")
              for upstream, name in UPSTREAMS.items()
              for (model, fault), (code, retryable) in faults.TABLE.items()
              if model == {"rubygems": "npm", "rubygems-gem": "npm-tarball"}[upstream]]


def _arrange_gems(upstream, fault, server, tmp_path, monkeypatch):
    """The suite's faults put on the gem's compact index file, or on its .gem download."""
    other = f"http://localhost:{server.server_address[1]}/elsewhere"
    make = faults.FAULTS[fault]
    fake = FakeRubygems(server)
    data = fake.publish("pkg", "1.0.0", {"lib/pkg.rb": b"module Pkg; end\n"})
    monkeypatch.setenv("CODENAV_RUBYGEMS_SOURCE", fake.url)
    if upstream == "rubygems":
        good = Reply(200, fake.info_text("pkg").encode(), {"Content-Type": "text/plain"})
        server.route("GET", "/info/pkg", lambda h: make(good, other))
    else:
        good = Reply(200, data, {"Content-Type": "application/octet-stream"})
        if fault == "oversized":  # the download cap is configurable: exceed it for real
            monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", str(len(data) - 1))
            make = lambda good, other: good  # noqa: E731
        server.route("GET", "/gems/pkg-1.0.0.gem", lambda h: make(good, other))
    return lambda: list_files.run({"registry": "rubygems", "package_name": "pkg", "version": "1.0.0"})


def _arrange(upstream, fault, server, tmp_path, monkeypatch, original=faults._arrange):
    if upstream.startswith("rubygems"):
        return _arrange_gems(upstream, fault, server, tmp_path, monkeypatch)
    return original(upstream, fault, server, tmp_path, monkeypatch)


@pytest.fixture
def fresh(gems_server: FakeServer) -> FakeServer:
    for table in (gems_server.routes, gems_server.prefix_routes, gems_server.seen):
        table.clear()
    return gems_server


@pytest.mark.parametrize(("upstream", "fault", "code", "retryable"), FAULT_ROWS)
def test_rubygems_upstream_fault_is_a_typed_error_and_nothing_is_cached(upstream, fault, code, retryable, fresh,
                                                                      tmp_path, monkeypatch):
    """Each fault of the suite's table, on the index or the download, is its specified code and
    retryable flag, promptly, with nothing cached (the suite's own test body)."""
    monkeypatch.setattr(faults, "_arrange", _arrange)
    faults.test_upstream_fault_is_a_typed_error_and_nothing_is_cached(
        upstream, fault, code, retryable, fresh, tmp_path, monkeypatch)


# --- bad arguments --------------------------------------------------------------------------------

BAD = [
    ("name-digits-only", {"package_name": "123"}, "rubygems:123", "package_name"),
    ("name-dash-first", {"package_name": "-x"}, "rubygems:-x", "package_name"),
    ("name-dot-first", {"package_name": ".x"}, "rubygems:.x", "package_name"),
    ("name-space", {"package_name": "a b"}, "rubygems:a b", "package_name"),
    ("name-slash", {"package_name": "a/b"}, "rubygems:a/b", "package_name"),
    ("name-traversal", {"package_name": "../x"}, "rubygems:../x", "package_name"),
    ("name-non-ascii", {"package_name": "naïve"}, "rubygems:naïve", "package_name"),
    ("version-shell", {"package_name": "rails", "version": "1.0.0 ; rm -rf /"}, "rubygems:rails@1.0.0 ; rm -rf /",
     "version"),
    ("version-traversal", {"package_name": "rails", "version": "../../1"}, "gem:rails@../../1", "version"),
]


@pytest.mark.parametrize(("kind", "arguments", "spec", "field"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_gem_argument_is_invalid_on_both_surfaces_and_reaches_no_registry(kind, arguments, spec, field,
                                                                                  gems):
    """INVALID_ARGUMENT naming the field, exit 1, the CLI's envelope equal to the tool's own (what MCP
    returns), and no request sent."""
    mcp = error_of(list_files.run, {"registry": "rubygems", **arguments}).to_envelope()
    proc = run_cli("files", spec, "--json")
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr
    envelope = json.loads(proc.stdout)
    assert envelope["error"]["code"] == "INVALID_ARGUMENT" and envelope["error"]["details"]["field"] == field
    assert envelope == json.loads(json.dumps(mcp, sort_keys=True))
    assert gems.server.seen == []


def test_the_fault_rows_cover_both_rubygems_upstreams():
    """Every npm document and tarball fault has its rubygems twin."""
    names = {p.id.split("-")[0] + "-" + p.id.split("-")[1] for p in FAULT_ROWS}
    assert names == {"rubygems-index", "rubygems-download"}
    assert len(FAULT_ROWS) == sum(1 for (u, _f) in faults.TABLE if u in ("npm", "npm-tarball"))
