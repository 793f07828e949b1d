"""PEP 440 versions and specifier sets, and the version pip would pick from an index.

Contract:
- ``parse`` reads a version the way PEP 440 normalises it (case, ``v`` prefix, separators,
  alternative spellings such as ``alpha``/``c``/``rev``, implicit numbers, local labels);
  ``Version.key()`` orders versions exactly as PEP 440 says (dev < pre < final < post, local
  labels after the public version, trailing zeros of the release ignored).
- ``parse_specifier`` reads a comma-separated specifier set (``==``, ``!=``, ``<=``, ``>=``,
  ``<``, ``>``, ``~=``, ``===``, ``==X.*``/``!=X.*``); ``SpecifierSet.contains`` and
  ``.filter`` follow current pip's vendored ``packaging``: ``==``/``!=`` without a local label
  ignore the candidate's, ``<V`` keeps out V's prereleases unless V is one, ``>V`` keeps out
  V's post-releases and local builds unless V is a post-release, and by default a prerelease
  is admitted only when the set names one or nothing final matches. Invalid input raises
  INVALID_ARGUMENT.
- ``pick`` chooses like ``pip install``/``pip download``: the highest matching version, with
  the prerelease rule above, and yanked releases (PEP 592) only when the set pins one version
  (``==V`` without ``.*``, or ``===``) and every matching release is yanked.
- ``split_requirement`` splits the PEP 508 head ``name[extras] specifiers`` (and codenav's
  ``name@spec``) into the name and the specifier text.

Written from PEP 440 / PEP 592 and checked against pip in the tests. Module-level ``re`` is
fine: this module is imported only when a specifier must be resolved, never on the warm path.
"""

from __future__ import annotations

import re

from ..errors import invalid

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

_VERSION = re.compile(
    r"""\s*v?
    (?:(?P<epoch>[0-9]+)!)?
    (?P<release>[0-9]+(?:\.[0-9]+)*)
    (?:[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?
    (?:-(?P<post_implicit>[0-9]+)|[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n>[0-9]+)?)?
    (?:[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    \s*""",
    re.VERBOSE | re.IGNORECASE,
)
_PRE_NAMES = {"a": "a", "alpha": "a", "b": "b", "beta": "b", "c": "rc", "rc": "rc", "pre": "rc", "preview": "rc"}
_PRE_RANK = {"a": 0, "b": 1, "rc": 2}


class Version:
    """One PEP 440 version; ``str()`` is its normal form."""

    __slots__ = ("epoch", "release", "pre", "post", "dev", "local", "_key")

    def __init__(self, epoch: int, release: tuple[int, ...], pre: tuple[str, int] | None = None,
                 post: int | None = None, dev: int | None = None, local: tuple | None = None) -> None:
        self.epoch, self.release, self.pre, self.post, self.dev, self.local = epoch, release, pre, post, dev, local
        trimmed = release
        while trimmed and trimmed[-1] == 0:
            trimmed = trimmed[:-1]  # 1.0 == 1.0.0 == 1
        if pre is None and post is None and dev is not None:
            pre_key = (-1, 0)  # 1.0.dev1 sorts before 1.0a1
        elif pre is None:
            pre_key = (3, 0)  # a final release sorts after its rc
        else:
            pre_key = (_PRE_RANK[pre[0]], pre[1])
        post_key = (0, 0) if post is None else (1, post)
        dev_key = (1, 0) if dev is None else (0, dev)
        # Local labels: absent sorts first; words sort before numbers, numbers numerically.
        local_key = () if local is None else (tuple((-1, s) if isinstance(s, str) else (s, "") for s in local),)
        self._key = (epoch, trimmed, pre_key, post_key, dev_key, local_key)

    def key(self) -> tuple:
        """The ordering key: equal keys are equal versions."""
        return self._key

    @property
    def is_prerelease(self) -> bool:
        return self.pre is not None or self.dev is not None

    def public(self) -> Version:
        return Version(self.epoch, self.release, self.pre, self.post, self.dev) if self.local is not None else self

    def __str__(self) -> str:
        text = (f"{self.epoch}!" if self.epoch else "") + ".".join(map(str, self.release))
        if self.pre is not None:
            text += f"{self.pre[0]}{self.pre[1]}"
        if self.post is not None:
            text += f".post{self.post}"
        if self.dev is not None:
            text += f".dev{self.dev}"
        if self.local is not None:
            text += "+" + ".".join(map(str, self.local))
        return text

    def __repr__(self) -> str:
        return f"Version({str(self)!r})"


