"""Which file of a PyPI release is read (SPEC §3): the stdlib tag list against pip's vendored
packaging, the wheel choice against a fake index and against real pip, the artifact override on
both surfaces, members over the per-file limit, and sdist folders spelled unlike the file name."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import zipfile

import pytest

from codenav import contract
from codenav.errors import CodenavError
from codenav.registries import pypi as pypi_registry
from codenav.registries import wheeltags
from codenav.tools import grep_repo, list_files, read_file
from tests.fakes.archives import make_tgz
from tests.fakes.http import FakeServer
from tests.fakes.pypi import FakePypi
from tests.support.cli import ORIGINAL_ENV, ROOT, as_the_user, run_cli
from tests.support.mcp import McpSession

tags = pytest.importorskip("pip._vendor.packaging.tags", reason="the oracle is the packaging that pip vendors; this pip has none")
manylinux = pytest.importorskip("pip._vendor.packaging._manylinux", reason="the oracle is the packaging that pip vendors; this pip has none")
musllinux = pytest.importorskip("pip._vendor.packaging._musllinux", reason="the oracle is the packaging that pip vendors; this pip has none")

HERE = wheeltags.Machine.here()
PY = f"cp{sys.version_info[0]}{sys.version_info[1]}"
LINUX_X86 = (HERE.system == "linux" and HERE.arch == "x86_64" and HERE.glibc is not None
             and HERE.glibc >= (2, 17) and HERE.implementation == "cp" and not HERE.free_threaded)
needs_linux_x86 = pytest.mark.skipif(not LINUX_X86, reason="the expected picks are those of a glibc x86_64 CPython")


def _without_linux(tag_list: list[str]) -> list[str]:
    # packaging moved the plain linux_<arch> tag from last to first (26.3); its place is not compared.
    return [t for t in tag_list if not re.search(r"-linux_[^-]+$", t)]


# --- the tag list -------------------------------------------------------------------------------

def test_the_tag_list_here_equals_packagings_sys_tags():
    """The stdlib tag list of this machine is pip's vendored sys_tags(): same tags, same order."""
    mine = wheeltags.sys_tags()
    theirs = [str(t) for t in tags.sys_tags()]
    if f"{PY}-none-any" not in theirs:  # packaging before 22 lacks the interpreter-none-any tag
        mine = [t for t in mine if t != f"{PY}-none-any"]
    assert _without_linux(mine) == _without_linux(theirs)
    assert set(mine) == set(theirs)


@pytest.mark.parametrize(("arch", "glibc"), [("x86_64", (2, 17)), ("x86_64", (2, 36)), ("aarch64", (2, 36)),
                                             ("s390x", (2, 17))])
def test_manylinux_platforms_equal_packagings_for_a_given_glibc(monkeypatch, arch, glibc):
    """manylinux tags from glibc 2.17 or 2.36 down to the floor (2.5 on x86), legacy aliases in place, as packaging."""
    monkeypatch.setattr(manylinux, "_get_glibc_version", lambda: glibc)
    assert wheeltags.manylinux_platforms(arch, glibc) == list(manylinux.platform_tags(f"linux_{arch}", arch))


def test_a_musl_machine_gets_musllinux_tags_and_no_manylinux(monkeypatch):
    """On musl 1.2 the platforms are musllinux_1_2 … 1_0 then linux_<arch>, as packaging lists them."""
    monkeypatch.setattr(manylinux, "_get_glibc_version", lambda: (-1, -1))
    monkeypatch.setattr(musllinux, "_get_musl_version", lambda executable: musllinux._MuslVersion(1, 2))
    machine = wheeltags.Machine(platform="linux_x86_64", glibc=None, musl=(1, 2))
    theirs = [*manylinux.platform_tags("linux_x86_64", "x86_64"), *musllinux.platform_tags("x86_64"), "linux_x86_64"]
    assert wheeltags.platform_tags(machine) == theirs == ["musllinux_1_2_x86_64", "musllinux_1_1_x86_64",
                                                          "musllinux_1_0_x86_64", "linux_x86_64"]


