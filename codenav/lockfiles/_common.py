"""What every lockfile reader hands back: candidates, ranked by one rule (lockfiles.md §2).

A reader turns one lockfile into ``Candidate`` rows for one requested name: every copy of the
package it locks, each with a tier that says how directly the project depends on it. The lowest
tier wins, then the highest version in the registry's own order; the other versions are reported beside it. Readers raise
``LockfileError`` with a one-line reason for a file they cannot read; the caller turns that into
a warning and moves on. This module imports only ``os`` so that the warm path can use it.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable

# Tiers of lockfiles.md §2, lowest wins.
CWD_DIRECT = 0      # a direct dependency of the importer that contains the start directory
ROOT_DIRECT = 1     # a direct dependency of the root importer
HOISTED = 2         # the copy Node would load from the lockfile's root (node_modules/N)
OTHER_DIRECT = 3    # a direct dependency of some other workspace
TRANSITIVE = 4      # any other copy
ALIAS = 5           # an alias whose target is the requested name (legacy-ms -> ms@0.7.3)

# A source other than "registry" (git, file, link, workspace, directory, url) has no registry
# version to fetch (§2 "Non-registry results").
REGISTRY = "registry"


DEFAULT_MAX_BYTES = 64 * 1024 * 1024


class LockfileError(Exception):
    """A lockfile that cannot be used; the message is one line a person understands."""


class Candidate:
    """One locked copy: its real name, version, lockfile key, tier and where it comes from."""

    __slots__ = ("name", "version", "entry", "tier", "source", "ref", "alias", "marker", "file")

    def __init__(self, name: str, version: str | None, entry: str, tier: int, source: str = REGISTRY,
                 ref: str | None = None, alias: str | None = None, marker: object = None,
                 file: str | None = None) -> None:
        self.name = name          # the real package name (the alias target for an alias)
        self.version = version    # None when the lockfile records no version (git, link, ...)
        self.entry = entry        # the lockfile key, as the file spells it
        self.tier = tier
        self.source = source      # "registry", "git", or one of LOCAL_SOURCES
        self.ref = ref            # the git commit, or the local path
        self.alias = alias        # the installed name when it differs from the real name
        self.marker = marker      # Python only: a PEP 508 marker string, or a list (any of them)
        self.file = file          # the file that states the version when it is not the lockfile
                                  # itself (a parent POM, a member's go.mod): an absolute path

    def __repr__(self) -> str:
        return (f"Candidate({self.name!r}, {self.version!r}, {self.entry!r}, tier={self.tier}, "
                f"source={self.source!r}, alias={self.alias!r})")


class Context:
    """Where the project is, for a reader, and what else the reader looked at.

    ``path``: the lockfile being read; ``lock_dir``: the directory where the walk found it; ``rel``: the start directory relative
    to it ('.' when the same, '/'-separated); ``start``: the start directory; ``reads``: every
    other file a reader read or looked for (the memo re-checks them: a file that appears counts
    too); ``notes``: ``(folded name or None, warning)`` pairs — a warning about one package is
    reported only with that package, one about the file (None) always.
    """

    __slots__ = ("path", "lock_dir", "rel", "start", "reads", "notes")

    def __init__(self, path: str, lock_dir: str, rel: str, start: str) -> None:
        self.path, self.lock_dir, self.rel, self.start = path, lock_dir, rel, start
        self.reads: list[str] = []
        self.notes: list[tuple[str | None, str]] = []

    def read(self, path: str) -> str | None:
        """The text of a file beside the lockfile, or None when it is absent or unusable (a
        warning about the file says why it was not used)."""
        self.reads.append(path)
        try:
            return read_capped(path)
        except LockfileError as e:
            if os.path.lexists(path):
                self.note(None, f"{self.shown(path)}: skipped: {e}")
            return None

    def shown(self, path: str) -> str:
        """``path`` as warnings name a file: relative to the start directory, '/'-separated."""
        return os.path.relpath(path, self.start or self.lock_dir).replace(os.sep, "/")

    def exists(self, path: str) -> bool:
        self.reads.append(path)
        try:
            os.stat(path)
            return True
        except OSError:
            return False

    def find_up(self, fname: str, start: str | None = None) -> str | None:
        """The nearest ``fname`` from ``start`` (default: the lockfile's directory) upwards,
        within the project: the walk's limits apply (stop after a directory holding ``.git``,
        before entering ``$HOME`` from below, at the filesystem root)."""
        home = os.path.abspath(os.path.expanduser("~"))
        d = os.path.abspath(start or self.lock_dir)
        first = d
        for _ in range(256):
            if d == home and d != first:
                return None
            if self.exists(os.path.join(d, fname)):
                return os.path.join(d, fname)
            try:
                os.lstat(os.path.join(d, ".git"))
                return None
            except OSError:
                pass
            parent = os.path.dirname(d)
            if parent == d:
                return None
            d = parent
        return None

    def note(self, about: str | None, warning: str) -> None:
        self.notes.append((about, warning))

    def skipped(self, count: int, what: str, path: str | None = None) -> None:
        """A warning about the file (``path``, the lockfile by default): ``count`` of its entries
        were left out, being ``what``."""
        if count:
            self.note(None, f"{self.shown(path or self.path)}: {count} {'entry' if count == 1 else 'entries'} "
                            f"skipped ({what})")

    def member_dir(self, manifest: str) -> str | None:
        """The deepest directory from the start up to the lockfile's (excluded) holding ``manifest``."""
        parts = [] if self.rel == "." else self.rel.split("/")
        while parts:
            d = os.path.join(self.lock_dir, *parts)
            if self.exists(os.path.join(d, manifest)):
                return d
            parts.pop()
        return None

    def relative(self, path: str) -> str:
        """``path`` relative to the lockfile's directory, '/'-separated."""
        return os.path.relpath(path, self.lock_dir).replace(os.sep, "/")


