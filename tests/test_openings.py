"""The record of a search's opened targets (cache/openings.py, SPEC §3.5): the next search over
the same targets opens them from one file, with the same answer, and never from a record that
no longer tells the truth (an alias written since, an entry removed, a resolution that expires)."""

from __future__ import annotations

import glob
import json
import os
import shutil

import pytest

from codenav.cache import aliases, openings
from codenav.tools import grep_repo
from tests.fakes.http import FakeServer
from tests.fakes.npm import FakeNpm

PACKAGES = {
    ("alpha", "1.0.0"): {"index.js": b"function needle() {}\n", "lib/x.js": b"exports.needle = 1;\n"},
    ("beta", "2.0.0"): {"index.js": b"const needle = 1;\n", "logo.png": b"\x89PNG\r\n\x1a\n\0\0"},
    ("gamma", "3.1.0"): {"a.js": b"class Needle {}\n"},
}
TARGETS = ["npm:alpha@1.0.0", "npm:beta@2.0.0", "npm:gamma@3.1.0"]
SEARCH = {"targets": TARGETS, "pattern": "needle"}


@pytest.fixture
def registry(monkeypatch):
    with FakeServer() as server:
        fake = FakeNpm(server)
        for (name, version), files in PACKAGES.items():
            fake.publish(name, version, files)
        fake.publish("delta", "1.0.0", {"index.js": b"needle\n"})
        monkeypatch.setenv("CODENAV_NPM_REGISTRY", fake.url)
        yield fake


def _cache(*parts: str) -> str:
    return os.path.join(os.environ["CODENAV_CACHE_DIR"], *parts)


def _settle() -> None:
    """aliases/ as it is SETTLED seconds from now: changed long enough ago for a record."""
    old = os.stat(_cache("aliases")).st_mtime_ns - int((openings.SETTLED + 1) * 1e9)
    os.utime(_cache("aliases"), ns=(old, old))


def _records() -> list[str]:
    return glob.glob(_cache("openings", "*.json"))


@pytest.fixture
def reads(monkeypatch):
    """The aliases read one by one (the path a record replaces)."""
    seen: list[str] = []
    original = aliases.read_alias

    def spy(alias, *rest, **named):
        seen.append(alias)
        return original(alias, *rest, **named)

    monkeypatch.setattr(aliases, "read_alias", spy)
    return seen


def test_a_second_search_over_the_same_targets_opens_them_from_one_record(registry, reads):
    """The first search that finds every target cached writes one record; the next reads no alias
    one by one and answers exactly as the first did, labels, binaries and counts included."""
    first = grep_repo.run(SEARCH)
    assert grep_repo.run(SEARCH) == first
    assert _records() == []  # aliases/ changed just now: too recent to tell a later change apart
    _settle()
    assert grep_repo.run(SEARCH) == first
    assert len(_records()) == 1
    reads.clear()
    again = grep_repo.run(SEARCH)
    assert again == first and reads == []
    assert again["binaryFilesSkipped"] == 1 and again["targets"] == TARGETS


def test_a_record_is_not_used_once_an_alias_is_written_since(registry, reads):
    """Indexing any other package writes an alias into aliases/: the record is set aside and the
    targets are opened one by one again, with the same answer."""
    first = grep_repo.run(SEARCH)
    _settle()
    grep_repo.run(SEARCH)
    grep_repo.run({"targets": ["npm:delta@1.0.0"], "pattern": "needle"})
    reads.clear()
    assert grep_repo.run(SEARCH) == first
    assert len(reads) == len(TARGETS)


def test_a_record_naming_an_entry_removed_since_is_not_used(registry):
    """An entry removed from the cache by hand: the record is set aside, the package is indexed
    again and the search still finds its lines."""
    first = grep_repo.run(SEARCH)
    _settle()
    grep_repo.run(SEARCH)
    (beta,) = glob.glob(_cache("entries", "npm", "beta", "*"))
    shutil.rmtree(beta)
    assert openings.recall([aliases.alias_of(t)[0] for t in _targets()]) is None
    assert grep_repo.run(SEARCH) == first


