"""schemas/ loaded once: tool specs for tools/list, cached validators, the JSON dump.

The JSON files under ``schemas/`` are the single contract (SPEC §1, §6). Each tool has one
file ``schemas/tools/<name>.json`` holding its description, annotations, ``inputSchema`` and
``outputSchema``; ``schemas/defs.json`` holds shared definitions referenced as
``#/$defs/<name>``, which are bundled into each schema so only local ``$ref``s go out.
``jsonschema`` is imported only when a validator is first asked for.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
# Installed wheel: codenav/schemas; checkout: ../schemas beside the package.
_CANDIDATES = (_HERE / "schemas", _HERE.parent / "schemas")


def schema_dir() -> Path:
    for candidate in _CANDIDATES:
        if (candidate / "defs.json").is_file():
            return candidate
    raise FileNotFoundError("codenav schemas/ not found beside the package")


def dumps(obj: Any) -> str:
    """The one JSON form of a result or error: CLI --json and the MCP text block share it."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@cache
def _defs() -> dict[str, Any]:
    return json.loads((schema_dir() / "defs.json").read_text(encoding="utf-8"))["$defs"]


def _bundle(schema: dict[str, Any]) -> dict[str, Any]:
    """Copy the shared ``$defs`` a schema uses into it, transitively."""
    defs = _defs()
    needed: dict[str, Any] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref[len("#/$defs/"):]
                if name not in needed and name in defs:
                    needed[name] = defs[name]
                    walk(defs[name])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    if not needed:
        return schema
    bundled = dict(schema)
    bundled["$defs"] = {**needed, **schema.get("$defs", {})}
    return bundled


@cache
def tool_spec(name: str) -> dict[str, Any]:
    """The MCP ``Tool`` object of one tool, with bundled schemas."""
    raw = json.loads((schema_dir() / "tools" / f"{name}.json").read_text(encoding="utf-8"))
    return {
        "name": raw["name"],
        "description": raw["description"],
        "inputSchema": _bundle(raw["inputSchema"]),
        "outputSchema": _bundle(raw["outputSchema"]),
        "annotations": raw["annotations"],
    }


@cache
def error_schema() -> dict[str, Any]:
    return _bundle(json.loads((schema_dir() / "error.json").read_text(encoding="utf-8")))


@cache
def validator(name: str, kind: str = "inputSchema") -> Any:
    """A compiled Draft 2020-12 validator for a tool's input or output schema (or 'error')."""
    from jsonschema import Draft202012Validator

    schema = error_schema() if name == "error" else tool_spec(name)[kind]
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def validation_error(name: str, args: Any) -> Any:
    """None when ``args`` fit the tool's inputSchema, else an INVALID_ARGUMENT naming the field."""
    from .errors import invalid

    errors = sorted(validator(name).iter_errors(args), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    first = errors[0]
    path = [str(p) for p in first.absolute_path]
    if first.validator == "required":
        missing = first.message.split("'")[1] if "'" in first.message else None
        return invalid(f"invalid arguments: {first.message}", missing)
    if first.validator == "additionalProperties" and not path:
        return invalid(f"invalid arguments: {first.message}")
    where = ".".join(path)
    return invalid(f"invalid argument {where}: {first.message}", path[0] if path else None)
