"""codefetch: one file from GitHub through a fake gh and a fake REST API (SPEC §2.7, §2.3, §5, §8)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from codenav import budget, contract, net
from codenav.errors import CodenavError
from codenav.tools import codefetch
from tests.fakes.github import FakeGitHub, gh_calls, install_fake_gh
from tests.fakes.http import FakeServer, Reply
from tests.support.cli import run_cli

pytestmark = pytest.mark.skipif(os.name == "nt", reason="the fake gh is a POSIX sh script")

REPO = "octo/demo"
APP = b"import os\n\nprint(os.getcwd())\n"
RAW = "application/vnd.github.raw"


@pytest.fixture(autouse=True)
def no_gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """PATH holds no gh unless a test installs the fake one (a real gh must never be used)."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return empty


@pytest.fixture(scope="module")
def server():
    """One server for the module (shutting one down costs half a second); routes reset per test."""
    with FakeServer() as server:
        yield server


@pytest.fixture
def github(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> FakeGitHub:
    server.routes.clear()
    server.prefix_routes.clear()
    server.seen.clear()
    fake = FakeGitHub(server)
    fake.add_file(REPO, "src/app.py", APP)
    monkeypatch.setenv("CODENAV_GITHUB_API_URL", server.url)
    return fake


@pytest.fixture
def gh_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: FakeGitHub) -> Path:
    """The fake gh first on PATH, forwarding to the fake API; returns its call log."""
    bin_dir = tmp_path / "bin"
    install_fake_gh(bin_dir)
    log = tmp_path / "gh.log"
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("FAKE_GH_API", github.server.url)
    monkeypatch.setenv("FAKE_GH_LOG", str(log))
    return log


def seen(github: FakeGitHub) -> list[tuple[str, str, str, str]]:
    """(path, query, Accept, User-Agent) of every request the fake API received."""
    return [(s.path, s.query, s.headers.get("accept", ""), s.headers.get("user-agent", ""))
            for s in github.server.seen]


def ua() -> str:
    from codenav import __version__

    return f"codenav/{__version__}"


def fetch(**args: object) -> dict:
    result = codefetch.run(args)
    errors = list(contract.validator("codefetch", "outputSchema").iter_errors(result))
    assert errors == [], errors
    return result


def fail(**args: object) -> CodenavError:
    with pytest.raises(CodenavError) as info:
        codefetch.run(args)
    envelope = info.value.to_envelope()
    assert list(contract.validator("error").iter_errors(envelope)) == []
    return info.value


def app_result(**over: object) -> dict:
    base = {"repo": REPO, "path": "src/app.py", "ref": None, "url": "https://github.com/octo/demo/blob/HEAD/src/app.py",
            "language": "Python", "size": len(APP), "isBinary": False, "totalLines": 3, "startLine": 1,
            "endLine": 3, "content": APP.decode(), "hasMore": False}
    base.update(over)
    return base


# --- the gh transport -------------------------------------------------------------------------


def test_gh_is_asked_first_with_the_exact_argv_and_answers_alone(gh_log: Path, github: FakeGitHub) -> None:
    """gh on PATH gets `api --hostname github.com -H 'Accept: raw' repos/O/N/contents/…?ref=…`, nothing else is asked."""
    github.add_file(REPO, "docs/a b.md", b"# hi\n", ref="release/1.x")
    result = fetch(repo=REPO, path="docs/a b.md", ref="release/1.x")
    assert result == {"repo": REPO, "path": "docs/a b.md", "ref": "release/1.x",
                      "url": "https://github.com/octo/demo/blob/release/1.x/docs/a%20b.md", "language": "Markdown",
                      "size": 5, "isBinary": False, "totalLines": 1, "startLine": 1, "endLine": 1,
                      "content": "# hi\n", "hasMore": False}
    assert gh_calls(gh_log) == [{
        "argv": ["api", "--hostname", "github.com", "-H", f"Accept: {RAW}",
                 "repos/octo/demo/contents/docs/a%20b.md?ref=release%2F1.x"],
        "env": {"GH_PROMPT_DISABLED": "1", "NO_COLOR": "1"},
        "stdin_tty": False,
    }]
    assert seen(github) == [("/repos/octo/demo/contents/docs/a%20b.md", "ref=release%2F1.x", RAW, "fake-gh")]


