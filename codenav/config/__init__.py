"""What npm and pip are configured with, read the way they read it (SPEC §8.1).

``npmrc`` reads npm's layers (builtin < global < user < project < ``npm_config_*``), ``pipconf``
pip's files (global < user < base < site < ``PIP_CONFIG_FILE`` < ``PIP_*``). The registries take
their endpoints from here and ``trust``/``proxy`` the CAs, proxies and insecure settings that
net.py applies. The readers import only ``os`` at module level: a warm call finds its endpoint
through them, and must not pay for ``re``, ``json`` or ``configparser``.
"""
