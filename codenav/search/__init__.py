"""Package-wide search: ripgrep-style globs (globs.py) and the grep engine (grep.py)."""
