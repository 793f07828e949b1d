"""Which CAs codenav trusts, and the insecure settings it refuses (SPEC §8.1).

One ``ssl.SSLContext`` per process, built on first use by ``context()`` and shared by every
connection: ``PROTOCOL_TLS_CLIENT`` (certificates and host names checked), the system store
(``load_default_certs``; on Linux, when OpenSSL's default paths hold nothing, the first
existing distro bundle), certifi's bundle, and every CA the user configured anywhere
(``sources()``): ``CODENAV_CA_BUNDLE``; npm's ``cafile``/``ca`` from every npmrc layer; pip's
``cert`` from every config file and ``PIP_CERT``; ``SSL_CERT_FILE``, ``REQUESTS_CA_BUNDLE``,
``CURL_CA_BUNDLE``, ``NODE_EXTRA_CA_CERTS``. The union is additive (npm's ``cafile`` replaces
Node's roots; here one context serves every host, and a corporate root that re-signs
everything works either way). No ``VERIFY_X509_STRICT``: interception roots often lack a
critical basicConstraints, and pip accepts them.

``insecure(url, manager)`` names a setting that turns verification off for that exchange
(npm ``strict-ssl=false``; pip ``trusted-host`` for the URL's host) and the file that sets it;
net.py refuses such exchanges unless ``CODENAV_ALLOW_INSECURE=1``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Mapping
    from ssl import SSLContext

INSECURE_VARIABLE = "CODENAV_ALLOW_INSECURE"
CA_VARIABLE = "CODENAV_CA_BUNDLE"
ENV_BUNDLES = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS")
# truststore's list: the bundle each Linux distribution ships, first existing one wins
DISTRO_BUNDLES = ("/etc/ssl/cert.pem", "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", "/etc/pki/tls/cert.pem",
                  "/etc/ssl/certs/ca-certificates.crt", "/etc/ssl/ca-bundle.pem")
HOW_TO_ADD = (f"name your CA's PEM file in ~/.npmrc (cafile=/path/ca.pem), in pip.conf ([global] cert = "
              f"/path/ca.pem) or in {CA_VARIABLE}")


class Source:
    """One configured CA: where it was found (for messages), and a file path or PEM text."""

    def __init__(self, label: str, path: str | None = None, pem: str | None = None) -> None:
        self.label, self.path, self.pem = label, path, pem
        self.problem: str | None = None  # why it could not be loaded, once tried

    def describe(self) -> str:
        text = f"{self.label} ({self.path})" if self.path else self.label
        return f"{text}: {self.problem}" if self.problem else text


def sources(env: Mapping[str, str] | None = None, cwd: str | None = None) -> list[Source]:
    """Every CA the user configured, in the order of the module docstring."""
    from . import npmrc, pipconf

    env = os.environ if env is None else env
    found: list[Source] = []
    if env.get(CA_VARIABLE):
        found.append(Source(CA_VARIABLE, env[CA_VARIABLE]))
    npm = npmrc.load(env, cwd)
    for layer, where, values in npm.layers:
        origin = "the environment" if layer == "env" else where
        cafile = values.get("cafile")
        if isinstance(cafile, str) and cafile:
            found.append(Source(f"npm cafile in {origin}" if layer != "env" else "npm_config_cafile", cafile))
        ca = values.get("ca")
        for text in ([ca] if isinstance(ca, str) else ca if isinstance(ca, list) else []):
            if isinstance(text, str) and "BEGIN CERTIFICATE" in text:
                found.append(Source(f"npm ca in {origin}" if layer != "env" else "npm_config_ca", pem=text))
    pip = pipconf.load(env)
    for value, where, section in pip.all("cert"):  # every file's, not only the winning one
        if value:
            found.append(Source(where if section == ":env:" else f"pip cert in {where} [{section}]", value))
    for variable in ENV_BUNDLES:
        if env.get(variable):
            found.append(Source(variable, env[variable]))
    return found


_CONTEXT: list = []  # [(context, the sources consulted, in words)] once built


def context() -> SSLContext:
    """The process's one verifying TLS context (built on first use)."""
    if not _CONTEXT:
        _CONTEXT.append(_build())
    return _CONTEXT[0][0]


def consulted() -> list[str]:
    """What the context was built from, in words (for the TLS error)."""
    context()
    return list(_CONTEXT[0][1])


