"""Symbol extraction (Python, JavaScript/TypeScript) and the on-disk symbol index (issue 16)."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codenav.search.symbols import (
    HEADER,
    MAX_LINE_BYTES,
    Skipped,
    Symbol,
    extract,
    format_line,
    is_test_path,
    parse_line,
    query,
    write_index,
)
from codenav.search.symbols.javascript import tokenize
from tests.support.samples import JS_SOURCE, TS_SOURCE

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "symbols"


def rows(symbols: list[Symbol]) -> list[tuple]:
    """(line, kind, container, name, exported) of each symbol, in order."""
    return [(s.line, s.kind, s.container, s.name, s.exported) for s in symbols]


def by_name(symbols: list[Symbol], name: str) -> list[Symbol]:
    return [s for s in symbols if s.name == name]


# --- Python --------------------------------------------------------------------------------------

PYTHON_SOURCE = b'''\
"""Widgets for the demo app.

Longer text.
"""
from __future__ import annotations

import enum
from typing import Protocol, TypeVar, overload

__all__ = ["Widget", "render", "MAX_WIDGETS"]
__all__ += ["Color"]

MAX_WIDGETS = 10  # the cap
default_name: str = "w"
T = TypeVar("T")
FAKE = "def not_a_function(): class NotAClass: pass"
a, (b, *rest) = 1, (2, 3)

try:
    from fast import speedup
except ImportError:
    def speedup(x):  # fallback
        return x


class Color(enum.Enum):
    RED = 1
    green = 2


class Drawable(Protocol):
    def draw(self) -> None: ...


class Widget:
    """A widget.

    More.
    """

    kind = "plain"
    _registry: dict[str, Widget] = {}

    class Meta:
        """Options."""
        ordering = ("name",)

        class Inner:
            pass

    def __init__(self, name: str = "x",
                 *, size: int = 1,  # a comment with a colon: here
                 ) -> None:
        self.name = name

    @property
    def size(self) -> int:
        """The size in pixels."""
        return 1

    @size.setter
    def size(self, value: int) -> None:
        pass

    @staticmethod
    def make() -> Widget:
        return Widget()

    async def fetch(self, url: str = "http://x:80/") -> bytes:
        return b""

    def _private(self):
        def helper():
            pass
        return helper


@overload
def render(x: int) -> str: ...
@overload
def render(x: str) -> str: ...
def render(x):
    """Render anything."""
    return str(x)


def _internal(a, b=lambda y: y): pass
'''


def test_python_definitions_kinds_containers_and_exports() -> None:
    """Every def, class and module/class-level assignment is a symbol with its kind, container and export status."""
    symbols = extract("demo/widgets.py", PYTHON_SOURCE)
    assert rows(symbols) == [
        (1, "module", "", "widgets", True),
        (13, "constant", "", "MAX_WIDGETS", True),
        (14, "variable", "", "default_name", False),
        (15, "type", "", "T", False),
        (16, "constant", "", "FAKE", False),
        (17, "variable", "", "a", False),
        (17, "variable", "", "b", False),
        (17, "variable", "", "rest", False),
        (22, "function", "", "speedup", False),
        (26, "enum", "", "Color", True),
        (27, "constant", "Color", "RED", True),
        (28, "constant", "Color", "green", True),
        (31, "interface", "", "Drawable", False),
        (32, "method", "Drawable", "draw", False),
        (35, "class", "", "Widget", True),
        (41, "property", "Widget", "kind", True),
        (42, "property", "Widget", "_registry", False),
        (44, "class", "Widget", "Meta", True),
        (46, "property", "Widget.Meta", "ordering", True),
        (48, "class", "Widget.Meta", "Inner", True),
        (51, "method", "Widget", "__init__", True),
        (57, "property", "Widget", "size", True),
        (62, "property", "Widget", "size", True),
        (66, "method", "Widget", "make", True),
        (69, "method", "Widget", "fetch", True),
        (72, "method", "Widget", "_private", False),
        (73, "function", "Widget._private", "helper", False),
        (79, "function", "", "render", True),
        (81, "function", "", "render", True),
        (82, "function", "", "render", True),
        (87, "function", "", "_internal", False),
    ]


def test_python_signatures_and_docs_come_from_the_source() -> None:
    """Signatures are the one-line header up to its colon (comments dropped); docs are the docstring's first line."""
    symbols = extract("demo/widgets.py", PYTHON_SOURCE)
    init = by_name(symbols, "__init__")[0]
    assert init.signature == 'def __init__(self, name: str = "x", *, size: int = 1) -> None'
    assert init.end_line == 54
    fetch = by_name(symbols, "fetch")[0]
    assert fetch.signature == 'async def fetch(self, url: str = "http://x:80/") -> bytes'
    assert by_name(symbols, "_internal")[0].signature == "def _internal(a, b=lambda y: y)"
    assert by_name(symbols, "Color")[0].signature == "class Color(enum.Enum)"
    assert by_name(symbols, "MAX_WIDGETS")[0].signature == "MAX_WIDGETS = 10"
    assert [s.signature for s in by_name(symbols, "render")] == [
        "def render(x: int) -> str", "def render(x: str) -> str", "def render(x)"]
    assert by_name(symbols, "widgets")[0].doc == "Widgets for the demo app."
    assert by_name(symbols, "Widget")[0].doc == "A widget."
    assert by_name(symbols, "size")[0].doc == "The size in pixels."
    assert by_name(symbols, "render")[2].doc == "Render anything."
    assert by_name(symbols, "Widget")[0].end_line == 75


def test_python_without_all_exports_public_names() -> None:
    """Without ``__all__`` a module-level name is exported unless it starts with an underscore; __init__.py names the package."""
    source = b"def public(): pass\ndef _hidden(): pass\nVALUE = 1\n_cache = {}\n"
    symbols = extract("pkg/__init__.py", source)
    assert rows(symbols) == [(1, "module", "", "pkg", True), (1, "function", "", "public", True),
                             (2, "function", "", "_hidden", False), (3, "constant", "", "VALUE", True),
                             (4, "variable", "", "_cache", False)]


def test_python_stub_files_are_read() -> None:
    """A .pyi stub gives its overloads and annotated names like a module does."""
    source = b"from typing import overload\nx: int\n@overload\ndef f(a: int) -> int: ...\n@overload\ndef f(a: str) -> str: ...\n"
    assert rows(extract("m.pyi", source)) == [(1, "module", "", "m", True), (2, "variable", "", "x", True),
                                              (4, "function", "", "f", True), (6, "function", "", "f", True)]


def requests_files() -> list[Path]:
    import requests

    root = Path(os.path.dirname(requests.__file__))
    return sorted(root.rglob("*.py"))


def ast_walk_definitions(tree: ast.Module) -> set[tuple[str, int, str]]:
    """(name, line, family) of every def/class and every module-level assignment, found by ``ast.walk``."""
    found = set()
    inside_scope = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.add((node.name, node.lineno, "def"))
        elif isinstance(node, ast.ClassDef):
            found.add((node.name, node.lineno, "class"))
        else:
            continue
        inside_scope.update(id(inner) for inner in ast.walk(node) if inner is not node)

    def names(target: ast.AST):
        if isinstance(target, ast.Name):
            yield target.id
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                yield from names(element)
        elif isinstance(target, ast.Starred):
            yield from names(target.value)

    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and id(node) not in inside_scope:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in names(target):
                    if name != "__all__":  # the export list itself is not a definition (python.py)
                        found.add((name, node.lineno, "assign"))
    return found


FAMILIES = {"def": {"function", "method", "property"}, "class": {"class", "enum", "interface"},
            "assign": {"variable", "constant", "type"}}


def test_python_recall_over_the_installed_requests_package() -> None:
    """Every def, class and module-level assignment of the real requests package is returned, at its line, with a fitting kind."""
    files = requests_files()
    assert len(files) > 10
    checked = 0
    for file in files:
        data = file.read_bytes()
        symbols = extract(f"requests/{file.name}", data)
        assert isinstance(symbols, list), (file, symbols)
        got = {(s.name, s.line): s.kind for s in symbols}
        for name, line, family in ast_walk_definitions(ast.parse(data)):
            assert (name, line) in got, (file.name, name, line)
            kinds = {s.kind for s in symbols if s.name == name and s.line == line}
            assert kinds & FAMILIES[family], (file.name, name, line, kinds)
            checked += 1
    assert checked > 300


def test_python_syntax_errors_and_deep_nesting_are_skipped() -> None:
    """A Python file that does not parse, or nests too deeply for the parser, is a Skipped marker, not an exception."""
    assert isinstance(extract("bad.py", b"def broken(:\n    pass\n"), Skipped)
    assert isinstance(extract("nul.py", b"x = 1\0\n"), Skipped)
    deep = b"x = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n"
    assert isinstance(extract("deep.py", deep), Skipped)


# --- JavaScript / TypeScript ---------------------------------------------------------------------


