"""Lockfiles written by the real tools resolve to the locked version, not the latest, on both surfaces;
``codenav deps`` lists exactly what an independent reading of the same files gives (issue 23).

cargo, go (Debian's golang-go), bundler (ruby-bundler), composer and py-rattler (pixi's own lock
library, from the test extra) write their lockfiles here against the fake registries (or, for
bundler, against gems built and installed locally); Maven has no lockfile, so its POMs are written
by hand and real ``mvn`` resolves them offline (from the local repository) as the oracle. Elixir's
mix, dotnet and Dart are not on this machine, nor is renv in Debian: their lockfiles are copied
from real projects (tests/data/lockfiles/README.md) or written by hand in the tool's format, and R
itself (r-base-core, r-cran-jsonlite) reads the renv.lock and DESCRIPTION as the oracle. Each test
skips, naming the tool, where that tool is missing or cannot work offline.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.fakes.conda import FakeConda
from tests.fakes.cran import FakeCran
from tests.fakes.crates import FakeCrates
from tests.fakes.go import FakeGoProxy
from tests.fakes.hex import FakeHex
from tests.fakes.http import FakeServer
from tests.fakes.maven import FakeMaven
from tests.fakes.nuget import FakeNuget
from tests.fakes.packagist import FakePackagist
from tests.fakes.pub import FakePub
from tests.fakes.rubygems import FakeRubygems
from tests.support.cli import ORIGINAL_ENV, isolated_subprocess_env, run_cli
from tests.support.mcp import McpSession, check

DATA = Path(__file__).resolve().parent / "data" / "lockfiles"
# Which Debian package brings each tool (.ci/run installs them).
PACKAGES = {"cargo": "cargo (rustup)", "go": "golang-go", "bundle": "ruby-bundler", "gem": "ruby-bundler",
            "composer": "composer", "mvn": "maven", "Rscript": "r-base-core"}


def need(tool: str) -> str:
    path = shutil.which(tool, path=ORIGINAL_ENV.get("PATH"))
    if path is None:
        pytest.skip(f"{tool} is not installed (Debian package {PACKAGES[tool]})")
    return path


def run(argv: list[str], cwd: Path, env: dict[str, str], what: str) -> subprocess.CompletedProcess[str]:
    """Run a package manager; skip (naming it and its complaint) when it cannot do its work here."""
    try:
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"{what} could not run here: {exc}")
    if done.returncode != 0:
        pytest.skip(f"{what} failed here: {(done.stderr or done.stdout).strip()[-400:]}")
    return done


def tool_env(home: Path, **extra: str) -> dict[str, str]:
    env = {"PATH": ORIGINAL_ENV.get("PATH", os.defpath), "HOME": str(home), "LANG": "C.UTF-8", **extra}
    if ORIGINAL_ENV.get("RUSTUP_HOME") or Path(ORIGINAL_ENV.get("HOME", "/"), ".rustup").is_dir():
        env["RUSTUP_HOME"] = ORIGINAL_ENV.get("RUSTUP_HOME") or str(Path(ORIGINAL_ENV["HOME"], ".rustup"))
    return env


# --- one project per ecosystem, its lockfile written by the real tool -------------------------------
# Each builder publishes the locked version to the fake, writes the project (running the tool), then
# publishes a newer version: the latest, which a call without a version must not read.

def crates_project(server, base: Path) -> dict:
    need("cargo")
    fake = FakeCrates(server)
    fake.publish("demo-crate", "1.0.0", {"src/lib.rs": b"pub fn one() {}\n"})
    fake.publish("helper", "0.3.0", {"src/lib.rs": b"\n"})
    home = base / "home"
    (home / ".cargo").mkdir(parents=True)
    (home / ".cargo" / "config.toml").write_text(
        f'[source.crates-io]\nreplace-with = "fake"\n\n[source.fake]\nregistry = "sparse+{fake.url}"\n')
    proj = base / "proj"
    (proj / "src").mkdir(parents=True)
    (proj / "src" / "lib.rs").write_text("")
    (proj / "Cargo.toml").write_text('[package]\nname = "proj"\nversion = "0.1.0"\nedition = "2021"\n\n'
                                     '[dependencies]\ndemo-crate = "1"\n\n[dev-dependencies]\nhelper = "0.3"\n')
    env = tool_env(home, CARGO_TERM_COLOR="never", CARGO_NET_OFFLINE="false")
    run(["cargo", "generate-lockfile"], proj, env, "cargo generate-lockfile")
    fake.publish("demo-crate", "1.1.0", {"src/lib.rs": b"pub fn two() {}\n"})
    return {"env": {"CODENAV_CRATES_INDEX": "sparse+" + fake.url}, "proj": proj, "name": "demo-crate",
            "locked": "1.0.0", "latest": "1.1.0", "file": "Cargo.lock", "entry": "package demo-crate 1.0.0",
            "oracle": lambda: _cargo_oracle(proj, env)}


def _cargo_oracle(proj: Path, env: dict[str, str]):
    meta = json.loads(run(["cargo", "metadata", "--format-version", "1", "--locked"], proj, env,
                          "cargo metadata").stdout)
    packages = {p["id"]: p for p in meta["packages"]}
    registry = {(p["name"], p["version"]) for p in meta["packages"] if (p.get("source") or "").startswith(
        ("registry+", "sparse+"))}
    root = next(n for n in meta["resolve"]["nodes"] if n["id"] == meta["resolve"]["root"])
    direct = {(packages[d]["name"], packages[d]["version"]) for d in root["dependencies"]}
    return registry, direct & registry


def go_project(server, base: Path) -> dict:
    need("go")
    fake = FakeGoProxy(server)
    fake.publish("example.com/alpha", "v1.0.0", {"a.go": b"package alpha\n\nfunc A() {}\n"})
    fake.publish("example.com/beta", "v0.2.0", {"b.go": b"package beta\n\nimport _ \"example.com/alpha\"\n"},
                 gomod="module example.com/beta\n\ngo 1.17\n\nrequire example.com/alpha v1.0.0\n")
    proj = base / "proj"
    proj.mkdir(parents=True)
    (proj / "go.mod").write_text("module example.com/app\n\ngo 1.19\n")
    (proj / "main.go").write_text('package main\n\nimport _ "example.com/beta"\n\nfunc main() {}\n')
    env = tool_env(base / "home", GOPATH=str(base / "gopath"), GOCACHE=str(base / "gocache"), GOPROXY=fake.url,
                   GOSUMDB="off", GOFLAGS="-mod=mod", GOTOOLCHAIN="local", GOWORK="off")
    run(["go", "get", "example.com/beta@v0.2.0"], proj, env, "go get")
    run(["go", "mod", "tidy"], proj, env, "go mod tidy")
    fake.publish("example.com/alpha", "v1.1.0", {"a.go": b"package alpha\n\nfunc B() {}\n"})
    return {"env": {"CODENAV_GOPROXY": fake.url, "CODENAV_GOSUMDB": fake.gosumdb()}, "proj": proj,
            "name": "example.com/alpha", "locked": "v1.0.0", "latest": "v1.1.0", "file": "go.mod", "entry": "require example.com/alpha",
            "oracle": lambda: _go_oracle(proj, env)}


def _go_oracle(proj: Path, env: dict[str, str]):
    out = run(["go", "list", "-m", "-json", "all"], proj, {**env, "GOFLAGS": "-mod=readonly"}, "go list -m").stdout
    modules = [json.loads(chunk) for chunk in re.split(r"(?<=\})\s*(?=\{)", out.strip()) if chunk]
    deps = [m for m in modules if not m.get("Main")]
    return {(m["Path"], m["Version"]) for m in deps}, {(m["Path"], m["Version"]) for m in deps if not m.get("Indirect")}


GEMSPEC = """Gem::Specification.new do |s|
  s.name = "{name}"; s.version = "{version}"; s.summary = "x"; s.authors = ["t"]; s.files = ["lib/{name}.rb"]
  {deps}
