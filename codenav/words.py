"""The one place that decides how a hint or an error reads on each surface (SPEC §4.3).

Envelopes — the MCP text block and ``--json``, byte-identical — speak in the MCP argument and
tool names (``start_line=1493``, ``path_prefix``, ``list_files``): that is the vocabulary of
the JSON a caller sends back. The plain and verbose CLI show the same sentences through
``for_cli``, which respells those names as a person types them at the terminal
(``--lines 1493-``, ``PATH_PREFIX``, ``codenav files SPEC``). Nothing in an envelope is ever
rewritten, so parity holds; every CLI rendering of a hint, message or action goes through here.

The CLI spellings come from the one declaration of every command line (grammar.py), read
only when there is a sentence to show.
"""

from __future__ import annotations

# A result field a hint may name, as a person reads it beside the CLI's lines.
RESULT_WORDS = {
    "availableVersions": "the versions above",
    "availableRefs": "the refs above",
}
_IDENT = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_VALUE_END = " ,;)\n"  # a NAME=VALUE's value runs to one of these
_words: tuple[dict[str, str], dict[str, object]] | None = None


def cli_words() -> tuple[dict[str, str], dict[str, object]]:
    """(MCP name -> its CLI spelling, standing alone; argument -> its grammar.Option), from the
    one declaration of every command line (grammar.py), read once."""
    global _words
    if _words is None:
        from .grammar import cli_words as declared

        alone, flags = declared()
        _words = {**alone, **RESULT_WORDS}, flags
    return _words


def for_cli(sentence: str) -> str:
    """``sentence`` (an envelope's hint, message or action) in the words of the CLI: a tool or
    argument name as the command line spells it (``list_files`` -> ``codenav files SPEC``,
    ``path_prefix`` -> ``PATH_PREFIX``), ``NAME=VALUE`` as its option (``cursor=C`` ->
    ``--cursor C``, ``regex=true`` -> ``--regex``), a line argument and its value as one
    ``--lines`` range (``start_line=N, end_line=M`` -> ``--lines N-M``); whole words only."""
    from .grammar import RANGE, SWITCH

    alone, flags = cli_words()
    sentence = _drop_cli_asides(sentence)
    out: list[str] = []
    i, n = 0, len(sentence)
    while i < n:
        if sentence[i] not in _IDENT or (i and sentence[i - 1] in _IDENT):
            out.append(sentence[i])
            i += 1
            continue
        j = i
        while j < n and sentence[j] in _IDENT:
            j += 1
        word = sentence[i:j]
        option: object = flags.get(word)
        if option is not None and option.kind == RANGE:
            # A line argument followed by its value (``start_line=5``, ``start_line 5``,
            # ``end_line (5)``) is one ``--lines`` range.
            value, after = _value_after(sentence, j)
            if value is not None:
                flag = option.flags[0]
                if word == "start_line":
                    end, after_end = _end_after(sentence, after)
                    if end is not None:
                        out.append(f"{flag} {value}-{end}")
                        i = after_end
                        continue
                out.append(f"{flag} {value}-" if word == "start_line" else f"{flag} -{value}")
                i = after
                continue
        elif option is not None and sentence.startswith("=", j):
            # NAME=VALUE (a header's `more: cursor=…`, a hint's `regex=true`) -> the option.
            k = j + 1
            while k < n and sentence[k] not in _VALUE_END:
                k += 1
            value = sentence[j + 1:k]
            if option.kind != SWITCH:
                out.append(f"{option.flags[0]} {value}")
                i = k
                continue
            if value == "true":
                out.append(option.flags[0])
                i = k
                continue
        out.append(alone.get(word, word))
        i = j
    return "".join(out)


def for_mcp(sentence: str) -> str:
    """``sentence`` as a model reads it in a TEXT answer: MCP words, ``(CLI: …)`` asides dropped."""
    return _drop_cli_asides(sentence)


def _drop_cli_asides(sentence: str) -> str:
    """Remove `` (CLI: …)`` asides: the CLI line says it in its own words already."""
    while True:
        start = sentence.find(" (CLI: ")
        if start < 0:
            return sentence
        end = sentence.find(")", start)
        if end < 0:
            return sentence
        sentence = sentence[:start] + sentence[end + 1:]


def _value_after(sentence: str, j: int) -> tuple[str | None, int]:
    """The number right after a name (``=5``, `` 5``, `` (5)``) and where it ends, else (None, j)."""
    k = j
    if k < len(sentence) and sentence[k] in "= ":
        k += 1
    paren = k < len(sentence) and sentence[k] == "("
    if paren:
        k += 1
    start = k
    while k < len(sentence) and sentence[k].isdigit():
        k += 1
    if k == start or (paren and (k >= len(sentence) or sentence[k] != ")")):
        return None, j
    return sentence[start:k], k + 1 if paren else k


def _end_after(sentence: str, k: int) -> tuple[str | None, int]:
    """``, end_line=M`` right after a start value: M and where it ends, else (None, k)."""
    lead = ", end_line="
    if not sentence.startswith(lead, k):
        return None, k
    value, after = _value_after(sentence, k + len(lead) - 1)
    return value, after


