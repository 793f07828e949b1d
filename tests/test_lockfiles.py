"""The locked version of a package (codenav.lockfiles; issue 14 items 2, 4 and 5; lockfiles.md).

The samples in tests/data/lockfiles/ were written by the real package managers (see its
README); each test lays one out as a project in a temporary directory and asks for versions.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codenav.lockfiles import Locked, find_locked, yaml_subset
from tests.fakes.http import FakeServer
from tests.fakes.npm import FakeNpm

DATA = Path(__file__).resolve().parent / "data" / "lockfiles"
ROOT = Path(__file__).resolve().parent.parent
GIT_SHA = "66505e1ba425b852d2a273ba9b90ba3a44840d8c"
PY_GIT_SHA = "e29976fe933529312a84adc99e738aa415a7d52a"


def put(dest: Path, source: str) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(DATA / source, dest)


def write(dest: Path, text: str) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(text)


# Each JS format: the lockfile sample and the manifests its demo project had (samples README).
_NPM_MANIFESTS = {"package.json": "npm/package.json", "packages/app/package.json": "npm/packages/app/package.json",
                  "packages/lib/package.json": "npm/packages/lib/package.json",
                  "local-lib/package.json": "npm/local-lib/package.json"}
_PNPM_MANIFESTS = {"package.json": "pnpm/package.json", "packages/app/package.json": "pnpm/packages/app/package.json",
                   "packages/lib/package.json": "pnpm/packages/lib/package.json",
                   "pnpm-workspace.yaml": "pnpm/pnpm-workspace.yaml", "local-lib/package.json": "npm/local-lib/package.json"}
JS_FORMATS = {
    "npm-v1": {"package-lock.json": "npm/package-lock.v1.json", **_NPM_MANIFESTS},
    "npm-v2": {"package-lock.json": "npm/package-lock.v2.json", **_NPM_MANIFESTS},
    "npm-v3": {"package-lock.json": "npm/package-lock.v3.json", **_NPM_MANIFESTS},
    "npm-shrinkwrap": {"npm-shrinkwrap.json": "npm/package-lock.v3.json", **_NPM_MANIFESTS},
    "npm-hidden": {"node_modules/.package-lock.json": "npm/node_modules.package-lock.json", **_NPM_MANIFESTS},
    "pnpm-5.4": {"pnpm-lock.yaml": "pnpm/pnpm-lock.pnpm7.yaml", **_PNPM_MANIFESTS},
    "pnpm-6": {"pnpm-lock.yaml": "pnpm/pnpm-lock.pnpm8.yaml", **_PNPM_MANIFESTS},
    "pnpm-9": {"pnpm-lock.yaml": "pnpm/pnpm-lock.pnpm9.yaml", **_PNPM_MANIFESTS},
    "yarn-1": {"yarn.lock": "yarn/yarn.v1.lock", **_NPM_MANIFESTS},
    "yarn-4": {"yarn.lock": "yarn/yarn.berry4.lock", **_PNPM_MANIFESTS, "package.json": "yarn/berry.package.json"},
    "yarn-3": {"yarn.lock": "yarn/yarn.berry3.lock", "package.json": "yarn/berry3.package.json"},
    "bun": {"bun.lock": "bun/bun.lock", **_PNPM_MANIFESTS, "package.json": "bun/package.json"},
}
LOCKFILE_OF = {fmt: next(k for k in files if k.endswith((".json", ".yaml", ".lock")) and "package.json" not in k
                         and "workspace" not in k) for fmt, files in JS_FORMATS.items()}
ALL_JS = tuple(JS_FORMATS)
FULL_JS = tuple(f for f in ALL_JS if f != "yarn-3")  # yarn.berry3.lock holds only debug/ms/is
WITH_GIT = ("npm-v1", "npm-v2", "npm-v3", "npm-shrinkwrap", "npm-hidden", "pnpm-5.4", "pnpm-9", "yarn-1", "bun")
WITH_WORKSPACE_LINK = tuple(f for f in FULL_JS if f != "yarn-1")  # yarn 1 does not record workspaces


def js_project(tmp_path: Path, fmt: str) -> Path:
    proj = tmp_path / "proj"
    for dest, source in JS_FORMATS[fmt].items():
        put(proj / dest, source)
    (proj / "packages" / "app" / "src").mkdir(parents=True, exist_ok=True)
    (proj / ".git").mkdir(exist_ok=True)
    return proj


def answer(found: Locked | None):
    """The parts of a Locked that the §2/§10 tables pin: name, version, others, source, ref."""
    if found is None:
        return None
    return (found.name, found.version, found.other_versions, found.source, found.ref)


# lockfiles.md §10, rows 1-7 (cwd, requested name) -> (name, version, others, source, ref).
MS_OTHERS = ["2.0.0", "0.7.3"]
MATRIX = [
    *[(f, ".", "ms", ("ms", "2.1.3", MS_OTHERS, "registry", None)) for f in FULL_JS],            # row 1
    *[(f, "packages/app", "debug", ("debug", "4.3.7", ["2.6.9"], "registry", None)) for f in FULL_JS],   # 2
    *[(f, "packages/app/src", "debug", ("debug", "4.3.7", ["2.6.9"], "registry", None)) for f in FULL_JS],  # 3
    *[(f, "packages/app", "ms", ("ms", "2.1.3", MS_OTHERS, "registry", None)) for f in FULL_JS],  # §2 table
    *[(f, ".", "debug", ("debug", "2.6.9", ["4.3.7"], "registry", None)) for f in FULL_JS],
    *[(f, ".", "@sindresorhus/is", ("@sindresorhus/is", "4.6.0", ["0.14.0"], "registry", None))
      for f in FULL_JS],                                                                           # row 4
    *[(f, ".", "legacy-ms", ("ms", "0.7.3", [], "registry", None)) for f in FULL_JS],             # row 5
    *[(f, ".", "old-is", ("@sindresorhus/is", "0.14.0", [], "registry", None)) for f in FULL_JS],
    *[(f, ".", "gitdep", ("gitdep", None, [], "git", GIT_SHA)) for f in WITH_GIT],                 # row 6
    ("yarn-3", ".", "debug", ("debug", "2.6.9", [], "registry", None)),
    ("yarn-3", ".", "@sindresorhus/is", ("@sindresorhus/is", "4.6.0", [], "registry", None)),
    ("yarn-3", ".", "ms", ("ms", "2.0.0", [], "registry", None)),  # only the transitive copy is locked
    ("yarn-3", ".", "react", None),
]


@pytest.mark.parametrize(("fmt", "cwd", "name", "expected"), MATRIX,
                         ids=[f"{m[0]}:{m[1]}:{m[2]}" for m in MATRIX])
def test_locked_version_matrix(tmp_path, fmt, cwd, name, expected):
    """Each JS lockfile sample resolves the §10 matrix to the reference's answers."""
    proj = js_project(tmp_path, fmt)
    found = find_locked("npm", name, str(proj / cwd))
    assert answer(found) == expected
    if found is not None:
        assert found.kind == ("installed" if fmt == "npm-hidden" else "lockfile")
        depth = 0 if cwd == "." else cwd.count("/") + 1
        assert found.file == "../" * depth + LOCKFILE_OF[fmt]


