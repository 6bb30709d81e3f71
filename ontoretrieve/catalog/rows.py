"""Per-term catalog rows, read once for a batch: deprecation facts and class references.

Before it reads the seeds' graphs, a retrieval asks the store two questions
about its seeds: which are deprecated (``CatalogReader.facts``) and which other
ontologies declare the classes they point to by ``rdfs:subClassOf``, domain or
range (``CatalogReader.referenced_versions``). Both answers are per term, so
``CatalogRows`` keeps each term's rows once read: a batch asks for the seeds of
all its texts at once (``Retriever.prepare``), two SELECTs a batch instead of
two a text, each a round trip to a SPARQL server; each text then takes its own
terms' rows. A retrieval alone uses a fresh ``CatalogRows``: the same code.

A term's rows are kept in a canonical order (graphs, predicate, object), so the
answer a text gets does not depend on which other terms were asked with it:

>>> rows = CatalogRows()
>>> rows.facts[("p",)] = {"urn:a": [("g", "p", ox.NamedNode("urn:b"))]}
>>> rows.fact_rows(None, ["urn:a", "urn:a"], ["p"])  # known: nothing asked of the store
{'urn:a': [('g', 'p', <NamedNode value=urn:b>)]}
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import pyoxigraph as ox

from ontoretrieve.backends import TripleStore
from ontoretrieve.rdf import sparql
from ontoretrieve.rdf.vocab import (
    CLASS_TYPE_NODES,
    RDF_TYPE,
    RDFS_DOMAIN,
    RDFS_RANGE,
    RDFS_SUBCLASS_OF,
)

__all__ = ["CatalogRows", "FactRow", "ReferenceRow"]

FactObject = ox.NamedNode | ox.BlankNode | ox.Literal
FactRow = tuple[str, str, FactObject]
"""(named graph, predicate, object) of one statement about a term."""
ReferenceRow = tuple[str, str]
"""(graph stating the term's link, graph declaring the class it links to)."""

_CHUNK = 400
"""Terms per SELECT: one VALUES block of a few hundred IRIs stays fast in Oxigraph."""


@dataclass(slots=True)
class CatalogRows:
    """The rows read so far, per term; only what is missing is asked of the store."""

    facts: dict[tuple[str, ...], dict[str, list[FactRow]]] = field(default_factory=dict)
    """By the predicates asked, per IRI: its statements with one of them, in any graph."""
    references: dict[str, list[ReferenceRow]] = field(default_factory=dict)
    """Per IRI: the graphs of the classes it links to, and the graph stating each link."""

    def fact_rows(self, store: TripleStore | None, iris: Sequence[str],
                  predicates: Sequence[str]) -> dict[str, list[FactRow]]:
        """Each IRI's statements with one of ``predicates`` (in every named graph);
        raises the store's error on failure, keeping what was read before."""
        known = self.facts.setdefault(tuple(predicates), {})
        missing = [i for i in dict.fromkeys(iris) if i not in known]
        if missing and store is not None:
            for chunk in sparql.chunks(missing, _CHUNK):
                known.update(_fact_rows(store, chunk, predicates))
        return {i: known.get(i, []) for i in dict.fromkeys(iris)}

    def reference_rows(self, store: TripleStore | None, iris: Sequence[str]
                       ) -> dict[str, list[ReferenceRow]]:
        """Each IRI's links to declared classes, as (link graph, class graph) pairs;
        raises the store's error on failure, keeping what was read before."""
        missing = [i for i in dict.fromkeys(iris) if i not in self.references]
        if missing and store is not None:
            for chunk in sparql.chunks(missing, _CHUNK):
                self.references.update(_reference_rows(store, chunk))
        return {i: self.references.get(i, []) for i in dict.fromkeys(iris)}


def _fact_rows(store: TripleStore, iris: Sequence[str], predicates: Sequence[str]
               ) -> dict[str, list[FactRow]]:
    # One VALUES block, predicates filtered: a second VALUES block makes Oxigraph join
    # the blocks first (1-6 s instead of milliseconds).
    query = ("SELECT ?s ?p ?o ?g WHERE { "
             f"VALUES ?s {{ {sparql.iris(iris)} }} "
             "GRAPH ?g { ?s ?p ?o . } "
             f"FILTER(?p IN ({', '.join(sparql.iri(p) for p in predicates)})) }}")
    found: dict[str, list[FactRow]] = {i: [] for i in iris}
    for row in store.select(query):
        value, graph, subject = row.get("o"), row.get("g"), row.get("s")
        if isinstance(value, FactObject) and graph is not None and subject is not None \
                and subject.value in found:
            found[subject.value].append((graph.value, row["p"].value, value))
    return {iri: _in_order(rows) for iri, rows in found.items()}


def _reference_rows(store: TripleStore, iris: Sequence[str]) -> dict[str, list[ReferenceRow]]:
    class_types = ", ".join(sparql.iri(t.value) for t in sorted(CLASS_TYPE_NODES, key=str))
    # Graphs are filtered by the caller, not here: a second VALUES block makes Oxigraph
    # join the blocks first (1-6 s instead of 7 ms).
    query = (
        "SELECT DISTINCT ?s ?src ?g WHERE { "
        f"VALUES ?s {{ {sparql.iris(iris)} }} "
        "GRAPH ?src { ?s ?p ?c . } "
        f"FILTER(?p IN ({sparql.iri(RDFS_SUBCLASS_OF)}, {sparql.iri(RDFS_DOMAIN)}, "
        f"{sparql.iri(RDFS_RANGE)})) FILTER(isIRI(?c)) "
        f"GRAPH ?g {{ ?c {sparql.iri(RDF_TYPE)} ?t . }} "
        f"FILTER(?t IN ({class_types})) }}")
    found: dict[str, set[ReferenceRow]] = {i: set() for i in iris}
    for row in store.select(query):
        subject, source, graph = row.get("s"), row.get("src"), row.get("g")
        if subject is not None and source is not None and graph is not None \
                and subject.value in found:
            found[subject.value].add((source.value, graph.value))
    return {iri: sorted(rows) for iri, rows in found.items()}


def _in_order(rows: Iterable[FactRow]) -> list[FactRow]:
    """Canonical order; blank nodes, whose labels a SPARQL server may make up per
    answer, compare equal and keep the store's order among themselves."""
    return sorted(rows, key=lambda r: (r[0], r[1], _kind(r[2]),
                                       "" if isinstance(r[2], ox.BlankNode) else str(r[2])))


def _kind(value: FactObject) -> int:
    return 0 if isinstance(value, ox.NamedNode) else 1 if isinstance(value, ox.Literal) else 2
