"""Versions as developers write them, picked as npm and pip pick, and the project's locked
version by default (SPEC §2.1) — against the fake registries, with the real tools as oracles."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codenav.errors import CodenavError
from codenav.tools import list_files, read_file
from tests.support.cli import ORIGINAL_ENV, run_cli
from tests.support.pip import clean_env, tiny_wheel

# A version set with prereleases, deprecated releases and a `latest` tag below the highest.
NPM_VERSIONS = ["0.9.0", "1.0.0", "1.1.0", "1.2.0", "1.2.5", "1.3.0-beta.1", "1.3.0", "1.4.0", "2.0.0-rc.1",
                "2.0.0", "2.1.0", "2.2.0", "3.0.0-alpha.1", "3.0.0"]
NPM_DEPRECATED = {"1.4.0": "use 1.3.0", "2.2.0": "broken build", "3.0.0": "yanked by the author"}
NPM_LATEST = "2.1.0"
NPM_RANGES = [
    "*", "^1", "^1.0.0", "~1.2", "~1.2.0", "1.x", "1.2.x", "1", "2", ">=1.2.0", ">1.2.0 <2", "<2", "<=1.2.5",
    "1.2 - 1.4", "1.0.0 - 2.0.0", "^1 || ^2", "~1.1 || ~1.3", ">=2.0.0-rc.0", "^2.0.0-rc.1", ">=1.3.0-beta.0 <1.3.1",
    "^3", ">=3", "^2", "~2.2", "2.2.x", ">2.1.0", "^1.4", "~1.4.0", ">=1 <1.4", "^0.9", "~0.9", "0.x",
    "v1.2.0", "=1.2.0", "1.2.0", ">= 1.2.0 < 1.3", "^1.2.3", "1.2.*", "x", "", "latest", ">1 <=2.0.0",
]
NPM_UNSATISFIABLE = ["^4", ">3.0.0", "~1.5", "0.8.x"]


def _publish_npm(npm) -> None:
    for version in NPM_VERSIONS:
        npm.publish("demo", version, {"index.js": f"module.exports = '{version}';\n".encode()}, tag_latest=False)
    npm.tag("demo", "latest", NPM_LATEST)
    npm.tag("demo", "next", "3.0.0-alpha.1")
    for version, message in NPM_DEPRECATED.items():
        npm.deprecate("demo", version, message)


def _npm_picks(npm, specs: list[str], tmp_path: Path) -> list[str]:
    """What real `npm pack --dry-run` picks for each spec, against the same fake registry."""
    cache = tmp_path / "npm-cache"
    env = {**ORIGINAL_ENV, "npm_config_cache": str(cache), "npm_config_userconfig": os.devnull,
           "npm_config_update_notifier": "false", "npm_config_audit": "false", "npm_config_fund": "false"}
    proc = subprocess.run(
        ["npm", "pack", "--dry-run", "--json", "--registry", npm.url, *[f"demo@{s}" for s in specs]],
        capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [item["version"] for item in json.loads(proc.stdout)]


def _codenav_npm(spec: str) -> str:
    args = {"registry": "npm", "package_name": "demo"}
    if spec:
        args["version"] = spec
    return list_files.run(args)["target"]["version"]


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_npm_ranges_and_tags_pick_what_npm_pack_picks(npm, tmp_path):
    """For 40+ ranges, tags and loose spellings over prereleases, deprecated versions and a
    `latest` below the highest, codenav reads the version real `npm pack` picks."""
    _publish_npm(npm)
    specs = [s for s in NPM_RANGES if s]  # npm reads "demo@" as a malformed spec
    expected = _npm_picks(npm, specs, tmp_path)
    assert [_codenav_npm(s) for s in specs] == expected
    assert _codenav_npm("") == _npm_picks(npm, ["latest"], tmp_path)[0]  # no version: latest


def test_an_unsatisfiable_npm_range_lists_the_available_versions(npm):
    """Nothing satisfying a range is VERSION_NOT_FOUND with availableVersions and latest."""
    _publish_npm(npm)
    for spec in NPM_UNSATISFIABLE:
        with pytest.raises(CodenavError) as info:
            list_files.run({"registry": "npm", "package_name": "demo", "version": spec})
        err = info.value
        assert err.code == "VERSION_NOT_FOUND" and repr(spec) in err.message
        assert err.details["latest"] == NPM_LATEST and "3.0.0" in err.details["availableVersions"]


# --- PyPI --------------------------------------------------------------------------------------

PYPI_VERSIONS = ["1.0", "1.1", "1.2.0", "1.2.1", "1.3a1", "1.3", "1.4.dev0", "1.4", "2.0b1", "2.0", "2.0.post1",
                 "2.1rc1", "3.0a1"]
PYPI_YANKED = {"1.4", "2.0.post1"}
PYPI_SPECS = [
    ">=1.0", ">=1.2,<2", "~=1.2", "~=1.2.0", "==1.2.*", "!=1.3,<1.4", ">1.2.0", "<2", "<=2.0", "==1.1", "===1.2.0",
    ">=2", ">2.0", "~=2.0", "==2.0.post1", "==1.4", ">=1.3a1,<1.4", ">=2.0b1", "<3", ">=2.1rc1", "==1.*",
    "!=2.0", ">=1,!=1.2.1", "<1.3", "==3.0a1", ">1.0,<=1.2.1",
]


def _publish_pypi(pypi, project: str) -> None:
    for version in PYPI_VERSIONS:
        pypi.add(project, f"{project.replace('-', '_')}-{version}-py3-none-any.whl", tiny_wheel(project, version),
                 yanked=version in PYPI_YANKED)


def _pip_picks(pip_dir: Path, index: str, projects: dict[str, str], dest: Path) -> dict[str, str | None]:
    """What real pip downloads for each project's specifier, in one run against the fake index."""
    requirements = [f"{project}{spec}" for project, spec in projects.items()]
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-cache-dir", "--quiet", "-d", str(dest),
         "--index-url", index, *requirements],
        capture_output=True, text=True, timeout=300, env={**clean_env(), "PYTHONPATH": str(pip_dir)},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    got: dict[str, str | None] = {project: None for project in projects}
    for wheel in dest.glob("*.whl"):
        name, version = wheel.name.split("-")[:2]
        got[name.replace("_", "-")] = version
    return got


