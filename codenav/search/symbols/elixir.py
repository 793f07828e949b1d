"""Elixir definitions (.ex, .exs) by a tokenizer and a scanner that pairs ``do``/``fn`` with ``end``.

The tokenizer knows strings and heredocs (``"…"``, ``\"\"\"…\"\"\"``, ``#{}`` skipped with its
nesting), charlists, sigils (``~r/…/``, ``~s(…)``, ``~w[…]``…), atoms (``:def`` is not a
keyword), keyword keys (``do:``), character literals (``?a``) and ``#`` comments.

What becomes a symbol: ``defmodule``/``defprotocol`` (``module``; ``defimpl`` blocks give their
functions a container but no symbol), ``def``/``defp`` (``function``), ``defmacro``/``defmacrop``
and ``defguard``/``defguardp`` (``function``), ``defdelegate`` (``function``), ``defstruct`` and
``defexception`` (``class``, named after the module), ``@type``/``@typep``/``@opaque`` (``type``)
and ``@callback``/``@macrocallback`` (``method`` of the behaviour). A function with several
clauses is one symbol per clause (each has its own line and arguments).

Exported: ``defp``/``defmacrop``/``defguardp``/``@typep`` are not, the rest is. Doc: the first
line of the ``@doc``/``@moduledoc``/``@typedoc`` string written before the definition.
"""

from __future__ import annotations

import re

from .model import Symbol
from .scanner import (
    LITERAL,
    NAME,
    PUNCT,
    Lexer,
    TokenScanner,
    first_line,
    hash_delimited_end,
)

KEY, ATTR = "k", "@"  # token types of a keyword key (``do:``) and a module attribute (``@doc``)

_TOKEN = re.compile(r"""
    (?P<nl>\n)
  | (?P<ws>[ \t\r\f\v\ufeff]+|\\\n)
  | (?P<comment>\#[^\n]*)
  | (?P<key>[A-Za-z_]\w*[?!]?:(?![:\w]))
  | (?P<atom>:(?:[A-Za-z_]\w*[?!]?|"(?:[^"\\]|\\.)*"|[+\-*/<>=!&|^~.]+))
  | (?P<char>\?(?:\\.|[^\s]))
  | (?P<attr>@[A-Za-z_]\w*)
  | (?P<str>["'])
  | (?P<sigil>~[A-Za-z]+[/|"'(\[{<])
  | (?P<name>[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*[?!]?)
  | (?P<num>\d[\w.]*)
  | (?P<punct>&&&|<<<|>>>|\|\|\||\^\^\^|~~~|\*\*|\.\.//|=~|<~>|<<~|~>>|<~|~>|<\|>|\|>|<>|->|<-|=>|\\\\|::|\.\.|===?|!==?|<=|>=|&&|\|\||\+\+|--|[{}()\[\];,<>=!&|+\-*/%^.:~])
""", re.VERBOSE)
_PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}
# after a definition's name these are its arguments, guard or body, never an operator being defined
_NOT_OPERATORS = frozenset(("(", ")", ",", "[", "]", "{", "}", ".", "=", "\\\\", "::", "->", "|>", ";", "do:"))
_DEFINERS = {"def": ("function", True), "defp": ("function", False), "defmacro": ("function", True),
             "defmacrop": ("function", False), "defguard": ("function", True), "defguardp": ("function", False),
             "defdelegate": ("function", True)}
_MODULES = frozenset(("defmodule", "defprotocol", "defimpl"))


class _Lexer(Lexer):
    pattern = _TOKEN
    kinds = {"name": NAME, "punct": PUNCT, "key": KEY, "attr": ATTR}
    skip = frozenset(("ws", "comment"))
    special = {"str": "string", "sigil": "sigil"}

    def string(self, start: int, m: re.Match) -> int:
        """A string or charlist, or a heredoc up to its closing triple quote."""
        text, quote = self.text, m.group()
        if text.startswith(quote * 3, start):
            close = text.find(quote * 3, start + 3)
            end = len(text) if close < 0 else close + 3
        else:
            end = hash_delimited_end(text, start + 1, quote, quote)
        self.add(LITERAL, start, end)
        return end

    def sigil(self, start: int, m: re.Match) -> int:
        """``~r/…/``, ``~s(…)``, ``~S\"\"\"…\"\"\"``, with their modifier letters."""
        text, n = self.text, len(self.text)
        opener = m.group()[-1]
        if opener in "\"'" and text.startswith(opener * 3, m.end() - 1):
            close = text.find(opener * 3, m.end() + 2)
            end = n if close < 0 else close + 3
        else:
            end = hash_delimited_end(text, m.end(), opener, _PAIRS.get(opener, opener))
        while end < n and text[end].isalpha():
            end += 1
        self.add(LITERAL, start, end)
        return end


def _doc_line(literal: str) -> str:
    body = literal.lstrip("~").lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") if literal[:1] == "~" \
        else literal  # ``~S\"\"\"…\"\"\"``: the sigil's letter goes first
    return first_line(body.strip("\"'"))


