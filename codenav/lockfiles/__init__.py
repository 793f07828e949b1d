"""The version a project locks for a package (issue 14 item 2; lockfiles.md).

``find_locked(registry, name, start_dir)`` walks up from ``start_dir`` to the nearest directory
that holds a lockfile of that registry's ecosystem (§1.1: it stops after a directory holding
``.git``, before entering ``$HOME`` from below, at the filesystem root, and at a directory seen
twice), reads the lockfiles there in the reference's order (§1.2), and falls back to the
installed copy (§9). Among several locked copies it picks by the tiers of §2: the start
directory's importer's direct dependency, then the root's, the hoisted copy, another
workspace's, a transitive copy, and last an alias whose target is the package.

Rules a caller can rely on:
- Bad or hostile files never raise: an unreadable, oversized (``CODENAV_MAX_LOCKFILE_BYTES``,
  64 MiB by default), truncated or invalid lockfile is skipped with a one-line warning and the
  next source is tried (the next lockfile in the same directory, then the installed copy).
- A package locked as git, ``file:``, ``link:``, a workspace or a local path has no registry
  version: the answer then has ``version`` None, ``source`` saying which kind, ``ref`` the
  commit or path, and a warning. The caller must not fetch "latest" in its place.
- A request by an alias's installed name (``legacy-ms`` for ``npm:ms@0.7.3``) resolves to the
  real package: ``name`` is then the real name and a warning says so.
- PyPI names compare after PEP 503 normalisation.
- A warm call reads a small memo (``memo.py``) instead of the lockfile: it imports neither
  ``json``, ``re`` nor ``tomllib``.
"""

from __future__ import annotations

import os

from ._common import REGISTRY
from .locked import Locked, reason_of

DEFAULT_MAX_BYTES = 64 * 1024 * 1024

# (file name, reader module, kind), in the precedence of §1.2. The hidden lockfiles describe
# what is installed (§4.3, §9.1), so they rank last and report kind "installed".
NPM_FILES = (
    ("bun.lock", "bun", "lockfile"),
    ("pnpm-lock.yaml", "pnpm", "lockfile"),
    ("yarn.lock", "yarn", "lockfile"),
    ("npm-shrinkwrap.json", "npm_lock", "lockfile"),
    ("package-lock.json", "npm_lock", "lockfile"),
    ("node_modules/.package-lock.json", "npm_lock", "installed"),
    ("node_modules/.pnpm/lock.yaml", "pnpm", "installed"),
)
PYPI_FILES = (
    ("uv.lock", "uv", "lockfile"),
    ("poetry.lock", "poetry", "lockfile"),
    ("pdm.lock", "pdm", "lockfile"),
    ("pylock.toml", "pylock", "lockfile"),
    ("Pipfile.lock", "pipfile", "lockfile"),
)
# package.json "packageManager" (corepack) picks that manager's files first (§1.2).
_MANAGER_FILES = {"bun": ("bun.lock",), "pnpm": ("pnpm-lock.yaml",), "yarn": ("yarn.lock",),
                  "npm": ("npm-shrinkwrap.json", "package-lock.json")}
# A tool table in pyproject.toml (or a Pipfile) picks that tool's lockfile first (§1.2).
_TOOL_FILES = (("[tool.uv", "uv.lock"), ("[tool.poetry", "poetry.lock"), ("[tool.pdm", "pdm.lock"))


