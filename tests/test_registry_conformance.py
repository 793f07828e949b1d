"""The chain through both surfaces, for every registry (SPEC §2, §4, §7).

One world per registry (its fake, one ``codenav mcp`` sharing the CLI's environment) publishes
a demo package in two versions, one tampered with, one hostile, and two whose metadata is
garbled or failing. files, read, grep (one file and the whole package), symbols and diff of the
demo, and every kind of error, must give the same bytes from ``--json`` as from MCP, the
payload valid against its schema, the target echoed as the registry's adapter says. Aliases
read the same package and echo the canonical prefix; plain CLI output is the file's bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support import faults
from tests.support.archives import File
from tests.support.cli import ORIGINAL_ENV, ROOT, as_the_user, run_cli
from tests.support.hostile import Case
from tests.support.mcp import check
from tests.support.registries import IDS, adapter_class, surfaces

OLD = {"README.md": b"# demo\n", "src/demo.py": b"def greet():\n    return 'hi'\n"}
NEW = {"README.md": b"# demo\n",
       "src/demo.py": b'"""The demo module."""\n\n\ndef greet() -> str:\n    return "hello from demo"\n'}
ESCAPE = Case([File("@TOP@ok.txt", b"ok"), File("@TOP@../../../../../escape.txt", b"x")])


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Every registry's fake with the demo, tampered, evil, garbled and broken packages, and MCP."""
    base = tmp_path_factory.mktemp("registries")
    with surfaces(base) as world:
        for registry in world["registries"].values():
            version = registry.version("1.0.0")
            demo = registry.package("demo")
            registry.publish(demo, registry.version("0.9.0"), OLD)
            registry.publish(demo, version, NEW)
            registry.publish(registry.package("tampered"), version, NEW)
            registry.corrupt(registry.package("tampered"), version, "middle")
            registry.publish_hostile(registry.package("evil"), version, ESCAPE, base)
            for stem, fault in (("garbled", "wrong-content-type"), ("broken", "502")):
                document = registry.places(registry.package(stem), version)[0]
                faults.fault_route(registry.server, document.paths, document.faults.get(fault, faults.FAULTS[fault]))
        yield world


def _rows() -> list:
    rows = []
    for adapter_id in IDS:
        r = adapter_class(adapter_id).unstarted()
        v = r.version("1.0.0")
        demo = r.package("demo")
        pinned, spec = r.args(demo, v), r.spec(demo, v)

        def row(case: str, tool: str, arguments: dict, argv: list[str], code: str | None = None) -> None:
            rows.append(pytest.param(adapter_id, case, tool, arguments, argv, code, id=f"{adapter_id}-{case}"))  # noqa: B023

        row("files", "list_files", pinned, ["files", spec])
        row("files-latest", "list_files", r.args(demo), ["files", r.spec(demo)])
        row("files-prefix", "list_files", {**pinned, "path_prefix": "src"}, ["files", spec, "src"])
        row("read", "read_file", {**pinned, "path": "src/demo.py"}, ["read", spec, "src/demo.py"])
        row("read-lines", "read_file", {**pinned, "path": "src/demo.py", "start_line": 4},
            ["read", spec, "src/demo.py", "--lines", "4-"])
        row("grep-file", "grep_file", {**pinned, "path": "src/demo.py", "pattern": "hello", "context": 1},
            ["grep", spec, "hello", "src/demo.py", "--context", "1"])
        row("grep-repo", "grep_repo", {**pinned, "pattern": "hello"}, ["grep", spec, "hello"])
        row("symbols", "search_symbols", {**pinned, "query": "greet"}, ["symbols", spec, "greet"])
        row("diff", "diff_versions", {**r.args(demo), "from_version": r.version("0.9.0"), "to_version": v},
            ["diff", r.spec(demo), r.version("0.9.0"), v])
        row("file-not-found", "read_file", {**pinned, "path": "nope.txt"}, ["read", spec, "nope.txt"], "FILE_NOT_FOUND")
        row("not-found", "list_files", r.args(r.package("nosuch")), ["files", r.spec(r.package("nosuch"))], "NOT_FOUND")
        row("version-not-found", "list_files", r.args(demo, r.version("2.0.0")),
            ["files", r.spec(demo, r.version("2.0.0"))], "VERSION_NOT_FOUND")
        for stem, code in (("tampered", "INTEGRITY_ERROR"), ("evil", "UNSAFE_ARCHIVE"), ("garbled", "PROTOCOL_ERROR"),
                           ("broken", "UPSTREAM_ERROR")):
            row(code.lower(), "list_files", r.args(r.package(stem), v), ["files", r.spec(r.package(stem), v)], code)
        bad = r.bad_names[0]
        row("invalid-name", "list_files", r.args(bad), ["files", r.spec(bad)], "INVALID_ARGUMENT")
    return rows


