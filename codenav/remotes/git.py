"""The git source (SPEC §3): check a repository URL, resolve a ref to a commit, export a tree.

The calls the cache makes:

- ``check_url(url)`` returns the URL to hand to git, or refuses it (``INVALID_ARGUMENT``,
  field ``repo_url``): https/http/ssh/git/file URLs, ``user@host:path`` and local paths (made
  absolute) are accepted; anything starting with ``-`` and every ``<transport>::`` remote
  helper form (``ext::``, ``fd::``, …) is refused before git ever sees it.
- ``resolve(url, ref)`` names the commit a branch, tag or full refname points at, asking
  ``git ls-remote`` (no objects are transferred); ``resolve_ref`` also says which refname
  matched. ``ref=None`` means the remote's HEAD. A full 40/64-hex id is taken as a commit
  without asking the network; a short one only matches branch and tag tips.
- ``export(url, commit, dest_tar)`` shallow-fetches exactly that commit into a throw-away
  bare repository beside ``dest_tar`` and writes ``git archive --format=tar`` of it there,
  falling back to fetching a branch or tag whose tip it is when the server refuses ids.

Every git process runs non-interactively (no prompts, no askpass, no terminal: it gets a new
session, so ssh cannot open /dev/tty), with stdin closed and its output captured (stdout is
the MCP wire in server mode, SPEC §6), with the ext/fd transports disabled, and under a
deadline that kills the whole process group (SPEC §8). Messages quote git's own reason with
credentials in URLs replaced by ``***`` and temporary paths removed.

This module is over 500 lines on purpose: URL checks, ref resolution, the export and the
stderr -> error table are one hardening policy, read together when it is reviewed.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from .. import net, proc
from ..errors import CodenavError, invalid, redact_url, too_large
from ..proc import Deadline

RESOLVE_TIMEOUT = 30.0  # seconds, CODENAV_GIT_TIMEOUT
EXPORT_TIMEOUT = 300.0  # seconds, CODENAV_GIT_FETCH_TIMEOUT: a fetch moves a whole tree
# git's stdout is read against a byte cap, as every HTTP body is (SPEC §8): a ref listing gets
# the cap of a registry document; an exported tree the most the archive limits could accept.
REFS_CAP = 64 * 1024 * 1024
STDERR_KEEP = 64 * 1024  # the tail of git's stderr kept for the error message (the reason is last)

# Remote-helper syntax git recognises before anything else: "<scheme chars>::<address>".
_HELPER_FORM = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*::")
_URL_FORM = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
# scp-like "[user@]host:path", which git reads as ssh when the colon comes before any slash.
_SCP_FORM = re.compile(r"(?:[^@/:]+@)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9._-]*):")
_SCHEMES = {"https", "http", "ssh", "git", "file"}
# npm's repository fields and pip's VCS URLs spell git remotes "git+https://…"; git itself
# does not know that prefix (it would look for a remote helper named "git+https").
_ALIASES = {"git+https": "https", "git+http": "http", "git+ssh": "ssh", "ssh+git": "ssh", "git+file": "file"}

_FULL_ID = re.compile(r"[0-9a-fA-F]{40}|[0-9a-fA-F]{64}")
_SHORT_ID = re.compile(r"[0-9a-fA-F]{7,39}")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"]+")  # a URL in git's words, for redact_url

# Refuse transports that run commands or talk to file descriptors, whatever git's defaults
# are in the installed version (SPEC §3); -c applies to every process git spawns.
_HARDENING = (
    "-c", "protocol.ext.allow=never",
    "-c", "protocol.fd.allow=never",
    "-c", "credential.interactive=never",
)
# Variables that would point git at some other repository than the one we name.
_REPO_ENV = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_SHALLOW_FILE", "GIT_GRAFT_FILE",
    "GIT_PREFIX", "GIT_IMPLICIT_WORK_TREE",
)
# Reasons git gives when a server will not hand out a commit by id (old servers without
# uploadpack.allow*SHA1InWant, protocol v0/v1) or does not have it.
_WANT_REFUSED = ("not our ref", "unadvertised object", "couldn't find remote ref", "no such remote ref")


@dataclass(frozen=True)
class Resolution:
    """What a ref named on the remote: the commit, and the full refname it came from."""

    commit: str
    refname: str | None  # "refs/heads/trunk" for the default branch; None for a commit id


def check_url(url: str) -> str:
    """The URL to give git for ``url``, or INVALID_ARGUMENT (field ``repo_url``)."""
    if not isinstance(url, str):
        raise invalid("repo_url must be a string", "repo_url")
    url = url.strip()
    if not url:
        raise invalid("repo_url is empty", "repo_url")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in url):
        raise invalid("repo_url contains control characters (NUL, newline, …)", "repo_url")
    if url.startswith("-"):
        # git would read it as an option (e.g. --upload-pack=<command>).
        raise invalid("repo_url must not start with '-'", "repo_url")
    if _HELPER_FORM.match(url):
        raise invalid(
            "repo_url uses a '<transport>::' remote-helper address (such as ext:: or fd::), which codenav refuses; "
            "use an https, ssh, git or file URL, user@host:path, or a local path",
            "repo_url",
        )
    scheme = _URL_FORM.match(url)
    if scheme:
        name = scheme.group(1).lower()
        if name in _ALIASES:
            name = _ALIASES[name]
            url = name + url[scheme.end(1):]
        if name not in _SCHEMES:
            raise invalid(
                f"repo_url scheme {scheme.group(1)!r} is not supported; use https, http, ssh, git or file",
                "repo_url",
            )
        authority = url[len(name) + 3:].split("/", 1)[0]
        if name != "file" and not authority.rpartition("@")[2]:
            raise invalid("repo_url has no host", "repo_url")
        if authority.startswith("-") or authority.rpartition("@")[2].startswith("-"):
            # ssh would take "-oProxyCommand=…" as an option (CVE-2017-1000117).
            raise invalid("repo_url host must not start with '-'", "repo_url")
        return url
    scp = _SCP_FORM.match(url)
    if scp and "/" not in url[: scp.end()]:
        return url
    # A local path: absolute so that it never depends on the cwd git runs in (and so that a
    # path like "x::y" can never be read as a remote helper).
    return os.path.abspath(os.path.expanduser(url))


def resolve(url: str, ref: str | None, *, timeout: float | None = None) -> str:
    """The full commit id that ``ref`` (None: the remote's HEAD) names on the remote."""
    return resolve_ref(url, ref, timeout=timeout).commit


def resolve_ref(url: str, ref: str | None, *, timeout: float | None = None) -> Resolution:
    """Like ``resolve``, also telling which refname matched (the default branch's name for HEAD)."""
    url = check_url(url)
    ref = _check_ref(ref)
    if ref is not None and _FULL_ID.fullmatch(ref):
        return Resolution(ref.lower(), None)
    deadline = Deadline(_timeout(timeout, "CODENAV_GIT_TIMEOUT", RESOLVE_TIMEOUT))
    if ref is None or ref == "HEAD":
        return _resolve_head(url, deadline)
    refs = _list_refs(url, deadline, extra=ref if _outside_heads_and_tags(ref) else None)
    for name in _candidates(ref):
        if name in refs:
            return Resolution(_peeled(refs, name), name)
    if _SHORT_ID.fullmatch(ref):
        return Resolution(_match_short_id(url, ref, refs), None)
    raise _ref_not_found(url, ref, refs)


def export(url: str, commit: str, dest_tar: Path, *, timeout: float | None = None, ref: str | None = None,
           max_bytes: int | None = None) -> None:
    """Write a tar of the tree at ``commit`` (no ``.git``) to ``dest_tar``.

    ``ref``, when the caller knows it, is the ref ``resolve`` used: it is fetched instead if
    the server refuses to serve a commit by id, and tells "the ref moved" from "no such commit".
    A tar over ``max_bytes`` is TOO_LARGE and is not kept.
    """
    url = check_url(url)
    if not isinstance(commit, str) or not _FULL_ID.fullmatch(commit):
        raise invalid("commit must be a full 40- or 64-character hexadecimal commit id", "commit")
    commit = commit.lower()
    ref = _check_ref(ref)
    dest_tar = Path(dest_tar)
    deadline = Deadline(_timeout(timeout, "CODENAV_GIT_FETCH_TIMEOUT", EXPORT_TIMEOUT))
    work = Path(tempfile.mkdtemp(prefix=".git-export-", dir=dest_tar.parent))
    hide = (str(work), str(dest_tar.parent))
    started = done = False
    try:
        # No template: no sample hooks, nothing but what the fetch needs.
        _git(["init", "--bare", "--quiet", "--template=", "--", str(work)], deadline, "prepare the export", hide)
        # Attributes in the archived tree must not drop files (export-ignore) or rewrite
        # them (export-subst): codenav shows the tree as committed. info/attributes wins.
        (work / "info").mkdir(exist_ok=True)
        (work / "info" / "attributes").write_text("* -export-ignore -export-subst\n")
        _fetch_commit(url, commit, ref, work, deadline, hide)
        started = True
        with open(dest_tar, "wb") as out:
            _git(
                # The tree, not the commit: a commit adds a pax global header (its id), and
                # tarfile cannot read that header followed by nothing (an empty tree).
                [f"--git-dir={work}", "archive", "--format=tar", f"{commit}^{{tree}}"],
                deadline, f"archive {commit[:12]}", hide, cwd=work, stdout=out,
                cap=sys.maxsize if max_bytes is None else max_bytes,
            )
        done = True
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if started and not done:
            dest_tar.unlink(missing_ok=True)  # never leave half an archive behind


# -- resolving -------------------------------------------------------------------------------


def _check_ref(ref: str | None) -> str | None:
    """The ref stripped, or INVALID_ARGUMENT when it cannot be a ref name (git check-ref-format)."""
    if ref is None:
        return None
    if not isinstance(ref, str):
        raise invalid("git_ref must be a string", "git_ref")
    ref = ref.strip()
    if not ref:
        return None
    bad = (
        ref.startswith(("-", "/", "."))
        or ref.endswith(("/", ".", ".lock"))
        or any(ord(c) < 0x21 or ord(c) == 0x7F or c in "~^:?*[\\" for c in ref)
        or ".." in ref or "//" in ref or "@{" in ref or "/." in ref or ".lock/" in ref or ref == "@"
    )
    if bad:
        raise invalid(f"git_ref {ref!r} is not a valid branch, tag or commit name", "git_ref")
    return ref


def _outside_heads_and_tags(ref: str) -> bool:
    return ref.startswith("refs/") and not ref.startswith(("refs/heads/", "refs/tags/"))


def _candidates(ref: str) -> list[str]:
    """Refnames ``ref`` may mean, in order: a branch first (as ``git clone --branch``), then a tag."""
    names = [f"refs/heads/{ref}", f"refs/tags/{ref}"]
    if ref.startswith("refs/"):
        names.insert(0, ref)
    return names


def _peeled(refs: dict[str, str], name: str) -> str:
    """The commit behind ``name``: an annotated tag's ``^{}`` line, else the ref itself."""
    return refs.get(name + "^{}", refs[name])


def _resolve_head(url: str, deadline: Deadline) -> Resolution:
    out = _git(["ls-remote", "--symref", "--", url, "HEAD"], deadline, f"list the refs of {_display(url)}")
    commit, target = None, None
    for line in out.splitlines():
        value, _, name = line.partition("\t")
        if name != "HEAD":
            continue
        if value.startswith("ref: "):
            target = value[5:].strip()
        else:
            commit = value.strip()
    if commit is None:
        # An empty repository and a web server that is no git server at all (git falls back to
        # the "dumb" protocol and finds no refs) look the same from here: say both.
        what = (f"its default branch {_short_name(target)!r} has no commits" if target
                else "it has no commits (or it is not a git repository)")
        raise CodenavError(
            "REF_NOT_FOUND",
            f"{_display(url)} has no default branch to read: {what}",
            details={"requestedRef": "HEAD", "action": "name a branch or tag with git_ref"},
        )
    return Resolution(commit, target or "HEAD")


def _list_refs(url: str, deadline: Deadline, extra: str | None = None) -> dict[str, str]:
    """Refname -> object id for the remote's branches and tags (plus ``extra``, a full refname).

    Annotated tags also appear as ``<name>^{}`` with the commit they point at. ``--heads
    --tags`` lets a protocol-v2 server filter by prefix, so pull-request refs never cross.
    """
    what = f"list the refs of {_display(url)}"
    out = _git(["ls-remote", "--heads", "--tags", "--", url], deadline, what)
    if extra is not None:
        out += _git(["ls-remote", "--", url, extra, extra + "^{}"], deadline, what)
    refs: dict[str, str] = {}
    for line in out.splitlines():
        sha, _, name = line.partition("\t")
        if name and _FULL_ID.fullmatch(sha):
            refs[name] = sha
    if extra is not None:
        # ls-remote patterns match the tail of a refname; keep only the exact one.
        refs = {k: v for k, v in refs.items() if not _outside_heads_and_tags(k) or k in (extra, extra + "^{}")}
    return refs


def _match_short_id(url: str, ref: str, refs: dict[str, str]) -> str:
    """A short commit id can only be checked against the tips the remote advertises."""
    prefix = ref.lower()
    tips = {_peeled(refs, name) for name in refs if not name.endswith("^{}")}
    found = sorted(sha for sha in tips if sha.startswith(prefix))
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise invalid(
            f"git_ref {ref!r} is ambiguous on {_display(url)}: it starts {len(found)} branch or tag tips; "
            "give the full commit id",
            "git_ref",
            requestedRef=ref,
        )
    raise invalid(
        f"git_ref {ref!r} looks like a short commit id, which a remote cannot resolve unless it is a branch or tag "
        "tip; give the full 40-character commit id",
        "git_ref",
        requestedRef=ref,
    )


def _short_name(refname: str | None) -> str:
    for prefix in ("refs/heads/", "refs/tags/"):
        if refname and refname.startswith(prefix):
            return refname[len(prefix):]
    return refname or ""


def _ref_not_found(url: str, ref: str, refs: dict[str, str]) -> CodenavError:
    branches = sorted(_short_name(n) for n in refs if n.startswith("refs/heads/"))
    tags = sorted(_short_name(n) for n in refs if n.startswith("refs/tags/") and not n.endswith("^{}"))
    # Near misses first (a typo is the usual cause), then branches, then tags; a few only.
    available = difflib.get_close_matches(ref, branches + tags, n=5, cutoff=0.6)
    for name in branches + tags:
        if len(available) >= 20:
            break
        if name not in available:
            available.append(name)
    details: dict[str, object] = {"requestedRef": ref}
    if available:
        details["availableRefs"] = available
        hint = f"; it has e.g. {', '.join(available[:5])}"
    else:
        hint = "; it has no branches or tags"
    return CodenavError(
        "REF_NOT_FOUND", f"no branch or tag {ref!r} in {_display(url)}{hint}", details=details
    )


# -- exporting -------------------------------------------------------------------------------


def _fetch_commit(url: str, commit: str, ref: str | None, work: Path, deadline: Deadline, hide: tuple[str, ...]) -> None:
    """Bring ``commit`` (and only its tree, depth 1) into the bare repository ``work``."""
    fetch = [f"--git-dir={work}", "fetch", "--quiet", "--depth=1", "--no-tags", "--no-recurse-submodules", "--"]
    what = f"fetch {commit[:12]} from {_display(url)}"
    done = _run([*fetch, url, commit], deadline, what, cwd=work)
    if done.returncode == 0:
        return
    failed = _failure_text(done)
    if not any(reason in failed.lower() for reason in _WANT_REFUSED):
        raise _classify(failed, what, hide)
    # The server will not serve this id (servers without uploadpack.allow*SHA1InWant only
    # serve advertised tips; any server refuses an id it does not have): fetch the branch or
    # tag whose tip it is, then check that the tip is still that commit.
    if ref is not None and (ref == "HEAD" or _FULL_ID.fullmatch(ref)):
        ref = None
    refs = _list_refs(url, deadline, extra=ref if ref and _outside_heads_and_tags(ref) else None)
    if ref is not None:
        name = next((n for n in _candidates(ref) if n in refs), None)
        if name is None or _peeled(refs, name) != commit:
            raise _ref_moved(url, ref)
    else:
        tips = sorted(n for n in refs if not n.endswith("^{}") and _peeled(refs, n) == commit)
        if not tips:
            raise CodenavError(
                "REF_NOT_FOUND",
                f"commit {commit} is not available from {_display(url)}: it does not exist there, or the server "
                "only serves commits that are branch or tag tips",
                details={"requestedRef": commit, "action": "check the commit id, or name a branch or tag with git_ref"},
            )
        name = tips[0]
    _git([*fetch, url, name], deadline, what, hide, cwd=work)
    fetched = _git(
        [f"--git-dir={work}", "rev-parse", "--verify", "--quiet", "FETCH_HEAD^{commit}"], deadline, what, hide, cwd=work
    ).strip()
    if fetched != commit:
        raise _ref_moved(url, _short_name(name))


def _ref_moved(url: str, ref: str) -> CodenavError:
    return CodenavError(
        "UPSTREAM_ERROR",
        f"the ref moved while indexing: {ref!r} on {_display(url)} no longer points at the resolved commit; retry",
        retryable=True,
        details={"requestedRef": ref},
    )


# -- running git -----------------------------------------------------------------------------


def _timeout(given: float | None, variable: str, default: float) -> float:
    if given is not None:
        return given
    if os.environ.get(variable):
        return net.timeout_from_env(variable, default)  # validates the number, CONFIG_ERROR if bad
    return default


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _REPO_ENV}
    env.update(
        GIT_TERMINAL_PROMPT="0",  # never ask for a username/password on a terminal
        GIT_ASKPASS="",  # an empty askpass also stops git from consulting core.askPass
        SSH_ASKPASS="",
        SSH_ASKPASS_REQUIRE="never",
        GCM_INTERACTIVE="never",  # Git Credential Manager must not open a window
        LC_ALL="C",  # git's messages in English, so the failure patterns below match
    )
    return env


