"""codenav: look inside third-party code from the terminal or an MCP client."""

__version__ = "0.1.0"

# Set by cli.main when it runs as the program (not for ``codenav mcp``, which runs threads): a
# cold call may then fork the command into its indexer (cache/forked.py) rather than start a
# second interpreter.
fork_indexer = False
