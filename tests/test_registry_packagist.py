"""Packagist, what is peculiar to it: names, Composer's normalised versions, minified p2 metadata,
the GitHub zipball hop, mirrors, the missing shasum, Composer config, against a fake repository
on 127.0.0.1 (reference §7). What every registry owes is tests/support/registries.py's suites."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from codenav.registries import packagist
from codenav.tools import list_files, read_file
from tests.fakes.http import Reply
from tests.fakes.packagist import minify
from tests.support.calls import list_error, target_maker
from tests.support.registries import fake_fixture

repo = fake_fixture("packagist")
MONOLOG = "monolog/monolog"
LOGGER = b"<?php\n\nnamespace Monolog;\n\nclass Logger implements LoggerInterface\n{\n}\n"
FILES = {"composer.json": b'{"name": "monolog/monolog"}\n', "src/Monolog/Logger.php": LOGGER}


target = target_maker("packagist", MONOLOG, "3.7.0")


# --- names and versions -------------------------------------------------------------------------

ORDERED = ["1.0.0-dev", "1.0.0-alpha1", "1.0.0-alpha2", "1.0.0-beta1", "1.0.0-RC1", "1.0.0-RC2", "1.0.0",
           "v1.0.1", "1.0.1-patch1", "1.2.0", "v1.10.0", "2.0.0.1", "3.7.0"]


def test_composer_orders_by_normalised_version_and_stability():
    """dev < alpha < beta < RC < stable < patch within one number; a `v` changes nothing."""
    shuffled = ORDERED[:]
    random.Random(9).shuffle(shuffled)
    assert sorted(shuffled, key=packagist.version_key) == ORDERED


@pytest.mark.parametrize(("given", "normal"), [("v3.7.0", "3.7.0.0"), ("3.7", "3.7.0.0"), ("1.0-beta.2", "1.0.0.0-beta2"),
                                              ("2.0.0-rc1", "2.0.0.0-RC1"), ("1.0.0-a1", "1.0.0.0-alpha1"),
                                              ("dev-main", None)])
def test_versions_normalise_as_composer_does(given, normal):
    """A leading v is dropped, numbers padded to four, modifiers spelled out; a branch is no release."""
    assert packagist.normalized(given) == normal


def test_names_are_lower_case_and_the_composer_alias_is_accepted():
    """`composer:` parses to packagist and the name is lower-cased, as Composer's names are."""
    from codenav import targets

    assert targets.parse_spec("composer:Monolog/Monolog@3.7.0")["registry"] == "packagist"
    assert packagist.normalize_name("Monolog/Monolog") == MONOLOG


def test_expand_undoes_the_minifier():
    """Each minified entry overwrites the previous expanded one's top-level keys; `__unset` deletes."""
    full = [{"version": "2.0", "require": {"php": ">=8"}, "extra": {"a": 1}},
            {"version": "1.1", "require": {"php": ">=7"}, "extra": {"a": 1}},
            {"version": "1.0", "require": {"php": ">=7"}}]
    assert minify(full)[2] == {"version": "1.0", "extra": "__unset"}
    assert packagist.expand(minify(full)) == full


# --- resolve ------------------------------------------------------------------------------------

def test_a_pin_finds_the_v_tag_and_the_echo_is_the_version_as_published(repo):
    """`3.7.0` finds the tag `v3.7.0` through the normalised version; the zip's top folder is
    stripped; nothing is verified and the target says why, naming the git reference."""
    repo.publish(MONOLOG, "v3.7.0", FILES)
    result = list_files.run(target())
    sha = repo.releases[MONOLOG][0]["dist"]["reference"]
    assert {k: v for k, v in result["target"].items() if k != "versionSource"} == {
        "registry": "packagist", "name": MONOLOG, "version": "v3.7.0", "artifact": f"monolog-monolog-v3.7.0-{sha[:12]}.zip",
        "verified": False,
        "verification": "not verified: the repository publishes no dist.shasum for this zip (GitHub makes its "
                        f"zipballs on the fly); it is the archive of git reference {sha}"}
    assert [f["path"] for f in result["files"]] == ["composer.json", "src/Monolog/Logger.php"]
    seen = [s.path for s in repo.server.seen]
    assert seen[:3] == ["/packages.json", "/p2/monolog/monolog.json", f"/repos/Seldaek/monolog/zipball/{sha}"]
    assert seen[3] == f"/codeload/Seldaek/monolog/legacy.zip/{sha}"  # the 302 was followed
    assert read_file.run({**target(), "path": "src/Monolog/Logger.php"})["content"] == LOGGER.decode()


