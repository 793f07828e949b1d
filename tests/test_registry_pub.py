"""pub: what is peculiar to it — the hosted API's version listing, archive_sha256, retracted
versions, pub_semver's order and constraints, PUB_HOSTED_URL and pubspec.lock — against the fake
repository. Dart is not installable here: the orderings and constraints are checked against the
cases of pub_semver's own tests (dart-lang/pub_semver 960f913, test/version_test.dart,
test/version_constraint_test.dart). The chain through both surfaces, hostile archives, integrity,
faults, bad names and the live read are the conformance kit's (tests/support/adapters/pub.py)."""

from __future__ import annotations

import json

import pytest

from codenav.errors import CodenavError
from codenav.lockfiles import pubspec
from codenav.lockfiles._common import REGISTRY, ROOT_DIRECT, TRANSITIVE, LockfileError
from codenav.registries import pub, pubver
from codenav.tools import list_files
from tests.fakes.http import FakeServer, Reply
from tests.fakes.pub import FakePub, make_archive
from tests.support.cache import error_of as failure
from tests.support.cli import ROOT, run_cli
from tests.support.registries import fake_fixture

CODE = b"String hello() => 'Hello from demo';\n"


repo = fake_fixture("pub")  # the kit's adapter: CODENAV_PUB_URL at the fake


def resolved(**args) -> dict:
    return list_files.run({"registry": "pub", **args})


def error_of(**args) -> CodenavError:
    return failure(list_files.run, {"registry": "pub", **args})


# --- retracted versions --------------------------------------------------------------------------


def test_a_pinned_retracted_version_is_read_and_says_so(repo):
    """A retracted version is never latest, but a pin reads it: target.yanked says it was retracted, and
    plain mode warns on stderr."""
    repo.publish("demo", "1.1.0", {"lib/demo.dart": CODE})
    repo.publish("demo", "1.2.0", {"lib/demo.dart": b"broken\n"}, retracted=True)
    proc = run_cli("files", "pub:demo@1.2.0", "--json")
    assert json.loads(proc.stdout)["target"]["yanked"].startswith("retracted by its publisher")
    plain = run_cli("files", "pub:demo@1.2.0")
    assert "warning: pub:demo@1.2.0 is yanked: retracted by its publisher" in plain.stderr.decode()
    latest = json.loads(run_cli("files", "pub:demo", "--json").stdout)["target"]
    assert (latest["version"], "yanked" in latest) == ("1.1.0", False)


# --- pub_semver: order, equality, constraints -----------------------------------------------------

# version_test.dart "comparison": a correctly sorted list (build metadata counts in pub's order).
PUB_ORDER = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0-rc.1+build.1",
             "1.0.0", "1.0.0+0.3.7", "1.3.7+build", "1.3.7+build.2.b8f12d7", "1.3.7+build.11.e0f985a", "2.0.0",
             "2.1.0", "2.2.0", "2.11.0", "2.11.1"]


def test_every_pair_compares_as_pub_semver_compare_to():
    """Each pair of pub_semver's sorted list compares in list order, build metadata included."""
    for i, a in enumerate(PUB_ORDER):
        for j, b in enumerate(PUB_ORDER):
            ka, kb = pub.version_key(a), pub.version_key(b)
            assert ((ka > kb) - (ka < kb)) == ((i > j) - (i < j)), (a, b)


@pytest.mark.parametrize("a,b", [("01.2.3", "1.2.3"), ("1.02.3", "1.2.3"), ("1.2.03", "1.2.3"),
                                 ("1.2.3-01", "1.2.3-1"), ("1.2.3+01", "1.2.3+1")])
def test_leading_zeros_are_numbers_as_in_pub_semver_equality(a, b):
    assert pub.version_key(a) == pub.version_key(b)


