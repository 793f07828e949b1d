"""environment.yml pins (conda's environment file; docs/registries-reference/conda.md).

Not a lockfile: its ``dependencies:`` are MatchSpec strings, all of them the project's direct
dependencies, and only a pin names a version: ``numpy==1.26.4`` and ``numpy 1.26.4`` that
version, ``numpy=1.26`` conda's ``1.26.*`` (the highest 1.26 release is read; with a build,
``numpy=1.26.4=py311h…``, it is exact), or with a channel (``conda-forge::numpy==1.26.4``). A
range, a glob or a bare name pins nothing, and the registry's latest applies. The ``- pip:``
list is PyPI's, not read here.
"""

from __future__ import annotations

from ._common import ROOT_DIRECT, Candidate, LockfileError
from .yaml_subset import YamlError, load


def pinned(spec: str) -> tuple[str, str | None]:
    """(name, version) of one MatchSpec string: ``V`` for ``==V`` and ``name V``, ``V.*`` for
    ``=V`` (what conda makes of it), None for anything that is no pin."""
    spec = spec.split("#", 1)[0].strip().strip("'\"").split("::", 1)[-1]
    end = next((i for i, c in enumerate(spec) if c in " =<>!~["), len(spec))
    name, rest = spec[:end].lower(), spec[end:].strip()
    fuzzy = rest.startswith("=") and not rest.startswith("==")
    if rest.startswith("="):
        rest = rest[2:] if rest.startswith("==") else rest[1:]
    elif rest[:1] in ("<", ">", "!", "~", "["):
        return name, None
    version, build = rest.split("=", 1)[0].split(" ", 1)[0].strip(), "=" in rest
    if not version or any(c in version for c in "*<>!~,|()[]"):
        return name, None
    return name, f"{version}.*" if fuzzy and not build else version  # with a build, =V is exact


def declared(text: str) -> list[tuple[str, str]]:
    """(name, spec) of every conda dependency the file declares (the pip list left out)."""
    try:
        doc = load(text)
    except YamlError as e:
        raise LockfileError(f"not in the YAML subset codenav reads ({e})") from None
    dependencies = doc.get("dependencies")
    if not isinstance(dependencies, list):
        raise LockfileError("no dependencies list")
    return [(pinned(spec)[0], spec.strip()) for spec in dependencies if isinstance(spec, str)]


def entries(text: str, ctx) -> list[Candidate]:
    out = []
    for name, spec in declared(text):
        version = pinned(spec)[1]
        if name and version is not None:
            out.append(Candidate(name, version, f"dependencies {spec}", ROOT_DIRECT))
    return out
