"""The public API of a JavaScript/TypeScript package: what its entry points export.

Entry points are resolved as Node resolves them (nodejs.org/api/packages.html): the
``exports`` map — subpaths, ``*`` patterns expanded over the shipped files, conditions picked
in object order for ``require`` (``require``, ``node``, ``node-addons``, ``default``) and for
``import`` (``import`` instead of ``require``), arrays' first usable target — else ``main``
(default ``index.js``, with Node's legacy extension and ``index.js`` guesses). The declarations
are the ``types``/``typings`` field, the ``types`` condition, or the ``.d.ts`` beside a runtime
file.

Each entry file is scanned (comments blanked, never evaluated) for what it exports, following
relative re-exports:

- CommonJS: ``exports.x =`` / ``module.exports.x =`` / ``exports["x"] =``; ``module.exports =
  {a, b: c, d() {}, ...require('./y')}``; ``module.exports = require('./y')``; ``module.exports
  = X`` then ``X.y =``; ``Object.defineProperty(exports, "x", {enumerable: true…})`` (TypeScript's
  re-exports; a property without ``enumerable`` is not an own enumerable key, as Node sees it);
  ``__exportStar(require('./y'), exports)``; ``Object.assign(module.exports, …)``; esbuild's
  ``__export(target, {x: () => x})``; Babel's ``Object.keys(_y).forEach`` over a required module;
- ESM and .d.ts: ``export function|class|const|let|var|enum|interface|type|namespace X``,
  ``export default``, ``export {a, b as c} [from '…']``, ``export * [as ns] from '…'``,
  ``export = X`` (the members of namespace ``X``), ``export import X =``.

A name is located in the symbol index (the definition in the file that exports it, else the
file a re-export names) for its kind, line and signature; a class's, namespace's or function's
members in the index come with it as ``Name.member``. Type-only names (from declarations only)
are public too: their path is the ``.d.ts``.
"""

from __future__ import annotations

import json
import re

from .model import Definition

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from typing import Any

    from ..search.symbols import Symbol
    from .side import Side

REQUIRE = ("require", "node", "node-addons", "default")
IMPORT = ("import", "node", "node-addons", "default")
TYPES = ("types", "typings", "import", "require", "node", "default")
MAX_SUBPATHS = 200  # subpaths one ``*`` pattern may expand to
MAX_DEPTH = 30  # re-export hops followed
_PREFERRED = {"class": 0, "function": 0, "interface": 0, "enum": 0, "type": 0, "namespace": 1, "constant": 2,
              "variable": 3, "property": 3, "method": 4, "module": 5}
_MEMBER_OWNERS = ("class", "interface", "namespace", "enum", "function")

