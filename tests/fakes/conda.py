"""A fake conda channel and anaconda.org API on a FakeServer, replaying their real wire formats.

Provenance (what each route replays, read in these sources; see docs/registries-reference/conda.md):
- ``/api/package/{channel}/{name}/files``: the anaconda.org API's file list, a JSON array with
  one object per file of every label: ``basename`` (``{subdir}/{filename}``), ``version``,
  ``labels``, ``size``, ``md5``, ``sha256`` (the string ``"None"`` on old uploads, the digest
  then only in ``attrs``), ``type``/``distribution_type`` ``conda``, ``full_name``,
  ``download_url`` (scheme-relative) and ``attrs`` (the package's index.json: ``subdir``,
  ``build``, ``build_number``, ``sha256``, ``md5``, ``size``, ``timestamp``, ``depends``, …).
  Shape from Renovate's conda datasource test ("processes real data",
  renovatebot/renovate lib/modules/datasource/conda/index.spec.ts) and whl2conda's
  ``query_conda_forge_builds`` (the ``/files`` endpoint); an unknown package is 404 with a JSON
  ``error`` (its wording unverified);
- ``/{channel}/{subdir}/repodata.json``: conda's repodata (``info.subdir``, ``packages``
  for ``.tar.bz2``, ``packages.conda``, ``removed``, ``repodata_version: 1``), the records as
  CEP-16's examples and rattler's ``PackageRecord`` spell them; ``noarch`` always exists (conda
  and rattler require it);
- ``/{channel}/[label/{label}/]{subdir}/{filename}``: the files. A ``.tar.bz2`` holds
  ``info/index.json``, ``info/paths.json`` and the files; a ``.conda`` is a stored zip of
  ``metadata.json``, ``info-{stem}.tar.zst`` and ``pkg-{stem}.tar.zst`` (CEP-2 / conda-package-
  handling), built with the zstd of the test environment (backports.zstd or Python 3.14).
"""

from __future__ import annotations

import bz2
import hashlib
import io
import json
import tarfile
import zipfile
from dataclasses import dataclass, field

from .http import FakeServer, Reply

CHANNEL = "conda-forge"


