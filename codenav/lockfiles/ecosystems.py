"""The ecosystem table: one row per registry says where its project pins versions (issue 22 item 4).

A row names, in the precedence of lockfiles.md §1.2:

- ``files``: ``(file name, reader module, kind)`` — the file as found in a directory (it may
  hold a ``/``: ``node_modules/.package-lock.json``), the module under ``codenav/lockfiles/``
  that reads it, and ``"lockfile"`` or ``"installed"`` (a hidden lockfile describes what is
  installed, so it ranks last and says so in ``versionSource.kind``);
- ``patterns``: ``(prefix, suffix, dotted, module, kind, after)`` — files found by name (PEP 751's
  ``pylock.<name>.toml``, ``*.csproj``); ``dotted`` says whether the part between may hold a
  ``.``; a match sorts right after the ``files`` row named ``after`` (matches among themselves
  by name);
- ``detected``: files that only mark a project directory (``bun.lockb`` is binary, never read);
- ``manifests``: the files beside a lockfile whose change can change an answer (the memo's
  dependencies, lockfiles.md §11), looked for in each directory from the start up to the lockfile's;
- ``fold``: how names compare (``exact``, ``lower``, ``pep503``, ``cargo`` = lower case with
  ``_`` as ``-``), applied to the request and to every name read;
- ``replaced``: the words for a copy that stands in for the requested name (an npm alias, a Go
  ``replace``);
- ``hooks``: the module with the ecosystem's optional behaviour, or None. Every hook and its
  default is declared in ``Hooks`` below: a row overrides only what it needs.

A reader module provides ``entries(text, ctx) -> list[Candidate]``: every package the file
locks, the direct dependencies of an importer at a ``*_DIRECT`` tier (``_common.Context`` says
where the project is and records every other file the reader looks at). The npm and PyPI
readers also provide ``candidates(text, name, rel, lock_dir)``, the copies of one name with the
full tiers of §2; for the others the candidates of a name are its entries.

This module imports only ``os`` (through ``_common``): the warm path reads it.
"""

from __future__ import annotations


class Ecosystem:
    """One row of the table (see the module docstring for the fields)."""

    __slots__ = ("registry", "files", "patterns", "detected", "manifests", "fold", "replaced", "hooks", "suffixes")

    def __init__(self, registry: str, files: tuple, *, patterns: tuple = (), detected: tuple = (),
                 manifests: tuple = (), fold: str = "exact", replaced: str = "an alias of",
                 hooks: str | None = None) -> None:
        self.registry, self.files, self.patterns, self.detected = registry, files, patterns, detected
        self.manifests, self.fold, self.replaced, self.hooks = manifests, fold, replaced, hooks
        self.suffixes = tuple(suffix for _, suffix, *_ in patterns)  # what a pattern's match ends with

    def names(self) -> list[str]:
        """Every fixed file name a directory is searched for (the detected ones included)."""
        return [f for f, _, _ in self.files] + list(self.detected)

    def matches(self, entry: str) -> tuple[str, str] | None:
        """``(module, kind)`` when a directory entry matches one of the row's patterns."""
        if not entry.endswith(self.suffixes):
            return None  # most entries of a directory walked: one test in C
        for prefix, suffix, dotted, module, kind, _ in self.patterns:
            middle = entry[len(prefix):len(entry) - len(suffix)]
            if entry.startswith(prefix) and entry.endswith(suffix) and middle and \
                    len(entry) > len(prefix) + len(suffix) and (dotted or "." not in middle) and \
                    entry not in (f for f, _, _ in self.files):
                return module, kind
        return None

    def position(self, fname: str) -> float:
        """Where a present file sorts in the row's precedence."""
        for i, (f, _, _) in enumerate(self.files):
            if f == fname:
                return float(i)
        for prefix, suffix, _, _, _, after in self.patterns:
            if fname.startswith(prefix) and fname.endswith(suffix):
                return next((i for i, (f, _, _) in enumerate(self.files) if f == after), len(self.files)) + 0.5
        return float(len(self.files))

    def row(self, fname: str) -> tuple[str, str, str]:
        """``(file name, module, kind)`` of a present file."""
        for row in self.files:
            if row[0] == fname:
                return row
        module, kind = self.matches(fname) or ("", "lockfile")
        return fname, module, kind

    def normalize(self, name: str) -> str:
        """``name`` as this ecosystem compares names."""
        if self.fold == "exact":
            return name
        if self.fold == "pep503":
            from ..registries.pypi import pep503
            return pep503(name)
        if self.fold == "cargo":
            return name.lower().replace("_", "-")
        return name.lower()

    def load_hooks(self):
        """The hooks module (or this module's defaults when the row names none)."""
        if self.hooks is None:
            return Hooks
        return getattr(__import__(__package__, fromlist=[self.hooks]), self.hooks)