class _Scanner(TokenScanner):
    lexer = _Lexer
    trailing = ","

    def keyword(self, i: int) -> str:
        """A name at ``i`` that is not a field or call on something (``x.end``)."""
        if self.typ(i) != NAME or self.val(i - 1) == "." and i > 0:
            return ""
        return self.val(i)

    def head_end(self, i: int, commas: bool = True) -> int:
        """The index of the ``do``, ``,`` (before ``do:``) or line end closing a definition head at ``i``."""
        depth = 0
        line = self.line(i)
        j = i
        while j < self.n:
            value = self.val(j)
            if self.typ(j) == PUNCT and value in ("(", "[", "{"):
                depth += 1
            elif self.typ(j) == PUNCT and value in (")", "]", "}"):
                depth -= 1
            elif depth <= 0:
                if self.keyword(j) == "do" or value == "do:" or (commas and value == ","):
                    return j
                if self.line(j) != line and self.val(j - 1) not in (",", "|>", "when", "(", "\\\\", "::", "=", "->"):
                    return j
            j += 1
        return j

    def emit(self, name: str, kind: str, start: int, name_at: int, container: str, exported: bool, end: int,
             doc: str) -> Symbol:
        symbol = Symbol(name, kind, self.path, self.line(name_at), None, container, self.signature(start, end),
                        doc, exported)
        self.symbols.append(symbol)
        return symbol

    def run(self) -> list[Symbol]:
        stack: list[tuple[Symbol | None, str]] = []  # open do/fn blocks: (symbol, container outside)
        container = ""
        doc = ""
        i = 0
        while i < self.n:
            word = self.keyword(i)
            kind = self.typ(i)
            if kind == ATTR and self.val(i) in ("@doc", "@moduledoc", "@typedoc"):
                text = _doc_line(self.val(i + 1)) if self.typ(i + 1) == LITERAL else ""
                module = next((entry[0] for entry in reversed(stack) if entry[0] is not None), None)
                if self.val(i) == "@moduledoc":  # written inside the module it documents
                    if module is not None and module.kind == "module" and not module.doc:
                        module.doc = text
                else:
                    doc = text
                i += 2
                continue
            if kind == ATTR and self.val(i) in ("@type", "@typep", "@opaque", "@callback", "@macrocallback") \
                    and self.typ(i + 1) == NAME and self.val(i + 1) != "unquote":
                end = self.head_end(i + 1)
                symbol_kind = "method" if "callback" in self.val(i) else "type"
                self.emit(self.val(i + 1), symbol_kind, i, i + 1, container, self.val(i) != "@typep", end, doc)
                doc = ""
                i = end
                continue
            if word in _MODULES:
                j = i + 1
                parts = []
                if self.typ(j) == NAME and self.val(j) != "do":
                    parts.append(self.val(j))
                    j += 1
                    while self.val(j) == "." and self.typ(j + 1) == NAME:
                        parts.append(self.val(j + 1))
                        j += 2
                end = self.head_end(i, commas=False)
                outer = container
                if word == "defimpl":
                    target = ""
                    for k in range(j, end):  # the implementation module is Protocol.Target
                        if self.val(k) == "for:" and self.typ(k + 1) == NAME:
                            target = self.val(k + 1)
                            while self.val(k + 2) == "." and self.typ(k + 3) == NAME:
                                target += "." + self.val(k + 3)
                                k += 2
                    name = ".".join(parts) + (f".{target}" if target else "")
                    symbol = None
                elif parts[:1] == ["unquote"]:  # ``defmodule unquote(name)``: computed, no symbol
                    name, symbol = "", None
                else:
                    name = ".".join(parts)
                    symbol = self.emit(parts[-1] if parts else name, "module", i, i + 1,
                                       ".".join(filter(None, [container, *parts[:-1]])), True, end, doc)
                doc = ""
                if self.keyword(end) == "do":
                    stack.append((symbol, outer))
                    container = ".".join(filter(None, [container, name]))
                    i = end + 1
                else:
                    i = end
                continue
            if word in _DEFINERS and self.val(i + 1) not in (".", "=", ":") and self.typ(i - 1) != ATTR:
                symbol_kind, exported = _DEFINERS[word]
                j = i + 1
                if self.val(j) == "(":  # def(name(args)) is rare; step into it
                    j += 1
                if self.typ(j) == NAME and self.line(j + 1) == self.line(j) and (
                        self.typ(j + 1) == PUNCT and self.val(j + 1) not in _NOT_OPERATORS
                        or self.val(j + 1) in ("and", "or", "in") and self.typ(j + 2) == NAME):
                    j += 1  # ``def left &&& right``, ``defmacro left and right``: the operator is the name
                name_at = j
                name = self.val(j)
                if not name or self.typ(j) not in (NAME, PUNCT) or name == "unquote":
                    i += 1  # ``def unquote(name)(…)``: the name is computed; its do/end still pairs
                    continue
                end = self.head_end(i)
                symbol = self.emit(name, symbol_kind, i, name_at, container, exported, end, doc)
                doc = ""
                if self.keyword(end) == "do":
                    stack.append((symbol, container))
                    i = end + 1
                else:
                    symbol.end_line = self.line(end - 1)
                    i = end
                continue
            if word in ("defstruct", "defexception") and container:
                end = self.head_end(i)
                self.emit(container.rsplit(".", 1)[-1], "class", i, i, container, True, min(end, i + 1), doc)
                doc = ""
                i = end
                continue
            if word in ("do", "fn"):
                stack.append((None, container))
            elif word == "end":
                if stack:
                    symbol, container = stack.pop()
                    if symbol is not None:
                        symbol.end_line = self.line(i)
            i += 1
        self.symbols.sort(key=lambda symbol: symbol.line)
        return self.symbols


def extract(path: str, data: bytes) -> list[Symbol]:
    """The definitions of one Elixir file, in source order. Raises UnicodeDecodeError."""
    return _Scanner(path, data.decode("utf-8").removeprefix("\ufeff")).run()
