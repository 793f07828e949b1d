"""``codenav cache list|path|clear|prune``: look at and tidy the local cache (SPEC §3)."""

from __future__ import annotations

import json
import sys
from typing import Any


def configure(parser: Any) -> None:
    sub = parser.add_subparsers(dest="cache_command", metavar="ACTION", required=True)
    ls = sub.add_parser("list", help="the cached packages and commits")
    ls.add_argument("--json", action="store_true", help="print a JSON array")
    sub.add_parser("path", help="print the cache directory")
    sub.add_parser("clear", help="remove everything cached")
    sub.add_parser("prune", help="remove debris: unfinished builds, expired or dangling aliases, old job results")


def _name(target: dict[str, Any]) -> str:
    if "registry" in target:
        return f"{target['registry']}:{target['name']}@{target['version']}"
    ref = f" ({target['gitRef']})" if target.get("gitRef") else ""
    return f"{target['repoUrl']}@{target['commit'][:12]}{ref}"


def run(ns: Any) -> int:
    from ..cache import maintenance
    from ..paths import root

    action = ns.cache_command
    if action == "path":
        sys.stdout.write(root() + "\n")
    elif action == "list":
        entries = maintenance.list_entries()
        if ns.json:
            sys.stdout.write(json.dumps(entries, sort_keys=True) + "\n")
        else:
            for e in entries:
                sys.stdout.write(f"{_name(e['target'])}\t{e['files']} files\t{e['bytes']} bytes\n")
    elif action == "clear":
        count = maintenance.clear()
        sys.stderr.write(f"codenav: removed {count} cached entr{'y' if count == 1 else 'ies'}\n")
    elif action == "prune":
        removed = maintenance.prune()
        summary = ", ".join(f"{n} {what}" for what, n in removed.items() if n) or "nothing to remove"
        sys.stderr.write(f"codenav: pruned {summary}\n")
    return 0
