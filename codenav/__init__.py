"""codenav: look inside third-party code from the terminal or an MCP client."""

__version__ = "0.1.0"
