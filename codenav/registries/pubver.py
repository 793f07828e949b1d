"""pub's versions and version constraints, as dart-lang/pub_semver reads them (SPEC §3.19).

pub's order is SemVer's with two differences of its own (pub_semver's README, ``Version.compareTo``):
build metadata counts (``1.2.3 < 1.2.3+1 < 1.2.3+2``, compared like prerelease parts), and
leading zeros are allowed and read as numbers (``01.2.3`` equals ``1.2.3``). So it has its own
key here, not semver.sort_key's.

Constraints (``VersionConstraint.parse``): ``any``; ``^V`` alone (``>=V <nextBreaking``, where
the next breaking version bumps the major, or the minor below 1.0.0: ``^0.2.3`` is
``>=0.2.3 <0.3.0``); otherwise a sequence of versions and comparisons ``< <= > >=`` (spaces
optional), which narrow one range. An exclusive maximum that is not itself a prerelease also
excludes its prereleases (``<2.0.0`` refuses ``2.0.0-beta``) unless the minimum is a
prerelease of the same version. ``best`` picks as pub's solver does
(``PackageLister.bestVersion``): the highest allowed version that is not a prerelease, else the
highest allowed prerelease.

Written from pub_semver 2.1.5 (dart-lang/pub_semver 960f913, ``lib/src/version.dart``,
``version_constraint.dart``, ``version_range.dart``) and pub's ``lib/src/solver/package_lister.dart``
(dart-lang/pub ec276d1); tests/test_registry_pub.py holds cases from pub_semver's own tests.
"""

from __future__ import annotations

from ..errors import invalid

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

_WORD = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-")
_HEX = frozenset("0123456789abcdefABCDEF")


class Version:
    """One parsed version: its numbers, prerelease and build parts, and the order key."""

    __slots__ = ("major", "minor", "patch", "pre", "build", "text", "key")

    def __init__(self, major: int, minor: int, patch: int, pre: tuple, build: tuple, text: str) -> None:
        self.major, self.minor, self.patch, self.pre, self.build, self.text = major, minor, patch, pre, build, text
        # Prereleases sort before the release; builds after no build; parts compare numbers
        # below strings, and a missing part first (a shorter tuple is smaller).
        self.key = (major, minor, patch, 0 if pre else 1, _parts_key(pre), 1 if build else 0, _parts_key(build))

    @property
    def is_prerelease(self) -> bool:
        return bool(self.pre)

    def __repr__(self) -> str:
        return f"Version({self.text!r})"


def _parts_key(parts: tuple) -> tuple:
    return tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in parts)


def _number(part: str) -> int | str:
    """Dart's ``int.tryParse``: an optional sign, then decimal digits or ``0x`` and hex digits."""
    digits = part[1:] if part[:1] in "+-" and len(part) > 1 else part
    sign = -1 if part[:1] == "-" and digits is not part else 1
    if digits.isascii() and digits.isdigit():
        return sign * int(digits)
    if digits[:2] in ("0x", "0X") and len(digits) > 2 and set(digits[2:]) <= _HEX:
        return sign * int(digits[2:], 16)
    return part


def _identifiers(text: str) -> tuple | None:
    words = text.split(".")
    if not all(w and set(w) <= _WORD for w in words):
        return None
    return tuple(_number(w) for w in words)


def parse(text: str) -> Version | None:
    """``MAJOR.MINOR.PATCH[-PRE][+BUILD]`` (pub_semver's ``completeVersion``), or None."""
    core, plus, build = text.partition("+")
    core, dash, pre = core.partition("-")
    numbers = core.split(".")
    if len(numbers) != 3 or not all(n.isascii() and n.isdigit() for n in numbers):
        return None
    pre_parts = _identifiers(pre) if dash else ()
    build_parts = _identifiers(build) if plus else ()
    if pre_parts is None or build_parts is None:
        return None
    return Version(int(numbers[0]), int(numbers[1]), int(numbers[2]), pre_parts, build_parts, text)


def sort_key(text: str) -> tuple:
    """pub's order (``Version.compareTo``); anything that is not a version sorts first."""
    version = parse(text)
    return (1, version.key) if version else (0, ())


