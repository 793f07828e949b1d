"""diff_versions / `codenav diff` over fake npm versions, with real git as the oracle (SPEC §2.8)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from codenav import budget, contract
from codenav.errors import CodenavError
from codenav.tools import diff_versions
from tests.support.cli import run_cli

OLD = {
    "a.js": "".join(f"line {i}\n" for i in range(1, 41)).encode(),
    "gone.js": b"module.exports = 1;\n",
    "old/name.txt": b"moved without a change\n",
    "logo.png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
    "crlf.txt": b"one\r\ntwo\r\nthree\r\n",
    "nonl.txt": b"first\nlast without newline",
    "to-empty.txt": b"soon nothing\n",
    "same.js": b"unchanged\n",
    "lib/util.js": b"export const a = 1;\n",
}
NEW = {
    "a.js": "".join(f"line {i}\n" if i not in (3, 30) else f"LINE {i}\n" for i in range(1, 41)).encode() + b"line 41\n",
    "new/name.txt": b"moved without a change\n",
    "logo.png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDX",
    "crlf.txt": b"one\r\nTWO\r\nthree\r\n",
    "nonl.txt": b"first\nlast without newline\n",
    "to-empty.txt": b"",
    "empty.txt": b"",
    "born.js": b"new file\n",
    "same.js": b"unchanged\n",
    "lib/util.js": b"export const a = 2;\n",
}
ARGS = {"registry": "npm", "package_name": "demo", "from_version": "1.0.0", "to_version": "2.0.0"}


@pytest.fixture
def demo(npm):
    npm.publish("demo", "1.0.0", OLD)
    npm.publish("demo", "2.0.0", NEW)
    return npm


def err(**args) -> CodenavError:
    with pytest.raises(CodenavError) as info:
        diff_versions.run(args)
    return info.value


def test_each_kind_of_change_is_named_with_git_numstat_counts(demo):
    """Added, removed, modified, renamed (same digest), binary, emptied, CRLF and final-newline
    changes each get their status and counts; unchanged files are absent."""
    result = diff_versions.run(dict(ARGS))
    contract.validator("diff_versions", "outputSchema").validate(result)
    got = {f["path"]: (f["status"], f["added"], f["removed"], f["binary"], f.get("oldPath")) for f in result["files"]}
    assert got == {
        "a.js": ("modified", 3, 2, False, None),
        "born.js": ("added", 1, 0, False, None),
        "crlf.txt": ("modified", 1, 1, False, None),
        "empty.txt": ("added", 0, 0, False, None),
        "gone.js": ("removed", 0, 1, False, None),
        "lib/util.js": ("modified", 1, 1, False, None),
        "logo.png": ("modified", None, None, True, None),
        "new/name.txt": ("renamed", 0, 0, False, "old/name.txt"),
        "nonl.txt": ("modified", 1, 1, False, None),
        "to-empty.txt": ("modified", 0, 1, False, None),
    }
    assert result["summary"] == {"filesChanged": 10, "added": 2, "removed": 1, "modified": 6, "renamed": 1,
                                 "modeChanged": 0, "binaryChanged": 1, "notDiffed": 0, "linesAdded": 7,
                                 "linesRemoved": 7}
    assert result["from"]["version"] == "1.0.0" and result["to"]["version"] == "2.0.0"
    assert result["hasMore"] is False and "nextCursor" not in result
    patches = {f["path"]: f["patch"] for f in result["files"]}
    assert "-two\r\n+TWO\r\n" in patches["crlf.txt"]
    assert patches["nonl.txt"].endswith("-last without newline\n\\ No newline at end of file\n+last without newline\n")
    assert "Binary files a/logo.png and b/logo.png differ\n" in patches["logo.png"]


def test_from_version_omitted_is_the_locked_version_and_ranges_resolve(demo, tmp_path):
    """Without from_version the project's lockfile names the old side (its echo says so); the
    new side is the registry's latest, never the lockfile's; ranges resolve as npm picks."""
    project = tmp_path / "app"
    project.mkdir()
    (project / "package-lock.json").write_text(json.dumps({"lockfileVersion": 3, "packages": {
        "": {"dependencies": {"demo": "^1.0.0"}}, "node_modules/demo": {"version": "1.0.0"}}}))
    result = diff_versions.run({"registry": "npm", "package_name": "demo", "project_dir": str(project)})
    assert (result["from"]["version"], result["to"]["version"]) == ("1.0.0", "2.0.0")
    assert result["from"]["versionSource"]["kind"] == "lockfile"
    assert result["to"]["versionSource"] == {"kind": "latest"}
    ranged = diff_versions.run({"registry": "npm", "package_name": "demo", "from_version": "^1", "to_version": "2.x"})
    assert (ranged["from"]["version"], ranged["to"]["version"]) == ("1.0.0", "2.0.0")
    assert ranged["summary"] == result["summary"]


def test_globs_narrow_the_diff_as_ripgrep_reads_them(demo):
    """`glob` keeps the paths its ripgrep -g rules include (and the filter echoes it)."""
    full = {f["path"] for f in diff_versions.run(ARGS)["files"]}
    result = diff_versions.run({**ARGS, "glob": ["*.js", "!gone.js"]})
    assert {f["path"] for f in result["files"]} == {p for p in full if p.endswith(".js") and p != "gone.js"}
    assert result["filter"] == {"glob": ["*.js", "!gone.js"]}


def test_to_version_omitted_is_the_latest(demo):
    """Without to_version the registry's latest is the new side."""
    result = diff_versions.run({k: v for k, v in ARGS.items() if k != "to_version"})
    assert result["to"]["version"] == "2.0.0"


