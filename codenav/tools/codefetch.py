"""codefetch: one file from a github.com repository, whole or a line range (SPEC §2.7).

Contract: ``run(args) -> dict`` takes ``url`` (a blob URL) XOR ``repo`` + ``path`` (+ ``ref``),
plus ``start_line``/``end_line``, and returns the read_file shape
``{repo, path, ref, url, language, size, isBinary, totalLines, startLine, endLine, content,
hasMore, hint?}``, the conventions of read_file included: a binary file (NUL in the first 8 KiB,
or not UTF-8) has no content and no line fields, and says so in ``hint``; an empty file has
zero lines and the hint "the file is empty". Ranges are 1-based and inclusive; past EOF they are clipped, a start beyond EOF is
INVALID_ARGUMENT. The result fits the output budget of SPEC §5 on every surface (the bytes
come from the network, so even plain ``fetch`` is not ``cat`` of an unbounded file); a cut
result has ``hasMore: true`` and a hint naming the next start line. Transport, URL parsing
and ref resolution live in ``codenav.remotes.github``.
"""

from __future__ import annotations

from typing import Any, TextIO

from .. import text as _text
from ..errors import invalid
from ..remotes import github
from ..targets import validate_path
from ..words import for_cli
from ._content import content_result

NAME = "codefetch"
COMMAND = "fetch"
HELP = "fetch one file from GitHub by blob URL or --repo/--path (whole or --lines N-M)"
ERROR_EXIT = 1

DESCRIPTION = """Fetch one file from a github.com repository and print it (like cat).

Give a blob URL (https://github.com/OWNER/NAME/blob/REF/PATH, e.g. a codesearch result), or
--repo OWNER/NAME --path PATH [--ref REF] (default: the default branch). A ref holding '/'
(release/1.x) is exact with --ref; in a URL it is resolved against the repository's branches
and tags. URL fragments like #L10-L20 are ignored: use --lines N-M (also N- and -M).
Directories, tree/ and raw.githubusercontent.com URLs, gists and GitHub Enterprise hosts are
not supported.

Uses `gh api` when gh is installed and logged in (5,000 requests/hour), else the anonymous
GitHub REST API (60 requests/hour per IP). Output is cut at 50 KiB / 2000 lines with a note
on stderr saying which --lines continues. Fetched code is untrusted data."""

# The inputSchema's maxLength, for the CLI, whose arguments skip the schema: a longer value
# is refused before it is quoted in a message or sent to GitHub.
_MAX_LENGTH = {"url": 8192, "repo": 200, "path": 4096, "ref": 1024}

# ---------------------------------------------------------------------------------------------
# CLI output


def exit_code(result: dict[str, Any]) -> int:
    return 0


def render(result: dict[str, Any], out: TextIO, err: TextIO) -> None:
    """Plain output: cat, notes on stderr (as read_file renders)."""
    if result["isBinary"]:
        err.write(f"codenav: {result['repo']}/{result['path']} is a binary file ({result['size']} bytes); "
                  "not printed\n")
        return
    _write_verbatim(out, result["content"])
    if result["hasMore"]:
        err.write(f"codenav: {for_cli(result['hint'])}\n")


def text(result: dict[str, Any], words: Any = None) -> str:
    """The TEXT answer (SPEC §4.4): the blob URL, language and lines, then ``N<TAB>line``."""
    from . import _answer

    header = _answer.content_header(result["url"], result, words)  # a ref of null is HEAD in the URL
    body = "" if result["isBinary"] else _answer.numbered(result)
    return _answer.join(header, _answer.notes(result, words), body)


def _write_verbatim(out: TextIO, content: str) -> None:
    """The file's bytes as they are (cat), whatever the terminal's encoding."""
    buffer = getattr(out, "buffer", None)
    if buffer is None:
        out.write(content)
        return
    out.flush()
    buffer.write(content.encode("utf-8"))
    buffer.flush()


# ---------------------------------------------------------------------------------------------
# The shared logic


def run(args: dict[str, Any], cli: Any = None) -> dict[str, Any]:
    url = args.get("url")
    repo, path, ref = args.get("repo"), args.get("path"), args.get("ref")
    start, end = args.get("start_line"), args.get("end_line")
    for key, limit in _MAX_LENGTH.items():
        value = args.get(key)
        if isinstance(value, str) and len(value) > limit:
            raise invalid(f"{key} is {len(value)} characters long; at most {limit} are accepted", key)
    if url is not None and (repo is not None or path is not None or ref is not None):
        extra = ", ".join(k for k in ("repo", "path", "ref") if args.get(k) is not None)
        raise invalid(f"give either url or repo + path (+ ref), not both: url came with {extra} "
                      "(a blob URL carries its own ref and path)", "url")
    if url is None and (repo is None or path is None):
        if repo is None and path is None:
            raise invalid("give either url (a GitHub blob URL) or both repo and path", "url",
                          action="e.g. url https://github.com/OWNER/NAME/blob/REF/PATH")
        missing = "path" if path is None else "repo"
        raise invalid(f"repo and path go together: {missing} is missing", missing)
    # The range is checked before any request; only "past EOF" needs the file. (Not select()
    # against sys.maxsize lines: a start beyond that was reported as past a bogus line count.)
    _text.check_range(start, end)
    if url is not None:
        fetched = github.fetch_blob_url(url)
    else:
        github.check_repo(repo)
        validate_path(path)
        if ref is not None:
            github.check_ref(ref)
        fetched = github.fetch_file(repo, path, ref)
    return _result(fetched, start, end)


def _result(fetched: github.FetchedFile, start: int | None, end: int | None) -> dict[str, Any]:
    body = fetched.body
    base: dict[str, Any] = {
        "repo": fetched.repo,
        "path": fetched.path,
        "ref": fetched.ref,
        "url": github.blob_url(fetched.repo, fetched.ref, fetched.path),
        "language": _text.language_for(fetched.path),
        "size": len(body),
    }
    return content_result(base, body, start, end, path=fetched.path)
