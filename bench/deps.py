"""Searching the project's dependencies (issue 23 item 4): `codenav grep --all-deps` against the
package manager's own tree, warm and cold, for an npm project and a PyPI project.

    python bench/deps.py                       # both projects; needs npm, pip and the registries
    python bench/deps.py --only npm --warm-pairs 3 --cold-pairs 1
    python bench/run.py --only deps            # the same, from bench/run.py's installation

The projects are data: ``bench/data/deps-npm`` (express 4.21.2 + eslint 9.17.0, pinned, and the
package-lock.json npm 11 wrote for them: 163 entries, 157 distinct name@version) and
``bench/data/deps-pypi`` (ten pinned direct dependencies; the uv.lock is written at the start of
each run by ``uv lock --exclude-newer`` with a fixed date, so it resolves the same 33 packages
every time without a lockfile that spells the index's address being committed).

For each project, in one run:

- cold, alternating pair by pair (bench/harness.py): ``codenav grep --all-deps RARE PROJECT``
  on a fresh ``CODENAV_CACHE_DIR`` holding only the discovered endpoints (the fetch of the whole
  locked tree), against the package manager fetching the same tree cold: ``npm ci
  --ignore-scripts --no-audit`` with a fresh ``--cache``, or ``pip download --no-deps
  --no-cache-dir -r requirements.txt`` (the uv.lock exported by ``uv export``) into a fresh
  directory, pip pointed at the index codenav discovered and nothing else (this machine's pip
  configuration adds local file indexes and find-links, which would let pip skip the network).
  After each codenav run the bench waits, untimed, for the indexers' late sidecars (as
  bench/run.py's cold-many does) and reports that wait beside;
- warm, alternating pair by pair: ``codenav grep --all-deps [-s] PATTERN PROJECT`` over the warm
  cache against ``rg -j1 -uu --no-heading -n [-F] [-i] PATTERN TREE`` over the package
  manager's tree (``node_modules`` from ``npm ci``; every downloaded wheel unzipped into its own
  folder), both writing stdout to a file (as bench/grep_repo.py does: rg treats /dev/null as
  "stop at the first match per file"). The matching lines are compared as sets of (package,
  path, line number): rg's paths are mapped to the package's name@version, one copy per
  name@version (npm installs a few packages twice at one version), npm's hidden lockfile
  ``node_modules/.package-lock.json`` left out and counted apart.

Registry endpoints are never written here: codenav discovers them from npm and pip, as for a
user, and npm and uv use their own configuration.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import grep_repo  # noqa: E402
import harness  # noqa: E402

DATA = HERE / "data"
NPM_PROJECT = DATA / "deps-npm"
PYPI_PROJECT = DATA / "deps-pypi"
EXCLUDE_NEWER = "2026-12-01T00:00:00Z"  # uv lock resolves as of this date: the same 33 packages each run
WAIT = ("--wait", "60000")
COLD_PATTERN = "XYZZY_codenav_bench_no_match"  # matches nothing: the cold run is the fetch and a scan
# (class, pattern, case-sensitive), chosen by their rg counts
PATTERNS = {
    "npm": (("rare literal", "createRequire", True), ("common literal", "function", True),
            ("case-insensitive literal", "deprecated", False)),
    "pypi": (("rare literal", "get_or_create", True), ("common literal", "return", True),
             ("case-insensitive literal", "deprecated", False)),
}
_ENDPOINT_VARS = grep_repo._ENDPOINT_VARS
_LINE = re.compile(rb"^(.*?):(\d+):")


def log(message: str) -> None:
    sys.stderr.write(f"bench: {message}\n")
    sys.stderr.flush()


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def checked(argv: list[str], env: dict[str, str], stdout: str = os.devnull, allowed: tuple = (0,)) -> harness.Run:
    result = harness.run(argv, env=env, stdout=stdout)
    if result.status not in allowed:
        raise RuntimeError(f"{' '.join(argv)} exited {result.status}")
    return result


def wait_for_indexers(cache: Path) -> None:
    """Block until no indexer holds a lock of ``cache`` (they hold it to the last sidecar)."""
    import fcntl

    for lock in sorted((cache / "locks").glob("*.lock")):
        with open(lock, "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)


class Project:
    """One project: its directory (what codenav is given), how its package manager fetches it
    cold into a directory, and how that directory's paths map to name@version."""

    registry = ""

    def __init__(self, work: Path, env: dict[str, str]) -> None:
        self.work, self.env = work, env
        self.dir = work / f"{self.registry}-project"
        self._fresh = 0

    def fresh(self, what: str) -> Path:
        self._fresh += 1
        path = self.work / f"{self.registry}-{what}-{self._fresh}"
        path.mkdir()
        return path

    def fetch(self) -> tuple[harness.Run, Path]:
        """The package manager's cold fetch: its timing, and the tree rg searches."""
        raise NotImplementedError

    def package_of(self, path: str) -> tuple[str, str] | None:
        """(package, path inside it) of a path rg printed; None for a file of no package."""
        raise NotImplementedError


