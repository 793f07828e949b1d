"""Commands that are not tools: ``codenav cache …`` (and, later, others)."""
