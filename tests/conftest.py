"""Shared fixtures: every test runs with its own HOME, cache and config (no real user state)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.http import FakeServer
from tests.fakes.npm import FakeNpm
from tests.fakes.pypi import FakePypi

ROOT = Path(__file__).resolve().parent.parent
# The environment before any test changed it (the live tests restore parts of it).
ORIGINAL_ENV = dict(os.environ)

# Variables that would let a test see the user's real registries, caches or credentials.
_ISOLATED = (
    "CODENAV_CACHE_DIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "CODENAV_NPM_REGISTRY", "CODENAV_PYPI_INDEX_URL",
    "CODENAV_GREP_APP_URL", "CODENAV_GITHUB_API_URL", "npm_config_registry", "NPM_CONFIG_REGISTRY",
    "npm_config_userconfig", "NPM_CONFIG_USERCONFIG", "PIP_INDEX_URL", "PIP_CONFIG_FILE", "GH_TOKEN",
    "GITHUB_TOKEN", "GH_HOST", "VIRTUAL_ENV",
    # the registries of issue 15: their own variables and their package managers'
    "CODENAV_CRATES_INDEX", "CODENAV_GOPROXY", "CODENAV_GOSUMDB", "CODENAV_MAVEN_REPOSITORY",
    "CODENAV_RUBYGEMS_SOURCE", "CODENAV_NUGET_SOURCE", "CODENAV_HEX_REPO", "CODENAV_HEX_API",
    "CODENAV_HEX_PUBLIC_KEY", "CODENAV_COMPOSER_REPOSITORY", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GOPRIVATE",
    "GONOPROXY", "GOFLAGS", "GONOSUMCHECK", "GOENV", "HEX_MIRROR", "HEX_REPO_URL", "CARGO_HOME", "COMPOSER_HOME",
    "MAVEN_HOME", "GEMRC",
    # CRAN and pub.dev (issue 26): codenav's variables, R's profiles, Dart's hosted URL
    "CODENAV_CRAN_REPOS", "R_PROFILE", "R_PROFILE_USER", "CODENAV_PUB_URL", "PUB_HOSTED_URL",
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


@pytest.fixture
def npm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeNpm]:
    """A fake npm registry on 127.0.0.1 that CODENAV_NPM_REGISTRY points at."""
    with FakeServer() as server:
        fake = FakeNpm(server)
        monkeypatch.setenv("CODENAV_NPM_REGISTRY", fake.url)
        yield fake


@pytest.fixture
def pypi(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakePypi]:
    """A fake PyPI simple index on 127.0.0.1 that CODENAV_PYPI_INDEX_URL points at."""
    with FakeServer() as server:
        fake = FakePypi(server)
        monkeypatch.setenv("CODENAV_PYPI_INDEX_URL", fake.url)
        yield fake


def run_cli(*args: str, env: dict[str, str] | None = None, input: bytes | None = None,
            timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """Run ``python -m codenav ARGS`` in a subprocess with the test's environment."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.pop("PYTHONDONTWRITEBYTECODE", None)  # reuse compiled modules across the many CLI runs
    if env:
        full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "codenav", *args], capture_output=True, env=full_env, input=input,
        timeout=timeout, stdin=None if input is not None else subprocess.DEVNULL,
        preexec_fn=_default_sigint if signal.getsignal(signal.SIGINT) == signal.SIG_IGN else None,
    )


def settle(cache: Path | None = None, timeout: float = 60) -> None:
    """Wait until no indexer of ``cache`` (default: the configured cache root) holds a lock.

    A cold call answers as soon as its entry is published; the indexer then goes on deriving
    the late sidecars (the symbol index) into that entry. A test that compares an entry's files
    over time waits for that first."""
    import time

    from codenav.cache.open import is_locked
    from codenav.paths import root

    locks = Path(cache if cache is not None else root()) / "locks"
    deadline = time.monotonic() + timeout
    while locks.is_dir() and any(is_locked(str(lock)) for lock in locks.glob("*.lock")):
        if time.monotonic() > deadline:
            raise AssertionError(f"an indexer still holds a lock in {locks} after {timeout} s")
        time.sleep(0.02)


def _default_sigint() -> None:
    """A test run started in the background inherits SIGINT ignored, and Python then installs no
    KeyboardInterrupt handler in the child: give the child the default a terminal would."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# Here, not in tests/hardening/conftest.py: with pytest-xdist only this conftest is loaded in
# the controlling process, which is where the summary is printed.
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
