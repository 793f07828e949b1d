"""What a warm call may import: the modules it must never load, and how to see what it loads.

A warm ``codenav read``/``files``/``grep``/``symbols`` must cost little more than starting
Python (bench/), so it avoids the network and validation libraries and the stdlib modules that
cost more than the whole call (README, "Performance"). ``imported_by(argv)`` runs
``codenav.cli.main(argv)`` in a fresh interpreter and names the top-level modules it imported.
"""

from __future__ import annotations

import os
import subprocess
import sys

from .cli import ROOT

NEVER = {"requests", "urllib3", "jsonschema"}
TOO_HEAVY = {"re", "json", "argparse", "typing", "pathlib", "functools", "collections", "subprocess", "fcntl"}


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    """``python -S -c code`` with the checkout on the path."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    # -S: no site, so no editable-install finder preloads `re` and hides what the call imports.
    return subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env, timeout=60,
                          stdin=subprocess.DEVNULL)


def imported_by(argv: list[str]) -> set[str]:
    """The top-level modules ``codenav.cli.main(argv)`` imports in a fresh interpreter (beyond
    those the interpreter had loaded at start-up, which differ between installations)."""
    code = (
        "import os, sys\n"
        "before = set(sys.modules)\n"
        "sys.stdout = open(os.devnull, 'w')\n"
        "from codenav.cli import main\n"
        f"status = main({argv!r})\n"
        "sys.stdout = sys.__stdout__\n"
        "assert status == 0, status\n"
        "print(' '.join(sorted({m.split('.')[0] for m in set(sys.modules) - before})))\n"
    )
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    return set(proc.stdout.split())
