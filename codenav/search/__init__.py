"""Searching inside cached targets: version diffs (diff.py, xdiff.py) and symbols (symbols/)."""
