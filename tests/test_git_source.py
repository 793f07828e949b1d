"""The git source (SPEC §3, §8) against real repositories made with ``git init`` in tmp_path.

No network: remotes are local paths and file:// URLs; the unreachable and silent servers are
a closed port and a TCP listener on 127.0.0.1 that accepts and never answers.
"""

from __future__ import annotations

import os
import socket
import subprocess
import tarfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from codenav.errors import CodenavError
from codenav.remotes import git as source

IDENTITY = {
    "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
}


def sh(repo: Path, *args: str) -> str:
    """Run git in ``repo`` (test setup only) and return its stdout, stripped."""
    env = {**os.environ, **IDENTITY}
    done = subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env,
        stdin=subprocess.DEVNULL,
    )
    return done.stdout.strip()


def commit_file(repo: Path, name: str, text: str, message: str) -> str:
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    sh(repo, "add", "--", name)
    sh(repo, "commit", "--quiet", "-m", message)
    return sh(repo, "rev-parse", "HEAD")


def make_repo(path: Path, branch: str = "main") -> Path:
    path.mkdir()
    sh(path, "init", "--quiet", f"--initial-branch={branch}")
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main with two commits, a lightweight and an annotated tag, a branch release/1.x."""
    repo = make_repo(tmp_path / "repo")
    commit_file(repo, "README.md", "hello\n", "first")
    sh(repo, "tag", "v0.1")
    commit_file(repo, "src/app.py", "print('hi')\n", "second")
    sh(repo, "tag", "-a", "v1.0", "-m", "release 1.0")
    sh(repo, "checkout", "--quiet", "-b", "release/1.x")
    commit_file(repo, "CHANGES", "1.x\n", "on release")
    sh(repo, "checkout", "--quiet", "main")
    return repo


def fails(code: str, fn: Callable[..., object], *args: object, **kwargs: object) -> CodenavError:
    """Call fn and return the CodenavError it raises, asserting its code."""
    with pytest.raises(CodenavError) as info:
        fn(*args, **kwargs)
    assert info.value.code == code, info.value.to_envelope()
    return info.value


# -- resolve ---------------------------------------------------------------------------------


def test_no_ref_resolves_the_remote_default_branch(repo: Path) -> None:
    """ref None names the commit at the remote's HEAD."""
    assert source.resolve(str(repo), None) == sh(repo, "rev-parse", "main")


def test_default_branch_need_not_be_main_or_master(tmp_path: Path) -> None:
    """A repository whose HEAD is 'trunk' resolves to trunk's tip, and says which branch that was."""
    repo = make_repo(tmp_path / "r", branch="trunk")
    tip = commit_file(repo, "a.txt", "a\n", "one")
    sh(repo, "branch", "main", tip)
    newer = commit_file(repo, "b.txt", "b\n", "two")
    assert source.resolve_ref(str(repo), None) == source.Resolution(newer, "refs/heads/trunk")
    assert source.resolve(str(repo), "HEAD") == newer


def test_lightweight_tag_resolves_to_its_commit(repo: Path) -> None:
    """A lightweight tag names the commit it points at."""
    assert source.resolve(str(repo), "v0.1") == sh(repo, "rev-parse", "v0.1")


def test_annotated_tag_resolves_to_the_commit_not_the_tag_object(repo: Path) -> None:
    """An annotated tag is peeled: the result is the commit, never the tag object's id."""
    tag_object = sh(repo, "rev-parse", "v1.0")
    commit = sh(repo, "rev-parse", "v1.0^{commit}")
    assert tag_object != commit
    assert source.resolve(str(repo), "v1.0") == commit
    assert source.resolve(str(repo), "refs/tags/v1.0") == commit


def test_branch_with_slashes_resolves(repo: Path) -> None:
    """A branch named release/1.x is found by its name and by its full refname."""
    tip = sh(repo, "rev-parse", "release/1.x")
    assert source.resolve(str(repo), "release/1.x") == tip
    assert source.resolve_ref(str(repo), "refs/heads/release/1.x") == source.Resolution(tip, "refs/heads/release/1.x")


def test_branch_wins_over_a_tag_of_the_same_name(repo: Path) -> None:
    """When a branch and a tag share a name, the branch is used (as git clone --branch does)."""
    sh(repo, "tag", "release/1.x", "v0.1")
    assert source.resolve(str(repo), "release/1.x") == sh(repo, "rev-parse", "refs/heads/release/1.x")


