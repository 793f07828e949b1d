"""crates, what is peculiar to it: the sparse index, the dl template, the cksum, the strip rule,
yanked versions, names, SemVer order and endpoint discovery, against the fake registry (and
cargo as an oracle). What every registry owes is tests/support/registries.py's shared suites."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from codenav.errors import CodenavError
from codenav.registries import crates as crates_module
from codenav.tools import list_files
from tests.fakes.crates import FakeCrates
from tests.fakes.http import FakeServer, Reply
from tests.support.archives import File, build
from tests.support.calls import files_of, list_error
from tests.support.cli import ORIGINAL_ENV, run_cli
from tests.support.registries import fake_fixture

crates = fake_fixture("crates")


@pytest.fixture(autouse=True)
def in_a_work_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A working directory with no .cargo above it (the variables are cleared by tests/conftest.py)."""
    (tmp_path / "work").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path / "work")


# --- version choice, yanked versions, names ------------------------------------------------------


def test_latest_skips_yanked_and_prereleases_and_a_pin_may_use_a_yanked_version(crates):
    """Latest is the highest stable version that is not yanked; a pinned yanked version is served."""
    crates.publish("pick", "1.9.0", {"src/a.rs": b"1.9"})
    crates.publish("pick", "1.10.0", {"src/b.rs": b"1.10"})  # newer than 1.9.0 though "1.10" < "1.9"
    crates.publish("pick", "1.11.0-rc.1", {"src/c.rs": b"rc"})
    crates.publish("pick", "1.12.0", {"src/d.rs": b"yanked"}, yanked=True)
    result = list_files.run({"registry": "crates", "package_name": "pick"})
    assert result["target"]["version"] == "1.10.0"
    assert files_of(registry="crates", package_name="pick", version="1.12.0") == ["Cargo.toml", "Cargo.toml.orig",
                                                                                  "src/d.rs"]
    assert files_of(registry="crates", package_name="pick", version="1.11.0-rc.1")[-1] == "src/c.rs"


def test_only_prereleases_make_the_highest_prerelease_latest(crates):
    """With no stable version that is not yanked, latest is the highest non-yanked prerelease."""
    crates.publish("early", "0.1.0", {}, yanked=True)
    crates.publish("early", "0.2.0-alpha.2", {})
    crates.publish("early", "0.2.0-alpha.10", {})
    crates.publish("early", "0.3.0-beta", {}, yanked=True)
    assert list_files.run({"registry": "crates", "package_name": "early"})["target"]["version"] == "0.2.0-alpha.10"


def test_every_version_yanked_is_not_found_unless_pinned(crates):
    """A crate whose versions are all yanked has no latest (NOT_FOUND), but a pin still reads one."""
    crates.publish("gone", "1.0.0", {"src/lib.rs": b""}, yanked=True)
    err = list_error(registry="crates", package_name="gone")
    assert err.code == "NOT_FOUND" and "yanked" in err.message
    assert "src/lib.rs" in files_of(registry="crates", package_name="gone", version="1.0.0")


# SemVer 2.0.0 §11's own example, lowest first, with build metadata and a numeric trap around it.
SEMVER_SPEC_ORDER = ["0.9.0", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
                     "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.2.0", "1.10.0+build.5", "10.0.0"]


def test_available_versions_follow_semver_precedence_newest_first(crates):
    """VERSION_NOT_FOUND lists the non-yanked versions in SemVer order (never string order),
    versions sharing the requested release numbers first."""
    for version in reversed(SEMVER_SPEC_ORDER):  # published out of order: the index order is not used
        crates.publish("order", version, {})
    crates.publish("order", "1.5.0", {}, yanked=True)
    err = list_error(registry="crates", package_name="order", version="3.0.0")
    assert err.code == "VERSION_NOT_FOUND"
    assert err.details["availableVersions"] == list(reversed(SEMVER_SPEC_ORDER))
    assert err.details["latest"] == "10.0.0"
    near = list_error(registry="crates", package_name="order", version="1.0.5").details["availableVersions"]
    assert near[:8] == ["1.0.0", "1.0.0-rc.1", "1.0.0-beta.11", "1.0.0-beta.2", "1.0.0-beta", "1.0.0-alpha.beta",
                        "1.0.0-alpha.1", "1.0.0-alpha"]