def test_pypi_specifiers_pick_what_pip_downloads(pypi, pip_dir, tmp_path):
    """For 25+ PEP 440 specifier sets over prereleases, post releases and yanked files, codenav
    reads the release the newest pip downloads from the same index."""
    projects = {f"demo{i}": spec for i, spec in enumerate(PYPI_SPECS)}
    for project in projects:
        _publish_pypi(pypi, project)
    satisfiable = {}
    for project, spec in projects.items():
        try:
            satisfiable[project] = list_files.run({"registry": "pypi", "package_name": project,
                                                   "version": spec})["target"]["version"]
        except CodenavError as exc:
            assert exc.code == "VERSION_NOT_FOUND", exc.message
            satisfiable[project] = None
    picked = _pip_picks(pip_dir, pypi.url, {p: s for p, s in projects.items() if satisfiable[p]}, tmp_path)
    assert {p: v for p, v in satisfiable.items() if v} == {p: v for p, v in picked.items()}
    assert None not in picked.values()
    # Those codenav finds unsatisfiable, pip refuses too.
    for project, spec in projects.items():
        if satisfiable[project] is None:
            proc = subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--no-cache-dir", "--quiet", "-d",
                 str(tmp_path / "none"), "--index-url", pypi.url, f"{project}{spec}"],
                capture_output=True, text=True, timeout=300, env={**clean_env(), "PYTHONPATH": str(pip_dir)})
            assert proc.returncode != 0 and "No matching distribution" in proc.stderr, (spec, proc.stderr)


def test_the_pep_508_spelling_is_understood_on_the_cli(pypi):
    """`pypi:NAME>=A,<B` and `pypi:NAME==V` are read as pip reads them; the echo says how."""
    _publish_pypi(pypi, "demo")
    proc = run_cli("files", "pypi:demo>=1.2,<2", "--json", env={"CODENAV_PYPI_INDEX_URL": pypi.url})
    target = json.loads(proc.stdout)["target"]
    assert (target["version"], target["versionSource"]) == ("1.3", {"kind": "range", "spec": ">=1.2,<2"})
    proc = run_cli("files", "pypi:demo==1.2.1", "--json", env={"CODENAV_PYPI_INDEX_URL": pypi.url})
    target = json.loads(proc.stdout)["target"]
    assert (target["version"], target["versionSource"]) == ("1.2.1", {"kind": "exact", "spec": "==1.2.1"})