@pytest.mark.parametrize(("version", "arch"), [((14, 0), "arm64"), ((14, 0), "x86_64"), ((10, 16), "x86_64"),
                                               ((10, 9), "x86_64"), ((11, 0), "arm64")])
def test_mac_platforms_equal_packagings(version, arch):
    """macOS tags from the running release down (11+ then 10.16 … 10.4), in each binary format, as packaging."""
    assert wheeltags.mac_platforms(version, arch) == list(tags.mac_platforms(version, arch))


def test_a_mac_reporting_10_16_is_asked_again_without_the_compatibility_shim():
    """A Python built against an old SDK reports macOS 11+ as 10.16; the real release is asked for."""
    assert wheeltags.mac_version("10.16", ask=lambda: "14.2\n") == (14, 2)
    assert wheeltags.mac_version("10.16", ask=lambda: None) == (10, 16)
    assert wheeltags.mac_version("14.5") == (14, 5)


def test_a_mac_machine_tag_list_is_cpython_then_compatible_tags():
    """macOS 14 arm64, CPython 3.12: cpython_tags then compatible_tags over packaging's mac platforms."""
    machine = wheeltags.Machine(version=(3, 12), system="macos", platform="macosx_14_0_arm64", mac=(14, 0),
                                arch="arm64")
    platforms = list(tags.mac_platforms((14, 0), "arm64"))
    theirs = [*map(str, tags.cpython_tags((3, 12), ["cp312"], platforms)),
              *map(str, tags.compatible_tags((3, 12), "cp312", platforms))]
    assert wheeltags.sys_tags(machine) == theirs


def test_a_windows_machine_tag_list_equals_packagings():
    """win_amd64, CPython 3.12: the same list packaging gives for that platform."""
    machine = wheeltags.Machine(version=(3, 12), system="windows", platform="win_amd64")
    theirs = [*map(str, tags.cpython_tags((3, 12), ["cp312"], ["win_amd64"])),
              *map(str, tags.compatible_tags((3, 12), "cp312", ["win_amd64"]))]
    assert wheeltags.sys_tags(machine) == theirs
    assert theirs[0] == "cp312-cp312-win_amd64"


def test_a_free_threaded_build_takes_its_t_abi_and_no_stable_abi(monkeypatch):
    """CPython 3.14t: cp314t first; abi3 wheels do not load without the GIL, so none are listed
    (packaging 24.1+; the vendored one predates free-threading and is compared without them)."""
    monkeypatch.setattr(manylinux, "_get_glibc_version", lambda: (2, 36))
    machine = wheeltags.Machine(version=(3, 14), free_threaded=True, platform="linux_x86_64", glibc=(2, 36))
    platforms = [*manylinux.platform_tags("linux_x86_64", "x86_64"), "linux_x86_64"]
    theirs = [str(t) for t in tags.cpython_tags((3, 14), ["cp314t"], platforms) if t.abi != "abi3"]
    theirs += [str(t) for t in tags.compatible_tags((3, 14), "cp314", platforms)]
    mine = wheeltags.sys_tags(machine)
    assert mine == theirs
    assert mine[0] == "cp314-cp314t-manylinux_2_36_x86_64" and not any("-abi3-" in t for t in mine)


def test_wheel_names_expand_their_compressed_tag_sets():
    """Each of a wheel name's three tag fields is a dot-separated set; the build tag is kept apart."""
    got = wheeltags.wheel_tags("cn-3.5.3-cp311-cp311-manylinux1_x86_64.manylinux_2_28_x86_64.whl")
    assert got == (frozenset({"cp311-cp311-manylinux1_x86_64", "cp311-cp311-manylinux_2_28_x86_64"}), "")
    assert wheeltags.wheel_tags("six-1.0-1-py2.py3-none-any.whl") == (frozenset({"py2-none-any", "py3-none-any"}), "1")
    assert wheeltags.wheel_tags("six-1.0.tar.gz") == (frozenset(), "")