def test_gh_without_a_ref_sends_no_ref_query(gh_log: Path, github: FakeGitHub) -> None:
    """No ref means the default branch: the endpoint has no `?ref=`."""
    assert fetch(repo=REPO, path="src/app.py") == app_result()
    assert gh_calls(gh_log)[0]["argv"][-1] == "repos/octo/demo/contents/src/app.py"


def test_unauthenticated_gh_falls_back_to_the_rest_api(gh_log: Path, github: FakeGitHub,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capfd: pytest.CaptureFixture[str]) -> None:
    """gh exiting 4 (auth required) falls back to one anonymous REST GET, silently."""
    monkeypatch.setenv("FAKE_GH_MODE", "auth")
    assert fetch(repo=REPO, path="src/app.py") == app_result()
    assert len(gh_calls(gh_log)) == 1
    assert seen(github) == [("/repos/octo/demo/contents/src/app.py", "", RAW, ua())]
    assert capfd.readouterr() == ("", "")


def test_gh_404_is_final_and_the_repo_check_also_goes_through_gh(gh_log: Path, github: FakeGitHub) -> None:
    """A 404 from gh is FILE_NOT_FOUND without any anonymous REST call; `repos/O/N` tells file from repo."""
    error = fail(repo=REPO, path="src/missing.py")
    assert error.code == "FILE_NOT_FOUND"
    assert error.message == "octo/demo has no file src/missing.py on the default branch"
    assert error.details["filePath"] == "src/missing.py"
    assert [c["argv"][-1] for c in gh_calls(gh_log)] == ["repos/octo/demo/contents/src/missing.py",
                                                        "repos/octo/demo"]
    assert gh_calls(gh_log)[1]["argv"][4] == "Accept: application/vnd.github+json"
    assert {ua for *_, ua in seen(github)} == {"fake-gh"}


