"""NuGet, what is peculiar to it: ids, SemVer 2 order, NuGet.Config sources, registration ->
catalog leaf -> .nupkg, OPC entries and %-escaped names, against a fake v3 feed on 127.0.0.1
(reference §5). What every registry owes is tests/support/registries.py's shared suites."""

from __future__ import annotations

import io
import random
import zipfile
from pathlib import Path

import pytest

from codenav import archive
from codenav.errors import CodenavError
from codenav.registries import nuget
from codenav.tools import list_files, read_file
from tests.fakes.http import Reply
from tests.support.cache import assert_nothing_cached
from tests.support.calls import list_error, target_maker
from tests.support.registries import fake_fixture

feed = fake_fixture("nuget")
JSON_ID = "Newtonsoft.Json"
SOURCE = b"namespace Newtonsoft.Json { public static class JsonConvert { } }\n"


target = target_maker("nuget", JSON_ID, "13.0.3")


# --- versions and names -------------------------------------------------------------------------

# Ascending by NuGet's SemVer 2 precedence.
ORDERED = ["0.9.0", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-BETA", "1.0.0-beta.2",
           "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.0.1", "1.0.1-preview", "1.0.1", "1.2.0", "1.10.0",
           "13.0.1", "13.0.3"]


def test_nuget_orders_versions_by_semver2_precedence():
    """Numbers as numbers, a release above its prereleases, labels part by part (numeric below
    alphanumeric, case-insensitive), a fourth part above none."""
    shuffled = ORDERED[:]
    random.Random(5).shuffle(shuffled)
    assert sorted(shuffled, key=nuget.version_key) == ORDERED
    assert nuget.version_key("1.0.0-Beta") == nuget.version_key("1.0.0-beta")
    assert nuget.version_key("1.0.0+build.5") == nuget.version_key("1.0.0") == nuget.version_key("1.0.0.0")


@pytest.mark.parametrize(("given", "normal"), [("1.01.1", "1.1.1"), ("1.0.0.0", "1.0.0"), ("1.0.0.4", "1.0.0.4"),
                                              ("2.0.0-Beta.1+sha.abc", "2.0.0-beta.1"), ("1.0", "1.0.0")])
def test_versions_are_normalized_as_the_flat_container_names_them(given, normal):
    """Leading zeros and a zero fourth part are dropped, build metadata removed, lower case."""
    assert nuget.normalized(given) == normal


def test_an_id_holding_an_at_sign_is_an_invalid_argument():
    """`@` is in no id (the shared suite's names reach the CLI too, where it would start a version)."""
    name = "Newtonsoft.Json@13"
    error = list_error(target(name=name))
    assert (error.code, error.details.get("field")) == ("INVALID_ARGUMENT", "package_name")


# --- resolve ------------------------------------------------------------------------------------

def test_the_nupkg_is_listed_as_it_is_with_opc_entries_and_decoded_names(feed):
    """The .nupkg's OPC entries are listed as they are, %-escaped names decoded, nothing stripped; the
    echo is the id as published and the packageHash is what was checked."""
    feed.publish(JSON_ID, "13.0.3", {"lib/net6.0/Newtonsoft.Json.xml": b"<doc/>", "src/My File+1@x.cs": SOURCE})
    result = list_files.run(target(name="newtonsoft.JSON"))
    assert {k: v for k, v in result["target"].items() if k != "versionSource"} == {
        "registry": "nuget", "name": JSON_ID, "version": "13.0.3", "artifact": "newtonsoft.json.13.0.3.nupkg",
        "verified": True, "verification": "sha512 of the downloaded file matches the catalog's packageHash "
                                          "(base64 SHA-512, trusted over TLS)"}
    assert [f["path"] for f in result["files"]] == [
        ".signature.p7s", "Newtonsoft.Json.nuspec", "[Content_Types].xml", "_rels/.rels", "lib/net6.0/Newtonsoft.Json.xml",
        "package/services/metadata/core-properties/0123abcd.psmdcp", "src/My File+1@x.cs"]
    raw = zipfile.ZipFile(io.BytesIO(feed.packages["newtonsoft.json"][0].data)).namelist()
    assert "src/My%20File%2B1%40x.cs" in raw  # the archive holds the escaped form
    assert read_file.run({**target(), "path": "src/My File+1@x.cs"})["content"] == SOURCE.decode()
    seen = [s.path for s in feed.server.seen]
    assert seen[:3] == ["/v3/index.json", "/v3/registration5-gz-semver2/newtonsoft.json/index.json",
                        "/v3/catalog0/data/2026.08.01.12.00.00/newtonsoft.json.13.0.3.json"]
    assert seen[3] == "/v3-flatcontainer/newtonsoft.json/13.0.3/newtonsoft.json.13.0.3.nupkg"


def test_a_paged_registration_is_read_page_by_page(feed):
    """A registration whose pages are not inlined is followed through each page's @id."""
    for version in ("12.0.1", "13.0.1", "13.0.3"):
        feed.publish(JSON_ID, version)
    feed.paged.add("newtonsoft.json")
    assert list_files.run(target(None))["target"]["version"] == "13.0.3"
    assert any("/page/" in s.path for s in feed.server.seen)


