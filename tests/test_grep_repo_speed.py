"""grep_repo's speed machinery changes no result: the text-file sidecar, files kept in memory,
regexes stopped by SIGALRM in the CLI and by a warm worker process under MCP, big files mapped
instead of read, a regex run as its bytes twin over ASCII files."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from codenav.cache import store
from codenav.errors import CodenavError
from codenav.search import grep
from codenav.tools import CliOptions, _grep, grep_repo
from tests.fakes.http import FakeServer
from tests.fakes.npm import FakeNpm
from tests.support.cli import run_cli

FILES = {
    "index.js": b"const a = require('./lib/a');\nmodule.exports = a; // needle\n",
    "lib/a.js": b"function Alpha() {}\nexports.alpha = Alpha; // NEEDLE\n",
    "lib/b.ts": b"export const b = 1;\nexport function beta() { return 'needle'; }\n",
    "docs/readme.md": "# caf\u00e9 needle\n\u212aelvin\n".encode(),
    "img/logo.png": b"\x89PNG\r\n\x1a\n\0\0\0needle",
    "data/latin1.txt": "caf\xe9 needle\n".encode("latin-1"),
    "data/late-nul.bin": b"needle\n" + b"x" * 9000 + b"\0",  # a NUL past the 8 KiB sniff: text, as rg -uu's walk differs
    "empty.txt": b"",
    # 300 KB: matches far apart are numbered from the line marks of a kept file
    "big/bundle.js": "".join(f"row {i} {'needle NEEDLE' if i % 13001 == 0 else 'hay'}\n" for i in range(30000)).encode(),
}
SPEC = "npm:speed@1.0.0"
TARGET = {"registry": "npm", "package_name": "speed", "version": "1.0.0"}
STUCK = {"registry": "npm", "package_name": "stuck", "version": "1.0.0"}
CASES = [{"pattern": "needle"}, {"pattern": "NEEDLE", "case_sensitive": True}, {"pattern": "kelvin"},
         {"pattern": r"n\w+e", "regex": True}, {"pattern": r"alpha|beta", "regex": True, "case_sensitive": True}]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with FakeServer() as server:
        fake = FakeNpm(server)
        fake.publish("speed", "1.0.0", FILES)
        fake.publish("stuck", "1.0.0", {"a_first.txt": b"aaaa\nplain\n", "z_stuck.txt": b"a" * 60 + b"b\n"})
        yield fake, tmp_path_factory.mktemp("speed-cache")


@pytest.fixture(autouse=True)
def env(served, isolated_env, monkeypatch):
    fake, cache = served
    monkeypatch.setenv("CODENAV_NPM_REGISTRY", fake.url)
    monkeypatch.setenv("CODENAV_CACHE_DIR", str(cache))
    monkeypatch.setattr(grep, "memory_budget", 0)
    grep._KEPT.clear()
    grep._KEPT_BYTES.clear()


def entry() -> store.Entry:
    grep_repo.run({**TARGET, "pattern": "x"})  # indexes it on first use
    base = os.path.join(os.environ["CODENAV_CACHE_DIR"], "entries", "npm", "speed")
    (version,) = os.listdir(base)
    return store.Entry("npm/speed/" + version, os.path.join(base, version))


def results(arguments: dict) -> list:
    result = grep_repo.run({**TARGET, **arguments}, cli=CliOptions(plain=True))
    return [result["totalMatches"], result["filesScanned"], result["binaryFilesSkipped"],
            [(f["path"], ln["line"], ln["text"], ln.get("column")) for f in result["files"] for b in f["blocks"]
             for ln in b["lines"]]]


def test_the_text_list_holds_exactly_the_files_an_independent_walk_finds_text():
    """text.txt lists every file of the tree without a NUL in its first 8 KiB and valid as UTF-8,
    with its size, and every other file as binary."""
    tree = entry().path + "/tree"
    text, binary = {}, set()
    for folder, _, names in os.walk(tree):
        for name in names:
            path = os.path.join(folder, name)
            data = open(path, "rb").read()
            rel = os.path.relpath(path, tree)
            try:
                data.decode("utf-8")
                is_text = b"\0" not in data[:8192]
            except UnicodeDecodeError:
                is_text = False
            if is_text:
                text[rel] = len(data)
            else:
                binary.add(rel)
    files, binaries, not_stored = entry().searchable()
    assert dict(files) == text and set(binaries) == binary and not_stored == []
    assert [f[0] for f in files] == sorted(text) and binaries == sorted(binary)
    assert binary == {"img/logo.png", "data/latin1.txt"}


def test_an_entry_indexed_before_the_text_list_gets_it_on_first_use():
    """Without text.txt, the first search writes it again, byte for byte, and finds the same lines."""
    sidecar = entry().sidecar_path(store.TEXT_LIST)
    published = open(sidecar, "rb").read()
    before = [results(case) for case in CASES]
    os.remove(sidecar)
    assert [results(case) for case in CASES] == before
    assert open(sidecar, "rb").read() == published


@pytest.mark.parametrize("damage", ["codenav-text 99 text=0 binary=0\n", "codenav-text 1 text=1 binary=0\n1\tx\n2\ty\n"])
def test_results_are_the_same_from_the_text_list_and_from_the_manifest(damage):
    """A text.txt of another version, or whose counts disagree, is ignored: the manifest gives the same results."""
    sidecar = entry().sidecar_path(store.TEXT_LIST)
    published = open(sidecar, "rb").read()
    before = [results(case) for case in CASES]
    try:
        with open(sidecar, "w") as handle:
            handle.write(damage)
        assert [results(case) for case in CASES] == before
    finally:
        with open(sidecar, "wb") as handle:
            handle.write(published)
    assert before[0][0] == 8 and before[0][2] == 2  # needle: 4 text files, the late NUL, 3 rows; 2 binaries skipped


@pytest.mark.parametrize("budget", [1 << 30, 40])
def test_files_kept_in_memory_give_the_same_results(budget, monkeypatch):
    """With a memory budget (everything, or less than one file) each search repeated equals the search from disk."""
    cold = [results(case) for case in CASES]
    monkeypatch.setattr(grep, "memory_budget", budget)
    assert [results(case) for case in CASES] == cold
    assert [results(case) for case in CASES] == cold
    kept = sum(1 for files in grep._KEPT.values() for key in files if "\0" not in key)
    assert (kept == len(FILES) - 2) is (budget > 1000) and sum(grep._KEPT_BYTES.values()) <= budget
    assert any(key.endswith("\0marks") for files in grep._KEPT.values() for key in files) is (budget > 1000)


@pytest.mark.parametrize("budget", [0, 1 << 30])
def test_counts_past_a_short_page_equal_the_matches_of_the_whole_search(budget, monkeypatch):
    """A page of 1 or 2 matches counts every other matching line (the find loop, then re past 64 hits in a
    file) as the unbounded search shows them."""
    monkeypatch.setattr(grep, "memory_budget", budget)
    many = [{"pattern": "row 1", "case_sensitive": True}, {"pattern": "ROW 2"}, {"pattern": "hay"}]  # thousands of lines
    for case in CASES + many + [{"pattern": "needle", "whole_words": True}, {"pattern": "café"}]:
        every = results(case)
        for size in (1, 2):
            page = grep_repo.run({**TARGET, **case, "max_matches": size})
            assert page["totalMatches"] == every[0] == len([ln for ln in every[3] if ln[3] is not None])
            assert page["filesMatched"] == len({ln[0] for ln in every[3]})


def test_a_removed_tree_is_noticed_although_its_files_are_kept(monkeypatch):
    """A search whose files are in memory still fails as the others do when the entry's tree is gone."""
    monkeypatch.setattr(grep, "memory_budget", 1 << 30)
    tree = entry().path + "/tree"
    results(CASES[0])
    os.rename(tree, tree + ".away")
    try:
        with pytest.raises(CodenavError) as info:
            results(CASES[0])
        assert info.value.code == "NOT_FOUND" and info.value.retryable is True
    finally:
        os.rename(tree + ".away", tree)


