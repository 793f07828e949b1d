"""mix.lock (an Elixir map literal; docs/lockfiles.md "hex").

``%{"name": {:hex, :package, "version", "inner hash", [:mix], [deps], "repo", "outer hash"}, …}``:
the key is the dependency's name in mix.exs, the second element the Hex package (they differ
when mix.exs says ``hex: :other``: reported like an alias); ``{:git, url, commit, opts}`` and
other tuples are no registry versions. The file is read with a small parser for Elixir's
literal terms (maps, tuples, lists, strings, atoms, keyword lists, numbers), nested at most
``MAX_DEPTH`` deep. The direct dependencies are the atoms that open a tuple in mix.exs's
``deps`` (``{:jason, "~> 1.4"}``), the start directory's own mix.exs (an umbrella app) first.
"""

from __future__ import annotations

import os

from ._common import CWD_DIRECT, REGISTRY, ROOT_DIRECT, TRANSITIVE, Candidate, LockfileError

MAX_DEPTH = 64


class Atom(str):
    """An Elixir atom (``:hex``), told apart from a string."""


class _Parser:
    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0

    def fail(self, what: str):
        line = self.text.count("\n", 0, self.i) + 1
        raise LockfileError(f"not a mix.lock (line {line}: {what})")

    def skip(self) -> None:
        t, n = self.text, len(self.text)
        while self.i < n:
            c = t[self.i]
            if c in " \t\r\n,":
                self.i += 1
            elif c == "#":
                j = t.find("\n", self.i)
                self.i = n if j < 0 else j
            else:
                return

    def value(self, depth: int):
        if depth > MAX_DEPTH:
            self.fail("nested too deeply")
        self.skip()
        t = self.text
        if self.i >= len(t):
            self.fail("unexpected end")
        c = t[self.i]
        if t.startswith("%{", self.i):
            self.i += 2
            return dict(self.items("}", depth))
        if c == "{":
            self.i += 1
            return tuple(v for _, v in self.items("}", depth, keys=False))
        if c == "[":
            self.i += 1
            return [v if k is None else (Atom(k), v) for k, v in self.items("]", depth, keys=None)]
        if c == '"':
            return self.string()
        if c == ":":
            self.i += 1
            if t.startswith('"', self.i):
                return Atom(self.string())
            return Atom(self.word())
        word = self.word()
        if not word:
            self.fail(f"unexpected {c!r}")
        return word

    def word(self) -> str:
        t, j = self.text, self.i
        while j < len(t) and (t[j].isalnum() or t[j] in "_.?!@+-"):
            j += 1
        word, self.i = t[self.i:j], j
        return word

    def string(self) -> str:
        t, j, out = self.text, self.i + 1, []
        while j < len(t) and t[j] != '"':
            if t[j] == "\\" and j + 1 < len(t):
                out.append(t[j + 1])
                j += 2
                continue
            out.append(t[j])
            j += 1
        if j >= len(t):
            self.fail("an unterminated string")
        self.i = j + 1
        return "".join(out)

    def items(self, close: str, depth: int, keys: bool | None = True):
        """Pairs until ``close``: map entries (``"k": v`` or ``k => v``), else values (key None),
        and in a list ``key: value`` keyword pairs too."""
        t = self.text
        while True:
            self.skip()
            if self.i >= len(t):
                self.fail(f"missing {close!r}")
            if t[self.i] == close:
                self.i += 1
                return
            key = None
            if keys is not False:
                key = self.keyword()
            if keys is True and key is None:
                k = self.value(depth + 1)
                self.skip()
                if not t.startswith("=>", self.i):
                    self.fail("expected '=>' in a map")
                self.i += 2
                key = k
            yield key, self.value(depth + 1)

    def keyword(self) -> str | None:
        """``name:`` or ``"name":`` followed by a space, consumed; else None and nothing consumed."""
        t, start = self.text, self.i
        if t.startswith('"', start):
            key = self.string()
        else:
            key = self.word()
        if key and t.startswith(":", self.i) and (self.i + 1 >= len(t) or t[self.i + 1] in " \t\r\n"):
            self.i += 1
            return key
        self.i = start
        return None


def parse(text: str) -> dict:
    parser = _Parser(text)
    doc = parser.value(0)
    parser.skip()
    if parser.i != len(text) or not isinstance(doc, dict):
        parser.fail("expected one map")
    return doc


def _deps_of(ctx, mix_exs: str) -> set[str]:
    """The atoms opening a tuple after ``deps`` in a mix.exs (``{:jason, "~> 1.4"}``)."""
    text = ctx.read(mix_exs) or ""
    at = max(text.find("defp deps"), text.find("def deps"))
    names: set[str] = set()
    if at < 0:
        return names
    body = text[at:]
    i = body.find("{:")
    while i >= 0:
        j = i + 2
        while j < len(body) and (body[j].isalnum() or body[j] == "_"):
            j += 1
        if j > i + 2:
            names.add(body[i + 2:j].lower())
        i = body.find("{:", j)
    return names


def entries(text: str, ctx) -> list[Candidate]:
    doc = parse(text)
    root = _deps_of(ctx, os.path.join(ctx.lock_dir, "mix.exs"))
    member = ctx.member_dir("mix.exs")
    mine = _deps_of(ctx, os.path.join(member, "mix.exs")) if member else set()
    out = []
    bad = 0
    for key, value in doc.items():
        if not isinstance(key, str) or not isinstance(value, tuple) or not value:
            bad += 1
            continue
        kind = value[0]
        if kind == "hex" and not (len(value) >= 3 and isinstance(value[1], str) and isinstance(value[2], str)):
            bad += 1
            continue
        tier = CWD_DIRECT if key.lower() in mine else ROOT_DIRECT if key.lower() in root else TRANSITIVE
        if kind == "hex" and len(value) >= 3 and isinstance(value[1], str) and isinstance(value[2], str):
            package = str(value[1])
            alias = key if package.lower() != key.lower() else None
            out.append(Candidate(package, value[2], key, tier, REGISTRY, None, alias))
        elif kind == "git":
            commit = value[2] if len(value) > 2 and isinstance(value[2], str) else None
            out.append(Candidate(key, None, key, tier, "git", commit or (str(value[1]) if len(value) > 1 else None)))
        else:
            out.append(Candidate(key, None, key, tier, "url", str(kind)))
    ctx.skipped(bad, "not a dependency tuple")
    return out
