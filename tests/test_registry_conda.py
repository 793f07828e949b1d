"""conda: what is peculiar to it — the anaconda.org per-package API or a plain channel's
repodata, the subdir choice, .conda and .tar.bz2, VersionOrder and MatchSpec version specs
(against py-rattler), the .condarc ladder, withdrawn (relabelled) builds, py-rattler installing
from the fake channel, and its lockfiles. The chain through both surfaces, hostile archives,
integrity, faults and bad names are the conformance kit's (tests/support/adapters/conda.py)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest

from codenav.errors import CodenavError
from codenav.registries import conda as conda_module
from codenav.registries.condaversion import Order, VersionError, parse_spec, sort_key
from codenav.tools import list_files, read_file
from tests.support.cache import error_of as failure
from tests.support.cli import run_cli
from tests.support.registries import fake_fixture

SRC = b'"""demo."""\n\n\ndef hello():\n    return "hello from demo"\n\n\nclass Greeter:\n    pass\n'
PY = "lib/python3.11/site-packages/demo/__init__.py"

channel = fake_fixture("conda")  # the kit's adapter: CODENAV_CONDA_CHANNEL/_API at the fake, linux-64


def target_of(**args) -> dict:
    return list_files.run({"registry": "conda", **args})["target"]


def error_of(**args) -> CodenavError:
    return failure(list_files.run, {"registry": "conda", **args})


# --- versions: VersionOrder and MatchSpec specs, against py-rattler ----------------------------------

# conda's documented order (conda/models/version.py), lowest first; "==" rows are equal.
DOCUMENTED = ["0.4", "==0.4.0", "0.4.1.rc", "==0.4.1.RC", "0.4.1", "0.5a1", "0.5b3", "0.5C1", "0.5", "0.9.6",
              "0.960923", "1.0", "1.1dev1", "1.1_", "1.1a1", "1.1.0dev1", "==1.1.dev1", "1.1.a1", "1.1.0rc1",
              "1.1.0", "==1.1", "1.1.0post1", "==1.1.post1", "1.1post1", "1996.07.12", "1!0.4.1", "1!3.1.1.6",
              "2!0.4.1"]


def test_version_order_is_condas_documented_order():
    """Each version of conda's documented table is above the one before it, or equal where it says so."""
    for low, high in zip(DOCUMENTED, DOCUMENTED[1:], strict=False):
        a, b = Order(low.removeprefix("==")), Order(high.removeprefix("=="))
        assert (a == b and hash(a) == hash(b)) if high.startswith("==") else a < b, (low, high)


def _generated(count: int) -> list[str]:
    rng = random.Random(26)
    words = ["a", "b", "rc", "dev", "post", "alpha", "_", ""]
    out = set()
    while len(out) < count:
        parts = [str(rng.choice([0, 1, 2, 10, 2024])) + rng.choice(words + [""] * 6) + (str(rng.randint(0, 3))
                 if rng.random() < 0.3 else "") for _ in range(rng.randint(1, 4))]
        version = ".".join(parts).replace("._", "_").rstrip("_") or "0"
        version = (f"{rng.randint(1, 2)}!" if rng.random() < 0.05 else "") + version
        version += f"+{rng.choice(['cpu', 'cu12', '1.2'])}" if rng.random() < 0.1 else ""
        try:
            Order(version)
        except VersionError:
            continue
        out.add(version)
    return sorted(out)


def test_version_order_agrees_with_py_rattler_on_generated_versions():
    """600 generated versions sort, and compare equal, exactly as rattler's Version does."""
    rattler = pytest.importorskip("rattler", reason="py-rattler is not installed (pip install py-rattler)")
    versions = _generated(600)
    ours = sorted(versions, key=sort_key)
    pairs = list(zip(ours, ours[1:], strict=False))
    for a, b in pairs:
        assert (Order(a) == Order(b)) == (rattler.Version(a) == rattler.Version(b)), (a, b)
        assert not rattler.Version(b) < rattler.Version(a), (a, b)


def test_a_string_that_is_no_version_sorts_below_every_version_in_any_order():
    """sort_key of a non-version sorts lowest wherever it stands in the list (a lockfile may hold one)."""
    for versions in (["1.0", "not a version!", "0.9"], ["not a version!", "1.0", "0.9"]):
        assert sorted(versions, key=sort_key) == ["not a version!", "0.9", "1.0"]


SPECS = ["1.2", "==1.2", "1.2.*", "1.2*", "=1.2", ">=1.2,<2", "<1.2|>=2", "!=1.2.*", "~=1.2", "~=1.2.3", "*",
         "(1.0|1.1),>=1.1", ">1.2.0", ">=1.2.0a"]
