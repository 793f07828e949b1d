"""Integrity, for every registry: a changed byte is refused, and a registry that changes what it
serves never corrupts the cache (SPEC §3).

- One byte changed anywhere in an artifact (first, middle, last) fails every hash the registry
  publishes (``Adapter.hashes``): INTEGRITY_ERROR before any extraction, nothing cached.
- An exact version, once read, is served from the cache without asking the registry, even after
  the registry starts serving other bytes.
- When the registry republishes a cached exact version with other bytes and their new hash, the
  pin keeps serving the verified original; a fresh resolution (a latest alias whose TTL ran out)
  builds a second entry beside the first; the two never mix. A replacement that fails its new
  hash leaves the original as it was; bytes changed under an unchanged hash are never fetched.
  Where no pin is kept for ever (``Adapter.pins_forever``: conda, whose channels add builds to
  published versions), the pin is resolved afresh too and follows the registry, in an entry of
  its own, and the original entry is still never touched.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codenav.tools import list_files, read_file
from tests.support.cache import (
    assert_nothing_cached,
    cache_report,
    check_entry,
    entry_dirs,
    error_of,
    snapshot,
)
from tests.support.registries import IDS, adapter_class, each_registry

pytestmark = pytest.mark.hardening

FILES = {"index.js": b"module.exports = 'original';\n", "lib/util.js": b"exports.x = 1;\n" * 50}


def assert_nothing_cached_but(cache: Path, entry: Path) -> None:
    """No entry but ``entry``, and no build debris."""
    report = cache_report(cache)
    assert ([cache / "entries" / key for key in report.entries], report.half_built, report.debris) == ([entry], [], [])


def _listing(args: dict) -> list[str]:
    return [f["path"] for f in list_files.run(args)["files"]]


def _read(args: dict, path: str) -> str:
    return read_file.run({**args, "path": path})["content"]


@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize(("registry", "hash"), [pytest.param(adapter_id, hash, id=f"{adapter_id}-{hash}")
                                                for adapter_id in IDS for hash in adapter_class(adapter_id).hashes],
                         indirect=["registry"])
def test_one_changed_byte_is_an_integrity_error_and_nothing_is_cached(registry, hash: str, where: str,
                                                                     cache_dir: Path) -> None:
    """An artifact with one byte changed fails its published hash: INTEGRITY_ERROR, not retryable,
    found before extraction, and no entry, alias or debris is left."""
    name, version = registry.package("victim"), registry.version("1.0.0")
    registry.publish(name, version, FILES, hash=hash)
    registry.corrupt(name, version, where)
    error = error_of(list_files.run, registry.args(name, version))
    assert (error.code, error.retryable) == ("INTEGRITY_ERROR", False), error.message
    assert registry.integrity_message(hash) in error.message
    assert_nothing_cached(cache_dir)


@each_registry
def test_a_cached_exact_version_is_read_without_the_registry_whatever_it_serves_next(registry) -> None:
    """Once read, an exact version needs no network: the registry may serve other bytes, or
    nothing at all, and the verified files are still what is read."""
    name, version = registry.package("stable"), registry.version("1.0.0")
    registry.publish(name, version, FILES)
    pinned = registry.args(name, version)
    assert _listing(pinned) == sorted([*FILES, *registry.extra_files(name, version)])
    registry.corrupt(name, version, "middle")
    asked = len(registry.server.seen)
    assert _read(pinned, "index.js") == FILES["index.js"].decode()
    registry.server.reset()  # the registry now answers 404 to everything
    assert _listing(pinned) == sorted([*FILES, *registry.extra_files(name, version)])
    assert len(registry.server.seen) == 0 and asked > 0


@pytest.mark.parametrize("registry", [i for i in IDS if adapter_class(i).republishes], indirect=True)
def test_a_republished_exact_version_never_corrupts_the_cached_entry(registry, cache_dir: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """After the registry swaps the artifact (and its hash) behind a cached exact version, the
    pin keeps serving the verified original without network; a fresh resolution makes a second
    entry for the new hash; each entry holds only its own files."""
    monkeypatch.setenv("CODENAV_RESOLVE_TTL", "0")  # every "latest" is resolved afresh
    name, version = registry.package("swap"), registry.version("1.0.0")
    old = {"index.js": b"original\n", "only-old.js": b"old\n"}
    new = {"index.js": b"replaced\n", "only-new.js": b"new\n"}
    extra = registry.extra_files(name, version)
    pinned, latest = registry.args(name, version), registry.args(name)
    registry.publish(name, version, old)
    assert _read(pinned, "index.js") == "original\n"
    (first,) = entry_dirs(cache_dir)
    first_before = snapshot(first)

    # The registry republishes the same version with other bytes and the matching new hash.
    registry.forget(name)
    registry.publish(name, version, new)
    asked = len(registry.server.seen)
    if registry.pins_forever:
        assert _read(pinned, "index.js") == "original\n"
        assert _listing(pinned) == sorted(["index.js", "only-old.js", *extra])
        assert len(registry.server.seen) == asked, "an exact, cached version must not ask the registry"
    else:  # the pin is resolved afresh, like latest: the new bytes, in a second entry
        assert _read(pinned, "index.js") == "replaced\n"
        assert len(registry.server.seen) > asked

    # A fresh resolution sees the new hash: a second entry, built beside the first.
    assert _read(latest, "index.js") == "replaced\n"
    assert _listing(latest) == sorted(["index.js", "only-new.js", *extra])
    assert error_of(read_file.run, {**latest, "path": "only-old.js"}).code == "FILE_NOT_FOUND"
    entries = entry_dirs(cache_dir)
    assert len(entries) == 2 and first in entries
    assert snapshot(first) == first_before, "the first entry changed"
    for entry in entries:
        check_entry(entry)
    if registry.pins_forever:
        assert _read(pinned, "only-old.js") == "old\n"


@each_registry
def test_bytes_changed_under_an_unchanged_hash_are_never_downloaded_again(registry, cache_dir: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """When only the served bytes change (the hash does not), a fresh resolution lands on the
    same verified entry: no second download, the original content."""
    monkeypatch.setenv("CODENAV_RESOLVE_TTL", "0")
    name, version = registry.package("same"), registry.version("1.0.0")
    registry.publish(name, version, FILES)
    latest = registry.args(name)
    artifacts = {path for p in registry.places(name, version) if p.kind == "artifact" for path in p.paths}

    def downloads() -> list[str]:
        return [s.path for s in registry.server.seen if s.path in artifacts]

    assert _read(latest, "index.js") == FILES["index.js"].decode()
    assert len(downloads()) == 1
    registry.corrupt(name, version, "middle")
    assert _read(latest, "index.js") == FILES["index.js"].decode()
    assert len(entry_dirs(cache_dir)) == 1 and len(downloads()) == 1


@pytest.mark.parametrize("registry", [i for i in IDS if adapter_class(i).republishes], indirect=True)
def test_a_tampered_replacement_leaves_the_cached_original_intact(registry, cache_dir: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A new hash whose bytes do not match it is INTEGRITY_ERROR for the fresh resolution, and the
    already-cached original is neither removed nor changed."""
    monkeypatch.setenv("CODENAV_RESOLVE_TTL", "0")
    name, version = registry.package("guarded"), registry.version("1.0.0")
    registry.publish(name, version, FILES)
    pinned = registry.args(name, version)
    assert _read(pinned, "index.js") == FILES["index.js"].decode()
    (first,) = entry_dirs(cache_dir)
    before = snapshot(first)
    registry.forget(name)
    registry.publish(name, version, {"index.js": b"second\n"})
    registry.corrupt(name, version, "middle")
    assert error_of(list_files.run, registry.args(name)).code == "INTEGRITY_ERROR"
    assert entry_dirs(cache_dir) == [first] and snapshot(first) == before
    assert_nothing_cached_but(cache_dir, first)
    if registry.pins_forever:
        assert _read(pinned, "index.js") == FILES["index.js"].decode()
    else:  # the pin meets the tampered replacement too, and the original stays as it was
        assert error_of(read_file.run, {**pinned, "path": "index.js"}).code == "INTEGRITY_ERROR"
        assert entry_dirs(cache_dir) == [first] and snapshot(first) == before


def test_only_conda_resolves_a_pinned_version_again() -> None:
    """Every registry but conda keeps a pin's resolution for ever (conda-forge adds builds to
    published versions, and conda installs the highest build)."""
    assert [i for i in IDS if not adapter_class(i).pins_forever] == ["conda"]


def test_only_go_cannot_republish_a_version() -> None:
    """Every registry but Go can change a version's bytes and hash (Go's checksum database keeps
    one h1 per version for ever), so every other one runs the republish test."""
    assert [i for i in IDS if not adapter_class(i).republishes] == ["go"]