def test_gh_timeout_falls_back_within_the_deadline(gh_log: Path, github: FakeGitHub,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A gh that hangs is killed at CODENAV_GH_TIMEOUT and the REST API answers instead."""
    monkeypatch.setenv("FAKE_GH_MODE", "hang")
    monkeypatch.setenv("CODENAV_GH_TIMEOUT", "0.5")
    started = time.monotonic()
    assert fetch(repo=REPO, path="src/app.py") == app_result()
    assert time.monotonic() - started < 5
    assert seen(github) == [("/repos/octo/demo/contents/src/app.py", "", RAW, ua())]


def test_gh_and_api_both_failing_is_one_error_with_both_reasons(gh_log: Path, github: FakeGitHub,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """gh's reason and the API's reason share one message; the code is the API's."""
    monkeypatch.setenv("FAKE_GH_MODE", "fail")
    github.server.route("GET", "/repos/octo/demo/contents/src/app.py", lambda h: Reply.json({}, 502))
    error = fail(repo=REPO, path="src/app.py")
    assert (error.code, error.retryable) == ("UPSTREAM_ERROR", True)
    assert error.message == "gh: something went wrong talking to GitHub; GitHub API: GitHub failed with HTTP 502"


def test_gh_auth_failure_is_not_retried_within_one_call(gh_log: Path, github: FakeGitHub,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Once gh has failed, the follow-up requests of the same call go straight to the API."""
    monkeypatch.setenv("FAKE_GH_MODE", "auth")
    assert fail(repo=REPO, path="nope.py").code == "FILE_NOT_FOUND"
    assert len(gh_calls(gh_log)) == 1
    assert [path for path, *_ in seen(github)] == ["/repos/octo/demo/contents/nope.py", "/repos/octo/demo"]


def test_oversized_output_from_gh_is_too_large_without_fallback(gh_log: Path, github: FakeGitHub) -> None:
    """More than 2 MiB on gh's stdout is TOO_LARGE; the API is not asked for the same bytes."""
    github.add_file(REPO, "big.txt", b"x" * (net.API_CAP + 1))
    error = fail(repo=REPO, path="big.txt")
    assert error.code == "TOO_LARGE"
    assert error.message == "octo/demo/big.txt is larger than codenav's 2 MiB fetch limit"
    assert [ua for *_, ua in seen(github)] == ["fake-gh"]


def test_gh_sees_a_directory_as_an_invalid_argument(gh_log: Path, github: FakeGitHub) -> None:
    """gh prints a directory's JSON listing with exit 0; codefetch recognises it and refuses."""
    error = fail(repo=REPO, path="src")
    assert (error.code, error.message) == ("INVALID_ARGUMENT", "octo/demo/src is a directory; codefetch reads one file")


def test_cancellation_never_triggers_the_fallback(tmp_path: Path, github: FakeGitHub) -> None:
    """Ctrl-C while gh runs stops codenav (exit 130) and no REST request is made."""
    bin_dir = tmp_path / "bin"
    install_fake_gh(bin_dir)
    proc = run_cli("fetch", "--repo", REPO, "--path", "src/app.py",
                   env={"PATH": str(bin_dir), "FAKE_GH_MODE": "interrupt", "FAKE_GH_API": github.server.url})
    assert proc.returncode == 130
    assert proc.stdout == b""
    assert github.server.seen == []


# --- the REST API fallback --------------------------------------------------------------------


def test_api_fetch_sends_the_exact_request(github: FakeGitHub) -> None:
    """Without gh: one GET of /repos/O/N/contents/PATH?ref=REF with the raw Accept and a User-Agent."""
    github.add_file(REPO, "lib/ü #1.js", b"x = 1;\n", ref="v1.0", kind="tags")
    result = fetch(repo=REPO, path="lib/ü #1.js", ref="v1.0")
    assert result["content"] == "x = 1;\n" and result["language"] == "JavaScript"
    assert result["url"] == "https://github.com/octo/demo/blob/v1.0/lib/%C3%BC%20%231.js"
    assert seen(github) == [("/repos/octo/demo/contents/lib/%C3%BC%20%231.js", "ref=v1.0", RAW, ua())]
    assert github.server.seen[0].headers["x-github-api-version"] == "2022-11-28"


def test_api_fetch_by_url_ignores_the_line_fragment(github: FakeGitHub) -> None:
    """A blob URL with #L2-L3 fetches the whole file: ranges are options, not fragments."""
    result = fetch(url="https://github.com/octo/demo/blob/main/src/app.py#L2-L3")
    assert result == app_result(ref="main", url="https://github.com/octo/demo/blob/main/src/app.py")
    assert seen(github) == [("/repos/octo/demo/contents/src/app.py", "ref=main", RAW, ua())]


def test_url_with_a_slash_ref_is_resolved_against_branches_and_tags(github: FakeGitHub) -> None:
    """blob/release/1.x/src/x.py: `release` is no ref, so matching refs are listed and the longest wins."""
    github.add_file(REPO, "src/x.py", b"v = 1\n", ref="release/1.x")
    github.add_ref(REPO, "release/1.x-old")
    github.add_ref(REPO, "release", kind="tags")  # so the first try finds the ref but not the file
    github.add_file(REPO, "1.x/src/x.py", b"wrong\n", ref="release/2.x")
    result = fetch(url="https://github.com/octo/demo/blob/release/1.x/src/x.py")
    assert (result["ref"], result["path"], result["content"]) == ("release/1.x", "src/x.py", "v = 1\n")
    assert result["url"] == "https://github.com/octo/demo/blob/release/1.x/src/x.py"
    assert [(p, q) for p, q, *_ in seen(github)] == [
        ("/repos/octo/demo/contents/1.x/src/x.py", "ref=release"),
        ("/repos/octo/demo/git/matching-refs/heads/release", ""),
        ("/repos/octo/demo/git/matching-refs/tags/release", ""),
        ("/repos/octo/demo/contents/src/x.py", "ref=release%2F1.x"),
    ]
    assert seen(github)[1][2] == "application/vnd.github+json"


def test_url_whose_first_segment_is_the_ref_costs_one_request(github: FakeGitHub) -> None:
    """The common case (blob/main/deep/path) is fetched with the first split and no ref listing."""
    github.add_file(REPO, "a/b/c.py", b"pass\n")
    assert fetch(url="https://github.com/octo/demo/blob/main/a/b/c.py")["content"] == "pass\n"
    assert len(github.server.seen) == 1


def test_url_with_an_unknown_ref_asks_for_an_explicit_ref(github: FakeGitHub) -> None:
    """No branch or tag matches the URL's leading segments: REF_NOT_FOUND that asks for --ref/--path."""
    error = fail(url="https://github.com/octo/demo/blob/feature/x/src/app.py")
    assert error.code == "REF_NOT_FOUND"
    assert error.details["requestedRef"] == "feature"
    assert "--ref" in error.details["action"] and "--path" in error.details["action"]


def test_url_ref_resolution_that_cannot_list_refs_fails_clearly(github: FakeGitHub) -> None:
    """When the refs cannot be listed (rate limit), the error says so and asks for repo/path/ref."""
    reset = int(time.time()) + 600
    github.server.route("GET", "/repos/octo/demo/git/matching-refs/heads/feature", lambda h: Reply.json(
        {"message": "API rate limit exceeded"}, 403,
        headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)}))
    error = fail(url="https://github.com/octo/demo/blob/feature/x/src/app.py")
    assert error.code == "RATE_LIMITED"
    assert "could not be listed" in error.message
    assert "--ref" in error.details["action"]


