"""grep_repo against ripgrep (issue 13): a whole package searched in-process and by the CLI.

    python bench/grep_repo.py                    # four trees, five pattern classes; needs the registries
    python bench/grep_repo.py --pairs 5 --trees django --profile
    python bench/run.py --only grep              # the same, from bench/run.py's installation

Four trees, each indexed by codenav into the bench's cache: npm:typescript (a few big bundles),
npm:rxjs (2,277 small files), npm:date-fns (5,722 small files) and the django wheel (3,667
files, a third of them binary .mo).
Each is searched for five pattern classes — a rare literal, a common literal, a
case-insensitive literal, a regex with a literal, a regex without one — three ways, run in
turn within each repeat (the order rotating, as bench/harness.py alternates two commands):

- ``rg -j1 -uu --no-heading -n [-F] [-i] -e PATTERN TREE`` on the entry's extracted tree
  (ripgrep 14.1.0 from PyPI in the bench's own venv; /usr/bin/rg when that install fails, said
  in the output), its stdout to a file (never /dev/null, where rg stops at the first match);
- in-process, the MCP path: ``grep_repo.run`` called from a worker thread of this process, as
  ``codenav mcp`` calls it (default page of 50 matches, exact totals), the entry warm, with the
  server's settings: searched files kept in memory (``grep.keep_files_in_memory``), a regex in
  the warm ``grep_worker`` child (the first call of each case, uncounted, warms both);
- the CLI: ``codenav grep SPEC PATTERN [--regex] [-s]`` from the bench's venv, every match
  printed (plain output is unpaged, as rg's), stdout to a file.

Literal classes run rg with ``-F`` and codenav with ``-s``; the case-insensitive one rg ``-i``
and codenav's default. Ratios are of medians (codenav's median wall over rg's median wall, rg's
process start included); the geometric mean is over the five classes of a tree. Matching lines
are counted both ways (rg's output lines, codenav's ``totalMatches``), so a difference shows.
With ``--profile`` each in-process case that misses its target is run once more under cProfile
and its top functions are printed after the table.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402

RIPGREP = "ripgrep==14.1.0"
CLASSES = ("rare literal", "common literal", "case-insensitive literal", "regex with a literal", "regex without one")
NO_LITERAL = r"\b[A-Z]{3,}\b"
# spec, what it is, short name (--trees), the patterns of the five classes (chosen by their rg counts)
TREES = (
    ("npm:typescript@5.6.3", "big bundles", "typescript",
     ("createProgram", "return", "deprecated", r"function\s+\w+Node", NO_LITERAL)),
    ("npm:rxjs@7.8.2", "2,277 small files", "rxjs",
     ("animationFrames", "return", "deprecated", r"function\s+\w+Map", NO_LITERAL)),
    ("npm:date-fns@2.30.0", "5,722 small files", "date-fns",
     ("eachWeekendOfInterval", "return", "deprecated", r"function\s+\w+Week", NO_LITERAL)),
    ("pypi:django@5.2.8", "wheel, 1,226 binary .mo", "django",
     ("get_or_create", "return", "deprecated", r"def\s+get_\w+", NO_LITERAL)),
)
SMALL_FILES = ("npm:rxjs@7.8.2", "npm:date-fns@2.30.0")  # the CLI stays within 2× of rg on these (geometric mean)
BIG_FILES = "npm:typescript@5.6.3"  # the CLI within 4× of rg for these classes (issue 25)
CLI_BIG_CLASSES = ("rare literal", "common literal", "regex with a literal")
_ENDPOINT_VARS = ("CODENAV_NPM_REGISTRY", "CODENAV_PYPI_INDEX_URL", "CODENAV_NO_DISCOVERY", "CODENAV_CACHE_DIR",
                  "XDG_CACHE_HOME", "CODENAV_RESOLVE_TTL")


def log(message: str) -> None:
    sys.stderr.write(f"bench: {message}\n")
    sys.stderr.flush()


@dataclass
class Case:
    spec: str
    kind: str  # one of CLASSES
    pattern: str

    @property
    def regex(self) -> bool:
        return self.kind.startswith("regex")

    @property
    def case_sensitive(self) -> bool:
        return self.kind != "case-insensitive literal"

    def rg(self, rg: str, tree: str) -> list[str]:
        return [rg, "-j1", "-uu", "--no-heading", "-n", *([] if self.regex else ["-F"]),
                *([] if self.case_sensitive else ["-i"]), "-e", self.pattern, tree]

    def cli(self, codenav: str) -> list[str]:
        return [codenav, "grep", self.spec, self.pattern, *(["--regex"] if self.regex else []),
                *(["-s"] if self.case_sensitive else [])]

    def arguments(self) -> dict:
        registry, _, rest = self.spec.partition(":")
        name, _, version = rest.rpartition("@")
        return {"registry": registry, "package_name": name, "version": version, "pattern": self.pattern,
                "regex": self.regex, "case_sensitive": self.case_sensitive}


@dataclass
class Measured:
    case: Case
    rg: list[float]
    inproc: list[float]
    cli: list[float]
    rg_lines: int
    total: int  # in-process totalMatches
    cli_lines: int

    def ratio(self, side: list[float]) -> float:
        return statistics.median(side) / statistics.median(self.rg)

    def spread(self, side: list[float]) -> str:
        """The smallest and largest ratio of one repeat (the two ran side by side in it)."""
        ratios = [a / b for a, b in zip(side, self.rg, strict=True)]
        return f"{min(ratios):.2f}–{max(ratios):.2f}"


def install_ripgrep(python: str) -> tuple[str, str]:
    """(the rg binary, where it came from): PyPI's wheel into the venv of ``python``, else /usr/bin/rg."""
    rg = Path(python).parent / "rg"
    if not rg.exists():
        done = subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", RIPGREP],
                              capture_output=True, text=True)
        if done.returncode != 0 or not rg.exists():
            fallback = shutil.which("rg") or "/usr/bin/rg"
            log(f"{RIPGREP} could not be installed from PyPI ({done.stderr.strip()[-200:]}); using {fallback}")
            return fallback, f"{_version(fallback)} from {fallback} (the PyPI install of {RIPGREP} failed)"
    return str(rg), f"{_version(str(rg))} ({RIPGREP} from PyPI, in the bench's venv)"


