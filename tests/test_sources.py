"""npm and PyPI sources, endpoints and the cache, against fake registries on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from codenav.errors import CodenavError
from codenav.tools import list_files, read_file
from tests.fakes.archives import make_tgz
from tests.fakes.http import FakeServer, Reply
from tests.fakes.npm import FakeNpm
from tests.fakes.pypi import FakePypi
from tests.support.cli import run_cli


def files_of(**args):
    return [f["path"] for f in list_files.run(args)["files"]]


def error_of(fn, **args) -> CodenavError:
    with pytest.raises(CodenavError) as info:
        fn(args)
    return info.value


def cache_entries(tmp_path: Path) -> list[str]:
    base = tmp_path / "cache" / "entries"
    return sorted(p.parent.relative_to(base).as_posix() for p in base.rglob("manifest.json")) if base.exists() else []


def leftovers(tmp_path: Path) -> list[str]:
    """Anything in the cache's tmp dir other than the indexer log: half-built debris."""
    tmp = tmp_path / "cache" / "tmp"
    return sorted(p.name for p in tmp.iterdir() if p.name != "indexer.log") if tmp.exists() else []


# --- npm --------------------------------------------------------------------------------------

def test_npm_top_folder_is_stripped_whatever_its_name(npm):
    """A tarball whose single top folder is not `package/` still lists paths without it."""
    npm.publish("oddtop", "1.0.0", {"index.js": b"x\n", "lib/a.js": b"a\n"}, top="node")
    assert files_of(registry="npm", package_name="oddtop", version="1.0.0") == ["index.js", "lib/a.js"]


def test_npm_scoped_package_resolves_and_echoes_its_target(npm):
    """A scoped name is fetched with its slash encoded and echoed as published."""
    npm.publish("@types/thing", "2.0.1", {"index.d.ts": b"export {};\n"})
    result = list_files.run({"registry": "npm", "package_name": "@types/thing", "version": "2.0.1"})
    assert result["target"] == {"registry": "npm", "name": "@types/thing", "version": "2.0.1",
                                "artifact": "thing-2.0.1.tgz", "verified": True,
                                "verification": "sha512 of the downloaded file matches the registry's dist.integrity",
                                "versionSource": {"kind": "exact", "spec": "2.0.1"}}
    assert result["files"] == [{"path": "index.d.ts", "size": 11, "language": "TypeScript", "fileType": "source"}]
    assert [s.path for s in npm.server.seen if not s.path.startswith("/-/")] == ["/@types%2Fthing/2.0.1"]


def test_npm_scoped_registry_without_version_documents_falls_back_to_the_packument(npm):
    """A registry that 404s /@scope%2Fname/<version> is read through the scoped packument instead."""
    npm.version_documents = False
    npm.publish("@types/other", "1.0.0", {"index.d.ts": b""})
    assert files_of(registry="npm", package_name="@types/other", version="1.0.0") == ["index.d.ts"]
    assert [s.path for s in npm.server.seen if not s.path.startswith("/-/")] == [
        "/@types%2Fother/1.0.0", "/@types%2Fother"]


def test_npm_latest_and_dist_tags(npm):
    """No version means dist-tag latest; a dist-tag name is accepted too."""
    npm.publish("tagged", "1.0.0", {"v1.js": b""})
    npm.publish("tagged", "2.0.0-beta.1", {"v2.js": b""}, tag_latest=False)
    npm.tag("tagged", "next", "2.0.0-beta.1")
    assert list_files.run({"registry": "npm", "package_name": "tagged"})["target"]["version"] == "1.0.0"
    assert files_of(registry="npm", package_name="tagged", version="next") == ["v2.js"]


def test_npm_unknown_version_lists_nearest_versions_and_latest(npm):
    """A version that does not exist is VERSION_NOT_FOUND with availableVersions and latest."""
    for v in ("4.20.0", "4.21.0", "4.21.2", "5.0.0"):
        npm.publish("express", v, {"index.js": b""})
    err = error_of(list_files.run, registry="npm", package_name="express", version="4.21.9")
    assert err.code == "VERSION_NOT_FOUND" and err.retryable is False
    assert err.details["availableVersions"] == ["4.21.2", "4.21.0", "4.20.0", "5.0.0"]
    assert err.details["latest"] == "5.0.0"


