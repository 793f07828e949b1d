"""Rust definitions (.rs) at item level, by a tokenizer and an item scanner.

The tokenizer knows strings (``"…"``, ``b"…"``, raw ``r#"…"#``), character literals versus
lifetimes (``'a'`` against ``'a``), and line and nested block comments; ``///`` and ``/** */``
doc comments are kept for the item that follows them. Function bodies are skipped whole.

What becomes a symbol: ``fn`` (a ``method`` inside ``impl``/``trait``, with the implemented type
or the trait as container; containers are dotted, ``outer.inner``), ``struct``/``union`` (``class``; named fields are ``property``s),
``enum`` (its variants are ``constant``s), ``trait`` (``interface``), ``type`` aliases, ``const``
and ``static`` items (``constant``; a lowercase ``static`` is a ``variable``), ``mod`` (``module``,
the container of its items) and ``macro_rules!`` macros (``function``). ``impl`` blocks are not
symbols themselves; ``use`` and ``extern crate`` define nothing.

Exported: plain ``pub`` is exported; ``pub(crate)``/``pub(super)``/``pub(in …)`` and no
visibility are not. Trait items and enum variants follow their trait or enum; items of a
``impl Trait for Type`` block are ``None`` (their reach is the trait's and the type's).
"""

from __future__ import annotations

import re

from .model import Symbol
from .scanner import (
    LITERAL,
    NAME,
    OPENERS,
    PUNCT,
    TIDY_TRAILING_COMMA,
    TYPE,
    Lexer,
    TokenScanner,
    first_line,
    nested_comment_end,
    upper_name,
)

LIFETIME = "'"

_TOKEN = re.compile(r"""
    (?P<nl>\n)
  | (?P<ws>[ \t\r\f\v\ufeff]+)
  | (?P<line>//[^\n]*)
  | (?P<block>/\*)
  | (?P<raw>b?r\#*")
  | (?P<str>b?"(?:[^"\\]|\\.)*"?)
  | (?P<char>b?'(?:[^'\\\n]|\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F_]*\}|.))')
  | (?P<life>'[A-Za-z_]\w*)
  | (?P<name>(?:r\#)?[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)
  | (?P<num>\d[\w]*(?:\.\d[\w]*)?)
  | (?P<punct>::|->|=>|\.\.=|\.\.\.|\.\.|[{}()\[\];,<>=!\#&|+\-*/%^.:@?~$'])
""", re.VERBOSE | re.DOTALL)


class _Lexer(Lexer):
    pattern = _TOKEN
    kinds = {"name": NAME, "punct": PUNCT, "life": LIFETIME}
    skip = frozenset(("ws",))
    special = {"line": "line_comment", "block": "block_comment", "raw": "raw_string"}

    def line_comment(self, start: int, m: re.Match) -> int:
        value = m.group()
        if value.startswith("///") and not value.startswith("////"):
            if self.doc is None:
                self.doc = []
            self.doc.append(value[3:])
        return m.end()

    def block_comment(self, start: int, m: re.Match) -> int:
        """Block comments nest in Rust; a ``/** … */`` one is a doc, its lines' leading ``*`` dropped."""
        text = self.text
        end = nested_comment_end(text, start)
        if text.startswith("/**", start) and not text.startswith("/**/", start):
            self.doc = [line.strip().lstrip("*") for line in text[start + 3: end - 2].split("\n")]
        return self.passed(start, end)

    def raw_string(self, start: int, m: re.Match) -> int:
        """``r#"…"#``: up to a quote followed by as many ``#`` as opened it."""
        hashes = m.group().count("#")
        close = self.text.find('"' + "#" * hashes, m.end())
        end = len(self.text) if close < 0 else close + 1 + hashes
        self.add(LITERAL, start, end)
        return end


