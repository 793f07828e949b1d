"""What an extractor returns: ``Symbol`` (one definition) and ``Skipped`` (a file not parsed)."""

from __future__ import annotations

KINDS = ("function", "class", "method", "variable", "constant", "type", "interface", "enum", "module",
         "namespace", "property")
SIGNATURE_CHARS = 200  # a signature is one line, cut here


class Symbol:
    """One definition. ``exported`` is None when the language does not say."""

    __slots__ = ("name", "kind", "path", "line", "end_line", "container", "signature", "doc", "exported")

    def __init__(self, name: str, kind: str, path: str, line: int, end_line: int | None = None,
                 container: str = "", signature: str = "", doc: str = "",
                 exported: bool | None = None) -> None:
        self.name = name
        self.kind = kind
        self.path = path
        self.line = line
        self.end_line = end_line
        self.container = container
        self.signature = signature
        self.doc = doc
        self.exported = exported

    def _key(self) -> tuple:
        return tuple(getattr(self, field) for field in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Symbol) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return "Symbol(" + ", ".join(f"{field}={getattr(self, field)!r}" for field in self.__slots__) + ")"

    @property
    def qualified(self) -> str:
        """``container.name``, or the name alone at the top of the file."""
        return f"{self.container}.{self.name}" if self.container else self.name

    def as_dict(self) -> dict:
        """The result shape of the issue (camelCase; absent values left out)."""
        out: dict = {"name": self.name, "kind": self.kind, "path": self.path, "line": self.line}
        if self.end_line is not None:
            out["endLine"] = self.end_line
        if self.container:
            out["container"] = self.container
        if self.signature:
            out["signature"] = self.signature
        if self.doc:
            out["doc"] = self.doc
        if self.exported is not None:
            out["exported"] = self.exported
        return out


class Skipped:
    """A file that an extractor knows but could not read as source; ``reason`` says why."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"Skipped({self.reason!r})"