class NpmProject(Project):
    registry = "npm"

    def __init__(self, work: Path, env: dict[str, str]) -> None:
        super().__init__(work, env)
        shutil.copytree(NPM_PROJECT, self.dir)
        lock = json.loads((self.dir / "package-lock.json").read_text())
        self.specs = {key: f"npm:{entry.get('name') or key.rpartition('node_modules/')[2]}@{entry['version']}"
                      for key, entry in lock["packages"].items() if key}
        self.entries = len(self.specs)

    def fetch(self) -> tuple[harness.Run, Path]:
        dest, npm_cache = self.fresh("ci"), self.fresh("npm-cache")
        for name in ("package.json", "package-lock.json"):
            shutil.copy(self.dir / name, dest / name)
        run = checked(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--no-update-notifier",
                       "--loglevel=error", "--cache", str(npm_cache), "--prefix", str(dest)], self.env)
        shutil.rmtree(npm_cache)
        return run, dest / "node_modules"

    def package_of(self, path: str) -> tuple[str, str] | None:
        # node_modules/a/node_modules/@s/b/lib/x.js -> key node_modules/a/node_modules/@s/b
        parts = ("node_modules/" + path).split("/")
        cut = max(i for i, part in enumerate(parts) if part == "node_modules")
        width = 3 if parts[cut + 1].startswith("@") else 2
        key = "/".join(parts[:cut + width])
        spec = self.specs.get(key)
        return None if spec is None else (spec, "/".join(parts[cut + width:]))


class PypiProject(Project):
    registry = "pypi"

    def __init__(self, work: Path, env: dict[str, str], uv: str, index: str) -> None:
        super().__init__(work, env)
        shutil.copytree(PYPI_PROJECT, self.dir)
        subprocess.run([uv, "lock", "--quiet", "--exclude-newer", EXCLUDE_NEWER, "--project", str(self.dir)],
                       env=env, check=True)
        pinned = subprocess.run([uv, "export", "--quiet", "--frozen", "--format", "requirements-txt", "--no-hashes",
                                 "--no-emit-project", "--no-header", "--no-annotate", "--project", str(self.dir)],
                                env=env, check=True, capture_output=True, text=True).stdout
        self.requirements = self.work / "requirements.txt"
        self.requirements.write_text(pinned)
        self.entries = sum(1 for line in pinned.splitlines() if "==" in line)
        # pip pointed at the index codenav discovered, and at nothing else
        self.pip_env = {k: v for k, v in env.items() if not k.startswith("PIP_") or k == "PIP_CERT"}
        self.pip_env.update(PIP_CONFIG_FILE=os.devnull, PIP_INDEX_URL=index, PIP_DISABLE_PIP_VERSION_CHECK="1")
        self.folders: dict[str, str] = {}

    def fetch(self) -> tuple[harness.Run, Path]:
        dest = self.fresh("download")
        run = checked([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-cache-dir",
                       "-r", str(self.requirements), "-d", str(dest)], self.pip_env)
        return run, dest

    def unpack(self, downloads: Path) -> Path:
        """Every wheel unzipped into a folder of its own: the tree rg searches."""
        tree = self.fresh("unzipped")
        for wheel in sorted(downloads.glob("*.whl")):
            name, version = wheel.name.split("-")[:2]
            self.folders[wheel.stem] = f"pypi:{re.sub(r'[-_.]+', '-', name).lower()}@{version}"
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(tree / wheel.stem)
        others = sorted(p.name for p in downloads.iterdir() if p.suffix != ".whl")
        if others:
            log(f"pip downloaded files that are not wheels, not unpacked: {', '.join(others)}")
        return tree

    def package_of(self, path: str) -> tuple[str, str] | None:
        folder, _, rest = path.partition("/")
        spec = self.folders.get(folder)
        return None if spec is None else (spec, rest)


def lines_of(path: str) -> list[bytes]:
    with open(path, "rb") as handle:
        return handle.read().splitlines()


def codenav_matches(path: str) -> set[tuple[str, str, int]]:
    found = set()
    for line in lines_of(path):
        spec, _, rest = line.partition(b" ")
        m = _LINE.match(rest)
        if m:
            found.add((spec.decode(), m.group(1).decode("utf-8", "surrogateescape"), int(m.group(2))))
    return found


