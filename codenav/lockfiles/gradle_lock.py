"""gradle.lockfile (Gradle's dependency locking, one file per project; docs/lockfiles.md "maven").

One line per resolved module, ``group:artifact:version=configuration,…``, transitive ones
included; ``empty=…`` lists the configurations that resolved nothing, ``#`` lines are comments.
A module that the project's build script names (``"group:artifact…"`` in build.gradle or
build.gradle.kts, or ``libs.<alias>`` of a version catalog library) is a direct dependency;
the others are transitive.
"""

from __future__ import annotations

import os

from ._common import REGISTRY, ROOT_DIRECT, TRANSITIVE, Candidate, LockfileError


def build_scripts(ctx) -> str:
    """The text of the project's build scripts (empty when there are none)."""
    return "\n".join(ctx.read(os.path.join(ctx.lock_dir, f)) or "" for f in ("build.gradle", "build.gradle.kts"))


def named_by(script: str, module: str, aliases: list[str]) -> bool:
    """Whether a build script names ``group:artifact`` itself or through a catalog alias."""
    if any(f"{q}{module}{end}" in script for q in "'\"" for end in (":", q)):
        return True
    return any(f"libs.{a.replace('-', '.').replace('_', '.')}" in script for a in aliases)


def entries(text: str, ctx) -> list[Candidate]:
    from .gradle_catalog import aliases_by_module
    script = build_scripts(ctx)
    aliases = aliases_by_module(ctx)
    out = []
    for number, line in enumerate(text.split("\n"), 1):
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("empty="):
            continue
        coordinate = line.split("=", 1)[0]
        parts = coordinate.split(":")
        if len(parts) != 3 or not all(parts):
            raise LockfileError(f"not a gradle.lockfile (line {number}: expected group:artifact:version=…)")
        module = f"{parts[0]}:{parts[1]}"
        tier = ROOT_DIRECT if named_by(script, module, aliases.get(module, [])) else TRANSITIVE
        out.append(Candidate(module, parts[2], coordinate, tier, REGISTRY, None))
    return out
