"""How JavaScript modules export: CommonJS assignments, ``export`` clauses, and object literals.

Part of the JavaScript scanner (javascript.py): ``Exports`` is one of its bases and uses its
``emit``, ``statements`` and the state it keeps (``exported_names``, ``aliases``, ``members``,
``is_module``). ``function_value`` tells what an expression is (a function, a class, a
``require()`` or another value) for declarations and assignments alike.
"""

from __future__ import annotations

from .javascript_tokens import NAME, NUMBER, STRING, Reader


class Exports(Reader):
    """``module.exports``/``exports.x``/``obj.x = …`` assignments, ``export {…}``/``export *``/
    ``export default``, object literals' members, and the IIFE wrapper of old bundles."""

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
            return "function", self.skip_call_signature(k)
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