def test_full_refname_outside_heads_and_tags_resolves(repo: Path) -> None:
    """A full refname such as refs/pull/7/head is matched exactly."""
    sh(repo, "update-ref", "refs/pull/7/head", "v0.1")
    sh(repo, "update-ref", "refs/other/pull/7/head", "main")
    assert source.resolve(str(repo), "refs/pull/7/head") == sh(repo, "rev-parse", "v0.1")


def test_full_commit_id_is_taken_without_asking_the_remote(repo: Path, tmp_path: Path) -> None:
    """A 40-hex ref (here a commit that is no branch tip, upper-cased) is returned as is, lower-cased."""
    first = sh(repo, "rev-parse", "v0.1")
    assert source.resolve(str(repo), first.upper()) == first
    # Not even an existing remote is needed: no git process runs.
    assert source.resolve(str(tmp_path / "nowhere"), first) == first


def test_short_id_of_a_tip_resolves_and_of_another_commit_asks_for_the_full_id(repo: Path) -> None:
    """A short id matching one advertised tip resolves; one that matches no tip is INVALID_ARGUMENT."""
    tip = sh(repo, "rev-parse", "release/1.x")
    assert source.resolve(str(repo), tip[:10]) == tip
    tagged = sh(repo, "rev-parse", "v0.1")  # a tag tip counts too
    assert source.resolve(str(repo), tagged[:7].upper()) == tagged
    sh(repo, "commit", "--quiet", "--allow-empty", "-m", "third")
    middle = commit_file(repo, "more.txt", "x\n", "fourth")
    sh(repo, "commit", "--quiet", "--allow-empty", "-m", "fifth")
    error = fails("INVALID_ARGUMENT", source.resolve, str(repo), middle[:8])
    assert error.details == {"field": "git_ref", "requestedRef": middle[:8]}
    assert "full 40-character commit id" in error.message


def test_unknown_ref_is_ref_not_found_with_the_refs_that_exist(repo: Path) -> None:
    """An unknown ref is REF_NOT_FOUND naming the requested ref and a few existing ones, near misses first."""
    error = fails("REF_NOT_FOUND", source.resolve, str(repo), "relase/1.x")
    assert error.details["requestedRef"] == "relase/1.x"
    assert error.details["availableRefs"][0] == "release/1.x"
    assert set(error.details["availableRefs"]) == {"main", "release/1.x", "v0.1", "v1.0"}
    assert error.retryable is False


def test_empty_repository_has_no_default_branch(tmp_path: Path) -> None:
    """A repository without commits is REF_NOT_FOUND for HEAD, not a crash."""
    repo = make_repo(tmp_path / "empty")
    error = fails("REF_NOT_FOUND", source.resolve, str(repo), None)
    assert error.details["requestedRef"] == "HEAD"
    assert "no commits" in error.message


def test_nonexistent_path_is_not_found(tmp_path: Path) -> None:
    """A path that is not a repository is NOT_FOUND, with git's reason and not retryable."""
    error = fails("NOT_FOUND", source.resolve, str(tmp_path / "missing"), "main")
    assert "does not appear to be a git repository" in error.message
    assert error.retryable is False


@pytest.mark.parametrize("ref", ["-x", "a..b", "a b", "v1^{}", "x~1", "*", "a:b", "bad\nref", "refs/heads/x.lock"])
def test_impossible_ref_names_are_invalid(tmp_path: Path, ref: str) -> None:
    """A string that no git ref can be named (or that ls-remote would read as a glob) is INVALID_ARGUMENT."""
    error = fails("INVALID_ARGUMENT", source.resolve, str(tmp_path), ref)
    assert error.details["field"] == "git_ref"


# -- URLs ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "-upload-pack=touch {marker}",
        "--upload-pack=touch {marker}",
        "  --upload-pack=touch {marker}",
        "ext::sh -c touch% {marker}",
        "EXT::sh -c touch% {marker}",
        "fd::3",
        "fd::0,1/x",
        "hg::https://example.invalid/x",
        "",
        "   ",
        "{repo}\x00",
        "{repo}\nmore",
        "ftp://example.invalid/x.git",
        "ssh://-oProxyCommand=touch%20{marker}/x",
        "ssh://user@-oProxyCommand=x/y",
    ],
)
def test_hostile_urls_are_refused_and_nothing_runs(tmp_path: Path, url: str) -> None:
    """Options, remote-helper transports, control characters and odd schemes are INVALID_ARGUMENT; no command runs."""
    marker = tmp_path / "marker"
    url = url.format(marker=marker, repo=tmp_path)
    for call in (
        lambda: source.check_url(url),
        lambda: source.resolve(url, "main"),
        lambda: source.resolve(url, None),
        lambda: source.export(url, "0" * 40, tmp_path / "out.tar"),
    ):
        with pytest.raises(CodenavError) as info:
            call()
        assert info.value.code == "INVALID_ARGUMENT"
        assert info.value.details["field"] == "repo_url"
    assert not marker.exists()
    assert not (tmp_path / "out.tar").exists()


