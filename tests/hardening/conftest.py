"""Fixtures of the hardening suites (their per-suite case counts are printed by tests/conftest.py).

Every test gets its own HOME, cache and fake registries (tests/conftest.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache"
