"""The review's parts on their own (issue 24): each manifest format's dependency changes against a
direct comparison of the two manifests, changelog heading styles, CVSS bands, native-binary magic."""

from __future__ import annotations

import json
import tomllib
from xml.etree import ElementTree

import pytest

from codenav.review import advisories, changelog, dependencies, manifests, supply
from codenav.review.side import Side
from tests.support.entries import DictEntry


def _dependencies(tmp_path, old: dict[str, bytes], new: dict[str, bytes]) -> dict:
    a = Side(DictEntry(tmp_path / "a", old))
    b = Side(DictEntry(tmp_path / "b", new))
    return dependencies.compute(manifests.read(a), manifests.read(b))


def _seen(part: dict) -> set[tuple]:
    out = {(g, d["kind"], d["name"], d.get("condition", ""), d["range"]) for g in ("added", "removed") for d in part[g]}
    return out | {("changed", d["kind"], d["name"], d.get("condition", ""), f"{d['from']}->{d['to']}")
                  for d in part["changed"]}


def _direct(a: dict[tuple, str], b: dict[tuple, str]) -> set[tuple]:
    return ({("added", *k, b[k]) for k in b.keys() - a.keys()} | {("removed", *k, a[k]) for k in a.keys() - b.keys()}
            | {("changed", *k, f"{a[k]}->{b[k]}") for k in a.keys() & b.keys() if a[k] != b[k]})


CARGO = ["""[package]
name = "demo"
version = "1.0.0"
license = "MIT"

[dependencies]
serde = "1.0"
log = { version = "0.4", optional = true }

[dev-dependencies]
tempfile = "3"

[target.'cfg(unix)'.dependencies]
libc = "0.2"
""", """[package]
name = "demo"
version = "2.0.0"
license = "MIT OR Apache-2.0"
build = "build.rs"

[dependencies]
serde = { version = "1.0.200", features = ["derive"] }
log = { version = "0.4", optional = true }
anyhow = "1"

[build-dependencies]
cc = "1"

[target.'cfg(unix)'.dependencies]
libc = "0.2.150"
"""]


def test_cargo_toml_changes_equal_a_direct_comparison(tmp_path):
    """Every dependency table of Cargo.toml (targets included), read with tomllib, compared directly."""
    def rows(text):
        data = tomllib.loads(text)
        out = {}
        tables = [("", data)] + [(f"target {k}", v) for k, v in data.get("target", {}).items()]
        for cond, table in tables:
            for section, kind in (("dependencies", "runtime"), ("dev-dependencies", "dev"), ("build-dependencies", "build")):
                for name, spec in table.get(section, {}).items():
                    version = spec["version"] if isinstance(spec, dict) else spec
                    optional = isinstance(spec, dict) and spec.get("optional")
                    out[("optional" if optional else kind, name, cond)] = version
        return out

    part = _dependencies(tmp_path, {"Cargo.toml": CARGO[0].encode()}, {"Cargo.toml": CARGO[1].encode(),
                                                                        "build.rs": b"fn main() {}\n"})
    assert _seen(part) == _direct(rows(CARGO[0]), rows(CARGO[1]))
    assert part["manifests"] == ["Cargo.toml"]


def _pom(deps: list[tuple[str, str, str, str]]) -> bytes:
    body = "".join(f"<dependency><groupId>{g}</groupId><artifactId>{a}</artifactId><version>{v}</version>"
                   f"{f'<scope>{s}</scope>' if s else ''}</dependency>" for g, a, v, s in deps)
    return (f'<?xml version="1.0"?><project xmlns="http://maven.apache.org/POM/4.0.0"><groupId>org.demo</groupId>'
            f"<artifactId>demo</artifactId><version>1</version><dependencies>{body}</dependencies></project>").encode()


