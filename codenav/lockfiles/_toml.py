"""``tomllib`` with its errors turned into ``LockfileError`` (one line, naming the position)."""

from __future__ import annotations

from ._common import LockfileError


def loads(text: str) -> dict:
    import tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise LockfileError(f"not valid TOML ({str(e).splitlines()[0]})") from None
