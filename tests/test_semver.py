"""codenav.registries.semver against node-semver and npm-pick-manifest, the copies npm itself runs.

Every answer is computed twice, by codenav and by node over npm's bundled modules (one node
process per table), and the tables are compared whole.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from codenav.errors import CodenavError
from codenav.registries import semver

# Versions with prereleases on several tuples, build metadata and loose-only spellings.
VERSIONS = [
    "0.0.1", "0.0.2-alpha", "0.0.2", "0.1.0", "0.1.5", "0.2.0-rc.1", "0.2.0",
    "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11",
    "1.0.0-rc.1", "1.0.0", "1.0.1", "1.2.0", "1.2.2", "1.2.3-alpha.3", "1.2.3-beta.1", "1.2.3", "1.2.3+build.7",
    "1.2.4-0", "1.2.4", "1.3.0", "1.4.0", "1.4.9", "1.5.0-pre", "1.5.0", "2.0.0-0", "2.0.0-rc.1", "2.0.0",
    "2.1.3", "3.0.0-beta.1", "3.0.0", "10.0.0", "v1.2.5", "=1.2.6", " 1.2.7 ", "01.2.8", "1.2.9beta",
    "1.2", "x.1.2", "1.2.3.4", "not-a-version", "",
]

# Ranges: every operator, spacing, x-ranges, hyphens, unions, prerelease ranges, loose-only
# spellings and invalid ones.
RANGES = [
    "^1.2.3", "^1.2", "^1", "^0.1.5", "^0.0.1", "^0.0", "^0.x", "^1.2.3-beta.1", "^0.0.2-alpha", "^1.x",
    "~1.2.3", "~1.2", "~1", "~>1.2", "~> 1.2.3", "~ 1.2", "~1.2.3-alpha.3", "~0.2.0-rc.1",
    "1.x", "1.2.x", "1.2.*", "1.X", "*", "", "x", "1", "1.2", "=1.2", "1.x.x", "*.*.*",
    "1.2 - 1.4", "1.2.3 - 2.0.0", "1.0.0-alpha - 1.0.0-rc.1", "1 - 2", "0.1.0 - 1.2.3-beta.1", "* - 2",
    ">=1.2.3", ">1.2.3", "<1.2.3", "<=1.2.3", "=1.2.3", "1.2.3", "v1.2.3", ">= 1.2.3", "> 1.2.3 < 2",
    ">=1.0.0 <2.0.0", ">1.0.0-alpha <1.0.0", ">=1.2.3-alpha.3 <1.2.4", "<2.0.0-rc.1", ">1", "<1", ">=1.2",
    "<=1.2", ">1.2", "<1.2", ">*", "<*", ">=*", "<=1.x", ">1.x",
    "1.2.3 || 2.x", "^1.0.0 || ^2.0.0", "<1.0.0 || >=2.0.0", "1.0.0-beta || 1.0.0-rc.1", "1.2.3 ||",
    "|| 1.2.3", ">=0.0.0", ">=0.0.0-0", "1.2.3+build", "^1.2.3+build", "1.2.3-beta.1 - 1.2.3",
    "=1.2.6", "01.2.8", "~01.2", "^00.1.2", "1.2.3beta", ">=1.2.3beta", "1.2.3 foo", "foo || 1.x",
    "1.x.3", "x.2", "foo", ">", "~", "^", ">=", "1.2.3 - 2.0.0 - 3.0.0", "*1.2.3", "1.2.3 -2.0.0",
    ">= 1.2.3 <= 1.4.9 || 2.x", "  ^1.2.3   ", "1.2.3\t||\t2.0.0", "> =1.2.3", "~>  1.4",
]

NODE_SEMVER = r"""
const root = process.argv[1];
const semver = require(root + '/semver');
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const modes = {strict: {}, loose: {loose: true}, pre: {includePrerelease: true},
               loosepre: {loose: true, includePrerelease: true}};