def _version(rg: str) -> str:
    return subprocess.run([rg, "--version"], capture_output=True, text=True).stdout.split("\n")[0]


def index(codenav: str, env: dict[str, str], spec: str) -> str:
    """Index ``spec`` into the cache of ``env``; the entry's extracted tree."""
    out = subprocess.run([codenav, "files", spec, "--wait", "60000"], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"codenav files {spec} failed: {out.stderr.strip()}")
    # The indexer derives the late sidecars (the symbol index, the line marks) after answering:
    # wait for it, so that it does not share the 2 cores with the first measurements.
    import fcntl

    for lock in sorted(Path(env["CODENAV_CACHE_DIR"], "locks").glob("*.lock")):
        with open(lock, "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
    registry, _, rest = spec.partition(":")
    name, _, version = rest.rpartition("@")
    base = Path(env["CODENAV_CACHE_DIR"], "entries", registry, *name.split("/"))
    (entry,) = [p for p in base.iterdir() if p.name.startswith(version + "-") and (p / "manifest.json").exists()]
    return str(entry / "tree")


class InProcess:
    """grep_repo.run from one worker thread, as the MCP server's workers call it."""

    def __init__(self, cache: str) -> None:
        from concurrent.futures import ThreadPoolExecutor

        os.environ["CODENAV_CACHE_DIR"] = cache
        for name in _ENDPOINT_VARS[:3]:
            os.environ.pop(name, None)
        sys.path.insert(0, str(ROOT))
        from codenav.search import grep
        from codenav.tools import grep_repo

        grep.keep_files_in_memory()  # what `codenav mcp` does at start (its grep_worker too)
        self.tool = grep_repo
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="mcp-worker")
        self.last: dict = {}

    def call(self, arguments: dict) -> harness.Run:
        start = time.perf_counter()
        self.last = self.pool.submit(self.tool.run, dict(arguments)).result()
        return harness.Run(time.perf_counter() - start, 0.0, 0, 0)

    def profile(self, arguments: dict, top: int) -> str:
        import cProfile
        import io
        import pstats

        def profiled() -> cProfile.Profile:
            profile = cProfile.Profile()
            profile.enable()
            self.tool.run(dict(arguments))
            profile.disable()
            return profile

        out = io.StringIO()
        stats = pstats.Stats(self.pool.submit(profiled).result(), stream=out)
        stats.sort_stats("tottime").print_stats(top)
        lines = out.getvalue().splitlines()
        head = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls")), 0)
        total = next((line.strip() for line in lines if "function calls" in line), "")
        return "\n".join([total, *lines[head:]]).rstrip()