def test_npm_unknown_package_is_not_found(npm):
    """A package the registry does not have is NOT_FOUND, not retryable."""
    err = error_of(list_files.run, registry="npm", package_name="no-such-pkg")
    assert (err.code, err.retryable) == ("NOT_FOUND", False)


def test_npm_tampered_tarball_is_an_integrity_error_and_nothing_is_cached(npm, tmp_path):
    """A tarball that does not match dist.integrity is refused and leaves no entry behind."""
    npm.publish("evil", "1.0.0", {"a.js": b"good"})
    npm.packages["evil"]["1.0.0"].tarball = make_tgz({"a.js": b"bad!"})
    err = error_of(list_files.run, registry="npm", package_name="evil", version="1.0.0")
    assert err.code == "INTEGRITY_ERROR"
    assert cache_entries(tmp_path) == [] and leftovers(tmp_path) == []


def test_npm_sha1_shasum_is_used_only_without_integrity(npm, tmp_path):
    """With no integrity field the sha1 shasum is checked (and a wrong one refused)."""
    npm.publish("old", "0.1.0", {"a.js": b"1"}, integrity=False)
    assert files_of(registry="npm", package_name="old", version="0.1.0") == ["a.js"]
    npm.publish("old2", "0.1.0", {"a.js": b"1"}, integrity=False)
    npm.packages["old2"]["0.1.0"].shasum = hashlib.sha1(b"other").hexdigest()
    assert error_of(list_files.run, registry="npm", package_name="old2", version="0.1.0").code == "INTEGRITY_ERROR"


def test_npm_download_over_the_limit_is_too_large(npm, tmp_path, monkeypatch):
    """A tarball over CODENAV_MAX_DOWNLOAD_BYTES is TOO_LARGE and nothing is cached."""
    npm.publish("big", "1.0.0", {"blob.bin": os.urandom(50_000)})
    monkeypatch.setenv("CODENAV_MAX_DOWNLOAD_BYTES", "10000")
    err = error_of(list_files.run, registry="npm", package_name="big", version="1.0.0")
    assert err.code == "TOO_LARGE" and cache_entries(tmp_path) == []


@pytest.mark.parametrize("status,code,retryable", [(500, "UPSTREAM_ERROR", True), (503, "UPSTREAM_ERROR", True),
                                                   (429, "RATE_LIMITED", True)])
def test_npm_registry_faults_are_typed_and_retryable(monkeypatch, status, code, retryable):
    """5xx and 429 from the registry are retryable typed errors, never a crash."""
    with FakeServer() as server:
        server.route_prefix("GET", "/", lambda h: Reply(status, b"oops", {"Retry-After": "7"}))
        monkeypatch.setenv("CODENAV_NPM_REGISTRY", server.url)
        err = error_of(list_files.run, registry="npm", package_name="x")
    assert (err.code, err.retryable) == (code, retryable)
    if status == 429:
        assert err.details["retryAfterSeconds"] == 7


def test_npm_unreachable_registry_is_a_network_error(monkeypatch):
    """A registry nobody listens on is NETWORK (retryable)."""
    with FakeServer() as server:
        url = server.url
    monkeypatch.setenv("CODENAV_NPM_REGISTRY", url)
    err = error_of(list_files.run, registry="npm", package_name="x")
    assert (err.code, err.retryable) == ("NETWORK", True)


def test_warm_read_needs_no_network(npm, monkeypatch):
    """Once cached, an exact version is served with the registry gone."""
    npm.publish("warm", "1.2.3", {"index.js": b"module.exports = 1;\n"})
    assert files_of(registry="npm", package_name="warm", version="1.2.3") == ["index.js"]
    npm.server.shutdown()
    npm.server.server_close()
    result = read_file.run({"registry": "npm", "package_name": "warm", "version": "1.2.3", "path": "index.js"})
    assert result["content"] == "module.exports = 1;\n"


# --- PyPI ----------------------------------------------------------------------------------