const out = {satisfies: {}, max: {}, validRange: {}, valid: {}, sorted: null};
for (const [mode, opts] of Object.entries(modes)) {
  out.satisfies[mode] = input.ranges.map(r => input.versions.map(v => semver.satisfies(v, r, opts)));
  out.max[mode] = input.ranges.map(r => semver.maxSatisfying(input.versions, r, opts));
  out.validRange[mode] = input.ranges.map(r => semver.validRange(r, opts) !== null);
  out.valid[mode] = input.versions.map(v => semver.valid(v, opts));
}
const good = input.versions.filter(v => semver.valid(v, {loose: true}));
out.sorted = good.slice().sort((a, b) => semver.compare(a, b, {loose: true}));
out.clean = input.versions.map(v => semver.clean(v, {loose: true}));
process.stdout.write(JSON.stringify(out));
"""

MODES = {"strict": {}, "loose": {"loose": True}, "pre": {"include_prerelease": True},
         "loosepre": {"loose": True, "include_prerelease": True}}


@pytest.fixture(scope="module")
def npm_modules() -> Path:
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip("node or npm is not installed")
    try:
        root = subprocess.run([npm, "root", "-g"], capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pytest.skip("npm root -g failed")
    modules = Path(root) / "npm" / "node_modules"
    if not (modules / "semver").is_dir() or not (modules / "npm-pick-manifest").is_dir():
        pytest.skip("npm's bundled semver / npm-pick-manifest not found")
    return modules


def run_node(script: str, modules: Path, payload: object) -> dict:
    proc = subprocess.run(
        [shutil.which("node"), "-e", script, str(modules)], input=json.dumps(payload),
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def ours(ranges: list[str], versions: list[str]) -> dict:
    out: dict = {"satisfies": {}, "max": {}, "validRange": {}, "valid": {}}
    for mode, opts in MODES.items():
        loose = opts.get("loose", False)
        out["satisfies"][mode] = [[semver.satisfies(v, r, **opts) for v in versions] for r in ranges]
        out["max"][mode] = [semver.max_satisfying(versions, r, **opts) for r in ranges]
        out["validRange"][mode] = [semver.is_valid_range(r, loose=loose) for r in ranges]
        out["valid"][mode] = [semver.valid(v, loose=loose) for v in versions]
    return out


def differences(expected: dict, got: dict, ranges: list[str], versions: list[str]) -> list[str]:
    """Readable mismatches, so a failure names the range and the version."""
    diffs = []
    for mode in MODES:
        for i, r in enumerate(ranges):
            for j, v in enumerate(versions):
                if expected["satisfies"][mode][i][j] != got["satisfies"][mode][i][j]:
                    diffs.append(f"{mode}: satisfies({v!r}, {r!r}) node={expected['satisfies'][mode][i][j]}")
            if expected["max"][mode][i] != got["max"][mode][i]:
                diffs.append(f"{mode}: maxSatisfying({r!r}) node={expected['max'][mode][i]!r} ours={got['max'][mode][i]!r}")
            if expected["validRange"][mode][i] != got["validRange"][mode][i]:
                diffs.append(f"{mode}: validRange({r!r}) node={expected['validRange'][mode][i]}")
        for j, v in enumerate(versions):
            if expected["valid"][mode][j] != got["valid"][mode][j]:
                diffs.append(f"{mode}: valid({v!r}) node={expected['valid'][mode][j]!r} ours={got['valid'][mode][j]!r}")
    return diffs


def test_table_matches_node_semver(npm_modules: Path) -> None:
    """satisfies, maxSatisfying, validRange and valid agree with node-semver on every range × version, in all four modes."""
    assert len(RANGES) >= 40
    expected = run_node(NODE_SEMVER, npm_modules, {"ranges": RANGES, "versions": VERSIONS})
    assert differences(expected, ours(RANGES, VERSIONS), RANGES, VERSIONS) == []


def test_order_and_clean_match_node_semver(npm_modules: Path) -> None:
    """Sorting by sort_key gives node-semver's compare order, and clean() gives npm's lookup spelling."""
    expected = run_node(NODE_SEMVER, npm_modules, {"ranges": [], "versions": VERSIONS})
    good = [v for v in VERSIONS if semver.valid(v, loose=True)]
    assert sorted(good, key=semver.sort_key) == expected["sorted"]
    assert [semver.clean(v) for v in VERSIONS] == expected["clean"]


def random_ranges(count: int, seed: int) -> list[str]:
    """Ranges assembled from the grammar's pieces, odd spacing and mistakes included."""
    rnd = random.Random(seed)
    parts = ["0", "1", "2", "01", "x", "X", "*", "3", "10"]
    pres = ["", "", "", "-alpha", "-beta.2", "-0", "-rc.1", "beta"]
    ops = ["", "", "^", "~", "~>", ">", ">=", "<", "<=", "=", "v", "> ", ">= ", "~ ", "^ ", "= "]

    def partial() -> str:
        n = rnd.choice([1, 2, 3, 3, 3])
        text = ".".join(rnd.choice(parts) for _ in range(n))
        return text + (rnd.choice(pres) if n == 3 else "") + rnd.choice(["", "", "", "+b.1"])

    def simple() -> str:
        if rnd.random() < 0.15:
            return f"{partial()} - {partial()}"
        return " ".join(rnd.choice(ops) + partial() for _ in range(rnd.choice([1, 1, 2, 3])))

    return [" || ".join(simple() for _ in range(rnd.choice([1, 1, 1, 2, 3]))) for _ in range(count)]


