"""Kotlin definitions (.kt, .kts) at declaration level, by a tokenizer and a body scanner.

The tokenizer (scanner.Lexer with Kotlin's token pattern) knows strings with ``$name``
and ``${…}`` templates (a template is code: its own strings, braces and comments are scanned), raw strings (``\"\"\"…\"\"\"``, templates too),
character literals, line comments, nested block comments (``/* /* */ */``) and backtick
identifiers; a ``/** … */`` KDoc is kept for the declaration after it (its first line of text).
Function bodies, property initializers and accessors, and ``init`` blocks are skipped (local
declarations are not the file's API). Kotlin ends a declaration at a line break, so a header
(``fun …(…): T``, ``class … : Base(), I``) runs to its body, ``=``, or the first line break
that nothing carries over (a trailing ``:``/``,``/``->``/``.``, or a next line opening with one
of those, ``where``, ``by``, ``{`` or ``=``).

What becomes a symbol: the ``package`` (``namespace``); ``class`` (also ``data``, ``sealed``,
``value``, ``inner``, ``annotation`` classes), ``object`` and ``companion object`` (``class``; an
unnamed companion is ``Companion``), ``interface`` and ``fun interface`` (``interface``),
``enum class`` (``enum``; its entries are ``constant``s), nested at any depth (container: the
enclosing classes, dotted; the package is not part of it, as in Java); ``fun`` (``function`` at
the top level, ``method`` in a class; extension functions under their own name, the receiver
shown in the signature; a secondary ``constructor`` is a ``method`` named after its class);
``val``/``var`` at the top level and in classes, and ``val``/``var`` parameters of a primary
constructor (``property``; ``const val`` is a ``constant``); ``typealias`` (``type``).

Exported: public is Kotlin's default, so a declaration is exported unless it is ``private`` or
``internal`` or sits inside a class that is not exported.
"""

from __future__ import annotations

import re

from .model import Symbol
from .scanner import (
    END,
    LINE,
    LITERAL,
    NAME,
    OPENERS,
    PUNCT,
    START,
    TIDY_TRAILING_COMMA,
    TYPE,
    VALUE,
    Lexer,
    TokenScanner,
    block_doc_line,
    nested_comment_end,
)

_TOKEN = re.compile(r"""
    (?P<nl>\n)
  | (?P<ws>[ \t\r\f\v\ufeff]+)
  | (?P<line>//[^\n]*)
  | (?P<block>/\*)
  | (?P<str>")
  | (?P<char>'(?:[^'\\\n]|\\.)*'?)
  | (?P<tick>`[^`\n]*`?)
  | (?P<name>[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)
  | (?P<num>\.?\d[\w.]*)
  | (?P<punct>->|::|\?\.|\?:|\.\.<|\.\.|!!|===|!==|==|!=|<=|>=|&&|\|\||\+\+|--|[-+*/%]=|[{}()\[\];,<>=!&|+\-*/%^.:@?~#])
""", re.VERBOSE)
_IN_STRING = re.compile(r'[\\"$\n]')
_IN_RAW = re.compile(r'"""|\$\{')
_IN_TEMPLATE = re.compile(r"""["'{}/]""")
_CHAR = re.compile(r"'(?:[^'\\\n]|\\.)*'?")

_MODIFIERS = frozenset((
    "public", "private", "protected", "internal", "open", "final", "abstract", "sealed", "data", "enum",
    "annotation", "inner", "value", "companion", "override", "lateinit", "const", "suspend", "inline", "noinline",
    "crossinline", "tailrec", "operator", "infix", "external", "expect", "actual"))
_DECLARATIONS = frozenset(("class", "interface", "object", "fun", "val", "var", "typealias", "constructor"))
_AFTER_WORD = ("(", "<", ":", "{", "=", ".", "?", ",", ")")  # a name followed by one of these is not a modifier
# A line break inside a header is carried over by one of these at the end of a line or the start of the next
_CARRY_END = frozenset((":", ",", "->", ".", "?.", "&", "(", "<", "="))
_CARRY_START = frozenset((":", ",", "->", ".", "?.", "?", "&", "where", "by", "{", "=", ">", ")"))