def test_path_prefix_and_path_narrow_the_diff(demo):
    """path_prefix keeps whole directories, path one file; both are echoed in filter."""
    result = diff_versions.run({**ARGS, "path_prefix": "lib/"})
    assert [f["path"] for f in result["files"]] == ["lib/util.js"]
    assert result["filter"] == {"pathPrefix": "lib/"}
    one = diff_versions.run({**ARGS, "path": "crlf.txt", "context": 0})
    assert [f["path"] for f in one["files"]] == ["crlf.txt"] and one["summary"]["filesChanged"] == 1
    assert one["files"][0]["patch"].count("\n") == 7  # diff, index, ---, +++, @@, -, +: no context
    assert one["filter"] == {"path": "crlf.txt", "context": 0}


def test_a_path_in_neither_version_is_file_not_found(demo):
    """A path neither version ships is FILE_NOT_FOUND, not an empty diff."""
    assert err(**ARGS, path="nope.js").code == "FILE_NOT_FOUND"


@pytest.mark.parametrize("args,field", [
    ({**ARGS, "context": 21}, "context"),
    ({**ARGS, "repo_url": "https://example.invalid/x.git"}, "repo_url"),
    ({"repo_url": "https://example.invalid/x.git"}, "from_ref"),
    ({**ARGS, "path_prefix": "../x"}, "path_prefix"),
    ({**ARGS, "from_version": "1..2 <>"}, "from_version"),
])
def test_bad_arguments_name_their_field(npm, args, field):
    """A missing from_ref, both target forms, a bad context, prefix or version are
    INVALID_ARGUMENT naming the field, before any download."""
    error = err(**args)
    assert (error.code, error.details["field"]) == ("INVALID_ARGUMENT", field)
    assert npm.tarball_hits == 0


