"""The helpers of tests/support, tested themselves (as pip tests its tests/lib), and the rule
that test modules import only tests/support and tests/fakes."""

from __future__ import annotations

import ast
import json
import urllib.request
from pathlib import Path

import pytest

from tests.fakes.http import FakeServer, Reply
from tests.support import faults, hostile
from tests.support.cache import cache_report, changes, check_entry, snapshot
from tests.support.cli import ROOT, oracle
from tests.support.registries import IDS, Adapter, adapter_class, flip

TESTS = ROOT / "tests"


def _imports(path: Path) -> list[str]:
    """Every module a file imports, relative imports spelled from tests/ (``tests.x.y``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).parent.parts)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                found.append(".".join([*base, node.module] if node.module else base))
            else:
                found.append(node.module or "")
    return found


def test_test_modules_import_only_the_support_and_fakes_packages() -> None:
    """No test module (nor conftest) imports another test module: shared helpers live in
    tests/support, upstreams in tests/fakes."""
    # tests/ is on sys.path too (its conftest has no package), so `import archives` would work
    local = {p.stem for p in TESTS.glob("*.py")} | {p.name for p in TESTS.iterdir() if p.is_dir()}
    offending = {}
    for path in TESTS.rglob("*.py"):
        if {"support", "fakes", "data"} & set(path.relative_to(TESTS).parts[:-1]):  # the packages themselves
            continue
        bad = [name for name in _imports(path) if name.split(".")[0] in local or (
            name.startswith("tests") and not name.startswith(("tests.support", "tests.fakes")))]
        if bad:
            offending[str(path.relative_to(ROOT))] = bad
    assert offending == {}


def test_flip_changes_exactly_one_bit_where_asked() -> None:
    """first, middle and last each change one byte by one bit; nothing else moves."""
    data = bytes(range(10))
    for where, at in (("first", 0), ("middle", 5), ("last", 9)):
        changed = flip(data, where)
        assert len(changed) == len(data)
        assert [i for i in range(10) if changed[i] != data[i]] == [at] and changed[at] ^ data[at] == 1


def test_a_fault_route_spoils_the_answer_the_fake_already_gives() -> None:
    """fault_route keeps the healthy answer for the fault to build on, for an exact route and
    a prefix, and leaves other paths alone."""
    def get(server: FakeServer, path: str) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(server.url + path, timeout=10) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    upper = lambda good, other: Reply(200, faults.body_of(good).upper())  # noqa: E731
    with FakeServer() as server:
        server.route("GET", "/exact", lambda h: Reply(200, b"exact"))
        server.route_prefix("GET", "/tree/", lambda h: Reply(200, h.path.encode()))
        faults.fault_route(server, ("/exact",), upper)
        faults.fault_route(server, ("/tree/a",), upper, prefix=True)
        assert get(server, "/exact") == (200, b"EXACT")
        assert get(server, "/tree/a/b") == (200, b"/TREE/A/B")
        assert get(server, "/tree/b") == (200, b"/tree/b")
        assert get(server, "/nothing")[0] == 404


def test_every_fault_of_the_tables_has_a_maker_and_the_kinds_differ_as_documented() -> None:
    """Each fault a kind of place expects can be made; an artifact turns an HTML page into an
    integrity error, a document into a protocol error; a hop has no body faults."""
    assert set(faults.DOCUMENT) | set(faults.ARTIFACT) | set(faults.HOP) <= set(faults.FAULTS)
    assert (faults.DOCUMENT["wrong-content-type"][0], faults.ARTIFACT["wrong-content-type"][0]) == (
        "PROTOCOL_ERROR", "INTEGRITY_ERROR")
    assert not {"drip", "reset-mid-body", "truncated", "oversized"} & set(faults.HOP)


def test_the_hostile_cases_split_into_tar_and_zip_and_a_truncated_case_is_cut(tmp_path: Path) -> None:
    """Every shared case applies to tar, zip or both, and nothing else; a truncate case's archive
    is half of the whole one."""
    assert all(set(kinds) <= {hostile.TAR, hostile.ZIP} and kinds for _name, kinds, _case in hostile.CASES)
    names = {name for name, _kinds, _case in hostile.CASES}
    assert {n for n, _ in hostile.cases(hostile.TAR)} | {n for n, _ in hostile.cases(hostile.ZIP)} == names
    case = next(case for name, _kinds, case in hostile.CASES if name == "truncated-archive")
    whole = hostile.archive(case, hostile.ZIP, "top/", tmp_path, whole=True)
    assert hostile.archive(case, hostile.ZIP, "top/", tmp_path) == whole[: len(whole) // 2]


def test_snapshot_and_changes_see_what_was_added_removed_and_changed(tmp_path: Path) -> None:
    """changes() names each added, removed and rewritten path between two snapshots."""
    (tmp_path / "keep").write_text("same")
    (tmp_path / "edit").write_text("one")
    (tmp_path / "gone").write_text("x")
    before = snapshot(tmp_path)
    (tmp_path / "edit").write_text("two")
    (tmp_path / "gone").unlink()
    (tmp_path / "new").write_text("y")
    assert changes(before, snapshot(tmp_path)) == {".": "changed", "edit": "changed", "gone": "removed",
                                                   "new": "added"}


def test_check_entry_refuses_an_entry_whose_manifest_and_files_disagree(tmp_path: Path) -> None:
    """A manifest listing a file that is not on disk is not a whole entry; a matching one is."""
    entry = tmp_path / "cache" / "entries" / "npm" / "x" / "1.0.0-00"
    (entry / "tree").mkdir(parents=True)
    (entry / "tree" / "a.js").write_text("a")
    rows = [["a.js", 1, "JavaScript", "source", False, None]]
    (entry / "manifest.json").write_text(json.dumps({"files": rows, "skipped": []}))
    assert check_entry(entry)["files"] == rows
    assert cache_report(tmp_path / "cache").entries == ["npm/x/1.0.0-00"]
    (entry / "manifest.json").write_text(json.dumps({"files": [*rows, ["b.js", 1, None, "source", False, None]]}))
    with pytest.raises(AssertionError):
        check_entry(entry)


def test_an_oracle_is_found_on_path_or_beside_the_interpreter() -> None:
    """git is on PATH here; a name that exists nowhere is None."""
    assert oracle("git") is not None and oracle("no-such-oracle-anywhere") is None


@pytest.mark.parametrize("adapter_id", IDS)
def test_an_adapter_lists_its_places_without_a_fake_and_names_its_variable(adapter_id: str) -> None:
    """An unstarted adapter can name its packages and places (the suites list cases from them at
    collection), the first place is a metadata document, at least one is the artifact (CRAN has
    two: the current tarball and the Archive's), and the variables tests/conftest.py clears
    include the one its fake is named by."""
    adapter = adapter_class(adapter_id).unstarted()
    assert isinstance(adapter, Adapter) and adapter.id == adapter_id
    name, version = adapter.package("demo"), adapter.version("1.0.0")
    places = adapter.places(name, version)
    assert places[0].kind == "document" and sum(p.kind == "artifact" for p in places) >= 1
    assert adapter.endpoint_variable in adapter.variables or not adapter.endpoint_variable
    assert adapter.kind in (hostile.TAR, hostile.ZIP) and adapter.hashes