def rg_matches(path: str, project: Project, tree: Path) -> tuple[set[tuple[str, str, int]], int, int]:
    """(rg's matches as (package, path, line), one copy per name@version; rg's output lines;
    lines in files of no package)."""
    found, lines, outside = set(), 0, 0
    prefix = len(str(tree)) + 1
    for line in lines_of(path):
        m = _LINE.match(line)
        if not m:
            continue
        lines += 1
        where = project.package_of(m.group(1).decode("utf-8", "surrogateescape")[prefix:])
        if where is None:
            outside += 1
        else:
            found.add((where[0], where[1], int(m.group(2))))
    return found, lines, outside


def pair_text(pair: harness.Pair) -> str:
    return (f"{pair.median_ratio():.2f}× ({min(pair.ratios):.2f}–{max(pair.ratios):.2f}, "
            f"{len(pair.ratios)} pairs)")


def measure(project: Project, codenav: str, rg: str, warm_cache: Path, endpoints: Path, warm_pairs: int,
            cold_pairs: int) -> list[str]:
    """The project's rows: cold, then warm."""
    rows = []
    grep_cold = [codenav, "grep", "--all-deps", "-s", COLD_PATTERN, str(project.dir), *WAIT]
    sidecars: list[float] = []
    trees: list[Path] = []

    def cold_codenav() -> harness.Run:
        cache = project.fresh("cache")
        (cache / "state").mkdir()
        shutil.copy(endpoints, cache / "state" / "endpoints.json")
        run = checked(grep_cold, {**project.env, "CODENAV_CACHE_DIR": str(cache)}, allowed=(1,))
        started = time.perf_counter()
        wait_for_indexers(cache)
        sidecars.append(time.perf_counter() - started)
        shutil.rmtree(cache)
        return run

    def cold_baseline() -> harness.Run:
        run, tree = project.fetch()
        trees.append(tree)
        return run

    log(f"{project.registry}: cold, {cold_pairs} pairs")
    pair = harness.compare(cold_codenav, cold_baseline, cold_pairs, warmup=0)
    baseline = ("`npm ci --ignore-scripts --no-audit`, fresh --cache" if project.registry == "npm"
                else "`pip download --no-deps --no-cache-dir -r requirements.txt`")
    rows.append(f"| {project.registry} | cold: the whole locked tree, `codenav grep --all-deps` on a fresh cache | "
                f"{_ms(harness.Pair.median_wall(pair.a))} (+{_ms(statistics.median(sidecars))} late sidecars, "
                f"untimed) | {baseline}: {_ms(harness.Pair.median_wall(pair.b))} | — | {pair_text(pair)} | ≤ 1× | "
                f"{'yes' if pair.median_ratio() <= 1 else '**no**'} |")

    tree = trees[-1]
    if isinstance(project, PypiProject):
        tree = project.unpack(tree)
    for old in trees[:-1]:
        shutil.rmtree(old.parent if old.name == "node_modules" else old)
    env = {**project.env, "CODENAV_CACHE_DIR": str(warm_cache)}
    out = str(project.work / "out.txt")
    for kind, pattern, case_sensitive in PATTERNS[project.registry]:
        cli = [codenav, "grep", "--all-deps", *(["-s"] if case_sensitive else []), pattern, str(project.dir)]
        rga = [rg, "-j1", "-uu", "--no-heading", "-n", "-F", *([] if case_sensitive else ["-i"]), "-e", pattern,
               str(tree)]
        checked(cli, env, out, allowed=(0, 1))
        ours = codenav_matches(out)
        checked(rga, env, out, allowed=(0, 1))
        theirs, rg_lines, outside = rg_matches(out, project, tree)

        def run_rg(argv: list[str] = rga) -> harness.Run:
            return checked(argv, env, out, allowed=(0, 1))

        log(f"{project.registry}: warm {pattern!r}, {warm_pairs} pairs")
        pair = harness.compare(lambda a=cli: checked(a, env, out, allowed=(0, 1)), run_rg, warm_pairs, warmup=1)
        same = "same set" if ours == theirs else (f"**differ**: {len(ours - theirs)} only codenav, "
                                                  f"{len(theirs - ours)} only rg")
        rows.append(f"| {project.registry} | warm `codenav grep --all-deps{' -s' if case_sensitive else ''} "
                    f"{pattern}` ({kind}) | {_ms(harness.Pair.median_wall(pair.a))} | "
                    f"`rg -j1 -uu -F{'' if case_sensitive else ' -i'}`: {_ms(harness.Pair.median_wall(pair.b))} | "
                    f"codenav {len(ours)} / rg {rg_lines} ({len(theirs)} one copy per name@version"
                    f"{f', {outside} outside any package' if outside else ''}): {same} | {pair_text(pair)} | ≤ 2× | "
                    f"{'yes' if pair.median_ratio() <= 2 else '**no**'} |")
        if ours != theirs:
            for which, extra in (("codenav", sorted(ours - theirs)[:5]), ("rg", sorted(theirs - ours)[:5])):
                for item in extra:
                    log(f"only {which}: {item}")
    return rows


