"""A file's language and type (SPEC §2.3) are what the plain reading of the rules gives.

codenav/text.py decides them with the fewest string operations it can (they run once per file
of a package at indexing, 43,000 times for some); the reference here is the straightforward
reading, with ``posixpath``, it replaced. Both must agree on every path of this repository and on
names chosen to sit on each rule's edge.
"""

from __future__ import annotations

import itertools
import posixpath
import subprocess
from pathlib import Path

import pytest

from codenav import text

ROOT = Path(__file__).resolve().parent.parent


def _reference_suffix(name: str) -> str:
    if name.endswith(".d.ts"):
        return ".d.ts"
    return posixpath.splitext(name)[1].lower()


def reference_language(path: str) -> str | None:
    name = posixpath.basename(path)
    if name in text._NAMES:
        return text._NAMES[name]
    stem = name.split(".", 1)[0].upper()
    if stem in ("LICENSE", "LICENCE", "README", "CHANGELOG") and _reference_suffix(name) in ("", ".txt"):
        return "Text"
    return text._LANGUAGES.get(_reference_suffix(name))


def reference_file_type(path: str, binary: bool, symlink: bool = False) -> str:
    """source, test, doc, config, data, binary or symlink; from the path alone."""
    if symlink:
        return "symlink"
    if binary:
        return "binary"
    lower = path.lower()
    name = posixpath.basename(lower)
    suffix = _reference_suffix(name)
    if name in text._CONFIG_NAMES:
        return "config"
    if name.startswith(text._DOC_NAMES) or suffix in text._DOC_EXT:
        return "doc"
    segments = lower.split("/")
    if any(seg in ("test", "tests", "__tests__", "spec", "testing") for seg in segments[:-1]) or (
        name.startswith("test_") or ".test." in name or ".spec." in name or name.endswith("_test.py")
        or name.endswith("_test.go") or name == "conftest.py"
    ):
        return "test"
    if suffix in text._CONFIG_EXT or name.startswith(".") or name.endswith("rc"):
        return "config"
    if suffix in text._DATA_EXT:
        return "data"
    if reference_language(path) is not None:
        return "source"
    return "other"


NAMES = ["README", "readme.md", "README.txt", "LICENSE", "License.rst", "LICENCE.txt", "CHANGELOG", "changes.md",
         "Makefile", "makefile", "Dockerfile", ".gitignore", ".npmignore", ".bashrc", ".npmrc", "..a", "...", "a.",
         ".", "x.d.ts", "x.D.TS", "x.d.mts", "index.js", "INDEX.JS", "a.test.js", "a.spec.ts", "test_x.py",
         "x_test.py", "x_test.go", "conftest.py", "setup.py", "setup.cfg", "pyproject.toml", "package.json",
         "tsconfig.json", "yarn.lock", "data.csv", "map.js.map", "icon.svg", "PKG-INFO", "METADATA", "RECORD",
         "WHEEL", "entry_points.txt", "notes.TXT", "x.tar.gz", "noext", "x.pyi", "x.rs", "babelrc", "a.b.c.py",
         "AUTHORS", "authors.txt", "NOTICE", "x.proto", "weird name.js", "caf\u00e9.py"]
DIRS = ["", "src/", "test/", "Tests/", "a/__tests__/b/", "spec/", "specs/", "testing/x/", "lib/test.d/", "TESTING/"]


def _repository_paths() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    return listed.stdout.split() if listed.returncode == 0 else []


@pytest.mark.parametrize("binary, symlink", [(False, False), (True, False), (False, True)])
def test_language_and_type_follow_the_reference_reading(binary: bool, symlink: bool) -> None:
    """On every repository path and every edge name in every kind of directory, both agree."""
    paths = [d + n for d, n in itertools.product(DIRS, NAMES)] + _repository_paths()
    assert len(paths) > 600
    ours = [(text.language_for(p), text.file_type_for(p, binary, symlink)) for p in paths]
    theirs = [(reference_language(p), reference_file_type(p, binary, symlink)) for p in paths]
    assert ours == theirs
