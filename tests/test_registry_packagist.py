"""Packagist: names, Composer's normalised versions, minified p2 metadata, the GitHub zipball hop,
mirrors, the missing shasum, Composer config, against a fake repository on 127.0.0.1 (reference §7)."""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections.abc import Iterator

import pytest

from codenav.errors import CodenavError
from codenav.registries import packagist
from codenav.tools import list_files, read_file
from tests.fakes.http import FakeServer, Reply
from tests.fakes.packagist import FakePackagist, minify
from tests.support.cli import ROOT, run_cli
from tests.support.mcp import McpSession, check

MONOLOG = "monolog/monolog"
LOGGER = b"<?php\n\nnamespace Monolog;\n\nclass Logger implements LoggerInterface\n{\n}\n"
FILES = {"composer.json": b'{"name": "monolog/monolog"}\n', "src/Monolog/Logger.php": LOGGER}


@pytest.fixture
def repo(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakePackagist]:
    """A fake Composer repository that CODENAV_COMPOSER_REPOSITORY points at."""
    with FakeServer() as server:
        fake = FakePackagist(server)
        monkeypatch.setenv("CODENAV_COMPOSER_REPOSITORY", fake.url)
        yield fake


def target(version: str | None = "3.7.0", name: str = MONOLOG) -> dict:
    args = {"registry": "packagist", "package_name": name}
    if version is not None:
        args["version"] = version
    return args


def error_of(args: dict) -> CodenavError:
    with pytest.raises(CodenavError) as info:
        list_files.run(args)
    return info.value


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


@pytest.mark.parametrize("name", ["monolog", "Monolog/", "/monolog", "mono log/x", "a//b", "a/b/c", "-a/b", "a/b-",
                                  "a/b---c"])
def test_a_bad_name_is_an_invalid_argument(name):
    """A name that is not vendor/package of Composer's characters is refused."""
    error = error_of(target(name=name))
    assert (error.code, error.details.get("field")) == ("INVALID_ARGUMENT", "package_name")


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
    assert error_of(target("1.0.0", "acme/tampered")).code == "INTEGRITY_ERROR"


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
    error = error_of(target("3.99.0"))
    assert error.code == "VERSION_NOT_FOUND"
    assert error.details["availableVersions"] == ["3.10.0", "v3.7.0", "3.6.0", "4.0.0-RC1", "2.9.3"]
    assert error.details["latest"] == "3.10.0"


def test_an_unknown_package_is_not_found(repo):
    """A p2 404 is NOT_FOUND."""
    assert error_of(target(name="acme/nothing")).code == "NOT_FOUND"


@pytest.mark.parametrize("body", [b'{"packages": {', b"<html>Sign in</html>", b'{"packages": {"other/x": []}}',
                                  b'{"packages": {"monolog/monolog": [1, 2]}, "minified": "composer/2.0"}'])
def test_unreadable_metadata_is_a_protocol_error(repo, body):
    """Metadata that is not JSON, lacks the package or cannot be expanded is PROTOCOL_ERROR."""
    repo.server.route("GET", "/p2/monolog/monolog.json", lambda h: Reply(200, body, {"Content-Type": "application/json"}))
    assert error_of(target()).code == "PROTOCOL_ERROR"


def test_a_server_error_is_upstream_error_and_429_is_rate_limited(repo):
    """5xx is retryable UPSTREAM_ERROR; 429 with Retry-After is RATE_LIMITED."""
    repo.server.route("GET", "/p2/monolog/monolog.json", lambda h: Reply(502, b"Bad Gateway"))
    assert (error_of(target()).code, error_of(target()).retryable) == ("UPSTREAM_ERROR", True)
    repo.server.route("GET", "/p2/monolog/monolog.json", lambda h: Reply(429, b"slow", {"Retry-After": "30"}))
    error = error_of(target())
    assert (error.code, error.details["retryAfterSeconds"]) == ("RATE_LIMITED", 30)


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


# --- both surfaces ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A fake Composer repository with its GitHub hop, and one MCP server sharing the CLI's environment."""
    import io
    import zipfile

    base = tmp_path_factory.mktemp("packagist")
    with FakeServer() as server:
        repo = FakePackagist(server)
        repo.publish(MONOLOG, "v3.7.0", FILES)
        repo.publish("acme/tampered", "1.0.0", FILES, shasum=True)
        repo.releases["acme/tampered"][0]["dist"]["shasum"] = "0" * 40
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("acme-evil-abcdef0/ok.php", b"")
            zf.writestr("acme-evil-abcdef0/../../escape.php", b"x")
        repo.publish("acme/evil", "1.0.0", {}, zip_bytes=buf.getvalue())
        env = {**os.environ, "PYTHONPATH": str(ROOT), "CODENAV_CACHE_DIR": str(base / "cache"), "HOME": str(base),
               "CODENAV_COMPOSER_REPOSITORY": repo.url, "CODENAV_NO_DISCOVERY": "1"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        session = McpSession(env)
        yield {"env": env, "mcp": session, "repo": repo}
        session.close()


P = target()
SPEC = "packagist:monolog/monolog@3.7.0"


@pytest.mark.parametrize("tool,arguments,argv,code", [
    ("list_files", P, ["files", SPEC], None),
    ("list_files", P, ["files", "composer:monolog/monolog@3.7.0"], None),
    ("read_file", {**P, "path": "src/Monolog/Logger.php"}, ["read", SPEC, "src/Monolog/Logger.php"], None),
    ("grep_repo", {**P, "pattern": "loggerinterface"}, ["grep", SPEC, "loggerinterface"], None),
    ("grep_file", {**P, "path": "src/Monolog/Logger.php", "pattern": "loggerinterface"},
     ["grep", SPEC, "loggerinterface", "src/Monolog/Logger.php"], None),
    ("list_files", target("9.0.0"), ["files", "packagist:monolog/monolog@9.0.0"], "VERSION_NOT_FOUND"),
    ("list_files", target(None, "acme/nothing"), ["files", "packagist:acme/nothing"], "NOT_FOUND"),
    ("list_files", target("1.0.0", "acme/tampered"), ["files", "packagist:acme/tampered@1.0.0"], "INTEGRITY_ERROR"),
    ("list_files", target("1.0.0", "acme/evil"), ["files", "packagist:acme/evil@1.0.0"], "UNSAFE_ARCHIVE"),
    ("list_files", target(None, "no-slash"), ["files", "packagist:no-slash"], "INVALID_ARGUMENT"),
])
def test_cli_json_and_mcp_give_the_same_bytes(world, tool, arguments, argv, code):
    """files, read and grep of a Packagist target (alias included), and each error kind, are
    byte-identical on both surfaces; the echo is canonical."""
    payload = check(world, tool, arguments, argv, code=code)
    if code is None and tool == "list_files":
        assert payload["target"]["registry"] == "packagist" and payload["target"]["verified"] is False


def test_live_packagist():
    """Against the real repository, only when CODENAV_LIVE_REGISTRIES names packagist."""
    if "packagist" not in os.environ.get("CODENAV_LIVE_REGISTRIES", "").split(","):
        pytest.skip("set CODENAV_LIVE_REGISTRIES=packagist to run against the real repository")
    result = list_files.run(target())
    assert result["target"]["version"] == "3.7.0" and "src/Monolog/Logger.php" in [f["path"] for f in result["files"]]


def test_plain_cli_reads_a_file_of_the_dist(world):
    """`codenav read packagist:V/P@VERSION PATH` prints the file from the zip, its top folder gone."""
    proc = run_cli("read", SPEC, "src/Monolog/Logger.php", env=world["env"])
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, LOGGER, b"")