def test_names_are_case_insensitive_and_dash_underscore_are_tried_both_ways(crates):
    """`Serde-Json` finds `serde_json` (lower-cased index path, then `-`→`_`); the echo is the index's name."""
    crates.publish("serde_json", "1.0.0", {"src/lib.rs": b""})
    crates.publish("Inflector", "0.11.4", {"src/lib.rs": b""})
    assert list_files.run({"registry": "crates", "package_name": "Serde-Json"})["target"]["name"] == "serde_json"
    target = list_files.run({"registry": "crates", "package_name": "inflector"})["target"]
    assert (target["name"], target["artifact"]) == ("Inflector", "Inflector-0.11.4.crate")
    paths = [s.path for s in crates.server.seen if s.path.startswith("/index/se/")]
    assert paths == ["/index/se/rd/serde-json", "/index/se/rd/serde_json"]


def test_index_entries_of_an_unknown_schema_version_are_skipped(crates):
    """An index line with a `v` cargo does not know is ignored, as cargo ignores it."""
    crates.publish("future", "1.0.0", {})
    crates.publish("future", "2.0.0", {}, v=3)
    crates.publish("future", "0.5.0", {}, v=1)
    assert list_files.run({"registry": "crates", "package_name": "future"})["target"]["version"] == "1.0.0"
    assert list_error(registry="crates", package_name="future", version="2.0.0").details["availableVersions"] == [
        "1.0.0", "0.5.0"]


def test_the_index_file_is_read_gzipped_when_the_server_compresses_it(crates):
    """The index is asked for with gzip and the compressed answer is decoded (the CDN's usual form)."""
    crates.publish("zipped", "1.0.0", {"src/lib.rs": b""})
    assert "src/lib.rs" in files_of(registry="crates", package_name="zipped")
    seen = next(s for s in crates.server.seen if s.path == "/index/zi/pp/zipped")
    assert "gzip" in seen.headers["accept-encoding"] and seen.headers["user-agent"].startswith("codenav")


# --- the artifact: dl template, strip rule, verification ----------------------------------------


def test_dl_template_markers_are_filled_in_as_cargo_documents():
    """{crate} {version} {prefix} {lowerprefix} {sha256-checksum}, or /{crate}/{version}/download appended."""
    url = crates_module.download_url("https://h/{prefix}/{lowerprefix}/{crate}/{version}/{sha256-checksum}",
                                     "CaRgo", "0.1.0", "ab" * 32)
    assert url == f"https://h/Ca/Rg/ca/rg/CaRgo/0.1.0/{'ab' * 32}"
    assert crates_module.download_url("https://h/{prefix}/{crate}", "syn", "1", "") == "https://h/3/s/syn"
    assert crates_module.download_url("https://h/{prefix}/{crate}", "cc", "1", "") == "https://h/2/cc"
    assert crates_module.download_url("https://h/api/v1/crates/", "serde", "1.0.0", "") == \
        "https://h/api/v1/crates/serde/1.0.0/download"


def test_a_dl_without_markers_gets_the_api_path_and_its_redirect_is_followed(crates):
    """With `dl` a plain API base, the download is `{dl}/{crate}/{version}/download`, redirected to the file."""
    crates.dl = crates.server.url + "/api/v1/crates"
    crates.publish("redirected", "1.0.0", {"src/lib.rs": b"x"})
    assert "src/lib.rs" in files_of(registry="crates", package_name="redirected")
    assert [s.path for s in crates.server.seen][-2:] == ["/api/v1/crates/redirected/1.0.0/download",
                                                         "/crates/redirected/redirected-1.0.0.crate"]


def test_exactly_the_name_version_folder_is_stripped_and_anything_else_is_reported(crates):
    """Only what is under `{name}-{version}/` is kept, folder removed; a stray top-level entry is skipped."""
    data = build("tar.gz", [File("strip-1.0.0/src/lib.rs", b"ok"), File("strip-1.0.0/Cargo.toml", b""),
                            File("stray.txt", b"x"), File("strip-1.0.1/src/other.rs", b"y")])
    crates.publish("strip", "1.0.0", crate=data)
    result = list_files.run({"registry": "crates", "package_name": "strip"})
    assert [f["path"] for f in result["files"]] == ["Cargo.toml", "src/lib.rs"]
    assert result["skipped"]["count"] == 2
    assert {s["path"] for s in result["skipped"]["examples"]} == {"stray.txt", "strip-1.0.1/src/other.rs"}


