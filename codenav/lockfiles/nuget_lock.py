"""packages.lock.json (NuGet's lock file, versions 1 and 2; docs/lockfiles.md "nuget").

``dependencies`` maps each target framework (``net8.0``, or ``net8.0/linux-x64`` for a runtime) to
the packages restored for it: ``type`` is ``Direct``, ``Transitive``, ``CentralTransitive`` (a
transitive package pinned by Directory.Packages.props) or ``Project`` (a project reference, no
package), ``resolved`` the version. Frameworks usually agree; when they do not, each version is a
copy. Ids compare case-insensitively.
"""

from __future__ import annotations

from ._common import REGISTRY, ROOT_DIRECT, TRANSITIVE, Candidate, LockfileError


def entries(text: str, ctx) -> list[Candidate]:
    import json
    try:
        doc = json.loads(text)
    except ValueError as e:
        line = getattr(e, "lineno", None)
        raise LockfileError(f"not valid JSON{f' (line {line})' if line else ''}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("dependencies"), dict):
        raise LockfileError("no 'dependencies' object")
    out = []
    bad = 0
    for framework, packages in doc["dependencies"].items():
        if not isinstance(packages, dict):
            bad += 1
            continue
        for name, info in packages.items():
            if isinstance(info, dict) and info.get("type") == "Project":
                continue
            version = info.get("resolved") if isinstance(info, dict) else None
            if not isinstance(version, str) or not version:
                bad += 1
                continue
            tier = ROOT_DIRECT if info.get("type") == "Direct" else TRANSITIVE
            out.append(Candidate(name, version, f"dependencies.{framework}.{name}", tier, REGISTRY, None))
    ctx.skipped(bad, "not a framework's packages, or a package without a resolved version")
    return out
