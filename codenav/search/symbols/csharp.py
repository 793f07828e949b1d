"""C# definitions (.cs) at declaration level, by a tokenizer and a type-body scanner.

The tokenizer knows regular, verbatim (``@"…"``), interpolated (``$"…{expr}…"``, holes
scanned with their own strings) and raw (``\"\"\"…\"\"\"``) strings, character literals,
comments and preprocessor lines; a run of ``///`` lines is the XML doc of what follows (the
first line of text, tags dropped). Method and accessor bodies are skipped whole.

What becomes a symbol: ``namespace`` (block or file-scoped; the container of its types),
``class``/``struct``/``record`` (``class``), ``interface``, ``enum`` (its members are
``constant``s), ``delegate`` (``type``), nested at any depth; methods, constructors, operators
and local declarations of them (``method``); properties, indexers (``this[]``), events and
fields (``property``; ``const`` fields are ``constant``s); positional record parameters
(``property``).

Exported: a top-level type is exported when it is ``public``; a member when it is ``public``
or ``protected`` in an exported type (interface members: unless ``private``; enum members
follow their enum).
"""

from __future__ import annotations

import re

from .model import Symbol
from .scanner import LITERAL, NAME, Lexer, TokenScanner, code_end, cut

_TOKEN = re.compile(r"""
    (?P<nl>\n)
  | (?P<ws>[ \t\r\f\v\ufeff]+)
  | (?P<pre>\#[^\n]*)
  | (?P<str>(?:\$+@?|@\$*)?")
  | (?P<doc>///[^\n]*)
  | (?P<line>//[^\n]*)
  | (?P<block>/\*.*?(?:\*/|\Z))
  | (?P<char>'(?:[^'\\\n]|\\.)*'?)
  | (?P<verbatim>@[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)
  | (?P<name>[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)
  | (?P<num>\.?\d[\w.]*)
  | (?P<punct>\?\?=?|\?\.|=>|::|->|<<=|>>=|&&|\|\||\+\+|--|==|!=|<=|>=|[-+*/%&|^]=|[{}()\[\];,<>=!&|+\-*/%^.:?~])
""", re.VERBOSE | re.DOTALL)
_STRING_START = re.compile(r"(?:\$+@?|@\$*)?\"")
_CHAR_LITERAL = re.compile(r"'(?:[^'\\\n]|\\.)*'")
_MODIFIERS = frozenset(("public", "protected", "private", "internal", "static", "readonly", "sealed", "abstract",
                        "virtual", "override", "async", "partial", "extern", "unsafe", "new", "const", "volatile",
                        "required", "file", "fixed", "implicit", "explicit", "ref"))
_TYPE_KINDS = {"class": "class", "struct": "class", "record": "class", "interface": "interface", "enum": "enum"}


class _Lexer(Lexer):
    pattern = _TOKEN
    special = {"pre": "preprocessor", "str": "string", "doc": "doc_comment", "block": "comment",
               "verbatim": "verbatim_name"}

    def preprocessor(self, start: int, m: re.Match) -> int:
        """A ``#`` first on its line starts a directive (#region, #if …), passed over; elsewhere it is stray."""
        return m.end() if self.newline else start + 1

    def string(self, start: int, m: re.Match) -> int:
        end = _string_end(self.text, start, m.group())
        self.add(LITERAL, start, end)
        return end

    def doc_comment(self, start: int, m: re.Match) -> int:
        if self.doc is None:
            self.doc = []
        self.doc.append(m.group()[3:])
        return m.end()

    def verbatim_name(self, start: int, m: re.Match) -> int:
        """``@class``: the name ``class``."""
        self.add(NAME, start, m.end(), m.group()[1:])
        return m.end()


def _string_end(text: str, i: int, opening: str) -> int:
    """The end of the string literal at ``i`` whose prefix and first quote are ``opening``."""
    n = len(text)
    j = i + len(opening)
    interpolated = "$" in opening
    verbatim = "@" in opening
    if text.startswith('""', j):  # a raw string: """ … """ (as many quotes as opened it)
        quotes = 3
        while text.startswith('"' * (quotes + 1), j - 1):
            quotes += 1
        j = j - 1 + quotes
        close = text.find('"' * quotes, j)
        return n if close < 0 else close + quotes
    while j < n:
        ch = text[j]
        if ch == "\\" and not verbatim:
            j += 2
            continue
        if ch == '"':
            if verbatim and text.startswith('""', j):
                j += 2
                continue
            return j + 1
        if ch == "\n" and not verbatim:
            return j
        if interpolated and ch == "{":
            if text.startswith("{{", j):
                j += 2
                continue
            j = code_end(text, j + 1, _literal_end)
            continue
        j += 1
    return n