def test_typescript_declarations() -> None:
    """TS declarations, class/interface/enum members, namespaces, declare module/global, overloads and export forms are found; text in strings, templates, regexes and comments is not."""
    symbols = extract("src/widget.ts", TS_SOURCE.encode())
    assert rows(symbols) == [
        (5, "variable", "", "s1", False),
        (6, "variable", "", "s2", False),
        (7, "variable", "", "tpl", False),
        (8, "variable", "", "re", False),
        (8, "variable", "", "ratio", False),
        (9, "variable", "", "counter", True),
        (11, "function", "", "add", True),
        (12, "class", "", "Widget", True),
        (13, "property", "Widget", "count", True),
        (14, "property", "Widget", "#secret", False),
        (15, "property", "Widget", "hidden", False),
        (16, "property", "Widget", "name", True),
        (17, "method", "Widget", "constructor", True),
        (18, "property", "Widget", "size", True),
        (19, "property", "Widget", "size", True),
        (20, "method", "Widget", "create", True),
        (21, "method", "Widget", "items", True),
        (22, "method", "Widget", "handler", True),
        (23, "property", "Widget", "label", True),
        (24, "method", "Widget", "render", True),
        (25, "method", "Widget", "render", True),
        (27, "enum", "", "Color", True),
        (27, "constant", "Color", "Red", True),
        (27, "constant", "Color", "Green", True),
        (27, "constant", "Color", "Blue", True),
        (28, "interface", "", "Shape", True),
        (28, "method", "Shape", "area", True),
        (28, "property", "Shape", "sides", True),
        (28, "method", "Shape", "map", True),
        (29, "type", "", "Pair", True),
        (30, "type", "", "Fn", False),
        (31, "namespace", "", "Outer.Inner", True),
        (31, "variable", "Outer.Inner", "deep", True),
        (31, "function", "Outer.Inner", "hidden", False),
        (31, "class", "Outer.Inner", "Nested", True),
        (31, "method", "Outer.Inner.Nested", "run", True),
        (32, "module", "", "my-mod", True),
        (33, "function", "my-mod", "fromMod", True),
        (34, "interface", "my-mod", "ModOpts", True),
        (34, "property", "my-mod.ModOpts", "verbose", True),
        (36, "namespace", "", "global", True),
        (36, "interface", "global", "Window", True),
        (36, "property", "global.Window", "myGlobal", True),
        (37, "function", "", "overloaded", True),
        (38, "function", "", "overloaded", True),
        (39, "function", "", "arrow", True),
        (40, "function", "", "typed", True),
        (41, "function", "", "plus", True),
        (42, "variable", "", "other", True),
        (42, "variable", "", "dflt", True),
        (44, "namespace", "", "ns", True),
        (45, "constant", "", "MAX_SIZE", False),
        (45, "variable", "", "minSize", False),
        (46, "variable", "", "alpha", False),
        (46, "variable", "", "gamma", False),
        (46, "variable", "", "rest", False),
        (47, "class", "", "Abs", False),
        (47, "method", "Abs", "run", False),
        (47, "method", "Abs", "step", False),
        (48, "function", "", "gen", False),
    ]


def test_typescript_signatures_generics_and_docs() -> None:
    """Signatures keep generics and return types and stop before the body; JSDoc gives the doc."""
    symbols = extract("src/widget.ts", TS_SOURCE.encode())
    add = by_name(symbols, "add")[0]
    assert (add.signature, add.doc) == ("export function add<T extends number>(a: T, b: T): T", "Adds two numbers.")
    assert by_name(symbols, "Widget")[0].signature == \
        "export default class Widget<P = {}> extends Base<P> implements IWidget"
    assert by_name(symbols, "Widget")[0].end_line == 26
    assert by_name(symbols, "arrow")[0].signature == "export const arrow = async (a: number): Promise<number> =>"
    assert by_name(symbols, "handler")[0].signature == "handler = (e: Event) =>"
    assert by_name(symbols, "map")[0].signature == "map<U>(fn: (t: T) => U): Shape<U>"
    assert by_name(symbols, "Pair")[0].signature == "export type Pair<A, B = A> = { first: A; second: B }"
    assert by_name(symbols, "Fn")[0].signature == "type Fn = (a: number, b: Map<string, number>) => void"
    assert by_name(symbols, "minSize")[0].signature == "const minSize = 1"
    assert by_name(symbols, "other")[0].signature == "export { something as other, default as dflt } from './other'"
    assert [s.signature for s in by_name(symbols, "overloaded")] == [
        "declare function overloaded(a: string): string", "declare function overloaded(a: number): number"]


def test_typescript_type_arguments_of_new_do_not_split_a_declarator() -> None:
    """`new Map<string, Router>()` declares one variable: the comma inside its type arguments is no declarator."""
    symbols = extract("src/cache.ts", b"const cache = new Map<string, Router>(), other = 2;\n"
                                      b"const m = new a.B<C<D>, E>();\nlet lt = new X < y, z = 3;\n")
    assert [(s.name, s.line) for s in symbols] == [("cache", 1), ("other", 1), ("m", 2), ("lt", 3), ("z", 3)]
    assert symbols[0].signature == "const cache = new Map<string, Router>()"


def test_javascript_commonjs_prototype_and_object_forms() -> None:
    """CommonJS exports, ``obj.x = function``, prototype methods and ``module.exports = {…}`` members are found; division is not a regex."""
    symbols = extract("lib/app.js", JS_SOURCE.encode())
    assert rows(symbols) == [
        (3, "variable", "", "app", True),
        (4, "variable", "", "version", True),
        (5, "function", "", "helper", True),
        (6, "class", "", "Klass", True),
        (7, "method", "app", "use", True),
        (11, "method", "Router", "route", False),
        (12, "method", "Router", "get", False),
        (12, "method", "Router", "post", False),
        (12, "property", "Router", "_priv", False),
        (13, "function", "", "Router", False),
        (14, "variable", "", "x", False),  # "a\n/foo/g.test(b)" is a division per the grammar
        (16, "variable", "", "y", False),
        (18, "variable", "", "z", False),
        (18, "variable", "", "w", False),
        (19, "function", "", "after", False),
        (21, "function", "", "wrapped", False),
        (23, "function", "", "two", True),
        (23, "function", "", "three", True),
        (23, "property", "", "four", True),
        (24, "variable", "", "q", False),
        (24, "variable", "", "r", False),
        (24, "function", "", "afterStrings", False),
        (25, "variable", "", "rx", False),
        (25, "variable", "", "d2", False),
        (25, "function", "", "afterRegex", False),
    ]
    assert by_name(symbols, "use")[0].signature == "app.use = function use(fn)"
    assert by_name(symbols, "use")[0].end_line == 10


def test_javascript_script_globals_have_no_export_status() -> None:
    """In a plain script (no import/export/require/exports) top-level names are neither exported nor internal."""
    symbols = extract("vendor/legacy.js", b"function setup() {}\nvar CONFIG = {a: 1};\n")
    assert rows(symbols) == [(1, "function", "", "setup", None), (2, "variable", "", "CONFIG", None)]


def test_javascript_default_exports() -> None:
    """Each ``export default`` form gives a symbol: a named declaration under its name, anything else as ``default``."""
    cases = {
        b"export default function () {}\n": [(1, "function", "", "default", True)],
        b"export default function named(a) {}\n": [(1, "function", "", "named", True)],
        b"export default class {}\n": [(1, "class", "", "default", True)],
        b"class Store {}\nexport default Store;\n": [(1, "class", "", "Store", True), (2, "class", "", "default", True)],
        b"export default (a, b) => a + b;\n": [(1, "function", "", "default", True)],
        b"export default { name: 'x' };\n": [(1, "variable", "", "default", True)],
        b"export default async function load() {}\n": [(1, "function", "", "load", True)],
    }
    for source, expected in cases.items():
        assert rows(extract("m.mjs", source)) == expected, source


TSX_SOURCE = b"""\
import React from 'react';
export interface Props { title: string; onClick?: () => void }
export const Button: React.FC<Props> = ({ title, onClick }) => {
  return <button onClick={onClick}>Don't {title} click</button>;
};
export function List<T>({ items }: { items: T[] }) {
  return <ul>{items.map((item, i) => <li key={i}>It's {String(item)} {"}"}</li>)}</ul>;
}
export const identity = <T,>(value: T): T => value;
export default function App() {
  return (
    <>
      <Button title="a/b" onClick={() => { function notReal() {} }} />
    </>
  );
}
const after = 1;
"""


def test_jsx_text_and_attributes_do_not_break_the_scan() -> None:
    """JSX text with apostrophes and braces, attribute expressions and fragments are skipped; TSX generic arrows are not JSX."""
    assert rows(extract("src/App.tsx", TSX_SOURCE)) == [
        (2, "interface", "", "Props", True),
        (2, "property", "Props", "title", True),
        (2, "property", "Props", "onClick", True),
        (3, "function", "", "Button", True),
        (6, "function", "", "List", True),
        (9, "function", "", "identity", True),
        (10, "function", "", "App", True),
        (17, "variable", "", "after", False),
    ]


def test_template_literals_nest_and_keep_line_numbers() -> None:
    """A template with nested ``${`…`}`` and braces in strings ends where JavaScript says, and lines after it stay right."""
    source = b"const t = `line1\n${ fn({ a: `in ${ '}' } ner` }) }\nline3`;\nfunction after() {}\n"
    assert rows(extract("t.js", source)) == [(1, "variable", "", "t", None), (4, "function", "", "after", None)]
    kinds = [tok[0] for tok in tokenize(source.decode())]
    assert kinds == ["n", "n", "p", "t", "p", "n", "n", "p", "p", "p", "p"]