@pytest.mark.parametrize("cksum", ["", "not-hex" * 9, "ab" * 31])
def test_an_index_line_without_a_usable_cksum_is_refused(crates, cksum):
    """No sha256 in the index means INTEGRITY_ERROR before anything is downloaded."""
    crates.publish("nosum", "1.0.0", {})
    crates.crates["nosum"][0].cksum = cksum
    assert list_error(registry="crates", package_name="nosum").code == "INTEGRITY_ERROR"
    assert crates.crate_hits == 0


def test_an_index_without_config_json_is_a_protocol_error(crates):
    """A URL that serves index files but no config.json is not a sparse index: PROTOCOL_ERROR, says so."""
    crates.publish("noconf", "1.0.0", {})
    crates.server.route("GET", "/index/config.json", lambda h: Reply(404, b"Not Found", {"Content-Type": "text/plain"}))
    err = list_error(registry="crates", package_name="noconf")
    assert err.code == "PROTOCOL_ERROR" and "config.json" in err.message


# --- endpoint discovery ---------------------------------------------------------------------------


def _cargo_config(directory: Path, text: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.toml").write_text(text)


def _replacement(url: str, name: str = "mirror") -> str:
    return f'[source.crates-io]\nreplace-with = "{name}"\n\n[source.{name}]\nregistry = "{url}"\n'


def test_with_nothing_configured_the_public_sparse_index_is_used():
    """No variable and no Cargo configuration: the public sparse index, the one default in crates.py."""
    assert crates_module.endpoint() == crates_module.DEFAULT_INDEX


@pytest.mark.parametrize("value", ["sparse+http://127.0.0.1:1/idx/", "http://127.0.0.1:1/idx", "'sparse+http://127.0.0.1:1/idx'"])
def test_codenav_variable_accepts_the_sparse_form_and_a_plain_url(monkeypatch, value):
    """CODENAV_CRATES_INDEX may be written as Cargo writes it (`sparse+…`) or as a plain URL."""
    monkeypatch.setenv("CODENAV_CRATES_INDEX", value)
    assert crates_module.endpoint() == "http://127.0.0.1:1/idx/"


def test_cargo_source_replacement_is_used_and_codenav_variable_beats_it(monkeypatch, tmp_path):
    """Cargo's `[source.crates-io] replace-with` in ~/.cargo is read; CODENAV_CRATES_INDEX wins over it."""
    _cargo_config(tmp_path / "home" / ".cargo", _replacement("sparse+https://mirror.example/index/"))
    assert crates_module.endpoint() == "https://mirror.example/index/"
    monkeypatch.setenv("CODENAV_CRATES_INDEX", "https://mine.example/")
    assert crates_module.endpoint() == "https://mine.example/"


def test_the_nearest_cargo_config_wins_and_cargo_home_is_honoured(monkeypatch, tmp_path):
    """A project's .cargo/config.toml beats $CARGO_HOME's, as in cargo; a chain of replacements is followed."""
    home = tmp_path / "cargo-home"
    monkeypatch.setenv("CARGO_HOME", str(home))
    _cargo_config(home, _replacement("sparse+https://home.example/"))
    assert crates_module.endpoint() == "https://home.example/"
    _cargo_config(tmp_path / "work" / ".cargo", '[source.crates-io]\nreplace-with = "a"\n[source.a]\n'
                  'replace-with = "b"\n[registries.b]\nindex = "sparse+https://project.example/"\n')
    assert crates_module.endpoint() == "https://project.example/"


@pytest.mark.parametrize("text,fragment", [
    (_replacement("registry+https://git.example/index"), "not a sparse index"),
    ('[source.crates-io]\nreplace-with = "vendored"\n[source.vendored]\ndirectory = "vendor"\n', "directory source"),
    ('[source.crates-io]\nreplace-with = "nowhere"\n', "not defined"),
    ('[source.crates-io]\nreplace-with = "a"\n[source.a]\nreplace-with = "crates-io"\n', "circle"),
    ("[source.crates-io\n", "not valid TOML"),
])
def test_a_replacement_codenav_cannot_read_is_a_config_error_naming_the_variable(tmp_path, text, fragment):
    """A git index, a vendored directory, an undefined or circular replacement: CONFIG_ERROR, never a guess."""
    _cargo_config(tmp_path / "home" / ".cargo", text)
    with pytest.raises(CodenavError) as info:
        crates_module.endpoint()
    assert info.value.code == "CONFIG_ERROR"
    assert fragment in info.value.message and "CODENAV_CRATES_INDEX" in info.value.message


def test_cargo_config_replacement_reaches_the_fake_end_to_end(tmp_path):
    """With only ~/.cargo/config.toml naming the fake, the CLI reads the crate from it."""
    with FakeServer() as server:
        fake = FakeCrates(server)
        fake.publish("viaconfig", "0.1.0", {"src/lib.rs": b"fn main() {}\n"})
        _cargo_config(tmp_path / "home" / ".cargo", _replacement("sparse+" + fake.url))
        proc = run_cli("read", "crates:viaconfig", "src/lib.rs")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"fn main() {}\n", b"")


