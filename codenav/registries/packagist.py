"""Packagist (Composer): ``vendor/package`` names, where the repository is, and p2 metadata ->
dist zip (SPEC §3, reference §7).

Everything codenav knows about Composer repositories is here (the registry contract of
registries/base.py):

- names: ``vendor/package`` as Composer validates them, lower case (Composer names are);
- versions: a pin matches a release as published (``v3.7.0``), without its ``v``, or by
  Composer's normalised form (``3.7.0`` finds ``v3.7.0``: both are ``3.7.0.0``); the echo is the
  version as published. No version means the highest stable release by the normalised version
  (no ``dev``, ``alpha``, ``beta``, ``RC``); else the highest release of any stability;
- the endpoint: CODENAV_COMPOSER_REPOSITORY, then the first ``composer`` repository of
  Composer's global config (``$COMPOSER_HOME/config.json``), then the public repository,
  written once below;
- resolve: the repository's ``packages.json`` names the ``metadata-url`` (``/p2/%package%.json``
  when it has none) and any ``mirrors`` ``dist-url``; the p2 file holds tagged releases only,
  minified as ``composer/2.0`` (expanded as Composer's MetadataMinifier does). The dist is the
  preferred mirror's URL when there is one, else ``dist.url``; a GitHub token from Composer's
  ``auth.json`` is sent to GitHub hosts only;
- verification: ``dist.shasum`` (sha1) when the repository publishes one. The usual GitHub dist
  has none (zipballs are made on the fly): the target then says ``verified: false`` and names
  the git reference the zip is of — never a pretended check;
- unpack: the zip's one top folder (``{Owner}-{repo}-{sha7}/``) is stripped, as Composer does.
"""

from __future__ import annotations

import os

from ..errors import CodenavError, invalid, protocol_error
from .base import Client, ladder, latest, version_not_found

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from .artifact import Artifact

PREFIX = "packagist"
ALIASES: tuple[str, ...] = ("composer",)
WHAT = "the Composer repository"
ENDPOINT_VARIABLE = "CODENAV_COMPOSER_REPOSITORY"
DEFAULT_REPOSITORY = "https://repo.packagist.org/"
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_DOC_CAP = 64 * 1024 * 1024
_HTTP = Client(WHAT, headers={"Accept": "application/json"})
_GITHUB_HOSTS = ("api.github.com", "codeload.github.com", "github.com")
# Composer's stabilities, lowest first; "stable" is a release without a suffix.
_STABILITY = {"dev": 0, "alpha": 1, "beta": 2, "rc": 3, "stable": 4, "patch": 5}
_MODIFIERS = {"a": "alpha", "alpha": "alpha", "b": "beta", "beta": "beta", "rc": "rc", "c": "rc",
              "p": "patch", "pl": "patch", "patch": "patch", "stable": "stable"}


# --- names and versions ------------------------------------------------------------------------

def _part(text: str, separators: tuple[str, ...]) -> bool:
    """Composer's ``[a-z0-9](sep?[a-z0-9]+)*``: alphanumeric runs joined by single separators."""
    if not text or text[0] not in _LOWER or text[-1] not in _LOWER:
        return False
    i = 0
    while i < len(text):
        if text[i] in _LOWER:
            i += 1
            continue
        run = next((s for s in sorted(separators, key=len, reverse=True) if text.startswith(s, i)), None)
        if run is None or text[i + len(run)] not in _LOWER:
            return False
        i += len(run)
    return True


def normalize_name(name: str) -> str:
    """``vendor/package`` in lower case (Composer's names are), or INVALID_ARGUMENT."""
    lowered = name.lower()
    vendor, slash, package = lowered.partition("/")
    if not slash or not _part(vendor, ("_", ".", "-")) or not _part(package, ("_", ".", "-", "--")):
        raise invalid(f"{name!r} is not a Composer package name; use vendor/package, e.g. monolog/monolog",
                      "package_name")
    return lowered


