"""CRAN: names, R's version order and ranges, where the repository is, and PACKAGES -> source
tarball (SPEC §3.18).

Everything codenav knows about CRAN and CRAN-like repositories is here (the contract of
registries/base.py):

- names: R's ``valid_package_name`` (an ASCII letter, then letters, digits and ``.``, not ending
  in ``.``, at least two characters), case-sensitive (``Rcpp``), passed through unchanged;
- versions: R's ``package_version`` — at least two non-negative integers separated by ``.`` or
  ``-`` (``1.2-3`` is ``1.2.3``; a missing part compares as 0, so ``1.0`` equals ``1.0.0``).
  Every such version is exact. A range is written as ``remotes::install_version`` takes it:
  comparisons ``>= > <= < == !=`` joined by ``,`` (``>= 1.2, < 2.0``); ``== V`` is exact.
  None means latest: the current version the repository's index lists. R has no prereleases;
- the endpoint: CODENAV_CRAN_REPOS, then ``options(repos = …)`` in R's startup profiles where
  it is a literal (the user profile — ``R_PROFILE_USER``, else ``./.Rprofile``, else
  ``~/.Rprofile`` — over the site profile ``Rprofile.site``), then the public default, written
  once below;
- resolve: ``{repo}src/contrib/PACKAGES.gz`` (``PACKAGES`` when there is none; never
  ``PACKAGES.rds``) lists the current version of every package, with ``MD5sum``; of several
  entries for one name the highest version is used (the first of equals), as R's
  ``available.packages`` does. Older versions are the files of ``src/contrib/Archive/NAME/``,
  read from the repository's directory listing. A range takes the current version when it
  satisfies, else the highest archived version that does (``remotes::install_version``);
- verification: md5 of the current version's tarball against ``MD5sum``. MD5 detects
  corruption, not tampering (whoever can change the tarball can change the index), and the
  echo says so. An archived version has no published checksum: it is read unverified, saying why;
- unpack: ``NAME_VERSION.tar.gz`` holds one ``NAME/`` folder, which is removed.
"""

from __future__ import annotations

import os

from ..errors import CodenavError, invalid, protocol_error, redact_url, too_large
from .base import Client, ladder, nearest_first, require_digest, version_not_found

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from .artifact import Artifact

PREFIX = "cran"
WHAT = "the CRAN repository"
ENDPOINT_VARIABLE = "CODENAV_CRAN_REPOS"
# The public CRAN (a redirector to a nearby mirror): the default when neither codenav nor R's
# profiles name a repository.
DEFAULT_REPOS = "https://cloud.r-project.org/"
USER_AGENT = "codenav (CRAN client)"
_HTTP = Client(WHAT, headers={"User-Agent": USER_AGENT})

_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")
_OPERATORS = (">=", "<=", "==", "!=", ">", "<")  # two-character ones first
INDEX_CAP = 64 * 1024 * 1024  # CRAN's PACKAGES is about 12 MiB, its gzip about 3 MiB
LISTING_CAP = 4 * 1024 * 1024
# What ``MD5sum`` proves, said in every echo of a verified CRAN tarball.
MD5_SOURCE = ("the MD5sum in PACKAGES (a corruption check, not a tamper check: whoever can change the "
              "tarball can change the index)")
ARCHIVE_NOTE = ("CRAN publishes no checksum for archived versions (PACKAGES lists only the current one); "
                "this is the tarball the repository's Archive serves")


# --- names and versions ------------------------------------------------------------------------

def normalize_name(name: str) -> str:
    """The package name as given (R's names are case-sensitive), or INVALID_ARGUMENT."""
    if not (len(name) >= 2 and name[0] in _LETTERS and name[-1] != "." and set(name) <= _LETTERS | _DIGITS | {"."}):
        raise invalid(f"{name!r} is not a valid R package name (an ASCII letter, then letters, digits and '.', "
                      "not ending in '.')", "package_name")
    return name


def parts(version: str) -> tuple[int, ...] | None:
    """The integers of a ``package_version`` (``1.2-3`` -> (1, 2, 3)), or None when it is not one."""
    numbers = version.replace("-", ".").split(".")
    if len(numbers) < 2 or not all(n.isascii() and n.isdigit() for n in numbers):
        return None
    return tuple(int(n) for n in numbers)