def split_name_spec(text: str) -> tuple[str, str]:
    """``'@s/is@npm:4.6.0'`` -> ``('@s/is', 'npm:4.6.0')``: the first ``@`` after position 0 (§3.1)."""
    at = text.find("@", 1)
    return (text, "") if at < 0 else (text[:at], text[at + 1:])


def git_commit(url: str) -> str | None:
    """The commit after ``#`` of a git URL (``…#<sha>`` or ``…#commit=<sha>``), if it is one."""
    _, sep, frag = url.rpartition("#")
    if not sep:
        return None
    frag = frag.removeprefix("commit=")
    if 7 <= len(frag) <= 64 and all(c in "0123456789abcdef" for c in frag):
        return frag
    return None


def is_git_spec(spec: str) -> bool:
    """Whether an npm-style spec or resolution names a git source rather than a registry version."""
    return spec.startswith(("git+", "git:", "git@", "github:", "gitlab:", "bitbucket:")) or (
        "://" in spec and (".git#" in spec or spec.endswith(".git") or "#commit=" in spec))


def importer_for(rel: str, importers) -> str:
    """The longest importer path that contains ``rel`` ('.' is the root and contains everything)."""
    best = "."
    for imp in importers:
        if imp in (".", "") or not (rel == imp or rel.startswith(imp + "/")):
            continue
        if best == "." or len(imp) > len(best):
            best = imp
    return best


def importer_tiers(rel: str, importers) -> dict[str, int]:
    """The tier of each importer's direct dependencies (§2): ``CWD_DIRECT`` for the deepest
    importer other than the root that contains ``rel``, ``ROOT_DIRECT`` for the root '.',
    ``OTHER_DIRECT`` for every other workspace."""
    cwd = importer_for(rel, importers)
    return {imp: CWD_DIRECT if imp == cwd and imp != "." else ROOT_DIRECT if imp == "." else OTHER_DIRECT
            for imp in importers}


def is_regular_file(path: str) -> bool:
    """Whether ``path`` (symlinks followed) is a regular file: a FIFO or a device would block or never end."""
    import stat
    return stat.S_ISREG(os.stat(path).st_mode)


def read_text(path: str) -> str:
    """A small manifest next to the lockfile (package.json, pyproject.toml); '' when absent."""
    try:
        if not is_regular_file(path):
            return ""
        with open(path, "rb") as f:
            data = f.read(4 * 1024 * 1024 + 1)
    except OSError:
        return ""
    if len(data) > 4 * 1024 * 1024:
        return ""
    return data.decode("utf-8", "replace")


def read_json_object(path: str) -> dict:
    """A JSON manifest as a dict; {} when it is absent or not a JSON object."""
    text = read_text(path)
    if not text:
        return {}
    import json
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def read_toml(path: str) -> dict:
    """A TOML manifest (pyproject.toml, Pipfile) as a dict; {} when absent or invalid."""
    text = read_text(path)
    if not text:
        return {}
    import tomllib
    try:
        return tomllib.loads(text)
    except (ValueError, RecursionError):  # TOMLDecodeError is a ValueError
        return {}


def _max_bytes() -> int:
    try:
        return int(os.environ.get("CODENAV_MAX_LOCKFILE_BYTES", "")) or DEFAULT_MAX_BYTES
    except ValueError:
        return DEFAULT_MAX_BYTES


def read_capped(path: str) -> str:
    """The text of a lockfile, or ``LockfileError`` with the reason it cannot be used."""
    limit = _max_bytes()
    try:
        if not is_regular_file(path):
            raise LockfileError("not a regular file")
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > limit:
                raise LockfileError(f"larger than {_mib(limit)} (CODENAV_MAX_LOCKFILE_BYTES)")
            data = f.read(limit + 1)
    except IsADirectoryError:
        raise LockfileError("a directory, not a file") from None
    except OSError as e:
        raise LockfileError(f"cannot be read ({reason_of(e)})") from None
    if len(data) > limit:
        raise LockfileError(f"larger than {_mib(limit)} (CODENAV_MAX_LOCKFILE_BYTES)")
    if b"\0" in data:  # no package manager writes one: a binary file, or one broken in transit
        raise LockfileError("holds NUL bytes: not a text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise LockfileError("not UTF-8 text") from None


def _mib(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB" if n >= 1024 * 1024 else f"{n} bytes"


def version_order(registry: str) -> Callable[[str | None], tuple]:
    """``key(version)``: registry's one version order (its ``version_key``, the one tested
    against its package manager: npm's, pip's, …), so a lockfile picks and lists versions as
    every other part of codenav sorts them; no version sorts lowest."""
    from .. import registries

    key = registries.load(registry).version_key

    def order(version: str | None) -> tuple:
        return (1, key(version)) if version else (0,)

    return order


def reason_of(error: OSError) -> str:
    import errno

    if error.errno == errno.ELOOP:
        return "a symlink loop"
    if error.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return error.strerror or "unreadable"
