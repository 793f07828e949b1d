"""Live upgrade reviews (-m live, issue 24): real releases against independent oracles.

- Python: the public names of each module, read with ``ast`` from the wheels ``pip download``
  fetches, for releases with known removals (Jinja2 3.0.3 -> 3.1.0 removed the deprecated
  ``contextfilter`` family; requests and attrs for breadth);
- JS: what Node's ``require``/``import()`` of each version gives, the versions installed with
  ``npm install`` (express 4.21.2 -> 5.1.0 removed ``express.query``; semver, uuid, chalk);
- changelog: express's History.md 4.21.2 -> 5.1.0, its headings parsed here and put in range
  with the real ``semver`` package under Node.

Skips cleanly when the registries, npm or node are unreachable. OSV is left off (it is not
reachable from every machine that reaches the registries).
"""

from __future__ import annotations

import glob
import json
import re
import shutil
import subprocess
import sys

import pytest

from codenav.review import api
from codenav.review.side import Side
from codenav.tools import CliOptions, _target, diff_versions
from tests.support.cli import as_the_user
from tests.support.oracles import node_exports, python_public, recall_precision, wheel_files

pytestmark = pytest.mark.live
MINIMUM = 0.95


@pytest.fixture
def real(monkeypatch):
    as_the_user(monkeypatch, ("PIP_CONFIG_FILE", "PIP_INDEX_URL", "npm_config_registry", "NPM_CONFIG_REGISTRY"))
    monkeypatch.setenv("CODENAV_OSV_URL", "off")


def _run(cmd: list[str], cwd, what: str) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"{what} unavailable: {exc}")
    if proc.returncode != 0:
        pytest.skip(f"{what} failed (offline?): {proc.stderr.strip()[-200:]}")
    return proc


def _public(registry: str, name: str, version: str) -> dict:
    entry = _target.open_entry({"registry": registry, "package_name": name, "version": version,
                                "wait_timeout_ms": 60000})
    symbols, _ = api.index_symbols(entry)
    found, _notes = api.definitions(Side(entry), symbols)
    return found


PYTHON = [("jinja2", "3.0.3", "3.1.0"), ("requests", "2.31.0", "2.32.3"), ("attrs", "22.2.0", "23.1.0")]


def test_python_api_matches_ast_on_the_wheels_pip_downloads(real, tmp_path):
    """Per version, the module-level public names equal ast's reading of the wheel (recall and
    precision over all releases >= 0.95); the review's removed names are the oracle's removals."""
    got_all, want_all = set(), set()
    for name, old, new in PYTHON:
        wants = {}
        for version in (old, new):
            where = tmp_path / f"{name}-{version}"
            _run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--no-cache-dir",
                  "-q", f"{name}=={version}", "-d", str(where)], tmp_path, "pip download")
            wants[version] = python_public(wheel_files(glob.glob(f"{where}/*.whl")[0]))
            got = {(key[1], key[3]) for key in _public("pypi", name, version) if key[2] == ""}
            got_all |= {(name, version, *g) for g in got}
            want_all |= {(name, version, *w) for w in wants[version]}
        result = diff_versions.run({"registry": "pypi", "package_name": name, "from_version": old, "to_version": new,
                                    "view": "review"}, cli=CliOptions(plain=True))
        modules = {m for m, _ in wants[old] | wants[new]}
        removed = {tuple(i["name"].rsplit(".", 1)) for i in result["review"]["api"]["removed"]
                   if i["name"].rsplit(".", 1)[0] in modules}
        assert removed == wants[old] - wants[new], name
    recall, precision = recall_precision(got_all, want_all)
    print(f"python API: recall {recall:.4f} precision {precision:.4f} over {len(want_all)} names")
    assert recall >= MINIMUM and precision >= MINIMUM
    jinja = diff_versions.run({"registry": "pypi", "package_name": "jinja2", "from_version": "3.0.3",
                               "to_version": "3.1.0", "view": "review"}, cli=CliOptions(plain=True))
    assert {"jinja2.filters.contextfilter", "jinja2.utils.contextfunction"} <= {
        i["name"] for i in jinja["review"]["api"]["removed"]}


