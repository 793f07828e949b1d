"""The hardening suites run against the fake Go proxy and checksum database (SPEC §3).

The same cases and guarantees as the npm/PyPI suites, imported from their modules:

- hostile archives: every zip case of test_hostile_archives_e2e (its ``wheel`` rows), served
  as a module zip whose entries sit under ``{module}@{version}/`` and whose h1 the database
  lists (a hostile publisher signs what it serves), end to end through list_files, with the
  same snapshot-of-everything check around the call;
- integrity: one byte changed (first, middle, last) under the published h1 is INTEGRITY_ERROR
  and nothing is cached;
- upstream faults: the FAULTS of test_upstream_faults met at the proxy's version list, its
  ``.info``, the module zip, the checksum database's lookup and its tiles;
- bad arguments: malformed module paths and versions are INVALID_ARGUMENT naming the field on
  both surfaces with one envelope, and never reach the proxy.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codenav.errors import CodenavError
from codenav.tools import list_files
from tests.archives import stored_zip
from tests.conftest import run_cli
from tests.fakes.go import FakeGoProxy, GoVersion, module_zip
from tests.fakes.http import FakeServer, Reply
from tests.test_parity import McpSession

from . import test_hostile_archives_e2e as hostile
from . import test_upstream_faults as faults
from .support import (
    STALL_SLACK,
    assert_nothing_cached,
    changes,
    check_entry,
    isolated_subprocess_env,
    snapshot,
)

pytestmark = pytest.mark.hardening

GO_VARIABLES = ("CODENAV_GOPROXY", "CODENAV_GOSUMDB", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GOPRIVATE", "GONOPROXY",
                "GOFLAGS", "GONOSUMCHECK", "GOENV")


@pytest.fixture(scope="module")
def go_server() -> Iterator[FakeServer]:
    with FakeServer() as server:
        yield server


@pytest.fixture
def go(go_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeGoProxy:
    """A fresh fake proxy + signed database on the module's server, named by CODENAV_GOPROXY/GOSUMDB."""
    for name in GO_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    go_server.routes.clear()
    go_server.prefix_routes.clear()
    go_server.seen.clear()
    fake = FakeGoProxy(go_server)
    monkeypatch.setenv("CODENAV_GOPROXY", fake.url)
    monkeypatch.setenv("CODENAV_GOSUMDB", fake.gosumdb())
    return fake


# --- hostile archives ------------------------------------------------------------------------------

def _zip_cases() -> list:
    return [pytest.param(p.values[1], id=p.id.removesuffix("-wheel")) for p in hostile._cases() if p.values[0] == "wheel"]


