"""conda-forge: names, versions, the channel, per-package metadata -> one package file (SPEC §3.17).

Everything codenav knows about conda channels is here (the contract of registries/base.py):

- names: conda package names, lower-cased as conda's MatchSpec does: letters, digits, ``_``,
  ``-`` and ``.``, not starting with ``-`` or ``.``;
- versions: conda's VersionOrder (registries/condaversion.py), build numbers breaking ties; a
  plain version or ``==V`` names one version (``1.26`` finds ``1.26.0``, echoed as published),
  but no version is cached forever: a new build of it may be published (``is_exact``); anything
  else a MatchSpec version spec (``>=1.26,<2``, ``1.26.*``, ``=1.26``, ``1.2|1.4``). None
  means the highest version in the channel, as conda's solver picks: conda-forge keeps release
  candidates under their own labels, so nothing is skipped as a prerelease;
- the channel: CODENAV_CONDA_CHANNEL, else the ``conda-forge`` channel as conda's ``.condarc``
  files resolve it (a ``channels`` URL whose last segment is ``conda-forge``, else
  ``custom_channels: {conda-forge: URL}``, else ``channel_alias``), else the public channel
  below. The file is ``{channel}{subdir}/{filename}``, as conda downloads it;
- metadata, one package at a time, never a whole channel's repodata (conda-forge's linux-64
  repodata.json is hundreds of MB): for a channel on anaconda.org (or whenever
  CODENAV_CONDA_API is set) the anaconda.org API ``{api}package/{channel}/{name}/files`` lists
  every file of the package with its subdir, version, build, build number, sha256, size and
  labels. A file outside the channel's label (``main``, or ``/label/X`` in the channel URL) is
  withdrawn (conda-forge moves broken builds to ``broken``): used only when pinned, read from
  its label's URL. Any other channel (a mirror, a private channel) is read as conda reads it,
  ``{channel}{subdir}/repodata.json`` for this machine's subdir and ``noarch`` (or the subdir
  asked for), up to REPODATA_CAP (docs/decisions.md, issue 26);
- which file: the subdir asked for (``artifact``: a subdir or a file name), else this
  machine's subdir (``CONDA_SUBDIR``, as conda reads it), else ``noarch``, else another subdir
  (``platformMatch: false``); within it the highest build number, then the newest upload;
  ``.conda`` when this interpreter can read zstd (``compression.zstd``, or ``backports.zstd``
  where installed), else the same build's ``.tar.bz2`` (else the version's best ``.tar.bz2`` in
  that subdir), else an error naming the file and the fix;
- verification: sha256 of the file against the metadata's sha256 (missing: INTEGRITY_ERROR);
- unpack: a ``.tar.bz2`` as it is (``info/`` and the package's files, no top folder); a
  ``.conda`` (a zip) through its ``pkg-*.tar.zst``, the files conda links into an environment.
"""

from __future__ import annotations

import os

from ..errors import CodenavError, invalid, protocol_error
from .base import Client, ladder, latest, nearest_first, require_digest, version_not_found

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from .artifact import Artifact

PREFIX = "conda"
ALIASES: tuple[str, ...] = ("conda-forge",)
WHAT = "the conda channel"
ENDPOINT_VARIABLE = "CODENAV_CONDA_CHANNEL"
API_VARIABLE = "CODENAV_CONDA_API"
CHANNEL_NAME = "conda-forge"
# The public channel and the API that describes it: the defaults when neither codenav nor
# conda's configuration names another.
DEFAULT_ALIAS = "https://conda.anaconda.org/"
DEFAULT_CHANNEL = DEFAULT_ALIAS + CHANNEL_NAME + "/"
DEFAULT_API = "https://api.anaconda.org/"
_HTTP = Client(WHAT, headers={"Accept-Encoding": "gzip"})
API_CAP = 256 * 1024 * 1024  # every file of a package, all labels: the largest are tens of MB
REPODATA_CAP = 128 * 1024 * 1024  # one subdir of a private channel or mirror
# The subdirs named in help and errors; any other ``os-arch`` subdir is accepted too.
ARTIFACT_WORDS = ("linux-64", "linux-aarch64", "osx-64", "osx-arm64", "win-64", "noarch")
EXTENSIONS = (".conda", ".tar.bz2")

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-.")


# --- names and versions ------------------------------------------------------------------------

