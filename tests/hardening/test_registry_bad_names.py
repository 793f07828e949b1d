"""Names and versions a registry's package manager refuses, for every registry (SPEC §2.1, §4).

Each is INVALID_ARGUMENT naming its field (``package_name`` or ``version``), not retryable, the
same bytes from ``codenav files --json`` as from MCP, exit 1, no traceback, and not a single
request reaches the registry.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.mcp import check
from tests.support.registries import IDS, adapter_class, surfaces

pytestmark = pytest.mark.hardening


def _rows() -> list:
    rows = []
    for adapter_id in IDS:
        adapter = adapter_class(adapter_id).unstarted()
        name = adapter.package("serde")
        rows += [pytest.param(adapter_id, bad, None, "package_name", id=f"{adapter_id}-name-{bad!r}")
                 for bad in adapter.bad_names]
        rows += [pytest.param(adapter_id, name, bad, "version", id=f"{adapter_id}-version-{bad!r}")
                 for bad in adapter.bad_versions]
    return rows


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    with surfaces(tmp_path_factory.mktemp("registries")) as world:
        yield world


@pytest.mark.parametrize(("adapter", "name", "version", "field"), _rows())
def test_a_bad_name_or_version_is_one_invalid_argument_on_both_surfaces(world, adapter: str, name: str,
                                                                         version: str | None, field: str) -> None:
    """INVALID_ARGUMENT naming the field, one envelope on both surfaces, and no request sent."""
    registry = world["registries"][adapter]
    arguments = {**registry.args(name), **({"version": version} if version is not None else {})}
    spec = registry.spec(name) + (f"@{version}" if version is not None else "")
    payload = check(world, "list_files", arguments, ["files", spec], code="INVALID_ARGUMENT")
    assert payload["error"]["details"]["field"] == field and payload["error"]["retryable"] is False
    assert registry.server.seen == []


def test_every_registry_names_names_and_versions_it_refuses() -> None:
    """A registry's adapter lists at least three bad names and one bad version (its package
    manager's rules, never only the generic traversal)."""
    assert {i: (len(adapter_class(i).bad_names) >= 3, len(adapter_class(i).bad_versions) >= 1) for i in IDS} == {
        i: (True, True) for i in IDS}