# --- the choice, without an index -------------------------------------------------------------

def _files(*names: str, sizes: dict[str, int] | None = None) -> list[dict]:
    return [{"filename": n, "url": n, "sha256": "0" * 64, "yanked": False, "size": (sizes or {}).get(n)}
            for n in names]


TORCH = ("t-2.9-cp39-cp39-manylinux_2_28_x86_64.whl", "t-2.9-cp312-cp312-manylinux_2_28_x86_64.whl",
         "t-2.9-cp311-cp311-manylinux_2_28_x86_64.whl", "t-2.9-cp311-cp311-win_amd64.whl",
         "t-2.9-cp311-cp311-macosx_11_0_arm64.whl", "t-2.9-cp314-cp314t-win_amd64.whl",
         "t-2.9-cp314-cp314-manylinux_2_28_x86_64.whl")


def test_the_best_tag_wins_never_the_file_name_order():
    """cp311 Linux tags pick the cp311 manylinux wheel; macOS arm64 tags the macOS one; cp314 beats cp314t."""
    linux = wheeltags.sys_tags(wheeltags.Machine(version=(3, 11), glibc=(2, 36)))
    assert pypi_registry._choose(_files(*TORCH), linux) == (
        {**_files(TORCH[2])[0]}, {"artifactReason": "platform-wheel"})
    mac = wheeltags.sys_tags(wheeltags.Machine(version=(3, 11), system="macos", platform="macosx_14_0_arm64",
                                               mac=(14, 0), arch="arm64"))
    assert pypi_registry._choose(_files(*TORCH), mac)[0]["filename"] == "t-2.9-cp311-cp311-macosx_11_0_arm64.whl"
    cp314 = wheeltags.sys_tags(wheeltags.Machine(version=(3, 14), system="windows", platform="win_amd64"))
    # A free-threaded cp314t wheel does not load on a GIL build: nothing here fits a cp314 Windows machine.
    assert pypi_registry._choose(_files(*TORCH), cp314)[1] == {"artifactReason": "other-platform-wheel",
                                                                "platformMatch": False}
    pick = pypi_registry._choose(_files(*TORCH, "t-2.9-cp314-cp314-win_amd64.whl"), cp314)[0]["filename"]
    assert pick == "t-2.9-cp314-cp314-win_amd64.whl"


def test_nothing_fits_gives_the_nearest_platform_then_the_smallest_flagged():
    """With no compatible wheel and no sdist: same OS and arch first, then the smallest, flagged."""
    sizes = {TORCH[0]: 900, TORCH[1]: 500, TORCH[2]: 700, TORCH[3]: 100, TORCH[4]: 50, TORCH[5]: 90, TORCH[6]: 800}
    py27_linux = ["cp27-cp27mu-manylinux1_x86_64", "py27-none-any"]
    assert pypi_registry._choose(_files(*TORCH, sizes=sizes), py27_linux) == (
        _files(TORCH[1], sizes=sizes)[0], {"artifactReason": "other-platform-wheel", "platformMatch": False})
    solaris = ["cp27-cp27m-solaris_2_10_sparc"]
    assert pypi_registry._choose(_files(*TORCH, sizes=sizes), solaris)[0]["filename"] == TORCH[4]


def test_a_pure_wheel_beats_platform_wheels_and_the_sdist_comes_before_other_platforms():
    """A compatible pure wheel first; with no wheel for this machine the sdist before a foreign wheel."""
    linux = wheeltags.sys_tags(wheeltags.Machine(version=(3, 11), glibc=(2, 36)))
    files = _files(*TORCH, "t-2.9-py3-none-any.whl", "t-2.9.tar.gz")
    assert pypi_registry._choose(files, linux)[1] == {"artifactReason": "pure-wheel"}
    foreign = _files(TORCH[3], "t-2.9.tar.gz")
    assert pypi_registry._choose(foreign, linux) == (foreign[1], {"artifactReason": "sdist"})
    assert pypi_registry._choose(foreign, linux, "wheel") == (
        foreign[0], {"artifactReason": "other-platform-wheel", "platformMatch": False})


