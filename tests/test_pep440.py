"""codenav.registries.pep440 against current pip: its vendored ``packaging`` and pip itself.

The oracle is the newest pip from the package index (its wheel, unpacked and put first on
``PYTHONPATH``), because ``packaging`` changed its prerelease rules in 26.0 and a
venv's bundled pip may be older. Without the index the tests skip.
"""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from codenav.errors import CodenavError
from codenav.registries import pep440
from tests.support.pip import clean_env, tiny_wheel

VERSIONS = [
    "0.9", "1.0.dev0", "1.0.dev1", "1.0a1", "1.0a2.dev1", "1.0alpha3", "1.0b1", "1.0rc1", "1.0c2", "1.0",
    "1.0.0", "1.0+local.1", "1.0+cpu", "1.0.post1", "1.0-2", "1.0.post3.dev1", "1.0.1", "1.1.dev0", "1.1",
    "1.1.post1+abc", "1.4", "1.4.5", "1.4.5a4", "1.5.dev0", "1.5", "2.0.dev0", "2.0b1", "2.0", "2.0.1+ubuntu.2",
    "2.2", "2.2.post3", "2.3", "3.0rc1", "3.0", "1!0.5", "1!1.0", "v1.2", "1.2-r3", "1.2_RC_1", " 1.3 ",
    "1.0+Local_2", "not.a.version", "1..0", "1.0+", "",
]

SPECIFIERS = [
    "", "==1.0", "==1.0.0", "==1.0+local.1", "==1.0+LOCAL-1", "!=1.0", "!=1.0+cpu", "==1.*", "==1.0.*", "!=1.0.*",
    "==2.*", ">=1.0", ">1.0", ">1.0.post1", ">1.0.dev0", ">1.0a1", "<1.0", "<=1.0", "<1.0rc1", "<2.0", "<=2.0",
    "<1.0.post1", ">=1.0,<2.0", ">=1.0a1,<2", ">1.0,!=1.1,<2.0", "~=1.4", "~=1.4.5", "~=1.4.5a4", "~=2.2.post3",
    "~=1.0.dev0", "===1.0", "===1.0.0", "===v1.2", "===not.a.version", ">=1!0", "<1!0", "== 1.4", ">= 1.0 , < 1.1",
    ">=2.0b1", "!=2.0b1", "==2.0b1.*", "<=1.0.dev0", ">0.9,<1.0.dev1", "==1.0+cpu,>=1.0", ">=1.0,,<2",
    "~=1", "==1.0.*+local", "<1.0+local", ">=", "=1.0", "foo", "~=1.0.*", "1.0",
]

ORACLE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from pip._vendor.packaging.specifiers import SpecifierSet, InvalidSpecifier
from pip._vendor.packaging.version import Version, InvalidVersion
data = json.load(sys.stdin)
out = {"version": [], "spec": [], "contains": {}, "filter": {}, "sorted": None}
good = []
for v in data["versions"]:
    try:
        out["version"].append(str(Version(v))); good.append(v)
    except InvalidVersion:
        out["version"].append(None)
out["sorted"] = sorted(good, key=Version)
for mode, pre in (("none", None), ("true", True), ("false", False)):
    out["contains"][mode] = {}
    out["filter"][mode] = {}
    for s in data["specs"]:
        try:
            ss = SpecifierSet(s)
        except InvalidSpecifier:
            continue
        out["contains"][mode][s] = [ss.contains(v, prereleases=pre) for v in good]
        out["filter"][mode][s] = list(ss.filter(good, prereleases=pre))
