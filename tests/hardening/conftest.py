"""Fixtures shared by the hardening suites (their per-suite case counts are printed by tests/conftest.py).

The fake registries live for a whole module (stopping a FakeServer costs up to half a second)
and are reset for each test; every test still gets its own HOME and cache (tests/conftest.py).
"""

from __future__ import annotations

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