@pytest.mark.parametrize("constraint,allows,refuses", [
    # version_constraint_test.dart "parse()"
    ("1.2.3-alpha", ["1.2.3-alpha"], ["1.2.3", "1.2.3-alpha+1"]),
    ("any", ["0.0.0", "0.0.0-blah", "1.2.3", "12345.678.90"], []),
    (">1.2.3", ["1.2.3+foo", "1.2.4"], ["1.2.1", "1.2.3-build", "1.2.3"]),
    (">=1.2.3", ["1.2.3", "1.2.3+foo", "1.2.4"], ["1.2.1", "1.2.3-build"]),
    ("<1.2.3", ["1.2.1", "1.2.2+foo"], ["1.2.3", "1.2.3+foo", "1.2.4"]),
    ("<=1.2.3", ["1.2.1", "1.2.3-build", "1.2.3"], ["1.2.3+foo", "1.2.4"]),
    (">1.0.0 >=1.2.3 <1.3.0", ["1.2.3", "1.2.5"], ["1.2.3-pre", "1.3.0", "3.4.5"]),
    (">=1.0.0-dev.2 <1.0.0", ["1.0.0-dev.2", "1.0.0-dev.3"], ["1.0.0-dev.1", "1.0.0"]),
    (" >1.0.0>=1.2.3 < 1.3.0", ["1.2.3", "1.2.5"], ["1.2.3-pre", "1.3.0", "3.4.5"]),
    (" ^ 1.2.3 ", ["1.2.3", "1.9.9"], ["2.0.0", "1.2.2"]),
    # README: a "<" maximum refuses its own prereleases; ^ keeps the left-most non-zero part below 1.0.0
    (">=1.0.0 <2.0.0", ["1.0.0", "1.5.0-beta"], ["2.0.0-alpha", "2.0.0-beta", "2.0.0"]),
    ("<2.0.0-beta", ["2.0.0-alpha"], ["2.0.0-beta"]),
    (">2.0.0-alpha <2.0.0", ["2.0.0-beta"], ["2.0.0-alpha", "2.0.0"]),
    ("^0.0.3", ["0.0.3", "0.0.9"], ["0.1.0", "0.1.0-0"]),
    ("^0.7.2", ["0.7.2", "0.7.9"], ["0.8.0", "0.8.0-dev"]),
    ("^1.2.3", ["1.2.3", "1.99.0"], ["2.0.0-0", "2.0.0"]),
    (">=2.0.0 <1.0.0", [], ["1.5.0", "2.0.0"]),
])
def test_constraints_allow_what_pub_semver_allows(constraint, allows, refuses):
    """Cases from pub_semver's tests and README, one allows()/doesNotAllow() each."""
    parsed = pubver.parse_constraint(constraint)
    assert [v for v in allows if parsed.allows(pubver.parse(v))] == allows
    assert [v for v in refuses if parsed.allows(pubver.parse(v))] == []


@pytest.mark.parametrize("text", ["", "   ", "foo", ">foo", "^foo", "1.0.0 foo", "1.0.0foo", "anything", "<>1.0.0",
                                  "1.0.0<", "any 1.0.0", ">=1.2.3 ^1.0.0", "^1.0.0 <1.2.3", "~1.0.0", "1.0"])
def test_what_pub_semver_refuses_is_an_invalid_argument(text):
    """pub_semver's "throws FormatException on a bad string" cases, and ^ mixed with others."""
    with pytest.raises(CodenavError) as info:
        pubver.parse_constraint(text)
    assert (info.value.code, info.value.details["field"]) == ("INVALID_ARGUMENT", "version")


def test_best_takes_a_release_before_any_prerelease_as_pubs_solver_does():
    """README "pre-release versions are avoided when possible": 1.2.0 over 1.3.0-experimental; a
    prerelease only when nothing else is allowed."""
    versions = ["1.0.0", "1.2.0-alpha", "1.2.0", "1.3.0-experimental"]
    assert pubver.best(versions, pubver.parse_constraint("any")) == "1.2.0"
    assert pubver.best(versions, pubver.parse_constraint(">=1.2.1")) == "1.3.0-experimental"
    assert pubver.best(versions, pubver.parse_constraint("^2.0.0")) is None


def test_latest_and_ranges_skip_retracted_versions_and_prefer_releases(repo):
    """Latest is the highest release that is not retracted; a prerelease only when asked for or nothing else."""
    for version, retracted in (("1.0.0", False), ("1.5.0", True), ("2.0.0-dev.1", False)):
        repo.publish("pick", version, {"lib/p.dart": version.encode()}, retracted=retracted)
    assert resolved(package_name="pick")["target"]["version"] == "1.0.0"
    assert resolved(package_name="pick", version="^1.0.0")["target"]["version"] == "1.0.0"
    assert resolved(package_name="pick", version=">=2.0.0-0")["target"]["version"] == "2.0.0-dev.1"
    err = error_of(package_name="pick", version=">=1.1.0 <2.0.0")
    assert (err.code, err.details["availableVersions"]) == ("VERSION_NOT_FOUND", ["2.0.0-dev.1", "1.0.0"])
    assert "retracted version is read only when pinned" in err.message


