"""Live smoke test (-m live): real npm and PyPI packages, checked against npm pack / pip download.

Skips cleanly when the registries or the package managers are unreachable. Endpoints come from
npm's and pip's own configuration, exactly as for a user.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile

import pytest

from tests.support import readme
from tests.support.cli import as_the_user, run_cli

pytestmark = pytest.mark.live


@pytest.fixture
def real_endpoints(monkeypatch):
    """Undo the offline isolation: let codenav ask npm and pip as a user's machine would."""
    as_the_user(monkeypatch, ("PIP_CONFIG_FILE", "PIP_INDEX_URL", "npm_config_registry", "NPM_CONFIG_REGISTRY",
                              "npm_config_userconfig", "NPM_CONFIG_USERCONFIG"))


def _run(cmd: list[str], cwd, timeout: float = 180) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"{cmd[0]} unavailable or too slow here: {exc}")


def test_express_matches_npm_pack(real_endpoints, tmp_path):
    """codenav's file list of npm:express@4.21.2 equals what `npm pack` downloads."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    packed = _run(["npm", "pack", "express@4.21.2", "--json", "--pack-destination", str(tmp_path)], tmp_path)
    if packed.returncode != 0:
        pytest.skip(f"the npm registry is unreachable: {packed.stderr.strip()[-200:]}")
    npm_files = sorted(f["path"] for f in json.loads(packed.stdout)[0]["files"])
    proc = run_cli("files", "npm:express@4.21.2", "--json", "--wait", "60000", timeout=180)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["target"] == {"registry": "npm", "name": "express", "version": "4.21.2",
                                "artifact": "express-4.21.2.tgz", "verified": True,
                                "verification": "sha512 of the downloaded file matches the registry's dist.integrity",
                                "versionSource": {"kind": "exact", "spec": "4.21.2"}}
    assert [f["path"] for f in result["files"]] == npm_files
    read = run_cli("read", "npm:express@4.21.2", "package.json")
    assert json.loads(read.stdout)["version"] == "4.21.2"


def test_requests_matches_pip_download(real_endpoints, tmp_path):
    """codenav's file list of pypi:requests@2.32.3 equals the wheel `pip download` fetches."""
    dl = _run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--no-cache-dir",
               "requests==2.32.3", "-d", str(tmp_path)], tmp_path)
    if dl.returncode != 0:
        pytest.skip(f"the package index is unreachable: {dl.stderr.strip()[-200:]}")
    wheels = list(tmp_path.glob("*.whl"))
    assert [w.name for w in wheels] == ["requests-2.32.3-py3-none-any.whl"]
    with zipfile.ZipFile(wheels[0]) as zf:
        pip_files = sorted(n for n in zf.namelist() if not n.endswith("/"))
    proc = run_cli("files", "pypi:requests@2.32.3", "--json", "--wait", "60000", timeout=180)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["target"]["artifact"] == wheels[0].name
    assert [f["path"] for f in result["files"]] == pip_files


PROMPTED = [example for example in readme.examples() if example.prompted]


@pytest.mark.parametrize("example", PROMPTED, ids=[example.id for example in PROMPTED])
def test_readme_examples_run(real_endpoints, example):
    """Every `$ codenav ...` example in the README runs against the real registries and prints
    what the README shows under it (tests/test_docs.py runs them offline on the same artifacts)."""
    args = list(example.argv)
    proc = run_cli(*args, "--wait", "60000", env=example.env, timeout=180)
    if proc.returncode != 0 and b'"NETWORK"' in run_cli(*args, "--json", env=example.env).stdout:
        pytest.skip("the registries are unreachable")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()
    if example.shown:
        assert readme.matches(example.shown, proc.stdout.decode("utf-8")), proc.stdout.decode("utf-8")


def test_torch_is_listed_by_range_without_downloading_the_wheel(real_endpoints, tmp_path, monkeypatch):
    """A cold `codenav files pypi:torch==2.9.1` lists the wheel from its central directory: a few MB, verified false."""
    import platform
    import time

    # The default limits: the Linux wheel (858 MiB) is over the 200 MiB download limit.
    monkeypatch.delenv("CODENAV_MAX_DOWNLOAD_BYTES", raising=False)
    began = time.monotonic()
    proc = run_cli("files", "pypi:torch==2.9.1", "--json", "--wait", "60000", timeout=180)
    seconds = time.monotonic() - began
    result = json.loads(proc.stdout or b"{}")
    if proc.returncode != 0 and result.get("error", {}).get("code") in ("NETWORK", "TIMEOUT", "CONFIG_ERROR"):
        pytest.skip(f"the package index is unreachable: {result['error']['message']}")
    assert proc.returncode == 0, proc.stderr
    assert result["target"]["verified"] is False and "byte range" in result["target"]["verification"]
    assert "torch/__init__.py" in [f["path"] for f in result["files"]]
    if platform.system() == "Linux" and platform.machine() == "x86_64":
        here = f"-cp{sys.version_info[0]}{sys.version_info[1]}-"
        assert "manylinux" in result["target"]["artifact"] and here in result["target"]["artifact"], result["target"]
    (manifest_path,) = (tmp_path / "cache" / "entries" / "pypi" / "torch").glob("*/manifest.json")
    ranged = json.loads(manifest_path.read_text())["ranged"]
    cached = sum(p.stat().st_size for p in (tmp_path / "cache").rglob("*") if p.is_file())
    print(f"torch 2.9.1 listed by range in {seconds:.1f} s: {ranged['requests']} requests, {ranged['bytes']} bytes "
          f"of a {ranged['size']}-byte wheel; cache {cached} bytes")
    assert ranged["bytes"] < 5 << 20 and ranged["requests"] <= 3 and cached < 30 << 20
    read = run_cli("read", "pypi:torch==2.9.1", "torch/__init__.py")
    assert read.returncode == 0 and b"import" in read.stdout
