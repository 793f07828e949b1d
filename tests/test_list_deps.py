"""list_deps / `codenav deps`: what the project locks, every ecosystem, on both surfaces (issue 23 item 2)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from codenav import contract
from codenav.errors import CodenavError
from codenav.lockfiles import find_locked
from codenav.tools import list_deps
from tests.support.cli import isolated_subprocess_env, run_cli
from tests.support.mcp import McpSession, check

DATA = Path(__file__).resolve().parent / "data" / "lockfiles"
NPM_DIRECT = ["npm:@sindresorhus/is@0.14.0", "npm:@sindresorhus/is@4.6.0", "npm:debug@2.6.9", "npm:debug@4.3.7",
              "npm:is-number@7.0.0", "npm:ms@0.7.3", "npm:ms@2.1.3", "npm:react@18.3.1",
              "npm:use-sync-external-store@1.2.2"]
GEMFILE_LOCK = """GEM
  remote: https://rubygems.org/
  specs:
    racc (1.8.1)
    nokogiri (1.16.7-x86_64-linux)
      racc (~> 1.4)

PLATFORMS
  x86_64-linux

DEPENDENCIES
  nokogiri

BUNDLED WITH
   2.5.16
"""


def polyglot(base: Path) -> Path:
    """A Python service (uv) with a JS front end (npm) and a Ruby tool: three ecosystems, one project."""
    proj = base / "proj"
    for dest, source in {"web/package-lock.json": "npm/package-lock.v3.json", "web/package.json": "npm/package.json",
                         "uv.lock": "python/uv/uv.lock.trimmed", "pyproject.toml": "python/uv/pyproject.toml",
                         "packages/app/pyproject.toml": "python/uv/packages/app/pyproject.toml"}.items():
        (proj / dest).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(DATA / source, proj / dest)
    (proj / "Gemfile.lock").write_text(GEMFILE_LOCK)
    (proj / ".git").mkdir()
    return proj


def specs(result: dict) -> list[str]:
    return [f"{r['registry']}:{r['name']}@{r['version']}" for r in result["dependencies"]]


def test_every_ecosystem_of_the_project_is_listed(tmp_path):
    """A project with several ecosystems lists each one's direct dependencies, in table order."""
    proj = polyglot(tmp_path)
    result = list_deps.run({"project_dir": str(proj / "web")})
    assert result["lockfiles"] == [{"registry": "npm", "file": "package-lock.json"},
                                   {"registry": "pypi", "file": "../uv.lock"},
                                   {"registry": "rubygems", "file": "../Gemfile.lock"}]
    assert [s for s in specs(result) if s.startswith("npm:")] == NPM_DIRECT
    assert "rubygems:nokogiri@1.16.7" in specs(result) and "rubygems:racc@1.8.1" not in specs(result)
    assert {r["registry"] for r in result["dependencies"]} == {"npm", "pypi", "rubygems"}
    assert all(r["direct"] for r in result["dependencies"]) and result["all"] is False
    ms = next(r for r in result["dependencies"] if r["name"] == "ms" and r["version"] == "2.1.3")
    assert ms == {"registry": "npm", "name": "ms", "version": "2.1.3", "direct": True, "file": "package-lock.json",
                  "entry": "node_modules/ms"}
    everything = list_deps.run({"project_dir": str(proj / "web"), "all": True})
    assert [s for s in specs(everything) if s.startswith("npm:")] == [  # by name, then version
        "npm:@sindresorhus/is@0.14.0", "npm:@sindresorhus/is@4.6.0", "npm:debug@2.6.9", "npm:debug@4.3.7",
        "npm:is-number@7.0.0", "npm:js-tokens@4.0.0", "npm:loose-envify@1.4.0", "npm:ms@0.7.3", "npm:ms@2.0.0",
        "npm:ms@2.1.3", "npm:react@18.3.1", "npm:use-sync-external-store@1.2.2"]
    assert everything["totalLocked"] == len(everything["dependencies"]) > result["totalDirect"] == len(
        result["dependencies"])


def test_each_row_names_the_file_and_entry_the_locked_version_comes_from(tmp_path):
    """A row's file and entry are what versionSource says for the same package."""
    proj = polyglot(tmp_path)
    for row in list_deps.run({"project_dir": str(proj), "all": True})["dependencies"]:
        found = find_locked(row["registry"], row["name"], str(proj))
        if found.version == row["version"]:
            assert (found.file, found.entry) == (row["file"], row["entry"]), row


