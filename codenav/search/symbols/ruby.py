"""Ruby definitions (.rb) by a tokenizer and a block scanner that pairs keywords with ``end``.

The tokenizer knows what is not code: strings (``#{}`` interpolation skipped with its nesting),
``%w[]``-style literals, regexes (``/`` after an operand is division), heredocs (``<<~ID``, whose
body starts on the next line), symbols (``:class`` is not a keyword), hash labels (``class:``),
``#`` comments and ``=begin``/``=end``. A run of ``#`` lines right above a definition is its doc.

Blocks: ``class``, ``module``, ``def`` (not an endless ``def x = …``), ``begin``, ``case``,
``do``, ``for`` and, at the start of a statement, ``if``/``unless``/``while``/``until`` each
close with one ``end`` (``while … do`` is one block; a trailing ``if`` is a modifier).

What becomes a symbol: ``module`` (``module``), ``class`` (``class``), ``def`` (a ``method`` in a
class or module, with ``def self.x`` kept in the signature; a ``function`` at the top level),
``alias``/``alias_method`` (``method``), ``attr_reader``/``attr_writer``/``attr_accessor``
names (``property``) and constants assigned at class, module or top level (``constant``).

Exported: methods are public unless a bare ``private``/``protected`` line precedes them in
their class (until ``public``), or ``private def …``, or ``private :name`` names them;
``private_constant`` hides constants; the rest is exported.
"""

from __future__ import annotations

import re

from .model import SIGNATURE_CHARS, Symbol
from .scanner import TokenScanner, hash_delimited_end

