"""The go registry, what is peculiar to it, against a fake module proxy and checksum database
(SPEC §3): h1, Ed25519 notes and the tiled log, module paths and versions, retractions, GOPROXY
lists and GOSUMDB settings. What every registry owes is tests/support/registries.py's suites."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from codenav.errors import CodenavError
from codenav.registries import go as gomod
from codenav.registries import gosumdb, signatures
from codenav.tools import list_files, read_file
from tests.fakes.go import NoteKey, h1_of_files, module_zip, sign
from tests.fakes.http import FakeServer, Reply
from tests.support.cache import assert_nothing_cached
from tests.support.calls import files_of, list_error
from tests.support.cli import ROOT
from tests.support.registries import fake_fixture

go = fake_fixture("go")
ERRORS = "github.com/pkg/errors"
ERRORS_FILES = {"errors.go": b"package errors\n\n// New returns an error.\nfunc New(message string) error {\n"
                             b"\treturn &fundamental{msg: message}\n}\n",
                "README.md": b"# errors\n", "LICENSE": b"BSD 2-Clause\n"}


def _zip_file(tmp_path: Path, entries: list[tuple[str, bytes]], utf8_flag: bool = True) -> Path:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    path = tmp_path / "m.zip"
    path.write_bytes(buf.getvalue())
    return path


# --- h1, keys and signatures ------------------------------------------------------------------

def test_h1_of_a_lone_go_mod_is_the_published_go_sum_line(tmp_path):
    """The h1 of {go.mod: "module github.com/pkg/errors\\n"} is the public go.sum line of
    github.com/pkg/errors v0.9.1/go.mod."""
    path = _zip_file(tmp_path, [("go.mod", b"module github.com/pkg/errors\n")])
    assert gosumdb.h1_of_zip(str(path)) == "h1:bwawxfHBFNV+L2hUp1rHADufV3IMtnDRdf1r5NINEl0="


def test_h1_of_a_module_zip_matches_an_independent_computation(tmp_path):
    """Every entry (directories too, non-ASCII names, any order) is hashed as sorted
    "sha256hex  name" lines: the same value as a few lines of hashlib."""
    prefix = "example.com/m@v1.0.0/"
    entries = [(prefix + "z.go", b"package z\n"), (prefix + "a/", b""), (prefix + "\u00e9t\u00e9.txt", "été".encode()),
               (prefix + "A.go", b"package A\n"), (prefix + "go.mod", b"module example.com/m\n")]
    path = _zip_file(tmp_path, entries)
    lines = sorted((name, hashlib.sha256(data).hexdigest()) for name, data in entries)
    summary = "".join(f"{digest}  {name}\n" for name, digest in lines).encode()
    expected = "h1:" + base64.b64encode(hashlib.sha256(summary).digest()).decode()
    assert gosumdb.h1_of_zip(str(path)) == expected == h1_of_files(entries)
    # One byte of one file changes it.
    other = _zip_file(tmp_path, [*entries[:-1], (prefix + "go.mod", b"module example.com/n\n")])
    assert gosumdb.h1_of_zip(str(other)) != expected


def test_h1_refuses_to_expand_past_the_limit(tmp_path):
    """A zip that expands past the extraction limit is TOO_LARGE while hashing, not read whole."""
    path = _zip_file(tmp_path, [("m@v1.0.0/zeros", bytes(3_000_000))])
    with pytest.raises(CodenavError) as info:
        gosumdb.h1_of_zip(str(path), max_bytes=1_000_000)
    assert info.value.code == "TOO_LARGE"


RFC8032 = [  # RFC 8032 §7.1 TEST 1, 2, 3: secret key, public key, message, signature
    ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
    ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
]


@pytest.mark.parametrize("secret,public,message,signature", RFC8032)
def test_ed25519_verifies_the_rfc_8032_vectors_and_nothing_else(secret, public, message, signature):
    """RFC 8032's signatures verify; a changed message, signature bit or key does not; the
    fake's signer reproduces the RFC signature from the secret key."""
    pub, msg, sig = bytes.fromhex(public), bytes.fromhex(message), bytes.fromhex(signature)
    assert signatures.ed25519_verify(pub, msg, sig)
    assert not signatures.ed25519_verify(pub, msg + b"x", sig)
    assert not signatures.ed25519_verify(pub, msg, sig[:10] + bytes([sig[10] ^ 1]) + sig[11:])
    assert not signatures.ed25519_verify(pub, msg, sig[:32] + (int.from_bytes(sig[32:], "little") +
                                                          2 ** 252 + 27742317777372353535851937790883648493)
                                    .to_bytes(33, "little")[:32])
    assert not signatures.ed25519_verify(bytes.fromhex(RFC8032[0][1] if public != RFC8032[0][1] else RFC8032[1][1]),
                                    msg, sig)
    assert sign(bytes.fromhex(secret), msg) == sig


