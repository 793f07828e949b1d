"""PHP definitions (.php) at declaration level, by a tokenizer and a declaration scanner.

The tokenizer reads only the code between ``<?php``/``<?=`` and ``?>``, and knows single- and
double-quoted strings, heredocs and nowdocs (``<<<ID`` … ``ID``), ``//``, ``#`` and ``/* */``
comments (``#[`` starts an attribute, not a comment); a ``/** … */`` docblock is kept for the
declaration after it. Function and method bodies are skipped whole.

What becomes a symbol: ``namespace`` (the container of what follows it, written with PHP's
backslashes), ``class``/``trait`` (``class``), ``interface``, ``enum`` (its ``case``s are
``constant``s), functions, class members (``method``s, ``const``ants, properties: a property's
name is given without its ``$``), top-level ``const``. ``use`` imports define nothing.

Exported: PHP has no module privacy, so declarations outside classes are exported; a member
is exported unless it is ``private`` or ``protected``.
"""

from __future__ import annotations

import re

from .model import Symbol
from .scanner import LITERAL, NAME, PUNCT, TIDY_TRAILING_COMMA, Lexer, TokenScanner, block_doc_line

VARIABLE = "$"

_TOKEN = re.compile(r"""
    (?P<nl>\n)
  | (?P<ws>[ \t\r\f\v\ufeff]+)
  | (?P<close>\?>)
  | (?P<line>(?://|\#(?!\[))[^\n]*?(?=\?>|\n|\Z))
  | (?P<block>/\*.*?(?:\*/|\Z))
  | (?P<heredoc><<<[ \t]*(?P<quote>['"]?)(?P<label>[A-Za-z_]\w*)(?P=quote)[^\n]*\n)
  | (?P<sq>'(?:[^'\\]|\\.)*'?)
  | (?P<dq>"(?:[^"\\]|\\.)*"?)
  | (?P<var>\$[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)
  | (?P<name>[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)
  | (?P<num>\d[\w.]*)
  | (?P<punct>::|->|=>|\?->|\.\.\.|\?\?=?|===|!==|==|!=|<=>|<=|>=|&&|\|\||\+\+|--|[-+*/.%&|^]=|\#\[|[{}()\[\];,<>=!&|+\-*/%^.:@?~\\])
""", re.VERBOSE | re.DOTALL)
_OPEN_TAG = re.compile(r"<\?(?:php\b|=)", re.IGNORECASE)
_OPENERS = {"(": ")", "[": "]", "{": "}", "#[": "]"}
_MODIFIERS = frozenset(("public", "protected", "private", "static", "abstract", "final", "readonly", "var"))


class _Lexer(Lexer):
    """PHP's tokens: only the code between ``<?php``/``<?=`` and ``?>``."""

    pattern = _TOKEN
    kinds = {"var": VARIABLE, "name": NAME, "punct": PUNCT}
    skip = frozenset(("ws", "line", "label", "quote"))
    special = {"close": "close_tag", "block": "docblock", "heredoc": "heredoc"}

    def __init__(self, text: str) -> None:
        tag = _OPEN_TAG.search(text)
        super().__init__(text, len(text) if tag is None else tag.end())

    def close_tag(self, start: int, m: re.Match) -> int:
        """``?>``: back to HTML until the next open tag; it ends a statement as ``;`` does."""
        tag = _OPEN_TAG.search(self.text, m.end())
        end = len(self.text) if tag is None else tag.end()
        self.line += self.text.count("\n", start, end)
        self.tokens.append((PUNCT, ";", start, start + 2, self.line))
        return end

    def docblock(self, start: int, m: re.Match) -> int:
        if self.text.startswith("/**", start):
            self.doc = m.group()
        return self.passed(start, m.end())

    def heredoc(self, start: int, m: re.Match) -> int:
        """``<<<ID`` … ``ID`` (``<<<'ID'``, a nowdoc, too): up to the line that starts with the label."""
        closing = re.compile(r"^[ \t]*" + re.escape(m.group("label")) + r"\b", re.MULTILINE)
        found = closing.search(self.text, m.end())
        end = len(self.text) if found is None else found.end()
        self.add(LITERAL, start, end)
        return end