def test_latest_is_the_highest_listed_release_and_unlisted_only_when_pinned(feed):
    """An unlisted higher version and a prerelease are passed over for latest; pinning the unlisted one
    reads it and the verification says it is unlisted."""
    feed.publish(JSON_ID, "13.0.1")
    feed.publish(JSON_ID, "13.0.2", listed=False)
    feed.publish(JSON_ID, "14.0.0-beta1")
    assert list_files.run(target(None))["target"]["version"] == "13.0.1"
    pinned = list_files.run(target("13.0.2"))["target"]
    assert pinned["version"] == "13.0.2" and pinned["verification"].endswith(
        "; this version is unlisted, used because it was pinned")


def test_only_prereleases_make_the_highest_listed_prerelease_latest(feed):
    """With no listed release, latest is the highest listed prerelease."""
    feed.publish("Preview.Only", "1.0.0-beta.2")
    feed.publish("Preview.Only", "1.0.0-beta.11")
    assert list_files.run(target(None, "Preview.Only"))["target"]["version"] == "1.0.0-beta.11"


def test_a_pinned_version_matches_its_normalized_form(feed):
    """`13.0.03` and `13.0.3.0` name the published 13.0.3."""
    feed.publish(JSON_ID, "13.0.3")
    assert list_files.run(target("13.0.3.0"))["target"]["version"] == "13.0.3"


def test_an_unknown_version_lists_listed_versions_in_semver2_order(feed):
    """VERSION_NOT_FOUND lists listed versions nearest first, newest first by SemVer 2, and latest."""
    for version in ("9.0.1", "13.0.1", "13.0.10", "13.0.2", "12.0.3"):
        feed.publish(JSON_ID, version)
    feed.publish(JSON_ID, "13.0.9", listed=False)
    error = list_error(target("13.0.99"))
    assert error.code == "VERSION_NOT_FOUND"
    assert error.details["availableVersions"] == ["13.0.10", "13.0.2", "13.0.1", "12.0.3", "9.0.1"]
    assert error.details["latest"] == "13.0.10"


@pytest.mark.parametrize("body", [b'{"resources": [', b"<html>Sign in</html>", b'{"version": "3.0.0"}',
                                  b'{"resources": [{"@id": "x", "@type": "SearchQueryService"}]}'])
def test_an_unreadable_service_index_is_a_protocol_error(feed, body):
    """A service index that is not JSON, has no resources, or lacks the two needed is PROTOCOL_ERROR."""
    feed.server.route("GET", "/v3/index.json", lambda h: Reply(200, body, {"Content-Type": "application/json"}))
    assert list_error(target()).code == "PROTOCOL_ERROR"


def test_a_garbled_gzip_registration_is_a_protocol_error(feed):
    """A registration declared gzip whose bytes are not is PROTOCOL_ERROR."""
    feed.publish(JSON_ID, "13.0.3")
    feed.server.route("GET", "/v3/registration5-gz-semver2/newtonsoft.json/index.json", lambda h: Reply(
        200, b"\x1f\x8b\x08 not gzip", {"Content-Type": "application/json", "Content-Encoding": "gzip"}))
    assert list_error(target()).code == "PROTOCOL_ERROR"


def test_a_catalog_leaf_without_a_sha512_hash_is_refused(feed):
    """A catalog leaf whose packageHash is no base64 SHA-512 is never trusted."""
    feed.publish(JSON_ID, "13.0.3")
    feed.packages["newtonsoft.json"][0].package_hash = "bm90IGEgaGFzaA=="
    assert list_error(target()).code == "PROTOCOL_ERROR"


@pytest.mark.hardening
def test_a_catalog_leaf_with_another_algorithm_is_refused(feed, tmp_path):
    """A packageHashAlgorithm other than SHA512 is never trusted: INTEGRITY_ERROR, nothing cached."""
    feed.publish(JSON_ID, "13.0.3")
    leaf = "/v3/catalog0/data/2026.08.01.12.00.00/newtonsoft.json.13.0.3.json"
    feed.server.route("GET", leaf, lambda h: Reply.json({"packageHash": "AAAA", "packageHashAlgorithm": "MD5"}))
    assert list_error(target()).code == "INTEGRITY_ERROR"
    assert_nothing_cached(tmp_path / "cache")


# --- %-escaped names: the archive capability ----------------------------------------------------