def test_regex_or_division_follows_the_previous_token() -> None:
    """``/`` after an operand is division; after an operator, ``(``, ``,``, ``return`` or at the start it begins a regex."""
    def kinds(text: str) -> list[str]:
        return [tok[0] + tok[1] if tok[0] == "p" else tok[0] for tok in tokenize(text)]

    assert kinds("a / b / c") == ["n", "p/", "n", "p/", "n"]
    assert kinds("x = /b/ / 2") == ["n", "p=", "r", "p/", "x"]
    assert kinds("f(/[/]/, 1)") == ["n", "p(", "r", "p,", "x", "p)"]
    assert kinds("return /re/g") == ["n", "r"]
    assert kinds("(a) / 2") == ["p(", "n", "p)", "p/", "x"]
    assert kinds("/start/.test(s)") == ["r", "p.", "n", "p(", "n", "p)"]


# The definitions of express 4.21.2's lib/response.js and lib/router/index.js, written down by
# reading the files: (line, kind, container, name, exported). require() bindings are not listed
# (they define nothing); the methods express adds in loops (``proto[method] = …``) have no name.
EXPRESS_RESPONSE = [
    (33, "variable", "", "extname", False), (34, "variable", "", "mime", False),
    (35, "variable", "", "resolve", False), (43, "variable", "", "res", True),
    (57, "variable", "", "charsetRegExp", False),
    (67, "method", "res", "status", True), (90, "method", "res", "links", True),
    (111, "method", "res", "send", True), (250, "method", "res", "json", True),
    (293, "method", "res", "jsonp", True), (369, "method", "res", "sendStatus", True),
    (419, "method", "res", "sendFile", True), (501, "method", "res", "sendfile", True),
    (529, "property", "res", "sendfile", True),  # = deprecate.function(res.sendfile, …)
    (550, "method", "res", "download", True), (618, "method", "res", "contentType", True),
    (619, "method", "res", "type", True), (684, "method", "res", "format", True),
    (719, "method", "res", "attachment", True), (744, "method", "res", "append", True),
    (776, "method", "res", "set", True), (777, "method", "res", "header", True),
    (811, "method", "res", "get", True), (824, "method", "res", "clearCookie", True),
    (862, "method", "res", "cookie", True), (914, "method", "res", "location", True),
    (946, "method", "res", "redirect", True), (1001, "method", "res", "vary", True),
    (1026, "method", "res", "render", True),
    (1053, "function", "", "sendfile", False), (1155, "function", "", "stringify", False),
]
EXPRESS_ROUTER = [
    (31, "variable", "", "objectRegExp", False), (32, "variable", "", "slice", False),
    (33, "variable", "", "toString", False), (43, "function", "", "proto", True),
    (97, "method", "proto", "param", True), (136, "method", "proto", "handle", True),
    (338, "method", "proto", "process_params", True), (439, "method", "proto", "use", True),
    (502, "method", "proto", "route", True),
    (527, "function", "", "appendMethods", False), (537, "function", "", "getPathname", False),
    (546, "function", "", "getProtohost", False), (563, "function", "", "gettype", False),
    (583, "function", "", "matchLayer", False), (592, "function", "", "mergeParams", False),
    (631, "function", "", "restore", False), (651, "function", "", "sendOptionsResponse", False),
    (662, "function", "", "wrap", False),
]


def test_express_response_definitions() -> None:
    """Every definition of express's real lib/response.js is found at its line, and nothing else."""
    path = DATA / "express-4.21.2" / "lib" / "response.js"
    symbols = extract("lib/response.js", path.read_bytes())
    assert rows(symbols) == EXPRESS_RESPONSE
    send = by_name(symbols, "send")[0]
    assert (send.signature, send.doc, send.end_line) == ("res.send = function send(body)", "Send a response.", 236)
    assert by_name(symbols, "status")[0].doc == "Set status `code`."


def test_express_router_definitions() -> None:
    """Every definition of express's real lib/router/index.js is found at its line, and nothing else."""
    path = DATA / "express-4.21.2" / "lib" / "router" / "index.js"
    symbols = extract("lib/router/index.js", path.read_bytes())
    assert rows(symbols) == EXPRESS_ROUTER
    assert by_name(symbols, "proto")[0].signature == "var proto = module.exports = function(options)"


# @types/node 20.11.30 path.d.ts, written down by reading it.
_PARSED = [(27, "root"), (31, "dir"), (35, "base"), (39, "ext"), (43, "name")]
_FORMAT_INPUT = [(49, "root"), (53, "dir"), (57, "base"), (61, "ext"), (65, "name")]
_PLATFORM = [(75, "method", "normalize"), (82, "method", "join"), (96, "method", "resolve"),
             (105, "method", "isAbsolute"), (112, "method", "relative"), (119, "method", "dirname"),
             (128, "method", "basename"), (136, "method", "extname"), (140, "property", "sep"),
             (144, "property", "delimiter"), (151, "method", "parse"), (157, "method", "format"),
             (164, "method", "toNamespacedPath"), (169, "property", "posix"), (174, "property", "win32")]
TYPES_NODE_PATH = [
    (1, "module", "", "path/posix", True), (5, "module", "", "path/win32", True),
    (18, "module", "", "path", True), (19, "namespace", "path", "path", True),
    (23, "interface", "path.path", "ParsedPath", True),
    *[(line, "property", "path.path.ParsedPath", name, True) for line, name in _PARSED],
    (45, "interface", "path.path", "FormatInputPathObject", True),
    *[(line, "property", "path.path.FormatInputPathObject", name, True) for line, name in _FORMAT_INPUT],
    (67, "interface", "path.path", "PlatformPath", True),
    *[(line, kind, "path.path.PlatformPath", name, True) for line, kind, name in _PLATFORM],
    (177, "variable", "path", "path", True),
    (180, "module", "", "node:path", True), (184, "module", "", "node:path/posix", True),
    (188, "module", "", "node:path/win32", True),
]
TYPES_NODE_QUERYSTRING = [
    (14, "module", "", "querystring", True),
    (15, "interface", "querystring", "StringifyOptions", True),
    (16, "property", "querystring.StringifyOptions", "encodeURIComponent", True),
    (18, "interface", "querystring", "ParseOptions", True),
    (19, "property", "querystring.ParseOptions", "maxKeys", True),
    (20, "property", "querystring.ParseOptions", "decodeURIComponent", True),
    (22, "interface", "querystring", "ParsedUrlQuery", True),
    (23, "interface", "querystring", "ParsedUrlQueryInput", True),
    (70, "function", "querystring", "stringify", True), (103, "function", "querystring", "parse", True),
    (107, "variable", "querystring", "encode", True), (111, "variable", "querystring", "decode", True),
    (122, "function", "querystring", "escape", True), (137, "function", "querystring", "unescape", True),
    (139, "module", "", "node:querystring", True),
]


def test_types_node_path_declarations() -> None:
    """Every declaration of @types/node's real path.d.ts (declare module, namespace, interfaces and members) is found."""
    symbols = extract("path.d.ts", (DATA / "types-node-20.11.30" / "path.d.ts").read_bytes())
    assert rows(symbols) == TYPES_NODE_PATH
    parse = [s for s in symbols if s.name == "parse"][0]
    assert (parse.signature, parse.doc) == (
        "parse(path: string): ParsedPath", "Returns an object from a path string - the opposite of format().")
    assert by_name(symbols, "path")[0].doc == \
        "The `node:path` module provides utilities for working with file and directory"
    assert by_name(symbols, "sep")[0].signature == 'readonly sep: "\\\\" | "/"'


def test_types_node_querystring_declarations() -> None:
    """Every declaration of @types/node's real querystring.d.ts is found, multi-line generic heritage included."""
    symbols = extract("querystring.d.ts", (DATA / "types-node-20.11.30" / "querystring.d.ts").read_bytes())
    assert rows(symbols) == TYPES_NODE_QUERYSTRING
    assert by_name(symbols, "ParsedUrlQueryInput")[0].end_line == 33


