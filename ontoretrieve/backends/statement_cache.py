"""A named graph's statements kept on disk beside the embedded store, read back fast.

Reading a graph out of the embedded store decodes every term from RocksDB:
GO's 389k triples take about 3 s, and every process pays it for every
version it touches (a CLI call, a server's first requests, each annotate
worker). The same statements pickled, with equal terms shared, load in
about 0.15 s (benchmarks/RESULTS.md, session 11).

A kept file is used only while the store still holds what it says: the
graph's triple count (one COUNT, which Oxigraph answers without decoding
terms: 0.1 s for GO) and a few of its statements, those with blank nodes
first, since a graph the store loaded again has new blank-node labels and
the labels must be the store's (an apply writes what it read back). A file
that fails either check or does not read is dropped and made again from the
store; a folder that cannot be written leaves the store's reads as they were.

>>> import tempfile
>>> from pathlib import Path
>>> from ontoretrieve.backends.triple_store import interned
>>> store = ox.Store()
>>> g, a = ox.NamedNode("urn:g"), ox.NamedNode("http://x/a")
>>> store.add(ox.Quad(a, a, ox.Literal("x"), g))
>>> cache = StatementCache(Path(tempfile.mkdtemp()))
>>> cache.load("urn:g", store) is None
True
>>> cache.keep("urn:g", interned((q.subject, q.predicate, q.object)
...                             for q in store.quads_for_pattern(None, None, None, g)))
>>> [str(o) for _, _, o in cache.load("urn:g", store)]
['"x"']
>>> store.add(ox.Quad(a, a, ox.Literal("y"), g))  # the graph changed: the file is stale
>>> cache.load("urn:g", store) is None
True
"""

from __future__ import annotations

import hashlib
import logging
import pickle
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from ontoretrieve.kept import read_pickle, write_atomic
from ontoretrieve.rdf import sparql
from ontoretrieve.rdf.graph_index import Statement

__all__ = ["StatementCache"]

log = logging.getLogger(__name__)

FORMAT = 1
"""Bumped when what a file holds changes: older files are then made again."""

SAMPLES = 4
"""Statements checked against the store, of those with blank nodes and of all."""


class StatementCache:
    """One pickle per named graph in ``folder`` (made when first kept)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._unwritable = False

    def load(self, graph: str, store: ox.Store) -> list[Statement] | None:
        """The graph's statements when a kept file still matches ``store``, else None (a
        file that no longer matches is removed; a damaged one is written over by the
        next ``keep``)."""
        path = self._path(graph)
        kept = read_pickle(path, "kept graph statements")
        if kept is None:
            return None
        if not (isinstance(kept, dict) and kept.get("format") == FORMAT
                and kept.get("graph") == graph and _matches(kept, graph, store)):
            self._drop(path)
            return None
        statements: list[Statement] = kept["statements"]
        return statements

    def keep(self, graph: str, statements: list[Statement]) -> None:
        """Write the graph's statements (as the store gave them) for the next process."""
        if self._unwritable or not statements:
            return
        record = {"format": FORMAT, "graph": graph, "samples": _samples(statements),
                  "statements": statements}
        try:
            write_atomic(self._path(graph), pickle.dumps(record, protocol=5))
        except OSError as exc:  # a read-only data directory still answers from the store
            self._unwritable = True
            log.info("cannot keep graph statements in %s (%s); reading the store each "
                     "time", self.folder, exc)

    def forget(self, graph: str) -> None:
        """Remove the graph's file (before the store's graph is written or dropped)."""
        self._drop(self._path(graph))

    def _path(self, graph: str) -> Path:
        return self.folder / f"{hashlib.sha256(graph.encode()).hexdigest()[:32]}.pickle"

    def _drop(self, path: Path) -> None:
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            log.info("cannot remove %s (%s)", path, exc)


def _samples(statements: Sequence[Statement]) -> list[Statement]:
    """Up to ``SAMPLES`` statements with a blank node and ``SAMPLES`` of all, spread
    over the graph."""
    blank = [t for t in statements
             if isinstance(t[0], ox.BlankNode) or isinstance(t[2], ox.BlankNode)]
    return _spread(blank) + _spread(statements)


def _spread(items: Sequence[Statement]) -> list[Statement]:
    step = max(1, len(items) // SAMPLES)
    return list(items[::step][:SAMPLES])


def _matches(kept: dict[str, Any], graph: str, store: ox.Store) -> bool:
    """The store's graph has as many triples as were kept and holds every sample."""
    name = ox.NamedNode(graph)
    if not all(ox.Quad(s, p, o, name) in store for s, p, o in kept["samples"]):
        return False
    rows = store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH {sparql.iri(graph)} "
                       "{ ?s ?p ?o } }")
    count = next(iter(rows))["n"] if isinstance(rows, ox.QuerySolutions) else None
    return isinstance(count, ox.Literal) and int(count.value) == len(kept["statements"])
