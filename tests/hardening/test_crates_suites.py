"""The hardening suites run against the fake crates registry: same cases, same guarantees.

- hostile archives: every tar case the suite runs for npm or a PyPI sdist (but npm's own strip
  rule), its top folder ``{name}-{version}/`` as in a .crate, run by the suite's own test body;
- integrity: one changed byte (first, middle, last) is INTEGRITY_ERROR with nothing cached, and
  a republished exact version never touches the cached entry;
- upstream faults: every HTTP fault of the suite's table, on the index file and on the .crate
  download, with the suite's own test body and expectations;
- bad arguments: crate names and versions cargo would refuse are INVALID_ARGUMENT naming the
  field, from the CLI and from the tool the MCP server runs, and no request reaches the registry.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codenav.tools import list_files
from tests.conftest import run_cli
from tests.fakes.crates import FakeCrates
from tests.fakes.http import FakeServer, Reply
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
def no_cargo_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CODENAV_CRATES_INDEX", "CARGO_HOME"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "work").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path / "work")


@pytest.fixture(scope="module")
def crates_server():
    with FakeServer() as server:
        yield server


@pytest.fixture
def crates(crates_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeCrates:
    for table in (crates_server.routes, crates_server.prefix_routes, crates_server.seen):
        table.clear()
    fake = FakeCrates(crates_server)
    monkeypatch.setenv("CODENAV_CRATES_INDEX", "sparse+" + fake.url)
    return fake


# --- hostile archives -----------------------------------------------------------------------------

def _tar_cases() -> list:
    """Every tar case of the suite once (a .crate is a tar.gz), except npm's own strip rule."""
    chosen: dict[str, object] = {}
    for p in hostile._cases():
        name = p.id.rsplit("-", 1)[0]
        if p.values[0] in ("npm", "sdist") and name != "npm-member-outside-the-top-folder":
            chosen.setdefault(name, p.values[1])
    return [pytest.param("crates", case, id=name) for name, case in chosen.items()]


TAR_CASES = _tar_cases()


@pytest.mark.parametrize(("fmt", "case"), TAR_CASES)
def test_hostile_crate_never_escapes_the_entry(fmt, case, request, tmp_path, crates, monkeypatch):
    """A crafted .crate is refused (nothing cached) or its bad entries are skipped and reported;
    nothing outside the new entry's tree appears or changes (the suite's own assertions)."""
    def top(fmt: str, project: str) -> str:
        return f"{project}-1.0.0/"

    def publish(fmt: str, data: bytes, npm, pypi, project: str) -> dict:
        crates.publish(project, "1.0.0", crate=data)
        return {"registry": "crates", "package_name": project, "version": "1.0.0"}

    monkeypatch.setattr(hostile, "_top", top)
    monkeypatch.setattr(hostile, "_publish", publish)
    hostile.test_hostile_archive_from_the_registry_never_escapes_the_entry(
        fmt, case, request, tmp_path, None, None, monkeypatch)


def test_the_hostile_cases_cover_every_tar_case_of_the_suite():
    """The crate run takes every npm and sdist case but npm's strip rule, each once."""
    names = {p.id.rsplit("-", 1)[0] for p in hostile._cases() if p.values[0] in ("npm", "sdist")}
    assert {p.id for p in TAR_CASES} == names - {"npm-member-outside-the-top-folder"}


# --- integrity ------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_one_changed_byte_is_an_integrity_error_and_nothing_is_cached(where, crates, tmp_path):
    """A .crate with one byte changed fails the index's sha256: INTEGRITY_ERROR, not retryable, nothing cached."""
    crates.publish("victim", "1.0.0", integrity.FILES)
    record = crates.crates["victim"][0]
    record.data = integrity._flip(record.data, where)
    error = error_of(list_files.run, {"registry": "crates", "package_name": "victim", "version": "1.0.0"})
    assert (error.code, error.retryable) == ("INTEGRITY_ERROR", False), error.message
    assert "does not match its published sha256 hash" in error.message
    assert_nothing_cached(tmp_path / "cache")


def test_a_republished_exact_version_never_corrupts_the_cached_entry(crates, tmp_path, monkeypatch):
    """After the index swaps the .crate (and its cksum) behind a cached exact version, the pin keeps
    serving the verified original without asking; a fresh resolution makes a second entry."""
    monkeypatch.setenv("CODENAV_RESOLVE_TTL", "0")
    assert_a_republish_keeps_the_pin("crates", crates, lambda: crates.crates["swap"].clear(), tmp_path / "cache")


# --- upstream faults ------------------------------------------------------------------------------

UPSTREAMS = {"crates": "crates-index", "crates-crate": "crates-download"}
FAULT_ROWS = [pytest.param(upstream, fault, code, retryable, id=f"{name}-{fault}")
              for upstream, name in UPSTREAMS.items()
              for (model, fault), (code, retryable) in faults.TABLE.items()
              if model == {"crates": "npm", "crates-crate": "npm-tarball"}[upstream]]