def version_key(version: str) -> tuple:
    """R's ``package_version`` order: part by part, a missing part as 0 (so ``1.0`` and ``1.0.0``
    are equal; the shorter sorts first, as ``compareVersion`` has it). Not a version: first."""
    numbers = parts(version)
    if numbers is None:
        return (0, ())
    trimmed = numbers
    while len(trimmed) > 1 and trimmed[-1] == 0:  # missing parts are zeros: drop trailing ones
        trimmed = trimmed[:-1]
    return (1, trimmed, len(numbers))


def same(a: str, b: str) -> bool:
    """``package_version(a) == package_version(b)``."""
    return parts(a) is not None and version_key(a)[1] == version_key(b)[1]


def criteria(text: str) -> list[tuple[str, str]]:
    """``>= 1.2, < 2.0`` -> [(">=", "1.2"), ("<", "2.0")]; a bare version is ``==``.
    INVALID_ARGUMENT for anything else."""
    out = []
    for item in text.split(","):
        item = item.strip()
        op = next((o for o in _OPERATORS if item.startswith(o)), "==")
        version = item[len(op):].strip() if item.startswith(op) else item
        if parts(version) is None:
            raise invalid(f"{text!r} is not an R package version or a version range such as '>= 1.2' or "
                          "'>= 1.2, < 2.0'", "version")
        out.append((op, version))
    return out


def classify_version(version: str) -> str:
    """``"exact"`` (a version, ``== V``) or ``"range"``; INVALID_ARGUMENT otherwise."""
    found = criteria(version)
    return "exact" if len(found) == 1 and found[0][0] == "==" else "range"


def is_exact(version: str) -> bool:
    """A version (or ``== V``) names one tarball, which CRAN never replaces."""
    try:
        return classify_version(version) == "exact"
    except CodenavError:
        return False


def satisfies(version: str, wanted: list[tuple[str, str]]) -> bool:
    """Whether ``version`` meets every ``(operator, version)`` of ``criteria``, by package_version."""
    import operator

    tests = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt, "==": operator.eq,
             "!=": operator.ne}
    return all(tests[op](version_key(version)[1], version_key(bound)[1]) for op, bound in wanted)


# --- the endpoint ------------------------------------------------------------------------------

def endpoint() -> str:
    return ladder((ENDPOINT_VARIABLE,), profile_repos, DEFAULT_REPOS)


_SITE_PROFILES = ("/etc/R/Rprofile.site", "/usr/lib/R/etc/Rprofile.site", "/usr/lib64/R/etc/Rprofile.site",
                  "/usr/local/lib/R/etc/Rprofile.site", "/Library/Frameworks/R.framework/Resources/etc/Rprofile.site")


def profiles() -> list[str]:
    """R's startup profiles in the order R runs them: the site profile, then the user's."""
    site = os.environ.get("R_PROFILE")
    if not site:
        home = os.environ.get("R_HOME")
        found = [os.path.join(home, "etc", "Rprofile.site")] if home else []
        site = next((f for f in found + list(_SITE_PROFILES) if os.path.isfile(f)), None)
    user = os.environ.get("R_PROFILE_USER")
    if not user:
        user = ".Rprofile" if os.path.isfile(".Rprofile") else os.path.join(os.path.expanduser("~"), ".Rprofile")
    return [f for f in (site, user) if f]


def profile_repos() -> str | None:
    """The CRAN repository the last profile that sets ``repos`` sets, when it is a literal."""
    found = None
    for path in profiles():
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read(1024 * 1024)
        except OSError:
            continue
        setting = repos_setting(text)
        if setting is not None:
            found = setting
    return found or None