CANDIDATES = ["1.0", "1.1", "1.2", "1.2.0", "1.2.3", "1.2.5", "1.2rc1", "1.2.post1", "1.3", "1.5.3", "2.0", "2.0a1",
              "1.2.0a", "1.20"]


@pytest.mark.parametrize("spec", SPECS)
def test_match_spec_version_specs_match_what_py_rattler_matches(spec):
    """Each MatchSpec version spec takes exactly the versions rattler's VersionSpec takes."""
    rattler = pytest.importorskip("rattler", reason="py-rattler is not installed (pip install py-rattler)")
    ours = {v for v in CANDIDATES if parse_spec(spec)(v)}
    theirs = {v for v in CANDIDATES if rattler.VersionSpec(spec).matches(rattler.Version(v))}
    assert ours == theirs


def test_a_glob_inside_a_spec_matches_the_version_as_spelled():
    """`1.*.3` is conda's regex `^1\\..*\\.3$` over the spelling (rattler refuses such specs)."""
    assert [v for v in CANDIDATES if parse_spec("1.*.3")(v)] == ["1.2.3", "1.5.3"]


@pytest.mark.parametrize("spec", ["^1.2$", ">=", "1.2,", "(1.2", "~=1.2.*", "<= 1.2", "~=1", ">>1"])
def test_a_spec_conda_refuses_is_invalid_argument(spec):
    """A spec that is not conda's grammar (or a regex spec) is INVALID_ARGUMENT naming the version."""
    with pytest.raises(CodenavError) as info:
        conda_module.classify_version(spec)
    assert info.value.code == "INVALID_ARGUMENT" and info.value.details["field"] == "version"


def test_latest_and_ranges_pick_the_highest_version_by_version_order(channel):
    """Latest is the highest VersionOrder in the label (1.10 > 1.9 > 1.9rc1); a range the highest it takes."""
    for version in ("1.9rc1", "1.9", "1.10", "2.0"):
        channel.publish("pkg", version, labels=["main"] if version != "2.0" else ["pkg_rc"])
    assert target_of(package_name="pkg")["version"] == "1.10"
    assert target_of(package_name="pkg", version="<1.10")["version"] == "1.9"
    assert target_of(package_name="pkg", version="1.9.*")["version"] == "1.9"
    assert target_of(package_name="pkg", version="1.9.0")["version"] == "1.9"  # equal under VersionOrder
    err = error_of(package_name="pkg", version=">=3")
    assert err.code == "VERSION_NOT_FOUND" and err.details["availableVersions"] == ["1.10", "1.9", "1.9rc1"]


def test_the_highest_build_number_then_the_newest_upload_breaks_ties(channel):
    """Among one version's builds in one subdir, build number 2 beats 1, then the newer timestamp."""
    channel.publish("ties", "1.0", {"a.txt": b"one\n"}, number=1, build="py310h0_1", timestamp=3)
    channel.publish("ties", "1.0", {"a.txt": b"two\n"}, number=2, build="py311h0_2", timestamp=1)
    channel.publish("ties", "1.0", {"a.txt": b"two-newer\n"}, number=2, build="py312h0_2", timestamp=2)
    assert target_of(package_name="ties")["artifact"] == "ties-1.0-py312h0_2.tar.bz2"


def test_a_build_moved_to_another_label_is_read_only_when_pinned(channel):
    """conda-forge moves broken builds to `broken`: latest skips them, a pin reads them from that
    label's URL and says why in `yanked`."""
    channel.publish("lab", "1.0")
    channel.publish("lab", "1.1", labels=["broken"])
    assert target_of(package_name="lab")["version"] == "1.0"
    assert error_of(package_name="lab", version="2.0").details["availableVersions"] == ["1.0"]
    pinned = target_of(package_name="lab", version="1.1")
    assert pinned["yanked"] == "the channel lists it under the label broken, not main"
    assert "/conda-forge/label/broken/linux-64/lab-1.1-h1a2b3c4_0.tar.bz2" in [s.path for s in channel.server.seen]


# --- which file: subdir, noarch, another platform, .conda -------------------------------------------


