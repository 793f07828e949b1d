"""A fake Composer repository (Packagist) and the GitHub zipball hop behind it, on one FakeServer.

``/packages.json`` (``metadata-url``, optionally ``mirrors`` with a ``dist-url`` template),
``/p2/{vendor}/{package}.json`` (tagged releases newest first, minified as ``composer/2.0``:
the first entry whole, each later one only the keys that changed, ``"__unset"`` for removed
ones) and ``…~dev.json`` (branches). Dists point at ``/repos/{Owner}/{repo}/zipball/{sha}``,
which answers 302 to ``/codeload/{Owner}/{repo}/legacy.zip/{sha}`` as api.github.com does; the
zip holds one top folder ``{Owner}-{repo}-{sha7}/``. ``/dists/…`` serves the mirror form.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from dataclasses import dataclass, field

from .http import FakeServer, Reply, Routed


def zipball(owner: str, repo: str, sha: str, files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        top = f"{owner}-{repo}-{sha[:7]}/"
        zf.writestr(top, b"")
        for path, data in sorted(files.items()):
            zf.writestr(top + path, data)
    return buf.getvalue()


_STABILITY = {"dev": 0, "alpha": 1, "beta": 2, "RC": 3, "": 4, "patch": 5}


def _rough_order(normalized: str) -> tuple:
    """Enough of Composer's order for the fake's newest-first listing (four numbers, then
    dev < alpha < beta < RC < stable < patch), apart from codenav's own version code."""
    numbers, _, modifier = normalized.partition("-")
    stability = modifier.rstrip("0123456789")
    return tuple(int(n) for n in numbers.split(".")), _STABILITY.get(stability, 4), modifier


def minify(versions: list[dict]) -> list[dict]:
    """Composer's MetadataMinifier::minify: what expand() undoes."""
    out, previous = [], None
    for entry in versions:
        if previous is None:
            out.append(dict(entry))
        else:
            diff = {k: v for k, v in entry.items() if previous.get(k, object()) != v}
            diff.update({k: "__unset" for k in previous if k not in entry})
            out.append(diff)
        previous = entry
    return out


@dataclass
class FakePackagist(Routed):
    server: FakeServer
    releases: dict[str, list[dict]] = field(default_factory=dict)  # name -> entries, newest first
    zips: dict[str, bytes] = field(default_factory=dict)  # sha -> zip bytes
    mirror: bool = False  # packages.json names a preferred dist-url mirror
    minified: bool = True

    ROUTES = (("GET", "/packages.json", "_root"), ("GET", "/p2/*", "_p2"), ("GET", "/repos/*", "_zipball"),
              ("GET", "/codeload/*", "_codeload"), ("GET", "/dists/*", "_dist"))

    def publish(self, name: str, version: str, files: dict[str, bytes], *, owner: str = "Seldaek",
                shasum: bool = False, zip_bytes: bytes | None = None, extra: dict | None = None) -> bytes:
        """Tag ``version`` (as published, e.g. ``3.7.0`` or ``v3.7.0``); newest-first order is kept
        by normalised version. Returns the zip."""
        repo = name.split("/", 1)[1]
        sha = hashlib.sha1(f"{name}@{version}".encode()).hexdigest()
        data = zip_bytes if zip_bytes is not None else zipball(owner, repo, sha, files)
        self.zips[sha] = data
        numbers = version.lstrip("vV").split("-", 1)
        core = ".".join((numbers[0].split(".") + ["0"] * 4)[:4])
        normal = core + ("-" + numbers[1] if len(numbers) > 1 else "")
        entry = {
            "name": name, "description": "Sends your logs to files, sockets, inboxes, databases and various web services",
            "keywords": ["log", "logging", "psr-3"], "homepage": "https://github.com/Seldaek/monolog",
            "version": version, "version_normalized": normal, "license": ["MIT"],
            "source": {"url": f"https://github.com/{owner}/{repo}.git", "type": "git", "reference": sha},
            "dist": {"url": f"{self.server.url}/repos/{owner}/{repo}/zipball/{sha}", "type": "zip",
                     "reference": sha, "shasum": hashlib.sha1(data).hexdigest() if shasum else ""},
            "type": "library", "time": "2024-06-28T09:40:51+00:00",
            "require": {"php": ">=8.1", "psr/log": "^2.0 || ^3.0"}, **(extra or {}),
        }
        entries = self.releases.setdefault(name, [])
        entries.append(entry)
        entries.sort(key=lambda e: _rough_order(e["version_normalized"]), reverse=True)
        return data

    def _root(self, handler) -> Reply:
        doc: dict = {"packages": [], "metadata-url": "/p2/%package%.json",
                     "available-package-patterns": ["*/*"], "notify-batch": "https://packagist.org/downloads/"}
        if self.mirror:
            doc["mirrors"] = [{"dist-url": self.server.url + "/dists/%package%/%reference%.%type%", "preferred": True}]
        return Reply.json(doc)

    def _p2(self, handler) -> Reply:
        path = handler.path.split("?", 1)[0][len("/p2/"):]
        if not path.endswith(".json"):
            return Reply(404, b"Not Found", {"Content-Type": "text/plain"})
        name = path[:-5]
        if name.endswith("~dev"):
            name = name[:-4]
            if name not in self.releases:
                return Reply.json({"status": "error", "message": "Not Found"}, status=404)
            return Reply.json({"packages": {name: []}, "minified": "composer/2.0"})
        if name not in self.releases:
            return Reply.json({"status": "error", "message": "Not Found"}, status=404)
        entries = self.releases[name]
        doc: dict = {"packages": {name: minify(entries) if self.minified else entries}}
        if self.minified:
            doc["minified"] = "composer/2.0"
        return Reply.json(doc, headers={"Last-Modified": "Fri, 28 Jun 2024 09:41:00 GMT"})

    def _zipball(self, handler) -> Reply:
        parts = handler.path.strip("/").split("/")  # repos/{owner}/{repo}/zipball/{sha}
        if len(parts) == 5 and parts[3] == "zipball" and parts[4] in self.zips:
            return Reply(302, b"", {"Location": f"{self.server.url}/codeload/{parts[1]}/{parts[2]}/legacy.zip/{parts[4]}"})
        return Reply.json({"message": "Not Found"}, status=404)

    def _codeload(self, handler) -> Reply:
        sha = handler.path.rsplit("/", 1)[-1]
        if sha not in self.zips:
            return Reply(404, b"404: Not Found", {"Content-Type": "text/plain"})
        return Reply(200, self.zips[sha], {"Content-Type": "application/zip",
                                           "Content-Disposition": "attachment; filename=monolog.zip"})

    def _dist(self, handler) -> Reply:
        sha = handler.path.rsplit("/", 1)[-1].removesuffix(".zip")
        if sha not in self.zips:
            return Reply(404, b"Not Found", {"Content-Type": "text/plain"})
        return Reply(200, self.zips[sha], {"Content-Type": "application/zip"})
