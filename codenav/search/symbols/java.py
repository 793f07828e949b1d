"""Java definitions (.java) at declaration level, by a tokenizer and a type-body scanner.

The tokenizer knows string literals, text blocks (``\"\"\"…\"\"\"``), character literals and
comments; a ``/** … */`` Javadoc is kept for the declaration after it. Method bodies, field
initializers and initializer blocks are skipped whole (local and anonymous classes are not
declarations of the file's API).

What becomes a symbol: the ``package`` (``namespace``); ``class`` and ``record`` (``class``),
``interface`` and ``@interface`` (``interface``), ``enum`` (its constants are ``constant``s),
nested at any depth (container: the enclosing types, dotted); methods and constructors
(``method``; a constructor has its class's name); annotation elements (``method``); fields
(``property``; a ``static final`` field with an UPPER_CASE name is a ``constant``), one symbol
per declarator.

Exported: ``public`` or ``protected`` inside an exported type (interface and annotation
members are public unless ``private``; enum constants follow their enum); a top-level type is
exported when it is ``public``.
"""

from __future__ import annotations

import re

from .model import Symbol
from .scanner import Lexer, TokenScanner, block_doc_line, upper_name

_TOKEN = re.compile(r'''
    (?P<nl>\n)
  | (?P<ws>[ \t\r\f\v\ufeff]+)
  | (?P<line>//[^\n]*)
  | (?P<block>/\*.*?(?:\*/|\Z))
  | (?P<text>"""(?:[^"\\]|\\.|"(?!""))*(?:"""|\Z))
  | (?P<str>"(?:[^"\\\n]|\\.)*"?)
  | (?P<char>'(?:[^'\\\n]|\\.)*'?)
  | (?P<name>[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*)
  | (?P<num>\.?\d[\w.]*)
  | (?P<punct>->|::|\.\.\.|>>>=|<<=|>>=|&&|\|\||\+\+|--|==|!=|<=|>=|[-+*/%&|^]=|[{}()\[\];,<>=!&|+\-*/%^.:@?~])
''', re.VERBOSE | re.DOTALL)
_MODIFIERS = frozenset(("public", "protected", "private", "static", "final", "abstract", "sealed", "non-sealed",
                        "strictfp", "default", "synchronized", "native", "transient", "volatile"))
_TYPE_KINDS = {"class": "class", "record": "class", "interface": "interface", "enum": "enum"}


class _Lexer(Lexer):
    pattern = _TOKEN
    special = {"block": "javadoc"}


def _doc_line(comment: str) -> str:
    return block_doc_line(comment, lambda line: re.sub(r"</?\w+[^>]*>", "", line).strip())  # Javadoc is HTML


