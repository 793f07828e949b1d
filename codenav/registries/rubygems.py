"""RubyGems: names, exact versions, where the source is, and compact index -> .gem (SPEC §3).

Everything codenav knows about RubyGems is here (the contract of registries/base.py):

- names: letters, digits, ``.``, ``-`` and ``_`` with at least one letter, case-sensitive
  (``RedCloth``), passed through unchanged;
- versions: any named version is exact (a published version never changes; a yanked one
  disappears from the index); none means the highest version without a letter by
  Gem::Version's order (a version with a letter is a prerelease), else the highest prerelease;
- the endpoint: CODENAV_RUBYGEMS_SOURCE, then the first of ``:sources:`` in the gem
  configuration files (``/etc/gemrc``, ``~/.gemrc``, the files of ``$GEMRC``; a later file
  wins), then the public source, written once below;
- resolve: the compact index ``{source}info/{name}`` (what Bundler reads, so mirrors serve it):
  after the ``---`` line one line per version and platform,
  ``VERSION[-PLATFORM] DEPS|REQS`` with ``checksum:<sha256>`` among the requirements. The
  ``ruby`` platform gem (pure source) is taken when the version has one, else the gem for this
  machine's platform, else the first platform by name — echoed in ``target.artifact``;
- verification: sha256 of the ``.gem`` against the compact index's ``checksum``;
- unpack: a ``.gem`` is a plain tar whose ``data.tar.gz`` holds the files with no top folder;
  only that member is unpacked and nothing is stripped.
"""

from __future__ import annotations

import os

from ..errors import CodenavError, invalid, protocol_error
from .base import Client, ladder, latest, require_digest, version_not_found

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from .artifact import Artifact

PREFIX = "rubygems"
ALIASES: tuple[str, ...] = ("gem",)
WHAT = "the RubyGems source"
ENDPOINT_VARIABLE = "CODENAV_RUBYGEMS_SOURCE"
# The public gem source: the default when neither codenav nor gem's configuration names one.
DEFAULT_SOURCE = "https://rubygems.org/"
USER_AGENT = "codenav (compact index client)"
_HTTP = Client(WHAT, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip"})

_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")
_NAME_CHARS = _LETTERS | _DIGITS | frozenset(".-_")
_VERSION_CHARS = _LETTERS | _DIGITS | frozenset(".-")
INFO_CAP = 16 * 1024 * 1024  # the largest info files (nokogiri, aws-sdk) are a few hundred KiB
_PAD = 40  # Gem::Version compares a missing segment as 0: keys are padded with zeros to this length


# --- names and versions ------------------------------------------------------------------------

def normalize_name(name: str) -> str:
    """The gem name as given (RubyGems names are case-sensitive), or INVALID_ARGUMENT."""
    if not (name and set(name) <= _NAME_CHARS and set(name) & _LETTERS and name[0] not in ".-"):
        raise invalid(f"{name!r} is not a valid gem name (letters, digits, '.', '-' and '_', with a letter)",
                      "package_name")
    return name


def is_exact(version: str) -> bool:
    """Every Gem::Version string is a pin: a published gem version never changes."""
    return bool(version) and version[0] in _DIGITS and set(version) <= _VERSION_CHARS


def _segments(version: str) -> list[int | str]:
    """Gem::Version's segments: runs of digits and runs of letters (``-`` counts as ``.pre.``)."""
    out: list[int | str] = []
    run = ""
    for char in version.strip().replace("-", ".pre.") + ".":
        if run and (char.isdigit() != run[-1].isdigit() or not char.isalnum()):
            out.append(int(run) if run.isdigit() else run)
            run = ""
        if char.isascii() and char.isalnum():
            run += char
    return out


def version_key(version: str) -> tuple:
    """Gem::Version's order: segment by segment, a number above any letters, missing as 0."""
    segments = _segments(version)
    if not segments or not isinstance(segments[0], int):
        return ((-1, 0, ""),)  # not a version: sorts last
    key = [(1, s, "") if isinstance(s, int) else (0, 0, s) for s in segments[:_PAD]]
    return tuple(key + [(1, 0, "")] * (_PAD - len(key)))


def is_prerelease(version: str) -> bool:
    """A version with a letter in it (``7.2.0.beta1``), as Gem::Version#prerelease? says."""
    return any(char.isalpha() for char in version)


# --- the endpoint ------------------------------------------------------------------------------

def endpoint() -> str:
    return ladder((ENDPOINT_VARIABLE,), _gemrc_source, DEFAULT_SOURCE)


def _gemrc_files() -> list[str]:
    files = ["/etc/gemrc", os.path.join(os.path.expanduser("~"), ".gemrc")]
    files += [f for f in (os.environ.get("GEMRC") or "").split(os.pathsep) if f]
    return files


def _gemrc_source() -> str | None:
    """The first of ``:sources:`` in the last gem configuration file that sets it."""
    found = None
    for path in _gemrc_files():
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except OSError:
            continue
        sources = _yaml_list(text, ":sources:")
        if sources:
            found = sources[0]
    return found


def _yaml_list(text: str, key: str) -> list[str]:
    """The items of one top-level YAML list (block ``- x`` lines or a flow ``[x, y]``): all that
    a gemrc's ``:sources:`` needs, without a YAML parser."""
    lines = text.splitlines()
    for at, line in enumerate(lines):
        if not line.startswith(key):
            continue
        rest = line[len(key):].strip()
        if rest.startswith("[") and rest.endswith("]"):
            return [item.strip().strip("'\"") for item in rest[1:-1].split(",") if item.strip()]
        items = []
        for item in lines[at + 1:]:
            stripped = item.strip()
            if stripped.startswith("- "):
                items.append(stripped[2:].strip().strip("'\""))
            elif stripped and not stripped.startswith("#"):
                break
        return items
    return []


# --- resolve: the compact index -> artifact (indexer side) --------------------------------------

def parse_info(text: str) -> list[tuple[str, str, str | None]]:
    """``(version, platform, checksum)`` per line of a compact index info file (platform "ruby"
    when the line names none); ValueError when it is not one."""
    lines = text.split("\n")
    if "---" not in (line.rstrip("\r") for line in lines):
        raise ValueError("no --- line")
    start = [line.rstrip("\r") for line in lines].index("---") + 1
    out = []
    for line in lines[start:]:
        line = line.rstrip("\r")
        if not line:
            continue
        spec, space, rest = line.partition(" ")
        if not space or "|" not in rest:
            raise ValueError(line)
        version, _, platform = spec.partition("-")
        if not is_exact(version):
            raise ValueError(line)
        checksum = None
        for requirement in rest.split("|", 1)[1].split(","):
            key, _, value = requirement.partition(":")
            if key.strip() == "checksum":
                checksum = value.strip()
        out.append((version, platform or "ruby", checksum))
    return out


def local_platforms() -> list[str]:
    """This machine's gem platforms, most specific first (``x86_64-linux-gnu``, ``x86_64-linux``)."""
    import platform
    import sys

    cpu = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine().lower())
    if sys.platform.startswith("linux"):
        libc = "musl" if "musl" in (platform.libc_ver()[0] or "") else "gnu"
        return [f"{cpu}-linux-{libc}", f"{cpu}-linux"]
    if sys.platform == "darwin":
        cpu = "arm64" if cpu == "aarch64" else cpu
        return [f"{cpu}-darwin", "universal-darwin"]
    if sys.platform == "win32":
        return ["x64-mingw-ucrt", "x64-mingw32"] if cpu == "x86_64" else [f"{cpu}-mingw-ucrt"]
    return [f"{cpu}-{sys.platform}"]