# --- a fake index, end to end -----------------------------------------------------------------

def _wheel(name: str, version: str, tag: str, build: str, pad: int = 0) -> tuple[str, bytes]:
    """A real wheel (pip accepts it) whose version.py says which build it is."""
    info = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": "",
        f"{name}/version.py": f"build = {build!r}\n",
        f"{name}/pad.txt": "#" * pad,  # sizes differ by layout position: the smallest is the first
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{info}/WHEEL": f"Wheel-Version: 1.0\nGenerator: codenav-tests\nRoot-Is-Purelib: false\nTag: {tag}\n",
    }
    record = "".join(f"{p},,\n" for p in files) + f"{info}/RECORD,,\n"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for path, text in {**files, f"{info}/RECORD": record}.items():
            zf.writestr(path, text)
    return f"{name}-{version}-{tag}.whl", buf.getvalue()


MANYLINUX = f"{PY}-{PY}-manylinux1_x86_64.manylinux_2_17_x86_64.manylinux2014_x86_64"
TORCHLIKE = {  # tag -> build marker; no sdist, as torch
    "cp39-cp39-manylinux_2_28_x86_64": "cp39", "cp312-cp312-manylinux_2_28_x86_64": "cp312",
    "cp314-cp314t-manylinux_2_28_x86_64": "cp314t", MANYLINUX: "linux",
    f"{PY}-{PY}-win_amd64": "windows", f"{PY}-{PY}-macosx_11_0_arm64": "macos", "cp314-cp314t-win_amd64": "win314t",
}
PIP_LAYOUTS = {
    "torchlike": TORCHLIKE,
    "stableabi": {"cp38-abi3-manylinux_2_17_x86_64": "abi3", f"{PY}-{PY}-manylinux_2_28_x86_64": "own",
                  f"{PY}-{PY}-musllinux_1_1_x86_64": "musl"},
    "oldglibc": {f"{PY}-{PY}-manylinux_2_5_x86_64.manylinux1_x86_64": "2.5", f"{PY}-{PY}-manylinux_2_99_x86_64": "2.99",
                 "cp39-abi3-manylinux_2_17_x86_64": "abi3"},
    "pyonly": {"py3-none-manylinux_2_17_x86_64": "py3plat", f"{PY}-none-win_amd64": "win", "cp36-abi3-win_amd64": "w"},
}


