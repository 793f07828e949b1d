"""The diff engine (codenav/search/diff.py) against real git: numstat, patch text, git apply."""

from __future__ import annotations

import hashlib
import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from codenav.errors import CodenavError
from codenav.search import diff
from codenav.text import is_binary

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

# --- trees ------------------------------------------------------------------------------------

EXEC = "x"
LINK = "l"


def make_tree(root: Path, spec: dict[str, object]) -> Path:
    """Write ``spec`` (path -> bytes, (EXEC, bytes) or (LINK, target)) under ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, value in spec.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(value, tuple) and value[0] == LINK:
            os.symlink(value[1], path)
            continue
        data = value[1] if isinstance(value, tuple) else value
        path.write_bytes(data)
        path.chmod(0o755 if isinstance(value, tuple) else 0o644)
    return root


def tree_rows(root: Path) -> list[tuple]:
    """The rows a cached entry gives: path, size, sha256, binary, executable, link target."""
    rows = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            full = Path(dirpath, name)
            rel = full.relative_to(root).as_posix()
            if full.is_symlink():
                target = os.readlink(full)
                rows.append((rel, len(target), None, False, False, target))
                continue
            data = full.read_bytes()
            rows.append((rel, len(data), hashlib.sha256(data).hexdigest(), is_binary(data),
                         os.access(full, os.X_OK), None))
    return sorted(rows)


def reader(root: Path, log: list[str] | None = None):
    def read(path: str) -> bytes:
        if log is not None:
            log.append(path)
        return (root / path).read_bytes()
    return read


def run_diff(a: Path, b: Path, **options) -> dict:
    # A generous time budget: on a loaded machine the default could summarise a file, and the
    # comparisons with git are about the diff, not the budget (tested on its own below).
    options.setdefault("time_budget", 120)
    return diff.diff_trees(tree_rows(a), tree_rows(b), reader(a), reader(b), **options)


# --- git as the oracle ------------------------------------------------------------------------

def git(*args: str, cwd: Path, input: bytes | None = None, ok: tuple[int, ...] = (0,)) -> bytes:
    env = {"PATH": os.environ["PATH"], "HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, input=input, capture_output=True, timeout=120)
    assert proc.returncode in ok, proc.stderr.decode(errors="replace")
    return proc.stdout


def git_numstat(a: Path, b: Path) -> dict[tuple, tuple]:
    """``git diff --no-index --numstat`` keyed by (old path or None, new path or None).

    -M100% keeps git to exact renames, the only kind the engine detects.
    """
    out = git("diff", "--no-index", "--numstat", "-z", "-M100%", a.name, b.name, cwd=a.parent, ok=(0, 1))
    fields = out.split(b"\0")
    result = {}
    i = 0
    while i < len(fields) and fields[i]:
        added, removed, rest = fields[i].decode().split("\t", 2)
        if rest:
            old = new = rest
            i += 1
        else:
            old, new = fields[i + 1].decode(), fields[i + 2].decode()
            i += 3
        old = None if old == "/dev/null" else old.split("/", 1)[1]
        new = None if new == "/dev/null" else new.split("/", 1)[1]
        result[(old, new)] = (None if added == "-" else int(added), None if removed == "-" else int(removed))
    return result


def engine_numstat(result: dict) -> dict[tuple, tuple]:
    out = {}
    for entry in result["files"]:
        old = entry.get("oldPath", entry["path"]) if entry["status"] != "added" else None
        new = entry["path"] if entry["status"] != "removed" else None
        out[(old, new)] = (entry["added"], entry["removed"])
    return out


def git_patch(a: Path, b: Path, work: Path, *flags: str) -> str:
    """The patch git itself writes from tree a to tree b (a repository: plain a/ and b/ names)."""
    repo = work / "repo"
    shutil.copytree(a, repo, symlinks=True)
    git("init", "-q", cwd=repo)
    git("add", "-A", cwd=repo)
    git("commit", "-q", "--allow-empty", "-m", "a", cwd=repo)
    for child in repo.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
    shutil.copytree(b, repo, symlinks=True, dirs_exist_ok=True)
    # An empty index, so every file of b is hashed: a same-size file copied within the same
    # second onto a reused inode would look unchanged to git's stat check.
    git("read-tree", "--empty", cwd=repo)
    git("add", "-A", cwd=repo)
    return git("diff", "--cached", "--no-color", "-M100%", *flags, cwd=repo).decode()


def same_index_abbrev(patch: str) -> str:
    """Index lines cut to 7 hex digits (binary sections carry full ids, git abbreviates them)."""
    return re.sub(r"^index ([0-9a-f]{7})[0-9a-f]*\.\.([0-9a-f]{7})[0-9a-f]*", r"index \1..\2", patch, flags=re.M)


def apply_onto_copy(patch: str, a: Path, b: Path, work: Path) -> None:
    """git apply --check, then git apply, onto a copy of tree a; the result must be tree b, byte for byte.

    The copy is a repository holding tree b's blobs, because git applies a "Binary files
    differ" section only when it has the new blob.
    """
    target = work / "applied"
    shutil.copytree(a, target, symlinks=True)
    git("init", "-q", cwd=target)
    for row in tree_rows(b):
        if row[5] is None:
            git("--git-dir", str(target / ".git"), "hash-object", "-w", "--", row[0], cwd=b)
    (work / "p.patch").write_text(patch, encoding="utf-8", newline="")
    git("apply", "--check", str(work / "p.patch"), cwd=target)
    git("apply", str(work / "p.patch"), cwd=target)
    assert tree_snapshot(target) == tree_snapshot(b)


def tree_snapshot(root: Path) -> dict[str, tuple]:
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            full = Path(dirpath, name)
            rel = full.relative_to(root).as_posix()
            if full.is_symlink():
                snap[rel] = ("link", os.readlink(full))
            else:
                snap[rel] = ("file", os.access(full, os.X_OK), full.read_bytes())
    return snap


# --- the cases --------------------------------------------------------------------------------

PY_A = b"".join(f"def f{i}():\n    x = {i}\n    return x\n\n".encode() for i in range(12))
PY_B = PY_A.replace(b"x = 2\n", b"x = 'two'\n").replace(b"def f9():\n    x = 9\n", b"def f9():\n    y = 9\n    x = y\n")

CASES: dict[str, tuple[dict, dict]] = {
    "add": ({}, {"new.txt": b"one\ntwo\n"}),
    "remove": ({"gone.txt": b"x\ny\nz\n"}, {}),
    "modify": ({"m/code.py": PY_A}, {"m/code.py": PY_B}),
    "rename": ({"old/name.txt": b"the same content\n"}, {"new/name.txt": b"the same content\n"}),
    "rename_and_mode": ({"tool": b"#!/bin/sh\necho\n"}, {"bin/tool": (EXEC, b"#!/bin/sh\necho\n")}),
    "binary_changed": ({"img.bin": b"\x89PNG\0\1\2\3"}, {"img.bin": b"\x89PNG\0\1\2\4\5"}),
    "binary_added_removed": ({"old.bin": b"\0old"}, {"new.bin": b"\0new!"}),
    "mode_only": ({"run.sh": b"echo hi\n"}, {"run.sh": (EXEC, b"echo hi\n")}),
    "mode_and_content": ({"run.sh": b"echo hi\n"}, {"run.sh": (EXEC, b"echo bye\n")}),
    "empty_added": ({}, {"empty.txt": b""}),
    "empty_removed": ({"empty.txt": b""}, {}),
    "emptied": ({"e.txt": b"was here\n"}, {"e.txt": b""}),
    "filled": ({"e.txt": b""}, {"e.txt": b"now here\n"}),
    "crlf": ({"w.txt": b"a\r\nb\r\nc\r\nd\r\n"}, {"w.txt": b"a\r\nB\r\nc\r\nd\r\ne\r\n"}),
    "crlf_to_lf": ({"w.txt": b"a\r\nb\r\n"}, {"w.txt": b"a\nb\n"}),
    "no_newline_gained": ({"n.txt": b"a\nb"}, {"n.txt": b"a\nb\n"}),
    "no_newline_lost": ({"n.txt": b"a\nb\n"}, {"n.txt": b"a\nb"}),
    "no_newline_both": ({"n.txt": b"a\nb\nc"}, {"n.txt": b"a\nb\nd"}),
    "no_newline_context": ({"n.txt": b"a\nb\nc\nd"}, {"n.txt": b"A\nb\nc\nd"}),
    "unicode": ({"ünï/çödé.txt": "héllo\nwörld\n☃\n".encode()},
                {"ünï/çödé.txt": "héllo\nwêrld\n☃\n🎉\n".encode(), "with space.txt": b"s\n"}),
    "rename_odd_names": ({"ä/x y.txt": b"u\n", 'q"uo\\te\tx': b"q\n"},
                         {"ö/x y.txt": b"u\n", 'q"uo\\te\tx': b"Q\n"}),
    "file_becomes_directory": ({"d": b"file\n"}, {"d/inner.txt": b"inner\n"}),
    "symlink_target": ({"link": (LINK, "t1")}, {"link": (LINK, "t2")}),
    "typechange": ({"link": (LINK, "target")}, {"link": b"target\n"}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_case_matches_git(case: str, tmp_path: Path) -> None:
    """Each kind of change has git's --numstat figures, git's own patch text, and the patch turns tree a into tree b."""
    spec_a, spec_b = CASES[case]
    a, b = make_tree(tmp_path / "a", spec_a), make_tree(tmp_path / "b", spec_b)
    result = run_diff(a, b)
    assert engine_numstat(result) == git_numstat(a, b)
    patch = diff.whole_patch(result)
    assert same_index_abbrev(patch) == same_index_abbrev(git_patch(a, b, tmp_path))
    apply_onto_copy(patch, a, b, tmp_path)


def all_cases(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    for name, (spec_a, spec_b) in CASES.items():
        make_tree(a, {f"{name}/{p}": v for p, v in spec_a.items()})
        make_tree(b, {f"{name}/{p}": v for p, v in spec_b.items()})
    return a, b


def test_all_cases_in_one_tree(tmp_path: Path) -> None:
    """All cases side by side: one numstat, one patch equal to git's, one apply, and the summary counts them."""
    a, b = all_cases(tmp_path)
    result = run_diff(a, b)
    assert engine_numstat(result) == git_numstat(a, b)
    patch = diff.whole_patch(result)
    assert same_index_abbrev(patch) == same_index_abbrev(git_patch(a, b, tmp_path))
    apply_onto_copy(patch, a, b, tmp_path)
    statuses = {}
    for entry in result["files"]:
        statuses[entry["status"]] = statuses.get(entry["status"], 0) + 1
    summary = result["summary"]
    assert {k: summary[k] for k in statuses} == statuses
    assert summary["filesChanged"] == len(result["files"]) == sum(statuses.values())
    # Four renames: the three rename cases, and the empty file removed in one case and added in
    # another, which git pairs too (see the numstat and patch equalities above).
    assert summary["renamed"] == 4 and summary["modeChanged"] == 1
    assert any(e.get("oldPath") == "empty_removed/empty.txt" for e in result["files"])
    assert summary["binaryChanged"] == 3  # img.bin modified, old.bin removed, new.bin added
    assert summary["linesAdded"] == sum(e["added"] or 0 for e in result["files"])
    assert summary["linesRemoved"] == sum(e["removed"] or 0 for e in result["files"])


