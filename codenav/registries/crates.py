"""crates: names, exact versions, where the index is, and sparse index -> .crate (SPEC §3).

Everything codenav knows about Cargo's registry is here (the contract of registries/base.py):

- names: ASCII letters, digits, ``-`` and ``_``, starting with a letter, at most 64 characters;
  the registry compares them case-insensitively, so they are keyed lower-cased. The echo is
  the index's own ``name`` (its canonical case);
- exact versions: ``MAJOR.MINOR.PATCH[-PRE][+BUILD]`` with no ``v`` (cached forever); none
  means latest: the highest SemVer that is neither yanked nor a prerelease, else the highest
  non-yanked prerelease. A yanked version is used only when pinned (cargo still builds
  locked yanked versions);
- the endpoint: CODENAV_CRATES_INDEX (Cargo's ``sparse+https://…`` form or a plain URL),
  then Cargo's source replacement of ``crates-io`` in ``.cargo/config.toml`` (the working
  directory and its parents, nearest first, then ``$CARGO_HOME``), then the public sparse
  index, written once below. A git index or a local/directory source cannot be read here:
  CONFIG_ERROR naming the variable;
- resolve: ``{index}config.json`` gives the ``dl`` template; the crate's index file (one JSON
  object per published version) gives ``vers``, ``cksum`` and ``yanked``. Not found under the
  name as given, the name is tried with its ``-``/``_`` swapped (cargo does the same). The
  download URL is the template with its markers filled in, or ``{dl}/{crate}/{version}/download``;
- verification: sha256 of the ``.crate`` against the index line's ``cksum``;
- unpack: the .crate is a tar.gz holding one ``{name}-{version}/`` folder, which is removed;
  anything outside it is skipped and reported.
"""

from __future__ import annotations

import os

from ..errors import CodenavError, invalid, protocol_error, redact_url
from .base import Client, clean, directories_up, is_semver, latest, require_digest, version_not_found

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from .artifact import Artifact

PREFIX = "crates"
ALIASES: tuple[str, ...] = ("cargo",)
WHAT = "the crates index"
ENDPOINT_VARIABLE = "CODENAV_CRATES_INDEX"
# The public sparse index: the default when neither codenav nor Cargo names another one.
DEFAULT_INDEX = "https://index.crates.io/"
USER_AGENT = "codenav (crates index client)"  # the registry refuses requests without one

