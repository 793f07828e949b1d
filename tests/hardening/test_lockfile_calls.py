"""Hostile and broken lockfiles of each format never fail a call (issue 23's Done-when), on the surfaces.

Every file the seven new ecosystems read (tests/support/broken.py's shapes of it) sits in a project
whose package the fake registries serve at the locked version and a newer latest. Over MCP,
``list_files`` with that project still answers (the locked version where a good lockfile remains
beside a broken manifest, else the locked or the latest one), with one-line warnings, and
``list_deps`` answers too; the CLI gives the same bytes for each format's truncated file.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from codenav import contract
from tests.fakes.crates import FakeCrates
from tests.fakes.go import FakeGoProxy
from tests.fakes.hex import FakeHex
from tests.fakes.http import FakeServer
from tests.fakes.maven import FakeMaven
from tests.fakes.nuget import FakeNuget
from tests.fakes.packagist import FakePackagist
from tests.fakes.rubygems import FakeRubygems
from tests.support.broken import shapes
from tests.support.cli import isolated_subprocess_env
from tests.support.mcp import McpSession, check

CARGO_LOCK = ('version = 4\n\n[[package]]\nname = "app"\nversion = "0.1.0"\ndependencies = [\n "demo",\n]\n\n'
              '[[package]]\nname = "demo"\nversion = "1.0.0"\nsource = "registry+https://github.com/rust-lang/'
              'crates.io-index"\nchecksum = "c8e3592472072e6e22e0a54d5904d9febf8508f65fb8552499a1abc7d1078c3a"\n')
GO_MOD = "module example.com/app\n\ngo 1.22\n\nrequire example.com/alpha v1.0.0\n"
GO_SUM = "example.com/alpha v1.0.0 h1:x=\nexample.com/alpha v1.0.0/go.mod h1:y=\n"
GEMFILE_LOCK = ("GEM\n  remote: https://rubygems.org/\n  specs:\n    demo (1.0.0)\n\nPLATFORMS\n  ruby\n\n"
                "DEPENDENCIES\n  demo\n\nBUNDLED WITH\n   2.5.16\n")
COMPOSER_LOCK = ('{\n    "packages": [\n        {"name": "acme/demo", "version": "1.0.0", "dist": {"type": "zip", '
                 '"url": "x"}}\n    ],\n    "packages-dev": []\n}\n')
MIX_LOCK = ('%{\n  "demo": {:hex, :demo, "1.0.0", "b9226785a9aa77b6857ca22832cffa5d5011a667207eb2a0ad56adb5db443b8a", '
            '[:mix], [], "hexpm", "c5eb0cab91f094599f94d55bc63409236a8ec69a21a67814529e8d5f6cc90b3b"},\n}\n')
PACKAGES_LOCK = ('{\n  "version": 1,\n  "dependencies": {\n    "net8.0": {\n      "Demo": {\n        "type": '
                 '"Direct",\n        "requested": "[1.0.0, )",\n        "resolved": "1.0.0",\n        '
                 '"contentHash": "abc="\n      }\n    }\n  }\n}')
CSPROJ = ('<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup><TargetFramework>net8.0</TargetFramework>'
          '</PropertyGroup>\n  <ItemGroup>\n    <PackageReference Include="Demo" Version="1.0.0" />\n'
          '  </ItemGroup>\n</Project>\n')
PROPS = ('<Project>\n  <PropertyGroup><ManagePackageVersionsCentrally>true</ManagePackageVersionsCentrally>'
         '</PropertyGroup>\n  <ItemGroup>\n    <PackageVersion Include="Demo" Version="1.0.0" />\n'
         '  </ItemGroup>\n</Project>\n')
POM = ('<?xml version="1.0" encoding="UTF-8"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
       '  <modelVersion>4.0.0</modelVersion>\n  <groupId>com.acme</groupId>\n  <artifactId>app</artifactId>\n'
       '  <version>1.0</version>\n  <properties><demo.version>1.0.0</demo.version></properties>\n'
       '  <dependencies>\n    <dependency><groupId>org.example</groupId><artifactId>demo</artifactId>'
       '<version>${demo.version}</version></dependency>\n  </dependencies>\n</project>\n')
GRADLE_LOCKFILE = ("# This is a Gradle generated file for dependency locking.\n# Manual edits can break the build "
                   "and are not advised.\n# This file is expected to be part of source control.\n"
                   "org.example:demo:1.0.0=compileClasspath,runtimeClasspath\nempty=annotationProcessor\n")
CATALOG = ('[versions]\ndemo = "1.0.0"\n\n[libraries]\ndemo = { module = "org.example:demo", version.ref = "demo" }\n'
           '\n[plugins]\nkotlin = { id = "org.jetbrains.kotlin.jvm", version = "2.0.0" }\n')
GO_WORK = "go 1.22\n\nuse ./app\n"

# registry -> (the package, its locked version, the newer latest)
PACKAGES = {"crates": ("demo", "1.0.0", "1.1.0"), "go": ("example.com/alpha", "v1.0.0", "v1.1.0"),
            "maven": ("org.example:demo", "1.0.0", "1.1.0"), "rubygems": ("demo", "1.0.0", "1.1.0"),
            "nuget": ("Demo", "1.0.0", "1.1.0"), "hex": ("demo", "1.0.0", "1.1.0"),
            "packagist": ("acme/demo", "1.0.0", "1.1.0")}
# (registry, the broken file, its syntax, good files beside it, the directory the call starts in)
FORMATS = [
    ("crates", "Cargo.lock", CARGO_LOCK, "toml", {}, "."),
    ("crates", "Cargo.toml", '[package]\nname = "app"\nversion = "0.1.0"\n', "toml", {"Cargo.lock": CARGO_LOCK}, "."),
    ("go", "go.mod", GO_MOD, "lines", {"go.sum": GO_SUM}, "."),
    ("go", "go.sum", GO_SUM, "lines", {"go.mod": GO_MOD}, "."),
    ("go", "go.work", GO_WORK, "lines", {"app/go.mod": GO_MOD}, "app"),
    ("maven", "pom.xml", POM, "xml", {}, "."),
    ("maven", "gradle.lockfile", GRADLE_LOCKFILE, "lines", {}, "."),
    ("maven", "gradle/libs.versions.toml", CATALOG, "toml", {}, "."),
    ("rubygems", "Gemfile.lock", GEMFILE_LOCK, "lines", {}, "."),
    ("rubygems", "gems.locked", GEMFILE_LOCK, "lines", {}, "."),
    ("nuget", "packages.lock.json", PACKAGES_LOCK, "json", {}, "."),
    ("nuget", "Directory.Packages.props", PROPS, "xml", {"App.csproj": CSPROJ.replace(' Version="1.0.0"', "")}, "."),
    ("nuget", "App.csproj", CSPROJ, "xml", {}, "."),
    ("hex", "mix.lock", MIX_LOCK, "elixir", {}, "."),
    ("hex", "mix.exs", 'defmodule App.MixProject do\n  defp deps do\n    [{:demo, "~> 1.0"}]\n  end\nend\n', "elixir",
     {"mix.lock": MIX_LOCK}, "."),
    ("packagist", "composer.lock", COMPOSER_LOCK, "json", {}, "."),
    ("packagist", "composer.json", '{"require": {"acme/demo": "^1.0"}}', "json", {"composer.lock": COMPOSER_LOCK}, "."),
]
CASES = [(fmt, shape) for fmt in FORMATS for shape in shapes(fmt[2], fmt[3])]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The seven fake registries, each serving its package at the locked and the latest version, and
    one `codenav mcp --json` session configured for them."""
    base = tmp_path_factory.mktemp("lockfile-calls")
    with contextlib.ExitStack() as stack:
        server = {r: stack.enter_context(FakeServer()) for r in PACKAGES}
        fakes = {"crates": FakeCrates(server["crates"]), "go": FakeGoProxy(server["go"]),
                 "maven": FakeMaven(server["maven"]), "rubygems": FakeRubygems(server["rubygems"]),
                 "nuget": FakeNuget(server["nuget"]), "hex": FakeHex(server["hex"]),
                 "packagist": FakePackagist(server["packagist"])}
        for registry, (name, *versions) in PACKAGES.items():
            for version in versions:
                file = {"go": "a.go", "packagist": "src/A.php"}.get(registry, "lib/demo.txt")
                extra = {"extra": {"require": {}}} if registry == "packagist" else {}
                fakes[registry].publish(name, version, {file: f"// {version}\n".encode()}, **extra)
        env = isolated_subprocess_env(base)
        env.update({"CODENAV_CRATES_INDEX": "sparse+" + fakes["crates"].url, "CODENAV_GOPROXY": fakes["go"].url,
                    "CODENAV_GOSUMDB": fakes["go"].gosumdb(), "CODENAV_MAVEN_REPOSITORY": fakes["maven"].url,
                    "CODENAV_RUBYGEMS_SOURCE": fakes["rubygems"].url, "CODENAV_NUGET_SOURCE": fakes["nuget"].url,
                    "CODENAV_HEX_API": fakes["hex"].api_url, "CODENAV_HEX_REPO": fakes["hex"].repo_url,
                    "CODENAV_COMPOSER_REPOSITORY": fakes["packagist"].url})
        session = McpSession(env)
        stack.callback(session.close)
        yield {"env": env, "mcp": session}