# --- random line edits --------------------------------------------------------------------------

VOCAB = ["", "", "}", "  }", "    return x", "{", "x = 1", "y = 2", "\tindented", "# note", "foo", "bar",
         "baz qux", "    pass", "end"]


def random_text(rng: random.Random, lines: int) -> list[str]:
    blank = rng.random() * 0.4  # some files are a third blank lines, so blanks count as repeated
    return ["" if rng.random() < blank else rng.choice(VOCAB) if rng.random() < 0.7 else f"line {rng.randrange(40)}"
            for _ in range(lines)]


def random_edit(rng: random.Random, lines: list[str]) -> list[str]:
    out = list(lines)
    for _ in range(rng.randrange(1, 8)):
        op = rng.random()
        pos = rng.randrange(len(out) + 1)
        if op < 0.35:
            out[pos:pos] = random_text(rng, rng.randrange(1, 5))
        elif op < 0.45:
            # Fresh lines between blank ones: git drops the blanks, repeated too often, from its
            # Myers input when they sit among unmatched lines, and its diff stops being minimal.
            fresh = [f"fresh {rng.randrange(10 ** 6)}" for _ in range(rng.randrange(6, 14))]
            fresh.insert(rng.randrange(2, 5), "")
            out[pos:pos] = fresh
        elif op < 0.7 and out:
            del out[pos:pos + rng.randrange(1, 5)]
        elif out:
            out[pos:pos + rng.randrange(1, 3)] = random_text(rng, rng.randrange(1, 3))
    return out


