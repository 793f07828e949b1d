"""The installed copy, when no lockfile names the package (lockfiles.md §9).

npm: ``node_modules/<name>/package.json`` in the start directory and each directory above it
that the walk visited, as Node resolves ``require(name)`` (§9.1); a folder whose ``name``
differs is an alias. PyPI: the project's venv (§9.2) — ``$VIRTUAL_ENV`` when it lies inside the
project, else ``.venv`` then ``venv`` (each only with a ``pyvenv.cfg``) — and its
``*.dist-info`` folders (``METADATA`` header ``Name``/``Version``; ``direct_url.json`` marks git
and local installs). The venv also supplies the interpreter version for marker forks.
"""

from __future__ import annotations

import os

from ._common import REGISTRY, git_commit, is_regular_file


def _rel(path: str, start: str) -> str:
    return os.path.relpath(path, start).replace(os.sep, "/")


def npm_installed(name: str, dirs: list[str], start: str, warnings: list[str]):
    from ._common import read_json_object
    from .locked import Locked
    for d in dirs:
        path = os.path.join(d, "node_modules", *name.split("/"), "package.json")
        try:
            os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as e:
            from .locked import reason_of
            warnings.append(f"{_rel(path, start)}: skipped ({reason_of(e)})")
            continue
        manifest = read_json_object(path)  # {} for anything but a regular JSON file
        version = manifest.get("version")
        if not isinstance(version, str):
            warnings.append(f"{_rel(path, start)}: skipped (no version in it)")
            continue
        real = manifest.get("name") if isinstance(manifest.get("name"), str) else name
        own: list[str] = []
        if real != name:
            own.append(f"{name} is an alias of {real}@{version} in {_rel(path, start)}")
        return Locked(real, version, "installed", _rel(path, start),
                      f"node_modules/{name}", [], own)
    return None


class PythonEnv:
    """The project's venv (may be absent): its site-packages and interpreter version."""

    def __init__(self, venv: str | None, site_packages: list[str], version: tuple[int, ...]) -> None:
        self.venv, self.site_packages, self.version = venv, site_packages, version
        self._dists: dict[str, tuple[str, str]] | None = None

    def state_files(self) -> list[str]:
        if self.venv is None:
            return []
        return [os.path.join(self.venv, "pyvenv.cfg"), *self.site_packages]

    def dists(self) -> dict[str, tuple[str, str]]:
        """PEP 503 name -> (version, dist-info folder), read from the folder names."""
        if self._dists is None:
            from ..registries.pypi import pep503
            self._dists = {}
            for sp in self.site_packages:
                try:
                    entries = sorted(os.listdir(sp))
                except OSError:
                    continue
                for entry in entries:
                    for suffix in (".dist-info", ".egg-info"):
                        if entry.endswith(suffix):
                            stem = entry[:-len(suffix)]
                            dist, _, version = stem.partition("-")
                            version = version.split("-py", 1)[0]
                            self._dists.setdefault(pep503(dist), (version, os.path.join(sp, entry)))
        return self._dists

    def installed_version(self, name: str) -> str | None:
        hit = self.dists().get(name)
        return hit[0] if hit else None

    def marker_env(self) -> dict[str, str]:
        import sys
        major, minor, micro = (*self.version, 0, 0)[:3]
        return {
            "python_version": f"{major}.{minor}",
            "python_full_version": f"{major}.{minor}.{micro}",
            "sys_platform": sys.platform,
            "platform_machine": os.uname().machine if hasattr(os, "uname") else "",
            "platform_system": os.uname().sysname if hasattr(os, "uname") else "Windows",
            "os_name": os.name,
            "implementation_name": sys.implementation.name,
            "platform_python_implementation": {"cpython": "CPython", "pypy": "PyPy"}.get(
                sys.implementation.name, sys.implementation.name),
            "implementation_version": f"{major}.{minor}.{micro}",
            "extra": "",
        }


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def python_env(dirs: list[str], root: str) -> PythonEnv:
    import sys
    candidates = []
    active = os.environ.get("VIRTUAL_ENV")
    # The active venv counts only inside a real project root: a walk that found no project
    # ends at the filesystem root, and every venv on the machine is "inside" that.
    if active and root != os.path.abspath(os.sep) and _inside(os.path.abspath(active), root):
        candidates.append(os.path.abspath(active))
    for d in dirs:
        candidates += [os.path.join(d, ".venv"), os.path.join(d, "venv")]
        if d == root:
            break
    for venv in candidates:
        cfg = os.path.join(venv, "pyvenv.cfg")
        try:
            if not is_regular_file(cfg):
                continue
            with open(cfg, encoding="utf-8", errors="replace") as f:
                text = f.read(65536)
        except OSError:
            continue
        version: tuple[int, ...] = tuple(sys.version_info[:3])
        for line in text.splitlines():
            key, sep, value = line.partition("=")
            if sep and key.strip() in ("version_info", "version"):
                parts = value.strip().split(".")
                nums = []
                for p in parts[:3]:
                    digits = "".join(ch for ch in p if ch.isdigit())
                    if not digits:
                        break
                    nums.append(int(digits))
                if len(nums) >= 2:
                    version = tuple(nums)
                    if key.strip() == "version_info":
                        break
        return PythonEnv(venv, _site_packages(venv), version)
    return PythonEnv(None, [], tuple(sys.version_info[:3]))