class _Scanner(TokenScanner):
    doc_line = staticmethod(block_doc_line)
    tidy = TIDY_TRAILING_COMMA
    openers = _OPENERS
    lexer = _Lexer

    def skip_attributes(self, i: int) -> int:
        while self.val(i) == "#[":
            i = self.skip_balanced(i)
        return i

    def statements(self, i: int, namespace: str) -> int:
        """Top-level (or braced-namespace) statements from ``i`` up to an unmatched ``}``."""
        while i < self.n:
            if self.val(i) == "}":
                return i
            doc_at = i
            i = self.skip_attributes(i)
            start = i
            while self.val(i) in ("abstract", "final", "readonly"):
                i += 1
            keyword = self.val(i).lower() if self.typ(i) == NAME else ""
            if keyword == "namespace" and self.typ(i + 1) in (NAME, PUNCT) and self.val(i + 1) not in ("\\", "("):
                j = i + 1
                parts = []
                while self.typ(j) == NAME or self.val(j) == "\\":
                    parts.append(self.val(j))
                    j += 1
                name = "".join(parts)
                symbol = self.emit(name or "(global)", "namespace", start, i + 1, None, "", True,
                                   self.signature(start, j), doc_at)
                if self.val(j) == "{":
                    close = self.statements(j + 1, name)
                    symbol.end_line = self.line(close)
                    i = close + 1
                else:
                    namespace = name
                    i = j + 1
                continue
            if keyword in ("class", "interface", "trait", "enum") and self.typ(i + 1) == NAME:
                kind = {"class": "class", "trait": "class", "interface": "interface", "enum": "enum"}[keyword]
                j = self.until(i + 2, ("{", ";"))
                symbol = self.emit(self.val(i + 1), kind, start, i + 1, None, namespace, True,
                                   self.signature(start, j), doc_at)
                if self.val(j) == "{":
                    qualified = f"{namespace}.{symbol.name}" if namespace else symbol.name
                    close = self.members(j + 1, qualified)
                    symbol.end_line = self.line(close)
                    i = close + 1
                else:
                    i = j + 1
                continue
            if keyword == "function":
                i = self.function(i, start, doc_at, namespace, "function", True)
                continue
            if keyword == "const":
                i = self.constants(i + 1, start, doc_at, namespace, True)
                continue
            end = self.until(i, (";", "{"))
            i = self.skip_balanced(end) if self.val(end) == "{" else end + 1
            i = max(i, start + 1)
        return i

    def function(self, i: int, start: int, doc_at: int, container: str, kind: str, exported: bool) -> int:
        j = i + 1
        if self.val(j) == "&":
            j += 1
        if self.typ(j) != NAME:  # a closure: not a declaration
            end = self.until(i, (";",))
            return end + 1
        name_at = j
        end = self.until(j + 1, ("{", ";"))
        body_end = self.skip_balanced(end) if self.val(end) == "{" else end + 1
        self.emit(self.val(name_at), kind, start, name_at, body_end - 1, container, exported,
                  self.signature(start, end), doc_at)
        return body_end

    def constants(self, i: int, start: int, doc_at: int, container: str, exported: bool) -> int:
        """``const [type] A = 1, B = 2;``: one constant per name."""
        end = self.until(i, (";",))
        j = i
        while j < end:
            if self.typ(j) == NAME and self.val(j + 1) == "=":
                value_end = self.until(j + 2, (",", ";"))
                self.emit(self.val(j), "constant", start, j, value_end - 1, container, exported,
                          self.signature(start, value_end), doc_at)
                j = value_end
            j += 1
        return end + 1

    def members(self, i: int, container: str) -> int:
        """Members of a class, interface, trait or enum body; returns the index of its ``}``."""
        while (i := self.next_member(i)) < self.n and self.val(i) != "}":
            doc_at = i
            i = self.skip_attributes(i)
            start = i
            exported = True
            while self.val(i).lower() in _MODIFIERS and self.typ(i) == NAME:
                if self.val(i).lower() in ("private", "protected"):
                    exported = False
                i += 1
            keyword = self.val(i).lower() if self.typ(i) == NAME else ""
            if keyword == "function":
                i = self.function(i, start, doc_at, container, "method", exported)
                continue
            if keyword == "const":
                i = self.constants(i + 1, start, doc_at, container, exported)
                continue
            if keyword == "case" and self.typ(i + 1) == NAME:
                end = self.until(i + 2, (";",))
                self.emit(self.val(i + 1), "constant", start, i + 1, end - 1, container, True,
                          self.signature(start, end), doc_at)
                i = end + 1
                continue
            if keyword == "use":
                end = self.until(i, (";", "{"))
                i = self.skip_balanced(end) if self.val(end) == "{" else end + 1
                continue
            end = self.until(i, (";",))
            if i > start or self.typ(i) == VARIABLE:  # a property list: [modifiers] [type] $a [= 1], $b;
                j = i
                while j < end:
                    if self.typ(j) == VARIABLE:
                        value_end = self.until(j + 1, (",", ";"))
                        self.emit(self.val(j)[1:], "property", start, j, value_end - 1, container, exported,
                                  self.signature(start, value_end), doc_at)
                        j = value_end
                    j += 1
            i = max(end + 1, start + 1)
        return i

    def run(self) -> list[Symbol]:
        i = 0
        while i < self.n:
            i = self.statements(i, "") + 1
        self.symbols.sort(key=lambda symbol: symbol.line)
        return self.symbols


def extract(path: str, data: bytes) -> list[Symbol]:
    """The declarations of one PHP file, in source order. Raises UnicodeDecodeError."""
    return _Scanner(path, data.decode("utf-8").removeprefix("\ufeff")).run()
