"""The cache's published entries: versioned manifests, named rows, sidecars (SPEC §3)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from codenav.cache import indexing, store
from codenav.tools import list_files, read_file

FILES = {"index.js": b"module.exports = 1;\n", "lib/a.js": b"exports.a = 'a';\n"}


def _entry_dir(tmp_path: Path) -> Path:
    (manifest,) = (tmp_path / "cache" / "entries").rglob("manifest.json")
    return manifest.parent


def _list(**extra):
    return list_files.run({"registry": "npm", "package_name": "demo", "version": "1.0.0", **extra})


def test_a_new_manifest_names_its_fields_and_starts_with_its_version(npm, tmp_path):
    """The manifest says its format version first and names the fields of its rows; each file's
    row carries the sha256 of its bytes."""
    npm.publish("demo", "1.0.0", FILES)
    _list()
    text = (_entry_dir(tmp_path) / "manifest.json").read_text()
    assert text.startswith('{"version":2,')
    manifest = json.loads(text)
    assert manifest["fields"] == list(store.FIELDS)
    rows = {row[0]: dict(zip(manifest["fields"], row, strict=True)) for row in manifest["files"]}
    assert {path: row["sha256"] for path, row in rows.items()} == {
        path: hashlib.sha256(data).hexdigest() for path, data in FILES.items()}
    entry = store.find(_entry_dir(tmp_path).relative_to(tmp_path / "cache" / "entries").as_posix())
    assert [(row.path, row.size, row.binary, row.link) for row in entry.files()] == [
        ("index.js", 20, False, None), ("lib/a.js", 17, False, None)]


def test_an_entry_of_an_unknown_manifest_version_is_indexed_again(npm, tmp_path):
    """A manifest of a format this codenav does not know is never misread: the target is
    downloaded and indexed again, and the new entry replaces the old one."""
    npm.publish("demo", "1.0.0", FILES)
    _list()
    manifest = _entry_dir(tmp_path) / "manifest.json"
    manifest.write_text('{"version":99,"files":"not rows"}')
    assert store.manifest_version(str(manifest)) == 99
    hits = npm.tarball_hits
    assert [f["path"] for f in _list()["files"]] == ["index.js", "lib/a.js"]
    assert npm.tarball_hits == hits + 1
    assert json.loads(manifest.read_text())["version"] == store.MANIFEST_VERSION


def test_a_version_1_manifest_is_still_read(npm, tmp_path):
    """Entries indexed by the previous release (version 1: six fields, no sha256) are served as
    they are, without a new download."""
    npm.publish("demo", "1.0.0", FILES)
    _list()
    manifest = _entry_dir(tmp_path) / "manifest.json"
    data = json.loads(manifest.read_text())
    old = {"version": 1, "target": data["target"], "files": [row[:6] for row in data["files"]],
           "skipped": data["skipped"]}
    manifest.write_text(json.dumps(old, sort_keys=True))
    hits = npm.tarball_hits
    args = {"registry": "npm", "package_name": "demo", "version": "1.0.0"}
    assert read_file.run({**args, "path": "lib/a.js"})["content"] == "exports.a = 'a';\n"
    assert npm.tarball_hits == hits
    key = _entry_dir(tmp_path).relative_to(tmp_path / "cache" / "entries").as_posix()
    assert [row.sha256 for row in store.find(key).files()] == [None, None]


def test_a_sidecar_missing_from_an_older_entry_is_derived_on_first_use(npm, tmp_path):
    """An entry published without a sidecar gets it when first asked, equal to what indexing
    writes, and no temporary file is left beside it."""
    npm.publish("demo", "1.0.0", FILES)
    _list()
    folder = _entry_dir(tmp_path)
    published = (folder / store.LISTING).read_text()
    (folder / store.LISTING).unlink()
    entry = store.find(folder.relative_to(tmp_path / "cache" / "entries").as_posix())
    path = entry.sidecar(store.LISTING, store.write_listing)
    assert Path(path).read_text() == published
    names = {p.name for p in folder.iterdir()}
    assert {"manifest.json", "tree", *indexing.SIDECARS} <= names
    assert not [name for name in names if name.startswith(f".{store.LISTING}.")]


def test_every_sidecar_of_the_table_is_published_with_the_entry(npm, tmp_path):
    """Indexing writes each sidecar of indexing.SIDECARS before the entry's one rename, and the
    same indexer derives each of LATE_SIDECARS right after publication."""
    import time

    npm.publish("demo", "1.0.0", FILES)
    _list()
    assert set(indexing.SIDECARS) <= {p.name for p in _entry_dir(tmp_path).iterdir()}
    deadline = time.monotonic() + 30
    while not set(indexing.LATE_SIDECARS) <= {p.name for p in _entry_dir(tmp_path).iterdir()}:
        assert time.monotonic() < deadline, "the late sidecars never appeared"
        time.sleep(0.05)


def test_a_manifest_written_in_pieces_is_the_one_json_document(tmp_path):
    """write_manifest and manifest_text give, byte for byte, the version head plus
    ``json.dumps(doc, sort_keys=True, separators=(",", ":"))`` of the whole manifest, however
    many rows (across the thousand-row pieces) and whatever the target holds."""
    target = {"registry": "npm", "name": 'odd "files":null \u00e9', "files": None, "version": "1.0.0"}
    rows = [[f"dir/f\u00e9{i}.js", i, "JavaScript", "source", False, None, "0" * 64, *(("too large",) if i % 7 else ())]
            for i in range(2501)]
    skipped = [{"path": "x\ny", "reason": "the name holds control characters"}]
    for count in (0, 1, 1000, 2501):
        doc = {"fields": list(store.FIELDS), "optionalFields": list(store.OPTIONAL_FIELDS), "target": target,
               "files": rows[:count], "skipped": skipped, "maxFileBytes": 5}
        expected = '{"version":2,' + json.dumps(doc, sort_keys=True, separators=(",", ":"))[1:]
        store.write_manifest(str(tmp_path / "m.json"), target, rows[:count], skipped, maxFileBytes=5)
        assert (tmp_path / "m.json").read_text(encoding="utf-8") == expected
        assert store.manifest_text(target, rows[:count], skipped, maxFileBytes=5) == expected
    ranged = {"fields": ["path"], "optionalFields": list(store.OPTIONAL_FIELDS), "target": target, "files": [["a"]],
              "skipped": [], "ranged": {"url": "u"}}
    assert store.manifest_text(target, [["a"]], [], {"ranged": {"url": "u"}}, fields=("path",)) == (
        '{"version":2,' + json.dumps(ranged, sort_keys=True, separators=(",", ":"))[1:])
