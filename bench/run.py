"""codenav's benchmarks (SPEC §7): speed and memory as ratios against what a user would run instead.

    python bench/run.py            # everything, about a minute and a half; needs npm, pip and the registries
    python bench/run.py --quick    # a quarter of the repeats
    python bench/run.py --offline  # only what needs no registry (the 20,000-file tree, the locked project)
    python bench/run.py --only warm,mcp   # a subset: warm, mcp, cold-npm, cold-many, cold-pypi, rss, tree, locked, grep, deps
    python bench/run.py --only grep       # grep_repo against rg -j1 -uu on four trees (bench/grep_repo.py)
    python bench/run.py --only deps       # grep --all-deps against npm ci / pip download and rg (bench/deps.py)
    python bench/run.py --only mcp --baseline-checkout ../main   # the MCP row of two checkouts, one run
    python bench/run.py --only tokens     # answer tokens against the plain CLI, and the catalog (bench/tokens.py)

codenav is installed the way a user installs it, twice: ``pip install`` of this checkout into
a fresh virtual environment, and ``uv pip install --compile-bytecode`` into another (uv is
installed from PyPI into the work directory when it is not on PATH; --no-uv skips it). Both
compile the bytecode, so PYTHONDONTWRITEBYTECODE does not matter. Each is run through the
``codenav`` command its installer writes: pip's imports ``re`` before codenav runs, which
alone costs about half of Python's start-up; uv's does not. Every ratio compares codenav
with its baseline on the same interpreter in the same run, the two alternating pair by pair
(bench/harness.py); the ratio quoted is the median of the pairwise ratios of wall time.

Registry endpoints are never written here: codenav discovers them from npm and pip as it does
for a user, once, and that discovery (``state/endpoints.json``) is copied into each fresh
cache for the cold runs. Progress goes to stderr; stdout is the result table.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(ROOT))

import bigtree  # noqa: E402
import deps  # noqa: E402
import grep_repo  # noqa: E402
import harness  # noqa: E402
import mcp_load  # noqa: E402
import tokens  # noqa: E402

EXPRESS = "npm:express@4.21.2"
REQUESTS = "pypi:requests@2.32.3"
MANY_FILES = "npm:@mui/icons-material@9.5.0"  # 43,010 files in a 2 MB tarball
# Peak RSS of the indexer, package by package: a large packument, a large symbol index, many
# files, a large wheel.
RSS_TARGETS = ("npm:@types/node@26.6.11", "npm:typescript@7.0.2", MANY_FILES, "pypi:django@5.2.8")
READ_PATH = "lib/router/index.js"
GREP = ("next", "lib/router/index.js")
WAIT = ("--wait", "60000")
# Variables that would point codenav somewhere else than the user's npm/pip say.
_ENDPOINT_VARS = ("CODENAV_NPM_REGISTRY", "CODENAV_PYPI_INDEX_URL", "CODENAV_NO_DISCOVERY", "CODENAV_CACHE_DIR",
                  "XDG_CACHE_HOME", "CODENAV_RESOLVE_TTL")


def ok(argv: list[str], env: dict[str, str]) -> harness.Run:
    """One timed run of a codenav command that must succeed (a failing one times nothing useful)."""
    result = harness.run(argv, env=env)
    if result.status != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {result.status}")
    return result


def log(message: str) -> None:
    sys.stderr.write(f"bench: {message}\n")
    sys.stderr.flush()


class Bench:
    def __init__(self, work: Path, installs: dict[str, Path], quick: bool) -> None:
        self.work = work
        self.installs = installs  # installer name -> virtual environment
        self.python = str(installs["pip"] / "bin" / "python")
        self.codenav = str(installs["pip"] / "bin" / "codenav")
        self.quick = quick
        self.rows: list[tuple[str, str, str, str, str, str]] = []
        self.base_env = {k: v for k, v in os.environ.items() if k not in _ENDPOINT_VARS}
        self.warm_cache = work / "warm-cache"
        self._fresh = 0
        self.extra: list[str] = []  # reports with their own tables (grep), printed after the main one
        self.baseline: Path | None = None  # a venv of another checkout, measured beside this one (mcp)
        self.baseline_name = ""

    # --- environment -------------------------------------------------------------------------

    def env(self, cache: Path, **extra: str) -> dict[str, str]:
        return {**self.base_env, "CODENAV_CACHE_DIR": str(cache), **extra}

    def fresh_dir(self, what: str) -> Path:
        self._fresh += 1
        path = self.work / f"{what}-{self._fresh}"
        path.mkdir()
        return path

    def fresh_cache(self) -> Path:
        """An empty cache holding only the discovered endpoints (a cold package, a warm discovery)."""
        cache = self.fresh_dir("cache")
        (cache / "state").mkdir()
        shutil.copy(self.warm_cache / "state" / "endpoints.json", cache / "state" / "endpoints.json")
        return cache

    def row(self, what: str, codenav: str, baseline: str, ratio: str, target: str, met: bool | None) -> None:
        verdict = "—" if met is None else ("yes" if met else "**no**")
        self.rows.append((what, codenav, baseline, ratio, target, verdict))
        log(f"{what}: {codenav} vs {baseline} = {ratio} (target {target}: {verdict})")

    def pairs(self, normal: int) -> int:
        return max(3, normal // 4) if self.quick else normal

    def run_cli(self, cache: Path, *args: str, env: dict[str, str] | None = None) -> harness.Run:
        return ok([self.codenav, *args], env or self.env(cache))

    # --- the benchmarks ------------------------------------------------------------------------

    def prepare_warm_cache(self, offline: bool) -> None:
        self.warm_cache.mkdir()
        if offline:
            return
        log(f"indexing {EXPRESS} and {REQUESTS} (discovering the endpoints from npm and pip)")
        self.run_cli(self.warm_cache, "files", EXPRESS, *WAIT)
        self.run_cli(self.warm_cache, "files", REQUESTS, *WAIT)

    def warm_tools(self) -> None:
        env = self.env(self.warm_cache)
        calls = {
            "read": ("read", EXPRESS, READ_PATH),
            "files": ("files", EXPRESS),
            "grep": ("grep", EXPRESS, *GREP),
        }
        for installer, venv in self.installs.items():
            codenav, baseline = str(venv / "bin" / "codenav"), [str(venv / "bin" / "python"), "-c", "pass"]
            for name, args in calls.items():
                pair = harness.compare(lambda a=args, c=codenav: ok([c, *a], env),
                                       lambda b=baseline: harness.run(b, env=env), self.pairs(60), warmup=2)
                self._ratio_row(f"warm `codenav {name}` {EXPRESS} ({installer}-installed)", pair,
                                "`python -c pass`", 1.25)
        # What the launcher pip writes for an entry point costs by itself (it imports `re` first):
        # the cost codenav's own script (bin/codenav) spares every call.
        baseline = [self.python, "-c", "pass"]
        launcher = [self.python, "-c", "import re, sys"]
        pair = harness.compare(lambda: harness.run(launcher, env=env), lambda: harness.run(baseline, env=env),
                               self.pairs(60), warmup=2)
        self._ratio_row("(reference) an entry-point launcher alone, as pip writes one: `python -c 'import re, sys'`", pair,
                        "`python -c pass`", None)

    def cold_npm(self) -> None:
        def codenav() -> harness.Run:
            return self.run_cli(self.fresh_cache(), "files", EXPRESS, *WAIT)

        def npm() -> harness.Run:
            # A fresh npm cache per run: npm starts as cold as codenav does (no packument, no
            # tarball); the update notifier is off so npm makes no request beyond the package's.
            npm_cache, dest = self.fresh_dir("npm-cache"), self.fresh_dir("npm-pack")
            result = harness.run(["npm", "pack", EXPRESS.split(":", 1)[1], "--cache", str(npm_cache),
                                  "--pack-destination", str(dest), "--no-update-notifier", "--loglevel=error"],
                                 env=self.base_env)
            if result.status != 0:
                raise RuntimeError(f"npm pack exited {result.status}")
            return result

        runs = harness.rotate({"codenav": codenav, "npm": npm, "raw": self.raw_fetch(EXPRESS)}, self.pairs(7))
        self._ratio_row(f"cold `codenav files {EXPRESS}`", harness.Pair(runs["codenav"], runs["npm"]),
                        "`npm pack express@4.21.2` (fresh --cache)", 0.5)
        self._ratio_row(f"cold `codenav files {EXPRESS}`, against its two documents", harness.Pair(runs["codenav"], runs["raw"]),
                        "the version document and the tarball by `http.client` (bench/rawfetch.py)", 2.5)

    def raw_fetch(self, spec: str) -> Callable[[], harness.Run]:
        """A runner of bench/rawfetch.py for the two documents a cold call of ``spec`` fetches (the
        registry's document for the version, then the artifact), as codenav resolved them."""
        import json

        code = ("import json, sys\n"
                "from codenav import registries\nfrom codenav.targets import from_args, parse_spec\n"
                "t = from_args(parse_spec(sys.argv[1])); r = registries.load(t.registry).module\n"
                "a = r.resolve(t.name, t.version)\n"
                "doc = (r.packument_url(r.endpoint(), t.name) + '/' + t.version, 'application/json') "
                "if t.registry == 'npm' else (r.endpoint() + t.name + '/', r.ACCEPT)\n"
                "print(json.dumps([doc[0], doc[1], a.url]))")
        found = subprocess.run([self.python, "-c", code, spec], env=self.env(self.warm_cache), capture_output=True,
                               text=True, check=True).stdout
        document, accept, artifact = json.loads(found)
        argv = [self.python, str(HERE / "rawfetch.py"), "--accept", accept, document, artifact]

        def raw() -> harness.Run:
            result = harness.run(argv, env=self.base_env)
            if result.status != 0:
                raise RuntimeError("bench/rawfetch.py failed")
            return result

        return raw

    def cold_many(self) -> None:
        """A cold listing of 43,010 files against what a person runs to see them: ``npm pack``
        (fresh npm cache) then ``tar xzf`` of the same tarball, timed as one."""
        spec = MANY_FILES.split(":", 1)[1]

        def codenav() -> harness.Run:
            cache = self.fresh_cache()
            result = self.run_cli(cache, "files", MANY_FILES, *WAIT)
            # The indexer goes on deriving the late sidecars (the symbol index) after the listing
            # is answered; wait for it, untimed, so it does not slow the baseline's next run.
            wait_for_indexers(cache)
            return result

        def npm_and_tar() -> harness.Run:
            npm_cache, dest, tree = self.fresh_dir("npm-cache"), self.fresh_dir("npm-pack"), self.fresh_dir("untar")
            pack = harness.run(["npm", "pack", spec, "--cache", str(npm_cache), "--pack-destination", str(dest),
                                "--no-update-notifier", "--loglevel=error"], env=self.base_env)
            tarballs = list(dest.glob("*.tgz"))
            if pack.status != 0 or len(tarballs) != 1:
                raise RuntimeError(f"npm pack exited {pack.status}")
            untar = harness.run(["tar", "xzf", str(tarballs[0]), "-C", str(tree)], env=self.base_env)
            if untar.status != 0:
                raise RuntimeError(f"tar xzf exited {untar.status}")
            return harness.Run(pack.wall + untar.wall, pack.cpu + untar.cpu, max(pack.max_rss_kib, untar.max_rss_kib), 0)

        pair = harness.compare(codenav, npm_and_tar, self.pairs(5), warmup=1)
        self._ratio_row(f"cold `codenav files {MANY_FILES}` (43,010 files)", pair,
                        f"`npm pack {spec}` (fresh --cache) + `tar xzf` of it", 1.0)

    def cold_pypi(self) -> None:
        def codenav() -> harness.Run:
            return self.run_cli(self.fresh_cache(), "files", REQUESTS, *WAIT)

        def pip() -> harness.Run:
            result = harness.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-cache-dir", "-q",
                                  "-d", str(self.fresh_dir("pip-download")), "requests==2.32.3"], env=self.base_env)
            if result.status != 0:
                raise RuntimeError(f"pip download exited {result.status}")
            return result

        runs = harness.rotate({"codenav": codenav, "pip": pip, "raw": self.raw_fetch(REQUESTS)}, self.pairs(7))
        self._ratio_row(f"cold `codenav files {REQUESTS}`", harness.Pair(runs["codenav"], runs["pip"]),
                        "`pip download --no-deps --no-cache-dir requests==2.32.3`", 0.3)
        self._ratio_row(f"cold `codenav files {REQUESTS}`, against its two documents",
                        harness.Pair(runs["codenav"], runs["raw"]),
                        "the project page and the wheel by `http.client` (bench/rawfetch.py)", 2.5)

    def mcp(self) -> None:
        """Sequential read_file calls on one stdio session; with ``--baseline-checkout`` the other
        checkout's server is measured in the same run, the two alternating session by session."""
        calls = 500 if self.quick else 3000
        arguments = {"registry": "npm", "package_name": "express", "version": "4.21.2", "path": READ_PATH}
        servers = {"this checkout": str(self.installs["pip"] / "bin" / "codenav")}
        if self.baseline is not None:
            servers[f"the baseline checkout ({self.baseline_name})"] = str(self.baseline / "bin" / "codenav")
        loads: dict[str, list[mcp_load.Load]] = {name: [] for name in servers}
        rounds = 2 if self.quick else 4
        for index in range(rounds if self.baseline is not None else 1):
            order = list(servers) if index % 2 == 0 else list(servers)[::-1]
            for name in order:
                loads[name].append(mcp_load.read_file_load([servers[name], "mcp"], self.env(self.warm_cache), arguments,
                                                           calls=calls, warmup=100))
        for name, done in loads.items():
            rate = statistics.median(load.calls_per_second for load in done)
            latencies = [ms for load in done for ms in load.latencies_ms]
            p50, p99 = statistics.median(latencies), harness.percentile(latencies, 99)
            met = rate >= 1000 and p99 <= 5
            self.row(f"MCP: {calls} sequential `read_file` calls, one stdio session ({name}; median of "
                     f"{len(done)} session{'s' if len(done) > 1 else ''})",
                     f"{rate:.0f} calls/s, p50 {p50:.2f} ms, p99 {p99:.2f} ms", "—", "—", "≥ 1000 calls/s, p99 ≤ 5 ms",
                     met)

    def indexer_rss(self) -> None:
        """The indexer's own peak RSS (wait4 of ``python -m codenav.cache.indexer JOB`` run
        directly: a cold CLI call no longer waits for the late sidecars, so its rusage would
        miss them), the whole job: resolve, download, extract, publish, symbol index."""
        import json

        for spec in RSS_TARGETS:
            runs = []
            for _ in range(1 if self.quick else 2):
                cache = self.fresh_cache()
                env = self.env(cache)
                job = subprocess.run(
                    [self.python, "-c", "import json, sys\n"
                     "from codenav.cache import aliases\nfrom codenav.targets import from_args, parse_spec\n"
                     "t = from_args(parse_spec(sys.argv[1])); alias, ttl = aliases.alias_of(t)\n"
                     "print(json.dumps({'kind': 'package', 'registry': t.registry, 'name': t.name, "
                     "'version': t.version, 'ttl': ttl, 'alias': alias, 'progressUntil': None}))", spec],
                    env=env, capture_output=True, text=True, check=True).stdout.strip()
                json.loads(job)
                runs.append(ok([self.python, "-m", "codenav.cache.indexer", job], env))
            peak = max(r.max_rss_kib for r in runs) / 1024
            wall = statistics.median(r.wall for r in runs)
            self.row(f"peak RSS of the indexer, {spec} (resolve to symbol index)",
                     f"{peak:.1f} MiB ({wall:.1f} s)", "—", "—", "≤ 80 MiB", peak <= 80)

    def big_tree(self) -> None:
        from tests.fakes.http import FakeServer
        from tests.fakes.npm import FakeNpm

        files = bigtree.tree_files()
        log(f"building a {len(files)}-file package and repository")
        baseline = [self.python, "-c", "pass"]
        with FakeServer() as server:
            registry = FakeNpm(server)
            registry.publish("bench-tree", "1.0.0", files)
            cache = self.fresh_dir("tree-cache")
            env = self.env(cache, CODENAV_NPM_REGISTRY=registry.url)
            self.run_cli(cache, "files", "npm:bench-tree@1.0.0", *WAIT, env=env)
        # The registry is gone: a warm listing must not need it.
        args = ["files", "npm:bench-tree@1.0.0"]
        out = str(self.work / "listing.txt")
        check = harness.run([self.codenav, *args], env=env, stdout=out)
        lines = Path(out).read_text().count("\n")
        if check.status != 0 or lines != len(files):
            raise RuntimeError(f"the warm listing printed {lines} lines (exit {check.status})")
        for installer, venv in self.installs.items():
            codenav, baseline = str(venv / "bin" / "codenav"), [str(venv / "bin" / "python"), "-c", "pass"]
            pair = harness.compare(lambda c=codenav: ok([c, *args], env),
                                   lambda b=baseline: harness.run(b, env=env), self.pairs(40), warmup=2)
            self._ratio_row(f"warm `codenav files` of a {len(files)}-file npm package, full plain listing "
                            f"({installer}-installed)", pair, "`python -c pass`", 1.5)

        repo = self.work / "tree-repo"
        commit = bigtree.git_repo(repo, files)
        cache = self.fresh_dir("git-cache")
        env = self.env(cache)
        git_args = ["files", "--repo-url", str(repo), "--git-ref", commit]
        self.run_cli(cache, *git_args, *WAIT, env=env)
        pair = harness.compare(lambda: ok([self.codenav, *git_args], env),
                               lambda: harness.run(baseline, env=env), self.pairs(40), warmup=2)
        self._ratio_row("(reference) the same listing of the tree as a git repository, `--git-ref <full sha>` "
                        "(pip-installed)", pair, "`python -c pass`", None)

    def locked(self) -> None:
        """A warm `codenav read npm:NAME PATH` with no version inside a project whose 5 MB
        package-lock.json pins it: the lockfile's answer comes from the memo, not a parse."""
        import json

        from tests.fakes.http import FakeServer
        from tests.fakes.npm import FakeNpm

        project = self.work / "locked-project"
        project.mkdir()
        packages = {"": {"name": "app", "dependencies": {"bench-locked": "^1.0.0"}},
                    "node_modules/bench-locked": {"version": "1.0.0", "resolved": "x", "integrity": "x"}}
        for n in range(28000):  # about 5 MB of ordinary transitive entries
            packages[f"node_modules/dep-{n}/node_modules/sub-{n}"] = {
                "version": f"{n % 9}.{n % 7}.{n % 5}", "resolved": f"https://example.invalid/sub-{n}.tgz",
                "integrity": "sha512-" + "A" * 86 + "=="}
        lock = json.dumps({"name": "app", "lockfileVersion": 3, "requires": True, "packages": packages})
        (project / "package-lock.json").write_text(lock)
        (project / "package.json").write_text(json.dumps({"name": "app", "dependencies": {"bench-locked": "^1"}}))
        log(f"a project with a {len(lock) / 2**20:.1f} MiB package-lock.json")
        with FakeServer() as server:
            registry = FakeNpm(server)
            registry.publish("bench-locked", "1.0.0", {"index.js": b"module.exports = 1;\n"})
            cache = self.fresh_dir("locked-cache")
            env = self.env(cache, CODENAV_NPM_REGISTRY=registry.url, CODENAV_PROJECT_DIR=str(project))
            self.run_cli(cache, "read", "npm:bench-locked", "index.js", *WAIT, env=env)
            args = ["read", "npm:bench-locked", "index.js"]
            for installer, venv in self.installs.items():
                codenav, baseline = str(venv / "bin" / "codenav"), [str(venv / "bin" / "python"), "-c", "pass"]
                pair = harness.compare(lambda c=codenav: ok([c, *args], env),
                                       lambda b=baseline: harness.run(b, env=env), self.pairs(40), warmup=2)
                self._ratio_row(f"warm `codenav read` with no version in a project with a "
                                f"{len(lock) / 2**20:.0f} MB package-lock.json ({installer}-installed)", pair,
                                "`python -c pass`", 1.5)

    def grep(self) -> None:
        """grep_repo in-process and by the CLI against rg on four trees (bench/grep_repo.py)."""
        self.extra.append(grep_repo.run(self.python, self.codenav, self.warm_cache, self.fresh_dir("grep"),
                                        self.pairs(15)))

    def deps(self) -> None:
        """`codenav grep --all-deps` over an npm and a PyPI project, warm against rg over the package
        manager's tree, cold against the package manager's fetch (bench/deps.py)."""
        self.extra.append(deps.run(self.python, self.codenav, self.fresh_dir("deps"), self.pairs(5),
                                   1 if self.quick else 3))

    def tokens(self) -> None:
        """What an answer costs a model: cl100k tokens of the TEXT answer against the plain CLI."""
        report, mean, catalog = tokens.run(self.codenav, self.env(self.warm_cache))
        self.row("answer tokens, TEXT / plain CLI (geometric mean over tools)", f"catalog {catalog:,} tokens",
                 "plain CLI output of the same calls", f"{mean:.2f}×", "≤ 1.2× (catalog ≤ 4,500)",
                 mean <= 1.2 and catalog <= 4500)
        self.extra.append(report)

    def _ratio_row(self, what: str, pair: harness.Pair, baseline: str, limit: float | None) -> None:
        ratio = pair.median_ratio()
        low, high = min(pair.ratios), max(pair.ratios)
        self.row(what, _ms(harness.Pair.median_wall(pair.a)),
                 f"{baseline}: {_ms(harness.Pair.median_wall(pair.b))}",
                 f"{ratio:.2f}× ({low:.2f}–{high:.2f}, {len(pair.ratios)} pairs)",
                 "—" if limit is None else f"≤ {limit:g}×", None if limit is None else ratio <= limit)

    def table(self) -> str:
        head = ("benchmark", "codenav (median wall)", "baseline, same run (median wall)", "ratio (median of pairs)",
                "target", "met")
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        return "\n".join(lines)