end
"""


def rubygems_project(server, base: Path) -> dict:
    need("gem")
    need("bundle")
    fake = FakeRubygems(server)
    home = base / "home"
    gems = base / "gems"
    env = tool_env(home, GEM_HOME=str(gems), GEM_PATH=str(gems))
    for name, version, deps in (("alpha", "1.0.0", ""), ("beta", "0.2.0", 's.add_dependency "alpha", "~> 1.0"')):
        src = base / "src" / f"{name}-{version}"
        (src / "lib").mkdir(parents=True)
        (src / "lib" / f"{name}.rb").write_text(f"module {name.title()}; end\n")
        (src / f"{name}.gemspec").write_text(GEMSPEC.format(name=name, version=version, deps=deps))
        run(["gem", "build", f"{name}.gemspec", "-o", str(base / f"{name}-{version}.gem")], src, env, "gem build")
        run(["gem", "install", "--local", "--ignore-dependencies", "--no-document", "--install-dir", str(gems),
             str(base / f"{name}-{version}.gem")], base, env, "gem install --local")
        fake.publish(name, version, {f"lib/{name}.rb": b"# locked\n"})
    proj = base / "proj"
    proj.mkdir()
    (proj / "Gemfile").write_text('source "https://rubygems.org"\n\ngem "beta"\n')
    run(["bundle", "lock", "--local"], proj, env, "bundle lock --local")
    fake.publish("alpha", "1.1.0", {"lib/alpha.rb": b"# latest\n"})
    return {"env": {"CODENAV_RUBYGEMS_SOURCE": fake.url}, "proj": proj, "name": "alpha", "locked": "1.0.0",
            "latest": "1.1.0", "file": "Gemfile.lock", "entry": "GEM alpha (1.0.0)", "oracle": lambda: _bundler_oracle(proj, env)}


def _bundler_oracle(proj: Path, env: dict[str, str]):
    code = ('l = Bundler::LockfileParser.new(File.read("Gemfile.lock")); '
            'l.specs.each { |s| puts "spec #{s.name} #{s.version} #{s.source.class.name}" }; '
            'l.dependencies.each_key { |k| puts "direct #{k}" }')
    out = run(["ruby", "-rbundler", "-e", code], proj, env, "Bundler's LockfileParser").stdout.split("\n")
    specs = {tuple(line.split()[1:3]) for line in out if line.startswith("spec ") and line.endswith("Rubygems")}
    direct = {line.split()[1] for line in out if line.startswith("direct ")}
    return specs, {s for s in specs if s[0] in direct}


def packagist_project(server, base: Path) -> dict:
    need("composer")
    fake = FakePackagist(server)
    fake.publish("acme/alpha", "1.0.0", {"src/A.php": b"<?php // locked\n"}, extra={"require": {}})
    fake.publish("acme/beta", "v0.2.0", {"src/B.php": b"<?php\n"}, extra={"require": {"acme/alpha": "^1.0"}})
    proj = base / "proj"
    proj.mkdir()
    (proj / "composer.json").write_text(json.dumps({
        "name": "acme/app", "require": {"acme/beta": "^0.2"},
        "repositories": [{"type": "composer", "url": fake.url}, {"packagist.org": False}],
        "config": {"secure-http": False}}))
    env = tool_env(base / "home", COMPOSER_HOME=str(base / "composer-home"),
                   COMPOSER_CACHE_DIR=str(base / "composer-cache"), COMPOSER_NO_INTERACTION="1")
    run(["composer", "update", "--no-install", "--no-scripts", "--no-plugins", "--no-audit"], proj, env,
        "composer update")
    fake.publish("acme/alpha", "1.1.0", {"src/A.php": b"<?php // latest\n"}, extra={"require": {}})
    return {"env": {"CODENAV_COMPOSER_REPOSITORY": fake.url}, "proj": proj, "name": "acme/alpha",
            "locked": "1.0.0", "latest": "1.1.0", "file": "composer.lock", "entry": "packages acme/alpha",
            "oracle": lambda: _composer_oracle(proj, env)}


def _composer_oracle(proj: Path, env: dict[str, str]):
    shown = json.loads(run(["composer", "show", "--locked", "--format=json", "--no-plugins"], proj, env,
                           "composer show --locked").stdout)["locked"]
    return ({(p["name"], p["version"]) for p in shown},
            {(p["name"], p["version"]) for p in shown if p.get("direct-dependency")})


def copied(base: Path, files: dict[str, str]) -> Path:
    """A project directory holding copies of real lockfiles (its path -> tests/data/lockfiles/ path)."""
    proj = base / "proj"
    proj.mkdir()
    for path, source in files.items():
        shutil.copyfile(DATA / source, proj / path)
    return proj


def hex_project(server, base: Path) -> dict:
    fake = FakeHex(server)
    fake.publish("jason", "1.4.0", {"lib/jason.ex": b"# locked\n"})
    fake.publish("jason", "1.4.4", {"lib/jason.ex": b"# latest\n"})
    proj = copied(base, {"mix.lock": "hex/mix.lock", "mix.exs": "hex/mix.exs"})
    return {"env": {"CODENAV_HEX_API": fake.api_url, "CODENAV_HEX_REPO": fake.repo_url}, "proj": proj,
            "name": "jason", "locked": "1.4.0", "latest": "1.4.4", "file": "mix.lock", "entry": "jason",
            "oracle": lambda: _mix_oracle(proj)}


def _mix_oracle(proj: Path):
    """mix.lock read another way: each line's key, :hex tuple name and version, by a regular expression."""
    text = (proj / "mix.lock").read_text()
    rows = re.findall(r'^\s*"([a-z0-9_]+)": \{:hex, :([a-z0-9_]+), "([^"]+)"', text, re.M)
    direct = set(re.findall(r"\{:([a-z0-9_]+),", (proj / "mix.exs").read_text().split("defp deps", 1)[1]))
    return {(n, v) for _, n, v in rows}, {(n, v) for k, n, v in rows if k in direct}