def parse(text: str) -> Version | None:
    """The version ``text`` spells, or None when it is not a PEP 440 version."""
    m = _VERSION.fullmatch(text) if isinstance(text, str) else None
    if not m:
        return None
    pre = None
    if m.group("pre_l"):
        pre = (_PRE_NAMES[m.group("pre_l").lower()], int(m.group("pre_n") or 0))
    post = None
    if m.group("post_implicit"):
        post = int(m.group("post_implicit"))
    elif m.group("post_l"):
        post = int(m.group("post_n") or 0)
    dev = int(m.group("dev_n") or 0) if m.group("dev_l") else None
    local = None
    if m.group("local"):
        local = tuple(int(p) if p.isdigit() else p for p in re.split(r"[-_.]", m.group("local").lower()))
    return Version(int(m.group("epoch") or 0), tuple(int(p) for p in m.group("release").split(".")), pre, post, dev, local)


def sort_key(text: str) -> tuple:
    """A key sorting versions in PEP 440 order, anything unparseable first: the one order of
    PyPI versions (local labels after the public version, ``v1.0`` = ``1.0``), checked against
    pip's vendored packaging in the tests."""
    v = parse(text)
    return (1, v.key()) if v else (0, ())


def release(text: str) -> tuple:
    """What names one release: equal for two spellings of it (``1.0``, ``1.0.0``, ``v1.0``),
    the text itself for a string that is no PEP 440 version."""
    v = parse(text)
    return (1, v.key()) if v else (0, text)


def is_final(text: str) -> bool:
    """A version that is neither a pre- nor a dev release (post-releases are final)."""
    v = parse(text)
    return v is not None and not v.is_prerelease


# -- specifiers ---------------------------------------------------------------------------------

_V = r"v?(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*"
_PRE = r"(?:[-_.]?(?:alpha|beta|preview|pre|a|b|c|rc)[-_.]?[0-9]*)?"
_POST = r"(?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?"
_DEV = r"(?:[-_.]?dev[-_.]?[0-9]*)?"
_LOCAL = r"(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?"
_SPECIFIER = re.compile(
    rf"""\s*(?:
        (?P<arbitrary>===)\s*(?P<arbitrary_v>[^\s;)]*)
      | (?P<eq>==|!=)\s*(?P<eq_v>{_V}(?:\.\*|{_PRE}{_POST}{_DEV}{_LOCAL}))
      | (?P<compat>~=)\s*(?P<compat_v>v?(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)+{_PRE}{_POST}{_DEV})
      | (?P<cmp><=|>=|<|>)\s*(?P<cmp_v>{_V}{_PRE}{_POST}{_DEV})
    )\s*""",
    re.VERBOSE | re.IGNORECASE,
)