def test_a_non_empty_shasum_is_checked(repo):
    """A dist with a sha1 shasum is verified against it, and a changed byte is INTEGRITY_ERROR."""
    data = repo.publish(MONOLOG, "3.7.0", FILES, shasum=True)
    echo = list_files.run(target())["target"]
    assert (echo["verified"], echo["verification"]) == (
        True, "sha1 of the downloaded file matches the repository's dist.shasum")
    repo.publish("acme/tampered", "1.0.0", FILES, shasum=True)
    sha = repo.releases["acme/tampered"][0]["dist"]["reference"]
    repo.zips[sha] = data[:50] + bytes([data[50] ^ 1]) + data[51:]
    repo.releases["acme/tampered"][0]["dist"]["shasum"] = hashlib.sha1(data).hexdigest()
    assert list_error(target("1.0.0", "acme/tampered")).code == "INTEGRITY_ERROR"


def test_a_preferred_mirror_dist_url_is_used(repo):
    """packages.json's preferred mirrors[].dist-url replaces dist.url (%package%, %reference%, %type%)."""
    repo.mirror = True
    repo.publish(MONOLOG, "3.7.0", FILES)
    sha = repo.releases[MONOLOG][0]["dist"]["reference"]
    list_files.run(target())
    assert f"/dists/monolog/monolog/{sha}.zip" in [s.path for s in repo.server.seen]
    assert not any(s.path.startswith("/repos/") for s in repo.server.seen)


def test_latest_is_the_highest_stable_and_metadata_may_be_unminified(repo):
    """Prereleases are passed over for latest; a repository serving expanded entries works too."""
    for version in ("2.9.3", "3.6.0", "v3.7.0", "4.0.0-RC1"):
        repo.publish(MONOLOG, version, FILES)
    assert list_files.run(target(None))["target"]["version"] == "v3.7.0"
    repo.minified = False
    assert list_files.run(target("2.9.3"))["target"]["version"] == "2.9.3"


def test_an_unknown_version_lists_releases_in_composer_order(repo):
    """VERSION_NOT_FOUND lists releases nearest first, newest first by normalised version, as published."""
    for version in ("2.9.3", "3.6.0", "v3.7.0", "3.10.0", "4.0.0-RC1"):
        repo.publish(MONOLOG, version, FILES)
    error = list_error(target("3.99.0"))
    assert error.code == "VERSION_NOT_FOUND"
    assert error.details["availableVersions"] == ["3.10.0", "v3.7.0", "3.6.0", "4.0.0-RC1", "2.9.3"]
    assert error.details["latest"] == "3.10.0"


@pytest.mark.parametrize("body", [b'{"packages": {', b"<html>Sign in</html>", b'{"packages": {"other/x": []}}',
                                  b'{"packages": {"monolog/monolog": [1, 2]}, "minified": "composer/2.0"}'])
def test_unreadable_metadata_is_a_protocol_error(repo, body):
    """Metadata that is not JSON, lacks the package or cannot be expanded is PROTOCOL_ERROR."""
    repo.server.route("GET", "/p2/monolog/monolog.json", lambda h: Reply(200, body, {"Content-Type": "application/json"}))
    assert list_error(target()).code == "PROTOCOL_ERROR"


def test_a_github_token_from_auth_json_goes_to_github_hosts_only(isolated_env, monkeypatch):
    """Composer's github-oauth token is sent to GitHub hosts, never elsewhere."""
    home = isolated_env / "composer"
    home.mkdir()
    (home / "auth.json").write_text(json.dumps({"github-oauth": {"github.com": "ghp_example"}}))
    monkeypatch.setenv("COMPOSER_HOME", str(home))
    assert packagist._github_headers("https://api.github.com/repos/a/b/zipball/x") == {"Authorization": "token ghp_example"}
    assert packagist._github_headers("https://mirror.example/dists/a/b/x.zip") == {}


# --- the endpoint -------------------------------------------------------------------------------

def test_codenavs_variable_beats_composer_config_which_beats_the_default(isolated_env, monkeypatch):
    """CODENAV_COMPOSER_REPOSITORY, then the first composer repository of $COMPOSER_HOME/config.json
    (list or keyed form), then the public repository."""
    assert packagist.endpoint() == packagist.DEFAULT_REPOSITORY
    home = isolated_env / "home" / ".config" / "composer"
    home.mkdir(parents=True)
    (home / "config.json").write_text(json.dumps({"repositories": {"vcs": {"type": "vcs", "url": "https://x/y.git"},
                                                                   "m": {"type": "composer", "url": "https://mirror.example/composer"}}}))
    assert packagist.endpoint() == "https://mirror.example/composer/"
    other = isolated_env / "other"
    other.mkdir()
    (other / "config.json").write_text(json.dumps({"repositories": [{"type": "composer", "url": "https://private.example"}]}))
    monkeypatch.setenv("COMPOSER_HOME", str(other))
    assert packagist.endpoint() == "https://private.example/"
    monkeypatch.setenv("CODENAV_COMPOSER_REPOSITORY", "http://127.0.0.1:1/repo")
    assert packagist.endpoint() == "http://127.0.0.1:1/repo/"
