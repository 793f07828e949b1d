"""The docs cannot drift from the code (issue 22 item 5): docs/spec.md and the README are read
here and held to the tool registry, the grammar, the registry table, the package's modules and
the variables the code reads; every codenav command the README shows is accepted by the CLI's
grammar and run, offline, against the fakes.

- The tool tables (spec §2, README "Tools") list every tool of ``tools.REGISTRY`` in its order,
  each with its own CLI command and only options that command's parser accepts.
- The server's ``instructions`` (both answer forms) and the README name every tool and every
  registry; the README's registry table has one well-formed row per registry, naming its aliases.
- The spec's layout tree (§9) names every package and every module under codenav/, and nothing
  that is not there.
- Every ``CODENAV_*`` variable the code reads is in the README's configuration table or the spec,
  and every variable of that table is read by the code.
- Every ``codenav …`` command in the README's code blocks parses; each is run against the fakes:
  the prompted ones (npm and PyPI) on the real artifacts of tests/data/readme, their printed
  output equal to what the README shows, and the others (the registries no build machine reaches)
  on a release made from the command itself (its paths, its pattern).
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codenav import cli, grammar, registries, tools
from codenav.mcp import handlers
from tests.support import readme
from tests.support.cli import ROOT, run_cli
from tests.support.registries import Adapter, surfaces

SPEC = ROOT / "docs" / "spec.md"
PACKAGE = ROOT / "codenav"
DATA = ROOT / "tests" / "data" / "readme"


def spec_text() -> str:
    return SPEC.read_text(encoding="utf-8")


def readme_text() -> str:
    return readme.README.read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    """The text under the heading that starts with ``heading`` (its level given by its #s), up
    to the next heading of the same or a higher level."""
    level = len(heading) - len(heading.lstrip("#"))
    start = re.search(rf"^{re.escape(heading)}", text, re.M).start()
    body = text.index("\n", start) + 1
    end = re.search(rf"^#{{1,{level}}} ", text[body:], re.M)
    return text[start:body + end.start()] if end else text[start:]


def table(text: str) -> tuple[list[str], list[list[str]]]:
    """(header cells, rows of cells) of the first Markdown table in ``text``; ``\\|`` is a bar
    inside a cell."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("|"))
    block = []
    for line in lines[first:]:
        if not line.startswith("|"):
            break
        block.append(line)
    assert len(block) >= 2 and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", block[1]), block[:2]
    cells = [[cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]] for line in block]
    return cells[0], [row for index, row in enumerate(cells) if index != 1][1:]


# --- the tool tables -------------------------------------------------------------------------