def normalize_name(name: str) -> str:
    lowered = name.lower()
    if not (lowered and lowered.isascii() and set(lowered) <= _NAME_CHARS and lowered[0] not in "-."):
        raise invalid(f"{name!r} is not a valid conda package name (letters, digits, '_', '-' and '.')",
                      "package_name")
    return lowered


def classify_version(version: str) -> str:
    """``exact`` (a version, ``==V``) or ``range`` (a MatchSpec version spec); INVALID_ARGUMENT otherwise."""
    from .condaversion import Order, VersionError, parse_spec

    try:
        if version.startswith("==") and not any(c in version for c in "*,|()"):
            Order(version[2:])
            return "exact"
        if version[:1].isalnum() and not any(c in version for c in "*,|()<>=!~ "):
            Order(version)
            return "exact"
        parse_spec(version)
    except VersionError as e:
        raise invalid(f"{version!r} is not a conda version or version spec ({e})", "version") from None
    return "range"


def is_exact(version: str) -> bool:
    """Never: a channel may publish a new build of a published version at any time (a higher
    build number, a build for a new Python), and that is the one conda installs; a pinned version
    is therefore resolved again after the alias TTL, and a file already read is kept by its sha256."""
    return False


def version_key(version: str):
    """conda's VersionOrder."""
    from .condaversion import sort_key

    return sort_key(version)


# --- the channel -------------------------------------------------------------------------------

def endpoint() -> str:
    return ladder((ENDPOINT_VARIABLE,), _condarc_channel, DEFAULT_CHANNEL)


def condarc_files() -> list[str]:
    """conda's SEARCH_PATH (conda/base/constants.py), lowest precedence first; a ``condarc.d``
    folder gives its ``*.yml``/``*.yaml`` files in name order."""
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    files = _place("/etc/conda") + _place("/var/lib/conda")
    files += _place(os.environ["CONDA_ROOT"]) if os.environ.get("CONDA_ROOT") else []
    files += _place(os.path.join(xdg, "conda")) + _place(os.path.join(home, ".config", "conda"))
    files += _place(os.path.join(home, ".conda")) + [os.path.join(home, ".condarc")]
    files += _place(os.environ["CONDA_PREFIX"]) if os.environ.get("CONDA_PREFIX") else []
    files += [os.environ["CONDARC"]] if os.environ.get("CONDARC") else []
    return list(dict.fromkeys(files))


def _place(folder: str) -> list[str]:
    found = [os.path.join(folder, ".condarc"), os.path.join(folder, "condarc")]
    try:
        found += sorted(os.path.join(folder, "condarc.d", f) for f in os.listdir(os.path.join(folder, "condarc.d"))
                        if f.endswith((".yml", ".yaml")))
    except OSError:
        pass
    return found


def condarc() -> dict:
    """``channels`` (highest precedence first, as conda merges them), ``channel_alias`` and
    ``custom_channels`` from every .condarc; a later file wins a scalar or a map key."""
    merged: dict = {"channels": [], "channel_alias": None, "custom_channels": {}}
    for path in condarc_files():
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read(1024 * 1024)
        except (OSError, UnicodeDecodeError):
            continue
        values = _top_level(text, ("channels", "channel_alias", "custom_channels"), path)
        if isinstance(values.get("channels"), list):
            merged["channels"] = [c for c in values["channels"] if isinstance(c, str)] + merged["channels"]
        if isinstance(values.get("channel_alias"), str):
            merged["channel_alias"] = values["channel_alias"]
        if isinstance(values.get("custom_channels"), dict):
            merged["custom_channels"].update(values["custom_channels"])
    return merged


def _top_level(text: str, keys: tuple[str, ...], path: str) -> dict:
    """The values of a few top-level keys, each block read alone with the YAML subset."""
    from ..lockfiles.yaml_subset import YamlError, top_level

    try:
        return top_level(text, keys)
    except YamlError as e:
        raise CodenavError("CONFIG_ERROR", f"{os.path.basename(path)}: its {e.key!r} cannot be "
                           f"read; set {ENDPOINT_VARIABLE} to the channel URL",
                           details={"action": f"set {ENDPOINT_VARIABLE}"}) from None


def _condarc_channel() -> str | None:
    config = condarc()
    for channel in config["channels"]:
        if "://" in channel and _channel_parts(channel.rstrip("/") + "/")[1] == CHANNEL_NAME:
            return channel
    custom = config["custom_channels"].get(CHANNEL_NAME)
    if isinstance(custom, str) and custom.strip():
        return custom.strip().rstrip("/") + "/" + CHANNEL_NAME
    alias = config["channel_alias"]
    if alias and alias.strip():
        return alias.strip().rstrip("/") + "/" + CHANNEL_NAME
    return None


