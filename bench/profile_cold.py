"""Where a cold call's time and memory go: the indexer's job for one package, profiled.

    python bench/profile_cold.py npm:express@4.21.2
    python bench/profile_cold.py pypi:requests@2.32.3 --memory

Runs what ``python -m codenav.cache.indexer`` runs for that package, in this process, against a
fresh cache (the endpoint discovery is done first and not counted), and prints the import
time of the modules it loads, the functions where the wall time goes (cProfile, cumulative)
and, with --memory, the peak of traced Python allocations while resolving and in the whole job.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("spec", help="REGISTRY:NAME@VERSION")
    parser.add_argument("--memory", action="store_true", help="trace allocations instead of timing calls")
    parser.add_argument("--top", type=int, default=25)
    ns = parser.parse_args()

    work = tempfile.mkdtemp(prefix="codenav-profile-")
    try:
        return _profile(ns, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _profile(ns: argparse.Namespace, work: str) -> int:
    os.environ["CODENAV_CACHE_DIR"] = os.path.join(work, "first")
    started = time.perf_counter()
    modules_before = set(sys.modules)
    from codenav import paths, registries
    from codenav.cache import aliases, indexing
    from codenav.targets import from_args, parse_spec

    target = from_args(parse_spec(ns.spec))
    alias, ttl = aliases.alias_of(target)  # discovers the endpoint (npm/pip), not counted below
    job = {"kind": "package", "registry": target.registry, "name": target.name, "version": target.version,
           "ttl": ttl, "alias": alias, "progressUntil": None}
    print(f"setup (codenav imports, endpoint discovery): {(time.perf_counter() - started) * 1000:.0f} ms")

    if ns.memory:
        import tracemalloc

        source = registries.load(target.registry)
        tracemalloc.start()
        source.resolve(target.name, target.version)
        resolve_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        indexing.build(job)
        job_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"peak of traced Python allocations: resolving the version alone {resolve_peak / 2**20:.1f} MiB; "
              f"the whole job (resolve, download, extract, publish) {job_peak / 2**20:.1f} MiB")
        return 0

    # What the indexer process imports before its first request, timed without a profiler.
    clock = time.perf_counter()
    import requests  # noqa: F401  (net.py imports it at the first request)

    after_requests = time.perf_counter()
    from codenav import archive  # noqa: F401
    from codenav.cache import download  # noqa: F401
    from codenav.registries import npm, pypi  # noqa: F401

    after_codenav = time.perf_counter()
    print(f"imports: requests {(after_requests - clock) * 1000:.0f} ms; codenav's indexing modules "
          f"{(after_codenav - after_requests) * 1000:.0f} ms ({len(set(sys.modules) - modules_before)} modules "
          "in all)")
    clock = time.perf_counter()
    indexing.build(job)
    print(f"the job itself (resolve, download, verify, extract, publish): {(time.perf_counter() - clock) * 1000:.0f} ms")

    discovered = os.path.join(paths.state_dir(), "endpoints.json")
    os.environ["CODENAV_CACHE_DIR"] = os.path.join(work, "second")
    os.makedirs(paths.state_dir())
    shutil.copy(discovered, paths.state_dir())
    profile = cProfile.Profile()
    profile.enable()
    indexing.build(job)
    profile.disable()
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(ns.top)
    print("the same job again into another fresh cache, under cProfile (self time):")
    print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
