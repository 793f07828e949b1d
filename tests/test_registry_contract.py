"""The registry contract (registries/base.py): hooks and their defaults, the shared helpers,
one version order per scheme, and a toy registry that is one module and one table line."""

from __future__ import annotations

import hashlib
import io
import tarfile
import types

import pytest

from codenav import registries, targets
from codenav.errors import CodenavError, protocol_error, redact_url, too_large
from codenav.registries import base, pep440, semver
from tests.fakes.http import FakeServer, Reply

# --- hooks and defaults ---------------------------------------------------------------------------

@pytest.mark.parametrize("prefix", registries.names())
def test_a_module_defines_an_optional_hook_only_where_it_differs_from_the_default(prefix):
    """No registry module repeats a default of the contract (ALIASES = (), PACKAGE_MANAGER = None…)."""
    module = registries.load(prefix).module
    repeated = [name for name in base.OPTIONAL
                if name in vars(module) and vars(module)[name] == getattr(base, name)]
    assert repeated == []


def test_a_hook_a_module_leaves_out_is_the_contracts_default():
    """crates defines none of the optional hooks: each reads as the contract's default."""
    crates = registries.load("crates")
    assert (crates.PACKAGE_MANAGER, crates.ARTIFACT_WORDS) == (None, ())
    assert crates.alias_extra("wheel") == ""
    assert crates.top_folder_matches(None, "other-1.0") is False
    assert crates.classify_version("1.0.0") == "exact"
    with pytest.raises(CodenavError) as info:
        crates.classify_version("^1.0")
    assert (info.value.code, info.value.message) == ("INVALID_ARGUMENT", "'^1.0' is not a valid version")


def test_a_module_s_own_hook_wins_over_the_default():
    """npm and pypi define classify_version and PACKAGE_MANAGER; pypi its artifact words."""
    assert registries.load("npm").classify_version("^18") == "range"
    assert registries.load("npm").PACKAGE_MANAGER == "npm"
    assert registries.load("pypi").ARTIFACT_WORDS == ("sdist", "wheel")


def test_a_name_that_is_no_hook_is_refused():
    """Only the contract's hooks are read through it: a module's private helper is not."""
    with pytest.raises(AttributeError, match="not a hook of the registry contract"):
        registries.load("npm").auth_headers  # noqa: B018


def test_a_module_without_a_required_hook_is_refused():
    """A module that lacks a required hook is a TypeError naming what is missing."""
    module = types.ModuleType("codenav.registries.half")
    module.PREFIX, module.WHAT = "half", "the half registry"
    with pytest.raises(TypeError, match="lacks ENDPOINT_VARIABLE, normalize_name"):
        base.Registry(module)


# --- one version order per scheme -------------------------------------------------------------------

LOCAL = ["1.0.post1", "v1.0", "1.0+local.1", "1.0", "1.0+cpu", "1.0rc1", "0.9", "1.0.dev0", "1.0+Local_2", "1!0.1",
         "1.0.0", "2.0+ubuntu.2", "V2.0"]


def test_pypi_sorts_local_versions_and_v_prefixes_as_pip():
    """PyPI's availableVersions order is pip's vendored packaging order: 1.0+local after 1.0, v1.0 == 1.0."""
    packaging = pytest.importorskip("pip._vendor.packaging.version")
    pypi = registries.load("pypi")
    assert sorted(LOCAL, key=pypi.version_key) == sorted(LOCAL, key=packaging.Version)
    assert pypi.version_key("1.0+local") == pep440.sort_key("1.0+local")
    assert pep440.release("v1.0") == pep440.release("1.0.0") != pep440.release("1.0+local")


SEMVER = ["1.0.0", "1.0.0-rc.1", "1.0.0-alpha", "0.9.9", "1.0.0-alpha.10", "1.0.0-alpha.2", "2.0.0+build", "10.0.0",
          "1.0.0-beta", "not.a.version"]


@pytest.mark.parametrize("prefix", ["npm", "crates", "hex"])
def test_the_semver_registries_share_npm_s_order(prefix):
    """npm, crates and Hex sort with semver.sort_key, the order tests/test_semver.py checks against node-semver."""
    assert sorted(SEMVER, key=registries.load(prefix).version_key) == sorted(SEMVER, key=semver.sort_key)


def test_go_sorts_by_semver_with_its_v():
    """Go's versions carry a v; their order is semver's all the same."""
    valid = [v for v in SEMVER if semver.parse(v)]
    ordered = sorted(("v" + v for v in valid), key=registries.load("go").version_key)
    assert [v[1:] for v in ordered] == sorted(valid, key=semver.sort_key)


# --- the helpers ----------------------------------------------------------------------------------