def nuget_project(server, base: Path) -> dict:
    fake = FakeNuget(server)
    fake.publish("Octokit", "14.0.0", {"lib/net8.0/Octokit.xml": b"<doc>locked</doc>"})
    fake.publish("Octokit", "14.1.0", {"lib/net8.0/Octokit.xml": b"<doc>latest</doc>"})
    proj = copied(base, {"packages.lock.json": "nuget/packages.lock.json"})
    return {"env": {"CODENAV_NUGET_SOURCE": fake.url}, "proj": proj, "name": "Octokit", "locked": "14.0.0",
            "latest": "14.1.0", "file": "packages.lock.json", "entry": "dependencies.net10.0.Octokit",
            "oracle": lambda: _nuget_oracle(proj)}


def _nuget_oracle(proj: Path):
    doc = json.loads((proj / "packages.lock.json").read_text())
    rows = [(n, i["resolved"], i["type"]) for f in doc["dependencies"].values() for n, i in f.items()
            if i.get("type") != "Project"]
    return {(n, v) for n, v, _ in rows}, {(n, v) for n, v, t in rows if t == "Direct"}


PARENT_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.acme</groupId><artifactId>parent</artifactId><version>1.0</version><packaging>pom</packaging>
  <modules><module>core</module></modules>
  <properties><lang3.version>3.12.0</lang3.version></properties>
  <dependencyManagement><dependencies>
    <dependency><groupId>org.apache.commons</groupId><artifactId>commons-lang3</artifactId><version>${lang3.version}</version></dependency>
  </dependencies></dependencyManagement>
