"""A fake Maven repository on a FakeServer: a static file tree, as Maven Central serves it.

Under ``/maven2/``: ``{group/as/path}/{artifact}/maven-metadata.xml`` (versions in deploy
order, ``<release>`` the last one deployed, ``text/xml``), each version's jars
(``application/java-archive``) and their checksum side files (``text/plain``; ``.md5`` and
``.sha1`` always, ``.sha256``/``.sha512`` when asked, optionally in the old
``hash  filename`` form). 404s are HTML pages. ``rate_limited`` answers every request with
Central's real 429 body. HEAD is answered like GET (the body is ignored by the client).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from .archives import make_zip
from .http import FakeServer, Reply, Routed

RATE_LIMIT_BODY = (b"Your IP: 127.0.0.1 has hit the rate limit with Maven Central. Too many requests. Find out "
                   b"more in https://www.sonatype.com/blog/maven-central-and-the-tragedy-of-the-commons")
ALL_SIDES = ("md5", "sha1", "sha256", "sha512")


@dataclass
class FakeMaven(Routed):
    server: FakeServer
    files: dict[str, bytes] = field(default_factory=dict)  # path under /maven2/ -> bytes
    versions: dict[str, list[str]] = field(default_factory=dict)  # "g:a" -> versions in deploy order
    rate_limited: bool = False

    ROUTES = (("GET", "/maven2/*", "_serve"), ("HEAD", "/maven2/*", "_serve"))
    BASE = "/maven2/"

    @staticmethod
    def folder(name: str) -> str:
        group, _, artifact = name.partition(":")
        return f"{group.replace('.', '/')}/{artifact}/"

    def put(self, path: str, data: bytes, *, sides: tuple[str, ...] = ALL_SIDES, old_style: bool = False,
            digest_of: bytes | None = None) -> None:
        """One deployed file and its side files (``digest_of``: the bytes the side files describe)."""
        self.files[path] = data
        for algorithm in sides:
            digest = hashlib.new(algorithm, data if digest_of is None else digest_of).hexdigest()
            text = f"{digest}  {path.rsplit('/', 1)[-1]}\n" if old_style else digest
            self.files[f"{path}.{algorithm}"] = text.encode()

    def publish(self, name: str, version: str, files: dict[str, bytes] | None = None, *,
                sources: bool = True, jar: dict[str, bytes] | None = None, sides: tuple[str, ...] = ALL_SIDES,
                old_style: bool = False, sources_jar: bytes | None = None) -> bytes | None:
        """Deploy ``version``: its POM, a -sources.jar of ``files`` (unless ``sources`` is False)
        and a binary jar of ``jar``; the metadata gains the version. Returns the sources jar."""
        artifact = name.partition(":")[2]
        base = f"{self.folder(name)}{version}/{artifact}-{version}"
        self.put(base + ".pom", f"<project><artifactId>{artifact}</artifactId></project>".encode())
        data = None
        if sources:
            data = sources_jar if sources_jar is not None else make_zip(
                {"META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\r\n\r\n", **(files or {})})
            self.put(base + "-sources.jar", data, sides=sides, old_style=old_style)
        if jar is not None:
            self.put(base + ".jar", make_zip({"META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\r\n\r\n", **jar}),
                     sides=sides, old_style=old_style)
        self.versions.setdefault(name, []).append(version)
        self.files[self.folder(name) + "maven-metadata.xml"] = self.metadata(name)
        return data

    def metadata(self, name: str) -> bytes:
        group, _, artifact = name.partition(":")
        versions = self.versions[name]
        listed = "".join(f"\n      <version>{v}</version>" for v in versions)
        return (f'<?xml version="1.0" encoding="UTF-8"?>\n<metadata>\n  <groupId>{group}</groupId>\n'
                f"  <artifactId>{artifact}</artifactId>\n  <versioning>\n    <latest>{versions[-1]}</latest>\n"
                f"    <release>{versions[-1]}</release>\n    <versions>{listed}\n    </versions>\n"
                f"    <lastUpdated>20260801120000</lastUpdated>\n  </versioning>\n</metadata>\n").encode()

    def _serve(self, handler) -> Reply:
        if self.rate_limited:
            return Reply(429, RATE_LIMIT_BODY, {"Content-Type": "text/plain", "Retry-After": "7"})
        path = handler.path.split("?", 1)[0][len("/maven2/"):]
        from urllib.parse import unquote

        data = self.files.get(unquote(path))
        if data is None:
            return Reply(404, b"<html><body><h1>404 Not Found</h1></body></html>", {"Content-Type": "text/html"})
        if path.endswith(".xml"):
            kind = "text/xml"
        elif path.endswith(".jar"):
            kind = "application/java-archive"
        else:
            kind = "text/plain"
        return Reply(200, data, {"Content-Type": kind, "Last-Modified": "Fri, 01 Aug 2026 12:00:00 GMT"})