def _tar(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, data in files.items():
            info = tarfile.TarInfo(path)
            info.size, info.mode, info.mtime = len(data), 0o644, 1_700_000_000
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _info(index: dict, files: dict[str, bytes]) -> dict[str, bytes]:
    paths = [{"_path": p, "path_type": "hardlink", "sha256": hashlib.sha256(d).hexdigest(), "size_in_bytes": len(d)}
             for p, d in sorted(files.items())]
    return {"info/index.json": json.dumps(index, indent=2, sort_keys=True).encode(),
            "info/paths.json": json.dumps({"paths": paths, "paths_version": 1}, indent=2).encode(),
            "info/files": "".join(p + "\n" for p in sorted(files)).encode()}


def make_tar_bz2(index: dict, files: dict[str, bytes]) -> bytes:
    """A ``.tar.bz2`` as conda-build writes it: info/ first, then the files, bzip2."""
    return bz2.compress(_tar({**_info(index, files), **dict(sorted(files.items()))}))


def make_conda(index: dict, files: dict[str, bytes], stem: str, *, pkg_tar: bytes | None = None) -> bytes:
    """A ``.conda``: a stored zip of metadata.json and two zstd tars (info- and pkg-)."""
    try:
        from compression import zstd  # type: ignore[import-not-found]
    except ImportError:
        from backports import zstd  # type: ignore[import-not-found,no-redef]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("metadata.json", json.dumps({"conda_pkg_format_version": 2}))
        zf.writestr(f"pkg-{stem}.tar.zst", zstd.compress(pkg_tar if pkg_tar is not None
                                                         else _tar(dict(sorted(files.items())))))
        zf.writestr(f"info-{stem}.tar.zst", zstd.compress(_tar(_info(index, files))))
    return buf.getvalue()


@dataclass
class CondaFile:
    name: str
    version: str
    build: str
    number: int
    subdir: str
    fn: str
    data: bytes
    sha256: str | None
    labels: list[str]
    timestamp: int
    index: dict

    def api_entry(self, channel: str) -> dict:
        attrs = {**self.index, "sha256": self.sha256, "md5": hashlib.md5(self.data).hexdigest(),
                 "size": len(self.data)}
        if self.sha256 is None:
            attrs.pop("sha256")
        return {
            "description": None, "dependencies": [], "distribution_type": "conda", "type": "conda",
            "basename": f"{self.subdir}/{self.fn}", "attrs": attrs, "version": self.version,
            "upload_time": "2025-02-07 15:05:00.099000+00:00", "md5": attrs["md5"],
            "sha256": self.sha256 if self.sha256 is not None else "None", "size": len(self.data),
            "full_name": f"{channel}/{self.name}/{self.version}/{self.subdir}/{self.fn}",
            "download_url": f"//api.anaconda.org/download/{channel}/{self.name}/{self.version}/{self.subdir}/{self.fn}",
            "ndownloads": 3, "owner": channel, "labels": self.labels,
        }

    def record(self) -> dict:
        record = {**self.index, "md5": hashlib.md5(self.data).hexdigest(), "size": len(self.data)}
        if self.sha256 is not None:
            record["sha256"] = self.sha256
        return record


@dataclass
class FakeConda:
    """Routes the anaconda.org API, the channel's repodata and its files on a FakeServer."""

    server: FakeServer
    files: list[CondaFile] = field(default_factory=list)
    file_hits: int = 0
    subdirs: set[str] = field(default_factory=lambda: {"noarch"})

    def __post_init__(self) -> None:
        self.server.route_prefix("GET", "/api/package/", self._api)
        self.server.route_prefix("GET", f"/{CHANNEL}/", self._channel)

    @property
    def channel(self) -> str:
        return f"{self.server.url}/{CHANNEL}/"

    @property
    def api(self) -> str:
        return f"{self.server.url}/api/"

    def publish(self, name: str, version: str, files: dict[str, bytes] | None = None, *, subdir: str = "linux-64",
                build: str | None = None, number: int = 0, ext: str = ".tar.bz2", labels: list[str] | None = None,
                timestamp: int = 1_700_000_000_000, data: bytes | None = None, sha256: str | None = "auto",
                pkg_tar: bytes | None = None, depends: list[str] | None = None) -> CondaFile:
        build = build or (f"pyh{number}_{number}" if subdir == "noarch" else f"h1a2b3c4_{number}")
        stem = f"{name}-{version}-{build}"
        index = {"name": name, "version": version, "build": build, "build_number": number, "subdir": subdir,
                 "depends": depends or [], "license": "MIT", "timestamp": timestamp}
        if subdir == "noarch":
            index["noarch"] = "generic"
        files = files if files is not None else {f"share/{name}/README.md": f"# {name} {version}\n".encode()}
        if data is None:
            data = make_conda(index, files, stem, pkg_tar=pkg_tar) if ext == ".conda" else make_tar_bz2(index, files)
        entry = CondaFile(name, version, build, number, subdir, stem + ext, data,
                          hashlib.sha256(data).hexdigest() if sha256 == "auto" else sha256,
                          labels if labels is not None else ["main"], timestamp, index)
        self.files.append(entry)
        self.subdirs.add(subdir)
        return entry

    def _api(self, handler) -> Reply:
        parts = handler.path.split("?", 1)[0][len("/api/package/"):].split("/")
        if len(parts) != 3 or parts[2] != "files":
            return Reply(404, b'{"error": "Not Found"}', {"Content-Type": "application/json"})
        channel, name = parts[0], parts[1]
        mine = [f for f in self.files if f.name == name] if channel == CHANNEL else []
        if not mine:
            return Reply.json({"error": f'package "{channel}/{name}" does not exist'}, status=404)
        return Reply.json([f.api_entry(channel) for f in mine])

    def repodata(self, subdir: str, label: str = "main") -> dict:
        doc: dict = {"info": {"subdir": subdir}, "packages": {}, "packages.conda": {}, "removed": [],
                     "repodata_version": 1}
        for f in self.files:
            if f.subdir == subdir and label in f.labels:
                doc["packages.conda" if f.fn.endswith(".conda") else "packages"][f.fn] = f.record()
        return doc

    def _channel(self, handler) -> Reply:
        path = handler.path.split("?", 1)[0][len(f"/{CHANNEL}/"):]
        label = "main"
        if path.startswith("label/"):
            _, label, path = path.split("/", 2)
        subdir, _, fn = path.partition("/")
        if fn in ("repodata.json", "current_repodata.json") and subdir in self.subdirs:
            return Reply.json(self.repodata(subdir, label))
        for f in self.files:
            if (f.subdir, f.fn) == (subdir, fn) and label in f.labels:
                self.file_hits += 1
                return Reply(200, f.data, {"Content-Type": "application/octet-stream"})
        return Reply(404, b"<html><body><h1>404 Not Found</h1></body></html>", {"Content-Type": "text/html"})