class Hooks:
    """Every optional hook with its default; a hooks module defines the ones it changes."""

    @staticmethod
    def preferred(lock_dir: str) -> tuple[str, ...]:
        """The files an explicit tool choice puts first (``packageManager``, ``[tool.uv]``)."""
        return ()

    @staticmethod
    def environment(dirs: list[str], root: str):
        """What the installed-copy fallback and fork choice need (the project's venv), or None."""
        return None

    @staticmethod
    def installed(name: str, dirs: list[str], start: str, env, warnings: list[str]):
        """The installed copy (a ``Locked`` of kind "installed") when no lockfile names the package."""
        return None

    @staticmethod
    def notes(present: list[str]) -> list[str]:
        """Warnings about the files present (a binary lockfile that is not read)."""
        return []

    @staticmethod
    def pick_fork(top: list, env):
        """Among equally ranked copies of different versions, the one this environment uses."""
        return None

    @staticmethod
    def memo_tag() -> str:
        """What else the answer depends on (the interpreter's version for marker forks)."""
        return ""


def _hook(module, name: str):
    return getattr(module, name, None) or getattr(Hooks, name)


TABLE: dict[str, Ecosystem] = {
    "npm": Ecosystem("npm", (
        ("bun.lock", "bun", "lockfile"),
        ("pnpm-lock.yaml", "pnpm", "lockfile"),
        ("yarn.lock", "yarn", "lockfile"),
        ("npm-shrinkwrap.json", "npm_lock", "lockfile"),
        ("package-lock.json", "npm_lock", "lockfile"),
        ("node_modules/.package-lock.json", "npm_lock", "installed"),
        ("node_modules/.pnpm/lock.yaml", "pnpm", "installed"),
    ), detected=("bun.lockb",), manifests=("package.json",), hooks="npm_project"),
    "pypi": Ecosystem("pypi", (
        ("uv.lock", "uv", "lockfile"),
        ("poetry.lock", "poetry", "lockfile"),
        ("pdm.lock", "pdm", "lockfile"),
        ("pylock.toml", "pylock", "lockfile"),
        ("Pipfile.lock", "pipfile", "lockfile"),
    ), patterns=(("pylock.", ".toml", False, "pylock", "lockfile", "pylock.toml"),),
        manifests=("pyproject.toml", "Pipfile"), fold="pep503", hooks="python_project"),
    "crates": Ecosystem("crates", (("Cargo.lock", "cargo_lock", "lockfile"),),
                        manifests=("Cargo.toml",), fold="cargo"),
    "go": Ecosystem("go", (("go.work", "go_mod", "lockfile"), ("go.mod", "go_mod", "lockfile")),
                    manifests=("go.sum",), replaced="replaced by"),
    "maven": Ecosystem("maven", (
        ("gradle.lockfile", "gradle_lock", "lockfile"),
        ("gradle/libs.versions.toml", "gradle_catalog", "lockfile"),
        ("pom.xml", "pom", "lockfile"),
    ), manifests=("build.gradle", "build.gradle.kts")),
    "rubygems": Ecosystem("rubygems", (("Gemfile.lock", "gemfile_lock", "lockfile"),
                                       ("gems.locked", "gemfile_lock", "lockfile"))),
    "nuget": Ecosystem("nuget", (
        ("packages.lock.json", "nuget_lock", "lockfile"),
        ("Directory.Packages.props", "msbuild", "lockfile"),
    ), patterns=tuple(("", suffix, True, "msbuild", "lockfile", "packages.lock.json")
                      for suffix in (".csproj", ".fsproj", ".vbproj")), fold="lower"),
    "hex": Ecosystem("hex", (("mix.lock", "mix_lock", "lockfile"),), manifests=("mix.exs",), fold="lower"),
    "packagist": Ecosystem("packagist", (("composer.lock", "composer_lock", "lockfile"),),
                           manifests=("composer.json",), fold="lower"),
    "conda": Ecosystem("conda", (
        ("pixi.lock", "pixi", "lockfile"),
        ("conda-lock.yml", "conda_lock", "lockfile"),
        ("environment.yml", "environment_yml", "lockfile"),
    ), manifests=("pixi.toml", "pyproject.toml"), fold="lower", hooks="conda_project"),
    "cran": Ecosystem("cran", (("renv.lock", "renv", "lockfile"),), manifests=("DESCRIPTION",)),
    "pub": Ecosystem("pub", (("pubspec.lock", "pubspec", "lockfile"),), manifests=("pubspec.yaml",)),
}


def ecosystem(registry: str) -> Ecosystem | None:
    """The row of ``registry`` (canonical prefix), or None for a registry without lockfiles."""
    return TABLE.get(registry)


def hook(row: Ecosystem, name: str):
    """The hook ``name`` of ``row``: its hooks module's, else the declared default."""
    return _hook(row.load_hooks(), name)