def test_pypi_prefers_the_pure_wheel_and_lists_it_as_is(pypi):
    """A pure-Python wheel wins over the sdist and keeps its layout (no folder stripped)."""
    pypi.add_sdist("demo", "1.0", {"setup.py": b"", "demo/__init__.py": b""})
    pypi.add_wheel("demo", "1.0", {"demo/__init__.py": b"x = 1\n", "demo-1.0.dist-info/METADATA": b"Name: demo\n"})
    result = list_files.run({"registry": "pypi", "package_name": "Demo", "version": "1.0"})
    assert result["target"] == {"registry": "pypi", "name": "demo", "version": "1.0",
                                "artifact": "demo-1.0-py3-none-any.whl", "artifactReason": "pure-wheel",
                                "verified": True,
                                "verification": "sha256 of the downloaded file matches the sha256 the index lists",
                                "versionSource": {"kind": "exact", "spec": "1.0"}}
    assert [f["path"] for f in result["files"]] == ["demo-1.0.dist-info/METADATA", "demo/__init__.py"]


def test_pypi_sdist_loses_its_one_folder_when_no_pure_wheel(pypi):
    """Without a wheel for this machine the sdist is used and its {name}-{version}/ folder removed."""
    pypi.add("demo", "demo-1.0-cp27-cp27m-win32.whl", b"not used")
    pypi.add_sdist("demo", "1.0", {"setup.py": b"", "src/demo.py": b""})
    result = list_files.run({"registry": "pypi", "package_name": "demo"})
    assert result["target"]["artifact"] == "demo-1.0.tar.gz"
    assert [f["path"] for f in result["files"]] == ["setup.py", "src/demo.py"]


def test_pypi_html_fallback_works_like_json(pypi):
    """A PEP 503 HTML-only index gives the same answer as PEP 691 JSON."""
    pypi.html_only = True
    pypi.add_wheel("demo", "2.0", {"demo.py": b""})
    assert files_of(registry="pypi", package_name="demo") == ["demo.py"]


def test_pypi_name_is_pep503_normalised(pypi):
    """Zope.Interface and zope-interface name the same project page."""
    pypi.add_wheel("zope-interface", "5.0", {"zope/interface.py": b""})
    result = list_files.run({"registry": "pypi", "package_name": "Zope.Interface"})
    assert result["target"]["name"] == "zope-interface"


def test_pypi_latest_skips_yanked_and_prereleases_but_a_pin_may_use_yanked(pypi):
    """Latest is the newest non-yanked final release; an exact pin may name a yanked one."""
    pypi.add_wheel("demo", "1.0", {"one.py": b""})
    pypi.add_wheel("demo", "1.1", {"yanked.py": b""}, yanked=True)
    pypi.add_wheel("demo", "2.0b1", {"beta.py": b""})
    assert list_files.run({"registry": "pypi", "package_name": "demo"})["target"]["version"] == "1.0"
    assert files_of(registry="pypi", package_name="demo", version="1.1") == ["yanked.py"]


def test_pypi_unknown_version_and_project(pypi):
    """Unknown release: VERSION_NOT_FOUND with choices; unknown project: NOT_FOUND."""
    pypi.add_wheel("demo", "1.0", {"a.py": b""})
    pypi.add_wheel("demo", "1.2", {"a.py": b""})
    err = error_of(list_files.run, registry="pypi", package_name="demo", version="3.0")
    assert err.code == "VERSION_NOT_FOUND"
    assert err.details == {"availableVersions": ["1.2", "1.0"], "latest": "1.2",
                           "action": "pick one of availableVersions, or omit the version for latest"}
    assert error_of(list_files.run, registry="pypi", package_name="nope").code == "NOT_FOUND"


def test_pypi_sha256_mismatch_is_an_integrity_error(pypi, tmp_path):
    """A file whose bytes do not match the index's sha256 is refused; nothing cached."""
    pypi.add_wheel("demo", "1.0", {"a.py": b""}, sha256="0" * 64)
    assert error_of(list_files.run, registry="pypi", package_name="demo").code == "INTEGRITY_ERROR"
    assert cache_entries(tmp_path) == []


# --- endpoints ---------------------------------------------------------------------------------