@pytest.mark.parametrize(("adapter", "case", "tool", "arguments", "argv", "code"), _rows())
def test_the_chain_is_byte_identical_on_the_cli_and_mcp(world, adapter: str, case: str, tool: str, arguments: dict,
                                                       argv: list[str], code: str | None) -> None:
    """files, read, grep, symbols and diff of a package, and each error kind, give one payload
    on both surfaces, valid against the tool's schema, echoing what was read."""
    payload = check(world, tool, arguments, argv, code=code)
    registry = world["registries"][adapter]
    name, version = registry.package("demo"), registry.version("1.0.0")
    if code is None and tool != "diff_versions":
        assert {k: v for k, v in payload["target"].items() if k != "versionSource"} == registry.echo(name, version)
    expected = {
        "files": sorted([*NEW, *registry.extra_files(name, version)]),
        "files-latest": sorted([*NEW, *registry.extra_files(name, version)]),
        "files-prefix": ["src/demo.py"],
    }
    if case in expected:
        assert [f["path"] for f in payload["files"]] == expected[case]
    elif case == "read":
        assert payload["content"] == NEW["src/demo.py"].decode()
    elif case == "read-lines":
        assert payload["content"] == "def greet() -> str:\n    return \"hello from demo\"\n"
    elif case == "grep-file":
        assert [line["line"] for b in payload["blocks"] for line in b["lines"] if line["match"]] == [5]
    elif case == "grep-repo":
        assert [(f["path"], f["matchCount"]) for f in payload["files"]] == [("src/demo.py", 1)]
    elif case == "symbols":
        assert [(s["name"], s["kind"], s["path"], s["line"]) for s in payload["results"]] == [
            ("greet", "function", "src/demo.py", 4)]
    elif case == "diff":
        changed = {f["path"]: (f["status"], f["added"], f["removed"]) for f in payload["files"]}
        assert changed.pop("src/demo.py") == ("modified", 5, 2)
        assert set(changed) <= set(registry.extra_files(name, version))  # Cargo.toml names the version
        assert (payload["from"]["version"], payload["to"]["version"]) == (registry.version("0.9.0"), version)
    elif case == "version-not-found":
        details = payload["error"]["details"]
        assert (details["availableVersions"], details["latest"]) == (
            [version, registry.version("0.9.0")], version)
    elif case == "invalid-name":
        assert payload["error"]["details"]["field"] == "package_name"


@pytest.mark.parametrize("adapter", IDS)
def test_plain_read_prints_the_file_and_an_alias_reads_the_same_package(world, adapter: str) -> None:
    """`codenav read SPEC PATH` prints the file's bytes and nothing on stderr, through the
    registry's prefix and each alias of it; `files --json` through an alias echoes the
    canonical prefix."""
    registry = world["registries"][adapter]
    name, version = registry.package("demo"), registry.version("1.0.0")
    for prefix in (registry.registry, *registry.aliases):
        plain = run_cli("read", registry.spec(name, version, prefix), "src/demo.py", env=world["env"])
        assert (plain.returncode, plain.stdout, plain.stderr) == (0, NEW["src/demo.py"], b"")
        listing = run_cli("files", registry.spec(name, version, prefix), "--json", env=world["env"])
        assert listing.returncode == 0, listing.stderr
        assert json.loads(listing.stdout)["target"]["registry"] == registry.registry


@pytest.mark.live
@pytest.mark.parametrize("adapter", [i for i in IDS if adapter_class(i).live])
def test_a_real_package_is_read_from_the_public_registry(adapter: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The adapter's live package from the public registry, read with the user's own package
    manager configuration (only when CODENAV_LIVE_REGISTRIES names the registry; an unreachable
    registry skips)."""
    registry = adapter_class(adapter).unstarted()
    if registry.registry not in (ORIGINAL_ENV.get("CODENAV_LIVE_REGISTRIES") or "").replace(",", " ").split():
        pytest.skip(f"set CODENAV_LIVE_REGISTRIES={registry.registry} to reach the public registry")
    as_the_user(monkeypatch)  # the user's own configuration applies
    name, version, path, verified = registry.live
    proc = run_cli("files", registry.spec(name, version), "--json", "--wait", "60000", timeout=180)
    result = json.loads(proc.stdout)
    if proc.returncode != 0 and result.get("error", {}).get("code") in ("NETWORK", "TIMEOUT"):
        pytest.skip(f"the {registry.registry} registry is unreachable: {result['error']['message']}")
    assert proc.returncode == 0, proc.stderr
    assert (result["target"]["name"], result["target"]["verified"]) == (name, verified)
    assert path in {f["path"] for f in result["files"]}


def test_the_kit_covers_every_registry_codenav_offers() -> None:
    """Every registry of the tools' schema (the `registry` enum MCP clients see) has an adapter,
    and every adapter is one of them."""
    defs = json.loads((ROOT / "schemas" / "defs.json").read_text())
    assert {adapter_class(i).registry for i in IDS} == set(defs["$defs"]["registry"]["enum"])