ROOT_MS_ENTRY = {"npm-v1": "node_modules/ms", "npm-v2": "node_modules/ms", "npm-v3": "node_modules/ms",
                 "npm-shrinkwrap": "node_modules/ms", "npm-hidden": "node_modules/ms", "pnpm-5.4": "/ms/2.1.3",
                 "pnpm-6": "/ms@2.1.3", "pnpm-9": "ms@2.1.3", "yarn-1": "ms@2.1.3, ms@^2.1.3",
                 "yarn-4": "ms@npm:2.1.3, ms@npm:^2.1.3", "bun": "ms"}
APP_DEBUG_ENTRY = {"npm-v1": "packages/app/node_modules/debug", "npm-v2": "packages/app/node_modules/debug",
                   "npm-v3": "packages/app/node_modules/debug", "npm-shrinkwrap": "packages/app/node_modules/debug",
                   "npm-hidden": "packages/app/node_modules/debug", "pnpm-5.4": "/debug/4.3.7",
                   "pnpm-6": "/debug@4.3.7", "pnpm-9": "debug@4.3.7", "yarn-1": "debug@4.3.7",
                   "yarn-4": "debug@npm:4.3.7", "bun": "@demo/app/debug"}


@pytest.mark.parametrize("fmt", FULL_JS)
def test_entry_names_the_lockfile_key(tmp_path, fmt):
    """The entry is the key the lockfile itself uses for the chosen copy."""
    proj = js_project(tmp_path, fmt)
    assert find_locked("npm", "ms", str(proj)).entry == ROOT_MS_ENTRY[fmt]
    assert find_locked("npm", "debug", str(proj / "packages/app")).entry == APP_DEBUG_ENTRY[fmt]


@pytest.mark.parametrize("fmt", FULL_JS)
def test_alias_request_says_alias(tmp_path, fmt):
    """Asking for an alias's installed name answers the real package and warns (row 5)."""
    found = find_locked("npm", "legacy-ms", str(js_project(tmp_path, fmt)))
    assert found.warnings == [f"legacy-ms is an alias of ms@0.7.3 in {LOCKFILE_OF[fmt]}"]


@pytest.mark.parametrize("fmt", WITH_GIT)
def test_git_dependency_has_no_registry_version(tmp_path, fmt):
    """A git dependency reports its commit and warns instead of giving a registry version (row 6)."""
    found = find_locked("npm", "gitdep", str(js_project(tmp_path, fmt)))
    assert found.version is None and found.source == "git" and found.ref == GIT_SHA
    assert len(found.warnings) == 1 and "no registry version" in found.warnings[0] and GIT_SHA in found.warnings[0]


@pytest.mark.parametrize("fmt", FULL_JS)
def test_local_dependency_is_local(tmp_path, fmt):
    """A file: dependency is a local source without a registry version (row 7)."""
    found = find_locked("npm", "local-lib", str(js_project(tmp_path, fmt)))
    assert found.version is None and found.source == "file"
    assert found.ref.lstrip("./") == "local-lib"


@pytest.mark.parametrize("fmt", WITH_WORKSPACE_LINK)
def test_workspace_dependency_is_local(tmp_path, fmt):
    """A workspace's link to another workspace is local, not a registry version (row 7)."""
    found = find_locked("npm", "@demo/lib", str(js_project(tmp_path, fmt) / "packages/app"))
    assert found.version is None and found.source in ("workspace", "link")
    assert found.ref in ("packages/lib", "../lib")