def test_pom_and_nuspec_changes_equal_a_direct_comparison(tmp_path):
    """POM dependencies by scope and nuspec dependencies by target framework, read with ElementTree."""
    old_pom = _pom([("org.slf4j", "slf4j-api", "1.7.36", ""), ("junit", "junit", "4.13", "test"),
                    ("javax.servlet", "servlet-api", "2.5", "provided")])
    new_pom = _pom([("org.slf4j", "slf4j-api", "2.0.16", ""), ("org.junit.jupiter", "junit-jupiter", "5.10.0", "test")])
    scopes = {"": "runtime", "compile": "runtime", "test": "dev", "provided": "peer", "runtime": "runtime"}

    def pom_rows(data):
        ns = {"m": "http://maven.apache.org/POM/4.0.0"}
        root = ElementTree.fromstring(data)
        return {(scopes[d.findtext("m:scope", "", ns)], f"{d.findtext('m:groupId', '', ns)}:{d.findtext('m:artifactId', '', ns)}",
                 ""): d.findtext("m:version", "", ns) for d in root.iterfind("m:dependencies/m:dependency", ns)}

    part = _dependencies(tmp_path / "pom", {"pom.xml": old_pom}, {"pom.xml": new_pom})
    assert _seen(part) == _direct(pom_rows(old_pom), pom_rows(new_pom))

    def nuspec(groups: dict[str, list[tuple[str, str]]]) -> bytes:
        body = "".join(f'<group targetFramework="{tf}">' + "".join(f'<dependency id="{i}" version="{v}" />' for i, v in deps)
                       + "</group>" for tf, deps in groups.items())
        return (f'<?xml version="1.0"?><package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd">'
                f"<metadata><id>Demo</id><version>1.0.0</version><dependencies>{body}</dependencies></metadata></package>"
                ).encode()

    old_nu = nuspec({"net6.0": [("Newtonsoft.Json", "13.0.1")], "netstandard2.0": [("System.Memory", "4.5.4")]})
    new_nu = nuspec({"net8.0": [("Newtonsoft.Json", "13.0.3")], "netstandard2.0": [("System.Memory", "4.5.5")]})

    def nu_rows(data):
        ns = {"n": "http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd"}
        root = ElementTree.fromstring(data)
        return {("runtime", d.get("id"), g.get("targetFramework")): d.get("version")
                for g in root.iterfind("n:metadata/n:dependencies/n:group", ns) for d in g.iterfind("n:dependency", ns)}

    part = _dependencies(tmp_path / "nu", {"Demo.nuspec": old_nu}, {"Demo.nuspec": new_nu})
    assert _seen(part) == _direct(nu_rows(old_nu), nu_rows(new_nu))


def test_composer_json_changes_equal_a_direct_comparison_and_its_install_scripts_are_hooks(tmp_path):
    """require, require-dev and suggest compared directly; a post-install-cmd is an install hook."""
    old = {"name": "demo/demo", "require": {"php": ">=8.1", "monolog/monolog": "^2.0"}, "require-dev": {"phpunit/phpunit": "^9"}}
    new = {"name": "demo/demo", "require": {"php": ">=8.2", "psr/log": "^3.0"}, "require-dev": {"phpunit/phpunit": "^10"},
           "suggest": {"ext-redis": "for caching"}, "scripts": {"post-install-cmd": "php bin/setup.php", "test": "phpunit"}}

    def rows(data):
        return {(kind, n, ""): v for section, kind in (("require", "runtime"), ("require-dev", "dev"), ("suggest", "optional"))
                for n, v in data.get(section, {}).items()}

    a = Side(DictEntry(tmp_path / "a", {"composer.json": json.dumps(old).encode()}))
    b = Side(DictEntry(tmp_path / "b", {"composer.json": json.dumps(new).encode()}))
    ma, mb = manifests.read(a), manifests.read(b)
    assert _seen(dependencies.compute(ma, mb)) == _direct(rows(old), rows(new))
    assert [(f["kind"], f["reason"]) for f in supply.compute(a, b, ma, mb)] == [
        ("installHook", "scripts.post-install-cmd added: php bin/setup.php")]