@pytest.mark.parametrize(
    ("given", "used"),
    [
        ("https://example.invalid/o/n.git", "https://example.invalid/o/n.git"),
        ("  http://example.invalid/o/n  ", "http://example.invalid/o/n"),
        ("ssh://git@example.invalid:2222/o/n.git", "ssh://git@example.invalid:2222/o/n.git"),
        ("git://example.invalid/o/n.git", "git://example.invalid/o/n.git"),
        ("git@example.invalid:o/n.git", "git@example.invalid:o/n.git"),
        ("git+https://example.invalid/o/n.git", "https://example.invalid/o/n.git"),
        ("file:///srv/repo.git", "file:///srv/repo.git"),
        ("/srv/repo.git", "/srv/repo.git"),
    ],
)
def test_accepted_url_forms(given: str, used: str) -> None:
    """https, http, ssh, git, scp-like, file:// and absolute paths pass; npm's git+https loses its prefix."""
    assert source.check_url(given) == used


def test_relative_path_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A relative local path becomes absolute, so it never depends on where git runs."""
    monkeypatch.chdir(tmp_path)
    assert source.check_url("sub/repo") == str(tmp_path / "sub" / "repo")
    assert source.check_url("./x::y") == str(tmp_path / "x::y")


def test_file_url_and_plain_path_both_work(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same repository is read through file://, an absolute path and a relative path."""
    tip = sh(repo, "rev-parse", "main")
    monkeypatch.chdir(tmp_path)
    assert source.resolve(repo.as_uri(), None) == tip
    assert source.resolve(str(repo), "main") == tip
    assert source.resolve("repo", "main") == tip
    source.export(repo.as_uri(), tip, tmp_path / "a.tar")
    source.export("repo", tip, tmp_path / "b.tar")
    assert members(tmp_path / "a.tar") == members(tmp_path / "b.tar") == sorted(["README.md", "src/app.py"])


def test_repository_variables_of_the_caller_do_not_leak_in(repo: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """GIT_DIR and friends set around codenav (e.g. inside a git hook) do not redirect its git runs."""
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("GIT_WORK_TREE", str(tmp_path))
    tip = source.resolve(str(repo), None)
    source.export(str(repo), tip, tmp_path / "out.tar")
    assert members(tmp_path / "out.tar") == ["README.md", "src/app.py"]


# -- export ----------------------------------------------------------------------------------


def members(tar_path: Path) -> list[str]:
    """Names of the non-directory members of a tar."""
    with tarfile.open(tar_path) as tar:
        return sorted(m.name for m in tar.getmembers() if not m.isdir())


def test_export_writes_the_tree_of_the_commit_and_nothing_else(repo: Path, tmp_path: Path) -> None:
    """The tar's files are exactly `git ls-tree -r` of the commit, with their content, and no .git."""
    commit = sh(repo, "rev-parse", "release/1.x")
    dest = tmp_path / "out" / "tree.tar"
    dest.parent.mkdir()
    source.export(str(repo), commit, dest)
    expected = sorted(sh(repo, "ls-tree", "-r", "--name-only", commit).splitlines())
    assert members(dest) == expected == ["CHANGES", "README.md", "src/app.py"]
    with tarfile.open(dest) as tar:
        assert not any(n == ".git" or n.startswith(".git/") for n in tar.getnames())
        assert tar.extractfile("src/app.py").read() == b"print('hi')\n"
    assert sorted(p.name for p in dest.parent.iterdir()) == ["tree.tar"]  # no temp repo left


def test_export_of_a_commit_that_is_no_branch_tip(repo: Path, tmp_path: Path) -> None:
    """An older commit addressed by id is exported with the files it had."""
    first = sh(repo, "rev-parse", "v0.1")
    source.export(str(repo), first, tmp_path / "old.tar")
    assert members(tmp_path / "old.tar") == ["README.md"]


def test_export_keeps_symlinks_as_symlinks(repo: Path, tmp_path: Path) -> None:
    """A committed symlink comes out as a symlink member with its target, not as a copy."""
    (repo / "link").symlink_to("README.md")
    sh(repo, "add", "link")
    sh(repo, "commit", "--quiet", "-m", "link")
    source.export(str(repo), sh(repo, "rev-parse", "HEAD"), tmp_path / "out.tar")
    with tarfile.open(tmp_path / "out.tar") as tar:
        link = tar.getmember("link")
    assert link.issym() and link.linkname == "README.md"


def test_export_ignores_export_attributes(repo: Path, tmp_path: Path) -> None:
    """export-ignore and export-subst in the tree's .gitattributes change nothing: the tree is shown as committed."""
    (repo / ".gitattributes").write_text("hidden export-ignore\nsubst export-subst\n")
    (repo / "hidden").write_text("still here\n")
    (repo / "subst").write_text("$Format:%H$\n")
    sh(repo, "add", ".gitattributes", "hidden", "subst")
    sh(repo, "commit", "--quiet", "-m", "attributes")
    source.export(str(repo), sh(repo, "rev-parse", "HEAD"), tmp_path / "out.tar")
    with tarfile.open(tmp_path / "out.tar") as tar:
        assert {"hidden", "subst"} <= set(tar.getnames())
        assert tar.extractfile("subst").read() == b"$Format:%H$\n"


def test_export_of_a_missing_commit_is_ref_not_found_and_leaves_nothing(repo: Path, tmp_path: Path) -> None:
    """A commit the remote does not have is REF_NOT_FOUND; no temp repository and no tar remain."""
    out = tmp_path / "out"
    out.mkdir()
    error = fails("REF_NOT_FOUND", source.export, str(repo), "1" * 40, out / "tree.tar")
    assert error.details["requestedRef"] == "1" * 40
    assert list(out.iterdir()) == []


def test_export_rejects_a_commit_that_is_not_a_full_id(repo: Path, tmp_path: Path) -> None:
    """export takes the resolved full id only; anything else is INVALID_ARGUMENT before git runs."""
    for bad in ("main", "abc1234", "--output=/tmp/x"):
        fails("INVALID_ARGUMENT", source.export, str(repo), bad, tmp_path / "out.tar")
    assert list(tmp_path.glob(".git-export-*")) == []


@pytest.fixture
def protocol_v0(monkeypatch: pytest.MonkeyPatch) -> None:
    """Speak protocol v0, where a server without uploadpack.allow*SHA1InWant serves advertised tips only."""
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "protocol.version")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "0")


