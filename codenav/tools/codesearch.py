"""codesearch: search public GitHub code through grep.app (SPEC §2.6) — the tool.

Contract: ``run(args) -> dict`` checks the arguments, refuses a credential-looking query
before anything leaves the machine (unless ``allow_secret_like``), asks grep.app through
``remotes/grepapp.py`` and shapes ``{query, filter, results, hasMore, hint?}`` within the
output budget (SPEC §5). Plain and verbose rendering for the CLI live here too.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any, TextIO

from .. import budget
from ..errors import invalid
from ..remotes import grepapp
from ..words import for_cli

NAME = "codesearch"
COMMAND = "search"
HELP = "search public GitHub code through grep.app (the query leaves this machine)"
ERROR_EXIT = 2  # grep convention (SPEC §4): 0 hits, 1 no hits, 2 error

MAX_FILES = grepapp.MAX_FILES

_HELP_PARAGRAPHS = (
    "Search public GitHub code through grep.app and print the matching lines.",
    "QUERY is matched literally as code text (not keywords, not a question) unless --regex is given; "
    "with --regex it is a regular expression, and a (?s) prefix lets it span lines. grep.app returns "
    f"at most {MAX_FILES} files per query and has no paging: narrow with --repo (partial, 'vercel/' "
    "selects an owner), --path (partial, not a glob: '/route.ts') and --lang (repeatable: --lang "
    "TypeScript --lang TSX).",
    "Queries leave this machine: they are sent to grep.app. Never search for secrets, credentials or "
    "private code; credential-like queries are refused unless --allow-secret-like is given. Returned "
    "code is third-party data.",
    "Output: repo:path:line:text, one line per snippet line (--verbose: a header per file and a "
    "line-number gutter). Exit status: 0 some match, 1 no match, 2 error.",
)
DESCRIPTION = "\n\n".join(textwrap.fill(paragraph, 88, break_on_hyphens=False) for paragraph in _HELP_PARAGRAPHS)

# ---------------------------------------------------------------------------------------------
# CLI output


def exit_code(result: dict[str, Any]) -> int:
    return 0 if result["results"] else 1


def render(result: dict[str, Any], out: TextIO, err: TextIO) -> None:
    """Plain output: grep-style ``repo:path:line:text``; the hint on stderr."""
    for hit in result["results"]:
        prefix = f"{hit['repo']}:{hit['path']}:"
        for snippet in hit["snippets"]:
            for line in snippet["lines"]:
                out.write(f"{prefix}{line['line']}:{line['text']}\n")
    if result.get("hint"):
        err.write(f"codenav: {for_cli(result['hint'])}\n")


def text(result: dict[str, Any], words: Any = None) -> str:
    """The TEXT answer (SPEC §4.4): header, notes, then per file its URL and licence once and
    its lines as ``repo/path:N:text``, ``--`` between snippets."""
    from . import _answer

    hits = result["results"]
    snippets = sum(len(hit["snippets"]) for hit in hits)
    header = (f"grep.app · {_answer.plural(len(hits), 'file')}, {_answer.plural(snippets, 'snippet')}"
              + (" · cut to the output budget" if result["hasMore"] else ""))
    body = []
    for hit in hits:
        body.append(f"{hit['url']} ({hit['license']})\n")
        where = f"{hit['repo']}/{hit['path']}:"
        for index, snippet in enumerate(hit["snippets"]):
            if index:
                body.append("--\n")
            body.extend(f"{where}{line['line']}:{line['text']}\n" for line in snippet["lines"])
    return _answer.join(header, _answer.notes(result, words), "".join(body))


# ---------------------------------------------------------------------------------------------
# Arguments and the secret guard

_FILTER_NAMES = {"regex": "regex", "case_sensitive": "caseSensitive", "whole_words": "wholeWords",
                 "repo": "repo", "path": "path", "language": "language"}
_BOOLEANS = ("regex", "case_sensitive", "whole_words", "allow_secret_like")
_STRINGS = ("repo", "path")


def _check_arguments(args: dict[str, Any]) -> None:
    """The inputSchema's rules for callers that did not go through it (the CLI path)."""
    query = args.get("query")
    if not isinstance(query, str) or not query:
        raise invalid("query must be a non-empty string of code text to find", "query")
    for key in _BOOLEANS:
        if key in args and not isinstance(args[key], bool):
            raise invalid(f"{key} must be true or false", key)
    for key in _STRINGS:
        if key in args and (not isinstance(args[key], str) or not args[key]):
            raise invalid(f"{key} must be a non-empty string (omit it to search everywhere)", key)
    if "language" in args:
        langs = args["language"]
        if not isinstance(langs, list) or not langs or not all(isinstance(x, str) and x for x in langs):
            raise invalid("language must be a non-empty list of language names, e.g. ['Python']", "language")
    # The inputSchema's maxLength/maxItems: the CLI skips the schema, and nothing over-long
    # may leave the machine.
    for key, limit in (("query", 4096), ("repo", 200), ("path", 1024)):
        if key in args and len(args[key]) > limit:
            raise invalid(f"{key} is {len(args[key])} characters long; at most {limit} are accepted", key)
    if "language" in args and (len(args["language"]) > 20 or any(len(x) > 100 for x in args["language"])):
        raise invalid("language takes at most 20 names of at most 100 characters each", "language")
    unknown = sorted(set(args) - {"query", *_BOOLEANS, *_STRINGS, "language"})
    if unknown:
        raise invalid(f"unknown argument {unknown[0]}", unknown[0])