def encode(rng: random.Random, lines: list[str]) -> bytes:
    end = "\r\n" if rng.random() < 0.1 else "\n"
    data = "".join(line + end for line in lines).encode()
    return data[:-len(end)] if data and rng.random() < 0.2 else data


def blanks_and_blocks(rng: random.Random) -> tuple[list[str], list[str]]:
    """Mostly blank or repeated lines, then blocks of new lines (each holding a blank) and cuts.

    This is where git's preprocessing shows: a blank among new lines is dropped from the
    Myers input, so git's diff is longer than a minimal one (about a quarter of these cases).
    """
    old = [rng.choice(["", "", "x", "}"]) if rng.random() < 0.8 else f"l{rng.randrange(1000)}"
           for _ in range(rng.choice([40, 80]))]
    new = list(old)
    for _ in range(10):
        pos = rng.randrange(len(new) + 1)
        if rng.random() < 0.5:
            block = [f"f{rng.randrange(10 ** 6)}" for _ in range(rng.randrange(3, 12))]
            block.insert(rng.randrange(1, 3), "")
            new[pos:pos] = block
        else:
            del new[pos:pos + rng.randrange(1, 6)]
    return old, new


def random_trees(tmp_path: Path, cases: int = 200, seed: int = 17) -> tuple[Path, Path]:
    rng = random.Random(seed)
    spec_a, spec_b = {}, {}
    for n in range(cases):
        if n % 2:
            old, new = blanks_and_blocks(rng)
        else:
            old = random_text(rng, rng.choice([0, 1, 3, 8, 20, 60]) if n % 25 else 400)
            new = random_edit(rng, old)
        spec_a[f"c{n:03}.txt"] = encode(rng, old)
        spec_b[f"c{n:03}.txt"] = encode(rng, new)
    return make_tree(tmp_path / "a", spec_a), make_tree(tmp_path / "b", spec_b)


