"""What the declaration-level extractors share: a token loop, walking a token list, one-line text.

A tokenizer (one per language: each knows its own strings) yields tuples
``(type, value, start, end, line)`` — ``type`` one of ``NAME``, ``PUNCT``, ``LITERAL``; ``start``
and ``end`` are offsets into the text, ``line`` is 1-based — and a dict from token index to the
doc comment just before that token. ``TokenScanner`` walks such a list: bracket skipping that
survives unbalanced input (a stray closer ends the innermost matching opener; a missing one
runs to the end), the first stop at bracket depth 0, and the one-line signature of a token span.
None of it raises on bad input: an index past the end reads as the empty string. ``emit``
records a ``Symbol``; ``block_doc_line`` and ``upper_name`` are the doc-comment and constant-name
rules Java, Kotlin, PHP and Rust have in common; ``hash_delimited_end`` is the end of a Ruby or
Elixir string, sigil or %-literal with its ``#{…}`` interpolations.

The token loop is here too: ``Lexer``, driven by each language's token pattern and the
methods it names for comments and strings (Go, Rust, Java, Kotlin, C#, PHP, Elixir), with the
``/** */`` doc comments of Java and Kotlin and ``nested_comment_end`` (Rust and Kotlin nest
``/* */``).
"""

from __future__ import annotations

from .model import SIGNATURE_CHARS, Symbol

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    import re
    from collections.abc import Callable

TYPE, VALUE, START, END, LINE = range(5)
NAME, PUNCT, LITERAL = "n", "p", "l"
OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = (")", "]", "}")
_ANGLE_CLOSERS = (">", ">>", ">>>")  # ``List<List<T>>``: a shift token closes two
TIDY = (("( ", "("), (" )", ")"))  # no space inside parentheses
# Go, PHP, Rust, Kotlin and JavaScript write a trailing comma before ``)``; a signature reads better without it
TIDY_TRAILING_COMMA = (*TIDY, (",)", ")"))


def nested_comment_end(text: str, i: int) -> int:
    """The end of the block comment opening at ``i``, ``/* /* */ */`` nesting; the text's end if it never closes."""
    import re

    depth = 0
    search = re.compile(r"/\*|\*/").search
    while True:
        m = search(text, i)
        if m is None:
            return len(text)
        depth += 1 if m.group() == "/*" else -1
        i = m.end()
        if depth == 0:
            return i


