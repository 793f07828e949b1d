"""Trust, proxies and insecure settings as npm and pip read them, end to end (SPEC §8.1).

Every call is a codenav subprocess with only HOME (a temp dir), PATH and CODENAV_CACHE_DIR
(plus PYTHONPATH to find this checkout), as MCP clients start servers; the configuration is
in files under that HOME. The fake registries serve HTTPS with a test CA whose
basicConstraints is not critical; ``registry.test`` is reachable only through the CONNECT
proxy fake. Servers and certificates are made once per module.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import tls
from tests.fakes.http import FakeServer
from tests.fakes.npm import FakeNpm
from tests.fakes.proxy import ConnectProxy
from tests.fakes.pypi import FakePypi
from tests.support.cli import ROOT

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl makes the test CA")

NPM_FILES = {"package.json": b'{"name": "demo", "version": "1.0.0"}\n', "index.js": b"module.exports = 1;\n"}
PY_FILES = {"demo/__init__.py": b"VALUE = 1\n"}
SECRET = "s3cr3tPROXYtoken"
# What no envelope may contain: Python reprs of exceptions, OpenSSL's source file, urllib3's pool repr.
FORBIDDEN = ("Error(", "_ssl.c", "HTTPSConnectionPool(", "HTTPConnectionPool(", "object at 0x", "Caused by")


@dataclass
class World:
    certs: tls.Certs
    npm: FakeNpm  # https://localhost:port
    pypi: FakePypi  # https://localhost:port
    npm_far: FakeNpm  # https://registry.test:port, only through the proxy
    pypi_far: FakePypi
    npm_self: FakeNpm  # a self-signed certificate
    npm_wrong: FakeNpm  # a certificate from the test CA for another name
    proxy: ConnectProxy
    refusing: ConnectProxy


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    certs = tls.make(tmp_path_factory.mktemp("tls"))
    servers = [FakeServer(certs.server_context(), "localhost"), FakeServer(certs.server_context(), "localhost"),
               FakeServer(certs.server_context(), "registry.test"), FakeServer(certs.server_context(), "registry.test"),
               FakeServer(certs.server_context(selfsigned=True), "localhost"),
               FakeServer(certs.server_context(wrong_name=True), "localhost")]
    proxies = [ConnectProxy(), ConnectProxy(refuse=True)]
    for thing in (*servers, *proxies):
        thing.__enter__()
    npm, npm_far, npm_self, npm_wrong = FakeNpm(servers[0]), FakeNpm(servers[2]), FakeNpm(servers[4]), FakeNpm(servers[5])
    pypi, pypi_far = FakePypi(servers[1]), FakePypi(servers[3])
    for fake in (npm, npm_far, npm_self, npm_wrong):
        fake.publish("demo", "1.0.0", NPM_FILES)
    for fake in (pypi, pypi_far):
        fake.add_wheel("demo", "1.0", PY_FILES)
    try:
        yield World(certs, npm, pypi, npm_far, pypi_far, npm_self, npm_wrong, *proxies)
    finally:
        for thing in (*servers, *proxies):
            thing.__exit__(None, None, None)


class Home:
    """A temp HOME with config files, and the minimal environment to run codenav in."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.path = base / "home"
        self.path.mkdir(exist_ok=True)
        self.env = {"HOME": str(self.path), "PATH": os.environ.get("PATH", ""),
                    "CODENAV_CACHE_DIR": str(base / "cache"), "PYTHONPATH": str(ROOT)}

    def write(self, relative: str, text: str) -> Path:
        path = self.path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def npmrc(self, text: str) -> Path:
        return self.write(".npmrc", text)

    def pipconf(self, text: str) -> Path:
        return self.write(".config/pip/pip.conf", text)

    def cli(self, *args: str, **env: str) -> tuple[int, dict[str, Any], str]:
        done = subprocess.run([sys.executable, "-m", "codenav", *args, "--json"], capture_output=True,
                              env={**self.env, **env}, cwd=self.base, timeout=120, stdin=subprocess.DEVNULL)
        out, err = done.stdout.decode(), done.stderr.decode()
        return done.returncode, json.loads(out) if out.strip() else {}, out + err

    def mcp(self, arguments: dict[str, Any], **env: str) -> tuple[dict[str, Any], str]:
        """One tools/call list_files over stdio JSON-RPC; (the tool result, all output)."""
        frames = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
                   "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "test", "version": "0"}}},
                  {"jsonrpc": "2.0", "method": "notifications/initialized"},
                  {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "list_files", "arguments": arguments}}]
        proc = subprocess.Popen([sys.executable, "-m", "codenav", "mcp", "--json"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**self.env, **env}, cwd=self.base)
        assert proc.stdin and proc.stdout and proc.stderr
        errors: list[bytes] = []
        pump = threading.Thread(target=lambda: errors.append(proc.stderr.read()), daemon=True)
        pump.start()
        proc.stdin.write(b"".join(json.dumps(f).encode() + b"\n" for f in frames))
        proc.stdin.flush()
        lines: list[bytes] = []
        try:
            while True:
                line = proc.stdout.readline()
                assert line, "the server closed stdout before answering"
                lines.append(line)
                if json.loads(line).get("id") == 1:
                    break
            proc.stdin.close()
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        pump.join(5)
        result = json.loads(lines[-1])["result"]
        return result, b"".join(lines).decode() + b"".join(errors).decode()


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