</project>
"""
CORE_POM = """<project>
  <modelVersion>4.0.0</modelVersion>
  <parent><groupId>com.acme</groupId><artifactId>parent</artifactId><version>1.0</version></parent>
  <artifactId>core</artifactId>
  <properties><guava.version>32.1.3-jre</guava.version></properties>
  <dependencies>
    <dependency><groupId>org.apache.commons</groupId><artifactId>commons-lang3</artifactId></dependency>
    <dependency><groupId>com.google.guava</groupId><artifactId>guava</artifactId><version>${guava.version}</version></dependency>
  </dependencies>
</project>
"""


def maven_project(server, base: Path) -> dict:
    fake = FakeMaven(server)
    fake.publish("org.apache.commons:commons-lang3", "3.12.0", {"org/apache/commons/lang3/A.java": b"// locked\n"})
    fake.publish("org.apache.commons:commons-lang3", "3.14.0", {"org/apache/commons/lang3/A.java": b"// latest\n"})
    proj = base / "proj"
    (proj / "core").mkdir(parents=True)
    (proj / "pom.xml").write_text(PARENT_POM)
    (proj / "core" / "pom.xml").write_text(CORE_POM)
    return {"env": {"CODENAV_MAVEN_REPOSITORY": fake.url}, "proj": proj / "core",
            "name": "org.apache.commons:commons-lang3", "locked": "3.12.0", "latest": "3.14.0", "file": "../pom.xml",
            "entry": "properties lang3.version (dependencyManagement org.apache.commons:commons-lang3)",
            "oracle": lambda: _maven_oracle(proj / "core")}


def _maven_oracle(module: Path):
    """mvn's own dependency resolution, offline from the local repository: the tree it logs with -X."""
    need("mvn")
    repo = Path(ORIGINAL_ENV.get("HOME", "/root"), ".m2", "repository")
    env = tool_env(module.parent / "mvn-home", JAVA_HOME=ORIGINAL_ENV.get("JAVA_HOME", ""))
    try:
        done = subprocess.run(["mvn", "-o", "-X", "-B", f"-Dmaven.repo.local={repo}", "compile"], cwd=module,
                              env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"mvn could not run here: {exc}")
    lines = done.stdout.split("\n")
    try:
        at = lines.index("[DEBUG] com.acme:core:jar:1.0")
    except ValueError:
        # Offline, mvn names each artifact it lacks ("... the artifact G:A:jar:V has not been downloaded")
        missing = sorted(set(re.findall(r"artifact (\S+) has not been downloaded", done.stdout)))
        errors = [line for line in lines if line.startswith("[ERROR]")][:1]
        pytest.skip(f"mvn -o cannot build the project from the local repository {repo} (the image fills it): "
                    f"it lacks {', '.join(missing) or 'nothing it names'}; "
                    f"{errors[0][:300] if errors else done.stdout.strip()[-300:]}")
    direct = set()
    for line in lines[at + 1:]:
        if not line.startswith("[DEBUG]    ") or line.startswith("[DEBUG]     "):
            break
        group, artifact, _, version, _ = line.split()[1].split(":")
        direct.add((f"{group}:{artifact}", version))
    return direct, direct  # our reading of POMs has no transitive graph: compare what the POMs declare