class Lexer:
    """The token loop of the declaration-level languages: ``Lexer(text).tokens`` and ``.docs``.

    A language declares its ``pattern`` (named groups: ``nl`` is a line break, the groups in
    ``skip`` are passed over, any other group is a token whose type ``kinds`` gives, ``LITERAL``
    when it is not there) and names in ``special`` the method that takes a group the pattern only
    opens or that is not a plain token: comments (which keep ``doc`` for the next token), strings
    with their own ending rules, tokens whose value is not their text. Such a method gets the
    start and the match, may ``add`` tokens, count ``line`` and set ``newline``, and returns where
    the scan goes on. A character the pattern does not match is passed over.

    ``doc`` (a comment's text, or a list of lines joined on use) goes to the next token through
    ``attach``; ``newline`` is whether a line break (in comments too) came since the last token,
    and is the sixth field of each token when ``newline_field`` is set.
    """

    pattern: re.Pattern
    kinds: dict[str, str] = {"name": NAME, "punct": PUNCT}
    skip: frozenset[str] = frozenset(("ws", "line"))
    special: dict[str, str] = {}
    newline_field = False

    def __init__(self, text: str, start: int = 0) -> None:
        self.text = text
        self.tokens: list[tuple] = []
        self.docs: dict[int, str] = {}
        self.doc: str | list[str] | None = None
        self.line = 1 + text.count("\n", 0, start)
        self.newline = True
        self.scan(start)

    def scan(self, i: int) -> None:
        text = self.text
        n = len(text)
        match = self.pattern.match
        tokens, kinds, skip, special, six = self.tokens, self.kinds, self.skip, self.special, self.newline_field
        line, newline = self.line, self.newline
        while i < n:
            m = match(text, i)
            if m is None:
                i += 1
                continue
            group, end = m.lastgroup, m.end()
            if group == "nl":
                line += 1
                newline = True
            elif group in skip:
                pass
            elif group in special:
                self.line, self.newline = line, newline
                end = getattr(self, special[group])(i, m)
                line, newline = self.line, self.newline
            else:
                if self.doc is not None:
                    self.attach(len(tokens), line)
                value = text[i:end]
                kind = kinds.get(group, LITERAL)
                tokens.append((kind, value, i, end, line, newline) if six else (kind, value, i, end, line))
                line += value.count("\n")
                newline = False
            i = end
        self.line, self.newline = line, newline

    def attach(self, index: int, line: int) -> None:
        """Give the waiting ``doc`` to token ``index`` (on ``line``)."""
        doc = self.doc
        self.docs[index] = doc if isinstance(doc, str) else "\n".join(doc)
        self.doc = None

    def add(self, kind: str, start: int, end: int, value: str | None = None) -> None:
        """Append the token ``text[start:end]`` (its value ``value`` when given), as the loop does."""
        if self.doc is not None:
            self.attach(len(self.tokens), self.line)
        if value is None:
            value = self.text[start:end]
        line = self.line
        self.tokens.append((kind, value, start, end, line, self.newline) if self.newline_field
                           else (kind, value, start, end, line))
        self.line = line + self.text.count("\n", start, end)
        self.newline = False

    def passed(self, start: int, end: int) -> int:
        """Pass over ``text[start:end]`` (a comment), counting its lines; returns ``end``."""
        breaks = self.text.count("\n", start, end)
        if breaks:
            self.line += breaks
            self.newline = True
        return end

    def comment(self, start: int, m: re.Match) -> int:
        """A comment matched whole, passed over (its lines counted)."""
        return self.passed(start, m.end())

    def javadoc(self, start: int, m: re.Match) -> int:
        """A ``/* … */`` comment matched whole: a ``/** … */`` one is the doc of the next token."""
        return self.block_comment(start, m.end())

    def nested_javadoc(self, start: int, m: re.Match) -> int:
        """``javadoc`` for a comment the pattern only opens, whose ``/* */`` nest (Kotlin, Rust)."""
        return self.block_comment(start, nested_comment_end(self.text, start))

    def block_comment(self, start: int, end: int) -> int:
        if self.text.startswith("/**", start) and end - start > 4:
            self.doc = self.text[start:end]
        return self.passed(start, end)


def hash_delimited_end(text: str, j: int, opener: str, closer: str, interpolate: bool = True,
                       quotes: str = "\"'", plain: str = "") -> int:
    """The end of a Ruby/Elixir literal whose body starts at ``j``, closed by ``closer``.

    A backslash escapes the next character; paired delimiters (``(…)``, ``{…}``) nest; with
    ``interpolate``, a ``#{…}`` is code, skipped with its braces and the strings in it — those
    opened by one of ``quotes``, which interpolate in turn unless the quote is in ``plain``.
    An unclosed literal runs to the end.
    """
    n = len(text)
    depth = 0
    while j < n:
        ch = text[j]
        if ch == "\\":
            j += 2
            continue
        if interpolate and text.startswith("#{", j):
            j = _interpolation_end(text, j + 2, quotes, plain)
            continue
        if ch == closer and depth == 0:
            return j + 1
        if opener != closer:
            if ch == opener:
                depth += 1
            elif ch == closer:
                depth -= 1
        j += 1
    return n


def _interpolation_end(text: str, j: int, quotes: str, plain: str) -> int:
    """The index after the ``}`` closing a ``#{`` whose code starts at ``j``."""

    def literal_end(text: str, j: int) -> int | None:
        ch = text[j]
        return hash_delimited_end(text, j + 1, ch, ch, ch not in plain, quotes, plain) if ch in quotes else None

    return code_end(text, j, literal_end)


