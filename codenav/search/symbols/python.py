"""Python definitions (.py, .pyi) through the standard ``ast`` module.

What becomes a symbol:
- one ``module`` symbol per file (line 1, the module docstring as doc);
- every ``def``/``async def``/``class``, wherever it is (a function nested in a function has
  that function as container and is never exported);
- assignments and annotated assignments at module and class level, also inside ``if``/``try``/
  ``with``/``for`` blocks there (a tuple target gives one symbol per name);
  Python 3.12 ``type X = ...`` statements.

Kinds: a def in a class is a ``method``; one decorated ``property``/``cached_property`` or a
``.setter``/``.getter``/``.deleter`` is a ``property``. A class deriving from an Enum base is an
``enum`` (its assignments are ``constant``s), from ``Protocol`` an ``interface``. An assignment of
``TypeVar``/``NewType``/``TypeAliasType`` or annotated ``TypeAlias`` is a ``type``. An
UPPER_CASE name is a ``constant``; any other is a ``variable`` at module level and a
``property`` (a class attribute) in a class body.

Overloads: every ``@overload`` stub is its own symbol with its own signature and line, and so
is the implementation, so each accepted call shape is visible in the results.

Exported: a literal ``__all__`` (list or tuple of strings, ``+=`` and ``.extend`` included)
decides for module-level names; without one, a name not starting with ``_`` is exported. A
class member is exported when its class is and its name is public or a dunder.

Signatures come from the source: the header up to its colon (``def name(args) -> ret``,
``class Name(Base)``) or the assignment's first line, whitespace collapsed, comments dropped,
cut at 200 characters. Doc is the first non-empty line of the docstring.
"""

from __future__ import annotations

import ast

from .model import SIGNATURE_CHARS, Symbol

_PROPERTY_DECORATORS = {"property", "cached_property", "abstractproperty"}
_ENUM_BASES = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"}
_TYPE_FACTORIES = {"TypeVar", "NewType", "TypeAliasType", "ParamSpec", "TypeVarTuple"}
_COMPOUND_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def extract(path: str, data: bytes) -> list[Symbol]:
    """The definitions of one Python file, in source order. Raises SyntaxError/ValueError/RecursionError."""
    tree = ast.parse(data, filename=path, type_comments=False)
    text = data.decode("utf-8-sig", errors="replace")
    walker = _Walker(path, text.split("\n"))
    walker.exported_names = _literal_all(tree)
    module_name = _module_name(path)
    walker.symbols.append(Symbol(module_name, "module", path, 1, None, "", "", _first_doc_line(tree),
                                 not module_name.startswith("_")))
    walker.block(tree.body, container="", scope="module", class_exported=True)
    walker.symbols.sort(key=lambda symbol: (symbol.line, symbol.kind != "module"))
    return walker.symbols


def _module_name(path: str) -> str:
    parts = path.split("/")
    base = parts[-1].rsplit(".", 1)[0]
    if base == "__init__" and len(parts) > 1:
        return parts[-2]
    return base


def _literal_all(tree: ast.Module) -> set[str] | None:
    """The names of a literal ``__all__``, or None when there is none or it is computed."""
    names: set[str] | None = None
    for node in tree.body:
        value = None
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            value, names = node.value, set()
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "__all__":
            value, names = node.value, set()
        elif (isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name)
              and node.target.id == "__all__" and names is not None):
            value = node.value
        elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and names is not None
              and isinstance(node.value.func, ast.Attribute) and node.value.func.attr in ("extend", "append")
              and isinstance(node.value.func.value, ast.Name) and node.value.func.value.id == "__all__"):
            args = node.value.args
            value = ast.List(elts=list(args)) if node.value.func.attr == "append" else (args[0] if args else None)
        if value is None:
            continue
        if not isinstance(value, (ast.List, ast.Tuple)):
            return None  # computed: fall back to the underscore rule
        for element in value.elts:
            if not (isinstance(element, ast.Constant) and isinstance(element.value, str)):
                return None
            names.add(element.value)
    return names


