"""JavaScript and TypeScript definitions (.js .mjs .cjs .jsx .ts .mts .cts .tsx .d.ts).

Two passes, no parser dependency:

1. A tokenizer that knows what is *not* code: strings, template literals (their ``${}``
   expressions are scanned, to find where the template ends, but yield no tokens), regular
   expression literals (``/`` starts a regex unless the previous significant token ends an
   operand: a name that is not an operator keyword, a number, a string, ``)``, ``]`` or ``}``),
   line and block comments (a ``/** … */`` JSDoc is kept for the token that follows it).
2. A declaration scanner over the tokens, statement by statement, with brace nesting for
   containers. Bodies of functions and methods are skipped whole: only declarations at the top
   level, in namespaces/``declare module`` blocks and in class/interface/enum bodies count, plus
   the IIFE wrapper of old bundles (``(function () { … })()``).

What becomes a symbol: ``function``/``class``/``interface``/``type``/``enum``/``namespace``/
``module``/``declare …`` declarations; each ``const``/``let``/``var`` declarator (a function
or arrow function value makes it a ``function``, a class value a ``class``, an UPPER_CASE
``const`` a ``constant``); class members (methods, getters/setters and fields: getters,
setters and fields are ``property``); interface members; enum members (``constant``);
CommonJS ``exports.x =``, ``module.exports.x =`` and the members of ``module.exports = {…}``;
``obj.x = …`` (a ``method`` when the value is a function, else a ``property``, container
``obj``) and ``X.prototype.m = function`` (``method`` of ``X``); ``export { a as b }`` gives a
symbol ``b`` (kind of ``a`` when ``a`` is defined here); ``export { a } from 'm'`` and
``export * as ns from 'm'`` give re-export symbols (signature: the export clause);
``export default <expression>`` gives a symbol named ``default``. ``export * from 'm'``,
imports and ``require()`` bindings define nothing.

Exported: an ``export`` keyword, being named by ``export {…}``/``export default``/``export =``/
``module.exports``/``exports.x``, or being declared in a ``declare module``/``declare namespace``
/``declare global`` block or at the top of a .d.ts that is not a module (a global). A member
follows its container, except ``private``/``protected``/``#private`` ones. In a plain script
(no import, export, require or exports) top-level names are ``None``: the language does not say.

The tokenizer and the reading of its tokens are in javascript_tokens.py; class, interface and
enum bodies in javascript_classes.py; CommonJS and ``export`` forms in javascript_exports.py.
"""

from __future__ import annotations

from .javascript_classes import Classes
from .javascript_exports import Exports
from .javascript_tokens import NAME, PUNCT, STRING, TYPE, VALUE, tokenize
from .model import Symbol
from .scanner import block_doc_line, cut, upper_name

__all__ = ["extract", "tokenize"]