def is_prerelease(text: str) -> bool:
    version = parse(text)
    return bool(version and version.pre)


# --- constraints --------------------------------------------------------------------------------

class Range:
    """``min``/``max`` (None: unbounded) with their inclusiveness; ``allows`` tests a version."""

    __slots__ = ("low", "high", "include_low", "include_high")

    def __init__(self, low: Version | None, high: Version | None, include_low: bool, include_high: bool) -> None:
        self.low, self.high, self.include_low, self.include_high = low, high, include_low, include_high

    def allows(self, version: Version) -> bool:
        if self.low is not None and (version.key < self.low.key or (not self.include_low and version.key == self.low.key)):
            return False
        return self.high is None or version.key < self.high.key or (self.include_high and version.key == self.high.key)


NOTHING = Range(Version(0, 0, 0, (), (), "0.0.0"), Version(0, 0, 0, (), (), "0.0.0"), False, False)


def _first_prerelease(v: Version) -> Version:
    return Version(v.major, v.minor, v.patch, (0,), (), f"{v.major}.{v.minor}.{v.patch}-0")


def _range(low: Version | None, high: Version | None, include_low: bool, include_high: bool) -> Range:
    """``new VersionRange(...)``: an exclusive maximum also excludes its prereleases, unless it is
    a prerelease or has a build, or the minimum is a prerelease of the same version."""
    if (high is not None and not include_high and not high.pre and not high.build
            and (low is None or not low.pre or (low.major, low.minor, low.patch) != (high.major, high.minor, high.patch))):
        high = _first_prerelease(high)
    return Range(low, high, include_low, include_high)


def _take_version(text: str) -> tuple[Version | None, str]:
    """The version at the start of ``text`` (pub_semver's ``startVersion``) and the rest."""
    end = 0
    while end < len(text) and (text[end] in _WORD or text[end] in ".+"):
        end += 1
    for stop in range(end, 0, -1):  # the longest prefix that is a version (as the regex matches)
        version = parse(text[:stop])
        if version is not None:
            return version, text[stop:]
    return None, text


def parse_constraint(text: str) -> Range:
    """``VersionConstraint.parse``; INVALID_ARGUMENT naming ``text`` when pub would refuse it."""
    bad = invalid(f"{text!r} is not a pub version or constraint (e.g. 1.2.3, ^1.2.3, '>=1.0.0 <2.0.0', any)",
                  "version")
    rest = text.strip()
    if rest == "any":
        return Range(None, None, False, False)
    if rest.startswith("^"):
        version, rest = _take_version(rest[1:].strip())
        if version is None or rest.strip():
            raise bad
        breaking = (version.major + 1, 0, 0) if version.major else (0, version.minor + 1, 0)
        return Range(version, _first_prerelease(Version(*breaking, (), (), "")), True, False)
    low = high = None
    include_low = include_high = False
    while rest:
        op = ">=" if rest.startswith(">=") else "<=" if rest.startswith("<=") else rest[:1] if rest[:1] in "<>" else ""
        version, rest = _take_version(rest[len(op):].strip())
        if version is None:
            raise bad
        rest = rest.strip()
        if op in ("", ">", ">=") and (low is None or version.key > low.key):
            low, include_low = version, op != ">"
        elif op in ("", ">", ">=") and version.key == low.key and op == ">":
            include_low = False
        if op in ("", "<", "<=") and (high is None or version.key < high.key):
            high, include_high = version, op != "<"
        elif op in ("", "<", "<=") and version.key == high.key and op == "<":
            include_high = False
    if low is None and high is None:
        raise bad
    if low is not None and high is not None and low.key >= high.key:
        return Range(low, low, True, True) if low.key == high.key and include_low and include_high else NOTHING
    return _range(low, high, include_low, include_high)


def best(versions: Iterable[str], constraint: Range) -> str | None:
    """The version pub's solver picks: the highest allowed release, else the highest allowed prerelease."""
    allowed = [(v, parsed) for v in versions if (parsed := parse(v)) is not None and constraint.allows(parsed)]
    releases = [pair for pair in allowed if not pair[1].pre]
    return max(releases or allowed, key=lambda pair: pair[1].key, default=(None,))[0]
