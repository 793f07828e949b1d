"""The manifests an artifact ships, one reader per format (SPEC §2.8.1 dependencies, supplyChain).

``read(side)`` finds the manifests at the top of a version's tree and returns one ``Manifest``
per format found: its dependencies as ``(kind, name, condition, range)`` rows, its license, its
install-time hooks and its executables. Readers never raise on a malformed file: they return
a manifest with ``error`` set, and the parts say it could not be read.

Formats and where they are looked for: ``package.json``; a wheel's ``*.dist-info/METADATA``
(+ ``entry_points.txt``), an sdist's ``PKG-INFO`` and ``pyproject.toml``; ``Cargo.toml``;
``go.mod``; ``pom.xml`` or ``META-INF/maven/*/*/pom.xml``; ``*.gemspec``; ``*.nuspec``;
``mix.exs``; ``composer.json``. The line-oriented formats (gemspec, mix.exs, go.mod) live in
manifests_text.py.

Kinds: ``runtime``, ``optional``, ``peer``, ``dev``, ``build``. ``condition`` is what else
keys a row (a Python marker, a Cargo target, a NuGet target framework), "" when nothing.
"""

from __future__ import annotations

import json

from .model import Manifest

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from typing import Any

    from .side import Side

KINDS = ("runtime", "optional", "peer", "dev", "build")
NPM_HOOKS = ("preinstall", "install", "postinstall", "prepare")


def read(side: Side) -> list[Manifest]:
    """Every manifest found at the top of ``side``'s tree, in format order."""
    from . import manifests_text

    found: list[Manifest] = []
    for fmt, finder, reader in _FORMATS + manifests_text.FORMATS:
        for path in finder(side):
            manifest = Manifest(fmt, path)
            text = side.text(path)
            if text is None:
                manifest.error = f"{path} could not be read"
            else:
                try:
                    reader(manifest, text, side)
                except (ValueError, TypeError, KeyError, AttributeError) as exc:
                    manifest.error = f"{path} is not a readable {fmt}: {_why(exc)}"
            found.append(manifest)
    return found


def _why(exc: Exception) -> str:
    return str(exc).split("\n")[0][:200] if isinstance(exc, ValueError) else type(exc).__name__


def _at_top(name: str):
    return lambda side: [p for p in side.rows if p == name]


# --- package.json ------------------------------------------------------------------------------

_NPM_SECTIONS = (("dependencies", "runtime"), ("optionalDependencies", "optional"), ("peerDependencies", "peer"),
                 ("devDependencies", "dev"))


def _package_json(m: Manifest, text: str, side: Side) -> None:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    m.name, m.version = _str(data.get("name")), _str(data.get("version"))
    for section, kind in _NPM_SECTIONS:
        for name, spec in _dict(data.get(section)).items():
            m.add(kind, name, spec)
    license_ = data.get("license")
    m.license = license_.get("type") if isinstance(license_, dict) else _str(license_)
    scripts = _dict(data.get("scripts"))
    for hook in NPM_HOOKS:
        if isinstance(scripts.get(hook), str):
            m.hooks[f"scripts.{hook}"] = scripts[hook]
    if "binding.gyp" in side.rows and not any(h in scripts for h in ("install", "preinstall")):
        m.hooks["binding.gyp"] = "node-gyp rebuild (npm's default install script when binding.gyp is present)"
    bin_ = data.get("bin")
    if isinstance(bin_, str) and m.name:
        m.bins[m.name.rsplit("/", 1)[-1]] = bin_
    elif isinstance(bin_, dict):
        m.bins.update({k: str(v) for k, v in bin_.items()})


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


# --- composer.json -----------------------------------------------------------------------------

# Composer runs these event scripts on the consumer's install or update (getcomposer.org, Scripts).
COMPOSER_EVENTS = ("pre-install-cmd", "post-install-cmd", "pre-update-cmd", "post-update-cmd",
                   "post-autoload-dump", "pre-autoload-dump", "post-root-package-install",
                   "post-create-project-cmd", "pre-package-install", "post-package-install",
                   "pre-package-update", "post-package-update")


def _composer_json(m: Manifest, text: str, side: Side) -> None:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    m.name, m.version = _str(data.get("name")), _str(data.get("version"))
    for section, kind in (("require", "runtime"), ("require-dev", "dev"), ("suggest", "optional")):
        for name, spec in _dict(data.get(section)).items():
            m.add(kind, name, spec)
    license_ = data.get("license")
    m.license = " OR ".join(license_) if isinstance(license_, list) else _str(license_)
    for event, command in _dict(data.get("scripts")).items():
        if event in COMPOSER_EVENTS:
            m.hooks[f"scripts.{event}"] = json.dumps(command) if not isinstance(command, str) else command
    for path in data.get("bin") or () if isinstance(data.get("bin"), list) else ():
        m.bins[str(path).rsplit("/", 1)[-1]] = str(path)