@pytest.mark.parametrize(("sample", "entry"), [
    ("pnpm/peers.pnpm7.yaml", "/zustand/4.5.5_pkovrptl7wv2iqloyky3y37yx4"),
    ("pnpm/peers.pnpm8.yaml", "/zustand@4.5.5(@types/react@18.3.3)(immer@10.1.1)(react@18.3.1)"),
    ("pnpm/peers.pnpm9.yaml", "zustand@4.5.5"),
])
def test_pnpm_peer_suffix_is_cut(tmp_path, sample, entry):
    """pnpm's peer suffixes (hashed in 5.4, spelled out in 6 and 9) are not part of the version (row 8)."""
    put(tmp_path / "pnpm-lock.yaml", sample)
    found = find_locked("npm", "zustand", str(tmp_path))
    assert (found.version, found.entry, found.other_versions) == ("4.5.5", entry, [])


def test_two_document_pnpm_lockfile_uses_the_last(tmp_path):
    """A pnpm ≥ 11 lockfile with an env document first is read from its last document (row 11)."""
    env_doc = ("---\nlockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    configDependencies: {}\n"
               "packageManagerDependencies:\n  pnpm:\n    specifier: 12.21.0\n    version: 12.21.0\n\n"
               "packages:\n\n  ms@9.9.9:\n    resolution: {integrity: sha512-x}\n\n")
    graph = (DATA / "pnpm/pnpm-lock.pnpm9.yaml").read_text()
    write(tmp_path / "pnpm-lock.yaml", env_doc + "---\n" + graph)
    found = find_locked("npm", "ms", str(tmp_path))
    assert answer(found) == ("ms", "2.1.3", MS_OTHERS, "registry", None)


def test_berry_patch_twin_is_one_version(tmp_path):
    """Yarn's built-in typescript patch is the same version as the npm entry, not a second one."""
    put(tmp_path / "yarn.lock", "yarn/berry-typescript-patch.lock")
    found = find_locked("npm", "typescript", str(tmp_path))
    assert (found.version, found.entry, found.other_versions) == ("5.6.3", "typescript@npm:5.6.3", [])


# --- Python -----------------------------------------------------------------------------------

PY_FORMATS = {
    "uv": {"uv.lock": "python/uv/uv.lock.trimmed", "pyproject.toml": "python/uv/pyproject.toml",
           "packages/app/pyproject.toml": "python/uv/packages/app/pyproject.toml"},
    "uv-pylock": {"pylock.toml": "python/uv/pylock.uv-export.toml.trimmed", "pyproject.toml": "python/uv/pyproject.toml"},
    "poetry": {"poetry.lock": "python/poetry/poetry.lock.trimmed", "pyproject.toml": "python/poetry/pyproject.toml"},
    "pdm": {"pdm.lock": "python/pdm/pdm.lock.trimmed", "pyproject.toml": "python/pdm/pyproject.toml"},
    "pipenv": {"Pipfile.lock": "python/pipenv/Pipfile.lock.trimmed.json", "Pipfile": "python/pipenv/Pipfile"},
    "pip-pylock": {"pylock.toml": "python/pip/pylock.toml"},
}


def py_project(tmp_path: Path, fmt: str, python: str | None = None) -> Path:
    proj = tmp_path / "proj"
    for dest, source in PY_FORMATS[fmt].items():
        put(proj / dest, source)
    (proj / ".git").mkdir(exist_ok=True)
    if python:
        write(proj / ".venv" / "pyvenv.cfg", f"home = /usr/bin\nversion_info = {python}\n")
        (proj / ".venv" / "lib" / f"python{python.rsplit('.', 1)[0]}" / "site-packages").mkdir(parents=True)
    return proj


PY_MATRIX = [
    # Marker forks, chosen by the venv's interpreter (row 9): uv's cut-offs differ from Poetry's.
    ("uv", "3.10.4", "tomli", ("tomli", "2.0.1", ["2.2.1"])),
    ("uv", "3.12.1", "tomli", ("tomli", "2.2.1", ["2.0.1"])),
    ("uv", "3.10.4", "urllib3", ("urllib3", "2.8.0", ["2.6.3"])),
    ("uv", "3.9.18", "urllib3", ("urllib3", "2.6.3", ["2.8.0"])),
    ("uv-pylock", "3.10.4", "tomli", ("tomli", "2.0.1", ["2.2.1"])),
    ("uv-pylock", "3.9.18", "urllib3", ("urllib3", "2.6.3", ["2.8.0"])),
    ("poetry", "3.10.4", "tomli", ("tomli", "2.0.1", ["2.2.1"])),
    ("poetry", "3.10.4", "urllib3", ("urllib3", "2.6.3", ["2.8.0"])),
    ("poetry", "3.11.2", "urllib3", ("urllib3", "2.8.0", ["2.6.3"])),
    # PEP 503 names (row 9).
    *[(f, None, "Jinja2", ("jinja2", "3.1.4", [])) for f in PY_FORMATS],
    *[(f, None, "typing.extensions", ("typing-extensions", "4.12.2", [])) for f in PY_FORMATS],
    *[(f, None, "Requests", ("requests", "2.32.3", [])) for f in PY_FORMATS],
    ("pdm", None, "tomli", ("tomli", "2.2.1", [])),
    ("pipenv", None, "urllib3", ("urllib3", "2.8.0", [])),   # Pipfile's "==2.8.0" stripped
    ("pip-pylock", None, "urllib3", ("urllib3", "2.8.0", [])),
    ("uv", None, "nothing-here", None),
]