def _build() -> tuple[SSLContext, list[str]]:
    import ssl

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.verify_flags &= ~getattr(ssl, "VERIFY_X509_STRICT", 0)
    words: list[str] = []
    paths = ssl.get_default_verify_paths()
    hashed = bool(paths.capath and _has_hashed_certs(paths.capath))
    loaded: set[str] = set()
    system = os.name == "nt" or hashed or bool(paths.cafile)
    if os.name != "nt" and hashed and paths.cafile and _inside(paths.cafile, paths.capath):
        # The bundle is generated from the hashed folder (update-ca-certificates): the folder,
        # looked up lazily, holds the same roots without parsing ~150 certificates up front.
        ctx.load_verify_locations(capath=paths.capath)
        loaded.add(os.path.realpath(paths.cafile))
        words.append(f"the system store ({paths.capath})")
    else:
        ctx.load_default_certs()
        if paths.cafile:
            loaded.add(os.path.realpath(paths.cafile))
        if os.name == "nt":
            words.append("the Windows certificate store")
        elif paths.cafile or hashed:
            words.append(f"the system store ({paths.cafile or paths.capath})")
        else:
            for bundle in DISTRO_BUNDLES:
                if os.path.isfile(bundle):
                    _load(ctx, Source("the system bundle", bundle), loaded)
                    words.append(f"the system bundle ({bundle})")
                    system = True
                    break
            else:
                words.append("the system store (empty)")
    if not system:
        # certifi only stands in for a missing system store: both carry Mozilla's roots, and
        # parsing ~150 PEM certificates costs about 80 ms of every cold process (OpenSSL 3).
        try:
            import certifi

            _load(ctx, Source("certifi", certifi.where()), loaded)
            words.append(f"certifi ({certifi.where()})")
        except ImportError:
            pass
    for source in sources():
        _load(ctx, source, loaded)
        words.append(source.describe())
    return ctx, words


def _load(ctx: SSLContext, source: Source, loaded: set[str]) -> None:
    """Add one source; one that cannot be read is noted, not fatal (the TLS error lists it).
    A file already loaded is not parsed again (the system bundle is often also npm's cafile
    and pip's cert, and each parse costs tens of milliseconds)."""
    import ssl

    if source.path is not None:
        real = os.path.realpath(source.path)
        if real in loaded and os.path.isfile(real):
            return
        loaded.add(real)
    try:
        if source.pem is not None:
            ctx.load_verify_locations(cadata=source.pem)
        elif source.path and os.path.isdir(source.path):
            ctx.load_verify_locations(capath=source.path)
        else:
            ctx.load_verify_locations(cafile=source.path)
    except FileNotFoundError:
        source.problem = "no such file"
    except PermissionError:
        source.problem = "not readable"
    except (ssl.SSLError, OSError, ValueError):
        source.problem = "holds no PEM certificate codenav could read"


def _inside(path: str, folder: str) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(folder)
    return os.path.dirname(real) == top


def _has_hashed_certs(folder: str) -> bool:
    try:
        return any(len(name) == 10 and name[8] == "." and name[9].isdigit() for name in os.listdir(folder))
    except OSError:
        return False


# --- insecure settings -------------------------------------------------------------------------

def insecure(url: str, manager: str | None, env: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """(setting, where it is set) when ``manager``'s configuration turns TLS checks off for the
    https ``url``: npm ``strict-ssl=false`` (every npm exchange), pip ``trusted-host`` (that host)."""
    from urllib.parse import urlsplit

    from . import npmrc, pipconf

    env = os.environ if env is None else env
    if not url.lower().startswith("https:"):
        return None  # nothing to verify on plain http (a loopback mirror): no TLS to turn off
    if manager == "npm":
        config = npmrc.load(env)
        if npmrc.is_false(config.get("strict-ssl")):
            return "strict-ssl=false", config.source("strict-ssl") or "npm's configuration"
    elif manager == "pip":
        found = pipconf.load(env).get("trusted-host")
        if found:
            parts = urlsplit(url)
            host = (parts.hostname or "").lower()
            with_port = f"{host}:{parts.port}" if parts.port else host
            for entry in pipconf.split_list(found[0]):
                if entry.lower() in (host, with_port):
                    return f"trusted-host {entry}", found[1]
    return None


def insecure_allowed(env: Mapping[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    return env.get(INSECURE_VARIABLE, "") not in ("", "0")


def insecure_note(url: str, manager: str | None) -> str | None:
    """For the result's ``verification``: why TLS was off for this artifact, when it was."""
    found = insecure(url, manager)
    if found is None or not insecure_allowed():
        return None
    return f"{found[0]} in {found[1]}, allowed by {INSECURE_VARIABLE}=1"
