"""PyPI: the simple repository API (PEP 691 JSON, PEP 503 HTML fallback) (SPEC §3).

Artifact choice is deterministic and echoed: a pure-Python wheel (``*-none-any.whl``), else
the sdist, else the newest wheel by a fixed ordering of file names. Yanked files are skipped
unless the version is pinned exactly. The sha256 in the index is verified on download.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from urllib.parse import unquote, urljoin, urlsplit

from .. import net
from ..errors import CodenavError
from ..targets import Artifact
from . import endpoints
from .versions import canonical_pep440, nearest_first, pep440_is_final, pep440_key

ACCEPT = "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.latest+html;q=0.2, text/html;q=0.1"
_SDIST = re.compile(r"^(?P<name>.+?)-(?P<version>[^-]+)\.(?P<ext>tar\.gz|zip|tar\.bz2|tgz)$", re.IGNORECASE)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.files: list[dict] = []
        self._current: dict | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "a":
            a = dict(attrs)
            self._current = {"href": a.get("href") or "", "yanked": "data-yanked" in a, "text": ""}

    def handle_data(self, data: str) -> None:
        if self._current is not None:
            self._current["text"] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._current is not None:
            self.files.append(self._current)
            self._current = None


def _parse(body: bytes, content_type: str, base: str) -> list[dict]:
    """Files as ``{filename, url, sha256, yanked}`` from a JSON or HTML project page."""
    files = []
    if "json" in content_type:
        doc = json.loads(body)
        for f in doc.get("files", []):
            files.append({
                "filename": f["filename"], "url": urljoin(base, f["url"]),
                "sha256": (f.get("hashes") or {}).get("sha256"), "yanked": bool(f.get("yanked")),
            })
        return files
    if content_type and "html" not in content_type.lower():
        # Neither PEP 691 JSON nor PEP 503 HTML (a plain file server, a gateway's text page):
        # read as HTML it would look like a project without files, a wrong "no release" answer.
        raise ValueError(f"unexpected content type {content_type!r}")
    parser = _Links()
    parser.feed(body.decode("utf-8", "replace"))
    for link in parser.files:
        href = link["href"]
        url, _, fragment = href.partition("#")
        sha = fragment[len("sha256="):] if fragment.startswith("sha256=") else None
        name = unquote(urlsplit(url).path.rsplit("/", 1)[-1]) or link["text"].strip()
        files.append({"filename": name, "url": urljoin(base, url), "sha256": sha, "yanked": link["yanked"]})
    return files


def _version_of(filename: str, project: str) -> str | None:
    if filename.endswith(".whl"):
        parts = filename[:-4].split("-")
        return parts[1] if len(parts) >= 5 else None
    m = _SDIST.match(filename)
    if not m:
        return None
    # The sdist stem is "{name}-{version}"; names may contain '-', so split by the project name.
    stem = filename[: -(len(m.group("ext")) + 1)]
    norm = re.sub(r"[-_.]+", "-", stem).lower()
    if norm.startswith(project + "-"):
        return stem[len(stem) - (len(norm) - len(project) - 1):]
    return m.group("version")


def _choose(files: list[dict]) -> dict:
    wheels = [f for f in files if f["filename"].endswith(".whl")]
    pure = sorted((f for f in wheels if f["filename"][:-4].endswith("-none-any")), key=lambda f: f["filename"])
    if pure:
        return pure[-1]  # e.g. py3-none-any over py2.py3-none-any: a fixed, name-based order
    sdists = sorted((f for f in files if _SDIST.match(f["filename"]) and not f["filename"].endswith(".whl")),
                    key=lambda f: (not f["filename"].endswith(".tar.gz"), f["filename"]))
    if sdists:
        return sdists[0]
    return sorted(wheels, key=lambda f: f["filename"])[-1]


def resolve(name: str, wanted: str | None) -> Artifact:
    index = endpoints.pypi_index()
    url = f"{index}{name}/"
    what = "the Python package index"
    resp = net.request(
        "GET", url, what=what, headers={"Accept": ACCEPT}, redirects="https",
        timeout=net.timeout_from_env("CODENAV_REGISTRY_TIMEOUT"), max_bytes=64 * 1024 * 1024,
    )
    if resp.status != 200:
        raise net.status_error(what, resp, not_found=CodenavError(
            "NOT_FOUND", f"PyPI project {name!r} was not found in the index",
            details={"action": "check the project name"},
        ))
    try:
        files = _parse(resp.body, resp.header("content-type", "") or "", resp.url)
    except (ValueError, KeyError, TypeError):
        raise CodenavError("PROTOCOL_ERROR", f"{what} sent a project page for {name!r} that cannot be read") from None
    by_version: dict[tuple, list[dict]] = {}
    spelling: dict[tuple, str] = {}
    for f in files:
        if not f["filename"].endswith(".whl") and not _SDIST.match(f["filename"]):
            continue
        version = _version_of(f["filename"], name)
        if version:
            key = canonical_pep440(version)
            by_version.setdefault(key, []).append(f)
            spelling.setdefault(key, version)
    live = {k: v for k, v in by_version.items() if any(not f["yanked"] for f in v)}
    finals = [spelling[k] for k in live if pep440_is_final(spelling[k])]
    latest = max(finals, key=pep440_key) if finals else (max((spelling[k] for k in live), key=pep440_key) if live else None)
    if wanted is None:
        if latest is None:
            raise CodenavError("NOT_FOUND", f"PyPI project {name!r} has no installable release")
        key = canonical_pep440(latest)
        candidates = [f for f in by_version[key] if not f["yanked"]]
    else:
        key = canonical_pep440(wanted)
        if key not in by_version:
            raise CodenavError(
                "VERSION_NOT_FOUND",
                f"PyPI project {name!r} has no release {wanted!r}" + (f"; latest is {latest}" if latest else ""),
                details={"availableVersions": nearest_first([spelling[k] for k in live], wanted, pep440_key),
                         "latest": latest, "action": "pick one of availableVersions, or omit the version for latest"},
            )
        # Pinned exactly: yanked files may be used (PEP 592), non-yanked ones preferred.
        candidates = [f for f in by_version[key] if not f["yanked"]] or by_version[key]
    chosen = _choose(candidates)
    version = spelling[key]
    if not chosen.get("sha256") or not re.fullmatch(r"[0-9a-fA-F]{64}", chosen["sha256"]):
        raise CodenavError(
            "INTEGRITY_ERROR", f"the index gives no sha256 for {chosen['filename']}; refusing to use it"
        )
    filename = chosen["filename"]
    is_wheel = filename.endswith(".whl")
    prefix = None
    if not is_wheel:
        stem = filename[: -(len(_SDIST.match(filename).group("ext")) + 1)]
        prefix = stem + "/"
    return Artifact(
        registry="pypi", name=name, version=version, filename=filename, url=chosen["url"],
        algorithm="sha256", digest=chosen["sha256"].lower(),
        fmt="zip" if filename.endswith((".whl", ".zip")) else "tar", required_prefix=prefix,
    )
