"""hex, what is peculiar to it: the API's releases and checksum, the outer tar's contents.tar.gz,
retirement, SemVer order, endpoint discovery (repository and API) and the signed registry a mirror
serves, against the fake Hex. What every registry owes is tests/support/registries.py's suites."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from codenav.registries import hex as hex_module
from codenav.registries import signatures
from codenav.tools import list_files
from tests.fakes.hex import FakeHex, make_tarball
from tests.fakes.http import FakeServer, Reply
from tests.support.archives import File, build
from tests.support.cache import assert_nothing_cached
from tests.support.calls import files_of, list_error
from tests.support.cli import run_cli
from tests.support.registries import fake_fixture

hexpm = fake_fixture("hex")
LIB = b"defmodule Demo do\n  def hello, do: :world\n  # HELLO from demo\nend\n"


# --- version choice -------------------------------------------------------------------------------


def test_latest_is_the_highest_release_neither_retired_nor_a_prerelease(hexpm):
    """Not `latest_stable_version` (which ignores retirement): 1.7.14 when 1.7.15 is retired."""
    for version, retired in (("1.7.9", None), ("1.7.14", None), ("1.7.15", "security"), ("1.8.0-rc.0", None)):
        hexpm.publish("phoenix", version, {"lib/p.ex": version.encode()}, retired=retired)
    assert hexpm.package_doc("phoenix")["latest_stable_version"] == "1.7.15"  # the field codenav must not trust
    assert list_files.run({"registry": "hex", "package_name": "phoenix"})["target"]["version"] == "1.7.14"


def test_a_pinned_retired_release_is_served(hexpm):
    """A retired release is still readable when named exactly."""
    hexpm.publish("old", "1.0.0", {"lib/old.ex": b""}, retired="deprecated")
    hexpm.publish("old", "1.1.0", {"lib/new.ex": b""})
    assert files_of(registry="hex", package_name="old", version="1.0.0") == ["lib/old.ex"]


def test_every_release_retired_is_not_found_unless_pinned(hexpm):
    """A package whose releases are all retired has no latest; a pin still reads one."""
    hexpm.publish("dead", "0.1.0", {"lib/d.ex": b""}, retired="invalid")
    err = list_error(registry="hex", package_name="dead")
    assert err.code == "NOT_FOUND" and "retired" in err.message
    assert files_of(registry="hex", package_name="dead", version="0.1.0") == ["lib/d.ex"]


SEMVER_ORDER = ["0.9.0", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
                "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.2.0", "1.10.0", "10.0.0"]


def test_available_versions_follow_semver_precedence_newest_first(hexpm):
    """VERSION_NOT_FOUND lists the releases that are not retired in SemVer order (SemVer 2.0 §11's example)."""
    for version in reversed(SEMVER_ORDER):
        hexpm.publish("order", version, {})
    hexpm.publish("order", "1.5.0", {}, retired="other")
    err = list_error(registry="hex", package_name="order", version="3.0.0")
    assert err.details["availableVersions"] == list(reversed(SEMVER_ORDER))
    assert err.details["latest"] == "10.0.0"


def test_names_are_lower_cased_and_a_bad_name_is_an_invalid_argument(hexpm):
    """`Plug` is `plug`; names that Hex would refuse never reach it."""
    hexpm.publish("plug", "1.16.1", {"lib/plug.ex": b""})
    assert list_files.run({"registry": "hex", "package_name": "Plug"})["target"]["name"] == "plug"
    for name in ("1abc", "_x", "a-b", "a.b", "a/b", "naïve"):
        err = list_error(registry="hex", package_name=name)
        assert (err.code, err.details["field"]) == ("INVALID_ARGUMENT", "package_name")
    assert [s.path for s in hexpm.server.seen] == ["/api/packages/plug", "/api/packages/plug/releases/1.16.1",
                                                   "/repo/tarballs/plug-1.16.1.tar"]


def test_every_request_carries_a_user_agent(hexpm):
    """Hex answers 400 without a User-Agent: codenav always sends one, to the API and the repository."""
    hexpm.publish("ua", "1.0.0", {"lib/ua.ex": b""})
    files_of(registry="hex", package_name="ua")
    assert all(s.headers.get("user-agent", "").startswith("codenav") for s in hexpm.server.seen)


# --- the artifact ---------------------------------------------------------------------------------


def test_only_contents_tar_gz_is_unpacked_and_nothing_is_stripped(hexpm):
    """VERSION, CHECKSUM and metadata.config are not listed; a package whose only folder is lib/ keeps it."""
    hexpm.publish("onlylib", "1.0.0", {"lib/onlylib.ex": b"x", "lib/onlylib/sub.ex": b"y"})
    assert files_of(registry="hex", package_name="onlylib") == ["lib/onlylib.ex", "lib/onlylib/sub.ex"]


def test_a_tarball_without_contents_tar_gz_is_an_unsafe_archive(hexpm, tmp_path):
    """An old-format tarball (VERSION 2, metadata.exs, no contents.tar.gz) is refused, nothing cached."""
    hexpm.publish("oldfmt", "0.1.0", tarball=build("tar", [File("VERSION", b"2"), File("metadata.exs", b"[]"),
                                                           File("contents.tar", b"")]))
    err = list_error(registry="hex", package_name="oldfmt")
    assert err.code == "UNSAFE_ARCHIVE" and "contents.tar.gz" in err.message
    assert_nothing_cached(tmp_path / "cache")


@pytest.mark.parametrize("checksum", [None, "", "xyz" * 20, "ab" * 31])
def test_a_release_without_a_usable_checksum_is_refused(hexpm, checksum):
    """No sha256 in the release document means INTEGRITY_ERROR, and the tarball is never fetched."""
    hexpm.publish("nosum", "1.0.0", {}, checksum=checksum)
    assert list_error(registry="hex", package_name="nosum").code == "INTEGRITY_ERROR"
    assert hexpm.tarball_hits == 0


def test_the_fake_tarball_has_the_four_members_of_format_3(tmp_path):
    """The fixture is shaped as hex_core writes it: VERSION, CHECKSUM, metadata.config, contents.tar.gz."""
    import hashlib
    import tarfile

    path = tmp_path / "x.tar"
    path.write_bytes(make_tarball("x", "1.0.0", {"lib/x.ex": b""}))
    with tarfile.open(path, "r:") as tar:
        assert tar.getnames() == ["VERSION", "CHECKSUM", "metadata.config", "contents.tar.gz"]
        parts = [tar.extractfile(n).read() for n in ("VERSION", "metadata.config", "contents.tar.gz")]
        assert tar.extractfile("CHECKSUM").read().decode() == hashlib.sha256(b"".join(parts)).hexdigest().upper()


# --- endpoint discovery ---------------------------------------------------------------------------


def test_with_nothing_configured_the_public_repository_and_api_are_used():
    """No variable and no hex.config: the public repository and API, the defaults in hex.py."""
    assert (hex_module.endpoint(), hex_module.api_endpoint()) == (hex_module.DEFAULT_REPO, hex_module.DEFAULT_API)


def test_codenav_variables_beat_hex_variables_which_beat_hex_config(tmp_path, monkeypatch):
    """CODENAV_HEX_REPO/API win over HEX_MIRROR/HEX_API_URL, which win over ~/.hex/hex.config."""
    (tmp_path / "home" / ".hex").mkdir()
    (tmp_path / "home" / ".hex" / "hex.config").write_text(
        '{mirror_url,<<"https://config-mirror.example">>}.\n{api_url,<<"https://config-api.example/api">>}.\n')
    assert (hex_module.endpoint(), hex_module.api_endpoint()) == (
        "https://config-mirror.example/", "https://config-api.example/api/")
    monkeypatch.setenv("HEX_MIRROR", "https://hex-mirror.example/")
    monkeypatch.setenv("HEX_API_URL", "https://hex-api.example/api")
    assert (hex_module.endpoint(), hex_module.api_endpoint()) == (
        "https://hex-mirror.example/", "https://hex-api.example/api/")
    monkeypatch.setenv("CODENAV_HEX_REPO", "https://mine.example/repo")
    monkeypatch.setenv("CODENAV_HEX_API", "https://mine.example/api/")
    assert (hex_module.endpoint(), hex_module.api_endpoint()) == (
        "https://mine.example/repo/", "https://mine.example/api/")


def test_hex_home_names_the_config_directory(tmp_path, monkeypatch):
    """$HEX_HOME/hex.config is read instead of ~/.hex/hex.config."""
    (tmp_path / "hexhome").mkdir()
    (tmp_path / "hexhome" / "hex.config").write_text('{mirror_url, <<"https://hexhome.example/">>}.\n')
    monkeypatch.setenv("HEX_HOME", str(tmp_path / "hexhome"))
    assert hex_module.endpoint() == "https://hexhome.example/"


def test_hex_mirror_reaches_the_fake_end_to_end():
    """With only HEX_MIRROR and HEX_API_URL naming the fake, the CLI reads the package from it."""
    with FakeServer() as server:
        fake = FakeHex(server)
        fake.publish("viaenv", "0.1.0", {"lib/viaenv.ex": b"IO.puts 1\n"})
        proc = run_cli("read", "hex:viaenv", "lib/viaenv.ex",
                       env={"HEX_MIRROR": fake.repo_url, "HEX_API_URL": fake.api_url})
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"IO.puts 1\n", b"")