def _git(
    args: list[str],
    deadline: Deadline,
    what: str,
    hide: tuple[str, ...] = (),
    *,
    cwd: Path | None = None,
    stdout: IO[bytes] | None = None,
    cap: int | None = None,
) -> str:
    """Run git and return its stdout as text (empty when ``stdout`` is a file to write to).

    A non-zero exit is classified from git's stderr (``_classify``); an overrun deadline is
    TIMEOUT and more than ``cap`` bytes of stdout (default ``REFS_CAP``) TOO_LARGE, after the
    whole process group has been killed.
    """
    done = _run(args, deadline, what, cwd=cwd, stdout=stdout, cap=cap)
    if done.returncode != 0:
        raise _classify(_failure_text(done), what, hide)
    return done.stdout.decode("utf-8", "replace")


def _failure_text(done: proc.Outcome) -> str:
    return done.stderr_text() or f"git exited with status {done.returncode}"


def _run(
    args: list[str],
    deadline: Deadline,
    what: str,
    *,
    cwd: Path | None = None,
    stdout: IO[bytes] | None = None,
    cap: int | None = None,
) -> proc.Outcome:
    """Run ``git ARGS`` hardened and under ``deadline`` (proc.run: new session, capped pipes).

    git's stdout goes to ``stdout`` (a file) or is returned, at most ``cap`` bytes (default
    ``REFS_CAP``). git runs in the operation's own temp dir, or the filesystem root — never in
    whatever repository the caller's cwd is (its config could name an ssh command).
    """
    cap = REFS_CAP if cap is None else cap
    git = shutil.which("git")
    if git is None:
        raise CodenavError(
            "CONFIG_ERROR",
            "codenav needs the git command for repo_url targets, and none was found on PATH; install git",
        )
    try:
        return proc.run([git, *_HARDENING, *args], deadline, cap=cap, sink=stdout, env=_environment(),
                        cwd=str(cwd) if cwd is not None else None, stderr_keep=STDERR_KEEP)
    except proc.NotStarted:
        raise CodenavError("CONFIG_ERROR", "codenav needs the git command for repo_url targets; install git") from None
    except proc.TimedOut:
        raise _timed_out(what, deadline) from None
    except proc.OverCap:
        raise too_large(
            f"git could not {what}: its output is larger than the {cap} byte limit",
            limitBytes=cap,
        ) from None


