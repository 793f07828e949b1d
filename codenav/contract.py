"""schemas/ loaded once: tool specs for tools/list, cached validators, the JSON dump.

The JSON files under ``schemas/`` are the single contract (SPEC §1, §6). Each tool has one
file ``schemas/tools/<name>.json`` holding its description, annotations, ``inputSchema`` and
``outputSchema``; ``schemas/defs.json`` holds shared definitions referenced as
``#/$defs/<name>``, which are bundled into each schema so only local ``$ref``s go out.
``jsonschema`` is imported only when a validator is first asked for.

Every CLI call imports this module, so it imports nothing at load: ``json`` (which imports
``re``), ``functools``, ``pathlib`` and ``typing`` each cost a warm call more than its work.
"""

from __future__ import annotations

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any


def cache(function: Callable[..., Any]) -> Callable[..., Any]:
    """``functools.cache``, without importing functools (and collections) on the warm path."""
    memo: dict[Any, Any] = {}

    def cached(*args: Any, **kwargs: Any) -> Any:
        key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
        try:
            return memo[key]
        except KeyError:
            memo[key] = value = function(*args, **kwargs)
            return value

    cached.__name__, cached.__qualname__, cached.__doc__ = function.__name__, function.__qualname__, function.__doc__
    cached.__wrapped__ = function  # type: ignore[attr-defined]
    return cached


def schema_dir() -> Path:
    from pathlib import Path

    here = Path(__file__).resolve().parent
    # Installed wheel: codenav/schemas; checkout: ../schemas beside the package.
    for candidate in (here / "schemas", here.parent / "schemas"):
        if (candidate / "defs.json").is_file():
            return candidate
    raise FileNotFoundError("codenav schemas/ not found beside the package")


def dumps(obj: Any) -> str:
    """The one JSON form of a result or error: CLI --json and the MCP text block share it."""
    import json

    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _load(path: Path) -> Any:
    import json

    return json.loads(path.read_text(encoding="utf-8"))


@cache
def _defs() -> dict[str, Any]:
    # review.json holds the review's definitions (diff_versions view=review), kept apart for size.
    return {**_load(schema_dir() / "defs.json")["$defs"], **_load(schema_dir() / "review.json")["$defs"]}


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
    raw = _load(schema_dir() / "tools" / f"{name}.json")
    return {
        "name": raw["name"],
        "description": raw["description"],
        "inputSchema": _inlined(_bundle(raw["inputSchema"])),
        "outputSchema": _bundle(raw["outputSchema"]),
        "annotations": raw["annotations"],
    }


def _inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with its shared definitions written in place, ``$defs`` gone when nothing
    refers to them any more: the input schemas go to the model in tools/list, where a
    ``$ref`` and its definition cost more tokens than the definition alone (SPEC §6.3)."""
    defs = schema.get("$defs")
    if not defs:
        return schema
    inlined = _inline_refs({k: v for k, v in schema.items() if k != "$defs"}, defs, ())
    return inlined if not _refers(inlined) else {**inlined, "$defs": defs}


def _refers(node: Any) -> bool:
    if isinstance(node, dict):
        return "$ref" in node or any(_refers(value) for value in node.values())
    if isinstance(node, list):
        return any(_refers(value) for value in node)
    return False


@cache
def error_schema() -> dict[str, Any]:
    return _bundle(_load(schema_dir() / "error.json"))


@cache
def validator(name: str, kind: str = "inputSchema") -> Any:
    """A compiled Draft 2020-12 validator for a tool's input or output schema (or 'error')."""
    from jsonschema import Draft202012Validator

    schema = error_schema() if name == "error" else tool_spec(name)[kind]
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(_inline_refs(schema, schema.get("$defs", {}), ()))


def _inline_refs(node: Any, defs: dict[str, Any], inside: tuple[str, ...]) -> Any:
    """``node`` with each bare ``{"$ref": "#/$defs/NAME"}`` replaced by that definition.

    The same schema for validation (a lone 2020-12 ``$ref`` applies its target and nothing
    else), but jsonschema no longer resolves references through its registry on every call,
    which was half of validating a tools/call. ``$defs`` stay, for any reference kept (one
    with siblings, or a definition that refers to itself).
    """
    if isinstance(node, dict):
        ref = node.get("$ref")
        if len(node) == 1 and isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref[len("#/$defs/"):]
            if name in defs and name not in inside:
                return _inline_refs(defs[name], defs, (*inside, name))
        return {key: value if key == "$defs" else _inline_refs(value, defs, inside) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline_refs(value, defs, inside) for value in node]
    return node