# How many of a list of near misses the CLI prints on one line (the envelope keeps them all).
SHOWN = 5


def error_lines(code: str, message: str, details: dict) -> list[str]:
    """The stderr lines of an error in plain and verbose mode, in the words of the CLI.

    The message; then what the envelope offers to recover with — the nearest versions (in the
    envelope's order, nearest first) and latest, the nearest refs, the paths meant — and last
    the action, so that "pick one of the versions above" has them above.
    """
    lines = [for_cli(message)]
    versions = details.get("availableVersions")
    if code == "VERSION_NOT_FOUND" and (versions or details.get("latest")):
        shown = ", ".join(versions[:SHOWN]) if versions else "none"
        latest = f"; latest {details['latest']}" if details.get("latest") else ""
        lines.append(f"nearest versions: {shown}{latest}")
    refs = details.get("availableRefs")
    if code == "REF_NOT_FOUND" and refs:
        lines.append(f"nearest refs: {', '.join(refs[:SHOWN])}")
    paths = details.get("suggestions")
    if code == "FILE_NOT_FOUND" and paths:
        meant = " or ".join(paths) if len(paths) <= 2 else "one of " + ", ".join(paths[:SHOWN])
        lines.append(f"did you mean {meant}?")
    suggestion = details.get("suggestion")
    if code == "INVALID_ARGUMENT" and suggestion:
        lines.append(f"did you mean {suggestion}?")
    if details.get("action"):
        lines.append(for_cli(details["action"]))
    return lines


def target_notes(target: object) -> list[str]:
    """The warnings a person gets about what was read: a yanked or deprecated release (SPEC §2.1).

    One line each, as pip warns of a yanked candidate and npm of a deprecated version.
    """
    if not isinstance(target, dict):
        return []
    spec = f"{target.get('registry')}:{target.get('name')}@{target.get('version')}"
    notes = []
    yanked = target.get("yanked")
    if yanked:
        reason = f": {yanked}" if isinstance(yanked, str) else " (no reason given)"
        notes.append(f"warning: {spec} is yanked{reason}")
    if target.get("deprecated"):
        notes.append(f"warning: {spec} is deprecated: {target['deprecated']}")
    return notes


# The details an error TEXT spells out first, in this order, with the label each gets; every
# other detail follows under its own key, so nothing of the envelope is lost (SPEC §4.4).
_DETAIL_LABELS = (
    ("availableVersions", "available versions"), ("latest", "latest"), ("requestedRef", "requested ref"),
    ("availableRefs", "available refs"), ("suggestions", "did you mean"), ("suggestion", "did you mean"),
    ("filePath", "file"), ("field", "argument"), ("variable", "variable"),
)


# The next action of an error whose envelope names none, by code.
_NEXT = {
    "FILE_NOT_FOUND": "call list_files to see the paths",
    "VERSION_NOT_FOUND": "pick one of the available versions",
    "REF_NOT_FOUND": "pick one of the available refs",
    "INVALID_ARGUMENT": "correct the argument and call again",
    "INDEXING": "call again in a few seconds: indexing goes on in the background",
    "NOT_FOUND": "check the name: it is not known upstream",
    "RATE_LIMITED": "wait, then call again",
    "TOO_LARGE": "narrow the request",
    "INTEGRITY_ERROR": "do not trust this artifact: read another version, or report it to the registry",
    "UNSAFE_ARCHIVE": "this release cannot be read safely: read another version",
    "TLS_ERROR": "add the certificate authority named above, then call again",
    "CONFIG_ERROR": "fix the setting named above, then call again",
    "PROTOCOL_ERROR": "call again later; the upstream answered in a form codenav cannot read",
    "INTERNAL": "a bug in codenav: call again, or report it with the server's log",
}


def _detail_value(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(_detail_value(item) for item in value)
    if isinstance(value, dict):
        return "; ".join(f"{key} {_detail_value(item)}" for key, item in sorted(value.items()))
    return str(value)


def error_text(envelope: dict, words: object = None) -> str:
    """The TEXT of an error envelope: the code first with the message, whether a retry can
    help, every detail (near misses, the variable to raise, …) and last the action.

    ``words`` None speaks MCP; ``for_cli`` speaks the CLI (message and action only: labels
    and values are data, never respelled).
    """
    error = envelope["error"]
    say = for_mcp if words is None else words
    details = dict(error.get("details") or {})
    action = details.pop("action", None)
    lines = [f"{error['code']}: {say(error['message'])}",
             "retry: " + ("may help (a later call can succeed)" if error.get("retryable")
                          else "will not help as is")]
    for key, title in _DETAIL_LABELS:
        if key in details:
            value = details.pop(key)
            shown = _detail_value(value)
            lines.append(f"{title}: {say(shown) if key == 'field' else shown}")
    for key in sorted(details):
        lines.append(f"{key}: {_detail_value(details[key])}")
    action = action or _NEXT.get(error["code"]) or ("call again later" if error.get("retryable") else None)
    if action:
        lines.append(f"next: {say(action)}")
    return "".join(line + "\n" for line in lines)
