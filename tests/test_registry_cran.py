"""cran: what is peculiar to it — PACKAGES(.gz) and the Archive, the MD5sum, R's version order
and ranges, the .Rprofile ladder and renv.lock — against the fake repository, with R itself as
the oracle (apt-get install r-base-core r-cran-remotes; .ci/run installs both). The chain through
both surfaces, hostile archives, integrity, faults and bad names are the conformance kit's
(tests/support/adapters/cran.py)."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from codenav.errors import CodenavError
from codenav.lockfiles import renv
from codenav.lockfiles._common import REGISTRY, ROOT_DIRECT, TRANSITIVE, LockfileError
from codenav.registries import cran
from codenav.tools import list_files
from tests.fakes.cran import FakeCran, make_tarball
from tests.fakes.http import FakeServer, Reply
from tests.support.cache import error_of as failure
from tests.support.cli import ROOT, run_cli
from tests.support.registries import fake_fixture

CODE = b"hello <- function() {\n  \"Hello from demo\"\n}\n"
NEEDS_R = pytest.mark.skipif(shutil.which("Rscript") is None, reason="R is not installed (apt-get install r-base-core)")


@pytest.fixture(autouse=True)
def no_site_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    """No Rprofile.site of this machine: R_PROFILE names an empty file (tests of the ladder set their own)."""
    monkeypatch.setenv("R_PROFILE", os.devnull)


repo = fake_fixture("cran")  # the kit's adapter: CODENAV_CRAN_REPOS at the fake


def resolved(**args) -> dict:
    return list_files.run({"registry": "cran", **args})


def error_of(**args) -> CodenavError:
    return failure(list_files.run, {"registry": "cran", **args})


def rscript(code: str, **env: str) -> str:
    proc = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "LC_ALL": "C", **env})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# --- what the kit's chain does not show --------------------------------------------------------------


def test_an_archived_version_is_read_unverified_and_says_why(repo):
    """A version in Archive/ has no MD5 in PACKAGES: verified false, the reason in the echo, a note in TEXT."""
    repo.publish("demo", "1.0-1", {"R/demo.R": b"hello <- function() 'old'\n"}, archived=True)
    repo.publish("demo", "1.1.0", {"R/demo.R": CODE})
    proc = run_cli("files", "cran:demo@1.0-1", "--json")
    target = json.loads(proc.stdout)["target"]
    assert (target["verified"], target["verification"]) == (False, f"not verified: {cran.ARCHIVE_NOTE}")
    verbose = run_cli("files", "cran:demo@1.0-1", "--verbose").stdout.decode()
    assert "CRAN publishes no checksum for archived versions" in verbose


def test_a_name_in_another_case_is_not_found_with_the_listed_spelling_as_suggestion(repo):
    """R's names are case-sensitive: `Demo` is NOT_FOUND, and `suggestion` names `demo`."""
    repo.publish("demo", "1.1.0", {"R/demo.R": CODE})
    err = error_of(package_name="Demo")
    assert (err.code, err.details["suggestion"]) == ("NOT_FOUND", "demo")


def test_a_listed_version_that_is_no_r_version_is_a_protocol_error(repo):
    """PACKAGES listing `Version: 1.x` is a broken index, not a version to guess at; nothing is fetched."""
    repo.publish("badversion", "1.x", {})
    assert error_of(package_name="badversion").code == "PROTOCOL_ERROR"
    assert repo.tarball_hits == 0


# --- PACKAGES, the Archive and the tarball --------------------------------------------------------


def test_packages_gz_is_read_and_packages_is_the_fallback(repo):
    """PACKAGES.gz first, as R reads it; a repository without one is read from PACKAGES; never PACKAGES.rds."""
    repo.publish("gzpkg", "1.0", {"R/a.R": b""})
    assert resolved(package_name="gzpkg")["target"]["version"] == "1.0"
    asked = [s.path for s in repo.server.seen]
    assert "/src/contrib/PACKAGES.gz" in asked and "/src/contrib/PACKAGES" not in asked
    repo.serve_gz = False
    repo.publish("plain", "2.0", {"R/b.R": b""})
    assert resolved(package_name="plain")["target"]["version"] == "2.0"
    assert [s.path for s in repo.server.seen if "PACKAGES" in s.path][-2:] == ["/src/contrib/PACKAGES.gz",
                                                                               "/src/contrib/PACKAGES"]
    assert not any(s.path.endswith(".rds") for s in repo.server.seen)


