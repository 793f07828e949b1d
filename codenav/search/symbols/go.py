"""Go definitions (.go) at declaration level, by a tokenizer and a top-level scanner.

The tokenizer knows interpreted strings, raw strings (back quotes, multi-line), runes and
comments; a run of ``//`` lines ending on the line before a declaration is its doc comment.
Function bodies are skipped whole; Go allows only declarations at the top level, so the
scanner reads ``package``, ``func``, ``type``, ``var`` and ``const`` (single or grouped).

What becomes a symbol: the ``package`` clause (``module``); functions; methods (container: the
receiver's type, pointer and type parameters dropped); type declarations (``struct`` →
``class`` with its named fields as ``property``s, ``interface`` → ``interface`` with its
methods, anything else → ``type``; generics kept in the signature); ``var`` specs
(``variable``) and ``const`` specs (``constant``), one symbol per name.

Exported: Go's rule, an identifier starting with an upper-case letter is exported; the
package clause is exported.
"""

from __future__ import annotations

import re

from .model import SIGNATURE_CHARS, Symbol
from .scanner import LITERAL, NAME, OPENERS, PUNCT, TIDY_TRAILING_COMMA, TYPE, VALUE, Lexer, TokenScanner

NL = 5  # tokens carry a sixth field: whether a line break comes before them

_TOKEN = re.compile(r"""
    (?P<nl>\n)
  | (?P<ws>[ \t\r\f\v\ufeff]+)
  | (?P<line>//[^\n]*)
  | (?P<block>/\*.*?(?:\*/|\Z))
  | (?P<raw>`[^`]*`?)
  | (?P<str>"(?:[^"\\\n]|\\.)*"?)
  | (?P<rune>'(?:[^'\\\n]|\\[^\n])*'?)
  | (?P<name>[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)
  | (?P<num>\.?\d[\w.]*)
  | (?P<punct><<=|>>=|&\^=|\.\.\.|&&|\|\||<-|<<|>>|&\^|\+\+|--|==|!=|<=|>=|:=|[-+*/%&|^]=|[{}()\[\];,<>=!&|+\-*/%^.:~])
""", re.VERBOSE | re.DOTALL)
# After these a line break inserts a semicolon (The Go Programming Language Specification, "Semicolons").
_ENDER_WORDS = frozenset(("break", "continue", "fallthrough", "return"))
_KEYWORDS = frozenset(("break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough",
                       "for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range",
                       "return", "select", "struct", "switch", "type", "var"))


class _Lexer(Lexer):
    """Go's tokens; a run of ``//`` lines that starts its line and ends on the line before a token is its doc."""

    pattern = _TOKEN
    skip = frozenset(("ws",))
    special = {"line": "line_comment", "block": "other_comment"}
    newline_field = True

    def __init__(self, text: str) -> None:
        self.comment: list[str] = []  # the current run of // comments
        self.comment_end = -1  # the line of its last comment
        super().__init__(text)

    def line_comment(self, start: int, m: re.Match) -> int:
        body = m.group()[2:]
        if self.comment and self.comment_end == self.line - 1 and self.newline:
            self.comment.append(body)
        else:
            self.comment = [body] if self.newline or not self.tokens else []
        self.comment_end = self.line
        self.doc = self.comment or None
        return m.end()

    def other_comment(self, start: int, m: re.Match) -> int:
        self.comment = []  # a /* */ comment ends a run
        self.doc = None
        return self.passed(start, m.end())

    def attach(self, index: int, line: int) -> None:
        if self.comment_end == line - 1:
            self.docs[index] = "\n".join(self.comment)
        self.comment = []
        self.doc = None


def _exported(name: str) -> bool:
    return name[:1].isupper()


