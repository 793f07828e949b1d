"""conda's version order (``VersionOrder``) and MatchSpec version specs, as conda/models/version.py
defines them (read at conda 0f64223, 2026-08); tests/test_registry_conda.py holds them against
py-rattler's ``Version`` and ``VersionSpec`` where it is installed.

Order: an optional integer epoch before ``!``, a local part after ``+``; the rest split into
components at ``.`` and ``_`` (``-`` too when the version has no ``_``), each component into runs
of digits, ``*`` and other characters. Numbers compare as numbers, strings (lower-cased) as
strings, a string below a number, ``dev`` below every string and ``post`` above every number;
a component that starts with a letter gets a 0 first (``1.1.a1`` = ``1.1.0a1``) and a missing
one counts as 0 (``1.1`` = ``1.1.0``). A trailing ``_`` stays on the last component (openssl's
``1.0.1_`` < ``1.0.1a``).

Specs: ``,`` (and) binds tighter than ``|`` (or), parentheses group; a term is ``==V``,
``!=V``, ``<V``, ``<=V``, ``>V``, ``>=V``, ``~=V`` (compatible release), ``=V`` (starts
with: ``=1.2`` takes ``1.2.5``), ``V.*`` or ``V*`` (starts with), ``*`` (anything), a glob
with ``*`` inside (``1.*.3``), or a bare version (``==``). ``.*`` after ``=``, ``>=`` and ``!=``
means what the operator means without it (``!=1.2.*``: not starting with 1.2); after ``~=`` it
is refused. Regular-expression specs (``^…$``) are refused.

Imports nothing at module level; fnmatch only for a glob term.
"""

from __future__ import annotations

_VERSION_CHARS = frozenset("*.+!_0123456789abcdefghijklmnopqrstuvwxyz")
_INF = float("inf")


class VersionError(ValueError):
    """Not a conda version or version spec; the message says why."""


def _runs(text: str) -> list[int | float | str]:
    """``12a3`` -> [12, 'a', 3]: runs of digits, of ``*`` and of anything else."""
    runs: list[str] = []
    for char in text:
        kind = "d" if char.isdigit() else "*" if char == "*" else "s"
        if runs and (("d" if runs[-1][-1].isdigit() else "*" if runs[-1][-1] == "*" else "s") == kind):
            runs[-1] += char
        else:
            runs.append(char)
    out: list[int | float | str] = []
    for run in runs:
        out.append(int(run) if run.isdigit() else _INF if run == "post" else "DEV" if run == "dev" else run)
    return out


def _components(parts: list[str], raw: str) -> list[list]:
    out = []
    for part in parts:
        if not part:
            raise VersionError(f"{raw!r} is not a conda version (an empty component)")
        runs = _runs(part)
        out.append(runs if part[0].isdigit() else [0, *runs])
    return out


class Order:
    """One version under VersionOrder: comparable, hashable, equal to its spellings (``1.1`` and
    ``1.1.0``). ``text`` is the normalised spelling (lower case)."""

    __slots__ = ("raw", "text", "version", "local")

    def __init__(self, raw: str) -> None:
        self.raw = raw.strip()
        version = self.raw.lower()
        if not version:
            raise VersionError("an empty version")
        if not set(version) <= _VERSION_CHARS and "-" in version and "_" not in version:
            version = version.replace("-", "_")  # conda accepts dashes when there is no underscore
        if not set(version) <= _VERSION_CHARS:
            raise VersionError(f"{raw!r} is not a conda version (invalid characters)")
        self.text = version
        epoch, bang, rest = version.rpartition("!") if "!" in version else ("0", "", version)
        if bang and ("!" in epoch or not epoch.isdigit()):
            raise VersionError(f"{raw!r} is not a conda version (the epoch must be one integer)")
        main, plus, local = rest.partition("+")
        if "+" in local:
            raise VersionError(f"{raw!r} is not a conda version (two '+')")
        if not main:
            raise VersionError(f"{raw!r} is not a conda version (nothing before '+')")
        if main.endswith("_"):
            parts = main[:-1].replace("_", ".").split(".")
            parts[-1] += "_"
        else:
            parts = main.replace("_", ".").split(".")
        self.version = _components([epoch, *parts], raw)
        self.local = _components(local.replace("_", ".").split("."), raw) if plus else []

    def __repr__(self) -> str:
        return f"Order({self.text!r})"

    @staticmethod
    def _pairs(a: list[list], b: list[list]):
        for i in range(max(len(a), len(b))):
            x = a[i] if i < len(a) else []
            y = b[i] if i < len(b) else []
            for j in range(max(len(x), len(y))):
                yield (x[j] if j < len(x) else 0), (y[j] if j < len(y) else 0)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Order):
            return NotImplemented
        return all(x == y for x, y in self._pairs(self.version, other.version)) and all(
            x == y for x, y in self._pairs(self.local, other.local))

    def __lt__(self, other: Order) -> bool:
        if not isinstance(other, Order):
            return NotImplemented  # _Unparsable answers: a version is never below it
        for mine, theirs in ((self.version, other.version), (self.local, other.local)):
            for x, y in self._pairs(mine, theirs):
                if x == y:
                    continue
                if isinstance(x, str) != isinstance(y, str):
                    return isinstance(x, str)  # a string is below a number
                return x < y
        return False

    def __gt__(self, other: Order) -> bool:
        return other < self

    def __le__(self, other: Order) -> bool:
        return not other < self

    def __ge__(self, other: Order) -> bool:
        return not self < other

    def __hash__(self) -> int:
        def canonical(parts: list[list]) -> tuple:
            out = [tuple(_strip(p)) for p in parts]
            while out and not out[-1]:
                out.pop()
            return tuple(out)

        return hash((canonical(self.version), canonical(self.local)))

    def startswith(self, other: Order) -> bool:
        """conda's ``VersionOrder.startswith``: ``1.2.5`` starts with ``1.2``; ``1.2rc1`` with ``1.2r``."""
        if other.local:
            if not all(x == y for x, y in self._pairs(self.version, other.version)):
                return False
            mine, theirs = self.local, other.local
        else:
            mine, theirs = self.version, other.version
        last = len(theirs) - 1
        if not all(x == y for x, y in self._pairs(mine[:last], theirs[:last])):
            return False
        left = mine[last] if len(mine) > last else []
        right = theirs[last]
        sub = len(right) - 1
        if not all(x == y for x, y in self._pairs([left[:sub]], [right[:sub]])):
            return False
        mine_last = left[sub] if len(left) > sub else 0
        if isinstance(right[sub], str):
            return isinstance(mine_last, str) and mine_last.startswith(right[sub])
        return mine_last == right[sub]


