"""rubygems, what is peculiar to it: the compact index, the .gem's inner data.tar.gz, the
index's sha256, platforms, Gem::Version order and endpoint discovery, against the fake source.
What every registry owes is tests/support/registries.py's shared suites."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pytest

from codenav.registries import rubygems as rubygems_module
from codenav.tools import list_files
from tests.fakes.http import FakeServer, Reply
from tests.fakes.rubygems import FakeRubygems, make_gem
from tests.support.archives import File, build
from tests.support.cache import assert_nothing_cached
from tests.support.calls import files_of, list_error
from tests.support.cli import run_cli
from tests.support.registries import fake_fixture

gems = fake_fixture("rubygems")


# --- versions and platforms -----------------------------------------------------------------------

# Gem::Version's documented order, lowest first: letters make a prerelease, a number beats letters,
# missing segments are zeros, and numbers compare as numbers.
GEM_ORDER = ["0.9", "1.0.a.1", "1.0.a.2", "1.0.a9", "1.0.a10", "1.0.b1", "1.0.0.pre.rc1", "1.0", "1.0.1", "1.9",
             "1.10", "2.0.0.beta", "2"]


def test_available_versions_follow_gem_version_order_newest_first(gems):
    """VERSION_NOT_FOUND lists the index's versions by Gem::Version, never string order."""
    for version in reversed(GEM_ORDER):
        gems.publish("order", version, {})
    err = list_error(registry="rubygems", package_name="order", version="3.0")
    assert err.code == "VERSION_NOT_FOUND" and "yanked" in err.message
    assert err.details["availableVersions"] == list(reversed(GEM_ORDER))
    assert err.details["latest"] == "2"


def test_latest_is_the_highest_version_without_a_letter(gems):
    """A version with a letter is a prerelease: latest skips it (`7.2.0.beta1` < `7.1.3.2`)."""
    for version in ("7.1.3.2", "7.2.0.beta1", "7.1.10"):
        gems.publish("rails", version, {"README.md": version.encode()})
    assert list_files.run({"registry": "rubygems", "package_name": "rails"})["target"]["version"] == "7.1.10"
    assert files_of(registry="rubygems", package_name="rails", version="7.2.0.beta1") == ["README.md"]


def test_a_pin_matches_by_gem_version_equality_and_echoes_the_published_spelling(gems):
    """`1.2` names the published `1.2.0` (Gem::Version says they are equal); the echo is `1.2.0`."""
    gems.publish("eq", "1.2.0", {"lib/eq.rb": b""})
    assert list_files.run({"registry": "rubygems", "package_name": "eq", "version": "1.2"})["target"]["version"] == \
        "1.2.0"


def test_the_ruby_platform_gem_is_preferred_over_native_ones(gems):
    """When a version has a `ruby` gem and native ones, the pure-source gem is read."""
    gems.publish("nokogiri", "1.16.0", {"ext/native.c": b""}, platform="x86_64-linux")
    gems.publish("nokogiri", "1.16.0", {"lib/nokogiri.rb": b""})
    gems.publish("nokogiri", "1.16.0", {"lib/java.rb": b""}, platform="java")
    result = list_files.run({"registry": "rubygems", "package_name": "nokogiri"})
    assert result["target"]["artifact"] == "nokogiri-1.16.0.gem"
    assert [f["path"] for f in result["files"]] == ["lib/nokogiri.rb"]


def test_without_a_ruby_gem_this_machines_platform_is_read_and_echoed(gems):
    """Only native gems: the one for this machine's platform, named in target.artifact."""
    mine = rubygems_module.local_platforms()[-1]
    for platform in ("java", mine, "zz-other"):
        gems.publish("native", "2.0.0", {f"lib/{platform}.rb": b""}, platform=platform)
    result = list_files.run({"registry": "rubygems", "package_name": "native"})
    assert result["target"]["artifact"] == f"native-2.0.0-{mine}.gem"
    assert [f["path"] for f in result["files"]] == [f"lib/{mine}.rb"]


def test_with_no_gem_for_this_machine_the_first_platform_by_name_is_read(gems):
    """Only foreign native gems: a fixed choice (the first platform name), echoed."""
    for platform in ("zz-other", "java"):
        gems.publish("foreign", "1.0.0", {f"lib/{platform}.rb": b""}, platform=platform)
    assert list_files.run({"registry": "rubygems", "package_name": "foreign"})["target"]["artifact"] == \
        "foreign-1.0.0-java.gem"


def test_names_are_case_sensitive(gems):
    """`RedCloth` is not `redcloth`: the name goes to the index as given."""
    gems.publish("RedCloth", "4.3.2", {"lib/redcloth.rb": b""})
    assert files_of(registry="rubygems", package_name="RedCloth") == ["lib/redcloth.rb"]
    assert list_error(registry="rubygems", package_name="redcloth").code == "NOT_FOUND"


# --- the artifact ---------------------------------------------------------------------------------