def _site_packages(venv: str) -> list[str]:
    out = []
    for lib in ("lib", "lib64"):
        try:
            names = sorted(os.listdir(os.path.join(venv, lib)))
        except OSError:
            continue
        for n in names:
            if n.startswith("python3"):
                sp = os.path.join(venv, lib, n, "site-packages")
                if os.path.isdir(sp) and sp not in out and os.path.realpath(sp) not in map(os.path.realpath, out):
                    out.append(sp)
    windows = os.path.join(venv, "Lib", "site-packages")
    if os.path.isdir(windows):
        out.append(windows)
    return out


def python_installed(name: str, env: PythonEnv | None, start: str, warnings: list[str]):
    from .locked import Locked
    if env is None or env.venv is None:
        return None
    hit = env.dists().get(name)
    if hit is None:
        return None
    version, folder = hit
    meta = _metadata_version(os.path.join(folder, "METADATA")) or \
        _metadata_version(os.path.join(folder, "PKG-INFO"))
    if meta:
        version = meta
    source, ref = REGISTRY, None
    direct = os.path.join(folder, "direct_url.json")
    try:
        with open(direct, encoding="utf-8") as f:
            text = f.read(65536) if is_regular_file(direct) else ""
    except (OSError, UnicodeDecodeError):
        text = ""
    own: list[str] = []
    rel = _rel(folder, start)
    if text:
        import json
        try:
            info = json.loads(text)
        except ValueError:
            info = {}
        if isinstance(info, dict):
            if isinstance(info.get("vcs_info"), dict):
                source = "git"
                commit = info["vcs_info"].get("commit_id")
                ref = commit if isinstance(commit, str) else git_commit(str(info.get("url", "")))
            elif isinstance(info.get("dir_info"), dict) or str(info.get("url", "")).startswith("file:"):
                source, ref = "directory", str(info.get("url", "")) or None
            elif isinstance(info.get("archive_info"), dict):
                source, ref = "url", str(info.get("url", "")) or None
    if source != REGISTRY:
        what = "a git install" if source == "git" else f"a local {source} install"
        detail = f" (commit {ref})" if source == "git" and ref else f" ({ref})" if ref else ""
        own.append(f"{name} is {what}{detail} in {rel}: no registry version")
        return Locked(name, None, "installed", rel, os.path.basename(folder), [], own, source, ref)
    return Locked(name, version, "installed", rel, os.path.basename(folder), [], own)


def _metadata_version(path: str) -> str | None:
    try:
        if not is_regular_file(path):
            return None
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.strip():
                    break  # the headers end at the first blank line
                if line.startswith("Version:"):
                    return line[len("Version:"):].strip()
    except OSError:
        return None
    return None