def in_thread(arguments: dict) -> dict:
    """grep_repo.run from a thread other than the main one, as the MCP server's workers call it."""
    box = {}
    worker = threading.Thread(target=lambda: box.update(result=grep_repo.run(dict(arguments))))
    worker.start()
    worker.join()
    return box["result"]


def test_a_regex_outside_the_main_thread_runs_in_a_warm_worker_that_survives_a_timeout(monkeypatch):
    """From a worker thread a regex gives the main thread's result through a child process kept between
    calls; a stuck pattern times out in that child, which stays alive and answers the next search."""
    while grep._IDLE:
        grep._IDLE.pop().close()
    for case in CASES[3:]:
        expected = grep_repo.run({**TARGET, **case})
        assert in_thread({**TARGET, **case}) == expected
    (worker,) = grep._IDLE
    pid = worker.child.pid
    in_thread({**STUCK, "pattern": "x"})  # index it before the clock runs
    monkeypatch.setenv("CODENAV_SEARCH_TIMEOUT", "1.5")
    started = time.monotonic()
    stuck = in_thread({**STUCK, "pattern": "(a+)+$", "regex": True})
    assert 1.4 < time.monotonic() - started < 1.5 + grep._GRACE
    assert stuck["truncatedReason"] == "time" and stuck["totalMatches"] == 1
    assert [w.child.pid for w in grep._IDLE] == [pid] and grep._IDLE[0].alive()
    assert in_thread({**TARGET, **CASES[3]}) == grep_repo.run({**TARGET, **CASES[3]})
    assert [w.child.pid for w in grep._IDLE] == [pid]