def test_only_data_tar_gz_is_unpacked_and_nothing_is_stripped(gems):
    """metadata.gz and checksums.yaml.gz are not listed; a gem whose only folder is lib/ keeps it."""
    gems.publish("onlylib", "1.0.0", {"lib/onlylib.rb": b"x", "lib/onlylib/version.rb": b"y"})
    assert files_of(registry="rubygems", package_name="onlylib") == ["lib/onlylib.rb", "lib/onlylib/version.rb"]


def test_a_gem_without_data_tar_gz_is_an_unsafe_archive(gems, tmp_path):
    """An old-format gem, or any tar without data.tar.gz, is refused and nothing is cached."""
    gems.publish("oldformat", "0.1.0", gem=build("tar", [File("metadata.gz", b"x"), File("data.tgz", b"y")]))
    err = list_error(registry="rubygems", package_name="oldformat")
    assert err.code == "UNSAFE_ARCHIVE" and "data.tar.gz" in err.message
    assert_nothing_cached(tmp_path / "cache")


def test_a_line_without_a_checksum_is_refused_before_downloading(gems):
    """No `checksum:` requirement means INTEGRITY_ERROR, and the gem is never fetched."""
    gems.publish("nosum", "1.0.0", {})
    gems.server.route("GET", "/info/nosum", lambda h: Reply(200, b"---\n1.0.0 |ruby:>= 2.7\n",
                                                             {"Content-Type": "text/plain"}))
    assert list_error(registry="rubygems", package_name="nosum").code == "INTEGRITY_ERROR"
    assert gems.gem_hits == 0


def test_the_compact_index_is_read_gzipped_and_its_header_lines_ignored(gems):
    """Lines before `---` are opaque, and a gzipped answer is decoded."""
    data = gems.publish("hdr", "1.0.0", {"lib/h.rb": b""})
    body = f"created_at: 2024-01-01T00:00:00Z\n---\n1.0.0 |checksum:{hashlib.sha256(data).hexdigest()}\n".encode()
    gems.server.route("GET", "/info/hdr", lambda h: Reply(200, gzip.compress(body), {
        "Content-Type": "text/plain", "Content-Encoding": "gzip"}))
    assert files_of(registry="rubygems", package_name="hdr") == ["lib/h.rb"]


def test_the_fake_gem_is_a_plain_ustar_tar(tmp_path):
    """The fixture is shaped as `gem build` writes it: an uncompressed tar of three members."""
    import tarfile

    path = tmp_path / "x.gem"
    path.write_bytes(make_gem("x", "1.0.0", {"lib/x.rb": b""}))
    with tarfile.open(path, "r:") as tar:
        assert tar.getnames() == ["metadata.gz", "data.tar.gz", "checksums.yaml.gz"]


# --- endpoint discovery ---------------------------------------------------------------------------


def test_with_nothing_configured_the_public_source_is_used(tmp_path):
    """No variable and no gemrc: the public source, the one default in rubygems.py."""
    if Path("/etc/gemrc").exists():
        pytest.skip("this machine has a system gemrc")
    assert rubygems_module.endpoint() == rubygems_module.DEFAULT_SOURCE


@pytest.mark.parametrize("text", [
    "---\n:backtrace: false\n:sources:\n- https://mirror.example/gems/\n- https://second.example/\n:verbose: true\n",
    ":sources: [https://mirror.example/gems/, https://second.example/]\n",
    "---\n:sources:\n  - 'https://mirror.example/gems'\n",
])
def test_gemrc_sources_are_read_and_codenav_variable_beats_them(tmp_path, monkeypatch, text):
    """The first of ~/.gemrc's :sources: is the source; CODENAV_RUBYGEMS_SOURCE wins over it."""
    (tmp_path / "home" / ".gemrc").write_text(text)
    assert rubygems_module.endpoint() == "https://mirror.example/gems/"
    monkeypatch.setenv("CODENAV_RUBYGEMS_SOURCE", "https://mine.example")
    assert rubygems_module.endpoint() == "https://mine.example/"


def test_the_gemrc_variable_names_the_file_that_wins(tmp_path, monkeypatch):
    """A file in $GEMRC is read after ~/.gemrc and wins, as gem's own order has it."""
    (tmp_path / "home" / ".gemrc").write_text(":sources:\n- https://home.example/\n")
    other = tmp_path / "other.gemrc"
    other.write_text(":sources:\n- https://gemrc-var.example/\n")
    monkeypatch.setenv("GEMRC", str(other))
    assert rubygems_module.endpoint() == "https://gemrc-var.example/"


def test_gemrc_source_reaches_the_fake_end_to_end(tmp_path):
    """With only ~/.gemrc naming the fake, the CLI reads the gem from it."""
    with FakeServer() as server:
        fake = FakeRubygems(server)
        fake.publish("viarc", "0.1.0", {"lib/viarc.rb": b"puts 1\n"})
        (tmp_path / "home" / ".gemrc").write_text(f"---\n:sources:\n- {fake.url}\n")
        proc = run_cli("read", "rubygems:viarc", "lib/viarc.rb")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"puts 1\n", b"")