class _Scanner(Classes, Exports):
    def __init__(self, path: str, text: str) -> None:
        super().__init__(path, text)
        self.dts = path.lower().endswith((".d.ts", ".d.mts", ".d.cts"))
        self.top: dict[str, Symbol] = {}  # first top-level symbol of each name
        self.qualified: dict[str, Symbol] = {}  # first symbol of each container.name
        self.exported_names: set[str] = set()
        self.undecided: list[Symbol] = []  # top-level, neither exported nor declared ambient
        self.members: list[tuple[Symbol, bool]] = []  # (member, private): exported follows the container
        self.aliases: list[tuple[Symbol, str]] = []  # (export alias, local name): kind follows the local
        self.is_module = False

    # --- emitting ------------------------------------------------------------------------------
    def emit(self, name: str, kind: str, start: int, end_tok: int | None, container: str, exported: bool | None,
             signature: str, doc_at: int, name_at: int | None = None) -> Symbol:
        doc = self.docs.get(doc_at)
        line = self.line(name_at if name_at is not None else start)
        end_line = self.line(end_tok) if end_tok is not None else None
        symbol = Symbol(name, kind, self.path, line, end_line if end_line and end_line >= line else None,
                        container, signature, block_doc_line(doc) if doc else "", exported)
        self.symbols.append(symbol)
        if not container and name not in self.top:
            self.top[name] = symbol
        self.qualified.setdefault(f"{container}.{name}" if container else name, symbol)
        return symbol

    def top_level(self, symbol: Symbol, exported: bool, ambient: bool, container: str) -> None:
        """Record how a declaration's ``exported`` is decided (see the module docstring)."""
        if exported or ambient:
            symbol.exported = True
        elif not container:
            symbol.exported = False
            self.undecided.append(symbol)
        else:
            symbol.exported = False  # inside a non-ambient namespace without ``export``

    # --- statements ----------------------------------------------------------------------------
    def statements(self, i: int, container: str, ambient: bool) -> int:
        """Scan statements from ``i`` up to the ``}`` closing this block; returns its index (or n)."""
        while i < self.n:
            value = self.val(i)
            if value == "}" and self.typ(i) == PUNCT:
                return i
            if value == ";":
                i += 1
                continue
            after = self.statement(i, container, ambient)
            i = after if after > i else i + 1
        return i

    def statement(self, i: int, container: str, ambient: bool) -> int:
        doc_at = i
        i = self.annotations(i)
        start = i
        exported = default = False
        declare = ambient
        value = self.val(i)
        if value == "export" and self.typ(i) == NAME:
            self.is_module = True
            nxt = self.val(i + 1)
            if nxt == "{" or (nxt == "type" and self.val(i + 2) == "{"):
                return self.export_clause(i, i + 1 if nxt == "{" else i + 2, container, doc_at)
            if nxt == "*":
                return self.export_star(i, container, doc_at)
            if nxt == "=":
                if self.is_name(i + 2):
                    self.exported_names.add(self.val(i + 2))
                return self.skip_statement(i)
            if nxt in ("import", "as"):
                return self.skip_statement(i)
            exported = True
            i += 1
            i = self.annotations(i)
            if self.val(i) == "default":
                default = True
                i += 1
        while True:
            value = self.val(i)
            if value == "declare" and self.is_name(i + 1) and not self.nl(i + 1):
                declare = True
                i += 1
            elif value == "abstract" and self.val(i + 1) == "class":
                i += 1
            elif value == "async" and self.val(i + 1) == "function" and not self.nl(i + 1):
                i += 1
            else:
                break
        if self.typ(i) != NAME:
            if default:
                return self.export_default(start, i, container, doc_at)
            if value in ("(", "!", "+", "-", "~") and not container:
                return self.iife(i)
            return self.skip_statement(i)
        nxt = self.val(i + 1)
        name_next = self.is_name(i + 1)
        if value == "function":
            return self.function(start, i, container, exported, default, declare, doc_at)
        if value == "class":
            return self.klass(start, i, container, exported, default, declare, doc_at)
        if value == "interface" and name_next:
            return self.interface(start, i, container, exported, declare, doc_at)
        if value == "type" and name_next and self.val(i + 2) in ("=", "<"):
            return self.type_alias(start, i, container, exported, declare, doc_at)
        if value == "enum" and name_next:
            return self.enum(start, i, container, exported, declare, doc_at)
        if value == "const" and nxt == "enum" and self.is_name(i + 2):
            return self.enum(start, i + 1, container, exported, declare, doc_at)
        if value in ("namespace", "module") and (name_next or self.typ(i + 1) == STRING) and not self.nl(i + 1):
            return self.namespace(start, i, container, exported, declare, doc_at)
        if value == "global" and nxt == "{" and (declare or ambient):
            return self.namespace(start, i, container, exported, True, doc_at)
        if value in ("const", "let", "var") and (name_next or nxt in ("{", "[")):
            return self.variables(start, i, container, exported, declare, doc_at)
        if default:
            return self.export_default(start, i, container, doc_at)
        if value == "import":
            if nxt not in ("(", "."):
                self.is_module = True
            return self.skip_statement(i)
        if value in ("if", "for", "while", "do", "switch", "try", "return", "throw", "else", "with"):
            return self.skip_statement(i)
        assigned = self.assignment(start, i, container, doc_at)
        return assigned if assigned is not None else self.skip_statement(i)

    def function(self, start: int, i: int, container: str, exported: bool, default: bool, ambient: bool,
                 doc_at: int) -> int:
        j = i + 1
        if self.val(j) == "*":
            j += 1
        name_at = j if self.is_name(j) else None
        if name_at is not None:
            j += 1
        name = self.val(name_at) if name_at is not None else "default" if default else ""
        if self.val(j) == "<":
            j = self.skip_angles(j)
        if self.val(j) != "(":
            return self.skip_statement(i)
        j = self.skip_balanced(j)
        if self.val(j) == ":":
            j = self.skip_type(j + 1)
        sig_end = j
        end_tok = j - 1
        if self.val(j) == "{":
            j = self.skip_balanced(j)
            end_tok = j - 1
        elif self.val(j) == ";":
            j += 1
        if name:
            symbol = self.emit(name, "function", start, end_tok, container, None, self.signature(start, sig_end),
                               doc_at, name_at)
            self.top_level(symbol, exported, ambient, container)
        return j


    def type_alias(self, start: int, i: int, container: str, exported: bool, ambient: bool, doc_at: int) -> int:
        name_at = i + 1
        j = i + 2
        if self.val(j) == "<":
            j = self.skip_angles(j)
        if self.val(j) == "=":
            j = self.skip_type(j + 1)
            while self.val(j) == "," or (self.val(j) == "=" and self.val(j - 1) != "="):
                j = self.skip_type(j + 1)  # a ``,``/``=`` inside the type at depth 0 does not end it here
        symbol = self.emit(self.val(name_at), "type", start, j - 1, container, None, self.signature(start, j),
                           doc_at, name_at)
        self.top_level(symbol, exported, ambient, container)
        return j + 1 if self.val(j) == ";" else j


    def namespace(self, start: int, i: int, container: str, exported: bool, ambient: bool, doc_at: int) -> int:
        keyword = self.val(i)
        j = i + 1 if keyword != "global" else i
        if self.typ(j) == STRING:
            name, kind = self.val(j)[1:-1], "module"
            name_at = j
            j += 1
        else:
            name_at = j
            parts = [self.val(j)]
            j += 1
            while self.val(j) == "." and self.is_name(j + 1):
                parts.append(self.val(j + 1))
                j += 2
            name, kind = ".".join(parts), "namespace"
        if self.val(j) != "{":  # ``declare module 'x';``: a shorthand ambient module
            symbol = self.emit(name, kind, start, j - 1, container, None, self.signature(start, j), doc_at, name_at)
            self.top_level(symbol, exported, ambient, container)
            return self.skip_statement(j)
        symbol = self.emit(name, kind, start, None, container, None, self.signature(start, j), doc_at, name_at)
        self.top_level(symbol, exported, ambient, container)
        qualified = f"{container}.{name}" if container else name
        end = self.statements(j + 1, qualified, ambient)
        symbol.end_line = self.line(end)
        return end + 1


    def variables(self, start: int, i: int, container: str, exported: bool, ambient: bool, doc_at: int) -> int:
        keyword = self.val(i)
        i += 1
        first = True
        while i < self.n:
            decl_start = i
            names: list[int] = []
            if self.is_name(i):
                names.append(i)
                i += 1
            elif self.val(i) in ("{", "["):
                close = self.skip_balanced(i)
                for k in range(i + 1, close - 1):
                    if (self.is_name(k) and self.val(k + 1) in (",", "}", "]", "=")
                            and self.val(k - 1) in ("{", ",", "[", ":", "...")):
                        names.append(k)
                i = close
            else:
                return self.skip_statement(i)
            if self.val(i) == "!":
                i += 1
            if self.val(i) == ":":
                i = self.skip_type(i + 1)
            kind, sig_end = "value", i
            chained = False
            if self.val(i) == "=":
                chained, value_at = self.exports_chain(i + 1)
                kind, sig_end = self.function_value(value_at)
                end = self.skip_expression(value_at, stop_comma=True)
            else:
                end = i
            if kind != "require":
                sig_start = start if first else decl_start
                signature = self.signature(sig_start, end if kind in ("value", "class") else sig_end)
                if not first:
                    signature = cut(f"{keyword} {signature}")
                for name_at in names:
                    name = self.val(name_at)
                    if kind in ("function", "class"):
                        symbol_kind = kind
                    else:
                        symbol_kind = "constant" if keyword == "const" and upper_name(name, "_$") else "variable"
                    symbol = self.emit(name, symbol_kind, sig_start, end - 1, container, None, signature,
                                       doc_at if first else decl_start, name_at)
                    self.top_level(symbol, exported or chained, ambient, container)
            first = False
            if self.val(end) == ",":
                i = end + 1
                continue
            return end + 1 if self.val(end) == ";" else end
        return i


    # --- the whole file ----------------------------------------------------------------------
    def run(self) -> list[Symbol]:
        i = 0
        while i < self.n:
            i = self.statements(i, "", self.dts and False)
            i += 1  # a stray ``}`` at the top level: step over it
        if not self.is_module:
            self.is_module = any(tok[VALUE] == "require" and k + 1 < self.n and self.toks[k + 1][VALUE] == "("
                                 for k, tok in enumerate(self.toks) if tok[TYPE] == NAME)
        for symbol in self.undecided:
            if symbol.name in self.exported_names:
                symbol.exported = True
            elif not self.is_module:
                symbol.exported = True if self.dts else None
        for alias, local in self.aliases:
            target = self.top.get(local)
            if target is not None:
                alias.kind = target.kind
        for symbol, private in self.members:
            root = self.qualified.get(symbol.container) or self.top.get(symbol.container.split(".")[0])
            if private or root is None:
                symbol.exported = False if private or self.is_module else None
            else:
                symbol.exported = root.exported
        self.symbols.sort(key=lambda symbol: symbol.line)
        return self.symbols


def extract(path: str, data: bytes) -> list[Symbol]:
    """The definitions of one JavaScript/TypeScript file, in source order. Raises UnicodeDecodeError."""
    text = data.decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    return _Scanner(path, text).run()