def _timed_out(what: str, deadline: Deadline) -> CodenavError:
    return CodenavError(
        "TIMEOUT",
        f"git could not {what} within {deadline.seconds:g} s",
        details={"timeoutSeconds": deadline.seconds},
    )


# -- failures --------------------------------------------------------------------------------

# (code, what it means, the phrases of git/curl/ssh that say so), first match wins. The
# messages are matched in English because git runs with LC_ALL=C.
_FAILURES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("UPSTREAM_ERROR", "the server failed", ("returned error: 500", "returned error: 502", "returned error: 503",
                                             "returned error: 504")),
    ("RATE_LIMITED", "the server is rate limiting requests", ("returned error: 429",)),
    ("NOT_FOUND", "repository not found", (
        "does not appear to be a git repository", "repository not found", "not a git repository",
        "could not be found", "returned error: 404", "' not found",
    )),
    ("DENIED", "repository not found, or access denied", (
        "could not read username", "could not read password", "terminal prompts disabled",
        "authentication failed", "permission denied", "access denied", "returned error: 401",
        "returned error: 403",
    )),
    ("CONFIG_ERROR", "ssh could not verify the server's host key (add it to known_hosts)", (
        "host key verification failed",
    )),
    # The remote answered, but not in git's protocol (an HTML page, a proxy's JSON): retrying
    # will not help (SPEC §4 PROTOCOL_ERROR).
    ("PROTOCOL_ERROR", "the server does not speak git's protocol", (
        "protocol error", "bad line length", "invalid packet", "unexpected flush", "invalid server response",
        "is this a git repository",
    )),
    ("NETWORK", "the server could not be reached", (
        "could not resolve host", "could not resolve proxy", "connection refused", "failed to connect",
        "couldn't connect", "connection timed out", "operation timed out", "network is unreachable",
        "no route to host", "connection reset", "connection closed", "hung up unexpectedly", "early eof",
        "rpc failed", "broken pipe", "ssl", "tls", "gnutls", "unable to access", "unable to connect",
    )),
)


