"""Stores behind Protocols; nothing above this package talks to a store directly.

>>> from ontoretrieve.settings import load_settings
>>> store = open_triple_store(load_settings(), in_memory=True)
>>> store.description
'memory'
"""

from __future__ import annotations

from ontoretrieve.backends.access import holder_of
from ontoretrieve.backends.oxigraph import OxigraphStore
from ontoretrieve.backends.sparql_http import SparqlHttpStore
from ontoretrieve.backends.triple_store import Solution, Term, TripleStore
from ontoretrieve.settings import Settings
from ontoretrieve.settings.groups import StoreBackend

__all__ = [
    "OxigraphStore",
    "Solution",
    "SparqlHttpStore",
    "Term",
    "TripleStore",
    "open_triple_store",
]


def open_triple_store(settings: Settings, *, in_memory: bool = False,
                      writer: bool = True) -> TripleStore:
    """The configured triple store: embedded under ``data_dir`` or an endpoint.

    ``writer=False`` opens an embedded store read-only beside the process that
    holds the data directory's writer lock (``backends.access``).
    """
    config = settings.store
    if config.backend is StoreBackend.SPARQL:
        assert config.query_url is not None  # enforced by StoreSettings
        return SparqlHttpStore(config.query_url, config.update_url,
                               config.graph_store_url, config.timeout_seconds)
    if in_memory:
        return OxigraphStore.in_memory()
    path = settings.data_dir / "oxigraph"
    if not writer:
        holder = holder_of(settings.data_dir)
        return OxigraphStore.open_reader(path, holder.describe() if holder else "another process")
    return OxigraphStore.open(path)