def accepted_options() -> dict[str, set[str]]:
    """Each subcommand's option strings, as the CLI's argparse parser accepts them."""
    parser = cli._build_parser(None)
    (subparsers,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    return {name: set(sub._option_string_actions) for name, sub in subparsers.choices.items()}


def tool_table_problems(rows: list[list[str]], where: str) -> list[str]:
    """What a tool table says that the tool registry and the grammar do not."""
    problems = []
    names = [row[0].strip("`") for row in rows]
    if names != list(tools.REGISTRY):
        problems.append(f"{where}: tools {names}, the registry has {list(tools.REGISTRY)}")
    options = accepted_options()
    for row in rows:
        tool, line = row[0].strip("`"), row[1]
        command = tools.REGISTRY.get(tool)
        said = set(re.findall(r"`codenav (\w+)", line))
        if said != {command}:
            problems.append(f"{where}: {tool}'s row runs codenav {sorted(said)}, the registry says {command}")
            continue
        flags = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", line))
        unknown = sorted(flags - options[command])
        if unknown:
            problems.append(f"{where}: {tool}'s row names {unknown}, which `codenav {command}` does not take")
    return problems


def test_the_spec_tool_table_is_the_tool_registry_with_each_tools_command_and_options():
    """§2's table lists every tool of tools.REGISTRY in order (grep_repo and list_deps included),
    each row with the tool's CLI command and only options that command's parser takes."""
    header, rows = table(section(spec_text(), "## 2. Tools"))
    assert header == ["MCP tool", "CLI", "purpose"]
    assert not tool_table_problems(rows, "docs/spec.md §2")


def test_the_readme_tool_table_is_the_tool_registry_with_each_tools_command_and_options():
    """The README's Tools table lists every tool in registry order, with its command and options."""
    header, rows = table(section(readme_text(), "## Tools"))
    assert header == ["MCP tool", "CLI", "what it does"]
    assert not tool_table_problems(rows, "README Tools")


def test_a_tool_table_that_drifted_is_reported():
    """A missing tool, a wrong command and an option the command lacks are each reported."""
    rows = [[f"`{name}`", f"`codenav {command}`", "x"] for name, command in tools.REGISTRY.items()]
    assert tool_table_problems(rows, "t") == []
    dropped = [row for row in rows if row[0] != "`list_deps`"]
    assert any("tools" in p for p in tool_table_problems(dropped, "t"))
    wrong = [row if row[0] != "`read_file`" else ["`read_file`", "`codenav files PATH`", "x"] for row in rows]
    assert any("read_file's row runs codenav ['files']" in p for p in tool_table_problems(wrong, "t"))
    flag = [row if row[0] != "`read_file`" else ["`read_file`", "`codenav read PATH --regex`", "x"] for row in rows]
    assert any("['--regex']" in p for p in tool_table_problems(flag, "t"))


# --- tools and registries named ---------------------------------------------------------------

def unnamed(text: str, names: list[str]) -> list[str]:
    """The names ``text`` does not hold as whole words (a name ending in ``:`` is a prefix)."""
    return [name for name in names
            if not re.search(rf"(?<![\w-]){re.escape(name)}" + ("" if name.endswith(":") else r"(?![\w-])"), text)]


@pytest.mark.parametrize("instructions", [handlers.INSTRUCTIONS, handlers.JSON_INSTRUCTIONS], ids=["text", "json"])
def test_the_servers_instructions_name_every_tool_and_registry(instructions: str):
    """What a host puts in the model's system prompt names every tool and every registry."""
    assert unnamed(instructions, list(tools.REGISTRY)) == []
    assert unnamed(instructions, list(registries.TABLE)) == []


def test_the_readme_names_every_tool_and_registry():
    """Every tool and every registry prefix appears in the README's text."""
    text = readme_text()
    assert unnamed(text, list(tools.REGISTRY)) == []
    assert unnamed(text, [f"{prefix}:" for prefix in registries.TABLE]) == []


def aliases_of(prefix: str) -> list[str]:
    return [alias for alias, canonical in registries.ALIASES.items() if canonical == prefix]


def test_the_readme_registry_table_has_one_well_formed_row_per_registry():
    """The Registries table: one row per registry in table order, its first cell the prefix and
    its aliases, as many cells as the header, none empty."""
    header, rows = table(section(readme_text(), "## Registries"))
    assert [cell for cell in header if cell] == header and len(header) == 3
    bad = [row for row in rows if len(row) != len(header) or not all(row)]
    assert not bad, f"rows with {len(header)} cells expected: {bad}"
    expected = [f"`{p}`" + (" (" + ", ".join(f"`{a}`" for a in aliases_of(p)) + ")" if aliases_of(p) else "")
                for p in registries.TABLE]
    assert [row[0] for row in rows] == expected


# --- the layout tree --------------------------------------------------------------------------

def tree_entries(text: str) -> dict[str, set[str]]:
    """The §9 tree as {entry: the module and package names it holds}: an entry is a line indented
    by two spaces (``cli.py``, ``registries/``), with the lines indented further that follow."""
    body = section(text, "## 9. How the code is laid out")
    tree = re.search(r"```\ncodenav/\n(.*?)```", body, re.S)
    assert tree, "§9 has no ```codenav/ tree"
    entries: dict[str, set[str]] = {}
    current = None
    for line in tree.group(1).splitlines():
        if re.match(r"  \S", line):
            current = line.split()[0]
            entries[current] = set()
        assert current is not None, line
        entries[current] |= set(re.findall(r"(?<![\w./])(\w+\.py|\w+/(?![\w.]))", line))
    return entries


def layout_problems(entries: dict[str, set[str]], package: Path) -> list[str]:
    """The modules and packages under ``package`` the tree does not name where they belong, and
    the names it holds that do not exist there."""
    problems = []
    top_level = set().union(*(names for entry, names in entries.items() if not entry.endswith("/")))
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package).parts
        if "__pycache__" in parts or path.name == "__init__.py":
            continue
        if len(parts) == 1:
            if path.name not in top_level:
                problems.append(f"codenav/{path.name} is not in the tree")
        elif path.name not in entries.get(parts[0] + "/", set()):
            problems.append(f"codenav/{'/'.join(parts)} is not in the {parts[0]}/ entry")
    for folder in sorted(p for p in package.rglob("*") if p.is_dir() and (p / "__init__.py").exists()):
        parts = folder.relative_to(package).parts
        if parts[0] + "/" not in entries or (len(parts) > 1 and parts[-1] + "/" not in entries[parts[0] + "/"]):
            problems.append(f"the package codenav/{'/'.join(parts)}/ is not in the tree")
    for entry, names in entries.items():
        where = package / entry if entry.endswith("/") else package
        real = {p.name for p in where.rglob("*.py")} | {p.name + "/" for p in where.rglob("*") if p.is_dir()}
        real |= {where.name + "/"} | {p.name for p in package.glob("*.py")}  # a top-level module may be cited
        for name in sorted(names - real):
            problems.append(f"the tree's {entry} entry names {name}, which is not there")
    return problems