def measure(cases: list[Case], trees: dict[str, str], rg: str, codenav: str, env: dict[str, str],
            inproc: InProcess, pairs: int, work: Path) -> list[Measured]:
    results = []
    out = str(work / "out.txt")
    for case in cases:
        rg_argv, cli_argv, arguments = case.rg(rg, trees[case.spec]), case.cli(codenav), case.arguments()

        def run_rg(argv: list[str] = rg_argv) -> harness.Run:
            return harness.run(argv, env=env, stdout=out)

        def run_cli(argv: list[str] = cli_argv) -> harness.Run:
            return harness.run(argv, env=env, stdout=out)

        def run_inproc(given: dict = arguments) -> harness.Run:
            return inproc.call(given)

        # counts, and one warm-up each
        run_rg()
        rg_lines = _lines(out)
        run_cli()
        cli_lines = _lines(out)
        run_inproc()
        total = inproc.last["totalMatches"]
        sides: dict[str, list[float]] = {"rg": [], "in": [], "cli": []}
        runners = (("rg", run_rg), ("in", run_inproc), ("cli", run_cli))
        for index in range(pairs):
            order = runners if index % 2 == 0 else runners[::-1]
            for name, runner in order:
                sides[name].append(runner().wall)
        measured = Measured(case, sides["rg"], sides["in"], sides["cli"], rg_lines, total, cli_lines)
        log(f"{case.spec} {case.kind} {case.pattern!r}: rg {_ms(statistics.median(sides['rg']))}, "
            f"in-process {measured.ratio(sides['in']):.2f}×, CLI {measured.ratio(sides['cli']):.2f}× "
            f"(lines rg {rg_lines} / codenav {total}, CLI {cli_lines})")
        results.append(measured)
    return results


def _lines(path: str) -> int:
    with open(path, "rb") as handle:
        return handle.read().count(b"\n")


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def misses(m: Measured) -> list[str]:
    """The targets this case misses, in words: issue 13's in-process ones, issue 25's CLI one."""
    found = []
    ratio = m.ratio(m.inproc)
    if m.case.kind == "rare literal" and ratio >= 1:
        found.append("rare literal not faster than rg")
    if m.case.kind != "regex without one" and ratio > 3:
        found.append("literal-bearing case above 3×")
    if m.case.spec == BIG_FILES and m.case.kind in CLI_BIG_CLASSES and m.ratio(m.cli) > 4:
        found.append("CLI above 4×")
    return found


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def table(results: list[Measured]) -> str:
    head = ("tree", "class", "pattern", "matching lines rg / codenav", "rg -j1 -uu", "in-process (MCP)", "ratio",
            "CLI", "ratio", "targets missed")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    by_tree: dict[str, list[Measured]] = {}
    for m in results:
        by_tree.setdefault(m.case.spec, []).append(m)
    for spec, rows in by_tree.items():
        for m in rows:
            counts = f"{m.rg_lines} / {m.total}" + ("" if m.cli_lines == m.total else f" (CLI {m.cli_lines})")
            lines.append(f"| {spec} | {m.case.kind} | `{m.case.pattern}` | {counts} | {_ms(statistics.median(m.rg))} | "
                         f"{_ms(statistics.median(m.inproc))} | {m.ratio(m.inproc):.2f}× ({m.spread(m.inproc)}) | "
                         f"{_ms(statistics.median(m.cli))} | {m.ratio(m.cli):.2f}× ({m.spread(m.cli)}) | "
                         f"{'; '.join(misses(m)) or '—'} |")
        inproc = geomean([m.ratio(m.inproc) for m in rows])
        cli = geomean([m.ratio(m.cli) for m in rows])
        verdict = [] if inproc <= 1.5 else ["in-process geomean above 1.5×"]
        if spec in SMALL_FILES and cli > 2:
            verdict.append("CLI on the small-files tree above 2×")
        lines.append(f"| **{spec}** | **geometric mean** | | | | | **{inproc:.2f}×** | | **{cli:.2f}×** | "
                     f"{'; '.join(verdict) or '—'} |")
    return "\n".join(lines)


