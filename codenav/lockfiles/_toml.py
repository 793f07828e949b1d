"""``tomllib`` with its errors turned into ``LockfileError`` (one line, naming the position; a file
nested past the interpreter's recursion limit is one too, so a manifest read beside a lockfile
cannot void the lockfile)."""

from __future__ import annotations

from ._common import LockfileError


def loads(text: str) -> dict:
    import tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise LockfileError(f"not valid TOML ({str(e).splitlines()[0]})") from None
    except RecursionError:
        raise LockfileError("nested too deeply") from None