def _tokens(text: str) -> list[str]:
    """R tokens, enough for an options() call: strings (kept quoted), names, and punctuation."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif c.isalnum() or c in "._":
            j = i
            while j < n and (text[j].isalnum() or text[j] in "._"):
                j += 1
            out.append(text[i:j])
            i = j
        elif text.startswith("<-", i):
            out.append("<-")
            i += 2
        else:
            if not c.isspace():
                out.append(c)
            i += 1
    return out


def repos_setting(text: str) -> str | None:
    """What a profile's last setting of ``repos`` names: the CRAN URL of ``repos = "URL"``,
    ``repos = c(CRAN = "URL", …)`` (the entry named CRAN, else the first), or ``repos = r`` after
    ``r["CRAN"] <- "URL"`` (Rprofile.site's idiom); "" when that setting is not a literal (it
    cannot be followed); None when the profile sets no ``repos``."""
    tokens = _tokens(text)
    setting = None
    cran: dict[str, str] = {}  # r["CRAN"] <- "URL": the literal each variable's CRAN entry got
    for at, token in enumerate(tokens):
        after = tokens[at + 1:at + 9]
        if token == "repos" and after[:1] == ["="] and at and tokens[at - 1] in ("(", ","):
            setting = _literal(tokens[at + 2:]) or cran.get(after[1] if len(after) > 1 else "", "")
        elif token == "[" and at and tokens[at - 1] != "[":
            inner = after[1:] if after[:1] == ["["] else after
            closing = 2 if after[:1] == ["["] else 1
            if inner and _unquote(inner[0]) == "CRAN" and inner[1:1 + closing] == ["]"] * closing \
                    and inner[1 + closing:2 + closing] in (["<-"], ["="]):
                cran[tokens[at - 1]] = _unquote(inner[2 + closing]) if len(inner) > 2 + closing else ""
    if setting and (setting.startswith("@") or "://" not in setting):
        return ""  # "@CRAN@" (choose a mirror) or not a URL
    return setting


def _literal(tokens: list[str]) -> str | None:
    """The URL of ``"URL"`` or of ``c(CRAN = "URL", …)``; None when it is not a literal."""
    if tokens and _unquote(tokens[0]) is not None:
        return _unquote(tokens[0])
    if tokens[:2] != ["c", "("]:
        return None
    first = None
    rest = tokens[2:]
    while rest and rest[0] != ")":
        named = len(rest) >= 3 and rest[1] == "="
        value = _unquote(rest[2] if named else rest[0])
        if value is None:
            return None
        if named and (_unquote(rest[0]) or rest[0]) == "CRAN":
            return value
        first = first or value
        rest = rest[3 if named else 1:]
        rest = rest[1:] if rest[:1] == [","] else rest
    return first


def _unquote(token: str) -> str | None:
    if len(token) >= 2 and token[0] in "\"'" and token[-1] == token[0]:
        return token[1:-1]
    return None


# --- resolve: PACKAGES and the Archive -> artifact (indexer side) -------------------------------

def stanzas(text: str, name: str) -> list[dict[str, str]]:
    """The DCF stanzas of PACKAGES (``\\n`` line ends) whose ``Package`` is ``name``, continuation
    lines joined."""
    out = []
    for stanza in text.split("\n\n"):
        if name not in stanza:
            continue  # most of 22,000 stanzas: skipped without being read field by field
        fields: dict[str, str] = {}
        last = None
        for line in stanza.split("\n"):
            if line[:1] in (" ", "\t") and last is not None:
                fields[last] += " " + line.strip()
            elif ":" in line:
                last, _, value = line.partition(":")
                fields[last] = value.strip()
        if fields.get("Package") == name:
            out.append(fields)
    return out


def _index(repo: str) -> str:
    """The text of PACKAGES (from PACKAGES.gz when the repository has one, as R prefers it)."""
    import zlib

    from .. import net

    resp = _HTTP.get(f"{repo}src/contrib/PACKAGES.gz", INDEX_CAP)
    filename = "PACKAGES.gz"
    if resp.status == 404:
        resp, filename = _HTTP.get(f"{repo}src/contrib/PACKAGES", INDEX_CAP), "PACKAGES"
    if resp.status != 200:
        raise net.status_error(WHAT, resp, not_found=CodenavError(
            "NOT_FOUND", f"{redact_url(repo)} has no src/contrib/PACKAGES: it is not a CRAN-like repository",
            details={"action": f"check {ENDPOINT_VARIABLE} or options(repos) in your .Rprofile"}))
    body = net.decoded_body(resp, INDEX_CAP, "the PACKAGES index", WHAT)  # a server that labels the gzip
    try:
        if body[:2] == b"\x1f\x8b":
            body = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(body, INDEX_CAP + 1)
        text = body.decode("utf-8")
    except (zlib.error, UnicodeDecodeError):
        raise protocol_error(f"{WHAT} sent a {filename} that is not a readable package index") from None
    if len(body) > INDEX_CAP:
        raise too_large(f"the PACKAGES index of {redact_url(repo)} is larger than {INDEX_CAP // 2**20} MiB",
                        limitBytes=INDEX_CAP)
    if text.strip() and "Package:" not in text:
        raise protocol_error(f"{WHAT} sent a {filename} that is not a package index (no Package: field)")
    return text


def archived(repo: str, name: str) -> list[str]:
    """The versions in ``src/contrib/Archive/NAME/`` (its directory listing); [] when there is none
    (404); a page with no link at all is no listing (PROTOCOL_ERROR), never "no older versions"."""
    from urllib.parse import unquote

    resp = _HTTP.get(f"{repo}src/contrib/Archive/{name}/", LISTING_CAP)
    if resp.status == 404:
        return []
    if resp.status != 200:
        from .. import net

        raise net.status_error(WHAT, resp)
    page = resp.body.decode("utf-8", "replace")
    if "href=" not in page:  # every directory listing links at least to its parent (a portal's page, a JSON)
        raise protocol_error(f"{WHAT} sent an Archive/{name}/ page that is not a directory listing")
    found = []
    for chunk in page.split('href="')[1:]:
        target = unquote(chunk.split('"', 1)[0]).rsplit("/", 1)[-1]
        stem = target.removeprefix(f"{name}_").removesuffix(".tar.gz")
        if target.startswith(f"{name}_") and target.endswith(".tar.gz") and parts(stem) is not None:
            found.append(stem)
    return list(dict.fromkeys(found))


def resolve(name: str, wanted: str | None) -> Artifact:
    from .artifact import Artifact, Unpack, Verification

    repo = endpoint()
    text = _index(repo).replace("\r\n", "\n")
    entries = stanzas(text, name)
    # As available.packages: the highest version wins, the first of equal ones.
    current = max(reversed(entries), key=lambda e: version_key(e.get("Version", "")), default=None)
    version = current.get("Version") if current else None
    if current is not None and parts(version or "") is None:
        raise protocol_error(f"{WHAT} lists {name} with a version that is not an R package version")
    rules = criteria(wanted) if wanted is not None else None
    if version is not None and (rules is None or satisfies(version, rules)):
        chosen = version
    else:
        older = archived(repo, name)
        if version is None and not older:
            raise _missing(repo, name, text)
        if rules is None:
            raise CodenavError("NOT_FOUND", f"CRAN package {name!r} has no current version: the repository "
                               "archived it", details={"availableVersions": nearest_first(older, None, version_key),
                                                       "action": "name one of availableVersions"})
        matching = [v for v in older if satisfies(v, rules)]
        if not matching:
            exact = classify_version(wanted) == "exact"
            raise version_not_found(f"CRAN package {name!r} has no version {'' if exact else 'matching '}{wanted!r}",
                                    wanted, older + ([version] if version else []), version, version_key)
        # The highest match; for a pin, the spelling asked for when the archive has it.
        chosen = next((v for v in matching if v == rules[0][1]), max(matching, key=version_key))
    filename = f"{name}_{chosen}.tar.gz"
    unpack = Unpack("tar", required_prefix=f"{name}/")
    if chosen != version:
        return Artifact(registry=PREFIX, name=name, version=chosen, filename=filename,
                        url=f"{repo}src/contrib/Archive/{name}/{filename}", unpack=unpack,
                        verification=Verification("none", source=ARCHIVE_NOTE), headers={"User-Agent": USER_AGENT})
    path = current.get("Path", "").strip("/")
    url = f"{repo}src/contrib/{path + '/' if path else ''}{current.get('File') or filename}"
    md5 = current.get("MD5sum")
    check = (Verification("digest", "md5", require_digest(md5, f"PACKAGES gives a malformed MD5sum for {filename}", 32),
                          MD5_SOURCE) if md5 is not None else
             Verification("none", source=f"the repository's PACKAGES gives no MD5sum for {name} {version}"))
    return Artifact(registry=PREFIX, name=name, version=version, filename=filename, url=url, unpack=unpack,
                    verification=check, headers={"User-Agent": USER_AGENT})


def _missing(repo: str, name: str, text: str) -> CodenavError:
    """NOT_FOUND; when PACKAGES holds the name in another case, ``suggestion`` names it."""
    lowered = f"\npackage: {name.lower()}\n"
    at = ("\n" + text.lower()).find(lowered)
    details = {"action": "check the package name (R package names are case-sensitive)"}
    if at >= 0:
        details["suggestion"] = text[at + len("Package: "):at + len(lowered) - 2].strip()
    return CodenavError("NOT_FOUND", f"CRAN package {name!r} was not found in {redact_url(repo)}", details=details)
