"""Clients of things that are not package registries: git remotes, GitHub, grep.app."""