@pytest.mark.usefixtures("protocol_v0")
def test_export_falls_back_to_the_ref_when_the_server_refuses_ids(repo: Path, tmp_path: Path) -> None:
    """A commit refused by id is fetched through the tag whose tip it is, found by the caller's ref or by scanning tips."""
    tagged = sh(repo, "rev-parse", "v1.0^{commit}")
    sh(repo, "commit", "--quiet", "--allow-empty", "-m", "main moves on")  # only the annotated tag points there now
    # The premise: this server will not hand out that commit by id.
    bare = make_repo(tmp_path / "probe")
    refused = subprocess.run(["git", "-C", str(bare), "fetch", "--depth=1", "--", str(repo), tagged],
                             capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert "unadvertised object" in refused.stderr
    source.export(str(repo), tagged, tmp_path / "a.tar")
    source.export(str(repo), tagged, tmp_path / "b.tar", ref="v1.0")
    assert members(tmp_path / "a.tar") == members(tmp_path / "b.tar") == ["README.md", "src/app.py"]
    assert list(tmp_path.glob(".git-export-*")) == []


@pytest.mark.usefixtures("protocol_v0")
def test_export_fallback_reports_a_moved_ref_as_retryable(repo: Path, tmp_path: Path) -> None:
    """When the ref resolve used now points elsewhere, the export is a retryable UPSTREAM_ERROR."""
    resolved = source.resolve(str(repo), "main")
    sh(repo, "commit", "--quiet", "--allow-empty", "-m", "pushed meanwhile")
    error = fails("UPSTREAM_ERROR", source.export, str(repo), resolved, tmp_path / "out.tar", ref="main")
    assert error.retryable is True
    assert "moved" in error.message
    assert list(tmp_path.glob(".git-export-*")) == [] and not (tmp_path / "out.tar").exists()


@pytest.mark.usefixtures("protocol_v0")
def test_export_fallback_without_a_matching_tip_is_ref_not_found(repo: Path, tmp_path: Path) -> None:
    """A non-tip commit on a server that serves tips only is REF_NOT_FOUND, saying why."""
    old = commit_file(repo, "more.txt", "x\n", "third")
    sh(repo, "commit", "--quiet", "--allow-empty", "-m", "fourth")
    error = fails("REF_NOT_FOUND", source.export, str(repo), old, tmp_path / "out.tar")
    assert "branch or tag tips" in error.message


# -- failures, deadlines, hygiene --------------------------------------------------------------


def test_credentials_never_appear_in_errors() -> None:
    """A refused connection is NETWORK (retryable) and the URL's user:password is shown as ***."""
    error = fails("NETWORK", source.resolve, "https://user:secret@127.0.0.1:1/x.git", "main")
    assert error.retryable is True
    assert "secret" not in error.message and "user" not in error.message
    assert "https://***@127.0.0.1:1/x.git" in error.message
    assert source.redact("https://user:secret@127.0.0.1:1/x.git") == "https://***@127.0.0.1:1/x.git"
    assert source.redact("https://ghp_token@host.invalid/x") == "https://***@host.invalid/x"
    assert source.redact("ssh://git@host.invalid/x") == "ssh://git@host.invalid/x"  # a login name, not a secret


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A TCP listener on 127.0.0.1 that accepts connections and never says a word."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/x.git"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


def test_a_silent_server_times_out_quickly(silent_server: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """With CODENAV_GIT_TIMEOUT=0.5 a server that never answers is TIMEOUT (retryable) well within 2 s."""
    monkeypatch.setenv("CODENAV_GIT_TIMEOUT", "0.5")
    started = time.monotonic()
    error = fails("TIMEOUT", source.resolve, silent_server, "main")
    assert time.monotonic() - started < 2
    assert error.retryable is True and error.details == {"timeoutSeconds": 0.5}
    monkeypatch.setenv("CODENAV_GIT_FETCH_TIMEOUT", "0.5")
    started = time.monotonic()
    fails("TIMEOUT", source.export, silent_server, "2" * 40, tmp_path / "out.tar")
    assert time.monotonic() - started < 2
    assert list(tmp_path.glob(".git-export-*")) == [] and not (tmp_path / "out.tar").exists()


def test_a_bad_timeout_variable_is_a_config_error(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CODENAV_GIT_TIMEOUT that is not a positive number is CONFIG_ERROR."""
    monkeypatch.setenv("CODENAV_GIT_TIMEOUT", "soon")
    fails("CONFIG_ERROR", source.resolve, str(repo), "main")


def test_git_missing_from_path_is_a_config_error(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without git on PATH the error says git is needed."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    error = fails("CONFIG_ERROR", source.resolve, str(repo), "main")
    assert "git" in error.message


@pytest.mark.parametrize(
    ("stderr", "code", "retryable"),
    [
        ("fatal: could not read Username for 'https://github.com': terminal prompts disabled\n", "NOT_FOUND", False),
        ("remote: Repository not found.\nfatal: repository 'https://host.invalid/o/n.git/' not found\n",
         "NOT_FOUND", False),
        ("ERROR: Repository not found.\nfatal: Could not read from remote repository.\n\n"
         "Please make sure you have the correct access rights\nand the repository exists.\n", "NOT_FOUND", False),
        ("git@host.invalid: Permission denied (publickey).\nfatal: Could not read from remote repository.\n",
         "NOT_FOUND", False),
        ("fatal: unable to access 'https://host.invalid/x.git/': The requested URL returned error: 502\n",
         "UPSTREAM_ERROR", True),
        ("fatal: unable to access 'https://host.invalid/x.git/': The requested URL returned error: 429\n",
         "RATE_LIMITED", True),
        ("fatal: unable to access 'https://host.invalid/x/': Could not resolve host: host.invalid\n", "NETWORK", True),
        ("Host key verification failed.\nfatal: Could not read from remote repository.\n", "CONFIG_ERROR", False),
        ("fatal: something nobody expected\n", "UPSTREAM_ERROR", False),
    ],
)
def test_git_failures_map_to_stable_codes(stderr: str, code: str, retryable: bool) -> None:
    """The stderr of git, curl and ssh for common failures maps to the SPEC §4 code, quoting the telling line."""
    error = source._classify(stderr, "list the refs of x", ())
    assert (error.code, error.retryable) == (code, retryable)
    assert error.message.startswith("git could not list the refs of x")
    assert "\n" not in error.message and "fatal:" not in error.message


def test_error_reasons_hide_credentials_and_cache_paths() -> None:
    """git's reason is quoted without URL credentials, temp/cache paths or terminal escapes."""
    stderr = (
        "fatal: unable to write /home/u/.cache/codenav/.git-export-x1/objects/pack for "
        "https://bob:hunter2@host.invalid/r.git: \x1b[31mNo space left\x1b[0m\n"
    )
    error = source._classify(stderr, "fetch it", ("/home/u/.cache/codenav/.git-export-x1", "/home/u/.cache/codenav"))
    assert error.message == (
        "git could not fetch it (unable to write <cache>/objects/pack for https://***@host.invalid/r.git: No space left)"
    )
