"""The upgrade review (issue 24, SPEC §2.8.1): diff_versions view=review over fake registries,
checked against independent oracles (ast on the wheels, Node on the tarballs, the manifests
compared directly), a fake OSV, and real git repositories."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import zipfile
from email.parser import HeaderParser

import pytest

from codenav import contract
from codenav.errors import CodenavError
from codenav.tools import CliOptions, diff_versions
from tests.fakes.archives import make_zip
from tests.fakes.http import FakeServer
from tests.fakes.osv import FakeOsv, record
from tests.support.cli import ROOT, run_cli
from tests.support.oracles import node_exports, python_public, recall_precision, wheel_files

REVIEW = {"registry": "npm", "package_name": "demo", "from_version": "1.0.0", "to_version": "2.0.0", "view": "review"}


def tgz(files: dict[str, bytes], executable: tuple[str, ...] = ()) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for path, data in sorted(files.items()):
            info = tarfile.TarInfo(f"package/{path}")
            info.size, info.mode = len(data), 0o755 if path in executable else 0o644
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def package_json(**fields) -> bytes:
    return json.dumps({"name": "demo", "main": "index.js", **fields}, indent=2).encode()


ELF = b"\x7fELF\x02\x01\x01" + b"\0" * 120
MINIFIED = ("var a=" + "+".join(f"x{i}" for i in range(800)) + ";").encode()
CHANGELOG = b"""# Changelog

## [Unreleased]
- nothing yet

## [2.0.0] - 2025-02-01
### Breaking
- `old` is gone

## [1.1.0] - 2025-01-15
- `parse` takes options
### 1.0 migration notes
- see the docs

