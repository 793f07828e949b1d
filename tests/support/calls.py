"""The in-process calls registry tests make most: what ``list_files`` lists, or the error it
raises, and the tool arguments naming one package."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from codenav.errors import CodenavError


def files_of(args: dict | None = None, **kwargs: object) -> list[str]:
    """The paths ``list_files`` lists for ``args`` (a dict, or keywords)."""
    from codenav.tools import list_files

    return [f["path"] for f in list_files.run({**(args or {}), **kwargs})["files"]]


def list_error(args: dict | None = None, **kwargs: object) -> CodenavError:
    """The ``CodenavError`` ``list_files`` raises for ``args`` (fails the test when it lists)."""
    from codenav.tools import list_files

    with pytest.raises(CodenavError) as info:
        list_files.run({**(args or {}), **kwargs})
    return info.value


def target_maker(registry: str, name: str, version: str) -> Callable[..., dict]:
    """``target(version=VERSION, name=NAME) -> dict``: one registry's tool arguments for the
    package its tests read most, the version left out when it is None."""

    def target(version: str | None = version, name: str = name) -> dict:
        return {"registry": registry, "package_name": name, **({"version": version} if version is not None else {})}

    return target