def npm_registry(fake: FakeNpm) -> str:
    return f"registry={fake.url}\n"


def pip_index(fake: FakePypi) -> str:
    return f"[global]\nindex-url = {fake.url}\n"


def listed(payload: dict[str, Any]) -> list[str]:
    return [row["path"] if isinstance(row, dict) else row[0] for row in payload.get("files", [])]


def assert_clean(text: str) -> None:
    for token in FORBIDDEN:
        assert token not in text, f"{token!r} leaked into the output: {text[:800]}"


def mcp_arguments(registry: str) -> dict[str, Any]:
    name, version = ("demo", "1.0.0") if registry == "npm" else ("demo", "1.0")
    return {"registry": registry, "package_name": name, "version": version}


def mcp_error(result: dict[str, Any]) -> dict[str, Any]:
    assert result.get("isError"), result
    payload = result.get("structuredContent") or json.loads(result["content"][0]["text"])
    return payload["error"]


# --- trust -------------------------------------------------------------------------------------

def configure_registries(home: Home, world: World, npmrc_extra: str = "", pip_extra: str = "") -> None:
    home.npmrc(npm_registry(world.npm) + npmrc_extra)
    home.pipconf(pip_index(world.pypi) + pip_extra)


@pytest.mark.parametrize("registry", ["npm", "pypi"])
def test_an_untrusted_certificate_is_a_tls_error_in_words(home: Home, world: World, registry: str) -> None:
    """Without the test CA configured the call fails with TLS_ERROR: not retryable, naming the
    host, OpenSSL's reason, the CA sources consulted and how to add one, with no repr."""
    configure_registries(home, world)
    spec = "npm:demo@1.0.0" if registry == "npm" else "pypi:demo@1.0"
    code, payload, output = home.cli("files", spec)
    assert code != 0
    error = payload["error"]
    assert error["code"] == "TLS_ERROR" and error["retryable"] is False
    assert "self-signed certificate in certificate chain" in error["message"]
    port = (world.npm if registry == "npm" else world.pypi).server.server_address[1]
    assert f"localhost:{port}" in error["message"] and error["details"]["host"] == f"localhost:{port}"
    for hint in ("cafile", "cert", "CODENAV_CA_BUNDLE"):
        assert hint in error["message"]
    assert any(s.startswith("the system") for s in error["details"]["caSources"])
    assert_clean(output)


def _trust_npmrc_cafile(home: Home, world: World) -> dict[str, str]:
    home.npmrc(npm_registry(world.npm) + f"cafile={world.certs.ca}\n")
    return {}


def _trust_global_npmrc(home: Home, world: World) -> dict[str, str]:
    # A node installed under a prefix of its own: npm's global file is <prefix>/etc/npmrc.
    prefix = home.base / "node"
    (prefix / "bin").mkdir(parents=True)
    node = prefix / "bin" / "node"
    node.write_text("#!/bin/sh\nexit 1\n")
    node.chmod(0o755)
    (prefix / "etc").mkdir()
    (prefix / "etc" / "npmrc").write_text(f"cafile={world.certs.ca}\n")
    home.npmrc(npm_registry(world.npm))
    return {"PATH": f"{prefix / 'bin'}{os.pathsep}{home.env['PATH']}"}


def _trust_npmrc_inline_ca(home: Home, world: World) -> dict[str, str]:
    pem = world.certs.ca.read_text().strip().replace("\n", "\\n")
    home.npmrc(npm_registry(world.npm) + f'ca[]="{pem}"\n')
    return {}