def test_a_packages_gz_labelled_as_a_gzip_encoding_is_read_once_decoded(repo):
    """A server that sends PACKAGES.gz with Content-Encoding: gzip (Apache's AddEncoding) is read all the same."""
    repo.publish("labelled", "1.0", {})
    body = gzip.compress(gzip.compress(repo.packages_text().encode()))
    repo.server.route("GET", "/src/contrib/PACKAGES.gz", lambda h: Reply(200, body, {"Content-Encoding": "gzip"}))
    assert resolved(package_name="labelled")["target"]["version"] == "1.0"


def test_garbage_instead_of_packages_is_a_protocol_error(repo):
    """A captive portal's HTML at PACKAGES.gz is PROTOCOL_ERROR, and no tarball is fetched."""
    repo.server.route("GET", "/src/contrib/PACKAGES.gz", lambda h: Reply(200, b"<html>Sign in</html>"))
    assert error_of(package_name="demo").code == "PROTOCOL_ERROR"
    assert repo.tarball_hits == 0


def test_a_packages_index_over_its_cap_is_too_large_never_read_cut(repo, monkeypatch):
    """A PACKAGES.gz that inflates past the cap is TOO_LARGE, not a truncated index."""
    for n in range(20):
        repo.publish(f"pkg{n}", "1.0", {})
    monkeypatch.setattr(cran, "INDEX_CAP", 1000)  # resolve runs here, not in the indexer process
    with pytest.raises(CodenavError) as info:
        cran.resolve("pkg19", None)
    assert (info.value.code, info.value.details["limitBytes"]) == ("TOO_LARGE", 1000)


def test_the_highest_of_duplicate_entries_is_read_from_its_path(repo):
    """Two stanzas for one name (a Path copy): the highest version wins, as available.packages keeps it."""
    repo.publish("dup", "0.9", {"R/old.R": b""}, path="Older")
    repo.publish("dup", "1.2", {"R/new.R": b""}, path="Newer")
    result = resolved(package_name="dup")
    assert (result["target"]["version"], [f["path"] for f in result["files"]][-1]) == ("1.2", "R/new.R")
    assert "/src/contrib/Newer/dup_1.2.tar.gz" in [s.path for s in repo.server.seen]


def test_a_version_in_the_archive_is_fetched_from_archive_name(repo):
    """A pin that is not the current version is `src/contrib/Archive/NAME/NAME_VERSION.tar.gz`."""
    repo.publish("old", "0.1-2", {"R/x.R": b"x\n"}, archived=True)
    repo.publish("old", "0.2", {})
    result = resolved(package_name="old", version="0.1-2")
    assert (result["target"]["version"], result["target"]["artifact"]) == ("0.1-2", "old_0.1-2.tar.gz")
    assert "/src/contrib/Archive/old/old_0.1-2.tar.gz" in [s.path for s in repo.server.seen]


def test_a_package_only_in_the_archive_needs_a_version(repo):
    """CRAN archived it (no current version): NOT_FOUND listing the archived versions; a pin reads one."""
    repo.publish("gone", "1.0", {"R/g.R": b""}, archived=True)
    repo.publish("gone", "1.1", {"R/g.R": b""}, archived=True)
    err = error_of(package_name="gone")
    assert (err.code, err.details["availableVersions"]) == ("NOT_FOUND", ["1.1", "1.0"])
    assert resolved(package_name="gone", version="1.0")["target"]["version"] == "1.0"