@pytest.mark.parametrize(("fmt", "python", "name", "expected"), PY_MATRIX,
                         ids=[f"{m[0]}:{m[1]}:{m[2]}" for m in PY_MATRIX])
def test_python_locked_version_matrix(tmp_path, fmt, python, name, expected):
    """Each Python lockfile sample resolves to the reference's answer for the venv's interpreter."""
    found = find_locked("pypi", name, str(py_project(tmp_path, fmt, python)))
    assert (None if found is None else (found.name, found.version, found.other_versions)) == expected
    if found is not None:
        assert (found.kind, found.source, found.file) == ("lockfile", "registry", next(iter(PY_FORMATS[fmt])))


def test_python_fork_prefers_the_installed_copy(tmp_path):
    """When the venv has one of the forked versions installed, that one wins over the markers."""
    proj = py_project(tmp_path, "uv", "3.12.1")
    site = next((proj / ".venv" / "lib").glob("python3*/site-packages"))
    write(site / "tomli-2.0.1.dist-info" / "METADATA", "Metadata-Version: 2.1\nName: tomli\nVersion: 2.0.1\n")
    assert find_locked("pypi", "tomli", str(proj)).version == "2.0.1"


@pytest.mark.parametrize(("fmt", "name", "source", "ref"), [
    ("uv", "Local_Lib", "directory", "local_lib"),
    ("uv", "gitpkg", "git", PY_GIT_SHA),
    ("uv-pylock", "local-lib", "directory", "local_lib"),   # a directory entry without a version
    ("uv-pylock", "gitpkg", "git", PY_GIT_SHA),
    ("poetry", "local_lib", "directory", "local_lib"),
    ("poetry", "gitpkg", "git", PY_GIT_SHA),
    ("pdm", "local-lib", "directory", "./local_lib"),
    ("pipenv", "local-lib", "directory", "./local_lib"),
    ("pipenv", "gitpkg", "git", PY_GIT_SHA),
])
def test_python_non_registry_sources(tmp_path, fmt, name, source, ref):
    """Editable, path and git Python dependencies have no registry version and say what they are."""
    found = find_locked("pypi", name, str(py_project(tmp_path, fmt)))
    assert (found.version, found.source, found.ref) == (None, source, ref)
    assert len(found.warnings) == 1 and found.warnings[0].endswith("no registry version")


def test_pdm_extras_twin_is_one_version(tmp_path):
    """PDM's extras twin of requests is the same version, not a second locked version."""
    put(tmp_path / "pdm.lock", "python/pdm/pdm-extras.lock.trimmed")
    found = find_locked("pypi", "requests", str(tmp_path))
    assert (found.version, found.entry, found.other_versions) == ("2.32.3", "package requests 2.32.3", [])


def test_uv_workspace_member_is_an_importer(tmp_path):
    """In a uv workspace member, the member's own dependency is a direct one."""
    found = find_locked("pypi", "idna", str(py_project(tmp_path, "uv") / "packages" / "app"))
    assert (found.version, found.file) == ("3.20", "../../uv.lock")


# --- installed copies -------------------------------------------------------------------------

def test_node_modules_alias_folder(tmp_path):
    """An aliased install (folder legacy-ms, name ms) is reported as the real package."""
    put(tmp_path / "node_modules/legacy-ms/package.json", "npm/node_modules-sample/legacy-ms/package.json")
    found = find_locked("npm", "legacy-ms", str(tmp_path / "src"))
    assert found == Locked("ms", "0.7.3", "installed", "../node_modules/legacy-ms/package.json",
                           "node_modules/legacy-ms", [], ["legacy-ms is an alias of ms@0.7.3 in "
                                                          "../node_modules/legacy-ms/package.json"])


def site_packages_project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    write(proj / ".venv" / "pyvenv.cfg", "version_info = 3.11.7\n")
    site = proj / ".venv" / "lib" / "python3.11" / "site-packages"
    shutil.copytree(DATA / "python/site-packages-sample", site)
    return proj


@pytest.mark.parametrize(("name", "expected"), [
    ("jinja2", ("jinja2", "3.1.4", "registry", None)),
    ("Typing.Extensions", ("typing-extensions", "4.12.2", "registry", None)),
    ("local-lib", ("local-lib", None, "directory", "file:///home/dev/demo/uvp/local_lib")),
    ("gitpkg", ("gitpkg", None, "git", PY_GIT_SHA)),
    ("absent", None),
])
def test_venv_dist_info(tmp_path, name, expected):
    """Without a lockfile, the project venv's dist-info gives the version; direct_url.json marks git and editables."""
    found = find_locked("pypi", name, str(site_packages_project(tmp_path)))
    assert (None if found is None else (found.name, found.version, found.source, found.ref)) == expected
    if found is not None:
        assert found.kind == "installed" and found.file.startswith(".venv/lib/python3.11/site-packages/")


