"""In-memory adjacency over catalog triples, and the schema role of each triple.

Pure: triples in, lookups out. A ``GraphIndex`` holds one ontology version
(fetched once and cached by the catalog reader); a ``WorkingGraph`` is a view
over several of them, so merging ontologies copies nothing and costs
nothing however large GO or NCBITaxon are.

>>> import pyoxigraph as ox
>>> a, b = ox.NamedNode("http://x/A"), ox.NamedNode("http://x/B")
>>> g = GraphIndex("h1", [ox.Triple(a, ox.NamedNode(RDFS + "subClassOf"), b)])
>>> w = WorkingGraph([g])
>>> [str(o) for _, o in w.out(a)], [str(s) for s, _ in w.incoming(b)]
(['<http://x/B>'], ['<http://x/A>'])
>>> role_of(ox.NamedNode(RDFS + "subClassOf"), b, RoleTable.default()).name
'HIERARCHY'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TypeAlias

import pyoxigraph as ox

from ontoretrieve.vocab import OWL, PREFIXES, RDF, RDFS

__all__ = [
    "META_TYPES",
    "GraphIndex",
    "Node",
    "Role",
    "RoleTable",
    "Statement",
    "WorkingGraph",
    "blank_tree",
    "is_standard",
    "role_of",
]

Node: TypeAlias = ox.NamedNode | ox.BlankNode
Term: TypeAlias = ox.NamedNode | ox.BlankNode | ox.Literal
Statement: TypeAlias = tuple[Node, ox.NamedNode, Term]
"""A triple as a plain hashable tuple (subject, predicate, object)."""

RDF_TYPE = ox.NamedNode(RDF + "type")
SKOS = PREFIXES["skos"]

META_TYPES = frozenset(ox.NamedNode(x) for x in (
    OWL + "Class", RDFS + "Class", OWL + "ObjectProperty", OWL + "DatatypeProperty",
    OWL + "AnnotationProperty", RDF + "Property", OWL + "FunctionalProperty",
    OWL + "InverseFunctionalProperty", OWL + "TransitiveProperty", OWL + "SymmetricProperty",
    OWL + "AsymmetricProperty", OWL + "ReflexiveProperty", OWL + "IrreflexiveProperty",
    OWL + "Ontology", OWL + "NamedIndividual", OWL + "Restriction", RDFS + "Datatype",
    OWL + "Thing", OWL + "DeprecatedClass", OWL + "DeprecatedProperty", OWL + "AllDisjointClasses",
    OWL + "Axiom", RDF + "List", OWL + "OntologyProperty",
))
"""Types that say what kind of term something is, not which class it belongs to."""

CLASS_TYPES = frozenset(ox.NamedNode(x) for x in (OWL + "Class", RDFS + "Class"))
PROPERTY_TYPES = frozenset(t for t in META_TYPES if t.value.endswith("Property"))

# Namespaces of the standard vocabularies: terms there are never expanded into
# (every class is an owl:Class; walking into owl:Class would connect everything).
_STANDARD = (RDF, RDFS, OWL, PREFIXES["xsd"], SKOS, "http://www.w3.org/ns/shacl#",
             "http://purl.org/dc/elements/1.1/", "http://purl.org/dc/terms/")


def blank_tree(node: Node, blank_subjects: Mapping[Node, Sequence[Statement]]
               ) -> list[Statement]:
    """The statements of blank node ``node`` and of every blank node under it.

    ``blank_subjects`` holds each blank subject's statements.

    >>> b, c = ox.BlankNode(), ox.BlankNode()
    >>> p = ox.NamedNode("http://x/p")
    >>> len(blank_tree(b, {b: [(b, p, c)], c: [(c, p, ox.Literal("v"))]}))
    2
    """
    found: list[Statement] = []
    stack, seen = [node], set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        for st in blank_subjects.get(current, ()):
            found.append(st)
            if isinstance(st[2], ox.BlankNode):
                stack.append(st[2])
    return found


def is_standard(node: Term) -> bool:
    """True for terms of RDF, RDFS, OWL, XSD, SKOS, SHACL and Dublin Core."""
    return isinstance(node, ox.NamedNode) and node.value.startswith(_STANDARD)


class Role(IntEnum):
    """Schema role of a triple; a tight budget admits lower values first."""

    LABEL = 0
    TYPE = 1
    SYMBOL = 2
    HIERARCHY = 3
    DOMAIN_RANGE = 4
    LINK = 5
    DESCRIPTION = 6
    ANNOTATION = 7


_HIERARCHY = (RDFS + "subClassOf", RDFS + "subPropertyOf", OWL + "equivalentClass",
              OWL + "equivalentProperty", OWL + "inverseOf", SKOS + "broader",
              SKOS + "narrower", OWL + "intersectionOf", OWL + "unionOf", OWL + "disjointWith")
_DOMAIN_RANGE = (RDFS + "domain", RDFS + "range", "http://schema.org/domainIncludes",
                 "http://schema.org/rangeIncludes")
_DESCRIPTION = (RDFS + "comment", SKOS + "definition", SKOS + "scopeNote",
                "http://purl.obolibrary.org/obo/IAO_0000115",
                "http://purl.org/dc/terms/description", "http://purl.org/dc/elements/1.1/description",
                "http://qudt.org/schema/qudt/plainTextDescription")


@dataclass(frozen=True, slots=True)
class RoleTable:
    """Which predicates name, symbolize and describe terms."""

    labels: frozenset[str]
    symbols: frozenset[str]
    cache: dict[tuple[ox.NamedNode, bool], Role] = field(default_factory=dict, compare=False)
    """Roles already worked out: the same few predicates come back all the time."""

    @classmethod
    def default(cls) -> RoleTable:
        return cls(frozenset({RDFS + "label", SKOS + "prefLabel", SKOS + "altLabel"}),
                   frozenset({SKOS + "notation", "http://qudt.org/schema/qudt/symbol",
                              "http://qudt.org/schema/qudt/ucumCode"}))

    @classmethod
    def of(cls, labels: Sequence[str], symbols: Sequence[str]) -> RoleTable:
        return cls(frozenset(labels) | {RDFS + "label"}, frozenset(symbols))


_ROLE_BY_PREDICATE: dict[str, Role] = {
    **{p: Role.HIERARCHY for p in _HIERARCHY},
    **{p: Role.DOMAIN_RANGE for p in _DOMAIN_RANGE},
    **{p: Role.DESCRIPTION for p in _DESCRIPTION},
    RDF + "type": Role.TYPE,
}


def role_of(predicate: ox.NamedNode, obj: Term, table: RoleTable) -> Role:
    """The schema role of one triple, from its predicate (and object kind)."""
    key = (predicate, isinstance(obj, ox.Literal))
    role = table.cache.get(key)
    if role is None:
        role = _role(predicate.value, key[1], table)
        table.cache[key] = role
    return role


def _role(p: str, literal: bool, table: RoleTable) -> Role:
    if p in table.labels:
        return Role.LABEL
    if p in table.symbols:
        return Role.SYMBOL
    role = _ROLE_BY_PREDICATE.get(p)
    if role is not None:
        return role
    return Role.ANNOTATION if literal else Role.LINK


class GraphIndex:
    """The triples of one ontology version, indexed by subject and by object."""

    __slots__ = ("_in", "_out", "headers", "name", "triples")

    def __init__(self, name: str, triples: Iterable[ox.Triple]) -> None:
        self.name = name
        self.triples: list[Statement] = []
        self._out: dict[Node, list[tuple[ox.NamedNode, Term]]] = {}
        self._in: dict[Node, list[tuple[Node, ox.NamedNode]]] = {}
        self.headers: set[Node] = set()
        ontology = ox.NamedNode(OWL + "Ontology")
        for t in triples:
            s, p, o = t.subject, t.predicate, t.object
            if not isinstance(s, ox.NamedNode | ox.BlankNode):
                continue  # RDF-star subjects do not occur in catalogs
            statement: Statement = (s, p, o)  # type: ignore[assignment]
            self.triples.append(statement)
            self._out.setdefault(s, []).append((p, o))  # type: ignore[arg-type]
            if isinstance(o, ox.NamedNode | ox.BlankNode):
                self._in.setdefault(o, []).append((s, p))
            if p == RDF_TYPE and o == ontology:
                self.headers.add(s)

    def __len__(self) -> int:
        return len(self.triples)

    def out(self, node: Node) -> list[tuple[ox.NamedNode, Term]]:
        return self._out.get(node, [])

    def incoming(self, node: Node) -> list[tuple[Node, ox.NamedNode]]:
        return self._in.get(node, [])

    def describes(self, node: Node) -> bool:
        return node in self._out


class WorkingGraph:
    """The union of several ontology versions, as a view (nothing is copied).

    Lookups are memoized per node: the view is cached across retrievals, and
    the same hub terms are looked up unit after unit.
    """

    def __init__(self, parts: Sequence[GraphIndex]) -> None:
        self.parts = tuple(parts)
        self.headers: set[Node] = set().union(*(p.headers for p in self.parts))
        self._out: dict[Node, list[tuple[ox.NamedNode, Term]]] = {}
        self._in: dict[Node, list[tuple[Node, ox.NamedNode]]] = {}
        self._owners: dict[Node, list[str]] = {}

    def __len__(self) -> int:
        return sum(len(p) for p in self.parts)

    def out(self, node: Node) -> list[tuple[ox.NamedNode, Term]]:
        found = self._out.get(node)
        if found is None:
            # The same triple in two versions counts once.
            found = list(dict.fromkeys(e for part in self.parts for e in part.out(node)))
            self._out[node] = found
        return found

    def incoming(self, node: Node) -> list[tuple[Node, ox.NamedNode]]:
        found = self._in.get(node)
        if found is None:
            found = list(dict.fromkeys(e for part in self.parts for e in part.incoming(node)))
            self._in[node] = found
        return found

    def describes(self, node: Node) -> bool:
        """True when some part has a triple with ``node`` as subject."""
        return bool(self.out(node))

    def owners(self, node: Node) -> list[str]:
        """Names of the parts (version hashes) that describe ``node``."""
        found = self._owners.get(node)
        if found is None:
            found = [part.name for part in self.parts if part.describes(node)]
            self._owners[node] = found
        return found

    def types(self, node: Node) -> set[ox.NamedNode]:
        return {o for p, o in self.out(node) if p == RDF_TYPE and isinstance(o, ox.NamedNode)}