TYPE, VALUE, START, END, LINE, FIRST = range(6)
NAME, PUNCT, LITERAL, VAR = "n", "p", "l", "v"

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\f\v\ufeff]+|\\\n)
  | (?P<comment>\#[^\n]*)
  | (?P<label>[A-Za-z_]\w*[?!]?:(?!:))
  | (?P<symbol>:(?:[A-Za-z_]\w*[?!=]?|\[\]=?|[+\-*/%<>=!~^&|]+|@{1,2}\w+|\$\w+))
  | (?P<name>[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*(?:[?!](?!=))?)
  | (?P<var>@@?\w+|\$(?:\w+|.))
  | (?P<num>\d[\w.]*)
  | (?P<punct>\*\*=?|<=>|===?|=~|!~|!=|<=|>=|<<=?|>>=?|&&=?|\|\|=?|&\.|::|\.\.\.?|->|=>|[-+*/%&|^]=|[{}()\[\];,<>=!&|+\-*/%^.:?~])
""", re.VERBOSE)
_HEREDOC = re.compile(r"<<([~-]?)(['\"`]?)([A-Za-z_]\w*)\2")
_PERCENT = re.compile(r"%[qQwWiIrsx]?([^\w\s])")
_PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}
_OPERAND_WORDS = frozenset(("end", "self", "nil", "true", "false", "__method__"))
_BLOCK_WORDS = frozenset(("class", "module", "def", "begin", "case", "do", "for"))
_CONDITIONAL = frozenset(("if", "unless", "while", "until"))


class _Tokens:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple] = []
        self.comments: dict[int, list[str]] = {}  # line -> the comment on it, when alone on its line
        self.scan()

    def operand_before(self) -> bool:
        """Whether the previous token ends an operand (so ``/``, ``%`` and ``<<`` are operators)."""
        if not self.tokens:
            return False
        kind, value = self.tokens[-1][TYPE], self.tokens[-1][VALUE]
        if kind in (LITERAL, VAR):
            return True
        if kind == NAME:
            return value in _OPERAND_WORDS or not value[0].islower() or value not in _KEYWORDS
        return value in (")", "]", "}")

    def scan(self) -> None:
        text, n = self.text, len(self.text)
        i, line, first = 0, 1, True
        heredocs: list[tuple[str, bool]] = []  # terminators whose bodies start on the next line
        match = _TOKEN.match
        while i < n:
            ch = text[i]
            if ch == "\n":
                line += 1
                i += 1
                first = True
                while heredocs:  # skip the heredoc bodies, in order
                    label, indented = heredocs.pop(0)
                    pattern = re.compile(r"^[ \t]*" + re.escape(label) + r"$" if indented else
                                         r"^" + re.escape(label) + r"$", re.MULTILINE)
                    found = pattern.search(text, i)
                    end = n if found is None else min(n, found.end() + 1)
                    line += text.count("\n", i, end)
                    i = end
                if text.startswith("=begin", i):
                    close = text.find("\n=end", i)
                    end = n if close < 0 else text.find("\n", close + 1)
                    end = n if end < 0 else end
                    line += text.count("\n", i, end)
                    i = end
                continue
            if text.startswith("__END__\n", i) and first:
                return
            if ch in "'\"`":
                end = self.string(i, ch)
                self.add(LITERAL, i, end, line, first)
                line += text.count("\n", i, end)
                first, i = False, end
                continue
            if ch == "<" and text.startswith("<<", i) and not self.operand_before() or text.startswith(("<<~", "<<-"), i):
                heredoc = _HEREDOC.match(text, i)
                if heredoc:
                    heredocs.append((heredoc.group(3), bool(heredoc.group(1))))
                    self.add(LITERAL, i, heredoc.end(), line, first)
                    first, i = False, heredoc.end()
                    continue
            if ch == "/" and not self.operand_before():
                end = self.delimited(i + 1, "/", "/")
                while end < n and text[end].isalpha():
                    end += 1
                self.add(LITERAL, i, end, line, first)
                line += text.count("\n", i, end)
                first, i = False, end
                continue
            if ch == "%" and not self.operand_before():
                percent = _PERCENT.match(text, i)
                if percent:
                    opener = percent.group(1)
                    end = self.delimited(percent.end(), opener, _PAIRS.get(opener, opener))
                    self.add(LITERAL, i, end, line, first)
                    line += text.count("\n", i, end)
                    first, i = False, end
                    continue
            m = match(text, i)
            if m is None:
                i += 1
                continue
            group, end = m.lastgroup, m.end()
            if group == "comment":
                if first:
                    self.comments[line] = [m.group()[1:]]
            elif group != "ws":
                kind = {"name": NAME, "var": VAR, "punct": PUNCT}.get(group, LITERAL)
                self.add(kind, i, end, line, first)
                first = False
            i = end

    def add(self, kind: str, start: int, end: int, line: int, first: bool) -> None:
        self.tokens.append((kind, self.text[start:end], start, end, line, first))

    def string(self, i: int, quote: str) -> int:
        return self.delimited(i + 1, quote, quote, interpolate=quote != "'")

    def delimited(self, j: int, opener: str, closer: str, interpolate: bool = True) -> int:
        """The end of a literal whose body starts at ``j`` (nesting for paired delimiters, ``#{}`` skipped)."""
        return hash_delimited_end(self.text, j, opener, closer, interpolate, "'\"`", "'")


_KEYWORDS = frozenset((
    "alias", "and", "begin", "break", "case", "class", "def", "defined?", "do", "else", "elsif", "end", "ensure",
    "for", "if", "in", "module", "next", "not", "or", "redo", "rescue", "retry", "return", "then", "unless",
    "until", "when", "while", "yield", "super"))
_ATTRIBUTES = frozenset(("attr_reader", "attr_writer", "attr_accessor", "attr"))


class _Scanner(TokenScanner):
    tidy = ()  # a signature is the source as written, white space folded
    def __init__(self, path: str, text: str) -> None:
        tokens = _Tokens(text)
        super().__init__(path, text, tokens.tokens)
        self.comments = tokens.comments

    def same_line(self, i: int) -> bool:
        return 0 < i < self.n and not self.toks[i][FIRST] and self.toks[i - 1][VALUE] != ";"

    def keyword(self, i: int) -> str:
        """The keyword at ``i``, or '' when it is a method call (``x.class``) or not a keyword."""
        if self.typ(i) != NAME or self.val(i - 1) in (".", "&.", "::") and i > 0:
            return ""
        return self.val(i) if self.val(i) in _KEYWORDS or self.val(i) in _ATTRIBUTES else ""

    def doc(self, line: int) -> str:
        first = ""
        while line - 1 in self.comments:
            line -= 1
            text = self.comments[line][0].strip()
            if text:
                first = text
            elif first:
                break
        return first[:SIGNATURE_CHARS]

    def line_end(self, i: int) -> int:
        """The index of the first token of the next statement after ``i`` (a new line or ``;``)."""
        j = i + 1
        depth = 0
        while j < self.n:
            value = self.val(j)
            if self.typ(j) == PUNCT and value in ("(", "[", "{"):
                depth += 1
            elif self.typ(j) == PUNCT and value in (")", "]", "}"):
                depth -= 1
            elif depth <= 0 and (self.toks[j][FIRST] and self.val(j - 1) not in (",", ".", "&&", "||", "\\")
                                 or value == ";"):
                return j
            j += 1
        return j

    def emit(self, name: str, kind: str, start: int, name_at: int, container: str, exported: bool,
             signature: str) -> Symbol:
        symbol = Symbol(name, kind, self.path, self.line(name_at), None, container, signature,
                        self.doc(self.line(start)), exported)
        self.symbols.append(symbol)
        return symbol

    def run(self) -> list[Symbol]:
        # each open block: [symbol or None, container for what is inside, default visibility public?]
        stack: list[list] = []
        container = ""
        public = True
        private_names: dict[str, set[str]] = {}
        i = 0
        pending_do = False  # ``while … do``: the do belongs to the loop
        while i < self.n:
            value = self.val(i)
            if self.toks[i][FIRST] or value == ";":
                pending_do = False
            word = self.keyword(i)
            if word == "end":
                if stack:
                    symbol, container, public = stack.pop()
                    if symbol is not None:
                        symbol.end_line = self.line(i)
                i += 1
                continue
            if word in ("class", "module"):
                if self.val(i + 1) == "<<":  # class << self: singleton methods
                    stack.append([None, container, public])
                    i = self.line_end(i)
                    continue
                j = i + 1
                parts = []
                while self.typ(j) == NAME or self.val(j) == "::":
                    if self.val(j) != "::":
                        parts.append(self.val(j))
                    j += 1
                    if self.toks[j - 1][TYPE] == NAME and self.val(j) != "::":
                        break
                if not parts:
                    i += 1
                    continue
                end = self.line_end(i)
                symbol = self.emit(parts[-1], word, i, j - 1, ".".join(filter(None, [container, *parts[:-1]])),
                                   True, self.signature(i, end))
                stack.append([symbol, container, public])
                container = ".".join(filter(None, [container, *parts]))
                public = True
                i = end
                continue
            if word == "def":
                i = self.definition(i, container, public, stack)
                continue
            if word in ("private", "protected", "public") or (self.typ(i) == NAME and value in (
                    "private", "protected", "public", "private_constant", "module_function")
                    and self.val(i - 1) not in (".", "&.")):
                nxt = i + 1
                if nxt >= self.n or self.toks[nxt][FIRST] or self.val(nxt) == ";":
                    public = value in ("public", "module_function")
                elif self.typ(nxt) == LITERAL and self.val(nxt).startswith(":"):
                    names = private_names.setdefault(container, set())
                    end = self.line_end(i)
                    for k in range(nxt, end):
                        if self.val(k).startswith(":"):
                            names.add(self.val(k)[1:])
                    i = end
                    continue
                elif self.val(nxt) == "def" and value != "public":
                    i = self.definition(nxt, container, False, stack, start=i)
                    continue
                i += 1
                continue
            if word in _ATTRIBUTES:
                end = self.line_end(i)
                for k in range(i + 1, end):
                    if self.typ(k) == LITERAL and self.val(k).startswith(":"):
                        self.emit(self.val(k)[1:], "property", i, k, container, public, self.signature(i, end))
                i = end
                continue
            if word == "alias" and self.typ(i + 1) in (NAME, LITERAL):
                name = self.val(i + 1).lstrip(":")
                end = self.line_end(i)
                self.emit(name, "method", i, i + 1, container, public, self.signature(i, end))
                i = end
                continue
            if value == "alias_method" and self.typ(i + 1) == LITERAL or (
                    value == "alias_method" and self.val(i + 1) == "(" and self.typ(i + 2) == LITERAL):
                k = i + 1 if self.typ(i + 1) == LITERAL else i + 2
                end = self.line_end(i)
                self.emit(self.val(k).lstrip(":").strip("'\""), "method", i, k, container, public,
                          self.signature(i, end))
                i = end
                continue
            if (self.typ(i) == NAME and value[:1].isupper() and self.val(i + 1) in ("=", "||=")
                    and (self.toks[i][FIRST] or self.val(i - 1) == ";") and self.block_kind(stack) != "def"):
                end = self.line_end(i)
                self.emit(value, "constant", i, i, container, True, self.signature(i, min(end, i + 40)))
                i += 2
                continue
            if word in _BLOCK_WORDS and word != "def":
                if word == "do" and pending_do:
                    pending_do = False
                else:
                    stack.append([None, container, public])
                    if word == "for":
                        pending_do = True
            elif word in _CONDITIONAL and not self.modifier(i):
                stack.append([None, container, public])
                if word in ("while", "until"):
                    pending_do = True
            i += 1
        for symbol in self.symbols:  # ``private :name`` after the definition
            if symbol.name in private_names.get(symbol.container, ()):
                symbol.exported = False
        self.symbols.sort(key=lambda symbol: symbol.line)
        return self.symbols

    @staticmethod
    def block_kind(stack: list[list]) -> str:
        for symbol, _container, _public in reversed(stack):
            if symbol is not None:
                return "def" if symbol.kind in ("method", "function") else symbol.kind
        return ""

    def modifier(self, i: int) -> bool:
        """Whether the ``if``/``unless``/``while``/``until`` at ``i`` trails a statement on its line."""
        if not self.same_line(i):
            return False
        kind, value = self.typ(i - 1), self.val(i - 1)
        if kind in (LITERAL, VAR):
            return True
        if kind == NAME:
            return value not in _KEYWORDS or value in ("end", "self", "nil", "true", "false", "redo", "retry",
                                                       "break", "next", "return", "super", "yield")
        return value in (")", "]", "}")

    def definition(self, i: int, container: str, public: bool, stack: list[list], start: int | None = None) -> int:
        """``def [self.]name[(params)]`` at ``i``: a method (pushes a block unless it is an endless def)."""
        start = i if start is None else start
        j = i + 1
        if self.val(j + 1) == "." and self.typ(j) in (NAME, VAR):  # def self.x / def Const.x
            j += 2
        name_at = j
        name = self.val(j)
        if self.typ(j) not in (NAME, PUNCT, LITERAL) or not name:
            return i + 1
        if self.typ(j) == LITERAL and name.endswith(":"):  # ``def name:`` cannot be; a label token of ``def a?:``
            name = name[:-1]
        j += 1
        if name in ("[", "[]"):  # def [](key) / def []=(key, value)
            while self.val(j) in ("]", "="):
                name += self.val(j)
                j += 1
            name = "[]" + ("=" if name.endswith("=") else "")
        elif self.val(j) == "=" and self.toks[j][START] == self.toks[j - 1][END] and self.val(j + 1) == "(":
            name += "="  # a setter: def name=(value)
            j += 1
        if self.val(j) == "(" and self.toks[j][START] == self.toks[j - 1][END]:
            depth = 0
            while j < self.n:
                if self.val(j) in ("(", "[", "{"):
                    depth += 1
                elif self.val(j) in (")", "]", "}"):
                    depth -= 1
                    if depth == 0:
                        j += 1
                        break
                j += 1
            sig_end = j
        else:
            sig_end = self.line_end(j - 1)
            for k in range(j, sig_end):
                if self.val(k) == "=":  # an endless def without parameters
                    sig_end = k
                    break
        endless = self.val(sig_end) == "=" and not self.toks[sig_end][FIRST]
        kind = "method" if container or self.block_kind(stack) in ("class", "module") else "function"
        symbol = self.emit(name, kind, start, name_at, container, public, self.signature(start, sig_end))
        if endless:
            return self.line_end(sig_end)
        stack.append([symbol, container, public])
        return sig_end


def extract(path: str, data: bytes) -> list[Symbol]:
    """The definitions of one Ruby file, in source order. Raises UnicodeDecodeError."""
    return _Scanner(path, data.decode("utf-8").removeprefix("\ufeff")).run()