# --- the signed registry (a mirror of the repository alone) ------------------------------------------


class Replay:
    """A request for one package answered with another's registry file (validly signed)."""

    def __init__(self, handler, path: str) -> None:
        self.path, self.headers = path, handler.headers


needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl makes the fake's signing key")


@pytest.fixture
def mirror(monkeypatch: pytest.MonkeyPatch):
    """A fake Hex whose repository serves the signed registry, named by HEX_MIRROR alone (no API)."""
    with FakeServer() as server:
        fake = FakeHex(server, signed=True)
        monkeypatch.setenv("HEX_MIRROR", fake.repo_url)
        yield fake


@needs_openssl
def test_a_mirror_without_an_api_is_read_through_the_signed_registry(mirror):
    """With only a repository configured, releases, retirement and the outer checksum come from the
    registry file, its RSA signature checked with the repository's public_key; the API is never asked."""
    mirror.publish("phoenix", "1.7.14", {"lib/phoenix.ex": LIB})
    mirror.publish("phoenix", "1.7.15", {"lib/phoenix.ex": b"retired\n"}, retired="security")
    mirror.publish("phoenix", "1.8.0-rc.0", {"lib/phoenix.ex": b"rc\n"})
    result = list_files.run({"registry": "hex", "package_name": "phoenix"})
    assert {k: v for k, v in result["target"].items() if k != "versionSource"} == {"registry": "hex", "name": "phoenix", "version": "1.7.14",
                                "artifact": "phoenix-1.7.14.tar", "verified": True,
                                "verification": "sha256 of the downloaded file matches the outer checksum in the "
                                                "signed registry"}
    assert [s.path for s in mirror.server.seen] == ["/repo/packages/phoenix", "/repo/public_key",
                                                    "/repo/tarballs/phoenix-1.7.14.tar"]
    err = list_error(registry="hex", package_name="phoenix", version="9.0.0")
    assert err.details["availableVersions"] == ["1.8.0-rc.0", "1.7.14"]  # 1.7.15 is retired


