"""One file from github.com: blob-URL parsing, ref resolution, and the gh → REST transport.

Contract (SPEC §2.7, §8):

* ``fetch_file(repo, path, ref)`` and ``fetch_blob_url(url)`` return a ``FetchedFile`` (the
  bytes of one file and the repo/path/ref actually read) or raise ``CodenavError``.
* Transport: ``gh api --hostname github.com -H 'Accept: …' ENDPOINT`` when ``gh`` is on PATH
  (a subprocess with a deadline, ``stdin=DEVNULL``, captured and capped output), else — or when
  gh is unauthenticated, times out or fails — one unauthenticated GET to the REST API at
  ``$CODENAV_GITHUB_API_URL`` (default ``https://api.github.com``), redirects refused. Nothing
  is printed: a missing gh is not news. ``KeyboardInterrupt`` (cancellation) stops gh and is
  re-raised; it never starts the fallback.
* Definite answers from gh are final and never retried over REST: a 404 (an authenticated gh
  sees at least what the anonymous API sees, and every REST call spends the 60/hour anonymous
  quota), a body over the 2 MiB cap, a directory. Both transports failing is one error whose
  message is ``"gh: <reason>; GitHub API: <reason>"`` and whose code, retryability and
  details are the API's (a missing gh is a reason too: installing it is the remedy for the
  anonymous rate limit). TOO_LARGE is reported alone: it is about the file, not the transport.
* 404s are told apart by GitHub's JSON ``message``: ``No commit found for the ref …`` is
  ``REF_NOT_FOUND``; otherwise one cheap ``GET repos/O/N`` decides between ``FILE_NOT_FOUND``
  (the repository exists) and ``NOT_FOUND`` (it does not, or is private and invisible).
* Blob URLs (``https://github.com/O/N/blob/REF/PATH``): a ref may contain ``/``, so when more
  than one segment follows the first ref segment the split is ambiguous. The first segment is
  tried as the ref (one request, and the common case — git forbids a branch ``a`` beside a
  branch ``a/b``). Only if that answers 404 are the repository's branches and tags starting
  with that segment listed (``git/matching-refs/heads/<seg>`` and ``…/tags/<seg>``), and the
  longest ref made of whole leading segments wins. If they cannot be listed the error asks for
  repo, path and ref explicitly; a split is never guessed silently.

This module is over 500 lines on purpose: URL parsing, ref splitting and the two transports
answer one question (which bytes is this file) and share their error rules.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from .. import __version__, net, proc
from ..errors import CodenavError, invalid, protocol_error, too_large
from ..targets import validate_path

HOST = "github.com"
DEFAULT_API_URL = "https://api.github.com"
API_URL_VARIABLE = "CODENAV_GITHUB_API_URL"
API_TIMEOUT_VARIABLE = "CODENAV_GITHUB_TIMEOUT"
GH_TIMEOUT_VARIABLE = "CODENAV_GH_TIMEOUT"
RAW = "application/vnd.github.raw"  # file bytes; directories still answer a JSON array (reference §2)
JSON = "application/vnd.github+json"
WHAT = "GitHub"
STDERR_CAP = 64 * 1024
GH_AUTH_REQUIRED = 4  # `gh help exit-codes`: 4 = authentication required

ASK_EXPLICIT = "pass repo, path and ref separately (CLI: --repo O/N --path P --ref REF) so the split is exact"

_OWNER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
_NAME = re.compile(r"[A-Za-z0-9._-]+")
_FULL_SHA = re.compile(r"[0-9a-fA-F]{40}|[0-9a-fA-F]{64}")
_GH_STATUS = re.compile(r"\(HTTP (\d{3})\)")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class FetchedFile:
    repo: str
    path: str
    ref: str | None  # None: the default branch
    body: bytes


@dataclass(frozen=True)
class BlobURL:
    """A parsed blob URL. ``segments`` are the decoded ref+path segments after ``blob/``."""

    repo: str
    segments: tuple[str, ...]
    explicit_ref: str | None = None  # set when the URL itself fixes the split (%2F in the ref)

    @property
    def ambiguous(self) -> bool:
        """True when the ref could be longer than the first segment."""
        if self.explicit_ref is not None or len(self.segments) <= 2:
            return False
        return not _FULL_SHA.fullmatch(self.segments[0])  # a commit id holds no '/'

    def first_split(self) -> tuple[str, str]:
        if self.explicit_ref is not None:
            return self.explicit_ref, "/".join(self.segments)
        return self.segments[0], "/".join(self.segments[1:])


# ---------------------------------------------------------------------------------------------
# Argument checks (SPEC §2.7; paths follow §2.2 through targets.validate_path)


def check_repo(repo: str, field: str = "repo") -> str:
    owner, sep, name = repo.partition("/")
    if not sep or not _OWNER.fullmatch(owner) or not _NAME.fullmatch(name) or name in (".", ".."):
        hint = " (for a blob URL use url instead)" if "://" in repo or repo.startswith(HOST) else ""
        raise invalid(f"{field} must look like 'owner/name', e.g. 'pallets/flask', got {repo!r}{hint}", field)
    return repo


def check_ref(ref: str, field: str = "ref") -> str:
    # git refuses control characters and spaces in ref names (git-check-ref-format); a commit id
    # has neither, so anything carrying them is a typo or an injection attempt.
    if not ref or _CONTROL.search(ref) or " " in ref:
        raise invalid(f"{field} must be a branch, tag or commit without spaces or control characters, got {ref!r}",
                      field)
    return ref


def parse_blob_url(url: str) -> BlobURL:
    """``https://github.com/O/N/blob/REF/PATH`` → ``BlobURL``; anything else is INVALID_ARGUMENT.

    The fragment (``#L10-L20``) and the query (``?plain=1``) are ignored: ranges are options.
    """
    text = url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise invalid(f"url is not a valid URL: {url!r}", "url") from None
    host = (parts.hostname or "").lower()
    action = "give a blob URL like https://github.com/OWNER/NAME/blob/REF/PATH, or repo + path (+ ref)"
    if host == "raw.githubusercontent.com":
        raise invalid("raw.githubusercontent.com URLs are not accepted: use the file's "
                      "https://github.com/OWNER/NAME/blob/REF/PATH URL, or repo + path + ref", "url", action=action)
    if host == "gist.github.com":
        raise invalid("gist URLs are not supported; codefetch reads files of github.com repositories", "url")
    if parts.scheme not in ("https", "http") or not host:
        raise invalid(f"url must be an https://github.com/OWNER/NAME/blob/REF/PATH URL, got {url!r}", "url",
                      action=action)
    if host not in (HOST, "www." + HOST):
        raise invalid(f"only github.com URLs are supported (not {host}; GitHub Enterprise and other hosts are not)",
                      "url")
    if parts.scheme != "https" or parts.username or parts.password or port is not None:
        raise invalid(f"url must be a plain https://github.com/... URL, got {url!r}", "url", action=action)
    raw = parts.path.split("/")[1:]  # the path starts with '/'
    if len(raw) < 3 or not raw[0] or not raw[1]:
        raise invalid(f"url names no file: {url!r}", "url", action=action)
    repo = check_repo(f"{_decode(raw[0])}/{_decode(raw[1])}", "url")
    kind = raw[2]
    if kind == "tree":
        raise invalid(f"{url!r} is a directory (tree) URL; codefetch reads one file", "url",
                      action="open a file inside it: its https://github.com/OWNER/NAME/blob/REF/PATH URL")
    if kind in ("raw", "blame", "edit"):
        raise invalid(f"{kind}/ URLs are not accepted; use the same URL with blob/ in place of {kind}/", "url",
                      action=action)
    if kind != "blob":
        raise invalid(f"url is not a file (blob) URL: {url!r}", "url", action=action)
    rest = raw[3:]
    if rest and rest[-1] == "" and len(rest) > 1:
        raise invalid(f"url ends with '/', which names a directory: {url!r}", "url", action=action)
    if len(rest) < 2:
        raise invalid(f"url names a ref but no file: {url!r}", "url", action=action)
    ref_raw, path_raw = rest[0], rest[1:]
    ref = check_ref(_decode(ref_raw), "url")
    segments = [_decode(s) for s in path_raw]
    if any("/" in s for s in segments):
        raise invalid(f"url has an encoded '/' (%2F) inside a path segment: {url!r}", "url")
    validate_path("/".join(segments), "url")
    if "/" in ref:  # %2F inside the ref segment: the URL spells the split out itself
        return BlobURL(repo, tuple(segments), explicit_ref=ref)
    return BlobURL(repo, (ref, *segments))


def _decode(segment: str) -> str:
    try:
        return unquote(segment, errors="strict")
    except UnicodeDecodeError:
        raise invalid(f"url has a percent-encoded segment that is not UTF-8: {segment!r}", "url") from None


def blob_url(repo: str, ref: str | None, path: str) -> str:
    """The github.com page of what was read; ``HEAD`` stands for the default branch."""
    ref_part = "/".join(quote(s, safe="") for s in (ref or "HEAD").split("/"))
    path_part = "/".join(quote(s, safe="") for s in path.split("/"))
    return f"https://{HOST}/{repo}/blob/{ref_part}/{path_part}"


def contents_endpoint(repo: str, path: str, ref: str | None) -> str:
    """``repos/O/N/contents/PATH[?ref=REF]``, every segment and the ref percent-encoded.

    No ``?ref=`` for the default branch; a '/' in the ref travels as %2F, which GitHub accepts.
    """
    owner, name = repo.split("/", 1)
    endpoint = f"repos/{quote(owner, safe='')}/{quote(name, safe='')}/contents/" + "/".join(
        quote(segment, safe="") for segment in path.split("/"))
    if ref is not None:
        endpoint += "?ref=" + quote(ref, safe="")
    return endpoint


# ---------------------------------------------------------------------------------------------
# Fetching


def fetch_file(repo: str, path: str, ref: str | None, *, client: GitHub | None = None,
               repo_exists: bool | None = None) -> FetchedFile:
    """The bytes of ``path`` in ``repo`` at ``ref`` (None: default branch); the ref is exact."""
    client = client or GitHub()
    answer = client.get(contents_endpoint(repo, path, ref), accept=RAW, too_large=_too_large(repo, path))
    if answer.status == 404:
        raise _not_found(client, repo, path, ref, answer, repo_exists=repo_exists)
    _refuse_non_file(answer.body, repo, path)
    return FetchedFile(repo, path, ref, answer.body)


def fetch_blob_url(url: str, *, client: GitHub | None = None) -> FetchedFile:
    """The file a blob URL names, resolving where a '/'-holding ref ends (module docstring)."""
    blob = parse_blob_url(url)
    client = client or GitHub()
    ref, path = blob.first_split()
    if not blob.ambiguous:
        return fetch_file(blob.repo, path, ref, client=client)
    answer = client.get(contents_endpoint(blob.repo, path, ref), accept=RAW, too_large=_too_large(blob.repo, path))
    if answer.status != 404:
        _refuse_non_file(answer.body, blob.repo, path)
        return FetchedFile(blob.repo, path, ref, answer.body)
    try:
        names = _refs_starting_with(client, blob.repo, blob.segments[0])
    except CodenavError as exc:
        if exc.code == "NOT_FOUND":
            raise
        raise CodenavError(
            exc.code,
            f"{blob.repo} has no file {path} at ref {ref!r}, and the branches and tags that could make a longer "
            f"ref (one holding '/') could not be listed: {exc.message}",
            retryable=exc.retryable,
            details={**exc.details, "action": ASK_EXPLICIT},
        ) from None
    segments = blob.segments
    # Longest first: "release/1.x" beats "release" when both would leave a non-empty path.
    for cut in range(len(segments) - 1, 1, -1):
        candidate = "/".join(segments[:cut])
        if candidate in names:
            return fetch_file(blob.repo, "/".join(segments[cut:]), candidate, client=client, repo_exists=True)
    error = _not_found(client, blob.repo, path, ref, answer, repo_exists=True)
    error.details.setdefault("action", ASK_EXPLICIT)
    if error.code == "REF_NOT_FOUND":
        error.details["action"] = (f"no branch or tag of {blob.repo} matches the start of this URL; check it, or "
                                   + ASK_EXPLICIT)
    raise error


def _refs_starting_with(client: GitHub, repo: str, first: str) -> set[str]:
    """Branch and tag names starting with ``first`` (GitHub matches by string prefix)."""
    owner, name = repo.split("/", 1)
    names: set[str] = set()
    for kind in ("heads", "tags"):
        endpoint = f"repos/{owner}/{name}/git/matching-refs/{kind}/{quote(first, safe='')}"
        answer = client.get(endpoint, accept=JSON)
        if answer.status == 404:
            raise _repo_missing(repo)
        try:
            refs = json.loads(answer.body)
        except ValueError:
            refs = None
        if not isinstance(refs, list):
            raise protocol_error(f"{WHAT} answered matching-refs with something other than a list")
        prefix = f"refs/{kind}/"
        for item in refs:
            ref = item.get("ref") if isinstance(item, dict) else None
            if isinstance(ref, str) and ref.startswith(prefix):
                names.add(ref[len(prefix):])
    return names


def _not_found(client: GitHub, repo: str, path: str, ref: str | None, answer: Answer, *,
               repo_exists: bool | None) -> CodenavError:
    """A 404 of the contents API as FILE_NOT_FOUND, REF_NOT_FOUND or NOT_FOUND (module docstring)."""
    message = answer.message()
    if ref is not None and message.startswith("No commit found for the ref"):
        return CodenavError(
            "REF_NOT_FOUND",
            f"{repo} has no branch, tag or commit {ref!r}",
            details={"requestedRef": ref, "action": "check the ref's spelling, or omit ref for the default branch"},
        )
    if repo_exists is None:
        repo_exists = _repo_exists(client, repo)
    if repo_exists is False:
        return _repo_missing(repo)
    where = f" at ref {ref!r}" if ref is not None else " on the default branch"
    text = f"{repo} has no file {path}{where}"
    if repo_exists is None:
        text += " (or the repository itself is missing or private)"
    details: dict[str, Any] = {
        "filePath": path,
        "action": "check the path (it is case-sensitive) and the ref; codesearch can find where a file lives",
    }
    if ref is not None:
        details["requestedRef"] = ref
    return CodenavError("FILE_NOT_FOUND", text, details=details)


def _repo_exists(client: GitHub, repo: str) -> bool | None:
    """True/False from ``GET repos/O/N``; None when that cannot be told (rate limit, network…)."""
    try:
        answer = client.get("repos/" + repo, accept=JSON)
    except CodenavError:
        return None
    return answer.status != 404


def _repo_missing(repo: str) -> CodenavError:
    return CodenavError(
        "NOT_FOUND",
        f"repository {repo} was not found on github.com (or it is private and not visible to codenav)",
        details={"action": "check owner/name; private repositories need an authenticated gh (gh auth login)"},
    )


def _too_large(repo: str, path: str) -> Any:
    def build() -> CodenavError:
        return too_large(
            f"{repo}/{path} is larger than codenav's {net.API_CAP // (1024 * 1024)} MiB fetch limit",
            limitBytes=net.API_CAP, filePath=path,
            action=f"read it from a clone instead: read_file with repo_url https://github.com/{repo}",
        )
    return build


def _refuse_non_file(body: bytes, repo: str, path: str) -> None:
    """A directory (or submodule, or outside symlink) answers JSON even with the raw Accept.

    Recognised by shape, not by content type (gh does not show headers): a non-empty array of
    entries whose ``path`` is ``<path>/<name>``, or one object describing ``path`` itself. A
    file's own bytes cannot plausibly look like that listing of its own path.
    """
    if body.lstrip()[:1] not in (b"[", b"{"):
        return
    try:
        data = json.loads(body)
    except ValueError:
        return
    if isinstance(data, list) and data and all(
        isinstance(e, dict) and isinstance(e.get("name"), str) and e.get("path") == f"{path}/{e['name']}"
        and "type" in e for e in data
    ):
        raise invalid(
            f"{repo}/{path} is a directory; codefetch reads one file", "path", filePath=path,
            action="give the path of a file inside it (list a directory with list_files and repo_url)",
        )
    if isinstance(data, dict) and data.get("path") == path and "sha" in data and data.get("type") in (
            "submodule", "symlink", "dir"):
        raise invalid(f"{repo}/{path} is a {data['type']}, not a regular file", "path", filePath=path)


# ---------------------------------------------------------------------------------------------
# Transport


@dataclass
class Answer:
    """A 2xx or 404 answer: the only statuses callers interpret themselves."""

    status: int
    body: bytes
    via: str  # "gh" or "api"

    def message(self) -> str:
        """GitHub's JSON ``message`` of an error body, or ''."""
        try:
            data = json.loads(self.body)
        except ValueError:
            return ""
        value = data.get("message") if isinstance(data, dict) else None
        return value if isinstance(value, str) else ""


class _GhFailed(Exception):
    """gh could not answer (missing, unauthenticated, timed out, failed); never leaves this module."""


class GitHub:
    """GitHub for one tool call: gh while it works, then the anonymous REST API.

    Once gh has failed it is not asked again within the same call (a resolution may take a few
    requests, and an unauthenticated gh would fail each time); a new call tries it afresh.
    """

    def __init__(self) -> None:
        self.gh_failure: str | None = None

    def get(self, endpoint: str, *, accept: str, too_large: Any = None) -> Answer:
        if self.gh_failure is None:
            try:
                return _gh_get(endpoint, accept, too_large)
            except _GhFailed as exc:
                self.gh_failure = str(exc)
        try:
            return _api_get(endpoint, accept, too_large)
        except CodenavError as exc:
            if exc.code == "TOO_LARGE":
                raise  # a fact about the file, not a transport failure: gh is beside the point
            raise CodenavError(exc.code, f"gh: {self.gh_failure}; GitHub API: {exc.message}",
                               retryable=exc.retryable, details=exc.details) from None


def _gh_get(endpoint: str, accept: str, too_large: Any) -> Answer:
    gh = shutil.which("gh")
    if gh is None:
        raise _GhFailed("not found on PATH")
    timeout = net.timeout_from_env(GH_TIMEOUT_VARIABLE)
    argv = [gh, "api", "--hostname", HOST, "-H", f"Accept: {accept}", endpoint]
    code, out, err = _run_capped(argv, timeout, too_large)
    if code == 0:
        return Answer(200, out, "gh")
    if code == GH_AUTH_REQUIRED:
        raise _GhFailed("not authenticated (run gh auth login)")
    text = err.decode("utf-8", "replace").strip()
    status = _GH_STATUS.search(text)
    if status and status.group(1) == "404":
        return Answer(404, out, "gh")
    first = text.splitlines()[0] if text else ""
    first = first[4:] if first.startswith("gh: ") else first
    raise _GhFailed(_clip(first) if first else f"exited with status {code}")


def _gh_env() -> dict[str, str]:
    env = dict(os.environ)
    # Never prompt (stdin is /dev/null anyway), no colour codes, no update check on stderr.
    env.update({"GH_PROMPT_DISABLED": "1", "NO_COLOR": "1", "GH_NO_UPDATE_NOTIFIER": "1", "CLICOLOR": "0"})
    return env


def _run_capped(argv: list[str], timeout: float, over_cap: Any) -> tuple[int, bytes, bytes]:
    """Run gh with a whole-run deadline (SPEC §8); stdout capped at 2 MiB (over it: TOO_LARGE)."""
    try:
        done = proc.run(argv, timeout, cap=net.API_CAP, env=_gh_env(), stderr_keep=STDERR_CAP)
    except proc.NotStarted as exc:
        raise _GhFailed(f"could not be started ({exc})") from None
    except proc.TimedOut:
        raise _GhFailed(f"did not answer within {timeout:g} s") from None
    except proc.OverCap:
        raise (over_cap() if over_cap else too_large(
            f"gh's answer is larger than the {net.API_CAP // 1024} KiB limit", limitBytes=net.API_CAP)) from None
    return done.returncode, done.stdout, done.stderr


def _api_base() -> str:
    base = (os.environ.get(API_URL_VARIABLE) or DEFAULT_API_URL).rstrip("/")
    if urlsplit(base).scheme not in ("http", "https"):
        raise CodenavError("CONFIG_ERROR", f"{API_URL_VARIABLE} must be an http(s) URL, got {base!r}")
    return base


def _api_get(endpoint: str, accept: str, too_large: Any) -> Answer:
    headers = {
        "Accept": accept,
        "User-Agent": f"codenav/{__version__}",
        "X-GitHub-Api-Version": "2022-11-28",
    }
    try:
        resp = net.request("GET", f"{_api_base()}/{endpoint}", what=WHAT, headers=headers,
                           timeout=net.timeout_from_env(API_TIMEOUT_VARIABLE), max_bytes=net.API_CAP,
                           redirects="never", too_large=too_large)
    except CodenavError as exc:
        if exc.code == "PROTOCOL_ERROR" and "redirect" in exc.message:
            # GitHub redirects renamed or transferred repositories; following is refused (SPEC §8).
            exc.details.setdefault("action", "the repository may have been renamed or moved: use its current "
                                             "owner/name")
        raise
    if 200 <= resp.status < 300:
        return Answer(resp.status, resp.body, "api")
    if resp.status == 404:
        return Answer(404, resp.body, "api")
    raise _status_error(resp)


def _status_error(resp: net.Response) -> CodenavError:
    """net.status_error plus GitHub's rate-limit facts: the reset time, secondary limits."""
    limited = resp.status == 429 or (
        resp.status == 403 and (resp.header("x-ratelimit-remaining") == "0" or resp.header("retry-after")))
    if not limited:
        error = net.status_error(WHAT, resp)
        message = Answer(resp.status, resp.body, "api").message()
        if message:
            error = CodenavError(error.code, f"{error.message}: {_clip(message)}", retryable=error.retryable,
                                 details=error.details)
        return error
    seconds = net.retry_after_seconds(resp.headers)
    details: dict[str, Any] = {"status": resp.status}
    message = f"{WHAT} is rate limiting requests (HTTP {resp.status})"
    if seconds is not None:
        details["retryAfterSeconds"] = seconds
        message += f"; retry in {seconds} s"
    reset = resp.header("x-ratelimit-reset")
    if reset and reset.strip().isdigit():
        details["resetAt"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(reset.strip())))
    details["action"] = ("wait for the reset, or authenticate gh (gh auth login): anonymous requests get 60 per "
                         "hour, authenticated ones 5,000")
    return CodenavError("RATE_LIMITED", message, details=details)


def _clip(text: str, limit: int = 240) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
