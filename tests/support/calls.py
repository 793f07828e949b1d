"""The in-process calls registry tests make most: what ``list_files`` lists, or the error it raises."""

from __future__ import annotations

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