def _trust_ssl_cert_file(home: Home, world: World) -> dict[str, str]:
    home.npmrc(npm_registry(world.npm))
    return {"SSL_CERT_FILE": str(world.certs.ca)}


def _trust_pip_cert(home: Home, world: World) -> dict[str, str]:
    home.pipconf(pip_index(world.pypi) + f"cert = {world.certs.ca}\n")
    return {}


def _trust_pip_cert_variable(home: Home, world: World) -> dict[str, str]:
    home.pipconf(pip_index(world.pypi))
    return {"PIP_CERT": str(world.certs.ca)}


def _trust_codenav_bundle(home: Home, world: World) -> dict[str, str]:
    home.pipconf(pip_index(world.pypi))
    return {"CODENAV_CA_BUNDLE": str(world.certs.ca)}


TRUST_WAYS = {
    "npmrc-cafile": ("npm", _trust_npmrc_cafile),
    "global-npmrc": ("npm", _trust_global_npmrc),
    "npmrc-inline-ca": ("npm", _trust_npmrc_inline_ca),
    "SSL_CERT_FILE": ("npm", _trust_ssl_cert_file),
    "pip.conf-cert": ("pypi", _trust_pip_cert),
    "PIP_CERT": ("pypi", _trust_pip_cert_variable),
    "CODENAV_CA_BUNDLE": ("pypi", _trust_codenav_bundle),
}


@pytest.mark.parametrize("way", list(TRUST_WAYS))
def test_a_configured_ca_is_trusted_through_the_cli(home: Home, world: World, way: str) -> None:
    """The test CA named in any one place npm, pip or codenav read makes the HTTPS fetch work."""
    registry, configure = TRUST_WAYS[way]
    env = configure(home, world)
    spec = "npm:demo@1.0.0" if registry == "npm" else "pypi:demo@1.0"
    code, payload, output = home.cli("files", spec, **env)
    assert code == 0, output
    expected = "index.js" if registry == "npm" else "demo/__init__.py"
    assert expected in listed(payload)
    assert payload["target"]["verified"] is True


@pytest.mark.parametrize("way", list(TRUST_WAYS))
def test_a_configured_ca_is_trusted_through_mcp(home: Home, world: World, way: str) -> None:
    """The same configuration works for `codenav mcp` started with only HOME and PATH."""
    registry, configure = TRUST_WAYS[way]
    env = configure(home, world)
    result, output = home.mcp(mcp_arguments(registry), **env)
    assert not result.get("isError"), output
    text = json.dumps(result)
    assert ("index.js" if registry == "npm" else "demo/__init__.py") in text


def test_an_untrusted_certificate_through_mcp_is_the_tls_error(home: Home, world: World) -> None:
    """Under MCP the untrusted registry gives the same typed, non-retryable TLS_ERROR."""
    configure_registries(home, world)
    result, output = home.mcp(mcp_arguments("npm"))
    error = mcp_error(result)
    assert error["code"] == "TLS_ERROR" and error["retryable"] is False
    assert "self-signed certificate in certificate chain" in error["message"]
    assert_clean(output)


def test_a_certificate_for_another_name_is_a_hostname_mismatch(home: Home, world: World) -> None:
    """A trusted CA does not excuse a certificate issued for another host: TLS_ERROR says
    "hostname mismatch" in OpenSSL's words."""
    home.npmrc(npm_registry(world.npm_wrong) + f"cafile={world.certs.ca}\n")
    code, payload, output = home.cli("files", "npm:demo@1.0.0")
    error = payload["error"]
    assert error["code"] == "TLS_ERROR", error
    assert "hostname mismatch" in error["details"]["reason"]
    assert_clean(output)


def test_a_strict_context_would_refuse_the_test_ca(world: World) -> None:
    """The test CA has teeth: with VERIFY_X509_STRICT (Python 3.13's default) it is refused,
    while codenav's context (no STRICT, as pip) accepts it."""
    def handshake(strict: bool) -> str:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.load_verify_locations(world.certs.ca)
        if strict:
            ctx.verify_flags |= ssl.VERIFY_X509_STRICT
        port = world.npm.server.server_address[1]
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as raw, \
                    ctx.wrap_socket(raw, server_hostname="localhost"):
                return "ok"
        except ssl.SSLCertVerificationError as exc:
            return exc.verify_message

    assert "not marked critical" in handshake(True)
    assert handshake(False) == "ok"