for s in data["specs"]:
    try:
        SpecifierSet(s); out["spec"].append(True)
    except InvalidSpecifier:
        out["spec"].append(False)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def oracle(pip_dir: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", ORACLE, str(pip_dir)], input=json.dumps({"versions": VERSIONS, "specs": SPECIFIERS}),
        capture_output=True, text=True, timeout=120, env=clean_env(),
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_versions_parse_and_sort_as_packaging(oracle: dict) -> None:
    """Every version normalises to packaging's spelling (or is refused alike), and sorting gives packaging's order."""
    assert [str(v) if (v := pep440.parse(t)) else None for t in VERSIONS] == oracle["version"]
    good = [t for t in VERSIONS if pep440.parse(t)]
    assert sorted(good, key=pep440.sort_key) == oracle["sorted"]


def test_specifier_validity_matches_packaging(oracle: dict) -> None:
    """A specifier set is accepted or refused (INVALID_ARGUMENT) exactly when packaging accepts or refuses it."""
    assert len([s for s, ok in zip(SPECIFIERS, oracle["spec"], strict=True) if ok]) >= 25

    def ours(s: str) -> bool:
        try:
            pep440.parse_specifier(s)
        except CodenavError as err:
            assert err.code == "INVALID_ARGUMENT"
            return False
        return True

    assert [ours(s) for s in SPECIFIERS] == oracle["spec"]


@pytest.mark.parametrize("mode,pre", [("none", None), ("true", True), ("false", False)])
def test_contains_and_filter_match_packaging(oracle: dict, mode: str, pre: bool | None) -> None:
    """contains() and filter() agree with packaging for every valid specifier × version, per prereleases setting."""
    good = [t for t in VERSIONS if pep440.parse(t)]
    contains = {s: [pep440.parse_specifier(s).contains(v, prereleases=pre) for v in good] for s in oracle["contains"][mode]}
    filtered = {s: pep440.parse_specifier(s).filter(good, prereleases=pre) for s in oracle["filter"][mode]}
    assert contains == oracle["contains"][mode]
    assert filtered == oracle["filter"][mode]


def generated(seed: int) -> tuple[list[str], list[str]]:
    """Versions and specifier sets assembled from PEP 440's pieces, odd spellings and mistakes included."""
    rnd = random.Random(seed)

    def version() -> str:
        text = rnd.choice(["", "", "", "1!"]) + ".".join(str(rnd.choice([0, 0, 1, 2, 10])) for _ in range(rnd.choice([1, 2, 3])))
        text += rnd.choice(["", "", "a1", "b2", "rc1", "-alpha", "c", "pre2"])
        text += rnd.choice(["", "", ".post1", "-1", "post", ".rev2"])
        text += rnd.choice(["", "", ".dev0", "dev3"])
        return text + rnd.choice(["", "", "", "+loc", "+1.a"])

    versions = sorted({version() for _ in range(120)})
    specs = []
    for _ in range(250):
        clauses = []
        for _ in range(rnd.choice([1, 1, 2, 3])):
            op, v = rnd.choice(["==", "!=", "<=", ">=", "<", ">", "~=", "==="]), version()
            if op in ("==", "!=") and rnd.random() < 0.3:
                v = v.split("+")[0].split("a")[0].split("-")[0] + ".*"
            clauses.append(op + rnd.choice(["", " "]) + v)
        specs.append(",".join(clauses))
    return versions, specs


def test_generated_specifiers_match_packaging(pip_dir: Path) -> None:
    """Hundreds of generated specifier sets agree with packaging on validity, contains() and filter() in every prereleases mode."""
    versions, specs = generated(440)
    proc = subprocess.run(
        [sys.executable, "-c", ORACLE, str(pip_dir)], input=json.dumps({"versions": versions, "specs": specs}),
        capture_output=True, text=True, timeout=120, env=clean_env(),
    )
    assert proc.returncode == 0, proc.stderr
    expected = json.loads(proc.stdout)
    good = [v for v in versions if pep440.parse(v)]
    assert [str(v) if (v := pep440.parse(t)) else None for t in versions] == expected["version"]
    valid = []
    for s in specs:
        try:
            valid.append(pep440.parse_specifier(s) is not None)
        except CodenavError:
            valid.append(False)
    assert valid == expected["spec"]
    for mode, pre in (("none", None), ("true", True), ("false", False)):
        sets = {s: pep440.parse_specifier(s) for s in expected["contains"][mode]}
        assert {s: [ss.contains(v, prereleases=pre) for v in good] for s, ss in sets.items()} == expected["contains"][mode]
        assert {s: ss.filter(good, prereleases=pre) for s, ss in sets.items()} == expected["filter"][mode]


# -- the picker, against pip download over a local PEP 503 index ---------------------------------

RELEASES = {
    "0.9": False, "1.0": False, "1.1": True, "1.2rc1": False, "1.5b1": False, "2.0": False, "2.1": True,
    "2.2.dev1": False, "3.0a1": False, "3.0": True, "3.1rc1": True, "4.0": True, "4.0+cpu": True,
}

# (specifier, what pip picks, why)
PICKS = [
    ("", "2.0", "no specifier: the highest final that is not yanked (3.0, 4.0 are yanked)"),
    (">=1.0,<2.0", "1.0", "1.1 is yanked and 1.2rc1/1.5b1 are prereleases while a final matches"),
    ("==1.1", "1.1", "an exact pin may use a yanked release (PEP 592)"),
    ("==1.*", "1.0", "a wildcard is no pin: yanked 1.1 is skipped"),
    (">=1.1,<1.2", None, "only yanked 1.1 matches and nothing pins it"),
    (">=1.2rc1,<2", "1.5b1", "the specifier names a prerelease, so prereleases count"),
    (">1.0,<2.0", None, "yanked final 1.1 matches, so prereleases stay out; 1.1 itself is yanked"),
    (">1.1,<2.0", "1.5b1", "no final matches: prereleases are used"),
    (">=2.2.dev0,<3", "2.2.dev1", "names a dev release"),
    (">=3.0a1", "3.0a1", "names a prerelease; 3.0 and 3.1rc1 are yanked"),
    ("==3.0", "3.0", "pinned and every match is yanked"),
    ("==4.0", "4.0+cpu", "==4.0 takes local builds too; all yanked, so the highest of them"),
    ("===4.0", "4.0", "=== compares the spelling"),
    ("~=2.0", "2.0", "compatible release; 2.1 is yanked"),
    ("!=2.0,>=1.9", None, "2.1, 3.0, 4.0 yanked; 2.2.dev1/3.0a1 held back since finals match"),
    ("<0.9", None, "nothing matches"),
    ("1.0", "1.0", "a bare version means ==1.0"),
]


def test_pick_table() -> None:
    """pick() follows pip's rules: prereleases only when named or no final matches, yanked only for a pin nothing else satisfies."""
    releases = {v: {"yanked": y} for v, y in RELEASES.items()}
    assert {s: pep440.pick(releases, s) for s, _want, _why in PICKS} == {s: want for s, want, _why in PICKS}
    assert pep440.pick(releases, None) == "2.0"


@pytest.fixture(scope="module")
def simple_index(tmp_path_factory: pytest.TempPathFactory):
    """A PEP 503 index over tiny wheels of ``demo``, with the yanked flags of RELEASES."""
    root = tmp_path_factory.mktemp("index")
    project = root / "simple" / "demo"
    project.mkdir(parents=True)
    links = []
    for version, yanked in RELEASES.items():
        filename = f"demo-{version}-py3-none-any.whl"
        data = tiny_wheel("demo", version)
        (project / filename).write_bytes(data)
        attr = ' data-yanked="test"' if yanked else ""
        links.append(f'<a href="{filename}#sha256={hashlib.sha256(data).hexdigest()}"{attr}>{filename}</a>')
    (project / "index.html").write_text("<!DOCTYPE html><html><body>" + "".join(links) + "</body></html>")
    (root / "simple" / "index.html").write_text('<html><body><a href="demo/">demo</a></body></html>')

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/simple/"
    server.shutdown()
    server.server_close()


def _pip_picks(pip_dir: Path, index: str, spec: str, dest: Path) -> str | None:
    requirement = f"demo=={spec}" if pep440.parse(spec) else f"demo{spec}"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-cache-dir", "--quiet", "-d", str(dest),
         "--index-url", index, requirement],
        capture_output=True, text=True, timeout=300, env={**clean_env(), "PYTHONPATH": str(pip_dir)},
    )
    got = [p.name for p in dest.glob("demo-*.whl")]
    if proc.returncode != 0:
        assert "No matching distribution" in proc.stderr, proc.stderr
        return None
    assert len(got) == 1, (got, proc.stderr)
    return got[0][len("demo-"):-len("-py3-none-any.whl")]