def test_a_pin_matches_by_pubs_equality_and_build_metadata_tells_versions_apart(repo):
    """`01.0.0` names the published `1.0.0`; `1.0.0+2` is its own version, after `1.0.0+1`."""
    for version in ("1.0.0", "1.0.0+1", "1.0.0+2"):
        repo.publish("builds", version, {"lib/b.dart": version.encode()})
    assert resolved(package_name="builds", version="01.0.0")["target"]["version"] == "1.0.0"
    assert resolved(package_name="builds", version="1.0.0+2")["target"]["version"] == "1.0.0+2"
    assert resolved(package_name="builds")["target"]["version"] == "1.0.0+2"  # the highest, by pub's order


@pytest.mark.parametrize("spec,kind", [("1.2.3", "exact"), ("1.2.3-dev+4", "exact"), ("^1.2.3", "range"),
                                       (">=1.0.0 <2.0.0", "range"), ("any", "range")])
def test_versions_and_constraints_are_classified_as_pub_writes_them(spec, kind):
    assert pub.classify_version(spec) == kind


# --- the listing and the archive ------------------------------------------------------------------


def test_the_listing_is_asked_for_with_pubs_accept_header_and_read_gzipped(repo):
    """`Accept: application/vnd.pub.v2+json`; the fake gzips the listing as pub.dev does, and it is read."""
    repo.publish("gz", "1.0.0", {"lib/g.dart": b""})
    assert resolved(package_name="gz")["target"]["version"] == "1.0.0"
    listing = next(s for s in repo.server.seen if s.path == "/api/packages/gz")
    assert listing.headers["accept"] == "application/vnd.pub.v2+json"
    assert "gzip" in listing.headers["accept-encoding"]


def test_a_missing_archive_sha256_is_read_unverified_and_a_malformed_one_is_refused(repo):
    """archive_sha256 is optional in the repository spec: without it verified is false, saying why; a
    value that is no sha256 is INTEGRITY_ERROR and the archive is never fetched."""
    repo.publish("nosha", "1.0.0", {}, sha256=None)
    target = resolved(package_name="nosha")["target"]
    assert (target["verified"], target["verification"]) == (
        False, "not verified: the repository gives no archive_sha256 for nosha 1.0.0 (the field is optional in "
               "pub's repository spec)")
    repo.publish("badsha", "1.0.0", {}, sha256="abc")
    hits = repo.archive_hits
    assert error_of(package_name="badsha").code == "INTEGRITY_ERROR"
    assert repo.archive_hits == hits


def test_an_archive_url_elsewhere_is_followed_and_one_that_is_not_http_is_refused(repo):
    """archive_url may point anywhere over http(s) (a relative one is read against the listing); a
    file: or ftp: URL is PROTOCOL_ERROR before anything is fetched."""
    repo.publish("moved", "1.0.0", {"lib/m.dart": b""})
    listing = repo.listing("moved")
    listing["versions"][0]["archive_url"] = "../archives/moved-1.0.0.tar.gz"
    repo.server.route("GET", "/api/packages/moved", lambda h: Reply.json(listing))
    assert resolved(package_name="moved")["target"]["version"] == "1.0.0"
    assert "/api/archives/moved-1.0.0.tar.gz" in [s.path for s in repo.server.seen]
    listing = dict(listing, versions=[dict(listing["versions"][0], archive_url="file:///etc/passwd")])
    repo.server.route("GET", "/api/packages/moved", lambda h: Reply.json(listing))
    assert error_of(package_name="moved", version="1.0.0").code == "PROTOCOL_ERROR"


@pytest.mark.parametrize("body", [{"name": "x"}, {"versions": {"1.0.0": {}}}, {"versions": [{"version": "1.0.0"}]},
                                  ["not", "an", "object"]])
