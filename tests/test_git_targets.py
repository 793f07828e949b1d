"""list/read/grep on git targets: real `git init` repositories addressed by --repo-url."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from codenav.errors import CodenavError
from codenav.tools import list_files, read_file
from tests.support.cli import run_cli

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid"}


def git(repo, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "src").mkdir()
    (path / "src" / "app.py").write_text("print('v1')\n")
    (path / "README.md").write_text("# demo\n")
    os.symlink("src/app.py", path / "link.py")
    git(path, "add", "-A")
    git(path, "commit", "-qm", "one")
    git(path, "tag", "v1")
    git(path, "checkout", "-qb", "release/2.x")
    (path / "src" / "app.py").write_text("print('v2')\n")
    git(path, "commit", "-qam", "two")
    git(path, "checkout", "-q", "main")
    return path


def test_default_branch_tag_slash_branch_and_sha(repo):
    """HEAD, a tag, a branch with a slash and a bare SHA each read their own commit and echo it."""
    v1 = git(repo, "rev-parse", "v1")
    v2 = git(repo, "rev-parse", "release/2.x")
    for ref, text, commit in [(None, "print('v1')\n", v1), ("v1", "print('v1')\n", v1),
                              ("release/2.x", "print('v2')\n", v2), (v2, "print('v2')\n", v2)]:
        args = {"repo_url": str(repo), "path": "src/app.py", **({"git_ref": ref} if ref else {})}
        result = read_file.run(args)
        assert result["content"] == text
        assert result["target"] == {"repoUrl": str(repo), "gitRef": ref, "commit": commit}


def test_git_listing_has_files_and_links_kept_as_links(repo):
    """The tree lists without .git; a symlink is listed as a link and read through."""
    result = list_files.run({"repo_url": f"file://{repo}"})
    assert [f["path"] for f in result["files"]] == ["README.md", "link.py", "src/app.py"]
    link = result["files"][1]
    assert link["fileType"] == "symlink" and link["linkTarget"] == "src/app.py"
    assert read_file.run({"repo_url": f"file://{repo}", "path": "link.py"})["content"] == "print('v1')\n"


def test_unknown_ref_is_ref_not_found(repo):
    """A ref the remote does not have is REF_NOT_FOUND with requestedRef."""
    with pytest.raises(CodenavError) as info:
        list_files.run({"repo_url": str(repo), "git_ref": "nope"})
    assert info.value.code == "REF_NOT_FOUND" and info.value.details["requestedRef"] == "nope"


def test_cli_repo_url_mode(repo):
    """--repo-url/--git-ref replace SPEC; the first positional is then the path."""
    proc = run_cli("read", "--repo-url", str(repo), "--git-ref", "release/2.x", "src/app.py")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"print('v2')\n", b"")
    proc = run_cli("grep", "--repo-url", str(repo), "V1", "src/app.py", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["matchCount"] == 1


def test_dangerous_repo_urls_are_refused(tmp_path):
    """ext:: transports and option-like URLs are INVALID_ARGUMENT; nothing runs."""
    marker = tmp_path / "pwned"
    for url in (f"ext::sh -c touch% {marker}", "--upload-pack=touch " + str(marker)):
        with pytest.raises(CodenavError) as info:
            list_files.run({"repo_url": url})
        assert info.value.code == "INVALID_ARGUMENT"
    assert not marker.exists()