def test_the_cli_stops_a_stuck_regex_at_its_budget_in_its_own_process():
    """`codenav grep` runs a regex in-process and SIGALRM stops a catastrophic one at CODENAV_SEARCH_TIMEOUT,
    with the match found before it."""
    run_cli("files", "npm:stuck@1.0.0")
    started = time.monotonic()
    proc = run_cli("grep", "npm:stuck@1.0.0", "(a+)+$", "--regex", "--json", env={"CODENAV_SEARCH_TIMEOUT": "2"})
    elapsed = time.monotonic() - started
    result = json.loads(proc.stdout)
    assert result["truncatedReason"] == "time" and result["hasMore"] is True
    assert [(f["path"], b["startLine"]) for f in result["files"] for b in f["blocks"]] == [("a_first.txt", 1)]
    assert 2 < elapsed < 8


# --- the plain CLI's output, made from the bytes (search/plain.py) ---------------------------------

PLAIN_CASES = CASES + [
    {"pattern": "needle", "whole_words": True}, {"pattern": "row", "case_sensitive": True},
    {"pattern": "ROW 1"}, {"pattern": "caf\u00e9"}, {"pattern": "absent-from-every-file"},
    {"pattern": r"row \d+ hay$", "regex": True}, {"pattern": r"^\w+ 2\d", "regex": True, "case_sensitive": True},
    {"pattern": r"(?i)NEEDLE", "regex": True}, {"pattern": "needle", "glob": ["*.js"]},
    {"pattern": "needle", "path_prefix": "lib"}, {"pattern": "kelvin", "whole_words": True},
    {"pattern": r"n(?=e)", "regex": True}, {"pattern": "needle NEEDLE", "case_sensitive": True},
]


def rendered(arguments: dict, fast: bool) -> tuple[bytes, str, int]:
    """(stdout bytes, stderr, exit status) of the plain CLI rendering of a grep_repo result, made
    from the bytes (``fast``: the run's output bytes, then render, as cli.py writes them) or by the
    page path."""
    import io

    options = CliOptions(plain=True, from_bytes=fast)
    result = grep_repo.run(arguments, cli=options)
    assert (options.output is not None) == fast and not [key for key in result if key.startswith("_")]
    raw = io.BytesIO(options.output or b"")
    raw.seek(0, io.SEEK_END)
    out, err = io.TextIOWrapper(raw, encoding="utf-8", newline="\n"), io.StringIO()
    grep_repo.render(result, out, err)
    out.flush()
    return raw.getvalue(), err.getvalue(), grep_repo.exit_code(result)


@pytest.mark.parametrize("case", PLAIN_CASES, ids=[repr(c) for c in PLAIN_CASES])
def test_the_plain_output_from_the_bytes_equals_the_page_path_byte_for_byte(case):
    """The plain CLI's fast output (every match printed from the file's bytes) is the page path's
    rendering: the same bytes on stdout, the same stderr, the same exit status."""
    arguments = {**TARGET, **case}
    fast = rendered(arguments, True)
    assert fast == rendered(arguments, False)
    assert fast[0].count(b"\n") == grep_repo.run(arguments, cli=CliOptions(plain=True))["totalMatches"]


def test_only_plain_output_of_every_match_to_a_utf8_stdout_is_made_from_the_bytes(monkeypatch):
    """The command line takes the bytes path for plain output with no context, window, limit or
    cursor, to a stdout that encodes UTF-8; anything else takes the page path."""
    import io

    utf8, latin1 = (io.TextIOWrapper(io.BytesIO(), encoding=e) for e in ("utf-8", "latin-1"))
    monkeypatch.setattr(sys, "stdout", utf8)
    assert _grep.plain_bytes({"pattern": "x"}, CliOptions(plain=True))
    assert not _grep.plain_bytes({"pattern": "x"}, CliOptions(plain=False))
    assert not _grep.plain_bytes({"pattern": "x"}, CliOptions(plain=True, max_columns=80))
    for extra in ({"context": 2}, {"max_matches": 5}, {"cursor": "c"}):
        assert not _grep.plain_bytes({"pattern": "x", **extra}, CliOptions(plain=True))
    monkeypatch.setattr(sys, "stdout", latin1)
    assert not _grep.plain_bytes({"pattern": "x"}, CliOptions(plain=True))