class Specifier:
    """One clause of a specifier set, such as ``>=2.30`` or ``==1.4.*``."""

    __slots__ = ("operator", "version_text", "version", "wildcard")

    def __init__(self, text: str) -> None:
        m = _SPECIFIER.fullmatch(text)
        if not m:
            raise invalid(f"{text.strip()!r} is not a valid version specifier", "version")
        for kind in ("arbitrary", "eq", "compat", "cmp"):
            if m.group(kind):
                self.operator, self.version_text = m.group(kind), m.group(kind + "_v")
                break
        self.wildcard = self.operator in ("==", "!=") and self.version_text.endswith(".*")
        base = self.version_text[:-2] if self.wildcard else self.version_text
        self.version = parse(base)  # None only for an === operand that is no PEP 440 version

    def __str__(self) -> str:
        return self.operator + self.version_text

    @property
    def names_prerelease(self) -> bool:
        """Whether the clause asks for prereleases by naming one (``>=2.0b1``; not ``!=``)."""
        if self.operator == "!=" or self.wildcard or self.version is None:
            return False
        return self.version.is_prerelease

    def matches(self, v: Version, raw: str) -> bool:
        """Whether ``v`` (spelled ``raw``) meets this clause, prerelease policy aside."""
        op, s = self.operator, self.version
        if op == "===":
            return raw.strip().lower() == self.version_text.lower()
        key = v.key()
        if self.wildcard:
            # ==1.4.* is [1.4.dev0, 1.5.dev0): any version whose release starts 1.4.
            low = Version(s.epoch, s.release, dev=0).key()
            high = Version(s.epoch, s.release[:-1] + (s.release[-1] + 1,), dev=0).key()
            inside = low <= key < high
            return inside if op == "==" else not inside
        if op in ("==", "!="):
            # A specifier without a local label ignores the candidate's: ==1.0 takes 1.0+cpu.
            equal = key == s.key() if s.local is not None else v.public().key() == s.key()
            return equal if op == "==" else not equal
        if op == ">=":
            return key >= s.key()
        if op == "<=":
            return v.public().key() <= s.key()
        if op == "<":
            # <2.0 keeps out 2.0's own prereleases (2.0rc1, 2.0.dev0) unless 2.0 is one itself.
            bound = s if s.is_prerelease else Version(s.epoch, s.release, s.pre, s.post, 0)
            return key < bound.key()
        if op == ">":
            if s.dev is not None:
                return key >= Version(s.epoch, s.release, s.pre, s.post, s.dev + 1).key()
            if s.post is not None:
                return key >= Version(s.epoch, s.release, s.pre, s.post + 1, 0).key()
            # >1.0 keeps out 1.0's post-releases and local builds (PEP 440, exclusive ordered).
            same_family = (v.epoch, v.key()[1], v.pre) == (s.epoch, s.key()[1], s.pre)
            return key > s.key() and not same_family
        # ~=2.2.1 is >=2.2.1, ==2.2.*
        high = Version(s.epoch, s.release[:-2] + (s.release[-2] + 1,), dev=0).key()
        return s.key() <= key < high


