"""Archive builders for the fake registries: gzipped tarballs and zips of a file dict."""

from __future__ import annotations

import io
import tarfile
import zipfile


def make_tgz(files: dict[str, bytes], top: str = "package") -> bytes:
    """A gzipped tarball with every file under ``top/`` (npm's layout)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for path, data in sorted(files.items()):
            info = tarfile.TarInfo(f"{top}/{path}" if top else path)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def make_zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, data in sorted(files.items()):
            zf.writestr(path, data)
    return buf.getvalue()
