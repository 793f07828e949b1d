"""Where targets come from: one module per source (npm, PyPI, git) plus endpoint discovery."""