def test_a_pin_matches_by_package_version_equality_and_echoes_the_published_spelling(repo):
    """`1.0-1` names the published `1.0.1`, `2.0.0` the published `2.0` (R: a missing part is 0)."""
    repo.publish("eq", "1.0.1", {}, archived=True)
    repo.publish("eq", "2.0", {})
    assert resolved(package_name="eq", version="1.0-1")["target"]["version"] == "1.0.1"
    assert resolved(package_name="eq", version="2.0.0")["target"]["version"] == "2.0"


# --- verification ---------------------------------------------------------------------------------


def test_a_stanza_without_md5sum_is_read_unverified_and_a_malformed_one_is_refused(repo):
    """No MD5sum: verified false naming the gap; an MD5sum that is no MD5: INTEGRITY_ERROR, nothing fetched."""
    repo.publish("nomd5", "1.0", {}, md5=None)
    target = resolved(package_name="nomd5")["target"]
    assert (target["verified"], target["verification"]) == (
        False, "not verified: the repository's PACKAGES gives no MD5sum for nomd5 1.0")
    repo.publish("badmd5", "1.0", {}, md5="xyz")
    hits = repo.tarball_hits
    assert error_of(package_name="badmd5").code == "INTEGRITY_ERROR"
    assert repo.tarball_hits == hits


# --- versions and ranges --------------------------------------------------------------------------

R_ORDER = ["0.9", "0.9.1", "0.9-2", "0.9.10", "0.10", "1.0", "1.0.0", "1.0-0", "1.0.1", "1.0-2", "1.01.3", "1.2",
           "1.10", "2.0.0.1", "10.0"]


def test_versions_sort_as_package_version_and_compare_version_break_its_ties():
    """The key orders as package_version (a missing part is 0), shorter first among equals (compareVersion)."""
    ordered = ["0.9", "0.9.1", "0.9-2", "0.9.10", "0.10", "1.0", "1.0.0", "1.0.1", "1.0-2", "1.01.3", "1.2", "1.10",
               "2.0.0.1", "10.0"]
    assert sorted(reversed(ordered), key=cran.version_key) == ordered
    assert cran.version_key("1.0-0") == cran.version_key("1.0.0")  # equal for both of R's comparisons
    assert cran.same("1.0", "1.0.0") and cran.same("1.2-3", "1.2.3") and not cran.same("1.2", "1.2.1")


@NEEDS_R
def test_the_order_is_rs_own_package_version_and_compare_version():
    """R says, for every pair: package_version's <, =, > and compareVersion's sign; the key agrees with both."""
    quoted = ", ".join(f'"{v}"' for v in R_ORDER)
    out = rscript(f"x <- c({quoted}); for (a in x) for (b in x) cat(a, b, "
                  "if (package_version(a) < package_version(b)) -1 else if (package_version(a) == "
                  "package_version(b)) 0 else 1, compareVersion(a, b), '\\n')")
    for line in out.splitlines():
        a, b, pv, cv = line.split()
        ka, kb = cran.version_key(a), cran.version_key(b)
        assert (ka[1] > kb[1]) - (ka[1] < kb[1]) == int(pv), (a, b)
        assert (ka > kb) - (ka < kb) == int(cv), (a, b)


NAMES = ["ggplot2", "Rcpp", "data.table", "R6", "a1", "x", "1abc", ".hidden", "abc.", "a_b", "a-b", "a b", "ab/c",
         "naïve", ".."]


@NEEDS_R
def test_names_are_rs_valid_package_name():
    """normalize_name accepts exactly what R's valid_package_name regexp does (ASCII, as CRAN requires)."""
    quoted = ", ".join(json.dumps(n) for n in NAMES)
    out = rscript(f"x <- c({quoted}); cat(grepl(sprintf('^%s$', .standard_regexps()$valid_package_name), x), "
                  "sep='\\n')")
    r_says = dict(zip(NAMES, (line == "TRUE" for line in out.split()), strict=True))
    ours = {}
    for name in NAMES:
        try:
            ours[name] = cran.normalize_name(name) == name
        except CodenavError:
            ours[name] = False
    assert ours == r_says