def code_end(text: str, j: int, literal_end: Callable[[str, int], int | None]) -> int:
    """The index after the ``}`` closing code that starts at ``j`` (an interpolation), its braces
    nested; ``literal_end(text, j)`` is the end of a string or character literal opening at ``j``,
    or None. Unclosed code runs to the end."""
    n = len(text)
    depth = 0
    while j < n:
        end = literal_end(text, j)
        if end is not None:
            j = end
            continue
        ch = text[j]
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                return j + 1
            depth -= 1
        j += 1
    return n


def cut(text: str) -> str:
    """``text`` if it fits ``SIGNATURE_CHARS``, else its start and an ellipsis."""
    return text if len(text) <= SIGNATURE_CHARS else text[: SIGNATURE_CHARS - 1] + "…"


def first_line(text: str) -> str:
    """The first line of ``text`` that is not blank, stripped and cut."""
    for line in text.split("\n"):
        line = line.strip()
        if line:
            return cut(line)
    return ""


def block_doc_line(comment: str, clean: Callable[[str], str] | None = None) -> str:
    """The first line of text of a ``/** … */`` comment (leading ``*`` dropped), "" when a ``@tag`` comes first.

    ``clean`` rewrites each line before it is judged (Javadoc drops its HTML tags).
    """
    for line in comment[3:-2].split("\n"):
        line = line.strip().lstrip("*").strip()
        if line.startswith("@"):
            return ""
        if clean is not None:
            line = clean(line)
        if line:
            return cut(line)
    return ""


def upper_name(name: str, edges: str = "_") -> bool:
    """``MAX_SIZE``-style: letters all upper case once ``edges`` characters are stripped from both ends."""
    stripped = name.strip(edges)
    return bool(stripped) and stripped.upper() == stripped and any(ch.isalpha() for ch in stripped)


