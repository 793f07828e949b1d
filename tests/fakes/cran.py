"""A fake CRAN-like repository on a FakeServer, speaking the real wire format.

What it serves, and where the format comes from:

- ``/src/contrib/PACKAGES`` and ``/src/contrib/PACKAGES.gz``: the DCF index ``tools::write_PACKAGES``
  writes (R 4.2's ``tools:::.get_standard_repository_db_fields``: ``Package``, ``Version``,
  ``Depends``, ``Imports``, ``License``, ``MD5sum``, ``NeedsCompilation``; ``Path`` and ``File``
  when a package lives elsewhere), one stanza per package sorted by name, a blank line between,
  and the same text gzipped. No ``PACKAGES.rds`` (404), so R's ``available.packages`` falls back
  to PACKAGES.gz exactly as against a repository without one (its body, read from R 4.2.2's
  ``utils::available.packages``);
- ``/src/contrib/NAME_VERSION.tar.gz``: the current version (``utils::download.packages`` builds
  that name from PACKAGES, or takes ``File``), a tar.gz with one ``NAME/`` folder holding
  ``DESCRIPTION`` (with CRAN's ``Repository``/``Date/Publication`` lines), ``NAMESPACE``,
  ``MD5`` and the files — a package ``R CMD INSTALL`` accepts;
- ``/src/contrib/Archive/NAME/``: the older versions as CRAN's Apache ``mod_autoindex`` page
  lists them (an HTML table of ``<a href="NAME_VERSION.tar.gz">`` rows after a "Parent
  Directory" row), and each ``/src/contrib/Archive/NAME/NAME_VERSION.tar.gz``; 404 for a package
  with no archive, as CRAN answers (renv and remotes read the same paths:
  ``renv_retrieve_repos_archive_formatter``'s default "cran" layout);
- 404 pages are HTML, as Apache's.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
from dataclasses import dataclass, field

from .http import FakeServer, Reply


def description(name: str, version: str) -> bytes:
    return (f"Package: {name}\nType: Package\nTitle: A Demo Package\nVersion: {version}\n"
            "Author: Demo Author [aut, cre]\nMaintainer: Demo Author <demo@example.org>\n"
            "Description: A package the fake repository serves.\nLicense: MIT + file LICENSE\n"
            "Encoding: UTF-8\nNeedsCompilation: no\nPackaged: 2024-05-01 10:00:00 UTC; demo\n"
            "Repository: CRAN\nDate/Publication: 2024-05-02 08:00:02 UTC\n").encode()


def make_tarball(name: str, version: str, files: dict[str, bytes], *, top: str | None = None) -> bytes:
    """A source package as ``R CMD build`` and CRAN write it: everything under ``NAME/``."""
    tree = {"DESCRIPTION": description(name, version), "NAMESPACE": b'exportPattern("^[[:alpha:]]+")\n',
            "LICENSE": b"YEAR: 2024\nCOPYRIGHT HOLDER: Demo Author\n", **files}
    tree["MD5"] = "".join(f"{hashlib.md5(data).hexdigest()} *{path}\n" for path, data in sorted(tree.items())
                          if path != "DESCRIPTION").encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.USTAR_FORMAT) as tar:
        for path, data in sorted(tree.items()):
            info = tarfile.TarInfo(f"{name if top is None else top}/{path}".lstrip("/"))
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@dataclass
class CranPackage:
    name: str
    version: str
    data: bytes
    md5: str | None  # None: the stanza has no MD5sum field
    archived: bool = False
    path: str | None = None  # PACKAGES' Path field: the tarball lives in src/contrib/<path>/

    @property
    def filename(self) -> str:
        return f"{self.name}_{self.version}.tar.gz"

    def stanza(self) -> str:
        fields = [("Package", self.name), ("Version", self.version), ("Depends", "R (>= 3.5.0)"),
                  ("Imports", "stats,\n        utils"), ("License", "MIT + file LICENSE")]
        fields += [("MD5sum", self.md5)] if self.md5 is not None else []
        fields += [("NeedsCompilation", "no")] + ([("Path", self.path)] if self.path else [])
        return "".join(f"{k}: {v}\n" for k, v in fields)


@dataclass
class FakeCran:
    """Routes PACKAGES, the tarballs and the Archive on a FakeServer."""

    server: FakeServer
    packages: list[CranPackage] = field(default_factory=list)
    tarball_hits: int = 0
    serve_gz: bool = True  # False: PACKAGES.gz is 404, as in a repository that writes PACKAGES only

    def __post_init__(self) -> None:
        self.server.route("GET", "/src/contrib/PACKAGES", self._packages)
        self.server.route("GET", "/src/contrib/PACKAGES.gz", self._packages_gz)
        self.server.route_prefix("GET", "/src/contrib/", self._file)

    @property
    def url(self) -> str:
        return self.server.url + "/"

    def publish(self, name: str, version: str, files: dict[str, bytes] | None = None, *, archived: bool = False,
                tarball: bytes | None = None, md5: str | None = "real", path: str | None = None) -> bytes:
        """A version of ``name``; ``archived`` puts it in Archive/NAME/ (and out of PACKAGES)."""
        data = tarball if tarball is not None else make_tarball(name, version, files or {})
        self.packages.append(CranPackage(name, version, data, hashlib.md5(data).hexdigest() if md5 == "real" else md5,
                                         archived, path))
        return data

    def record(self, name: str, version: str) -> CranPackage:
        return next(p for p in self.packages if (p.name, p.version) == (name, version))

    def packages_text(self) -> str:
        current = sorted((p for p in self.packages if not p.archived), key=lambda p: p.name)
        return "\n".join(p.stanza() for p in current)

    def listing(self, name: str) -> str:
        rows = "".join(
            f'<tr><td valign="top"><img src="/icons/compressed.gif" alt="[   ]"></td><td><a href="{p.filename}">'
            f'{p.filename}</a></td><td align="right">2023-01-0{i % 9 + 1} 10:0{i % 10}  </td><td align="right">'
            f'{len(p.data) // 1024 + 1}K</td><td>&nbsp;</td></tr>\n'
            for i, p in enumerate(p for p in self.packages if p.name == name and p.archived))
        return (f'<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">\n<html>\n <head>\n  <title>Index of '
                f'/src/contrib/Archive/{name}</title>\n </head>\n <body>\n<h1>Index of /src/contrib/Archive/{name}</h1>\n'
                '  <table>\n   <tr><th valign="top"><img src="/icons/blank.gif" alt="[ICO]"></th><th><a href="?C=N;O=D">'
                'Name</a></th><th><a href="?C=M;O=A">Last modified</a></th><th><a href="?C=S;O=A">Size</a></th><th>'
                '<a href="?C=D;O=A">Description</a></th></tr>\n   <tr><th colspan="5"><hr></th></tr>\n'
                '<tr><td valign="top"><img src="/icons/back.gif" alt="[PARENTDIR]"></td><td><a href="/src/contrib/'
                'Archive/">Parent Directory</a></td><td>&nbsp;</td><td align="right">  - </td><td>&nbsp;</td></tr>\n'
                f'{rows}   <tr><th colspan="5"><hr></th></tr>\n</table>\n</body></html>\n')

    def _packages(self, handler) -> Reply:
        return Reply(200, self.packages_text().encode(), {"Content-Type": "text/plain; charset=utf-8"})

    def _packages_gz(self, handler) -> Reply:
        if not self.serve_gz:
            return _not_found("/src/contrib/PACKAGES.gz")
        return Reply(200, gzip.compress(self.packages_text().encode()), {"Content-Type": "application/x-gzip"})

    def _file(self, handler) -> Reply:
        path = handler.path.split("?", 1)[0]
        rest = path[len("/src/contrib/"):]
        if rest.startswith("Archive/") and rest.endswith("/"):
            name = rest[len("Archive/"):-1]
            if any(p.name == name and p.archived for p in self.packages):
                return Reply(200, self.listing(name).encode(), {"Content-Type": "text/html;charset=ISO-8859-1"})
            return _not_found(path)
        for p in self.packages:
            where = f"Archive/{p.name}/{p.filename}" if p.archived else f"{p.path + '/' if p.path else ''}{p.filename}"
            if rest == where:
                self.tarball_hits += 1
                return Reply(200, p.data, {"Content-Type": "application/x-gzip"})
        return _not_found(path)


def _not_found(path: str) -> Reply:
    body = (f'<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>404 Not Found</title>\n'
            f'</head><body>\n<h1>Not Found</h1>\n<p>The requested URL {path} was not found on this server.</p>\n'
            '</body></html>\n')
    return Reply(404, body.encode(), {"Content-Type": "text/html; charset=iso-8859-1"})