def _literal_end(text: str, j: int) -> int | None:
    """The end of the string or character literal opening at ``j`` (in an interpolation hole), or None."""
    ch = text[j]
    if ch in '"@$':
        opening = _STRING_START.match(text, j)
        if opening:
            return _string_end(text, j, opening.group())
    if ch == "'":
        close = _CHAR_LITERAL.match(text, j)
        return close.end() if close else j + 1
    return None


def _doc_line(doc: str) -> str:
    text = re.sub(r"<[^>]*>", " ", doc)
    for line in text.split("\n"):
        line = " ".join(line.split())
        if line:
            return cut(line)
    return ""


class _Scanner(TokenScanner):
    doc_line = staticmethod(_doc_line)
    lexer = _Lexer

    def attributes(self, i: int) -> int:
        while self.val(i) == "[":
            i = self.skip_balanced(i)
        return i

    def modifiers(self, i: int) -> tuple[int, set[str]]:
        found: set[str] = set()
        while self.val(i) in _MODIFIERS and self.is_name(i) and self.val(i + 1) not in ("(", "=", ";", ",", "{"):
            found.add(self.val(i))
            i += 1
        return i, found

    def back_name(self, j: int) -> int:
        """The name before ``j``, stepping back over generic arguments ``<…>``; -1 if there is none."""
        k = j - 1
        if self.val(k) in (">", ">>"):
            depth = 0
            while k > 0:
                value = self.val(k)
                if value in (">", ">>"):
                    depth += len(value)
                elif value == "<":
                    depth -= 1
                    if depth == 0:
                        k -= 1
                        break
                k -= 1
        return k if self.is_name(k) else -1

    def declarations(self, i: int, container: str, exported_scope: bool | None, type_name: str,
                     keyword: str) -> int:
        """Namespace members (``type_name`` empty) or type members from ``i`` up to the closing ``}``."""
        if keyword == "enum":
            return self.enum_members(i, container, bool(exported_scope))
        while (i := self.next_member(i)) < self.n and self.val(i) != "}":
            value = self.val(i)
            doc_at = i
            i = self.attributes(i)
            start = i
            if value in ("using", "extern") and not type_name or self.val(i) == "using":
                i = self.until(i, (";",)) + 1
                continue
            i, mods = self.modifiers(i)
            if not type_name:
                exported = "public" in mods
            elif "private" in mods:
                exported = False
            elif keyword == "interface":
                exported = bool(exported_scope)
            else:
                exported = bool(exported_scope) and bool(mods & {"public", "protected"})
            word = self.val(i)
            if word == "namespace" and self.is_name(i + 1):
                j = i + 1
                parts = [self.val(j)]
                while self.val(j + 1) == "." and self.is_name(j + 2):
                    parts.append(self.val(j + 2))
                    j += 2
                name = ".".join(parts)
                qualified = f"{container}.{name}" if container else name
                symbol = self.emit(name, "namespace", start, i + 1, None, container, True,
                                   self.signature(start, j + 1), doc_at)
                if self.val(j + 1) == "{":
                    close = self.declarations(j + 2, qualified, None, "", "namespace")
                    symbol.end_line = self.line(close)
                    i = close + 1
                else:  # file-scoped: the rest of the file
                    close = self.declarations(j + 2, qualified, None, "", "namespace")
                    i = close + 1
                continue
            if word == "record" and self.val(i + 1) in ("class", "struct"):
                i += 1
                word = "record"
            if word in _TYPE_KINDS and self.is_name(i + 1):
                i = self.type_declaration(i, start, doc_at, container, exported, word)
                continue
            if word == "delegate" and type_name == "" or word == "delegate" and self.val(i + 1) != "(":
                end = self.until(i, (";",))
                name_at = self.back_name(self.until(i, ("(",)))
                if name_at > 0:
                    self.emit(self.val(name_at), "type", start, name_at, end, container, exported,
                              self.signature(start, end), doc_at)
                i = end + 1
                continue
            i = self.member(i, start, doc_at, container, type_name, mods, exported)
        return i

    def type_declaration(self, i: int, start: int, doc_at: int, container: str, exported: bool, word: str) -> int:
        kind = _TYPE_KINDS[word]
        name_at = i + 1
        body = self.until(i + 2, ("{", ";"))
        symbol = self.emit(self.val(name_at), kind, start, name_at, body if self.val(body) == ";" else None,
                           container, exported, self.signature(start, body), doc_at)
        qualified = f"{container}.{symbol.name}" if container else symbol.name
        j = name_at + 1
        if self.val(j) == "<":
            depth = 0
            while j < body:
                depth += {"<": 1, ">": -1, ">>": -2}.get(self.val(j), 0)
                j += 1
                if depth <= 0:
                    break
        if self.val(j) == "(":  # positional record or primary constructor parameters
            self.parameters(j, qualified, exported and word == "record")
        if self.val(body) != "{":
            return body + 1
        close = self.declarations(body + 1, qualified, exported, symbol.name, word)
        symbol.end_line = self.line(close)
        return close + 1

    def parameters(self, i: int, container: str, exported: bool) -> None:
        """``record P(int X, string Y = "")``: each parameter (the name before any default) is a property."""
        close = self.skip_balanced(i) - 1
        segments: list[tuple[int, int]] = []
        depth = 0
        begin = i + 1
        for k in range(i + 1, close + 1):
            value = self.val(k)
            if value in ("<", "(", "[", "{"):
                depth += 1
            elif value in (">", "]", "}") or (value == ")" and k != close):
                depth -= 1
            elif value == ">>":
                depth -= 2
            if depth <= 0 and (value == "," or k == close):
                segments.append((begin, k))
                begin = k + 1
        for first, stop in segments:
            end = stop
            for k in range(first, stop):
                if self.val(k) == "=":
                    end = k
                    break
            if end - 1 > first - 1 and self.is_name(end - 1):
                self.emit(self.val(end - 1), "property", first, end - 1, end - 1, container, exported,
                          self.signature(first, end), first)

    def enum_members(self, i: int, container: str, exported: bool) -> int:
        while i < self.n and self.val(i) != "}":
            if self.val(i) == ",":
                i += 1
                continue
            doc_at = i
            i = self.attributes(i)
            if not self.is_name(i):
                i += 1
                continue
            end = self.until(i + 1, (",",))
            self.emit(self.val(i), "constant", i, i, end - 1, container, exported, self.signature(i, end), doc_at)
            i = end
        return i

    def member(self, i: int, start: int, doc_at: int, container: str, type_name: str, mods: set[str],
               exported: bool) -> int:
        j = self.member_header_end(i, ("(", "=", ";", ",", "{", "}", "=>"))
        stop = self.val(j)
        header = [self.val(k) for k in range(i, j)]
        if stop == "(":
            if "operator" in header:
                at = i + header.index("operator")
                name, name_at = "operator " + "".join(header[header.index("operator") + 1:]), at
            else:
                name_at = self.back_name(j)
                if name_at < 0:
                    return max(self.until(j, (";", "{")) + 1, i + 1)
                name = self.val(name_at)
            close = self.skip_balanced(j)
            end = self.until(close, ("{", ";", "=>"))
            if self.val(end) == "{":
                body_end = self.skip_balanced(end)
            else:
                body_end = self.until(end, (";",)) + 1
            self.emit(name, "method", start, name_at, body_end - 1, container, exported,
                      self.signature(start, end), doc_at)
            return body_end
        if stop in ("{", "=>"):  # a property, indexer or event with accessors
            if self.val(j - 1) == "]" and "this" in header:
                name, name_at = "this[]", i + header.index("this")
            else:
                name_at = self.back_name(j)
                if name_at < 0:
                    return self.skip_balanced(j) if stop == "{" else self.until(j, (";",)) + 1
                name = self.val(name_at)
            if stop == "{":
                end = self.skip_balanced(j)
                if self.val(end) == "=":  # an initializer after the accessors
                    end = self.until(end, (";",)) + 1
            else:
                end = self.until(j, (";",)) + 1
            self.emit(name, "property", start, name_at, end - 1, container, exported, self.signature(start, j),
                      doc_at)
            return end
        if stop in ("=", ";", ","):
            names = [j - 1] if self.is_name(j - 1) else []
            end = j
            while self.val(end) not in (";", "}", ""):
                if self.val(end) == "=":
                    end = self.until(end + 1, (",", ";"))
                if self.val(end) == ",":
                    end += 1
                    if self.is_name(end):
                        names.append(end)
                        end += 1
                    continue
                if self.val(end) not in ("=", ";"):
                    end = self.until(end, (",", ";"))
            kind = "constant" if "const" in mods else "property"
            for name_at in names:
                self.emit(self.val(name_at), kind, start, name_at, end - 1, container, exported,
                          self.signature(start, end), doc_at)
            return end + 1 if self.val(end) == ";" else end
        return max(j + 1, i + 1) if stop != "}" else j

    def run(self) -> list[Symbol]:
        i = 0
        while i < self.n:
            i = self.declarations(i, "", None, "", "namespace") + 1
        self.symbols.sort(key=lambda symbol: symbol.line)
        return self.symbols


def extract(path: str, data: bytes) -> list[Symbol]:
    """The declarations of one C# file, in source order. Raises UnicodeDecodeError."""
    return _Scanner(path, data.decode("utf-8").removeprefix("\ufeff")).run()
