"""From a decoded frame to a JSON-RPC response: classification, era routing, method tables.

Eras are decided per request (mcp-stdio reference §3): a request whose ``params._meta``
carries ``io.modelcontextprotocol/protocolVersion`` — and is not ``initialize`` — is a
2026-07-28 request; everything else is a handshake-era request. Modern-only methods
(``server/discover``) always take the modern path, so a discover without the envelope is
told what is missing (-32602) instead of being told the method does not exist. No
per-connection era is locked in: the TS SDK and the Inspector only ever handshake, the
Python SDK probes with discover first, and both work on one process.

Modern requests pass the validation ladder (envelope -> version type -> supported version,
-32022 with ``{supported, requested}``); their results carry ``resultType: "complete"`` and
the serverInfo ``_meta`` stamp, and cacheable ones ``ttlMs``/``cacheScope``. Handshake-era
results carry none of these (the TS client's ping result schema is strict).

Notifications (no ``id``) are never answered, whatever they hold (SPEC §6).
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import handlers
from .framing import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    UNSUPPORTED_PROTOCOL_VERSION,
    RpcError,
    error_response,
)

log = logging.getLogger(__name__)

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"

# The tool set only changes with a new codenav release, and holds no per-user data.
TOOLS_TTL_MS = 300_000

Handler = Callable[[dict[str, Any], handlers.Session], dict[str, Any]]

LEGACY: dict[str, Handler] = {
    "initialize": handlers.initialize,
    "ping": handlers.ping,
    "tools/list": handlers.list_tools,
    "tools/call": handlers.call_tool,
}
MODERN: dict[str, Handler] = {
    "server/discover": handlers.discover,
    "tools/list": handlers.list_tools,
    "tools/call": handlers.call_tool,
}
MODERN_ONLY = frozenset(MODERN) - frozenset(LEGACY)
CACHEABLE = frozenset({"server/discover", "tools/list"})
# Handshake-era methods that 2026-07-28 removed: named in the -32601 message.
REMOVED_IN_MODERN = frozenset({"initialize", "ping", "logging/setLevel", "resources/subscribe",
                               "resources/unsubscribe"})


@dataclass
class Request:
    id: int | str
    method: str
    params: dict[str, Any]
    modern: bool


@dataclass
class Notification:
    method: str
    params: dict[str, Any]


def valid_id(value: Any) -> bool:
    # JSON-RPC ids are strings or integers here: the Python client's RequestId is a strict int
    # or a str. bool is an int subclass in Python but not in JSON.
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _is_modern(method: str, params: dict[str, Any]) -> bool:
    if method in MODERN_ONLY:
        return True
    meta = params.get("_meta")
    # A bare _meta is no evidence: handshake-era requests put progressToken there.
    return method != "initialize" and isinstance(meta, dict) and VERSION_KEY in meta


def classify(message: Any) -> Request | Notification | dict[str, Any] | None:
    """One decoded frame as a Request, a Notification, an error response to send at once, or
    None when there is nothing to answer."""
    if not isinstance(message, dict):
        # Neither SDK supports batches in any version: one -32600 for the whole array.
        what = "batch arrays are not supported" if isinstance(message, list) else "a message must be a JSON object"
        return error_response(None, RpcError(INVALID_REQUEST, f"Invalid request: {what}"))
    method = message.get("method")
    if "id" not in message:
        if message.get("jsonrpc") == "2.0" and isinstance(method, str):
            params = message.get("params")
            return Notification(method, params if isinstance(params, dict) else {})
        log.warning("ignored a malformed notification (a message without an id is never answered)")
        return None
    request_id = message["id"]
    if "method" not in message and ("result" in message or "error" in message):
        log.warning("ignored a response from the client: this server sends no requests")
        return None
    if not valid_id(request_id):
        return error_response(None, RpcError(INVALID_REQUEST, "Invalid request: id must be a string or an integer"))
    if message.get("jsonrpc") != "2.0":
        return error_response(request_id, RpcError(INVALID_REQUEST, 'Invalid request: jsonrpc must be "2.0"'))
    if not isinstance(method, str):
        return error_response(request_id, RpcError(INVALID_REQUEST, "Invalid request: method must be a string"))
    params = message.get("params")
    if params is None:  # omitted, or an explicit null: both mean "no params"
        params = {}
    if not isinstance(params, dict):
        return error_response(request_id, RpcError(INVALID_PARAMS, "Invalid params: params must be an object"))
    return Request(request_id, method, params, _is_modern(method, params))


def _check_envelope(params: dict[str, Any]) -> str:
    """The modern validation ladder (Python SDK ``classify_inbound_request``); the version."""
    meta = params.get("_meta")
    if not isinstance(meta, dict):
        raise RpcError(INVALID_PARAMS, f"params._meta must be an object carrying the required "
                                       f"{VERSION_KEY!r} and {CAPABILITIES_KEY!r} envelope keys")
    missing = [key for key in (VERSION_KEY, CAPABILITIES_KEY) if key not in meta]
    if missing:
        raise RpcError(INVALID_PARAMS, f"params._meta is missing the required envelope key(s): {', '.join(missing)}")
    if not isinstance(meta[CAPABILITIES_KEY], dict):
        raise RpcError(INVALID_PARAMS, f"{CAPABILITIES_KEY} must be an object")
    version = meta[VERSION_KEY]
    if not isinstance(version, str):
        raise RpcError(INVALID_PARAMS, "the protocol-version envelope value must be a string")
    if version not in handlers.MODERN_VERSIONS:
        hint = " (a handshake-era version: use initialize)" if version in handlers.HANDSHAKE_VERSIONS else ""
        raise RpcError(UNSUPPORTED_PROTOCOL_VERSION, f"Unsupported protocol version{hint}",
                       {"supported": list(handlers.SUPPORTED_VERSIONS), "requested": version})
    return version


def _stamp(method: str, result: dict[str, Any]) -> dict[str, Any]:
    """The fields every 2026-07-28 result carries; without resultType the Python client fails."""
    stamped = dict(result)
    stamped["resultType"] = "complete"
    stamped["_meta"] = {**result.get("_meta", {}), SERVER_INFO_KEY: handlers.SERVER_INFO}
    if method in CACHEABLE:
        stamped["ttlMs"] = TOOLS_TTL_MS
        stamped["cacheScope"] = "public"
    return stamped


def respond(request: Request, session: handlers.Session) -> dict[str, Any]:
    """Run one request to its response; never raises."""
    try:
        if request.modern:
            _check_envelope(request.params)
            handler = MODERN.get(request.method)
        else:
            handler = LEGACY.get(request.method)
        if handler is None:
            removed = request.modern and request.method in REMOVED_IN_MODERN
            note = " (removed in protocol 2026-07-28)" if removed else ""
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}{note}")
        result = handler(request.params, session)
        if request.modern:
            result = _stamp(request.method, result)
        return {"jsonrpc": "2.0", "id": request.id, "result": result}
    except RpcError as exc:
        return error_response(request.id, exc)
    except Exception as exc:
        log.warning("internal error in %s:\n%s", request.method,
                    "".join(traceback.format_exception(exc)).rstrip())
        return error_response(request.id, RpcError(INTERNAL_ERROR, f"Internal error ({type(exc).__name__})"))
