"""JavaScript and TypeScript tokens, and the reading of a token list that the scanner shares.

The tokenizer knows what is *not* code: strings, template literals (their ``${}`` expressions
are scanned, to find where the template ends, but yield no tokens), regular expression
literals (``/`` starts a regex unless the previous significant token ends an operand: a name
that is not an operator keyword, a number, a string, ``)``, ``]`` or ``}``), JSX elements (in
.js/.jsx/.mjs/.cjs/.tsx, one token each), line and block comments (a ``/** … */`` JSDoc is kept
for the token that follows it). A token is ``(type, value, start, end, line, newline-before)``.

``Reader`` walks such a list (scanner.TokenScanner plus what JavaScript needs): automatic
semicolon insertion, where an expression, a statement and a type annotation end, type
parameters ``<…>`` and decorators. None of it raises on bad input.
"""

from __future__ import annotations

import re
from array import array

from .scanner import OPENERS, TIDY_TRAILING_COMMA, TokenScanner

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
_TYPE_OPERATORS = frozenset(("keyof", "typeof", "infer", "readonly", "unique", "is", "extends", "asserts", "new"))


class Reader(TokenScanner):
    """The tokens of one file (JSX read by its name) and the walking every scanning rule uses."""

    tidy = (*TIDY_TRAILING_COMMA, ("< ", "<"))

    def __init__(self, path: str, text: str) -> None:
        tokens = _Tokens(text, jsx=path.lower().endswith(_JSX_SUFFIXES))
        super().__init__(path, text, tokens.tokens, tokens.docs)

    def nl(self, i: int) -> bool:
        return i < self.n and self.toks[i][NL]

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
                elif value in OPENERS:
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
                if value in OPENERS:
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

    def skip_call_signature(self, i: int) -> int:
        """The index after ``<T>(params): Type`` at ``i`` (each part optional)."""
        if self.val(i) == "<":
            i = self.skip_angles(i)
        if self.val(i) == "(":
            i = self.skip_balanced(i)
        if self.val(i) == ":":
            i = self.skip_type(i + 1)
        return i

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