def find_locked(registry: str, name: str, start_dir: str, unused: list[str] | None = None) -> Locked | None:
    """The version the project around ``start_dir`` locks (or has installed) for ``name``.

    None when nothing local mentions the package (the caller then uses the registry's
    latest); the warnings gathered on the way (a lockfile skipped) are then appended to
    ``unused`` when given. Never raises for anything found on disk.
    """
    if registry not in ("npm", "pypi"):
        return None
    if registry == "pypi":
        from ..registries.pypi import pep503
        name = pep503(name)
    start = os.path.abspath(start_dir)
    warnings: list[str] = []
    walk = _walk(registry, start, warnings)
    dirs, lock_dir, present = walk
    env = None
    if registry == "pypi":
        from . import installed
        env = installed.python_env(dirs, lock_dir or (dirs[-1] if dirs else start))
    if lock_dir is not None:
        found = _from_lockfiles(registry, name, start, lock_dir, present, env, warnings)
        if found is not None:
            return found
    from . import installed
    try:
        if registry == "npm":
            hit = installed.npm_installed(name, dirs, start, warnings)
        else:
            hit = installed.python_installed(name, env, start, warnings)
    except OSError as e:
        warnings.append(f"the installed copy could not be read ({reason_of(e)})")
        hit = None
    if hit is not None:
        hit.warnings[:0] = warnings
        return hit
    if unused is not None:
        unused.extend(warnings)
    return None


def _rel(path: str, start: str) -> str:
    rel = os.path.relpath(path, start)
    return rel.replace(os.sep, "/")


def _walk(registry: str, start: str, warnings: list[str]):
    """(directories visited from ``start`` upwards, the lockfile directory, its lockfiles)."""
    names = [f for f, _, _ in (NPM_FILES if registry == "npm" else PYPI_FILES)]
    extra = ("bun.lockb",) if registry == "npm" else ()
    home = os.path.abspath(os.path.expanduser("~"))
    seen: set[tuple[int, int]] = set()
    dirs: list[str] = []
    d = start
    while True:
        if d == home and d != start:
            break  # a stray ~/package-lock.json must not lock every project below it (§1.1)
        try:
            st = os.stat(d)
        except FileNotFoundError:
            st = None  # a start directory that does not exist (yet): look above it
        except OSError as e:
            warnings.append(f"{_rel(d, start)}: directory skipped ({reason_of(e)})")
            st = None
        if st is not None:
            ident = (st.st_dev, st.st_ino)
            if ident not in seen:  # a path through a symlink to a directory already looked at
                seen.add(ident)
                dirs.append(d)
                present = _present(d, start, [*names, *extra], warnings, registry)
                if present:
                    return dirs, d, present
                if _exists(os.path.join(d, ".git")):
                    break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return dirs, None, []


def _exists(path: str) -> bool:
    try:
        os.lstat(path)
        return True
    except OSError:
        return False


def _present(d: str, start: str, names, warnings: list[str], registry: str) -> list[str]:
    """The lockfile names present in ``d``; a file that cannot be checked counts as present."""
    out = []
    denied = False
    for fname in names:
        try:
            os.stat(os.path.join(d, fname))
        except (FileNotFoundError, NotADirectoryError):
            continue
        except PermissionError:
            denied = True
            continue
        except OSError:
            pass  # a symlink loop, say: present, and skipped with a warning when read
        out.append(fname)
    if registry == "pypi":
        try:
            for entry in os.listdir(d):
                # PEP 751 names: pylock.<name>.toml; pylock.toml itself is preferred (§1.2).
                if entry.startswith("pylock.") and entry.endswith(".toml") and entry != "pylock.toml" \
                        and entry.count(".") == 2 and len(entry) > len("pylock..toml"):
                    out.append(entry)
        except OSError:
            denied = True
    if denied and not out:
        warnings.append(f"{_rel(d, start) if d != start else '.'}: directory skipped (permission denied)")
    return out


def _ordered(registry: str, lock_dir: str, present: list[str]) -> list[tuple[str, str, str]]:
    table = NPM_FILES if registry == "npm" else PYPI_FILES
    rows = [row for row in table if row[0] in present]
    if registry == "pypi":
        named = sorted(p for p in present if p.startswith("pylock.") and p != "pylock.toml")
        at = next((i for i, r in enumerate(rows) if r[0] == "Pipfile.lock"), len(rows))
        rows[at:at] = [(p, "pylock", "lockfile") for p in named]
    preferred = _preferred(registry, lock_dir)
    return sorted(rows, key=lambda row: row[0] not in preferred)  # stable: keeps §1.2 order