def _channel_parts(channel: str) -> tuple[str, str, str]:
    """(root, name, label) of a channel URL: ``…/conda-forge/label/broken/`` ->
    (``…/conda-forge/``, "conda-forge", "broken"); without ``/label/`` the label is ``main``."""
    from urllib.parse import urlsplit

    parts = [p for p in urlsplit(channel).path.split("/") if p]
    if len(parts) >= 3 and parts[-2] == "label":
        return channel[: channel.rindex("/label/") + 1], parts[-3], parts[-1]
    return channel, (parts[-1] if parts else ""), "main"


def _uses_api(channel: str) -> bool:
    return bool(os.environ.get(API_VARIABLE)) or channel.startswith(DEFAULT_ALIAS)


def api_endpoint() -> str:
    from .base import clean

    return clean(os.environ[API_VARIABLE]) if os.environ.get(API_VARIABLE) else DEFAULT_API


# --- this machine ------------------------------------------------------------------------------

def machine_subdir() -> str:
    """conda's subdir for this machine (``CONDA_SUBDIR`` first, as conda's context reads it)."""
    if os.environ.get("CONDA_SUBDIR"):
        return os.environ["CONDA_SUBDIR"]
    import sys  # not platform: it imports re, and this runs on the warm path

    if hasattr(os, "uname"):
        machine = os.uname().machine.lower()
    else:
        machine = (os.environ.get("PROCESSOR_ARCHITEW6432") or os.environ.get("PROCESSOR_ARCHITECTURE", "")).lower()
    wide = sys.maxsize > 2**32
    if sys.platform.startswith("linux"):
        arch = {"x86_64": "64", "amd64": "64", "i686": "32", "i386": "32", "arm64": "aarch64"}.get(machine, machine)
        return f"linux-{'32' if arch == '64' and not wide else arch}"
    if sys.platform == "darwin":
        return "osx-arm64" if machine in ("arm64", "aarch64") else "osx-64"
    if sys.platform == "win32":
        return "win-arm64" if machine in ("arm64", "aarch64") else "win-64" if wide else "win-32"
    return f"{sys.platform.rstrip('0123456789')}-{'64' if machine in ('x86_64', 'amd64') else machine}"


def zstd_available() -> bool:
    """Whether this interpreter reads zstd (archive/tar.py's ``zstd_module``: ``compression.zstd``,
    Python 3.14+, else ``backports.zstd`` where installed): what a ``.conda`` needs. Indexer side."""
    from ..archive.tar import zstd_module

    return zstd_module() is not None


def alias_extra(artifact: str | None) -> str:
    """The artifact asked for and this machine's subdir. Whether zstd is there is not part of it:
    an entry read from a ``.conda`` is unpacked, so it reads the same on a Python without zstd."""
    return f"|{artifact or ''}|{machine_subdir()}"


# --- resolve: metadata -> artifact (indexer side) -----------------------------------------------

class _File:
    __slots__ = ("fn", "subdir", "version", "build", "number", "sha256", "size", "timestamp", "withdrawn", "url")

    def __init__(self, **fields) -> None:
        for slot in self.__slots__:
            setattr(self, slot, fields.get(slot))

    @property
    def stem(self) -> str:
        return self.fn[: -len(next(e for e in EXTENSIONS if self.fn.endswith(e)))]