@pytest.mark.parametrize("spec,kind", [("1.2", "exact"), ("1.2-3", "exact"), ("== 1.2", "exact"), ("==1.2", "exact"),
                                       (">= 1.2", "range"), (">=1.2,<2.0", "range"), (">= 1.2, != 1.5", "range")])
def test_versions_and_ranges_are_written_as_remotes_install_version_takes_them(spec, kind):
    """A version, `== V`, or comparisons joined by `,` (remotes::install_version's grammar)."""
    assert cran.classify_version(spec) == kind
    assert cran.is_exact(spec) is (kind == "exact")


@pytest.mark.parametrize("spec", ["1", "^1.2", "~1.2", ">> 1", "1.2a", ">= ", "1.2 || 2.0", "latest"])
def test_what_r_would_refuse_as_a_version_is_an_invalid_argument(spec):
    with pytest.raises(CodenavError) as info:
        cran.classify_version(spec)
    assert (info.value.code, info.value.details["field"]) == ("INVALID_ARGUMENT", "version")


def test_a_range_takes_the_current_version_when_it_satisfies_without_reading_the_archive(repo):
    """`>= 1.0` with current 1.2: the current tarball, verified, and no Archive listing is asked for."""
    repo.publish("rng", "1.0", {}, archived=True)
    repo.publish("rng", "1.1", {}, archived=True)
    repo.publish("rng", "1.2", {})
    target = resolved(package_name="rng", version=">= 1.0")["target"]
    assert (target["version"], target["verified"], target["versionSource"]) == (
        "1.2", True, {"kind": "range", "spec": ">= 1.0"})
    assert not any("Archive" in s.path for s in repo.server.seen)
    assert resolved(package_name="rng", version="< 1.2")["target"]["version"] == "1.1"
    assert resolved(package_name="rng", version=">= 1.0, != 1.1, < 1.2")["target"]["version"] == "1.0"
    err = error_of(package_name="rng", version="> 2.0")
    assert (err.code, err.details["availableVersions"], err.details["latest"]) == (
        "VERSION_NOT_FOUND", ["1.2", "1.1", "1.0"], "1.2")


@pytest.mark.skipif(shutil.which("Rscript") is None or not Path("/usr/lib/R/site-library/remotes").exists(),
                    reason="remotes is not installed (apt-get install r-cran-remotes)")
def test_ranges_pick_the_version_remotes_install_version_picks(repo, tmp_path):
    """For each range, codenav reads the version whose tarball remotes::install_version would download
    (remotes lists the archive from src/contrib/Meta/archive.rds, which the test writes with R)."""
    for version in ("0.8", "0.9", "1.0-3"):
        repo.publish("rem", version, {}, archived=True)
    repo.publish("rem", "1.1", {})
    rds = tmp_path / "archive.rds"
    rscript(f'x <- data.frame(size = c(1, 1, 1), row.names = c("rem/rem_0.8.tar.gz", "rem/rem_0.9.tar.gz", '
            f'"rem/rem_1.0-3.tar.gz")); saveRDS(list(rem = x), "{rds}")')
    repo.server.route("GET", "/src/contrib/Meta/archive.rds", lambda h: Reply(200, rds.read_bytes()))
    ranges = ["> 0.8", "< 1.1", ">= 0.8, < 0.9", "== 0.9", ">= 1.0"]
    quoted = ", ".join(json.dumps(r) for r in ranges)
    out = rscript(f'for (v in c({quoted})) cat(basename(remotes:::download_version_url("rem", v, '
                  f'repos = "{repo.url.rstrip("/")}", type = "source")), "\\n")')
    theirs = [line.strip().removeprefix("rem_").removesuffix(".tar.gz") for line in out.splitlines()]
    ours = [resolved(package_name="rem", version=r)["target"]["version"] for r in ranges]
    assert ours == theirs == ["1.1", "1.0-3", "0.8", "0.9", "1.1"]


# --- R installs from the fake: the same version, the same MD5 -------------------------------------