GEMSPEC = ['''Gem::Specification.new do |spec|
  spec.name = "demo"
  spec.version = "1.0.0"
  spec.license = "MIT"
  spec.add_dependency "rack", "~> 2.2"
  spec.add_runtime_dependency "json", ">= 2.0", "< 3"
  spec.add_development_dependency "rspec", "~> 3.12"
end
''', '''Gem::Specification.new do |spec|
  spec.name = "demo"
  spec.version = "2.0.0"
  spec.license = "MIT"
  spec.executables = ["demo"]
  spec.extensions = ["ext/demo/extconf.rb"]
  spec.add_dependency "rack", "~> 3.0"
  spec.add_dependency("nokogiri", ">= 1.16")
  spec.add_development_dependency "rspec", "~> 3.12"
end
''']
MIX = ['''defmodule Demo.MixProject do
  use Mix.Project
  def project do
    [app: :demo, version: "1.0.0", deps: deps(), package: [licenses: ["Apache-2.0"]]]
  end
  defp deps do
    [
      {:plug, "~> 1.14"},
      {:jason, "~> 1.4", optional: true},
      {:credo, "~> 1.7", only: [:dev, :test], runtime: false}
    ]
  end
end
''', '''defmodule Demo.MixProject do
  use Mix.Project
  def project do
    [app: :demo, version: "2.0.0", deps: deps(), package: [licenses: ["Apache-2.0"]]]
  end
  defp deps do
    [
      {:plug, "~> 1.16"},
      {:telemetry, "~> 1.0"},
      {:credo, "~> 1.7", only: [:dev, :test], runtime: false}
    ]
  end
end
''']
GO_MOD = ["module example.com/demo\n\ngo 1.21\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n\tgolang.org/x/sys v0.10.0 // indirect\n)\n",
          "module example.com/demo\n\ngo 1.22\n\nrequire github.com/google/uuid v1.6.0\n\nrequire (\n\tgolang.org/x/sys v0.20.0 // indirect\n)\n"]


@pytest.mark.parametrize(("name", "texts", "expected"), [
    ("demo.gemspec", GEMSPEC, {("changed", "runtime", "rack", "", "~> 2.2->~> 3.0"), ("removed", "runtime", "json", "", ">= 2.0, < 3"),
                               ("added", "runtime", "nokogiri", "", ">= 1.16")}),
    ("mix.exs", MIX, {("changed", "runtime", "plug", "", "~> 1.14->~> 1.16"), ("removed", "optional", "jason", "", "~> 1.4"),
                      ("added", "runtime", "telemetry", "", "~> 1.0")}),
    ("go.mod", GO_MOD, {("removed", "runtime", "github.com/pkg/errors", "", "v0.9.1"),
                        ("added", "runtime", "github.com/google/uuid", "", "v1.6.0"),
                        ("changed", "runtime", "golang.org/x/sys", "", "v0.10.0 // indirect->v0.20.0 // indirect"),
                        ("changed", "build", "go", "", "1.21->1.22")}),
])
def test_line_oriented_manifests_are_read_by_their_written_forms(tmp_path, name, texts, expected):
    """gemspec, mix.exs and go.mod: each dependency line as written, compared between the two versions."""
    assert _seen(_dependencies(tmp_path, {name: texts[0].encode()}, {name: texts[1].encode()})) == expected


def test_gemspec_extensions_and_executables_are_supply_chain_findings(tmp_path):
    """A native extension compiled at install and a new executable are findings of their own."""
    a = Side(DictEntry(tmp_path / "a", {"demo.gemspec": GEMSPEC[0].encode()}))
    b = Side(DictEntry(tmp_path / "b", {"demo.gemspec": GEMSPEC[1].encode()}))
    found = supply.compute(a, b, manifests.read(a), manifests.read(b))
    assert [(f["kind"], f["reason"]) for f in found] == [
        ("installHook", "extensions ext/demo/extconf.rb added: compiled when the gem is installed"),
        ("bin", "command 'demo' added -> bin/demo")]


def test_a_malformed_manifest_is_a_note_not_a_failure(tmp_path):
    """A package.json that is not JSON: the part says it could not be read; nothing raises."""
    part = _dependencies(tmp_path, {"package.json": b"{not json"}, {"package.json": b'{"name": "x"}'})
    assert part["added"] == part["removed"] == part["changed"] == []
    assert part["notes"][0].startswith("package.json is not a readable package.json")