JS = [("express", "4.21.2", "5.1.0"), ("semver", "6.3.1", "7.6.3"), ("uuid", "9.0.1", "11.0.3"), ("chalk", "4.1.2", "5.3.0")]


def test_js_api_matches_what_node_exports_from_the_installed_versions(real, tmp_path):
    """Per version and entry point, the runtime names equal Node's require()/import() keys
    (recall and precision >= 0.95); express 5 removed express.query."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are needed")
    got_all, want_all = set(), set()
    for name, old, new in JS:
        for version in (old, new):
            where = tmp_path / f"{name}-{version}"
            where.mkdir()
            _run(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock", "--prefix",
                  str(where), f"{name}@{version}"], where, "npm install")
            found = _public("npm", name, version)
            runtime: dict[str, set[str]] = {}
            for key, group in found.items():
                if key[2] == "" and not all(d.path.endswith((".d.ts", ".d.mts", ".d.cts")) for d in group):
                    runtime.setdefault(key[1], set()).add(key[3])
            want = node_exports(str(where), sorted(runtime) or [name])
            got_all |= {(name, version, spec, n) for spec, names in runtime.items() for n in names}
            want_all |= {(name, version, spec, n) for spec, names in want.items() for n in names}
    recall, precision = recall_precision(got_all, want_all)
    print(f"JS API: recall {recall:.4f} precision {precision:.4f} over {len(want_all)} names")
    assert recall >= MINIMUM and precision >= MINIMUM
    express = diff_versions.run({"registry": "npm", "package_name": "express", "from_version": "4.21.2",
                                 "to_version": "5.1.0", "view": "review"}, cli=CliOptions(plain=True))
    assert [i["name"] for i in express["review"]["api"]["removed"]] == ["express.query"]


def test_express_changelog_entries_are_exactly_the_history_headings_in_range(real, tmp_path):
    """Every `VERSION / DATE` heading of History.md (5.1.0) with 4.21.2 < VERSION <= 5.1.0 by
    node-semver, in file order, and nothing else."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are needed")
    _run(["npm", "pack", "express@5.1.0", "semver@7.6.3", "--pack-destination", str(tmp_path)], tmp_path, "npm pack")
    for tarball in ("express-5.1.0.tgz", "semver-7.6.3.tgz"):
        dest = tmp_path / tarball.rsplit("-", 1)[0]
        dest.mkdir()
        subprocess.run(["tar", "xzf", str(tmp_path / tarball), "-C", str(dest), "--strip-components=1"], check=True)
    history = (tmp_path / "express" / "History.md").read_text()
    lines = history.split("\n")
    headings = [line.split(" / ")[0].strip() for i, line in enumerate(lines[:-1])
                if re.match(r"^=+\s*$", lines[i + 1]) and re.match(r"^\d+\.\d+\.\d+\S* / ", line)]
    script = ("const s=require(process.argv[1]);const v=JSON.parse(process.argv[2]);"
              "process.stdout.write(JSON.stringify(v.filter(x=>s.valid(x)&&s.gt(x,'4.21.2')&&s.lte(x,'5.1.0'))))")
    in_range = json.loads(subprocess.run(["node", "-e", script, str(tmp_path / "semver"), json.dumps(headings)],
                                         capture_output=True, text=True, check=True).stdout)
    result = diff_versions.run({"registry": "npm", "package_name": "express", "from_version": "4.21.2",
                                "to_version": "5.1.0", "view": "review"}, cli=CliOptions(plain=True))
    part = result["review"]["changelog"]
    assert part["file"] == "History.md"
    assert [e["version"] for e in part["entries"]] == in_range
    assert len(in_range) >= 10
