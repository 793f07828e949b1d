"""The symbol index of the real sources in tests/data/symbols/ is what the extractors wrote before.

tests/data/symbols-index.tsv was written by the extractors as they were before their token
loops were shared (issue 22); the recall tests say which of those definitions are right, this
one says that a change meant to keep the output keeps it, byte for byte, for every language.
"""

from __future__ import annotations

from pathlib import Path

from codenav.search.symbols import build_index

DATA = Path(__file__).resolve().parent / "data"


def test_the_index_of_the_real_sources_is_unchanged(tmp_path: Path) -> None:
    """Every definition of every real source file, with its lines, signature, doc and exported flag, is as recorded."""
    root = DATA / "symbols"
    files = sorted((p.relative_to(root).as_posix(), p.read_bytes()) for p in root.rglob("*") if p.is_file())
    out = tmp_path / "symbols.tsv"
    counts = build_index(iter(files), str(out))
    assert counts["files"] >= 23 and counts["symbols"] > 450
    assert out.read_text(encoding="utf-8") == (DATA / "symbols-index.tsv").read_text(encoding="utf-8")