_NOISE = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`", re.S)
_ID = r"[A-Za-z_$][\w$]*"
_STR = r"""(["'])([^"'\n]+)\1"""
_CJS_PROP = re.compile(r"(?<![\w$.])(?:module\s*\.\s*)?exports\s*(?:\.\s*(" + _ID + r")|\[\s*" + _STR + r"\s*\])\s*=(?![=>])")
_CJS_DEFINE = re.compile(r"Object\s*\.\s*defineProperty\(\s*(?:module\s*\.\s*)?exports\s*,\s*" + _STR + r"\s*,")
_CJS_WHOLE = re.compile(r"(?<![\w$.])module\s*\.\s*exports\s*=(?![=>])\s*")
_CJS_STAR = re.compile(r"(?:__exportStar|__export)\(\s*require\(\s*" + _STR + r"\s*\)")
_CJS_ASSIGN = re.compile(r"Object\s*\.\s*assign\(\s*(?:module\s*\.\s*)?exports\s*,\s*")
_ESBUILD = re.compile(r"__export\(\s*" + _ID + r"\s*,\s*\{")
_BABEL = re.compile(r"Object\s*\.\s*keys\(\s*(" + _ID + r")\s*\)\s*\.\s*forEach")
_REQUIRE_CALL = re.compile(r"require\(\s*" + _STR + r"\s*\)")
_ESM_DECL = re.compile(r"(?<![\w$.])export\s+(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?"
                       r"(function\s*\*?|class|const\s+enum|const|let|var|enum|interface|type|namespace|module)\s+(" + _ID + ")")
_ESM_DEFAULT = re.compile(r"(?<![\w$.])export\s+default\b")
_ESM_LIST = re.compile(r"(?<![\w$.])export\s+(type\s+)?\{([^}]*)\}(?:\s*from\s*" + _STR + ")?")
_ESM_STAR = re.compile(r"(?<![\w$.])export\s*\*\s*(?:as\s+(" + _ID + r")\s+)?from\s*" + _STR)
_ESM_EQUALS = re.compile(r"(?<![\w$.])export\s*=\s*(" + _ID + ")")
_ESM_IMPORT_EQ = re.compile(r"(?<![\w$.])export\s+import\s+(" + _ID + r")\s*=")


# --- entry points ------------------------------------------------------------------------------

def _target(value: Any, conditions: tuple[str, ...]) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        for item in value:
            found = _target(item, conditions)
            if found is not None:
                return found
    elif isinstance(value, dict):
        for key, sub in value.items():
            if key in conditions:
                found = _target(sub, conditions)
                if found is not None:
                    return found
    return None


def _clean(path: str | None) -> str | None:
    if not isinstance(path, str):
        return None
    while path.startswith("./"):
        path = path[2:]
    return path or None


def _legacy(main: str, rows: dict[str, Any]) -> str | None:
    for candidate in (main, main + ".js", main + ".json", main + ".node", main.rstrip("/") + "/index.js"):
        if candidate in rows:
            return candidate
    return None


def _declarations_beside(path: str | None, rows: dict[str, Any]) -> str | None:
    if path is None:
        return None
    for suffix, dts in ((".mjs", ".d.mts"), (".cjs", ".d.cts"), (".js", ".d.ts")):
        if path.endswith(suffix) and path[: -len(suffix)] + dts in rows:
            return path[: -len(suffix)] + dts
    return path if path.endswith((".d.ts", ".d.mts", ".d.cts")) else None


def entry_points(pkg: dict[str, Any], rows: dict[str, Any]) -> tuple[list[tuple[str, list[str], list[str]]], list[str]]:
    """``[(subpath, runtime files, declaration files)]`` in subpath order, and notes."""
    notes: list[str] = []
    exports = pkg.get("exports")
    if exports is None:
        main = _clean(pkg.get("main")) or "index.js"
        runtime = _legacy(main, rows)
        types = _clean(pkg.get("types") or pkg.get("typings"))
        types = types if types in rows else _declarations_beside(runtime, rows)
        return [(".", [runtime] if runtime else [], [types] if types else [])], notes
    if not isinstance(exports, dict) or not all(k.startswith(".") for k in exports):
        exports = {".": exports}
    out = []
    for subpath, value in exports.items():
        if subpath.endswith("/") or subpath == "./package.json" or value is None:
            continue
        picks = {_clean(_target(value, c)) for c in (REQUIRE, IMPORT)} - {None}
        typed = _clean(_target(value, TYPES))
        types = {typed} if typed and typed.endswith((".d.ts", ".d.mts", ".d.cts")) else set()
        types |= {d for d in (_declarations_beside(p, rows) for p in picks) if d}
        if "*" not in subpath:
            out.append((subpath, sorted(p for p in picks if p in rows), sorted(t for t in types if t in rows)))
            continue
        expanded = _expand(subpath, picks, types, rows)
        if len(expanded) > MAX_SUBPATHS:
            notes.append(f"the exports pattern {subpath} names {len(expanded)} modules; the first {MAX_SUBPATHS} are read")
        out += expanded[:MAX_SUBPATHS]
    return out, notes


def _expand(subpath: str, picks: set[str], types: set[str], rows: dict[str, Any]) -> list[tuple[str, list[str], list[str]]]:
    stars: dict[str, tuple[set[str], set[str]]] = {}
    for group, targets in ((0, picks), (1, types)):
        for target in targets:
            if target.count("*") != 1:
                continue
            head, tail = target.split("*")
            for path in rows:
                if path.startswith(head) and path.endswith(tail) and len(path) >= len(head) + len(tail):
                    star = path[len(head): len(path) - len(tail)]
                    stars.setdefault(star, (set(), set()))[group].add(path)
    return [(subpath.replace("*", star), sorted(files[0]), sorted(files[1])) for star, files in sorted(stars.items())]


# --- what one file exports ---------------------------------------------------------------------

class _Scan:
    """The names a file exports: name -> (file it is defined in, local name there, line)."""

    def __init__(self, side: Side) -> None:
        self.side = side
        self.notes: set[str] = set()
        self.memo: dict[str, dict[str, tuple[str, str, int]]] = {}

    def resolve(self, base: str, spec: str, types: bool) -> str | None:
        if not spec.startswith("."):
            self.notes.add(f"re-exports from {spec!r} (another package) are not followed")
            return None
        parts = (base.rsplit("/", 1)[0].split("/") if "/" in base else []) + spec.split("/")
        stack: list[str] = []
        for part in parts:
            if part == "..":
                if stack:
                    stack.pop()
            elif part not in (".", ""):
                stack.append(part)
        path = "/".join(stack)
        stem = re.sub(r"\.(m|c)?js$", "", path)
        candidates = ([stem + ".d.ts", stem + ".d.mts", stem + ".d.cts", path + ".d.ts", path + "/index.d.ts"]
                      if types else [])
        candidates += [path, path + ".js", path + ".mjs", path + ".cjs", path + ".ts", path + ".json",
                       path + "/index.js", path + "/index.mjs", path + "/index.ts"]
        return next((c for c in candidates if c in self.side.rows), None)

    def names(self, path: str, types: bool, depth: int = 0) -> dict[str, tuple[str, str, int]]:
        key = f"{types}:{path}"
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = {}  # a cycle of re-exports ends here
        text = self.side.text(path) if depth <= MAX_DEPTH else None
        if text is None:
            return {}
        found: dict[str, tuple[str, str, int]] = {}
        code = _NOISE.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'`" else re.sub(r"[^\n]", " ", m.group(0)), text)
        line_of = _lines(code)

        def add(name: str, at: int, local: str | None = None, where: str | None = None) -> None:
            if name != "__esModule":
                found.setdefault(name, (where or path, local or name, line_of(at)))

        def star(spec: str, include_default: bool) -> None:
            target = self.resolve(path, spec, types)
            if target is not None:
                for name, value in self.names(target, types, depth + 1).items():
                    if include_default or name != "default":
                        found.setdefault(name, value)

        for m in _CJS_PROP.finditer(code):
            add(m.group(1) or m.group(3), m.start())
        for m in _CJS_DEFINE.finditer(code):
            window = code[m.end(): m.end() + 400]
            if re.search(r"enumerable\s*:\s*(?:true|!0)", window.split("})", 1)[0]):
                add(m.group(2), m.start())
        for m in _CJS_WHOLE.finditer(code):
            rest = code[m.end():]
            call = re.match(r"require\(\s*" + _STR + r"\s*\)", rest)
            ident = re.match(r"(" + _ID + r")\s*(?:;|\n|$)", rest)
            if call:
                star(call.group(2), True)
            elif rest.startswith("{"):
                self._object(code, m.end(), add, star)
            elif ident and ident.group(1) not in ("function", "class", "new"):
                for prop in re.finditer(r"(?<![\w$.])" + re.escape(ident.group(1)) + r"\s*\.\s*(" + _ID + r")\s*=(?![=>])",
                                        code):
                    if prop.group(1) != "prototype":
                        add(prop.group(1), prop.start())
        for m in _CJS_STAR.finditer(code):
            star(m.group(2), False)
        for m in _CJS_ASSIGN.finditer(code):
            call = _REQUIRE_CALL.match(code, m.end())
            if call:
                star(call.group(2), True)
            elif code.startswith("{", m.end()):
                self._object(code, m.end(), add, star)
        for m in _ESBUILD.finditer(code):
            self._object(code, m.end() - 1, add, star)
        for m in _BABEL.finditer(code):
            source = re.search(r"(?<![\w$.])" + re.escape(m.group(1)) + r"\s*=\s*(?:" + _ID + r"\()?require\(\s*" + _STR,
                               code)
            if source:
                star(source.group(3), False)
        self._esm(code, path, types, depth, add, star)
        self.memo[key] = found
        return found

    def _esm(self, code: str, path: str, types: bool, depth: int, add: Any, star: Any) -> None:
        for m in _ESM_DECL.finditer(code):
            is_default = re.match(r"export\s+(?:declare\s+)?default\b", m.group(0))
            add("default" if is_default else m.group(2), m.start(), m.group(2))
        for m in _ESM_DEFAULT.finditer(code):
            add("default", m.start())
        for m in _ESM_LIST.finditer(code):
            source = self.resolve(path, m.group(4), types) if m.group(4) else None
            for spec in m.group(2).split(","):
                words = spec.replace("type ", " ").split()
                if not words:
                    continue
                local, public = (words[0], words[2]) if len(words) >= 3 and words[1] == "as" else (words[0], words[0])
                where = None
                if source is not None:
                    target = self.names(source, types, depth + 1).get(local)
                    where = target[0] if target else source
                    local = target[1] if target else local
                add(public, m.start(), local, where)
        for m in _ESM_STAR.finditer(code):
            if m.group(1):
                add(m.group(1), m.start())
            else:
                star(m.group(3), False)
        for m in _ESM_EQUALS.finditer(code):
            add("=", m.start(), m.group(1))  # resolved against the index by the caller
        for m in _ESM_IMPORT_EQ.finditer(code):
            add(m.group(1), m.start())

    def _object(self, code: str, at: int, add: Any, star: Any) -> None:
        """The keys of the object literal whose ``{`` is at ``at`` (spreads of require() followed)."""
        depth, start, i = 0, at + 1, at
        while i < len(code):
            ch = code[i]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth == 0:
                    self._member(code[start:i], start, add, star)
                    return
            elif ch == "," and depth == 1:
                self._member(code[start:i], start, add, star)
                start = i + 1
            elif ch in "\"'`":
                end = _NOISE.match(code, i)
                i = end.end() - 1 if end else i
            i += 1

    @staticmethod
    def _member(text: str, at: int, add: Any, star: Any) -> None:
        item = text.strip()
        if not item:
            return
        spread = re.match(r"\.\.\.\s*require\(\s*" + _STR, item)
        if spread:
            star(spread.group(2), True)
            return
        key = re.match(r"(?:(?:async|get|set|static)\s+)*\*?\s*(?:(" + _ID + r")|" + _STR + r")\s*(?::|\(|$)", item)
        if key and not item.startswith("..."):
            add(key.group(1) or key.group(3), at + len(text) - len(text.lstrip()))


