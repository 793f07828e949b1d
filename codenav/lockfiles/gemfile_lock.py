"""Gemfile.lock / gems.locked (Bundler's own line format; docs/lockfiles.md "rubygems").

Sections start at column 0. ``GEM`` (one per ``remote:``), ``GIT`` and ``PATH`` hold
``  specs:`` and under it one gem a line at four spaces, ``name (version)`` or
``name (version-platform)`` for a platform gem (``nokogiri (1.16.0-x86_64-linux)``: the version
is 1.16.0; several platforms of one version are one version), its own requirements at six.
``GIT`` gems come from the ``revision:`` commit, ``PATH`` gems from a local directory: neither has a
registry version. ``DEPENDENCIES`` lists the Gemfile's gems (a ``!`` marks one from a git or path
source): the direct dependencies. ``PLATFORMS``, ``CHECKSUMS``, ``RUBY VERSION`` and ``BUNDLED WITH``
are not needed.
"""

from __future__ import annotations

from ._common import REGISTRY, ROOT_DIRECT, TRANSITIVE, Candidate, LockfileError

_SOURCES = {"GEM": REGISTRY, "GIT": "git", "PATH": "directory", "PLUGIN SOURCE": "url"}
# Every section Bundler writes: a file with none of them is no Gemfile.lock, whatever its shape.
_SECTIONS = {*_SOURCES, "PLATFORMS", "DEPENDENCIES", "RUBY VERSION", "BUNDLED WITH", "CHECKSUMS"}
# The first word of a platform suffix (Gem::Platform's CPU names and the OS-only platforms).
_PLATFORM_STARTS = ("x86_64", "x86", "i386", "i486", "i586", "i686", "arm", "arm64", "aarch64", "universal",
                    "java", "jruby", "mswin", "mswin32", "mswin64", "mingw", "mingw32", "x64", "powerpc", "ppc",
                    "ppc64le", "s390x", "sparc", "dalvik", "wasm32", "riscv64", "loongarch64", "darwin")


def split_platform(text: str) -> tuple[str, str | None]:
    """``1.16.0-x86_64-linux`` -> ('1.16.0', 'x86_64-linux'); a version without one is kept whole."""
    version, dash, rest = text.partition("-")
    first = rest.split("-", 1)[0]
    if dash and (first in _PLATFORM_STARTS or first.split("_", 1)[0] in _PLATFORM_STARTS):
        return version, rest
    return text, None


def entries(text: str, ctx) -> list[Candidate]:
    section = None
    source, ref = REGISTRY, None
    in_specs = False
    out: list[Candidate] = []
    direct: set[str] = set()
    seen_section = known = False
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        if not line.startswith(" "):
            section = line.strip()
            seen_section = True
            known = known or section in _SECTIONS
            source = _SOURCES.get(section)
            ref, in_specs = None, False
            continue
        if not seen_section:
            raise LockfileError(f"not a Gemfile.lock (line {number}: indented line before any section)")
        if source is not None:
            if line.startswith("  ") and not line.startswith("   "):
                key, _, value = line.strip().partition(":")
                in_specs = key == "specs" and not value.strip()
                if key == "revision" and source == "git":
                    ref = value.strip()
                elif key == "remote" and source == "directory":
                    ref = value.strip()
                continue
            if in_specs and line.startswith("    ") and not line.startswith("     "):
                name, version = _spec(line.strip(), number)
                plain, platform = split_platform(version)
                registry = source == REGISTRY
                out.append(Candidate(name, plain if registry else None, f"{section} {line.strip()}", TRANSITIVE,
                                     source, None if registry else ref or version))
            continue
        if section == "DEPENDENCIES" and line.startswith("  ") and not line.startswith("   "):
            name = line.strip().split(" ", 1)[0].rstrip("!")
            if name:
                direct.add(name)
    if not seen_section:
        raise LockfileError("not a Gemfile.lock (no section)")
    if not known:
        raise LockfileError("not a Gemfile.lock (none of Bundler's sections: GEM, GIT, PATH, PLATFORMS, DEPENDENCIES…)")
    for c in out:
        if c.name in direct:
            c.tier = ROOT_DIRECT
    return out


def _spec(text: str, number: int) -> tuple[str, str]:
    name, sep, rest = text.partition(" (")
    if not sep or not rest.endswith(")") or not name:
        raise LockfileError(f"not a Gemfile.lock (line {number}: expected 'name (version)')")
    return name, rest[:-1]