class _Scanner(TokenScanner):
    doc_line = staticmethod(_doc_line)
    lexer = _Lexer

    def modifiers(self, i: int) -> tuple[int, set[str]]:
        found: set[str] = set()
        while True:
            i = self.annotations(i)
            value = self.val(i)
            if value == "non" and self.val(i + 1) == "-" and self.val(i + 2) == "sealed":
                found.add("non-sealed")
                i += 3
            elif value in _MODIFIERS and self.is_name(i):
                found.add(value)
                i += 1
            else:
                return i, found

    def type_declaration(self, i: int, start: int, doc_at: int, container: str, exported: bool) -> int | None:
        """A class/interface/enum/record/@interface at ``i``; the index after it, or None if there is none."""
        keyword = self.val(i)
        if keyword == "@" and self.val(i + 1) == "interface":
            kind, i = "interface", i + 1
        elif keyword in _TYPE_KINDS and self.is_name(i + 1) and not (keyword == "record" and self.val(i + 1) == "("):
            kind = _TYPE_KINDS[keyword]
        else:
            return None
        if not self.is_name(i + 1):
            return None
        name_at = i + 1
        body = self.until(i + 2, ("{", ";"))
        symbol = self.emit(self.val(name_at), kind, start, name_at, None, container, exported,
                           self.signature(start, body), doc_at)
        if self.val(body) != "{":
            return body + 1
        qualified = f"{container}.{symbol.name}" if container else symbol.name
        if keyword == "record" and self.val(name_at + 1) in ("(", "<"):
            self.record_components(name_at + 1, qualified, exported)
        close = self.body(body + 1, qualified, symbol.name, keyword if kind != "interface" else "interface", exported)
        symbol.end_line = self.line(close)
        return close + 1

    def body(self, i: int, container: str, class_name: str, keyword: str, exported: bool) -> int:
        """Members of a type body from ``i``; returns the index of its ``}``."""
        if keyword == "enum":
            i = self.enum_constants(i, container, exported)
        while (i := self.next_member(i)) < self.n and self.val(i) != "}":
            doc_at = i
            i, mods = self.modifiers(i)
            start = self.annotations(doc_at)  # the signature starts after the annotations
            if self.val(i) == "{":  # an initializer block
                i = self.skip_balanced(i)
                continue
            if "private" in mods:
                member_exported = False
            elif keyword == "interface":
                member_exported = exported
            else:
                member_exported = exported and bool(mods & {"public", "protected"})
            nested = self.type_declaration(i, start, doc_at, container, member_exported)
            if nested is not None:
                i = nested
                continue
            if keyword == "interface":
                mods = mods | {"static", "final"}  # interface fields are constants (JLS 9.3)
            i = self.member(i, start, doc_at, container, class_name, mods, member_exported)
        return i

    def record_components(self, i: int, container: str, exported: bool) -> None:
        """``record P<T>(int x, List<T> y)``: each component is a (private final) field."""
        if self.val(i) == "<":
            i = self.skip_angles(i)
        if self.val(i) != "(":
            return
        close = self.skip_balanced(i) - 1
        depth = 0
        component = i + 1
        for k in range(i + 1, close + 1):
            value = self.val(k)
            if value == "<":
                depth += 1
            elif value in (">", ">>", ">>>"):
                depth -= len(value)
            elif depth <= 0 and value in (",", ")") and self.is_name(k - 1) and k - 1 > i:
                self.emit(self.val(k - 1), "property", component, k - 1, k - 1, container, False,
                          self.signature(component, k), component)
                component = k + 1
            elif value == "(":
                depth += 100  # an annotation's arguments
            elif value == ")" and depth >= 100:
                depth -= 100

    def enum_constants(self, i: int, container: str, exported: bool) -> int:
        """``A, B(1), C { … };`` at the start of an enum body; returns the index after them."""
        while i < self.n:
            doc_at = i
            i = self.annotations(i)
            if not self.is_name(i):
                break
            name_at = i
            i += 1
            if self.val(i) == "(":
                i = self.skip_balanced(i)
            if self.val(i) == "{":
                i = self.skip_balanced(i)
            self.emit(self.val(name_at), "constant", name_at, name_at, i - 1, container, exported,
                      self.signature(name_at, i), doc_at)
            if self.val(i) != ",":
                break
            i += 1
        return i + 1 if self.val(i) == ";" else i

    def member(self, i: int, start: int, doc_at: int, container: str, class_name: str, mods: set[str],
               exported: bool) -> int:
        """A method, constructor or field declaration at ``i``; returns the index after it."""
        j = i
        if self.val(j) == "<":  # a generic method's type parameters
            j = self.skip_angles(j)
        names: list[int] = []
        j = self.member_header_end(j, ("(", "=", ";", ",", "{", "}"))
        stop = self.val(j)
        if stop == "{" and j == i + 1 and self.val(i) == class_name:  # a record's compact constructor
            body_end = self.skip_balanced(j)
            self.emit(class_name, "method", start, i, body_end - 1, container, exported, self.signature(start, j),
                      doc_at)
            return body_end
        if stop == "(" and self.is_name(j - 1):
            name_at = j - 1
            close = self.skip_balanced(j)
            end = self.until(close, ("{", ";"))
            body_end = self.skip_balanced(end) if self.val(end) == "{" else end + 1
            self.emit(self.val(name_at), "method", start, name_at, body_end - 1, container, exported,
                      self.signature(start, end), doc_at)
            return body_end
        last = j - 1
        while self.val(last) == "]" and self.val(last - 1) == "[":  # C-style arrays: ``int table[] = …``
            last -= 2
        if stop in ("=", ";", ",") and self.is_name(last):
            names.append(last)
            end = j
            while self.val(end) not in (";", "}", ""):
                if self.val(end) == "=":
                    end = self.until(end + 1, (",", ";"))
                if self.val(end) == ",":
                    end += 1
                    while self.val(end) == "[" or self.val(end) == "]":
                        end += 1
                    if self.is_name(end):
                        names.append(end)
                        end += 1
                        while self.val(end) in ("[", "]"):
                            end += 1
                    continue
                if self.val(end) not in ("=", ";"):
                    end = self.until(end, (",", ";"))
            constant = "static" in mods and "final" in mods
            for name_at in names:
                name = self.val(name_at)
                kind = "constant" if constant and upper_name(name, "_$") else "property"
                self.emit(name, kind, start, name_at, end - 1, container, exported, self.signature(start, end),
                          doc_at)
            return end + 1 if self.val(end) == ";" else end
        end = self.until(j, (";", "{"))
        return self.skip_balanced(end) if self.val(end) == "{" else max(end + 1, i + 1)

    def run(self) -> list[Symbol]:
        i = 0
        while i < self.n:
            if self.val(i) == "}":
                i += 1
                continue
            doc_at = i
            if self.val(i) == "package":
                end = self.until(i + 1, (";",))
                name = "".join(self.val(k) for k in range(i + 1, end))
                self.emit(name, "namespace", i, i + 1, None, "", True, self.signature(i, end), doc_at)
                i = end + 1
                continue
            if self.val(i) == "import":
                i = self.until(i + 1, (";",)) + 1
                continue
            j, mods = self.modifiers(i)
            start = self.annotations(i)
            nested = self.type_declaration(j, start, doc_at, "", "public" in mods)
            if nested is not None:
                i = nested
                continue
            end = self.until(j, (";", "{"))
            i = self.skip_balanced(end) if self.val(end) == "{" else max(end + 1, i + 1)
        self.symbols.sort(key=lambda symbol: symbol.line)
        return self.symbols


def extract(path: str, data: bytes) -> list[Symbol]:
    """The declarations of one Java file, in source order. Raises UnicodeDecodeError."""
    return _Scanner(path, data.decode("utf-8").removeprefix("\ufeff")).run()