def test_paging_visits_every_file_exactly_once_within_the_budget(npm):
    """Pages follow nextCursor until hasMore is false; every file comes once, in order, and each
    envelope fits 50 KiB / 2000 lines."""
    old = {f"f{i:03}.txt": "".join(f"old \"{i}\" {j}\n" for j in range(60)).encode() for i in range(80)}
    new = {f"f{i:03}.txt": "".join(f"new \\{i}\\ {j}\n" for j in range(60)).encode() for i in range(80)}
    npm.publish("many", "1.0.0", old)
    npm.publish("many", "2.0.0", new)
    args = {"registry": "npm", "package_name": "many", "from_version": "1.0.0", "to_version": "2.0.0"}
    seen, cursor, pages = [], None, 0
    while True:
        result = diff_versions.run({**args, **({"cursor": cursor} if cursor else {})})
        contract.validator("diff_versions", "outputSchema").validate(result)
        assert budget.json_size(result) <= budget.BUDGET_BYTES
        assert sum(f["patch"].count("\n") for f in result["files"]) <= budget.BUDGET_LINES
        assert result["summary"]["filesChanged"] == 80
        seen += [f["path"] for f in result["files"]]
        pages += 1
        if not result["hasMore"]:
            assert "nextCursor" not in result
            break
        cursor = result["nextCursor"]
        assert cursor in result["hint"]
    assert seen == sorted(old) and pages > 2


def test_a_patch_over_the_budget_is_cut_and_the_cursor_moves_on(npm):
    """A single file whose patch exceeds the budget comes cut, marked, within 50 KiB."""
    npm.publish("big", "1.0.0", {"a.txt": b"".join(b"%d old\n" % i for i in range(5000)), "b.txt": b"1\n"})
    npm.publish("big", "2.0.0", {"a.txt": b"".join(b"%d new\n" % i for i in range(5000)), "b.txt": b"2\n"})
    args = {"registry": "npm", "package_name": "big", "from_version": "1.0.0", "to_version": "2.0.0"}
    first = diff_versions.run(args)
    assert [f["path"] for f in first["files"]] == ["a.txt"] and first["files"][0]["patchCut"] is True
    assert budget.json_size(first) <= budget.BUDGET_BYTES and first["files"][0]["added"] == 5000
    second = diff_versions.run({**args, "cursor": first["nextCursor"]})
    assert [f["path"] for f in second["files"]] == ["b.txt"] and second["hasMore"] is False


def test_a_cursor_from_another_diff_is_refused(demo, npm):
    """A cursor is refused for different arguments and for text this tool never gave out."""
    npm.publish("other", "1.0.0", {f"{i}.txt": bytes(5000) .replace(b"\0", b"a\n") for i in range(20)})
    npm.publish("other", "2.0.0", {f"{i}.txt": bytes(5000).replace(b"\0", b"b\n") for i in range(20)})
    paged = diff_versions.run({"registry": "npm", "package_name": "other", "from_version": "1.0.0",
                               "to_version": "2.0.0"})
    assert paged["hasMore"] is True
    assert err(**ARGS, cursor=paged["nextCursor"]).details["field"] == "cursor"
    assert err(**ARGS, cursor="not-a-cursor").code == "INVALID_ARGUMENT"


def test_cli_views_and_exit_status(demo):
    """--name-only, --numstat and --stat print git's shapes; exit 0 with or without changes."""
    names = run_cli("diff", "npm:demo", "1.0.0", "2.0.0", "--name-only")
    assert (names.returncode, names.stderr) == (0, b"")
    assert names.stdout.decode().splitlines() == sorted(
        ["a.js", "born.js", "crlf.txt", "empty.txt", "gone.js", "lib/util.js", "logo.png", "new/name.txt",
         "nonl.txt", "to-empty.txt"])
    numstat = run_cli("diff", "npm:demo", "lib", "--from", "1.0.0", "--to", "2.0.0", "--numstat")
    assert numstat.stderr == b""
    assert numstat.stdout == b"1\t1\tlib/util.js\n"
    stat = run_cli("diff", "npm:demo", "--from", "1.0.0", "--stat")
    lines = stat.stdout.decode().splitlines()
    assert " {old => new}/name.txt |   0" in lines and " logo.png              | Bin" in lines
    assert lines[-1] == " 10 files changed, 7 insertions(+), 7 deletions(-)"
    same = run_cli("diff", "npm:demo", "2.0.0", "2.0.0")
    assert (same.returncode, same.stdout, same.stderr) == (0, b"", b"")
    missing = run_cli("diff", "npm:demo", "1.0.0", "9.9.9")
    assert missing.returncode == 1 and missing.stdout == b"" and b"9.9.9" in missing.stderr


