"""search/globs.py against ripgrep itself: `rg --files -g ...` on a real tree is the oracle."""

from __future__ import annotations

import subprocess

import pytest

from codenav.errors import CodenavError
from codenav.search.globs import GlobSet, check
from tests.support.cli import oracle

RG = oracle("rg")  # on PATH, or beside this interpreter (the `ripgrep` package of the test extra)

PATHS = [
    "README.md", "index.js", "index.d.ts", "package.json", ".npmignore", "a.JS", "x?y.txt", "b[1].txt",
    "lib/a.js", "lib/a.d.ts", "lib/b.ts", "lib/sub/c.js", "lib/sub/deep/d.ts", "lib/sub/deep/e.md",
    "src/lib/f.js", "src/index.ts", "src/test/g.test.js", "test/h.js", "test/fixtures/lib/i.js",
    "node_modules/dep/index.js", "node_modules/dep/lib/j.js", "docs/lib", "docs/guide.md", "abc.ts", "abd.ts",
]

CASES = [
    ["*.js"], ["*.ts", "!*.d.ts"], ["!*.d.ts"], ["!lib"], ["lib"], ["lib/"], ["!lib/"], ["/lib"], ["lib/*.js"],
    ["lib/**"], ["!lib/**"], ["lib/**/*.ts"], ["**/lib/*.js"], ["**/*.md"], ["/*.js"], ["*"], ["**"], ["?.js"],
    ["[ab].js"], ["[!a]*.js"], ["ab[cd].ts"], ["*.{js,ts}"], ["{lib,src}/*.js"], ["!node_modules"],
    ["!test/", "*.js"], ["*.js", "!lib/**"], ["!*.js", "lib/a.js"], ["lib/a.js", "!*.js"], ["sub"], ["!sub"],
    ["deep/*.ts"], ["lib/sub/deep/*"], ["x\\?y.txt"], ["b\\[1\\].txt"], ["*.JS"], [".*"], ["!.*"],
    ["src/**/*.js", "!**/test/**"], ["*.md", "!docs"], ["docs"], ["!docs/lib"], ["**/deep/**"], ["a*"],
    ["lib/**/d.ts"], ["index.*"], ["!index.*", "!*.md"],
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("globtree")
    for path in PATHS:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x\n")
    return root


def rg_files(root, globs: list[str]) -> list[str]:
    argv = [RG, "--files", "-uu", "--sort", "path"]
    for g in globs:
        argv += ["-g", g]
    proc = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=30)
    assert proc.returncode in (0, 1), proc.stderr
    return sorted(proc.stdout.split("\n")[:-1])


@pytest.mark.skipif(RG is None, reason="ripgrep is not installed (the test extra brings it)")
@pytest.mark.parametrize("globs", CASES, ids=[" ".join(c) for c in CASES])
def test_globs_select_the_files_ripgrep_selects(tree, globs):
    """GlobSet keeps exactly the files `rg --files -g ...` lists on the same tree."""
    matcher = GlobSet(globs)
    assert sorted(p for p in PATHS if matcher.includes(p)) == rg_files(tree, globs)


def test_star_does_not_cross_a_slash():
    """`lib/*.js` matches lib/a.js but not lib/sub/c.js; `lib/**/*.js` matches both."""
    assert GlobSet(["lib/*.js"]).includes("lib/a.js") and not GlobSet(["lib/*.js"]).includes("lib/sub/c.js")
    assert GlobSet(["lib/**/*.js"]).includes("lib/sub/c.js")


def test_only_negated_globs_mean_everything_else():
    """A glob of only `!` patterns means everything else."""
    matcher = GlobSet(["!*.d.ts", "!test/"])
    assert matcher.includes("lib/a.js") and not matcher.includes("lib/a.d.ts") and not matcher.includes("test/h.js")


def test_the_later_glob_wins():
    """When two globs match, the one given last decides."""
    assert not GlobSet(["lib/a.js", "!*.js"]).includes("lib/a.js")
    assert GlobSet(["!*.js", "lib/a.js"]).includes("lib/a.js")


@pytest.mark.parametrize("bad", [[""], ["!"], ["[abc"], ["{a,b"], [5], "x" and 5])
def test_malformed_globs_are_invalid_argument_naming_glob(bad):
    """Empty, unclosed and non-string globs are INVALID_ARGUMENT with field `glob`."""
    with pytest.raises(CodenavError) as info:
        check(bad)
    assert info.value.code == "INVALID_ARGUMENT" and info.value.details["field"] == "glob"
