"""A cache entry made from a dict of files, for the review's parts that read an entry duck-typed
(``files()``, ``read(path)``, ``target``, ``path``): real files in a real tree, real rows."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from codenav.cache.store import Row


class DictEntry:
    def __init__(self, root: Path, files: dict[str, bytes], target: dict | None = None,
                 executable: tuple[str, ...] = ()) -> None:
        self.path = str(root)
        self.target = target or {"registry": "npm", "name": "demo", "version": "1.0.0"}
        self.ranged = False
        self.warnings: list[str] = []
        tree = root / "tree"
        rows = []
        for path, data in sorted(files.items()):
            (tree / path).parent.mkdir(parents=True, exist_ok=True)
            (tree / path).write_bytes(data)
            os.chmod(tree / path, 0o755 if path in executable else 0o644)
            rows.append(Row([path, len(data), None, None, b"\0" in data[:8000], None, hashlib.sha256(data).hexdigest()]))
        self._rows = rows

    def files(self) -> list[Row]:
        return self._rows

    def read(self, path: str) -> tuple[Row, bytes]:
        row = next(r for r in self._rows if r.path == path)
        return row, (Path(self.path) / "tree" / path).read_bytes()