def test_pick_table_matches_real_pip(pip_dir: Path, simple_index: str, tmp_path: Path) -> None:
    """Real pip download against a local index with yanked releases and prereleases picks what pick() picks, case by case."""
    from concurrent.futures import ThreadPoolExecutor

    releases = {v: {"yanked": y} for v, y in RELEASES.items()}
    with ThreadPoolExecutor(max_workers=2) as pool:
        pip = dict(zip([s for s, _w, _y in PICKS], pool.map(
            lambda i: _pip_picks(pip_dir, simple_index, PICKS[i][0], tmp_path / str(i)), range(len(PICKS))), strict=True))
    assert {s: pep440.pick(releases, s) for s, _w, _y in PICKS} == pip


def test_split_requirement() -> None:
    """PEP 508 heads and codenav's name@spec split into the name and the specifier; markers and URLs are refused."""
    assert [pep440.split_requirement(t) for t in [
        "requests>=2.30,<2.32", "requests", "requests (>=1.0, <2)", "requests[socks,security] ~= 2.31", "requests@2.31.0",
        "requests@>=2.30,<2.32", "zope.interface==5.*", "Foo_Bar-baz !=1.0",
    ]] == [
        ("requests", ">=2.30,<2.32"), ("requests", ""), ("requests", ">=1.0, <2"), ("requests", "~= 2.31"),
        ("requests", "2.31.0"), ("requests", ">=2.30,<2.32"), ("zope.interface", "==5.*"), ("Foo_Bar-baz", "!=1.0"),
    ]
    for bad in ["requests>=2.30; python_version<'3'", "requests @ https://example.invalid/r.tar.gz", "requests>>2", "-x"]:
        with pytest.raises(CodenavError) as err:
            pep440.split_requirement(bad)
        assert err.value.code == "INVALID_ARGUMENT"


def test_classify() -> None:
    """A bare version or a one-version pin is exact; any other specifier set is a range."""
    assert [pep440.classify(t) for t in ["2.31.0", "==2.31.0", "===2.31", ">=2.30,<2.32", "==2.*", "~=2.31"]] == [
        "exact", "exact", "exact", "range", "range", "range"]
