"""The line-oriented manifests: gemspec (Ruby), mix.exs (Elixir), go.mod (Go).

Read by patterns, never evaluated: a gemspec and a mix.exs are programs, and codenav runs no
code from a package. What the patterns see is what their authors write in practice
(``spec.add_dependency "x", "~> 1.0"``, ``{:plug, "~> 1.14", optional: true}``, ``require (…)``);
a dependency computed at run time is not seen, and the manifests part says so in its note.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from .model import Manifest
    from .side import Side

_STRING = r"""(?:"([^"\\]*)"|'([^'\\]*)')"""
_GEM_DEP = re.compile(r"\.add_(runtime_|development_)?dependency\s*\(?\s*" + _STRING + r"(.*)$", re.M)
_GEM_FIELD = re.compile(r"^\s*\w+\.(licenses?|executables|extensions|name|version|bindir)\s*=\s*(.+)$", re.M)
_QUOTED = re.compile(_STRING)


def _strings(text: str) -> list[str]:
    return [a or b for a, b in _QUOTED.findall(text)]


def _gemspec(m: Manifest, text: str, side: Side) -> None:
    for kind, double, single, rest in _GEM_DEP.findall(text):
        m.add("dev" if kind == "development_" else "runtime", double or single, ", ".join(_strings(rest)))
    fields = {name: value for name, value in _GEM_FIELD.findall(text)}
    if "name" in fields:
        m.name = (_strings(fields["name"]) or [None])[0]
    if "version" in fields:
        m.version = (_strings(fields["version"]) or [None])[0]
    licenses = _strings(fields.get("licenses", "") or fields.get("license", ""))
    m.license = " OR ".join(licenses) or None
    for ext in _strings(fields.get("extensions", "")):
        m.hooks[f"extensions {ext}"] = "compiled when the gem is installed"
    for exe in _strings(fields.get("executables", "")):
        m.bins[exe] = f"{(_strings(fields.get('bindir', '')) or ['bin'])[0]}/{exe}"


_MIX_DEP = re.compile(r"\{\s*:(\w+)\s*,\s*(?:\"([^\"]*)\"\s*)?(,[^{}]*)?\}")
_MIX_OPTS = re.compile(r"(\w+):\s*(\[[^\]]*\]|:\w+|true|false|\"[^\"]*\")")


def _mix_exs(m: Manifest, text: str, side: Side) -> None:
    app = re.search(r"\bapp:\s*:(\w+)", text)
    m.name = app.group(1) if app else None
    version = re.search(r"\bversion:\s*\"([^\"]+)\"", text) or re.search(r"@version\s+\"([^\"]+)\"", text)
    m.version = version.group(1) if version else None
    body = re.search(r"defp?\s+deps\b.*?\bdo\b(.*?)\n\s*end\b", text, re.S)
    for name, requirement, rest in _MIX_DEP.findall(body.group(1) if body else ""):
        opts = dict(_MIX_OPTS.findall(rest or ""))
        only = opts.get("only", "")
        kind = "optional" if opts.get("optional") == "true" else "runtime"
        if only and ":prod" not in only and kind == "runtime":
            kind = "dev"
        source = next((f"{k}: {opts[k].strip(chr(34))}" for k in ("github", "git", "path") if k in opts), "")
        m.add(kind, name, requirement or source)
    licenses = re.search(r"\blicenses:\s*\[([^\]]*)\]", text)
    m.license = " OR ".join(_strings(licenses.group(1))) if licenses else None
    compilers = re.search(r"\bcompilers:\s*(\[[^\]]*\][^,\n]*)", text)
    if compilers:
        m.hooks["project.compilers"] = " ".join(compilers.group(1).split())


def _go_mod(m: Manifest, text: str, side: Side) -> None:
    lines = [line.split("//", 1) for line in text.splitlines()]
    block = None
    for code, *comment in lines:
        words = code.split()
        if not words:
            continue
        if block and words == [")"]:
            block = None
            continue
        if words[0] in ("require", "tool", "module", "toolchain", "go") and not block:
            if len(words) > 1 and words[1] == "(":
                block = words[0]
                continue
            verb, words = words[0], words[1:]
        elif block:
            verb = block
        else:
            continue
        if verb == "module" and words:
            m.name = words[0].strip('"')
        elif verb == "require" and len(words) >= 2:
            indirect = bool(comment) and "indirect" in comment[0]
            m.add("runtime", words[0].strip('"'), words[1] + (" // indirect" if indirect else ""))
        elif verb == "tool" and words:
            m.add("dev", words[0].strip('"'), "tool")
        elif verb == "toolchain" and words:
            m.add("build", "toolchain", words[0])
        elif verb == "go" and words:
            m.add("build", "go", words[0])


FORMATS = [
    ("gemspec", lambda side: [p for p in side.rows if "/" not in p and p.endswith(".gemspec")][:1], _gemspec),
    ("mix.exs", lambda side: [p for p in side.rows if p == "mix.exs"], _mix_exs),
    ("go.mod", lambda side: [p for p in side.rows if p == "go.mod"], _go_mod),
]