def test_ed25519_agrees_with_the_cryptography_package_when_it_is_installed(tmp_path):
    """Signatures made by the system Python's `cryptography` verify, and altered ones do not."""
    script = ("import sys,os;from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey as K;"
              "from cryptography.hazmat.primitives import serialization as s;k=K.generate();"
              "m=os.urandom(100);print(k.public_key().public_bytes(s.Encoding.Raw,s.PublicFormat.Raw).hex(),"
              "m.hex(),k.sign(m).hex())")
    python = shutil.which("python3", path="/usr/bin")
    if python is None:
        pytest.skip("no system python3")
    proc = subprocess.run([python, "-c", script], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip("the cryptography package is not installed for the system python3")
    pub, msg, sig = (bytes.fromhex(x) for x in proc.stdout.split())
    assert signatures.ed25519_verify(pub, msg, sig)
    assert not signatures.ed25519_verify(pub, msg[:-1], sig)


def test_the_built_in_checksum_database_key_is_self_consistent():
    """The default GOSUMDB key's hash is sha256(name + "\\n" + key)[:4] for its name."""
    name, key = gosumdb.parse_verifier_key(gosumdb.DEFAULT_GOSUMDB)
    assert len(key) == 32 and gosumdb.DEFAULT_GOSUMDB.split("+")[1] == "033de0ae"
    assert name == gosumdb.DEFAULT_GOSUMDB.split("+")[0]


def test_a_verifier_key_with_a_wrong_hash_is_a_config_error():
    """A name+hash+key whose hash does not fit its name is refused before any request."""
    key = NoteKey("sum.example.test")
    wrong = key.verifier.replace(key.key_hash.hex(), "00000000")
    with pytest.raises(CodenavError) as info:
        gosumdb.parse_verifier_key(wrong)
    assert info.value.code == "CONFIG_ERROR"
    assert gosumdb.parse_verifier_key(key.verifier) == ("sum.example.test", key.raw[1:])


# --- names, versions, ordering ------------------------------------------------------------------

def test_module_paths_are_case_escaped_on_the_wire():
    """Each capital becomes ! + its lower case, in paths and versions."""
    assert gomod.escape("github.com/BurntSushi/toml") == "github.com/!burnt!sushi/toml"
    assert gomod.escape("v1.0.0-RC1") == "v1.0.0-!r!c1"


@pytest.mark.parametrize("name", ["", "errors", "github.com//x", "/github.com/x", "github.com/x/", "Github.com/x",
                                  "github.com/x y", "github.com/.x", "github.com/x.", "github.com/con", "-x.com/y",
                                  "github.com/x!y", "github.com/PROGRA~1"])
def test_invalid_module_paths_are_invalid_argument(name):
    """Paths Go's module.CheckPath refuses are INVALID_ARGUMENT naming package_name."""
    with pytest.raises(CodenavError) as info:
        gomod.normalize_name(name)
    assert info.value.code == "INVALID_ARGUMENT" and info.value.details["field"] == "package_name"


def test_exact_versions_are_canonical_or_pseudo_versions():
    """Canonical versions (a missing v added), +incompatible and pseudo-versions are exact."""
    for version in ("v0.9.1", "0.9.1", "v2.0.0+incompatible", "v1.0.0-rc.1", "v0.0.0-20191109021931-daa7c04131f5"):
        assert gomod.is_exact(version), version
    for version in ("latest", "master", "v1.2", "v01.0.0", "v1.0.0+build", "v1.0.0-"):
        assert not gomod.is_exact(version), version
    assert gomod.canonical("0.9.1") == "v0.9.1"
    assert gomod.is_pseudo("v1.2.4-0.20200101000000-abcdefabcdef") and not gomod.is_pseudo("v1.2.4-rc.1")


def test_versions_order_by_semver_with_pseudo_versions_as_prereleases():
    """v1.10.0 > v1.9.0, prereleases below their release, pseudo-versions between their base
    and the next release, +incompatible by its semver."""
    newest_first = ["v2.0.0+incompatible", "v1.10.0", "v1.9.0", "v1.2.4-0.20200101000000-abcdefabcdef",
                    "v1.2.3", "v1.0.0", "v1.0.0-rc.10", "v1.0.0-rc.2", "v1.0.0-alpha",
                    "v0.0.0-20191109021931-daa7c04131f5"]
    shuffled = newest_first[::3] + newest_first[1::3] + newest_first[2::3]
    assert sorted(shuffled, key=gomod.version_key, reverse=True) == newest_first


def test_retract_directives_single_versions_intervals_and_blocks():
    """`retract v`, `retract [lo, hi]` and a parenthesised block, with comments, are read."""
    text = ('module example.com/m\n\ngo 1.21\n\nretract v1.0.1 // published by mistake\n'
            'retract\t[v1.1.0, v1.1.9]\nretract (\n\t"v0.9.0"\n\t[v0.5.0, v0.6.0] // broken\n)\n'
            'retract(\n\tv0.1.0\n)\nretract [garbage, v9.0.0]\n')
    assert gomod.retractions(text) == [("v1.0.1", "v1.0.1"), ("v1.1.0", "v1.1.9"), ("v0.9.0", "v0.9.0"),
                                       ("v0.5.0", "v0.6.0"), ("v0.1.0", "v0.1.0")]


# --- the full chain -------------------------------------------------------------------------------


def test_a_missing_v_is_added_and_the_echo_is_canonical(go):
    """`0.9.1` finds v0.9.1, and the echo says v0.9.1."""
    go.publish(ERRORS, "v0.9.1", ERRORS_FILES)
    assert list_files.run({"registry": "go", "package_name": ERRORS, "version": "0.9.1"})["target"]["version"] == "v0.9.1"


def test_only_the_exact_module_prefix_is_stripped(go):
    """Entries outside `{module}@{version}/` are skipped and reported; the prefix keeps its case."""
    module = "github.com/BurntSushi/toml"
    data = module_zip(module, "v1.6.0", {"decode.go": b"package toml\n", "go.mod": b"module " + module.encode() + b"\n"})
    buf = io.BytesIO(data)
    with zipfile.ZipFile(buf, "a") as archive:
        archive.writestr("github.com/burntsushi/toml@v1.6.0/other.go", b"package toml\n")
    go.publish(module, "v1.6.0", {}, zip_bytes=buf.getvalue())
    result = list_files.run({"registry": "go", "package_name": module, "version": "v1.6.0"})
    assert [f["path"] for f in result["files"]] == ["decode.go", "go.mod"]
    assert result["skipped"]["count"] == 1
    assert any(s.path == "/proxy/github.com/!burnt!sushi/toml/@v/v1.6.0.zip" for s in go.server.seen)


def test_latest_is_the_highest_release_not_retracted(go):
    """No version: the highest release of the unordered list, skipping what the latest go.mod
    retracts (here that version itself and an interval)."""
    module = "example.com/lib"
    retract = "module example.com/lib\n\nretract (\n\tv1.3.0 // oops\n\t[v1.2.0, v1.2.9]\n)\n"
    for version in ("v1.0.0", "v1.1.0", "v1.2.0", "v1.2.5", "v1.10.0-rc.1"):
        go.publish(module, version, {"lib.go": version.encode()})
    go.publish(module, "v1.3.0", {"lib.go": b"v1.3.0"}, gomod=retract)
    result = list_files.run({"registry": "go", "package_name": module})
    assert result["target"]["version"] == "v1.1.0"
    # A pinned retracted version is still served.
    assert read_file.run({"registry": "go", "package_name": module, "version": "v1.2.5",
                          "path": "lib.go"})["content"] == "v1.2.5"


def test_latest_falls_back_to_the_highest_prerelease_then_to_at_latest(go):
    """Without releases the highest prerelease is latest; with an empty list, @latest's pseudo-version."""
    go.publish("example.com/pre", "v0.1.0-beta.2", {"a.go": b"b2"})
    go.publish("example.com/pre", "v0.1.0-beta.10", {"a.go": b"b10"})
    assert list_files.run({"registry": "go", "package_name": "example.com/pre"})["target"]["version"] == "v0.1.0-beta.10"
    pseudo = "v0.0.0-20191109021931-daa7c04131f5"
    go.publish("example.com/head", pseudo, {"a.go": b"head"}, listed=False)
    go.latest["example.com/head"] = pseudo
    assert list_files.run({"registry": "go", "package_name": "example.com/head"})["target"]["version"] == pseudo
    assert any(s.path == "/proxy/example.com/head/@v/list" for s in go.server.seen)


def test_a_pinned_pseudo_version_that_is_not_listed_is_served(go):
    """A pseudo-version is never in @v/list, yet pinning it finds its .info and zip."""
    pseudo = "v0.0.0-20191109021931-daa7c04131f5"
    go.publish("example.com/head", pseudo, {"a.go": b"head"}, listed=False)
    assert files_of(registry="go", package_name="example.com/head", version=pseudo) == ["a.go", "go.mod"]


def test_incompatible_versions_are_served_as_published(go):
    """A v2+ tag of a module without go.mod is `+incompatible`, and its .mod is synthesised."""
    go.publish("github.com/old/lib", "v2.1.0+incompatible", {"lib.go": b"package lib\n"}, gomod=None)
    result = list_files.run({"registry": "go", "package_name": "github.com/old/lib", "version": "v2.1.0+incompatible"})
    assert [f["path"] for f in result["files"]] == ["lib.go"] and result["target"]["verified"] is True


# --- errors -----------------------------------------------------------------------------------


def test_an_unknown_version_lists_versions_in_semver_order(go):
    """VERSION_NOT_FOUND lists the releases nearest first in semver order (not string order),
    without retracted ones, and names latest; a 410 counts as missing too."""
    go.missing_status = 410
    module = "example.com/many"
    for version in ("v1.9.0", "v1.10.0", "v1.2.0", "v1.10.1", "v1.10.2-rc.1"):
        go.publish(module, version, {"a.go": b""})
    go.publish(module, "v1.11.0", {"a.go": b""}, gomod=f"module {module}\nretract v1.11.0\n")
    err = list_error(registry="go", package_name=module, version="v1.10.5")
    assert err.code == "VERSION_NOT_FOUND"
    # v1.11.0 retracts itself in its own go.mod, the newest one: it is neither offered nor latest.
    assert err.details["availableVersions"] == ["v1.10.1", "v1.10.0", "v1.9.0", "v1.2.0"]
    assert err.details["latest"] == "v1.10.1"
    assert list_error(registry="go", package_name=module, version="master").code == "VERSION_NOT_FOUND"


@pytest.mark.hardening
@pytest.mark.parametrize("where", ["first", "middle"])
def test_one_changed_byte_of_the_zip_itself_is_an_integrity_error(go, where, tmp_path):
    """A byte of the zip's own structure changed (its first header, its middle) changes what it
    holds: INTEGRITY_ERROR naming h1, not retryable, nothing cached."""
    data = go.publish(ERRORS, "v0.9.1", ERRORS_FILES)
    at = {"first": 0, "middle": len(data) // 2}[where]
    go.modules[ERRORS]["v0.9.1"].zip = data[:at] + bytes([data[at] ^ 1]) + data[at + 1:]
    err = list_error(registry="go", package_name=ERRORS, version="v0.9.1")
    assert (err.code, err.retryable) == ("INTEGRITY_ERROR", False) and "h1" in err.message
    assert_nothing_cached(tmp_path / "cache")


@pytest.mark.hardening
def test_a_zip_changed_where_no_file_is_serves_exactly_the_published_files(go):
    """h1 covers names and contents, not container bytes (as in Go): the last byte of the zip (the
    end record's comment length) changes neither, so exactly the published files are served."""
    data = go.publish(ERRORS, "v0.9.1", ERRORS_FILES)
    go.modules[ERRORS]["v0.9.1"].zip = data[:-1] + bytes([data[-1] ^ 1])
    assert files_of(registry="go", package_name=ERRORS, version="v0.9.1") == sorted([*ERRORS_FILES, "go.mod"])


def test_a_tree_note_with_a_bad_signature_is_an_integrity_error(go):
    """A lookup whose signed note does not verify with the configured key is refused."""
    go.publish(ERRORS, "v0.9.1", ERRORS_FILES)
    go.tamper_note = True
    err = list_error(registry="go", package_name=ERRORS, version="v0.9.1")
    assert err.code == "INTEGRITY_ERROR" and "not signed" in err.message


def test_a_record_outside_the_signed_tree_is_an_integrity_error(go):
    """A lookup whose go.sum lines (here: the h1 of a replaced zip) are not the record the
    signed tree holds fails the inclusion proof, although the h1 matches the zip."""
    go.publish(ERRORS, "v0.9.1", ERRORS_FILES)
    go.modules[ERRORS]["v0.9.1"].zip = module_zip(ERRORS, "v0.9.1", {"evil.go": b"package errors\n"})
    go.forge_record = True
    err = list_error(registry="go", package_name=ERRORS, version="v0.9.1")
    assert err.code == "INTEGRITY_ERROR" and "not in the tree" in err.message
    assert any(s.path.startswith("/sumdb/tile/8/1/") for s in go.server.seen)


def test_the_inclusion_proof_holds_for_every_record_of_a_tree(go):
    """Records at many positions of trees of many sizes (partial tiles of levels 0 and 1) prove
    against the fake's root, computed by RFC 6962's definition."""
    for count in (1, 2, 3, 5, 17):
        for i in range(count):
            go.publish(f"example.com/p{count}", f"v1.0.{i}", {"a.go": b"package a\n"})
    size = len(go.log)
    root = go._mth([go._leaf(r) for r in go.log])
    tiles = gosumdb.Tiles(go.sumdb_url, size)
    for index in (0, 1, 255, 256, 299, 300, size - 2, size - 1):
        leaf = go._leaf(go.log[index])
        assert tiles.root_with(index, 0, size, leaf) == root, index
        assert tiles.root_with(index, 0, size, go._leaf(b"other\n")) != root


def test_tile_paths_group_the_index_by_three_digits():
    """Tile N=1234067 of level 2 is tile/8/2/x001/x234/067; a partial one ends in .p/W."""
    assert gosumdb.tile_path(2, 1234067, 256) == "tile/8/2/x001/x234/067"
    assert gosumdb.tile_path(0, 5, 17) == "tile/8/0/005.p/17"


def test_a_note_signed_by_another_key_is_an_integrity_error(go, monkeypatch):
    """The note must carry a signature by the configured key, not any key of the same name."""
    go.publish(ERRORS, "v0.9.1", ERRORS_FILES)
    monkeypatch.setenv("CODENAV_GOSUMDB", f"{NoteKey('sum.example.test').verifier} {go.sumdb_url}")
    assert list_error(registry="go", package_name=ERRORS, version="v0.9.1").code == "INTEGRITY_ERROR"


# --- verification settings -------------------------------------------------------------------------

def test_a_plain_sumdb_url_is_trusted_over_the_connection_only(go, monkeypatch):
    """CODENAV_GOSUMDB as a base URL checks the h1 and says the note is not verified."""
    go.publish(ERRORS, "v0.9.1", ERRORS_FILES)
    monkeypatch.setenv("CODENAV_GOSUMDB", go.sumdb_url)
    target = list_files.run({"registry": "go", "package_name": ERRORS, "version": "v0.9.1"})["target"]
    assert target["verified"] is True and "note signature is not verified" in target["verification"]


@pytest.mark.parametrize("variable,value,reason", [
    ("GOPRIVATE", "github.com/pkg", "matches GOPRIVATE"),
    ("GONOSUMDB", "github.com/*/errors", "matches GONOSUMDB"),
    ("GOSUMDB", "off", "GOSUMDB is off"),
    ("GONOSUMCHECK", "1", "GONOSUMCHECK=1"),
    ("GOFLAGS", "-mod=mod -insecure", "-insecure"),
])
def test_private_or_unchecked_modules_are_not_verified_and_say_why(go, monkeypatch, variable, value, reason):
    """GOPRIVATE/GONOSUMDB matches, GOSUMDB=off, GONOSUMCHECK and -insecure skip the database:
    verified is false with the reason, and no lookup is made."""
    go.publish(ERRORS, "v0.9.1", ERRORS_FILES)
    if variable == "GOSUMDB":
        monkeypatch.delenv("CODENAV_GOSUMDB")
    monkeypatch.setenv(variable, value)
    target = list_files.run({"registry": "go", "package_name": ERRORS, "version": "v0.9.1"})["target"]
    assert target["verified"] is False and reason in target["verification"]
    assert target["verification"].startswith("not verified: ")
    assert not any("lookup" in s.path for s in go.server.seen)


def test_codenav_gosumdb_beats_gosumdb_and_the_go_env_file(go, monkeypatch):
    """CODENAV_GOSUMDB wins over GOSUMDB=off in the environment and in the `go env -w` file;
    without it GOSUMDB decides (the file's value when the environment has none)."""
    go.publish(ERRORS, "v0.9.1", ERRORS_FILES)
    env_file = Path(os.environ["XDG_CONFIG_HOME"]) / "go" / "env"
    env_file.parent.mkdir(parents=True)
    env_file.write_text("GOSUMDB=off\n")
    monkeypatch.setenv("GOSUMDB", "off")
    args = {"registry": "go", "package_name": ERRORS, "version": "v0.9.1"}
    assert list_files.run(args)["target"]["verified"] is True
    monkeypatch.delenv("CODENAV_GOSUMDB")
    monkeypatch.setenv("GOSUMDB", go.gosumdb())
    assert gosumdb.unchecked_reason(ERRORS) is None
    monkeypatch.delenv("GOSUMDB")
    assert gosumdb.unchecked_reason(ERRORS) == "GOSUMDB is off: the checksum database is not consulted"


def test_the_sumdb_is_reached_through_the_proxy_when_it_mirrors_it(go, monkeypatch):
    """Without a URL in GOSUMDB, a proxy answering /sumdb/<name>/supported serves the lookups."""
    go.publish(ERRORS, "v0.9.1", ERRORS_FILES)
    go.mirror_sumdb = True
    monkeypatch.setenv("CODENAV_GOSUMDB", go.key.verifier)
    assert list_files.run({"registry": "go", "package_name": ERRORS, "version": "v0.9.1"})["target"]["verified"]
    assert any(s.path == f"/proxy/sumdb/sum.example.test/lookup/{ERRORS}@v0.9.1" for s in go.server.seen)


def test_an_unknown_database_name_without_a_key_is_a_config_error(go, monkeypatch):
    """GOSUMDB naming a database codenav has no key for is CONFIG_ERROR."""
    go.publish(ERRORS, "v0.9.1", ERRORS_FILES)
    monkeypatch.setenv("CODENAV_GOSUMDB", "sum.example.test")
    assert list_error(registry="go", package_name=ERRORS, version="v0.9.1").code == "CONFIG_ERROR"


# --- endpoint discovery and GOPROXY lists ----------------------------------------------------------

def test_codenav_variable_beats_goproxy_beats_the_go_env_file_beats_the_default(monkeypatch, tmp_path):
    """CODENAV_GOPROXY, then GOPROXY, then the `go env -w` file in the user config dir, then
    the public default."""
    assert gomod.endpoint() == "https://proxy.golang.org/,direct"
    env_file = Path(os.environ["XDG_CONFIG_HOME"]) / "go" / "env"
    env_file.parent.mkdir(parents=True)
    env_file.write_text("GOPROXY=http://file.example/p|direct\nGOSUMDB=off\n")
    assert gomod.endpoint() == "http://file.example/p/|direct"
    monkeypatch.setenv("GOPROXY", "http://env.example,off")
    assert gomod.endpoint() == "http://env.example/,off"
    monkeypatch.setenv("CODENAV_GOPROXY", "http://codenav.example/x")
    assert gomod.endpoint() == "http://codenav.example/x/"
    other = tmp_path / "goenv"
    other.write_text("GOPROXY='http://goenv.example'\n")
    monkeypatch.delenv("CODENAV_GOPROXY")
    monkeypatch.delenv("GOPROXY")
    monkeypatch.setenv("GOENV", str(other))
    assert gomod.endpoint() == "http://goenv.example/"


def test_the_go_env_file_supplies_gosumdb_and_goprivate(go, monkeypatch):
    """GOPRIVATE written by `go env -w` makes the module private (not verified)."""
    go.publish(ERRORS, "v0.9.1", ERRORS_FILES)
    env_file = Path(os.environ["XDG_CONFIG_HOME"]) / "go" / "env"
    env_file.parent.mkdir(parents=True)
    env_file.write_text("GOPRIVATE=github.com/pkg/*\n")
    target = list_files.run({"registry": "go", "package_name": ERRORS, "version": "v0.9.1"})["target"]
    assert target["verified"] is False and "GOPRIVATE" in target["verification"]


def test_a_comma_falls_through_on_not_found_and_a_pipe_on_any_error(go, monkeypatch):
    """`dead,good` moves on after a 404; `broken,good` stops at the 500; `broken|good` moves on."""
    go.publish(ERRORS, "v0.9.1", ERRORS_FILES)
    with FakeServer() as other:
        other.route_prefix("GET", "/missing/", lambda h: Reply(404, b"not found\n"))
        other.route_prefix("GET", "/broken/", lambda h: Reply(500, b"oops\n"))
        args = {"registry": "go", "package_name": ERRORS, "version": "v0.9.1"}
        monkeypatch.setenv("CODENAV_GOPROXY", f"{other.url}/missing/,direct,{go.url}")
        assert list_files.run(args)["target"]["verified"] is True
        monkeypatch.setenv("CODENAV_GOPROXY", f"{other.url}/broken/,{go.url}")
        assert list_error(**args).code == "UPSTREAM_ERROR"
        monkeypatch.setenv("CODENAV_GOPROXY", f"{other.url}/broken/|{go.url}")
        assert list_files.run(args)["target"]["version"] == "v0.9.1"
        assert [s.path for s in other.seen].count(f"/broken/{ERRORS}/@v/v0.9.1.info") == 2


@pytest.mark.parametrize("setting,fragment", [("direct", "'direct' means version control"),
                                              ("off", "GOPROXY=off"), ("file:///srv/proxy,direct", "file://")])
def test_proxies_codenav_cannot_use_are_config_errors(monkeypatch, setting, fragment):
    """`direct` only, `off`, and file:// proxies give CONFIG_ERROR saying why."""
    monkeypatch.setenv("GOPROXY", setting)
    err = list_error(registry="go", package_name=ERRORS, version="v0.9.1")
    assert err.code == "CONFIG_ERROR" and fragment in err.message


def test_gonoproxy_modules_would_come_from_version_control(monkeypatch):
    """With Go's own GOPROXY, a GOPRIVATE module is fetched direct by Go: CONFIG_ERROR here."""
    monkeypatch.setenv("GOPROXY", "http://127.0.0.1:9/")
    monkeypatch.setenv("GOPRIVATE", "github.com/pkg")
    err = list_error(registry="go", package_name=ERRORS, version="v0.9.1")
    assert err.code == "CONFIG_ERROR" and "version control" in err.message


# --- live --------------------------------------------------------------------------------------------

@pytest.mark.live
def test_live_pkg_errors_matches_its_published_h1(monkeypatch):
    """The public proxy's github.com/pkg/errors v0.9.1 verifies against the public go.sum h1."""
    if "go" not in os.environ.get("CODENAV_LIVE_REGISTRIES", "").split(","):
        pytest.skip("set CODENAV_LIVE_REGISTRIES=go to reach the public Go proxy")
    monkeypatch.delenv("CODENAV_NO_DISCOVERY", raising=False)
    artifact = gomod.resolve(ERRORS, "v0.9.1")
    assert artifact.verification.expected == "h1:FEBLx1zS214owpjy7qsBeixbURkuhQAwrK5UwLGTwt4="  # the public go.sum line
    result = list_files.run({"registry": "go", "package_name": ERRORS, "version": "v0.9.1"})
    assert result["target"]["verified"] is True
    assert "errors.go" in [f["path"] for f in result["files"]]


def test_the_warm_path_of_the_go_registry_imports_nothing_heavy():
    """Validating a name, testing a version for exactness and finding the endpoint (what a
    warm call does) load no re, json, urllib, fnmatch or hashlib."""
    import sys

    code = ("import sys; before = set(sys.modules); from codenav.registries import go; "
            "go.normalize_name('github.com/pkg/errors'); go.is_exact('v0.9.1'); go.endpoint(); "
            "print(' '.join(sorted(set(sys.modules) - before)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    loaded = set(out.stdout.split())
    assert loaded & {"re", "json", "urllib", "urllib.parse", "fnmatch", "hashlib", "typing", "requests"} == set()