def test_a_range_is_resolved_again_after_the_alias_ttl(npm, monkeypatch):
    """A range, like a dist-tag, is re-resolved once its alias expires: a new match is seen."""
    def read(spec: str) -> str:
        return list_files.run({"registry": "npm", "package_name": "moving", "version": spec})["target"]["version"]

    npm.publish("moving", "1.0.0", {"a.js": b"1\n"})
    assert read("^1") == "1.0.0"
    npm.publish("moving", "1.1.0", {"a.js": b"2\n"})
    assert read("^1") == "1.0.0"  # within the TTL the resolution is reused
    monkeypatch.setenv("CODENAV_RESOLVE_TTL", "0")
    assert read("~1.1") == "1.1.0"
    npm.publish("moving", "1.1.1", {"a.js": b"3\n"})
    assert read("~1.1") == "1.1.1"  # resolved again


# --- the project's locked version ----------------------------------------------------------------

def _npm_project(tmp_path: Path, version: str = "1.2.0") -> Path:
    project = tmp_path / "app"
    (project / "sub" / "deeper").mkdir(parents=True)
    (project / "package.json").write_text(json.dumps({"name": "app", "dependencies": {"demo": "^1.0.0"}}))
    (project / "package-lock.json").write_text(json.dumps({
        "name": "app", "lockfileVersion": 3, "requires": True,
        "packages": {"": {"name": "app", "dependencies": {"demo": "^1.0.0"}},
                     "node_modules/demo": {"version": version, "resolved": "x", "integrity": "x"},
                     "node_modules/other/node_modules/demo": {"version": "1.1.0"}}}))
    return project


def test_no_version_reads_what_the_lockfile_pins_and_says_so(npm, tmp_path):
    """With no version, the project's package-lock.json decides; the echo names the file and
    the key, lists the other locked copies, and the plain CLI says it in one stderr line."""
    _publish_npm(npm)
    project = _npm_project(tmp_path)
    result = list_files.run({"registry": "npm", "package_name": "demo", "project_dir": str(project / "sub" / "deeper")})
    assert result["target"]["version"] == "1.2.0"
    assert result["target"]["versionSource"] == {"kind": "lockfile", "file": "../../package-lock.json",
                                                 "entry": "node_modules/demo"}
    assert result["target"]["otherLockedVersions"] == ["1.1.0"]
    proc = run_cli("read", "npm:demo", "index.js", "--project", str(project),
                   env={"CODENAV_NPM_REGISTRY": npm.url})
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0, b"module.exports = '1.2.0';\n", b"codenav: demo 1.2.0 from package-lock.json\n")


def test_the_working_directory_is_the_project_when_nothing_else_is_given(npm, tmp_path):
    """An MCP client starts the server in the project: the working directory's lockfile
    decides, unless the lookup is turned off (`--no-project`, project_dir "")."""
    _publish_npm(npm)
    project = _npm_project(tmp_path, "1.1.0")
    env = {"CODENAV_NPM_REGISTRY": npm.url, "CODENAV_PROJECT_DIR": ""}
    env.pop("CODENAV_PROJECT_DIR")
    full = {k: v for k, v in os.environ.items() if k != "CODENAV_PROJECT_DIR"}
    proc = subprocess.run([sys.executable, "-m", "codenav", "files", "npm:demo", "--json"], cwd=project,
                          capture_output=True, env={**full, **env, "PYTHONPATH": str(Path(__file__).parent.parent)})
    assert json.loads(proc.stdout)["target"]["version"] == "1.1.0"
    proc = run_cli("files", "npm:demo", "--json", "--no-project", env=env)
    assert json.loads(proc.stdout)["target"]["versionSource"] == {"kind": "latest"}
    assert list_files.run({"registry": "npm", "package_name": "demo",
                           "project_dir": ""})["target"]["version"] == NPM_LATEST


