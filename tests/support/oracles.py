"""Independent oracles for the upgrade review's API part (issue 24): what a package exports,
read without codenav.

- ``python_public(files)``: per module, the public top-level names, read with ``ast`` from a
  wheel's files: ``def``/``class``/assignment targets at module level (also inside
  ``if``/``try``/``with``/``for``/``while`` blocks), the literal ``__all__`` when there is one,
  else the names without a leading ``_``; modules under a private (``_``) part, test directories
  and ``test_*.py``/``*_test.py`` are not public; a ``.pyi`` stands for its ``.py``.
- ``node_exports(directory, specifiers)``: what Node itself gives for each specifier from
  ``directory`` (its ``node_modules``): the own enumerable keys of ``require(spec)`` and of
  ``await import(spec)``'s namespace, less ``default``/``module.exports`` when the import is the
  same CommonJS module the require returned (Node's CJS wrapper adds them), less ``__esModule``.
- ``recall_precision(got, want)``.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import zipfile

NODE_SCRIPT = r"""
const specs = process.argv.slice(2);
(async () => {
  const out = {};
  for (const spec of specs) {
    const names = new Set(); let r; let required = false;
    try { r = require(spec); required = true; for (const k of Object.keys(r)) if (k !== '__esModule') names.add(k); } catch (e) {}
    try {
      const ns = await import(spec); const cjs = required && ns.default === r;
      for (const k of Object.keys(ns)) {
        if (k === '__esModule' || (cjs && (k === 'default' || k === 'module.exports'))) continue;
        names.add(k);
      }
    } catch (e) {}
    out[spec] = [...names].sort();
  }
  process.stdout.write(JSON.stringify(out));
})();
"""


def _targets(node: ast.AST):
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, (ast.Tuple, ast.List)):
        for element in node.elts:
            yield from _targets(element)
    elif isinstance(node, ast.Starred):
        yield from _targets(node.value)


def _module_names(tree: ast.Module) -> set[str]:
    defined: set[str] = set()
    all_: set[str] | None = None

    def walk(body: list[ast.stmt]) -> None:
        nonlocal all_
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    for name in _targets(target):
                        if name == "__all__" and isinstance(node.value, (ast.List, ast.Tuple)):
                            all_ = {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
                        defined.add(name)
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                for field in ("body", "orelse", "finalbody"):
                    walk(getattr(node, field, None) or [])
                for handler in getattr(node, "handlers", None) or []:
                    walk(handler.body)

    walk(tree.body)
    return {n for n in defined if (n in all_ if all_ is not None else not n.startswith("_"))}


def python_public(files: dict[str, bytes]) -> set[tuple[str, str]]:
    """``{(module, name)}`` of the public top-level names of a wheel's files (module docstring)."""
    sources = [p for p in files if p.endswith((".py", ".pyi"))]
    stubs = {p[:-4] for p in sources if p.endswith(".pyi")}
    out: set[tuple[str, str]] = set()
    for path in sources:
        parts = path.split("/")
        if parts[0].endswith((".dist-info", ".data")) or (path.endswith(".py") and path[:-3] in stubs):
            continue
        stem = parts[-1].rsplit(".", 1)[0]
        module = parts[:-1] + ([] if stem == "__init__" else [stem])
        if (any(p.startswith("_") for p in module) or any(p in ("tests", "test", "testing") for p in parts[:-1])
                or parts[-1].startswith("test_") or parts[-1].endswith("_test.py")):
            continue
        try:
            tree = ast.parse(files[path])
        except SyntaxError:
            continue
        out |= {(".".join(module), name) for name in _module_names(tree)}
    return out


def wheel_files(path: str) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist() if not n.endswith("/")}


def node_exports(directory: str, specifiers: list[str]) -> dict[str, set[str]]:
    """``{specifier: names}`` as Node resolves them from ``directory`` (module docstring)."""
    script = os.path.join(directory, "codenav-oracle.cjs")
    with open(script, "w", encoding="utf-8") as handle:
        handle.write(NODE_SCRIPT)
    proc = subprocess.run(["node", script, *specifiers], cwd=directory, capture_output=True, text=True, timeout=120,
                          check=True, stdin=subprocess.DEVNULL)
    return {spec: set(names) for spec, names in json.loads(proc.stdout).items()}


def recall_precision(got: set, want: set) -> tuple[float, float]:
    hits = len(got & want)
    return (hits / len(want) if want else 1.0), (hits / len(got) if got else 1.0)
