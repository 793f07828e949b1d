"""The warm path: a call on a cached target stays cheap, and its shortcuts answer as before.

A warm ``codenav read``/``files``/``grep``/``symbols`` must cost little more than starting
Python (the benchmarks in bench/), so it avoids argparse, json, re, typing and pathlib, and
never imports the network or validation libraries. Each shortcut taken for that is checked here against
the general code it stands in for.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re

import pytest

from codenav import budget, cli, grammar, paths, targets, text
from codenav.cache import store
from codenav.registries import npm, pypi
from tests.fakes.archives import make_tgz
from tests.fakes.http import FakeServer
from tests.fakes.npm import FakeNpm
from tests.support.cli import settle
from tests.support.warm import NEVER, TOO_HEAVY, imported_by

FILES = {
    "package.json": b'{"name": "demo"}\n',
    "lib/a.js": b"// A\nfunction Alpha() {}\nexports.alpha = Alpha;\n",
    "lib/types.d.ts": b"export interface AlphaOptions { strict?: boolean }\n",
    "lib/sub/b.js": b"export const b = 1;\n",
    "libx.js": b"x\n",
    "lib.js": b"y\n",
}
SPEC = "npm:demo@1.0.0"


@pytest.fixture()
def registry(npm):
    """The fake npm registry, with demo@1.0.0 published."""
    npm.publish("demo", "1.0.0", FILES)
    return npm


@pytest.mark.parametrize("argv", [
    ["read", SPEC, "lib/a.js"],
    ["files", SPEC],
    ["files", SPEC, "lib"],
    ["grep", SPEC, "alpha", "lib/a.js"],
    ["grep", SPEC, "alpha"],
    ["grep", SPEC, "alpha", "lib"],
    ["symbols", SPEC, "Alpha"],
    ["symbols", SPEC, "alpha", "lib", "--kind", "function", "--kind", "interface", "--match", "prefix", "--max", "5"],
])
def test_a_warm_call_imports_no_network_validation_or_heavy_module(registry, argv):
    """On a cached package, read/files/grep/symbols import neither requests, urllib3 nor jsonschema,
    and none of the stdlib modules that cost more than the call itself."""
    assert cli.main(["files", SPEC, "--wait", "60000"]) == 0  # index it (cold)
    settle()  # the indexer derives the symbol index after answering: warm means after that
    loaded = imported_by(argv)
    assert not loaded & NEVER
    assert not loaded & TOO_HEAVY


def test_json_output_still_avoids_the_network_and_validation_modules(registry):
    """--json needs the json module, but still neither requests nor jsonschema."""
    assert cli.main(["files", SPEC, "--wait", "60000"]) == 0
    assert not imported_by(["read", SPEC, "lib/a.js", "--json"]) & NEVER


# --- the quick reading of the command line ---------------------------------------------------

# Words that are not options of any command: the shapes only argparse should read.
TRICKY = [SPEC, "lib/a.js", "pat", "--", "-", "", "-x", "-5", "-h", "--help", "é", "-sw", "-C3", "--json=1",
          "--verb", "--li", "--case", "--ma", "--lines=", "x"]


def words_of(command: grammar.Command) -> list[str]:
    """Every spelling of ``command``'s options, with values, ``=`` forms and abbreviations, and the tricky words."""
    words = list(TRICKY)
    for option in command.options:
        for flag in option.flags:
            words.append(flag)
            if option.kind != grammar.SWITCH:
                words += [f"{flag}=1-5" if flag.startswith("--") else flag, "3", "2-00ff", "function"]
        words.append(option.flags[0][:5])  # an abbreviation, or a flag's prefix
    return words


def argparse_namespace(argv: list[str]) -> dict | None:
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            return vars(cli._build_parser(argv[0]).parse_args(argv))
        except SystemExit:
            return None


@pytest.mark.parametrize("command", sorted(grammar.COMMANDS))
def test_the_quick_reading_equals_argparse_or_defers_to_it(command):
    """For thousands of command lines, the quick reader returns exactly argparse's namespace,
    or nothing (then argparse reads it, errors and help included)."""
    rnd = random.Random(command)
    words = words_of(grammar.COMMANDS[command])
    taken = 0
    for _ in range(3000):
        argv = [command] + [rnd.choice(words) for _ in range(rnd.randint(0, 6))]
        quick = grammar.quick_namespace(argv)
        if quick is not None:
            taken += 1
            assert vars(quick) == argparse_namespace(argv), argv
    assert taken > 150  # the common shapes do take the quick path


@pytest.mark.parametrize("argv", [
    ["read", SPEC, "lib/a.js", "--lines", "-3"],  # a value starting with '-'
    ["read", SPEC, "--json", "lib/a.js"],  # positionals on both sides: argparse refuses it
    ["files", "--help"],
    ["grep", SPEC, "x", "f", "-C2"],
    ["search"],  # QUERY missing: argparse's usage error
    ["fetch", "u1", "u2"],  # an operand too many
    ["diff", SPEC, "1", "2", "--stat", "--numstat"],  # two of one exclusive group
    ["cache", "list"],  # not a tool
])
def test_uncommon_command_lines_go_to_argparse(argv):
    """The quick reader declines what only argparse should answer."""
    assert grammar.quick_namespace(argv) is None