@NEEDS_R
def test_r_installs_the_version_codenav_reads_from_the_same_bytes(repo, tmp_path):
    """install.packages() from the fake chooses codenav's version (duplicates included) and downloads the
    tarball whose MD5 is the MD5sum codenav verified; R reads PACKAGES as codenav does."""
    repo.publish("oracle", "0.5", {"R/o.R": b"o <- 0\n"}, path="Old")
    repo.publish("oracle", "1.0-2", {"R/o.R": CODE})
    repo.publish("oracle", "0.9", {"R/o.R": b"o <- 9\n"}, archived=True)
    target = resolved(package_name="oracle")["target"]
    lib, dest = tmp_path / "lib", tmp_path / "dest"
    lib.mkdir(), dest.mkdir()
    url = repo.url.rstrip("/")
    out = rscript(f'install.packages("oracle", repos = "{url}", lib = "{lib}", destdir = "{dest}", quiet = TRUE)\n'
                  f'ap <- available.packages(repos = "{url}")\n'
                  f'cat(packageDescription("oracle", lib.loc = "{lib}")$Version, ap["oracle", "MD5sum"],\n'
                  f'    tools::md5sum(list.files("{dest}", full.names = TRUE)))')
    version, md5_listed, md5_downloaded = out.split()
    assert version == target["version"] == "1.0-2"
    assert md5_listed == md5_downloaded == hashlib.md5(repo.record("oracle", "1.0-2").data).hexdigest()
    assert target["verified"] is True


def test_the_fake_tarball_is_a_source_package_r_cmd_build_would_write(tmp_path):
    """NAME/DESCRIPTION, NAMESPACE and an MD5 file listing the others, as CRAN's tarballs hold."""
    import tarfile

    path = tmp_path / "x.tar.gz"
    path.write_bytes(make_tarball("x", "1.0", {"R/x.R": b""}))
    with tarfile.open(path) as tar:
        assert tar.getnames() == ["x/DESCRIPTION", "x/LICENSE", "x/MD5", "x/NAMESPACE", "x/R/x.R"]


# --- the endpoint: CODENAV_CRAN_REPOS, R's profiles, the public default ---------------------------

PROFILES = [
    ('options(repos = c(CRAN = "https://mirror.example/cran/"))\n', "https://mirror.example/cran/"),
    ('options(repos = "https://plain.example")\n', "https://plain.example/"),
    ('options(repos = c(other = "https://other.example/", "CRAN" = "https://named.example/"))\n',
     "https://named.example/"),
    ('options(repos = c(first = "https://first.example/", second = "https://second.example/"))\n',
     "https://first.example/"),
    ('local({\n  r <- getOption("repos")\n  r["CRAN"] <- "https://site-idiom.example"\n  options(repos = r)\n})\n',
     "https://site-idiom.example/"),
    ('# options(repos = "https://commented.example/")\noptions(warn = 1, repos = c(CRAN = \'https://single.example/\'))\n',
     "https://single.example/"),
    ('options(repos = c(CRAN = "https://old.example/"))\noptions(repos = c(CRAN = "https://later.example/"))\n',
     "https://later.example/"),
]


@pytest.mark.parametrize("text,url", PROFILES)
def test_a_literal_repos_in_the_user_profile_is_the_repository(tmp_path, text, url):
    """options(repos) in ~/.Rprofile, its last setting: the CRAN entry (else the first), a trailing / added."""
    (tmp_path / "home" / ".Rprofile").write_text(text)
    assert cran.endpoint() == url


@NEEDS_R
def test_the_profiles_name_what_r_itself_sets(tmp_path):
    """For each profile, R's getOption('repos')['CRAN'] (or its first entry) is what codenav reads."""
    for text, _ in PROFILES:
        profile = tmp_path / "profile.R"
        profile.write_text(text)
        r_says = rscript('r <- getOption("repos"); cat(if ("CRAN" %in% names(r)) r[["CRAN"]] else r[[1]])',
                         R_PROFILE_USER=str(profile), R_PROFILE=os.devnull)
        os.environ["R_PROFILE_USER"] = str(profile)
        try:
            assert cran.profile_repos() == r_says, text
        finally:
            del os.environ["R_PROFILE_USER"]


