"""One version under review: its cache entry's rows and bytes, read at most once each.

``Side`` wraps a published cache entry (duck-typed: ``files()``, ``read(path)``, ``target``,
``path``) so the parts of a review share one view of it: the rows by path, text decoded once,
and the executable bit the extractor kept on the file (the manifest records no modes, the
tree does: archive/tree.py writes 0o755 for a member with an exec bit).
"""

from __future__ import annotations

import os

from ..errors import CodenavError

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from typing import Any

TEXT_CAP = 8 * 1024 * 1024  # a manifest or changelog larger than this is not one a person wrote


class Side:
    def __init__(self, entry: Any) -> None:
        self.entry = entry
        self.target: dict[str, Any] = entry.target
        self.rows = {r.path: r for r in entry.files()}
        self._bytes: dict[str, bytes | None] = {}

    @property
    def registry(self) -> str | None:
        return self.target.get("registry")

    @property
    def label(self) -> str:
        if "commit" in self.target:
            return self.target.get("gitRef") or self.target["commit"][:12]
        return self.target.get("version", "")

    def read(self, path: str) -> bytes | None:
        """The bytes of ``path``, or None when the version has no such stored file."""
        if path not in self._bytes:
            row = self.rows.get(path)
            data = None
            if row is not None and row.skipped is None:
                try:
                    data = self.entry.read(path)[1]
                except CodenavError as exc:
                    if exc.code not in ("FILE_NOT_FOUND", "TOO_LARGE"):
                        raise
            self._bytes[path] = data
        return self._bytes[path]

    def text(self, path: str) -> str | None:
        """``path`` decoded as UTF-8 (a BOM dropped, bad bytes replaced), None when absent or too large."""
        data = self.read(path)
        if data is None or len(data) > TEXT_CAP:
            return None
        return data.decode("utf-8-sig", errors="replace")

    def executable(self, path: str) -> bool:
        """The file was shipped with an executable bit (as kept in the entry's tree)."""
        try:
            return bool(os.stat(os.path.join(self.entry.path, "tree", path)).st_mode & 0o111)
        except (OSError, AttributeError, TypeError):
            return False

    def top(self, names: tuple[str, ...] | None = None) -> list[str]:
        """The paths at the top of the tree (no ``/``), sorted; only those in ``names`` (any case) if given."""
        wanted = None if names is None else {n.lower() for n in names}
        return sorted(p for p in self.rows if "/" not in p and (wanted is None or p.lower() in wanted))
