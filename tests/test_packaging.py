"""The installed wheel carries schemas/; the README's install, test and MCP configuration blocks work
(its tool table and every other command: tests/test_docs.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from codenav import contract, tools
from tests.support.cli import ROOT


def test_every_schema_file_is_a_valid_2020_12_schema():
    """check_schema passes for every file under schemas/ and every tool has one."""
    from jsonschema import Draft202012Validator

    files = sorted((ROOT / "schemas").rglob("*.json"))
    assert {p.stem for p in (ROOT / "schemas" / "tools").glob("*.json")} == set(tools.names())
    for path in files:
        Draft202012Validator.check_schema(json.loads(path.read_text()))
    for name in tools.names():
        spec = contract.tool_spec(name)
        assert spec["inputSchema"]["type"] == spec["outputSchema"]["type"] == "object"
        Draft202012Validator.check_schema(spec["inputSchema"])
        assert all(not ref.startswith(("http", "defs.json")) for ref in re.findall(r'"\$ref": "([^"]+)"',
                                                                                    json.dumps(spec)))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The project's wheel, built as pip builds it."""
    wheel_dir = tmp_path_factory.mktemp("wheel")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(wheel_dir)],
                           capture_output=True, text=True, timeout=300)
    if built.returncode != 0 and "Could not find a version that satisfies" in built.stderr:
        pytest.skip("the build backend cannot be fetched here")
    assert built.returncode == 0, built.stderr
    return next(wheel_dir.glob("codenav-*.whl"))


def test_the_wheel_installed_in_a_fresh_venv_loads_every_schema(tmp_path, wheel):
    """Build the wheel, install it (no checkout on the path), import every module of the package
    from it (a subpackage missing from pyproject's list fails here) and load each tool's schemas."""
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False, system_site_packages=True).create(env_dir)
    py = env_dir / "bin" / "python"
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True, timeout=300)
    code = (
        "import sys, json; sys.path.insert(0, sys.argv[1]);"
        "import codenav, codenav.contract as c, codenav.tools as t;"
        "assert sys.argv[1] in codenav.__file__, codenav.__file__;"
        "import importlib, pkgutil;"
        "[importlib.import_module(m.name) for m in pkgutil.walk_packages(codenav.__path__, 'codenav.')"
        " if not m.name.endswith('__main__')];"
        "print(json.dumps([c.tool_spec(n)['name'] for n in t.names()] + [c.error_schema()['title']]))"
    )
    out = subprocess.run([str(py), "-c", code, str(target)], capture_output=True, text=True, cwd=tmp_path,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)[:-1] == tools.names()


def test_the_codenav_command_pip_installs_imports_nothing_before_codenav(tmp_path, wheel):
    """pip installs a `codenav` command on the venv's interpreter that starts codenav before any
    import of its own: the launcher pip writes for a [project.scripts] entry point imports `re`
    first, about a third of a warm call (docs/performance.md)."""
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)  # no site-packages of ours: no .pth runs at start
    py = env_dir / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q", str(wheel)],
                   check=True, timeout=300, capture_output=True)
    script = env_dir / "bin" / "codenav"
    assert script.read_text().splitlines()[0] == f"#!{py}"

    def imports(command: list[str]) -> list[str]:
        ran = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=60,
                             env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PYTHONPROFILEIMPORTTIME": "1"})
        assert ran.returncode == 0, ran.stderr
        return [line.rsplit("|", 1)[1].strip() for line in ran.stderr.splitlines()[1:] if line.startswith("import time:")]

    start = imports([str(py), "-c", "pass"])
    assert "re" not in start
    launched = imports([str(script), "cache", "path"])
    assert launched.index("codenav") > 0 and set(launched[:launched.index("codenav")]) <= set(start)


def test_readme_mcp_configs_are_valid_json_that_start_codenav_mcp():
    """Each MCP client config block in the README parses and runs `codenav mcp`."""
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", readme, re.S)
    assert len(blocks) == 2
    for block in blocks:
        servers = json.loads(block)
        (entry,) = (servers.get("mcpServers") or servers["servers"]).values()
        assert entry["command"].endswith("codenav") and entry["args"] == ["mcp"]


def test_readme_install_and_test_commands_match_ci():
    """The README's test command is the one .ci/run runs."""
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -e '.[test]' && python -m pytest" in readme
    assert "pip install --quiet --disable-pip-version-check -e '.[test]'" in ci and "python -m pytest" in ci
