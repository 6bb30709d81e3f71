"""From seeds to the terms the subgraph grows from: kinds, type promotion, schema closure, order.

Pure: a working graph and seeds in, more seeds out. docs/context.md,
"Expansion": the in-memory half of reference expansion, schema closure, type
promotion and seed order. The
catalog reader does the SPARQL half of reference expansion and the version
filter; ``subgraph`` spends the triple budget.

>>> import pyoxigraph as ox
>>> from ontoretrieve.rdf.graph_index import GraphIndex, WorkingGraph
>>> from ontoretrieve.rdf.vocab import OWL_CLASS, RDF_TYPE, RDFS_DOMAIN
>>> x = lambda s: ox.NamedNode("http://x/" + s)
>>> t = lambda s, p, o: ox.Triple(x(s), ox.NamedNode(p), o)
>>> g = WorkingGraph([GraphIndex("h", [
...     t("Fido", RDF_TYPE, x("Dog")), t("Dog", RDF_TYPE, ox.NamedNode(OWL_CLASS)),
...     t("owner", RDFS_DOMAIN, x("Dog"))])])
>>> seeds = [ContextSeed("http://x/Fido", 0.8, 1, "h", "retrieved", "resource")]
>>> [(s.iri, str(s.origin)) for s in promote_types(g, seeds, 0.5)]
[('http://x/Fido', 'retrieved'), ('http://x/Dog', 'type_promotion')]
>>> [s.iri for s in schema_closure(g, promote_types(g, seeds, 0.5), 2, 32)][-1]
'http://x/owner'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

import pyoxigraph as ox

from ontoretrieve.rdf.graph_index import Node, WorkingGraph, is_standard
from ontoretrieve.rdf.vocab import (
    CLASS_TYPE_NODES,
    DOMAIN_NODE,
    META_TYPE_NODES,
    PROPERTY_TYPE_NODES,
    RANGE_NODE,
    SUBCLASS_OF_NODE,
)
from ontoretrieve.records import TermStep
from ontoretrieve.settings.groups import SeedOrder

__all__ = [
    "ContextSeed",
    "SeedKind",
    "kind_of",
    "order_seeds",
    "promote_types",
    "schema_closure",
]



class SeedKind(StrEnum):
    PROPERTY = "property"
    CLASS = "class"
    INDIVIDUAL = "individual"


@dataclass(frozen=True, slots=True)
class ContextSeed:
    """A term the subgraph grows from, with the score and step that made it one."""

    iri: str
    score: float
    rank: int
    """Position among the retrieved seeds (closure seeds come after all of them)."""
    ontology: str
    """Content hash of the ontology version it came from ("" when unknown)."""
    origin: TermStep
    """A seed rule, or the closure that added it (type_promotion, schema_closure)."""
    role: str
    """The index role: ``predicate`` or ``resource``."""
    via: str | None = None
    """For promoted and closure seeds: the seed that brought it in."""

    @property
    def node(self) -> ox.NamedNode:
        return ox.NamedNode(self.iri)


def kind_of(graph: WorkingGraph, seed: ContextSeed) -> SeedKind:
    """Property, class or individual, from the seed's role and its types in the graph."""
    types = graph.types(seed.node)
    if seed.role == "predicate" or types & PROPERTY_TYPE_NODES:
        return SeedKind.PROPERTY
    if types & CLASS_TYPE_NODES or any(p == SUBCLASS_OF_NODE for p, _ in graph.out(seed.node)):
        return SeedKind.CLASS
    if types - META_TYPE_NODES:
        return SeedKind.INDIVIDUAL
    return SeedKind.CLASS


def promote_types(graph: WorkingGraph, seeds: Sequence[ContextSeed],
                  factor: float) -> list[ContextSeed]:
    """Individuals keep their score and promote their classes at ``score x factor``.

    A class already among the seeds keeps the higher of the two scores.
    """
    by_iri = {s.iri: s for s in seeds}
    promoted: dict[str, ContextSeed] = {}
    for seed in seeds:
        if kind_of(graph, seed) is not SeedKind.INDIVIDUAL:
            continue
        for cls in sorted(graph.types(seed.node) - META_TYPE_NODES, key=str):
            if is_standard(cls) or not graph.describes(cls):
                continue
            score = seed.score * factor
            current = by_iri.get(cls.value) or promoted.get(cls.value)
            if current is None:
                owners = graph.owners(cls)
                promoted[cls.value] = ContextSeed(
                    cls.value, score, seed.rank, owners[0] if owners else seed.ontology,
                    TermStep.TYPE_PROMOTION, "resource", via=seed.iri)
            elif current.score < score:
                if cls.value in by_iri:
                    by_iri[cls.value] = replace(current, score=score)
                else:
                    promoted[cls.value] = replace(current, score=score)
    return [by_iri[s.iri] for s in seeds] + list(promoted.values())