def test_node_agrees_the_javascript_samples_parse() -> None:
    """The JS sample and the express files are valid JavaScript according to node itself, so the expectations are about real code."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    files = [DATA / "express-4.21.2" / "lib" / "response.js", DATA / "express-4.21.2" / "lib" / "router" / "index.js"]
    for file in files:
        assert subprocess.run([node, "--check", str(file)], capture_output=True).returncode == 0, file
    check = subprocess.run([node, "--check", "-"], input=JS_SOURCE.encode(), capture_output=True)
    assert check.returncode == 0, check.stderr


# --- skipping --------------------------------------------------------------------------------------

def test_minified_bundle_is_skipped_quickly() -> None:
    """An 8 MB single-line minified file is a Skipped marker, decided in well under a second."""
    bundle = b"var a=function(b){return b/2};" * (8 * 1024 * 1024 // 30)
    started = time.perf_counter()
    result = extract("dist/bundle.min.js", bundle)
    assert isinstance(result, Skipped)
    assert time.perf_counter() - started < 0.5
    line = b"x" * (MAX_LINE_BYTES + 1)
    assert isinstance(extract("gen.py", b"a = 1\n" + line + b"\n"), Skipped)
    assert isinstance(extract("ok.py", b"a = 1\n" + b"# " + b"x" * (MAX_LINE_BYTES - 10) + b"\n"), list)


def test_unknown_languages_and_undecodable_files() -> None:
    """A file no extractor knows gives None; a JS file that is not UTF-8 is skipped."""
    assert extract("README.md", b"# function x() {}") is None
    assert extract("main.swift", b"func main() {}") is None
    assert isinstance(extract("latin1.js", b"var caf\xe9 = 1;"), Skipped)


def test_build_index_counts_and_streams(tmp_path: Path) -> None:
    """build_index writes every extracted symbol, counting source files, skipped files and other files."""
    from codenav.search.symbols import build_index

    files = [("a.py", b"def good(): pass\n"), ("b.py", b"def bad(:\n"), ("c.js", b"function fine() {}\n"),
             ("d.min.js", b"!function(){}" * 10000), ("e.txt", b"plain")]
    out = tmp_path / "symbols.tsv"
    assert build_index(iter(files), str(out)) == {"files": 2, "symbols": 3, "skipped": 2, "other": 1}
    # exported (a.py: public names) before unsaid (c.js: a script)
    assert [s.name for s in query(str(out), "", match="prefix")] == ["a", "good", "fine"]


def test_a_batch_counts_skips_and_goes_on(tmp_path: Path) -> None:
    """Indexing a batch with broken files among good ones counts the skipped files and indexes the rest."""
    files = {"a.py": b"def good(): pass\n", "b.py": b"def bad(:\n", "c.js": b"function fine() {}\n",
             "d.min.js": b"!function(){}" * 10000, "e.txt": b"plain"}
    skipped = 0
    symbols = []
    for path, data in files.items():
        result = extract(path, data)
        if isinstance(result, Skipped):
            skipped += 1
        elif result is not None:
            symbols.extend(result)
    assert skipped == 2
    assert [s.name for s in symbols] == ["a", "good", "fine"]


# --- the index ---------------------------------------------------------------------------------

def sample_symbols() -> list[Symbol]:
    return [
        Symbol("Router", "class", "test/router.test.js", 3, None, "", "class Router", "", False),
        Symbol("Router", "function", "lib/router/index.js", 43, 61, "", "var proto = module.exports = function()",
               "Initialize a new `Router`.", True),
        Symbol("Router", "class", "deep/a/b/router.js", 1, 9, "", "class Router", "", True),
        Symbol("router", "variable", "app.js", 7, None, "", "const router = express.Router()", "", False),
        Symbol("RouterOptions", "interface", "index.d.ts", 5, 12, "express", "interface RouterOptions", "", True),
        Symbol("createRouter", "function", "lib/make.js", 2, 4, "", "function createRouter()", "", None),
        Symbol("route", "method", "lib/router/index.js", 502, 515, "proto", "proto.route = function route(path)",
               "Create a new Route\tfor the given path.", True),
        Symbol("tricky", "variable", "lib/odd.js", 1, None, "", "x = 'a\\tb'\nnext\r", "line\\n", None),
    ]


def test_index_round_trip_preserves_every_field(tmp_path: Path) -> None:
    """Writing the index then reading each line gives the same symbols back, tabs, newlines and backslashes included."""
    out = tmp_path / "symbols.tsv"
    assert write_index(iter(sample_symbols()), str(out)) == 8
    text = out.read_text(encoding="utf-8")
    assert text.startswith(HEADER)
    lines = text.split("\n")[1:-1]
    assert len(lines) == 8
    assert all(line.count("\t") == 8 for line in lines)
    assert [parse_line(line) for line in lines] == sample_symbols()
    assert format_line(sample_symbols()[1]) == (
        "Router\tfunction\tlib/router/index.js\t43\t61\t\t1\tvar proto = module.exports = function()\t"
        "Initialize a new `Router`.\n")


def test_query_orders_exact_exported_source_and_shallow_first(tmp_path: Path) -> None:
    """Exact before prefix before substring, case-exact first, exported before internal, source before tests, shallow first."""
    out = tmp_path / "symbols.tsv"
    write_index(sample_symbols(), str(out))

    def found(text: str, **options) -> list[tuple[str, str]]:
        return [(s.name, s.path) for s in query(str(out), text, **options)]

    assert found("Router") == [("Router", "lib/router/index.js"), ("Router", "deep/a/b/router.js"),
                               ("router", "app.js"), ("Router", "test/router.test.js")]
    assert found("Router", case_sensitive=True) == [("Router", "lib/router/index.js"), ("Router", "deep/a/b/router.js"),
                                                    ("Router", "test/router.test.js")]
    assert found("router", match="prefix") == [
        ("Router", "lib/router/index.js"), ("Router", "deep/a/b/router.js"), ("router", "app.js"),
        ("Router", "test/router.test.js"), ("RouterOptions", "index.d.ts")]
    assert found("router", match="substring", kinds=["function", "interface"]) == [
        ("Router", "lib/router/index.js"), ("RouterOptions", "index.d.ts"), ("createRouter", "lib/make.js")]
    assert found("proto.route") == [("route", "lib/router/index.js")]
    assert found("Router", path_prefix="deep/") == [("Router", "deep/a/b/router.js")]
    assert found("nothing") == []
    assert [s.path for s in query(str(out), "router", limit=2)] == ["lib/router/index.js", "deep/a/b/router.js"]
    route = query(str(out), "route")[0]
    assert route.doc == "Create a new Route\tfor the given path." and route.end_line == 515


def test_test_paths() -> None:
    """Paths under test/tests/__tests__/spec directories and test-named files are tests; others are source."""
    for path in ("test/app.js", "pkg/tests/test_x.py", "src/__tests__/a.js", "spec/x.rb", "test_utils.py",
                 "lib/a.test.js", "src/b.spec.ts", "pkg/x_test.py"):
        assert is_test_path(path), path
    for path in ("lib/testing_tools.py", "src/contest.js", "lib/router/index.js", "latest/spec.js", "attest.py"):
        assert not is_test_path(path), path


def test_query_imports_neither_json_nor_re(tmp_path: Path) -> None:
    """A query in a fresh interpreter (no site) leaves json, re and typing unimported."""
    out = tmp_path / "symbols.tsv"
    write_index(sample_symbols(), str(out))
    code = ("import sys\nfrom codenav.search.symbols import query\n"
            f"hits = query({str(out)!r}, 'router', match='prefix')\n"
            "print(len(hits), sorted(m for m in ('json', 're', 'typing') if m in sys.modules))\n")
    env = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")}
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, env=env, text=True)
    assert (done.stdout, done.stderr) == ("5 []\n", "")


def test_query_refuses_an_unknown_match_mode_and_a_foreign_file(tmp_path: Path) -> None:
    """An unknown match mode is an invalid argument; a file without the index header is refused."""
    from codenav.errors import CodenavError

    out = tmp_path / "symbols.tsv"
    write_index([], str(out))
    with pytest.raises(CodenavError) as bad_mode:
        query(str(out), "x", match="fuzzy")
    assert bad_mode.value.code == "INVALID_ARGUMENT"
    other = tmp_path / "other.tsv"
    other.write_text("name\tkind\n")
    with pytest.raises(CodenavError):
        query(str(other), "x")


# --- Rust ------------------------------------------------------------------------------------------

RUST_SOURCE = b'''\
//! Crate docs.
use std::fmt;
/* outer /* nested fn fake_nested() {} */ still comment struct Fake; */
const RAW: &str = r#"fn fake_raw() { "quoted" }"#;
static mut counter: u32 = 0;
/// A shape.
#[derive(Debug)]
pub struct Shape<'a, T: Clone + 'a> {
    pub name: &'a str,
    points: Vec<(T, T)>,
    pub(crate) cache: std::collections::HashMap<String, Vec<T>>,
}
pub struct Unit;
pub struct Pair(pub u8, u8);
pub enum Event<T> { Click { x: i32, y: i32 }, Key(char), Quit = 3, Data(T) }
pub trait Draw: fmt::Debug {
    /// Draws it.
    fn draw(&self) -> String;
    fn size(&self) -> usize { 0 }
    type Output;
    const SIDES: u32;
}
impl<'a, T: Clone> Shape<'a, T> {
    pub fn new(name: &'a str) -> Self { let c = '{'; let q = '\\''; Self { name, points: vec![], cache: Default::default() } }
    fn private_helper<'b>(&self, x: &'b str) -> &'b str where T: fmt::Debug { x }
}
impl<T: Clone> Draw for Shape<'_, T> { fn draw(&self) -> String { String::from("fn fake_in_string() {}") } type Output = (); const SIDES: u32 = 4; }
pub(crate) mod inner {
    pub fn deep() {}
    mod deeper { fn deepest() {} }
}
mod external;
macro_rules! square { ($x:expr) => { $x * $x }; }
pub type Result<T> = std::result::Result<T, Error>;
pub const fn make() -> u8 { 1 }
pub async unsafe fn danger() {}
extern "C" { fn c_func(x: i32) -> i32; }
'''


def test_rust_items() -> None:
    """Rust items, fields, variants, trait and impl members and nested modules are found; raw strings, char literals, lifetimes and nested comments hide nothing and fake nothing."""
    symbols = extract("src/lib.rs", RUST_SOURCE)
    assert rows(symbols) == [
        (4, "constant", "", "RAW", False), (5, "variable", "", "counter", False),
        (8, "class", "", "Shape", True), (9, "property", "Shape", "name", True),
        (10, "property", "Shape", "points", False), (11, "property", "Shape", "cache", False),
        (13, "class", "", "Unit", True), (14, "class", "", "Pair", True),
        (15, "enum", "", "Event", True), (15, "constant", "Event", "Click", True),
        (15, "constant", "Event", "Key", True), (15, "constant", "Event", "Quit", True),
        (15, "constant", "Event", "Data", True),
        (16, "interface", "", "Draw", True), (18, "method", "Draw", "draw", True),
        (19, "method", "Draw", "size", True), (20, "type", "Draw", "Output", True),
        (21, "constant", "Draw", "SIDES", True),
        (24, "method", "Shape", "new", True), (25, "method", "Shape", "private_helper", False),
        (27, "method", "Shape", "draw", None), (27, "type", "Shape", "Output", None),
        (27, "constant", "Shape", "SIDES", None),
        (28, "module", "", "inner", False), (29, "function", "inner", "deep", True),
        (30, "module", "inner", "deeper", False), (30, "function", "inner.deeper", "deepest", False),
        (32, "module", "", "external", False), (33, "function", "", "square", False),
        (34, "type", "", "Result", True), (35, "function", "", "make", True),
        (36, "function", "", "danger", True), (37, "function", "", "c_func", False),
    ]
    shape = by_name(symbols, "Shape")[0]
    assert (shape.signature, shape.doc, shape.end_line) == ("pub struct Shape<'a, T: Clone + 'a>", "A shape.", 12)
    assert by_name(symbols, "private_helper")[0].signature == \
        "fn private_helper<'b>(&self, x: &'b str) -> &'b str where T: fmt::Debug"
    assert by_name(symbols, "draw")[0].doc == "Draws it."
    assert by_name(symbols, "RAW")[0].signature == "const RAW: &str"


# semver 1.0.14 (Debian's librust-semver-dev 1.0.14-1), written down by reading the files.
SEMVER_LIB = [
    *[(line, "module", "", name, False) for line, name in (
        (92, "backport"), (93, "display"), (94, "error"), (95, "eval"), (96, "identifier"), (97, "impls"),
        (98, "parse"), (101, "serde"))],
    (162, "class", "", "Version", True),
    *[(line, "property", "Version", name, True) for line, name in (
        (163, "major"), (164, "minor"), (165, "patch"), (166, "pre"), (167, "build"))],
    (189, "class", "", "VersionReq", True), (190, "property", "VersionReq", "comparators", True),
    (196, "class", "", "Comparator", True),
    *[(line, "property", "Comparator", name, True) for line, name in (
        (197, "op"), (198, "major"), (199, "minor"), (201, "patch"), (203, "pre"))],
    (253, "enum", "", "Op", True),
    *[(line, "constant", "Op", name, True) for line, name in (
        (254, "Exact"), (255, "Greater"), (256, "GreaterEq"), (257, "Less"), (258, "LessEq"), (259, "Tilde"),
        (260, "Caret"), (261, "Wildcard"), (265, "__NonExhaustive"))],
    (318, "class", "", "Prerelease", True), (319, "property", "Prerelease", "identifier", False),
    (376, "class", "", "BuildMetadata", True), (377, "property", "BuildMetadata", "identifier", False),
    (398, "method", "Version", "new", True), (431, "method", "Version", "parse", True),
    (451, "constant", "VersionReq", "STAR", True), (470, "method", "VersionReq", "parse", True),
    (476, "method", "VersionReq", "matches", True), (484, "method", "VersionReq", "default", None),
    (490, "method", "Comparator", "parse", True), (494, "method", "Comparator", "matches", True),
    (502, "constant", "Prerelease", "EMPTY", True), (505, "constant", "Prerelease", "EMPTY", True),
    (509, "method", "Prerelease", "new", True), (513, "method", "Prerelease", "as_str", True),
    (517, "method", "Prerelease", "is_empty", True),
    (525, "constant", "BuildMetadata", "EMPTY", True), (528, "constant", "BuildMetadata", "EMPTY", True),
    (532, "method", "BuildMetadata", "new", True), (536, "method", "BuildMetadata", "as_str", True),
    (540, "method", "BuildMetadata", "is_empty", True),
]
SEMVER_IMPLS = [
    (10, "method", "Identifier", "default", None), (18, "method", "Identifier", "hash", None),
    (24, "type", "Prerelease", "Target", None), (26, "method", "Prerelease", "deref", None),
    (32, "type", "BuildMetadata", "Target", None), (34, "method", "BuildMetadata", "deref", None),
    (40, "method", "Prerelease", "partial_cmp", None), (46, "method", "BuildMetadata", "partial_cmp", None),
    (52, "method", "Prerelease", "cmp", None), (107, "method", "BuildMetadata", "cmp", None),
    (149, "method", "VersionReq", "from_iter", None),
]


def test_semver_crate_items() -> None:
    """Every item of the real semver crate's lib.rs and impls.rs is found at its line, and nothing else."""
    root = DATA / "semver-1.0.14" / "src"
    lib = extract("src/lib.rs", (root / "lib.rs").read_bytes())
    assert rows(lib) == SEMVER_LIB
    assert by_name(lib, "Version")[0].doc.startswith("**SemVer version** as defined by")
    assert rows(extract("src/impls.rs", (root / "impls.rs").read_bytes())) == SEMVER_IMPLS