# --- discovery (row 10) ---------------------------------------------------------------------------

def test_nearest_lockfile_wins(tmp_path):
    """A nested project's own lockfile governs, not the one above it."""
    proj = js_project(tmp_path, "npm-v3")
    write(proj / "sub" / "package-lock.json", json.dumps({"lockfileVersion": 3, "packages": {
        "": {"dependencies": {"ms": "1.0.0"}}, "node_modules/ms": {"version": "1.0.0"}}}))
    found = find_locked("npm", "ms", str(proj / "sub" / "deep"))
    assert (found.version, found.file) == ("1.0.0", "../package-lock.json")


def test_walk_stops_at_git_root(tmp_path):
    """The walk does not leave the repository the start directory is in."""
    proj = js_project(tmp_path, "npm-v3")
    (proj / "vendor" / "thing" / ".git").mkdir(parents=True)
    assert find_locked("npm", "ms", str(proj / "vendor" / "thing" / "src")) is None


def test_walk_stops_before_home(tmp_path):
    """A stray lockfile in $HOME does not lock projects below it, but counts when cwd is $HOME."""
    home = Path(os.environ["HOME"])
    put(home / "package-lock.json", "npm/package-lock.v3.json")
    (home / "work" / "proj").mkdir(parents=True)
    assert find_locked("npm", "ms", str(home / "work" / "proj")) is None
    assert find_locked("npm", "ms", str(home)).version == "2.1.3"


def test_package_manager_field_overrides_order(tmp_path):
    """packageManager in package.json picks that manager's lockfile over the fixed order."""
    proj = tmp_path / "proj"
    put(proj / "pnpm-lock.yaml", "pnpm/peers.pnpm9.yaml")   # locks no ms
    put(proj / "package-lock.json", "npm/package-lock.v3.json")
    write(proj / "package.json", '{"name": "x", "packageManager": "npm@11.19.1"}')
    found = find_locked("npm", "ms", str(proj))
    assert (found.version, found.file) == ("2.1.3", "package-lock.json")
    assert found.warnings == ["also present: pnpm-lock.yaml (ignored; package-lock.json is used)"]
    write(proj / "package.json", '{"name": "x"}')
    found = find_locked("npm", "ms", str(proj))
    assert found is None  # pnpm-lock.yaml wins by the fixed order, and it has no ms


def test_bun_lockb_only_falls_back_to_node_modules(tmp_path):
    """bun.lockb is never parsed: a clear warning, then the installed copy."""
    (tmp_path / "bun.lockb").write_bytes(b"#!/usr/bin/env bun\nbun-lockfile-format-v0\n\x00\x01")
    write(tmp_path / "node_modules/ms/package.json", '{"name": "ms", "version": "2.1.2"}')
    found = find_locked("npm", "ms", str(tmp_path))
    assert (found.version, found.kind, found.file) == ("2.1.2", "installed", "node_modules/ms/package.json")
    assert found.warnings[0].startswith("bun.lockb is binary and is not read; run `bun install --save-text-lockfile")


def test_registries_are_independent(tmp_path):
    """npm looks only at JS lockfiles and PyPI only at Python ones, in the same folder."""
    proj = py_project(tmp_path, "uv")
    put(proj / "package-lock.json", "npm/package-lock.v3.json")
    assert find_locked("npm", "requests", str(proj)) is None
    assert find_locked("pypi", "ms", str(proj)) is None
    assert find_locked("npm", "ms", str(proj)).version == "2.1.3"


# --- bad and hostile files (issue 14 item 5) ----------------------------------------------------------

def with_installed_ms(proj: Path) -> None:
    write(proj / "node_modules/ms/package.json", '{"name": "ms", "version": "2.1.2"}')


def assert_fell_back(found: Locked, warning_start: str) -> None:
    assert (found.version, found.kind) == ("2.1.2", "installed")
    assert any(w.startswith(warning_start) for w in found.warnings), found.warnings
    assert all("\n" not in w for w in found.warnings)