class SpecifierSet:
    """Comma-separated clauses that must all hold; the empty set allows every version."""

    __slots__ = ("specifiers", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.specifiers = [Specifier(part) for part in text.split(",") if part.strip()]

    def __str__(self) -> str:
        return ",".join(sorted(map(str, self.specifiers)))

    @property
    def names_prerelease(self) -> bool:
        return any(s.names_prerelease for s in self.specifiers)

    @property
    def pins(self) -> bool:
        """Whether a clause pins one version (``==V`` without ``.*``, or ``===``), as PEP 592 means."""
        return any(s.operator == "===" or (s.operator == "==" and not s.wildcard) for s in self.specifiers)

    def _member(self, raw: str, v: Version | None) -> bool:
        if v is None:
            # Only === can match a string that is no version; the empty set lets it through.
            return all(s.operator == "===" and s.matches(v, raw) for s in self.specifiers)
        return all(s.matches(v, raw) for s in self.specifiers)

    def contains(self, version: str, prereleases: bool | None = None) -> bool:
        """Whether ``version`` is in the set; a single version is a prerelease's only
        alternative, so with ``prereleases=None`` a matching prerelease is in."""
        v = parse(version)
        if v is not None and prereleases is False and v.is_prerelease:
            return False
        return self._member(version, v)

    def filter(self, versions: Iterable[str], prereleases: bool | None = None) -> list[str]:
        """The matching versions, in their order. With ``prereleases=None`` prereleases stay
        only when the set names one or no final version matches (PEP 440)."""
        if prereleases is None and self.names_prerelease:
            prereleases = True
        arbitrary = any(s.operator == "===" for s in self.specifiers)
        matched = []
        for raw in versions:
            v = parse(raw)
            if v is None and self.specifiers and not arbitrary:
                continue  # ordered clauses never match a string that is no version
            if self._member(raw, v):
                matched.append((raw, v is not None and v.is_prerelease, v is not None))
        if prereleases is True:
            return [raw for raw, _pre, _ok in matched]
        if prereleases is None and not any(ok and not pre for _raw, pre, ok in matched):
            return [raw for raw, _pre, _ok in matched]  # nothing final matches: prereleases do
        return [raw for raw, pre, _ok in matched if not pre]


def parse_specifier(text: str) -> SpecifierSet:
    """The specifier set ``text`` spells; an invalid one raises INVALID_ARGUMENT."""
    if not isinstance(text, str):
        raise invalid("a version specifier must be a string", "version")
    return SpecifierSet(text)


def contains(version: str, spec: str, prereleases: bool | None = None) -> bool:
    """``parse_specifier(spec).contains(version, prereleases)``."""
    return parse_specifier(spec).contains(version, prereleases)


def classify(text: str) -> str:
    """``"exact"`` for a bare version or a one-version pin (``==V``, ``===V``), else ``"range"``."""
    if parse(text) is not None:
        return "exact"
    spec = parse_specifier(text)
    if len(spec.specifiers) == 1 and spec.pins:
        return "exact"
    return "range"


def pick(releases: dict[str, dict], spec: str | None) -> str | None:
    """The version pip would install from ``releases`` (version -> ``{"yanked": bool, ...}``;
    a version is yanked when all its files are) for ``spec``, or None when none fits.

    ``spec`` is a specifier set, a bare version (meaning ``==V``) or None (any version).
    Versions that are not PEP 440 are ignored, as pip ignores such files.
    """
    text = (spec or "").strip()
    if text and parse(text) is not None:
        text = "==" + text
    specifier = parse_specifier(text)
    parsed = {raw: v for raw in releases if (v := parse(raw)) is not None}
    # pip matches === against the version as it prints it, not the file name's spelling.
    normal = {str(v): raw for raw, v in parsed.items()}
    applicable = [normal[n] for n in specifier.filter(list(normal))]
    # PEP 592, as pip applies it: a yanked release counts when pip decides whether any final
    # version matches, but is installed only for a pin that nothing else satisfies.
    yanked = {raw for raw in applicable if (releases[raw] or {}).get("yanked")}
    if not (specifier.pins and len(yanked) == len(applicable)):
        applicable = [raw for raw in applicable if raw not in yanked]
    if not applicable:
        return None
    return max(applicable, key=lambda raw: parsed[raw].key())


# PEP 508: a name, optional extras, then the version part (maybe in parentheses).
_REQUIREMENT = re.compile(
    r"\s*(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[(?P<extras>[^\]]*)\])?\s*(?P<rest>.*?)\s*",
    re.DOTALL,
)


def split_requirement(text: str) -> tuple[str, str]:
    """``"requests>=2.30,<2.32"`` -> ``("requests", ">=2.30,<2.32")``; also ``name (spec)``,
    ``name[extras]spec`` (extras dropped) and codenav's ``name@spec``. The specifier part is
    validated; markers and direct URLs are refused with INVALID_ARGUMENT."""
    m = _REQUIREMENT.fullmatch(text) if isinstance(text, str) else None
    if not m:
        raise invalid(f"{text!r} does not start with a Python project name", "target")
    name, rest = m.group("name"), m.group("rest")
    if rest.startswith("@"):
        rest = rest[1:].strip()
        if "://" in rest or rest.startswith("file:"):
            raise invalid(f"{text!r} names a direct URL, not a version", "target")
    if ";" in rest:
        raise invalid(f"{text!r} has environment markers; give only a version specifier", "target")
    if rest.startswith("(") and rest.endswith(")"):
        rest = rest[1:-1].strip()
    if rest and parse(rest) is None:
        parse_specifier(rest)
    return name, rest