def test_the_plain_output_of_text_that_is_not_utf8_is_what_the_page_path_prints(tmp_path):
    """Lines that are not valid UTF-8 (a file changed under an old text list), CRLF endings and
    a last line without a newline print as the page path prints them."""
    from codenav.search import plain

    tree = tmp_path / "tree"
    tree.mkdir()
    files = {"a.txt": b"one needle\r\ncaf\xe9 needle\nno\nneedle at the end", "b.txt": "na\u00efve needle\n".encode(),
             "c.txt": b"needle\xff\xfe\n" * 3}
    for name, data in files.items():
        (tree / name).write_bytes(data)
    listing = [[name, len(data)] for name, data in sorted(files.items())]
    for options in ({"pattern": "needle"}, {"pattern": "NEEDLE"}, {"pattern": r"ne+dle$", "regex": True},
                    {"pattern": "caf", "case_sensitive": True}):
        options = {"regex": False, "case_sensitive": False, "whole_words": False, **options}
        assert plain.search(str(tree), listing, options, time.monotonic() + 60) == page_output(tree, listing, options)


def test_the_plain_cli_stops_a_stuck_regex_and_prints_what_it_found():
    """Without --json too, a catastrophic regex stops at CODENAV_SEARCH_TIMEOUT; the lines of the
    files searched by then are printed and stderr says the search stopped at its time budget."""
    run_cli("files", "npm:stuck@1.0.0")
    started = time.monotonic()
    proc = run_cli("grep", "npm:stuck@1.0.0", "(a+)+$", "--regex", env={"CODENAV_SEARCH_TIMEOUT": "2"})
    assert 2 < time.monotonic() - started < 8
    assert proc.stdout == b"a_first.txt:1:aaaa\n"
    assert b"stopped at its time budget" in proc.stderr


