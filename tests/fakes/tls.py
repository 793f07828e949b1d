"""A test CA and server certificates, made with ``openssl`` into a folder at test time.

The CA's basicConstraints is deliberately *not* critical, as many TLS-inspecting proxies'
roots are: a context with ``VERIFY_X509_STRICT`` refuses it, pip's and codenav's accept it.
The server certificate names ``localhost``, ``registry.test`` (reachable only through the
proxy fake) and 127.0.0.1; ``chain.pem`` is it plus the CA, so an untrusting client reports
"self-signed certificate in certificate chain". ``selfsigned.pem`` is a lone self-signed leaf;
``wrong_name`` a CA-signed certificate for another name (a hostname mismatch).
"""

from __future__ import annotations

import shutil
import ssl
import subprocess
from dataclasses import dataclass
from pathlib import Path

CA_CONFIG = """[req]
distinguished_name = dn
prompt = no
x509_extensions = v3
[dn]
CN = codenav test CA
[v3]
basicConstraints = CA:TRUE
keyUsage = keyCertSign, cRLSign
subjectKeyIdentifier = hash
"""
LEAF_EXTENSIONS = """basicConstraints = CA:FALSE
keyUsage = digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, DNS:registry.test, IP:127.0.0.1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
"""
WRONG_NAME_EXTENSIONS = """basicConstraints = CA:FALSE
extendedKeyUsage = serverAuth
subjectAltName = DNS:elsewhere.test
"""
SELF_CONFIG = """[req]
distinguished_name = dn
prompt = no
x509_extensions = v3
[dn]
CN = localhost
[v3]
subjectAltName = DNS:localhost, IP:127.0.0.1
"""


@dataclass
class Certs:
    ca: Path  # the CA certificate (PEM): what a user would configure
    chain: Path  # server certificate + CA
    key: Path
    selfsigned: Path
    selfsigned_key: Path
    wrong_name: Path  # signed by the CA for elsewhere.test only, plus the CA

    def server_context(self, selfsigned: bool = False, wrong_name: bool = False) -> ssl.SSLContext:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        if selfsigned:
            ctx.load_cert_chain(self.selfsigned, self.selfsigned_key)
        elif wrong_name:
            ctx.load_cert_chain(self.wrong_name, self.key)
        else:
            ctx.load_cert_chain(self.chain, self.key)
        return ctx


def make(folder: Path) -> Certs:
    """Generate the certificates into ``folder`` (needs ``openssl`` on PATH)."""
    openssl = shutil.which("openssl")
    assert openssl, "openssl is needed to make the test CA"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ca.cnf").write_text(CA_CONFIG)
    (folder / "leaf.cnf").write_text(LEAF_EXTENSIONS)
    (folder / "self.cnf").write_text(SELF_CONFIG)
    (folder / "wrong.cnf").write_text(WRONG_NAME_EXTENSIONS)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], cwd=folder, check=True, capture_output=True, timeout=60)

    run("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "3650", "-config", "ca.cnf")
    run("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "server.pem", "-days", "3650", "-extfile", "leaf.cnf")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "wrong.pem", "-days", "3650", "-extfile", "wrong.cnf")
    run("req", "-x509", *ec, "-keyout", "self.key", "-out", "self.pem", "-days", "3650", "-config", "self.cnf")
    ca = (folder / "ca.pem").read_bytes()
    (folder / "chain.pem").write_bytes((folder / "server.pem").read_bytes() + ca)
    (folder / "wrong-chain.pem").write_bytes((folder / "wrong.pem").read_bytes() + ca)
    return Certs(folder / "ca.pem", folder / "chain.pem", folder / "server.key", folder / "self.pem",
                 folder / "self.key", folder / "wrong-chain.pem")
