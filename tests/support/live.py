"""What live tests share: undoing the offline isolation of tests/conftest.py."""

from __future__ import annotations

from tests.conftest import ORIGINAL_ENV

NPM_AND_PIP = ("PIP_CONFIG_FILE", "PIP_INDEX_URL", "npm_config_registry", "NPM_CONFIG_REGISTRY",
               "npm_config_userconfig", "NPM_CONFIG_USERCONFIG")


def real_endpoints(monkeypatch, names: tuple[str, ...] = NPM_AND_PIP) -> None:
    """Let codenav ask npm and pip as a user's machine would: discovery on, their config
    variables and the real HOME (where they read the user's config) as before the tests."""
    monkeypatch.delenv("CODENAV_NO_DISCOVERY", raising=False)
    for name in names:
        if ORIGINAL_ENV.get(name):
            monkeypatch.setenv(name, ORIGINAL_ENV[name])
        else:
            monkeypatch.delenv(name, raising=False)
    if ORIGINAL_ENV.get("HOME"):
        monkeypatch.setenv("HOME", ORIGINAL_ENV["HOME"])