RST = """Version 3.1.0
-------------

Released 2022-03-24

-   Drop support for Python 3.6.

Version 3.0.3
-------------

Released 2021-11-09

Version 3.0.0rc1
----------------

-   A release candidate.
"""
PLAIN = "v2.1.0 (2020-01-01)\n  * thing\nv2.0.0\n  * other\n1.9.9\n  * old\n"
SETEXT = "Next\n====\n\n* unreleased\n\n5.0.0 / 2024-09-10\n==================\n\n  * big\n\n4.21.2 / 2024-11-06\n===================\n\n  * fix\n"


@pytest.mark.parametrize(("text", "old", "new", "key", "expected"), [
    (RST, "3.0.0rc1", "3.1.0", "pypi", [("3.1.0", "Version 3.1.0"), ("3.0.3", "Version 3.0.3")]),
    (PLAIN, "1.9.9", "2.1.0", "npm", [("2.1.0", "v2.1.0 (2020-01-01)"), ("2.0.0", "v2.0.0")]),
    (SETEXT, "4.21.2", "5.0.0", "npm", [("5.0.0", "5.0.0 / 2024-09-10")]),
])
def test_changelog_heading_styles(text, old, new, key, expected):
    """reStructuredText titles, plain version lines and setext headings; an unversioned title is no entry."""
    from codenav import registries

    found = changelog.entries(text, old, new, registries.load(key).version_key)
    assert [(e["version"], e["heading"]) for e in found] == expected


def test_a_long_changelog_entry_is_cut_and_marked():
    """An entry's text past the cap ends there and says cut."""
    text = "## 2.0.0\n" + "word " * 2000 + "\n## 1.0.0\n- x\n"
    (entry,) = changelog.entries(text, "1.0.0", "2.0.0", changelog.generic_key)
    assert entry["cut"] is True and len(entry["text"]) == changelog.TEXT_CHARS


@pytest.mark.parametrize(("vector", "score", "band"), [
    ("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", 9.8, "CRITICAL"),
    ("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H", 7.5, "HIGH"),
    ("CVSS:3.0/AV:N/AC:L/PR:L/UI:N/S:C/C:L/I:L/A:N", 6.4, "MEDIUM"),
    ("CVSS:3.1/AV:N/AC:H/PR:L/UI:R/S:U/C:L/I:N/A:N", 2.6, "LOW"),
    ("AV:N/AC:L/Au:N/C:P/I:P/A:P", 7.5, "HIGH"),
])
def test_cvss_base_scores_and_bands_follow_the_first_calculators(vector, score, band):
    """CVSS v3.x and v2 base scores as FIRST's calculators give them, and their v3 bands."""
    assert advisories.cvss_score(vector) == score
    assert advisories.band(score) == band


def test_native_binaries_are_told_by_content_not_name():
    """ELF, Mach-O, PE and wasm magic are native; a Java class file (same magic as a fat Mach-O) is not."""
    pe = b"MZ" + b"\0" * 58 + (64).to_bytes(4, "little") + b"PE\0\0"
    assert supply.native_kind(b"\x7fELF\x02") == "an ELF binary"
    assert supply.native_kind(b"\xcf\xfa\xed\xfe....") == "a Mach-O binary"
    assert supply.native_kind(pe) == "a Windows PE binary"
    assert supply.native_kind(b"\0asm\x01\0\0\0") == "a WebAssembly module"
    assert supply.native_kind(b"\xca\xfe\xba\xbe\0\0\0\x41") is None
    assert supply.native_kind(b"MZ not a pe") is None


CRATE = '[package]\nname = "demo"\nversion = "1.0.0"\n'
PYPROJECT = ('[project]\nname = "demo"\nversion = "1"\n[build-system]\nrequires = ["setuptools"]\n'
             'build-backend = "setuptools.build_meta"\n')