def run(python: str, codenav: str, cache: Path, work: Path, pairs: int, only: list[str] | None = None,
        profile: bool = False) -> str:
    """Index the trees into ``cache`` with ``codenav``, measure, and return the report (Markdown)."""
    rg, rg_from = install_ripgrep(python)
    env = {k: v for k, v in os.environ.items() if k not in _ENDPOINT_VARS}
    env["CODENAV_CACHE_DIR"] = str(cache)
    env["CODENAV_SEARCH_TIMEOUT"] = os.environ["CODENAV_SEARCH_TIMEOUT"] = "600"  # measure whole searches, never a cut one
    chosen = [t for t in TREES if not only or t[2] in only]
    trees = {}
    for spec, _, _, _ in chosen:
        log(f"indexing {spec}")
        trees[spec] = index(codenav, env, spec)
    cases = [Case(spec, kind, pattern) for spec, _, _, patterns in chosen for kind, pattern in zip(CLASSES, patterns, strict=True)]
    inproc = InProcess(str(cache))
    started = time.monotonic()
    results = measure(cases, trees, rg, codenav, env, inproc, pairs, work)
    startup = statistics.median(harness.run([python, "-c", "pass"], env=env).wall for _ in range(9))
    report = [f"ripgrep: {rg_from}; codenav: {codenav}; {pairs} repeats of each, the three run in turn "
              f"(order rotating) in one run of {time.monotonic() - started:.0f} s; `python -c pass`: "
              f"{_ms(startup)}", "", table(results)]
    if profile:
        for m in results:
            if misses(m) or (m.case.spec in SMALL_FILES and m.ratio(m.cli) > 2):
                report += ["", f"Profile of the in-process {m.case.kind} `{m.case.pattern}` on {m.case.spec} "
                           f"({m.ratio(m.inproc):.2f}× rg in-process, {m.ratio(m.cli):.2f}× CLI):", "```",
                           inproc.profile(m.case.arguments(), 14), "```"]
    return "\n".join(report)


def make_venv(path: Path) -> None:
    log(f"installing this checkout and {RIPGREP} into a fresh virtual environment ({path})")
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    subprocess.run([str(path / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    str(ROOT)], check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=15, help="repeats of each of the three (default 15)")
    parser.add_argument("--trees", help="a comma-separated subset of: " + ", ".join(t[2] for t in TREES))
    parser.add_argument("--venv", type=Path, help="reuse this virtual environment (codenav is reinstalled)")
    parser.add_argument("--cache", type=Path, help="reuse this codenav cache (the trees stay indexed)")
    parser.add_argument("--profile", action="store_true", help="cProfile every in-process case that misses")
    ns = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="codenav-bench-grep-"))
    try:
        venv = ns.venv or work / "venv"
        if ns.venv and venv.exists():
            subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps",
                            "--force-reinstall", "--disable-pip-version-check", str(ROOT)], check=True)
        else:
            make_venv(venv)
        cache = ns.cache or work / "cache"
        print(run(str(venv / "bin" / "python"), str(venv / "bin" / "codenav"), cache, work, ns.pairs,
                  ns.trees.split(",") if ns.trees else None, ns.profile))
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