def test_random_edits_match_git_numstat(tmp_path: Path) -> None:
    """200 seeded random line edits (repeated lines, blanks, CRLF, missing final newlines) give git's --numstat."""
    a, b = random_trees(tmp_path)
    result = run_diff(a, b)
    ours = engine_numstat(result)
    theirs = git_numstat(a, b)
    assert len(theirs) > 150
    assert ours == theirs


@pytest.mark.parametrize("context", [0, 1, 3, 5])
def test_random_edits_match_git_patch(context: int, tmp_path: Path) -> None:
    """The same random edits give, hunk for hunk, the patch git writes with -U<context>."""
    a, b = random_trees(tmp_path)
    patch = diff.whole_patch(run_diff(a, b, context=context))
    assert patch == git_patch(a, b, tmp_path, f"-U{context}")


def test_random_patch_applies(tmp_path: Path) -> None:
    """The random edits' patch turns tree a into tree b under git apply."""
    a, b = random_trees(tmp_path)
    apply_onto_copy(diff.whole_patch(run_diff(a, b)), a, b, tmp_path)


def test_costly_diff_matches_git(tmp_path: Path) -> None:
    """Files different enough for git's cost heuristics (edit cost past 256) still give git's figures and hunks."""
    rng = random.Random(5)
    lines = [f"row {rng.randrange(3000)}" for _ in range(3000)]
    other = [line if rng.random() < 0.6 else f"new {rng.randrange(3000)}" for line in lines]
    # Two unrelated files over 50 common lines: matches everywhere but no long run of them, so
    # only git's "enough is enough" cut-off ends each split.
    vocab = [f"word {i}" for i in range(50)]
    mixed_a = [rng.choice(vocab) for _ in range(2000)]
    mixed_b = [rng.choice(vocab) for _ in range(2000)]
    a = make_tree(tmp_path / "a", {"big.txt": "\n".join(lines).encode() + b"\n",
                                   "mixed.txt": "\n".join(mixed_a).encode() + b"\n"})
    b = make_tree(tmp_path / "b", {"big.txt": "\n".join(other).encode() + b"\n",
                                   "mixed.txt": "\n".join(mixed_b).encode() + b"\n"})
    result = run_diff(a, b)
    assert engine_numstat(result) == git_numstat(a, b)
    assert diff.whole_patch(result) == git_patch(a, b, tmp_path)


