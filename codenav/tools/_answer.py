"""What every tool's TEXT answer shares: the target label, the header, the notes (SPEC §4.4).

A TEXT answer is written for a model that pays per token, and is also what ``--verbose``
prints for a person: one header line (what was answered, the totals, and on a partial answer
the exact argument that gets the rest), then the warnings and hints, then the body in grep
notation. Sentences are turned into a surface's words by ``words``: None speaks MCP (argument
and tool names, ``(CLI: …)`` asides dropped), ``words.for_cli`` speaks the CLI's flags.

Imports nothing at load: only a call that renders TEXT pays for it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # annotations only: a warm call must not import typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Words = Callable[[str], str] | None

GITHUB_PREFIX = "https://github.com/"


def say(sentence: str, words: Words) -> str:
    """``sentence`` in the words of the surface (None: MCP's)."""
    from ..words import for_mcp

    return for_mcp(sentence) if words is None else words(sentence)


def label(target: dict[str, Any]) -> str:
    """The target as a compact target string a caller can pass back: ``npm:express@4.21.2``,
    ``github:owner/repo@COMMIT``, ``git:URL#COMMIT`` (the full commit: a short id is not a ref)."""
    if "commit" not in target:
        return f"{target['registry']}:{target['name']}@{target['version']}"
    url, commit = target["repoUrl"], target["commit"]
    if url.startswith(GITHUB_PREFIX) and url.count("/") == 4 and "@" not in url and not url.endswith(".git"):
        return f"github:{url[len(GITHUB_PREFIX):]}@{commit}"
    return f"git:{url}#{commit}"


def target_label(target: dict[str, Any]) -> str:
    """``label`` plus the ref asked for (a git target) or the file the version came from."""
    text = label(target)
    if target.get("gitRef"):
        text += f" ({target['gitRef']})"
    source = target.get("versionSource") or {}
    if source.get("kind") in ("lockfile", "installed"):
        text += f" (from {source['file']})"
    return text


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"


def more(argument: str, words: Words) -> str:
    """The header clause naming what to pass for the rest of a partial answer."""
    return f" · more: {say(argument, words)}"


def target_notes(target: Any) -> list[str]:
    """What the echo of a target says beyond its label: warnings first, then notes."""
    if not isinstance(target, dict) or "registry" not in target:
        return []
    from ..words import target_notes as release_warnings

    lines = release_warnings(target)
    if target.get("platformMatch") is False:
        lines.append(f"warning: {target['artifact']} is built for another platform or Python: its compiled and "
                     "generated files may differ from what runs here")
    if target.get("verified") is False and target.get("verification"):
        lines.append(f"note: not verified: {target['verification']}")
    if target.get("otherLockedVersions"):
        lines.append(f"note: the project also locks {', '.join(target['otherLockedVersions'])}")
    return lines


def notes(result: dict[str, Any], words: Words, *, targets: tuple[str, ...] = ("target",)) -> list[str]:
    """The lines between the header and the body: target warnings, the request's warnings,
    then the hint."""
    lines: list[str] = []
    for key in targets:
        lines.extend(target_notes(result.get(key)))
    lines.extend(f"warning: {say(w, words)}" for w in result.get("warnings") or ())
    if result.get("hint"):
        lines.append(f"hint: {say(result['hint'], words)}")
    return lines


def join(header: str, lines: list[str], body: str = "") -> str:
    """The answer: header, note lines, body (each line ending in a newline)."""
    head = "".join(line + "\n" for line in [header, *lines])
    return head + body


def numbered(result: dict[str, Any]) -> str:
    """The lines of a read_file/codefetch result as ``N<TAB>text``, exactly; a last line without
    its newline is followed by git's marker, so the reader knows the file ends there."""
    content = result["content"]
    if not content:
        return ""
    lines = content.split("\n")
    last = lines.pop()  # "" when the content ends with a newline
    start = result["startLine"]
    out = [f"{start + i}\t{line}\n" for i, line in enumerate(lines)]
    if last:
        out.append(f"{start + len(lines)}\t{last}\n\\ No newline at end of file\n")
    return "".join(out)


def content_header(where: str, result: dict[str, Any], words: Words) -> str:
    """The header of a read_file/codefetch answer: where, language, which lines of how many."""
    if result["isBinary"]:
        return f"{where} · binary · {plural(result['size'], 'byte')}"
    header = (f"{where} · {result.get('language') or 'text'} · "
              f"lines {result['startLine']}-{result['endLine']} of {result['totalLines']}")
    if result.get("hasMore") and result["endLine"] < result["totalLines"]:
        header += more(f"start_line={result['endLine'] + 1}", words)
    return header