# --- Go --------------------------------------------------------------------------------------------

GO_SOURCE = b'''\
// Package shapes draws shapes.
package shapes

import (
\t"fmt"
\t"strings"
)

const raw = `func fakeRaw() {
type FakeType struct{}`

// Color is a color.
type Color int

const (
\tRed Color = iota // first
\tGreen
\tblue
)

var (
\tErrBad   = fmt.Errorf("bad: %s", "func fake() {}")
\tcache    map[string]int
\tx, y int = 1, 2
)

// Shape is anything drawable.
type Shape interface {
\tArea() float64
\tfmt.Stringer
\tScale(f float64) Shape
}

// Stack is a generic stack.
type Stack[T any] struct {
\titems []T
\tName, Label string `json:"name"`
\t*strings.Builder
\tsync.Mutex
}

type Grid [3][3]int
type Alias = Stack[int]

// Push adds v.
func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }

func (s Stack[T]) peek() (T, bool) {
\tvar zero T
\tr := '}'
\t_ = r
\treturn zero, false
}

func Map[T, U any](xs []T, f func(T) U) []U {
\treturn nil
}

func Empty() interface{} { return struct{}{} }
'''


def test_go_declarations() -> None:
    """Go's package, grouped const/var specs, types, struct fields, interface methods and (generic) methods are found; raw strings and runes fake nothing."""
    symbols = extract("shapes/shapes.go", GO_SOURCE)
    assert rows(symbols) == [
        (2, "module", "", "shapes", True), (9, "constant", "", "raw", False), (13, "type", "", "Color", True),
        (16, "constant", "", "Red", True), (17, "constant", "", "Green", True), (18, "constant", "", "blue", False),
        (22, "variable", "", "ErrBad", True), (23, "variable", "", "cache", False),
        (24, "variable", "", "x", False), (24, "variable", "", "y", False),
        (28, "interface", "", "Shape", True), (29, "method", "Shape", "Area", True),
        (31, "method", "Shape", "Scale", True),
        (35, "class", "", "Stack", True), (36, "property", "Stack", "items", False),
        (37, "property", "Stack", "Name", True), (37, "property", "Stack", "Label", True),
        (42, "type", "", "Grid", True), (43, "type", "", "Alias", True),
        (46, "method", "Stack", "Push", True), (48, "method", "Stack", "peek", False),
        (55, "function", "", "Map", True), (59, "function", "", "Empty", True),
    ]
    assert by_name(symbols, "shapes")[0].doc == "Package shapes draws shapes."
    push = by_name(symbols, "Push")[0]
    assert (push.signature, push.doc) == ("func (s *Stack[T]) Push(v T)", "Push adds v.")
    assert by_name(symbols, "Map")[0].signature == "func Map[T, U any](xs []T, f func(T) U) []U"
    assert by_name(symbols, "Empty")[0].signature == "func Empty() interface{}"
    assert by_name(symbols, "peek")[0].end_line == 53


# github.com/pkg/errors 0.9.1 (Debian's golang-github-pkg-errors-dev 0.9.1-2), written down by reading the files.
PKG_ERRORS = [
    (93, "module", "", "errors", True), (102, "function", "", "New", True), (112, "function", "", "Errorf", True),
    (120, "class", "", "fundamental", False), (121, "property", "fundamental", "msg", False),
    (125, "method", "fundamental", "Error", True), (127, "method", "fundamental", "Format", True),
    (145, "function", "", "WithStack", True), (155, "class", "", "withStack", False),
    (160, "method", "withStack", "Cause", True), (163, "method", "withStack", "Unwrap", True),
    (165, "method", "withStack", "Format", True), (184, "function", "", "Wrap", True),
    (201, "function", "", "Wrapf", True), (217, "function", "", "WithMessage", True),
    (229, "function", "", "WithMessagef", True), (239, "class", "", "withMessage", False),
    (240, "property", "withMessage", "cause", False), (241, "property", "withMessage", "msg", False),
    (244, "method", "withMessage", "Error", True), (245, "method", "withMessage", "Cause", True),
    (248, "method", "withMessage", "Unwrap", True), (250, "method", "withMessage", "Format", True),
    (275, "function", "", "Cause", True),
]
PKG_ERRORS_STACK = [
    (1, "module", "", "errors", True), (15, "type", "", "Frame", True), (19, "method", "Frame", "pc", False),
    (23, "method", "Frame", "file", False), (34, "method", "Frame", "line", False),
    (44, "method", "Frame", "name", False), (64, "method", "Frame", "Format", True),
    (88, "method", "Frame", "MarshalText", True), (97, "type", "", "StackTrace", True),
    (107, "method", "StackTrace", "Format", True), (128, "method", "StackTrace", "formatSlice", False),
    (140, "type", "", "stack", False), (142, "method", "stack", "Format", True),
    (155, "method", "stack", "StackTrace", True), (163, "function", "", "callers", False),
    (172, "function", "", "funcname", False),
]


