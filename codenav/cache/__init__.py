"""The cache and the indexing lifecycle (SPEC §3): one package, one idea.

Layout under the cache root (paths.root(): ``$CODENAV_CACHE_DIR``, ``$XDG_CACHE_HOME/codenav``
or ``~/.cache/codenav``)::

  entries/<key>/manifest.json   immutable, published by one rename; lists every file (store.py)
  entries/<key>/paths.txt       a sidecar: the paths as the plain listing prints them
  entries/<key>/text.txt        a sidecar: the text files (with sizes) and binaries grep_repo sees
  entries/<key>/tree/...        the files (regular files only: links live in the manifest)
  aliases/<h>.json              what a request (registry, endpoint, name, version) resolved to
  locks/<h>.lock                flock per request: one indexer at a time, others wait
  jobs/<h>.json                 the outcome of the last indexing job that failed
  tmp/                          build directories and downloads in progress
  state/                        discovered endpoints

The modules, in the order a call meets them:

  __init__.py     the only call a tool makes: ``open_entry(target, wait_ms)`` — the warm
                  lookup (an alias naming a published entry), else open.py
  open.py         the cold path: start the indexer and wait for it
  locks.py        where a request's lock and its last failure live
  aliases.py      request -> entry key, with the resolution's time to live
  store.py        the read side of a published entry: manifest rows, files, sidecars
  indexing.py     the indexer's side: resolve, download, verify, extract, derive, publish
  download.py     the streamed, capped, verified download
  indexer.py      ``python -m codenav.cache.indexer JOB``, detached from the caller
  forked.py       the same job in a fork of the ``codenav`` command (a cold CLI call)
  many.py         many cold packages at once: forked indexers side by side (by the CLI, or
                  by a helper process for the MCP server), one late phase
  maintenance.py  ``codenav cache list|clear|prune``

A warm call imports this package, aliases and store only: nothing heavier than ``os``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from ..targets import Target
    from .store import Entry


def open_entry(target: Target, wait_ms: int) -> Entry:
    """The cached entry of ``target``: warm from its alias, else indexed first (open.py)."""
    from .aliases import cached

    found = cached(target)  # the warm path: no locks, no subprocess, no pathlib
    if found is not None:
        return found
    from .open import open_target

    return open_target(target, wait_ms)