def _string_end(text: str, i: int) -> int:
    """The end of the string literal opening at ``i``: templates nest strings, kept on a stack.

    A frame is ``"s"`` (a one-line string), ``"r"`` (a raw string) or a brace depth (code in a
    ``${…}`` template). An unclosed string ends at its line's end, a raw one at the text's end.
    """
    n = len(text)
    stack: list = ["r" if text.startswith('"""', i) else "s"]
    i += 3 if stack[0] == "r" else 1
    while stack and i < n:
        top = stack[-1]
        if top == "s":
            m = _IN_STRING.search(text, i)
            if m is None:
                return n
            ch, i = m.group(), m.end()
            if ch == "\\":
                i += 1
            elif ch == '"' or ch == "\n":
                stack.pop()
            elif text.startswith("{", i):  # ``$`` opening a template
                stack.append(1)
                i += 1
        elif top == "r":
            m = _IN_RAW.search(text, i)
            if m is None:
                return n
            i = m.end()
            if m.group() == '"""':
                while i < n and text[i] == '"':  # """"x"""" : the last three quotes close it
                    i += 1
                stack.pop()
            else:
                stack.append(1)
        else:
            m = _IN_TEMPLATE.search(text, i)
            if m is None:
                return n
            ch, i = m.group(), m.end()
            if ch == '"':
                raw = text.startswith('""', i)
                stack.append("r" if raw else "s")
                i += 2 if raw else 0
            elif ch == "'":
                i = _CHAR.match(text, i - 1).end()
            elif ch == "{":
                stack[-1] = top + 1
            elif ch == "}":
                if top == 1:
                    stack.pop()
                else:
                    stack[-1] = top - 1
            elif text.startswith("/", i):
                end = text.find("\n", i)
                i = n if end < 0 else end
            elif text.startswith("*", i):
                i = nested_comment_end(text, i - 1)
    return min(i, n)


class _Lexer(Lexer):
    pattern = _TOKEN
    kinds = {"name": NAME, "tick": NAME, "punct": PUNCT}
    special = {"block": "nested_javadoc", "str": "string"}

    def string(self, start: int, m: re.Match) -> int:
        end = _string_end(self.text, start)
        self.add(LITERAL, start, end)
        return end


def tokenize(text: str) -> tuple[list[tuple], dict[int, str]]:
    """The tokens of ``text`` (see scanner.py) and the KDoc comment before each documented token."""
    lexer = _Lexer(text)
    return lexer.tokens, lexer.docs


def _plain(name: str) -> str:
    """A backtick identifier without its backticks."""
    return name[1:-1] if len(name) > 1 and name[0] == "`" and name[-1] == "`" else name


