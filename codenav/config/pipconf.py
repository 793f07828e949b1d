"""pip's configuration files and variables, in pip's order (SPEC §8.1).

Load order, later wins: global (Unix: each ``$XDG_CONFIG_DIRS`` entry's ``pip/pip.conf`` in
order, then ``/etc/pip.conf``; macOS ``/Library/Application Support/pip/pip.conf``; Windows
``C:\\ProgramData\\pip\\pip.ini``) < user (``~/.pip/pip.conf``, then
``$XDG_CONFIG_HOME/pip/pip.conf``; macOS ``~/Library/Application Support/pip/pip.conf`` when
that folder exists; Windows ``%APPDATA%\\pip\\pip.ini`` after the legacy ``~\\pip\\pip.ini``) <
base (``sys.base_prefix``) < site (``sys.prefix``, and ``$VIRTUAL_ENV`` when set) <
``PIP_CONFIG_FILE`` < ``PIP_*`` variables. ``PIP_CONFIG_FILE=os.devnull`` loads no file at
all; when ``PIP_CONFIG_FILE`` names an existing file the user files are skipped.

Keys are ``section.name`` with the name lower-cased and ``_`` as ``-``, as pip normalises
them; a setting is then looked up as pip's commands do: ``[global]``, overridden by the
command's section (``[download]``), overridden by ``PIP_<NAME>``, across all files.

The parser is a small RawConfigParser subset (``=`` or ``:``, ``#``/``;`` comment lines,
indented continuation lines): configparser imports ``re``, and a warm call reads
``index-url`` through here. Only ``os`` (and the built-in ``sys``) are imported.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Mapping

SECTIONS = ("global", "download")  # what `pip download` reads, in order
IGNORED_VARIABLES = frozenset({"version", "help"})  # pip ignores PIP_VERSION and PIP_HELP


def files(env: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """(kind, path) of every file pip would read, lowest priority first; [] under os.devnull."""
    env = os.environ if env is None else env
    chosen = env.get("PIP_CONFIG_FILE")
    if chosen == os.devnull:
        return []
    home = env.get("HOME") or os.path.expanduser("~")
    out: list[tuple[str, str]] = []
    if sys.platform == "win32":
        program_data = env.get("PROGRAMDATA") or "C:\\ProgramData"
        out.append(("global", os.path.join(program_data, "pip", "pip.ini")))
        user = [os.path.join(home, "pip", "pip.ini")]
        if env.get("APPDATA"):
            user.append(os.path.join(env["APPDATA"], "pip", "pip.ini"))
    elif sys.platform == "darwin":
        out.append(("global", "/Library/Application Support/pip/pip.conf"))
        support = os.path.join(home, "Library", "Application Support")
        new = (os.path.join(support, "pip", "pip.conf") if os.path.isdir(support)
               else os.path.join(home, ".config", "pip", "pip.conf"))
        user = [os.path.join(home, ".pip", "pip.conf"), new]
    else:
        for folder in (env.get("XDG_CONFIG_DIRS") or "/etc/xdg").split(os.pathsep):
            if folder:
                out.append(("global", os.path.join(folder, "pip", "pip.conf")))
        out.append(("global", "/etc/pip.conf"))
        config_home = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        user = [os.path.join(home, ".pip", "pip.conf"), os.path.join(config_home, "pip", "pip.conf")]
    name = "pip.ini" if sys.platform == "win32" else "pip.conf"
    if not (chosen and os.path.exists(chosen)):
        out += [("user", path) for path in user]
    if sys.base_prefix != sys.prefix:
        out.append(("base", os.path.join(sys.base_prefix, name)))
    out.append(("site", os.path.join(sys.prefix, name)))
    venv = env.get("VIRTUAL_ENV")
    if venv and os.path.abspath(venv) != os.path.abspath(sys.prefix):
        out.append(("site", os.path.join(venv, name)))
    if chosen:
        out.append(("env", chosen))
    return out


class Config:
    """Every ``section.name`` pip reads, with the file (or variable) that sets it."""

    def __init__(self, raw: dict[str, tuple[str, str]], every: list[tuple[str, str, str]]) -> None:
        self.raw = raw  # "section.name" -> (value, source), the winning file's
        self.every = every  # ("section.name", value, source) of every file and variable, in load order

    def all(self, name: str, sections: tuple[str, ...] = SECTIONS) -> list[tuple[str, str, str]]:
        """(value, source, section) of every setting of ``name`` in any file or variable."""
        wanted = (*sections, ":env:")
        return [(value, source, key.split(".", 1)[0]) for key, value, source in self.every
                if key.split(".", 1)[0] in wanted and key.split(".", 1)[1] == name]

    def get(self, name: str, sections: tuple[str, ...] = SECTIONS) -> tuple[str, str] | None:
        """(value, source) of setting ``name`` as a pip command with these sections sees it."""
        found = None
        for section in (*sections, ":env:"):
            if f"{section}.{name}" in self.raw:
                found = self.raw[f"{section}.{name}"]
        return found

    def value(self, name: str, sections: tuple[str, ...] = SECTIONS) -> str | None:
        found = self.get(name, sections)
        return found[0] if found else None


def load(env: Mapping[str, str] | None = None) -> Config:
    """pip's merged configuration for a process with environment ``env``."""
    env = os.environ if env is None else env
    raw: dict[str, tuple[str, str]] = {}
    every: list[tuple[str, str, str]] = []
    for _, path in files(env):
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError):
            continue
        for section, options in parse(text).items():
            for name, value in options.items():
                raw[f"{section}.{normalize(name)}"] = (value, path)
                every.append((f"{section}.{normalize(name)}", value, path))
    for variable, value in env.items():
        if variable.startswith("PIP_"):
            name = variable[4:].lower()
            if name not in IGNORED_VARIABLES:
                raw[f":env:.{normalize(name)}"] = (value, variable)
                every.append((f":env:.{normalize(name)}", value, variable))
    return Config(raw, every)


def normalize(name: str) -> str:
    name = name.lower().replace("_", "-")
    return name[2:] if name.startswith("--") else name


def parse(text: str) -> dict[str, dict[str, str]]:
    """Sections -> options, as RawConfigParser reads them (names lower-cased, values stripped,
    continuation lines joined with newlines); a line before any section is ignored."""
    out: dict[str, dict[str, str]] = {}
    section: dict[str, str] | None = None
    last: str | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        if line[0] in " \t" and section is not None and last is not None:
            section[last] = (section[last] + "\n" + stripped).strip()
            continue
        if stripped.startswith("[") and "]" in stripped:
            section = out.setdefault(stripped[1: stripped.index("]")], {})
            last = None
            continue
        if section is None:
            continue
        cut = min((i for i in (stripped.find("="), stripped.find(":")) if i > 0), default=-1)
        if cut < 0:
            continue
        last = stripped[:cut].strip().lower()
        section[last] = stripped[cut + 1:].strip()
    return out


def split_list(value: str) -> list[str]:
    """A multi-valued setting (``trusted-host``): whitespace- or newline-separated."""
    return value.split()