def test_the_spec_layout_tree_names_every_package_and_module():
    """§9's tree names every package and every module of codenav/ (a module in its package's
    entry, a top-level module in a top-level entry) and nothing that does not exist."""
    assert layout_problems(tree_entries(spec_text()), PACKAGE) == []


def test_a_module_left_out_of_the_tree_or_a_stale_name_in_it_is_reported(tmp_path: Path):
    """Adding a module, or a package, without naming it fails; so does naming one that is gone."""
    package = tmp_path / "codenav"
    for name in ("__init__.py", "cli.py", "search/__init__.py", "search/grep.py", "search/symbols/__init__.py",
                 "search/symbols/go.py"):
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text("")
    spec = ("## 9. How the code is laid out\n\n```\ncodenav/\n  cli.py  the face\n"
            "  search/  grep.py; symbols/: go.py\n```\n")
    entries = tree_entries(spec)
    assert entries == {"cli.py": {"cli.py"}, "search/": {"search/", "grep.py", "symbols/", "go.py"}}
    assert layout_problems(entries, package) == []
    (package / "search" / "plain.py").write_text("")
    (package / "words.py").write_text("")
    (package / "review").mkdir()
    (package / "review" / "__init__.py").write_text("")
    assert sorted(layout_problems(entries, package)) == [
        "codenav/search/plain.py is not in the search/ entry", "codenav/words.py is not in the tree",
        "the package codenav/review/ is not in the tree"]
    (package / "search" / "grep.py").unlink()
    (package / "search" / "plain.py").unlink()
    (package / "words.py").unlink()
    (package / "review" / "__init__.py").unlink()
    assert layout_problems(entries, package) == ["the tree's search/ entry names grep.py, which is not there"]


# --- the variables ----------------------------------------------------------------------------

VARIABLE = re.compile(r"CODENAV_[A-Z0-9_]*[A-Z0-9]")


def read_variables() -> set[str]:
    """Every CODENAV_* name written in the package's source."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        found |= set(VARIABLE.findall(path.read_text(encoding="utf-8")))
    return found


def configuration_table() -> set[str]:
    _, rows = table(section(readme_text(), "## Configuration"))
    return set(VARIABLE.findall(" ".join(row[0] for row in rows)))


def test_every_variable_the_code_reads_is_documented():
    """Each CODENAV_* variable in codenav/ is in the README's configuration table or docs/spec.md."""
    documented = configuration_table() | set(VARIABLE.findall(spec_text()))
    assert sorted(read_variables() - documented) == []
    assert len(read_variables()) >= 40  # the scan sees the package


def test_every_variable_of_the_configuration_table_is_read_by_the_code():
    """The README's configuration table names no variable the code no longer reads."""
    assert sorted(configuration_table() - read_variables()) == []


# --- the README's commands --------------------------------------------------------------------

EXAMPLES = readme.examples()


def test_the_readme_has_the_examples_this_module_runs():
    """The scan finds the install line, the prompted chain, the review, one unprompted example per
    registry besides npm and PyPI, the MCP and skill commands."""
    argv = [example.argv for example in EXAMPLES]
    assert ("files", "npm:express", "lib") in argv and ("mcp",) in argv and ("skill",) in argv
    assert any(example.prompted and example.env == {"CODENAV_OSV_URL": "off"} for example in EXAMPLES)
    assert sum(example.prompted for example in EXAMPLES) >= 10
    prefixes = {example.argv[1].split(":")[0] for example in EXAMPLES if not example.prompted and len(example.argv) > 1}
    assert set(registries.TABLE) - {"npm", "pypi"} <= prefixes