def _lines(code: str) -> Any:
    import bisect

    starts = [0] + [m.end() for m in re.finditer("\n", code)]
    return lambda offset: bisect.bisect_right(starts, offset)


# --- definitions -------------------------------------------------------------------------------

def definitions(side: Side, symbols: list[Symbol]) -> tuple[list[Definition], list[str]]:
    """The public definitions of an npm package (or a git tree with a package.json)."""
    try:
        pkg = json.loads(side.text("package.json") or "")
    except ValueError:
        return [], ["package.json is not JSON: the entry points are unknown"]
    if not isinstance(pkg, dict):
        return [], ["package.json is not a JSON object: the entry points are unknown"]
    package = pkg.get("name") if isinstance(pkg.get("name"), str) else "."
    by_path: dict[str, list[Symbol]] = {}
    for symbol in symbols:
        by_path.setdefault(symbol.path, []).append(symbol)
    entries, notes = entry_points(pkg, side.rows)
    scan = _Scan(side)
    out: list[Definition] = []
    for subpath, runtime, types in entries:
        specifier = package if subpath == "." else package + subpath[1:]
        names: dict[str, tuple[str, str, int]] = {}
        for path in runtime:
            names.update({k: v for k, v in scan.names(path, False).items() if k not in names})
        for path in types:
            names.update({k: v for k, v in scan.names(path, True).items() if k not in names})
        if not runtime and not types:
            notes.append(f"the entry point {specifier} names no file the package ships")
        out += _located(specifier, names, by_path)
    return out, notes + sorted(scan.notes)


def _located(specifier: str, names: dict[str, tuple[str, str, int]], by_path: dict[str, list[Symbol]]) -> list[Definition]:
    out = []
    if "=" in names:  # TypeScript ``export = X``: X's namespace members are the names
        where, local, _line = names.pop("=")
        for s in by_path.get(where, ()):
            if s.container == local and s.exported is not False:
                names.setdefault(s.name, (where, s.name, s.line))
    for name, (path, local, line) in sorted(names.items()):
        candidates = [s for s in by_path.get(path, ()) if s.name == local and not s.container]
        best = min(candidates, key=lambda s: (_PREFERRED.get(s.kind, 9), s.exported is not True, s.line), default=None)
        key = ("javascript", specifier, "", name)
        if best is None:
            out.append(Definition(key, f"{specifier}.{name}", "variable", path, line, ""))
            continue
        out.append(Definition(key, f"{specifier}.{name}", best.kind, path, best.line, best.signature))
        if best.kind in _MEMBER_OWNERS:
            for member in by_path.get(path, ()):
                if member.container == local and member.exported is not False:
                    out.append(Definition(("javascript", specifier, name, member.name),
                                          f"{specifier}.{name}.{member.name}", member.kind, path, member.line,
                                          member.signature))
    return out
