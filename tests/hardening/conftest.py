"""Fixtures shared by the hardening suites, and the per-suite case counts in the terminal summary.

The fake registries live for a whole module (stopping a FakeServer costs up to half a second)
and are reset for each test; every test still gets its own HOME and cache (tests/conftest.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.http import FakeServer
from tests.fakes.npm import FakeNpm
from tests.fakes.pypi import FakePypi


def _reset(server: FakeServer) -> FakeServer:
    server.routes.clear()
    server.prefix_routes.clear()
    server.seen.clear()
    return server


@pytest.fixture(scope="module")
def npm_server() -> Iterator[FakeServer]:
    with FakeServer() as server:
        yield server


@pytest.fixture(scope="module")
def pypi_server() -> Iterator[FakeServer]:
    with FakeServer() as server:
        yield server


@pytest.fixture
def npm(npm_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeNpm:
    """A fresh fake npm registry (on the module's server) that CODENAV_NPM_REGISTRY points at."""
    fake = FakeNpm(_reset(npm_server))
    monkeypatch.setenv("CODENAV_NPM_REGISTRY", fake.url)
    return fake


@pytest.fixture
def pypi(pypi_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakePypi:
    """A fresh fake PyPI simple index (on the module's server) that CODENAV_PYPI_INDEX_URL points at."""
    fake = FakePypi(_reset(pypi_server))
    monkeypatch.setenv("CODENAV_PYPI_INDEX_URL", fake.url)
    return fake


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line per hardening suite that ran: ``hardening: <suite> N cases (F failed)``."""
    counts: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for reports in terminalreporter.stats.values():
        for report in reports:
            nodeid = getattr(report, "nodeid", "")
            if getattr(report, "when", None) != "call" or "tests/hardening/test_" not in nodeid:
                continue
            suite = nodeid.split("tests/hardening/test_", 1)[1].split(".py", 1)[0]
            counts[suite] += 1
            if report.failed:
                failed[suite] += 1
    if not counts:
        return
    terminalreporter.section("hardening")
    for suite in sorted(counts):
        note = f" ({failed[suite]} failed)" if failed[suite] else ""
        terminalreporter.write_line(f"hardening: {suite} {counts[suite]} cases{note}")