def _classify(stderr: str, what: str, hide: tuple[str, ...]) -> CodenavError:
    """The SPEC §4 error for a failed git run, quoting the line of git's stderr that says why."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for code, meaning, phrases in _FAILURES:
        line = next((line for line in lines if any(p in line.lower() for p in phrases)), None)
        if line is None:
            continue
        message = f"git could not {what}: {meaning} ({_reason(line, hide)})"
        if code == "DENIED":
            return CodenavError(
                "NOT_FOUND",
                message,
                details={"action": "check the URL; a private repository needs credentials git can use without prompting"},
            )
        return CodenavError(code, message)
    # Unrecognised: the first fatal/error line, else the last line, and not worth retrying.
    line = next((line for line in lines if line.lower().startswith(("fatal:", "error:"))), lines[-1] if lines else "")
    reason = _reason(line, hide)
    return CodenavError("UPSTREAM_ERROR", f"git could not {what}" + (f" ({reason})" if reason else ""), retryable=False)


def _reason(line: str, hide: tuple[str, ...]) -> str:
    """One line of git's stderr without its ``fatal:``-style prefix, sanitised."""
    for prefix in ("fatal:", "error:", "remote:", "ssh:"):
        if line.lower().startswith(prefix):
            line = line[len(prefix):].strip()
    return _sanitise(line, hide)


def _sanitise(text: str, hide: tuple[str, ...] = ()) -> str:
    """One printable line: credentials in URLs and temporary/cache paths removed, length capped."""
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)  # a remote's colour codes
    text = "".join(c if c.isprintable() else " " for c in text)
    text = _URL.sub(lambda match: redact_url(match.group(0)), text)
    for path in sorted(hide, key=len, reverse=True):
        if path:
            text = text.replace(path, "<cache>")
    return text if len(text) <= 300 else text[:297] + "..."


def redact(url: str) -> str:
    """``url`` as messages and echoes may show it: credentials replaced by ``***`` (SPEC §4)."""
    return _sanitise(url)


_display = redact