def test_the_line_marks_sidecar_holds_each_big_files_line_number_every_64_kib():
    """marks.txt lists each text file of 128 KiB or more with the line number at every 64 KiB,
    counted here independently; smaller files are not listed."""
    from codenav.search import marks

    found = marks.load(entry())
    tree = entry().path + "/tree"
    data = open(os.path.join(tree, "big/bundle.js"), "rb").read()
    step = grep.MARK_STEP
    assert found == {"big/bundle.js": (len(data), [data[:k * step].count(b"\n") + 1
                                                  for k in range(len(data) // step + 1)])}


@pytest.mark.parametrize("damage", ["codenav-marks 9 step=1\n", "codenav-marks 1 step=65536\n1\tbig/bundle.js\t1,2,3\n",
                                    "codenav-marks 1 step=65536\n{size}\tbig/bundle.js\t1,1\n"])
def test_marks_of_another_version_or_file_are_not_used(damage):
    """A marks.txt of another version, another size or the wrong length leaves the plain output as it was."""
    from codenav.search import marks

    arguments = {**TARGET, "pattern": "needle"}
    sidecar = entry().sidecar_path(marks.NAME)
    expected = rendered(arguments, True)
    published = open(sidecar, "rb").read()
    try:
        with open(sidecar, "w") as handle:
            handle.write(damage.format(size=os.path.getsize(entry().path + "/tree/big/bundle.js")))
        assert rendered(arguments, True) == expected
    finally:
        with open(sidecar, "wb") as handle:
            handle.write(published)


# --- big files mapped, a regex's bytes twin over ASCII text (search/plain.py, search/matchers.py) ---

def line_oracle(pattern: str, case_sensitive: bool, whole_words: bool, data: bytes) -> list[tuple[int, int]]:
    r"""The lines a regex matches by its definition: each line (split on \n, a trailing newline
    starts no line) decoded with "replace" and searched alone by the str pattern."""
    rx = grep.compile_regex(pattern, case_sensitive, whole_words)
    found, offset = [], 0
    lines = data.split(b"\n")
    if not lines[-1]:
        lines.pop()
    for raw in lines:
        if rx.search(raw.decode("utf-8", "replace")):
            found.append((offset, offset + len(raw)))
        offset += len(raw) + 1
    return found


TWIN_PATTERNS = [
    (r"function\s+\w+Node", True), (r"function\s+\w+node", False), (r"\bfoo\b", True), (r"\Bo+\B", True),
    (r"\d{2,}", True), (r"\D\s\S", True), (r"[A-Z]{3,}", True), (r"[a-z]+", False), (r"(?i)K", True),
    (r"[Z-a]+", False), (r"[^s]x", False), (r"[^\x00-\x7f]", True), (r"[\x1c-\x1f]", True), (r"a.c", True),
    (r"\W+", True), (r"^\s*$", True), (r"end$", True), (r"^fun", True), (r"(?a)\s+", True), (r"(a|bc)+d", True),
    (r"x\sy", True), (r"\S+\x1dq", True), (r"(?s)a.b", True), (r"\x7f", True), (r"foo|\u00e9", True),
    (r"funct\w*", False), (r"\N{LATIN SMALL LETTER A}b", True), (r"(?u)\w+", True), (r"ab*?c", True),
]
ASCII_TEXTS = [
    b"", b"function fooNode()\nfunction barnode\n", b"no newline at the end: function aNode",
    b"crlf function xNode\r\nline two 12 34\r\n", b"sep x\x1cy and \x1d\x1e\x1f here\nfoo bar\n",
    b"\x00\x01\x7f control\tbytes\x0b\x0c\n", b"K k abc ABC a-c aXc\nSsx sx\n", b"\n\n\n   \n\t\n",
    b"foo " * 40000 + b"end\nfooNode\n", b"ab\nc a\nb\naab\nbcbcd\n", bytes(range(128)) * 3,
]


@pytest.mark.parametrize("pattern,case_sensitive", TWIN_PATTERNS, ids=[p for p, _ in TWIN_PATTERNS])
@pytest.mark.parametrize("whole_words", [False, True])
def test_a_regex_over_ascii_text_finds_the_same_lines_through_its_bytes_twin(pattern, case_sensitive, whole_words):
    r"""On ASCII text, a regex run as its bytes twin over the bytes finds the lines the str pattern
    finds, line by line (\s and U+001C to U+001F included: the twin is not used there), and the
    lines the str pattern finds over the whole decoded text."""
    if whole_words and pattern.startswith("(?"):
        pytest.skip("global flags inside the whole-words wrapper do not compile")
    for data in ASCII_TEXTS:
        twin = grep.Regex(pattern, case_sensitive, whole_words)
        general = grep.Regex(pattern, case_sensitive, whole_words)
        general._twin = (False, False)  # the str pattern over the decoded text, as before the twin
        found = list(twin.spans(data))
        assert found == list(general.spans(data)) == line_oracle(pattern, case_sensitive, whole_words, data)
        if b"\x1c" in data and r"\s" in pattern.lower():
            assert twin.bytes_twin(data) is None


def test_a_bytes_pattern_matches_each_ascii_character_as_the_str_pattern_except_separators_for_s():
    r"""The claim the twin rests on, character by character: over the 128 ASCII characters a
    pattern naming only ASCII matches as it does compiled for bytes, \w, \d, \b, . and case
    folding included; \s and \S differ exactly on U+001C to U+001F."""
    import re

    for pattern in [r"\w", r"\W", r"\d", r"\D", r"\b", r"\B", r".", r"[^a]", r"(?i)k", r"(?i)s", r"(?i)[a-z]",
                    r"(?i)[Z-a]", r"(?i)[^s]", r"(?i)\x5f", r"[\x00-\x20]", r"(?i)i", r"\s", r"\S"]:
        for flags in (0, re.IGNORECASE):
            as_str, as_bytes = re.compile(pattern, flags), re.compile(pattern.encode(), flags)
            differ = [c for c in range(128) if bool(as_str.search(chr(c))) != bool(as_bytes.search(bytes([c])))]
            assert differ == ([0x1c, 0x1d, 0x1e, 0x1f] if pattern in (r"\s", r"\S") else []), pattern


def test_a_regex_over_text_that_is_not_ascii_finds_the_lines_the_str_pattern_finds_in_each_line():
    """Over text that is not ASCII (or not UTF-8) a regex whose literal starts it tests the lines
    holding the literal, and one without a literal runs over the decoded text: both give the
    lines each line's own search gives, with the right byte offsets also after bytes that are
    not UTF-8."""
    texts = [
        "function \u00e9Node\nfunction  caf\u00e9Node x\n\u00df function \u017fNode \u212aNode\n".encode(),
        "\u65e5\u672c function \u8a9eNode\r\nfunction\u3000aNode\nfunction\u00a0bNode\n".encode(),
        b"\xff\xfe x\nfunction aNode\nfunction \xe9Node\n\xc3\nfunction\x1c cNode",
        ("\u00e9" * 70000 + " function zNode\n").encode() + b"function yNode",
        "ABC \u00c9T\u00c9 DEF\n\u212aELVIN ok \u017fS\nno\xff".encode("utf-8", "surrogateescape"),
    ]
    for pattern, case_sensitive in TWIN_PATTERNS + [(r"function\s+\w+Node", True), (r"[A-Z\u00c9]{3,}", True)]:
        for whole_words in (False, True) if not pattern.startswith("(?") else (False,):
            for data in texts:
                found = list(grep.Regex(pattern, case_sensitive, whole_words).spans(data))
                assert found == line_oracle(pattern, case_sensitive, whole_words, data), (pattern, data[:40])


BIG = 3 * grep.MARK_STEP  # above plain.MAP_MIN: mapped


def big_files() -> dict[str, bytes]:
    """Files above the mapping threshold, of every shape plain output must print as the page path does."""
    rows = "".join(f"row {i} {'function fooNode createProgram' if i % 997 == 0 else 'hay return'}\n"
                   for i in range(BIG // 20))
    return {
        "ascii.js": rows.encode(),
        "crlf.js": rows.replace("\n", "\r\n").encode(),
        "no-newline.js": rows.encode() + b"createProgram at the very end",
        "one-line.js": b"x" * BIG + b" createProgram function gNode " + b"y" * BIG,
        "unicode.txt": "".join(f"{i} caf\u00e9 \u00df \u017f \u212a {'STRASSE createProgram kelvin' if i % 501 == 0 else ''}\n"
                               for i in range(BIG // 20)).encode(),
        "not-utf8.txt": rows.encode().replace(b"hay", b"h\xffy", 300),
        "separators.js": rows.replace("row 9", "row\x1c9").encode(),
        "empty.txt": b"",
        "small.js": b"createProgram\nfunction sNode\n",
    }


BIG_CASES = [
    {"pattern": "createProgram", "case_sensitive": True}, {"pattern": "return", "case_sensitive": True},
    {"pattern": "createprogram"}, {"pattern": "strasse"}, {"pattern": "KELVIN"}, {"pattern": "\u00e9"},
    {"pattern": "createProgram", "case_sensitive": True, "whole_words": True}, {"pattern": "row", "whole_words": True},
    {"pattern": r"function\s+\w+Node", "regex": True, "case_sensitive": True},
    {"pattern": r"function\s+\w+node", "regex": True}, {"pattern": r"\b[A-Z]{3,}\b", "regex": True, "case_sensitive": True},
    {"pattern": r"row\s9\d*", "regex": True, "case_sensitive": True}, {"pattern": r"h.y$", "regex": True},
    {"pattern": r"(?<=row )1\d", "regex": True}, {"pattern": r"\x1c", "regex": True}, {"pattern": "absent", "regex": True},
]


@pytest.mark.parametrize("case", BIG_CASES, ids=[repr(c) for c in BIG_CASES])
def test_plain_output_of_mapped_big_files_equals_the_page_path(tmp_path, case):
    """Big files mapped instead of read (with and without their line marks) print the bytes, line
    numbers and counts the page path gives reading them: ASCII, CRLF, no final newline, one
    very long line, case folding outside ASCII, bytes that are not UTF-8, U+001C, empty files."""
    from codenav.search import plain

    tree = tmp_path / "tree"
    tree.mkdir()
    files = big_files()
    for name, data in files.items():
        (tree / name).write_bytes(data)
    listing = [[name, len(data)] for name, data in sorted(files.items())]
    options = {"regex": False, "case_sensitive": False, "whole_words": False, **case}
    marks = {name: (len(data), grep.line_marks(data)) for name, data in files.items() if len(data) >= plain.MAP_MIN}
    counts, expected = page_output(tree, listing, options)
    for known in (marks, None):
        assert plain.search(str(tree), listing, options, time.monotonic() + 60, marks=known) == (counts, expected)


def test_a_file_is_mapped_only_when_big_and_the_matcher_can_search_a_mapping(tmp_path, monkeypatch):
    """read_file maps a file of at least map_from bytes (and reads a smaller one, or one that shrank
    below it since the listing); the plain path asks for mappings only for a case-sensitive
    literal or a regex that needs no lowered copy."""
    import mmap

    from codenav.search import plain

    (tmp_path / "big").write_bytes(b"a\n" * plain.MAP_MIN)
    (tmp_path / "shrunk").write_bytes(b"a\n")
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        with grep.read_file("big", 2 * plain.MAP_MIN, fd, plain.MAP_MIN) as mapped:
            assert isinstance(mapped, mmap.mmap) and mapped[:] == b"a\n" * plain.MAP_MIN
        assert grep.read_file("shrunk", 2 * plain.MAP_MIN, fd, plain.MAP_MIN) == b"a\n"
        assert grep.read_file("big", 2 * plain.MAP_MIN, fd) == b"a\n" * plain.MAP_MIN
    finally:
        os.close(fd)
    assert [grep.matcher({"pattern": "x", **o}).mappable for o in (
        {"case_sensitive": True}, {}, {"regex": True, "case_sensitive": True}, {"regex": True},
        {"regex": True, "pattern": r"\w+"}, {"regex": True, "pattern": r"(?i)abc", "case_sensitive": True})] == [
        True, False, True, False, True, False]


@pytest.mark.parametrize("line", ["caf\u00e9 needle", "\u00c9t\u00e9 NEEDLE \u00e9t\u00e9 needle",
                                  "stra\u00dfe needle", "\ufb01le \u212aelvin needle", "\u03a3\u03c2 needle",
                                  "x" * 5000 + "\u00e9" + "y" * 5000 + "Needle"])
def test_a_case_insensitive_hit_column_is_the_character_of_the_folded_offset(line):
    """The column of a case-insensitive hit is the character the folded line's offset came from,
    whether folding keeps the line's length (the quick answer) or grows it."""
    from codenav.search.matchers import Literal

    folded = line.casefold()
    pos, seen = folded.find("needle"), 0
    column = next(i for i, ch in enumerate(line) if (seen := seen + len(ch.casefold())) > pos)
    assert Literal("needle", case_sensitive=False, whole_words=False).hit(line) == column


def small_files() -> dict[str, bytes]:
    """Small files of every shape, cut from the big ones, plus files whose bytes run on into the
    next one's in the pack: a needle split across two files is in neither."""
    from codenav.search.grep import SMALL

    files = {f"small/{name}": data[: SMALL // 3] for name, data in big_files().items()}
    files.update({"edge/a.js": b"no match here creat", "edge/b.js": b"eProgram starts this one\n",
                  "edge/c.js": b"createProgram", "edge/d.js": b"", "edge/e.js": b"x" * (SMALL - 1),
                  "edge/f.js": b"createProgram\n" * (SMALL // 14 + 1)})  # SMALL bytes or more: not packed
    return files


class _Packed:
    """An entry as search/pack.py sees one: its path (tree/ and the sidecar inside) and text list."""

    def __init__(self, path, listing):
        self.path, self.listing = str(path), listing

    def searchable(self):
        return self.listing, [], []


def packed_tree(tmp_path, files: dict[str, bytes]) -> tuple[Path, list[list], Any]:
    """(the tree of ``files`` under tmp_path, its text list, its pack as the CLI loads it)."""
    from codenav.search import pack

    tree = tmp_path / "tree"
    for name, data in files.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_bytes(data)
    listing = [[name, len(data)] for name, data in sorted(files.items())]
    entry = _Packed(tmp_path, listing)
    pack.write(entry, str(tmp_path / pack.NAME))
    return tree, listing, pack.load(entry, listing)


def page_output(tree, scope: list[list], options: dict) -> tuple[dict, bytes]:
    """(the counts, the plain output) the page path gives for ``scope``: what plain.search must give."""
    page = grep.search(str(tree), scope, options, start=None, max_matches=None, cap=None, context=0,
                       window=None, deadline=time.monotonic() + 60, encode=lambda *a: "")
    expected = "".join(f"{f['path']}:{ln['line']}:{ln['text']}\n" for f in page["files"] for b in f["blocks"]
                       for ln in b["lines"]).encode("utf-8")
    return {**{k: page[k] for k in ("totalMatches", "filesMatched", "filesScanned", "hasMore")}, "files": []}, expected


@pytest.mark.parametrize("case", BIG_CASES, ids=[repr(c) for c in BIG_CASES])
def test_plain_output_from_the_pack_of_small_files_equals_the_page_path(tmp_path, case):
    """Small files read from the entry's pack (one pass over it for a case-sensitive literal,
    slices of it otherwise) give the bytes, line numbers and counts of the page path reading
    each file, over the whole tree or a part of it; a needle running across two packed files
    matches in neither."""
    from codenav.search import plain

    tree, listing, packed = packed_tree(tmp_path, {**big_files(), **small_files()})
    assert packed is not None and len(packed.starts) == packed.count == sum(1 for _, size in listing if size < grep.SMALL)
    options = {"regex": False, "case_sensitive": False, "whole_words": False, **case}
    for scope in (listing, [f for f in listing if f[0].startswith(("edge/", "small/"))], listing[::3]):
        counts, expected = page_output(tree, scope, options)
        assert plain.search(str(tree), scope, options, time.monotonic() + 60, pack=packed) == (counts, expected)
        if case == {"pattern": "createProgram", "case_sensitive": True} and scope is listing:
            assert b"edge/a.js" not in expected and b"edge/b.js" not in expected and b"edge/c.js:1:" in expected


@pytest.mark.parametrize("damage", ["header", "short", "long", "absent"])
def test_a_pack_that_does_not_match_the_text_list_is_not_used(tmp_path, damage):
    """Another header, a pack cut short or grown, or none: the files are read one by one."""
    from codenav.search import pack

    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.js").write_bytes(b"alpha\n")
    (tree / "b.js").write_bytes(b"beta\n")
    listing = [["a.js", 6], ["b.js", 5]]
    entry = _Packed(tmp_path, listing)
    pack.write(entry, str(tmp_path / pack.NAME))
    assert pack.load(entry, listing) is not None
    data = (tmp_path / pack.NAME).read_bytes()
    changed = {"header": data.replace(b"files=2", b"files=3"), "short": data[:-1], "long": data + b"x",
               "absent": None}[damage]
    if changed is None:
        (tmp_path / pack.NAME).unlink()
    else:
        (tmp_path / pack.NAME).write_bytes(changed)
    assert pack.load(entry, listing) is None


def test_the_cli_reads_an_entry_s_small_files_from_its_pack_and_prints_what_it_printed_without(tmp_path):
    """An entry indexed now has its pack (a late sidecar); `codenav grep` prints the same bytes
    with it and without it."""
    from codenav.search import pack

    found = entry()
    assert os.path.exists(os.path.join(found.path, pack.NAME)) or found.sidecar(pack.NAME, pack.write)
    env = {"CODENAV_CACHE_DIR": os.environ["CODENAV_CACHE_DIR"], "CODENAV_NPM_REGISTRY": os.environ["CODENAV_NPM_REGISTRY"]}
    outputs = []
    for present in (True, False):
        if not present:
            os.rename(os.path.join(found.path, pack.NAME), tmp_path / "aside")
        outputs.append([run_cli("grep", SPEC, pattern, env=env).stdout for pattern in ("needle", "-s", "NEEDLE")])
    os.rename(tmp_path / "aside", os.path.join(found.path, pack.NAME))
    assert outputs[0] == outputs[1] and outputs[0][0].count(b"\n") >= 5


def test_a_mapping_dense_with_hits_is_searched_as_bytes_from_its_65th_hit_with_the_same_output(tmp_path):
    """A mapped file whose first DENSE_AFTER hits are close together is copied from the next line
    on and searched as bytes (no Python call a hit to count newlines), the output unchanged; a
    file with sparse hits stays mapped to its end."""
    from codenav.search import plain

    dense = b"".join(b"row %d return\n" % i for i in range(BIG // 14))
    sparse = b"".join(b"row %d %s\n" % (i, b"return" if i % 2000 == 0 else b"hay") for i in range(BIG // 10))
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "dense.js").write_bytes(dense)
    (tree / "sparse.js").write_bytes(sparse)
    options = {"pattern": "return", "regex": False, "case_sensitive": True, "whole_words": False}
    calls: list[tuple[type, int]] = []
    original = plain._lines

    def spy(match, data, prefix, out, first_line, steps):
        calls.append((type(data), first_line))
        return original(match, data, prefix, out, first_line, steps)

    for name, data in (("dense.js", dense), ("sparse.js", sparse)):
        calls.clear()
        plain._lines = spy
        try:
            found, out = plain.search(str(tree), [[name, len(data)]], options, time.monotonic() + 60)
        finally:
            plain._lines = original
        expected = b"".join(b"%s:%d:%s\n" % (name.encode(), n, line)
                            for n, line in enumerate(data.split(b"\n"), 1) if b"return" in line)
        assert out == expected and found["totalMatches"] == expected.count(b"\n")
        if name == "dense.js":
            assert calls[1:] == [(bytes, plain.DENSE_AFTER + 1)] and calls[0][0] is not bytes
        else:
            assert len(calls) == 1


def test_a_pack_without_the_literal_of_a_search_over_only_packed_files_answers_without_a_scan(tmp_path, monkeypatch):
    """When every file in scope is packed and the pack lacks the case-sensitive literal every
    match holds, plain.search counts them all scanned without opening one; with a file out of
    the pack in scope, only some of the packed files, or the literal present, it scans as
    before. The answers are the page path's."""
    from codenav.search import plain

    tree, listing, packed = packed_tree(tmp_path, {"a.js": b"alpha\nneedle\n", "b/c.js": b"beta\n",
                                                   "big.js": b"x\n" * (grep.SMALL // 2 + 1)})
    scans: list[int] = []
    original = plain._scan
    monkeypatch.setattr(plain, "_scan", lambda *a: scans.append(len(a[1])) or original(*a))
    small = [f for f in listing if f[0] != "big.js"]
    for scope, pattern, scanned in ((small, "absent", []), (small, "needle", [2]), (listing, "absent", [3]),
                                    (small[1:], "absent", [1])):
        scans.clear()
        options = {"pattern": pattern, "regex": False, "case_sensitive": True, "whole_words": False}
        counts, expected = page_output(tree, scope, options)
        assert plain.search(str(tree), scope, options, time.monotonic() + 60, pack=packed) == (counts, expected)
        assert scans == scanned, (scope, pattern)