def _strip(parts: list) -> list:
    out = list(parts)
    while out and out[-1] == 0:
        out.pop()
    return out


class _Unparsable:
    """The key of a string that is not a conda version: below every version, equal to none."""

    def __lt__(self, other: object) -> bool:
        return not isinstance(other, _Unparsable)

    def __gt__(self, other: object) -> bool:
        return False


def sort_key(version: str) -> Order | _Unparsable:
    """VersionOrder's key; a string that is not a version sorts below every version."""
    try:
        return Order(version)
    except VersionError:
        return _Unparsable()


# --- specs ----------------------------------------------------------------------------------------

_OPERATORS = ("==", "!=", "<=", ">=", "~=", "=", "<", ">")


def _term(text: str):
    """One term of a spec as a predicate on an Order."""
    if not text:
        raise VersionError("an empty term")
    if text[0] == "^" or text[-1] == "$":
        raise VersionError(f"{text!r}: regular-expression version specs are not supported")
    if text[0] in "=<>!~":
        op = next((o for o in _OPERATORS if text.startswith(o)), "")
        rest = text[len(op):]
        if not op or not rest or rest[0] in "=<>!~" or any(c.isspace() for c in rest):
            raise VersionError(f"{text!r} has an invalid operator")
        if rest.endswith(".*"):
            if op == "~=":
                raise VersionError(f"{text!r}: '.*' cannot follow '~='")
            rest = rest[:-2]
            op = "!=startswith" if op == "!=" else op
        bound = Order(rest)
        if op == "~=" and "." not in bound.text:
            raise VersionError(f"{text!r}: '~=' needs a version of two components or more")
        return {
            "==": lambda v: v == bound, "!=": lambda v: v != bound, "<=": lambda v: v <= bound,
            ">=": lambda v: v >= bound, "<": lambda v: v < bound, ">": lambda v: v > bound,
            "=": lambda v: v.startswith(bound), "!=startswith": lambda v: not v.startswith(bound),
            "~=": lambda v: v >= bound and v.startswith(Order(bound.text.rsplit(".", 1)[0])),
        }[op]
    if text == "*":
        return lambda v: True
    if "*" in text.rstrip("*"):
        from fnmatch import fnmatchcase

        return lambda v: fnmatchcase(v.raw, text)  # conda matches the version as spelled
    if text.endswith("*"):
        prefix = Order(text.rstrip("*").rstrip("."))
        return lambda v: v.startswith(prefix)
    exact = Order(text)
    return lambda v: v == exact


def parse_spec(spec: str):
    """A MatchSpec version spec as a predicate ``match(version: str) -> bool``; VersionError when
    it is not one. A version that is not a conda version matches nothing."""
    tokens: list[str] = []
    word = ""
    for char in spec:
        if char in "(),|":
            if word.strip():
                tokens.append(word.strip())
            tokens.append(char)
            word = ""
        else:
            word += char
    if word.strip():
        tokens.append(word.strip())
    if not tokens:
        raise VersionError("an empty version spec")
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        position += 1
        return tokens[position - 1]

    def joined(separator, operand, combine):
        """``operand (separator operand)*``: one test, or ``combine`` (any, all) of several."""
        parts = [operand()]
        while peek() == separator:
            take()
            parts.append(operand())
        return parts[0] if len(parts) == 1 else (lambda v: combine(p(v) for p in parts))

    def alternatives():
        return joined("|", conjunction, any)

    def conjunction():
        return joined(",", atom, all)

    def atom():
        token = peek()
        if token is None or token in "),|":
            raise VersionError(f"{spec!r} is not a version spec (a missing term)")
        take()
        if token == "(":
            inner = alternatives()
            if peek() != ")":
                raise VersionError(f"{spec!r} is not a version spec (an unclosed '(')")
            take()
            return inner
        return _term(token)

    predicate = alternatives()
    if position != len(tokens):
        raise VersionError(f"{spec!r} is not a version spec (unbalanced parentheses)")

    def match(version: str) -> bool:
        try:
            order = Order(version)
        except VersionError:
            return False
        return bool(predicate(order))

    return match