def machine(python: str, env: dict[str, str]) -> str:
    startup = statistics.median(harness.run([python, "-c", "pass"], env=env).wall for _ in range(9))
    load = os.getloadavg()
    return (f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()} · Python "
            f"{platform.python_version()} · npm {grep_repo_version(['npm', '--version'])} · load average "
            f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} · `python -c pass` {_ms(startup)}")


def grep_repo_version(argv: list[str]) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "unavailable"


def install_uv(python: str) -> str:
    uv = Path(python).parent / "uv"
    if not uv.exists():
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "uv"], check=True)
    return str(uv)


def run(python: str, codenav: str, work: Path, warm_pairs: int, cold_pairs: int, only: list[str] | None = None) -> str:
    """Both projects (or ``only`` some) measured in ``work`` with ``codenav``; the report (Markdown)."""
    rg, rg_from = grep_repo.install_ripgrep(python)
    env = {k: v for k, v in os.environ.items() if k not in _ENDPOINT_VARS}
    env["CODENAV_SEARCH_TIMEOUT"] = "600"  # whole searches, never a cut one
    warm_cache = work / "deps-warm-cache"
    started = time.monotonic()
    before = machine(python, env)
    rows = []
    chosen = [name for name in ("npm", "pypi") if not only or name in only]
    endpoints = warm_cache / "state" / "endpoints.json"
    for name in chosen:
        if name == "npm":
            project: Project = NpmProject(work, env)
        else:
            if "pypi" not in (json.loads(endpoints.read_text()) if endpoints.exists() else {}):
                # codenav discovers the index from pip, as for a user
                checked([codenav, "files", "pypi:six@1.17.0", *WAIT], {**env, "CODENAV_CACHE_DIR": str(warm_cache)})
            index = json.loads(endpoints.read_text())["pypi"]
            project = PypiProject(work, env, install_uv(python), index)
        log(f"{name}: {project.entries} locked packages; filling the warm cache")
        filled = subprocess.run([codenav, "grep", "--all-deps", "-s", COLD_PATTERN, str(project.dir), *WAIT],
                                env={**env, "CODENAV_CACHE_DIR": str(warm_cache)}, capture_output=True, text=True)
        if filled.returncode != 1 or "skipped" in filled.stderr:
            raise RuntimeError(f"filling the warm cache: exit {filled.returncode}: {filled.stderr.strip()[-500:]}")
        wait_for_indexers(warm_cache)
        listed = subprocess.run([codenav, "deps", "--all", "--project", str(project.dir)],
                                env={**env, "CODENAV_CACHE_DIR": str(warm_cache)}, capture_output=True, text=True)
        log(f"{name}: codenav deps --all lists {len(listed.stdout.split())} packages")
        rows += measure(project, codenav, rg, warm_cache, endpoints, warm_pairs, cold_pairs)
    head = ("project", "benchmark", "codenav (median wall)", "baseline, same run (median wall)",
            "matching lines", "ratio (median of pairs)", "target", "met")
    table = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head), *rows]
    return "\n".join([f"Machine before: {before}", f"Machine after: {machine(python, env)}",
                      f"ripgrep: {rg_from}; codenav: pip-installed into the bench's venv; one run of {time.monotonic() - started:.0f} s, "
                      f"{warm_pairs} warm and {cold_pairs} cold pairs, each pair alternating (ABBA)", "", *table])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warm-pairs", type=int, default=5, help="warm pairs per pattern (default 5)")
    parser.add_argument("--cold-pairs", type=int, default=3, help="cold pairs per project (default 3)")
    parser.add_argument("--only", help="npm, pypi or npm,pypi (default both)")
    parser.add_argument("--venv", type=Path, help="reuse this virtual environment (codenav is reinstalled)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory for a look")
    ns = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="codenav-bench-deps-"))
    try:
        venv = ns.venv or work / "venv"
        if ns.venv and venv.exists():
            subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps",
                            "--force-reinstall", "--disable-pip-version-check", str(ROOT)], check=True)
        else:
            grep_repo.make_venv(venv)
        print(run(str(venv / "bin" / "python"), str(venv / "bin" / "codenav"), work, ns.warm_pairs, ns.cold_pairs,
                  ns.only.split(",") if ns.only else None))
        return 0
    finally:
        if ns.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