ENVIRONMENT_YML = """name: analysis
channels:
  - conda-forge
dependencies:
  - python=3.11
  - conda-forge::numpy==1.26.4
  - xarray>=2024
  - pip:
    - requests==2.32.3
"""
RENV_LOCK = {"R": {"Version": "4.2.2"}, "Packages": {
    "jsonlite": {"Package": "jsonlite", "Version": "1.8.9", "Source": "Repository", "Repository": "CRAN"},
    "curl": {"Package": "curl", "Version": "5.2.1", "Source": "Repository", "Repository": "CRAN"},
    "gh": {"Package": "gh", "Version": "1.4.1.9000", "Source": "GitHub", "RemoteSha": "6d6ee4a8"}}}


def three_more(base: Path) -> Path:
    """An analysis project: conda's environment.yml, R's renv.lock with its DESCRIPTION, a Dart tool's pubspec.lock."""
    proj = base / "proj"
    (proj / "tool").mkdir(parents=True)
    (proj / ".git").mkdir()
    (proj / "environment.yml").write_text(ENVIRONMENT_YML)
    (proj / "renv.lock").write_text(json.dumps(RENV_LOCK))
    (proj / "DESCRIPTION").write_text("Package: analysis\nVersion: 0.1\nImports: jsonlite (>= 1.8), gh\n")
    shutil.copyfile(DATA / "pub" / "dummy_screenshot_pkg.pubspec.lock", proj / "tool" / "pubspec.lock")
    return proj


def test_conda_cran_and_pub_lockfiles_are_listed_with_their_direct_dependencies(tmp_path):
    """environment.yml's pins (a `=V` pin is conda's `V.*`; a range or the pip list pins nothing), renv.lock's
    CRAN records (DESCRIPTION's imports direct, a GitHub record left out) and pubspec.lock's hosted packages."""
    proj = three_more(tmp_path)
    result = list_deps.run({"project_dir": str(proj / "tool"), "all": True})
    assert result["lockfiles"] == [{"registry": "conda", "file": "../environment.yml"},
                                   {"registry": "cran", "file": "../renv.lock"},
                                   {"registry": "pub", "file": "pubspec.lock"}]
    assert [(r["registry"], r["name"], r["version"], r["direct"]) for r in result["dependencies"]] == [
        ("conda", "numpy", "1.26.4", True), ("conda", "python", "3.11.*", True), ("cran", "curl", "5.2.1", False),
        ("cran", "jsonlite", "1.8.9", True), ("pub", "lints", "1.0.1", True)]
    for row in result["dependencies"]:
        found = find_locked(row["registry"], row["name"], str(proj / "tool"))
        assert (found.version, found.file, found.entry) == (row["version"], row["file"], row["entry"]), row


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """Both MCP servers (``--json`` and the default TEXT one) beside the CLI, and the polyglot project."""
    base = tmp_path_factory.mktemp("deps")
    env = isolated_subprocess_env(base)
    mcp, text = McpSession(env), McpSession(env, json_answers=False)
    bare = base / "bare"  # a project root with no lockfile
    (bare / ".git").mkdir(parents=True)
    yield {"env": env, "mcp": mcp, "text": text, "proj": polyglot(base), "bare": bare}
    mcp.close()
    text.close()


@pytest.mark.parametrize(("project", "arguments", "argv", "code"), [
    ("proj", {}, [], None),
    ("proj", {"all": True}, ["--all"], None),
    ("proj", {"all": True, "cursor": "3"}, ["--all", "--cursor", "3"], None),
    ("bare", {}, [], None),
    ("proj", {"cursor": "x"}, ["--cursor", "x"], "INVALID_ARGUMENT"),
])
def test_deps_is_byte_identical_on_the_cli_and_mcp(session, project, arguments, argv, code):
    """`codenav deps --json` prints exactly list_deps's `mcp --json` payload, which its output schema
    accepts, and the default server's TEXT is `codenav deps --verbose` (errors code first)."""
    proj = str(session[project])
    payload = check(session, "list_deps", {"project_dir": proj, **arguments}, ["deps", "--project", proj, *argv],
                    code=code)
    if code is None and "cursor" in arguments:
        assert specs(payload) == specs(list_deps.run({"project_dir": proj, "all": True}))[3:]