def test_a_listing_without_versions_and_archive_urls_is_a_protocol_error(repo, body):
    repo.server.route("GET", "/api/packages/odd", lambda h: Reply.json(body))
    assert error_of(package_name="odd").code == "PROTOCOL_ERROR"


def test_a_discontinued_package_is_read_and_says_so(repo):
    """isDiscontinued/replacedBy (the listing's) are echoed as deprecated, as pub marks the package."""
    repo.publish("oldpkg", "1.0.0", {})
    repo.discontinued["oldpkg"] = "newpkg"
    assert resolved(package_name="oldpkg")["target"]["deprecated"] == "the package is discontinued; replaced by newpkg"


def test_the_fake_archive_has_no_top_folder(tmp_path):
    """The fixture is shaped as `dart pub publish` uploads: pubspec.yaml and the files at the root."""
    import tarfile

    path = tmp_path / "x.tar.gz"
    path.write_bytes(make_archive("x", "1.0.0", {"lib/x.dart": b""}))
    with tarfile.open(path) as tar:
        assert sorted(tar.getnames()) == ["lib/x.dart", "pubspec.yaml"]


# --- the endpoint: CODENAV_PUB_URL, PUB_HOSTED_URL, the public default ----------------------------


def test_codenav_variable_beats_pub_hosted_url_which_beats_the_default(monkeypatch):
    """codenav's own variable first (as for every registry), then Dart's PUB_HOSTED_URL, then pub.dev."""
    assert pub.endpoint() == pub.DEFAULT_URL
    monkeypatch.setenv("PUB_HOSTED_URL", "https://pub.mirror.example/prefix")
    assert pub.endpoint() == "https://pub.mirror.example/prefix/"
    monkeypatch.setenv("CODENAV_PUB_URL", "http://127.0.0.1:9/")
    assert pub.endpoint() == "http://127.0.0.1:9/"


def test_pub_hosted_url_reaches_the_fake_end_to_end(monkeypatch):
    """With only Dart's own variable naming the fake, the CLI reads the package from it."""
    with FakeServer() as server:
        fake = FakePub(server)
        fake.publish("viaenv", "0.1.0", {"lib/v.dart": b"var v = 1;\n"})
        monkeypatch.setenv("PUB_HOSTED_URL", fake.url.rstrip("/"))
        proc = run_cli("read", "pub:viaenv", "lib/v.dart")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"var v = 1;\n", b"")


@pytest.mark.parametrize("url", ["ftp://pub.example/", "https://user:pw@pub.example/", "https://pub.example/?x=1",
                                 "https://pub.example/#f", "pub.example"])
def test_a_hosted_url_pub_would_refuse_is_a_config_error_naming_the_variable(monkeypatch, url):
    """What pub's validateAndNormalizeHostedUrl refuses: another scheme, user-info, a query, a fragment."""
    monkeypatch.setenv("PUB_HOSTED_URL", url)
    with pytest.raises(CodenavError) as info:
        pub.endpoint()
    assert (info.value.code, info.value.details["variable"]) == ("CONFIG_ERROR", "PUB_HOSTED_URL")
    assert "pw" not in info.value.message


# --- pubspec.lock ---------------------------------------------------------------------------------

DATA = ROOT / "tests" / "data" / "lockfiles" / "pub"
MIXED_LOCK = """\
# Generated by pub
# See https://dart.dev/tools/pub/glossary#lockfile
packages:
  args:
    dependency: "direct main"
    description:
      name: args
      sha256: d0481093c50b1da8910eb0bb301626d4d8eb7284aa739614d2b394ee09e3ea04
      url: "https://pub.dev"
    source: hosted
    version: "2.7.0"
  flutter:
    dependency: "direct main"
    description: flutter
    source: sdk
    version: "0.0.0"
  forked:
    dependency: "direct main"
    description:
      path: "."
      ref: main
      resolved-ref: "5b1c0e8d4f2a9a3c7e6b1d0f9e8c7b6a5d4c3b2a"
      url: "https://github.com/example/forked.git"
    source: git
    version: "0.3.0"
  local_pkg:
    dependency: "direct dev"
    description:
      path: "../local_pkg"
      relative: true
    source: path
    version: "1.0.0"
  meta:
    dependency: transitive
    description:
      name: meta
      sha256: "23f08335362185a5ea2ad3a4e597f1375e78bce8a040df5c600c8d3552ef2394"
      url: "https://pub.dev"
    source: hosted
    version: "1.17.0"
sdks:
  dart: ">=3.6.0 <4.0.0"
  flutter: ">=3.27.0"
"""


