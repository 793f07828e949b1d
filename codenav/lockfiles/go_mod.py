"""go.mod and go.work, cross-checked with go.sum (docs/lockfiles.md "go").

Since Go 1.17 a module's go.mod ``require``s every module its build needs at the version the
build selects, the indirect ones marked ``// indirect``: that list is the lockfile. A
``replace`` applies to every version of its module, or to one (``replace M v1 => …``): the
module is then read at the replacement's path and version (reported as "replaced by"), and a
replacement by a local directory (``./x``, ``../x``, ``/x``) is no registry version.

The go command looks for go.work from the working directory up. Found beside the start (the
walk found it first) or above the module, and ``use``-ing the module, it makes a workspace: the
build list is then every ``use``d module's requirements, each module at the highest version any
of them requires (what minimal version selection gives when go.mod lists the full graph), the
go.work's own ``replace``s winning over the modules'. ``GOWORK=off`` turns workspaces off, as
for the go command.

go.sum (go.work.sum too in a workspace) should hold a hash for each selected module version; one
that does not is reported with that module (``go mod tidy`` writes it), never refused.
"""

from __future__ import annotations

import os

from ._common import CWD_DIRECT, OTHER_DIRECT, REGISTRY, ROOT_DIRECT, TRANSITIVE, Candidate, LockfileError

_BLOCKS = ("require", "replace", "exclude", "retract", "use", "godebug", "tool", "ignore")


def _tokens(line: str) -> tuple[list[str], str]:
    """The words of a line (quoted strings unquoted) and its ``//`` comment."""
    words: list[str] = []
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c in " \t\r":
            i += 1
        elif line.startswith("//", i):
            return words, line[i + 2:].strip()
        elif c in "\"`":
            j = line.find(c, i + 1)
            while c == '"' and j > 0 and line[j - 1] == "\\":
                j = line.find(c, j + 1)
            if j < 0:
                raise LockfileError("an unterminated quoted string")
            words.append(line[i + 1:j].replace('\\"', '"'))
            i = j + 1
        elif c in "()":
            words.append(c)
            i += 1
        else:
            j = i
            while j < n and line[j] not in " \t\r\"`()" and not line.startswith("//", j):
                j += 1
            words.append(line[i:j])
            i = j
    return words, ""


def parse(text: str) -> list[tuple[str, list[str], str, int]]:
    """``(verb, arguments, comment, line)`` for every directive, blocks flattened."""
    out = []
    block: str | None = None
    for number, line in enumerate(text.split("\n"), 1):
        try:
            words, comment = _tokens(line)
        except LockfileError as e:
            raise LockfileError(f"not a go.mod file (line {number}: {e})") from None
        if not words:
            continue
        if block is not None:
            if words == [")"]:
                block = None
                continue
            out.append((block, words, comment, number))
            continue
        if words[0] in _BLOCKS and words[1:] == ["("]:
            block = words[0]
            continue
        if words[0] in ("module", "go", "toolchain", *_BLOCKS):
            out.append((words[0], words[1:], comment, number))
            continue
        raise LockfileError(f"not a go.mod file (line {number}: unknown directive {words[0][:40]!r})")
    if block is not None:
        raise LockfileError(f"not a go.mod file (the {block} block is not closed)")
    return out


def _is_local(path: str) -> bool:
    return path.startswith(("./", "../", "/")) or path in (".", "..") or (len(path) > 1 and path[1] == ":")


class _Module:
    """One go.mod: its path, requirements (path -> (version, indirect)) and replacements."""

    def __init__(self, file: str, directives) -> None:
        self.file = file
        self.path = next((args[0] for verb, args, _, _ in directives if verb == "module" and args), "")
        self.requires: dict[str, tuple[str, bool]] = {}
        self.replaces = _replaces(directives)
        for verb, args, comment, _ in directives:
            if verb == "require" and len(args) >= 2:
                indirect = comment.split(";")[0].strip() == "indirect" or comment.startswith("indirect;")
                self.requires[args[0]] = (args[1], indirect)


def _replaces(directives) -> dict[tuple[str, str | None], tuple[str, str | None]]:
    """``(old path, old version or None) -> (new path, new version or None for a directory)``."""
    out = {}
    for verb, args, _, _ in directives:
        if verb != "replace" or "=>" not in args:
            continue
        at = args.index("=>")
        left, right = args[:at], args[at + 1:]
        if not left or not right or len(left) > 2 or len(right) > 2:
            continue
        out[(left[0], left[1] if len(left) == 2 else None)] = (right[0], right[1] if len(right) == 2 else None)
    return out


def _sums(ctx, paths: list[str]) -> set[str] | None:
    """The ``path version`` pairs go.sum files hold a hash for, or None when there is none."""
    found: set[str] | None = None
    for path in paths:
        text = ctx.read(path)
        if text is None:
            continue
        pairs = set()
        for number, line in enumerate(text.split("\n"), 1):
            words = line.split()
            if len(words) == 3:
                pairs.add(f"{words[0]} {words[1].removesuffix('/go.mod')}")
            elif words:  # go refuses the whole file: "malformed go.sum"
                ctx.note(None, f"{_shown(ctx, path)}: skipped: malformed (line {number}: expected "
                               "'module version hash')")
                break
        else:
            found = (found or set()) | pairs
    return found


