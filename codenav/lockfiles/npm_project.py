"""What an npm project adds to the generic lookup (the npm row's hooks; lockfiles.md §1.2, §7, §9.1).

``package.json``'s ``packageManager`` (corepack) puts that manager's lockfile first; a
``bun.lockb`` without ``bun.lock`` is named in a warning (it is binary and never read); with no
lockfile the installed ``node_modules/<name>/package.json`` answers, found as Node resolves.
"""

from __future__ import annotations

import os

# package.json "packageManager" (corepack) picks that manager's files first (§1.2).
_MANAGER_FILES = {"bun": ("bun.lock",), "pnpm": ("pnpm-lock.yaml",), "yarn": ("yarn.lock",),
                  "npm": ("npm-shrinkwrap.json", "package-lock.json")}


def preferred(lock_dir: str) -> tuple[str, ...]:
    from ._common import read_text
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


def notes(present: list[str]) -> list[str]:
    if "bun.lockb" in present and "bun.lock" not in present:
        return ["bun.lockb is binary and is not read; run `bun install --save-text-lockfile "
                "--frozen-lockfile --lockfile-only` to write bun.lock"]
    return []


def installed(name: str, dirs: list[str], start: str, env, warnings: list[str]):
    from .installed import npm_installed
    return npm_installed(name, dirs, start, warnings)