def test_the_ladder_takes_the_variable_then_the_configuration_then_the_default(monkeypatch):
    """The first variable set wins, cleaned; else the configuration; else the default as written."""
    def ladder(configured):
        return base.ladder(("A_VAR", "B_VAR"), lambda: configured, "https://default.test/")

    assert ladder(None) == "https://default.test/"
    assert ladder('"https://config.test"') == "https://config.test/"
    monkeypatch.setenv("B_VAR", "https://b.test")
    assert ladder("https://config.test") == "https://b.test/"
    monkeypatch.setenv("A_VAR", "https://a.test/x")
    assert ladder("https://config.test") == "https://a.test/x/"
    assert base.ladder(("A_VAR",), lambda: None, "d", tidy=str.upper) == "HTTPS://A.TEST/X"


def test_latest_skips_withdrawn_versions_and_prereleases_while_a_release_is_left():
    """latest(): the highest live release, else the highest live prerelease, else None."""
    def pick(versions, withdrawn=()):
        return base.latest(versions, semver.sort_key, prerelease=semver.is_prerelease,
                           withdrawn=set(withdrawn).__contains__)

    assert pick(["1.0.0", "2.0.0", "3.0.0-rc.1"]) == "2.0.0"
    assert pick(["1.0.0", "2.0.0", "3.0.0-rc.1"], ["2.0.0"]) == "1.0.0"
    assert pick(["1.0.0", "3.0.0-rc.1"], ["1.0.0"]) == "3.0.0-rc.1"
    assert pick(["1.0.0"], ["1.0.0"]) is None


def test_version_not_found_lists_the_nearest_versions_first():
    """VERSION_NOT_FOUND says what is latest and offers the versions sharing most leading numbers first."""
    error = base.version_not_found("crate 'x' has no version '4.21.9'", "4.21.9",
                                   ["5.1.0", "4.21.2", "4.20.0", "4.21.1"], "5.1.0", semver.sort_key, " (note)")
    assert error.to_envelope() == {"error": {
        "code": "VERSION_NOT_FOUND", "message": "crate 'x' has no version '4.21.9'; latest is 5.1.0 (note)",
        "retryable": False, "details": {"availableVersions": ["4.21.2", "4.21.1", "4.20.0", "5.1.0"], "latest": "5.1.0",
                                        "action": "pick one of availableVersions, or omit the version for latest"}}}


def test_a_digest_that_is_not_hex_of_its_length_is_refused():
    """require_digest: lower-cased hex of the right length, else INTEGRITY_ERROR naming what is missing."""
    assert base.require_digest("AB" * 32, "x") == "ab" * 32
    for bad in (None, "ab" * 31, "zz" * 32, "ab" * 32 + "\n"):
        with pytest.raises(CodenavError) as info:
            base.require_digest(bad, "the index gives no sha256 for x 1.0")
        assert info.value.message == "the index gives no sha256 for x 1.0; refusing to use it"


@pytest.mark.parametrize(("url", "shown"), [
    ("https://user:secret@host.test:8/x?q=a@b", "https://***@host.test:8/x?q=a@b"),
    ("https://token@host.test", "https://***@host.test"),
    ("http://a@b@host.test/p", "http://***@host.test/p"),
    ("ssh://git@host.test/r.git", "ssh://git@host.test/r.git"),
    ("ssh://git:pw@host.test/r.git", "ssh://***@host.test/r.git"),
    ("git@host.test:o/r.git", "git@host.test:o/r.git"),
    ("proxy.test:3128", "proxy.test:3128"),
    ("https://host.test/p?u=a@b", "https://host.test/p?u=a@b"),
])
def test_one_redactor_hides_credentials_in_any_url(url, shown):
    """redact_url hides user:password and tokens before @, keeps ssh logins, and leaves the rest."""
    assert redact_url(url) == shown


def test_the_error_builders_make_the_envelopes_sites_used_to_write_by_hand():
    """too_large and protocol_error give the code, the message and the details as given, in order."""
    assert too_large("x is big", limit=5, variable="V").to_envelope() == {
        "error": {"code": "TOO_LARGE", "message": "x is big", "retryable": False,
                  "details": {"limit": 5, "variable": "V"}}}
    assert protocol_error("odd").to_envelope() == {
        "error": {"code": "PROTOCOL_ERROR", "message": "odd", "retryable": False}}


# --- a toy registry: one module, one table line -----------------------------------------------------

