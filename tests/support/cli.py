"""Running codenav as a user does: the checkout, the CLI in a subprocess, the indexer settling.

``ORIGINAL_ENV`` is the environment before any test changed it (tests/conftest.py imports this
module first, so it is taken before the autouse isolation runs); the live tests restore parts of it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ORIGINAL_ENV = dict(os.environ)


def run_cli(*args: str | bytes, env: dict[str, str] | None = None, input: bytes | None = None,
            timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """Run ``python -m codenav ARGS`` in a subprocess with the test's environment (plus ``env``)."""
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


def _default_sigint() -> None:
    """A test run started in the background inherits SIGINT ignored, and Python then installs no
    KeyboardInterrupt handler in the child: give the child the default a terminal would."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def settle(cache: Path | None = None, timeout: float = 60) -> None:
    """Wait until no indexer of ``cache`` (default: the configured cache root) holds a lock.

    A cold call answers as soon as its entry is published; the indexer then goes on deriving
    the late sidecars (the symbol index) into that entry. A test that compares an entry's files
    over time waits for that first."""
    from codenav.cache.open import is_locked
    from codenav.paths import root

    locks = Path(cache if cache is not None else root()) / "locks"
    deadline = time.monotonic() + timeout
    while locks.is_dir() and any(is_locked(str(lock)) for lock in locks.glob("*.lock")):
        if time.monotonic() > deadline:
            raise AssertionError(f"an indexer still holds a lock in {locks} after {timeout} s")
        time.sleep(0.02)


def isolated_subprocess_env(base: Path, *, first_on_path: tuple[Path, ...] = ()) -> dict[str, str]:
    """An environment for codenav subprocesses started by module-scoped fixtures (which run
    outside conftest's autouse isolation): no inherited codenav/npm/pip/gh configuration, HOME
    and the cache under ``base``, no real ``gh`` on PATH, discovery off."""
    prefixes = ("CODENAV_", "NPM_CONFIG_", "PIP_", "GH_", "GITHUB_", "XDG_")
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(prefixes)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and not (Path(p) / "gh").exists()]
    (base / "home").mkdir(parents=True, exist_ok=True)
    env.update({
        "PYTHONPATH": str(ROOT), "HOME": str(base / "home"), "CODENAV_CACHE_DIR": str(base / "cache"),
        "XDG_CONFIG_HOME": str(base / "home" / ".config"), "PIP_CONFIG_FILE": os.devnull,
        "CODENAV_NO_DISCOVERY": "1", "PATH": os.pathsep.join([*map(str, first_on_path), *path]),
    })
    return env


def oracle(name: str) -> str | None:
    """Where the oracle binary ``name`` is: on PATH, or beside this interpreter (a package of the
    test extra, such as ripgrep's ``rg``, installs there even when the venv is not activated)."""
    found = shutil.which(name)
    if found is None:
        beside = Path(sys.executable).parent / name
        found = str(beside) if beside.is_file() and os.access(beside, os.X_OK) else None
    return found


def as_the_user(monkeypatch: Any, names: tuple[str, ...] = ()) -> None:
    """Undo the offline isolation for a live test: discovery on, HOME and each variable of
    ``names`` as the user had them (so the user's npm, pip and other configuration applies)."""
    monkeypatch.delenv("CODENAV_NO_DISCOVERY", raising=False)
    for name in (*names, "HOME"):
        if ORIGINAL_ENV.get(name):
            monkeypatch.setenv(name, ORIGINAL_ENV[name])
        elif name != "HOME":
            monkeypatch.delenv(name, raising=False)
