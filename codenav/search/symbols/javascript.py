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

This module is over 500 lines on purpose: the scanner is one state machine over the tokens,
and its rules (what ends a statement, what opens a container) only read right together.
"""

from __future__ import annotations

import re
from array import array

from .model import SIGNATURE_CHARS, Symbol

# token tuple fields
TYPE, VALUE, START, END, LINE, NL = range(6)
NAME, PUNCT, STRING, TEMPLATE, REGEX, NUMBER = "n", "p", "s", "t", "r", "x"

_TOKEN = re.compile(r"""
    (?P<nl>\n)
  | (?P<ws>[ \t\r\f\v\u00a0\u2028\u2029\ufeff]+)
  | (?P<line>//[^\n]*)
  | (?P<block>/\*.*?(?:\*/|\Z))
  | (?P<name>\#?[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*)
  | (?P<num>\d[\w.]*|\.\d[\w]*)
  | (?P<str>"(?:[^"\\\n]|\\.|\\\n)*"?|'(?:[^'\\\n]|\\.|\\\n)*'?)
  | (?P<punct>>>>=|\.\.\.|===|!==|\*\*=|<<=|>>=|>>>|&&=|\|\|=|\?\?=|=>|==|!=|<=|>=|&&|\|\||\?\?
      |\?\.(?!\d)|\+\+|--|\+=|-=|\*=|%=|&=|\|=|\^=|\*\*|<<|>>|[{}()\[\];,<>+\-*%&|^!~?:=.@])
""", re.VERBOSE | re.DOTALL)
# ``<`` where an operand is expected starts JSX when a tag name or ``>`` follows (not ``<T,>``
# or ``<T extends U>``, TSX's generic arrow functions).
_JSX_START = re.compile(r"<(?:>|[A-Za-z_$][\w$.:-]*(?![\w$.:-]*\s*(?:,|extends\b)))")
_JSX_NAME = re.compile(r"[\w$.:-]*")
_JSX_TEXT = re.compile(r"[^<{]*")
_TEMPLATE_STOP = re.compile(r"[`\\\n]|\$\{")
_REGEX_BODY = re.compile(r"(?:[^\\/\[\n]|\\[^\n]|\[(?:[^\\\]\n]|\\[^\n])*\])+/[A-Za-z]*")

# After these names an operand is expected, so a ``/`` starts a regex.
_OPERATOR_WORDS = frozenset((
    "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else",
    "yield", "await", "extends", "as", "satisfies", "keyof"))
_CLOSERS = frozenset((")", "]", "}"))


# A text this long has its tokens kept in arrays (_CompactTokens): a 2.4 MB index.js of re-exports
# is 420,000 tokens, 68 MB as tuples and 12 MB in arrays. Shorter ones keep the faster tuples.
COMPACT_FROM_CHARS = 256 * 1024
_KIND_CODES = {kind: code for code, kind in enumerate((NAME, PUNCT, STRING, TEMPLATE, REGEX, NUMBER))}
_KINDS = tuple(_KIND_CODES)


class _CompactTokens:
    """A token list in arrays, read back as the same tuples (built on each access): about 30
    bytes a token instead of 170, for a little more time per access."""

    __slots__ = ("kinds", "values", "starts", "ends", "lines", "newlines", "_seen")

    def __init__(self) -> None:
        self.kinds = bytearray()
        self.values: list[str] = []
        self.starts = array("l")
        self.ends = array("l")
        self.lines = array("l")
        self.newlines = bytearray()
        self._seen: dict[str, str] = {}  # one string per distinct value

    def append(self, token: tuple) -> None:
        kind, value, start, end, line, newline = token
        self.kinds.append(_KIND_CODES[kind])
        self.values.append(self._seen.setdefault(value, value))
        self.starts.append(start)
        self.ends.append(end)
        self.lines.append(line)
        self.newlines.append(newline)

    def __len__(self) -> int:
        return len(self.kinds)

    def __bool__(self) -> bool:
        return bool(self.kinds)

    def __getitem__(self, i: int) -> tuple:
        return (_KINDS[self.kinds[i]], self.values[i], self.starts[i], self.ends[i], self.lines[i],
                bool(self.newlines[i]))

    def __iter__(self):  # noqa: ANN204 — a generator of token tuples
        for i in range(len(self.kinds)):
            yield self[i]


class _Tokens:
    """The significant tokens of one source text, and the JSDoc before some of them."""

    def __init__(self, text: str, jsx: bool = False) -> None:
        self.text = text
        self.jsx = jsx
        self.tokens: list[tuple] | _CompactTokens = [] if len(text) < COMPACT_FROM_CHARS else _CompactTokens()
        self.docs: dict[int, str] = {}
        self.line = 1
        start = 2 if text.startswith("#!") else 0  # a hashbang line is not JavaScript
        if start:
            newline = text.find("\n")
            start = len(text) if newline < 0 else newline
        self.scan(start, self.tokens, until_brace=False)

    def scan(self, i: int, out: list, until_brace: bool) -> int:
        """Tokenize from ``i`` into ``out``; with ``until_brace``, stop after the ``}`` closing a ``${``."""
        text = self.text
        n = len(text)
        match = _TOKEN.match
        depth = 0
        newline = not out
        doc = None
        keep = out is self.tokens
        while i < n:
            ch = text[i]
            if ch == "`":
                end = self.template(i)
                out.append((TEMPLATE, "`", i, end, self.line, newline))
                self.line += text.count("\n", i, end)
                newline = False
                i = end
                continue
            if ch == "<" and self.jsx and self.regex_allowed(out) and _JSX_START.match(text, i):
                end = self.jsx_element(i)
                out.append((TEMPLATE, "<", i, end, self.line, newline))
                self.line += text.count("\n", i, end)
                newline = False
                i = end
                continue
            if ch == "/" and i + 1 < n and text[i + 1] not in "/*" and self.regex_allowed(out):
                body = _REGEX_BODY.match(text, i + 1)
                if body:
                    out.append((REGEX, text[i:body.end()], i, body.end(), self.line, newline))
                    newline = False
                    i = body.end()
                    continue
            if ch == "/" and i + 1 < n and text[i + 1] not in "/*":
                end = i + 2 if text.startswith("/=", i) else i + 1
                out.append((PUNCT, text[i:end], i, end, self.line, newline))
                newline = False
                i = end
                continue
            m = match(text, i)
            if m is None:  # a stray character (``\``, a lone surrogate…): not code we understand
                i += 1
                continue
            group = m.lastgroup
            end = m.end()
            if group == "nl":
                self.line += 1
                newline = True
            elif group == "ws" or group == "line":
                pass
            elif group == "block":
                lines = text.count("\n", i, end)
                if lines:
                    newline = True
                    self.line += lines
                if keep and text.startswith("/**", i) and end - i > 4:
                    doc = text[i:end]
            else:
                value = m.group()
                kind = NAME if group == "name" else PUNCT if group == "punct" else STRING if group == "str" \
                    else NUMBER
                if until_brace and kind == PUNCT:
                    if value == "{":
                        depth += 1
                    elif value == "}":
                        if depth == 0:
                            return end
                        depth -= 1
                if doc is not None:
                    self.docs[len(out)] = doc
                    doc = None
                out.append((kind, value, i, end, self.line, newline))
                newline = False
                if kind == STRING:
                    self.line += value.count("\n")
            i = end
        return n

    def template(self, i: int) -> int:
        """The end of the template literal opening at ``i`` (nested ``${`…`}`` included)."""
        text = self.text
        j = i + 1
        while True:
            m = _TEMPLATE_STOP.search(text, j)
            if m is None:
                return len(text)
            stop = m.group()
            if stop == "`":
                return m.end()
            if stop == "\\":
                j = m.end() + 1
            elif stop == "\n":
                j = m.end()
            else:  # ``${``: code up to the matching ``}``; its tokens are discarded
                line = self.line
                j = self.scan(m.end(), [], until_brace=True)
                self.line = line  # the caller counts the template's lines once, from the text

    def jsx_element(self, i: int) -> int:
        """The end of the JSX element opening at ``i``: tags, quoted and ``{}`` attributes, text children."""
        text = self.text
        n = len(text)
        line = self.line
        depth = 0
        j = i
        while j < n:
            if text.startswith("</", j):  # a closing tag
                close = text.find(">", j)
                j = n if close < 0 else close + 1
                depth -= 1
                if depth <= 0:
                    break
            elif text[j] == "<":  # an opening tag: its name, then attributes up to > or />
                j = _JSX_NAME.match(text, j + 1).end()
                while j < n:
                    ch = text[j]
                    if ch == "{":
                        j = self.scan(j + 1, [], until_brace=True)
                    elif ch in "'\"":
                        close = text.find(ch, j + 1)
                        j = n if close < 0 else close + 1
                    elif text.startswith("/>", j):
                        j += 2
                        break
                    elif ch == ">":
                        j += 1
                        depth += 1
                        break
                    else:
                        j += 1
                if depth <= 0:
                    break
            m = _JSX_TEXT.match(text, j)  # children: text up to the next tag or expression
            j = m.end()
            while j < n and text[j] == "{":
                j = self.scan(j + 1, [], until_brace=True)
                j = _JSX_TEXT.match(text, j).end()
        self.line = line  # the caller counts the element's lines once, from the text
        return j

    @staticmethod
    def regex_allowed(out: list) -> bool:
        if not out:
            return True
        kind, value = out[-1][TYPE], out[-1][VALUE]
        if kind == NAME:
            return value in _OPERATOR_WORDS
        if kind == PUNCT:
            return value not in _CLOSERS and value not in ("++", "--")
        return False


def tokenize(text: str, jsx: bool = False) -> list[tuple]:
    """The significant tokens of ``text``: (type, value, start, end, line, newline-before)."""
    return list(_Tokens(text, jsx).tokens)


# JSX is read in these files; in .ts/.mts/.cts ``<T>x`` is a type assertion instead.
_JSX_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs", ".tsx")


# Tokens after which a line break ends a statement (ASI), and tokens that continue one anyway.
_ENDER_PUNCT = frozenset((")", "]", "}", "++", "--"))
_CONTINUE_PUNCT = frozenset((
    ".", "?.", "=", "==", "===", "!=", "!==", "+", "-", "*", "/", "%", "**", "<", ">", "<=", ">=", "<<",
    ">>", ">>>", "&", "|", "^", "&&", "||", "??", "?", ":", ",", "=>", "+=", "-=", "*=", "/=", "%=", "(",
    "[", "&=", "|=", "^=", "**=", "<<=", ">>=", ">>>=", "&&=", "||=", "??="))
_CONTINUE_WORDS = frozenset(("in", "instanceof", "as", "satisfies", "of"))
_NOT_ENDER_WORDS = frozenset(("typeof", "new", "delete", "void", "await", "yield", "in", "instanceof", "extends",
                              "as", "satisfies", "keyof", "case", "throw", "export", "import", "default"))
_MEMBER_MODIFIERS = frozenset(("static", "public", "private", "protected", "readonly", "abstract", "declare",
                               "override", "accessor", "async", "get", "set"))
_TYPE_OPERATORS = frozenset(("keyof", "typeof", "infer", "readonly", "unique", "is", "extends", "asserts", "new"))
_OPENERS = {"(": ")", "[": "]", "{": "}"}


def _upper(name: str) -> bool:
    stripped = name.strip("_$")
    return bool(stripped) and stripped.upper() == stripped and any(ch.isalpha() for ch in stripped)


def _jsdoc_line(comment: str) -> str:
    body = comment[3:-2] if comment.endswith("*/") else comment[3:]
    for line in body.split("\n"):
        line = line.strip().lstrip("*").strip()
        if line and not line.startswith("@"):
            return line if len(line) <= SIGNATURE_CHARS else line[: SIGNATURE_CHARS - 1] + "…"
        if line.startswith("@"):
            return ""  # the description comes before the tags; none means no doc
    return ""


class _Scanner:
    def __init__(self, path: str, text: str) -> None:
        tokens = _Tokens(text, jsx=path.lower().endswith(_JSX_SUFFIXES))
        self.path = path
        self.text = text
        self.toks = tokens.tokens
        self.docs = tokens.docs
        self.n = len(self.toks)
        self.dts = path.lower().endswith((".d.ts", ".d.mts", ".d.cts"))
        self.symbols: list[Symbol] = []
        self.top: dict[str, Symbol] = {}  # first top-level symbol of each name
        self.qualified: dict[str, Symbol] = {}  # first symbol of each container.name
        self.exported_names: set[str] = set()
        self.undecided: list[Symbol] = []  # top-level, neither exported nor declared ambient
        self.members: list[tuple[Symbol, bool]] = []  # (member, private): exported follows the container
        self.aliases: list[tuple[Symbol, str]] = []  # (export alias, local name): kind follows the local
        self.is_module = False

    # --- token helpers -----------------------------------------------------------------------
    def val(self, i: int) -> str:
        return self.toks[i][VALUE] if i < self.n else ""

    def typ(self, i: int) -> str:
        return self.toks[i][TYPE] if i < self.n else ""

    def is_name(self, i: int) -> bool:
        return i < self.n and self.toks[i][TYPE] == NAME

    def nl(self, i: int) -> bool:
        return i < self.n and self.toks[i][NL]

    def line(self, i: int) -> int:
        return self.toks[min(i, self.n - 1)][LINE] if self.n else 1

    def skip_balanced(self, i: int) -> int:
        """The index after the bracket matching the opener at ``i``."""
        toks = self.toks
        stack = [_OPENERS[toks[i][VALUE]]]
        i += 1
        while i < self.n:
            tok = toks[i]
            if tok[TYPE] == PUNCT:
                value = tok[VALUE]
                if value in _OPENERS:
                    stack.append(_OPENERS[value])
                elif value in (")", "]", "}"):
                    while stack and stack[-1] != value:
                        stack.pop()  # a mismatched closer: recover on the nearest matching one
                    if stack:
                        stack.pop()
                    if not stack:
                        return i + 1
            i += 1
        return i

    def skip_angles(self, i: int) -> int:
        """The index after the ``>`` closing the type parameters opening at ``i`` (else ``i + 1``)."""
        depth = 0
        j = i
        limit = min(self.n, i + 4000)
        while j < limit:
            tok = self.toks[j]
            value = tok[VALUE]
            if tok[TYPE] == PUNCT:
                if value == "<":
                    depth += 1
                elif value in (">", ">>", ">>>", ">=", ">>="):
                    depth -= len(value.rstrip("="))
                    if depth <= 0:
                        return j + 1
                elif value in _OPENERS:
                    j = self.skip_balanced(j)
                    continue
                elif value in (";", ")", "]", "}"):
                    return i + 1
            j += 1
        return i + 1

    def ends_statement(self, i: int) -> bool:
        """Whether a line break before token ``i`` ends the statement (automatic semicolon insertion)."""
        tok = self.toks[i]
        if not tok[NL] or i == 0:
            return False
        prev = self.toks[i - 1]
        if prev[TYPE] == PUNCT:
            if prev[VALUE] not in _ENDER_PUNCT:
                return False
        elif prev[TYPE] == NAME and prev[VALUE] in _NOT_ENDER_WORDS:
            return False
        if tok[TYPE] == PUNCT:
            return tok[VALUE] not in _CONTINUE_PUNCT
        if tok[TYPE] == TEMPLATE:
            return False
        return not (tok[TYPE] == NAME and tok[VALUE] in _CONTINUE_WORDS)

    def skip_expression(self, i: int, stop_comma: bool = False) -> int:
        """The index of the token ending the expression at ``i`` (``;``, ``,``, a closer, or ASI)."""
        toks = self.toks
        first = i
        while i < self.n:
            tok = toks[i]
            if i > first and self.ends_statement(i):
                return i
            if tok[TYPE] == PUNCT:
                value = tok[VALUE]
                if value in _OPENERS:
                    i = self.skip_balanced(i)
                    continue
                if value == ";" or value in (")", "]", "}") or (stop_comma and value == ","):
                    return i
            elif tok[TYPE] == NAME and tok[VALUE] == "new":
                # `new Map<string, Router>()`: the type arguments' comma must not end a declarator
                j = i + 1
                while j < self.n and (self.typ(j) == NAME or self.val(j) == "."):
                    j += 1
                if j > i + 1 and self.val(j) == "<":
                    i = self.skip_angles(j)
                    continue
            i += 1
        return i

    def skip_statement(self, i: int) -> int:
        """The index after the statement at ``i`` (its ``;`` consumed)."""
        end = self.skip_expression(i)
        if end == i and end < self.n and self.val(end) in (")", "]", "}"):
            return end + 1 if self.val(end) != "}" else end  # a stray closer: step over it
        return end + 1 if self.val(end) == ";" else end

    def skip_type(self, i: int, arrow_ends: bool = False) -> int:
        """The index of the token ending the type annotation at ``i``."""
        expect = True
        while i < self.n:
            tok = self.toks[i]
            kind, value = tok[TYPE], tok[VALUE]
            if tok[NL] and not expect and kind == NAME:
                return i
            if kind == PUNCT:
                if value in ("(", "["):
                    i = self.skip_balanced(i)
                    expect = False
                    continue
                if value == "{":
                    if not expect:
                        return i
                    i = self.skip_balanced(i)
                    expect = False
                    continue
                if value == "<":
                    i = self.skip_angles(i)
                    expect = False
                    continue
                if value in (";", ",", ")", "]", "}", "=") or (arrow_ends and value == "=>"):
                    return i
                expect = True
            else:
                expect = kind == NAME and value in _TYPE_OPERATORS
            i += 1
        return i

    def skip_decorators(self, i: int) -> int:
        while self.val(i) == "@" and self.is_name(i + 1):
            i += 2
            while self.val(i) == "." and self.is_name(i + 1):
                i += 2
            if self.val(i) == "(":
                i = self.skip_balanced(i)
        return i

    def signature(self, start: int, end: int) -> str:
        """The source of tokens ``start``..``end - 1`` on one line, cut at SIGNATURE_CHARS."""
        if end <= start:
            end = start + 1
        end = min(end, self.n)
        raw = self.text[self.toks[start][START]: self.toks[end - 1][END]][: SIGNATURE_CHARS * 8]
        text = " ".join(raw.split())
        text = text.replace("( ", "(").replace(" )", ")").replace(",)", ")").replace("< ", "<")
        return text if len(text) <= SIGNATURE_CHARS else text[: SIGNATURE_CHARS - 1] + "…"

    # --- emitting ------------------------------------------------------------------------------
    def emit(self, name: str, kind: str, start: int, end_tok: int | None, container: str, exported: bool | None,
             signature: str, doc_at: int, name_at: int | None = None) -> Symbol:
        doc = self.docs.get(doc_at)
        line = self.line(name_at if name_at is not None else start)
        end_line = self.line(end_tok) if end_tok is not None else None
        symbol = Symbol(name, kind, self.path, line, end_line if end_line and end_line >= line else None,
                        container, signature, _jsdoc_line(doc) if doc else "", exported)
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
        i = self.skip_decorators(i)
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
            i = self.skip_decorators(i)
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

    def klass(self, start: int, i: int, container: str, exported: bool, default: bool, ambient: bool,
              doc_at: int) -> int:
        j = i + 1
        name_at = j if self.is_name(j) and self.val(j) not in ("extends", "implements") else None
        if name_at is not None:
            j += 1
        name = self.val(name_at) if name_at is not None else "default" if default else ""
        while j < self.n and self.val(j) != "{":
            if self.val(j) == "<":
                j = self.skip_angles(j)
            elif self.val(j) in ("(", "["):
                j = self.skip_balanced(j)
            elif self.val(j) in (";", "}"):
                return j
            else:
                j += 1
        if not name:
            return self.skip_balanced(j) if j < self.n else j
        symbol = self.emit(name, "class", start, None, container, None, self.signature(start, j), doc_at, name_at)
        self.top_level(symbol, exported, ambient, container)
        qualified = f"{container}.{name}" if container else name
        end = self.class_body(j + 1, qualified)
        symbol.end_line = self.line(end)
        return end + 1

    def class_body(self, i: int, container: str) -> int:
        """Members of a class body from ``i``; returns the index of its closing ``}``."""
        while i < self.n:
            value = self.val(i)
            if value == "}":
                return i
            if value in (";", ","):
                i += 1
                continue
            doc_at = i
            i = self.skip_decorators(i)
            start = i
            private = kind_property = False
            while (self.val(i) in _MEMBER_MODIFIERS and self.typ(i) == NAME
                   and (self.is_name(i + 1) or self.typ(i + 1) in (STRING, NUMBER) or self.val(i + 1) in ("[", "*", "{"))
                   and not self.nl(i + 1)):
                if self.val(i) in ("private", "protected"):
                    private = True
                if self.val(i) in ("get", "set"):
                    kind_property = True
                if self.val(i) == "static" and self.val(i + 1) == "{":
                    break
                i += 1
            if self.val(i) == "static" and self.val(i + 1) == "{":  # a static initialization block
                i = self.skip_balanced(i + 1)
                continue
            if self.val(i) == "*":
                i += 1
            name_at = i
            kind = self.typ(i)
            if kind == NAME or kind == NUMBER:
                name = self.val(i)
                i += 1
            elif kind == STRING:
                name = self.val(i)[1:-1]
                i += 1
            elif self.val(i) == "[":
                close = self.skip_balanced(i)
                if self.val(close) == ":" and not self.nl(close):  # an index signature: no name
                    i = self.skip_type(close + 1)
                    continue
                name = self.signature(i, close)
                i = close
            else:
                i += 1
                continue
            private = private or name.startswith("#")
            if self.val(i) in ("?", "!"):
                i += 1
            if self.val(i) in ("(", "<"):
                if self.val(i) == "<":
                    i = self.skip_angles(i)
                if self.val(i) == "(":
                    i = self.skip_balanced(i)
                if self.val(i) == ":":
                    i = self.skip_type(i + 1)
                sig_end = end_tok = i
                if self.val(i) == "{":
                    i = self.skip_balanced(i)
                    end_tok = i - 1
                symbol = self.emit(name, "property" if kind_property else "method", start, end_tok, container,
                                   False, self.signature(start, sig_end), doc_at, name_at)
            else:
                if self.val(i) == ":":
                    i = self.skip_type(i + 1)
                member_kind = "property"
                sig_end = i
                if self.val(i) == "=":
                    value_kind, value_sig_end = self.function_value(i + 1)
                    i = self.skip_expression(i + 1, stop_comma=False)
                    if value_kind == "function":
                        member_kind, sig_end = "method", value_sig_end
                    else:
                        sig_end = i
                symbol = self.emit(name, member_kind, start, i - 1, container, False, self.signature(start, sig_end),
                                   doc_at, name_at)
            self.members.append((symbol, private))
        return i

    def interface(self, start: int, i: int, container: str, exported: bool, ambient: bool, doc_at: int) -> int:
        name_at = i + 1
        name = self.val(name_at)
        j = i + 2
        while j < self.n and self.val(j) != "{":
            if self.val(j) == "<":
                j = self.skip_angles(j)
            elif self.val(j) in (";", "}"):
                return j
            else:
                j += 1
        symbol = self.emit(name, "interface", start, None, container, None, self.signature(start, j), doc_at,
                           name_at)
        self.top_level(symbol, exported, ambient, container)
        end = self.type_members(j + 1, f"{container}.{name}" if container else name)
        symbol.end_line = self.line(end)
        return end + 1

    def type_members(self, i: int, container: str) -> int:
        """Members of an interface or object type from ``i``; returns the index of its ``}``."""
        while i < self.n:
            value = self.val(i)
            if value == "}":
                return i
            if value in (";", ","):
                i += 1
                continue
            doc_at = start = i
            kind_property = False
            while (self.val(i) in ("readonly", "get", "set") and (self.is_name(i + 1) or self.typ(i + 1) == STRING)
                   and not self.nl(i + 1)):
                kind_property = kind_property or self.val(i) in ("get", "set")
                i += 1
            tok_kind = self.typ(i)
            if value in ("(", "<") or (value == "new" and self.val(i + 1) in ("(", "<")) or value == "[" \
                    or tok_kind not in (NAME, STRING, NUMBER):
                # call, construct and index signatures, computed keys: no name to index
                if self.val(i) == "[":
                    i = self.skip_balanced(i)
                i = max(self.skip_type(i), i + 1) if self.val(i) not in ("}",) else i
                continue
            name_at = i
            name = self.val(i)[1:-1] if tok_kind == STRING else self.val(i)
            i += 1
            if self.val(i) == "?":
                i += 1
            member_kind = "property"
            if self.val(i) in ("(", "<"):
                member_kind = "property" if kind_property else "method"
                if self.val(i) == "<":
                    i = self.skip_angles(i)
                if self.val(i) == "(":
                    i = self.skip_balanced(i)
            if self.val(i) == ":":
                i = self.skip_type(i + 1)
            symbol = self.emit(name, member_kind, start, i - 1, container, False, self.signature(start, i), doc_at,
                               name_at)
            self.members.append((symbol, False))
        return i

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

    def enum(self, start: int, i: int, container: str, exported: bool, ambient: bool, doc_at: int) -> int:
        name_at = i + 1
        name = self.val(name_at)
        j = i + 2
        if self.val(j) != "{":
            return self.skip_statement(j)
        symbol = self.emit(name, "enum", start, None, container, None, self.signature(start, j), doc_at, name_at)
        self.top_level(symbol, exported, ambient, container)
        qualified = f"{container}.{name}" if container else name
        j += 1
        while j < self.n and self.val(j) != "}":
            if self.val(j) == ",":
                j += 1
                continue
            member_at = j
            if self.typ(j) not in (NAME, STRING):
                j = max(self.skip_expression(j, stop_comma=True), j + 1)
                continue
            member = self.val(j)[1:-1] if self.typ(j) == STRING else self.val(j)
            end = self.skip_expression(j + 1, stop_comma=True) if self.val(j + 1) == "=" else j + 1
            constant = self.emit(member, "constant", member_at, end - 1, qualified, False,
                                 self.signature(member_at, end), member_at)
            self.members.append((constant, False))
            j = max(end, j + 1)
        symbol.end_line = self.line(j)
        return j + 1

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

    def function_value(self, j: int) -> tuple[str, int]:
        """What the expression at ``j`` is: (``function``/``class``/``require``/``value``, index ending
        its signature: after the parameters or ``=>`` of a function, else ``j``)."""
        k = j
        if self.val(k) == "async" and not self.nl(k + 1) and self.val(k + 1) != "=>":
            k += 1
        value = self.val(k)
        if value == "function" and self.typ(k) == NAME:
            k += 1
            if self.val(k) == "*":
                k += 1
            if self.is_name(k):
                k += 1
            if self.val(k) == "<":
                k = self.skip_angles(k)
            if self.val(k) == "(":
                k = self.skip_balanced(k)
                if self.val(k) == ":":
                    k = self.skip_type(k + 1)
            return "function", k
        if value == "class" and self.typ(k) == NAME:
            return "class", j
        if self.is_name(k) and self.val(k + 1) == "=>":
            return "function", k + 2
        if value == "<":
            k = self.skip_angles(k)
        if self.val(k) == "(":
            close = self.skip_balanced(k)
            if self.val(close) == "=>":
                return "function", close + 1
            if self.val(close) == ":":
                end = self.skip_type(close + 1, arrow_ends=True)
                if self.val(end) == "=>":
                    return "function", end + 1
        if value == "require" and self.val(k + 1) == "(":
            self.is_module = True
            return "require", j
        return "value", j

    def exports_chain(self, j: int) -> tuple[bool, int]:
        """Skip ``module.exports =`` / ``exports =`` links at ``j``: (whether any, index after them)."""
        found = False
        while True:
            if self.val(j) == "module" and self.val(j + 1) == "." and self.val(j + 2) == "exports" \
                    and self.val(j + 3) == "=":
                j += 4
            elif self.val(j) == "exports" and self.val(j + 1) == "=":
                j += 2
            else:
                return found, j
            found = True
            self.is_module = True

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
                    signature = self.cut(f"{keyword} {signature}")
                for name_at in names:
                    name = self.val(name_at)
                    if kind in ("function", "class"):
                        symbol_kind = kind
                    else:
                        symbol_kind = "constant" if keyword == "const" and _upper(name) else "variable"
                    symbol = self.emit(name, symbol_kind, sig_start, end - 1, container, None, signature,
                                       doc_at if first else decl_start, name_at)
                    self.top_level(symbol, exported or chained, ambient, container)
            first = False
            if self.val(end) == ",":
                i = end + 1
                continue
            return end + 1 if self.val(end) == ";" else end
        return i

    @staticmethod
    def cut(text: str) -> str:
        return text if len(text) <= SIGNATURE_CHARS else text[: SIGNATURE_CHARS - 1] + "…"

    def assignment(self, start: int, i: int, container: str, doc_at: int) -> int | None:
        """``a.b.c = value`` statements (CommonJS exports, prototype methods, ``obj.x = function``)."""
        targets: list[tuple[list[str], int]] = []  # (a.b.c, index of its last name)
        j = i
        while self.is_name(j):
            chain = [self.val(j)]
            k = j + 1
            while self.val(k) == "." and self.is_name(k + 1):
                chain.append(self.val(k + 1))
                k += 2
            if self.val(k) != "=":
                break
            targets.append((chain, k - 1))
            j = k + 1
        if not targets:
            return None
        kind, sig_end = self.function_value(j)
        end = self.skip_expression(j)
        rhs_name = self.val(j) if self.is_name(j) and j + 1 == end else None
        sig_to = sig_end if kind == "function" else end
        for chain, name_at in targets:
            if chain == ["module", "exports"] or chain == ["exports"]:
                self.is_module = True
                if chain == ["exports"]:
                    continue
                if rhs_name:
                    self.exported_names.add(rhs_name)
                elif self.val(j) == "{":
                    self.object_members(j, "", "function", exported=True)
                elif kind in ("function", "class"):
                    k = j + (2 if self.val(j) == "async" else 1)
                    if self.is_name(k) and self.val(k) not in ("extends",):
                        self.emit(self.val(k), kind, start, end - 1, container, True, self.signature(start, sig_to),
                                  doc_at, k)
                continue
            if chain[0] == "exports" or chain[:2] == ["module", "exports"]:
                self.is_module = True
                member = chain[1:] if chain[0] == "exports" else chain[2:]
                if len(member) != 1:
                    continue
                symbol_kind = kind if kind in ("function", "class") else "variable"
                self.emit(member[0], symbol_kind, start, end - 1, container, True, self.signature(start, sig_to),
                          doc_at, name_at)
                if rhs_name:
                    self.exported_names.add(rhs_name)
                continue
            if len(chain) < 2 or chain[0] == "this":
                continue
            if chain[-1] == "prototype":
                if self.val(j) == "{":
                    self.object_members(j, ".".join(chain[:-1]), "method", exported=None)
                continue
            owner = [part for part in chain[:-1] if part != "prototype"]
            symbol_kind = "method" if kind == "function" else "property"
            symbol = self.emit(chain[-1], symbol_kind, start, end - 1, ".".join(owner), False,
                               self.signature(start, sig_to), doc_at, name_at)
            self.members.append((symbol, chain[-1].startswith("_")))
        return end + 1 if self.val(end) == ";" else end

    def object_members(self, i: int, container: str, function_kind: str, exported: bool | None) -> None:
        """Members of the object literal opening at ``i`` (``module.exports = {…}``, ``X.prototype = {…}``)."""
        close = self.skip_balanced(i) - 1
        j = i + 1
        while j < close:
            if self.val(j) == ",":
                j += 1
                continue
            start = j
            if self.val(j) == "...":
                j = self.skip_expression(j, stop_comma=True)
                continue
            kind_property = False
            while self.val(j) in ("async", "get", "set", "*") and self.val(j + 1) not in (",", ":", "(", "}"):
                kind_property = kind_property or self.val(j) in ("get", "set")
                j += 1
            name_at = j
            if self.typ(j) in (NAME, NUMBER):
                name = self.val(j)
            elif self.typ(j) == STRING:
                name = self.val(j)[1:-1]
            else:
                j = self.skip_expression(j, stop_comma=True)
                j = j if j > start else j + 1
                continue
            j += 1
            nxt = self.val(j)
            if nxt in (",", "}") and j >= close or nxt == ",":  # shorthand: names a definition made elsewhere
                if exported:
                    self.exported_names.add(name)
                continue
            if nxt == "(":
                sig_end = self.skip_balanced(j)
                end = self.skip_balanced(sig_end) if self.val(sig_end) == "{" else sig_end
                kind = "property" if kind_property else function_kind
            elif nxt == ":":
                value_kind, sig_end = self.function_value(j + 1)
                end = self.skip_expression(j + 1, stop_comma=True)
                kind = function_kind if value_kind == "function" else "class" if value_kind == "class" \
                    else "property" if container else "variable"
                if value_kind not in ("function",):
                    sig_end = end
            else:
                j = self.skip_expression(j, stop_comma=True)
                continue
            symbol = self.emit(name, kind, start, end - 1, container, exported, self.signature(start, sig_end), start,
                               name_at)
            if exported is None:
                self.members.append((symbol, name.startswith("_")))
            j = max(end, j + 1)

    def export_clause(self, start: int, i: int, container: str, doc_at: int) -> int:
        """``export { a, b as c } [from 'm']``."""
        close = self.skip_balanced(i)
        pairs: list[tuple[str, str, int]] = []
        j = i + 1
        while j < close - 1:
            if self.val(j) == "type" and self.is_name(j + 1) and self.val(j + 1) != "as":
                j += 1
            if self.typ(j) in (NAME, STRING):
                local = self.val(j) if self.typ(j) == NAME else self.val(j)[1:-1]
                alias, alias_at = local, j
                if self.val(j + 1) == "as" and self.typ(j + 2) in (NAME, STRING):
                    alias_at = j + 2
                    alias = self.val(alias_at) if self.typ(alias_at) == NAME else self.val(alias_at)[1:-1]
                    j += 2
                pairs.append((local, alias, alias_at))
            j += 1
        end = close
        source = self.val(close) == "from"
        if source:
            end = close + 2 if self.typ(close + 1) == STRING else close + 1
        signature = self.signature(start, end)
        for local, alias, alias_at in pairs:
            if source:
                self.emit(alias, "variable", start, end - 1, container, True, signature, doc_at, alias_at)
            else:
                self.exported_names.add(local)
                if alias != local:
                    symbol = self.emit(alias, "variable", start, end - 1, container, True, signature, doc_at, alias_at)
                    self.aliases.append((symbol, local))
        return self.skip_statement(end) if self.val(end) == ";" or not self.nl(end) else end

    def export_star(self, start: int, container: str, doc_at: int) -> int:
        """``export * from 'm'`` (nothing to index) and ``export * as ns from 'm'``."""
        j = start + 2
        if self.val(j) == "as" and self.typ(j + 1) in (NAME, STRING):
            name_at = j + 1
            end = j + 4 if self.val(j + 2) == "from" else j + 2
            name = self.val(name_at) if self.typ(name_at) == NAME else self.val(name_at)[1:-1]
            self.emit(name, "namespace", start, end - 1, container, True, self.signature(start, end), doc_at, name_at)
        return self.skip_statement(start + 1)

    def export_default(self, start: int, i: int, container: str, doc_at: int) -> int:
        """``export default <expression>``: a symbol named ``default``."""
        end = self.skip_expression(i)
        kind, sig_end = self.function_value(i)
        if self.is_name(i) and end == i + 1:
            self.exported_names.add(self.val(i))
            symbol = self.emit("default", "variable", start, i, container, True, self.signature(start, end), doc_at)
            self.aliases.append((symbol, self.val(i)))
        else:
            symbol_kind = kind if kind in ("function", "class") else "variable"
            self.emit("default", symbol_kind, start, end - 1, container, True,
                      self.signature(start, sig_end if kind == "function" else end), doc_at)
        return end + 1 if self.val(end) == ";" else end

    def iife(self, i: int) -> int:
        """``(function () { … })()``, ``!function () {…}()``, ``(() => { … })()``: scan the body as the top level."""
        j = i + 1 if self.val(i) in ("!", "+", "-", "~") else i
        if self.val(j) == "(":
            j += 1
        if self.val(j) == "function":
            j += 1
            if self.is_name(j):
                j += 1
        if self.val(j) != "(":
            return self.skip_statement(i)
        j = self.skip_balanced(j)
        if self.val(j) == "=>":
            j += 1
        if self.val(j) != "{":
            return self.skip_statement(i)
        end = self.statements(j + 1, "", False)
        return self.skip_statement(end + 1) if end < self.n else end

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