def test_truncated_json_is_skipped(tmp_path):
    """A truncated package-lock.json is skipped with a warning; the installed copy answers."""
    text = (DATA / "npm/package-lock.v3.json").read_text()
    write(tmp_path / "package-lock.json", text[: len(text) // 2])
    with_installed_ms(tmp_path)
    assert_fell_back(find_locked("npm", "ms", str(tmp_path)), "package-lock.json: skipped: not valid JSON (line ")


def test_bad_lockfile_falls_to_the_next_lockfile(tmp_path):
    """A broken first-choice lockfile gives way to the next one in the same directory."""
    write(tmp_path / "pnpm-lock.yaml", "lockfileVersion: '9.0'\nimporters: &anchor\n")
    put(tmp_path / "package-lock.json", "npm/package-lock.v3.json")
    found = find_locked("npm", "ms", str(tmp_path))
    assert (found.version, found.file) == ("2.1.3", "package-lock.json")
    assert found.warnings[0].startswith("pnpm-lock.yaml: skipped: not in the YAML subset codenav reads (line 2: ")


def test_invalid_toml_is_skipped(tmp_path):
    """An invalid uv.lock is skipped with a warning and the venv answers."""
    proj = site_packages_project(tmp_path)
    write(proj / "uv.lock", "version = 1\n[[package]\nname = 'jinja2'\n")
    found = find_locked("pypi", "jinja2", str(proj))
    assert (found.version, found.kind) == ("3.1.4", "installed")
    assert found.warnings[0].startswith("uv.lock: skipped: not valid TOML (")


def test_oversized_lockfile_is_skipped_unread(tmp_path):
    """A 100 MB lockfile is over the default 64 MiB cap and is skipped without being read."""
    with open(tmp_path / "package-lock.json", "wb") as f:
        f.truncate(100 * 1024 * 1024)  # sparse: costs no disk
    with_installed_ms(tmp_path)
    assert_fell_back(find_locked("npm", "ms", str(tmp_path)),
                     "package-lock.json: skipped: larger than 64 MiB (CODENAV_MAX_LOCKFILE_BYTES)")


def test_size_cap_is_configurable(tmp_path, monkeypatch):
    """CODENAV_MAX_LOCKFILE_BYTES lowers the cap."""
    put(tmp_path / "package-lock.json", "npm/package-lock.v3.json")
    with_installed_ms(tmp_path)
    monkeypatch.setenv("CODENAV_MAX_LOCKFILE_BYTES", "1000")
    assert_fell_back(find_locked("npm", "ms", str(tmp_path)), "package-lock.json: skipped: larger than 1000 bytes")


def test_lockfile_symlink_loop_is_skipped(tmp_path):
    """A lockfile that is a symlink loop is skipped with a warning."""
    os.symlink("package-lock.json", tmp_path / "package-lock.json")
    with_installed_ms(tmp_path)
    assert_fell_back(find_locked("npm", "ms", str(tmp_path)), "package-lock.json: skipped: cannot be read (a symlink loop)")


def test_symlink_loop_up_the_tree(tmp_path):
    """Start directories inside symlink loops still reach the project's lockfile."""
    proj = js_project(tmp_path, "npm-v3")
    os.symlink(".", proj / "packages" / "self")          # packages/self/self/... is packages
    os.symlink("b", proj / "packages" / "a")             # a -> b -> a: ELOOP
    os.symlink("a", proj / "packages" / "b")
    deep = proj / "packages" / "self" / "self" / "self" / "app"
    assert find_locked("npm", "debug", str(deep)).version == "4.3.7"
    found = find_locked("npm", "ms", str(proj / "packages" / "a" / "x"))
    assert found.version == "2.1.3"
    assert "a: directory skipped (a symlink loop)" in [w.replace("../", "", 1) for w in found.warnings] or \
        any("symlink loop" in w for w in found.warnings)


def test_garbage_of_every_shape_never_raises(tmp_path):
    """Lockfiles of the wrong shape (valid syntax, nonsense content) are skipped or ignored, never raised."""
    shapes = {"package-lock.json": ["[]", '{"packages": []}', '{"packages": {"node_modules/ms": 3}}', "null"],
              "pnpm-lock.yaml": ["- a\n", "lockfileVersion: x\n", "importers:\n  .: [1, 2]\n", "a: 'unterminated\n"],
              "yarn.lock": ["garbage\n", "  indented first\n", '__metadata:\n  version: 6\n"x@npm:1": [\n'],
              "bun.lock": ['{"packages": {"ms": "x"},}', "{", '{"packages": {"ms": [1]}}']}
    for number, (fname, text) in enumerate((f, t) for f, texts in shapes.items() for t in texts):
        d = tmp_path / f"case{number}"
        write(d / fname, text)
        assert find_locked("npm", "ms", str(d)) is None, (fname, text)


def test_special_files_are_not_read(tmp_path):
    """A FIFO or a device in a lockfile's place is skipped at once (reading it would block or never end)."""
    os.mkfifo(tmp_path / "package-lock.json")
    os.symlink("/dev/zero", tmp_path / "yarn.lock")
    with_installed_ms(tmp_path)
    found = find_locked("npm", "ms", str(tmp_path))
    assert_fell_back(found, "yarn.lock: skipped: not a regular file")
    assert "package-lock.json: skipped: not a regular file" in found.warnings


def test_unreadable_directory_is_skipped(tmp_path):
    """An unreadable directory on the way up is skipped with a warning, and the walk goes on."""
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: permissions cannot be tested")
        base = Path(subprocess.run(["mktemp", "-d", "/tmp/codenav-lockfiles-XXXXXX"], capture_output=True,
                                   text=True, check=True).stdout.strip())
        try:
            base.chmod(0o755)
            proj = base / "proj"
            put(proj / "package-lock.json", "npm/package-lock.v3.json")
            (proj / "locked" / "inner").mkdir(parents=True)
            (proj / "locked").chmod(0o000)
            code = ("import sys; from codenav.lockfiles import find_locked; "
                    f"r = find_locked('npm', 'ms', {str(proj / 'locked' / 'inner')!r}); "
                    "print(r.version); print(*r.warnings, sep='\\n')")
            env = {"PATH": os.environ["PATH"], "HOME": str(base), "PYTHONPATH": str(ROOT),
                   "CODENAV_CACHE_DIR": str(base / "cache"), "PYTHONDONTWRITEBYTECODE": "1"}
            run = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable,
                                  "-c", code], capture_output=True, text=True, env=env, timeout=60)
            if run.returncode != 0 and "Permission denied" in run.stderr and "codenav" not in run.stderr:
                pytest.skip("the unprivileged user cannot run this checkout")
            lines = run.stdout.splitlines()
        finally:
            (base / "proj" / "locked").chmod(0o755)
            shutil.rmtree(base)
    else:
        proj = tmp_path / "proj"
        put(proj / "package-lock.json", "npm/package-lock.v3.json")
        (proj / "locked" / "inner").mkdir(parents=True)
        (proj / "locked").chmod(0o000)
        try:
            r = find_locked("npm", "ms", str(proj / "locked" / "inner"))
            lines = [r.version, *r.warnings]
        finally:
            (proj / "locked").chmod(0o755)
    assert lines[0] == "2.1.3", lines
    assert any("directory skipped (permission denied)" in w for w in lines[1:]), lines


