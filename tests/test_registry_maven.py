"""Maven, what is peculiar to it: coordinates, ComparableVersion order, settings.xml mirrors,
sources jars and side-file digests, against a fake repository on 127.0.0.1 (reference §3).
What every registry owes is tests/support/registries.py's shared suites."""

from __future__ import annotations

import glob
import hashlib
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from codenav.registries import maven
from codenav.tools import list_files, read_file
from tests.fakes.archives import make_zip
from tests.support.cache import assert_nothing_cached
from tests.support.calls import list_error, target_maker
from tests.support.registries import fake_fixture

SLF4J = "org.slf4j:slf4j-api"
repo = fake_fixture("maven")
LOGGER = b"package org.slf4j;\n\npublic interface Logger {\n    String ROOT_LOGGER_NAME = \"ROOT\";\n}\n"


target = target_maker("maven", SLF4J, "2.0.16")


# --- ComparableVersion ------------------------------------------------------------------------

# Ascending, as Maven 3.8's ComparableVersion orders them; "==" rows are equal to the one before.
TRICKY = [
    "1.0-alpha", "1.0-alpha-1", "1.0-alpha1", "1.0-a2", "1.0-beta", "1.0-b2", "1.0-milestone-1", "1.0-M2",
    "1.0-rc", "1.0-cr2", "1.0-RC3", "1.0-SNAPSHOT", "1.0", "1.0-sp", "1.0-sp1", "1.0-abc", "1.0-jre",
    "1.0-xyz", "1.0.1", "1.0.1.1", "1.0.2-beta", "1.0.2", "1.1", "1.9", "1.10", "2.0.0.Beta1", "2.0.0-RC1",
    "2.0.0", "2.0.0-1", "10.0",
]
EQUAL = [("1", "1.0"), ("1.0", "1.0.0"), ("1.0", "1-ga"), ("1.0", "1.0-final"), ("1.0", "1-release"),
         ("1.0-rc1", "1.0-cr1"), ("1.0-alpha1", "1.0-a1"), ("1.0.0.RC1", "1.0.0-RC1"), ("1.0-BETA", "1.0-beta")]


def test_maven_orders_tricky_versions_as_comparable_version_does():
    """alpha < beta < milestone < rc (= cr) < SNAPSHOT < release < sp < unknown qualifiers < a patch,
    numbers compare as numbers, and '.Beta1' ranks like '-beta-1'."""
    shuffled = TRICKY[:]
    random.Random(3).shuffle(shuffled)
    assert sorted(shuffled, key=maven.version_key) == TRICKY
    for a, b in EQUAL:
        assert maven.version_key(a) == maven.version_key(b), (a, b)


def test_prerelease_qualifiers_are_alpha_beta_milestone_rc_and_snapshot():
    """Only qualifiers ranked below the release make a prerelease; sp and unknown ones do not."""
    pre = ["1.0-alpha-1", "1.0.0.Beta1", "2.0.0-M1", "1.0-rc1", "1.0-CR2", "1.0-SNAPSHOT", "2.1.0-alpha1"]
    final = ["1.0", "1.0-sp1", "33.0.0-jre", "1.0.1", "2.0.16", "1.0-ga", "1.2-android"]
    assert [v for v in pre + final if maven.is_prerelease(v)] == pre


def _maven_artifact_jar() -> str | None:
    found = sorted(glob.glob("/usr/share/maven/lib/maven-artifact-*.jar"))
    found += sorted(glob.glob(os.path.expanduser("~/.m2/repository/org/apache/maven/maven-artifact/3.*/"
                                                 "maven-artifact-3.*.jar")))
    return found[0] if found else None