def by_name(candidates) -> dict:
    return {c.name: (c.version, c.tier, c.source, c.ref) for c in candidates}


def test_only_hosted_entries_of_pubspec_lock_are_registry_versions():
    """hosted: the version; git: the resolved-ref; path: the directory; sdk: Flutter's — none of the last three is
    a registry version. `direct main`/`direct dev` are direct, `transitive` is not."""
    assert by_name(pubspec.entries(MIXED_LOCK, None)) == {
        "args": ("2.7.0", ROOT_DIRECT, REGISTRY, None),
        "flutter": (None, ROOT_DIRECT, "sdk", "flutter"),
        "forked": (None, ROOT_DIRECT, "git", "5b1c0e8d4f2a9a3c7e6b1d0f9e8c7b6a5d4c3b2a"),
        "local_pkg": (None, ROOT_DIRECT, "directory", "../local_pkg"),
        "meta": ("1.17.0", TRANSITIVE, REGISTRY, None),
    }


def test_real_pubspec_locks_are_read():
    """pub-dev's own lockfile (trimmed) and an older pub's (pub.dartlang.org, no sha256): tests/data/lockfiles/pub/."""
    found = by_name(pubspec.entries((DATA / "pub-dev.pubspec.lock.trimmed").read_text(), None))
    assert found == {"_discoveryapis_commons": ("1.0.7", TRANSITIVE, REGISTRY, None),
                     "_fe_analyzer_shared": ("103.0.0", TRANSITIVE, REGISTRY, None),
                     "analyzer": ("13.3.0", TRANSITIVE, REGISTRY, None),
                     "lints": ("6.1.0", ROOT_DIRECT, REGISTRY, None)}
    assert by_name(pubspec.entries((DATA / "dummy_screenshot_pkg.pubspec.lock").read_text(), None)) == {
        "lints": ("1.0.1", ROOT_DIRECT, REGISTRY, None)}


@pytest.mark.parametrize("text", ["", "  \t\n  ", "packages:\n", "sdks:\n  dart: \">=3.0.0 <4.0.0\"\n"])
def test_an_empty_pubspec_lock_locks_nothing(text):
    """pub reads an empty file, and `packages:` with nothing under it, as an empty lockfile."""
    assert pubspec.entries(text, None) == []


@pytest.mark.parametrize("text", ["packages: [a, b]\n", "packages:\n  a: &x\n    version: 1\n", "\tpackages:\n"])
def test_a_pubspec_lock_that_cannot_be_read_is_a_lockfile_error(text):
    with pytest.raises(LockfileError):
        pubspec.entries(text, None)


def test_pubspec_yaml_names_direct_dependencies_and_a_workspace_member_its_own(tmp_path):
    """The root pubspec.yaml's dependencies are direct (its `flutter:` section, outside the YAML subset,
    hides nothing); from inside a workspace member, what that member's pubspec.yaml declares is the
    start directory's own (CWD_DIRECT)."""
    from codenav.lockfiles._common import CWD_DIRECT, Context

    (tmp_path / "pubspec.lock").write_text(MIXED_LOCK)
    (tmp_path / "pubspec.yaml").write_text("name: ws\nworkspace:\n  - pkgs/app\ndependencies:\n  args: ^2.7.0\n"
                                           "flutter:\n  assets:\n    - &logo images/logo.png\n")
    (tmp_path / "pkgs" / "app").mkdir(parents=True)
    (tmp_path / "pkgs" / "app" / "pubspec.yaml").write_text("name: app\nresolution: workspace\n"
                                                            "dependencies:\n  meta: ^1.17.0\n")

    def tiers(rel: str) -> dict:
        ctx = Context(str(tmp_path / "pubspec.lock"), str(tmp_path), rel, str(tmp_path / rel))
        return {c.name: c.tier for c in pubspec.entries(MIXED_LOCK, ctx) if c.source == REGISTRY}

    assert tiers(".") == {"args": ROOT_DIRECT, "meta": TRANSITIVE}
    assert tiers("pkgs/app") == {"args": ROOT_DIRECT, "meta": CWD_DIRECT}
