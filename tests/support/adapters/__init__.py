"""One conformance adapter per fake registry (the contract: tests/support/registries.py)."""
