"""PyPI: names, where the index is, and the simple repository API -> one file (SPEC §3).

Everything codenav knows about PyPI is here (the registry contract of registries/base.py):

- names: PEP 508 names, PEP 503-normalised before use and echoed normalised;
- versions: any named version is exact (cached forever); none means the newest final,
  non-yanked release, re-resolved after the alias TTL;
- the endpoint: CODENAV_PYPI_INDEX_URL, PIP_INDEX_URL, ``index-url`` from pip's config files
  in pip's order (config/pipconf.py: ``[global]`` then ``[download]``), then pip itself (its built-in default index), asked once. No public index host is written here;
- resolve: the simple repository API (PEP 691 JSON, PEP 503 HTML fallback). Artifact choice is
  deterministic and echoed (``_choose``, SPEC §3): a compatible pure wheel, else the platform
  wheel pip would install here (wheeltags.py's tag order), else the sdist, else another
  platform's wheel, flagged; ``artifact`` ("sdist", "wheel", a file name) overrides. Yanked
  files are skipped unless the version is pinned exactly. The sha256 in the index is verified
  on download; the PEP 700 ``size`` of the JSON API is kept (``Artifact.size``) so the
  download limit is decided before downloading;
- unpack: a wheel is listed as it is; an sdist loses its one ``{name}-{version}/`` folder,
  also when that folder is spelled otherwise but normalises equal (``top_folder_matches``).
"""

from __future__ import annotations

import os

from ..errors import CodenavError, invalid, protocol_error
from .base import Client, ask, cached, ladder, nearest_first, require_digest, version_not_found

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from .artifact import Artifact

PREFIX = "pypi"
WHAT = "the Python package index"
PACKAGE_MANAGER = "pip"  # whose trust, proxy and trusted-host settings apply (config/trust.py)
ENDPOINT_VARIABLE = "CODENAV_PYPI_INDEX_URL"
ACCEPT = "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.latest+html;q=0.2, text/html;q=0.1"
_HTTP = Client(WHAT, headers={"Accept": ACCEPT}, manager=PACKAGE_MANAGER)
_SDIST_PATTERN = r"^(?P<name>.+?)-(?P<version>[^-]+)\.(?P<ext>tar\.gz|zip|tar\.bz2|tgz)$"
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_NAME_CHARS = _ALNUM | frozenset("._-")


# --- names and versions ------------------------------------------------------------------------

def is_name(name: str) -> bool:
    """Letters, digits and ``._-``, starting and ending with a letter or digit (PEP 508 names)."""
    return bool(name) and name[0] in _ALNUM and name[-1] in _ALNUM and set(name) <= _NAME_CHARS


def pep503(name: str) -> str:
    """PEP 503 normalisation: each run of ``-``, ``_`` and ``.`` becomes one ``-``; lower case."""
    out: list[str] = []
    in_run = False
    for char in name:
        if char in "-_.":
            if not in_run:
                out.append("-")
            in_run = True
        else:
            out.append(char)
            in_run = False
    return "".join(out).lower()


def normalize_name(name: str) -> str:
    if not is_name(name):
        raise invalid(f"{name!r} is not a valid PyPI project name", "package_name")
    return pep503(name)


def is_exact(version: str) -> bool:
    """A version or a one-version pin (``==V``) cannot move (PyPI has no tags); a specifier
    set such as ``>=2.30,<2.32`` is re-resolved after the alias TTL."""
    return classify_version(version) == "exact"


def classify_version(version: str) -> str:
    """``"exact"`` (a version, ``==V``, ``===V``) or ``"range"`` (a PEP 440 specifier set);
    INVALID_ARGUMENT otherwise."""
    if version and not any(c in version for c in "<>=~,* ()") and "!=" not in version:
        return "exact"  # a bare version (its validity is the index's to answer), without `re`
    from .pep440 import classify

    return classify(version)


def pinned(version: str) -> str:
    """The version an exact spelling names: ``==2.32.3`` and ``2.32.3`` are one release."""
    return version.strip().lstrip("=").strip()


def version_key(version: str) -> tuple:
    """The order of availableVersions: PEP 440's, as pip sorts."""
    from .pep440 import sort_key

    return sort_key(version)


# --- the endpoint ------------------------------------------------------------------------------

def endpoint() -> str:
    return ladder((ENDPOINT_VARIABLE, "PIP_INDEX_URL"), _configured,
                  lambda: cached("pypi", _ask_pip, ENDPOINT_VARIABLE, "Python package index", "pip"))


def _configured() -> str | None:
    from ..config import pipconf

    return pipconf.load().value("index-url")