# --- Python: METADATA / PKG-INFO, entry_points.txt, pyproject.toml -----------------------------

def _metadata_paths(side: Side) -> list[str]:
    found = [p for p in side.rows if p.count("/") == 1 and p.endswith(".dist-info/METADATA")]
    return found or [p for p in side.rows if p == "PKG-INFO"]


def pep503(name: str) -> str:
    import re

    return re.sub(r"[-_.]+", "-", name).lower()


def requirement(line: str) -> tuple[str, str, str]:
    """``(name, spec, marker)`` of a PEP 508 requirement (extras stay in ``spec`` as ``[a,b]``)."""
    import re

    head, _, marker = line.partition(";")
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$", head)
    if not match:
        raise ValueError(f"not a requirement: {line[:80]}")
    spec = match.group(3).strip()
    if spec.startswith("(") and spec.endswith(")"):
        spec = spec[1:-1]
    extras = "".join((match.group(2) or "").split())
    return pep503(match.group(1)), (extras + " ".join(spec.split())).strip(), " ".join(marker.split())


def _requires(m: Manifest, lines: list[str], default_kind: str = "runtime") -> None:
    for line in lines:
        name, spec, marker = requirement(line)
        kind = "optional" if "extra" in marker and default_kind == "runtime" else default_kind
        m.add(kind, name, spec, marker)


def _metadata(m: Manifest, text: str, side: Side) -> None:
    from email.parser import HeaderParser

    message = HeaderParser().parsestr(text)
    m.name, m.version = message.get("Name"), message.get("Version")
    _requires(m, [str(v) for v in message.get_all("Requires-Dist") or ()])
    m.license = (message.get("License-Expression") or message.get("License") or "").strip().split("\n")[0] or None
    if m.license is None or m.license.upper() == "UNKNOWN":
        classifiers = [str(c) for c in message.get_all("Classifier") or () if str(c).startswith("License ::")]
        m.license = "; ".join(c.rsplit(" :: ", 1)[-1] for c in classifiers) or None
    entry_points = m.path.rsplit("/", 1)[0] + "/entry_points.txt" if "/" in m.path else None
    if entry_points and side.text(entry_points) is not None:
        _entry_points(m, side.text(entry_points) or "")


def _entry_points(m: Manifest, text: str) -> None:
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif "=" in line and section in ("console_scripts", "gui_scripts"):
            name, _, target = line.partition("=")
            m.bins[name.strip()] = target.strip()


def _pyproject(m: Manifest, text: str, side: Side) -> None:
    import tomllib

    data = tomllib.loads(text)
    project = _dict(data.get("project"))
    m.name, m.version = _str(project.get("name")), _str(project.get("version"))
    has_metadata = any(p.endswith(".dist-info/METADATA") or p == "PKG-INFO" for p in side.rows)
    if not has_metadata:  # a git tree: the project table is the only statement of the dependencies
        _requires(m, [str(x) for x in project.get("dependencies") or ()])
        for extra, lines in _dict(project.get("optional-dependencies")).items():
            for line in lines or ():
                name, spec, marker = requirement(str(line))
                m.add("optional", name, spec, f'extra == "{extra}"' + (f" and ({marker})" if marker else ""))
        license_ = project.get("license")
        m.license = _str(license_) or (_str(license_.get("text")) if isinstance(license_, dict) else None)
        for table in ("scripts", "gui-scripts"):
            m.bins.update({k: str(v) for k, v in _dict(project.get(table)).items()})
    build = _dict(data.get("build-system"))
    for line in build.get("requires") or ():
        name, spec, marker = requirement(str(line))
        m.add("build", name, spec, marker)
    m.hooks["build-system.build-backend"] = _str(build.get("build-backend")) or "setuptools.build_meta:__legacy__"
    if "setup.py" in side.rows:
        m.hooks["setup.py"] = "runs at build time (sdist install)"


# --- Cargo.toml --------------------------------------------------------------------------------