def test_generated_ranges_match_node_semver(npm_modules: Path) -> None:
    """Several hundred generated ranges (quirky spacing, leading zeros, bad orders) agree with node-semver."""
    ranges = random_ranges(300, seed=14)
    versions = [v for v in VERSIONS if semver.valid(v, loose=True)]
    expected = run_node(NODE_SEMVER, npm_modules, {"ranges": ranges, "versions": versions})
    assert differences(expected, ours(ranges, versions), ranges, versions) == []


# -- the picker ---------------------------------------------------------------------------------

PACKUMENT_VERSIONS = {
    "0.9.0": {},
    "1.0.0": {},
    "1.1.0": {"deprecated": "use 1.2"},
    "1.2.0": {},
    "1.3.0-beta.1": {},
    "1.3.0": {"deprecated": "broken"},
    "2.0.0-rc.1": {},
    "2.0.0": {},
    "2.1.0": {"deprecated": "bad"},
    "2.2.0-alpha.0": {},
    "3.0.0": {"deprecated": "oops"},
    "3.1.0-beta.0": {},
    "4.0.0": {"deprecated": ""},  # an empty message is no deprecation
    "5.0.0-rc.1": {},
}
DIST_TAGS = {"latest": "2.0.0", "next": "3.1.0-beta.0", "beta": "1.3.0-beta.1", "old": "1.1.0", "gone": "9.9.9"}

WANTED = [
    None, "", "*", "x", "latest", "next", "beta", "old", "gone", "nosuchtag", "  ",
    "1.2.0", "v1.2.0", "=1.2.0", "1.2.0+build", "1.1.0", "9.9.9", "2.0.0-rc.1",
    "^1.0.0", "^1.1.0", "~1.3.0", "1.3.x", "^2.0.0", "^2.1.0", "2.x", ">=2.0.0", ">2.0.0", "^3.0.0", "3.x",
    "^3.1.0-beta.0", "^2.2.0-alpha.0", ">=1.3.0-beta.1 <1.4.0", "1.x || 3.x", "<1.0.0", "^4.0.0", "^5.0.0",
    ">=5.0.0-rc.0", "1.0.0 - 1.3.0", "^0.9", "~1", ">= 1.2.0 < 1.3.1", "^9.0.0", "2.0.0-rc.1 - 2.0.0",
    "<=1.1.0", "~2.0.0-0",
]