def test_nothing_configured_is_a_config_error_naming_the_variable():
    """With no registry configured and discovery unavailable the error names the variable."""
    err = error_of(list_files.run, registry="npm", package_name="x")
    assert err.code == "CONFIG_ERROR" and "CODENAV_NPM_REGISTRY" in err.message
    err = error_of(list_files.run, registry="pypi", package_name="x")
    assert err.code == "CONFIG_ERROR" and "CODENAV_PYPI_INDEX_URL" in err.message


def test_npmrc_registry_and_token_are_used_but_never_echoed(tmp_path, monkeypatch):
    """.npmrc registry= and //host/:_authToken= are honoured; the token appears in no output."""
    with FakeServer() as server:
        fake = FakeNpm(server)
        fake.publish("private", "1.0.0", {"a.js": b""})
        host = server.url.split("//", 1)[1]
        (tmp_path / "home" / ".npmrc").write_text(f"registry={fake.url}\n//{host}/:_authToken=s3cr3t-token\n")
        proc = run_cli("files", "npm:private@1.0.0", "--json")
        assert proc.returncode == 0, proc.stderr
        assert all(s.headers.get("authorization") == "Bearer s3cr3t-token" for s in server.seen)
        proc2 = run_cli("files", "npm:private@9.9.9", "--json")
    for out in (proc.stdout, proc.stderr, proc2.stdout, proc2.stderr):
        assert b"s3cr3t" not in out


def test_npm_config_registry_variable_and_pip_variables(monkeypatch):
    """npm_config_registry and PIP_INDEX_URL are read when codenav's own variables are unset."""
    with FakeServer() as s1, FakeServer() as s2:
        npm, pypi = FakeNpm(s1), FakePypi(s2)
        npm.publish("a", "1.0.0", {"a.js": b""})
        pypi.add_wheel("b", "1.0", {"b.py": b""})
        monkeypatch.setenv("npm_config_registry", npm.url)
        monkeypatch.setenv("PIP_INDEX_URL", pypi.url)
        assert files_of(registry="npm", package_name="a") == ["a.js"]
        assert files_of(registry="pypi", package_name="b") == ["b.py"]


def test_pip_config_file_index_url(tmp_path, monkeypatch):
    """pip's config file index-url is used when no variable is set."""
    with FakeServer() as server:
        pypi = FakePypi(server)
        pypi.add_wheel("b", "1.0", {"b.py": b""})
        conf = tmp_path / "pip.conf"
        conf.write_text(f"[global]\nindex-url = {pypi.url}\n")
        monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
        assert files_of(registry="pypi", package_name="b") == ["b.py"]


def test_npm_itself_is_asked_once_and_the_answer_cached(tmp_path, monkeypatch):
    """With nothing configured, `npm config get registry` is asked once, then remembered."""
    with FakeServer() as server:
        fake = FakeNpm(server)
        fake.publish("a", "1.0.0", {"a.js": b""})
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        counter = tmp_path / "npm-calls"
        script = bin_dir / "npm"
        script.write_text(f"#!/bin/sh\necho x >> {counter}\necho {fake.url}\n")
        script.chmod(0o755)
        monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
        monkeypatch.delenv("CODENAV_NO_DISCOVERY")
        assert files_of(registry="npm", package_name="a", version="1.0.0") == ["a.js"]
        assert files_of(registry="npm", package_name="a") == ["a.js"]
    assert counter.read_text().count("x") == 1


# --- lifecycle and concurrency -----------------------------------------------------------------

def test_wait_zero_returns_indexing_and_the_retry_finds_it_done(npm):
    """Past the wait the call returns INDEXING (retryable) and the background job finishes."""
    npm.publish("slow", "1.0.0", {"a.js": b"1"})
    npm.tarball_delay = 1.0
    err = error_of(list_files.run, registry="npm", package_name="slow", version="1.0.0", wait_timeout_ms=0)
    assert (err.code, err.retryable) == ("INDEXING", True) and err.details["indexingRef"]
    # The retry waits for the background job instead of starting a second download.
    assert files_of(registry="npm", package_name="slow", version="1.0.0", wait_timeout_ms=20000) == ["a.js"]
    assert npm.tarball_hits == 1