def _ask_pip() -> str | None:
    # pip has no public command that prints its built-in default index, so ask the pip of
    # this interpreter for the constant it uses itself (see docs/decisions.md).
    import sys

    return ask([sys.executable, "-c", "from pip._internal.models.index import PyPI; print(PyPI.simple_url)"])


# --- resolve: the project page -> artifact (indexer side) --------------------------------------

def _sdist_match(filename: str):
    import re

    return re.match(_SDIST_PATTERN, filename, re.IGNORECASE)


def _links(body: str) -> list[dict]:
    """``<a>`` elements of a PEP 503 page as ``{href, yanked, text}``."""
    from html.parser import HTMLParser

    class Links(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.files: list[dict] = []
            self._current: dict | None = None

        def handle_starttag(self, tag: str, attrs: list) -> None:
            if tag == "a":
                a = dict(attrs)
                yanked = _yank_reason(a.get("data-yanked") or "") if "data-yanked" in a else False
                self._current = {"href": a.get("href") or "", "yanked": yanked, "text": ""}

        def handle_data(self, data: str) -> None:
            if self._current is not None:
                self._current["text"] += data

        def handle_endtag(self, tag: str) -> None:
            if tag == "a" and self._current is not None:
                self.files.append(self._current)
                self._current = None

    parser = Links()
    parser.feed(body)
    return parser.files


def _yank_reason(value: object) -> str | bool:
    """PEP 592/691's yanked value: the reason (a non-blank string), True without one, else False."""
    if isinstance(value, str):
        return value.strip() or True
    return bool(value)


def _parse(body: bytes, content_type: str, base: str) -> list[dict]:
    """Files as ``{filename, url, sha256, yanked}`` from a JSON or HTML project page."""
    import json
    from urllib.parse import unquote, urljoin, urlsplit

    files = []
    if "json" in content_type:
        doc = json.loads(body)
        for f in doc.get("files", []):
            files.append({
                "filename": f["filename"], "url": urljoin(base, f["url"]),
                "sha256": (f.get("hashes") or {}).get("sha256"), "yanked": _yank_reason(f.get("yanked", False)),
                "size": _size(f.get("size")),
            })
        return files
    if content_type and "html" not in content_type.lower():
        # Neither PEP 691 JSON nor PEP 503 HTML (a plain file server, a gateway's text page):
        # read as HTML it would look like a project without files, a wrong "no release" answer.
        raise ValueError(f"unexpected content type {content_type!r}")
    for link in _links(body.decode("utf-8", "replace")):
        href = link["href"]
        url, _, fragment = href.partition("#")
        sha = fragment[len("sha256="):] if fragment.startswith("sha256=") else None
        name = unquote(urlsplit(url).path.rsplit("/", 1)[-1]) or link["text"].strip()
        files.append({"filename": name, "url": urljoin(base, url), "sha256": sha, "yanked": link["yanked"]})
    return files


def _size(value: object) -> int | None:
    """PEP 700's ``size`` of a file (JSON API 1.1), or None when the index states none usable."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _version_of(filename: str, project: str) -> str | None:
    import re

    if filename.endswith(".whl"):
        parts = filename[:-4].split("-")
        return parts[1] if len(parts) >= 5 else None
    m = _sdist_match(filename)
    if not m:
        return None
    # The sdist stem is "{name}-{version}"; names may contain '-', so split by the project name.
    stem = filename[: -(len(m.group("ext")) + 1)]
    norm = re.sub(r"[-_.]+", "-", stem).lower()
    if norm.startswith(project + "-"):
        return stem[len(stem) - (len(norm) - len(project) - 1):]
    return m.group("version")


TAGS_VARIABLE = "CODENAV_WHEEL_TAGS"  # comma-separated wheel tags, best first, instead of this machine's
ARTIFACT_WORDS = ("sdist", "wheel")


def alias_extra(artifact: str | None) -> str:
    """What decides the file besides name and version, for the alias (cache/aliases.py): the
    artifact asked for and the machine the wheel is chosen for (interpreter and OS; an exotic
    change within them, such as a glibc upgrade, is seen on the next resolution of a latest)."""
    import sys

    machine = os.environ.get(TAGS_VARIABLE) or f"{sys.implementation.cache_tag}-{sys.platform}"
    return f"|{artifact or ''}|{machine}"


def _machine_tags() -> list[str]:
    given = os.environ.get(TAGS_VARIABLE)
    if given:
        return [t.strip().lower() for t in given.split(",") if t.strip()]
    from .wheeltags import sys_tags

    return sys_tags()


def _build_rank(build: str) -> int:
    """A wheel's build tag as a sort key: the highest build number first, none last (pip)."""
    digits = build[:len(build) - len(build.lstrip("0123456789"))]
    return -int(digits) if digits else 1


def _family(platform: str) -> tuple[str, str]:
    """(OS family, arch) of a wheel platform tag, arch names unified (amd64 = x86_64)."""
    family = ("windows" if platform.startswith("win") else "macos" if platform.startswith("macosx")
              else "linux" if "linux" in platform else platform)
    arch = platform.rsplit("_", 1)[-1] if family != "windows" else platform.partition("_")[2]
    if platform.endswith(("x86_64", "amd64")):
        arch = "x86_64"
    elif platform.endswith(("arm64", "aarch64")):
        arch = "arm64"
    return family, arch


def _choose(files: list[dict], tags: list[str], artifact: str | None = None,
            what: str = "this release") -> tuple[dict, dict]:
    """The file to read and why (SPEC §3, "Which file of a release"): a compatible pure wheel;
    else the best compatible platform wheel by the tag order (pip's pick here); else the sdist;
    else another platform's wheel, flagged. ``artifact`` ("sdist", "wheel" or a file name)
    overrides; never by file-name string order alone."""
    from .wheeltags import wheel_tags

    rank = {tag: index for index, tag in enumerate(tags)}
    wheels, sdists = [], []
    for f in files:
        if f["filename"].endswith(".whl"):
            file_tags, build = wheel_tags(f["filename"])
            best = min((rank[t] for t in file_tags if t in rank), default=None)
            pure = bool(file_tags) and all(t.endswith("-none-any") for t in file_tags)
            wheels.append((f, file_tags, build, best, pure))
        elif _sdist_match(f["filename"]):
            sdists.append(f)
    sdists.sort(key=lambda f: (not f["filename"].endswith(".tar.gz"), f["filename"]))
    if artifact not in (None, *ARTIFACT_WORDS):
        for f, _, _, best, _ in wheels:
            if f["filename"] == artifact:
                return f, {"artifactReason": "requested", **({"platformMatch": False} if best is None else {})}
        for f in sdists:
            if f["filename"] == artifact:
                return f, {"artifactReason": "requested"}
        names = sorted(f["filename"] for f in files)
        raise invalid(f"{what} has no file {artifact!r}; its files are: {', '.join(names[:20])}"
                      + (f" (and {len(names) - 20} more)" if len(names) > 20 else ""),
                      "artifact", availableArtifacts=names[:100],
                      action="give one of availableArtifacts, or 'wheel' or 'sdist'")
    if artifact == "sdist":
        if not sdists:
            raise invalid(f"{what} has no sdist; its files are: {', '.join(sorted(f['filename'] for f in files)[:20])}",
                          "artifact", action="omit artifact, or give 'wheel' or one of the wheel file names")
        return sdists[0], {"artifactReason": "sdist"}

    def by_rank(item: tuple) -> tuple:
        f, _, build, best, _ = item
        return (best, _build_rank(build), f["filename"])  # the best tag, then the build tag, then the name

    compatible = [w for w in wheels if w[3] is not None]
    pure = sorted((w for w in compatible if w[4]), key=by_rank)
    if pure:
        return pure[0][0], {"artifactReason": "pure-wheel"}
    if compatible:
        return min(compatible, key=by_rank)[0], {"artifactReason": "platform-wheel"}
    if sdists and artifact != "wheel":
        return sdists[0], {"artifactReason": "sdist"}
    if not wheels:
        raise CodenavError("NOT_FOUND", f"{what} has no wheel" if artifact == "wheel" else f"{what} has no file to read",
                           details={"availableArtifacts": sorted(f["filename"] for f in files)[:100]})
    here = {_family(t.rsplit("-", 1)[-1]) for t in tags[:1] if not t.endswith("-any")}
    family = next(iter(here), ("", ""))

    def closeness(item: tuple) -> tuple:
        f, file_tags, _, _, _ = item
        plats = {_family(t.rsplit("-", 1)[-1]) for t in file_tags}
        tier = 0 if family in plats else 1 if any(p[0] == family[0] for p in plats) else 2
        size = f.get("size")
        return (tier, size if isinstance(size, int) else float("inf"), f["filename"])

    return min(wheels, key=closeness)[0], {"artifactReason": "other-platform-wheel", "platformMatch": False}


def top_folder_matches(artifact: Artifact, found: str) -> bool:
    """An sdist's top folder spelled unlike its file name is still its folder when name and
    version are equal after PEP 503 and PEP 440 normalisation (``ruamel_yaml_clib-0.2.15.tar.gz``
    holds ``ruamel.yaml.clib-0.2.15/``)."""
    from .pep440 import release

    folder_name, dash, folder_version = found.rpartition("-")
    return bool(dash) and pep503(folder_name) == pep503(artifact.name) and (
        release(folder_version) == release(artifact.version))


def _pinned_release(wanted: str, spelling: dict[tuple, str]) -> tuple:
    """The release a pin names: that version, else (a pin without a local label, ``2.1.0``)
    its highest local build (``2.1.0+cpu``), as ``==2.1.0`` takes local builds in pip."""
    from . import pep440

    key = pep440.release(wanted)
    if key in spelling or pep440.parse(wanted) is None or "+" in wanted:
        return key
    builds = [v for v in spelling.values() if pep440.contains(v, "==" + wanted, prereleases=True)]
    return pep440.release(max(builds, key=pep440.sort_key)) if builds else key


def resolve(name: str, wanted: str | None, artifact: str | None = None) -> Artifact:
    from ..config.trust import insecure_note
    from . import pep440
    from .artifact import Artifact, Unpack, Verification
    from .base import latest as newest

    index = endpoint()
    resp = _HTTP.get_ok(f"{index}{name}/", 64 * 1024 * 1024, not_found=CodenavError(
        "NOT_FOUND", f"PyPI project {name!r} was not found in the index", details={"action": "check the project name"}))
    try:
        files = _parse(resp.body, resp.header("content-type", "") or "", resp.url)
    except (ValueError, KeyError, TypeError):
        raise protocol_error(f"{WHAT} sent a project page for {name!r} that cannot be read") from None
    by_version: dict[tuple, list[dict]] = {}  # pep440.release -> its files
    spelling: dict[tuple, str] = {}
    for f in files:
        if not f["filename"].endswith(".whl") and not _sdist_match(f["filename"]):
            continue
        version = _version_of(f["filename"], name)
        if version:
            key = pep440.release(version)
            by_version.setdefault(key, []).append(f)
            spelling.setdefault(key, version)
    live = {k: v for k, v in by_version.items() if any(not f["yanked"] for f in v)}
    latest = newest((spelling[k] for k in live), pep440.sort_key, prerelease=lambda v: not pep440.is_final(v))
    if wanted is None:
        if latest is None:
            raise CodenavError("NOT_FOUND", f"PyPI project {name!r} has no installable release")
        key = pep440.release(latest)
        candidates = [f for f in by_version[key] if not f["yanked"]]
    elif classify_version(wanted) == "range":
        # As current pip picks: the highest satisfying version, prereleases only when the
        # specifier names one or nothing final satisfies, yanked files only for an exact pin.
        releases = {spelling[k]: {"yanked": k not in live} for k in by_version}
        picked = pep440.pick(releases, wanted)
        if picked is None:
            satisfying = [v for v in releases if pep440.contains(v, wanted, prereleases=True)]
            others = nearest_first([spelling[k] for k in live if spelling[k] not in satisfying], None, pep440.sort_key)
            raise CodenavError(
                "VERSION_NOT_FOUND",
                f"PyPI project {name!r} has no release matching {wanted!r}" + (f"; latest is {latest}" if latest else ""),
                details={"availableVersions": (sorted(satisfying, key=pep440.sort_key, reverse=True) + others)[:20],
                         "latest": latest,
                         "action": "pick one of availableVersions, widen the specifier, or omit the version for latest"},
            )
        key = pep440.release(picked)
        candidates = [f for f in by_version[key] if not f["yanked"]] or by_version[key]
    else:
        wanted = pinned(wanted)
        key = _pinned_release(wanted, spelling)
        if key not in by_version:
            raise version_not_found(f"PyPI project {name!r} has no release {wanted!r}", wanted,
                                    [spelling[k] for k in live], latest, pep440.sort_key)
        # Pinned exactly: yanked files may be used (PEP 592), non-yanked ones preferred.
        candidates = [f for f in by_version[key] if not f["yanked"]] or by_version[key]
    version = spelling[key]
    chosen, why = _choose(candidates, _machine_tags(), artifact, f"PyPI project {name!r} {version}")
    sha256 = require_digest(chosen.get("sha256"), f"the index gives no sha256 for {chosen['filename']}")
    filename = chosen["filename"]
    is_wheel = filename.endswith(".whl")
    prefix = None
    if not is_wheel:
        stem = filename[: -(len(_sdist_match(filename).group("ext")) + 1)]
        prefix = stem + "/"
    return Artifact(
        registry=PREFIX, name=name, version=version, filename=filename, url=chosen["url"],
        unpack=Unpack("zip" if filename.endswith((".whl", ".zip")) else "tar", required_prefix=prefix),
        verification=Verification("digest", "sha256", sha256, "the sha256 the index lists"),
        yanked=chosen["yanked"] or None, size=chosen.get("size"), choice=why,
        # an opted-in trusted-host for the index or the file host
        insecure=insecure_note(index, PACKAGE_MANAGER) or insecure_note(chosen["url"], PACKAGE_MANAGER),
    )