def conda_project(server, base: Path) -> dict:
    """A pixi project: rattler solves it against the fake channel for two platforms and writes pixi.lock."""
    rattler = pytest.importorskip("rattler", reason="py-rattler is not installed (the test extra brings it)")
    import asyncio

    fake = FakeConda(server)
    fake.publish("helper", "0.3", subdir="noarch")
    fake.publish("demo", "1.0", {"share/demo/a.txt": b"locked\n"}, depends=["helper >=0.3"])
    fake.publish("demo", "0.9", subdir="osx-arm64", depends=["helper >=0.3"])
    proj = base / "proj"
    proj.mkdir()
    (proj / "pixi.toml").write_text('[workspace]\nname = "app"\nchannels = ["conda-forge"]\n'
                                    'platforms = ["linux-64", "osx-arm64"]\n\n[dependencies]\ndemo = "*"\n')
    lock = rattler.LockFile([rattler.LockPlatform("linux-64"), rattler.LockPlatform("osx-arm64")])
    lock.set_channels("default", [rattler.LockChannel(fake.channel)])
    for platform in ("linux-64", "osx-arm64"):
        solved = asyncio.run(rattler.solve([fake.channel], ["demo"], platforms=[platform, "noarch"],
                                           virtual_packages=[]))
        for record in solved:
            lock.add_conda_package("default", rattler.LockPlatform(platform), record)
    lock.to_path(proj / "pixi.lock")
    fake.publish("demo", "1.1", {"share/demo/a.txt": b"latest\n"}, depends=["helper >=0.3"])
    return {"env": {"CODENAV_CONDA_CHANNEL": fake.channel, "CODENAV_CONDA_API": fake.api, "CONDA_SUBDIR": "linux-64"},
            "proj": proj, "name": "demo", "locked": "1.0", "latest": "1.1", "file": "pixi.lock",
            "entry": "packages linux-64/demo-1.0-h1a2b3c4_0.tar.bz2", "oracle": lambda: _rattler_oracle(proj)}


def _rattler_oracle(proj: Path):
    """rattler reads its own pixi.lock (this machine's platform); pixi.toml's [dependencies] are the direct ones."""
    import tomllib

    import rattler

    environment = rattler.LockFile.from_path(proj / "pixi.lock").default_environment()
    (platform,) = [p for p in environment.platforms() if p.name == "linux-64"]
    records = environment.conda_repodata_records_for_platform(platform) or []
    locked = {(r.name.normalized, str(r.version)) for r in records}
    declared = set(tomllib.loads((proj / "pixi.toml").read_text())["dependencies"])
    return locked, {row for row in locked if row[0] in declared}