def _arrange_crates(upstream, fault, server, tmp_path, monkeypatch):
    """The suite's faults put on the crate's index file, or on its .crate download."""
    other = f"http://localhost:{server.server_address[1]}/elsewhere"
    make = faults.FAULTS[fault]
    fake = FakeCrates(server)
    data = fake.publish("pkg", "1.0.0", {"src/lib.rs": b"pub fn x() {}\n"})
    monkeypatch.setenv("CODENAV_CRATES_INDEX", fake.url)
    if upstream == "crates":
        good = Reply(200, fake.index_text("pkg").encode(), {"Content-Type": "text/plain"})
        server.route("GET", "/index/3/p/pkg", lambda h: make(good, other))
    else:
        good = Reply(200, data, {"Content-Type": "application/x-tar"})
        if fault == "oversized":  # the download cap is configurable: exceed it for real
            monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", str(len(data) - 1))
            make = lambda good, other: good  # noqa: E731
        server.route("GET", "/crates/pkg/pkg-1.0.0.crate", lambda h: make(good, other))
    return lambda: list_files.run({"registry": "crates", "package_name": "pkg", "version": "1.0.0"})


def _arrange(upstream, fault, server, tmp_path, monkeypatch, original=faults._arrange):
    if upstream.startswith("crates"):
        return _arrange_crates(upstream, fault, server, tmp_path, monkeypatch)
    return original(upstream, fault, server, tmp_path, monkeypatch)


@pytest.fixture
def fresh(crates_server: FakeServer) -> FakeServer:
    for table in (crates_server.routes, crates_server.prefix_routes, crates_server.seen):
        table.clear()
    return crates_server


@pytest.mark.parametrize(("upstream", "fault", "code", "retryable"), FAULT_ROWS)
def test_crates_upstream_fault_is_a_typed_error_and_nothing_is_cached(upstream, fault, code, retryable, fresh,
                                                                      tmp_path, monkeypatch):
    """Each fault of the suite's table, on the index or the download, is its specified code and
    retryable flag, promptly, with nothing cached (the suite's own test body)."""
    monkeypatch.setattr(faults, "_arrange", _arrange)
    faults.test_upstream_fault_is_a_typed_error_and_nothing_is_cached(
        upstream, fault, code, retryable, fresh, tmp_path, monkeypatch)


# --- bad arguments --------------------------------------------------------------------------------

BAD = [
    ("name-digit-first", {"package_name": "9lives"}, "crates:9lives", "package_name"),
    ("name-dash-first", {"package_name": "-x"}, "crates:-x", "package_name"),
    ("name-dot", {"package_name": "a.b"}, "crates:a.b", "package_name"),
    ("name-space", {"package_name": "a b"}, "crates:a b", "package_name"),
    ("name-slash", {"package_name": "a/b"}, "crates:a/b", "package_name"),
    ("name-traversal", {"package_name": "../x"}, "crates:../x", "package_name"),
    ("name-non-ascii", {"package_name": "naïve"}, "crates:naïve", "package_name"),
    ("name-65", {"package_name": "a" * 65}, "crates:" + "a" * 65, "package_name"),
    ("version-shell", {"package_name": "serde", "version": "1.0.0 ; rm -rf /"}, "crates:serde@1.0.0 ; rm -rf /",
     "version"),
    ("version-traversal", {"package_name": "serde", "version": "../../1"}, "cargo:serde@../../1", "version"),
]


@pytest.mark.parametrize(("kind", "arguments", "spec", "field"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_crate_argument_is_invalid_on_both_surfaces_and_reaches_no_registry(kind, arguments, spec, field,
                                                                                    crates):
    """INVALID_ARGUMENT naming the field, exit 1, the CLI's envelope equal to the tool's own (what MCP
    returns), and no request sent."""
    mcp = error_of(list_files.run, {"registry": "crates", **arguments}).to_envelope()
    proc = run_cli("files", spec, "--json")
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr
    envelope = json.loads(proc.stdout)
    assert envelope["error"]["code"] == "INVALID_ARGUMENT" and envelope["error"]["details"]["field"] == field
    assert envelope == json.loads(json.dumps(mcp, sort_keys=True))
    assert crates.server.seen == []


def test_the_fault_rows_cover_both_crates_upstreams():
    """Every npm document and tarball fault has its crates twin."""
    names = {p.id.split("-")[0] + "-" + p.id.split("-")[1] for p in FAULT_ROWS}
    assert names == {"crates-index", "crates-download"}
    assert len(FAULT_ROWS) == sum(1 for (u, _f) in faults.TABLE if u in ("npm", "npm-tarball"))
