"""The floor of a cold call: fetch a package's two documents with nothing but ``http.client``.

    python bench/rawfetch.py --accept application/json DOCUMENT_URL ARTIFACT_URL

What a cold ``codenav files SPEC`` cannot do with less: start Python, import ``http.client``
and ``ssl``, build a verifying TLS context from the system store in its cheapest form (the
hashed certificate folder, looked up lazily, when OpenSSL names one: as config/trust.py does;
``ssl.create_default_context()`` would parse the whole bundle that ``SSL_CERT_FILE`` names), GET the registry's document
for the version (npm's version document, PyPI's project page) and then its artifact, one
kept-alive connection per host, each body read whole and dropped. ``bench/run.py`` runs it
alternating with codenav, on the same interpreter, against the same two URLs codenav fetched.
Exit status 0 only when both answered 200.
"""

from __future__ import annotations

import http.client
import os
import ssl
import sys
from urllib.parse import urlsplit


def main(argv: list[str]) -> int:
    accept = "*/*"
    if argv[:1] == ["--accept"]:
        accept, argv = argv[1], argv[2:]
    context = _context()
    connections: dict[tuple[str, str], http.client.HTTPConnection] = {}
    for number, url in enumerate(argv):
        parts = urlsplit(url)
        key = (parts.scheme, parts.netloc)
        conn = connections.get(key)
        if conn is None:
            if parts.scheme == "https":
                conn = http.client.HTTPSConnection(parts.netloc, timeout=60, context=context)
            else:
                conn = http.client.HTTPConnection(parts.netloc, timeout=60)
            connections[key] = conn
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        conn.request("GET", path, headers={"Accept": accept if number == 0 else "*/*"})
        resp = conn.getresponse()
        while resp.read(256 * 1024):
            pass
        if resp.status != 200:
            sys.stderr.write(f"rawfetch: {url} answered HTTP {resp.status}\n")
            return 1
    return 0


def _context() -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    folder = ssl.get_default_verify_paths().capath
    if folder and os.path.isdir(folder):
        context.load_verify_locations(capath=folder)
    else:
        context.load_default_certs()
    return context


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