@pytest.fixture(scope="module")
def index():
    """One fake index for the module: the torch-like layouts, a pure-wheel variant, huge and odd archives."""
    with FakeServer() as server:
        fake = FakePypi(server)
        for project, layout in PIP_LAYOUTS.items():
            for number, (tag, build) in enumerate(layout.items()):
                filename, data = _wheel(project, "2.9.1", tag, build, pad=100 * number)
                fake.add(project, filename, data)
        for tag, build in TORCHLIKE.items():
            fake.add("withpure", *_wheel("withpure", "1.0", tag, build))
        fake.add("withpure", *_wheel("withpure", "1.0", "py3-none-any", "pure"))
        fake.add("withpure", "withpure-1.0.tar.gz", make_tgz({"setup.py": b""}, top="withpure-1.0"))
        zeros = io.BytesIO()
        with zipfile.ZipFile(zeros, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("huge/__init__.py", "x = 1\n")
            zf.writestr("huge/_native.so", bytes(60 << 20))
            zf.writestr("huge/util.py", "def f():\n    return 'needle'\n")
        fake.add("huge", "huge-1.0-py3-none-any.whl", zeros.getvalue())
        fake.add("ruamel-yaml-clib", "ruamel_yaml_clib-0.2.15.tar.gz",
                 make_tgz({"setup.py": b"", "_ruamel_yaml.c": b"int x;\n"}, top="ruamel.yaml.clib-0.2.15"))
        fake.add("unrelated", "unrelated-1.0.tar.gz", make_tgz({"setup.py": b""}, top="something-else-3.0"))
        yield fake


@pytest.fixture
def env(index, monkeypatch):
    monkeypatch.setenv("CODENAV_PYPI_INDEX_URL", index.url)
    return index


def _args(name: str, version: str, **more) -> dict:
    return {"registry": "pypi", "package_name": name, "version": version, **more}


@needs_linux_x86
def test_a_torch_like_release_reads_the_manylinux_wheel_here(env):
    """No sdist, wheels for three systems and four Pythons: the manylinux wheel of this Python is read."""
    result = list_files.run(_args("torchlike", "2.9.1"))
    assert result["target"]["artifact"] == f"torchlike-2.9.1-{MANYLINUX}.whl"
    assert (result["target"]["artifactReason"], "platformMatch" in result["target"]) == ("platform-wheel", False)
    assert read_file.run(_args("torchlike", "2.9.1", path="torchlike/version.py"))["content"] == "build = 'linux'\n"
    contract.validator("list_files", "outputSchema").validate(result)


def test_a_pure_wheel_beats_the_platform_wheels(env):
    """The same release with a py3-none-any wheel and an sdist: the pure wheel is read."""
    result = list_files.run(_args("withpure", "1.0"))
    assert (result["target"]["artifact"], result["target"]["artifactReason"]) == (
        "withpure-1.0-py3-none-any.whl", "pure-wheel")
    sdist = list_files.run(_args("withpure", "1.0", artifact="sdist"))
    assert (sdist["target"]["artifact"], [f["path"] for f in sdist["files"]]) == ("withpure-1.0.tar.gz", ["setup.py"])


def test_injected_tags_that_fit_nothing_read_a_flagged_wheel_of_the_nearest_platform(env, monkeypatch):
    """CODENAV_WHEEL_TAGS for a Python 2.7 Linux machine: the smallest Linux x86_64 wheel, platformMatch false."""
    monkeypatch.setenv("CODENAV_WHEEL_TAGS", "cp27-cp27mu-manylinux1_x86_64,py27-none-any")
    result = list_files.run(_args("torchlike", "2.9.1"))
    assert result["target"]["artifact"] == "torchlike-2.9.1-cp39-cp39-manylinux_2_28_x86_64.whl"
    assert (result["target"]["artifactReason"], result["target"]["platformMatch"]) == ("other-platform-wheel", False)
    contract.validator("list_files", "outputSchema").validate(result)


def test_an_unknown_artifact_name_lists_the_files(env):
    """An artifact that is no file of the release is INVALID_ARGUMENT naming the files there are."""
    with pytest.raises(CodenavError) as caught:
        list_files.run(_args("torchlike", "2.9.1", artifact="torchlike-2.9.1-cp27-none-any.whl"))
    assert caught.value.code == "INVALID_ARGUMENT"
    assert caught.value.details["field"] == "artifact"
    assert f"torchlike-2.9.1-{PY}-{PY}-win_amd64.whl" in caught.value.details["availableArtifacts"]
    assert "torchlike-2.9.1-cp39-cp39-manylinux_2_28_x86_64.whl" in caught.value.message
    with pytest.raises(CodenavError) as no_sdist:
        list_files.run(_args("torchlike", "2.9.1", artifact="sdist"))
    assert (no_sdist.value.code, "has no sdist" in no_sdist.value.message) == ("INVALID_ARGUMENT", True)
    with pytest.raises(CodenavError) as npm:
        list_files.run({"registry": "npm", "package_name": "x", "version": "1.0.0", "artifact": "sdist"})
    assert (npm.value.code, npm.value.details["field"]) == ("INVALID_ARGUMENT", "artifact")


def test_the_artifact_override_is_byte_identical_on_the_cli_and_mcp(env, tmp_path):
    """--artifact FILENAME (CLI, quick parser included) and artifact (MCP) read that file, flagged, in identical bytes."""
    wanted = f"torchlike-2.9.1-{PY}-{PY}-win_amd64.whl"
    session = McpSession(dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        for tool, arguments, argv in (
            ("list_files", _args("torchlike", "2.9.1", artifact=wanted),
             ["files", "pypi:torchlike@2.9.1", "--artifact", wanted]),
            ("read_file", _args("torchlike", "2.9.1", artifact=wanted, path="torchlike/version.py"),
             ["read", "pypi:torchlike@2.9.1", "torchlike/version.py", f"--artifact={wanted}"]),
            ("list_files", _args("torchlike", "2.9.1", artifact="nope.whl"),
             ["files", "pypi:torchlike@2.9.1", "--artifact", "nope.whl"]),
        ):
            result = session.call(tool, arguments)
            proc = run_cli(*argv, "--json")
            assert proc.stdout.decode() == result["content"][0]["text"] + "\n"
        payload = json.loads(session.call("read_file", _args("torchlike", "2.9.1", artifact=wanted,
                                                             path="torchlike/version.py"))["content"][0]["text"])
        assert payload["content"] == "build = 'windows'\n"
        assert (payload["target"]["artifact"], payload["target"]["artifactReason"]) == (wanted, "requested")
        assert ("platformMatch" in payload["target"]) is (not wanted.endswith("manylinux_2_17_x86_64.whl"))
        plain = run_cli("read", "pypi:torchlike@2.9.1", "torchlike/version.py", "--artifact", "wheel")
        assert plain.returncode == 0 and plain.stdout.startswith(b"build = "), plain.stderr
    finally:
        session.close()


# --- pip as the oracle ----------------------------------------------------------------------------

def _pip_env() -> dict[str, str]:
    env = {k: v for k, v in ORIGINAL_ENV.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", NO_PROXY="127.0.0.1",
               no_proxy="127.0.0.1")
    return env


def test_the_platform_wheel_is_the_one_pip_downloads(env, tmp_path):
    """For layouts without a pure wheel (compressed tag sets, abi3, musl, a glibc too new, py3-only
    platform wheels), codenav reads the wheel `pip download --only-binary=:all:` picks here."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--no-cache-dir", "--quiet",
         "-i", env.url, "-d", str(tmp_path / "pip"), *(f"{project}==2.9.1" for project in PIP_LAYOUTS)],
        capture_output=True, text=True, timeout=300, env=_pip_env(), stdin=subprocess.DEVNULL,
    )
    if proc.returncode != 0 and "No matching distribution" in proc.stderr:
        pytest.skip("none of the layouts has a wheel for this machine")
    assert proc.returncode == 0, proc.stderr[-2000:]
    pip_picks = {p.name.split("-")[0]: p.name for p in (tmp_path / "pip").glob("*.whl")}
    ours = {project: list_files.run(_args(project, "2.9.1"))["target"]["artifact"] for project in PIP_LAYOUTS}
    assert ours == pip_picks


# --- one member over the per-file limit ----------------------------------------------------------

def test_a_60_mib_member_is_listed_skipped_and_the_rest_is_served(env):
    """A wheel with a 60 MiB member of zeros (tiny on the wire): listed as too large; the other files
    read and grep fine; reading it is TOO_LARGE naming CODENAV_MAX_FILE_BYTES; grep_repo counts it."""
    result = list_files.run(_args("huge", "1.0"))
    files = {f["path"]: f for f in result["files"]}
    assert files["huge/_native.so"] == {"path": "huge/_native.so", "size": 60 << 20, "language": None,
                                        "fileType": "other", "skipped": "too large"}
    assert [p for p, f in files.items() if "skipped" in f] == ["huge/_native.so"]
    assert "CODENAV_MAX_FILE_BYTES" in result["hint"]
    contract.validator("list_files", "outputSchema").validate(result)
    assert read_file.run(_args("huge", "1.0", path="huge/util.py"))["content"].endswith("'needle'\n")
    with pytest.raises(CodenavError) as caught:
        read_file.run(_args("huge", "1.0", path="huge/_native.so"))
    assert caught.value.code == "TOO_LARGE" and "CODENAV_MAX_FILE_BYTES" in caught.value.message
    assert {k: caught.value.details[k] for k in ("path", "size", "limitBytes", "variable")} == {
        "path": "huge/_native.so", "size": 60 << 20, "limitBytes": 50 << 20, "variable": "CODENAV_MAX_FILE_BYTES"}
    grep = grep_repo.run(_args("huge", "1.0", pattern="needle"))
    assert (grep["largeFilesSkipped"], [f["path"] for f in grep["files"]]) == (1, ["huge/util.py"])
    plain = run_cli("files", "pypi:huge@1.0")
    assert plain.stdout.decode().splitlines() == ["huge/__init__.py", "huge/_native.so", "huge/util.py"]
    assert b"CODENAV_MAX_FILE_BYTES" in plain.stderr


def test_the_total_limit_still_fails_the_package(env, monkeypatch):
    """Over CODENAV_MAX_EXTRACTED_BYTES the package fails as before (TOO_LARGE, nothing cached)."""
    monkeypatch.setenv("CODENAV_MAX_EXTRACTED_BYTES", "20")
    with pytest.raises(CodenavError) as caught:
        list_files.run(_args("huge", "1.0"))
    assert caught.value.code == "TOO_LARGE" and "CODENAV_MAX_EXTRACTED_BYTES" in caught.value.message


# --- sdist folders ---------------------------------------------------------------------------------

def test_an_sdist_folder_spelled_otherwise_is_its_folder(env):
    """ruamel_yaml_clib-0.2.15.tar.gz holding ruamel.yaml.clib-0.2.15/: the folder matches after
    PEP 503 and PEP 440 normalisation, and its files are listed."""
    result = list_files.run(_args("ruamel.yaml.clib", "0.2.15"))
    assert [f["path"] for f in result["files"]] == ["_ruamel_yaml.c", "setup.py"]
    assert "skipped" not in result and result["target"]["artifactReason"] == "sdist"


def test_an_sdist_with_an_unrelated_folder_is_an_error(env):
    """unrelated-1.0.tar.gz holding something-else-3.0/ is PROTOCOL_ERROR naming both folders, never an empty list."""
    with pytest.raises(CodenavError) as caught:
        list_files.run(_args("unrelated", "1.0"))
    assert caught.value.code == "PROTOCOL_ERROR"
    assert "unrelated-1.0/" in caught.value.message and "something-else-3.0/" in caught.value.message


# --- live -------------------------------------------------------------------------------------------

NUMPY = "2.3.5"


@pytest.mark.live
def test_numpy_lists_the_platform_wheel_pip_downloads_here(monkeypatch, tmp_path):
    """`codenav files pypi:numpy@V` on a cold cache reads the wheel `pip download --only-binary=:all:` picks here."""
    as_the_user(monkeypatch, ("PIP_CONFIG_FILE", "PIP_INDEX_URL"))
    try:
        dl = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                             "--no-cache-dir", "--quiet", f"numpy=={NUMPY}", "-d", str(tmp_path)],
                            capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"pip could not reach the index: {exc}")
    if dl.returncode != 0:
        pytest.skip(f"the package index is unreachable or has no wheel here: {dl.stderr.strip()[-200:]}")
    wheel = [p.name for p in tmp_path.glob("*.whl")]
    proc = run_cli("files", f"pypi:numpy@{NUMPY}", "--json", "--wait", "60000", timeout=600)
    assert proc.returncode == 0, proc.stderr
    target = json.loads(proc.stdout)["target"]
    assert [target["artifact"]] == wheel
    assert target["artifactReason"] == "platform-wheel" and "platformMatch" not in target