def test_pkg_errors_declarations() -> None:
    """Every declaration of the real github.com/pkg/errors errors.go and stack.go is found at its line, and nothing else."""
    root = DATA / "pkg-errors-0.9.1"
    errors_go = extract("errors.go", (root / "errors.go").read_bytes())
    assert rows(errors_go) == PKG_ERRORS
    assert by_name(errors_go, "Wrap")[0].doc.startswith("Wrap returns an error annotating err with a stack trace")
    assert rows(extract("stack.go", (root / "stack.go").read_bytes())) == PKG_ERRORS_STACK


def test_search_falls_back_from_exact_to_prefix(tmp_path: Path) -> None:
    """Without a match mode, search returns the exact matches, or the prefix matches when there is no exact one, and says which."""
    from codenav.search.symbols import search

    out = tmp_path / "symbols.tsv"
    write_index(sample_symbols(), str(out))
    mode, hits = search(str(out), "router")
    assert (mode, [s.path for s in hits]) == ("exact", ["lib/router/index.js", "deep/a/b/router.js", "app.js",
                                                       "test/router.test.js"])
    mode, hits = search(str(out), "RouterOpt")
    assert (mode, [s.name for s in hits]) == ("prefix", ["RouterOptions"])
    mode, hits = search(str(out), "proto.rou")
    assert (mode, [s.name for s in hits]) == ("prefix", ["route"])
    assert search(str(out), "outer", match="substring")[0] == "substring"
    assert search(str(out), "zzz") == ("prefix", [])


# --- PHP -------------------------------------------------------------------------------------------

PHP_SOURCE = b'''\
<html><body>function notPhp() {} class NotPhp {}</body></html>
<?php
declare(strict_types=1);

namespace App\\Models {
    use Some\\Thing;

    # a hash comment: function fakeHash() {}
    // function fakeLine() {}
    /** A user. */
    #[Entity(table: "users")]
    final class User extends Model implements \\JsonSerializable
    {
        use HasFactory;
        public const TABLE = 'users', OTHER = "x";
        private ?string $secret = null;
        protected static array $cache = [], $other;
        public readonly int $id;

        /**
         * Make one.
         * @return static
         */
        public static function make(string $name = "class Fake {}"): static
        {
            $sql = <<<SQL
                SELECT * FROM users WHERE fn = 'function fakeHeredoc() {'
                SQL;
            $fn = function ($x) use ($sql) { return $x; };
            return new static();
        }

        abstract protected function hidden(): void;
        function &byRef() {}
    }
}

namespace App\\Enums {
    enum Status: string
    {
        case Active = 'active';
        case Inactive = 'inactive';
        public function label(): string { return ucfirst($this->value); }
    }
    interface HasLabel { public function label(): string; }
    trait Labels { private $labels = []; }
    function helper(int $a): int { return $a; }
    const VERSION = '1.0';
}
?>
<p>class AfterClose {}</p>
<?php function after_close() {}
'''


def test_php_declarations() -> None:
    """PHP namespaces, classes, traits, interfaces, enums and their members are found; HTML, heredocs, strings and comments fake nothing."""
    symbols = extract("src/Models.php", PHP_SOURCE)
    models, enums = "App\\Models", "App\\Enums"
    assert rows(symbols) == [
        (5, "namespace", "", models, True), (12, "class", models, "User", True),
        (15, "constant", models + ".User", "TABLE", True), (15, "constant", models + ".User", "OTHER", True),
        (16, "property", models + ".User", "secret", False), (17, "property", models + ".User", "cache", False),
        (17, "property", models + ".User", "other", False), (18, "property", models + ".User", "id", True),
        (24, "method", models + ".User", "make", True), (33, "method", models + ".User", "hidden", False),
        (34, "method", models + ".User", "byRef", True),
        (38, "namespace", "", enums, True), (39, "enum", enums, "Status", True),
        (41, "constant", enums + ".Status", "Active", True), (42, "constant", enums + ".Status", "Inactive", True),
        (43, "method", enums + ".Status", "label", True), (45, "interface", enums, "HasLabel", True),
        (45, "method", enums + ".HasLabel", "label", True), (46, "class", enums, "Labels", True),
        (46, "property", enums + ".Labels", "labels", False), (47, "function", enums, "helper", True),
        (48, "constant", enums, "VERSION", True), (52, "function", "", "after_close", True),
    ]
    make = by_name(symbols, "make")[0]
    assert (make.signature, make.doc, make.end_line) == (
        'public static function make(string $name = "class Fake {}"): static', "Make one.", 31)
    assert by_name(symbols, "User")[0].doc == "A user."


def test_psr_log_declarations() -> None:
    """Every declaration of the real psr/log LoggerInterface.php, LogLevel.php and LoggerAwareTrait.php is found at its line."""
    root = DATA / "psr-log-1.1.4"
    ns = "Psr\\Log"
    interface = extract("LoggerInterface.php", (root / "LoggerInterface.php").read_bytes())
    methods = [(30, "emergency"), (43, "alert"), (55, "critical"), (66, "error"), (79, "warning"), (89, "notice"),
               (101, "info"), (111, "debug"), (124, "log")]
    assert rows(interface) == [(3, "namespace", "", ns, True), (20, "interface", ns, "LoggerInterface", True),
                               *[(line, "method", ns + ".LoggerInterface", name, True) for line, name in methods]]
    assert by_name(interface, "emergency")[0].doc == "System is unusable."
    levels = ["EMERGENCY", "ALERT", "CRITICAL", "ERROR", "WARNING", "NOTICE", "INFO", "DEBUG"]
    assert rows(extract("LogLevel.php", (root / "LogLevel.php").read_bytes())) == [
        (3, "namespace", "", ns, True), (8, "class", ns, "LogLevel", True),
        *[(10 + k, "constant", ns + ".LogLevel", name, True) for k, name in enumerate(levels)]]
    assert rows(extract("LoggerAwareTrait.php", (root / "LoggerAwareTrait.php").read_bytes())) == [
        (3, "namespace", "", ns, True), (8, "class", ns, "LoggerAwareTrait", True),
        (15, "property", ns + ".LoggerAwareTrait", "logger", False),
        (22, "method", ns + ".LoggerAwareTrait", "setLogger", True)]


# --- Java ------------------------------------------------------------------------------------------

JAVA_SOURCE = b'''\
package com.example.shapes;

import java.util.*;

/** A shape. */
@Deprecated
public abstract class Shape<T extends Comparable<T>> implements Comparable<Shape<T>> {
    public static final int MAX_SIDES = 12, MIN_SIDES = 3;
    private final Map<String, List<T>> cache = new HashMap<>();
    protected String name = "class Fake { void fake() {} }";
    int[] data, more[];
    static { System.out.println("init"); }

    /** Makes one. */
    public Shape(String name) { this.name = name; }

    @Override
    public int compareTo(Shape<T> other) { return 0; }

    public abstract <R> R accept(Visitor<R> visitor) throws Exception;

    String text() { return """
        void fakeText() {}
        """; }

    public interface Visitor<R> { R visit(Shape<?> s); int DEFAULT = 1; }

    public enum Kind { CIRCLE("c") { @Override public String toString() { return "o"; } }, SQUARE("s");
        private final String code; Kind(String code) { this.code = code; } public String code() { return code; } }

    public record Point(int x, int y) { public Point { if (x < 0) throw new IllegalArgumentException(); } }

    private static class Cache { char c = '}'; }
}

@interface Marker { String value() default "x"; }
class Helper { void help() { Runnable r = new Runnable() { public void run() {} }; } }
'''


def test_java_declarations() -> None:
    """Java types at any nesting, fields (C-style arrays too), constructors, methods, enum constants, record components and annotation elements are found; strings, text blocks and anonymous classes fake nothing."""
    symbols = extract("src/Shape.java", JAVA_SOURCE)
    assert rows(symbols) == [
        (1, "namespace", "", "com.example.shapes", True), (7, "class", "", "Shape", True),
        (8, "constant", "Shape", "MAX_SIDES", True), (8, "constant", "Shape", "MIN_SIDES", True),
        (9, "property", "Shape", "cache", False), (10, "property", "Shape", "name", True),
        (11, "property", "Shape", "data", False), (11, "property", "Shape", "more", False),
        (15, "method", "Shape", "Shape", True), (18, "method", "Shape", "compareTo", True),
        (20, "method", "Shape", "accept", True), (22, "method", "Shape", "text", False),
        (26, "interface", "Shape", "Visitor", True), (26, "method", "Shape.Visitor", "visit", True),
        (26, "constant", "Shape.Visitor", "DEFAULT", True), (28, "enum", "Shape", "Kind", True),
        (28, "constant", "Shape.Kind", "CIRCLE", True), (28, "constant", "Shape.Kind", "SQUARE", True),
        (29, "property", "Shape.Kind", "code", False), (29, "method", "Shape.Kind", "Kind", False),
        (29, "method", "Shape.Kind", "code", True), (31, "class", "Shape", "Point", True),
        (31, "property", "Shape.Point", "x", False), (31, "property", "Shape.Point", "y", False),
        (31, "method", "Shape.Point", "Point", True), (33, "class", "Shape", "Cache", False),
        (33, "property", "Shape.Cache", "c", False), (36, "interface", "", "Marker", False),
        (36, "method", "Marker", "value", False), (37, "class", "", "Helper", False),
        (37, "method", "Helper", "help", False),
    ]
    shape = by_name(symbols, "Shape")[0]
    assert (shape.signature, shape.doc, shape.end_line) == (
        "public abstract class Shape<T extends Comparable<T>> implements Comparable<Shape<T>>", "A shape.", 34)
    assert by_name(symbols, "accept")[0].signature == "public abstract <R> R accept(Visitor<R> visitor) throws Exception"
    assert by_name(symbols, "Shape")[1].doc == "Makes one."
    assert by_name(symbols, "y")[0].signature == "int y"


