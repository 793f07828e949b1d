"""The proxy npm or pip would use for a URL, from their configuration (SPEC §8.1).

net.py first lets requests read the environment (``HTTPS_PROXY``/``HTTP_PROXY``/``NO_PROXY``,
and the macOS/Windows system proxy); only when that finds none does ``configured`` apply the
package manager's own setting to the exchanges of its registry:

- npm: ``https-proxy``, else ``proxy``, for every URL whatever its scheme (npm-registry-fetch
  passes one proxy); ``noproxy`` (default ``NO_PROXY``) compared by dot-labels from the right,
  no ``*``, no CIDR, no port, as npm's agent does;
- pip: ``proxy`` (``[global]``/``[download]``/``PIP_PROXY``). ``NO_PROXY`` still bypasses it
  (pip drops every environment setting when ``proxy`` is set; codenav keeps NO_PROXY, so one
  variable says "direct" for every tool).

``redact`` (errors.redact_url) removes ``user:password@`` from a proxy URL: credentials never
reach a message.
"""

from __future__ import annotations

import os

from ..errors import redact_url

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Mapping


def configured(url: str, manager: str | None, env: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """(proxy URL, where it is set) that ``manager``'s configuration gives ``url``, or None."""
    from urllib.parse import urlsplit

    from . import npmrc, pipconf

    env = os.environ if env is None else env
    host = (urlsplit(url).hostname or "").lower()
    if manager == "npm":
        config = npmrc.load(env)
        for key in ("https-proxy", "proxy"):
            value = config.get(key)
            if isinstance(value, str) and value and not npmrc.is_false(value):
                noproxy = config.get("noproxy") or env.get("NO_PROXY") or env.get("no_proxy") or ""
                if npm_bypasses(host, noproxy):
                    return None
                return value, f"{key} in {config.source(key)}"
        return None
    if manager == "pip":
        found = pipconf.load(env).get("proxy")
        if found and found[0]:
            if bypasses(host, env.get("no_proxy") or env.get("NO_PROXY") or ""):
                return None
            where = found[1] if found[1] == "PIP_PROXY" else f"proxy in {found[1]}"
            return found[0], where
    return None


def npm_bypasses(host: str, noproxy: object) -> bool:
    """npm's ``noproxy`` test: an entry's dot-labels equal the host's last labels."""
    entries = noproxy if isinstance(noproxy, list) else str(noproxy).split(",")
    labels = host.split(".")[::-1]
    for entry in entries:
        wanted = [part for part in str(entry).strip().lower().split(".") if part][::-1]
        if wanted and labels[: len(wanted)] == wanted:
            return True
    return False


def bypasses(host: str, no_proxy: str) -> bool:
    """``NO_PROXY`` as requests reads it for names: ``*``, or a suffix with or without a dot."""
    for entry in no_proxy.replace(" ", "").split(","):
        entry = entry.lower().lstrip(".")
        if entry == "*" or (entry and (host == entry or host.endswith("." + entry))):
            return True
    return False


# Proxy URLs in messages (neterrors.py) go through the one URL redactor.
redact = redact_url