def _toy_module() -> types.ModuleType:
    """A whole registry in the words of the contract: a JSON index {versions: {V: {url, sha256, yanked}}}."""
    from codenav.errors import invalid
    from codenav.registries.artifact import Artifact, Unpack, Verification

    toy = types.ModuleType("codenav.registries.toy")
    toy.PREFIX, toy.WHAT, toy.ENDPOINT_VARIABLE = "toy", "the toy index", "CODENAV_TOY_INDEX"
    http = base.Client(toy.WHAT)

    def normalize_name(name: str) -> str:
        if not name.isalnum():
            raise invalid(f"{name!r} is not a toy name", "package_name")
        return name.lower()

    def resolve(name: str, wanted: str | None) -> Artifact:
        doc = http.json(f"{toy.endpoint()}{name}.json", 1 << 20, f"the index of {name!r}", obj=True,
                        not_found=CodenavError("NOT_FOUND", f"toy {name!r} was not found"))
        versions = doc["versions"]
        newest = base.latest(versions, semver.sort_key, prerelease=semver.is_prerelease,
                             withdrawn=lambda v: versions[v].get("yanked", False))
        version = wanted or newest
        if version not in versions:
            live = [v for v in versions if not versions[v].get("yanked")]
            raise base.version_not_found(f"toy {name!r} has no version {wanted!r}", wanted, live, newest, semver.sort_key)
        entry = versions[version]
        digest = base.require_digest(entry.get("sha256"), f"the toy index gives no sha256 for {name} {version}")
        return Artifact(toy.PREFIX, name, version, f"{name}-{version}.tgz", entry["url"],
                        Unpack("tar", strip_components=1), Verification("digest", "sha256", digest, "the toy index's sha256"))

    toy.normalize_name, toy.is_exact, toy.resolve, toy.version_key = normalize_name, base.is_semver, resolve, semver.sort_key
    toy.endpoint = lambda: base.ladder((toy.ENDPOINT_VARIABLE,), lambda: None, "https://toy.invalid/")
    return toy


def _tgz(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@pytest.fixture()
def toy(monkeypatch):
    """The toy registry on a fake index: its module, plus one line in TABLE (and the target grammar's copy)."""
    monkeypatch.setitem(registries.TABLE, "toy", "toy")
    monkeypatch.setattr(registries, "toy", _toy_module(), raising=False)
    monkeypatch.setattr(targets, "REGISTRIES", registries.names())
    with FakeServer() as server:
        tarballs = {"1.0.0": _tgz({"index.js": b"one\n"}), "1.1.0": _tgz({"index.js": b"two\n", "lib/x.js": b"x\n"}),
                    "2.0.0-rc.1": _tgz({"index.js": b"rc\n"})}
        index = {"versions": {v: {"url": f"{server.url}/t/demo-{v}.tgz", "sha256": hashlib.sha256(data).hexdigest()}
                              for v, data in tarballs.items()}}
        index["versions"]["1.1.0"]["yanked"] = True
        server.route("GET", "/index/demo.json", lambda handler: Reply.json(index))
        for version, data in tarballs.items():
            server.route("GET", f"/t/demo-{version}.tgz", lambda handler, data=data: Reply(200, data))
        monkeypatch.setenv("CODENAV_TOY_INDEX", server.url + "/index/")
        yield index


def _index(args: dict) -> None:
    """Index in this process (the indexer subprocess would not know a registry made in the test)."""
    from codenav.cache import aliases, indexing

    target = targets.from_args(args)
    alias, ttl = aliases.alias_of(target)
    indexing.build({"kind": "package", "registry": target.registry, "name": target.name,
                    "version": target.version, "ttl": ttl, "alias": alias})


def test_a_toy_registry_is_read_through_the_whole_chain(toy):
    """One module and one table line: latest skips the yanked 1.1.0 and the prerelease, a pin
    reads the yanked one, and the files come out through list_files and read_file verified."""
    from codenav.tools import list_files, read_file

    _index({"registry": "toy", "package_name": "Demo"})
    listed = list_files.run({"registry": "toy", "package_name": "Demo"})
    assert (listed["target"]["version"], listed["target"]["verified"]) == ("1.0.0", True)
    assert [f["path"] for f in listed["files"]] == ["index.js"]
    _index({"registry": "toy", "package_name": "demo", "version": "1.1.0"})
    read = read_file.run({"registry": "toy", "package_name": "demo", "version": "1.1.0", "path": "lib/x.js"})
    assert read["content"] == "x\n"


def test_a_toy_registry_s_errors_are_the_contract_s(toy):
    """An unknown version is VERSION_NOT_FOUND with the live versions, a bad digest INTEGRITY_ERROR."""
    with pytest.raises(CodenavError) as info:
        _index({"registry": "toy", "package_name": "demo", "version": "9.0.0"})
    assert info.value.code == "VERSION_NOT_FOUND"
    assert info.value.details["availableVersions"] == ["2.0.0-rc.1", "1.0.0"]  # the yanked 1.1.0 is not offered
    toy["versions"]["1.0.0"]["sha256"] = "0" * 64
    with pytest.raises(CodenavError) as info:
        _index({"registry": "toy", "package_name": "demo", "version": "1.0.0"})
    assert info.value.code == "INTEGRITY_ERROR"