# name (for --only) -> Bench method, in the order of the table
BENCHMARKS = {"warm": "warm_tools", "mcp": "mcp", "cold-npm": "cold_npm", "cold-many": "cold_many",
              "cold-pypi": "cold_pypi", "rss": "indexer_rss", "tree": "big_tree", "locked": "locked",
              "grep": "grep", "deps": "deps", "tokens": "tokens"}


def wait_for_indexers(cache: Path) -> None:
    """Block until no indexer holds a lock of ``cache`` (they hold it to the last sidecar)."""
    import fcntl

    for lock in sorted((cache / "locks").glob("*.lock")):
        with open(lock, "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def pip_install(path: Path, reuse: bool) -> None:
    if reuse and path.exists():
        subprocess.run([str(path / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall",
                        "--disable-pip-version-check", str(ROOT)], check=True)
        return
    install_checkout(ROOT, path)


def install_checkout(checkout: Path, path: Path) -> None:
    log(f"pip: installing {checkout} into a fresh virtual environment ({path})")
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    subprocess.run([str(path / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    str(checkout)], check=True)


def uv_install(path: Path, work: Path) -> bool:
    """codenav installed by uv into ``path``; False when uv cannot be had."""
    uv = shutil.which("uv")
    try:
        if uv is None:
            log("uv: not on PATH, installing it from PyPI into the work directory")
            tool = work / "uv-tool"
            subprocess.run([sys.executable, "-m", "venv", str(tool)], check=True)
            subprocess.run([str(tool / "bin" / "python"), "-m", "pip", "install", "--quiet",
                            "--disable-pip-version-check", "uv"], check=True)
            uv = str(tool / "bin" / "uv")
        log(f"uv: installing this checkout into a fresh virtual environment ({path})")
        subprocess.run([uv, "venv", "--quiet", "--python", sys.executable, str(path)], check=True)
        subprocess.run([uv, "pip", "install", "--quiet", "--compile-bytecode", "--python", str(path / "bin" / "python"),
                        str(ROOT)], check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        log(f"uv: unavailable ({exc}); its rows are left out")
        return False
    return True


def _version(argv: list[str]) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout.strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "unavailable"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a quarter of the repeats")
    parser.add_argument("--offline", action="store_true", help="only the benchmarks that need no registry")
    parser.add_argument("--venv", type=Path, help="reuse this pip virtual environment (codenav is reinstalled)")
    parser.add_argument("--no-uv", action="store_true", help="leave out the uv-installed rows")
    parser.add_argument("--only", metavar="NAMES", help=f"a comma-separated subset of: {', '.join(BENCHMARKS)}")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (caches, venv) for a look")
    parser.add_argument("--baseline-checkout", type=Path, metavar="DIR",
                        help="another checkout (e.g. main's) whose MCP server is measured in the same run")
    ns = parser.parse_args()
    chosen = [name for name in (ns.only.split(",") if ns.only else BENCHMARKS) if not ns.offline or name in ("tree", "locked")]
    unknown = sorted(set(chosen) - set(BENCHMARKS))
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)}")

    work = Path(tempfile.mkdtemp(prefix="codenav-bench-"))
    try:
        installs = {"pip": ns.venv or work / "venv-pip"}
        pip_install(installs["pip"], reuse=ns.venv is not None)
        # Only the warm rows compare installers (the launcher is all that differs).
        if not ns.no_uv and {"warm", "tree", "locked"} & set(chosen) and uv_install(work / "venv-uv", work):
            installs["uv"] = work / "venv-uv"
        bench = Bench(work, installs, ns.quick)
        if ns.baseline_checkout is not None and "mcp" in chosen:
            bench.baseline, bench.baseline_name = work / "venv-baseline", str(ns.baseline_checkout)
            install_checkout(ns.baseline_checkout, bench.baseline)
        started = time.monotonic()
        bench.prepare_warm_cache(ns.offline)
        for name, method in BENCHMARKS.items():
            if name in chosen:
                getattr(bench, method)()
        print(f"codenav benchmarks · {platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} "
              f"{platform.release()} · Python {platform.python_version()} · "
              f"{_version(['npm', '--version']) and 'npm ' + _version(['npm', '--version'])} · "
              f"{_version([sys.executable, '-m', 'pip', '--version']).split(' from ')[0]}")
        print(f"codenav: this checkout installed by {' and by '.join(installs)} into fresh virtual environments "
              "(bytecode compiled at install), run as the `codenav` command the installer writes; each baseline "
              f"on the same interpreter, alternating with codenav run by run; {time.monotonic() - started:.0f} s")
        print()
        if bench.rows:
            print(bench.table())
        for report in bench.extra:
            print()
            print(report)
        return 0
    finally:
        if ns.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
