"""Shared fixtures: every test runs with its own HOME, cache and config (no real user state).

The helpers tests import live in tests/support (a test module never imports another one).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.pip import pip_dir, pip_wheel  # noqa: F401  (fixtures: pip as an oracle)
from tests.support.registries import Adapter, all_variables, fake_fixture, started

# Variables that would let a test see the user's real registries, caches or credentials.
_ISOLATED = (
    "CODENAV_CACHE_DIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "CODENAV_GREP_APP_URL", "CODENAV_GITHUB_API_URL",
    "PIP_CONFIG_FILE", "GH_TOKEN", "GITHUB_TOKEN", "GH_HOST", "VIRTUAL_ENV",
    *all_variables(),  # every registry's own, and its package manager's (tests/support/adapters)
)


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME, the cache and every registry/config variable point into this test's tmp dir."""
    for name in _ISOLATED:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODENAV_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    # pip's own config files (/etc/pip.conf ...) must not leak an index into tests.
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("CODENAV_NO_DISCOVERY", "1")  # never ask the real npm/pip in offline tests
    # No lockfile lookup unless a test names a project: the checkout's own files (or the
    # machine's) must not decide which version a test reads.
    monkeypatch.setenv("CODENAV_PROJECT_DIR", "")
    return tmp_path


npm = fake_fixture("npm")
pypi = fake_fixture("pypi-wheel")


@pytest.fixture
def registry(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Adapter]:
    """The conformance adapter the test is parametrized with (``each_registry``), its fake
    started on 127.0.0.1 and named by its variables."""
    with started(request.param, monkeypatch, tmp_path) as adapter:
        yield adapter


# Here, not in tests/hardening/conftest.py: with pytest-xdist only this conftest is loaded in
# the controlling process, which is where the summary is printed.
def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line per module of hardening cases that ran: ``hardening: <suite> N cases (F failed)``."""
    counts: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) != "call" or "hardening" not in getattr(report, "keywords", {}):
                continue
            suite = report.nodeid.split("::", 1)[0].rsplit("/", 1)[-1].removeprefix("test_").removesuffix(".py")
            counts[suite] += 1
            if report.failed:
                failed[suite] += 1
    if not counts:
        return
    terminalreporter.section("hardening")
    for suite in sorted(counts):
        note = f" ({failed[suite]} failed)" if failed[suite] else ""
        terminalreporter.write_line(f"hardening: {suite} {counts[suite]} cases{note}")