@pytest.mark.parametrize("old,new,label", [
    ("lib/a.js", "lib/b.js", "lib/{a.js => b.js}"),
    ("lib/a.js", "src/a.js", "{lib => src}/a.js"),
    ("a.js", "b.js", "a.js => b.js"),
    ("a/b/c.js", "a/c.js", "a/{b => }/c.js"),
    ("x/a.js", "x/y/a.js", "x/{ => y}/a.js"),
])
def test_rename_labels_are_gits(old, new, label):
    """Renames in --stat/--numstat share their common directories outside braces, as git shows them."""
    assert diff_versions.rename_label(old, new) == label


# --- real git as the oracle -----------------------------------------------------------------

def _git(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C"}
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, env=env, check=check, timeout=60)


def _tree(target: dict) -> Path:
    """The extracted tree of a cached version (Entry.path + '/tree')."""
    from codenav import targets
    from codenav.cache import open_entry

    args = {"registry": target["registry"], "package_name": target["name"], "version": target["version"]}
    return Path(open_entry(targets.from_args(args), 0).path) / "tree"


def _git_numstat(base: Path) -> list[str]:
    """`git diff --no-index --numstat -z a b`, each path as codenav prints it."""
    raw = _git("diff", "--no-index", "--numstat", "-z", "a", "b", cwd=base, check=False).stdout.decode()
    fields = raw.split("\0")
    out, i = [], 0
    while i + 2 < len(fields):
        counts, old, new = fields[i].rstrip("\t"), fields[i + 1], fields[i + 2]
        old = new[2:] if old == "/dev/null" else old[2:]
        new = old if new == "/dev/null" else new[2:]
        out.append(f"{counts}\t{diff_versions.rename_label(old, new) if old != new else new}")
        i += 3
    return sorted(out)


def _git_patch_sections(base: Path) -> list[str]:
    """`git diff --no-index --no-prefix a b`, headers as git writes them inside a repository."""
    text = _git("diff", "--no-index", "--no-prefix", "a", "b", cwd=base, check=False).stdout.decode()
    sections = []
    for section in text.split("diff --git ")[1:]:
        head, rest = section.split("\n", 1)
        left, right = head.split(" ")
        path_a, path_b = left[2:], right[2:]
        rest = rest.replace("rename from a/", "rename from ").replace("rename to b/", "rename to ")
        sections.append(f"diff --git a/{path_a} b/{path_b}\n{rest}")
    return sorted(sections)


def _abbreviated(patch: str) -> list[str]:
    """codenav's sections with full binary index ids abbreviated as `git diff --no-index` prints them."""
    import re

    patch = re.sub(r"^index ([0-9a-f]{7})[0-9a-f]{33}\.\.([0-9a-f]{7})[0-9a-f]{33}", r"index \1..\2", patch,
                   flags=re.M)
    return sorted("diff --git " + s for s in patch.split("diff --git ")[1:])