## [1.0.0] - 2025-01-01
- first release
"""
V1 = {
    "package.json": package_json(version="1.0.0", license="MIT", dependencies={"a": "^1.0.0", "b": "~2.0.0"},
                                 devDependencies={"mocha": "^10.0.0"}, scripts={"test": "mocha"}, bin={"demo": "cli.js"}),
    "index.js": b"exports.parse = function parse(text) { return text; };\n"
                b"exports.format = function format(value) { return String(value); };\n"
                b"exports.old = 1;\nclass Thing { run() {} }\nexports.Thing = Thing;\n",
    "lib/internal.js": b"export function hidden() {}\n",
    "cli.js": b"#!/usr/bin/env node\nrequire('./index.js');\n",
    "LICENSE": b"MIT License\n\nCopyright (c) 2024 Demo\n\nPermission is hereby granted, free of charge.\n",
    "CHANGELOG.md": CHANGELOG.replace(b"## [2.0.0] - 2025-02-01\n### Breaking\n- `old` is gone\n\n", b""),
}
V2 = {
    "package.json": package_json(version="2.0.0", license="ISC", dependencies={"a": "^2.0.0", "c": "^1.0.0"},
                                 peerDependencies={"react": ">=18"}, optionalDependencies={"fsevents": "^2.3.0"},
                                 devDependencies={"mocha": "^10.0.0"},
                                 scripts={"test": "mocha", "postinstall": "node setup.js"},
                                 bin={"demo": "cli.js", "demo-admin": "admin.js"}),
    "index.js": b"exports.parse = function parse(text, options) { return text; };\n"
                b"exports.format = function format(value) { return String(value); };\n"
                b"exports.added = 2;\nclass Thing { run() {} stop() {} }\nexports.Thing = Thing;\n",
    "lib/internal.js": b"export function hidden() {}\nexport function hidden2() {}\n",
    "cli.js": b"#!/usr/bin/env node\nrequire('./index.js');\n",
    "admin.js": b"require('./index.js');\n",
    "setup.js": b"require('child_process');\n",
    "binding.gyp": b"{ 'targets': [] }\n",
    "prebuilt/addon.node": ELF,
    "tools/run.sh": b"#!/bin/sh\necho hi\n",
    "dist/payload.js": MINIFIED,
    "LICENSE": b"ISC License\n\nCopyright (c) 2025 Demo\n\nPermission to use, copy, modify is granted.\n",
    "CHANGELOG.md": CHANGELOG,
}


@pytest.fixture
def demo(npm, monkeypatch):
    monkeypatch.setenv("CODENAV_OSV_URL", "off")
    npm.publish("demo", "1.0.0", V1, tarball=tgz(V1, ("cli.js",)))
    npm.publish("demo", "2.0.0", V2, tarball=tgz(V2, ("cli.js", "tools/run.sh")))
    return npm


def review(**args):
    result = diff_versions.run({**REVIEW, **args}, cli=CliOptions(plain=True))  # the CLI's whole review
    contract.validator("diff_versions", "outputSchema").validate({k: v for k, v in result.items()})
    return result


def test_each_supply_chain_kind_is_found_on_a_package_built_to_show_it(demo):
    """Install hooks (a postinstall script, binding.gyp), an ELF binary by content, an executable
    script, a new bin command, new top-level entries, the license change and a minified file
    are each one finding with its path and reason; no dependency is reported here."""
    result = review()
    findings = {(f["kind"], f["path"]) for f in result["review"]["supplyChain"]["findings"]}
    assert findings == {
        ("installHook", "package.json"), ("installHook", "binding.gyp"),
        ("binary", "prebuilt/addon.node"), ("executable", "tools/run.sh"),
        ("bin", "package.json"),
        ("layout", "admin.js"), ("layout", "setup.js"), ("layout", "binding.gyp"), ("layout", "prebuilt/"),
        ("layout", "tools/"), ("layout", "dist/"),
        ("license", "package.json"), ("license", "LICENSE"),
        ("minified", "dist/payload.js"),
    }
    reasons = {f["path"]: f["reason"] for f in result["review"]["supplyChain"]["findings"] if f["kind"] != "layout"}
    assert reasons["package.json"] in ("scripts.postinstall added: node setup.js", "declared license MIT -> ISC",
                                       "command 'demo-admin' added -> admin.js")
    assert reasons["prebuilt/addon.node"].startswith("an ELF binary")
    assert "a line of" in reasons["dist/payload.js"]
    assert result["counts"]["supplyChain"] == {"findings": 14}
    assert not any("react" in f["reason"] or "fsevents" in f["reason"]
                   for f in result["review"]["supplyChain"]["findings"])


def test_two_identical_builds_flag_nothing(npm, monkeypatch):
    """The same files published twice: no finding, no API or dependency change."""
    monkeypatch.setenv("CODENAV_OSV_URL", "off")
    npm.publish("demo", "1.0.0", V2, tarball=tgz(V2, ("cli.js", "tools/run.sh")))
    npm.publish("demo", "2.0.0", V2, tarball=tgz(V2, ("cli.js", "tools/run.sh")))
    result = review()
    assert result["counts"]["supplyChain"] == {"findings": 0}
    assert result["counts"]["api"] == {"added": 0, "removed": 0, "changed": 0}
    assert result["counts"]["dependencies"] == {"added": 0, "removed": 0, "changed": 0}
    assert result["review"]["advisories"]["status"] == "off"


def _direct_npm(old: dict, new: dict) -> set[tuple]:
    """The dependency changes of two package.json files, compared section by section."""
    out = set()
    for section, kind in (("dependencies", "runtime"), ("optionalDependencies", "optional"),
                          ("peerDependencies", "peer"), ("devDependencies", "dev")):
        a, b = old.get(section, {}), new.get(section, {})
        out |= {("added", kind, n, b[n]) for n in b.keys() - a.keys()}
        out |= {("removed", kind, n, a[n]) for n in a.keys() - b.keys()}
        out |= {("changed", kind, n, f"{a[n]}->{b[n]}") for n in a.keys() & b.keys() if a[n] != b[n]}
    return out


def _seen_deps(part: dict) -> set[tuple]:
    out = set()
    for group in ("added", "removed"):
        out |= {(group, d["kind"], d["name"], d["range"]) for d in part[group]}
    return out | {("changed", d["kind"], d["name"], f"{d['from']}->{d['to']}") for d in part["changed"]}


def test_dependency_changes_equal_a_direct_comparison_of_package_json(demo):
    """Every section of the two package.json files, compared directly, is what the review reports."""
    part = review()["review"]["dependencies"]
    assert part["status"] == "complete" and part["manifests"] == ["package.json"]
    assert _seen_deps(part) == _direct_npm(json.loads(V1["package.json"]), json.loads(V2["package.json"]))


def test_the_api_of_the_entry_points_matches_what_node_exports(demo, tmp_path):
    """The top-level names the review adds and removes are those Node's require() of each
    version gains and loses; a module the entry point does not reach is not API."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    seen = {}
    for version, files in (("1.0.0", V1), ("2.0.0", V2)):
        root = tmp_path / version / "node_modules" / "demo"
        for path, data in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(data)
        seen[version] = node_exports(str(tmp_path / version), ["demo"])["demo"]
    api = review()["review"]["api"]
    top = {g: {i["name"].split(".", 1)[1] for i in api[g] if i["name"].count(".") == 1} for g in ("added", "removed")}
    assert top == {"added": seen["2.0.0"] - seen["1.0.0"], "removed": seen["1.0.0"] - seen["2.0.0"]}
    changed = {i["name"]: (i["from"]["signature"], i["to"]["signature"]) for i in api["changed"]}
    assert changed["demo.parse"] == ("exports.parse = function parse(text)",
                                     "exports.parse = function parse(text, options)")
    assert [i["name"] for i in api["added"]] == ["demo.Thing.stop", "demo.added"]
    assert not any("hidden" in i["name"] for g in ("added", "removed", "changed") for i in api[g])