def test_targets_resolved_from_a_range_are_never_recorded(registry):
    """A range's resolution expires (CODENAV_RESOLVE_TTL): a search naming one writes no record."""
    search = {**SEARCH, "targets": ["npm:alpha@^1.0.0", *TARGETS[1:]]}
    first = grep_repo.run(search)
    _settle()
    assert grep_repo.run(search) == first
    assert _records() == []


def test_a_record_of_another_codenav_or_another_list_is_not_used(registry, monkeypatch):
    """A record is read only for exactly the aliases it lists, written by this codenav version."""
    grep_repo.run(SEARCH)
    _settle()
    grep_repo.run(SEARCH)
    names = [aliases.alias_of(t)[0] for t in _targets()]
    assert [e.key for e in openings.recall(names)] == [aliases.read_alias(n).key for n in names]
    assert openings.recall(names[:2]) is None and openings.recall(list(reversed(names))) is None
    monkeypatch.setattr(openings, "__version__", "0.0.0-other")
    assert openings.recall(names) is None


def _targets() -> list:
    from codenav.targets import from_args, parse_target

    return [from_args(parse_target(spec)) for spec in TARGETS]


def test_prune_removes_records_no_longer_valid_and_clear_removes_every_record(registry):
    """`cache prune` keeps a record still valid and removes one set aside by a later alias;
    `cache clear` takes every record with the aliases."""
    from codenav.cache import maintenance

    grep_repo.run(SEARCH)
    _settle()
    grep_repo.run(SEARCH)
    assert maintenance.prune()["openings"] == 0 and len(_records()) == 1
    grep_repo.run({"targets": ["npm:delta@1.0.0"], "pattern": "needle"})
    assert maintenance.prune()["openings"] == 1 and _records() == []
    _settle()
    grep_repo.run(SEARCH)
    assert len(_records()) == 1
    maintenance.clear()
    assert _records() == []


@pytest.mark.parametrize("damage", ["cut", "rows", "row", "not-json"])
def test_a_damaged_record_is_set_aside_and_the_search_answers_as_before(registry, damage):
    """A record cut short, or with rows of another shape, is not used (nor does it fail the call):
    the targets are opened one by one and the answer is the same."""
    first = grep_repo.run(SEARCH)
    _settle()
    grep_repo.run(SEARCH)
    (path,) = _records()
    text = open(path, encoding="utf-8").read()
    data = json.loads(text)
    stamp = os.stat(_cache("aliases")).st_mtime_ns
    if damage == "cut":
        text = text[:len(text) // 2]
    elif damage == "rows":
        data["entries"] = data["entries"][:1]
        text = json.dumps(data)
    elif damage == "row":
        data["entries"][1] = [data["entries"][1][0], None, "files", [], []]
        text = json.dumps(data)
    else:
        text = "\0garbage"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    assert os.stat(_cache("aliases")).st_mtime_ns == stamp  # the record alone is damaged
    assert openings.recall([aliases.alias_of(t)[0] for t in _targets()]) is None
    assert grep_repo.run(SEARCH) == first


def test_no_record_is_written_when_an_alias_changes_while_the_targets_are_opened(registry, monkeypatch):
    """aliases/ changing between the first alias read and the record's writing (another process
    indexing) leaves no record: it might hold an alias as it was before the change."""
    first = grep_repo.run(SEARCH)
    _settle()
    original = aliases.read_alias

    def changing(alias, *rest, **named):
        found = original(alias, *rest, **named)
        aged = os.stat(_cache("aliases")).st_mtime_ns - int(10 * 1e9)  # a change, dated long enough ago
        os.utime(_cache("aliases"), ns=(aged, aged))
        return found

    monkeypatch.setattr(aliases, "read_alias", changing)
    assert grep_repo.run(SEARCH) == first
    assert _records() == []
