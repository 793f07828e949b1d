"""The OSV client (SPEC §2.8.1 advisories): which advisories name a package at a version.

Keyless. ``CODENAV_OSV_URL`` is the API root (default the public OSV API, written once here);
``off`` turns the lookup off. Requests go through net.request, so OSV is reached under the same
trust and proxy rules as the registries (SPEC §8.1; the environment's proxies, as for the
registries that are not npm or PyPI).

Two exchanges, as OSV documents them (google/osv.dev docs/api/post-v1-querybatch.md and
post-v1-query.md):

- ``POST {root}/v1/querybatch`` ``{"queries": [{"package": {"name", "ecosystem"}, "version"}, …]}``
  answers ``{"results": [{"vulns": [{"id", "modified"}], "next_page_token"?}, …]}``, one result
  per query in order, ids only; a query with nothing is ``{}``. ``ids(...)`` asks it once for
  both versions (the common answer, nothing, costs one request) and follows page tokens.
- ``POST {root}/v1/query`` with one such query answers ``{"vulns": [full OSV records],
  "next_page_token"?}`` or ``{}``; ``records(...)`` follows the tokens.

Whatever fails is a ``CodenavError`` (NETWORK, TIMEOUT, UPSTREAM_ERROR, PROTOCOL_ERROR…); the
review turns it into a warning, never a failed call.
"""

from __future__ import annotations

import os

from .. import net
from ..errors import CodenavError

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from typing import Any

DEFAULT_URL = "https://api.osv.dev"
URL_VARIABLE = "CODENAV_OSV_URL"
TIMEOUT_VARIABLE = "CODENAV_OSV_TIMEOUT"
WHAT = "OSV"
MAX_PAGES = 20  # page tokens followed per query; OSV pages past 1,000 advisories
BODY_CAP = 16 * 1024 * 1024  # a popular package's full records run to a few MiB

# codenav registry prefix -> OSV ecosystem name (ossf.github.io/osv-schema, "affected[].package")
ECOSYSTEMS = {"npm": "npm", "pypi": "PyPI", "crates": "crates.io", "go": "Go", "maven": "Maven",
              "rubygems": "RubyGems", "nuget": "NuGet", "hex": "Hex", "packagist": "Packagist"}


def root() -> str | None:
    """The API root without a trailing slash, or None when ``CODENAV_OSV_URL=off``."""
    url = (os.environ.get(URL_VARIABLE) or DEFAULT_URL).strip()
    if url.lower() == "off":
        return None
    if not url.startswith(("https://", "http://")):
        raise CodenavError("CONFIG_ERROR", f"{URL_VARIABLE} must be an http(s) URL or 'off'")
    return url.rstrip("/")


def _post(path: str, body: dict[str, Any]) -> dict[str, Any]:
    import json

    base = root()
    if base is None:
        raise CodenavError("CONFIG_ERROR", f"{URL_VARIABLE} is off")
    resp = net.request("POST", base + path, what=WHAT, headers={"Content-Type": "application/json"},
                       json_body=body, timeout=net.timeout_from_env(TIMEOUT_VARIABLE), max_bytes=BODY_CAP,
                       redirects="https")
    if not 200 <= resp.status < 300:
        raise net.status_error(WHAT, resp)
    try:
        answer = json.loads(resp.body)
    except ValueError:
        raise CodenavError("PROTOCOL_ERROR", f"{WHAT} answered {path} with something that is not JSON") from None
    if not isinstance(answer, dict):
        raise CodenavError("PROTOCOL_ERROR", f"{WHAT} answered {path} with JSON that is not an object")
    return answer


def _query(ecosystem: str, name: str, version: str, token: str | None = None) -> dict[str, Any]:
    query: dict[str, Any] = {"package": {"name": name, "ecosystem": ecosystem}, "version": version}
    if token:
        query["page_token"] = token
    return query


def _vulns(block: Any, path: str) -> list[dict[str, Any]]:
    vulns = block.get("vulns", []) if isinstance(block, dict) else None
    if not isinstance(vulns, list) or not all(isinstance(v, dict) and isinstance(v.get("id"), str) for v in vulns):
        raise CodenavError("PROTOCOL_ERROR", f"{WHAT} answered {path} without a readable vulns list")
    return vulns


def ids(ecosystem: str, name: str, versions: list[str]) -> list[set[str]]:
    """The advisory ids naming ``name`` at each of ``versions`` (one querybatch, then its pages)."""
    found: list[set[str]] = [set() for _ in versions]
    pending = {i: None for i in range(len(versions))}  # query index -> page token
    for _ in range(MAX_PAGES):
        order = list(pending)
        answer = _post("/v1/querybatch", {"queries": [_query(ecosystem, name, versions[i], pending[i])
                                                      for i in order]})
        results = answer.get("results")
        if not isinstance(results, list) or len(results) != len(order):
            raise CodenavError("PROTOCOL_ERROR", f"{WHAT} answered /v1/querybatch without one result per query")
        pending = {}
        for i, block in zip(order, results, strict=True):
            found[i].update(v["id"] for v in _vulns(block, "/v1/querybatch"))
            token = block.get("next_page_token") if isinstance(block, dict) else None
            if isinstance(token, str) and token:
                pending[i] = token
        if not pending:
            return found
    raise CodenavError("PROTOCOL_ERROR", f"{WHAT} kept paging /v1/querybatch past {MAX_PAGES} pages")


def records(ecosystem: str, name: str, version: str) -> list[dict[str, Any]]:
    """The full OSV records naming ``name`` at ``version`` (one query, then its pages)."""
    out: list[dict[str, Any]] = []
    token = None
    for _ in range(MAX_PAGES):
        answer = _post("/v1/query", _query(ecosystem, name, version, token))
        out.extend(_vulns(answer, "/v1/query"))
        token = answer.get("next_page_token")
        if not (isinstance(token, str) and token):
            return out
    raise CodenavError("PROTOCOL_ERROR", f"{WHAT} kept paging /v1/query past {MAX_PAGES} pages")
