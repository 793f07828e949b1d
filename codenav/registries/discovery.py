"""Endpoint discovery shared by the registries: clean a base URL, ask a package manager once.

Each registry module decides its own ladder (codenav's variable, then the package manager's
configuration, then the package manager itself or a public default written once in that
module). A package manager's answer is cached in the cache's ``state/endpoints.json``, so a
warm call never starts npm or pip. This module imports only ``os`` at load (warm path).
"""

from __future__ import annotations

import os

from ..errors import CodenavError

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable

DISCOVERY_TIMEOUT = 30.0  # seconds a package manager gets to report its configuration


def clean(url: str) -> str:
    """A configured base URL without quotes, ending in one ``/``."""
    url = url.strip().strip('"').strip("'")
    return url if url.endswith("/") else url + "/"


def redact(url: str) -> str:
    """A URL with any user:password removed, for messages."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        if parts.port:
            host += f":{parts.port}"
        return urlunsplit((parts.scheme, "***@" + host, parts.path, parts.query, parts.fragment))
    return url


def ask(argv: list[str], *, cwd: str | None = None) -> str | None:
    """A package manager's one-line answer when it is an http(s) URL, else None."""
    from ..proc import output

    value = (output(argv, DISCOVERY_TIMEOUT, cwd=cwd) or "").strip()
    return value if value.startswith(("http://", "https://")) else None


def cached(kind: str, ask_tool: Callable[[], str | None], variable: str, what: str, tool: str) -> str:
    """The endpoint ``ask_tool`` reports, asked once per cache and remembered in ``state/``."""
    from ..paths import atomic_write, read_json, state_dir

    state = os.path.join(state_dir(), "endpoints.json")
    try:
        known = read_json(state)
    except (OSError, ValueError):
        known = {}
    if isinstance(known.get(kind), str):
        return known[kind]
    answer = None if os.environ.get("CODENAV_NO_DISCOVERY") else ask_tool()
    if not answer:
        raise CodenavError(
            "CONFIG_ERROR",
            f"no {what} is configured and {tool} could not report one; set {variable} to the registry URL",
            details={"action": f"set {variable}"},
        )
    known[kind] = clean(answer)
    import json

    os.makedirs(os.path.dirname(state), exist_ok=True)
    atomic_write(state, json.dumps(known, sort_keys=True), remake_parent=True)
    return known[kind]