def _cargo(m: Manifest, text: str, side: Side) -> None:
    import tomllib

    data = tomllib.loads(text)
    package = _dict(data.get("package"))
    m.name, m.version = _str(package.get("name")), _str(package.get("version"))
    m.license = _str(package.get("license")) or (f"file {package['license-file']}" if package.get("license-file")
                                                 else None)
    tables = [("", data)] + [(f"target {cfg}", _dict(body)) for cfg, body in _dict(data.get("target")).items()]
    for condition, table in tables:
        for section, kind in (("dependencies", "runtime"), ("dev-dependencies", "dev"), ("build-dependencies", "build")):
            for name, spec in _dict(table.get(section)).items():
                if isinstance(spec, dict):
                    real = _str(spec.get("package")) or name
                    where = spec.get("version") or (f"git {spec['git']}" if spec.get("git") else
                                                    f"path {spec['path']}" if spec.get("path") else "")
                    optional = spec.get("optional") is True and kind == "runtime"
                    m.add("optional" if optional else kind, real, where, condition)
                else:
                    m.add(kind, name, spec, condition)
    build = package.get("build")
    script = build if isinstance(build, str) else "build.rs" if build is not False else None
    if script in side.rows:  # the script itself is the hook: judged by its content, as setup.py is
        m.hooks[script] = "the build script Cargo compiles and runs before the crate"
    elif isinstance(build, str):  # named but not shipped: the setting is all there is to compare
        m.hooks["package.build"] = build
    for target in data.get("bin") or () if isinstance(data.get("bin"), list) else ():
        if isinstance(target, dict) and isinstance(target.get("name"), str):
            m.bins[target["name"]] = str(target.get("path", ""))


# --- POM and nuspec (XML) ----------------------------------------------------------------------

def _pom_paths(side: Side) -> list[str]:
    top = [p for p in side.rows if p == "pom.xml"]
    return top or sorted(p for p in side.rows if p.startswith("META-INF/maven/") and p.endswith("/pom.xml")
                         and p.count("/") == 4)[:1]


def _xml(text: str, what: str) -> Any:
    from ..registries import xmlsafe

    return xmlsafe.parse(text.encode("utf-8"), what)


def _pom(m: Manifest, text: str, side: Side) -> None:
    from ..registries.xmlsafe import text as child

    root = _xml(text, m.path)
    group = child(root, "groupId") or child(root, "parent/groupId") or ""
    m.name = f"{group}:{child(root, 'artifactId') or ''}"
    m.version = child(root, "version") or child(root, "parent/version")
    scopes = {"compile": "runtime", "runtime": "runtime", "system": "runtime", "provided": "peer", "test": "dev",
              "import": "runtime"}
    for dep in root.findall("dependencies/dependency"):
        kind = scopes.get(child(dep, "scope") or "compile", "runtime")
        if (child(dep, "optional") or "").lower() == "true":
            kind = "optional"
        classifier = child(dep, "classifier") or ""
        m.add(kind, f"{child(dep, 'groupId')}:{child(dep, 'artifactId')}", child(dep, "version") or "",
              f"classifier {classifier}" if classifier else "")
    for plugin in root.findall("build/plugins/plugin"):
        # A build plugin is a build dependency (the dependencies part), not a supply-chain hook.
        m.add("build", f"{child(plugin, 'groupId') or 'org.apache.maven.plugins'}:{child(plugin, 'artifactId')}",
              child(plugin, "version") or "")
    names = [child(lic, "name") or child(lic, "url") or "" for lic in root.findall("licenses/license")]
    m.license = "; ".join(n for n in names if n) or None


def _nuspec(m: Manifest, text: str, side: Side) -> None:
    from ..registries.xmlsafe import text as child

    root = _xml(text, m.path)
    meta = root.find("metadata")
    if meta is None:
        raise ValueError("no <metadata>")
    m.name, m.version = child(meta, "id"), child(meta, "version")
    deps = meta.find("dependencies")
    if deps is not None:
        for item in deps:
            if item.tag == "dependency":
                m.add("runtime", item.get("id", ""), item.get("version", ""))
            elif item.tag == "group":
                framework = item.get("targetFramework", "")
                for dep in item.findall("dependency"):
                    m.add("runtime", dep.get("id", ""), dep.get("version", ""), framework)
    m.license = child(meta, "license") or child(meta, "licenseUrl")
    for path in side.rows:  # MSBuild imports these into the consumer's build; NuGet 2 ran the scripts
        lower = path.lower()
        if (lower.startswith(("build/", "buildtransitive/", "buildmultitargeting/"))
                and lower.endswith((".targets", ".props"))) or (
                lower.startswith("tools/") and lower.rsplit("/", 1)[-1] in ("install.ps1", "init.ps1")):
            m.hooks[path] = "runs in the consumer's build or install"


_FORMATS = [
    ("package.json", _at_top("package.json"), _package_json),
    ("METADATA", _metadata_paths, _metadata),
    ("pyproject.toml", _at_top("pyproject.toml"), _pyproject),
    ("Cargo.toml", _at_top("Cargo.toml"), _cargo),
    ("pom.xml", _pom_paths, _pom),
    ("nuspec", lambda side: [p for p in side.rows if "/" not in p and p.lower().endswith(".nuspec")][:1], _nuspec),
    ("composer.json", _at_top("composer.json"), _composer_json),
]
