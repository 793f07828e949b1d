"""Package registries: version grammars and pickers (npm semver, PEP 440)."""
