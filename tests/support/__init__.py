"""The helper package every test imports (pip's ``tests/lib/``): test modules never import each other.

- ``cli``: the checkout's ROOT, the environment before the tests changed it, ``run_cli``,
  ``settle``, an isolated environment for subprocesses, and where an oracle's binary is.
- ``mcp``: a raw MCP session with ``codenav mcp`` and the parity ``check`` (``--json`` = MCP bytes).
- ``archives``: tar and zip archives built member by member, hostile ones included.
- ``cache``: what a cache holds and whether an entry is whole (snapshots, reports, checks).
- ``faults``: the HTTP faults a fake upstream can put on any route, and what each must become.
- ``hostile``: the hostile-archive cases and the one check every registry's extraction must pass.
- ``registries``: the conformance kit's adapter contract and the table of adapters
  (``adapters/``, one per fake registry).
- ``tokens``: the cl100k tokenizer that counts what answers cost a model.
- ``oracles``, ``entries``: the review's independent readings (``ast``, Node) and an entry
  built from a dict of files.

tests/test_support.py tests these helpers themselves.
"""
