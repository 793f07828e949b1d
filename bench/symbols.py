"""The symbol index's benchmark (issue 16): build time and peak RSS on three trees, and warm queries.

    python bench/symbols.py            # needs the registries; prints "skipped" when they are unreachable
    python bench/symbols.py --pairs 10 --runs 2 --trees typescript

Rows per tree — npm:typescript (big bundles), npm:rxjs (2,277 small files), the django wheel —
as bench/run.py prints them (a Markdown table on stdout, progress on stderr):

- cold indexing (download, verify, extract, every sidecar: the symbol index included), wall
  time and the peak RSS of the largest process (the indexer);
- the symbol index alone, rebuilt from that cached entry in a fresh process (``sidecar.write``),
  wall time and peak RSS; indexing without it is the difference of the two;
- a warm ``codenav symbols SPEC QUERY`` against ``python -c pass``, alternating pair by pair
  (bench/harness.py), the median of the pairwise ratios quoted;
- ``--mcp-calls`` sequential ``tools/call search_symbols`` of the same query on one
  ``codenav mcp`` session (bench/mcp_load.py): calls per second, p50 and p99.

codenav runs as ``python -m codenav`` from the interpreter running this script (a checkout's
venv), so no installer's launcher is measured. Endpoints are discovered once, in a first
cache, and copied into the fresh cache of each timed cold run, as bench/run.py does.
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
import mcp_load  # noqa: E402

# spec, short name (--trees), the query
TREES = (("npm:typescript@5.9.3", "typescript", "createProgram"), ("npm:rxjs@7.8.2", "rxjs", "switchMap"),
         ("pypi:django@5.2.8", "django", "get_or_create"))
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


def arguments(spec: str, query: str) -> dict:
    registry, _, rest = spec.partition(":")
    name, _, version = rest.rpartition("@")
    return {"registry": registry, "package_name": name, "version": version, "query": query}


def tree_rows(spec: str, query: str, work: Path, first: Path, options: argparse.Namespace) -> list[tuple[str, ...]]:
    python = sys.executable
    codenav = [python, "-m", "codenav"]
    colds = []
    for number in range(options.runs):
        cache = work / f"cold-{spec.replace(':', '-').replace('/', '-')}-{number}"
        (cache / "state").mkdir(parents=True)
        shutil.copy(first / "state" / "endpoints.json", cache / "state" / "endpoints.json")
        colds.append(harness.run([*codenav, "files", spec, "--wait", "60000"], env=env_for(cache)))
        if colds[-1].status != 0:
            raise RuntimeError(f"cold indexing of {spec} failed")
    registry, _, rest = spec.partition(":")
    name, _, version = rest.rpartition("@")
    (index,) = [p for p in Path(first, "entries", registry, *name.split("/")).glob(f"{version}-*/symbols.tsv")]
    out = work / "rebuilt.tsv"
    rebuilds = [harness.run([python, "-c", REBUILD, str(index.parent), str(out)], env=env_for(first))
                for _ in range(options.runs)]
    if any(r.status != 0 for r in rebuilds):
        raise RuntimeError(f"rebuilding the symbol index of {spec} failed")
    cold_wall = statistics.median(r.wall for r in colds)
    cold_rss = max(r.max_rss_kib for r in colds) / 1024
    build_wall = statistics.median(r.wall for r in rebuilds)
    build_rss = max(r.max_rss_kib for r in rebuilds) / 1024
    size = index.stat().st_size / 1024 / 1024
    with open(index, encoding="utf-8") as handle:
        lines = sum(1 for _ in handle) - 2
    rows = [(f"cold indexing {spec}, all sidecars (largest process: the indexer)",
             f"{cold_wall * 1000:.0f} ms, peak RSS {cold_rss:.1f} MiB", "—", "—"),
            (f"symbol index of {spec} alone, from the cached entry ({lines} symbols, {size:.1f} MiB)",
             f"{build_wall * 1000:.0f} ms, peak RSS {build_rss:.1f} MiB", "—", "—"),
            (f"indexing {spec} without the symbol index (the difference)",
             f"≈ {(cold_wall - build_wall) * 1000:.0f} ms", "—", "—")]
    query_argv = [*codenav, "symbols", spec, query]
    env = env_for(first)
    if harness.run(query_argv, env=env).status != 0:
        raise RuntimeError(f"the warm query of {spec} failed")
    log(f"warm query of {spec}: {options.pairs} pairs")
    pair = harness.compare(lambda: harness.run(query_argv, env=env),
                           lambda: harness.run([python, "-c", "pass"], env=env), options.pairs)
    ratios = pair.ratios
    rows.append((f"warm `codenav symbols {spec} {query}` (python -m codenav)",
                 f"{pair.median_wall(pair.a) * 1000:.1f} ms",
                 f"`python -c pass`: {pair.median_wall(pair.b) * 1000:.1f} ms",
                 f"{pair.median_ratio():.2f}× ({min(ratios):.2f}–{max(ratios):.2f}, {len(ratios)} pairs)"))
    load = mcp_load.tool_load([*codenav, "mcp"], env, "search_symbols", arguments(spec, query),
                              calls=options.mcp_calls, warmup=20)
    rows.append((f"MCP: {options.mcp_calls} sequential `search_symbols` {query} on {spec}, one stdio session",
                 f"{load.calls_per_second:.0f} calls/s, p50 {load.p50_ms:.2f} ms, p99 {load.p99_ms:.2f} ms",
                 "—", "—"))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=40, help="warm query pairs (default 40)")
    parser.add_argument("--runs", type=int, default=3, help="cold indexing and rebuild runs (default 3)")
    parser.add_argument("--mcp-calls", type=int, default=500, help="MCP search_symbols calls (default 500)")
    parser.add_argument("--trees", help="a comma-separated subset of: " + ", ".join(t[1] for t in TREES))
    options = parser.parse_args()
    chosen = [t for t in TREES if not options.trees or t[1] in options.trees.split(",")]
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory(prefix="codenav-bench-symbols-") as tmp:
        work = Path(tmp)
        first = work / "first"
        for spec, _, _ in chosen:
            log(f"indexing {spec} once (discovering the endpoints the first time)")
            if harness.run([sys.executable, "-m", "codenav", "files", spec, "--wait", "60000"],
                           env=env_for(first)).status != 0:
                print(f"skipped: {spec} could not be indexed (registry unreachable?)")
                return 0
        for spec, _, query in chosen:
            rows += tree_rows(spec, query, work, first, options)
    print("| benchmark | codenav (median wall) | baseline, same run | ratio (median of pairs) |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