# How much of an offending value an error message may quote: a 1 MB query must not come back
# as a 1 MB error, and a long value may be a credential the caller should not see echoed
# (SPEC §4: messages carry no secrets; §5: payloads stay small).
_QUOTE_LIMIT = 60
_JSON_TYPES = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
               "array": "an array", "object": "an object", "null": "null"}


def _quote(value: Any) -> str:
    if not isinstance(value, (str, int, float, bool)):
        return _JSON_TYPES.get(_json_type(value), "a value")  # an array or object: named, never printed
    import json

    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _QUOTE_LIMIT else text[:_QUOTE_LIMIT] + "…"


def _json_type(value: Any) -> str:
    for python_type, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
                              (list, "array"), (dict, "object"), (type(None), "null")):
        if isinstance(value, python_type):
            return name
    return type(value).__name__


def _problem(error: Any) -> str:
    """One clause for a jsonschema error, quoting the value only when it is short."""
    kind, limit, value = error.validator, error.validator_value, error.instance
    if kind == "type":
        wanted = [limit] if isinstance(limit, str) else list(limit)
        actual = _json_type(value)
        return f"must be {' or '.join(_JSON_TYPES.get(t, t) for t in wanted)}, not {_JSON_TYPES.get(actual, actual)}"
    if kind == "minLength":
        return "must not be empty" if limit == 1 else f"must be at least {limit} characters long"
    if kind == "maxLength":
        return f"is {len(value)} characters long; at most {limit} are accepted"
    if kind == "minItems":
        return "must not be empty" if limit == 1 else f"must have at least {limit} items"
    if kind == "maxItems":
        return f"has {len(value)} items; at most {limit} are accepted"
    if kind == "minimum":
        return f"must be {limit} or more, got {_quote(value)}"
    if kind == "maximum":
        return f"must be {limit} or less, got {_quote(value)}"
    if kind == "enum":
        return f"must be one of {', '.join(_quote(v) for v in limit)}, got {_quote(value)}"
    message = str(error.message)
    return message if len(message) <= 2 * _QUOTE_LIMIT else message[: 2 * _QUOTE_LIMIT] + "…"


def validation_error(name: str, args: Any) -> Any:
    """None when ``args`` fit the tool's inputSchema, else an INVALID_ARGUMENT naming the field."""
    from .errors import invalid

    errors = sorted(validator(name).iter_errors(args), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    first = errors[0]
    path = [str(p) for p in first.absolute_path]
    if first.validator == "required" and isinstance(first.instance, dict):
        missing = next((key for key in first.validator_value if key not in first.instance), None)
        return invalid(f"{missing} is required", missing)
    if first.validator == "additionalProperties" and not path and isinstance(first.instance, dict):
        known = first.schema.get("properties", {})
        unknown = sorted(key for key in first.instance if key not in known)
        if unknown:
            # The unknown key is the field at fault: naming it tells the caller what to drop.
            field = unknown[0] if len(unknown[0]) <= _QUOTE_LIMIT else None
            return invalid(f"unknown argument {_quote(unknown[0])}; the arguments are "
                           f"{', '.join(known)}", field)
    where = ".".join(path) or "arguments"
    return invalid(f"{where} {_problem(first)}", path[0] if path else None)


def text_error(args: dict[str, Any]) -> Any:
    """None, or an INVALID_ARGUMENT for the first string argument that is not Unicode text.

    Lone surrogates reach us from JSON escapes (``"\\ud800"``) and from command-line bytes
    that are not UTF-8 (Python decodes argv with surrogateescape). No path, name, pattern or
    query can hold one: archive names that are not UTF-8 are skipped at extraction (SPEC
    §2.2) and the text we search is UTF-8. Refused before any tool runs, on both surfaces,
    so it never reaches a URL, a subprocess or a JSON encoder as a crash.
    """
    from .errors import invalid

    for key, value in args.items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return invalid(f"{key} is not valid UTF-8 text", key)
    return None
