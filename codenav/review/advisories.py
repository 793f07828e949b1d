"""The ``advisories`` part: what OSV says about the two versions (SPEC §2.8.1).

``fixed`` are the advisories naming FROM and not TO (the upgrade leaves them behind);
``affecting`` those naming TO. OSV decides "naming a version" itself (its own range
evaluation per ecosystem), so codenav compares nothing but ids: one ``querybatch`` for both
versions, then a full ``query`` only for a version that has any. Each advisory: ``id``,
``aliases``, ``summary``, ``severity`` (OSV's ``database_specific.severity``, else the band of
its CVSS v3 (or v2) base score, computed from the vector), ``fixedIn`` (the lowest ``fixed``
event above the version in question for this package, in the registry's version order).
"""

from __future__ import annotations

import math

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

SUMMARY_CHARS = 300


def compute(ecosystem: str, name: str, old: str, new: str, version_key: Callable[[str], Any] | None
            ) -> dict[str, list[dict[str, Any]]]:
    """``{"fixed": [...], "affecting": [...]}`` from OSV (raises CodenavError when OSV fails)."""
    from ..remotes import osv

    old_ids, new_ids = osv.ids(ecosystem, name, [old, new])
    details: dict[str, dict[str, Any]] = {}
    for version, wanted in ((old, old_ids - new_ids), (new, new_ids)):
        if wanted:
            for record in osv.records(ecosystem, name, version):
                details.setdefault(record["id"], record)
    fixed = [_advisory(details.get(i, {"id": i}), ecosystem, name, old, version_key) for i in sorted(old_ids - new_ids)]
    affecting = [_advisory(details.get(i, {"id": i}), ecosystem, name, new, version_key) for i in sorted(new_ids)]
    return {"fixed": fixed, "affecting": affecting}


def _advisory(record: dict[str, Any], ecosystem: str, name: str, version: str,
              version_key: Callable[[str], Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": record["id"]}
    aliases = [a for a in record.get("aliases") or () if isinstance(a, str)]
    out["aliases"] = sorted(aliases)
    summary = record.get("summary") or (record.get("details") or "").strip().split("\n")[0]
    if isinstance(summary, str) and summary:
        summary = " ".join(summary.split())
        out["summary"] = summary if len(summary) <= SUMMARY_CHARS else summary[:SUMMARY_CHARS - 1] + "…"
    severity = severity_of(record)
    if severity:
        out["severity"] = severity
    fixed_in = first_fixed(record, ecosystem, name, version, version_key)
    if fixed_in:
        out["fixedIn"] = fixed_in
    return out


def severity_of(record: dict[str, Any]) -> str | None:
    """``database_specific.severity``, else the band of the best CVSS score the record carries."""
    specific = record.get("database_specific")
    if isinstance(specific, dict) and isinstance(specific.get("severity"), str) and specific["severity"]:
        return specific["severity"].upper()
    scores = []
    for item in record.get("severity") or ():
        if not isinstance(item, dict) or not isinstance(item.get("score"), str):
            continue
        score = cvss_score(item["score"])
        if score is not None:
            scores.append((item.get("type") == "CVSS_V3", score))
    if not scores:
        return None
    return band(max(scores)[1])


def band(score: float) -> str:
    """CVSS v3's qualitative rating of a base score."""
    if score == 0:
        return "NONE"
    if score < 4:
        return "LOW"
    if score < 7:
        return "MEDIUM"
    if score < 9:
        return "HIGH"
    return "CRITICAL"


_V3 = {"AV": {"N": 0.85, "A": 0.62, "L": 0.55, "P": 0.2}, "AC": {"L": 0.77, "H": 0.44},
       "UI": {"N": 0.85, "R": 0.62}, "C": {"H": 0.56, "L": 0.22, "N": 0}, "I": {"H": 0.56, "L": 0.22, "N": 0},
       "A": {"H": 0.56, "L": 0.22, "N": 0}}
_V3_PR = {"U": {"N": 0.85, "L": 0.62, "H": 0.27}, "C": {"N": 0.85, "L": 0.68, "H": 0.5}}
_V2 = {"AV": {"L": 0.395, "A": 0.646, "N": 1.0}, "AC": {"H": 0.35, "M": 0.61, "L": 0.71},
       "Au": {"M": 0.45, "S": 0.56, "N": 0.704}, "C": {"N": 0, "P": 0.275, "C": 0.660},
       "I": {"N": 0, "P": 0.275, "C": 0.660}, "A": {"N": 0, "P": 0.275, "C": 0.660}}


def _roundup(value: float) -> float:
    """CVSS v3.1's Roundup: the smallest number with one decimal that is >= value."""
    whole = round(value * 100000)
    return whole / 100000.0 if whole % 10000 == 0 else (math.floor(whole / 10000) + 1) / 10.0


def cvss_score(vector: str) -> float | None:
    """The base score of a CVSS v3.x or v2 vector (the FIRST specification's formulas), or None."""
    parts = dict(p.split(":", 1) for p in vector.strip().split("/") if ":" in p)
    try:
        if vector.startswith("CVSS:3"):
            scope = parts["S"]
            iss = 1 - (1 - _V3["C"][parts["C"]]) * (1 - _V3["I"][parts["I"]]) * (1 - _V3["A"][parts["A"]])
            impact = 6.42 * iss if scope == "U" else 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15
            exploit = 8.22 * _V3["AV"][parts["AV"]] * _V3["AC"][parts["AC"]] * _V3_PR[scope][parts["PR"]] \
                * _V3["UI"][parts["UI"]]
            if impact <= 0:
                return 0.0
            raw = impact + exploit if scope == "U" else 1.08 * (impact + exploit)
            return _roundup(min(raw, 10))
        if "AV" in parts and "Au" in parts:  # v2 (no prefix)
            impact = 10.41 * (1 - (1 - _V2["C"][parts["C"]]) * (1 - _V2["I"][parts["I"]]) * (1 - _V2["A"][parts["A"]]))
            exploit = 20 * _V2["AV"][parts["AV"]] * _V2["AC"][parts["AC"]] * _V2["Au"][parts["Au"]]
            f_impact = 0 if impact == 0 else 1.176
            return round((0.6 * impact + 0.4 * exploit - 1.5) * f_impact, 1)
    except KeyError:
        return None
    return None  # CVSS v4 and unknown forms: the record's own severity is used when it has one


def first_fixed(record: dict[str, Any], ecosystem: str, name: str, version: str,
                version_key: Callable[[str], Any] | None) -> str | None:
    """The lowest ``fixed`` event above ``version`` among this package's ranges, else the first listed."""
    fixes = []
    for affected in record.get("affected") or ():
        package = affected.get("package") if isinstance(affected, dict) else None
        if not isinstance(package, dict) or package.get("ecosystem") != ecosystem or package.get("name") != name:
            continue
        for rng in affected.get("ranges") or ():
            for event in (rng.get("events") or ()) if isinstance(rng, dict) else ():
                if isinstance(event, dict) and isinstance(event.get("fixed"), str):
                    fixes.append(event["fixed"])
    if not fixes or version_key is None:
        return fixes[0] if fixes else None
    try:
        current = version_key(version)
        above = sorted((f for f in fixes if version_key(f) > current), key=version_key)
    except Exception:  # a version the ecosystem's order cannot read (a commit, a date): keep OSV's order
        return fixes[0]
    return above[0] if above else None