def test_this_machines_subdir_then_noarch_then_another_flagged(channel):
    """linux-64 beats noarch; noarch beats osx-arm64; only another subdir is flagged platformMatch false."""
    channel.publish("multi", "1.0", subdir="osx-arm64")
    channel.publish("multi", "1.0", subdir="noarch")
    channel.publish("multi", "1.0", subdir="linux-64")
    assert target_of(package_name="multi")["subdir"] == "linux-64"
    channel.publish("pure", "1.0", subdir="osx-arm64")
    channel.publish("pure", "1.0", subdir="noarch")
    assert {k: target_of(package_name="pure")[k] for k in ("subdir", "artifactReason")} == {
        "subdir": "noarch", "artifactReason": "noarch-build"}
    channel.publish("mac", "1.0", subdir="win-64")
    channel.publish("mac", "1.0", subdir="osx-arm64")
    channel.publish("mac", "1.0", subdir="linux-aarch64")
    other = target_of(package_name="mac")
    assert (other["subdir"], other["artifactReason"], other["platformMatch"]) == (
        "linux-aarch64", "other-platform-build", False)  # the same OS first


def test_artifact_names_a_subdir_or_a_file(channel):
    """`artifact` takes a subdir or a file name of the release; an unknown one lists what there is."""
    channel.publish("multi", "1.0", subdir="noarch")
    channel.publish("multi", "1.0", subdir="osx-arm64")
    mac = target_of(package_name="multi", artifact="osx-arm64")
    assert (mac["subdir"], mac["artifactReason"], mac["platformMatch"]) == ("osx-arm64", "requested", False)
    named = target_of(package_name="multi", artifact="multi-1.0-pyh0_0.tar.bz2")
    assert (named["subdir"], named["artifactReason"]) == ("noarch", "requested")
    err = error_of(package_name="multi", artifact="win-64")
    assert err.code == "INVALID_ARGUMENT" and err.details["availableArtifacts"] == ["noarch", "osx-arm64"]
    err = error_of(package_name="multi", artifact="multi-9.tar.bz2")
    assert err.details["availableArtifacts"] == ["noarch/multi-1.0-pyh0_0.tar.bz2",
                                                 "osx-arm64/multi-1.0-h1a2b3c4_0.tar.bz2"]


def test_a_conda_file_is_read_through_its_pkg_tar_where_zstd_can_be_read(channel):
    """With zstd (backports.zstd here, compression.zstd on 3.14) the .conda is read: its pkg- tar's files."""
    pytest.importorskip("backports.zstd", reason="neither compression.zstd nor backports.zstd is available")
    channel.publish("both", "1.0", {PY: SRC}, ext=".conda")
    channel.publish("both", "1.0", {PY: b"bz2\n"})
    result = list_files.run({"registry": "conda", "package_name": "both"})
    assert result["target"]["artifact"] == "both-1.0-h1a2b3c4_0.conda"
    assert [f["path"] for f in result["files"]] == [PY]
    assert read_file.run({"registry": "conda", "package_name": "both", "path": PY})["content"] == SRC.decode()


# Imported by every Python started with this folder on PYTHONPATH (the CLI and its indexer): an
# interpreter without zstd, as Python 3.11-3.13 without backports.zstd is.
NO_ZSTD = """import sys


class _NoZstd:
    def find_spec(self, name, path=None, target=None):
        if name in ("compression.zstd", "backports.zstd"):
            raise ModuleNotFoundError(name)


sys.meta_path.insert(0, _NoZstd())
"""


def test_without_zstd_the_same_builds_tar_bz2_is_read_else_an_error_names_the_fix(channel, tmp_path):
    """On a Python without zstd: the .tar.bz2 twin of the chosen build; a build that is only
    .conda is CONFIG_ERROR naming the file and what to install."""
    (tmp_path / "nozstd").mkdir()
    (tmp_path / "nozstd" / "sitecustomize.py").write_text(NO_ZSTD)
    env = {"PYTHONPATH": f"{tmp_path / 'nozstd'}:{Path(__file__).resolve().parents[1]}"}
    channel.publish("both", "1.0", {PY: b"conda\n"}, ext=".conda", data=b"never read")
    channel.publish("both", "1.0", {PY: b"bz2\n"})
    proc = run_cli("read", "conda:both", PY, env=env)
    assert (proc.stdout, proc.stderr) == (b"bz2\n", b"")
    channel.publish("rebuilt", "1.0", {PY: b"build 0\n"}, number=0)
    channel.publish("rebuilt", "1.0", {PY: b"build 1\n"}, number=1, ext=".conda", data=b"never read")
    proc = run_cli("read", "conda:rebuilt@1.0", PY, env=env)
    assert (proc.stdout, proc.stderr) == (b"build 0\n", b"")  # the version's best .tar.bz2
    channel.publish("only", "1.0", ext=".conda", data=b"never read")
    proc = run_cli("files", "conda:only", "--json", env=env)
    err = json.loads(proc.stdout)["error"]
    assert err["code"] == "CONFIG_ERROR" and "linux-64/only-1.0-h1a2b3c4_0.conda" in err["message"]
    assert "backports.zstd" in err["details"]["action"] and "3.14" in err["details"]["action"]
    assert not [s for s in channel.server.seen if s.path.endswith(".conda")]


