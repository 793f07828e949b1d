"""Broken lockfiles: the shapes every lockfile reader must survive without failing a call.

``shapes(good, syntax)`` derives, from one good file of a format, the broken files of issue 23's
"hostile and broken lockfiles of each format never fail a call": cut in half, empty, valid syntax
with the wrong types, nested past any sane depth, binary, not UTF-8, NUL bytes, and one 4 MiB line.
``syntax`` (a key of ``WRONG_TYPES``) picks the wrong-types and deep-nesting files written in the
format's own syntax, so the reader gets past its parser and meets the nonsense.
"""

from __future__ import annotations

WRONG_TYPES = {
    "toml": 'version = 4\npackage = "x"\n[versions]\ndemo = 3\n[libraries]\ndemo = 5\n[dependencies]\ndemo = []\n',
    "json": '{"packages": {"name": 3}, "packages-dev": [1, null, {"name": ["x"], "version": 2}], '
            '"dependencies": {"net8.0": [], "net9.0": {"X": {"type": "Direct", "resolved": 5}}}, "require": [1]}',
    "xml": "<Project><ItemGroup><PackageReference/><PackageVersion Include=''/></ItemGroup>"
           "<dependencies><dependency/>text<dependency><version>1</version></dependency></dependencies>"
           "<parent><relativePath>/</relativePath></parent></Project>",
    "lines": "module\nrequire (\n  x\n)\nreplace => =>\nuse\n=\n:::=\nGEM\n  remote: x\n  specs:\n    rack\n",
    "elixir": '%{"jason": [1, 2], "x": {:hex}, 3 => 4}',
}
NESTED = {
    "toml": "a = " + "[" * 100_000 + "]" * 100_000 + "\n",
    "json": "[" * 200_000 + "]" * 200_000,
    "xml": "<project>" + "<a>" * 50_000 + "</a>" * 50_000 + "</project>",
    "lines": "module x\nrequire (\n" * 10_000 + "GEM\n  specs:\n" + "    " * 10_000 + "x (1)\n",
    "elixir": "%{" + '"a": {' * 10_000 + "}" * 10_000 + "}",
}


def shapes(good: str, syntax: str, *, wrong_types: str | None = None, nested: str | None = None) -> dict[str, bytes]:
    """The broken variants of ``good``, by name (``wrong_types``/``nested`` replace the syntax's own)."""
    data = good.encode()
    return {
        "truncated": data[: len(data) // 2],
        "empty": b"",
        "wrong types": (wrong_types if wrong_types is not None else WRONG_TYPES[syntax]).encode(),
        "deep nesting": (nested if nested is not None else NESTED[syntax]).encode(),
        "binary": bytes(range(256)) * 64,
        "not utf-8": data.replace(b"a", b"\xff", 3),
        "nul bytes": data.replace(b"\n", b"\0\n", 5),
        "huge line": b"x" * (4 * 1024 * 1024),
    }
