"""The review as a person (or a model) reads it: a header, hints, then one short section per part.

``review_text(result, words=None)``: the first line names the two versions and the totals;
then the hint (the cursor) when the review is paged; then sections in the order of the parts,
each a ``## part`` line with its counts or why it could not be computed, and one grep-like
line per item (``-`` removed, ``~`` changed, ``+`` added). ``words`` turns an envelope
sentence into the reader's words (the CLI passes ``words.for_cli``); no JSON is printed.
"""

from __future__ import annotations

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def _label(target: dict[str, Any]) -> str:
    if "commit" in target:
        ref = target.get("gitRef")
        return f"{target['repoUrl']}@{ref + ' ' if ref else ''}{target['commit'][:12]}"
    return f"{target['registry']}:{target['name']}@{target['version']}"


def _triple(counts: dict[str, int] | None) -> str:
    if counts is None:
        return "n/a"
    return f"-{counts.get('removed', 0)} ~{counts.get('changed', 0)} +{counts.get('added', 0)}"


def header(result: dict[str, Any]) -> str:
    counts = result.get("counts", {})
    adv = counts.get("advisories")
    pieces = [f"supply chain {counts['supplyChain']['findings']}" if "supplyChain" in counts else "supply chain n/a",
              f"advisories {adv['fixed']} fixed, {adv['affecting']} affecting" if adv else "advisories n/a",
              f"dependencies {_triple(counts.get('dependencies'))}", f"api {_triple(counts.get('api'))}",
              f"changelog {counts['changelog']['entries']} entries" if "changelog" in counts else "changelog n/a"]
    return f"review {_label(result['from'])} -> {_label(result['to'])}: " + " · ".join(pieces)


def _status(part: dict[str, Any]) -> str | None:
    if part.get("status") in ("unavailable", "off"):
        return f" ({part['status']}: {part.get('reason', '')})"
    return None


def _where(item: dict[str, Any]) -> str:
    return f"{item['path']}:{item['line']}"


def review_text(result: dict[str, Any], words: Callable[[str], str] | None = None) -> str:
    """The TEXT answer of a review (module docstring)."""
    say = words or (lambda sentence: sentence)
    review = result["review"]
    counts = result.get("counts", {})
    out = [header(result)]
    if result.get("hint"):
        out.append("hint: " + say(result["hint"]))
    for warning in result.get("warnings", ()):
        out.append("warning: " + say(warning))

    def section(title: str, key: str, lines: list[str], totals: str) -> None:
        part = review[key]
        status = _status(part)
        out.append(f"## {title}" + (status or f" ({totals})"))
        out.extend(lines)
        out.extend(f"  note: {n}" for n in part.get("notes", ()))

    supply = review["supplyChain"]
    section("supply chain", "supplyChain",
            [f"{f['kind']} {f['path']}: {f['reason']}" for f in supply.get("findings", ())],
            f"{counts.get('supplyChain', {}).get('findings', 0)} findings")
    adv = review["advisories"]
    lines = []
    for group in ("fixed", "affecting"):
        for a in adv.get(group, ()):
            also = f" ({', '.join(a['aliases'])})" if a.get("aliases") else ""
            fix = f" fixed in {a['fixedIn']}" if a.get("fixedIn") else (" no fix yet" if group == "affecting" else "")
            lines.append(f"{group} {a['id']}{also} {a.get('severity', 'severity unknown')}{fix}: {a.get('summary', '')}")
    c = counts.get("advisories", {})
    section("advisories", "advisories", lines, f"{c.get('fixed', 0)} fixed by the upgrade, {c.get('affecting', 0)} "
                                               f"still affecting")
    deps = review["dependencies"]
    lines = []
    for sign, group in (("-", "removed"), ("~", "changed"), ("+", "added")):
        for d in deps.get(group, ()):
            spec = f"{d['from']} -> {d['to']}" if group == "changed" else d.get("range", "")
            cond = f"  [{d['condition']}]" if d.get("condition") else ""
            lines.append(f"{sign} {d['kind']} {d['name']} {spec}{cond}".rstrip())
    section("dependencies", "dependencies", lines, _triple(counts.get("dependencies")))
    api = review["api"]
    lines = []
    for sign, group in (("-", "removed"), ("~", "changed"), ("+", "added")):
        for item in api.get(group, ()):
            if group == "changed":
                old, new = item["from"], item["to"]
                lines.append(f"~ {item['kind']} {item['name']}  {_where(new)}")
                lines.append(f"    was {old.get('signature', '')}  ({_where(old)})")
                lines.append(f"    now {new.get('signature', '')}")
            else:
                sig = f"  {item['signature']}" if item.get("signature") else ""
                lines.append(f"{sign} {item['kind']} {item['name']}  {_where(item)}{sig}")
    section("api", "api", lines, _triple(counts.get("api")))
    log = review["changelog"]
    lines = []
    for entry in log.get("entries", ()):
        lines.append(f"### {entry['heading']}")
        lines.extend("    " + line if line else "" for line in entry.get("text", "").split("\n"))
        if entry.get("cut"):
            lines.append("    … (cut)")
    n = counts.get("changelog", {}).get("entries", 0)
    section("changelog", "changelog", lines, f"{n} entries from {log.get('file', '')}")
    return "\n".join(out) + "\n"