@needs_openssl
@pytest.mark.parametrize("form", ["pem-text", "pem-file", "pkcs1-file"])
def test_codenav_hex_public_key_is_used_instead_of_the_repositorys(mirror, monkeypatch, tmp_path, form):
    """CODENAV_HEX_PUBLIC_KEY (PEM text or a file; SubjectPublicKeyInfo or PKCS#1) is the trust
    anchor: the repository's public_key is not fetched."""
    from tests.fakes.hex import signing_key

    private, public = signing_key()
    if form == "pem-text":
        monkeypatch.setenv("CODENAV_HEX_PUBLIC_KEY", public)
    else:
        path = tmp_path / "hex.pem"
        if form == "pem-file":
            path.write_text(public)
        else:
            subprocess.run(["openssl", "rsa", "-in", private, "-RSAPublicKey_out", "-out", str(path)],
                           check=True, capture_output=True)
            assert "BEGIN RSA PUBLIC KEY" in path.read_text()
        monkeypatch.setenv("CODENAV_HEX_PUBLIC_KEY", str(path))
    mirror.publish("jason", "1.4.4", {"lib/jason.ex": b""})
    assert files_of(registry="hex", package_name="jason") == ["lib/jason.ex"]
    assert "/repo/public_key" not in [s.path for s in mirror.server.seen]


@needs_openssl
def test_a_registry_file_with_a_bad_signature_is_an_integrity_error(mirror, tmp_path):
    """One flipped signature bit: INTEGRITY_ERROR, nothing downloaded or cached."""
    from tests.fakes.hex import sign

    mirror.signer = lambda payload: (lambda s: s[:-1] + bytes([s[-1] ^ 1]))(sign(payload))
    mirror.publish("forged", "1.0.0", {"lib/f.ex": b""})
    err = list_error(registry="hex", package_name="forged")
    assert err.code == "INTEGRITY_ERROR" and "not signed" in err.message
    assert mirror.tarball_hits == 0
    assert_nothing_cached(tmp_path / "cache")


@needs_openssl
def test_a_signed_registry_file_for_another_package_is_a_protocol_error(mirror):
    """A correctly signed file that describes another package (a replay) is refused."""
    mirror.publish("victim", "1.0.0", {})
    mirror.publish("other", "6.6.6", {})
    mirror.server.route("GET", "/repo/packages/victim", lambda h: mirror._registry(Replay(h, "/repo/packages/other")))
    assert list_error(registry="hex", package_name="victim").code == "PROTOCOL_ERROR"


@needs_openssl
def test_a_registry_file_that_is_not_gzipped_protobuf_is_a_protocol_error(mirror):
    """An HTML page where the registry file belongs is PROTOCOL_ERROR, not a crash."""
    mirror.publish("garbage", "1.0.0", {})
    mirror.server.route("GET", "/repo/packages/garbage", lambda h: Reply(200, b"<html>hi</html>",
                                                                        {"Content-Type": "text/html"}))
    assert list_error(registry="hex", package_name="garbage").code == "PROTOCOL_ERROR"


@needs_openssl
def test_the_rsa_verifier_agrees_with_openssl(tmp_path):
    """What openssl signs verifies; any other payload or signature does not."""
    from tests.fakes.hex import sign, signing_key

    key = signatures.rsa_public_key(signing_key()[1])
    payload = b"\x0a\x03abc" * 100
    signature = sign(payload)
    assert signatures.rsa_sha512_verify(payload, signature, key)
    assert not signatures.rsa_sha512_verify(payload + b"x", signature, key)
    assert not signatures.rsa_sha512_verify(payload, signature[:-1] + bytes([signature[-1] ^ 1]), key)
    assert not signatures.rsa_sha512_verify(payload, signature[1:], key)