# --- cargo as the oracle --------------------------------------------------------------------------


@pytest.mark.parametrize("dl", ["template", "api-base"])
def test_cargo_resolves_downloads_and_unpacks_what_codenav_reads(tmp_path, dl):
    """cargo, pointed at the fake through the same ~/.cargo/config.toml, picks the same latest
    version (yanked and prerelease skipped, SemVer order), accepts the fake's checksums and dl
    (a marker template, or an API base whose download redirects), and unpacks exactly the files
    codenav lists."""
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed")
    with FakeServer() as server:
        fake = FakeCrates(server)
        if dl == "api-base":
            fake.dl = server.url + "/api/v1/crates"
        for version, yanked in (("1.9.0", False), ("1.10.0", False), ("1.11.0-rc.1", False), ("1.12.0", True)):
            fake.publish("oracle-crate", version, {"src/lib.rs": f"// {version}\n".encode(),
                                                   "examples/demo.rs": b"fn main() {}\n"}, yanked=yanked)
        home = tmp_path / "home"
        _cargo_config(home / ".cargo", _replacement("sparse+" + fake.url))
        project = tmp_path / "work" / "proj"
        (project / "src").mkdir(parents=True)
        (project / "src" / "lib.rs").write_text("")
        (project / "Cargo.toml").write_text('[package]\nname = "proj"\nversion = "0.1.0"\nedition = "2021"\n\n'
                                            '[dependencies]\noracle-crate = "*"\n')
        env = {k: v for k, v in os.environ.items() if not k.startswith("CARGO_")}
        env.update({"HOME": str(home), "CARGO_NET_OFFLINE": "false", "CARGO_TERM_COLOR": "never"})
        if ORIGINAL_ENV.get("RUSTUP_HOME") or Path(ORIGINAL_ENV.get("HOME", "/"), ".rustup").is_dir():
            env["RUSTUP_HOME"] = ORIGINAL_ENV.get("RUSTUP_HOME") or str(Path(ORIGINAL_ENV["HOME"], ".rustup"))
        try:
            done = subprocess.run(["cargo", "fetch"], cwd=project, env=env, capture_output=True, text=True,
                                  timeout=120, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            pytest.skip(f"cargo could not run here: {exc}")
        if done.returncode != 0:
            pytest.skip(f"cargo could not use the fake registry: {done.stderr.strip()[-300:]}")
        lock = (project / "Cargo.lock").read_text()
        proc = run_cli("files", "crates:oracle-crate", "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert f'name = "oracle-crate"\nversion = "{result["target"]["version"]}"' in lock
    assert result["target"]["version"] == "1.10.0"
    (unpacked,) = (home / ".cargo" / "registry" / "src").glob("*/oracle-crate-1.10.0")
    cargo_files = sorted(p.relative_to(unpacked).as_posix() for p in unpacked.rglob("*")
                         if p.is_file() and p.name != ".cargo-ok")  # cargo's own marker file
    assert [f["path"] for f in result["files"]] == cargo_files
    if dl == "api-base":
        assert "/api/v1/crates/oracle-crate/1.10.0/download" in [s.path for s in server.seen]