def broken_project(base: Path, fmt: tuple, shape: str) -> Path:
    registry, path, good, syntax, beside, _ = fmt
    proj = base / "proj"
    for name, text in beside.items():
        (proj / name).parent.mkdir(parents=True, exist_ok=True)
        (proj / name).write_text(text)
    (proj / path).parent.mkdir(parents=True, exist_ok=True)
    (proj / path).write_bytes(shapes(good, syntax)[shape])
    (proj / ".git").mkdir()
    return proj


@pytest.mark.parametrize(("fmt", "shape"), CASES, ids=[f"{f[0]}:{f[1]}:{s}" for f, s in CASES])
def test_a_broken_file_never_fails_list_files_or_list_deps(world, tmp_path, fmt, shape):
    """With the file broken, list_files answers the locked version (a good lockfile beside) or the
    locked or latest one, its warnings one line each, and list_deps answers as well."""
    registry, path, _, _, beside, start = fmt
    name, locked, latest = PACKAGES[registry]
    proj = broken_project(tmp_path, fmt, shape)
    result = world["mcp"].call("list_files", {"registry": registry, "package_name": name,
                                              "project_dir": str(proj / start)})
    assert result["isError"] is False, result["content"][0]["text"][:500]
    payload = result["structuredContent"]
    contract.validator("list_files", "outputSchema").validate(payload)
    expected = {locked} if any(f.endswith(("lock", ".lock", ".locked")) for f in beside) else {locked, latest}
    assert payload["target"]["version"] in expected
    assert all("\n" not in w and len(w) < 500 for w in payload.get("warnings", []))
    deps = world["mcp"].call("list_deps", {"project_dir": str(proj / start), "all": True})
    assert deps["isError"] is False, deps["content"][0]["text"][:500]
    contract.validator("list_deps", "outputSchema").validate(deps["structuredContent"])
    assert all("\n" not in w and len(w) < 500 for w in deps["structuredContent"].get("warnings", []))