def test_plain_output_is_one_spec_per_line_and_names_the_lockfiles(session):
    """Plain output: SPECs on stdout, ready for `codenav read`; the lockfiles read on stderr."""
    proc = run_cli("deps", "--project", str(session["proj"] / "web"), env=session["env"])
    assert proc.returncode == 0
    assert proc.stderr == b"codenav: read package-lock.json, ../uv.lock, ../Gemfile.lock\n"
    lines = proc.stdout.decode().splitlines()
    assert lines[:len(NPM_DIRECT)] == NPM_DIRECT and lines == specs(list_deps.run({"project_dir": str(
        session["proj"] / "web")}))
    verbose = run_cli("deps", "--project", str(session["proj"] / "web"), "-v", env=session["env"])
    header = verbose.stdout.decode().splitlines()[0]
    total = len(lines)
    assert header.startswith(f"deps from package-lock.json, ../uv.lock, ../Gemfile.lock: {total} direct (npm 9, ")
    assert header.endswith(": pass --all")  # --verbose speaks the CLI's words


def test_a_long_listing_pages_without_gap_or_repeat(tmp_path):
    """Over the output budget the list is cut at whole rows; the cursors page through every row once."""
    packages = {"": {"name": "big", "dependencies": {f"dep-{i:04}": "1.0.0" for i in range(1500)}}}
    packages.update({f"node_modules/dep-{i:04}": {"version": "1.0.0"} for i in range(1500)})
    (tmp_path / "package-lock.json").write_text(json.dumps({"lockfileVersion": 3, "packages": packages}))
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        page = list_deps.run({"project_dir": str(tmp_path), **({"cursor": cursor} if cursor else {})})
        pages += 1
        assert len(contract.dumps(page).encode()) <= 50 * 1024
        seen += specs(page)
        if not page["hasMore"]:
            break
        cursor = page["nextCursor"]
        assert page["hint"].startswith(f"showing {len(page['dependencies'])} of ")
    assert pages > 1 and seen == [f"npm:dep-{i:04}@1.0.0" for i in range(1500)]
    plain = run_cli("deps", "--project", str(tmp_path))
    assert plain.stdout.decode().splitlines() == seen  # plain output is never cut


def test_no_lockfile_is_an_empty_answer_with_a_hint(tmp_path):
    """A directory with no lockfile up to the project root answers an empty list and says why."""
    (tmp_path / ".git").mkdir()
    result = list_deps.run({"project_dir": str(tmp_path)})
    assert (result["dependencies"], result["lockfiles"], result["totalLocked"]) == ([], [], 0)
    assert result["hint"].startswith("no lockfile found")


def test_bad_lockfiles_are_warnings_not_failures(tmp_path):
    """A broken lockfile is skipped with a warning; the other ecosystems are still listed."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "Cargo.lock").write_text("[[package]\n")
    (tmp_path / "Gemfile.lock").write_text(GEMFILE_LOCK)
    result = list_deps.run({"project_dir": str(tmp_path)})
    assert specs(result) == ["rubygems:nokogiri@1.16.7"]
    assert len(result["warnings"]) == 1 and result["warnings"][0].startswith("Cargo.lock: skipped: not valid TOML")


def test_an_empty_project_dir_is_refused():
    """project_dir "" names no project (for version lookups it turns them off; here there is nothing to list)."""
    with pytest.raises(CodenavError) as info:
        list_deps.run({"project_dir": ""})
    assert (info.value.code, info.value.details["field"]) == ("INVALID_ARGUMENT", "project_dir")


def test_text_answer_has_a_header_then_one_spec_per_line(tmp_path):
    """The TEXT answer: a header with what was answered and the totals, warnings, then the SPECs."""
    proj = polyglot(tmp_path)
    result = list_deps.run({"project_dir": str(proj / "web")})
    lines = list_deps.text(result).splitlines()
    assert lines[0].startswith("deps from package-lock.json, ../uv.lock, ../Gemfile.lock: ")
    assert lines[1:] == specs(result)
