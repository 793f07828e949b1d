"""The answer of a lockfile lookup (``Locked``) and the words for an unreadable file."""

from __future__ import annotations

from ._common import REGISTRY, reason_of  # noqa: F401  (reason_of: also imported from here)


class Locked:
    """Where the project's version of a package comes from.

    ``version``: the version to fetch, or None for a non-registry copy (see ``source``);
    ``name``: the package to fetch (the alias target when the request named an alias);
    ``kind``: "lockfile" or "installed"; ``file``: the file it was read from, relative to the
    start directory, '/'-separated; ``entry``: its key in that file; ``other_versions``: the
    other versions locked for the package, highest first; ``warnings``: one-line strings;
    ``source``: "registry", "git", "file", "link", "workspace", "directory" or "url";
    ``ref``: the git commit or local path of a non-registry copy.
    """

    __slots__ = ("name", "version", "kind", "file", "entry", "other_versions", "warnings", "source", "ref")

    def __init__(self, name: str, version: str | None, kind: str, file: str, entry: str,
                 other_versions: list[str] | None = None, warnings: list[str] | None = None,
                 source: str = REGISTRY, ref: str | None = None) -> None:
        self.name, self.version, self.kind, self.file, self.entry = name, version, kind, file, entry
        self.other_versions = list(other_versions or [])
        self.warnings = list(warnings or [])
        self.source, self.ref = source, ref

    def _fields(self) -> tuple:
        return tuple(getattr(self, f) for f in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Locked) and self._fields() == other._fields()

    def __repr__(self) -> str:
        return "Locked(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self.__slots__) + ")"