def _ancestors(graph: WorkingGraph, node: Node, depth: int) -> list[ox.NamedNode]:
    """Named rdfs:subClassOf ancestors up to ``depth`` steps, nearest first."""
    found: list[ox.NamedNode] = []
    frontier: list[Node] = [node]
    seen = {node}
    for _ in range(depth):
        step: list[Node] = []
        for current in frontier:
            for p, o in graph.out(current):
                if p == SUBCLASS_OF_NODE and isinstance(o, ox.NamedNode) and o not in seen \
                        and not is_standard(o):
                    seen.add(o)
                    found.append(o)
                    step.append(o)
        frontier = step
    return found


def schema_closure(graph: WorkingGraph, seeds: Sequence[ContextSeed], ancestor_depth: int,
                   max_entities: int) -> list[ContextSeed]:
    """Add the properties around kept classes and the classes around kept properties.

    Properties whose domain or range names a kept class or one of its
    ancestors (up to ``ancestor_depth``), and the domain and range classes of
    kept properties, up to ``max_entities`` terms. They score below every
    seed, in the order they were found, so a binding budget drops them first.
    """
    if not seeds or max_entities <= 0:
        return list(seeds)
    known = {s.iri for s in seeds}
    floor = min(s.score for s in seeds)
    rank = max(s.rank for s in seeds)
    added: list[ContextSeed] = []

    def add(node: ox.NamedNode, role: str, via: ContextSeed) -> bool:
        if node.value in known or is_standard(node) or not graph.describes(node):
            return len(added) < max_entities
        known.add(node.value)
        owners = graph.owners(node)
        # Strictly below every seed and decreasing in discovery order.
        score = floor * 0.5 / (1 + len(added))
        added.append(ContextSeed(node.value, score, rank + 1 + len(added),
                                 owners[0] if owners else via.ontology,
                                 TermStep.SCHEMA_CLOSURE, role, via=via.iri))
        return len(added) < max_entities

    for seed in sorted(seeds, key=lambda s: (-s.score, s.rank)):
        if kind_of(graph, seed) is SeedKind.PROPERTY:
            for p, o in graph.out(seed.node):
                if p in (DOMAIN_NODE, RANGE_NODE) and isinstance(o, ox.NamedNode) \
                        and not add(o, "resource", seed):
                    return list(seeds) + added
            continue
        for cls in [seed.node, *_ancestors(graph, seed.node, ancestor_depth)]:
            for s, p in graph.incoming(cls):
                if p in (DOMAIN_NODE, RANGE_NODE) and isinstance(s, ox.NamedNode) \
                        and not add(s, "predicate", seed):
                    return list(seeds) + added
    return list(seeds) + added


def order_seeds(seeds: Sequence[ContextSeed], order: SeedOrder) -> list[ContextSeed]:
    """By score (ties by retrieval rank), or round robin over ontologies, best first.

    >>> a = ContextSeed("a", 0.9, 1, "o1", "retrieved", "resource")
    >>> b = ContextSeed("b", 0.8, 2, "o1", "retrieved", "resource")
    >>> c = ContextSeed("c", 0.5, 3, "o2", "retrieved", "resource")
    >>> [s.iri for s in order_seeds([c, b, a], SeedOrder.ONTOLOGY_ROUND_ROBIN)]
    ['a', 'c', 'b']
    """
    ranked = sorted(seeds, key=lambda s: (-s.score, s.rank, s.iri))
    if order is SeedOrder.SCORE:
        return ranked
    groups: dict[str, list[ContextSeed]] = {}
    for seed in ranked:
        groups.setdefault(seed.ontology, []).append(seed)
    interleaved: list[ContextSeed] = []
    queues = list(groups.values())  # dicts keep insertion order: best ontology first
    while queues:
        interleaved.extend(q.pop(0) for q in queues)
        queues = [q for q in queues if q]
    return interleaved

