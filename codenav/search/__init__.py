"""Searching inside cached targets: package-wide grep (grep.py, globs.py), version diffs (diff.py,
xdiff.py) and symbols (symbols/)."""