class _Scanner(TokenScanner):
    tidy = TIDY_TRAILING_COMMA
    lexer = _Lexer
    angle_stops = (";", "{", "}", "=", ")", "]")

    def new_line(self, i: int) -> bool:
        """Whether token ``i`` starts a line (after token ``i - 1``; only a literal spans lines)."""
        if not 0 < i < self.n:
            return False
        before = self.toks[i - 1]
        last = before[LINE] + (self.text.count("\n", before[START], before[END]) if before[TYPE] == LITERAL else 0)
        return self.toks[i][LINE] > last

    def emit(self, name: str, kind: str, sig_start: int, name_at: int, end_tok: int | None, container: str,
             exported: bool, sig_end: int, doc_at: int) -> Symbol:
        doc = self.docs.get(doc_at) or self.docs.get(sig_start)
        symbol = Symbol(_plain(name), kind, self.path, self.line(name_at),
                        self.line(end_tok) if end_tok is not None else None, container,
                        self.signature(sig_start, sig_end), block_doc_line(doc) if doc else "", exported)
        self.symbols.append(symbol)
        return symbol

    def annotation(self, i: int) -> int:
        """The index after the annotation at ``i`` (``@A``, ``@a.B(…)``, ``@file:A``, ``@[A B]``)."""
        i += 1
        if self.val(i) == "[":
            return self.skip_balanced(i)
        if self.is_name(i) and self.val(i + 1) == ":" and self.is_name(i + 2):  # a use-site target
            i += 2
        if not self.is_name(i):
            return i
        i += 1
        while self.val(i) == "." and self.is_name(i + 1):
            i += 2
        if self.val(i) == "<":
            i = self.skip_angles(i)
        if self.val(i) == "(" and not self.new_line(i):
            i = self.skip_balanced(i)
        return i

    def header_end(self, i: int, stops: tuple[str, ...] = ("{", "=")) -> int:
        """The index of the first of ``stops`` opening a body, or of the first token past the header."""
        while i < self.n:
            tok = self.toks[i]
            value = tok[VALUE]
            if self.new_line(i) and value not in _CARRY_START and self.val(i - 1) not in _CARRY_END:
                return i
            if tok[TYPE] == PUNCT:
                if value in stops or value in ("}", ";", ")", "]"):
                    return i
                if value in ("(", "["):
                    i = self.skip_balanced(i)
                    continue
                if value == "<":
                    i = max(self.skip_angles(i), i + 1)
                    continue
            elif tok[TYPE] == NAME and value in stops:
                return i
            i += 1
        return i

    def is_modifier(self, i: int, pending: bool) -> bool:
        if self.val(i) not in _MODIFIERS or self.val(i + 1) in _AFTER_WORD:
            return False
        if not (self.is_name(i + 1) or self.val(i + 1) == "@"):
            return False
        return pending or i == 0 or self.new_line(i) or self.val(i - 1) in ("{", "}", ";")

    def body(self, i: int, container: str, exported: bool, class_name: str, in_enum: bool) -> int:
        """The declarations from ``i`` to the ``}`` closing this body (or the end); returns its index."""
        if in_enum:
            i = self.enum_entries(i, container, exported)
        first = -1  # the first annotation or modifier of the declaration being read
        sig_start = -1  # the first modifier (annotations are left out of signatures)
        mods: set[str] = set()
        while i < self.n:
            tok = self.toks[i]
            kind, value = tok[TYPE], tok[VALUE]
            if kind == PUNCT:
                if value == "}" and container:
                    return i
                if value == "@":
                    if first < 0:
                        first = i
                    i = max(self.annotation(i), i + 1)
                    continue
                first, sig_start, mods = -1, -1, set()
                i = self.skip_balanced(i) if value in OPENERS else i + 1
                continue
            if kind == NAME and self.is_modifier(i, first >= 0):
                if first < 0:
                    first = i
                if sig_start < 0:
                    sig_start = i
                mods.add(value)
                i += 1
                continue
            if kind == NAME and value in _DECLARATIONS and self.val(i - 1) not in ("::", ".", "?."):
                start = first if first >= 0 else i
                after = self.declaration(i, start, sig_start if sig_start >= 0 else i, mods, container, exported,
                                         class_name)
                first, sig_start, mods = -1, -1, set()
                i = max(after, i + 1)
                continue
            if kind == NAME and value in ("package", "import") and not container and (i == 0 or self.new_line(i)):
                i = self.package_or_import(i)
                first, sig_start, mods = -1, -1, set()
                continue
            first, sig_start, mods = -1, -1, set()
            i += 1
        return i

    def package_or_import(self, i: int) -> int:
        keyword = self.val(i)
        j = i + 1
        while self.is_name(j) and self.val(j + 1) == "." and (self.is_name(j + 2) or self.val(j + 2) == "*"):
            j += 2
        if self.is_name(j) or self.val(j) == "*":
            j += 1
        if keyword == "import" and self.val(j) == "as" and self.is_name(j + 1):
            j += 2
        if keyword == "package" and j > i + 1:
            name = "".join(_plain(self.val(k)) for k in range(i + 1, j))
            self.emit(name, "namespace", i, i + 1, None, "", True, j, i)
        return max(j, i + 1)

    def declaration(self, i: int, first: int, sig_start: int, mods: set[str], container: str, exported: bool,
                    class_name: str) -> int:
        """The declaration whose keyword is at ``i``; returns the index after what it read."""
        keyword = self.val(i)
        own_exported = exported and not (mods & {"private", "internal"})
        if keyword == "fun" and self.val(i + 1) == "interface":
            keyword, i = "interface", i + 1
        if keyword in ("class", "interface", "object"):
            return self.class_declaration(i, keyword, first, sig_start, mods, container, own_exported)
        if keyword == "fun":
            return self.function(i, first, sig_start, container, own_exported)
        if keyword in ("val", "var"):
            return self.property(i, first, sig_start, mods, container, own_exported)
        if keyword == "typealias":
            if not self.is_name(i + 1):
                return i + 1
            end = self.header_end(i + 2, ("{",))
            self.emit(self.val(i + 1), "type", sig_start, i + 1, end - 1, container, own_exported, end, first)
            return end
        # a secondary constructor
        if not class_name or self.val(i + 1) != "(":
            return i + 1
        end = self.header_end(self.skip_balanced(i + 1), ("{",))
        body_end = self.skip_balanced(end) if self.val(end) == "{" else end
        self.emit(class_name, "method", sig_start, i, body_end - 1, container, own_exported, end, first)
        return body_end

    def class_declaration(self, i: int, keyword: str, first: int, sig_start: int, mods: set[str], container: str,
                          exported: bool) -> int:
        name_at = i + 1
        if keyword == "object" and "companion" in mods and not self.is_name(name_at):
            name, name_at = "Companion", i
        elif self.is_name(name_at) and self.val(name_at) not in _DECLARATIONS:
            name = self.val(name_at)
        else:
            return i + 1  # ``object : T {…}`` in an expression, or a broken header
        kind = "interface" if keyword == "interface" else "enum" if "enum" in mods else "class"
        j = name_at + 1
        if self.val(j) == "<":
            j = self.skip_angles(j)
        k = j
        while self.is_modifier(k, True) or self.val(k) == "@":  # ``class A @Inject private constructor(…)``
            k = self.annotation(k) if self.val(k) == "@" else k + 1
        if self.val(k) == "constructor" and self.val(k + 1) == "(":
            k += 1
        params = k if self.val(k) == "(" and (k > j or not self.new_line(k)) else -1
        end = self.header_end(self.skip_balanced(params) if params >= 0 else j, ("{",))
        symbol = self.emit(name, kind, sig_start, name_at, end - 1, container, exported, end, first)
        qualified = f"{container}.{_plain(name)}" if container else _plain(name)
        if params >= 0:
            self.constructor_properties(params, qualified, exported)
        if self.val(end) != "{":
            return end
        close = self.body(end + 1, qualified, exported, _plain(name), kind == "enum")
        symbol.end_line = self.line(close)
        return close + 1

    def constructor_properties(self, i: int, container: str, exported: bool) -> None:
        """The ``val``/``var`` parameters of the primary constructor whose ``(`` is at ``i``."""
        close = self.skip_balanced(i) - 1
        j = i + 1
        while j < close:
            first = j
            mods: set[str] = set()
            while j < close and (self.val(j) == "@" or self.val(j) in _MODIFIERS):
                if self.val(j) == "@":
                    j = max(self.annotation(j), j + 1)
                else:
                    mods.add(self.val(j))
                    j += 1
            sig_start = first
            while self.val(sig_start) == "@":
                sig_start = max(self.annotation(sig_start), sig_start + 1)
            end = j
            default = -1  # where ``= value`` starts
            depth = 0
            while end < close:  # this parameter runs to a comma at depth 0 (generic arguments counted)
                value = self.val(end)
                if value in ("(", "[", "{"):
                    end = self.skip_balanced(end)
                    continue
                if value == "<":
                    depth += 1
                elif value == ">" and depth:
                    depth -= 1
                elif value == "," and not depth:
                    break
                elif value == "=" and default < 0:
                    default = end
                end += 1
            if self.val(j) in ("val", "var") and self.is_name(j + 1):
                self.emit(self.val(j + 1), "property", sig_start, j + 1, j + 1, container,
                          exported and not (mods & {"private", "internal"}), default if default >= 0 else end,
                          first)
            j = end + 1

    def enum_entries(self, i: int, container: str, exported: bool) -> int:
        """``A, B(1), C { … };`` at the start of an enum body; returns the index after them."""
        while i < self.n:
            first = i
            while self.val(i) == "@":
                i = max(self.annotation(i), i + 1)
            if not self.is_name(i) or self.val(i) in _MODIFIERS or self.val(i) in _DECLARATIONS:
                break
            name_at = i
            i += 1
            if self.val(i) == "(":
                i = self.skip_balanced(i)
            header_end = i  # an entry's own body is left out of its signature
            if self.val(i) == "{":
                i = self.skip_balanced(i)
            self.emit(self.val(name_at), "constant", name_at, name_at, i - 1, container, exported, header_end, first)
            if self.val(i) != ",":
                break
            i += 1
        return i + 1 if self.val(i) == ";" else i

    def function(self, i: int, first: int, sig_start: int, container: str, exported: bool) -> int:
        j = i + 1
        if self.val(j) == "<":
            j = self.skip_angles(j)
        if self.val(j) == "(" and self.val(self.skip_balanced(j)) == ".":  # ``fun (A.() -> B).name()``
            j = self.skip_balanced(j) + 1
        name_at = -1
        while j < self.n:  # the name is the last name before ``(``, past any receiver type
            value = self.val(j)
            if self.toks[j][TYPE] == PUNCT:
                if value == "(":
                    break
                if value == "<":
                    j = max(self.skip_angles(j), j + 1)
                    continue
                if value not in (".", "?"):
                    return j  # ``fun(x) = …``: an anonymous function in an expression
            else:
                name_at = j
            j += 1
        if name_at < 0 or self.val(j) != "(":
            return max(j, i + 1)
        end = self.header_end(self.skip_balanced(j))
        if self.val(end) == "{":
            close = self.skip_balanced(end)
            body_end = close - 1
        else:
            close, body_end = end, (None if self.val(end) == "=" else end - 1)
        kind = "method" if container else "function"
        self.emit(self.val(name_at), kind, sig_start, name_at, body_end, container, exported, end, first)
        return close

    def property(self, i: int, first: int, sig_start: int, mods: set[str], container: str, exported: bool) -> int:
        j = i + 1
        if self.val(j) == "<":
            j = self.skip_angles(j)
        name_at = -1
        while j < self.n:  # the name is the last name before ``:``/``=``/``by``, past any receiver type
            value = self.val(j)
            if self.toks[j][TYPE] == PUNCT:
                if value == "<":
                    j = max(self.skip_angles(j), j + 1)
                    continue
                if value not in (".", "?"):
                    break
            elif value == "by" or (j > i + 1 and self.new_line(j)):
                break
            else:
                name_at = j
            j += 1
        if name_at < 0:
            return max(j, i + 1)  # ``val (a, b) = …`` is local destructuring
        end = self.header_end(j, ("=", "by", "{", "get", "set"))
        kind = "constant" if "const" in mods else "property"
        self.emit(self.val(name_at), kind, sig_start, name_at, None, container, exported, end, first)
        return end


def extract(path: str, data: bytes) -> list[Symbol]:
    """The declarations of one Kotlin file, in source order. Raises UnicodeDecodeError."""
    scanner = _Scanner(path, data.decode("utf-8").removeprefix("\ufeff"))
    scanner.body(0, "", True, "", False)
    scanner.symbols.sort(key=lambda symbol: symbol.line)
    return scanner.symbols
