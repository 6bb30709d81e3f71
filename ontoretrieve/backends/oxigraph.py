"""Embedded triple store: pyoxigraph ``Store``, on disk or in memory.

>>> store = OxigraphStore.in_memory()
>>> import pyoxigraph as ox
>>> t = ox.Triple(ox.NamedNode("http://x/s"), ox.NamedNode("http://x/p"), ox.Literal("o"))
>>> store.replace_graph("urn:g", [t])
>>> store.select("SELECT ?o WHERE { GRAPH <urn:g> { ?s ?p ?o } }")[0]["o"].value
'o'
"""

from __future__ import annotations

import errno
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path

import pyoxigraph as ox

from ontoretrieve.backends.triple_store import Solution
from ontoretrieve.errors import StoreQueryError, StoreUnavailableError, map_errors
from ontoretrieve.rdf import sparql

__all__ = ["OxigraphStore"]


class OxigraphStore:
    """The default ``TripleStore``: nothing to start, data under the data directory."""

    def __init__(self, store: ox.Store, description: str) -> None:
        self._store = store
        self._description = description

    @classmethod
    def open(cls, path: Path) -> OxigraphStore:
        """Open (creating if needed) the store in ``path``; one process at a time.

        On a read-only file system the store opens read-only, so a catalog on
        read-only media still serves; any write then fails with a clear error.
        """
        try:
            path.mkdir(parents=True, exist_ok=True)
            return cls(ox.Store(str(path)), str(path))
        except OSError as exc:
            if exc.errno in (errno.EROFS, errno.EACCES) or "Read-only file system" in str(exc):
                try:
                    return cls(ox.Store.read_only(str(path)), f"{path} (read-only)")
                except OSError:
                    pass
            raise StoreUnavailableError(
                f"cannot open the triple store at {path}: {exc} "
                "(is another ontoretrieve process using this data directory?)"
            ) from exc

    @classmethod
    def in_memory(cls) -> OxigraphStore:
        """A store that lives as long as the object; for tests and one-shot runs."""
        return cls(ox.Store(), "memory")

    @property
    def description(self) -> str:
        return self._description

    def replace_graph(self, graph: str, triples: Sequence[ox.Triple]) -> None:
        name = ox.NamedNode(graph)
        quads = [ox.Quad(t.subject, t.predicate, t.object, name) for t in triples]
        with self._errors("update rejected", OSError, RuntimeError):
            self._store.update(sparql.drop_graph(graph))
            # bulk_extend is 3x faster than the transactional extend on large
            # graphs; the catalog writes fresh graph names and records them
            # only after this returns, so a crash leaves no referenced half-graph.
            self._store.bulk_extend(quads)

    def drop_graph(self, graph: str) -> None:
        self.update(sparql.drop_graph(graph))

    def graph_triples(self, graph: str) -> list[ox.Triple]:
        return [q.triple for q in self._store.quads_for_pattern(None, None, None,
                                                                ox.NamedNode(graph))]

    def select(self, query: str) -> list[Solution]:
        results = self._query(query)
        if not isinstance(results, ox.QuerySolutions):
            raise StoreQueryError(f"not a SELECT query: {query[:80]}")
        names = [v.value for v in results.variables]
        rows: list[Solution] = []
        for solution in results:
            row: Solution = {}
            for name in names:
                value = solution[name]
                if value is not None:
                    row[name] = value
            rows.append(row)
        return rows

    def construct(self, query: str) -> list[ox.Triple]:
        result = self._query(query)
        if not isinstance(result, ox.QueryTriples):
            raise StoreQueryError(f"not a CONSTRUCT query: {query[:80]}")
        return list(result)

    def update(self, update: str) -> None:
        with self._errors("update rejected", OSError, RuntimeError):
            self._store.update(update)

    def close(self) -> None:
        # pyoxigraph releases the RocksDB lock when the Store is collected.
        if not self._description.endswith("(read-only)"):
            self._store.flush()
        del self._store

    def _query(self, query: str) -> ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples:
        with self._errors("query rejected", OSError):
            results = self._store.query(query)
        return results

    def _errors(self, rejected: str, *unavailable: type[BaseException]
                ) -> AbstractContextManager[None]:
        """The store's errors as ours: a syntax error is a rejected query or update; the
        given I/O errors (RuntimeError: a read-only store) make the store unavailable."""
        return map_errors({
            SyntaxError: lambda exc: StoreQueryError(f"{rejected}: {exc}"),
            unavailable: lambda exc: StoreUnavailableError(f"{self._description}: {exc}"),
        })