def _preferred(registry: str, lock_dir: str) -> tuple[str, ...]:
    """The files an explicit tool choice names (``packageManager``, a ``[tool.x]`` table)."""
    from ._common import read_text
    if registry == "npm":
        text = read_text(os.path.join(lock_dir, "package.json"))
        at = text.find('"packageManager"')
        if at < 0:
            return ()
        rest = text[at + len('"packageManager"'):].lstrip()
        if not rest.startswith(":"):
            return ()
        rest = rest[1:].lstrip()
        if not rest.startswith('"'):
            return ()
        manager = rest[1:].split('"', 1)[0].split("@", 1)[0].strip()
        return _MANAGER_FILES.get(manager, ())
    if _exists(os.path.join(lock_dir, "Pipfile")):
        return ("Pipfile.lock",)
    text = read_text(os.path.join(lock_dir, "pyproject.toml"))
    for line in text.splitlines():
        for table, fname in _TOOL_FILES:
            if line.startswith(table):
                return (fname,)
    return ()


def _max_bytes() -> int:
    try:
        return int(os.environ.get("CODENAV_MAX_LOCKFILE_BYTES", "")) or DEFAULT_MAX_BYTES
    except ValueError:
        return DEFAULT_MAX_BYTES


def read_capped(path: str) -> str:
    """The text of a lockfile, or ``LockfileError`` with the reason it cannot be used."""
    from ._common import LockfileError, is_regular_file
    limit = _max_bytes()
    try:
        if not is_regular_file(path):
            raise LockfileError("not a regular file")
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > limit:
                raise LockfileError(f"larger than {_mib(limit)} (CODENAV_MAX_LOCKFILE_BYTES)")
            data = f.read(limit + 1)
    except IsADirectoryError:
        raise LockfileError("a directory, not a file") from None
    except OSError as e:
        raise LockfileError(f"cannot be read ({reason_of(e)})") from None
    if len(data) > limit:
        raise LockfileError(f"larger than {_mib(limit)} (CODENAV_MAX_LOCKFILE_BYTES)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise LockfileError("not UTF-8 text") from None


def _mib(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB" if n >= 1024 * 1024 else f"{n} bytes"


def _importer_path(start: str, lock_dir: str) -> str:
    """The start directory relative to the lockfile's, '/'-separated ('.' when the same).

    Symlinks are resolved first (packages/self/app, with self -> ., is packages/app), unless
    that leaves the lockfile's directory; then the path as walked is used.
    """
    if start == lock_dir:
        return "."
    rel = _rel(os.path.realpath(start), os.path.realpath(lock_dir))
    if rel.startswith(".."):
        rel = _rel(start, lock_dir)
    return "." if rel.startswith("..") else rel


def _from_lockfiles(registry: str, name: str, start: str, lock_dir: str, present: list[str],
                    env, warnings: list[str]) -> Locked | None:
    from . import memo
    rows = _ordered(registry, lock_dir, present)
    rel = _importer_path(start, lock_dir)
    deps = memo.dependencies(registry, lock_dir, start, [r[0] for r in rows], env)
    cached = memo.load(registry, name, start, deps)
    if cached is not None:
        answer, memo_warnings = cached
        warnings.extend(memo_warnings)
        if answer is not None:
            answer.warnings[:0] = warnings
        return answer
    before = len(warnings)
    answer = _read_lockfiles(registry, name, start, lock_dir, rel, rows, present, env, warnings)
    memo.store(registry, name, start, deps, answer, warnings[before:])
    if answer is not None:
        answer.warnings[:0] = warnings
    return answer


def _read_lockfiles(registry, name, start, lock_dir, rel, rows, present, env, warnings) -> Locked | None:
    import importlib

    from ._common import LockfileError
    if registry == "npm" and "bun.lockb" in present and "bun.lock" not in present:
        warnings.append("bun.lockb is binary and is not read; run `bun install --save-text-lockfile "
                        "--frozen-lockfile --lockfile-only` to write bun.lock")
    for index, (fname, module, kind) in enumerate(rows):
        path = os.path.join(lock_dir, fname)
        shown = _rel(path, start)
        try:
            text = read_capped(path)
            reader = importlib.import_module(f".{module}", __name__)
            candidates = reader.candidates(text, name, rel, lock_dir)
        except LockfileError as e:
            warnings.append(f"{shown}: skipped: {e}")
            continue
        except RecursionError:
            warnings.append(f"{shown}: skipped: nested too deeply")
            continue
        except ValueError as e:  # YamlError, TOMLDecodeError: their messages name the line
            reason = str(e).splitlines()[0] if str(e) else "unexpected content"
            warnings.append(f"{shown}: skipped: {reason}")
            continue
        except Exception:  # hostile input must never fail the call (issue 14 item 5)
            warnings.append(f"{shown}: skipped: unexpected content")
            continue
        ignored = [r[0] for r in rows[index + 1:] if not r[0].startswith("node_modules/")]
        if ignored and kind == "lockfile":
            warnings.append(f"also present: {', '.join(ignored)} (ignored; {fname} is used)")
        return choose(registry, name, candidates, kind, shown, env)
    return None


def _version_key(version: str | None) -> tuple:
    """An ordering good enough to pick the highest of a few locked versions (npm or PEP 440)."""
    if not version:
        return ((-1,), 0, "")
    v = version.lstrip("vV=")
    release: list[int] = []
    i = 0
    while True:
        j = i
        while j < len(v) and v[j].isdigit():
            j += 1
        if j == i:
            break
        release.append(int(v[i:j]))
        i = j
        if v[i:i + 1] == "." and v[i + 1:i + 2].isdigit():
            i += 1
            continue
        break
    rest = v[i:].lstrip(".-_").lower()
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    if not rest or rest.startswith("+"):
        return (tuple(release), 1, rest)
    if rest.startswith(("post", "rev", "r")):
        return (tuple(release), 2, rest)
    return (tuple(release), 0, rest)  # a prerelease sorts before its release


def choose(registry: str, name: str, candidates, kind: str, file: str, env=None) -> Locked | None:
    """The winning candidate for ``name`` as a ``Locked`` (§2), or None if none matches."""
    real = [c for c in candidates if c.name == name]
    via_alias = False
    if not real:
        real = [c for c in candidates if c.alias == name]
        if not real:
            return None
        via_alias = True
    best = min(c.tier for c in real)
    top = [c for c in real if c.tier == best]
    pick = _pick_fork(top, env) if registry == "pypi" else None
    if pick is None:
        pick = max(top, key=lambda c: (_version_key(c.version), c.source == REGISTRY))
    others = sorted({c.version for c in real if c.version and c.version != pick.version},
                    key=_version_key, reverse=True)
    warnings: list[str] = []
    target = pick.name
    if via_alias:
        warnings.append(f"{name} is an alias of {pick.name}@{pick.version or pick.source} in {file}")
    version = pick.version
    if pick.source != REGISTRY:
        what = {"git": "a git dependency"}.get(pick.source, f"a local {pick.source} dependency")
        detail = f" (commit {pick.ref})" if pick.source == "git" and pick.ref else \
            f" ({pick.ref})" if pick.ref else ""
        warnings.append(f"{target} is {what}{detail} in {file}, entry {pick.entry}: no registry version")
        version = None
    return Locked(target, version, kind, file, pick.entry, others, warnings, pick.source, pick.ref)


def _pick_fork(top, env):
    """Python marker forks (§2): the venv's installed version, else evaluated markers."""
    versions = {c.version for c in top if c.version}
    if len(versions) < 2 or env is None:
        return None
    installed = env.installed_version(top[0].name)
    for c in top:
        if installed is not None and c.version == installed:
            return c
    from ._markers import evaluate_any
    matching = [c for c in top if evaluate_any(c.marker, env.marker_env())]
    if matching:
        return max(matching, key=lambda c: _version_key(c.version))
    return None