def test_url_with_a_commit_sha_is_never_resolved(github: FakeGitHub) -> None:
    """A full commit id holds no '/': a 404 is answered directly, without listing refs."""
    sha = "a" * 40
    github.add_file(REPO, "x/y.py", b"1\n", ref=sha, kind="commits")
    assert fetch(url=f"https://github.com/octo/demo/blob/{sha}/x/y.py")["ref"] == sha
    assert fail(url=f"https://github.com/octo/demo/blob/{sha}/x/z.py").code == "FILE_NOT_FOUND"
    assert not any("matching-refs" in p for p, *_ in seen(github))


def test_explicit_ref_with_a_slash_is_taken_exactly(github: FakeGitHub) -> None:
    """--ref release/1.x is sent as ref=release%2F1.x in one request, never split."""
    github.add_file(REPO, "src/x.py", b"v = 1\n", ref="release/1.x")
    assert fetch(repo=REPO, path="src/x.py", ref="release/1.x")["content"] == "v = 1\n"
    assert [(p, q) for p, q, *_ in seen(github)] == [("/repos/octo/demo/contents/src/x.py", "ref=release%2F1.x")]


def test_missing_file_vs_missing_repo_vs_missing_ref(github: FakeGitHub) -> None:
    """404 becomes FILE_NOT_FOUND when the repo exists, NOT_FOUND when it does not, REF_NOT_FOUND for a bad ref."""
    error = fail(repo=REPO, path="nope.py", ref="main")
    assert (error.code, error.details["filePath"], error.details["requestedRef"]) == ("FILE_NOT_FOUND", "nope.py",
                                                                                      "main")
    error = fail(repo="octo/ghost", path="nope.py")
    assert error.code == "NOT_FOUND"
    assert error.message == "repository octo/ghost was not found on github.com (or it is private and not visible to codenav)"
    error = fail(repo=REPO, path="src/app.py", ref="v9")
    assert (error.code, error.details["requestedRef"]) == ("REF_NOT_FOUND", "v9")
    assert error.retryable is False


