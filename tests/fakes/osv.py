"""A fake OSV API on a FakeServer: ``POST /v1/query`` and ``POST /v1/querybatch``, as OSV answers.

Provenance of the wire format (read in google/osv.dev, docs/api/post-v1-query.md and
docs/api/post-v1-querybatch.md, and gcp/api/fixtures/IntegrationTests_api_query_response.txt):

- ``/v1/query`` takes ``{"package": {"name", "ecosystem"} | {"purl"}, "version" | "commit",
  "page_token"?}`` and answers ``{"vulns": [<full OSV records>], "next_page_token"?}``; a query
  that matches nothing answers ``{}`` (google/osv.dev issue #432: "You'll get back `{}`").
- ``/v1/querybatch`` takes ``{"queries": [<query>, …]}`` and answers ``{"results": [{"vulns":
  [{"id", "modified"}], "next_page_token"?}, …]}``, one result per query in order, ids and
  ``modified`` only; an empty result is ``{}``.
- a version without a package, or a name without an ecosystem and a version, is HTTP 400
  (the fixture's 400 lines); the body here is the gRPC gateway's ``{"code": 3, "message"}``.

Records are real-shaped OSV (``id``, ``aliases``, ``summary``, ``affected[].package``,
``ranges[].events``, ``versions``, ``severity[]``, ``database_specific.severity``); a record
affects a version listed in its ``affected[].versions`` (OSV enumerates them for ecosystems).
``page_size`` makes both endpoints page, to exercise the tokens; ``down`` answers 503.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .http import FakeServer, Reply


def record(osv_id: str, ecosystem: str, name: str, versions: list[str], fixed: str | None = None, *,
           aliases: tuple[str, ...] = (), summary: str = "", severity: str | None = None,
           cvss: str | None = None) -> dict[str, Any]:
    """An OSV record shaped as GHSA's are on OSV (a SEMVER/ECOSYSTEM range and the enumerated versions)."""
    events: list[dict[str, str]] = [{"introduced": "0"}]
    if fixed:
        events.append({"fixed": fixed})
    out: dict[str, Any] = {
        "schema_version": "1.6.0", "id": osv_id, "modified": "2025-01-01T00:00:00Z",
        "published": "2024-06-01T00:00:00Z", "aliases": list(aliases), "summary": summary,
        "details": summary + "\n\nMore details.",
        "affected": [{"package": {"ecosystem": ecosystem, "name": name, "purl": f"pkg:{ecosystem.lower()}/{name}"},
                      "ranges": [{"type": "SEMVER" if ecosystem == "npm" else "ECOSYSTEM", "events": events}],
                      "versions": list(versions), "database_specific": {"source": "https://github.com/…"}}],
        "references": [{"type": "ADVISORY", "url": f"https://nvd.nist.gov/vuln/detail/{osv_id}"}],
    }
    if severity:
        out["database_specific"] = {"severity": severity, "github_reviewed": True, "cwe_ids": ["CWE-400"]}
    if cvss:
        out["severity"] = [{"type": "CVSS_V3", "score": cvss}]
    return out


@dataclass
class FakeOsv:
    server: FakeServer
    records: list[dict[str, Any]] = field(default_factory=list)
    page_size: int = 1000
    down: bool = False

    def __post_init__(self) -> None:
        self.server.route("POST", "/v1/query", self._query)
        self.server.route("POST", "/v1/querybatch", self._batch)

    @property
    def url(self) -> str:
        return self.server.url

    def _matches(self, query: dict[str, Any]) -> list[dict[str, Any]] | None:
        package = query.get("package") or {}
        version = query.get("version")
        if not isinstance(package, dict) or not package.get("name") or not package.get("ecosystem") or not version:
            return None
        return [r for r in self.records
                if any(a["package"]["ecosystem"] == package["ecosystem"] and a["package"]["name"] == package["name"]
                       and version in a.get("versions", ()) for a in r["affected"])]

    def _page(self, found: list[Any], query: dict[str, Any]) -> dict[str, Any]:
        start = int(query.get("page_token") or 0)
        out: dict[str, Any] = {}
        if found[start:start + self.page_size]:
            out["vulns"] = found[start:start + self.page_size]
        if start + self.page_size < len(found):
            out["next_page_token"] = str(start + self.page_size)
        return out

    @staticmethod
    def _bad() -> Reply:
        return Reply.json({"code": 3, "message": "Invalid query.", "details": []}, status=400)

    def _query(self, handler: Any) -> Reply:
        if self.down:
            return Reply.json({"code": 14, "message": "unavailable"}, status=503)
        query = json.loads(handler.server.seen[-1].body)
        found = self._matches(query)
        return self._bad() if found is None else Reply.json(self._page(found, query))

    def _batch(self, handler: Any) -> Reply:
        if self.down:
            return Reply.json({"code": 14, "message": "unavailable"}, status=503)
        queries = json.loads(handler.server.seen[-1].body).get("queries", [])
        results = []
        for query in queries:
            found = self._matches(query)
            if found is None:
                return self._bad()
            page = self._page([{"id": r["id"], "modified": r["modified"]} for r in found], query)
            results.append(page)
        return Reply.json({"results": results})