def _parse(version: str) -> tuple[tuple[int, ...], str, int] | None:
    """(four numbers, stability, its number) of a release version, as Composer normalises it."""
    text = version.strip().lower()
    if text.startswith("v"):
        text = text[1:]
    i = 0
    while i < len(text) and (text[i].isdigit() or text[i] == "."):
        i += 1
    numbers_text, rest = text[:i].rstrip("."), text[i:]
    numbers = numbers_text.split(".") if numbers_text else []
    if not 1 <= len(numbers) <= 4 or not all(n.isascii() and n.isdigit() for n in numbers):
        return None
    padded = tuple(int(n) for n in numbers) + (0,) * (4 - len(numbers))
    rest = rest.split("+", 1)[0].lstrip("-_.")
    if not rest:
        return padded, "stable", 0
    j = 0
    while j < len(rest) and rest[j].isalpha():
        j += 1
    modifier, tail = rest[:j], rest[j:].lstrip("-_.")
    if modifier not in _MODIFIERS or (tail and not (tail.isascii() and tail.isdigit())):
        return None
    return padded, _MODIFIERS[modifier], int(tail or 0)


def normalized(version: str) -> str | None:
    """Composer's normalised version (``v3.7.0`` -> ``3.7.0.0``, ``1.0-beta.2`` -> ``1.0.0.0-beta2``)."""
    parsed = _parse(version)
    if parsed is None:
        return None
    numbers, stability, number = parsed
    text = ".".join(str(n) for n in numbers)
    if stability == "stable":
        return text
    label = {"rc": "RC"}.get(stability, stability)
    return f"{text}-{label}{number or ''}" if stability != "patch" else f"{text}-patch{number or ''}"


def is_exact(version: str) -> bool:
    """A release version (not a branch such as ``dev-main``): the tag is cached with the commit
    it named when it was read."""
    return _parse(version) is not None


def version_key(version: str) -> tuple:
    """The order of availableVersions: Composer's, by normalised version and stability."""
    parsed = _parse(version)
    if parsed is None:
        return (0, (), 0, 0)
    numbers, stability, number = parsed
    return (1, numbers, _STABILITY[stability], number)


def is_stable(version: str) -> bool:
    parsed = _parse(version)
    return bool(parsed) and parsed[1] in ("stable", "patch")


# --- the endpoint ------------------------------------------------------------------------------

def endpoint() -> str:
    return ladder((ENDPOINT_VARIABLE,), _config_repository, DEFAULT_REPOSITORY)


def _composer_home() -> str:
    if os.environ.get("COMPOSER_HOME"):
        return os.environ["COMPOSER_HOME"]
    home = os.path.expanduser("~")
    legacy = os.path.join(home, ".composer")
    if os.path.isdir(legacy):
        return legacy
    config_home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return os.path.join(config_home, "composer")


def _read_json(name: str) -> dict:
    from ..paths import read_json

    try:
        doc = read_json(os.path.join(_composer_home(), name))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _config_repository() -> str | None:
    """The first ``composer`` repository of the global config.json (list or keyed form)."""
    repositories = _read_json("config.json").get("repositories")
    if isinstance(repositories, dict):
        repositories = list(repositories.values())
    for repository in repositories if isinstance(repositories, list) else []:
        if (isinstance(repository, dict) and repository.get("type") == "composer"
                and isinstance(repository.get("url"), str) and repository["url"].startswith(("http://", "https://"))):
            return repository["url"]
    return None


def _github_headers(url: str) -> dict[str, str]:
    """Composer's ``github-oauth`` token from auth.json, for GitHub hosts only; never echoed."""
    from urllib.parse import urlsplit

    if urlsplit(url).hostname not in _GITHUB_HOSTS:
        return {}
    tokens = _read_json("auth.json").get("github-oauth")
    token = tokens.get("github.com") if isinstance(tokens, dict) else None
    return {"Authorization": f"token {token}"} if isinstance(token, str) and token else {}


# --- resolve: packages.json -> p2 file -> dist (indexer side) -----------------------------------

def expand(versions: list) -> list[dict]:
    """Composer's MetadataMinifier::expand: each entry overwrites the previous expanded one's
    top-level keys (nested objects replaced whole); ``"__unset"`` deletes a key."""
    out: list[dict] = []
    current: dict | None = None
    for entry in versions:
        if not isinstance(entry, dict):
            raise ValueError("a version entry is not an object")
        current = dict(entry) if current is None else {**current, **entry}
        current = {k: v for k, v in current.items() if v != "__unset"}
        out.append(current)
    return out