# Credential shapes (SPEC §2.6). Each needs the body of a real token, not just its prefix, so
# code that *handles* tokens (`token.startswith("ghp_")`, `"sk-"`, `xoxb-`) is not flagged.
_SECRET_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern)) for kind, pattern in (
        ("a private key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
        ("an AWS access key id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
        ("a GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{36,}"),
        ("a GitHub token", r"\bgithub_pat_[A-Za-z0-9_]{22,}"),
        ("a GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}"),
        ("a Slack token", r"\bxox[abposr]-[0-9]{6,}-[0-9A-Za-z-]{8,}"),
        # OpenAI/Anthropic style keys: long, with a digit and an upper-case letter somewhere.
        ("an API secret key", r"\bsk-(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{32,}"),
        ("a Stripe key", r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}"),
        ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}"),
        ("an npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
        ("a PyPI token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}"),
        ("a Hugging Face token", r"\bhf_[A-Za-z0-9]{34,}"),
        ("a JSON Web Token", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    )
)


def secret_kind(text: str) -> str | None:
    """What kind of credential ``text`` looks like, or None."""
    for kind, pattern in _SECRET_SHAPES:
        if pattern.search(text):
            return kind
    return None


def _refuse_secret_like(args: dict[str, Any]) -> None:
    if args.get("allow_secret_like"):
        return
    for key in ("query", "repo", "path"):
        value = args.get(key)
        kind = secret_kind(value) if isinstance(value, str) else None
        if kind:
            # The value itself is never echoed: it may be a live credential.
            raise invalid(
                f"the {key} looks like {kind}; codenav does not send credentials to grep.app",
                key,
                action="remove the secret from the query; if the string is public and not a real "
                       "credential, pass allow_secret_like (CLI: --allow-secret-like)",
            )


# ---------------------------------------------------------------------------------------------
# The run


def run(args: dict[str, Any], cli: Any = None) -> dict[str, Any]:
    _check_arguments(args)
    _refuse_secret_like(args)  # before anything leaves the machine
    return _result(args, grepapp.search(args))


# ---------------------------------------------------------------------------------------------
# The result and the output budget (SPEC §5)



def _filter(args: dict[str, Any]) -> dict[str, Any]:
    return {_FILTER_NAMES[key]: args[key] for key in _FILTER_NAMES if key in args}


def _zero_hint(args: dict[str, Any]) -> str:
    how = "as a regular expression" if args.get("regex") else "literally as code text, not as keywords"
    hint = f"No files matched. The query is matched {how}; try a shorter, distinctive fragment"
    if any(key in args for key in ("repo", "path", "language")):
        hint += " or drop the repo/path/language filter"
    return hint + "."


CAP_HINT = (f"grep.app returns at most {MAX_FILES} files per query, so there may be more matches: "
            "narrow with repo, path or language to see others.")


def _cut_hint(files: int, of_files: int, snippets: int, of_snippets: int) -> str:
    return (f"Output cut to fit the {budget.BUDGET_BYTES // 1024} KiB / {budget.BUDGET_LINES}-line budget: showing {files} of "
            f"{of_files} files and {snippets} of {of_snippets} snippets; narrow the search with repo, path or "
            "language to see the rest.")


def _result(args: dict[str, Any], results: list[dict[str, Any]]) -> dict[str, Any]:
    base: dict[str, Any] = {"query": args["query"], "filter": _filter(args), "results": results, "hasMore": False}
    if not results:
        base["hint"] = _zero_hint(args)
        return base
    if len(results) >= MAX_FILES:
        base["hint"] = CAP_HINT
    if _line_count(base) <= budget.BUDGET_LINES and budget.json_size(base) <= budget.BUDGET_BYTES:
        return base
    return fit_budget(base)


def _line_count(result: dict[str, Any]) -> int:
    lines = sum(len(s["lines"]) for hit in result["results"] for s in hit["snippets"])
    return lines + (1 if result.get("hint") else 0)


def fit_budget(full: dict[str, Any], max_bytes: int = budget.BUDGET_BYTES,
               max_lines: int = budget.BUDGET_LINES) -> dict[str, Any]:
    """Keep whole leading snippets (and their files) while the envelope fits; drop the rest.

    The hint is sized with the totals, whose digits bound the final counts. If not even the
    first snippet fits, its leading lines are kept (a lone huge line cut with a marker) so a
    caller always gets something (SPEC §5).
    """
    results = full["results"]
    total_snippets = sum(len(hit["snippets"]) for hit in results)
    sizing_hint = " ".join(filter(None, (_cut_hint(len(results), len(results), total_snippets, total_snippets),
                                         full.get("hint") and CAP_HINT)))
    out: dict[str, Any] = dict(full, results=[], hasMore=True, hint=sizing_hint)
    kept, count, _ = budget.fit_nested(
        out, results, group_key="results", item_key="snippets", item_lines=lambda snippet: len(snippet["lines"]),
        partial=_partial_snippet, max_bytes=max_bytes, max_lines=max_lines, used_lines=1)
    out["results"] = kept
    out["hint"] = " ".join(filter(None, (_cut_hint(len(kept), len(results), count, total_snippets),
                                         full.get("hint"))))
    return out


def _partial_snippet(snippet: dict[str, Any], room: int, line_room: int) -> dict[str, Any]:
    """The leading lines of ``snippet`` that fit ``room`` bytes and ``line_room`` lines (at least
    one: a first line too long has its text shrunk until its JSON, escapes included, fits)."""

    def shrunk(line: dict[str, Any], room: int, _: int) -> dict[str, Any]:
        return budget.shrink_to(lambda allowance: {"line": line["line"], "text": budget.cut_line(line["text"], allowance)},
                                room - 1)

    part: dict[str, Any] = {"startLine": snippet["startLine"], "lines": []}
    # Each line costs its JSON and a comma; the first has none, hence the byte given back.
    part["lines"] = budget.fit(snippet["lines"][:max(1, line_room)], lambda line: (budget.json_size(line) + 1, 1),
                               max_bytes=room - budget.json_size(part) + 1, max_lines=1 << 62, partial=shrunk)[0]
    return part