def _compare_with_git(spec: str, old: str, new: str, base: Path, wait: str = "20000") -> None:
    """--numstat and the plain patch equal git's over the two cached trees, and the patch applies."""
    got = run_cli("diff", spec, old, new, "--json", "--wait", wait, timeout=180)
    payload = json.loads(got.stdout)
    if "error" in payload and payload["error"]["code"] in ("NETWORK", "TIMEOUT", "INDEXING"):
        pytest.skip(f"the registry is unreachable: {payload['error']['message']}")
    assert got.returncode == 0, got.stdout
    shutil.copytree(_tree(payload["from"]), base / "a", symlinks=True)
    shutil.copytree(_tree(payload["to"]), base / "b", symlinks=True)
    numstat = run_cli("diff", spec, old, new, "--numstat")
    assert sorted(numstat.stdout.decode().splitlines()) == _git_numstat(base)
    patch = run_cli("diff", spec, old, new)
    assert patch.returncode == 0 and patch.stderr == b""
    assert _abbreviated(patch.stdout.decode()) == _git_patch_sections(base)
    # git apply, in a repository that holds the new blobs (binary sections name them by id).
    work = base / "work"
    shutil.copytree(base / "a", work, symlinks=True)
    _git("init", "-q", cwd=work)
    for path in sorted(p for p in (base / "b").rglob("*") if p.is_file()):
        _git("hash-object", "-w", str(path), cwd=work)
    (base / "patch.diff").write_bytes(patch.stdout)
    applied = _git("apply", "--whitespace=nowarn", str(base / "patch.diff"), cwd=work, check=False)
    assert applied.returncode == 0, applied.stderr
    shutil.rmtree(work / ".git")
    listing = _git("diff", "--no-index", "--stat", "b", "work", cwd=base, check=False)
    assert listing.returncode == 0, listing.stdout  # the patched tree is the new tree, byte for byte


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_numstat_and_patch_equal_git_diff_no_index_and_apply(demo, tmp_path):
    """Over the two cached trees of the fake versions, --numstat and the plain patch equal
    `git diff --no-index`'s, and `git apply` turns the old tree into the new one."""
    _compare_with_git("npm:demo", "1.0.0", "2.0.0", tmp_path)


@pytest.mark.live
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_real_npm_versions_equal_git_diff_no_index(tmp_path, monkeypatch):
    """The same comparison over two real npm versions (npm:ms 2.1.2 -> 2.1.3)."""
    from tests.support.cli import ORIGINAL_ENV

    monkeypatch.delenv("CODENAV_NO_DISCOVERY", raising=False)
    for name in ("npm_config_registry", "NPM_CONFIG_REGISTRY", "npm_config_userconfig", "NPM_CONFIG_USERCONFIG"):
        if ORIGINAL_ENV.get(name):
            monkeypatch.setenv(name, ORIGINAL_ENV[name])
    if ORIGINAL_ENV.get("HOME"):  # npm's own config (the registry) is read from the real HOME
        monkeypatch.setenv("HOME", ORIGINAL_ENV["HOME"])
    _compare_with_git("npm:ms", "2.1.2", "2.1.3", tmp_path, wait="60000")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_two_refs_of_a_git_repository(tmp_path):
    """repo_url + from_ref + to_ref diffs two commits; to_ref omitted is the default branch."""
    repo = tmp_path / "repo"
    repo.mkdir()
    env = ("-c", "user.name=t", "-c", "user.email=t@example.invalid")
    _git("init", "-q", "-b", "main", cwd=repo)
    (repo / "a.txt").write_bytes(b"one\n")
    _git("add", "-A", cwd=repo)
    _git(*env, "commit", "-q", "-m", "one", cwd=repo)
    _git("tag", "v1", cwd=repo)
    (repo / "a.txt").write_bytes(b"two\n")
    _git(*env, "commit", "-q", "-am", "two", cwd=repo)
    result = diff_versions.run({"repo_url": str(repo), "from_ref": "v1", "to_ref": "main"})
    assert result["from"]["gitRef"] == "v1" and result["to"]["gitRef"] == "main"
    assert [(f["path"], f["added"], f["removed"]) for f in result["files"]] == [("a.txt", 1, 1)]
    latest = diff_versions.run({"repo_url": str(repo), "from_ref": "v1"})
    assert latest["to"]["gitRef"] is None and latest["files"] == result["files"]
    cli = run_cli("diff", "--repo-url", str(repo), "v1", "main", "--numstat")
    assert (cli.returncode, cli.stdout) == (0, b"1\t1\ta.txt\n")
