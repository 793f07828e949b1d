"""The layout holds its shape: no import circles, no upward import, small modules (SPEC §9)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from tests.support.cli import ROOT

PACKAGE = ROOT / "codenav"
# Data flows one way: surface -> tool -> cache -> (target, registry, remote, archive) -> core.
# A module may import its own layer or a lower one, never a higher one.
LAYERS = (
    ("core", ("codenav", "codenav.errors", "codenav.paths", "codenav.proc", "codenav.text", "codenav.contract", "codenav.words",
              "codenav.grammar", "codenav.budget", "codenav.net", "codenav.httpclient", "codenav.netrequests", "codenav.neterrors",
              "codenav.ranges", "codenav.config")),
    ("sources", ("codenav.targets", "codenav.registries", "codenav.remotes", "codenav.archive", "codenav.lockfiles",
                 "codenav.search")),
    ("cache", ("codenav.cache",)),
    ("tools", ("codenav.tools", "codenav.review")),
    ("surfaces", ("codenav.cli", "codenav.__main__", "codenav.mcp", "codenav.commands")),
)
MAX_LINES = 500
SIZE_NOTE = "over 500 lines"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def import_graph() -> dict[str, set[str]]:
    """Module -> the codenav modules it imports anywhere (module level or inside functions)."""
    known = modules()
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                # `from pkg import mod` needs the module, and the package only for a name
                # that is not a module of it (a package's own __init__ is already loading).
                submodules = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in known]
                candidates = submodules + ([target] if len(submodules) < len(node.names) else [])
            elif isinstance(node, ast.Import):
                candidates = [alias.name for alias in node.names]
            else:
                continue
            graph[name].update(c for c in candidates if c in known and c != name)
    return graph


def layer_of(name: str) -> int:
    best, depth = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > depth:
                best, depth = index, len(prefix)
    assert best >= 0, f"{name} is in no layer of tests/test_layout.py"
    return best


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                component.append(item)
                if item == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_import_graph_has_no_circle():
    """No two codenav modules import each other, directly or round a circle, even lazily."""
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_circle():
    """The circle check reports a circle it is shown (so the test above can fail)."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_from_a_higher_layer():
    """Imports go down the layers only (surface -> tool -> cache -> sources -> core)."""
    upward = sorted(f"{name} -> {other}" for name, others in import_graph().items() for other in others
                    if layer_of(other) > layer_of(name))
    assert upward == []


def test_modules_are_small_or_say_why():
    """A module over about 500 lines says why in its docstring."""
    big = []
    for name, path in modules().items():
        text = path.read_text()
        if text.count("\n") > MAX_LINES and SIZE_NOTE not in (ast.get_docstring(ast.parse(text)) or ""):
            big.append(f"{name}: {text.count(chr(10))} lines")
    assert big == []


def test_every_package_ships_in_the_wheel():
    """Each folder of codenav/ with an __init__.py is listed in pyproject.toml's packages."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    packages = {module_name(p) for p in PACKAGE.rglob("__init__.py")}
    assert packages - listed == set()


def test_at_most_four_modules_are_over_500_lines_and_none_over_950():
    """The module sizes issue 22 set: at most four modules over 500 lines, none over 950."""
    sizes = {name: path.read_text().count("\n") for name, path in modules().items()}
    over = {name: lines for name, lines in sizes.items() if lines > MAX_LINES}
    assert len(over) <= 4 and max(sizes.values()) <= 950, over


def _underscore_keys(path: Path) -> list[str]:
    """The string keys starting with one underscore that ``path`` subscripts or ``.get``s."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        key = None
        if isinstance(node, ast.Subscript):
            key = node.slice
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "get", "pop", "setdefault") and node.args:
            key = node.args[0]
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.startswith("_") \
                and not key.value.startswith("__") and key.value != "_meta":  # _meta: MCP's own field
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {key.value}")
    return found


def test_no_underscore_key_travels_through_run():
    """Tools, the CLI and the MCP server pass no ``"_x"`` keys beside the schema's arguments or
    results: what the CLI asks travels as one CliOptions (issue 22 item 3)."""
    paths = [*(PACKAGE / "tools").glob("*.py"), PACKAGE / "cli.py", *(PACKAGE / "mcp").glob("*.py")]
    assert [hit for path in paths for hit in _underscore_keys(path)] == []
