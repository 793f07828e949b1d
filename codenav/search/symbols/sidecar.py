"""The symbol index of a cache entry, as a sidecar (SPEC §2.9): ``write(entry, out_path)``.

Run at indexing time (cache/indexing.py SIDECARS) and, for an entry published before the
index existed, on first use (store.Entry.sidecar). It streams the entry's text files, one at a
time, through ``build_index``: memory stays bounded by the largest file, whatever the number
of files. Binary files and symlinks are passed over (a link's target is indexed under its own
path). The files come from the entry's text list (``searchable()``, the ``text.txt`` sidecar), not
its manifest: a 43,000-file manifest decoded costs 25 MB this does not need. ``entry`` is
duck-typed (``path`` and ``searchable()``), so this module imports no cache code.
"""

from __future__ import annotations

import os

from . import build_index

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

NAME = "symbols.tsv"


def _sources(entry: Any) -> Iterator[tuple[str, bytes]]:
    from . import language

    tree = os.path.join(entry.path, "tree")
    text_files, _binary, _not_stored = entry.searchable()  # links, binaries and unstored files are in neither
    for path, _size in text_files:
        if language(path) is None:
            continue  # no extractor would read it: spare the disk read
        try:
            with open(os.path.join(tree, path), "rb") as handle:
                data = handle.read()
        except OSError:
            continue  # the manifest is the truth; a file gone from disk is not the index's to report
        yield path, data


def write(entry: Any, out_path: str) -> dict[str, int]:
    """Write the symbol index of ``entry`` to ``out_path``; returns build_index's counts."""
    return build_index(_sources(entry), out_path)