def _zip(names: list[str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name in names:
            zf.writestr(name, b"x")
    return buf.getvalue()


def _extract(tmp_path: Path, names: list[str], percent: bool = True):
    path = tmp_path / f"p{percent}.nupkg"
    path.write_bytes(_zip(names))
    tree = tmp_path / f"tree{percent}"
    tree.mkdir()
    return archive.extract(path, tree, fmt="zip", percent_names=percent)


def test_percent_escaped_names_are_decoded_only_when_asked(tmp_path):
    """`%20`, `%2B`, `%40` decode for a nupkg; a plain zip keeps them as written."""
    got = _extract(tmp_path, ["a%20b%2Bc%40d.cs", "[Content_Types].xml"])
    assert [f.path for f in got.files] == ["[Content_Types].xml", "a b+c@d.cs"]
    plain = _extract(tmp_path, ["a%20b.cs"], percent=False)
    assert [f.path for f in plain.files] == ["a%20b.cs"]


def test_an_escaped_slash_never_becomes_a_separator(tmp_path):
    """`..%2Fevil` is skipped and reported, not split into `../evil`; the rest is kept."""
    got = _extract(tmp_path, ["..%2F..%2Fevil.txt", "ok.txt"])
    assert [f.path for f in got.files] == ["ok.txt"]
    assert got.skipped == [{"path": "..%2F..%2Fevil.txt", "reason":
                            "the name holds an escaped '/' (%2F), which would become a path separator"}]


def test_an_escaped_dot_dot_refuses_the_archive(tmp_path):
    """`%2E%2E/evil` decodes to a `..` segment: UNSAFE_ARCHIVE, as a literal one is."""
    with pytest.raises(CodenavError) as info:
        _extract(tmp_path, ["%2E%2E/evil.txt"])
    assert info.value.code == "UNSAFE_ARCHIVE" and "'..' path segment" in info.value.message


def test_escaped_control_characters_and_backslashes_are_skipped(tmp_path):
    """`%0A`, `%00` and `%5C` decode into names the policy refuses to write."""
    got = _extract(tmp_path, ["a%0Ab.cs", "a%00b.cs", "a%5Cb.cs", "ok.cs"])
    assert [f.path for f in got.files] == ["ok.cs"]
    assert sorted(s["reason"] for s in got.skipped) == [
        "the name holds a NUL byte", "the name holds a backslash (a path separator on Windows)",
        "the name holds control characters"]


# --- the endpoint -------------------------------------------------------------------------------

CONFIG = """<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    {sources}
  </packageSources>
  {extra}
</configuration>
"""


def _config(directory: Path, sources: str, extra: str = "", name: str = "NuGet.Config") -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(CONFIG.format(sources=sources, extra=extra), encoding="utf-8-sig")


def test_codenavs_variable_beats_nuget_config_which_beats_the_default(isolated_env, monkeypatch):
    """CODENAV_NUGET_SOURCE (a service index or a base URL), then the user's NuGet.Config, then the public feed."""
    monkeypatch.chdir(isolated_env)
    assert nuget.endpoint() == nuget.DEFAULT_SOURCE
    _config(isolated_env / "home" / ".nuget" / "NuGet",
            '<add key="mirror" value="https://mirror.example/v3/index.json" protocolVersion="3" />')
    assert nuget.endpoint() == "https://mirror.example/v3/index.json"
    monkeypatch.setenv("CODENAV_NUGET_SOURCE", "https://other.example/nuget/v3")
    assert nuget.endpoint() == "https://other.example/nuget/v3/index.json"
    monkeypatch.setenv("CODENAV_NUGET_SOURCE", "https://other.example/feed.json")
    assert nuget.endpoint() == "https://other.example/feed.json"


def test_the_project_config_beats_the_users_and_clear_drops_inherited_sources(isolated_env, monkeypatch):
    """A NuGet.Config in the working directory (or a parent) comes first; <clear/> there drops the
    user's sources; a disabled source and a v2 feed are passed over."""
    project = isolated_env / "work" / "app"
    project.mkdir(parents=True)
    monkeypatch.chdir(project)
    _config(isolated_env / "home" / ".nuget" / "NuGet", '<add key="user" value="https://user.example/v3/index.json" />')
    _config(isolated_env / "work", '<add key="off" value="https://off.example/v3/index.json" />'
                                   '<add key="v2" value="https://v2.example/api/v2" />'
                                   '<add key="team" value="https://team.example/v3/index.json" />',
            extra='<disabledPackageSources><add key="off" value="true" /></disabledPackageSources>',
            name="nuget.config")
    assert nuget.endpoint() == "https://team.example/v3/index.json"
    _config(project, '<clear /><add key="local" value="https://local.example/index.json" />')
    assert nuget.endpoint() == "https://local.example/index.json"
    _config(project, "<clear />")
    assert nuget.endpoint() == nuget.DEFAULT_SOURCE


def test_a_nuget_config_with_a_dtd_is_ignored(isolated_env, monkeypatch):
    """A config declaring an entity is refused, not parsed: the default remains."""
    monkeypatch.chdir(isolated_env)
    directory = isolated_env / "home" / ".nuget" / "NuGet"
    directory.mkdir(parents=True)
    (directory / "NuGet.Config").write_text('<!DOCTYPE c [<!ENTITY u "https://evil/index.json">]><configuration>'
                                            '<packageSources><add key="e" value="&u;"/></packageSources></configuration>')
    assert nuget.endpoint() == nuget.DEFAULT_SOURCE
