"""Searching inside a cached entry: symbols (definitions) by name."""
