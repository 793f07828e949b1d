"""The ``dependencies`` part: the manifests' dependency rows, compared (SPEC §2.8.1).

Manifests are paired by format (a wheel's ``*.dist-info/METADATA`` changes its folder name
with the version). A row is keyed by ``(kind, name, condition)``: present on one side only it
is ``added`` or ``removed``, on both with another range it is ``changed`` (``from``, ``to``).
Each item: ``kind, name, range`` (or ``from``/``to``), ``condition`` when it has one, and
``manifest`` when the versions ship more than one manifest format.
"""

from __future__ import annotations

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from typing import Any

    from .model import Manifest


def compute(old: list[Manifest], new: list[Manifest]) -> dict[str, Any]:
    """``{added, removed, changed, manifests, notes}`` for the two versions' manifests."""
    by_format_old = {m.format: m for m in old}
    by_format_new = {m.format: m for m in new}
    formats = [f for f in dict.fromkeys([m.format for m in old] + [m.format for m in new])]
    many = len(formats) > 1
    added: list[dict[str, Any]] = []
    removed: list[dict[str, Any]] = []
    changed: list[dict[str, Any]] = []
    notes: list[str] = []
    for fmt in formats:
        a, b = by_format_old.get(fmt), by_format_new.get(fmt)
        for side in (a, b):
            if side is not None and side.error:
                notes.append(side.error)
        if (a is not None and a.error) or (b is not None and b.error):
            continue
        rows_a = _rows(a)
        rows_b = _rows(b)
        label = (b or a).path if many else None
        for key in sorted(rows_a.keys() | rows_b.keys()):
            kind, name, condition = key
            item: dict[str, Any] = {"kind": kind, "name": name}
            if condition:
                item["condition"] = condition
            if label:
                item["manifest"] = label
            if key not in rows_a:
                added.append({**item, "range": rows_b[key]})
            elif key not in rows_b:
                removed.append({**item, "range": rows_a[key]})
            elif rows_a[key] != rows_b[key]:
                changed.append({**item, "from": rows_a[key], "to": rows_b[key]})
    return {"added": added, "removed": removed, "changed": changed,
            "manifests": sorted({m.path for m in old + new if not m.error}), "notes": notes}


def _rows(manifest: Manifest | None) -> dict[tuple[str, str, str], str]:
    rows: dict[tuple[str, str, str], str] = {}
    for kind, name, condition, spec in manifest.deps if manifest is not None else ():
        key = (kind, name, condition)
        # The same dependency twice in one section (a gemspec listing two constraints on two
        # lines, a POM's two classifiers): one row holding both ranges.
        rows[key] = f"{rows[key]}, {spec}" if key in rows and spec and rows[key] != spec else spec
    return rows
