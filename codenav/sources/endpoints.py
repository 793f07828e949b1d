"""Where the registries are: configuration first, then the package managers (SPEC §3).

No public registry host is written here. Order, per registry:
  npm:  CODENAV_NPM_REGISTRY, npm_config_registry, .npmrc ``registry=`` (project, user),
        then ``npm config get registry``;
  pypi: CODENAV_PYPI_INDEX_URL, PIP_INDEX_URL, pip's config files ``index-url``,
        then pip itself (its built-in default index).
A package manager is asked once; the answer is cached in the cache's ``state/`` folder.
Auth tokens found in .npmrc are attached to requests but never echoed anywhere.
"""

from __future__ import annotations

import os
import sys

from ..errors import CodenavError

# A warm call asks for an endpoint on every run: this module imports no json, pathlib or
# urllib at load (they cost more than the rest of the call), only where they are needed.

DISCOVERY_TIMEOUT = 30.0


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


def _clean(url: str) -> str:
    url = url.strip().strip('"').strip("'")
    return url if url.endswith("/") else url + "/"


# --- npm -----------------------------------------------------------------------------------

def _npmrc_files() -> list[str]:
    files = [os.path.join(os.getcwd(), ".npmrc")]
    user = os.environ.get("npm_config_userconfig") or os.environ.get("NPM_CONFIG_USERCONFIG")
    files.append(user if user else os.path.join(os.path.expanduser("~"), ".npmrc"))
    return files


def _npmrc_values() -> dict[str, str]:
    """key=value pairs of the .npmrc files; the project file wins over the user file."""
    values: dict[str, str] = {}
    for path in reversed(_npmrc_files()):
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except OSError:
            continue
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith(("#", ";")) or "=" not in line:
                continue
            key, _, value = line.partition("=")
            values[key.strip()] = os.path.expandvars(value.strip().strip('"'))
    return values


def npm_registry() -> str:
    for var in ("CODENAV_NPM_REGISTRY", "npm_config_registry", "NPM_CONFIG_REGISTRY"):
        if os.environ.get(var):
            return _clean(os.environ[var])
    rc = _npmrc_values().get("registry")
    if rc:
        return _clean(rc)
    return _cached_discovery("npm", _ask_npm, "CODENAV_NPM_REGISTRY", "npm registry")


def npm_auth_headers(url: str) -> dict[str, str]:
    """Authorization for ``url`` from .npmrc ``//host/path/:_authToken=`` (longest match)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    target = f"//{parts.netloc}{parts.path}"
    best: tuple[int, dict[str, str]] | None = None
    for key, value in _npmrc_values().items():
        if not key.startswith("//"):
            continue
        prefix, _, setting = key.rpartition(":")
        if not target.startswith(prefix):
            continue
        header = None
        if setting == "_authToken":
            header = {"Authorization": f"Bearer {value}"}
        elif setting == "_auth":
            header = {"Authorization": f"Basic {value}"}
        if header and (best is None or len(prefix) > best[0]):
            best = (len(prefix), header)
    return best[1] if best else {}


def _ask_npm() -> str | None:
    from ..proc import output

    # From the caller's directory: npm reads the project's .npmrc there.
    value = (output(["npm", "config", "get", "registry"], DISCOVERY_TIMEOUT, cwd=os.getcwd()) or "").strip()
    return value if value.startswith(("http://", "https://")) else None


# --- PyPI ----------------------------------------------------------------------------------

def _pip_config_files() -> list[str]:
    if os.environ.get("PIP_CONFIG_FILE"):
        return [os.environ["PIP_CONFIG_FILE"]]
    home = os.path.expanduser("~")
    xdg_dirs = os.environ.get("XDG_CONFIG_DIRS", "/etc/xdg").split(os.pathsep)
    config_home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    files = ["/etc/pip.conf", *(os.path.join(d, "pip", "pip.conf") for d in reversed(xdg_dirs))]
    files += [os.path.join(home, ".pip", "pip.conf"), os.path.join(config_home, "pip", "pip.conf")]
    if os.environ.get("VIRTUAL_ENV"):
        files.append(os.path.join(os.environ["VIRTUAL_ENV"], "pip.conf"))
    return files


def _pip_config_index() -> str | None:
    found = None
    for path in _pip_config_files():  # later files override earlier ones, as in pip
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except OSError:
            continue
        if "index-url" not in text.lower():
            continue  # the usual case, decided without configparser (it imports re)
        import configparser

        parser = configparser.RawConfigParser()
        try:
            parser.read_string(text, source=path)
        except configparser.Error:
            continue
        for section in ("global", "download", "install"):
            if parser.has_option(section, "index-url"):
                found = parser.get(section, "index-url")
    return found


def pypi_index() -> str:
    for var in ("CODENAV_PYPI_INDEX_URL", "PIP_INDEX_URL"):
        if os.environ.get(var):
            return _clean(os.environ[var])
    configured = _pip_config_index()
    if configured:
        return _clean(configured)
    return _cached_discovery("pypi", _ask_pip, "CODENAV_PYPI_INDEX_URL", "Python package index")


def _ask_pip() -> str | None:
    # pip has no public command that prints its built-in default index, so ask the pip of
    # this interpreter for the constant it uses itself (see docs/decisions.md).
    from ..proc import output

    code = "from pip._internal.models.index import PyPI; print(PyPI.simple_url)"
    value = (output([sys.executable, "-c", code], DISCOVERY_TIMEOUT) or "").strip()
    return value if value.startswith(("http://", "https://")) else None


# --- the discovery cache -------------------------------------------------------------------

def _cached_discovery(kind: str, ask, variable: str, what: str) -> str:
    from ..entries import read_json, state_dir

    state = os.path.join(state_dir(), "endpoints.json")
    try:
        known = read_json(state)
    except (OSError, ValueError):
        known = {}
    if isinstance(known.get(kind), str):
        return known[kind]
    answer = None if os.environ.get("CODENAV_NO_DISCOVERY") else ask()
    if not answer:
        tool = "npm" if kind == "npm" else "pip"
        raise CodenavError(
            "CONFIG_ERROR",
            f"no {what} is configured and {tool} could not report one; set {variable} to the registry URL",
            details={"action": f"set {variable}"},
        )
    known[kind] = _clean(answer)
    import json

    os.makedirs(os.path.dirname(state), exist_ok=True)
    tmp = f"{os.path.splitext(state)[0]}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(known, sort_keys=True))
    os.replace(tmp, state)
    return known[kind]