def entries(text: str, ctx) -> list[Candidate]:
    directives = parse(text)
    if os.path.basename(ctx.path) == "go.work":
        return _workspace(ctx, ctx.path, directives, None)
    if os.environ.get("GOWORK", "").strip() != "off":
        above = ctx.find_up("go.work", os.path.dirname(ctx.lock_dir))
        if above is not None:
            work = ctx.read(above)
            try:
                work_directives = parse(work) if work is not None else []
            except LockfileError as e:
                ctx.note(None, f"{_shown(ctx, above)}: skipped: {e}")
                work_directives = []
            uses = {os.path.normpath(os.path.join(os.path.dirname(above), args[0]))
                    for verb, args, _, _ in work_directives if verb == "use" and args}
            if os.path.normpath(ctx.lock_dir) in uses:
                return _workspace(ctx, above, work_directives, (ctx.path, directives))
    module = _Module(ctx.path, directives)
    if not module.path:
        raise LockfileError("no module directive")
    return _select(ctx, [(module, ROOT_DIRECT)], {}, [os.path.join(ctx.lock_dir, "go.sum")])


def _workspace(ctx, work_file: str, directives, known) -> list[Candidate]:
    base = os.path.dirname(work_file)
    start = os.path.realpath(ctx.start)
    modules: list[tuple[_Module, int]] = []
    for verb, args, _, _ in directives:
        if verb != "use" or not args:
            continue
        directory = os.path.normpath(os.path.join(base, args[0]))
        file = os.path.join(directory, "go.mod")
        if known is not None and file == known[0]:
            module_directives = known[1]
        else:
            text = ctx.read(file)
            if text is None:
                if not os.path.lexists(file):  # an unusable one is named by ctx.read, with the reason
                    ctx.note(None, f"{_shown(ctx, file)}: skipped: absent (used by {_shown(ctx, work_file)})")
                continue
            try:
                module_directives = parse(text)
            except LockfileError as e:
                ctx.note(None, f"{_shown(ctx, file)}: skipped: {e}")
                continue
        real = os.path.realpath(directory)
        level = CWD_DIRECT if start == real or start.startswith(real + os.sep) else OTHER_DIRECT
        modules.append((_Module(file, module_directives), level))
    # The deepest module containing the start directory is its own; the others are workspace peers.
    own = [m for m, level in modules if level == CWD_DIRECT]
    deepest = max(own, key=lambda m: len(m.file)) if own else None
    modules = [(m, CWD_DIRECT if m is deepest else OTHER_DIRECT) for m, _ in modules]
    sums = [os.path.join(base, "go.work.sum")] + [os.path.join(os.path.dirname(m.file), "go.sum") for m, _ in modules]
    return _select(ctx, modules, _replaces(directives), sums)


def _select(ctx, modules, work_replaces, sum_files) -> list[Candidate]:
    from ._common import version_order
    version_key = version_order("go")
    local_paths = {m.path for m, _ in modules}
    chosen: dict[str, tuple[str, bool, int, str]] = {}  # path -> (version, indirect, tier, go.mod)
    for module, level in modules:
        for path, (version, indirect) in module.requires.items():
            if path in local_paths:
                continue  # a module of the workspace: its own directory is used
            tier = TRANSITIVE if indirect else level
            old = chosen.get(path)
            if old is None or version_key(version) > version_key(old[0]):
                chosen[path] = (version, indirect, min(tier, old[2]) if old else tier, module.file)
            elif tier < old[2]:
                chosen[path] = (*old[:2], tier, old[3])
    replaces: dict = {}
    for module, _ in modules:
        replaces.update(module.replaces)
    replaces.update(work_replaces)  # go.work's replacements win over the modules'
    sums = _sums(ctx, sum_files)
    if sums is None and chosen:
        absent = not any(os.path.lexists(path) for path in sum_files)
        ctx.note(None, f"go.sum is {'absent' if absent else 'unusable'}: the versions go.mod requires are not "
                       "checked against it")
    out = []
    for path in sorted(chosen):
        version, _, tier, file = chosen[path]
        new = replaces.get((path, version)) or replaces.get((path, None))
        shown = None if file == ctx.path else file
        if new is None:
            c = Candidate(path, version, f"require {path}", tier, REGISTRY, None, file=shown)
        elif _is_local(new[0]) or new[1] is None:
            c = Candidate(path, None, f"replace {path} => {new[0]}", tier, "directory", new[0], file=shown)
        else:
            c = Candidate(new[0], new[1], f"replace {path} => {new[0]} {new[1]}", tier, REGISTRY, None,
                          alias=path, file=shown)
        if sums is not None and c.source == REGISTRY and f"{c.name} {c.version}" not in sums:
            ctx.note(path, f"go.sum has no hash for {c.name} {c.version} (run `go mod download {c.name}`)")
        out.append(c)
    return out


def _shown(ctx, path: str) -> str:
    return os.path.relpath(path, ctx.start).replace(os.sep, "/")