def test_codenav_variable_beats_the_profiles_and_the_user_profile_beats_the_site_one(tmp_path, monkeypatch):
    """CODENAV_CRAN_REPOS, then the user profile (R runs it last), then Rprofile.site (R_PROFILE)."""
    site = tmp_path / "Rprofile.site"
    site.write_text('local({r <- getOption("repos"); r["CRAN"] <- "https://site.example"; options(repos = r)})\n')
    monkeypatch.setenv("R_PROFILE", str(site))
    assert cran.endpoint() == "https://site.example/"
    (tmp_path / "home" / ".Rprofile").write_text('options(repos = c(CRAN = "https://user.example"))\n')
    assert cran.endpoint() == "https://user.example/"
    monkeypatch.setenv("CODENAV_CRAN_REPOS", "https://mine.example")
    assert cran.endpoint() == "https://mine.example/"


def test_a_project_rprofile_replaces_the_home_one_and_r_profile_user_replaces_both(tmp_path, monkeypatch):
    """R reads one user profile: R_PROFILE_USER, else ./.Rprofile, else ~/.Rprofile."""
    (tmp_path / "home" / ".Rprofile").write_text('options(repos = "https://home.example/")\n')
    project = tmp_path / "project"
    project.mkdir()
    (project / ".Rprofile").write_text('options(repos = "https://project.example/")\n')
    monkeypatch.chdir(project)
    assert cran.endpoint() == "https://project.example/"
    other = tmp_path / "other.R"
    other.write_text('options(repos = "https://env.example/")\n')
    monkeypatch.setenv("R_PROFILE_USER", str(other))
    assert cran.endpoint() == "https://env.example/"


@pytest.mark.parametrize("text", ['options(repos = Sys.getenv("MY_CRAN"))\n', 'options(repos = c(CRAN = "@CRAN@"))\n',
                                  'r <- c(CRAN = "https://x.example/"); r <- f(r); options(repos = mirror())\n'])
def test_a_repos_setting_that_is_not_a_literal_url_leaves_the_public_default(tmp_path, text):
    """An expression codenav cannot evaluate (or R's "@CRAN@", choose a mirror): the public default."""
    (tmp_path / "home" / ".Rprofile").write_text(
        'options(repos = c(CRAN = "https://earlier.example/"))\n' + text)
    assert cran.endpoint() == cran.DEFAULT_REPOS


def test_with_nothing_configured_the_public_default_is_used():
    """No variable and no profile setting: the public CRAN, the one default in cran.py."""
    assert cran.endpoint() == cran.DEFAULT_REPOS


def test_the_rprofile_reaches_the_fake_end_to_end(tmp_path):
    """With only ~/.Rprofile naming the fake, the CLI reads the package from it."""
    with FakeServer() as server:
        fake = FakeCran(server)
        fake.publish("viarc", "0.1", {"R/v.R": b"v <- 1\n"})
        (tmp_path / "home" / ".Rprofile").write_text(f'options(repos = c(CRAN = "{fake.url}"))\n')
        proc = run_cli("read", "cran:viarc", "R/v.R")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"v <- 1\n", b"")


# --- renv.lock ------------------------------------------------------------------------------------