def test_indent_heuristic_places_hunks_like_git(tmp_path: Path) -> None:
    """An inserted block that could slide is placed where git's indent heuristic puts it, whole."""
    a = make_tree(tmp_path / "a", {"f.c": b"{\n\tone();\n}\n\n{\n\ttwo();\n}\n"})
    b = make_tree(tmp_path / "b", {"f.c": b"{\n\tone();\n}\n\n{\n\tmid();\n}\n\n{\n\ttwo();\n}\n"})
    patch = diff.whole_patch(run_diff(a, b))
    assert patch == git_patch(a, b, tmp_path)
    # Slid as far down as it goes, the block would read "+\tmid();\n+}\n+\n+{\n".
    assert "\n+{\n+\tmid();\n+}\n+\n" in patch


# --- the rest of the contract -------------------------------------------------------------------

def test_blob_ids_are_git_object_ids(tmp_path: Path) -> None:
    """blob_id is what git hash-object computes."""
    for data in (b"", b"x\n", b"\0\1\2", "é\r\n".encode()):
        (tmp_path / "f").write_bytes(data)
        assert diff.blob_id(data) == git("hash-object", "f", cwd=tmp_path).decode().strip()


def test_unchanged_files_are_not_read(tmp_path: Path) -> None:
    """Files whose digests agree are never read; only the changed ones are."""
    a = make_tree(tmp_path / "a", {"same.txt": b"s\n", "changed.txt": b"1\n", "big/same.bin": b"\0" * 100})
    b = make_tree(tmp_path / "b", {"same.txt": b"s\n", "changed.txt": b"2\n", "big/same.bin": b"\0" * 100})
    log_a, log_b = [], []
    result = diff.diff_trees(tree_rows(a), tree_rows(b), reader(a, log_a), reader(b, log_b))
    assert [e["path"] for e in result["files"]] == ["changed.txt"]
    assert log_a == log_b == ["changed.txt"]


def test_rows_without_digests_give_the_same_diff(tmp_path: Path) -> None:
    """Without sha256 in the rows, contents are compared by reading, with the same result (renames included)."""
    a, b = all_cases(tmp_path)
    bare_a = [(r[0], r[1], None, *r[3:]) for r in tree_rows(a)]
    bare_b = [(r[0], r[1], None, *r[3:]) for r in tree_rows(b)]
    bare = diff.diff_trees(bare_a, bare_b, reader(a), reader(b), time_budget=120)
    assert bare == run_diff(a, b)


def test_negative_context_is_refused(tmp_path: Path) -> None:
    """A negative context is INVALID_ARGUMENT on the context field."""
    with pytest.raises(CodenavError) as caught:
        diff.diff_trees([], [], reader(tmp_path), reader(tmp_path), context=-1)
    assert (caught.value.code, caught.value.details) == ("INVALID_ARGUMENT", {"field": "context"})


def test_prefix_and_filter_select_files(tmp_path: Path) -> None:
    """path_prefix keeps a directory (not a name that merely starts alike); path_filter drops what it rejects."""
    a, b = all_cases(tmp_path)
    everything = run_diff(a, b)["files"]
    only = run_diff(a, b, path_prefix="crlf/")["files"]
    assert [e["path"] for e in only] == ["crlf/w.txt"]
    no_txt = run_diff(a, b, path_filter=lambda p: not p.endswith(".txt"))["files"]
    assert [e["path"] for e in no_txt] == [e["path"] for e in everything if not e["path"].endswith(".txt")]
    assert no_txt and len(no_txt) < len(everything)