def test_changelog_entries_are_the_headings_after_from_up_to_to(demo):
    """Keep-a-changelog headings in (1.0.0, 2.0.0]; Unreleased and 1.0.0 itself are not entries, and a
    sub-heading holding a version stays inside its entry's text."""
    part = review(from_version="1.0.0")["review"]["changelog"]
    assert part["file"] == "CHANGELOG.md"
    assert [(e["version"], e["heading"]) for e in part["entries"]] == [
        ("2.0.0", "[2.0.0] - 2025-02-01"), ("1.1.0", "[1.1.0] - 2025-01-15")]
    assert part["entries"][1]["text"] == "- `parse` takes options\n### 1.0 migration notes\n- see the docs"


def _wheel(version: str, modules: dict[str, bytes], requires: list[str], scripts: dict[str, str]) -> dict[str, bytes]:
    info = f"pkgdemo-{version}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: pkgdemo\nVersion: {version}\nLicense: MIT\n"
    meta += "".join(f"Requires-Dist: {r}\n" for r in requires)
    files = {**modules, f"{info}/METADATA": meta.encode(), f"{info}/WHEEL": b"Wheel-Version: 1.0\n",
             f"{info}/RECORD": b""}
    if scripts:
        files[f"{info}/entry_points.txt"] = ("[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items())).encode()
    return files


PY1 = _wheel("1.0.0", {
    "pkgdemo/__init__.py": b"from .core import a\n__all__ = ['a', 'VERSION']\nVERSION = '1'\nhelper = 2\n",
    "pkgdemo/core.py": b"def a(x):\n    pass\n\ndef b():\n    pass\n\nclass C:\n    def m(self):\n        pass\n\n_hidden = 1\n",
    "pkgdemo/_impl.py": b"def secret():\n    pass\n",
    "pkgdemo/tests/test_core.py": b"def test_a():\n    pass\n",
    "pkgdemo/compat.py": b"try:\n    import json\n    LOADS = json.loads\nexcept ImportError:\n    LOADS = None\n",
}, ["requests (>=2.0)", "idna>=3; python_version < \"3.12\"", "pytest; extra == \"test\""], {})
PY2 = _wheel("2.0.0", {
    "pkgdemo/__init__.py": b"from .core import a\n__all__ = ['a', 'VERSION', 'helper']\nVERSION = '1'\nhelper = 2\n",
    "pkgdemo/core.py": b"def a(x, y=None):\n    pass\n\nclass C:\n    def m(self):\n        pass\n    def n(self):\n        pass\n\n"
                       b"def d():\n    pass\n",
    "pkgdemo/_impl.py": b"def secret():\n    pass\n\ndef secret2():\n    pass\n",
    "pkgdemo/tests/test_core.py": b"def test_a():\n    pass\n\ndef test_b():\n    pass\n",
    "pkgdemo/compat.py": b"try:\n    import json\n    LOADS = json.loads\nexcept ImportError:\n    LOADS = None\n",
    "pkgdemo/extra.py": b"class Extra:\n    pass\n",
}, ["requests (>=2.28)", "idna>=3; python_version < \"3.12\"", "rich; extra == \"cli\""], {"pkgdemo": "pkgdemo.cli:main"})


@pytest.fixture
def pydemo(pypi, monkeypatch):
    monkeypatch.setenv("CODENAV_OSV_URL", "off")
    for version, files in (("1.0.0", PY1), ("2.0.0", PY2)):
        pypi.add("pkgdemo", f"pkgdemo-{version}-py3-none-any.whl", make_zip(files))
    return pypi


def test_python_api_matches_the_public_names_read_with_ast_from_both_wheels(pydemo):
    """Removed and added module-level names equal the ast oracle's difference between the two
    wheels (__all__ honoured, private and test modules left out); members and signatures come along."""
    result = diff_versions.run({**REVIEW, "registry": "pypi", "package_name": "pkgdemo"}, cli=CliOptions(plain=True))
    api = result["review"]["api"]
    old, new = python_public(PY1), python_public(PY2)
    modules = {m for m, _ in old | new}

    def top(group: str) -> set[tuple[str, str]]:
        return {(i["name"].rsplit(".", 1)[0], i["name"].rsplit(".", 1)[1]) for i in api[group]
                if i["name"].rsplit(".", 1)[0] in modules}

    assert top("removed") == old - new == {("pkgdemo.core", "b")}
    assert top("added") == new - old == {("pkgdemo", "helper"), ("pkgdemo.core", "d"), ("pkgdemo.extra", "Extra")}
    assert [(i["name"], i["from"]["signature"], i["to"]["signature"]) for i in api["changed"]] == [
        ("pkgdemo.core.a", "def a(x)", "def a(x, y=None)")]
    assert "pkgdemo.core.C.n" in {i["name"] for i in api["added"]}
    recall, precision = recall_precision({(m, n) for m, n in top("added") | top("removed")}, (old - new) | (new - old))
    assert recall == precision == 1.0


def test_metadata_requires_dist_changes_equal_a_direct_comparison(pydemo):
    """Requires-Dist rows keyed by name and marker, read with the email parser, compared directly."""
    def rows(files):
        meta = next(v for k, v in files.items() if k.endswith("METADATA"))
        out = {}
        for line in HeaderParser().parsestr(meta.decode()).get_all("Requires-Dist"):
            head, _, marker = line.partition(";")
            name = re.match(r"[A-Za-z0-9._-]+", head.strip()).group(0).lower()
            spec = head.strip()[len(name):].strip().strip("()")
            out[(name, " ".join(marker.split()))] = spec
        return out

    a, b = rows(PY1), rows(PY2)
    part = diff_versions.run({**REVIEW, "registry": "pypi", "package_name": "pkgdemo"})["review"]["dependencies"]
    seen = ({("added", d["name"], d.get("condition", ""), d["range"]) for d in part["added"]}
            | {("removed", d["name"], d.get("condition", ""), d["range"]) for d in part["removed"]}
            | {("changed", d["name"], d.get("condition", ""), f"{d['from']}->{d['to']}") for d in part["changed"]})
    assert seen == ({("added", *k, b[k]) for k in b.keys() - a.keys()} | {("removed", *k, a[k]) for k in a.keys() - b.keys()}
                    | {("changed", *k, f"{a[k]}->{b[k]}") for k in a.keys() & b.keys() if a[k] != b[k]})
    assert {d["kind"] for d in part["added"]} == {"optional"}
    findings = diff_versions.run({**REVIEW, "registry": "pypi", "package_name": "pkgdemo"})["review"]["supplyChain"]
    assert [(f["kind"], f["reason"]) for f in findings["findings"]] == [
        ("bin", "command 'pkgdemo' added -> pkgdemo.cli:main")]


@pytest.fixture
def osv(monkeypatch):
    with FakeServer() as server:
        fake = FakeOsv(server)
        monkeypatch.setenv("CODENAV_OSV_URL", fake.url)
        yield fake


def test_advisories_fixed_by_the_upgrade_and_still_affecting_come_from_osv(npm, osv):
    """fixed: naming FROM, not TO; affecting: naming TO; severity from database_specific, else the
    CVSS v3 band; fixedIn the lowest fix above the version; pages of both endpoints followed."""
    npm.publish("demo", "1.0.0", V1)
    npm.publish("demo", "2.0.0", V2)
    osv.page_size = 1
    osv.records = [
        record("GHSA-aaaa-0001", "npm", "demo", ["1.0.0"], "1.5.0", aliases=("CVE-2025-1",), summary="Prototype pollution",
               severity="HIGH"),
        record("GHSA-aaaa-0002", "npm", "demo", ["1.0.0", "2.0.0"], None, summary="ReDoS in parse",
               cvss="CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H"),
        record("GHSA-aaaa-0003", "npm", "demo", ["2.0.0"], "2.0.1", summary="Path traversal",
               cvss="CVSS:3.1/AV:N/AC:H/PR:L/UI:R/S:U/C:L/I:N/A:N"),
        record("GHSA-other", "npm", "other", ["1.0.0"], "2.0.0", summary="not ours", severity="LOW"),
    ]
    result = review()
    part = result["review"]["advisories"]
    assert part["status"] == "complete"
    assert part["package"] == {"ecosystem": "npm", "name": "demo", "from": "1.0.0", "to": "2.0.0"}
    assert part["fixed"] == [{"id": "GHSA-aaaa-0001", "aliases": ["CVE-2025-1"], "summary": "Prototype pollution",
                              "severity": "HIGH", "fixedIn": "1.5.0"}]
    assert part["affecting"] == [
        {"id": "GHSA-aaaa-0002", "aliases": [], "summary": "ReDoS in parse", "severity": "HIGH"},
        {"id": "GHSA-aaaa-0003", "aliases": [], "summary": "Path traversal", "severity": "LOW", "fixedIn": "2.0.1"}]
    assert result["counts"]["advisories"] == {"fixed": 1, "affecting": 2}
    paths = [s.path for s in osv.server.seen]
    assert paths.count("/v1/querybatch") >= 2 and "/v1/query" in paths  # tokens followed
    assert "warnings" not in result


@pytest.mark.parametrize("how", ["closed port", "503"])
def test_an_unreachable_osv_is_a_warning_never_a_failed_call(npm, osv, monkeypatch, how):
    """OSV down or unreachable: the review is returned, its advisories say why, and a warning says so."""
    npm.publish("demo", "1.0.0", V1)
    npm.publish("demo", "2.0.0", V2)
    if how == "503":
        osv.down = True
    else:
        monkeypatch.setenv("CODENAV_OSV_URL", "http://127.0.0.1:9")
    result = review()
    part = result["review"]["advisories"]
    assert part["status"] == "unavailable" and part["reason"].startswith("OSV could not be asked")
    assert [w for w in result["warnings"] if w.startswith("advisories are missing")]
    assert result["review"]["api"]["status"] == "complete"


def test_a_long_review_is_paged_with_counts_on_every_page(npm, monkeypatch):
    """Past the output budget the review comes in pages; their items, in order, are the whole
    review; each page has every part's counts; a cursor of another review is refused."""
    monkeypatch.setenv("CODENAV_OSV_URL", "off")
    many = "".join(f"exports.function_number_{i} = function function_number_{i}(a, b, c) {{}};\n" for i in range(1500))
    npm.publish("demo", "1.0.0", {"package.json": package_json(version="1.0.0"), "index.js": b"exports.x = 1;\n"})
    npm.publish("demo", "2.0.0", {"package.json": package_json(version="2.0.0"), "index.js": many.encode()})
    whole = review()
    pages, cursor = [], None
    while True:
        page = diff_versions.run({**REVIEW, **({"cursor": cursor} if cursor else {})})
        contract.validator("diff_versions", "outputSchema").validate(page)
        assert len(contract.dumps(page).encode()) <= 50 * 1024
        assert page["counts"] == whole["counts"]
        pages.append(page)
        if not page["hasMore"]:
            break
        cursor = page["nextCursor"]
    assert len(pages) > 1
    assert [i for p in pages for i in p["review"]["api"]["added"]] == whole["review"]["api"]["added"]
    with pytest.raises(CodenavError) as info:
        diff_versions.run({**REVIEW, "cursor": "3-00000000"})
    assert info.value.code == "INVALID_ARGUMENT" and info.value.details["field"] == "cursor"


def test_narrowing_arguments_are_refused_with_a_review(demo):
    """path_prefix, path, glob and context narrow a patch; a review names the one given."""
    with pytest.raises(CodenavError) as info:
        diff_versions.run({**REVIEW, "path_prefix": "lib"})
    assert info.value.details["field"] == "path_prefix"


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin", "HOME": str(repo)})


def _commit(repo, files, tag):
    for path, data in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_bytes(data)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", tag)
    _git(repo, "tag", tag)


def test_git_refs_are_reviewed_from_the_tree_with_advisories_for_the_package_it_names(tmp_path, osv):
    """Between two tags: the manifests and changelog in the tree; the package.json names the
    package and its versions, so OSV is asked about it (the source is said)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _commit(repo, V1, "v1.0.0")
    for path in V1:
        (repo / path).unlink()
    _commit(repo, V2, "v2.0.0")
    osv.records = [record("GHSA-git-0001", "npm", "demo", ["1.0.0"], "2.0.0", severity="CRITICAL", summary="x")]
    result = diff_versions.run({"repo_url": str(repo), "from_ref": "v1.0.0", "to_ref": "v2.0.0", "view": "review"})
    contract.validator("diff_versions", "outputSchema").validate(result)
    review_ = result["review"]
    assert review_["advisories"]["package"] == {"ecosystem": "npm", "name": "demo", "from": "1.0.0", "to": "2.0.0",
                                                "source": "package.json"}
    assert [a["id"] for a in review_["advisories"]["fixed"]] == ["GHSA-git-0001"]
    assert [e["version"] for e in review_["changelog"]["entries"]] == ["2.0.0", "1.1.0"]
    assert _seen_deps(review_["dependencies"]) == _direct_npm(json.loads(V1["package.json"]), json.loads(V2["package.json"]))
    assert ("binary", "prebuilt/addon.node") in {(f["kind"], f["path"]) for f in review_["supplyChain"]["findings"]}


def test_a_repository_that_is_no_known_package_gets_no_advisories(tmp_path, osv):
    """No manifest names a package: advisories say so; the other parts are still computed."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "plain"
    repo.mkdir()
    _git(repo, "init", "-q")
    _commit(repo, {"main.go": b"package main\n\nfunc main() {}\n"}, "a")
    _commit(repo, {"util.go": b"package main\n\nfunc Helper() {}\n"}, "b")
    result = diff_versions.run({"repo_url": str(repo), "from_ref": "a", "to_ref": "b", "view": "review"})
    assert result["review"]["advisories"] == {"status": "unavailable",
                                              "reason": "the repository is not a known package's: no manifest names one"}
    assert result["review"]["dependencies"]["status"] == "unavailable"
    assert result["review"]["changelog"]["status"] == "unavailable"
    assert result["review"]["supplyChain"]["status"] == "complete"


def test_the_cli_prints_sections_and_json_is_the_envelope(demo):
    """Plain `codenav diff --review` prints the header and one section per part; --json prints the
    same result run() returns."""
    env = {"CODENAV_OSV_URL": "off"}
    plain = run_cli("diff", "npm:demo", "1.0.0", "2.0.0", "--review", env=env)
    assert plain.returncode == 0, plain.stderr
    text = plain.stdout.decode()
    assert text.startswith("review npm:demo@1.0.0 -> npm:demo@2.0.0: supply chain 14 · advisories n/a · ")
    for title in ("## supply chain (14 findings)", "## advisories (off: ", "## dependencies (-1 ~1 +3)",
                  "## api (-1 ~1 +2)", "## changelog (2 entries from CHANGELOG.md)", "- variable demo.old  index.js:3"):
        assert title in text
    as_json = run_cli("diff", "npm:demo", "1.0.0", "2.0.0", "--review", "--json", env=env)
    assert json.loads(as_json.stdout) == json.loads(contract.dumps(diff_versions.run(dict(REVIEW))))


def test_from_omitted_is_the_locked_version_and_to_omitted_the_latest(demo, tmp_path):
    """Inside a project, FROM is the version its lockfile pins (echoed as such); TO is the registry's latest."""
    project = tmp_path / "app"
    project.mkdir()
    (project / "package-lock.json").write_text(json.dumps({"lockfileVersion": 3, "packages": {
        "": {"dependencies": {"demo": "^1.0.0"}}, "node_modules/demo": {"version": "1.0.0"}}}))
    result = diff_versions.run({"registry": "npm", "package_name": "demo", "project_dir": str(project), "view": "review"})
    assert (result["from"]["version"], result["to"]["version"]) == ("1.0.0", "2.0.0")
    assert result["from"]["versionSource"]["kind"] == "lockfile" and result["to"]["versionSource"] == {"kind": "latest"}
    assert result["counts"]["api"] == {"added": 2, "removed": 1, "changed": 1}


def test_a_ranged_wheel_is_reviewed_from_the_members_fetched_by_range(pypi, monkeypatch):
    """Wheels over the download limit are read by byte range: the review fetches their text
    members, and says nothing is verified end to end (target.verified false)."""
    monkeypatch.setenv("CODENAV_OSV_URL", "off")
    monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", "200000")
    pypi.ranges = "honour"
    blob = os.urandom(250_000)
    for version, extra in (("1.0.0", b""), ("2.0.0", b"\ndef added():\n    pass\n")):
        files = _wheel(version, {"pkgdemo/__init__.py": b"def kept():\n    pass\n" + extra, "pkgdemo/data.bin": blob},
                       ["requests>=2"], {})
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
            for path, data in sorted(files.items()):
                zf.writestr(path, data)
        pypi.add("pkgdemo", f"pkgdemo-{version}-py3-none-any.whl", buf.getvalue())
    result = diff_versions.run({**REVIEW, "registry": "pypi", "package_name": "pkgdemo"})
    assert result["from"]["verified"] is False
    assert [i["name"] for i in result["review"]["api"]["added"]] == ["pkgdemo.added"]
    assert result["counts"]["supplyChain"] == {"findings": 0}


def _history_headings(text: str) -> list[str]:
    """The versions of History.md's setext headings (``5.1.0 / 2025-03-31`` over ``====``), in file order."""
    lines = text.split("\n")
    return [line.split(" / ")[0] for line, under in zip(lines, lines[1:], strict=False)
            if re.fullmatch(r"=+\s*", under) and re.match(r"\d+\.\d+\.\d+\S* / ", line)]


def _semver(version: str) -> tuple:
    """SemVer 2.0 precedence for the versions History.md uses (numbers, then a prerelease before its release)."""
    core, _, pre = version.partition("-")
    ids = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")) if pre else ()
    return (*map(int, core.split(".")), 0 if pre else 1, ids)


def test_express_changelog_on_the_real_artifacts_is_exactly_the_history_headings_in_range(npm, monkeypatch):
    """express 4.21.2 -> 5.1.0 as npm serves them (tests/data/readme): the entries are History.md's
    headings with 4.21.2 < version <= 5.1.0, in file order, read with a regex and SemVer's precedence."""
    monkeypatch.setenv("CODENAV_OSV_URL", "off")
    for version in ("4.21.2", "5.1.0"):
        npm.publish("express", version, {}, tarball=(ROOT / "tests" / "data" / "readme" / f"express-{version}.tgz")
                    .read_bytes())
    with tarfile.open(ROOT / "tests" / "data" / "readme" / "express-5.1.0.tgz") as tar:
        history = tar.extractfile("package/History.md").read().decode()
    valid = [v for v in _history_headings(history) if re.fullmatch(r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?", v)]  # 3.0.0rc5 is none
    want = [v for v in valid if _semver("4.21.2") < _semver(v) <= _semver("5.1.0")]
    part = review(package_name="express", from_version="4.21.2", to_version="5.1.0")["review"]["changelog"]
    assert (part["status"], part["file"]) == ("complete", "History.md")
    assert [e["version"] for e in part["entries"]] == want
    assert want[0] == "5.1.0" and want[-1] == "5.0.0-alpha.1" and len(want) == 14


def test_the_api_of_a_real_wheel_is_what_ast_reads_from_it(pypi, monkeypatch):
    """From a release with no modules to requests 2.32.3's real wheel (tests/data/readme), the
    module-level names added are exactly the ast oracle's public names of that wheel."""
    monkeypatch.setenv("CODENAV_OSV_URL", "off")
    wheel = ROOT / "tests" / "data" / "readme" / "requests-2.32.3-py3-none-any.whl"
    pypi.add("requests", "requests-0.0.1-py3-none-any.whl", make_zip(
        {"requests-0.0.1.dist-info/METADATA": b"Metadata-Version: 2.1\nName: requests\nVersion: 0.0.1\n",
         "requests-0.0.1.dist-info/WHEEL": b"Wheel-Version: 1.0\n", "requests-0.0.1.dist-info/RECORD": b""}))
    pypi.add("requests", wheel.name, wheel.read_bytes())
    want = python_public(wheel_files(str(wheel)))
    modules = {m for m, _ in want}
    api = review(registry="pypi", package_name="requests", from_version="0.0.1", to_version="2.32.3")["review"]["api"]
    got = {tuple(i["name"].rsplit(".", 1)) for i in api["added"] if i["name"].rsplit(".", 1)[0] in modules}
    assert recall_precision(got, want) == (1.0, 1.0), (sorted(want - got), sorted(got - want))
    assert len(want) > 100 and api["removed"] == api["changed"] == []