BIOC_LOCK = ROOT / "tests" / "data" / "lockfiles" / "renv" / "bioconductor.lock"
RENV_LOCK = {
    "R": {"Version": "4.4.1", "Repositories": [{"Name": "CRAN", "URL": "https://cloud.r-project.org"}]},
    "Packages": {
        "markdown": {"Package": "markdown", "Version": "1.0", "Source": "Repository", "Repository": "CRAN",
                     "Hash": "4584a57f565dd7987d59dda3a02cfb41", "Requirements": ["mime"]},
        "mime": {"Package": "mime", "Version": "0.12", "Source": "Repository", "Repository": "RSPM",
                 "Requirements": ["tools"]},
        "gh": {"Package": "gh", "Version": "1.4.1.9000", "Source": "GitHub", "RemoteType": "github",
               "RemoteHost": "api.github.com", "RemoteUsername": "r-lib", "RemoteRepo": "gh", "RemoteRef": "main",
               "RemoteSha": "6d6ee4a8a1a9cbe6f9ef1a9c9b96d7d4a0b6a6f1", "Requirements": ["markdown"]},
        "old": {"Package": "old", "Version": "0.3", "Source": "CRAN"},
        "mine": {"Package": "mine", "Version": "0.1", "Source": "Local", "RemoteType": "local",
                 "RemoteUrl": "~/src/mine"},
        "fromurl": {"Package": "fromurl", "Version": "2.0", "Source": "URL",
                    "RemoteUrl": "https://example.org/fromurl_2.0.tar.gz"},
        "limma": {"Package": "limma", "Version": "3.60.0", "Source": "Bioconductor"},
    },
}


class Project:
    """What a lockfile reader is handed about the project: its directory, and a reader of the files there."""

    def __init__(self, lock_dir: Path) -> None:
        self.lock_dir = str(lock_dir)

    def read(self, path: str) -> str | None:
        return Path(path).read_text() if Path(path).is_file() else None


def by_name(candidates) -> dict:
    return {c.name: (c.version, c.tier, c.source, c.ref) for c in candidates}


def test_renv_lock_entries_say_which_are_cran_versions(tmp_path):
    """Repository (any repository name, and old files' Source: CRAN) is a registry version; GitHub a
    commit; Local a directory; URL a download; Bioconductor is not a CRAN version."""
    found = by_name(renv.entries(json.dumps(RENV_LOCK), Project(tmp_path)))
    assert found == {
        "markdown": ("1.0", TRANSITIVE, REGISTRY, None),
        "mime": ("0.12", TRANSITIVE, REGISTRY, None),
        "gh": (None, ROOT_DIRECT, "git", "6d6ee4a8a1a9cbe6f9ef1a9c9b96d7d4a0b6a6f1"),
        "old": ("0.3", ROOT_DIRECT, REGISTRY, None),
        "mine": (None, ROOT_DIRECT, "directory", "~/src/mine"),
        "fromurl": (None, ROOT_DIRECT, "url", "https://example.org/fromurl_2.0.tar.gz"),
        "limma": (None, ROOT_DIRECT, "bioconductor", "Bioconductor"),
    }  # the roots are what no record requires


def test_the_projects_description_names_the_direct_dependencies(tmp_path):
    """With a DESCRIPTION beside renv.lock, its Depends/Imports/LinkingTo/Suggests are the direct ones."""
    (tmp_path / "DESCRIPTION").write_text("Package: app\nVersion: 0.1\nDepends: R (>= 4.1)\n"
                                          "Imports:\n    markdown (>= 1.0),\n    mime\nSuggests: testthat\n")
    found = by_name(renv.entries(json.dumps(RENV_LOCK), Project(tmp_path)))
    assert {name for name, row in found.items() if row[1] == ROOT_DIRECT} == {"markdown", "mime"}


def test_a_real_renv_lock_of_bioconductor_and_local_packages_has_no_cran_version():
    """renv's own test lockfile (tests/data/lockfiles/renv/README.md): Bioconductor and Local records."""
    found = by_name(renv.entries(BIOC_LOCK.read_text(), None))
    assert found == {"BiocGenerics": (None, ROOT_DIRECT, "bioconductor", "Bioconductor"),
                     "limma": (None, ROOT_DIRECT, "bioconductor", "Bioconductor"),
                     "renv": (None, ROOT_DIRECT, "directory", "~/r/pkg/renv")}


@pytest.mark.parametrize("text", ["", "{", "[]", '{"Packages": []}', '{"R": {}}'])
def test_a_renv_lock_that_cannot_be_read_is_a_lockfile_error(text):
    with pytest.raises(LockfileError):
        renv.entries(text, None)