def test_file_over_size_limit_is_summarised(tmp_path: Path) -> None:
    """A file over the size limit has no counts and no body, is written as git writes a too-big file, and still applies."""
    a = make_tree(tmp_path / "a", {"big.txt": b"a\n" * 100, "small.txt": b"a\n"})
    b = make_tree(tmp_path / "b", {"big.txt": b"b\n" * 100, "small.txt": b"b\n"})
    result = run_diff(a, b, size_limit=50)
    big, small = result["files"]
    assert (big["added"], big["removed"], big["skipped"], big["binary"]) == (None, None, "tooLarge", False)
    assert big["patch"].endswith("Binary files a/big.txt and b/big.txt differ\n")
    assert (small["added"], small["removed"], "skipped" in small) == (1, 1, False)
    assert result["summary"]["notDiffed"] == 1
    apply_onto_copy(diff.whole_patch(result), a, b, tmp_path)


def test_time_budget_summarises_a_slow_file(tmp_path: Path) -> None:
    """A diff that runs past its time budget is summarised like a file over the size limit."""
    rng = random.Random(3)
    lines = [f"{rng.randrange(10 ** 6)}\n" for _ in range(4000)]
    changed = [line if rng.random() < 0.5 else "other\n" for line in lines]
    a = make_tree(tmp_path / "a", {"f.txt": "".join(lines).encode()})
    b = make_tree(tmp_path / "b", {"f.txt": "".join(changed).encode()})
    (entry,) = run_diff(a, b, time_budget=0)["files"]
    assert (entry["added"], entry["removed"], entry["skipped"]) == (None, None, "timedOut")
    (entry,) = run_diff(a, b)["files"]
    assert "skipped" not in entry and entry["added"] > 0


def test_paging_visits_every_file_once(tmp_path: Path) -> None:
    """Following the cursor returns every file exactly once, in order; a file over the budget is cut and passed."""
    a, b = all_cases(tmp_path)
    files = run_diff(a, b)["files"]
    seen, cursor, pages, cut = [], None, 0, 0
    while True:
        chunk, cursor = diff.page(files, cursor, budget_bytes=400, budget_lines=12)
        assert chunk
        pages += 1
        for entry in chunk:
            if entry.get("patchCut"):
                cut += 1
                assert len(chunk) == 1
                assert entry["patch"].count("\n") <= 12 and len(entry["patch"].encode()) <= 400
                assert "did not fit the output budget" in entry["patch"].splitlines()[-1]
        seen.extend(e["path"] for e in chunk)
        if cursor is None:
            break
    assert seen == [e["path"] for e in files]
    assert cut > 0 and pages > 3
    whole, none = diff.page(files)
    assert none is None and [e["patch"] for e in whole] == [e["patch"] for e in files]


def test_cursor_is_stable_and_refused_elsewhere(tmp_path: Path) -> None:
    """The same diff gives the same cursors; a cursor from another diff or a garbled one is INVALID_ARGUMENT."""
    a, b = all_cases(tmp_path)
    files = run_diff(a, b)["files"]
    _, first = diff.page(files, budget_bytes=400, budget_lines=12)
    _, again = diff.page(run_diff(a, b)["files"], budget_bytes=400, budget_lines=12)
    assert first == again and first is not None
    other = run_diff(a, b, path_prefix="modify")["files"]
    for cursor, files_ in ((first, other), ("garbage!", files), (first[:-3], files)):
        with pytest.raises(CodenavError) as caught:
            diff.page(files_, cursor)
        assert caught.value.code == "INVALID_ARGUMENT"
        assert caught.value.details == {"field": "cursor"}


def test_split_records_keeps_line_ends() -> None:
    """Records split on \\n only, keep it, and join back to the input."""
    data = b"a\r\nb\x0bc\x0cd\xe2\x80\xa8e\nlast"
    records = diff.split_records(data)
    assert records == [b"a\r\n", "b\x0bc\x0cd\u2028e\n".encode(), b"last"]
    assert b"".join(records) == data
