"""npm's configuration, layer by layer, as npm's own config loader reads it (SPEC §8.1).

Priority, low to high: builtin (``<npm package>/npmrc``) < global (``<prefix>/etc/npmrc``; the
prefix is ``$PREFIX``, else ``dirname(dirname(node))`` with ``$DESTDIR`` on POSIX, moved by a
``prefix``/``globalconfig`` set higher up) < user (``userconfig``, default ``~/.npmrc``) <
project (``.npmrc`` of the local prefix: the nearest ancestor of the working directory holding
``package.json`` or ``node_modules``, skipped when it is the user file) < ``npm_config_*``
variables. Workspace roots above the local prefix are not looked for.

The file syntax is npm's ini: ``key=value``, ``key[]=value`` arrays, a double-quoted value
decoded as a JSON string (so ``ca="-----BEGIN…\\n…"`` carries newlines), ``;``/``#`` comments,
keys inside ``[sections]`` ignored; ``${VAR}`` expands (left as written when unset),
``${VAR?}`` gives empty when unset, a backslash escapes the ``$``. Path keys (``cafile``,
``userconfig``, ``globalconfig``, ``prefix``) resolve ``~/`` and relative paths.

Only ``os`` is imported: a warm call reads ``registry`` through here.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

PATH_KEYS = frozenset({"cafile", "userconfig", "globalconfig", "prefix"})


class Config:
    """The merged layers: ``get(key)`` is the highest layer's value, ``source(key)`` names it."""

    def __init__(self, layers: list[tuple[str, str, dict]]) -> None:
        self.layers = layers  # (layer, file path or "environment", values), low to high

    def get(self, key: str, default: object = None) -> object:
        for _, _, values in reversed(self.layers):
            if key in values:
                return values[key]
        return default

    def source(self, key: str) -> str | None:
        """The file that sets ``key`` (or ``npm_config_<key>`` for the environment), or None."""
        for layer, where, values in reversed(self.layers):
            if key in values:
                return f"npm_config_{key.replace('-', '_')}" if layer == "env" else where
        return None

    def items(self) -> dict[str, object]:
        merged: dict[str, object] = {}
        for _, _, values in self.layers:
            merged.update(values)
        return merged

    def files(self) -> list[tuple[str, str]]:
        """(layer, path) of each file layer, read or not (for messages)."""
        return [(layer, where) for layer, where, _ in self.layers if layer != "env"]


def load(env: Mapping[str, str] | None = None, cwd: str | None = None) -> Config:
    """npm's configuration for a process with environment ``env`` started in ``cwd``.

    Each file is read again only when it changed (inode, size, mtime), and where node and npm
    are on PATH is looked up once per PATH: an MCP server asks for every warm call.
    """
    env = os.environ if env is None else env
    cwd = cwd or os.getcwd()
    home = env.get("HOME") or os.path.expanduser("~")
    ctx = (env, home, cwd)
    same = (_snapshot(env), home, cwd)  # what a file's values may depend on (${VAR})
    builtin_path = _remembered(("builtin", env.get("PATH")), lambda: _builtin_file(env))
    builtin = _read_once(builtin_path, ctx, same) if builtin_path else {}
    environment = _remembered(("env", same), lambda: _env_layer(env, ctx))
    project_path = os.path.join(local_prefix(cwd), ".npmrc")
    project = _read_once(project_path, ctx, same)
    userconfig = _first("userconfig", (environment, project, builtin)) or os.path.join(home, ".npmrc")
    if project_path == userconfig:
        project = {}
    user = _read_once(userconfig, ctx, same)
    globalconfig = _first("globalconfig", (environment, user, builtin))
    if not globalconfig:
        prefix = _first("prefix", (environment, user, builtin)) or _remembered(
            ("prefix", env.get("PREFIX"), env.get("PATH"), env.get("DESTDIR")), lambda: global_prefix(env))
        globalconfig = os.path.join(prefix, "etc", "npmrc") if prefix else ""
    layers = []
    if builtin_path:
        layers.append(("builtin", builtin_path, builtin))
    if globalconfig:
        layers.append(("global", globalconfig, _read_once(globalconfig, ctx, same)))
    layers.append(("user", userconfig, user))
    if project:
        layers.append(("project", project_path, project))
    layers.append(("env", "environment", environment))
    return Config(layers)