NUSPEC = '<?xml version="1.0"?><package><metadata><id>Demo</id><version>1.0.0</version></metadata></package>'
MIX_PROJECT = 'defmodule Demo.MixProject do\n  use Mix.Project\n  def project do\n    [app: :demo, version: "1.0.0"{}]\n  end\nend\n'
BUILD_RS = "fn main() {}\n"


@pytest.mark.parametrize(("old", "new", "expected"), [
    ({"Cargo.toml": CRATE}, {"Cargo.toml": CRATE, "build.rs": BUILD_RS},
     [("installHook", "build.rs", "build.rs added"), ("layout", "build.rs", "a new file at the top level")]),
    ({"Cargo.toml": CRATE, "build.rs": BUILD_RS}, {"Cargo.toml": CRATE, "build.rs": 'fn main() { run("curl") }\n'},
     [("installHook", "build.rs", "build.rs changed")]),
    ({"Cargo.toml": CRATE, "gen.rs": BUILD_RS}, {"Cargo.toml": CRATE + 'build = "gen.rs"\n', "gen.rs": BUILD_RS},
     [("installHook", "gen.rs", "gen.rs now runs")]),
    ({"pyproject.toml": PYPROJECT}, {"pyproject.toml": PYPROJECT.replace("setuptools.build_meta", "hatchling.build")},
     [("installHook", "pyproject.toml", "build-system.build-backend changed: setuptools.build_meta -> hatchling.build")]),
    ({"pyproject.toml": PYPROJECT}, {"pyproject.toml": PYPROJECT, "setup.py": "import os\n"},
     [("installHook", "setup.py", "setup.py added"), ("layout", "setup.py", "a new file at the top level")]),
    ({"pyproject.toml": PYPROJECT, "setup.py": "import os\n"},
     {"pyproject.toml": PYPROJECT, "setup.py": "import os\nos.system('curl x | sh')\n"},
     [("installHook", "setup.py", "setup.py changed")]),
    ({"Demo.nuspec": NUSPEC}, {"Demo.nuspec": NUSPEC, "build/Demo.targets": "<Project />"},
     [("installHook", "build/Demo.targets", "build/Demo.targets added"), ("layout", "build/", "a new top-level directory")]),
    ({"Demo.nuspec": NUSPEC, "tools/install.ps1": "Write-Host hi"}, {"Demo.nuspec": NUSPEC, "tools/install.ps1": "iex x"},
     [("installHook", "tools/install.ps1", "tools/install.ps1 changed")]),
    ({"mix.exs": MIX_PROJECT.format("")}, {"mix.exs": MIX_PROJECT.format(", compilers: [:rustler] ++ Mix.compilers()")},
     [("installHook", "mix.exs", "project.compilers added: [:rustler] ++ Mix.compilers()")]),
], ids=["cargo-build-rs-added", "cargo-build-rs-changed", "cargo-package-build", "pep517-backend", "setup-py-added",
        "setup-py-changed", "nuget-targets", "nuget-install-ps1", "mix-compilers"])
def test_each_ecosystems_install_hook_is_found_and_identical_builds_flag_nothing(tmp_path, old, new, expected):
    """Cargo's build script (added, changed, newly named), a PEP 517 backend change, setup.py added
    or changed, NuGet build targets and install scripts, Mix compilers: each is an install-hook
    finding on the path to look at; the new build compared with itself gives none."""
    a = Side(DictEntry(tmp_path / "a", {k: v.encode() for k, v in old.items()}))
    b = Side(DictEntry(tmp_path / "b", {k: v.encode() for k, v in new.items()}))
    found = supply.compute(a, b, manifests.read(a), manifests.read(b))
    assert [(f["kind"], f["path"]) for f in found] == [(kind, path) for kind, path, _ in expected]
    assert all(f["reason"].startswith(reason) for f, (_, _, reason) in zip(found, expected, strict=True))
    same = Side(DictEntry(tmp_path / "c", {k: v.encode() for k, v in new.items()}))
    assert supply.compute(same, b, manifests.read(same), manifests.read(b)) == []
