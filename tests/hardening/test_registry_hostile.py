"""Hostile archives served by every fake registry, end to end through list_files (SPEC §3).

Each case of tests/support/hostile.py whose archive kind the registry uses (tar or zip), and
each case of the registry's own (a folder rule, escaped names), is published through the
registry's adapter and asked for with ``list_files.run``, so the real path runs: metadata,
download, hash check, extraction in the detached indexer, publish. Around each call the whole
test directory (HOME, a decoy directory, the cache with a neighbour entry) is snapshotted;
afterwards the only changes allowed are the new entry's own tree and the cache's bookkeeping.
The outcome is the specified error (and then nothing cached) or a success whose skipped
entries are reported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codenav.errors import CodenavError
from codenav.tools import list_files, read_file
from tests.support import hostile
from tests.support.cache import changes, check_entry, snapshot
from tests.support.registries import IDS, adapter_class

pytestmark = pytest.mark.hardening


def _rows() -> list:
    rows = []
    for adapter_id in IDS:
        adapter = adapter_class(adapter_id)
        shared = hostile.cases(adapter.kind)
        rows += [pytest.param(adapter_id, case, id=f"{adapter_id}-{name}")
                 for name, case in [*shared, *adapter.hostile_cases()] if adapter.accepts(case)]
    return rows


@pytest.mark.parametrize(("registry", "case"), _rows(), indirect=["registry"])
def test_a_hostile_archive_never_escapes_the_entry(registry, case: hostile.Case, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A crafted archive is refused (nothing cached) or its bad entries are skipped and reported;
    nothing outside the new entry's tree appears or changes."""
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    name, version = registry.package("victim"), registry.version("1.0.0")
    top = registry.top(name, version)
    case = registry.publish_hostile(name, version, case, tmp_path)
    args = registry.args(name, version)
    hostile.plant(tmp_path)
    cache = tmp_path / "cache"
    before = snapshot(tmp_path)

    try:
        result: dict | CodenavError = list_files.run(args)
    except CodenavError as exc:
        result = exc

    new = sorted(hostile.entry_keys(cache) - {hostile.NEIGHBOUR_KEY})
    after = snapshot(tmp_path, skip=tuple(cache / "entries" / key for key in new))
    unexpected = {path: how for path, how in changes(before, after).items() if not hostile.BOOKKEEPING.match(path)}
    assert unexpected == {}, "something outside the new entry appeared or changed"
    assert (tmp_path / "decoy" / "secret.txt").read_text() == "secret"
    assert sorted(p.name for p in (cache / "tmp").iterdir()) == ["indexer.log"], "build debris left behind"

    if case.error is not None:
        code, fragment = case.error
        assert isinstance(result, CodenavError), f"expected {code}, got a listing"
        assert (result.code, result.retryable) == (code, False), result.message
        assert fragment in result.message, result.message
        assert str(tmp_path) not in result.message  # SPEC §4: no absolute paths
        assert new == [] and not any((cache / "aliases").glob("*")), "a refused archive left an entry or alias"
        return

    assert not isinstance(result, CodenavError), result.message
    assert len(new) == 1
    entry = cache / "entries" / new[0]
    manifest = check_entry(entry)
    expected_skips = {hostile.fill(k, top, tmp_path): v for k, v in case.skipped.items()}
    got_skips = {item["path"]: item["reason"] for item in manifest["skipped"]}
    assert set(got_skips) == set(expected_skips), got_skips
    for path, fragment in expected_skips.items():
        assert fragment in got_skips[path], (path, got_skips[path])
    if expected_skips:
        assert result["skipped"]["count"] == len(expected_skips)
        assert result["skipped"]["examples"] == manifest["skipped"][:5]
    else:
        assert "skipped" not in result
    listed = hostile.listed_files(result, case)
    for path in case.too_large:
        assert not (entry / "tree" / path).exists()
        with pytest.raises(CodenavError) as refused:
            read_file.run({**args, "path": path})
        assert refused.value.code == "TOO_LARGE" and "CODENAV_MAX_FILE_BYTES" in refused.value.message
    assert case.files is not None
    assert set(listed) == set(case.files)
    for path, expected in case.files.items():
        if isinstance(expected, str):
            assert listed[path] == expected and not (entry / "tree" / path).exists()
        else:
            assert listed[path] is None and (entry / "tree" / path).read_bytes() == expected


def test_every_registry_meets_every_shared_case_of_its_archive_kind() -> None:
    """No registry opts out of a shared case silently: only Packagist passes over cases, the
    forged bytes that have no top folder for its zipball to strip (three zip cases)."""
    passed_over = {}
    for adapter_id in IDS:
        adapter = adapter_class(adapter_id)
        passed_over[adapter_id] = sorted(name for name, case in hostile.cases(adapter.kind) if not adapter.accepts(case))
    assert {k: v for k, v in passed_over.items() if v} == {
        "packagist": ["zip-nul-in-name", "zip-overlapping-quoted", "zip-overlapping-same-offset"]}