def test_eight_processes_on_one_cold_package_download_once(npm):
    """8 CLI processes started together all succeed and the tarball is downloaded once."""
    import subprocess
    import sys

    from tests.support.cli import ROOT

    npm.publish("cold", "1.0.0", {f"f{i}.js": b"x" * 1000 for i in range(50)})
    npm.tarball_delay = 0.3
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-m", "codenav", "files", "npm:cold@1.0.0", "--json"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) for _ in range(8)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, [o[1] for o in outs]
    assert len({o[0] for o in outs}) == 1
    assert len(json.loads(outs[0][0])["files"]) == 50
    assert npm.tarball_hits == 1


def test_cache_cli_list_path_clear_prune(npm, tmp_path):
    """cache list shows the entry, path prints the root, clear empties it, prune tidies."""
    npm.publish("c", "1.0.0", {"a.js": b""})
    files_of(registry="npm", package_name="c", version="1.0.0")
    (tmp_path / "cache" / "tmp" / "debris.123").mkdir(parents=True)
    assert run_cli("cache", "list").stdout.decode().startswith("npm:c@1.0.0\t1 files")
    assert run_cli("cache", "path").stdout.decode().strip() == str(tmp_path / "cache")
    assert run_cli("cache", "prune").returncode == 0
    assert leftovers(tmp_path) == []
    assert run_cli("cache", "clear").returncode == 0
    assert run_cli("cache", "list").stdout == b""
    assert cache_entries(tmp_path) == []


def test_no_progress_on_stderr_when_not_a_terminal(npm):
    """Downloads print no progress when stderr is a pipe."""
    npm.publish("quiet", "1.0.0", {"a.js": b""})
    proc = run_cli("files", "npm:quiet@1.0.0")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"a.js\n", b"")


def test_progress_is_drawn_only_when_stderr_is_a_terminal(npm):
    """With stderr on a terminal a slow download shows progress there; stdout stays clean."""
    import pty
    import subprocess
    import sys

    from tests.support.cli import ROOT

    npm.publish("progress", "1.0.0", {"blob.bin": os.urandom(200_000)})
    npm.tarball_chunk_delay = 0.1
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "codenav", "files", "npm:progress@1.0.0"], stdout=subprocess.PIPE,
                          stderr=follower, stdin=subprocess.DEVNULL, env=env, timeout=60)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert (proc.returncode, proc.stdout) == (0, b"blob.bin\n")
    assert b"downloading progress 1.0.0" in seen


def test_no_npm_on_path_and_nothing_configured_is_a_config_error(tmp_path, monkeypatch):
    """With discovery allowed but no npm to ask, the error names CODENAV_NPM_REGISTRY."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("CODENAV_NO_DISCOVERY")
    err = error_of(list_files.run, registry="npm", package_name="x")
    assert err.code == "CONFIG_ERROR" and "CODENAV_NPM_REGISTRY" in err.message
    assert not (tmp_path / "cache" / "state" / "endpoints.json").exists()


def test_npm_exact_version_reads_the_version_document_not_the_packument(npm):
    """An unscoped name@version (or tag) costs one small version document, never the packument."""
    npm.publish("lean", "1.0.0", {"a.js": b""})
    npm.publish("lean", "2.0.0", {"b.js": b""})
    assert files_of(registry="npm", package_name="lean", version="1.0.0") == ["a.js"]
    assert files_of(registry="npm", package_name="lean") == ["b.js"]
    assert [s.path for s in npm.server.seen if not s.path.startswith("/-/")] == ["/lean/1.0.0", "/lean/latest"]


def test_npm_registry_without_version_documents_falls_back_to_the_packument(npm):
    """A registry that 404s /<name>/<version> is read through the packument instead."""
    npm.version_documents = False
    npm.publish("plain", "1.0.0", {"a.js": b""})
    npm.tag("plain", "beta", "1.0.0")
    assert files_of(registry="npm", package_name="plain", version="beta") == ["a.js"]
    assert [s.path for s in npm.server.seen if not s.path.startswith("/-/")] == ["/plain/beta", "/plain"]