class _Scanner(TokenScanner):
    tidy = TIDY_TRAILING_COMMA
    lexer = _Lexer

    def is_name(self, i: int) -> bool:
        return i < self.n and self.toks[i][TYPE] == NAME and self.toks[i][VALUE] not in _KEYWORDS

    def ends_line(self, i: int) -> bool:
        """Whether a semicolon is inserted before token ``i`` (it starts a line after an ending token)."""
        if i >= self.n or not self.toks[i][NL] or i == 0:
            return False
        kind, value = self.toks[i - 1][TYPE], self.toks[i - 1][VALUE]
        if kind == LITERAL:
            return True
        if kind == NAME:
            return value not in _KEYWORDS or value in _ENDER_WORDS
        return value in (")", "]", "}", "++", "--")

    def spec_end(self, i: int, stop_at_brace: bool = False) -> int:
        """The index of the token ending the spec at ``i`` (``;``, an inserted semicolon, or a closer)."""
        first = i
        while i < self.n:
            if i > first and self.ends_line(i):
                return i
            value = self.val(i)
            if self.toks[i][TYPE] == PUNCT:
                if value == ";" or value in (")", "]", "}"):
                    return i
                if value == "{" and stop_at_brace:
                    return i
                if value in OPENERS:
                    i = self.skip_balanced(i)
                    continue
            i += 1
        return i

    def doc_line(self, doc: str) -> str:
        return next((part.strip() for part in doc.split("\n") if part.strip()), "")[:SIGNATURE_CHARS]

    def emit(self, name: str, kind: str, start: int, name_at: int, end_tok: int | None, container: str,
             signature: str, doc_at: int) -> Symbol:
        """Go says what is exported by the name alone."""
        return super().emit(name, kind, start, name_at, end_tok, container, _exported(name), signature, doc_at)

    def run(self) -> list[Symbol]:
        i = 0
        while i < self.n:
            value = self.val(i)
            if value == "package" and self.toks[i + 1 if i + 1 < self.n else i][TYPE] == NAME:
                symbol = self.emit(self.val(i + 1), "module", i, i + 1, None, "", self.signature(i, i + 2), i)
                symbol.exported = True
                i += 2
            elif value == "func":
                i = self.func(i)
            elif value in ("type", "var", "const"):
                i = self.group(i, value)
            elif value in OPENERS:
                i = self.skip_balanced(i)
            else:
                i += 1
        self.symbols.sort(key=lambda symbol: symbol.line)
        return self.symbols

    def func(self, i: int) -> int:
        j = i + 1
        container = ""
        if self.val(j) == "(":  # a method: the receiver's type is the last name outside brackets
            close = self.skip_balanced(j)
            k = j + 1
            while k < close - 1:
                if self.val(k) == "[":
                    k = self.skip_balanced(k)
                    continue
                if self.is_name(k):
                    container = self.val(k)
                k += 1
            j = close
        if not self.is_name(j):
            return j
        name_at = j
        j += 1
        if self.val(j) == "[":
            j = self.skip_balanced(j)
        if self.val(j) == "(":
            j = self.skip_balanced(j)
        while j < self.n and not self.ends_line(j):  # the results, up to the body
            value = self.val(j)
            if value in ("struct", "interface") and self.val(j + 1) == "{":
                j = self.skip_balanced(j + 1)
                continue
            if value == "{" or value == ";":
                break
            j = self.skip_balanced(j) if value in ("(", "[") else j + 1
        sig_end = j
        end_tok = j - 1
        if self.val(j) == "{":
            j = self.skip_balanced(j)
            end_tok = j - 1
        self.emit(self.val(name_at), "method" if container else "function", i, name_at, end_tok, container,
                  self.signature(i, sig_end), i)
        return j

    def group(self, i: int, keyword: str) -> int:
        """``type``/``var``/``const`` with one spec, or a parenthesized group of them."""
        if self.val(i + 1) != "(":
            return self.spec(i + 1, keyword, i, i)
        close = self.skip_balanced(i + 1)
        j = i + 2
        while j < close - 1:
            if self.val(j) == ";":
                j += 1
                continue
            j = max(self.spec(j, keyword, j, j), j + 1)
        return close

    def spec(self, i: int, keyword: str, start: int, doc_at: int) -> int:
        if keyword == "type":
            return self.type_spec(i, start, doc_at)
        names = self.name_list(i)
        if not names:
            return self.spec_end(i)
        after = names[-1] + 1
        end = after if self.ends_line(after) else self.spec_end(after)  # a bare name repeats the const above
        sig_end = end
        for k in range(names[-1] + 1, end):  # the signature is the names and type, without a long value
            if self.val(k) == "=" and end - k > 12:
                sig_end = k
                break
        signature = self.signature(start, sig_end)
        for name_at in names:
            if self.val(name_at) != "_":
                self.emit(self.val(name_at), "constant" if keyword == "const" else "variable", start, name_at,
                          end - 1, "", signature, doc_at)
        return end

    def type_spec(self, i: int, start: int, doc_at: int) -> int:
        if not self.is_name(i):
            return self.spec_end(i)
        name_at = i
        j = i + 1
        # type parameters ``[T any, U comparable]``, not an array type ``[N]T``
        if self.val(j) == "[" and self.is_name(j + 1) and self.val(j + 2) != "]":
            j = self.skip_balanced(j)
        if self.val(j) == "=":
            j += 1
        kind = {"struct": "class", "interface": "interface"}.get(self.val(j), "type")
        if kind != "type" and self.val(j + 1) == "{":
            close = self.skip_balanced(j + 1)
            symbol = self.emit(self.val(name_at), kind, start, name_at, close - 1, "", self.signature(start, j + 1),
                               doc_at)
            self.members(j + 2, close - 1, symbol.name, kind)
            return close
        end = self.spec_end(j)
        self.emit(self.val(name_at), "type", start, name_at, end - 1, "", self.signature(start, end), doc_at)
        return end

    def members(self, i: int, close: int, container: str, kind: str) -> None:
        """Named struct fields (embedded ones are not definitions) or interface methods."""
        while i < close:
            if self.val(i) == ";":
                i += 1
                continue
            end = self.spec_end(i)
            end = max(end, i + 1)
            if kind == "interface":
                if self.is_name(i) and self.val(i + 1) == "(":
                    self.emit(self.val(i), "method", i, i, end - 1, container, self.signature(i, end), i)
            else:
                names = self.name_list(i)
                typed = names and names[-1] + 1 < end and self.val(names[-1] + 1) not in (".",) \
                    and self.toks[names[-1] + 1][TYPE] != LITERAL
                if typed:
                    for name_at in names:
                        self.emit(self.val(name_at), "property", i, name_at, end - 1, container,
                                  self.signature(i, end), i)
            i = end


def extract(path: str, data: bytes) -> list[Symbol]:
    """The declarations of one Go file, in source order. Raises UnicodeDecodeError."""
    return _Scanner(path, data.decode("utf-8").removeprefix("\ufeff")).run()