RENV_LOCK = {
    "R": {"Version": "4.2.2", "Repositories": [{"Name": "CRAN", "URL": "https://cloud.r-project.org"}]},
    "Packages": {
        "alpha": {"Package": "alpha", "Version": "1.0-2", "Source": "Repository", "Repository": "CRAN",
                  "Requirements": ["beta"], "Hash": "0f1e2d3c4b5a69788796a5b4c3d2e1f0"},
        "beta": {"Package": "beta", "Version": "0.2", "Source": "Repository", "Repository": "CRAN"},
        "gamma": {"Package": "gamma", "Version": "2.1", "Source": "Repository", "Repository": "CRAN"},
        "devpkg": {"Package": "devpkg", "Version": "0.0.0.9000", "Source": "GitHub", "RemoteType": "github",
                   "RemoteUsername": "acme", "RemoteRepo": "devpkg", "RemoteSha": "5b1c0e8d4f2a9a3c7e6b1d0f9e8c7b6a"},
    },
}


def cran_project(server, base: Path) -> dict:
    """An R project: a renv.lock in renv's format (renv is not in Debian) and the DESCRIPTION naming its imports."""
    fake = FakeCran(server)
    fake.publish("alpha", "1.0-2", {"R/alpha.R": b"alpha <- 'locked'\n"})
    proj = base / "proj"
    proj.mkdir()
    (proj / "renv.lock").write_text(json.dumps(RENV_LOCK, indent=2))
    (proj / "DESCRIPTION").write_text("Package: app\nVersion: 0.1\nDepends: R (>= 4.1)\nImports:\n    alpha (>= 1.0),"
                                      "\n    devpkg\nSuggests:\n    gamma\n")
    fake.record("alpha", "1.0-2").archived = True  # CRAN archives the old version when a new one lands
    fake.publish("alpha", "1.1", {"R/alpha.R": b"alpha <- 'latest'\n"})
    return {"env": {"CODENAV_CRAN_REPOS": fake.url, "R_PROFILE": os.devnull}, "proj": proj, "name": "alpha",
            "locked": "1.0-2", "latest": "1.1", "file": "renv.lock", "entry": "alpha", "oracle": lambda: _r_oracle(proj)}


def _r_oracle(proj: Path):
    """R reads the lock (jsonlite) and the DESCRIPTION (read.dcf, tools' own dependency splitter)."""
    need("Rscript")
    code = ('if (!requireNamespace("jsonlite", quietly = TRUE)) quit(status = 3)\n'
            'lock <- jsonlite::fromJSON("renv.lock")$Packages\n'
            'for (r in lock) if (r$Source == "Repository") cat("locked", r$Package, r$Version, "\\n")\n'
            'd <- read.dcf("DESCRIPTION")\n'
            'fields <- intersect(c("Depends", "Imports", "LinkingTo", "Suggests"), colnames(d))\n'
            'for (f in fields) for (x in tools:::.split_dependencies(d[1, f])) cat("declared", x$name, "\\n")\n')
    try:
        done = subprocess.run(["Rscript", "-e", code], cwd=proj, capture_output=True, text=True, timeout=120,
                              env={"PATH": ORIGINAL_ENV.get("PATH", os.defpath), "LANG": "C.UTF-8"})
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"Rscript could not run here: {exc}")
    if done.returncode == 3:
        pytest.skip("R's jsonlite is not installed (Debian package r-cran-jsonlite)")
    assert done.returncode == 0, done.stderr
    words = [line.split() for line in done.stdout.splitlines()]
    locked = {(w[1], w[2]) for w in words if w[0] == "locked"}
    declared = {w[1] for w in words if w[0] == "declared"}
    return locked, {row for row in locked if row[0] in declared}


def pub_project(server, base: Path) -> dict:
    """A Dart project: pub-dev's own pubspec.lock (trimmed; Dart is not installable here) and its pubspec.yaml."""
    fake = FakePub(server)
    fake.publish("lints", "6.1.0", {"lib/core.yaml": b"# locked\n"})
    fake.publish("lints", "6.2.0", {"lib/core.yaml": b"# latest\n"})
    proj = copied(base, {"pubspec.lock": "pub/pub-dev.pubspec.lock.trimmed"})
    (proj / "pubspec.yaml").write_text("name: pub_dev\nenvironment:\n  sdk: ^3.9.0\ndev_dependencies:\n"
                                       "  lints: ^6.1.0\nflutter:\n  assets:\n    - &logo images/logo.png\n")
    return {"env": {"CODENAV_PUB_URL": fake.url}, "proj": proj, "name": "lints", "locked": "6.1.0",
            "latest": "6.2.0", "file": "pubspec.lock", "entry": "lints", "oracle": lambda: _pub_oracle(proj)}