def _first_doc_line(node: ast.AST) -> str:
    try:
        doc = ast.get_docstring(node, clean=True)
    except TypeError:
        return ""
    if not doc:
        return ""
    for line in doc.split("\n"):
        if line.strip():
            return _cut(line.strip())
    return ""


def _cut(text: str) -> str:
    return text if len(text) <= SIGNATURE_CHARS else text[: SIGNATURE_CHARS - 1] + "…"


def _is_upper(name: str) -> bool:
    stripped = name.strip("_")
    return bool(stripped) and stripped.upper() == stripped and any(ch.isalpha() for ch in stripped)


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for a Name/Attribute chain (a Call's function for a decorator call), else ''."""
    if isinstance(node, ast.Call):
        node = node.func
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


class _Walker:
    def __init__(self, path: str, lines: list[str]) -> None:
        self.path = path
        self.lines = lines
        self.symbols: list[Symbol] = []
        self.exported_names: set[str] | None = None

    def exported(self, name: str, scope: str, class_exported: bool) -> bool:
        if scope == "module":
            if self.exported_names is not None:
                return name in self.exported_names
            return not name.startswith("_")
        if scope == "class":
            public = not name.startswith("_") or (name.startswith("__") and name.endswith("__"))
            return class_exported and public
        return False

    def block(self, body: list[ast.stmt], container: str, scope: str, class_exported: bool,
              class_kind: str = "class") -> None:
        """Visit the statements of one scope; compound statements do not open a new one."""
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.function(node, container, scope, class_exported)
            elif isinstance(node, ast.ClassDef):
                self.klass(node, container, scope, class_exported)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and scope != "function":
                self.assignment(node, container, scope, class_exported, class_kind)
            elif type(node).__name__ == "TypeAlias":  # Python 3.12 ``type X = ...``
                name = getattr(node, "name", None)
                if isinstance(name, ast.Name):
                    self.add(name.id, "type", node, container, self.exported(name.id, scope, class_exported),
                             self.first_line(node), "")
            else:
                for field in _COMPOUND_FIELDS:
                    children = getattr(node, field, None)
                    if isinstance(children, list) and children:
                        if field in ("handlers", "cases"):
                            for child in children:
                                self.block(child.body, container, scope, class_exported, class_kind)
                        elif isinstance(children[0], ast.stmt):
                            self.block(children, container, scope, class_exported, class_kind)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, container: str, scope: str,
                 class_exported: bool) -> None:
        kind = "method" if scope == "class" else "function"
        for decorator in node.decorator_list:
            dotted = _dotted(decorator)
            last = dotted.rsplit(".", 1)[-1]
            if last in _PROPERTY_DECORATORS or (scope == "class" and last in ("setter", "getter", "deleter")
                                                and "." in dotted):
                kind = "property"
        exported = self.exported(node.name, scope, class_exported)
        self.add(node.name, kind, node, container, exported, self.header(node), _first_doc_line(node))
        inner = f"{container}.{node.name}" if container else node.name
        self.block(node.body, inner, "function", False)

    def klass(self, node: ast.ClassDef, container: str, scope: str, class_exported: bool) -> None:
        bases = {_dotted(base).rsplit(".", 1)[-1] for base in node.bases}
        kind = "enum" if bases & _ENUM_BASES else "interface" if "Protocol" in bases else "class"
        exported = self.exported(node.name, scope, class_exported)
        self.add(node.name, kind, node, container, exported, self.header(node), _first_doc_line(node))
        inner = f"{container}.{node.name}" if container else node.name
        if scope == "function":
            self.block(node.body, inner, "class", False, kind)
        else:
            self.block(node.body, inner, "class", exported, kind)

    def assignment(self, node: ast.Assign | ast.AnnAssign, container: str, scope: str, class_exported: bool,
                   class_kind: str) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names: list[str] = []
        for target in targets:
            stack = [target]
            while stack:
                item = stack.pop(0)
                if isinstance(item, ast.Name):
                    names.append(item.id)
                elif isinstance(item, (ast.Tuple, ast.List)):
                    stack[:0] = item.elts
                elif isinstance(item, ast.Starred):
                    stack.insert(0, item.value)
        if not names:
            return
        value = node.value
        is_type = False
        if isinstance(value, ast.Call) and _dotted(value.func).rsplit(".", 1)[-1] in _TYPE_FACTORIES:
            is_type = True
        if isinstance(node, ast.AnnAssign) and _dotted(node.annotation).rsplit(".", 1)[-1] == "TypeAlias":
            is_type = True
        signature = self.first_line(node)
        for name in names:
            if name == "__all__":
                continue
            if is_type:
                kind = "type"
            elif class_kind == "enum" and scope == "class":
                kind = "constant"
            elif _is_upper(name):
                kind = "constant"
            elif scope == "class":
                kind = "property"
            else:
                kind = "variable"
            self.add(name, kind, node, container, self.exported(name, scope, class_exported), signature, "")

    def add(self, name: str, kind: str, node: ast.AST, container: str, exported: bool, signature: str,
            doc: str) -> None:
        self.symbols.append(Symbol(name, kind, self.path, node.lineno, getattr(node, "end_lineno", None),
                                   container, signature, doc, exported))

    def first_line(self, node: ast.AST) -> str:
        line = self.lines[node.lineno - 1] if node.lineno - 1 < len(self.lines) else ""
        return _cut(" ".join(_strip_comment(line[node.col_offset:]).split()))

    def header(self, node: ast.AST) -> str:
        """The ``def``/``class`` header from its source lines up to the colon that ends it."""
        first = node.lineno - 1
        last = node.body[0].lineno - 1 if node.body else first
        chunk = "\n".join(self.lines[first: max(last, first) + 1])
        text = " ".join(_header_text(chunk[node.col_offset:]).split())
        # the collapsed line breaks of a wrapped parameter list leave "( a, b, )": tidy to "(a, b)"
        text = text.replace("( ", "(").replace(" )", ")").replace(",)", ")").replace("[ ", "[").replace(" ]", "]")
        return _cut(text)