@pytest.mark.parametrize("case", _zip_cases())
def test_hostile_module_zip_never_escapes_the_entry(case: hostile.Case, request: pytest.FixtureRequest,
                                                     tmp_path: Path, go: FakeGoProxy,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A crafted module zip (its h1 duly listed) is refused with nothing cached, or its bad
    entries are skipped and reported; nothing outside the new entry's tree changes."""
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    module = "example.com/h" + re.sub(r"[^a-z0-9]", "", request.node.callspec.id.lower())[-40:]
    top = f"{module}@v1.0.0/"
    expected = case
    if case.truncate:
        # The database lists the h1 of the whole zip; the proxy serves half of it.
        whole = hostile._archive(hostile.Case(case.members), "wheel", top, tmp_path)
        go.publish(module, "v1.0.0", {}, zip_bytes=whole)
        go.modules[module]["v1.0.0"].zip = whole[: len(whole) // 2]
        expected = hostile.Case(case.members, error=("INTEGRITY_ERROR", "h1"))
    else:
        if not isinstance(case.members, bytes) and any("\n" in m.name for m in case.members):
            # Go's dirhash cannot hash a name holding a newline, so no h1 can vouch for it.
            expected = hostile.Case(case.members, error=("INTEGRITY_ERROR", "newline"))
        data = hostile._archive(case, "wheel", top, tmp_path)
        if isinstance(case.members, bytes) and case.error is None:
            # Forged bytes have every member outside {module}@{version}/: no module there at all,
            # an error naming the folder, never an empty listing (SPEC §3.2, §3.11).
            expected = hostile.Case(case.members, error=("PROTOCOL_ERROR", f"no {top} folder"))
        try:
            go.publish(module, "v1.0.0", {}, zip_bytes=data)
        except Exception:
            # zipfile cannot read it to list an h1: the database vouches for some h1 anyway,
            # and codenav, unable to read the zip either, must refuse it.
            go.modules[module] = {"v1.0.0": GoVersion(data, None, h1="h1:" + "A" * 43 + "=")}
            expected = hostile.Case(case.members, error=("INTEGRITY_ERROR", "cannot be read"))
    args = {"registry": "go", "package_name": module, "version": "v1.0.0"}
    hostile._plant(tmp_path)
    cache = tmp_path / "cache"
    before = snapshot(tmp_path)

    try:
        result: dict | CodenavError = list_files.run(args)
    except CodenavError as exc:
        result = exc

    new = sorted(hostile._entries(cache) - {hostile.NEIGHBOUR_KEY})
    after = snapshot(tmp_path, skip=tuple(cache / "entries" / key for key in new))
    unexpected = {p: how for p, how in changes(before, after).items() if not hostile._BOOKKEEPING.match(p)}
    assert unexpected == {}, "something outside the new entry appeared or changed"
    assert (tmp_path / "decoy" / "secret.txt").read_text() == "secret"
    assert sorted(p.name for p in (cache / "tmp").iterdir()) == ["indexer.log"], "build debris left behind"

    if expected.error is not None:
        code, fragment = expected.error
        assert isinstance(result, CodenavError), f"expected {code}, got a listing"
        assert (result.code, result.retryable) == (code, False), result.message
        assert fragment in result.message
        assert str(tmp_path) not in result.message
        assert new == [] and not any((cache / "aliases").glob("*")), "a refused archive left an entry or alias"
        return

    assert not isinstance(result, CodenavError), result.message
    assert len(new) == 1
    entry = cache / "entries" / new[0]
    manifest = check_entry(entry)
    got_skips = {item["path"]: item["reason"] for item in manifest["skipped"]}
    expected_skips = {hostile._fill(k, top, tmp_path): v for k, v in case.skipped.items()}
    assert set(got_skips) == set(expected_skips), got_skips
    for name, fragment in expected_skips.items():
        assert fragment in got_skips[name], (name, got_skips[name])
    listed = hostile.listed_files(result, case)
    assert case.files is not None and set(listed) == set(case.files)
    for path, content in case.files.items():
        if isinstance(content, str):
            assert listed[path] == content and not (entry / "tree" / path).exists()
        else:
            assert listed[path] is None and (entry / "tree" / path).read_bytes() == content


# --- integrity -------------------------------------------------------------------------------------

FILES = {"lib.go": b"package lib\n\nconst Original = true\n", "util/util.go": b"package util\n" * 50}


def _flip(data: bytes, where: str) -> bytes:
    at = {"first": 0, "middle": len(data) // 2, "last": len(data) - 1}[where]
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:]


@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("layer", ["zip", "content"])
def test_one_changed_byte_of_a_module_zip_is_an_integrity_error(where: str, layer: str, go: FakeGoProxy,
                                                                tmp_path: Path) -> None:
    """One byte changed under the listed h1 — of a file's content (a stored zip), or of the zip
    itself where that changes what it holds — is INTEGRITY_ERROR, not retryable, and nothing
    is cached. h1 covers names and contents, not container bytes (as in Go): a change that
    leaves both alone (the end record's comment length) serves exactly the published files."""
    module = "example.com/victim"
    if layer == "content":
        data = stored_zip([(f"{module}@v1.0.0/{name}", body) for name, body in sorted(FILES.items())])
        go.publish(module, "v1.0.0", {}, zip_bytes=data)
        body = FILES["util/util.go"]
        at = data.index(body) + {"first": 0, "middle": len(body) // 2, "last": len(body) - 1}[where]
        tampered = data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:]
    else:
        data = go.publish(module, "v1.0.0", FILES)
        tampered = _flip(data, where)
    go.modules[module]["v1.0.0"].zip = tampered
    args = {"registry": "go", "package_name": module, "version": "v1.0.0"}
    if layer == "zip" and where == "last":
        assert [f["path"] for f in list_files.run(args)["files"]] == ["go.mod", "lib.go", "util/util.go"]
        return
    with pytest.raises(CodenavError) as info:
        list_files.run(args)
    assert (info.value.code, info.value.retryable) == ("INTEGRITY_ERROR", False), info.value.message
    assert "h1" in info.value.message
    assert_nothing_cached(tmp_path / "cache")


def test_a_cached_module_is_served_without_the_network_after_the_proxy_changes(go: FakeGoProxy) -> None:
    """An exact version, once verified and cached, is read again without asking the proxy, even
    after the proxy starts serving other bytes."""
    go.publish("example.com/stable", "v1.0.0", FILES)
    args = {"registry": "go", "package_name": "example.com/stable", "version": "v1.0.0"}
    assert [f["path"] for f in list_files.run(args)["files"]] == ["go.mod", "lib.go", "util/util.go"]
    go.modules["example.com/stable"]["v1.0.0"].zip = module_zip("example.com/stable", "v1.0.0", {"evil.go": b"x"})
    go.server.seen.clear()
    assert [f["path"] for f in list_files.run(args)["files"]] == ["go.mod", "lib.go", "util/util.go"]
    assert go.server.seen == []


# --- upstream faults -------------------------------------------------------------------------------

ROWS: dict[tuple[str, str], tuple[str, bool]] = {}
for _upstream in ("go-list", "go-info", "go-sumdb", "go-tile"):
    for _fault, _expected in faults._HTTP_COMMON.items():
        ROWS[(_upstream, _fault)] = _expected
    ROWS[(_upstream, "invalid-json")] = ("PROTOCOL_ERROR", False)
    ROWS[(_upstream, "wrong-content-type")] = ("PROTOCOL_ERROR", False)
# A tile is at most 256 hashes (8 KiB): the reset fault declares 20,000 bytes more than the
# tile, which is refused from its Content-Length before a byte is read.
ROWS[("go-tile", "reset-mid-body")] = ("TOO_LARGE", False)
for _fault in ("stall", "drip", "reset-mid-body", "503", "truncated", "oversized"):
    ROWS[("go-zip", _fault)] = faults._HTTP_COMMON[_fault]
ROWS[("go-zip", "wrong-content-type")] = ("INTEGRITY_ERROR", False)


@pytest.mark.parametrize(("upstream", "fault", "code", "retryable"),
                         [pytest.param(u, f, c, r, id=f"{u}-{f}") for (u, f), (c, r) in ROWS.items()])
def test_go_upstream_fault_is_a_typed_error_and_nothing_is_cached(
    upstream: str, fault: str, code: str, retryable: bool, go: FakeGoProxy, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each fault of the proxy or the database becomes its specified code and retryable flag,
    promptly, with a one-line message, and leaves only the job record in the cache."""
    for variable in faults.TIMEOUT_VARIABLES:
        monkeypatch.setenv(variable, faults.TIMEOUT)
    module = "example.com/faulty"
    data = go.publish(module, "v1.0.0", {"a.go": b"package a\n"})
    other = f"http://localhost:{go.server.server_address[1]}/elsewhere"
    make = faults.FAULTS[fault]
    paths = {"go-list": f"/proxy/{module}/@v/list", "go-info": f"/proxy/{module}/@v/v1.0.0.info",
             "go-zip": f"/proxy/{module}/@v/v1.0.0.zip", "go-sumdb": f"/sumdb/lookup/{module}@v1.0.0"}
    goods = {"go-list": Reply(200, b"v1.0.0\n", {"Content-Type": "text/plain; charset=UTF-8"}),
             "go-info": Reply.json({"Version": "v1.0.0", "Time": "2024-01-02T03:04:05Z"}),
             "go-zip": Reply(200, data, {"Content-Type": "application/zip"})}
    if upstream == "go-sumdb":
        good = go.lookup(module, "v1.0.0")
    elif upstream == "go-tile":
        good = None
    else:
        good = goods[upstream]
    if upstream == "go-zip" and fault == "oversized":
        monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", str(len(data) - 1))
        make = lambda good, other: good  # noqa: E731
    if upstream == "go-tile":
        # Every tile the inclusion proof reads meets the fault.
        go.server.prefix_routes.insert(0, ("GET", "/sumdb/tile/", lambda h: make(
            go._tile(h.path.split("/sumdb/tile/8/", 1)[1]), other)))
    else:
        go.server.route("GET", paths[upstream], lambda h: make(good, other))
    args = {"registry": "go", "package_name": module}
    if upstream != "go-list":
        args["version"] = "v1.0.0"
    started = time.monotonic()
    try:
        outcome: Any = list_files.run(args)
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
        assert elapsed < float(faults.TIMEOUT) + STALL_SLACK, f"took {elapsed:.1f} s"
    assert_nothing_cached(tmp_path / "cache")
    assert len(list((tmp_path / "cache" / "jobs").iterdir())) == 1


# --- bad arguments ---------------------------------------------------------------------------------

BAD = [
    ("no-host", {"package_name": "errors"}, "go:errors@v0.9.1", "package_name"),
    ("upper-host", {"package_name": "GitHub.com/pkg/errors"}, "go:GitHub.com/pkg/errors@v0.9.1", "package_name"),
    ("double-slash", {"package_name": "github.com//errors"}, "go:github.com//errors@v0.9.1", "package_name"),
    ("trailing-slash", {"package_name": "github.com/pkg/"}, "go:github.com/pkg/@v0.9.1", "package_name"),
    ("dot-element", {"package_name": "github.com/../etc"}, "go:github.com/../etc@v0.9.1", "package_name"),
    ("space", {"package_name": "github.com/a b"}, "go:github.com/a b@v0.9.1", "package_name"),
    ("bang", {"package_name": "github.com/!pkg/errors"}, "go:github.com/!pkg/errors@v0.9.1", "package_name"),
    ("control", {"package_name": "github.com/a\nb"}, "go:github.com/a\nb@v0.9.1", "package_name"),
    ("version-slash", {"package_name": "github.com/pkg/errors", "version": "v1/../x"},
     "go:github.com/pkg/errors@v1/../x", "version"),
    ("version-empty", {"package_name": "github.com/pkg/errors", "version": ""}, "go:github.com/pkg/errors@", "version"),
]


@pytest.fixture(scope="module")
def bad_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("go-bad")
    with FakeServer() as server:
        fake = FakeGoProxy(server)
        env = isolated_subprocess_env(base)
        env.update({"CODENAV_GOPROXY": fake.url, "CODENAV_GOSUMDB": fake.gosumdb()})
        for name in GO_VARIABLES[2:]:
            env.pop(name, None)
        session = McpSession(env)
        yield {"env": env, "mcp": session, "server": server}
        session.close()


@pytest.mark.parametrize(("mcp", "spec", "field"), [pytest.param(m, s, f, id=i) for i, m, s, f in BAD])
def test_bad_go_arguments_are_one_invalid_argument_envelope_on_both_surfaces(bad_world, mcp, spec, field) -> None:
    """A malformed module path or version is INVALID_ARGUMENT naming its field, the same bytes
    from `--json` as from MCP, and the proxy is never asked."""
    result = bad_world["mcp"].call("list_files", {"registry": "go", "version": "v0.9.1", **mcp})
    assert result["isError"] is True
    envelope = json.loads(result["content"][0]["text"])
    assert envelope["error"]["code"] == "INVALID_ARGUMENT"
    assert envelope["error"]["details"]["field"] == field
    proc = run_cli("files", spec, "--json", env=bad_world["env"])
    assert proc.returncode == 1 and json.loads(proc.stdout) == envelope
    assert "Traceback" not in proc.stderr.decode()
    assert bad_world["server"].seen == []