# An independent oracle: javac's own parser (the Compiler Tree API) lists every type, method,
# constructor, field and enum constant outside method bodies, with the line of its name.
JAVAC_LIST_DECLARATIONS = """\
import com.sun.source.tree.*;
import com.sun.source.util.*;
import javax.tools.*;
import java.util.*;

public class ListDecls {
    public static void main(String[] args) throws Exception {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager files = compiler.getStandardFileManager(null, null, null);
        for (String arg : args) {
            JavacTask task = (JavacTask) compiler.getTask(null, files, d -> {}, List.of("-proc:none"), null,
                    files.getJavaFileObjects(arg));
            SourcePositions positions = Trees.instance(task).getSourcePositions();
            for (CompilationUnitTree unit : task.parse()) {
                String text = unit.getSourceFile().getCharContent(true).toString();
                LineMap lines = unit.getLineMap();
                new TreeScanner<Void, String>() {
                    void print(String kind, String name, Tree tree, Tree after) {
                        long from = after == null ? positions.getStartPosition(unit, tree) : positions.getEndPosition(unit, after);
                        if (from < 0) from = positions.getStartPosition(unit, tree);
                        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\\\b" + java.util.regex.Pattern.quote(name) + "\\\\b").matcher(text);
                        long start = positions.getStartPosition(unit, tree);
                        long line = m.find((int) Math.max(from, 0)) ? lines.getLineNumber(m.start())
                                : m.find((int) Math.max(start, 0)) ? lines.getLineNumber(m.start()) : -1;
                        System.out.println(arg + "\\t" + kind + "\\t" + name + "\\t" + line);
                    }
                    String last;
                    @Override public Void visitClass(ClassTree node, String owner) {
                        if (node.getSimpleName().length() == 0) return null;
                        print("class", node.getSimpleName().toString(), node, node.getModifiers());
                        String saved = last; last = node.getSimpleName().toString();
                        for (Tree member : node.getMembers()) scan(member, last);
                        last = saved;
                        return null;
                    }
                    @Override public Void visitMethod(MethodTree node, String owner) {
                        String name = node.getName().toString();
                        if (name.equals("<init>")) name = owner;
                        Tree after = node.getReturnType() != null ? node.getReturnType() : node.getModifiers();
                        print("method", name, node, after);
                        return null;
                    }
                    @Override public Void visitVariable(VariableTree node, String owner) {
                        // javac's own position of a variable declaration is its name
                        int pos = ((com.sun.tools.javac.tree.JCTree) node).pos;
                        System.out.println(arg + "\\tfield\\t" + node.getName() + "\\t" + lines.getLineNumber(pos));
                        return null;
                    }
                    @Override public Void visitBlock(BlockTree node, String owner) { return null; }
                }.scan(unit, null);
            }
        }
    }
}
"""


def jdk_with_sources() -> tuple[str, str] | None:
    """(java launcher, src.zip) of an installed JDK that ships its sources, else None."""
    import glob

    for src in sorted(glob.glob("/usr/lib/jvm/*/lib/src.zip"), reverse=True):
        java = os.path.join(os.path.dirname(os.path.dirname(src)), "bin", "java")
        if os.path.isfile(src) and os.access(java, os.X_OK):
            return java, src
    return None


