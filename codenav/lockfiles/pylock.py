"""pylock.toml and pylock.<name>.toml (PEP 751; lockfiles.md §8.5).

``[[packages]]`` entries with a normalised ``name`` and an optional ``version`` (absent for
source trees); forks are several entries with different ``marker``s. ``vcs`` carries
``commit-id``; ``directory`` and ``archive`` entries are local or URL copies. There is no
dependency graph, so direct dependencies come from pyproject.toml.
"""

from __future__ import annotations

from . import _toml
from ._common import CWD_DIRECT, REGISTRY, ROOT_DIRECT, TRANSITIVE, Candidate, LockfileError
from ._pyproject import direct_names


def candidates(text: str, name: str, rel: str, lock_dir: str) -> list[Candidate]:
    from ..registries.pypi import pep503
    doc = _toml.loads(text)
    packages = doc.get("packages")
    if not isinstance(packages, list):
        raise LockfileError("no [[packages]] tables")
    mine, root = direct_names(lock_dir, rel)
    tier = CWD_DIRECT if name in mine and mine is not root else \
        ROOT_DIRECT if name in root or name in mine else TRANSITIVE
    out = []
    for pkg in packages:
        if not isinstance(pkg, dict) or pep503(str(pkg.get("name", ""))) != name:
            continue
        version = pkg.get("version") if isinstance(pkg.get("version"), str) else None
        source, ref = REGISTRY, None
        if isinstance(pkg.get("vcs"), dict):
            vcs = pkg["vcs"]
            source, ref = "git", str(vcs.get("commit-id") or vcs.get("url") or "") or None
        elif isinstance(pkg.get("directory"), dict):
            source, ref = "directory", str(pkg["directory"].get("path", "")) or None
        elif isinstance(pkg.get("archive"), dict):
            archive = pkg["archive"]
            source, ref = "url", str(archive.get("url") or archive.get("path") or "") or None
        if source != REGISTRY:
            version = None
        out.append(Candidate(name, version, f"packages {pkg.get('name')} {pkg.get('version', '')}".strip(),
                             tier, source, ref, marker=pkg.get("marker")))
    return out