@pytest.mark.parametrize("command", sorted(grammar.COMMANDS))
def test_every_declared_option_becomes_the_argparse_action_the_quick_reader_assumes(command):
    """Each option of a command's declaration is in its argparse parser with the same dest: a switch
    a store_true, a list an append, any other a plain option keeping its value as the string given
    (no argparse type the quick reader would have to copy); and the parser has no other option."""
    parser = cli._build_parser(command)
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    declared = {flag: option for option in grammar.COMMANDS[command].options for flag in option.flags}
    seen = set()
    for action in sub._actions:
        if not action.option_strings or action.dest == "help":
            continue
        for flag in action.option_strings:
            option = declared[flag]
            seen.add(flag)
            kind = type(action).__name__
            if option.kind == grammar.SWITCH:
                assert (kind, action.dest, action.const, action.default) == ("_StoreTrueAction", option.dest, True, False)
            elif option.kind == grammar.LIST:
                assert (kind, action.dest, action.type, action.default) == ("_AppendAction", option.dest, None, None)
            else:
                assert (kind, action.dest, action.type, action.nargs, action.default) == (
                    "_StoreAction", option.dest, None, None, None)
    assert seen == set(declared)


# --- shortcuts against the code they replace -----------------------------------------------

_NPM_NAME = re.compile(r"^(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9._~-][a-z0-9._~-]*$", re.IGNORECASE)
_PYPI_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+_!-]*$")
_EXACT_NPM = re.compile(r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")


def test_name_and_version_checks_accept_what_the_regular_expressions_accept():
    """The character-set checks of targets.py and the registry modules agree with the patterns they replace on every
    ASCII string (the patterns also took a trailing newline and, for npm, the Kelvin sign and
    long s through IGNORECASE; neither is a name any registry serves)."""
    rnd = random.Random(1)
    alphabet = "aZ09@/._~-+!_ "
    for _ in range(50_000):
        word = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 7)))
        assert npm.is_name(word) == bool(_NPM_NAME.match(word)), word
        assert pypi.is_name(word) == bool(_PYPI_NAME.match(word)), word
        assert targets._is_version(word) == bool(_VERSION.match(word)), word
        assert pypi.pep503(word) == re.sub(r"[-_.]+", "-", word).lower(), word
    for _ in range(50_000):
        word = "".join(rnd.choice("019.-+aZ_!") for _ in range(rnd.randint(0, 9)))
        assert npm.is_exact(word) == bool(_EXACT_NPM.match(word)), word


@pytest.mark.parametrize("document", [
    '{"a": [1, 2.5, -0.0e3, null, true, false, "x\\u00e9\\n"], "b": {}}', " [] \n", "1", '"s"', "NaN", "[Infinity]",
    '{"a":1} x', "", "\ufeff{}", '{"a":', "[1,]", '{"a" 1}', '"\\ud800"',
])
def test_the_light_json_reader_returns_what_json_loads_returns(document):
    """paths.loads gives json.loads's value, or raises its error, for any text."""
    def outcome(loads):
        try:
            return "value", repr(loads(document))
        except ValueError as exc:
            return "error", type(exc), str(exc)

    assert outcome(paths.loads) == outcome(json.loads)


def test_line_splitting_and_the_budget_fit_agree_with_their_definitions():
    """split_lines is the text cut after each '\\n' whatever other breaks it holds; fit keeps the
    longest prefix of lines within the byte and line budget (a lone long line is cut)."""
    rnd = random.Random(7)
    alphabet = ["a", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "é", "😀", " "]
    for _ in range(20_000):
        sample = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 10)))
        lines = text.split_lines(sample)
        assert "".join(lines) == sample
        assert all(line.endswith("\n") for line in lines[:-1]) and all("\n" not in line[:-1] for line in lines)
        max_bytes, max_lines = rnd.randint(0, 20), rnd.randint(0, 4)
        kept, cut = budget.fit_lines(lines, max_bytes=max_bytes, max_lines=max_lines)
        whole = 0
        for count in range(len(lines) + 1):
            if count > max_lines or sum(len(x.encode()) for x in lines[:count]) > max_bytes:
                break
            whole = count
        assert cut == (whole < len(lines))
        if whole or not cut:
            assert kept == lines[:whole]
        else:
            assert len(kept) == 1 and kept[0] == budget.cut_line(lines[0], max_bytes)


# --- the listing file ----------------------------------------------------------------------

def plain_listing(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(["files", *args])
    return status, out.getvalue(), err.getvalue()


def entry_dir() -> str:
    base = os.path.join(paths.root(), "entries", "npm", "demo")
    (version,) = os.listdir(base)
    return os.path.join(base, version)


@pytest.mark.parametrize("prefix", [[], ["lib"], ["lib/sub"], ["nothing"], ["*.js"]])
def test_the_plain_listing_is_the_same_with_or_without_the_listing_file(registry, prefix):
    """`codenav files` prints the same bytes, hints included, from paths.txt as from the manifest."""
    assert plain_listing(SPEC, "--wait", "60000")[0] == 0
    assert os.path.isfile(os.path.join(entry_dir(), store.LISTING))
    from_listing = plain_listing(SPEC, *prefix)
    os.remove(os.path.join(entry_dir(), store.LISTING))
    assert from_listing == plain_listing(SPEC, *prefix)


def test_skipped_entries_are_reported_from_the_listing_file_too(monkeypatch):
    """An archive entry skipped at extraction is noted on stderr by either listing."""
    with FakeServer() as server:
        fake = FakeNpm(server)
        fake.publish("demo", "1.0.0", {}, tarball=make_tgz({**FILES, "bad\x1bname.js": b"x"}))
        monkeypatch.setenv("CODENAV_NPM_REGISTRY", fake.url)
        first = plain_listing(SPEC, "--wait", "60000")
    assert "1 archive entries were skipped" in first[2]
    os.remove(os.path.join(entry_dir(), store.LISTING))
    assert plain_listing(SPEC) == first