def _is_file(subdir: str, fn: str) -> bool:
    """A package file name under a subdir: nothing that could walk the channel's URL elsewhere."""
    return (bool(subdir) and all(c.isalnum() or c in "-_" for c in subdir) and fn.endswith(EXTENSIONS)
            and not any(c in fn for c in "/\\?#%") and not fn.startswith("."))


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _api_files(name: str, channel: str) -> list[_File]:
    root, base, label = _channel_parts(channel)
    doc = _HTTP.json(f"{api_endpoint()}package/{base}/{name}/files", API_CAP,
                     "a package's file list", not_found=_not_found(name, channel))
    if not isinstance(doc, list):
        raise protocol_error(f"{WHAT}'s API sent a file list for {name!r} that is not a JSON array")
    files = []
    for entry in doc:
        if not isinstance(entry, dict) or entry.get("type", "conda") != "conda":
            continue
        attrs = entry.get("attrs") if isinstance(entry.get("attrs"), dict) else {}
        subdir, _, fn = str(entry.get("basename", "")).partition("/")
        if attrs.get("name", name) != name or not _is_file(subdir, fn):
            continue
        labels = [x for x in entry.get("labels") or [] if isinstance(x, str)]
        sha = attrs.get("sha256") if attrs.get("sha256") not in (None, "None") else entry.get("sha256")
        use = label if label in labels else labels[0] if labels else label
        where = root if use == "main" else f"{root}label/{use}/"
        files.append(_File(fn=fn, subdir=subdir, version=str(entry.get("version") or ""),
                           build=attrs.get("build"), number=_int(attrs.get("build_number")), sha256=sha,
                           size=entry.get("size") if _int(entry.get("size")) else None,
                           timestamp=_int(attrs.get("timestamp")),
                           withdrawn=False if label in labels else
                           f"the channel lists it under the label {', '.join(labels) or 'none'}, not {label}",
                           url=f"{where}{subdir}/{fn}"))
    return files


def _repodata_files(name: str, channel: str, subdirs: list[str]) -> list[_File]:
    from .. import net

    files = []
    for subdir in subdirs:
        try:
            doc = _HTTP.json(f"{channel}{subdir}/repodata.json", REPODATA_CAP, f"a {subdir}/repodata.json",
                             missing_ok=True, obj=True,
                             body=lambda r: net.decoded_body(r, REPODATA_CAP, "repodata.json", WHAT))
        except CodenavError as e:
            if e.code != "TOO_LARGE":
                raise
            raise CodenavError("TOO_LARGE", f"{channel}{subdir}/repodata.json is larger than "
                               f"{REPODATA_CAP // 2**20} MiB; codenav reads whole repodata only from small "
                               f"channels", details={"limitBytes": REPODATA_CAP,
                                                     "action": f"set {API_VARIABLE} to an anaconda.org-style API "
                                                               "for this channel"}) from None
        for table in ("packages", "packages.conda"):
            records = doc.get(table) if doc else None
            for fn, record in (records.items() if isinstance(records, dict) else ()):
                if isinstance(record, dict) and record.get("name") == name and _is_file(subdir, fn):
                    files.append(_File(fn=fn, subdir=record.get("subdir") or subdir,
                                       version=str(record.get("version") or ""), build=record.get("build"),
                                       number=_int(record.get("build_number")), sha256=record.get("sha256"),
                                       size=record.get("size") if _int(record.get("size")) else None,
                                       timestamp=_int(record.get("timestamp")), withdrawn=False,
                                       url=f"{channel}{subdir}/{fn}"))
    return files


def _not_found(name: str, channel: str) -> CodenavError:
    return CodenavError("NOT_FOUND", f"conda package {name!r} was not found in {channel}",
                        details={"action": "check the package name (conda names are lower case)"})


def _pick_version(name: str, wanted: str | None, files: list[_File]) -> str:
    from .condaversion import Order, parse_spec

    live = {f.version for f in files if not f.withdrawn}
    newest = latest(live, version_key, prerelease=lambda v: False)
    if wanted is None:
        if newest is None:
            raise CodenavError("NOT_FOUND", f"conda package {name!r} has no file in the channel's label")
        return newest
    if classify_version(wanted) == "exact":
        pin = Order(wanted.removeprefix("=="))
        same = [f for f in files if version_key(f.version) == pin]
        if not same:
            raise version_not_found(f"conda package {name!r} has no version {wanted!r}", wanted, live, newest,
                                    version_key)
        return max(same, key=lambda f: (bool(not f.withdrawn), f.number, f.timestamp)).version
    match = parse_spec(wanted)
    fitting = [v for v in live if match(v)]
    if not fitting:
        others = nearest_first(live, None, version_key)
        raise CodenavError("VERSION_NOT_FOUND", f"conda package {name!r} has no version matching {wanted!r}"
                           + (f"; latest is {newest}" if newest else ""),
                           details={"availableVersions": others, "latest": newest,
                                    "action": "pick one of availableVersions, widen the spec, or omit the version"})
    return max(fitting, key=version_key)


