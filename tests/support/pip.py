"""pip as an oracle: the newest pip, unpacked once per module, run against local indexes.

``pip_wheel`` and ``pip_dir`` are fixtures (tests/conftest.py offers them to every module); the newest pip
is fetched with the machine's own pip configuration, or taken from ``CODENAV_TEST_PIP_WHEEL``,
and the tests skip when neither is possible.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from .cli import ORIGINAL_ENV


def clean_env() -> dict[str, str]:
    """The environment for running pip against a local index: no config file, no PIP_ variables."""
    env = {k: v for k, v in ORIGINAL_ENV.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


@pytest.fixture(scope="module")
def pip_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The newest pip wheel, fetched with the machine's own pip configuration."""
    given = os.environ.get("CODENAV_TEST_PIP_WHEEL")
    if given and Path(given).is_file():
        return Path(given)
    dest = tmp_path_factory.mktemp("pip-wheel")
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "-d", str(dest), "pip"],
            capture_output=True, text=True, timeout=300, env=dict(ORIGINAL_ENV),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"cannot fetch pip: {exc}")
    wheels = sorted(dest.glob("pip-*.whl"))
    if proc.returncode != 0 or not wheels:
        pytest.skip("the package index is unreachable, so the newest pip cannot be fetched")
    return wheels[-1]


@pytest.fixture(scope="module")
def pip_dir(pip_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel unpacked, so its modules compile once instead of on every zip import."""
    dest = tmp_path_factory.mktemp("pip-unpacked")
    with zipfile.ZipFile(pip_wheel) as zf:
        zf.extractall(dest)
    return dest


def tiny_wheel(name: str, version: str) -> bytes:
    """A minimal installable wheel of ``name`` ``version`` (pip accepts it)."""
    buf = io.BytesIO()
    info = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": "",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: codenav-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "".join(f"{p},,\n" for p in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(buf, "w") as zf:
        for path, text in {**files, f"{info}/RECORD": record}.items():
            zf.writestr(path, text)
    return buf.getvalue()