@pytest.mark.parametrize("example", EXAMPLES, ids=[example.id for example in EXAMPLES])
def test_every_readme_command_is_accepted_by_the_cli_grammar(example: readme.Example):
    """argparse, built from the grammar as `codenav` builds it, takes the command line."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            ns = cli._build_parser(None).parse_args(list(example.argv))
        except SystemExit as exc:
            pytest.fail(f"README line {example.line}: `codenav {' '.join(example.argv)}` exits {exc.code}: "
                        f"{err.getvalue().strip()}")
    assert ns.command is not None


def concrete(version: str | None) -> str:
    """A version a release can be published under that the example's version asks for: the
    version itself, or the first version a range names (``>=2,<3`` -> ``2``)."""
    if version is None:
        return "1.0.0"
    if re.fullmatch(r"[\w.+~-]+", version):
        return version
    return re.search(r"v?\d+(?:\.\d+)*", version).group(0)


def release(example: readme.Example) -> tuple[str, str, list[tuple[str, dict[str, bytes]]], str | None]:
    """(registry prefix, package name, [(version, files)], the artifact asked for) that let the
    command succeed: the files it names, holding the pattern it greps or the name it looks up."""
    ns = cli._build_parser(None).parse_args(list(example.argv))
    command = grammar.COMMANDS[ns.command]
    target, rest = tools.split_operands(ns, command.usage, command.operands)
    said = {operand.argument: value for operand, value in zip(command.operands, rest, strict=True)}
    body = "".join(f"line {n} of the README's example\n" for n in range(1, 31)).encode()

    def inside(path: str | None, name: str, data: bytes) -> dict[str, bytes]:
        if path and "." in path.rsplit("/", 1)[-1]:  # a file
            return {path: data}
        return {f"{path}/{name}" if path else name: data}

    if ns.command == "read":
        files = {said["path"]: body}
    elif ns.command == "files":
        files = inside(said.get("path_prefix"), "README.txt", body)
    elif ns.command == "grep":
        files = inside(said.get("path"), "example.txt", body + said["pattern"].encode() + b"\n")
    elif ns.command == "symbols":
        files = inside(said.get("path_prefix") or "src", "example.py", f"def {said['query']}():\n    pass\n".encode())
    elif ns.command == "diff":
        return target["registry"], target["package_name"], [
            (concrete(said[side]), inside(said.get("path_prefix") or "src", "example.txt", body + side.encode()))
            for side in ("from_version", "to_version")], ns.artifact
    else:
        raise AssertionError(f"README line {example.line}: no release is made for `codenav {ns.command}` here")
    return target["registry"], target["package_name"], [(concrete(target.get("version")), files)], ns.artifact


def publish(adapters: dict[str, Adapter], example: readme.Example) -> None:
    prefix, name, versions, artifact = release(example)
    registry = registries.canonical(prefix)
    adapter = next(a for a in adapters.values() if a.registry == registry)
    for version, files in versions:
        if registry == "conda" and artifact:  # --artifact SUBDIR: that subdir's build
            adapter.fake.publish(name, version, files, subdir=artifact)
        else:
            adapter.publish(name, version, files)


def real(example: readme.Example) -> bool:
    """Whether the example reads a package of tests/data/readme (npm's express, PyPI's requests)."""
    return len(example.argv) > 1 and example.argv[1].startswith(("npm:express", "pypi:requests"))


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Every registry's fake: express and requests as published, and a release for every other
    example of the README."""
    with surfaces(tmp_path_factory.mktemp("readme")) as world:
        adapters = world["registries"]
        for version in ("4.21.2", "5.1.0"):
            adapters["npm"].fake.publish("express", version, {}, tarball=(DATA / f"express-{version}.tgz").read_bytes())
        wheel = "requests-2.32.3-py3-none-any.whl"
        adapters["pypi-wheel"].fake.add("requests", wheel, (DATA / wheel).read_bytes())
        for example in EXAMPLES:
            if example.argv and example.argv[0] in grammar.COMMANDS and not real(example):
                publish(adapters, example)
        yield world


@pytest.mark.parametrize("example", EXAMPLES, ids=[example.id for example in EXAMPLES])
def test_every_readme_command_runs_against_the_fakes(world: dict[str, Any], example: readme.Example):
    """Each command exits 0 and prints something (the MCP server: ends at EOF); a prompted
    example prints exactly the output the README shows under it (``…`` for lines left out)."""
    env = {**world["env"], **example.env}
    serving = example.argv == ("mcp",)
    proc = run_cli(*example.argv, env=env, input=b"" if serving else None, timeout=180)
    where = f"README line {example.line}: codenav {' '.join(example.argv)}"
    assert proc.returncode == 0, f"{where}\n{proc.stderr.decode(errors='replace')}"
    printed = proc.stdout.decode("utf-8")
    assert serving or printed.strip(), where
    if example.shown:
        assert readme.matches(example.shown, printed), f"{where} printed:\n{printed}"


def test_shown_output_is_compared_line_by_line():
    """Shown lines match in order, `…` stands for any number of lines, and nothing else may follow."""
    assert readme.matches(["a", "…", "d"], "a\nb\nc\nd\n")
    assert readme.matches(["a", "…"], "a\n") and readme.matches(["a", "…"], "a\nb\n")
    assert not readme.matches(["a"], "a\nb\n")
    assert not readme.matches(["a", "c"], "a\nb\nc\n")
    assert not readme.matches(["a  b"], "a b\n")