class _Scanner(TokenScanner):
    tidy = TIDY_TRAILING_COMMA
    lexer = _Lexer
    doc_line = staticmethod(first_line)

    def header_end(self, i: int) -> int:
        """The index of the ``{`` or ``;`` ending an item header at ``i`` (brackets skipped)."""
        while i < self.n:
            value = self.val(i)
            if self.toks[i][TYPE] == PUNCT:
                if value in ("{", ";", "}"):
                    return i
                if value in ("(", "["):
                    i = self.skip_balanced(i)
                    continue
            i += 1
        return i

    def skip_item(self, i: int) -> int:
        """The index after the item at ``i``: through its ``;`` or its ``{…}``."""
        end = self.header_end(i)
        if self.val(end) == "{":
            return self.skip_balanced(end)
        return end + 1 if self.val(end) == ";" else end

    def items(self, i: int, container: str, scope: str, scope_exported: bool | None) -> int:
        """Items from ``i`` up to the ``}`` closing the block (``scope``: file, mod, impl, trait, trait-impl)."""
        while (i := self.next_member(i)) < self.n and self.val(i) != "}":
            value = self.val(i)
            doc_at = i
            while self.val(i) == "#":  # attributes: #[…] and #![…]
                j = i + 1 + (self.val(i + 1) == "!")
                if self.val(j) != "[":
                    break
                i = self.skip_balanced(j)
            if doc_at not in self.docs:
                doc_at = i  # a doc comment written after the attributes
            start = i
            visibility = None
            if self.val(i) == "pub":
                visibility = "pub"
                i += 1
                if self.val(i) == "(":
                    visibility = "restricted"
                    i = self.skip_balanced(i)
            while True:  # qualifiers: extern "C" fn, const fn, async fn, unsafe impl, default fn
                value = self.val(i)
                if value == "extern" and i + 1 < self.n and self.toks[i + 1][TYPE] == LITERAL \
                        and self.val(i + 2) != "{":
                    i += 2
                elif value in ("default", "async", "unsafe", "safe") and self.is_name(i + 1):
                    i += 1
                elif value in ("const", "extern") and self.val(i + 1) in ("fn", "unsafe", "async", "extern"):
                    i += 1
                else:
                    break
            if scope in ("trait",):
                exported = scope_exported
            elif scope == "trait-impl":
                exported = None
            else:
                exported = visibility == "pub"
            after = self.item(i, start, doc_at, container, scope, exported)
            i = after if after > i else i + 1
        return i

    def item(self, i: int, start: int, doc_at: int, container: str, scope: str, exported: bool | None) -> int:
        keyword = self.val(i)
        in_type = scope in ("impl", "trait", "trait-impl")
        if keyword == "fn" and self.is_name(i + 1):
            end = self.header_end(i + 2)
            body_end = self.skip_balanced(end) if self.val(end) == "{" else end + 1
            self.emit(self.val(i + 1), "method" if in_type else "function", start, i + 1, body_end - 1, container,
                      exported, self.signature(start, end), doc_at)
            return body_end
        if keyword in ("struct", "union", "enum", "trait") and self.is_name(i + 1):
            end = self.header_end(i + 2)
            kind = {"struct": "class", "union": "class", "enum": "enum", "trait": "interface"}[keyword]
            body_end = self.skip_balanced(end) if self.val(end) == "{" else end + 1
            symbol = self.emit(self.val(i + 1), kind, start, i + 1, body_end - 1, container, exported,
                               self.signature(start, end), doc_at)
            qualified = f"{container}.{symbol.name}" if container else symbol.name
            if self.val(end) == "{":
                if keyword == "trait":  # trait items follow the trait
                    self.items(end + 1, qualified, "trait", exported)
                elif keyword == "enum":
                    self.variants(end + 1, body_end - 1, qualified, exported)
                else:
                    self.fields(end + 1, body_end - 1, qualified)
            return body_end
        if keyword == "extern" and i + 2 < self.n and self.toks[i + 1][TYPE] == LITERAL and self.val(i + 2) == "{":
            close = self.items(i + 3, container, "mod", None)  # foreign functions and statics
            return close + 1
        if keyword == "impl":
            end = self.header_end(i + 1)
            target, trait = self.impl_target(i + 1, end)
            body_end = self.skip_balanced(end) if self.val(end) == "{" else end + 1
            if self.val(end) == "{" and target:
                qualified = f"{container}.{target}" if container else target
                self.items(end + 1, qualified, "trait-impl" if trait else "impl", None)
            return body_end
        if keyword == "mod" and self.is_name(i + 1):
            end = i + 2
            symbol = self.emit(self.val(i + 1), "module", start, i + 1, None, container, exported,
                               self.signature(start, end), doc_at)
            if self.val(end) == "{":
                qualified = f"{container}.{symbol.name}" if container else symbol.name
                close = self.items(end + 1, qualified, "mod", None)
                symbol.end_line = self.line(close)
                return close + 1
            return end + 1
        if keyword == "type" and self.is_name(i + 1):
            end = self.header_end(i + 2)
            self.emit(self.val(i + 1), "type", start, i + 1, end, container, exported, self.signature(start, end),
                      doc_at)
            return end + 1
        if keyword in ("const", "static") and i + 1 < self.n:
            j = i + 1
            if self.val(j) == "mut":
                j += 1
            if self.is_name(j) and self.val(j) != "_":
                end = self.header_end(j + 1)
                name = self.val(j)
                kind = "constant" if keyword == "const" or upper_name(name) else "variable"
                sig_end = end
                for k in range(j + 1, end):  # the signature stops before the value
                    if self.val(k) == "=":
                        sig_end = k
                        break
                self.emit(name, kind, start, j, end, container, exported, self.signature(start, sig_end), doc_at)
            return self.skip_item(i)
        if keyword == "macro_rules" and self.val(i + 1) == "!" and self.is_name(i + 2):
            j = i + 3
            body_end = self.skip_balanced(j) if self.val(j) in OPENERS else j
            self.emit(self.val(i + 2), "function", start, i + 2, body_end - 1, container, exported,
                      self.signature(start, j), doc_at)
            return body_end + (self.val(body_end) == ";")
        return self.skip_item(i)

    def impl_target(self, i: int, end: int) -> tuple[str, bool]:
        """The implemented type's name (last path segment, generics dropped) and whether it is a trait impl."""
        if self.val(i) == "<":  # impl<T, U: Bound> …: skip the generic parameters
            depth = 0
            while i < end:
                value = self.val(i)
                depth += value.count("<") - value.count(">") if value not in ("->", "=>") else 0
                i += 1
                if depth <= 0:
                    break
        trait = False
        for k in range(i, end):
            if self.val(k) == "for" and self.is_name(k):
                trait, i = True, k + 1
                break
            if self.val(k) == "where":
                end = k
                break
        name = ""
        depth = 0
        for k in range(i, end):
            value = self.val(k)
            if value == "where" and depth == 0:
                break
            if value in ("<", "("):
                depth += 1
            elif value in (">", ")"):
                depth -= 1
            elif depth == 0 and self.is_name(k) and value not in ("dyn", "mut", "const", "for", "unsafe", "impl"):
                name = value
        return name, trait

    def fields(self, i: int, close: int, container: str) -> None:
        """Named fields ``[pub] name: Type,`` of a struct or union body."""
        depth = 0
        expect_field = True
        while i < close:
            value = self.val(i)
            if value == "#" and self.val(i + 1) == "[":
                i = self.skip_balanced(i + 1)
                continue
            if value in ("(", "[", "{", "<"):
                if value == "<":
                    depth += 1
                    i += 1
                else:
                    i = self.skip_balanced(i)
                continue
            if value == ">":
                depth -= 1
            elif value == ">>":
                depth -= 2
            elif value == "," and depth <= 0:
                expect_field = True
            elif expect_field and depth <= 0:
                start = i
                exported = False
                if value == "pub":
                    exported = True
                    i += 1
                    if self.val(i) == "(":
                        exported = False
                        i = self.skip_balanced(i)
                if self.is_name(i) and self.val(i + 1) == ":":
                    end = i + 2
                    while end < close and not (self.val(end) == "," and self.angle_depth(i + 2, end) <= 0):
                        end = self.skip_balanced(end) if self.val(end) in OPENERS else end + 1
                    self.emit(self.val(i), "property", start, i, end - 1, container, exported,
                              self.signature(start, end), start)
                    i = end
                    continue
                expect_field = False
            i += 1

    def angle_depth(self, start: int, end: int) -> int:
        depth = 0
        for k in range(start, end):
            value = self.val(k)
            if value not in ("->", "=>"):
                depth += value.count("<") - value.count(">")
        return depth

    def variants(self, i: int, close: int, container: str, exported: bool | None) -> None:
        """Enum variants ``Name``, ``Name(…)``, ``Name { … }``, ``Name = value``."""
        expect = True
        while i < close:
            value = self.val(i)
            if value == "#" and self.val(i + 1) == "[":
                i = self.skip_balanced(i + 1)
                continue
            if value in OPENERS:
                i = self.skip_balanced(i)
                continue
            if value == ",":
                expect = True
            elif expect and self.is_name(i):
                end = i + 1
                while end < close and self.val(end) != ",":
                    end = self.skip_balanced(end) if self.val(end) in OPENERS else end + 1
                doc_at = i
                self.emit(value, "constant", i, i, end - 1, container, exported, self.signature(i, end), doc_at)
                i = end
                expect = False
                continue
            i += 1

    def run(self) -> list[Symbol]:
        i = 0
        while i < self.n:
            i = self.items(i, "", "file", None) + 1
        self.symbols.sort(key=lambda symbol: symbol.line)
        return self.symbols


def extract(path: str, data: bytes) -> list[Symbol]:
    """The items of one Rust file, in source order. Raises UnicodeDecodeError."""
    return _Scanner(path, data.decode("utf-8").removeprefix("\ufeff")).run()