def test_a_broken_lockfile_is_skipped_with_a_warning_and_latest_is_read(npm, tmp_path):
    """A truncated package-lock.json never fails the call: a warning in `warnings` (stderr in
    plain mode) and the next source — here the registry's latest."""
    _publish_npm(npm)
    project = tmp_path / "app"
    project.mkdir()
    (project / "package-lock.json").write_text('{"lockfileVersion": 3, "packages": {"node_modules/demo": {"ver')
    result = list_files.run({"registry": "npm", "package_name": "demo", "project_dir": str(project)})
    assert result["target"]["version"] == NPM_LATEST and result["target"]["versionSource"] == {"kind": "latest"}
    assert len(result["warnings"]) == 1 and "package-lock.json" in result["warnings"][0]
    proc = run_cli("files", "npm:demo", "--project", str(project), env={"CODENAV_NPM_REGISTRY": npm.url})
    assert proc.returncode == 0 and proc.stderr == f"codenav: warning: {result['warnings'][0]}\n".encode()


def test_a_git_copy_in_the_lockfile_is_never_replaced_by_latest(npm, tmp_path):
    """A package the lockfile takes from git is refused with the way to read that commit,
    never silently answered with the registry's latest."""
    _publish_npm(npm)
    project = tmp_path / "app"
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"dependencies": {"demo": "github:o/demo#abc"}}))
    (project / "package-lock.json").write_text(json.dumps({"lockfileVersion": 3, "packages": {
        "": {"dependencies": {"demo": "github:o/demo#abc"}},
        "node_modules/demo": {"version": "1.0.0", "resolved": "git+ssh://git@github.com/o/demo.git#" + "a" * 40}}}))
    with pytest.raises(CodenavError) as info:
        read_file.run({"registry": "npm", "package_name": "demo", "path": "index.js", "project_dir": str(project)})
    assert info.value.code == "INVALID_ARGUMENT" and "git copy" in info.value.message
    assert "repo_url" in info.value.details["action"]


def test_a_locked_pypi_version_comes_from_uv_lock(pypi, tmp_path):
    """PyPI names in a uv.lock compare after PEP 503 normalisation; the lockfile pins the read."""
    _publish_pypi(pypi, "demo-pkg")
    project = tmp_path / "py"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "py"\nversion = "0"\ndependencies = ["Demo_Pkg"]\n')
    (project / "uv.lock").write_text(
        'version = 1\nrequires-python = ">=3.11"\n\n'
        '[[package]]\nname = "demo-pkg"\nversion = "1.2.0"\nsource = { registry = "https://example.invalid/simple" }\n\n'
        '[[package]]\nname = "py"\nversion = "0"\nsource = { editable = "." }\ndependencies = [{ name = "demo-pkg" }]\n')
    result = list_files.run({"registry": "pypi", "package_name": "Demo.Pkg", "project_dir": str(project)})
    assert result["target"]["version"] == "1.2.0"
    assert result["target"]["versionSource"]["kind"] == "lockfile"
    assert result["target"]["versionSource"]["file"] == "uv.lock"


def test_version_source_is_pinned_for_every_kind(npm, tmp_path):
    """versionSource says exact, range, tag, latest, lockfile or installed, with what was asked."""
    _publish_npm(npm)

    def source(**extra) -> dict:
        return list_files.run({"registry": "npm", "package_name": "demo", **extra})["target"]["versionSource"]

    assert source(version="1.2.0") == {"kind": "exact", "spec": "1.2.0"}
    assert source(version="^1.2") == {"kind": "range", "spec": "^1.2"}
    assert source(version="next") == {"kind": "tag", "spec": "next"}
    assert source() == {"kind": "latest"}
    assert source(project_dir=str(_npm_project(tmp_path)))["kind"] == "lockfile"
    installed = tmp_path / "installed"
    (installed / "node_modules" / "demo").mkdir(parents=True)
    (installed / "package.json").write_text(json.dumps({"dependencies": {"demo": "*"}}))
    (installed / "node_modules" / "demo" / "package.json").write_text(json.dumps({"name": "demo", "version": "1.1.0"}))
    result = list_files.run({"registry": "npm", "package_name": "demo", "project_dir": str(installed)})
    assert result["target"]["version"] == "1.1.0"
    assert result["target"]["versionSource"] == {"kind": "installed", "file": "node_modules/demo/package.json",
                                                 "entry": "node_modules/demo"}
    proc = run_cli("files", "npm:demo", "--project", str(installed), env={"CODENAV_NPM_REGISTRY": npm.url})
    assert proc.stderr == b"codenav: demo 1.1.0 from node_modules/demo/package.json\n"