# --- proxies -----------------------------------------------------------------------------------

def _tunnels_to(proxy: ConnectProxy, server: FakeServer) -> int:
    return sum(1 for method, target, _ in proxy.connects
               if method == "CONNECT" and target == f"{server.host}:{server.server_address[1]}")


PROXY_WAYS = {
    "HTTPS_PROXY": "npm",
    "npmrc-https-proxy": "npm",
    "npmrc-proxy": "npm",
    "pip.conf-proxy": "pypi",
}


@pytest.mark.parametrize("way", list(PROXY_WAYS))
def test_each_proxy_setting_carries_the_traffic(home: Home, world: World, way: str) -> None:
    """A registry reachable only through the proxy is read through it, from each setting."""
    registry = PROXY_WAYS[way]
    env: dict[str, str] = {}
    trust = f"cafile={world.certs.ca}\n"
    if registry == "npm":
        extra = {"npmrc-https-proxy": f"https-proxy={world.proxy.url}\n",
                 "npmrc-proxy": f"proxy={world.proxy.url}\n"}.get(way, "")
        home.npmrc(npm_registry(world.npm_far) + trust + extra)
        server = world.npm_far.server
        if way == "HTTPS_PROXY":
            env["HTTPS_PROXY"] = world.proxy.url
    else:
        home.pipconf(pip_index(world.pypi_far) + f"cert = {world.certs.ca}\nproxy = {world.proxy.url}\n")
        server = world.pypi_far.server
    before = _tunnels_to(world.proxy, server)
    spec = "npm:demo@1.0.0" if registry == "npm" else "pypi:demo@1.0"
    code, payload, output = home.cli("files", spec, **env)
    assert code == 0, output
    assert listed(payload)
    assert _tunnels_to(world.proxy, server) - before >= 2  # the metadata and the artifact


@pytest.mark.parametrize("setting", ["NO_PROXY", "npm-noproxy"])
def test_no_proxy_and_npm_noproxy_go_direct(home: Home, world: World, setting: str) -> None:
    """A host listed in NO_PROXY (or npm's noproxy) is reached directly: the proxy sees nothing."""
    env: dict[str, str] = {}
    if setting == "NO_PROXY":
        home.npmrc(npm_registry(world.npm) + f"cafile={world.certs.ca}\n")
        env = {"HTTPS_PROXY": world.proxy.url, "NO_PROXY": "localhost"}
    else:
        home.npmrc(npm_registry(world.npm) + f"cafile={world.certs.ca}\nhttps-proxy={world.proxy.url}\n"
                   "noproxy=example.org,localhost\n")
    before = _tunnels_to(world.proxy, world.npm.server)
    code, payload, output = home.cli("files", "npm:demo@1.0.0", **env)
    assert code == 0, output
    assert _tunnels_to(world.proxy, world.npm.server) == before


def test_pip_proxy_applies_to_the_index_only(home: Home, world: World) -> None:
    """pip's proxy is for the index: an npm fetch in the same home goes direct."""
    home.npmrc(npm_registry(world.npm) + f"cafile={world.certs.ca}\n")
    home.pipconf(f"[global]\nproxy = {world.refusing.url}\n")
    code, payload, output = home.cli("files", "npm:demo@1.0.0")
    assert code == 0, output


def test_proxy_credentials_are_used_but_never_shown(home: Home, world: World) -> None:
    """A proxy URL with user:password authenticates the tunnel, and the secret is in no output,
    neither on success nor when the proxy refuses."""
    url = world.proxy.url.replace("http://", f"http://agent:{SECRET}@")
    home.npmrc(npm_registry(world.npm_far) + f"cafile={world.certs.ca}\nhttps-proxy={url}\n")
    code, payload, output = home.cli("files", "npm:demo@1.0.0")
    assert code == 0, output
    sent = [auth for _, target, auth in world.proxy.connects if auth]
    assert "Basic " + base64.b64encode(f"agent:{SECRET}".encode()).decode() in sent
    assert SECRET not in output
    refused = world.refusing.url.replace("http://", f"http://agent:{SECRET}@")
    home.npmrc(npm_registry(world.npm_far) + f"cafile={world.certs.ca}\nhttps-proxy={refused}\n")
    code, payload, output = home.cli("files", "npm:demo@2.0.0")
    assert code != 0
    assert SECRET not in output and "***@" in payload["error"]["message"]
    result, mcp_output = home.mcp({"registry": "npm", "package_name": "demo", "version": "3.0.0"})
    assert SECRET not in mcp_output