def _strip_comment(line: str) -> str:
    """``line`` without a trailing ``#`` comment (a ``#`` inside a string is kept)."""
    if "#" not in line:
        return line
    quote = ""
    i = 0
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 1
            elif line.startswith(quote, i):
                i += len(quote) - 1
                quote = ""
        elif ch in "'\"":
            quote = line[i: i + 3] if line[i: i + 3] in ("'''", '"""') else ch
            i += len(quote) - 1
        elif ch == "#":
            return line[:i]
        i += 1
    return line


def _header_text(chunk: str) -> str:
    """The text of ``chunk`` up to the first colon outside brackets and strings, comments dropped."""
    out = []
    depth = 0
    quote = ""
    i = 0
    while i < len(chunk):
        ch = chunk[i]
        if quote:
            if ch == "\\":
                out.append(chunk[i: i + 2])
                i += 2
                continue
            if chunk.startswith(quote, i):
                out.append(quote)
                i += len(quote)
                quote = ""
                continue
            out.append(ch)
        elif ch in "'\"":
            quote = chunk[i: i + 3] if chunk[i: i + 3] in ("'''", '"""') else ch
            out.append(quote)
            i += len(quote)
            continue
        elif ch == "#":
            end = chunk.find("\n", i)
            i = len(chunk) if end < 0 else end
            continue
        elif ch in "([{":
            depth += 1
            out.append(ch)
        elif ch in ")]}":
            depth -= 1
            out.append(ch)
        elif ch == ":" and depth <= 0:
            break
        else:
            out.append(ch)
        i += 1
    return "".join(out)