def _mirror_url(template: str, name: str, entry: dict, dist: dict) -> str:
    """ComposerMirror::processUrl: %package%, %version%, %reference%, %type%, %prettyVersion%."""
    import hashlib

    reference = str(dist.get("reference") or "")
    if reference and not all(c in "0123456789abcdef" for c in reference.lower()):
        reference = hashlib.md5(reference.encode()).hexdigest()
    version = str(entry.get("version_normalized") or "")
    pretty = str(entry.get("version") or "")
    if "/" in version:
        version = hashlib.md5(version.encode()).hexdigest()
    if "/" in pretty:
        pretty = hashlib.md5(pretty.encode()).hexdigest()
    for key, value in (("%package%", name), ("%version%", version), ("%reference%", reference),
                       ("%type%", str(dist.get("type") or "")), ("%prettyVersion%", pretty)):
        template = template.replace(key, value)
    return template


def _choose(name: str, entries: list[dict], wanted: str | None) -> dict:
    releases = [e for e in entries if isinstance(e.get("version"), str) and is_exact(e["version"])]
    newest = latest([e["version"] for e in releases], version_key, prerelease=lambda v: not is_stable(v))
    if wanted is None:
        if newest is None:
            raise CodenavError("NOT_FOUND", f"Composer package {name!r} has no tagged release")
        return next(e for e in releases if e["version"] == newest)
    target = normalized(wanted)
    for entry in releases:
        if wanted in (entry["version"], entry["version"][1:] if entry["version"][:1] in "vV" else None):
            return entry
    for entry in releases:
        published = entry.get("version_normalized") or normalized(entry["version"])
        if target is not None and isinstance(published, str) and published.lower() == target.lower():
            return entry
    raise version_not_found(f"Composer package {name!r} has no release {wanted!r}", wanted,
                            [e["version"] for e in releases], newest, version_key)


def resolve(name: str, wanted: str | None) -> Artifact:
    import re
    from urllib.parse import urljoin

    from .artifact import Artifact, Unpack, Verification

    base = endpoint()
    root = _HTTP.json(urljoin(base, "packages.json"), _DOC_CAP, "a packages.json", missing_ok=True)
    root = root if isinstance(root, dict) else {}
    template = root.get("metadata-url") if isinstance(root.get("metadata-url"), str) else "/p2/%package%.json"
    not_found = CodenavError("NOT_FOUND", f"Composer package {name!r} was not found in the repository",
                             details={"action": "check the vendor/package name"})
    doc = _HTTP.json(urljoin(base, template.replace("%package%", name)), _DOC_CAP, "package metadata",
                     not_found=not_found)
    listed = doc.get("packages", {}).get(name) if isinstance(doc, dict) and isinstance(doc.get("packages"), dict) else None
    if not isinstance(listed, list):
        raise protocol_error(f"{WHAT} sent metadata for {name!r} without its versions")
    try:
        entries = expand(listed) if doc.get("minified") == "composer/2.0" else [e for e in listed if isinstance(e, dict)]
    except ValueError:
        raise protocol_error(f"{WHAT} sent minified metadata for {name!r} that cannot be expanded") from None
    entry = _choose(name, entries, wanted)
    version = entry["version"]
    dist = entry.get("dist")
    if not isinstance(dist, dict) or not isinstance(dist.get("url"), str) or dist.get("type") != "zip":
        raise CodenavError("NOT_FOUND", f"Composer package {name} {version} has no zip dist to download",
                           details={"action": "read its source repository with repo_url instead"})
    url = dist["url"]
    mirrors = root.get("mirrors") if isinstance(root.get("mirrors"), list) else []
    for mirror in mirrors:
        if isinstance(mirror, dict) and mirror.get("preferred") and isinstance(mirror.get("dist-url"), str):
            url = urljoin(base, _mirror_url(mirror["dist-url"], name, entry, dist))
            break
    reference = str(dist.get("reference") or "")
    shasum = dist.get("shasum")
    if isinstance(shasum, str) and re.fullmatch(r"[0-9a-fA-F]{40}", shasum):
        verification = Verification("digest", "sha1", shasum.lower(), "the repository's dist.shasum")
    else:
        verification = Verification(
            "none", source="the repository publishes no dist.shasum for this zip (GitHub makes its zipballs on the "
                           f"fly); it is the archive of git reference {reference or 'unknown'}")
    short = re.sub(r"[^A-Za-z0-9]", "", reference)[:12]
    filename = f"{name.replace('/', '-')}-{version}{'-' + short if short else ''}.zip"
    return Artifact(registry=PREFIX, name=name, version=version, filename=filename, url=url,
                    unpack=Unpack("zip", strip_components=1), verification=verification,
                    headers=_github_headers(url))
