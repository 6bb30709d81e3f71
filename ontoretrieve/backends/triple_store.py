"""The contract every triple store adapter keeps, written once here.

Terms cross this boundary as pyoxigraph terms (``NamedNode``, ``BlankNode``,
``Literal``) whatever the store is, so the stages above never see a
store-specific type. Every adapter maps its own failures onto
``StoreUnavailableError`` (cannot reach or open the store) and
``StoreQueryError`` (the store rejected a request); nothing else escapes.

Adapters: ``OxigraphStore`` (embedded, on disk or in memory) and
``SparqlHttpStore`` (any SPARQL 1.1 endpoint with the Graph Store Protocol).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol, TypeAlias, runtime_checkable

import pyoxigraph as ox

from ontoretrieve.rdf.graph_index import Statement

__all__ = ["Solution", "Statement", "Term", "TripleStore", "interned"]

Term: TypeAlias = ox.NamedNode | ox.BlankNode | ox.Literal
Solution: TypeAlias = dict[str, Term]
"""One row of a SELECT: variable name (without ``?``) -> bound term."""


@runtime_checkable
class TripleStore(Protocol):
    """A quad store that ontoretrieve reads with SPARQL and writes by graph."""

    def replace_graph(self, graph: str,
                      triples: Sequence[ox.Triple] | Sequence[Statement]) -> None:
        """Make ``graph`` hold exactly ``triples`` (or statements: an applied version's).

        Not atomic on every store (the embedded one bulk-loads): write to a
        graph name nothing refers to yet, then point metadata at it.
        """
        ...

    def drop_graph(self, graph: str) -> None:
        """Remove ``graph``; no error when it does not exist."""
        ...

    def graph_triples(self, graph: str) -> list[ox.Triple]:
        """Every triple of ``graph`` (empty when it does not exist)."""
        ...

    def graph_statements(self, graph: str) -> list[Statement]:
        """``graph_triples`` as (subject, predicate, object) tuples with equal terms shared
        (``interned``): what a graph index is built from, the cheapest form to read."""
        ...

    def select(self, query: str) -> list[Solution]:
        """Run a SELECT; unbound variables are absent from their row."""
        ...

    def construct(self, query: str) -> list[ox.Triple]:
        """Run a CONSTRUCT or DESCRIBE."""
        ...

    def update(self, update: str) -> None:
        """Run a SPARQL 1.1 update, atomically where the store supports it."""
        ...

    def close(self) -> None:
        """Release files, locks and connections; the store is unusable after."""
        ...

    @property
    def description(self) -> str:
        """Where the store is, for messages (a path, ``memory`` or a URL)."""
        ...


def interned(terms: Iterable[tuple[Any, Any, Any]] | Iterable[ox.Triple]) -> list[Statement]:
    """Statements with each distinct term one object: a third of the objects for GO,
    and a pickle that writes each term once.

    >>> a = ox.NamedNode("http://x/a")
    >>> s = interned([(ox.NamedNode("http://x/a"), a, a), (a, a, ox.Literal("x"))])
    >>> s[0][0] is s[1][0] is s[0][1]
    True
    """
    shared: dict[Any, Any] = {}
    keep = shared.setdefault
    return [(keep(s, s), keep(p, p), keep(o, o)) for s, p, o in terms]