# --- insecure settings -------------------------------------------------------------------------

def test_strict_ssl_false_is_refused_naming_the_file(home: Home, world: World) -> None:
    """strict-ssl=false is a CONFIG_ERROR naming the setting and the .npmrc that sets it."""
    rc = home.npmrc(npm_registry(world.npm_self) + "strict-ssl=false\n")
    code, payload, output = home.cli("files", "npm:demo@1.0.0")
    error = payload["error"]
    assert error["code"] == "CONFIG_ERROR"
    assert "strict-ssl=false" in error["message"] and str(rc) in error["message"]
    assert "CODENAV_ALLOW_INSECURE" in error["message"]
    assert world.npm_self.tarball_hits == 0


def test_strict_ssl_false_with_the_opt_in_succeeds_and_says_so(home: Home, world: World) -> None:
    """With CODENAV_ALLOW_INSECURE=1 a self-signed registry is read, and the result says
    verified: false with the setting and its file in verification — on the CLI and MCP."""
    rc = home.npmrc(npm_registry(world.npm_self) + "strict-ssl=false\n")
    code, payload, output = home.cli("files", "npm:demo@1.0.0", CODENAV_ALLOW_INSECURE="1")
    assert code == 0, output
    target = payload["target"]
    assert target["verified"] is False
    assert "strict-ssl=false" in target["verification"] and str(rc) in target["verification"]
    result, _ = home.mcp(mcp_arguments("npm"), CODENAV_ALLOW_INSECURE="1")
    assert not result.get("isError"), result
    assert result["structuredContent"]["target"]["verified"] is False
    assert "strict-ssl=false" in result["structuredContent"]["target"]["verification"]


def test_pip_trusted_host_is_refused_naming_the_file(home: Home, world: World) -> None:
    """pip's trusted-host for the index host is refused the same way, naming pip.conf."""
    conf = home.pipconf(pip_index(world.pypi) + "trusted-host = localhost\n")
    code, payload, output = home.cli("files", "pypi:demo@1.0")
    error = payload["error"]
    assert error["code"] == "CONFIG_ERROR"
    assert "trusted-host localhost" in error["message"] and str(conf) in error["message"]


# --- every fault in words ----------------------------------------------------------------------

class _Resetting(threading.Thread):
    """Accepts connections and resets them at once (SO_LINGER 0)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]

    def run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            conn.close()


def _dead_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def resetting() -> Iterator[_Resetting]:
    server = _Resetting()
    server.start()
    yield server
    server.sock.close()


@pytest.mark.parametrize("fault", ["refused", "reset", "tls", "proxy-refuses", "proxy-down", "dns"])
def test_every_network_fault_is_told_in_words(home: Home, world: World, resetting: _Resetting, fault: str) -> None:
    """Refused, reset, TLS, a proxy refusing CONNECT or down, an unresolvable name: each error
    says what happened and carries no exception repr, no _ssl.c, no connection-pool repr."""
    registry = {
        "refused": f"registry=https://127.0.0.1:{_dead_port()}/\n",
        "reset": f"registry=https://127.0.0.1:{resetting.port}/\n",
        "tls": npm_registry(world.npm),
        "proxy-refuses": npm_registry(world.npm_far) + f"https-proxy={world.refusing.url}\n",
        "proxy-down": npm_registry(world.npm_far) + f"https-proxy=http://127.0.0.1:{_dead_port()}\n",
        "dns": "registry=https://no-such-host.invalid/\n",
    }[fault]
    home.npmrc(registry)
    code, payload, output = home.cli("files", "npm:demo@1.0.0")
    assert code != 0
    error = payload["error"]
    assert_clean(output)
    expected = {
        "refused": ("NETWORK", "connection refused"),
        "reset": ("NETWORK", "reset"),
        "tls": ("TLS_ERROR", "self-signed certificate in certificate chain"),
        "proxy-refuses": ("NETWORK", "403 Forbidden"),
        "proxy-down": ("NETWORK", "could not reach the proxy"),
        "dns": ("NETWORK", "no-such-host.invalid could not be resolved"),
    }[fault]
    assert error["code"] == expected[0], error
    assert expected[1] in error["message"], error["message"]