def test_java_recall_against_javac_over_jdk_sources(tmp_path: Path) -> None:
    """Every declaration javac's parser finds in a third of the JDK's java/util sources is returned at the same line, and nothing else."""
    import zipfile

    found = jdk_with_sources()
    if found is None:
        pytest.skip("no JDK with src.zip installed")
    java, src = found
    with zipfile.ZipFile(src) as archive:
        members = sorted(name for name in archive.namelist()
                         if name.startswith("java.base/java/util/") and name.count("/") == 3
                         and name.endswith(".java"))[::3]
        assert len(members) > 30
        files = []
        for name in members:
            target = tmp_path / name.rsplit("/", 1)[1]
            target.write_bytes(archive.read(name))
            files.append(str(target))
    program = tmp_path / "ListDecls.java"
    program.write_text(JAVAC_LIST_DECLARATIONS)
    done = subprocess.run([java, "--add-exports", "jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED",
                           str(program), *files], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    expected: dict[str, set[tuple[str, int]]] = {file: set() for file in files}
    for line in done.stdout.splitlines():
        file, _kind, name, lineno = line.split("\t")
        expected[file].add((name, int(lineno)))
    assert sum(len(names) for names in expected.values()) > 1500
    for file in files:
        got = {(s.name, s.line) for s in extract(file, Path(file).read_bytes()) if s.kind != "namespace"}
        assert got == expected[file], (file, sorted(expected[file] - got)[:5], sorted(got - expected[file])[:5])


# --- Ruby ------------------------------------------------------------------------------------------

RUBY_SOURCE = b'''\
# frozen_string_literal: true
require "set"

# Top-level helper.
def helper(x) = x * 2

module Outer::Inner
  VERSION = "1.0"
  TEXT = <<~EOS
    def fake_heredoc
    end
  EOS
  PATTERN = %r{def fake_regex end}
  WORDS = %w[class end def]

  # A widget.
  class Widget < Base
    attr_accessor :name, :size
    DEFAULTS = { class: "x", end: 1, def: 2 }.freeze

    def initialize(name, size: 1)
      @name = name
      return if name.nil?
      items.each do |item|
        puts "item #{item.name} #{ { a: "}" }[:a] }"
      end
      while size > 0 do size -= 1 end
      value = if size then 1 else 2 end
      x = y / 2; z = a.class
    end

    def self.build(*args, **opts, &block) = new(*args, **opts)

    def name=(value)
      @name = value
    end

    def [](key); @data[key]; end
    def valid? = true

    alias_method :to_s, :name
    alias title name

    class << self
      def registry; @registry ||= {}; end
    end

    protected

    def compare(other)
      other.size <=> size
    end

    private

    def secret; end

    public

    def visible
      case size
      when 1 then :one
      else :many
      end
    end

    private def inline_private; end
    def later; end
    private :later
  end
end
'''


def test_ruby_definitions() -> None:
    """Ruby modules, classes, defs (endless, setters, operators, singleton), aliases, attrs and constants are found with their visibility; heredocs, %-literals, labels and modifiers fake nothing and keep the ends paired."""
    symbols = extract("lib/widget.rb", RUBY_SOURCE)
    w = "Outer.Inner.Widget"
    assert rows(symbols) == [
        (5, "function", "", "helper", True), (7, "module", "Outer", "Inner", True),
        (8, "constant", "Outer.Inner", "VERSION", True), (9, "constant", "Outer.Inner", "TEXT", True),
        (13, "constant", "Outer.Inner", "PATTERN", True), (14, "constant", "Outer.Inner", "WORDS", True),
        (17, "class", "Outer.Inner", "Widget", True), (18, "property", w, "name", True),
        (18, "property", w, "size", True), (19, "constant", w, "DEFAULTS", True),
        (21, "method", w, "initialize", True), (32, "method", w, "build", True), (34, "method", w, "name=", True),
        (38, "method", w, "[]", True), (39, "method", w, "valid?", True), (41, "method", w, "to_s", True),
        (42, "method", w, "title", True), (45, "method", w, "registry", True), (50, "method", w, "compare", False),
        (56, "method", w, "secret", False), (60, "method", w, "visible", True),
        (67, "method", w, "inline_private", False), (68, "method", w, "later", False),
    ]
    assert [(s.name, s.end_line) for s in symbols if s.kind in ("module", "class")] == [("Inner", 71), ("Widget", 70)]
    assert by_name(symbols, "initialize")[0].end_line == 30
    assert by_name(symbols, "build")[0].signature == "def self.build(*args, **opts, &block)"
    assert (by_name(symbols, "helper")[0].doc, by_name(symbols, "Widget")[0].doc) == ("Top-level helper.", "A widget.")


def test_rainbow_gem_definitions() -> None:
    """Every definition of the real rainbow gem's presenter.rb, color.rb and global.rb is found at its line."""
    root = DATA / "rainbow-3.1.1" / "lib" / "rainbow"
    p = "Rainbow.Presenter"
    methods = [(22, "color"), (26, "foreground"), (27, "fg"), (30, "background"), (34, "bg"), (40, "reset"),
               (45, "bright"), (49, "bold"), (53, "faint"), (57, "dark"), (61, "italic"), (66, "underline"),
               (72, "blink"), (77, "inverse"), (82, "hide"), (86, "cross_out"), (90, "strike"), (92, "black"),
               (96, "red"), (100, "green"), (104, "yellow"), (108, "blue"), (112, "magenta"), (116, "cyan"),
               (120, "white"), (126, "method_missing"), (134, "respond_to_missing?")]
    presenter = extract("presenter.rb", (root / "presenter.rb").read_bytes())
    assert rows(presenter) == [
        (7, "module", "", "Rainbow", True), (8, "class", "Rainbow", "Presenter", True),
        (9, "constant", p, "TERM_EFFECTS", True), *[(line, "method", p, name, True) for line, name in methods],
        (140, "method", p, "wrap_with_sgr", False)]
    assert by_name(presenter, "color")[0].doc == "Sets color of this text."
    c = "Rainbow.Color"
    assert rows(extract("color.rb", (root / "color.rb").read_bytes())) == [
        (3, "module", "", "Rainbow", True), (4, "class", "Rainbow", "Color", True),
        (5, "property", c, "ground", True), (7, "method", c, "build", True), (40, "method", c, "parse_hex_color", True),
        (54, "class", c, "Indexed", True), (55, "property", c + ".Indexed", "num", True),
        (57, "method", c + ".Indexed", "initialize", True), (62, "method", c + ".Indexed", "codes", True),
        (69, "class", c, "Named", True), (70, "constant", c + ".Named", "NAMES", True),
        (82, "method", c + ".Named", "color_names", True), (86, "method", c + ".Named", "valid_names", True),
        (90, "method", c + ".Named", "initialize", True), (100, "class", c, "RGB", True),
        (101, "property", c + ".RGB", "r", True), (101, "property", c + ".RGB", "g", True),
        (101, "property", c + ".RGB", "b", True), (103, "method", c + ".RGB", "to_ansi_domain", True),
        (107, "method", c + ".RGB", "initialize", True), (116, "method", c + ".RGB", "codes", True),
        (122, "method", c + ".RGB", "code_from_rgb", False), (129, "class", c, "X11Named", True),
        (132, "method", c + ".X11Named", "color_names", True), (136, "method", c + ".X11Named", "valid_names", True),
        (140, "method", c + ".X11Named", "initialize", True)]
    assert rows(extract("global.rb", (root / "global.rb").read_bytes())) == [
        (5, "module", "", "Rainbow", True), (6, "method", "Rainbow", "global", True),
        (10, "method", "Rainbow", "enabled", True), (14, "method", "Rainbow", "enabled=", True),
        (18, "method", "Rainbow", "uncolor", True), (23, "function", "", "Rainbow", True)]


# --- C# --------------------------------------------------------------------------------------------

CSHARP_SOURCE = b'''\
using System;
using System.Collections.Generic;

namespace Shop.Models
{
    /// <summary>An order line.</summary>
    [Serializable]
    public class Order<T> : IComparable<Order<T>> where T : class
    {
        public const int MaxItems = 10;
        private readonly Dictionary<string, List<T>> _cache = new();
        public string Name { get; set; } = "class Fake { }";
        public int Count => _items.Count;
        public T this[int index] { get => _items[index]; set => _items[index] = value; }
        public event EventHandler Changed;
        internal int hidden, alsoHidden;

        /// <summary>
        /// Creates one.
        /// </summary>
        public Order(string name) { Name = $"{name} {{x}} {Format("}")}"; }

        public int CompareTo(Order<T> other) => 0;
        public static Order<T> operator +(Order<T> a, Order<T> b) { return a; }
        protected virtual async Task<IList<U>> MapAsync<U>(Func<T, U> f) where U : new() { return null; }
        private string Verbatim() { return @"void Fake() { ""quoted"" }"; }

        public enum Status { Open, Closed = 2 }
        public interface IVisitor { void Visit(Order<T> o); string Label { get; } }
        private struct Cache { int c; }
        public delegate void Handler(object sender);
    }

    public record Person(string First, string Last = "");
    record struct Point(int X, int Y);
}

namespace Shop.Extra;

static class Helpers { public static void Help() { } }
'''


def test_csharp_declarations() -> None:
    """C# namespaces (block and file-scoped), types, properties, indexers, events, operators, generic methods, enum members, record parameters and delegates are found; verbatim and interpolated strings fake nothing."""
    symbols = extract("Shop/Order.cs", CSHARP_SOURCE)
    o = "Shop.Models.Order"
    assert rows(symbols) == [
        (4, "namespace", "", "Shop.Models", True), (8, "class", "Shop.Models", "Order", True),
        (10, "constant", o, "MaxItems", True), (11, "property", o, "_cache", False), (12, "property", o, "Name", True),
        (13, "property", o, "Count", True), (14, "property", o, "this[]", True), (15, "property", o, "Changed", True),
        (16, "property", o, "hidden", False), (16, "property", o, "alsoHidden", False),
        (21, "method", o, "Order", True), (23, "method", o, "CompareTo", True), (24, "method", o, "operator +", True),
        (25, "method", o, "MapAsync", True), (26, "method", o, "Verbatim", False), (28, "enum", o, "Status", True),
        (28, "constant", o + ".Status", "Open", True), (28, "constant", o + ".Status", "Closed", True),
        (29, "interface", o, "IVisitor", True), (29, "method", o + ".IVisitor", "Visit", True),
        (29, "property", o + ".IVisitor", "Label", True), (30, "class", o, "Cache", False),
        (30, "property", o + ".Cache", "c", False), (31, "type", o, "Handler", True),
        (34, "class", "Shop.Models", "Person", True), (34, "property", "Shop.Models.Person", "First", True),
        (34, "property", "Shop.Models.Person", "Last", True), (35, "class", "Shop.Models", "Point", False),
        (35, "property", "Shop.Models.Point", "X", False), (35, "property", "Shop.Models.Point", "Y", False),
        (38, "namespace", "", "Shop.Extra", True), (40, "class", "Shop.Extra", "Helpers", False),
        (40, "method", "Shop.Extra.Helpers", "Help", False),
    ]
    order = by_name(symbols, "Order")
    assert (order[0].doc, order[0].end_line, order[1].doc) == ("An order line.", 32, "Creates one.")
    assert by_name(symbols, "MapAsync")[0].signature == \
        "protected virtual async Task<IList<U>> MapAsync<U>(Func<T, U> f) where U : new()"


# --- Elixir ----------------------------------------------------------------------------------------

ELIXIR_SOURCE = b'''\
defmodule Shop.Cart do
  @moduledoc """
  A shopping cart.
  """
  defstruct items: [], total: 0

  @type t :: %__MODULE__{items: list(), total: integer()}
  @typep secret :: atom()
  @callback on_add(item :: term()) :: :ok

  @doc "Adds an item."
  @spec add(t(), term()) :: t()
  def add(%__MODULE__{} = cart, item) when is_map(item) do
    message = "def fake_in_string do end #{inspect(%{a: "}"})}"
    Enum.reduce([item], cart, fn x, acc -> %{acc | items: [x | acc.items]} end)
  end

  def add(cart, _item), do: cart

  defp total(items) do
    if items == [], do: 0, else: length(items)
  end

  defmacro debug(expr) do
    quote do
      IO.inspect(unquote(expr))
    end
  end

  defdelegate count(list), to: Enum
  @regex ~r/def fake_regex do end/
  def keyword_call, do: [def: 1, end: 2, do: 3]
  def multi_line(
        a,
        b
      ) do
    a + b
  end

  defmodule Item do
    defstruct [:name]
    def new(name), do: %__MODULE__{name: name}
  end
end

defprotocol Shop.Priced do
  def price(item)
end

defimpl Shop.Priced, for: Shop.Cart do
  def price(cart), do: cart.total
end
'''


def test_elixir_definitions() -> None:
    """Elixir modules (nested), protocols and impls, def/defp clauses, macros, delegates, structs, types and callbacks are found; strings, sigils and keyword keys fake nothing and keep do/end paired."""
    symbols = extract("lib/shop/cart.ex", ELIXIR_SOURCE)
    c = "Shop.Cart"
    assert rows(symbols) == [
        (1, "module", "Shop", "Cart", True), (5, "class", c, "Cart", True), (7, "type", c, "t", True),
        (8, "type", c, "secret", False), (9, "method", c, "on_add", True), (13, "function", c, "add", True),
        (18, "function", c, "add", True), (20, "function", c, "total", False), (24, "function", c, "debug", True),
        (30, "function", c, "count", True), (32, "function", c, "keyword_call", True),
        (33, "function", c, "multi_line", True), (40, "module", c, "Item", True),
        (41, "class", c + ".Item", "Item", True), (42, "function", c + ".Item", "new", True),
        (46, "module", "Shop", "Priced", True), (47, "function", "Shop.Priced", "price", True),
        (51, "function", "Shop.Priced.Shop.Cart", "price", True),
    ]
    assert [(s.name, s.end_line) for s in symbols if s.kind == "module"] == [("Cart", 44), ("Item", 43), ("Priced", 48)]
    add = by_name(symbols, "add")[0]
    assert (add.signature, add.doc, add.end_line) == (
        "def add(%__MODULE__{} = cart, item) when is_map(item)", "Adds an item.", 16)
    assert by_name(symbols, "Cart")[0].doc == "A shopping cart."
    assert by_name(symbols, "multi_line")[0].signature == "def multi_line(a, b)"
