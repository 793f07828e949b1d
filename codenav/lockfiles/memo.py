"""The warm path's memo of lockfile answers (issue 14 item 4; lockfiles.md §11).

Lockfiles run to megabytes; parsing one costs tens of milliseconds. The answer for one query
(registry, name, start directory) is kept in a small text file under the cache's state dir,
``state/lockfiles/<hash>.txt``, together with the (size, mtime_ns) of every file the answer
depended on: the lockfiles of the directory, the manifests beside them, the files a reader
looked at besides (a parent POM, a go.work above, ``r`` lines) and, for PyPI, the venv. A warm call stats those files and reads the memo — no ``json``, ``re`` or ``tomllib``.
Any difference, or a memo it cannot read, means the lockfiles are read again. Format::

    codenav-lockmemo 1
    q <registry> <name> <start> <tag>      (tag: the row's memo_tag, "py3.X" for PyPI, "" for others)
    d <size> <mtime_ns> <path>             one line per dependency; size "-" if absent
    r <size> <mtime_ns> <path>             one line per other file a reader looked at
    w <warning>                            zero or more
    a <name> <version> <kind> <file> <entry> <source> <ref> <other,versions>   or "n" (none)

Fields are tab-separated; a tab, newline or backslash inside one is escaped.
"""

from __future__ import annotations

import os

from .locked import Locked

HEADER = "codenav-lockmemo 1"


def _escape(text: str | None) -> str:
    if text is None:
        return "\\0"
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _unescape(text: str) -> str | None:
    if text == "\\0":
        return None
    if "\\" not in text:
        return text
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            out.append({"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}.get(text[i + 1], text[i + 1]))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def dependencies(row, lock_dir: str, start: str, lockfiles: list[str], env) -> list[str]:
    """Every path whose change could change the answer (stat'ed on the warm path)."""
    paths = [os.path.join(lock_dir, f) for f in lockfiles]
    d = start
    while row.manifests:  # the importers' manifests between the start directory and the lockfile
        for m in row.manifests:
            paths.append(os.path.join(d, m))
        if d == lock_dir or not d.startswith(lock_dir):
            break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    paths.extend(os.path.join(lock_dir, f) for f in row.detected)
    if env is not None:
        paths.extend(env.state_files())
    return paths


def _stamp(path: str) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return "-\t-"
    return f"{st.st_size}\t{st.st_mtime_ns}"


def _query(row, name: str, start: str) -> str:
    from .ecosystems import hook
    tag = hook(row, "memo_tag")()  # PyPI: the running Python, for marker forks without a venv
    return "q\t" + "\t".join(_escape(x) for x in (row.registry, name, start, tag))


def _memo_path(registry: str, name: str, start: str) -> str:
    from ..paths import short_hash, state_dir
    return os.path.join(state_dir(), "lockfiles", short_hash(f"{registry}\t{name}\t{start}") + ".txt")


def _valid(row, name: str, start: str, deps: list[str]) -> list[str] | None:
    """The memo's lines when it answers this query and no file it depends on changed."""
    try:
        with open(_memo_path(row.registry, name, start), encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not lines or lines[0] != HEADER:
        return None
    if len(lines) < 2 or lines[1] != _query(row, name, start):
        return None
    stamps = [line[2:] for line in lines if line.startswith("d\t")]
    if stamps != [f"{_stamp(p)}\t{_escape(p)}" for p in deps]:
        return None
    for line in lines:
        if line.startswith("r\t"):
            size, mtime, path = (line[2:].split("\t", 2) + ["", ""])[:3]
            if _stamp(_unescape(path) or "") != f"{size}\t{mtime}":
                return None
    return lines


def _write(row, name: str, start: str, deps: list[str], reads, warnings: list[str], body: list[str]) -> None:
    """Write a memo; a cache that cannot be written is not an error (the answer stands)."""
    lines = [HEADER, _query(row, name, start)]
    lines += [f"d\t{_stamp(p)}\t{_escape(p)}" for p in deps]
    lines += [f"r\t{_stamp(p)}\t{_escape(p)}" for p in dict.fromkeys(reads)]
    lines += ["w\t" + _escape(w) for w in warnings]
    lines += body
    path = _memo_path(row.registry, name, start)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _warnings(lines: list[str]) -> list[str]:
    return [_unescape(line[2:]) or "" for line in lines if line.startswith("w\t")]


def load(row, name: str, start: str, deps: list[str]):
    """(the memoised answer or None, its warnings) when still valid; else None."""
    lines = _valid(row, name, start, deps)
    if lines is None:
        return None
    warnings = _warnings(lines)
    answer_lines = [line for line in lines if line.startswith(("a\t", "n"))]
    if len(answer_lines) != 1:
        return None
    if answer_lines[0] == "n":
        return None, warnings
    fields = [_unescape(x) for x in answer_lines[0].split("\t")[1:]]
    if len(fields) != 9 or any(fields[i] is None for i in (0, 2, 3, 4, 5)):
        return None
    pname, version, kind, file, entry, source, ref, others, own = fields
    return Locked(pname, version, kind, file, entry, others.split(",") if others else [],
                  own.split("\n") if own else [], source, ref), warnings


def store(row, name: str, start: str, deps: list[str], answer: Locked | None,
          warnings: list[str], reads: list[str] = ()) -> None:
    if answer is None:
        body = ["n"]
    else:
        body = ["a\t" + "\t".join(_escape(x) for x in (
            answer.name, answer.version, answer.kind, answer.file, answer.entry, answer.source,
            answer.ref, ",".join(answer.other_versions), "\n".join(answer.warnings)))]
    _write(row, name, start, deps, reads, warnings, body)


# Every entry of a project's lockfile (``project.py``) is memoised under this name, which no
# registry allows.
EVERY = "\0every"
_ENTRY_FIELDS = ("name", "version", "direct", "file", "entry", "kind", "source", "ref")


def load_entries(row, start: str, deps: list[str]):
    """(the memoised entries as field dicts, the lockfile read or None, warnings), or None."""
    lines = _valid(row, EVERY, start, deps)
    if lines is None:
        return None
    rows, used = [], None
    for line in lines:
        if line.startswith("e\t"):
            fields = [_unescape(x) for x in line[2:].split("\t")]
            if len(fields) != len(_ENTRY_FIELDS):
                return None
            item = dict(zip(_ENTRY_FIELDS, fields, strict=True))
            item["direct"] = item["direct"] == "1"
            rows.append(item)
        elif line.startswith("f\t"):
            used = _unescape(line[2:])
    return rows, used, _warnings(lines)


def store_entries(row, start: str, deps: list[str], rows: list[dict], used: str | None,
                  warnings: list[str], reads: list[str]) -> None:
    body = [] if used is None else ["f\t" + _escape(used)]
    for item in rows:
        values = [("1" if item["direct"] else "0") if k == "direct" else item[k] for k in _ENTRY_FIELDS]
        body.append("e\t" + "\t".join(_escape(v) for v in values))
    _write(row, EVERY, start, deps, reads, warnings, body)
