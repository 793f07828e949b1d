"""The registry conformance kit: the adapter contract every fake registry meets, and the table.

Every registry owes the same guarantees, and each is one parametrized suite over the adapters
below (npm and PyPI included), never a copy per registry:

- the chain through both surfaces: files, read, grep_file, grep_repo, symbols and diff of a
  published package, and each error kind, give the same bytes from ``--json`` and MCP
  (tests/test_registry_conformance.py);
- hostile archives never escape the entry (tests/hardening/test_registry_hostile.py);
- one changed byte is INTEGRITY_ERROR with nothing cached, a cached exact version is read
  without the registry, and a republished version never touches the cached entry
  (tests/hardening/test_registry_integrity.py);
- every upstream fault, at every place the registry is read, is its typed error with nothing
  cached (tests/hardening/test_registry_faults.py);
- names and versions the package manager refuses are INVALID_ARGUMENT naming the field, on both
  surfaces, before any request (tests/hardening/test_registry_bad_names.py).

Adding a registry takes, in the tests (conda, cran and pub were the first added this way):

1. its fake, ``tests/fakes/<name>.py``: a real server on 127.0.0.1 speaking the real wire
   format (the others are the models), with a ``publish``;
2. its adapter, ``tests/support/adapters/<name>.py``: a subclass of ``Adapter`` that fills in
   the contract below, and its line in ``ADAPTERS``;
3. ``tests/test_registry_<name>.py`` for what is peculiar to it only: its version order, its
   name rules, its endpoint discovery, its own artifact layout, its package manager as an oracle.

Every shared suite then runs against it; tests/test_registry_conformance.py checks that the
table names every registry codenav offers (the ``registry`` enum of the tool schemas).

The contract. Class attributes:

- ``registry``: the target prefix (``crates``); ``id``: the suite's parameter id (the prefix,
  unless one registry has two adapters, as PyPI has for wheels and sdists);
- ``fake_class`` and ``endpoint_variable``: the fake, made on the adapter's server by the
  default ``start()``, and codenav's variable the default ``env()`` points at its ``url``;
- ``aliases``: alias prefixes codenav accepts for it (``cargo``), echoed canonical;
- ``variables``: configuration the tests must clear (codenav's variables and the package
  manager's own); tests/conftest.py clears them for every test;
- ``kind``: ``"tar"`` or ``"zip"``, the archive that holds the files a publisher controls (for
  a .gem, the inner data.tar.gz): the hostile cases of that kind are run;
- ``hashes``: the hash names a published artifact can be verified by, strongest first; the
  integrity suite runs each (``publish(..., hash=...)`` publishes for it);
- ``bad_names`` / ``bad_versions``: what the package manager refuses;
- ``republishes``: False where a version's bytes can never change (Go's checksum database);
- ``pins_forever``: False where a pinned version is resolved again after the TTL, like a range
  (conda: a channel adds builds to published versions, so ``is_exact`` is never true); the
  republish suite then expects the pin to follow the registry, in an entry of its own;
- ``live``: a real package to read from the public registry when ``CODENAV_LIVE_REGISTRIES``
  names it (``-m live``): (name, version, a path it holds, whether it is verified).

Methods (``name`` is always the result of ``package(stem)``, ``version`` of ``version(text)``):

- ``package(stem)`` / ``version(text)``: a valid name made from a lower-case stem
  (``org.example:demo``), a version in the registry's spelling (Go's ``v1.0.0``);
- ``start()``: make the fake on ``self.server``; ``env()``: the variables naming it (by
  default ``endpoint_variable`` = the fake's ``url``);
  ``isolate(monkeypatch, tmp_path)``: anything else a test must not inherit (a working
  directory without a .cargo above it);
- ``publish(name, version, files, hash=None) -> bytes``: a release holding ``files`` (path ->
  bytes, at the root once unpacked), verifiable by ``hash``; returns the artifact as served (by
  default the fake's own ``publish(name, version, files)``);
- ``publish_archive(name, version, data)``: a release whose ``kind`` archive is exactly ``data``
  (members under ``top(name, version)``), with the registry's hash of what is served;
- ``publish_hostile(name, version, case, root) -> Case``: the default builds the case's archive
  and calls ``publish_archive``; a registry whose verification sees more (Go's h1 covers the
  files, not the bytes) publishes otherwise and returns the outcome it owes instead;
- ``corrupt(name, version, where)``: serve the artifact with one byte changed (``first``,
  ``middle``, ``last``) under the hash published before (by default through the fake's
  ``record(name, version).data``);
- ``forget(name)``: drop every release of ``name`` (a republish then replaces the version);
- ``places(name, version)``: the ``Place``s a resolution reads, the package's own metadata
  document first (computed from the name and version alone, without the fake);
- ``echo(name, version)``: the ``target`` a listing of it echoes (without ``versionSource``);
- ``extra_files(name, version)``: the files the artifact holds beside the published ones
  (Cargo.toml, META-INF/MANIFEST.MF, a nupkg's OPC parts), as listed;
- ``integrity_message(hash)``: what an integrity failure's message says;
- ``hostile_cases()`` / ``accepts(case)``: cases of its own (a folder rule) and shared cases it
  cannot express.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.fakes.http import FakeServer

from . import hostile
from .faults import Fault


@dataclass(frozen=True)
class Place:
    """Where a resolution reads: the request paths (exact, or prefixes), what is read there, and
    what a fault there becomes when it differs from the shared table of its kind."""

    id: str
    paths: tuple[str, ...]
    kind: str  # "document" | "artifact" | "hop" (faults.EXPECTED)
    prefix: bool = False
    pinned: bool = True  # the call names the version (False: the version list is read)
    expected: dict[str, tuple[str, bool]] = field(default_factory=dict)  # fault -> (code, retryable)
    faults: dict[str, Fault] = field(default_factory=dict)  # fault -> how this place meets it
    setup: Callable[[Any, pytest.MonkeyPatch], None] | None = None  # (adapter, monkeypatch)


def flip(data: bytes, where: str) -> bytes:
    """``data`` with one bit of one byte changed: the first, the middle or the last."""
    at = {"first": 0, "middle": len(data) // 2, "last": len(data) - 1}[where]
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Adapter:
    """The defaults of the contract (see the module docstring); a registry overrides the rest."""

    registry: ClassVar[str]
    fake_class: ClassVar[type]
    endpoint_variable: ClassVar[str] = ""
    id: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    variables: ClassVar[tuple[str, ...]] = ()
    kind: ClassVar[str]
    hashes: ClassVar[tuple[str, ...]] = ("sha256",)
    bad_names: ClassVar[tuple[str, ...]] = ()
    bad_versions: ClassVar[tuple[str, ...]] = ("../../1",)
    republishes: ClassVar[bool] = True
    pins_forever: ClassVar[bool] = True
    live: ClassVar[tuple[str, str, str, bool] | None] = None

    def __init__(self, server: FakeServer, fake: Any = None) -> None:
        """Start the fake on ``server``, or share ``fake`` (another adapter's of the same registry)."""
        self.server = server
        self.fake: Any = fake if fake is not None else self.start()

    @classmethod
    def unstarted(cls) -> Adapter:
        """An adapter with no fake: enough for ``package``, ``version``, ``args``, ``spec``,
        ``top`` and ``places`` (the suites list their cases from these at collection)."""
        return cls.__new__(cls)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.__dict__.get("id"):
            cls.id = cls.registry

    # --- names --------------------------------------------------------------------------------
    def package(self, stem: str) -> str:
        return stem

    def version(self, text: str) -> str:
        return text

    def spec(self, name: str, version: str | None = None, prefix: str | None = None) -> str:
        """The CLI's ``registry:name@version``."""
        return f"{prefix or self.registry}:{name}" + (f"@{version}" if version is not None else "")

    def args(self, name: str, version: str | None = None) -> dict:
        """The tools' target arguments."""
        return {"registry": self.registry, "package_name": name, **({"version": version} if version else {})}

    # --- the fake -----------------------------------------------------------------------------
    def start(self) -> Any:
        return self.fake_class(self.server)

    def env(self) -> dict[str, str]:
        return {self.endpoint_variable: self.fake.url}

    def isolate(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        """Nothing more than the variables by default."""

    def publish(self, name: str, version: str, files: dict[str, bytes], hash: str | None = None) -> bytes:
        return self.fake.publish(name, version, files)

    def publish_archive(self, name: str, version: str, data: bytes) -> None:
        raise NotImplementedError

    def publish_hostile(self, name: str, version: str, case: hostile.Case, root: Path) -> hostile.Case:
        self.publish_archive(name, version, hostile.archive(case, self.kind, self.top(name, version), root))
        return case

    def top(self, name: str, version: str) -> str:
        return ""

    def corrupt(self, name: str, version: str, where: str) -> None:
        """By default the fake's ``record(name, version)`` holds the served bytes in ``data``."""
        record = self.fake.record(name, version)
        record.data = flip(record.data, where)

    def forget(self, name: str) -> None:
        raise NotImplementedError

    def places(self, name: str, version: str) -> list[Place]:
        raise NotImplementedError

    def echo(self, name: str, version: str) -> dict:
        raise NotImplementedError

    def extra_files(self, name: str, version: str) -> tuple[str, ...]:
        return ()

    def integrity_message(self, hash: str) -> str:
        return f"does not match its published {hash} hash"

    @classmethod
    def hostile_cases(cls) -> list[tuple[str, hostile.Case]]:
        return []

    @classmethod
    def accepts(cls, case: hostile.Case) -> bool:
        return True


# The adapters, in the order of codenav's registry table (module, class).
ADAPTERS: dict[str, tuple[str, str]] = {
    "npm": ("npm", "NpmAdapter"),
    "pypi-wheel": ("pypi", "WheelAdapter"),
    "pypi-sdist": ("pypi", "SdistAdapter"),
    "crates": ("crates", "CratesAdapter"),
    "go": ("go", "GoAdapter"),
    "maven": ("maven", "MavenAdapter"),
    "rubygems": ("rubygems", "RubygemsAdapter"),
    "nuget": ("nuget", "NugetAdapter"),
    "hex": ("hex", "HexAdapter"),
    "packagist": ("packagist", "PackagistAdapter"),
    "conda": ("conda", "CondaAdapter"),
    "cran": ("cran", "CranAdapter"),
    "pub": ("pub", "PubAdapter"),
}
IDS = tuple(ADAPTERS)


def adapter_class(adapter_id: str) -> type[Adapter]:
    module, name = ADAPTERS[adapter_id]
    return getattr(importlib.import_module(f"tests.support.adapters.{module}"), name)


def all_variables() -> tuple[str, ...]:
    """Every adapter's configuration variables (tests/conftest.py clears them for each test)."""
    return tuple(dict.fromkeys(v for adapter_id in IDS for v in adapter_class(adapter_id).variables))


# Parametrize a test over every registry: its ``registry`` fixture is then the started adapter.
each_registry = pytest.mark.parametrize("registry", IDS, indirect=True)


@contextmanager
def started(adapter_id: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Adapter]:
    """The adapter's fake started on 127.0.0.1 and named by its variables, for one test."""
    with FakeServer() as server:
        adapter = adapter_class(adapter_id)(server)
        adapter.isolate(monkeypatch, tmp_path)
        for name, value in adapter.env().items():
            monkeypatch.setenv(name, value)
        yield adapter


def fake_fixture(adapter_id: str) -> Any:
    """A fixture giving a test the fake of ``adapter_id``, started and configured (``started``):
    ``crates = fake_fixture("crates")`` in a test module."""

    @pytest.fixture
    def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
        with started(adapter_id, monkeypatch, tmp_path) as adapter:
            yield adapter.fake

    fake.__doc__ = f"The fake {adapter_id} registry, named by its variables."
    return fake


@contextmanager
def surfaces(base: Path) -> Iterator[dict[str, Any]]:
    """Every registry's fake and one ``codenav mcp`` sharing the CLI's environment (a module's
    world, for ``mcp.check``): ``{"registries": {id: adapter}, "env": env, "mcp": session}``.
    Adapters of one registry share its fake (their package names differ)."""
    from .cli import isolated_subprocess_env
    from .mcp import McpSession

    with ExitStack() as stack:
        adapters: dict[str, Adapter] = {}
        # No registry or package-manager configuration of the machine (GOFLAGS, HEX_MIRROR, …).
        env = {k: v for k, v in isolated_subprocess_env(base).items() if k not in all_variables()}
        for adapter_id in IDS:
            cls = adapter_class(adapter_id)
            twin = next((a for a in adapters.values() if a.registry == cls.registry), None)
            if twin is not None:
                adapters[adapter_id] = cls(twin.server, twin.fake)
                continue
            adapters[adapter_id] = cls(stack.enter_context(FakeServer()))
            env.update(adapters[adapter_id].env())
        session = McpSession(env)
        stack.callback(session.close)
        yield {"registries": adapters, "env": env, "mcp": session}
