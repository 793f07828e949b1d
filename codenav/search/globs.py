"""ripgrep ``-g`` globs over the '/'-separated relative paths of a target.

The rules are ripgrep's (its override globs follow .gitignore syntax):

- ``*`` and ``?`` never cross '/'; ``**`` as a whole segment spans directories (``**/x``,
  ``a/**/b``, ``a/**`` = everything inside ``a``); ``[...]`` (``[!...]`` or ``[^...]`` negated)
  and ``{a,b}`` as in ripgrep; a backslash escapes the next character.
- A glob with no '/' (a trailing one aside) matches the basename at any depth; a leading '/'
  or a '/' inside anchors it to the root of the target.
- A trailing '/' matches directories only; a directory that a glob excludes excludes
  everything under it.
- ``!`` negates; when several globs match, the one given last wins.
- When any glob is not negated, a file that no glob matches is left out; a list of only ``!``
  globs means "everything else".

Compiling imports ``re``; only a call that passes globs pays for it.
"""

from __future__ import annotations

from ..errors import invalid

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Iterable


class _Glob:
    __slots__ = ("text", "negated", "dir_only", "regex")

    def __init__(self, text: str, negated: bool, dir_only: bool, regex: object) -> None:
        self.text, self.negated, self.dir_only, self.regex = text, negated, dir_only, regex


def _segment_regex(glob: str, text: str) -> str:
    """The regular expression of one glob without '**' handling of whole segments."""
    import re

    out: list[str] = []
    i, n = 0, len(glob)
    in_braces = False
    while i < n:
        c = glob[i]
        if c == "\\":
            if i + 1 < n:
                out.append(re.escape(glob[i + 1]))
                i += 2
            else:
                out.append(re.escape("\\"))
                i += 1
            continue
        if c == "*":
            while i + 1 < n and glob[i + 1] == "*":
                i += 1  # a '**' inside a segment is a '*' (ripgrep's globset treats it so)
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = i + 1
            if end < n and glob[end] in "!^":
                end += 1
            if end < n and glob[end] == "]":
                end += 1
            while end < n and glob[end] != "]":
                end += 1
            if end >= n:
                raise invalid(f"glob {text!r} has an unclosed '['", "glob")
            body = glob[i + 1:end]
            negated = body[:1] in ("!", "^")
            if negated:
                body = body[1:]
            members = []
            for j, ch in enumerate(body):
                # '-' keeps its range meaning between two characters; everything else is literal
                if ch == "-" and 0 < j < len(body) - 1:
                    members.append("-")
                else:
                    members.append(re.escape(ch) if ch in "\\]^-[" else ch)
            out.append(f"[{'^' if negated else ''}{''.join(members)}]")
            i = end
        elif c == "{" and not in_braces:
            in_braces = True
            out.append("(?:")
        elif c == "}" and in_braces:
            in_braces = False
            out.append(")")
        elif c == "," and in_braces:
            out.append("|")
        else:
            out.append(re.escape(c))
        i += 1
    if in_braces:
        raise invalid(f"glob {text!r} has an unclosed '{{'", "glob")
    return "".join(out)


def _compile(text: str) -> _Glob:
    import re

    if not isinstance(text, str) or not text or text == "!":
        raise invalid("each glob must be a non-empty string such as '*.ts' or '!*.d.ts'", "glob")
    glob = text
    negated = glob.startswith("!")
    if negated:
        glob = glob[1:]
    elif glob.startswith("\\!"):
        glob = glob[1:]
    dir_only = glob.endswith("/") and not glob.endswith("\\/")
    if dir_only:
        glob = glob.rstrip("/")
    anchored = glob.startswith("/")
    if anchored:
        glob = glob.lstrip("/")
    anchored = anchored or "/" in glob
    if not glob:
        raise invalid(f"glob {text!r} matches no path", "glob")
    if not anchored and not (glob == "**" or glob.startswith("**/")):
        glob = "**/" + glob
    if glob.endswith("/**"):
        glob += "/*"  # 'a/**' is everything inside a, not a itself (as .gitignore)
    parts = glob.split("/")
    pattern = ""
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            pattern += ".*" if last else "(?:.*/)?"
        else:
            pattern += _segment_regex(part, text) + ("" if last else "/")
    try:
        return _Glob(text, negated, dir_only, re.compile(f"(?s:{pattern})\\Z"))
    except re.error as exc:
        raise invalid(f"glob {text!r} is not valid: {exc}", "glob") from None


class GlobSet:
    """Compiled globs; ``includes(path)`` says whether ripgrep's ``-g`` list keeps a file."""

    def __init__(self, globs: Iterable[str]) -> None:
        self.globs = [_compile(g) for g in globs]
        self.has_includes = any(not g.negated for g in self.globs)
        self._dirs: dict[str, bool] = {}

    def _last(self, path: str, is_dir: bool) -> _Glob | None:
        for glob in reversed(self.globs):
            if (is_dir or not glob.dir_only) and glob.regex.match(path):
                return glob
        return None

    def _dir_excluded(self, directory: str) -> bool:
        """A directory is skipped when the last glob matching it is negated (or a parent is)."""
        known = self._dirs.get(directory)
        if known is None:
            parent, slash, _ = directory.rpartition("/")
            known = bool(slash) and self._dir_excluded(parent)
            if not known:
                last = self._last(directory, True)
                known = last is not None and last.negated
            self._dirs[directory] = known
        return known

    def includes(self, path: str) -> bool:
        if not self.globs:
            return True
        parent, slash, _ = path.rpartition("/")
        if slash and self._dir_excluded(parent):
            return False
        last = self._last(path, False)
        if last is None:
            return not self.has_includes
        return not last.negated


def check(globs: object) -> list[str]:
    """The ``glob`` argument as a list of strings (one string is a list of one), or INVALID_ARGUMENT."""
    if isinstance(globs, str):
        globs = [globs]
    if not isinstance(globs, list) or not all(isinstance(g, str) for g in globs):
        raise invalid("glob must be a list of strings such as [\"*.ts\", \"!*.d.ts\"]", "glob")
    GlobSet(globs)  # refuse a malformed glob before any download
    return globs