_HTTP = Client(WHAT, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip"})

_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_NAME_CHARS = _LETTERS | frozenset("0123456789-_")
MAX_NAME = 64
INDEX_CAP = 32 * 1024 * 1024  # serde's index file is about 1 MiB; the largest are a few MiB
CONFIG_CAP = 64 * 1024
_KNOWN_SCHEMA = (None, 1, 2)  # index entry "v" values cargo understands; it skips the others
_MARKERS = ("{crate}", "{version}", "{prefix}", "{lowerprefix}", "{sha256-checksum}")


# --- names and versions ------------------------------------------------------------------------

def normalize_name(name: str) -> str:
    """The name as the index keys it: lower case (crate names are case-insensitive)."""
    if not (0 < len(name) <= MAX_NAME and name[0] in _LETTERS and set(name) <= _NAME_CHARS):
        raise invalid(f"{name!r} is not a valid crate name (ASCII letters, digits, '-' and '_', "
                      f"starting with a letter, at most {MAX_NAME} characters)", "package_name")
    return name.lower()


is_exact = is_semver  # MAJOR.MINOR.PATCH[-PRE][+BUILD], no leading v: what cargo publishes


def version_key(version: str) -> tuple:
    """The order of availableVersions: SemVer precedence (build metadata ignored)."""
    from .semver import sort_key

    return sort_key(version)


def index_path(name: str) -> str:
    """The index file of a crate, from its lower-cased name (Cargo's registry index layout)."""
    n = name.lower()
    return f"{_prefix(n)}/{n}"


def _prefix(name: str) -> str:
    """The index directory of a name: ``1``, ``2``, ``3/{first}``, else ``{1-2}/{3-4}``."""
    if len(name) <= 2:
        return str(len(name))
    if len(name) == 3:
        return f"3/{name[0]}"
    return f"{name[0:2]}/{name[2:4]}"


# --- the endpoint ------------------------------------------------------------------------------

def endpoint() -> str:
    if os.environ.get(ENDPOINT_VARIABLE):
        return _sparse_url(os.environ[ENDPOINT_VARIABLE], ENDPOINT_VARIABLE)
    replaced = _cargo_replacement()
    if replaced is not None:
        return replaced
    return DEFAULT_INDEX


def _sparse_url(value: str, where: str) -> str:
    """``sparse+https://…`` or a plain http(s) URL, as a clean base URL; anything else cannot be read."""
    url = value.strip().strip('"').strip("'")
    if url.startswith("sparse+"):
        url = url[len("sparse+"):]
    if not url.startswith(("http://", "https://")):
        raise CodenavError(
            "CONFIG_ERROR",
            f"{where} names {redact_url(url)!r}, which is not a sparse index (only Cargo's "
            f"sparse protocol can be read); set {ENDPOINT_VARIABLE} to a sparse index URL",
            details={"action": f"set {ENDPOINT_VARIABLE}"},
        )
    return clean(url)


def _cargo_config_files() -> list[str]:
    """Cargo's configuration files, the one that wins first: the working directory and its
    parents, then ``$CARGO_HOME`` (``config.toml``, or the older extension-less ``config``)."""
    dirs = [os.path.join(here, ".cargo") for here in directories_up(os.getcwd())]
    home = os.environ.get("CARGO_HOME") or os.path.join(os.path.expanduser("~"), ".cargo")
    if home not in dirs:
        dirs.append(home)
    files = []
    for d in dirs:
        for name in ("config.toml", "config"):
            path = os.path.join(d, name)
            if os.path.isfile(path):
                files.append(path)
                break  # cargo reads config.toml when both exist
    return files


def _cargo_config() -> dict:
    """The merged ``source`` and ``registries`` tables; nearer files win, key by key."""
    merged: dict[str, dict] = {"source": {}, "registries": {}}
    for path in reversed(_cargo_config_files()):  # the farthest first, so nearer ones override
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except OSError:
            continue
        if "source" not in text and "registries" not in text:
            continue  # the usual case, decided without tomllib (it imports re and datetime)
        import tomllib

        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            raise CodenavError(
                "CONFIG_ERROR",
                f"Cargo's configuration file {os.path.basename(path)} is not valid TOML; fix it, or set "
                f"{ENDPOINT_VARIABLE}", details={"action": f"fix it, or set {ENDPOINT_VARIABLE}"},
            ) from None
        for table in ("source", "registries"):
            for key, value in (doc.get(table) or {}).items():
                if isinstance(value, dict):
                    merged[table].setdefault(key, {}).update(value)
    return merged


def _cargo_replacement() -> str | None:
    """The index that Cargo's source replacement puts in place of ``crates-io``, or None."""
    config = _cargo_config()
    sources, registries = config["source"], config["registries"]
    name, seen = "crates-io", set()
    while isinstance(sources.get(name, {}).get("replace-with"), str):
        if name in seen:
            raise CodenavError("CONFIG_ERROR", "Cargo's source replacement of crates-io goes round in a circle; "
                               f"set {ENDPOINT_VARIABLE} to a sparse index URL",
                               details={"action": f"set {ENDPOINT_VARIABLE}"})
        seen.add(name)
        name = sources[name]["replace-with"]
    if name == "crates-io":
        return None
    where = f"Cargo's source replacement of crates-io ({name!r})"
    table = sources.get(name) or {}
    url = table.get("registry") or (registries.get(name) or {}).get("index")
    if isinstance(url, str):
        return _sparse_url(url, where)
    kind = next((k for k in ("local-registry", "directory", "git") if k in table), None)
    raise CodenavError(
        "CONFIG_ERROR",
        f"{where} is " + (f"a {kind} source, which codenav cannot read" if kind else "not defined")
        + f"; set {ENDPOINT_VARIABLE} to a sparse index URL",
        details={"action": f"set {ENDPOINT_VARIABLE}"},
    )


# --- resolve: the index file -> artifact (indexer side) ----------------------------------------

def _name_variants(name: str) -> list[str]:
    """The name as given, then with every ``-`` as ``_`` and the reverse (a bounded set)."""
    out = [name]
    for variant in (name.replace("-", "_"), name.replace("_", "-")):
        if variant not in out:
            out.append(variant)
    return out


def _index_lines(index: str, name: str) -> list[dict]:
    import json

    from .. import net

    for candidate in _name_variants(name):
        resp = _HTTP.get(index + index_path(candidate), INDEX_CAP)
        if resp.status in (404, 410, 451):
            continue  # the index's answers for a crate it does not have
        if resp.status != 200:
            raise net.status_error(WHAT, resp)
        text = net.decoded_body(resp, INDEX_CAP, f"the index file of {candidate!r}", WHAT)
        entries = []
        try:
            for line in text.decode("utf-8").split("\n"):
                if line.strip():
                    entry = json.loads(line)
                    if not isinstance(entry, dict):
                        raise ValueError
                    entries.append(entry)
        except ValueError:
            raise protocol_error(f"{WHAT} sent an index file for {candidate!r} that is not one JSON object "
                                 "per line") from None
        entries = [e for e in entries if e.get("v") in _KNOWN_SCHEMA]
        for e in entries:
            if not (isinstance(e.get("name"), str) and isinstance(e.get("vers"), str)
                    and e["name"].lower() == candidate.lower()):
                raise protocol_error(f"{WHAT} sent an index file for {candidate!r} whose entries do not name "
                                     "that crate and a version")
        return entries
    raise CodenavError("NOT_FOUND", f"crate {name!r} was not found in {WHAT}",
                       details={"action": "check the crate name"})


def _config(index: str) -> dict:
    import json

    from .. import net

    resp = _HTTP.get_ok(index + "config.json", CONFIG_CAP, not_found=protocol_error(
        f"{redact_url(index)} has no config.json: it is not a Cargo sparse index",
        action=f"check {ENDPOINT_VARIABLE} or Cargo's source replacement"))
    try:
        doc = json.loads(net.decoded_body(resp, CONFIG_CAP, "config.json", WHAT))
    except ValueError:
        doc = None
    if not isinstance(doc, dict) or not isinstance(doc.get("dl"), str) or not doc["dl"]:
        raise protocol_error(f"{WHAT} sent a config.json without a dl URL template")
    return doc


def download_url(template: str, crate: str, version: str, checksum: str) -> str:
    """Cargo's ``dl`` rule: fill in the markers, or append ``/{crate}/{version}/download``."""
    if not any(marker in template for marker in _MARKERS):
        return template.rstrip("/") + f"/{crate}/{version}/download"
    prefix = _prefix(crate)  # {prefix} keeps the crate's case, {lowerprefix} does not
    return (template.replace("{crate}", crate).replace("{version}", version)
            .replace("{prefix}", prefix).replace("{lowerprefix}", prefix.lower())
            .replace("{sha256-checksum}", checksum))


def resolve(name: str, wanted: str | None) -> Artifact:
    from . import semver
    from .artifact import Artifact, Unpack, Verification

    index = endpoint()
    entries = _index_lines(index, name)
    live = [e["vers"] for e in entries if not e.get("yanked")]
    newest = latest(live, semver.sort_key, prerelease=semver.is_prerelease)
    crate = entries[-1]["name"] if entries else name
    if wanted is None and newest is None:
        raise CodenavError("NOT_FOUND", f"crate {crate!r} has no version that is not yanked",
                           details={"action": "name a version to read a yanked one"})
    version = wanted or newest
    chosen = next((e for e in reversed(entries) if e["vers"] == version), None)  # a yanked one too: pinned
    if chosen is None:
        raise version_not_found(f"crate {crate!r} has no version {version!r}", wanted, live, newest, semver.sort_key)
    crate = chosen["name"]
    checksum = require_digest(chosen.get("cksum"), f"the index gives no sha256 for {crate} {version}")
    url = download_url(_config(index)["dl"], crate, version, checksum)
    if not url.startswith(("http://", "https://")):
        raise protocol_error(f"{WHAT}'s dl template does not give an http(s) URL")
    return Artifact(
        registry=PREFIX, name=crate, version=version, filename=f"{crate}-{version}.crate", url=url,
        unpack=Unpack("tar", required_prefix=f"{crate}-{version}/"),
        verification=Verification("digest", "sha256", checksum, "the index's cksum"),
        headers={"User-Agent": USER_AGENT},
    )