def choose(files: list[_File], artifact: str | None, here: str, zstd: bool) -> tuple[_File, dict]:
    """The file to read and why: the subdir or file asked for, else this machine's subdir, else
    noarch, else another subdir (flagged); the highest build number, then the newest upload;
    ``.conda`` only when zstd can be read, else that build's ``.tar.bz2``."""
    if artifact is not None and artifact.endswith(EXTENSIONS):
        hit = [f for f in files if f.fn == artifact]
        if not hit:
            names = sorted(f"{f.subdir}/{f.fn}" for f in files)
            raise invalid(f"this release has no file {artifact!r}; its files are: {', '.join(names[:20])}"
                          + (f" (and {len(names) - 20} more)" if len(names) > 20 else ""), "artifact",
                          availableArtifacts=names[:100], action="give one of availableArtifacts, or a subdir")
        pick, why = hit[0], {"artifactReason": "requested"}
    else:
        tiers = ([artifact] if artifact else [here, "noarch"])
        pool = [f for f in files if f.subdir in tiers] or ([] if artifact else files)
        if not pool:
            subdirs = sorted({f.subdir for f in files})
            raise invalid(f"this release has no build for {artifact!r}; its subdirs are: {', '.join(subdirs)}",
                          "artifact", availableArtifacts=subdirs, action="give one of availableArtifacts")
        tier = min(tiers.index(f.subdir) if f.subdir in tiers else len(tiers) for f in pool)
        pool = [f for f in pool if (tiers.index(f.subdir) if f.subdir in tiers else len(tiers)) == tier]
        # another subdir: this OS first (osx-arm64 before linux-64 on osx-64), then the name
        pool.sort(key=lambda f: (f.subdir.split("-")[0] != here.split("-")[0], f.subdir))
        pool = [f for f in pool if f.subdir == pool[0].subdir]
        pick = max(pool, key=lambda f: (f.number, f.timestamp, f.fn.endswith(".conda") == zstd, f.fn))
        reason = ("requested" if artifact else "platform-build" if pick.subdir == here
                  else "noarch-build" if pick.subdir == "noarch" else "other-platform-build")
        why = {"artifactReason": reason}
    if pick.subdir not in ("noarch", here):
        why["platformMatch"] = False
    why["subdir"] = pick.subdir
    if pick.fn.endswith(".conda") and not zstd:
        # The same build's .tar.bz2, else this version's best .tar.bz2 in the subdir (a file
        # asked for by name is never swapped for another).
        named = artifact is not None and artifact.endswith(EXTENSIONS)
        bz2 = [f for f in files if f.subdir == pick.subdir and f.fn.endswith(".tar.bz2") and not named]
        twin = next((f for f in bz2 if f.stem == pick.stem), None) or max(
            bz2, key=lambda f: (f.number, f.timestamp, f.fn), default=None)
        if twin is None:
            raise CodenavError(
                "CONFIG_ERROR", f"{pick.subdir}/{pick.fn} is a .conda file (zstd inside), which this Python "
                "cannot read" + ("" if named else f", and the channel has no .tar.bz2 of this version for "
                                                  f"{pick.subdir}"),
                details={"artifact": pick.fn, "action": "run codenav on Python 3.14+ (compression.zstd), or "
                         "`pip install backports.zstd` into its environment"})
        pick = twin
    return pick, why


def resolve(name: str, wanted: str | None, artifact: str | None = None) -> Artifact:
    from .artifact import Artifact, Unpack, Verification

    channel = endpoint()
    here = machine_subdir()
    if _uses_api(channel):
        files = _api_files(name, channel)
    else:
        subdirs = [artifact] if artifact and not artifact.endswith(EXTENSIONS) else [here, "noarch"]
        files = _repodata_files(name, channel, subdirs)
        if not files:
            raise CodenavError("NOT_FOUND", f"conda package {name!r} was not found in {channel} "
                               f"({' or '.join(subdirs)})", details={"action": "check the package name"})
    if not files:
        raise _not_found(name, channel)
    version = _pick_version(name, wanted, files)
    release = [f for f in files if f.version == version]
    release = [f for f in release if not f.withdrawn] or release
    chosen, why = choose(release, artifact, here, zstd_available())
    sha = require_digest(chosen.sha256, f"the channel gives no sha256 for {chosen.subdir}/{chosen.fn}")
    unpack = Unpack("tar", inner_member=f"pkg-{chosen.stem}.tar.zst") if chosen.fn.endswith(".conda") else Unpack("tar")
    return Artifact(
        registry=PREFIX, name=name, version=version, filename=chosen.fn, url=chosen.url, unpack=unpack,
        verification=Verification("digest", "sha256", sha, "the sha256 the channel lists"),
        yanked=chosen.withdrawn or None, size=chosen.size, choice=why,
    )