def _generated_versions(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    tokens = ["0", "0", "1", "2", "10", "01", "alpha", "a", "b", "beta", "m", "milestone", "rc", "cr", "SNAPSHOT",
              "ga", "final", "release", "sp", "foo", "jre", "x", "", "Beta", "RC"]
    out = []
    for _ in range(count):
        parts = [rng.choice(tokens) for _ in range(rng.randint(1, 6))]
        text = "".join(p + rng.choice([".", "-", ""]) for p in parts[:-1]) + parts[-1]
        out.append(text or "1")
    return out


def test_the_ordering_agrees_with_mavens_own_comparable_version():
    """Maven's ComparableVersion main class (the maven-artifact jar) orders every consecutive pair
    of the tricky table and of 600 generated versions exactly as version_key does."""
    jar = _maven_artifact_jar()
    if jar is None or shutil.which("java") is None:
        pytest.skip("no maven-artifact jar or no java here")
    versions = TRICKY + [v for pair in EQUAL for v in pair] + _generated_versions(600, 20261201)
    out = subprocess.run(["java", "-cp", jar, "org.apache.maven.artifact.versioning.ComparableVersion", *versions],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    verdicts = [line.strip() for line in out.splitlines() if line.startswith("   ")]
    assert len(verdicts) == len(versions) - 1
    disagreements = []
    for (a, b), verdict in zip(zip(versions, versions[1:], strict=False), verdicts, strict=True):
        theirs = verdict[len(a) + 1:].split(" ", 1)[0]
        order = maven.version_key(a).compare(maven.version_key(b))
        ours = "<" if order < 0 else ">" if order > 0 else "=="
        if ours != theirs:
            disagreements.append(f"{a} {theirs} {b} (codenav: {ours})")
    assert disagreements == []


# --- names --------------------------------------------------------------------------------------


def test_a_coordinate_is_kept_as_given_because_paths_are_case_sensitive():
    """Maven repository paths are case-sensitive: the name is neither lowered nor rewritten."""
    assert maven.normalize_name("com.Example:My.Lib") == "com.Example:My.Lib"


# --- resolve ------------------------------------------------------------------------------------

def test_the_sources_jar_is_read_as_is_and_verified_against_the_sha512_side_file(repo):
    """The -sources.jar is listed with nothing stripped (its top folder `org/` stays), checked against
    the .sha512 beside it, and the echo says so; the artifactId's dots stay dots in the path."""
    repo.publish(SLF4J, "2.0.16", {"org/slf4j/Logger.java": LOGGER})
    result = list_files.run(target())
    assert {k: v for k, v in result["target"].items() if k != "versionSource"} == {
        "registry": "maven", "name": SLF4J, "version": "2.0.16", "artifact": "slf4j-api-2.0.16-sources.jar",
        "verified": True,
        "verification": "sha512 of the downloaded file matches the .sha512 side file beside it (same origin)",
    }
    assert [f["path"] for f in result["files"]] == ["META-INF/MANIFEST.MF", "org/slf4j/Logger.java"]
    paths = [s.path for s in repo.server.seen]
    assert paths[:2] == ["/maven2/org/slf4j/slf4j-api/maven-metadata.xml",
                         "/maven2/org/slf4j/slf4j-api/2.0.16/slf4j-api-2.0.16-sources.jar.sha512"]
    assert read_file.run({**target(), "path": "org/slf4j/Logger.java"})["content"] == LOGGER.decode()


def test_without_sha512_and_sha256_the_sha1_side_file_is_used_even_in_its_old_form(repo):
    """An old artifact with only .md5 and .sha1 (written as `hash  filename`) is verified by sha1."""
    repo.publish(SLF4J, "1.5.0", {"org/slf4j/Logger.java": LOGGER}, sides=("md5", "sha1"), old_style=True)
    echo = list_files.run(target("1.5.0"))["target"]
    assert echo["verification"] == "sha1 of the downloaded file matches the .sha1 side file beside it (same origin)"


def test_without_a_sources_jar_the_binary_jar_is_read_and_the_echo_says_so(repo):
    """A version with no -sources.jar falls back to the binary jar; the verification names the fallback."""
    repo.publish("log4j:log4j", "1.2.4", sources=False, jar={"org/apache/log4j/Logger.class": b"\xca\xfe\xba\xbe"})
    result = list_files.run(target("1.2.4", "log4j:log4j"))
    assert result["target"]["artifact"] == "log4j-1.2.4.jar"
    assert result["target"]["verification"] == (
        "sha512 of the downloaded file matches the .sha512 side file beside it (same origin); no -sources.jar "
        "is published for this version, so these are the compiled classes of the binary jar")
    assert [f["path"] for f in result["files"]] == ["META-INF/MANIFEST.MF", "org/apache/log4j/Logger.class"]


def test_a_pom_only_artifact_is_not_found_saying_why(repo):
    """A BOM (pom packaging) has no jar of either kind: NOT_FOUND naming the reason."""
    repo.publish("org.example:bom", "1.0", sources=False)
    error = list_error(target("1.0", "org.example:bom"))
    assert error.code == "NOT_FOUND" and "pom-packaging" in error.message


def test_a_jar_without_any_checksum_side_file_is_refused(repo):
    """A sources jar served with no .sha512, .sha256 or .sha1 is INTEGRITY_ERROR, never trusted."""
    repo.publish(SLF4J, "2.0.16", {"org/slf4j/Logger.java": LOGGER}, sides=("md5",))
    error = list_error(target())
    assert error.code == "INTEGRITY_ERROR" and "no .sha512, .sha256 or .sha1 side file" in error.message


@pytest.mark.hardening
def test_a_weaker_side_file_never_stands_in_for_a_wrong_stronger_one(repo, tmp_path):
    """A wrong .sha512 beside a right .sha1 is still an integrity error: the strongest one is checked."""
    data = make_zip({"a.java": b"a\n"})
    repo.publish(SLF4J, "2.0.16", sources_jar=data)
    repo.files["org/slf4j/slf4j-api/2.0.16/slf4j-api-2.0.16-sources.jar.sha512"] = \
        hashlib.sha512(b"other bytes").hexdigest().encode()
    assert list_error(target()).code == "INTEGRITY_ERROR"
    assert_nothing_cached(tmp_path / "cache")


def test_latest_is_the_highest_final_by_maven_order_not_the_release_element(repo):
    """<release> names the last deployed (here a prerelease, after a patch of an old line); latest
    is the highest version without a prerelease qualifier."""
    for version in ("1.7.36", "2.0.9", "2.0.16", "1.7.37", "2.1.0-alpha1"):
        repo.publish(SLF4J, version, {"org/slf4j/Logger.java": LOGGER})
    assert b"<release>2.1.0-alpha1</release>" in repo.metadata(SLF4J)
    assert list_files.run(target(None))["target"]["version"] == "2.0.16"


def test_an_unknown_version_lists_the_available_ones_in_maven_order(repo):
    """VERSION_NOT_FOUND lists versions newest first by ComparableVersion (2.0.10 above 2.0.9, the
    release above its rc), those sharing the asked-for prefix first, and the computed latest."""
    for version in ("2.0.9", "2.0.10", "2.0.0-RC1", "2.0.0", "1.7.36", "2.1.0-alpha1"):
        repo.publish(SLF4J, version, {"a.java": b""})
    error = list_error(target("2.0.99"))
    assert error.code == "VERSION_NOT_FOUND"
    assert error.details["availableVersions"] == ["2.0.10", "2.0.9", "2.0.0", "2.0.0-RC1", "2.1.0-alpha1", "1.7.36"]
    assert error.details["latest"] == "2.0.10"


def test_another_spelling_of_a_deployed_version_finds_it(repo):
    """`2.0` names the deployed `2.0.0` (equal under Maven's order); the echo is the deployed spelling."""
    repo.publish(SLF4J, "2.0.0", {"a.java": b""})
    assert list_files.run(target("2.0"))["target"]["version"] == "2.0.0"


@pytest.mark.parametrize("body", [b"<metadata><versioning><versions><version>1.0", b"not xml at all",
                                  b'<?xml version="1.0"?><!DOCTYPE m [<!ENTITY x "y">]><metadata/>',
                                  b"<html><body>Sign in</body></html>"])
def test_unreadable_metadata_is_a_protocol_error(repo, body):
    """Truncated or non-XML metadata, one declaring a DTD, or another document is PROTOCOL_ERROR."""
    repo.files["org/slf4j/slf4j-api/maven-metadata.xml"] = body
    assert list_error(target()).code == "PROTOCOL_ERROR"


def test_a_garbled_side_file_is_a_protocol_error(repo):
    """A .sha512 side file holding no sha512 digest is PROTOCOL_ERROR, not a weaker fallback."""
    repo.publish(SLF4J, "2.0.16", {"a.java": b""})
    repo.files["org/slf4j/slf4j-api/2.0.16/slf4j-api-2.0.16-sources.jar.sha512"] = b"<html>oops</html>"
    assert list_error(target()).code == "PROTOCOL_ERROR"


def test_centrals_429_is_rate_limited_with_its_retry_after(repo):
    """Central's per-IP throttling (429 with its real body) is RATE_LIMITED with retryAfterSeconds."""
    repo.rate_limited = True
    error = list_error(target())
    assert (error.code, error.retryable, error.details["retryAfterSeconds"]) == ("RATE_LIMITED", True, 7)


# --- the endpoint -------------------------------------------------------------------------------

SETTINGS = """<?xml version="1.0" encoding="UTF-8"?>
<settings xmlns="http://maven.apache.org/SETTINGS/1.2.0">
  <mirrors>
    <mirror><id>other</id><mirrorOf>snapshots-only</mirrorOf><url>http://127.0.0.1:9/never/</url></mirror>
    {mirror}
  </mirrors>
</settings>
"""


def _settings(home: Path, mirror: str) -> None:
    (home / ".m2").mkdir(exist_ok=True)
    (home / ".m2" / "settings.xml").write_text(SETTINGS.format(mirror=mirror))


@pytest.mark.parametrize("mirror_of", ["central", "*", "external:*", "repo1,central", "*,!snapshots"])
def test_a_settings_xml_mirror_of_central_is_the_endpoint(isolated_env, mirror_of, monkeypatch):
    """A <mirror> whose mirrorOf matches `central` replaces the default; ${env.X} is expanded."""
    monkeypatch.setenv("MIRROR_HOST", "mirror.example")
    _settings(isolated_env / "home", f"<mirror><id>m</id><mirrorOf>{mirror_of}</mirrorOf>"
                                     "<url>https://${env.MIRROR_HOST}/maven2</url></mirror>")
    assert maven.endpoint() == "https://mirror.example/maven2/"


def test_a_mirror_excluding_central_is_not_used_and_the_default_remains(isolated_env):
    """`*,!central` does not mirror central; with nothing else configured the default is used."""
    _settings(isolated_env / "home", "<mirror><id>m</id><mirrorOf>*,!central</mirrorOf><url>https://m/</url></mirror>")
    assert maven.endpoint() == maven.DEFAULT_REPOSITORY


def test_an_exact_central_mirror_beats_an_earlier_wildcard(isolated_env):
    """As in Maven, a mirror naming `central` exactly wins over a `*` declared before it."""
    _settings(isolated_env / "home", "<mirror><id>all</id><mirrorOf>*</mirrorOf><url>https://all/</url></mirror>"
                                     "<mirror><id>c</id><mirrorOf>central</mirrorOf><url>https://c/</url></mirror>")
    assert maven.endpoint() == "https://c/"


def test_codenavs_variable_beats_settings_xml_which_beats_the_default(isolated_env, monkeypatch):
    """CODENAV_MAVEN_REPOSITORY, then settings.xml's mirror, then the public default; a settings.xml
    with a DTD is ignored rather than parsed."""
    home = isolated_env / "home"
    assert maven.endpoint() == maven.DEFAULT_REPOSITORY
    _settings(home, "<mirror><id>m</id><mirrorOf>central</mirrorOf><url>https://mirror/m2</url></mirror>")
    assert maven.endpoint() == "https://mirror/m2/"
    monkeypatch.setenv("CODENAV_MAVEN_REPOSITORY", "http://127.0.0.1:1/repo")
    assert maven.endpoint() == "http://127.0.0.1:1/repo/"
    monkeypatch.delenv("CODENAV_MAVEN_REPOSITORY")
    (home / ".m2" / "settings.xml").write_text('<!DOCTYPE s [<!ENTITY u "https://evil/">]><settings><mirrors><mirror>'
                                                "<mirrorOf>*</mirrorOf><url>&u;</url></mirror></mirrors></settings>")
    assert maven.endpoint() == maven.DEFAULT_REPOSITORY


def test_the_global_settings_of_maven_home_are_read_after_the_users(isolated_env, monkeypatch):
    """$MAVEN_HOME/conf/settings.xml mirrors apply when the user's settings have none."""
    conf = isolated_env / "maven" / "conf"
    conf.mkdir(parents=True)
    (conf / "settings.xml").write_text(SETTINGS.format(
        mirror="<mirror><id>g</id><mirrorOf>central</mirrorOf><url>https://global/</url></mirror>"))
    monkeypatch.setenv("MAVEN_HOME", str(isolated_env / "maven"))
    assert maven.endpoint() == "https://global/"
    _settings(isolated_env / "home", "<mirror><id>u</id><mirrorOf>*</mirrorOf><url>https://user/</url></mirror>")
    assert maven.endpoint() == "https://global/"  # an exact `central` mirror wins over `*`, wherever declared
