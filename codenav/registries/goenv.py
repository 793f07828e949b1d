"""The go command's own settings, as Go reads them (SPEC §3.11): what go.py (the proxy) and
gosumdb.py (the checksum database) both need.

- ``setting(NAME)``: the environment wins over the ``go env -w`` file (``$GOENV``, else
  ``$XDG_CONFIG_HOME/go/env`` or ``~/.config/go/env``; ``GOENV=off`` turns the file off);
- ``matches(module, patterns)``: module.MatchPrefixPatterns, for GOPRIVATE, GONOPROXY, GONOSUMDB;
- ``escape(text)``: the case encoding of paths and versions on the wire (``!burnt!sushi``).

Imports only ``os``: go.py reads settings on the warm path.
"""

from __future__ import annotations

import os

_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _goenv_file() -> str | None:
    configured = os.environ.get("GOENV")
    if configured == "off":
        return None
    if configured:
        return configured
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(config, "go", "env")


def _goenv_values() -> dict[str, str]:
    """KEY=VALUE lines of the ``go env -w`` file (Go reads it the same way)."""
    path = _goenv_file()
    values: dict[str, str] = {}
    if not path:
        return values
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return values
    for line in text.splitlines():
        key, eq, value = line.strip().partition("=")
        if eq and key[:1].isupper():
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            values[key.strip()] = value
    return values


def setting(name: str) -> str:
    """A go command setting: the environment wins over the ``go env -w`` file (as in Go)."""
    if name in os.environ:
        return os.environ[name]
    return _goenv_values().get(name, "")


def matches(module: str, patterns: str) -> bool:
    """Go's module.MatchPrefixPatterns: a comma list of globs, each matching a path prefix."""
    from fnmatch import fnmatchcase

    elements = module.split("/")
    for pattern in patterns.split(","):
        pattern = pattern.strip().strip("/")
        if not pattern:
            continue
        parts = pattern.split("/")
        if len(parts) <= len(elements) and all(
                fnmatchcase(e, p) for e, p in zip(elements[:len(parts)], parts, strict=False)):
            return True
    return False


def escape(text: str) -> str:
    """Go's case encoding for proxy URLs: each upper-case letter becomes ``!`` + lower case."""
    return "".join("!" + c.lower() if c in _UPPER else c for c in text)
