"""The hardening suites run against the fake Hex: same cases, same guarantees.

- hostile archives: every tar case the suite runs for npm or a PyPI sdist (but the two folder
  rules, which a Hex tarball does not have), as the ``contents.tar.gz`` of a well-formed outer
  tar with no top folder, run by the suite's own test body;
- integrity: one changed byte (first, middle, last) of the outer tar is INTEGRITY_ERROR with
  nothing cached, and a republished release never touches the cached entry;
- upstream faults: every HTTP fault of the suite's table, on the API's package document, on the
  signed registry file and on the tarball download, with the suite's own test body and expectations;
- bad arguments: package names and versions Hex would refuse are INVALID_ARGUMENT naming the
  field, from the CLI and from the tool the MCP server runs, and no request reaches the registry.
"""

from __future__ import annotations

import json
import shutil

import pytest

from codenav.tools import list_files
from tests.conftest import run_cli
from tests.fakes.hex import FakeHex, make_tarball
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
def no_hex_config(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CODENAV_HEX_REPO", "CODENAV_HEX_API", "HEX_MIRROR", "HEX_API_URL", "HEX_HOME"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def hex_server():
    with FakeServer() as server:
        yield server


@pytest.fixture
def hexpm(hex_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeHex:
    for table in (hex_server.routes, hex_server.prefix_routes, hex_server.seen):
        table.clear()
    fake = FakeHex(hex_server)
    monkeypatch.setenv("CODENAV_HEX_API", fake.api_url)
    monkeypatch.setenv("CODENAV_HEX_REPO", fake.repo_url)
    return fake


# --- hostile archives -----------------------------------------------------------------------------

FOLDER_RULES = {"npm-member-outside-the-top-folder", "sdist-member-outside-its-folder"}


def _tar_cases() -> list:
    """Every tar case of the suite once (contents.tar.gz is a tar.gz), except the folder rules."""
    chosen: dict[str, object] = {}
    for p in hostile._cases():
        name = p.id.rsplit("-", 1)[0]
        if p.values[0] in ("npm", "sdist") and name not in FOLDER_RULES:
            chosen.setdefault(name, p.values[1])
    return [pytest.param("hex", case, id=name) for name, case in chosen.items()]


TAR_CASES = _tar_cases()


@pytest.mark.parametrize(("fmt", "case"), TAR_CASES)
def test_hostile_hex_tarball_never_escapes_the_entry(fmt, case, request, tmp_path, hexpm, monkeypatch):
    """A crafted contents.tar.gz is refused (nothing cached) or its bad entries are skipped and reported;
    nothing outside the new entry's tree appears or changes (the suite's own assertions)."""
    def top(fmt: str, project: str) -> str:
        return ""  # a Hex package's files have no top folder

    def publish(fmt: str, data: bytes, npm, pypi, project: str) -> dict:
        hexpm.publish(project, "1.0.0", tarball=make_tarball(project, "1.0.0", {}, contents=data))
        return {"registry": "hex", "package_name": project, "version": "1.0.0"}

    monkeypatch.setattr(hostile, "_top", top)
    monkeypatch.setattr(hostile, "_publish", publish)
    hostile.test_hostile_archive_from_the_registry_never_escapes_the_entry(
        fmt, case, request, tmp_path, None, None, monkeypatch)


def test_the_hostile_cases_cover_every_tar_case_of_the_suite():
    """The Hex run takes every npm and sdist case but the two folder rules, each once."""
    names = {p.id.rsplit("-", 1)[0] for p in hostile._cases() if p.values[0] in ("npm", "sdist")}
    assert {p.id for p in TAR_CASES} == names - FOLDER_RULES


# --- integrity ------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_one_changed_byte_is_an_integrity_error_and_nothing_is_cached(where, hexpm, tmp_path):
    """An outer tar with one byte changed fails the API's sha256: INTEGRITY_ERROR, not retryable, nothing cached."""
    hexpm.publish("victim", "1.0.0", integrity.FILES)
    record = hexpm.release("victim", "1.0.0")
    record.data = integrity._flip(record.data, where)
    error = error_of(list_files.run, {"registry": "hex", "package_name": "victim", "version": "1.0.0"})
    assert (error.code, error.retryable) == ("INTEGRITY_ERROR", False), error.message
    assert "does not match its published sha256 hash" in error.message
    assert_nothing_cached(tmp_path / "cache")


def test_a_republished_exact_version_never_corrupts_the_cached_entry(hexpm, tmp_path, monkeypatch):
    """After the API swaps the tarball (and its checksum) behind a cached exact version, the pin keeps
    serving the verified original without asking; a fresh resolution makes a second entry."""
    monkeypatch.setenv("CODENAV_RESOLVE_TTL", "0")
    assert_a_republish_keeps_the_pin("hex", hexpm, lambda: hexpm.packages["swap"].clear(), tmp_path / "cache")


# --- upstream faults ------------------------------------------------------------------------------

UPSTREAMS = {"hex": "hex-api", "hex-tarball": "hex-download", "hex-registry": "hex-registry"}
FAULT_ROWS = [pytest.param(upstream, fault, code, retryable, id=f"{name}-{fault}")
              for upstream, name in UPSTREAMS.items()
              for (model, fault), (code, retryable) in faults.TABLE.items()
              if model == {"hex": "npm", "hex-tarball": "npm-tarball", "hex-registry": "npm"}[upstream]]


class _Request:
    """Just enough of a request handler to ask the fake for its healthy answer."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.headers = {"User-Agent": "test"}


def _arrange_hex(upstream, fault, server, tmp_path, monkeypatch):
    """The suite's faults put on the package document, or on the tarball download."""
    other = f"http://localhost:{server.server_address[1]}/elsewhere"
    make = faults.FAULTS[fault]
    fake = FakeHex(server, signed=upstream == "hex-registry")
    data = fake.publish("pkg", "1.0.0", {"lib/pkg.ex": b"defmodule Pkg do\nend\n"})
    monkeypatch.setenv("CODENAV_HEX_REPO", fake.repo_url)
    if upstream == "hex-registry":  # a mirror of the repository alone: the signed registry is read
        if shutil.which("openssl") is None:
            pytest.skip("openssl makes the fake's signing key")
        good = fake._registry(_Request("/repo/packages/pkg"))
        server.route("GET", "/repo/packages/pkg", lambda h: make(good, other))
        return lambda: list_files.run({"registry": "hex", "package_name": "pkg", "version": "1.0.0"})
    monkeypatch.setenv("CODENAV_HEX_API", fake.api_url)
    if upstream == "hex":
        good = Reply.json(fake.package_doc("pkg"))
        server.route("GET", "/api/packages/pkg", lambda h: make(good, other))
    else:
        good = Reply(200, data, {"Content-Type": "application/octet-stream"})
        if fault == "oversized":  # the download cap is configurable: exceed it for real
            monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", str(len(data) - 1))
            make = lambda good, other: good  # noqa: E731
        server.route("GET", "/repo/tarballs/pkg-1.0.0.tar", lambda h: make(good, other))
    return lambda: list_files.run({"registry": "hex", "package_name": "pkg", "version": "1.0.0"})


def _arrange(upstream, fault, server, tmp_path, monkeypatch, original=faults._arrange):
    if upstream.startswith("hex"):
        return _arrange_hex(upstream, fault, server, tmp_path, monkeypatch)
    return original(upstream, fault, server, tmp_path, monkeypatch)


@pytest.fixture
def fresh(hex_server: FakeServer) -> FakeServer:
    for table in (hex_server.routes, hex_server.prefix_routes, hex_server.seen):
        table.clear()
    return hex_server


@pytest.mark.parametrize(("upstream", "fault", "code", "retryable"), FAULT_ROWS)
def test_hex_upstream_fault_is_a_typed_error_and_nothing_is_cached(upstream, fault, code, retryable, fresh,
                                                                      tmp_path, monkeypatch):
    """Each fault of the suite's table, on the index or the download, is its specified code and
    retryable flag, promptly, with nothing cached (the suite's own test body)."""
    monkeypatch.setattr(faults, "_arrange", _arrange)
    faults.test_upstream_fault_is_a_typed_error_and_nothing_is_cached(
        upstream, fault, code, retryable, fresh, tmp_path, monkeypatch)


# --- bad arguments --------------------------------------------------------------------------------

BAD = [
    ("name-digit-first", {"package_name": "1abc"}, "hex:1abc", "package_name"),
    ("name-underscore-first", {"package_name": "_x"}, "hex:_x", "package_name"),
    ("name-dash", {"package_name": "a-b"}, "hex:a-b", "package_name"),
    ("name-dot", {"package_name": "a.b"}, "hex:a.b", "package_name"),
    ("name-space", {"package_name": "a b"}, "hex:a b", "package_name"),
    ("name-slash", {"package_name": "a/b"}, "hex:a/b", "package_name"),
    ("name-traversal", {"package_name": "../x"}, "hex:../x", "package_name"),
    ("name-non-ascii", {"package_name": "naïve"}, "hex:naïve", "package_name"),
    ("version-shell", {"package_name": "plug", "version": "1.0.0 ; rm -rf /"}, "hex:plug@1.0.0 ; rm -rf /",
     "version"),
    ("version-traversal", {"package_name": "plug", "version": "../../1"}, "hex:plug@../../1", "version"),
]


@pytest.mark.parametrize(("kind", "arguments", "spec", "field"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_hex_argument_is_invalid_on_both_surfaces_and_reaches_no_registry(kind, arguments, spec, field,
                                                                                  hexpm):
    """INVALID_ARGUMENT naming the field, exit 1, the CLI's envelope equal to the tool's own (what MCP
    returns), and no request sent."""
    mcp = error_of(list_files.run, {"registry": "hex", **arguments}).to_envelope()
    proc = run_cli("files", spec, "--json")
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr
    envelope = json.loads(proc.stdout)
    assert envelope["error"]["code"] == "INVALID_ARGUMENT" and envelope["error"]["details"]["field"] == field
    assert envelope == json.loads(json.dumps(mcp, sort_keys=True))
    assert hexpm.server.seen == []


def test_the_fault_rows_cover_both_hex_upstreams():
    """Every npm document and tarball fault has its Hex twins (API, signed registry, download)."""
    names = {p.id.split("-")[0] + "-" + p.id.split("-")[1] for p in FAULT_ROWS}
    assert names == {"hex-api", "hex-download", "hex-registry"}
    assert len(FAULT_ROWS) == sum(1 for (u, _f) in faults.TABLE if u in ("npm", "npm-tarball")) + sum(1 for (u, _f) in faults.TABLE if u == "npm")
