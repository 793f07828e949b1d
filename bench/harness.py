"""Whole-process timing for the benchmarks: run a command, read the kernel's accounting.

Each run is started with ``posix_spawn`` and reaped with ``wait4``, so its CPU time and peak
resident set come from the operating system (``ru_maxrss`` of the largest process in the
tree that was waited for), and its wall time is measured around spawn and reap. Two
commands are compared pair by pair, in alternating order (ABBA...), so a machine whose
speed drifts during the run moves both sides of a pair together; the figure to quote is
the median of the pairwise ratios.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


@dataclass
class Run:
    wall: float  # seconds
    cpu: float  # user + sys seconds, the process and the children it waited for
    max_rss_kib: int  # the largest single process of the tree
    status: int  # exit status (negative: killed by that signal)


def run(argv: Sequence[str], *, env: dict[str, str] | None = None, stdout: str = os.devnull) -> Run:
    """Run ``argv`` once, stdin from /dev/null, stdout to ``stdout``, stderr to /dev/null."""
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
    ]
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0] if argv[0].startswith("/") else _which(argv[0]), list(argv),
                         os.environ if env is None else env, file_actions=actions)
    _, wait_status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, os.waitstatus_to_exitcode(wait_status))


def _which(name: str) -> str:
    import shutil

    found = shutil.which(name)
    if found is None:
        raise FileNotFoundError(name)
    return found


@dataclass
class Pair:
    """A against B: every run of each, and the ratio A/B of each pair."""

    a: list[Run] = field(default_factory=list)
    b: list[Run] = field(default_factory=list)

    @property
    def ratios(self) -> list[float]:
        return [x.wall / y.wall for x, y in zip(self.a, self.b, strict=True)]

    def median_ratio(self) -> float:
        return statistics.median(self.ratios)

    @staticmethod
    def median_wall(runs: list[Run]) -> float:
        return statistics.median(r.wall for r in runs)


def compare(run_a: Callable[[], Run], run_b: Callable[[], Run], pairs: int, warmup: int = 1) -> Pair:
    """``pairs`` runs of each, alternating ABBA; ``warmup`` uncounted runs of each first."""
    for _ in range(warmup):
        run_a()
        run_b()
    result = Pair()
    for index in range(pairs):
        if index % 2 == 0:
            result.a.append(run_a())
            result.b.append(run_b())
        else:
            result.b.append(run_b())
            result.a.append(run_a())
    return result


def rotate(runners: dict[str, Callable[[], Run]], repeats: int, warmup: int = 1) -> dict[str, list[Run]]:
    """``repeats`` runs of each, in turn, the order reversed every other round (ABC CBA ...), as
    ``compare`` alternates two: any two of them make a Pair whose runs are side by side."""
    names = list(runners)
    for _ in range(warmup):
        for name in names:
            runners[name]()
    runs: dict[str, list[Run]] = {name: [] for name in names}
    for index in range(repeats):
        for name in names if index % 2 == 0 else names[::-1]:
            runs[name].append(runners[name]())
    return runs


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (pct in 0..100) of ``values``."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(pct / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]
