"""npm versions and ranges with node-semver's semantics, and npm's own version picker.

Contract:
- ``parse``/``valid``/``clean``/``compare``/``sort_key``/``is_prerelease`` read versions as node-semver 7 does:
  strict by default (an optional ``v``), ``loose=True`` also takes ``=`` and ``v`` runs, leading
  zeros and a prerelease without its hyphen (``1.2.3beta``). A version longer than 256
  characters, or with a part above 2**53 - 1, is invalid.
- ``parse_range``/``satisfies``/``max_satisfying`` follow node-semver's range language: ``^``,
  ``~``/``~>``, x-ranges (``1.x``, ``1.2.*``, ``*``, the empty range), hyphen ranges, ``||``,
  the comparators ``< <= > >= =`` (whitespace allowed after the operator), build metadata
  ignored, and the prerelease rule: a prerelease satisfies only an alternative holding a
  comparator with a prerelease on the same major.minor.patch, unless ``include_prerelease``.
  An invalid range makes ``parse_range`` raise INVALID_ARGUMENT; ``satisfies`` is then False
  and ``max_satisfying`` None, as in node-semver.
- ``classify`` sorts a wanted string as npm-package-arg does for a registry spec (exact
  version, range, dist-tag); ``pick`` chooses a version from a packument's ``versions`` and
  ``dist-tags`` as npm-pick-manifest does for ``npm install``/``npm pack`` (engines, ``before``
  dates, staged and policy-restricted versions are not modelled).

Written from node-semver's documented behaviour and checked against the bundled copy in the
tests. Module-level ``re`` is fine: this module is imported only when a range or a dist-tag
must be resolved, never on the warm path.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..errors import CodenavError, invalid

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

_MAX_LENGTH = 256
_MAX_SAFE_INTEGER = 2**53 - 1

# -- grammar pieces (strict / loose) ----------------------------------------------------------
_NUM = {False: r"(?:0|[1-9][0-9]*)", True: r"[0-9]+"}
_ALNUM_ID = r"[0-9]*[A-Za-z-][0-9A-Za-z-]*"  # an identifier holding a letter or hyphen
_PRE_ID = {False: rf"(?:{_ALNUM_ID}|0|[1-9][0-9]*)", True: rf"(?:{_ALNUM_ID}|[0-9]+)"}
_PRE = {  # the loose grammar lets the hyphen go: 1.2.3beta
    loose: rf"-{'?' if loose else ''}(?P<pre>{_PRE_ID[loose]}(?:\.{_PRE_ID[loose]})*)" for loose in (False, True)
}
_BUILD = r"\+(?P<build>[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)"
_BUILD_ANYWHERE = re.compile(r"\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*")
_PREFIX = {False: r"v?", True: r"[v=\s]*"}

_VERSION = {
    loose: re.compile(
        rf"{_PREFIX[loose]}(?P<major>{_NUM[loose]})\.(?P<minor>{_NUM[loose]})\.(?P<patch>{_NUM[loose]})"
        rf"(?:{_PRE[loose]})?(?:{_BUILD})?"
    )
    for loose in (False, True)
}


def _partial(loose: bool, tag: str = "") -> str:
    """A partial version (``1``, ``1.x``, ``1.2.*``, ``1.2.3-pre``) with named parts."""
    xr = rf"(?:{_NUM[loose]}|x|X|\*)"
    pre = _PRE[loose].replace("?P<pre>", f"?P<{tag}pre>")
    build = _BUILD.replace("?P<build>", f"?P<{tag}build>")
    return (
        rf"(?P<{tag}all>[v=\s]*(?P<{tag}M>{xr})(?:\.(?P<{tag}m>{xr})(?:\.(?P<{tag}p>{xr})"
        rf"(?:{pre})?(?:{build})?)?)?)"
    )


_HYPHEN = {loose: re.compile(rf"\s*{_partial(loose, 'f')}\s+-\s+{_partial(loose, 't')}\s*") for loose in (False, True)}
_CARET = {loose: re.compile(rf"\^{_partial(loose)}") for loose in (False, True)}
_TILDE = {loose: re.compile(rf"~>?{_partial(loose)}") for loose in (False, True)}
_XRANGE = {loose: re.compile(rf"(?P<op>[<>]?=?)\s*{_partial(loose)}") for loose in (False, True)}
_COMPARATOR = {loose: re.compile(rf"(?P<op>[<>]?=?)\s*(?P<v>{_VERSION[loose].pattern})") for loose in (False, True)}
# A token that can follow an operator written apart from it (`>= 1.2.3`).
_VERSIONISH = re.compile(r"[v=]*[0-9xX*]")
_STAR = re.compile(r"[<>]?=?\s*\*")
_NULL = "<0.0.0-0"  # matches nothing


class SemVer:
    """One parsed version; ``str()`` is its normal form (no prefix, no build)."""

    __slots__ = ("major", "minor", "patch", "prerelease", "build", "version", "_key")

    def __init__(self, major: int, minor: int, patch: int, prerelease: tuple, build: tuple) -> None:
        self.major, self.minor, self.patch = major, minor, patch
        self.prerelease = prerelease
        self.build = build
        self.version = f"{major}.{minor}.{patch}" + ("-" + ".".join(map(str, prerelease)) if prerelease else "")
        # Identifiers: numbers compare numerically and sort before words; a release sorts
        # after its prereleases; build metadata never counts (semver.org §10, §11).
        pre = tuple((0, i, "") if isinstance(i, int) else (1, 0, i) for i in prerelease)
        self._key = (major, minor, patch, 0 if pre else 1, pre)

    def key(self) -> tuple:
        """The ordering key: equal keys are equal versions."""
        return self._key

    def __str__(self) -> str:
        return self.version

    def __repr__(self) -> str:
        return f"SemVer({self.version!r})"


def parse(text: str, *, loose: bool = False) -> SemVer | None:
    """The version ``text`` spells, or None when it is not one."""
    if not isinstance(text, str) or len(text) > _MAX_LENGTH:
        return None
    m = _VERSION[loose].fullmatch(text.strip())
    if not m:
        return None
    nums = [int(m.group(k)) for k in ("major", "minor", "patch")]
    if any(n > _MAX_SAFE_INTEGER for n in nums):
        return None
    pre = tuple(int(i) if i.isdigit() and int(i) < _MAX_SAFE_INTEGER else i
                for i in m.group("pre").split(".")) if m.group("pre") else ()
    build = tuple(m.group("build").split(".")) if m.group("build") else ()
    return SemVer(nums[0], nums[1], nums[2], pre, build)


def valid(text: str, *, loose: bool = False) -> str | None:
    """The normal form of ``text`` when it is a version, else None."""
    v = parse(text, loose=loose)
    return v.version if v else None


def clean(text: str, *, loose: bool = True) -> str | None:
    """Like ``valid``, after trimming and dropping leading ``=``/``v`` (npm's lookup form)."""
    return valid(re.sub(r"^[=v]+", "", text.strip()), loose=loose)


def _required(text: str, loose: bool) -> SemVer:
    v = parse(text, loose=loose)
    if v is None:
        raise invalid(f"{text!r} is not a semantic version", "version")
    return v


def compare(a: str, b: str, *, loose: bool = False) -> int:
    """-1, 0 or 1 as ``a`` sorts before, equal to or after ``b``; invalid versions raise."""
    ka, kb = _required(a, loose).key(), _required(b, loose).key()
    return (ka > kb) - (ka < kb)


def sort_key(text: str, *, loose: bool = True) -> tuple:
    """A key sorting versions in semver order, anything unparseable first: the one order of
    every semver registry (npm, crates, Go, Hex), checked against node-semver in the tests."""
    v = parse(text, loose=loose)
    return (1, v.key()) if v else (0, ())


def is_prerelease(text: str) -> bool:
    """Whether ``text`` is a version with a prerelease part (``1.0.0-rc.1``)."""
    v = parse(text, loose=True)
    return bool(v and v.prerelease)


# -- ranges ------------------------------------------------------------------------------------

def _is_x(part: str | None) -> bool:
    return not part or part in ("x", "X", "*")


class Range:
    """A parsed range: alternatives (``||``) of comparators that must all hold."""

    __slots__ = ("alternatives", "loose", "include_prerelease", "raw")

    def __init__(self, alternatives: list, loose: bool, include_prerelease: bool, raw: str) -> None:
        self.alternatives = alternatives  # [[(op, SemVer | None), ...], ...]; None = any version
        self.loose = loose
        self.include_prerelease = include_prerelease
        self.raw = raw

    def test(self, version: str | SemVer) -> bool:
        v = version if isinstance(version, SemVer) else parse(version, loose=self.loose)
        if v is None:
            return False
        return any(self._test_alternative(alt, v) for alt in self.alternatives)

    def _test_alternative(self, comparators: list, v: SemVer) -> bool:
        key = v.key()
        for op, bound in comparators:
            if bound is None:
                continue
            b = bound.key()
            ok = {"": key == b, "<": key < b, "<=": key <= b, ">": key > b, ">=": key >= b}[op]
            if not ok:
                return False
        if not v.prerelease or self.include_prerelease:
            return True
        # A prerelease is let in only by a comparator that itself names a prerelease of the
        # same major.minor.patch: `>=1.2.3-beta.1` admits 1.2.3-beta.2, not 1.2.4-alpha.
        return any(
            bound is not None and bound.prerelease
            and (bound.major, bound.minor, bound.patch) == (v.major, v.minor, v.patch)
            for _op, bound in comparators
        )


def parse_range(text: str, *, loose: bool = False, include_prerelease: bool = False) -> Range:
    """The range ``text`` spells; an invalid range raises INVALID_ARGUMENT."""
    if not isinstance(text, str):
        raise invalid("a version range must be a string", "version")
    return _parse_range(text, loose, include_prerelease)


@lru_cache(maxsize=512)  # a picker tests one range against every version of a packument
def _parse_range(text: str, loose: bool, include_prerelease: bool) -> Range:
    raw = re.sub(r"\s+", " ", text.strip())
    alternatives = []
    for part in raw.split("||"):
        comparators = _parse_alternative(part.strip(), loose, include_prerelease)
        if comparators is None:
            raise invalid(f"{text.strip()!r} is not a valid version range", "version")
        if comparators:  # loose mode drops what it cannot read; an emptied alternative goes
            alternatives.append(comparators)
    if not alternatives:
        raise invalid(f"{text.strip()!r} is not a valid version range", "version")
    # An alternative that allows any version swallows the others (as node-semver folds
    # `* || 1.2.3-beta` to `*`), and with them their permission to match a prerelease.
    for alt in alternatives:
        if len(alternatives) > 1 and all(bound is None for _op, bound in alt):
            alternatives = [alt]
            break
    return Range(alternatives, loose, include_prerelease, raw)


def _parse_alternative(part: str, loose: bool, incpre: bool) -> list | None:
    """The comparators of one ``||`` alternative; None when one of them is invalid (strict)."""
    part = _BUILD_ANYWHERE.sub("", part)
    m = _HYPHEN[loose].fullmatch(part)
    if m:
        part = _desugar_hyphen(m, incpre)
    # Desugared tokens are joined and re-split on runs of spaces, so a token that became
    # "any version" survives only at either end (node-semver does the same; it matters only
    # for which invalid pieces loose mode keeps).
    desugared = " ".join(_STAR.sub("", _desugar(t, loose, incpre), count=1) for t in _glue(part.split(" ")))
    comparators = []
    for text in re.split(r"\s+", desugared):
        comparator = _comparator(text, loose)
        if comparator is None:
            if loose:
                continue  # loose mode skips what it cannot read
            return None
        comparators.append(comparator)
    return comparators


def _glue(tokens: list[str]) -> list[str]:
    """Join operators written apart from their version: ``>= 1.2``, ``~ 1.2``, ``^ 1.2``."""

    def joined(tokens: list[str], ends: tuple[str, ...], follows, rewrite=None) -> list[str]:
        out: list[str] = []
        for token in tokens:
            if out and out[-1].endswith(ends) and follows(token):
                prev = out.pop()
                out.append((rewrite(prev) if rewrite else prev) + token)
            else:
                out.append(token)
        return out

    tokens = joined(tokens, ("<", ">", "="), lambda t: bool(_VERSIONISH.match(t)))
    tokens = joined(tokens, ("~", "~>"), lambda t: True, lambda p: p[:-1] if p.endswith("~>") else p)
    return joined(tokens, ("^",), lambda t: True)


def _desugar_hyphen(m: re.Match, incpre: bool) -> str:
    z = "-0" if incpre else ""
    fM, fm, fp, fpr = m.group("fM"), m.group("fm"), m.group("fp"), m.group("fpre")
    tM, tm, tp, tpr = m.group("tM"), m.group("tm"), m.group("tp"), m.group("tpre")
    if _is_x(fM):
        low = ""
    elif _is_x(fm):
        low = f">={fM}.0.0{z}"
    elif _is_x(fp):
        low = f">={fM}.{fm}.0{z}"
    else:
        low = f">={m.group('fall')}" + ("" if fpr else z)
    if _is_x(tM):
        high = ""
    elif _is_x(tm):
        high = f"<{int(tM) + 1}.0.0-0"
    elif _is_x(tp):
        high = f"<{tM}.{int(tm) + 1}.0-0"
    elif tpr:
        high = f"<={tM}.{tm}.{tp}-{tpr}"
    elif incpre:
        high = f"<{tM}.{tm}.{int(tp) + 1}-0"
    else:
        high = f"<={m.group('tall')}"
    return f"{low} {high}".strip()


def _caret_or_tilde(m: re.Match, caret: bool, z: str) -> str:
    """``^V`` keeps the left-most non-zero part (^0.0.3 is <0.0.4, ^0.2.3 is <0.3.0, ^1.2.3 is
    <2.0.0); ``~V`` allows patch-level changes (~1.2.3 is <1.3.0). ``z`` is ``-0`` when
    prereleases are included."""
    M, mi, p, pr = m.group("M"), m.group("m"), m.group("p"), m.group("pre")
    if _is_x(M):
        return ""
    if _is_x(mi):
        return f">={M}.0.0{z} <{int(M) + 1}.0.0-0"
    if _is_x(p):
        upper = f"{int(M) + 1}.0.0-0" if caret and M != "0" else f"{M}.{int(mi) + 1}.0-0"
        return f">={M}.{mi}.0{z} <{upper}"
    low = f">={M}.{mi}.{p}" + (f"-{pr}" if pr else "")
    if not caret or (M == "0" and mi != "0"):
        upper = f"{M}.{int(mi) + 1}.0-0"
    elif M == "0":
        upper = f"{M}.{mi}.{int(p) + 1}-0"
    else:
        upper = f"{int(M) + 1}.0.0-0"
    return f"{low} <{upper}"


def _desugar(token: str, loose: bool, incpre: bool) -> str:
    """One token as plain comparators (space-separated; empty = any version)."""
    z = "-0" if incpre else ""
    for pattern, caret in ((_CARET[loose], True), (_TILDE[loose], False)):
        m = pattern.fullmatch(token)
        if m:
            return _caret_or_tilde(m, caret, z)
    m = _XRANGE[loose].fullmatch(token)
    if m:
        return _desugar_xrange(token, m, incpre)
    return token


def _desugar_xrange(token: str, m: re.Match, incpre: bool) -> str:
    op, M, mi, p = m.group("op"), m.group("M"), m.group("m"), m.group("p")
    if (_is_x(M) and not _is_x(mi)) or (_is_x(mi) and p and not _is_x(p)):
        return token  # 1.x.3 or x.2: left as written, so it fails as a comparator
    x_major = _is_x(M)
    x_minor = x_major or _is_x(mi)
    x_any = x_minor or _is_x(p)
    if op == "=" and x_any:
        op = ""
    z = "-0" if incpre else ""
    if x_major:
        return _NULL if op in (">", "<") else ""
    if op and x_any:
        major, minor = M, ("0" if x_minor else mi)
        if op == ">":  # >1 is >=2.0.0, >1.2 is >=1.3.0
            op = ">="
            if x_minor:
                major, minor = str(int(M) + 1), "0"
            else:
                minor = str(int(mi) + 1)
        elif op == "<=":  # <=1.2 is <1.3.0-0: every 1.2.x passes
            op = "<"
            if x_minor:
                major = str(int(M) + 1)
            else:
                minor = str(int(mi) + 1)
        if op == "<":
            z = "-0"
        return f"{op}{major}.{minor}.0{z}"
    if x_minor:
        return f">={M}.0.0{z} <{int(M) + 1}.0.0-0"
    if x_any:
        return f">={M}.{mi}.0{z} <{M}.{int(mi) + 1}.0-0"
    return token


def _comparator(text: str, loose: bool) -> tuple | None:
    if text == "":
        return ("", None)
    m = _COMPARATOR[loose].fullmatch(text)
    if not m:
        return None
    version = parse(m.group("v"), loose=loose)
    if version is None:
        raise invalid(f"{text!r} holds a version number that is too large", "version")
    op = m.group("op")
    return ("" if op == "=" else op, version)


def satisfies(version: str, range_text: str, *, loose: bool = False, include_prerelease: bool = False) -> bool:
    """Whether ``version`` is in the range; False for an invalid version or range."""
    try:
        rng = parse_range(range_text, loose=loose, include_prerelease=include_prerelease)
    except CodenavError:
        return False
    return rng.test(version)


def max_satisfying(
    versions: Iterable[str], range_text: str, *, loose: bool = False, include_prerelease: bool = False
) -> str | None:
    """The highest of ``versions`` in the range (the first of equals), or None."""
    try:
        rng = parse_range(range_text, loose=loose, include_prerelease=include_prerelease)
    except CodenavError:
        return None
    best, best_key = None, None
    for text in versions:
        v = parse(text, loose=loose)
        if v is not None and rng.test(v) and (best_key is None or v.key() > best_key):
            best, best_key = text, v.key()
    return best


def is_valid_range(text: str, *, loose: bool = False) -> bool:
    """Whether ``text`` is a valid range (an exact version is one too), like node-semver's validRange."""
    try:
        parse_range(text, loose=loose)
    except CodenavError:
        return False
    return True


# -- what npm does with a wanted string ---------------------------------------------------------

# encodeURIComponent leaves these alone; a dist-tag must be spelled with them only.
_TAG = re.compile(r"[A-Za-z0-9\-_.!~*'()]*")
# npm-package-arg reads these as a local file, not a registry spec.
_FILE_LIKE = re.compile(r"^(?:\.|~/)|\.(?:tgz|tar\.gz|tar)$", re.IGNORECASE)


def classify(text: str) -> str:
    """``"exact"``, ``"range"`` or ``"tag"``, as npm reads a registry spec; else INVALID_ARGUMENT."""
    spec = text.strip()
    if "/" not in spec and not _FILE_LIKE.search(spec):
        if valid(spec, loose=True):
            return "exact"
        if is_valid_range(spec, loose=True):
            return "range"
        if _TAG.fullmatch(spec):
            return "tag"
    raise invalid(f"{text!r} is not a version, a version range or a dist-tag", "version")


def is_range(text: str) -> bool:
    """Whether ``text`` is a range (not one exact version, not a dist-tag)."""
    try:
        return classify(text) == "range"
    except CodenavError:
        return False


def _js_truthy(value: object) -> bool:
    # npm tests `manifest.deprecated` for JavaScript truth: any non-empty message, true, an
    # object; not "", false, 0, null or NaN.
    if isinstance(value, (dict, list)):
        return True
    return bool(value) and value == value


def pick(versions: dict[str, dict], dist_tags: dict[str, str], wanted: str | None) -> str | None:
    """The version npm would install for ``wanted``, or None when nothing fits.

    A dist-tag gives its version; an exact version gives itself. A range (or no wanted at
    all, which means ``*``) gives the ``latest`` tag's version when that satisfies it and is
    not deprecated, else the highest satisfying version that is not deprecated, and a
    deprecated one only when nothing else satisfies. Ranges are read loosely, as npm does,
    so prereleases come only when the range names one (or ``latest`` is one and nothing
    narrower was asked). An invalid ``wanted`` raises INVALID_ARGUMENT.
    """
    kind = classify(wanted) if wanted else "range"
    if wanted and kind == "tag":
        version = dist_tags.get(wanted)
        return version if isinstance(version, str) and versions.get(version) is not None else None
    if wanted and kind == "exact":
        version = clean(wanted)
        return version if versions.get(version) is not None else None
    range_text = wanted if wanted else "*"
    latest = dist_tags.get("latest")
    if isinstance(latest, str) and (range_text == "*" or satisfies(latest, range_text, loose=True)):
        manifest = versions.get(latest)
        if manifest is not None and not _js_truthy(_get(manifest, "deprecated")):
            return latest
    rng = parse_range(range_text, loose=True)
    candidates = []
    for version, manifest in versions.items():
        v = parse(version, loose=True)
        if v is not None and rng.test(v):
            candidates.append((not _js_truthy(_get(manifest, "deprecated")), v.key(), version))
    if not candidates:
        return None
    # Not deprecated first, then the highest; equals keep the packument's order (a stable sort).
    candidates.sort(key=lambda c: (c[0], c[1]), reverse=True)
    return candidates[0][2]


def _get(manifest: object, field: str) -> object:
    return manifest.get(field) if isinstance(manifest, dict) else None