# --- the YAML subset ------------------------------------------------------------------------------

def test_yaml_subset_keeps_strings_and_odd_keys():
    """Scalars stay strings; keys may hold ':' '#' '@' and quotes; {} is an empty mapping."""
    doc = yaml_subset.load(
        "lockfileVersion: 5.4\n"
        "a:\n  gitdep@git+file:///x/gitdep#6650:\n    resolution: {commit: 6650, repo: file:///x, type: git}\n"
        "  '@s/is@4.6.0': {}\n  \"legacy-ms@npm:ms@0.7.3\":\n    version: 0.7.3 # a comment\n"
        "  'it''s': [x64, 'a, b']\n  seq:\n    - one\n    - 'two'\n  long: first\n    continued here\n")
    assert doc == {"lockfileVersion": "5.4", "a": {
        "gitdep@git+file:///x/gitdep#6650": {"resolution": {"commit": "6650", "repo": "file:///x", "type": "git"}},
        "@s/is@4.6.0": {}, "legacy-ms@npm:ms@0.7.3": {"version": "0.7.3"}, "it's": ["x64", "a, b"],
        "seq": ["one", "two"], "long": "first continued here"}}


@pytest.mark.parametrize(("text", "message"), [
    ("a: &x 1\n", "line 1: unsupported YAML construct &"),
    ("a: *x\n", "line 1: unsupported YAML construct *"),
    ("a: !tag 1\n", "line 1: unsupported YAML construct !"),
    ("%YAML 1.2\n", "line 1: YAML directives are not supported"),
    ("a:\n\tb: 1\n", "line 2: tabs in indentation are not supported"),
    ("a: {b: 1,\n  c: 2}\n", "line 1: unterminated flow collection"),
    ("a:\n  - - b\n", "line 2: sequences inside sequences are not supported"),
    ("? a\n", "line 1: unsupported YAML construct ?"),
    ("a: 1\na: 2\n", "line 2: duplicate key a"),
    ("a: 1\n   b: 2\n", "line 2: unexpected indentation"),
])
def test_yaml_subset_refuses_the_rest(text, message):
    """YAML outside the subset is refused with an error naming the line, never guessed at."""
    with pytest.raises(yaml_subset.YamlError) as info:
        yaml_subset.load(text)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("sample", sorted(str(p.relative_to(DATA)) for p in DATA.glob("pnpm/*.yaml")) +
                         ["yarn/yarn.berry4.lock", "yarn/yarn.berry3.lock", "yarn/berry-typescript-patch.lock"])
def test_yaml_subset_reads_every_sample(sample):
    """Every pnpm and berry sample parses, with the JSON-compatible structure PyYAML would give."""
    doc = yaml_subset.load((DATA / sample).read_text())
    assert isinstance(doc, dict) and doc
    # PyYAML is not a dependency: use any interpreter on this machine that has it as the oracle.
    code = ("import json, sys, yaml; print(json.dumps(yaml.load(open(sys.argv[1]), "
            "Loader=yaml.BaseLoader)))")  # BaseLoader keeps every scalar a string, as the subset does
    for python in dict.fromkeys([sys.executable, shutil.which("python3")]):
        if python and subprocess.run([python, "-c", "import yaml"], capture_output=True).returncode == 0:
            run = subprocess.run([python, "-c", code, str(DATA / sample)], capture_output=True, text=True,
                                 timeout=60, check=True)
            assert doc == json.loads(run.stdout)
            return
    pytest.skip("no Python with PyYAML to compare against")


# --- the warm-path memo (issue 14 item 4) -------------------------------------------------------------

def test_memo_answers_like_a_cold_read(tmp_path):
    """A second call answers from the memo under the state dir, identically; a changed lockfile is re-read."""
    proj = js_project(tmp_path, "npm-v3")
    cold = find_locked("npm", "debug", str(proj / "packages/app"))
    memos = list((Path(os.environ["CODENAV_CACHE_DIR"]) / "state" / "lockfiles").glob("*.txt"))
    assert len(memos) == 1 and memos[0].read_text().startswith("codenav-lockmemo 1\n")
    assert find_locked("npm", "debug", str(proj / "packages/app")) == cold
    lock = proj / "package-lock.json"
    lock.write_text(lock.read_text().replace('"version": "4.3.7"', '"version": "4.3.8"'))
    assert find_locked("npm", "debug", str(proj / "packages/app")).version == "4.3.8"