NODE_PICK = r"""
const root = process.argv[1];
const pick = require(root + '/npm-pick-manifest');
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const packument = {name: 'demo', 'dist-tags': input.tags, versions: {}};
for (const [v, extra] of Object.entries(input.versions)) {
  packument.versions[v] = Object.assign({name: 'demo', version: v}, extra);
}
const out = input.wanted.map(w => {
  try {
    return pick(packument, w === null ? undefined : w).version;
  } catch (e) {
    return e.code === 'ETARGET' ? null : 'ERROR';
  }
});
process.stdout.write(JSON.stringify(out));
"""


def our_pick(versions: dict, tags: dict, wanted: str | None) -> str | None:
    try:
        return semver.pick(versions, tags, wanted)
    except CodenavError:
        return "ERROR"


def test_pick_matches_npm_pick_manifest(npm_modules: Path) -> None:
    """For tags, exact versions and ranges over deprecated versions, prereleases and a latest below the top, codenav picks what npm picks."""
    expected = run_node(NODE_PICK, npm_modules, {"versions": PACKUMENT_VERSIONS, "tags": DIST_TAGS, "wanted": WANTED})
    got = [our_pick(PACKUMENT_VERSIONS, DIST_TAGS, w) for w in WANTED]
    assert dict(zip(map(repr, WANTED), got, strict=True)) == dict(zip(map(repr, WANTED), expected, strict=True))


def test_pick_when_latest_is_deprecated_or_missing(npm_modules: Path) -> None:
    """A deprecated latest, or none at all, leaves the highest non-deprecated satisfying version; deprecated ones only as a last resort."""
    cases = [
        ({**PACKUMENT_VERSIONS, "2.0.0": {"deprecated": "no"}}, DIST_TAGS),
        (PACKUMENT_VERSIONS, {}),
        ({"1.0.0": {"deprecated": "a"}, "1.1.0": {"deprecated": "b"}, "1.2.0-rc.1": {}}, {"latest": "1.1.0"}),
        ({"1.0.0": {}, "1.0.0+b": {}, "2.0.0-rc.1": {}}, {"latest": "2.0.0-rc.1"}),
    ]
    for versions, tags in cases:
        expected = run_node(NODE_PICK, npm_modules, {"versions": versions, "tags": tags, "wanted": WANTED})
        got = [our_pick(versions, tags, w) for w in WANTED]
        assert dict(zip(map(repr, WANTED), got, strict=True)) == dict(zip(map(repr, WANTED), expected, strict=True))


def test_classify() -> None:
    """A wanted string is an exact version, a range or a dist-tag as npm reads it, and anything else is INVALID_ARGUMENT."""
    assert [semver.classify(t) for t in ["1.2.3", "v1.2.3", "=1.2.3", "^1.2", "1.2 - 1.4", "", "*", "latest", "next-1"]] == [
        "exact", "exact", "exact", "range", "range", "range", "range", "tag", "tag"]
    assert semver.is_range("~1.2") and not semver.is_range("1.2.3") and not semver.is_range("latest")
    for bad in ["foo bar", "a/b", "npm:react@1", "x.tgz", ".hidden", "<>1"]:
        with pytest.raises(CodenavError) as err:
            semver.classify(bad)
        assert err.value.code == "INVALID_ARGUMENT" and err.value.details == {"field": "version"}


def test_invalid_range_raises() -> None:
    """parse_range refuses an invalid range with INVALID_ARGUMENT naming the range; satisfies is then False."""
    with pytest.raises(CodenavError) as err:
        semver.parse_range("1.x.3")
    assert (err.value.code, err.value.message) == ("INVALID_ARGUMENT", "'1.x.3' is not a valid version range")
    assert semver.satisfies("1.0.3", "1.x.3") is False