def _snapshot(env: Mapping[str, str]) -> tuple:
    """All of ``env`` as a key; os.environ's raw bytes are taken as they are (no decoding of
    every variable on every call)."""
    raw = getattr(env, "_data", None) if env is os.environ else None
    return tuple(raw.items()) if isinstance(raw, dict) else tuple(env.items())


_MEMORY: dict[tuple, object] = {}  # what load() worked out, by everything it depends on
_MEMORY_ENTRIES = 64


def _remembered(key: tuple, compute: Callable[[], object]) -> Any:
    try:
        return _MEMORY[key]
    except KeyError:
        pass
    if len(_MEMORY) >= _MEMORY_ENTRIES:
        _MEMORY.clear()  # a long-lived process whose environment keeps changing (tests)
    value = _MEMORY[key] = compute()
    return value


def _read_once(path: str, ctx: tuple, same: tuple) -> dict:
    try:
        status = os.stat(path)
    except OSError:
        return {}
    stamp = (status.st_ino, status.st_size, status.st_mtime_ns)
    return _remembered(("file", path, stamp, same), lambda: _read(path, ctx))


def _first(key: str, layers: tuple[dict, ...]) -> str | None:
    for values in layers:
        value = values.get(key)
        if isinstance(value, str) and value:
            return value
    return None


# --- where the files are -----------------------------------------------------------------------

def _on_path(name: str, env: Mapping[str, str]) -> str | None:
    for folder in (env.get("PATH") or "").split(os.pathsep):
        candidate = os.path.join(folder, name)
        if folder and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def global_prefix(env: Mapping[str, str]) -> str | None:
    """``$PREFIX``, else the folder above node's (Windows: node's folder), as npm computes it."""
    if env.get("PREFIX"):
        return env["PREFIX"]
    node = _on_path("node.exe" if os.name == "nt" else "node", env)
    if node is None:
        return None
    node = os.path.realpath(node)  # process.execPath is the resolved executable
    if os.name == "nt":
        return os.path.dirname(node)
    prefix = os.path.dirname(os.path.dirname(node))
    if env.get("DESTDIR"):
        prefix = os.path.join(env["DESTDIR"], prefix.lstrip("/"))
    return prefix


def _builtin_file(env: Mapping[str, str]) -> str | None:
    """``npmrc`` in the npm package the ``npm`` on PATH runs (bin/npm-cli.js -> the package)."""
    npm = _on_path("npm", env)
    if npm is None:
        return None
    script = os.path.realpath(npm)
    if os.path.basename(os.path.dirname(script)) == "bin":
        return os.path.join(os.path.dirname(os.path.dirname(script)), "npmrc")
    return None


