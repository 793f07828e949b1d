"""The two records the review's readers hand on: a manifest's statements and a public definition."""

from __future__ import annotations

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from typing import Any


class Manifest:
    """What one manifest says. ``hooks``: label -> what runs at install or build time."""

    def __init__(self, fmt: str, path: str) -> None:
        self.format = fmt
        self.path = path
        self.name: str | None = None
        self.version: str | None = None
        self.deps: list[tuple[str, str, str, str]] = []
        self.license: str | None = None
        self.hooks: dict[str, str] = {}
        self.bins: dict[str, str] = {}
        self.error: str | None = None

    def add(self, kind: str, name: str, spec: Any, condition: str = "") -> None:
        self.deps.append((kind, name, " ".join(str(condition).split()), " ".join(str(spec or "").split())))


class Definition:
    """One public definition: where it is, what it is, how it reads."""

    __slots__ = ("key", "name", "kind", "path", "line", "signature")

    def __init__(self, key: tuple, name: str, kind: str, path: str, line: int, signature: str) -> None:
        self.key, self.name, self.kind, self.path, self.line, self.signature = key, name, kind, path, line, signature