def choose_platform(platforms: list[str]) -> str:
    """``ruby`` when there is one, else this machine's platform, else the first by name."""
    if "ruby" in platforms:
        return "ruby"
    for wanted in local_platforms():
        if wanted in platforms:
            return wanted
    return sorted(platforms)[0]


def resolve(name: str, wanted: str | None) -> Artifact:
    from .. import net
    from .artifact import Artifact, Unpack, Verification

    source = endpoint()
    resp = _HTTP.get_ok(f"{source}info/{name}", INFO_CAP, not_found=CodenavError(
        "NOT_FOUND", f"gem {name!r} was not found in {WHAT}",
        details={"action": "check the gem name (gem names are case-sensitive)"}))
    try:
        lines = parse_info(net.decoded_body(resp, INFO_CAP, f"the index of {name!r}", WHAT).decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise protocol_error(f"{WHAT} sent an index for {name!r} that is not a compact index info file") from None
    versions = {v for v, _, _ in lines}
    newest = latest(versions, version_key, prerelease=is_prerelease)
    if wanted is None:
        if newest is None:
            raise CodenavError("NOT_FOUND", f"gem {name!r} has no version in {WHAT}")
        version = newest
    else:
        # Gem::Version equality: 7.2.1 names 7.2.1.0 too; the spelling published is echoed.
        version = wanted if wanted in versions else next(
            (v for v in sorted(versions) if version_key(v) == version_key(wanted)), None)
        if version is None:
            raise version_not_found(f"gem {name!r} has no version {wanted!r}", wanted, versions, newest, version_key,
                                    " (a yanked version leaves the index)")
    by_platform = {p: c for v, p, c in lines if v == version}
    chosen = choose_platform(list(by_platform))
    checksum = by_platform[chosen]
    stem = f"{name}-{version}" + ("" if chosen == "ruby" else f"-{chosen}")
    checksum = require_digest(checksum, f"the compact index gives no sha256 for {stem}.gem")
    return Artifact(
        registry=PREFIX, name=name, version=version, filename=f"{stem}.gem", url=f"{source}gems/{stem}.gem",
        unpack=Unpack("tar", inner_member="data.tar.gz"),
        verification=Verification("digest", "sha256", checksum, "the compact index's checksum"),
        headers={"User-Agent": USER_AGENT},
    )
