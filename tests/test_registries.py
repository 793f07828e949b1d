"""The registry table and its protocol: one module per registry, light at import (SPEC §3)."""

from __future__ import annotations

import ast
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from codenav import archive, registries
from codenav.cache import download
from codenav.errors import CodenavError
from codenav.registries.artifact import Artifact, Unpack, Verification
from tests.fakes.http import FakeServer, Reply
from tests.support.cli import ROOT

PROTOCOL = ("PREFIX", "ALIASES", "WHAT", "ENDPOINT_VARIABLE", "normalize_name", "is_exact", "endpoint",
            "resolve", "version_key")


def test_the_schema_registry_enum_is_the_table():
    """schemas/defs.json's `registry` enum lists exactly the table's prefixes, in its order."""
    defs = json.loads((ROOT / "schemas" / "defs.json").read_text())
    enum = defs["$defs"]["registry"]["enum"] if "$defs" in defs else defs["registry"]["enum"]
    assert enum == list(registries.names())


@pytest.mark.parametrize("prefix", registries.names())
def test_each_registry_module_provides_the_protocol(prefix):
    """Every table line names a module with the whole registry protocol and its own prefix."""
    module = registries.load(prefix)
    missing = [name for name in PROTOCOL if not hasattr(module, name)]
    assert missing == []
    assert module.PREFIX == prefix
    assert all(registries.canonical(alias) == prefix for alias in module.ALIASES)
    assert set(module.ALIASES) == {a for a, p in registries.ALIASES.items() if p == prefix}


def _module_level_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    found = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append("." * node.level + (node.module or ""))
    return found


@pytest.mark.parametrize("prefix", registries.names())
def test_a_registry_module_imports_only_os_at_load(prefix):
    """A registry module imports only `os` (and light codenav modules) at module level, and
    importing it in a fresh interpreter loads no json, re, urllib, typing or requests."""
    module = registries.TABLE[prefix]
    imports = _module_level_imports(ROOT / "codenav" / "registries" / f"{module}.py")
    assert [name for name in imports if not name.startswith(".")] == ["__future__", "os"]
    code = (f"import sys; before = set(sys.modules); import codenav.registries.{module}; "
            "print(' '.join(sorted(set(sys.modules) - before)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    loaded = {name for name in out.stdout.split() if not name.startswith("codenav")}
    assert loaded & {"json", "re", "urllib", "urllib.parse", "typing", "requests", "pathlib", "html"} == set()


def test_an_alias_prefix_is_accepted_and_echoed_canonical(monkeypatch):
    """A prefix in ALIASES parses to its canonical registry (the table grows aliases by data)."""
    from codenav import targets

    monkeypatch.setitem(registries.ALIASES, "node", "npm")
    assert targets.parse_spec("node:left-pad@1.3.0")["registry"] == "npm"
    assert targets.looks_like_spec("node:x") and not targets.looks_like_spec("nodex:x")


def _tar(members: dict[str, bytes], mode: str = "w") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_an_inner_member_is_unpacked_instead_of_the_outer_archive(tmp_path):
    """A .gem-shaped artifact (a plain tar holding data.tar.gz) yields the inner archive's files."""
    inner = _tar({"lib/gem.rb": b"module Gem; end\n", "README.md": b"hi\n"}, "w:gz")
    outer = tmp_path / "demo.gem"
    outer.write_bytes(_tar({"metadata.gz": b"\x1f\x8b not read", "data.tar.gz": inner, "checksums.yaml.gz": b"x"}))
    archive.extract_member(outer, "data.tar.gz", tmp_path / "inner")
    (tmp_path / "tree").mkdir()
    got = archive.extract(tmp_path / "inner", tmp_path / "tree", fmt="tar")
    assert [f.path for f in got.files] == ["README.md", "lib/gem.rb"]
    assert (tmp_path / "tree" / "lib" / "gem.rb").read_bytes() == b"module Gem; end\n"


def test_a_missing_inner_member_is_an_unsafe_archive(tmp_path):
    """An outer archive without the named member is refused, not an empty package."""
    outer = tmp_path / "demo.gem"
    outer.write_bytes(_tar({"metadata.gz": b"x"}))
    with pytest.raises(CodenavError) as info:
        archive.extract_member(outer, "data.tar.gz", tmp_path / "inner")
    assert info.value.code == "UNSAFE_ARCHIVE" and "data.tar.gz" in info.value.message


def test_extracted_files_carry_the_sha256_of_their_bytes(tmp_path):
    """Extraction hashes each file while writing it (no second read), links excepted."""
    import hashlib

    data = {"a.txt": b"alpha\n", "b/c.bin": bytes(range(256)) * 300}
    path = tmp_path / "x.tar"
    path.write_bytes(_tar(data))
    (tmp_path / "tree").mkdir()
    got = archive.extract(path, tmp_path / "tree", fmt="tar")
    assert {f.path: f.sha256 for f in got.files} == {k: hashlib.sha256(v).hexdigest() for k, v in data.items()}


def _artifact(url: str, verification: Verification) -> Artifact:
    return Artifact("npm", "demo", "1.0.0", "demo-1.0.0.tgz", url, Unpack("tar", strip_components=1), verification)


def test_a_digest_verification_refuses_other_bytes(tmp_path):
    """A `digest` verification is checked while the bytes stream in: other bytes are INTEGRITY_ERROR."""
    with FakeServer() as server:
        server.route("GET", "/demo.tgz", lambda handler: Reply(200, b"served bytes"))
        artifact = _artifact(server.url + "/demo.tgz", Verification("digest", "sha256", "0" * 64, "test"))
        with pytest.raises(CodenavError) as info:
            download.fetch_artifact(artifact, tmp_path / "dl")
    assert info.value.code == "INTEGRITY_ERROR"


def test_a_none_verification_downloads_without_a_digest(tmp_path):
    """A `none` verification (a registry that publishes no digest) downloads the bytes as served."""
    with FakeServer() as server:
        server.route("GET", "/demo.tgz", lambda handler: Reply(200, b"served bytes"))
        artifact = _artifact(server.url + "/demo.tgz", Verification("none", source="no digest is published"))
        download.fetch_artifact(artifact, tmp_path / "dl")
    assert (tmp_path / "dl").read_bytes() == b"served bytes"
    assert artifact.key.startswith("npm/demo/1.0.0-")  # keyed by the URL's digest instead