def local_prefix(cwd: str) -> str:
    """The nearest ancestor of ``cwd`` holding package.json or node_modules, else ``cwd``."""
    here = os.path.abspath(cwd)
    while True:
        if os.path.isfile(os.path.join(here, "package.json")) or os.path.isdir(os.path.join(here, "node_modules")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return os.path.abspath(cwd)
        here = parent


# --- the syntax --------------------------------------------------------------------------------

def _read(path: str, ctx: tuple) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return {}
    return {key: _field(key, value, ctx) for key, value in parse(text).items()}


def _env_layer(env: Mapping[str, str], ctx: tuple) -> dict:
    values: dict[str, object] = {}
    for name, value in env.items():
        if not name.lower().startswith("npm_config_") or value == "":
            continue
        key = name[len("npm_config_"):]
        if not key.startswith("//"):
            key = (key[:1] + key[1:].replace("_", "-")).lower()
        values[key] = _field(key, value, ctx)
    return values


def parse(text: str) -> dict[str, str | list[str]]:
    """The top-level keys of an npm ini file (values unexpanded; ``key[]`` collects a list)."""
    out: dict[str, str | list[str]] = {}
    in_section = False
    for line in text.replace("\r", "\n").split("\n"):
        stripped = line.strip()
        if not stripped or stripped[0] in ";#":
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            in_section = True
            continue
        if in_section:
            continue
        raw_key, eq, raw_value = line.partition("=")
        key = unquote(raw_key)
        value = unquote(raw_value) if eq else "true"
        is_array = key.endswith("[]") and len(key) > 2
        if is_array:
            key = key[:-2]
        if not key or key == "__proto__":
            continue
        current = out.get(key)
        if is_array and not isinstance(current, list):
            out[key] = [] if current is None else [current]
        if isinstance(out.get(key), list):
            out[key].append(value)  # type: ignore[union-attr]
        else:
            out[key] = value
    return out


def unquote(raw: str) -> str:
    """An ini value as npm's ini decodes it: quoted values unquoted (double quotes as JSON),
    else cut at the first unescaped ``;`` or ``#``."""
    value = raw.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        if value[0] == "'":
            return value[1:-1]
        decoded = _json_string(value)
        return value if decoded is None else decoded
    out: list[str] = []
    escaped = False
    for char in value:
        if escaped:
            out.append(char if char in "\\;#" else "\\" + char)
            escaped = False
        elif char in ";#":
            break
        elif char == "\\":
            escaped = True
        else:
            out.append(char)
    if escaped:
        out.append("\\")
    return "".join(out).strip()


_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _json_string(quoted: str) -> str | None:
    """A JSON string literal decoded (None when it is not one), without importing json."""
    body, out, i = quoted[1:-1], [], 0
    while i < len(body):
        char = body[i]
        if char == '"':
            return None
        if char != "\\":
            out.append(char)
            i += 1
            continue
        nxt = body[i + 1: i + 2]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt == "u" and len(body) >= i + 6:
            try:
                out.append(chr(int(body[i + 2: i + 6], 16)))
            except ValueError:
                return None
            i += 6
        else:
            return None
    return "".join(out)


def expand(text: str, env: Mapping[str, str]) -> str:
    """npm's ``${VAR}``/``${VAR?}`` replacement, with backslash escapes of the ``$``."""
    out: list[str] = []
    i = 0
    while i < len(text):
        start = text.find("${", i)
        if start < 0:
            out.append(text[i:])
            break
        end = text.find("}", start + 2)
        name = text[start + 2: end] if end > 0 else ""
        optional = name.endswith("?")
        if optional:
            name = name[:-1]
        if end < 0 or not name or any(c in name for c in "${}?"):
            out.append(text[i: start + 2])
            i = start + 2
            continue
        slashes = 0
        while start - slashes - 1 >= i and text[start - slashes - 1] == "\\":
            slashes += 1
        out.append(text[i: start - slashes])
        if slashes % 2:  # an escaped ${: keep it literally, each pair of backslashes halved
            out.append("\\" * (slashes // 2) + text[start: end + 1])
        else:
            value = env.get(name)
            out.append("\\" * (slashes // 2) + (value if value is not None else ("" if optional else text[start: end + 1])))
        i = end + 1
    return "".join(out)


def _field(key: str, value: object, ctx: tuple) -> object:
    env, home, cwd = ctx
    if isinstance(value, list):
        return [_field(key, item, ctx) for item in value]
    if not isinstance(value, str):
        return value
    value = expand(value.strip(), env)
    if key in PATH_KEYS and value:
        if value.startswith("~/"):
            value = os.path.join(home, value[2:])
        value = os.path.normpath(os.path.join(cwd, value))
    return value


def is_false(value: object) -> bool:
    """npm's reading of a boolean key that is off."""
    return isinstance(value, str) and value.strip().lower() == "false"
