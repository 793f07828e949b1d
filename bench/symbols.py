"""The symbol index's benchmark (issue 16): build time and peak RSS on npm:typescript, and a warm query.

    python bench/symbols.py            # needs the npm registry; prints "skipped" when it is unreachable
    python bench/symbols.py --pairs 10

Rows, as bench/run.py prints them (a Markdown table on stdout, progress on stderr):

- cold indexing of npm:typescript (download, verify, extract, every sidecar: the symbol index
  included), wall time and the peak RSS of the largest process (the indexer);
- the symbol index alone, rebuilt from that cached entry in a fresh process (``sidecar.write``),
  wall time and peak RSS; indexing without it is the difference of the two;
- a warm ``codenav symbols`` query against ``python -c pass``, alternating pair by pair
  (bench/harness.py), the median of the pairwise ratios quoted.

codenav runs as ``python -m codenav`` from the interpreter running this script (a checkout's
venv), so no installer's launcher is measured. Endpoints are discovered once, in a first
cache, and copied into the fresh cache of the timed cold run, as bench/run.py does.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402

TYPESCRIPT = "npm:typescript@5.9.3"
QUERY = ("createProgram",)
_ENDPOINT_VARS = ("CODENAV_NPM_REGISTRY", "CODENAV_PYPI_INDEX_URL", "CODENAV_NO_DISCOVERY", "CODENAV_CACHE_DIR",
                  "XDG_CACHE_HOME", "CODENAV_RESOLVE_TTL")
REBUILD = (
    "import sys\n"
    "from codenav.cache import store\n"
    "from codenav.search.symbols.sidecar import write\n"
    "print(write(store.Entry('bench', sys.argv[1]), sys.argv[2]))\n"
)


def log(message: str) -> None:
    sys.stderr.write(f"bench: {message}\n")
    sys.stderr.flush()


def env_for(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _ENDPOINT_VARS}
    env["CODENAV_CACHE_DIR"] = str(cache)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=40, help="warm query pairs (default 40)")
    parser.add_argument("--runs", type=int, default=3, help="cold indexing and rebuild runs (default 3)")
    options = parser.parse_args()
    python = sys.executable
    codenav = [python, "-m", "codenav"]
    rows: list[tuple[str, str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="codenav-bench-symbols-") as tmp:
        work = Path(tmp)
        first = work / "first"
        log(f"discovering endpoints and indexing {TYPESCRIPT} once")
        if harness.run([*codenav, "files", TYPESCRIPT, "--wait", "60000"], env=env_for(first)).status != 0:
            print(f"skipped: {TYPESCRIPT} could not be indexed (registry unreachable?)")
            return 0
        colds = []
        for number in range(options.runs):
            cache = work / f"cold{number}"
            (cache / "state").mkdir(parents=True)
            shutil.copy(first / "state" / "endpoints.json", cache / "state" / "endpoints.json")
            colds.append(harness.run([*codenav, "files", TYPESCRIPT, "--wait", "60000"], env=env_for(cache)))
            if colds[-1].status != 0:
                raise RuntimeError("cold indexing failed")
        (index,) = Path(first, "entries").rglob("symbols.tsv")
        out = work / "rebuilt.tsv"
        rebuilds = [harness.run([python, "-c", REBUILD, str(index.parent), str(out)], env=env_for(first))
                    for _ in range(options.runs)]
        if any(r.status != 0 for r in rebuilds):
            raise RuntimeError("rebuilding the symbol index failed")
        cold_wall = statistics.median(r.wall for r in colds)
        cold_rss = max(r.max_rss_kib for r in colds) / 1024
        build_wall = statistics.median(r.wall for r in rebuilds)
        build_rss = max(r.max_rss_kib for r in rebuilds) / 1024
        size = index.stat().st_size / 1024 / 1024
        lines = sum(1 for _ in open(index, encoding="utf-8")) - 2
        rows.append((f"cold indexing {TYPESCRIPT}, all sidecars (largest process: the indexer)",
                     f"{cold_wall * 1000:.0f} ms, peak RSS {cold_rss:.1f} MiB", "—", "—"))
        rows.append((f"symbol index of {TYPESCRIPT} alone, from the cached entry ({lines} symbols, {size:.1f} MiB)",
                     f"{build_wall * 1000:.0f} ms, peak RSS {build_rss:.1f} MiB", "—", "—"))
        rows.append((f"indexing {TYPESCRIPT} without the symbol index (the difference)",
                     f"≈ {(cold_wall - build_wall) * 1000:.0f} ms", "—", "—"))
        query = [*codenav, "symbols", TYPESCRIPT, *QUERY]
        env = env_for(first)
        if harness.run(query, env=env).status != 0:
            raise RuntimeError("the warm query failed")
        log(f"warm query: {options.pairs} pairs")
        pair = harness.compare(lambda: harness.run(query, env=env), lambda: harness.run([python, "-c", "pass"], env=env),
                               options.pairs)
        ratios = pair.ratios
        rows.append((f"warm `codenav symbols {TYPESCRIPT} {' '.join(QUERY)}` (python -m codenav)",
                     f"{pair.median_wall(pair.a) * 1000:.1f} ms",
                     f"`python -c pass`: {pair.median_wall(pair.b) * 1000:.1f} ms",
                     f"{pair.median_ratio():.2f}× ({min(ratios):.2f}–{max(ratios):.2f}, {len(ratios)} pairs)"))
    print("| benchmark | codenav (median wall) | baseline, same run | ratio (median of pairs) |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