def test_a_file_name_that_would_walk_the_channel_url_is_never_used(channel):
    """An API entry whose basename holds `..`, `%2F` or another path is ignored, not fetched."""
    for bad in ("../../etc/demo-9.0-h0_0.tar.bz2", "x%2F..%2Fdemo-9.0-h0_0.tar.bz2", "?demo-9.0-h0_0.tar.bz2"):
        entry = channel.publish("walk", "9.0")
        entry.fn = bad
    channel.publish("walk", "1.0")
    assert target_of(package_name="walk")["version"] == "1.0"
    assert not [s for s in channel.server.seen if ".." in s.path or "%2F" in s.path]


def test_a_conda_file_without_a_pkg_tar_is_unsafe_archive(channel):
    """A .conda whose zip lacks `pkg-{stem}.tar.zst` is refused, never listed empty."""
    pytest.importorskip("backports.zstd", reason="neither compression.zstd nor backports.zstd is available")
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("metadata.json", "{}")
    channel.publish("hollow", "1.0", ext=".conda", data=buf.getvalue())
    assert error_of(package_name="hollow").code == "UNSAFE_ARCHIVE"


# --- the channel: CODENAV_CONDA_CHANNEL, .condarc, the default; the API or repodata ---------------


def _condarc(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize("text,expected", [
    ("channels:\n  - defaults\n  - https://mirror.example/conda-forge\n", "https://mirror.example/conda-forge/"),
    ("channels: [https://prefix.example/conda-forge/]\n", "https://prefix.example/conda-forge/"),
    ("custom_channels:\n  conda-forge: https://custom.example/cf\nchannel_alias: https://alias.example\n",
     "https://custom.example/cf/conda-forge/"),
    ("channel_alias: https://alias.example/conda/\n", "https://alias.example/conda/conda-forge/"),
    ("channels:\n  - conda-forge\nchannel_settings:\n  - channel: x\n    backend: y\n", conda_module.DEFAULT_CHANNEL),
    ("", conda_module.DEFAULT_CHANNEL),
])
def test_the_channel_comes_from_condarc_as_conda_resolves_conda_forge(tmp_path, monkeypatch, text, expected):
    """A channels URL ending in conda-forge, else custom_channels, else channel_alias, else the
    public channel; a block the YAML subset refuses elsewhere in the file is not read at all."""
    _condarc(Path.home() / ".condarc", text)
    assert conda_module.endpoint() == expected


def test_codenav_variable_beats_condarc_and_later_files_win(tmp_path, monkeypatch):
    """CODENAV_CONDA_CHANNEL first; among .condarc files the later one (CONDARC last) wins."""
    _condarc(Path.home() / ".conda" / "condarc.d" / "site.yml", "channel_alias: https://one.example\n")
    _condarc(Path.home() / ".condarc", "channel_alias: https://two.example\n")
    assert conda_module.endpoint() == "https://two.example/conda-forge/"
    _condarc(tmp_path / "env.condarc", "channel_alias: https://three.example\n")
    monkeypatch.setenv("CONDARC", str(tmp_path / "env.condarc"))
    assert conda_module.endpoint() == "https://three.example/conda-forge/"
    monkeypatch.setenv("CODENAV_CONDA_CHANNEL", "https://codenav.example/cf")
    assert conda_module.endpoint() == "https://codenav.example/cf/"


def test_an_unreadable_condarc_key_is_a_config_error_naming_the_variable(tmp_path):
    """`channels` that the YAML subset cannot read is CONFIG_ERROR pointing at CODENAV_CONDA_CHANNEL."""
    _condarc(Path.home() / ".condarc", "channels:\n  - &a conda-forge\n")
    with pytest.raises(CodenavError) as info:
        conda_module.endpoint()
    assert info.value.code == "CONFIG_ERROR" and "CODENAV_CONDA_CHANNEL" in info.value.message


def test_a_channel_off_anaconda_org_is_read_through_its_repodata_never_the_api(channel, monkeypatch):
    """Without CODENAV_CONDA_API a mirror is read as conda reads it: this subdir's and noarch's
    repodata.json, gzip accepted; the per-package API is never asked."""
    monkeypatch.delenv("CODENAV_CONDA_API")
    channel.publish("mirrored", "1.0", subdir="noarch")
    channel.publish("mirrored", "1.1", {PY: SRC})
    result = list_files.run({"registry": "conda", "package_name": "mirrored"})
    assert (result["target"]["version"], result["target"]["subdir"]) == ("1.1", "linux-64")
    paths = [s.path for s in channel.server.seen]
    assert "/conda-forge/linux-64/repodata.json" in paths and "/conda-forge/noarch/repodata.json" in paths
    assert not [p for p in paths if p.startswith("/api/")]
    assert error_of(package_name="absent").code == "NOT_FOUND"


def test_the_public_channel_uses_the_public_api(monkeypatch):
    """The default channel is on anaconda.org, so the API is used; another host is not."""
    assert conda_module._uses_api(conda_module.DEFAULT_CHANNEL)
    assert not conda_module._uses_api("https://mirror.example/conda-forge/")
    monkeypatch.setenv("CODENAV_CONDA_API", "https://api.example/")
    assert conda_module._uses_api("https://mirror.example/conda-forge/")


def test_names_are_lower_cased_as_matchspec_does():
    """`PyYAML` is the package `pyyaml`."""
    assert conda_module.normalize_name("PyYAML") == "pyyaml"
    assert conda_module.normalize_name("_libgcc_mutex") == "_libgcc_mutex"


def test_a_warm_conda_call_imports_nothing_heavy(channel, monkeypatch):
    """Once cached, `codenav read conda:…` imports neither the network libraries nor re, json,
    functools (the subdir is found without `platform`, zstd is looked for only when indexing)."""
    from tests.support.warm import NEVER, TOO_HEAVY, imported_by

    monkeypatch.delenv("CONDA_SUBDIR")  # this machine's subdir is worked out on every call
    channel.publish("demo", "1.1", {PY: SRC})
    assert run_cli("read", "conda:demo@1.1", PY).returncode == 0
    loaded = imported_by(["read", "conda:demo@1.1", PY])
    assert not loaded & (NEVER | TOO_HEAVY), loaded & (NEVER | TOO_HEAVY)


# --- the real client: py-rattler solves and installs from the fake channel ---------------------------


def test_py_rattler_installs_the_file_codenav_reads_with_the_same_sha256(channel, tmp_path):
    """rattler solves `demo` from the fake channel's repodata and installs it; the record it picks
    is the file codenav reads, with the same sha256, and its installed files are codenav's."""
    rattler = pytest.importorskip("rattler", reason="py-rattler is not installed (pip install py-rattler)")
    import asyncio

    channel.publish("demo", "1.0", {PY: b"old\n"})
    channel.publish("demo", "1.1", {PY: SRC}, number=0, timestamp=1_700_000_000_000)
    channel.publish("demo", "1.1", {PY: SRC, "share/demo/more.txt": b"more\n"}, number=1,
                    timestamp=1_700_000_000_001)
    channel.publish("demo", "1.1", {PY: b"mac\n"}, subdir="osx-arm64")
    records = asyncio.run(rattler.solve([channel.channel], ["demo"], platforms=["linux-64", "noarch"],
                                        virtual_packages=[]))
    (record,) = [r for r in records if r.name.normalized == "demo"]
    prefix = tmp_path / "env"
    asyncio.run(rattler.install(records, prefix, cache_dir=tmp_path / "pkgs", show_progress=False))
    result = list_files.run({"registry": "conda", "package_name": "demo"})
    chosen = next(f for f in channel.files if f.fn == result["target"]["artifact"])
    assert (record.file_name, str(record.version), record.build_number) == (chosen.fn, "1.1", 1)
    assert record.sha256.hex() == chosen.sha256 == hashlib.sha256(chosen.data).hexdigest()
    installed = {p.relative_to(prefix).as_posix() for p in prefix.rglob("*") if p.is_file()
                 and "conda-meta" not in p.parts and p.name != "CACHEDIR.TAG"}
    assert installed == {f["path"] for f in result["files"] if not f["path"].startswith("info/")}
    assert (prefix / PY).read_bytes() == SRC


# --- lockfiles: pixi.lock, conda-lock.yml, environment.yml --------------------------------------------

PIXI_LOCK = """\
version: 6
environments:
  default:
    channels:
    - url: https://conda.anaconda.org/conda-forge/
    packages:
      linux-64:
      - conda: https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda
      - conda: https://conda.anaconda.org/conda-forge/noarch/tzdata-2024b-hc8b5060_0.conda
      - pypi: https://files.example/packages/requests-2.32.3-py3-none-any.whl
      osx-arm64:
      - conda: https://conda.anaconda.org/conda-forge/osx-arm64/numpy-1.26.3-py311h7125741_0.conda
      - conda: .
packages:
- conda: https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda
  sha256: 3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149
  md5: a502d7aad449a1206efb366d6a12c52d
  depends:
  - libblas >=3.9.0,<4.0a0
  - python_abi 3.11.* *_cp311
  constrains:
  - numpy-base <0a0
  license: BSD-3-Clause
  size: 8065890
  timestamp: 1707225944355
- conda: https://conda.anaconda.org/conda-forge/osx-arm64/numpy-1.26.3-py311h7125741_0.conda
  sha256: 4a1c40ea9d7c8d1ec44ad3c6a4e1e7bd4f1b9ac3bb39ecd1a1c4d0e6c9bd6a1e
  size: 6652352
- conda: https://conda.anaconda.org/conda-forge/noarch/tzdata-2024b-hc8b5060_0.conda
  sha256: 4fde5c3008bf5d2db82f2b50204464314cc3c91c1d953652f7bd01d9e52aefdf
- conda: .
  name: mytool
  version: 0.1.0
  build: hbf21a9e_0
  subdir: linux-64
  input:
    hash: 1c8a2e5e
    globs:
    - pixi.toml
- pypi: https://files.example/packages/requests-2.32.3-py3-none-any.whl
  name: requests
  version: 2.32.3
"""

CONDA_LOCK = """\
# This lock file was generated by conda-lock (https://github.com/conda/conda-lock). DO NOT EDIT!
version: 1
metadata:
  channels:
  - url: conda-forge
    used_env_vars: []
  platforms:
  - linux-64
  - osx-arm64
  sources:
  - environment.yml
package:
- name: numpy
  version: 1.26.4
  manager: conda
  platform: linux-64
  dependencies:
    libblas: '>=3.9.0,<4.0a0'
  url: https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda
  hash:
    md5: a502d7aad449a1206efb366d6a12c52d
    sha256: 3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149
  category: main
  optional: false
- name: numpy
  version: 1.26.2
  manager: conda
  platform: osx-arm64
  dependencies: {}
  url: https://conda.anaconda.org/conda-forge/osx-arm64/numpy-1.26.2-py311h6d074dd_0.conda
  hash:
    md5: 1ab3b5d42ad1a1e1c0e9fbba7ec3e9cb
    sha256: 9d6fb1a0f0c3e6bbcb1b8e1b1b6d4f6e5c1b2a3d4e5f6a7b8c9d0e1f2a3b4c5d
  category: main
  optional: false
- name: requests
  version: 2.31.0
  manager: pip
  platform: linux-64
  dependencies: {}
  url: https://files.example/packages/requests-2.31.0-py3-none-any.whl
  hash:
    sha256: 58cd2187c01e70e6e26505bca751777aa9f2ee0b7f4300988b709f44e013003f
  category: main
  optional: false
"""

ENVIRONMENT_YML = """\
name: demo
channels:
  - conda-forge
dependencies:
  - python=3.11
  - conda-forge::numpy==1.26.4
  - scipy 1.13.1 py311h517d4fd_0
  - pandas=2.2.2=py311h14de704_1
  - xarray>=2024
  - pip
  - pip:
    - requests==2.32.3
"""


def _locked(module, text: str, name: str):
    """The copy of ``name`` the conda row picks among a reader's entries."""
    from codenav.lockfiles import choose
    from codenav.lockfiles.ecosystems import TABLE

    return choose(TABLE["conda"], name, module.entries(text, None), "lockfile", "the-file")


@pytest.mark.parametrize("subdir,version", [("linux-64", "1.26.4"), ("osx-arm64", "1.26.3"), ("win-64", "1.26.4")])
def test_pixi_lock_gives_this_machines_copy(monkeypatch, subdir, version):
    """pixi.lock: the copy the default environment installs on this subdir, else the highest;
    the version comes from the file name when the entry has no `version`."""
    from codenav.lockfiles import pixi

    monkeypatch.setenv("CONDA_SUBDIR", subdir)
    locked = _locked(pixi, PIXI_LOCK, "numpy")
    assert locked.version == version and locked.source == "registry"
    assert _locked(pixi, PIXI_LOCK, "tzdata").version == "2024b"
    assert _locked(pixi, PIXI_LOCK, "requests") is None  # a pypi entry is PyPI's


def test_a_pixi_source_package_has_no_registry_version():
    """A `conda: .` entry is a package pixi builds from the project: no version to fetch, said so."""
    from codenav.lockfiles import pixi

    locked = _locked(pixi, PIXI_LOCK, "mytool")
    assert (locked.version, locked.source, locked.ref) == (None, "directory", ".")
    assert "no registry version" in locked.warnings[0]


def test_conda_lock_reads_conda_entries_for_this_platform(monkeypatch):
    """conda-lock.yml: manager conda only, this platform's entry first."""
    from codenav.lockfiles import conda_lock

    monkeypatch.setenv("CONDA_SUBDIR", "osx-arm64")
    assert _locked(conda_lock, CONDA_LOCK, "numpy").version == "1.26.2"
    monkeypatch.setenv("CONDA_SUBDIR", "linux-64")
    assert _locked(conda_lock, CONDA_LOCK, "numpy").version == "1.26.4"
    assert _locked(conda_lock, CONDA_LOCK, "requests") is None


@pytest.mark.parametrize("name,version", [("python", "3.11.*"), ("numpy", "1.26.4"), ("scipy", "1.13.1"),
                                          ("pandas", "2.2.2"), ("xarray", None), ("pip", None), ("requests", None)])
def test_environment_yml_pins(name, version):
    """environment.yml: `==V`, `name V [build]` and `=V=build` pin V; `=V` is conda's `V.*`; a
    range, a bare name and the pip list pin nothing."""
    from codenav.lockfiles import environment_yml

    locked = _locked(environment_yml, ENVIRONMENT_YML, name)
    assert (locked.version if locked else None) == version


def test_a_pinned_fuzzy_version_resolves_as_conda_would(channel):
    """`python=3.11` from an environment file reads the highest 3.11 release."""
    for version in ("3.10.14", "3.11.8", "3.11.9", "3.12.4"):
        channel.publish("python", version)
    assert target_of(package_name="python", version="3.11.*")["version"] == "3.11.9"


@pytest.mark.parametrize("text", [PIXI_LOCK, CONDA_LOCK, ENVIRONMENT_YML])
def test_the_yaml_subset_reads_these_files_as_pyyaml_does(text):
    """The YAML subset gives pixi.lock, conda-lock.yml and environment.yml the structure PyYAML gives."""
    import shutil
    import subprocess
    import sys

    from codenav.lockfiles.yaml_subset import load

    code = "import json, sys, yaml; print(json.dumps(yaml.load(sys.stdin, Loader=yaml.BaseLoader)))"
    for python in dict.fromkeys([sys.executable, shutil.which("python3")]):
        if python and subprocess.run([python, "-c", "import yaml"], capture_output=True).returncode == 0:
            run = subprocess.run([python, "-c", code], input=text, capture_output=True, text=True, check=True)
            assert load(text) == json.loads(run.stdout)
            return
    pytest.skip("no Python with PyYAML to compare against")


PIXI_LOCK_V5 = """\
version: 5
environments:
  default:
    channels:
    - url: https://conda.anaconda.org/conda-forge/
    packages:
      osx-arm64:
      - conda: https://conda.anaconda.org/conda-forge/osx-arm64/numpy-1.26.3-py311h7125741_0.conda
      - conda: https://conda.anaconda.org/conda-forge/noarch/tzdata-2024b-hc8b5060_0.conda
      linux-64:
      - conda: https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda
      - conda: https://conda.anaconda.org/conda-forge/noarch/tzdata-2024b-hc8b5060_0.conda
packages:
- kind: conda
  name: numpy
  version: 1.26.4
  build: py311h64a7726_0
  subdir: linux-64
  url: https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda
  sha256: 3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149
  md5: a502d7aad449a1206efb366d6a12c52d
- kind: conda
  name: numpy
  version: 1.26.3
  build: py311h7125741_0
  subdir: osx-arm64
  url: https://conda.anaconda.org/conda-forge/osx-arm64/numpy-1.26.3-py311h7125741_0.conda
  sha256: 4a1c40ea9d7c8d1ec44ad3c6a4e1e7bd4f1b9ac3bb39ecd1a1c4d0e6c9bd6a1e
  md5: 1ab3b5d42ad1a1e1c0e9fbba7ec3e9cb
- kind: conda
  name: tzdata
  version: 2024b
  build: hc8b5060_0
  subdir: noarch
  url: https://conda.anaconda.org/conda-forge/noarch/tzdata-2024b-hc8b5060_0.conda
  sha256: 4fde5c3008bf5d2db82f2b50204464314cc3c91c1d953652f7bd01d9e52aefdf
  md5: 8ac3367aafb1cc0a068483c580af8015
- kind: pypi
  name: requests
  version: 2.32.3
  url: https://files.example/packages/requests-2.32.3-py3-none-any.whl
"""


@pytest.mark.parametrize("subdir", ["linux-64", "osx-arm64"])
def test_pixi_lock_versions_4_and_5_are_read_as_rattler_reads_them(tmp_path, monkeypatch, subdir):
    """`kind: conda` entries with a `url` (the format before version 6): this machine's copies are
    the ones rattler's own reader gives for the platform."""
    rattler = pytest.importorskip("rattler", reason="py-rattler is not installed (pip install py-rattler)")
    from codenav.lockfiles import pixi

    monkeypatch.setenv("CONDA_SUBDIR", subdir)
    (tmp_path / "pixi.lock").write_text(PIXI_LOCK_V5)
    environment = rattler.LockFile.from_path(tmp_path / "pixi.lock").default_environment()
    (platform,) = [p for p in environment.platforms() if p.name == subdir]
    theirs = {(r.name.normalized, str(r.version)) for r in environment.conda_repodata_records_for_platform(platform)}
    assert {(c.name, c.version) for c in pixi.entries(PIXI_LOCK_V5, None)} == theirs


def test_the_locked_copy_follows_this_machines_subdir_cold_and_warm(tmp_path, monkeypatch):
    """The answer depends on the subdir, so the memo is keyed on it: switching CONDA_SUBDIR never
    gives the other platform's copy from memory."""
    from codenav.lockfiles import find_locked

    (tmp_path / ".git").mkdir()
    (tmp_path / "pixi.lock").write_text(PIXI_LOCK)
    for subdir, version in (("linux-64", "1.26.4"), ("osx-arm64", "1.26.3"), ("linux-64", "1.26.4"),
                            ("osx-arm64", "1.26.3")):
        monkeypatch.setenv("CONDA_SUBDIR", subdir)
        locked = find_locked("conda", "NumPy", str(tmp_path))
        assert (locked.version, locked.file) == (version, "pixi.lock"), subdir


@pytest.mark.parametrize("manifest,text", [
    ("pixi.toml", '[dependencies]\nnumpy = ">=1.26"\n\n[feature.tz.target.linux-64.dependencies]\ntzdata = "*"\n\n'
                  '[pypi-dependencies]\nrequests = "*"\n'),
    ("pyproject.toml", '[project]\nname = "x"\n\n[tool.pixi.dependencies]\nnumpy = "*"\n\n'
                       '[tool.pixi.feature.tz.dependencies]\ntzdata = "*"\n'),
])
def test_pixis_manifest_names_the_direct_dependencies(tmp_path, monkeypatch, manifest, text):
    """pixi.toml's (or pyproject.toml's [tool.pixi]) dependency tables, features' and targets' too, are
    the direct ones; without a manifest every locked package counts as direct."""
    from codenav.tools import list_deps

    monkeypatch.setenv("CONDA_SUBDIR", "linux-64")
    (tmp_path / ".git").mkdir()
    (tmp_path / "pixi.lock").write_text(PIXI_LOCK)
    (tmp_path / manifest).write_text(text)
    rows = list_deps.run({"project_dir": str(tmp_path), "all": True})["dependencies"]
    assert [(r["name"], r["version"], r["direct"]) for r in rows] == [("numpy", "1.26.4", True),
                                                                       ("tzdata", "2024b", True)]
    (tmp_path / manifest).unlink()
    (tmp_path / "pixi.toml").write_text('[dependencies]\ntzdata = "*"\n')
    rows = list_deps.run({"project_dir": str(tmp_path)})["dependencies"]
    assert [r["name"] for r in rows] == ["tzdata"]  # the memo saw the manifest change


def test_conda_lock_sources_name_the_direct_dependencies(tmp_path, monkeypatch):
    """conda-lock.yml's metadata.sources (an environment.yml) declare the direct dependencies; the pip
    entries are PyPI's and not listed."""
    from codenav.tools import list_deps

    monkeypatch.setenv("CONDA_SUBDIR", "linux-64")
    (tmp_path / ".git").mkdir()
    (tmp_path / "conda-lock.yml").write_text(CONDA_LOCK
                                             + "- name: libblas\n  version: 3.9.0\n  manager: conda\n"
                                               "  platform: linux-64\n  url: https://conda.anaconda.org/conda-forge/"
                                               "linux-64/libblas-3.9.0-20_linux64_openblas.conda\n")
    (tmp_path / "environment.yml").write_text("dependencies:\n  - numpy=1.26\n  - pip:\n    - requests\n")
    result = list_deps.run({"project_dir": str(tmp_path), "all": True})
    assert result["lockfiles"] == [{"registry": "conda", "file": "conda-lock.yml"}]
    assert [(r["name"], r["version"], r["direct"]) for r in result["dependencies"]] == [
        ("libblas", "3.9.0", False), ("numpy", "1.26.4", True)]