@pytest.mark.parametrize("status", [403, 429])
def test_rate_limit_is_retryable_with_the_reset_time(github: FakeGitHub, status: int) -> None:
    """403/429 with x-ratelimit-remaining: 0 is RATE_LIMITED with retryAfterSeconds and the ISO reset."""
    reset = int(time.time()) + 120
    github.server.route("GET", "/repos/octo/demo/contents/src/app.py", lambda h: Reply.json(
        {"message": "API rate limit exceeded for 127.0.0.1."}, status,
        headers={"x-ratelimit-limit": "60", "x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)}))
    error = fail(repo=REPO, path="src/app.py")
    assert (error.code, error.retryable) == ("RATE_LIMITED", True)
    assert 115 <= error.details["retryAfterSeconds"] <= 120
    assert error.details["resetAt"] == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(reset))
    assert error.message.startswith(f"gh: not found on PATH; GitHub API: GitHub is rate limiting requests "
                                    f"(HTTP {status}); retry in ")
    assert "gh auth login" in error.details["action"]


def test_forbidden_without_rate_limit_headers_is_an_upstream_refusal(github: FakeGitHub) -> None:
    """A plain 403 is not a rate limit: UPSTREAM_ERROR, not retryable, with GitHub's message."""
    github.server.route("GET", "/repos/octo/demo/contents/src/app.py",
                        lambda h: Reply.json({"message": "Resource not accessible"}, 403))
    error = fail(repo=REPO, path="src/app.py")
    assert (error.code, error.retryable) == ("UPSTREAM_ERROR", False)
    assert error.message.endswith(": Resource not accessible")


def test_directory_listing_is_an_invalid_argument_with_an_action(github: FakeGitHub) -> None:
    """A JSON array answered for a directory path is 'is a directory', suggesting a file path."""
    error = fail(repo=REPO, path="src")
    assert error.to_envelope() == {"error": {
        "code": "INVALID_ARGUMENT", "message": "octo/demo/src is a directory; codefetch reads one file",
        "retryable": False, "details": {
            "field": "path", "filePath": "src",
            "action": "give the path of a file inside it (list a directory with list_files and repo_url)"}}}


def test_a_json_file_that_is_an_array_is_still_a_file(github: FakeGitHub) -> None:
    """Only a listing of the asked path itself counts as a directory; a JSON data file is content."""
    body = json.dumps([{"name": "a", "path": "a", "type": "file"}]).encode()
    github.add_file(REPO, "data.json", body)
    assert fetch(repo=REPO, path="data.json")["content"] == body.decode()


@pytest.mark.parametrize("body", [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", b"caf\xe9 latin-1\n"])
def test_binary_file_has_no_content_but_a_size(github: FakeGitHub, body: bytes) -> None:
    """A NUL byte or invalid UTF-8 is binary: isBinary true, content and line fields absent, size given."""
    github.add_file(REPO, "img/logo.bin", body)
    result = fetch(repo=REPO, path="img/logo.bin", start_line=3)
    assert result == {"repo": REPO, "path": "img/logo.bin", "ref": None,
                      "url": "https://github.com/octo/demo/blob/HEAD/img/logo.bin", "language": None,
                      "size": len(body), "isBinary": True, "hasMore": False,
                      "hint": "binary file: content not shown"}


def test_empty_file_is_reported_as_empty(github: FakeGitHub) -> None:
    """An empty file is a success with zero lines and empty content."""
    github.add_file(REPO, "__init__.py", b"")
    result = fetch(repo=REPO, path="__init__.py")
    assert (result["totalLines"], result["startLine"], result["endLine"], result["content"], result["size"]) == (
        0, 0, 0, "", 0)
    assert (result["hasMore"], result["hint"]) == (False, "the file is empty")
    assert fail(repo=REPO, path="__init__.py", start_line=2).details["lineCount"] == 0


def test_redirect_is_refused_never_followed(github: FakeGitHub) -> None:
    """A 301 from the API (renamed repo) is PROTOCOL_ERROR; the Location is never requested."""
    github.server.route("GET", "/repos/octo/demo/contents/src/app.py", lambda h: Reply(
        301, b"", {"Location": f"{github.server.url}/repositories/1/contents/src/app.py"}))
    error = fail(repo=REPO, path="src/app.py")
    assert error.code == "PROTOCOL_ERROR"
    assert "renamed" in error.details["action"]
    assert [p for p, *_ in seen(github)] == ["/repos/octo/demo/contents/src/app.py"]


def test_oversized_api_answer_is_too_large(github: FakeGitHub) -> None:
    """A body over 2 MiB is TOO_LARGE, pointing at a clone instead."""
    github.add_file(REPO, "big.txt", b"y" * (net.API_CAP + 10))
    error = fail(repo=REPO, path="big.txt")
    assert error.code == "TOO_LARGE" and error.details["limitBytes"] == net.API_CAP
    assert error.message == "octo/demo/big.txt is larger than codenav's 2 MiB fetch limit"
    assert "repo_url https://github.com/octo/demo" in error.details["action"]


def test_slow_api_hits_the_whole_exchange_deadline(github: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> None:
    """An API that trickles past CODENAV_GITHUB_TIMEOUT is TIMEOUT (retryable), promptly."""
    monkeypatch.setenv("CODENAV_GITHUB_TIMEOUT", "0.5")
    github.server.route("GET", "/repos/octo/demo/contents/src/app.py",
                        lambda h: Reply(200, [b"a\n"] * 20, chunk_delay=0.1))
    started = time.monotonic()
    error = fail(repo=REPO, path="src/app.py")
    assert (error.code, error.retryable) == ("TIMEOUT", True)
    assert time.monotonic() - started < 3


# --- ranges and the output budget ----------------------------------------------------------


def test_line_ranges_select_clip_and_refuse_past_eof(github: FakeGitHub) -> None:
    """start/end are 1-based inclusive; an end past EOF is clipped; a start past EOF states the line count."""
    assert fetch(repo=REPO, path="src/app.py", start_line=2, end_line=3) == app_result(
        startLine=2, endLine=3, content="\nprint(os.getcwd())\n")
    assert fetch(repo=REPO, path="src/app.py", start_line=3, end_line=99)["content"] == "print(os.getcwd())\n"
    error = fail(repo=REPO, path="src/app.py", start_line=4)
    assert error.code == "INVALID_ARGUMENT"
    assert error.details == {"field": "start_line", "filePath": "src/app.py", "lineCount": 3}
    assert "has 3 lines" in error.message


def test_a_backwards_range_fails_before_any_request(github: FakeGitHub) -> None:
    """end_line before start_line is INVALID_ARGUMENT without touching the network."""
    assert fail(repo=REPO, path="src/app.py", start_line=5, end_line=2).code == "INVALID_ARGUMENT"
    assert github.server.seen == []


def test_long_files_are_cut_with_the_next_start_line(github: FakeGitHub) -> None:
    """3000 lines exceed the budget: hasMore, a hint naming start_line, and the envelope within 50 KiB."""
    github.add_file(REPO, "long.txt", "".join(f'line "{i}"\n' for i in range(1, 3001)).encode())
    result = fetch(repo=REPO, path="long.txt")
    assert result["hasMore"] is True
    assert (result["startLine"], result["endLine"], result["totalLines"]) == (1, 1999, 3000)
    assert result["hint"] == ("Output cut at the 50 KiB / 2000-line budget: lines 1-1999 of 3000 shown. "
                              "Continue with start_line=2000 (CLI: --lines 2000-).")
    assert len(contract.dumps(result).encode()) <= budget.BUDGET_BYTES
    follow = fetch(repo=REPO, path="long.txt", start_line=2000, end_line=2100)
    assert follow["hasMore"] is False and follow["content"].startswith('line "2000"\n')


def test_escaping_heavy_content_still_fits_the_budget(github: FakeGitHub) -> None:
    """Control characters grow sixfold in JSON; the envelope is measured, not the raw bytes."""
    github.add_file(REPO, "ctl.txt", ("\x01" * 40 + "\n").encode() * 1500)
    result = fetch(repo=REPO, path="ctl.txt", start_line=10, end_line=1200)
    assert result["hasMore"] is True
    assert len(contract.dumps(result).encode()) <= budget.BUDGET_BYTES
    last = result["endLine"]
    assert f"start_line={last + 1}, end_line=1200 (CLI: --lines {last + 1}-1200)" in result["hint"]


def test_one_line_longer_than_the_budget_is_shortened_not_dropped(github: FakeGitHub) -> None:
    """A minified one-line file yields its head with a marker, and the hint says the line was shortened."""
    github.add_file(REPO, "min.js", b"a" * 200_000)
    result = fetch(repo=REPO, path="min.js")
    assert result["hasMore"] is True and result["endLine"] == 1
    assert "[line cut:" in result["content"]
    assert "Line 1 alone is longer than the budget" in result["hint"]


# --- arguments and URLs -----------------------------------------------------------------------


@pytest.mark.parametrize(("args", "field", "fragment"), [
    ({"url": "https://github.com/o/n/blob/main/a.py", "repo": "o/n"}, "url", "not both"),
    ({"url": "https://github.com/o/n/blob/main/a.py", "ref": "dev"}, "url", "not both"),
    ({}, "url", "either url"),
    ({"repo": "o/n"}, "path", "path is missing"),
    ({"path": "a.py"}, "repo", "repo is missing"),
    ({"repo": "just-a-name", "path": "a.py"}, "repo", "owner/name"),
    ({"repo": "o/n/extra", "path": "a.py"}, "repo", "owner/name"),
    ({"repo": "o/..", "path": "a.py"}, "repo", "owner/name"),
    ({"repo": "o/n", "path": "/etc/passwd"}, "path", "relative"),
    ({"repo": "o/n", "path": "a/../b.py"}, "path", "'..'"),
    ({"repo": "o/n", "path": "a//b.py"}, "path", "empty"),
    ({"repo": "o/n", "path": "./a.py"}, "path", "'.'"),
    ({"repo": "o/n", "path": "a\0.py"}, "path", "NUL"),
    ({"repo": "o/n", "path": "a.py", "ref": "bad ref"}, "ref", "spaces"),
    ({"url": "https://github.com/o/n/tree/main/src"}, "url", "directory (tree) URL"),
    ({"url": "https://raw.githubusercontent.com/o/n/main/a.py"}, "url", "raw.githubusercontent.com"),
    ({"url": "https://gitlab.com/o/n/-/blob/main/a.py"}, "url", "only github.com"),
    ({"url": "https://github.example.com/o/n/blob/main/a.py"}, "url", "GitHub Enterprise"),
    ({"url": "http://github.com/o/n/blob/main/a.py"}, "url", "https://github.com"),
    ({"url": "https://github.com/o/n/blob/main"}, "url", "no file"),
    ({"url": "https://github.com/o/n/blob/main/src/"}, "url", "directory"),
    ({"url": "https://github.com/o/n"}, "url", "names no file"),
    ({"url": "https://github.com/o/n/raw/main/a.py"}, "url", "blob/"),
    ({"url": "https://github.com/o/n/blob/main/a/%2E%2E/b.py"}, "url", "'..'"),
    ({"url": "github.com/o/n/blob/main/a.py"}, "url", "https://github.com"),
])
def test_bad_arguments_are_invalid_before_any_request(github: FakeGitHub, args: dict, field: str,
                                                      fragment: str) -> None:
    """Malformed or unsupported input is INVALID_ARGUMENT naming the field, and nothing is sent."""
    error = fail(**args)
    assert (error.code, error.details.get("field")) == ("INVALID_ARGUMENT", field)
    assert fragment in error.message
    assert github.server.seen == []


def test_an_encoded_slash_in_the_url_ref_spells_the_split_out(github: FakeGitHub) -> None:
    """blob/release%2F1.x/… is unambiguous: fetched in one request with that exact ref."""
    github.add_file(REPO, "src/x.py", b"v = 1\n", ref="release/1.x")
    assert fetch(url="https://github.com/octo/demo/blob/release%2F1.x/src/x.py")["ref"] == "release/1.x"
    assert len(github.server.seen) == 1


def test_input_schema_is_closed_and_output_schema_is_exact() -> None:
    """Unknown arguments are refused by the inputSchema; content is required exactly when not binary."""
    assert contract.validation_error("codefetch", {"url": "u", "startLine": 1}) is not None
    assert contract.validation_error("codefetch", {"repo": "o/n", "path": "a", "start_line": 0}) is not None
    assert contract.validation_error("codefetch", {"repo": "o/n", "path": "a", "start_line": 2}) is None
    out = contract.validator("codefetch", "outputSchema")
    good = app_result()
    assert out.is_valid(good)
    assert not out.is_valid({k: v for k, v in good.items() if k != "content"})
    assert not out.is_valid({**good, "isBinary": True})
    assert not out.is_valid({k: v for k, v in good.items() if k != "totalLines"})
    binary = {k: v for k, v in good.items() if k not in ("content", "totalLines", "startLine", "endLine")}
    assert out.is_valid({**binary, "isBinary": True})
    assert not out.is_valid({**binary, "isBinary": True, "totalLines": 0})
    assert not out.is_valid({**good, "content": None})


# --- the CLI ----------------------------------------------------------------------------------


def cli(github: FakeGitHub, *args: str, **env: str):
    return run_cli("fetch", *args, env={"PATH": os.devnull, "CODENAV_GITHUB_API_URL": github.server.url, **env})


def test_cli_without_gh_prints_the_file_verbatim_and_nothing_else(github: FakeGitHub) -> None:
    """No gh on PATH: the REST fallback is used silently; stdout is the file's bytes, stderr empty."""
    proc = cli(github, "https://github.com/octo/demo/blob/main/src/app.py#L1")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, APP, b"")


def test_cli_lines_and_verbose_numbered_lines(github: FakeGitHub) -> None:
    """--verbose prints `<blob URL> · <language> · lines N-M of T` (HEAD for the default
    branch), then `N<TAB>line`."""
    github.add_file(REPO, "t.py", "".join(f"x{i}\n" for i in range(1, 12)).encode())
    proc = cli(github, "--repo", REPO, "--path", "t.py", "--lines", "9-", "--verbose")
    assert proc.returncode == 0 and proc.stderr == b""
    assert proc.stdout.decode() == ("https://github.com/octo/demo/blob/HEAD/t.py · Python · lines 9-11 of 11\n"
                                    "9\tx9\n10\tx10\n11\tx11\n")
    proc = cli(github, "https://github.com/octo/demo/blob/main/src/app.py", "--lines", "3", "-v")
    assert proc.stdout.decode() == ("https://github.com/octo/demo/blob/main/src/app.py · Python · lines 3-3 of 3\n"
                                    "3\tprint(os.getcwd())\n")


def test_cli_json_is_the_envelope(github: FakeGitHub) -> None:
    """--json prints exactly contract.dumps of the result."""
    proc = cli(github, "--repo", REPO, "--path", "src/app.py", "--ref", "main", "--lines", "-1", "--json")
    expected = app_result(ref="main", url="https://github.com/octo/demo/blob/main/src/app.py", endLine=1,
                          content="import os\n")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, (contract.dumps(expected) + "\n").encode(), b"")


def test_cli_binary_prints_nothing_and_notes_on_stderr(github: FakeGitHub) -> None:
    """A binary file: empty stdout, one note on stderr, exit 0."""
    github.add_file(REPO, "a.bin", b"\x00\x01\x02")
    proc = cli(github, "--repo", REPO, "--path", "a.bin")
    assert (proc.returncode, proc.stdout) == (0, b"")
    assert proc.stderr == b"codenav: octo/demo/a.bin is a binary file (3 bytes); not printed\n"


def test_cli_cut_notice_goes_to_stderr(github: FakeGitHub) -> None:
    """Plain output over the budget keeps stdout pure data and puts the continuation on stderr."""
    github.add_file(REPO, "long.txt", b"z\n" * 2500)
    proc = cli(github, "--repo", REPO, "--path", "long.txt")
    assert proc.returncode == 0
    assert proc.stdout == b"z\n" * 1999
    assert proc.stderr.decode().startswith("codenav: Output cut at the 50 KiB / 2000-line budget")
    assert "--lines 2000-" in proc.stderr.decode()


def test_cli_errors_exit_1_with_the_message(github: FakeGitHub) -> None:
    """Both forms at once: exit 1, message on stderr; --json prints the error envelope."""
    proc = cli(github, "https://github.com/o/n/blob/main/a.py", "--repo", "o/n")
    assert proc.returncode == 1 and proc.stdout == b""
    assert proc.stderr.startswith(b"codenav: give either url or repo + path")
    proc = cli(github, "--repo", REPO, "--path", "nope.py", "--json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["error"]["code"] == "FILE_NOT_FOUND"