class TokenScanner:
    """A token list over ``text`` and the helpers every declaration scanner uses."""

    tidy = TIDY  # what a signature's folded text has replaced (in order)
    trailing = ""  # characters stripped from a signature's end (Elixir: the comma before ``do:``)
    openers = OPENERS  # PHP adds ``#[`` (an attribute), closed by ``]``
    angle_stops = (";", "{", "}", "=")  # tokens that end type parameters left open (Kotlin adds ``)``, ``]``)
    lexer: type[Lexer]  # the language's token loop, when the tokens are not given

    def __init__(self, path: str, text: str, toks: list[tuple] | None = None,
                 docs: dict[int, str] | None = None) -> None:
        if toks is None:
            lexer = self.lexer(text)
            toks, docs = lexer.tokens, lexer.docs
        self.path = path
        self.text = text
        self.toks = toks
        self.docs = docs if docs is not None else {}
        self.n = len(toks)
        self.symbols: list[Symbol] = []

    def doc_line(self, doc: str) -> str:
        """The doc line shown for the doc comment ``doc`` (each language says how it reads its comments)."""
        return cut(doc.strip().split("\n", 1)[0])

    def val(self, i: int) -> str:
        return self.toks[i][VALUE] if 0 <= i < self.n else ""

    def typ(self, i: int) -> str:
        return self.toks[i][TYPE] if 0 <= i < self.n else ""

    def is_name(self, i: int) -> bool:
        return 0 <= i < self.n and self.toks[i][TYPE] == NAME

    def line(self, i: int) -> int:
        return self.toks[max(0, min(i, self.n - 1))][LINE] if self.n else 1

    def skip_balanced(self, i: int) -> int:
        """The index after the closer of the opener at ``i`` (the end when it has none)."""
        openers = self.openers
        stack = [openers[self.val(i)]]
        i += 1
        toks = self.toks
        while i < self.n:
            tok = toks[i]
            if tok[TYPE] == PUNCT:
                value = tok[VALUE]
                if value in openers:
                    stack.append(openers[value])
                elif value in _CLOSERS:
                    while stack and stack[-1] != value:
                        stack.pop()
                    if stack:
                        stack.pop()
                    if not stack:
                        return i + 1
            i += 1
        return i

    def skip_angles(self, i: int) -> int:
        """The index after the ``>`` closing the type parameters ``<`` at ``i``, or of the first of
        ``angle_stops`` (where a type cannot go on); ``(…)`` and ``[…]`` inside are skipped whole."""
        return self._angle_walk(i, self.angle_stops, ("(", "["), True)

    def member_header_end(self, i: int, stops: tuple[str, ...]) -> int:
        """The index of the first of ``stops`` at depth 0 from ``i`` (a member's header: generic
        ``<…>`` counted, ``[…]`` skipped whole)."""
        return self._angle_walk(i, stops, ("[",), False)

    def _angle_walk(self, i: int, stops: tuple[str, ...], skipped: tuple[str, ...], closing: bool) -> int:
        """Walk from ``i`` counting ``<…>`` depth: with ``closing``, to after the ``>`` that closes it or to
        any of ``stops``; without, to the first of ``stops`` at depth 0. ``skipped`` brackets are skipped whole."""
        depth = 0
        while i < self.n:
            value = self.val(i)
            if value == "<":
                depth += 1
            elif value in _ANGLE_CLOSERS:
                depth -= len(value)
                if closing and depth <= 0:
                    return i + 1
            elif value in stops and (closing or depth <= 0):
                return i
            elif value in skipped:
                i = self.skip_balanced(i)
                continue
            i += 1
        return i

    def next_member(self, i: int, separators: tuple[str, ...] = (";",)) -> int:
        """The index of the next declaration of a body from ``i``, ``separators`` passed over: a ``}``
        there (or the end) closes the body."""
        while self.val(i) in separators:
            i += 1
        return i

    def name_list(self, i: int) -> list[int]:
        """The indexes of the names of ``a, b, c`` at ``i`` (none when ``i`` is not a name)."""
        names = []
        while self.is_name(i):
            names.append(i)
            if self.val(i + 1) != ",":
                break
            i += 2
        return names

    def annotations(self, i: int) -> int:
        """The index after the annotations (decorators) ``@a.b(…)`` at ``i`` (``@interface`` is a keyword)."""
        while self.val(i) == "@" and self.is_name(i + 1) and self.val(i + 1) != "interface":
            i += 2
            while self.val(i) == "." and self.is_name(i + 1):
                i += 2
            if self.val(i) == "(":
                i = self.skip_balanced(i)
        return i

    def until(self, i: int, stops: tuple[str, ...]) -> int:
        """The first of ``stops`` at bracket depth 0 from ``i`` (an unmatched ``}`` always stops)."""
        while i < self.n:
            if self.toks[i][TYPE] == PUNCT:
                value = self.toks[i][VALUE]
                if value in stops or value == "}":
                    return i
                if value in self.openers:
                    i = self.skip_balanced(i)
                    continue
            i += 1
        return i

    def signature(self, start: int, end: int) -> str:
        """The source of tokens ``start`` to ``end`` (exclusive) on one line, white space folded, cut."""
        end = max(min(end, self.n), start + 1)
        if start >= self.n:
            return ""
        raw = self.text[self.toks[start][START]: self.toks[end - 1][END]][: SIGNATURE_CHARS * 8]
        text = " ".join(raw.split()).rstrip(self.trailing)
        for old, new in self.tidy:
            text = text.replace(old, new)
        return cut(text)

    def emit(self, name: str, kind: str, start: int, name_at: int, end_tok: int | None, container: str,
             exported: bool | None, signature: str, doc_at: int) -> Symbol:
        """Record a symbol named at token ``name_at``; its doc is the comment before ``doc_at`` (or ``start``)."""
        doc = self.docs.get(doc_at) or self.docs.get(start)
        symbol = Symbol(name, kind, self.path, self.line(name_at), self.line(end_tok) if end_tok is not None else None,
                        container, signature, self.doc_line(doc) if doc else "", exported)
        self.symbols.append(symbol)
        return symbol