# A file no parser can take as it is: its warning names it. The others may read as a valid file
# that locks less (a cut-short go.mod, a comments-only gradle.lockfile, an empty catalog) and are
# held only to never failing; a manifest beside a good lockfile only marks direct dependencies.
UNREADABLE = ("binary", "nul bytes", "wrong types", "huge line")
NAMED = [(fmt, shape) for fmt, shape in CASES if shape in UNREADABLE and not fmt[4].keys() & {"Cargo.lock", "mix.lock",
                                                                                                "composer.lock"}]


@pytest.mark.parametrize(("fmt", "shape"), NAMED, ids=[f"{f[0]}:{f[1]}:{s}" for f, s in NAMED])
def test_a_file_no_parser_can_take_is_named_in_a_warning_on_both_tools(world, tmp_path, fmt, shape):
    """list_files and list_deps each carry a warning naming the broken file (it was skipped, or
    some of its entries were), never a silent answer from what is left."""
    registry, path, _, _, _, start = fmt
    proj = broken_project(tmp_path, fmt, shape)
    arguments = {"registry": registry, "package_name": PACKAGES[registry][0], "project_dir": str(proj / start)}
    files = world["mcp"].call("list_files", arguments)["structuredContent"].get("warnings", [])
    deps = world["mcp"].call("list_deps", {"project_dir": str(proj / start), "all": True})["structuredContent"]
    name = path.rpartition("/")[2]
    for warnings in (files, deps.get("warnings", [])):
        assert any(name in w for w in warnings), warnings


@pytest.mark.parametrize("fmt", FORMATS, ids=[f"{f[0]}:{f[1]}" for f in FORMATS])
def test_the_cli_answers_a_truncated_file_as_mcp_does(world, tmp_path, fmt):
    """`codenav files` and `codenav deps` print, for a project with a truncated file, exactly the MCP answer."""
    registry, start = fmt[0], fmt[5]
    proj = str(broken_project(tmp_path, fmt, "truncated") / start)
    name = PACKAGES[registry][0]
    check(world, "list_files", {"registry": registry, "package_name": name, "project_dir": proj},
          ["files", f"{registry}:{name}", "--project", proj])
    check(world, "list_deps", {"project_dir": proj}, ["deps", "--project", proj])
