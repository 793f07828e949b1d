"""JavaScript and TypeScript classes, interfaces and enums: their bodies' members.

Part of the JavaScript scanner (javascript.py): ``Classes`` is one of its bases and uses its
``emit``, ``top_level`` and ``members``. A class member is a ``method`` (a ``property`` for a
getter or setter, and for a field unless a function is its value); ``private``/``protected``
and ``#private`` members are recorded as private. Interface members are ``method``s or
``property``s; call, construct and index signatures and computed keys have no name to index.
Enum members are ``constant``s of the enum.
"""

from __future__ import annotations

from .javascript_tokens import NAME, NUMBER, STRING, Reader

_MEMBER_MODIFIERS = frozenset(("static", "public", "private", "protected", "readonly", "abstract", "declare",
                               "override", "accessor", "async", "get", "set"))


class Classes(Reader):
    """The class, interface and enum declarations of the scanner."""

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
        while (i := self.next_member(i, (";", ","))) < self.n and self.val(i) != "}":
            doc_at = i
            i = self.annotations(i)
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
                i = self.skip_call_signature(i)
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
        while (i := self.next_member(i, (";", ","))) < self.n and self.val(i) != "}":
            value = self.val(i)
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
            i = self.skip_call_signature(i)
            symbol = self.emit(name, member_kind, start, i - 1, container, False, self.signature(start, i), doc_at,
                               name_at)
            self.members.append((symbol, False))
        return i


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