def test_memo_keeps_warnings_and_absence(tmp_path):
    """The memo replays warnings and remembers that a lockfile does not mention a package."""
    proj = js_project(tmp_path, "npm-v3")
    first = find_locked("npm", "gitdep", str(proj))
    assert find_locked("npm", "gitdep", str(proj)) == first
    assert find_locked("npm", "nothing", str(proj)) is None
    assert find_locked("npm", "nothing", str(proj)) is None


@pytest.mark.parametrize(("registry", "name", "fmt"), [("npm", "ms", "npm-v3"), ("npm", "ms", "pnpm-9"),
                                                       ("pypi", "tomli", "uv")])
def test_warm_call_imports_no_parsers(tmp_path, registry, name, fmt):
    """A warm call imports neither json, re nor tomllib beyond what `python -c pass` already has."""
    proj = js_project(tmp_path, fmt) if registry == "npm" else py_project(tmp_path, fmt, "3.10.4")
    reader = {"npm-v3": "npm_lock", "pnpm-9": "pnpm", "uv": "uv"}[fmt]
    code = ("import sys; before = set(sys.modules); from codenav.lockfiles import find_locked; "
            f"r = find_locked({registry!r}, {name!r}, {str(proj)!r}); "
            "print(r.version, sorted(m for m in ('json', 're', 'tomllib') if m in sys.modules and m not in before), "
            f"'codenav.lockfiles.{reader}' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cold = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    warm = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert cold.returncode == 0 and warm.returncode == 0, cold.stderr + warm.stderr
    version = cold.stdout.split()[0]
    assert cold.stdout.endswith(" True\n")  # the cold call read the lockfile
    assert warm.stdout == f"{version} [] False\n"


# --- a real npm writes the lockfile -------------------------------------------------------------

class NpmWithDependencies(FakeNpm):
    """The fake registry, with dependencies in the packuments so npm builds a real tree."""

    def __init__(self, server, dependencies):
        super().__init__(server)
        self.dependencies = dependencies

    def packument(self, name):
        doc = super().packument(name)
        for version, meta in doc["versions"].items():
            meta["dependencies"] = self.dependencies.get((name, version), {})
        return doc


def test_real_npm_package_lock(tmp_path):
    """npm install --package-lock-only against the fake registry writes a lockfile that resolves as npm laid it out."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed")
    with FakeServer() as server:
        fake = NpmWithDependencies(server, {("dep-a", "1.0.0"): {"ms": "2.0.0"}})
        for name, version in (("ms", "2.0.0"), ("ms", "2.1.3"), ("dep-a", "1.0.0")):
            fake.publish(name, version, {"package.json": json.dumps({"name": name, "version": version}).encode()})
        proj = tmp_path / "proj"
        write(proj / "package.json", json.dumps({"name": "real", "version": "1.0.0", "dependencies": {
            "ms": "^2.0.0", "dep-a": "1.0.0", "old-ms": "npm:ms@2.0.0"}}))
        write(tmp_path / "npmrc", "")
        run = subprocess.run(
            [npm, "install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund",
             "--registry", fake.url, "--cache", str(tmp_path / "npm-cache"), "--userconfig", str(tmp_path / "npmrc")],
            cwd=proj, capture_output=True, text=True, timeout=180)
        assert run.returncode == 0, run.stderr
    lock = json.loads((proj / "package-lock.json").read_text())
    assert lock["lockfileVersion"] == 3
    assert lock["packages"]["node_modules/dep-a/node_modules/ms"]["version"] == "2.0.0"  # npm nested it
    found = find_locked("npm", "ms", str(proj))
    assert (found.version, found.entry, found.other_versions, found.file) == (
        "2.1.3", "node_modules/ms", ["2.0.0"], "package-lock.json")
    alias = find_locked("npm", "old-ms", str(proj))
    assert (alias.name, alias.version, alias.entry) == ("ms", "2.0.0", "node_modules/old-ms")


def test_locked_versions_are_ordered_as_the_registry_orders_them(tmp_path):
    """Several copies of one package are ranked and listed in the registry's own version order
    (npm's: 1.0.0-rc.10 above 1.0.0-rc.2, below 1.0.0), in find_locked and list_deps alike."""
    from codenav.tools import list_deps

    (tmp_path / ".git").mkdir()
    copies = {"node_modules/a/node_modules/x": "1.0.0-rc.2", "node_modules/b/node_modules/x": "1.0.0",
              "node_modules/c/node_modules/x": "1.0.0-rc.10"}
    packages = {"": {"name": "app", "dependencies": {"a": "1", "b": "1", "c": "1"}},
                **{f"node_modules/{n}": {"version": "1.0.0", "dependencies": {"x": "*"}} for n in "abc"},
                **{path: {"version": version} for path, version in copies.items()}}
    (tmp_path / "package-lock.json").write_text(json.dumps({"lockfileVersion": 3, "packages": packages}))
    locked = find_locked("npm", "x", str(tmp_path))
    assert (locked.version, locked.other_versions) == ("1.0.0", ["1.0.0-rc.10", "1.0.0-rc.2"])
    rows = list_deps.run({"project_dir": str(tmp_path), "all": True})["dependencies"]
    assert [r["version"] for r in rows if r["name"] == "x"] == ["1.0.0-rc.2", "1.0.0-rc.10", "1.0.0"]