def _pub_oracle(proj: Path):
    """pubspec.lock read by PyYAML: hosted packages, direct as the lock marks them."""
    import yaml

    packages = yaml.safe_load((proj / "pubspec.lock").read_text())["packages"]
    hosted = {n: p for n, p in packages.items() if p["source"] == "hosted"}
    return ({(n, p["version"]) for n, p in hosted.items()},
            {(n, p["version"]) for n, p in hosted.items() if p["dependency"].startswith("direct")})


BUILDERS = {"crates": crates_project, "go": go_project, "rubygems": rubygems_project,
            "packagist": packagist_project, "hex": hex_project, "nuget": nuget_project, "maven": maven_project,
            "conda": conda_project, "cran": cran_project, "pub": pub_project}


@pytest.fixture
def built(request, tmp_path):
    registry = request.param
    with FakeServer() as server:
        (tmp_path / "work").mkdir()
        setup = BUILDERS[registry](server, tmp_path / "work")
        env = isolated_subprocess_env(tmp_path / "iso")
        env.update(setup["env"])
        setup.update(registry=registry, cli_env=env)
        yield setup


@pytest.mark.parametrize("built", list(BUILDERS), indirect=True)
def test_the_locked_version_not_the_latest_on_both_surfaces(built):
    """With no version, the lockfile the tool wrote decides — on MCP and the CLI alike, byte for byte —
    over the newer version the registry serves as its latest (which the same call without the project
    reads), and plain mode names the lockfile on stderr."""
    registry, name, proj = built["registry"], built["name"], built["proj"]
    session = McpSession(built["cli_env"])
    try:
        payload = check({"env": built["cli_env"], "mcp": session}, "list_files",
                        {"registry": registry, "package_name": name, "project_dir": str(proj)},
                        ["files", f"{registry}:{name}", "--project", str(proj)])
        latest = check({"env": built["cli_env"], "mcp": session}, "list_files",
                       {"registry": registry, "package_name": name, "project_dir": ""},
                       ["files", f"{registry}:{name}", "--project", ""])
    finally:
        session.close()
    assert built["latest"] != built["locked"]
    assert (latest["target"]["version"], latest["target"]["versionSource"]["kind"]) == (built["latest"], "latest")
    assert (payload["target"]["version"], payload["target"]["versionSource"]) == (
        built["locked"], {"kind": "lockfile", "file": built["file"], "entry": built["entry"]})
    plain = run_cli("files", f"{registry}:{name}", "--project", str(proj), env=built["cli_env"])
    assert plain.returncode == 0, plain.stderr
    # (plain mode echoes the name as requested, normalised: NuGet's is lower case there)
    assert plain.stderr.decode().lower() == f"codenav: {name} {built['locked']} from {built['file']}\n".lower()


@pytest.mark.parametrize("built", list(BUILDERS), indirect=True)
def test_deps_lists_what_an_independent_reading_gives(built):
    """`codenav deps --all --json` lists exactly the registry packages, and the direct ones, that the
    tool itself (cargo metadata, go list -m, Bundler's parser, composer show --locked, mvn) or a second
    reader written differently finds in the same files."""
    every, direct = built["oracle"]()
    assert direct and (built["name"], built["locked"]) in every  # the oracle did read the files
    proc = run_cli("deps", "--all", "--json", "--project", str(built["proj"]), env=built["cli_env"])
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["dependencies"]
    mine = {(r["name"], r["version"]) for r in rows if r["registry"] == built["registry"]}
    mine_direct = {(r["name"], r["version"]) for r in rows if r["registry"] == built["registry"] and r["direct"]}
    if built["registry"] == "maven":
        mine = mine_direct  # the POMs hold no transitive graph: compare what they declare
    assert (mine, mine_direct) == (every, direct)
    assert len(rows) == len({(r["registry"], r["name"], r["version"]) for r in rows})
