"""A fake GitHub REST API on FakeServer, and a fake ``gh`` executable that talks to it.

``FakeGitHub`` serves the few endpoints codefetch uses, as github.com answers them:

* ``GET /repos/O/N`` → the repository JSON, or 404 ``{"message": "Not Found"}``;
* ``GET /repos/O/N/contents/PATH[?ref=REF]`` → the raw bytes of a file; a directory's JSON
  listing (directories ignore the raw media type); 404 ``No commit found for the ref REF`` for
  an unknown ref; 404 ``Not Found`` for a missing file or repository;
* ``GET /repos/O/N/git/matching-refs/{heads|tags}/PREFIX`` → every ref of that kind whose
  name starts with PREFIX (a string prefix, as GitHub matches), possibly ``[]``.

A test overrides one exact path with ``server.route("GET", path, fn)`` (exact routes win over
the prefix route) to stage rate limits, redirects, slow or oversized answers.

``install_fake_gh(bin_dir)`` writes ``bin_dir/gh``. Its behaviour follows environment variables:
``FAKE_GH_LOG`` (a file that gets one JSON line per call: argv and the prompt/colour variables
it saw), ``FAKE_GH_API`` (the fake server to forward ``gh api`` requests to) and
``FAKE_GH_MODE``: ``proxy`` (default: forward, print the body on stdout and, on an HTTP error,
``gh: <message> (HTTP <status>)`` on stderr with exit 1, as gh does), ``auth`` (exit 4 with
gh's log-in message), ``hang`` (sleep), ``fail`` (exit 1 with a generic error) and
``interrupt`` (send SIGINT to its parent, then sleep — a user pressing Ctrl-C).
"""

from __future__ import annotations

import json
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from .http import FakeServer, Handler, Reply

NOT_FOUND = {"message": "Not Found", "documentation_url": "https://docs.github.com/rest", "status": "404"}


@dataclass
class FakeRepo:
    default_branch: str = "main"
    refs: dict[str, dict[str, bytes]] = field(default_factory=dict)  # "heads/main" -> {path: bytes}

    def files_at(self, ref: str | None) -> dict[str, bytes] | None:
        name = ref or self.default_branch
        for kind in ("heads", "tags", "commits"):
            if f"{kind}/{name}" in self.refs:
                return self.refs[f"{kind}/{name}"]
        return None


class FakeGitHub:
    def __init__(self, server: FakeServer) -> None:
        self.server = server
        self.repos: dict[str, FakeRepo] = {}
        server.route_prefix("GET", "/repos/", self._handle)

    def add_file(self, repo: str, path: str, data: bytes, ref: str = "main", kind: str = "heads") -> None:
        """Put a file on a branch (kind 'heads'), a tag ('tags') or a commit id ('commits')."""
        fake = self.repos.setdefault(repo, FakeRepo())
        fake.refs.setdefault(f"{kind}/{ref}", {})[path] = data

    def add_ref(self, repo: str, ref: str, kind: str = "heads") -> None:
        self.repos.setdefault(repo, FakeRepo()).refs.setdefault(f"{kind}/{ref}", {})

    def _handle(self, handler: Handler) -> Reply:
        parts = urlsplit(handler.path)
        segments = [unquote(s) for s in parts.path.split("/")[2:]]
        repo = self.repos.get("/".join(segments[:2]))
        if repo is None:
            return Reply.json(NOT_FOUND, 404)
        rest = segments[2:]
        if not rest:
            return Reply.json({"full_name": "/".join(segments[:2]), "default_branch": repo.default_branch})
        if rest[0] == "contents":
            ref = parse_qs(parts.query).get("ref", [None])[0]
            return self._contents(repo, "/".join(rest[1:]), ref)
        if rest[:2] == ["git", "matching-refs"] and len(rest) >= 3:
            kind, prefix = rest[2], "/".join(rest[3:])
            names = sorted(key.split("/", 1)[1] for key in repo.refs if key.startswith(kind + "/"))
            return Reply.json([{"ref": f"refs/{kind}/{n}", "object": {"sha": "0" * 40, "type": "commit"}}
                               for n in names if n.startswith(prefix)])
        return Reply.json(NOT_FOUND, 404)

    def _contents(self, repo: FakeRepo, path: str, ref: str | None) -> Reply:
        files = repo.files_at(ref)
        if files is None:
            return Reply.json({"message": f"No commit found for the ref {ref}",
                               "documentation_url": "https://docs.github.com/rest/repos/contents", "status": "404"}, 404)
        if path in files:
            return Reply(200, files[path], {"Content-Type": "text/plain; charset=utf-8"})
        children = sorted({p[len(path) + 1:].split("/")[0] for p in files if p.startswith(path + "/")})
        if children:
            listing = []
            for child in children:
                full = f"{path}/{child}"
                listing.append({"name": child, "path": full, "sha": "1" * 40, "size": len(files.get(full, b"")),
                                "type": "file" if full in files else "dir"})
            return Reply.json(listing)
        return Reply.json(NOT_FOUND, 404)


_GH_SCRIPT = r'''
import json, os, signal, sys, time, urllib.error, urllib.request

log = os.environ.get("FAKE_GH_LOG")
if log:
    seen = {k: os.environ.get(k) for k in ("GH_PROMPT_DISABLED", "NO_COLOR")}
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"argv": sys.argv[1:], "env": seen, "stdin_tty": os.isatty(0)}) + "\n")
mode = os.environ.get("FAKE_GH_MODE", "proxy")
if mode == "auth":
    sys.stderr.write("To get started with GitHub CLI, please run:  gh auth login\n"
                     "Alternatively, populate the GH_TOKEN environment variable with a GitHub API authentication token.\n")
    sys.exit(4)
if mode == "fail":
    sys.stderr.write("gh: something went wrong talking to GitHub\n")
    sys.exit(1)
if mode == "interrupt":
    os.kill(os.getppid(), signal.SIGINT)
    time.sleep(30)
    sys.exit(0)
if mode == "hang":
    time.sleep(30)
    sys.exit(0)
args = sys.argv[1:]
assert args[0] == "api", args
headers, endpoint, i = {"User-Agent": "fake-gh"}, None, 1
while i < len(args):
    if args[i] == "--hostname":
        i += 2
    elif args[i] in ("-H", "--header"):
        name, _, value = args[i + 1].partition(":")
        headers[name.strip()] = value.strip()
        i += 2
    else:
        endpoint = args[i]
        i += 1
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
request = urllib.request.Request(os.environ["FAKE_GH_API"] + "/" + endpoint, headers=headers)
try:
    with opener.open(request, timeout=30) as resp:
        sys.stdout.buffer.write(resp.read())
except urllib.error.HTTPError as exc:
    body = exc.read()
    sys.stdout.buffer.write(body)
    try:
        message = json.loads(body)["message"]
    except Exception:
        message = exc.reason
    sys.stderr.write(f"gh: {message} (HTTP {exc.code})\n")
    sys.exit(1)
'''


def install_fake_gh(bin_dir: Path) -> Path:
    """Write an executable ``gh`` into ``bin_dir`` (a sh wrapper around a Python script)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / "fake_gh.py"
    script.write_text(_GH_SCRIPT, encoding="utf-8")
    gh = bin_dir / "gh"
    # A sh wrapper instead of a '#!python' line: shebangs have a length limit, venv paths do not.
    gh.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{script}" "$@"\n', encoding="utf-8")
    gh.chmod(gh.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return gh


def gh_calls(log: Path) -> list[dict[str, object]]:
    """The calls the fake gh recorded, in order."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]

