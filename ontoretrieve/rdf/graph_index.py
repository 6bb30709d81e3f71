"""In-memory adjacency over catalog triples, and the schema role of each triple.

Pure: triples in, lookups out. A ``GraphIndex`` holds one ontology version
(fetched once and cached by the catalog reader); a ``WorkingGraph`` is a view
over several of them, so merging ontologies copies nothing and costs
nothing however large GO or NCBITaxon are.

>>> import pyoxigraph as ox
>>> from ontoretrieve.rdf.vocab import SUBCLASS_OF_NODE
>>> a, b = ox.NamedNode("http://x/A"), ox.NamedNode("http://x/B")
>>> g = GraphIndex("h1", [ox.Triple(a, SUBCLASS_OF_NODE, b)])
>>> w = WorkingGraph([g])
>>> [str(o) for _, o in w.out(a)], [str(s) for s, _ in w.incoming(b)]
(['<http://x/B>'], ['<http://x/A>'])
>>> role_of(SUBCLASS_OF_NODE, b, RoleTable.default()).name
'HIERARCHY'
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TypeAlias

import pyoxigraph as ox

from ontoretrieve.rdf.merged_memo import MergedLookups
from ontoretrieve.rdf.vocab import (
    DOMAIN_RANGE_PREDICATES,
    HIERARCHY_PREDICATES,
    INCOMING_SCHEMA_PREDICATES,
    LABEL_PREDICATES,
    NEVER_EXPANDED_NAMESPACES,
    OWL_ONTOLOGY_NODE,
    RDF_TYPE,
    RDF_TYPE_NODE,
    RDFS_LABEL,
    REFERENCE_PREDICATES,
    SCHEMA_DESCRIPTION_PREDICATES,
    SYMBOL_PREDICATES,
    nodes,
)

__all__ = [
    "GraphIndex",
    "Node",
    "Role",
    "RoleTable",
    "Statement",
    "WorkingGraph",
    "as_triples",
    "blank_tree",
    "is_standard",
    "reference_targets",
    "role_of",
]

Node: TypeAlias = ox.NamedNode | ox.BlankNode
Term: TypeAlias = ox.NamedNode | ox.BlankNode | ox.Literal
Statement: TypeAlias = tuple[Node, ox.NamedNode, Term]
"""A triple as a plain hashable tuple (subject, predicate, object).

A version is read as statements, cheaper to make than ``ox.Triple`` objects (each
of which copies its three terms: GO's 389k cost 1.0-1.4 s, benchmarks/RESULTS.md,
session 47). A statement never equals an ``ox.Triple``, so what is compared must
be one or the other: ``backends.triple_store.interned`` makes statements of triples,
``as_triples`` triples of statements."""


def as_triples(rows: Iterable[ox.Triple] | Iterable[Statement]) -> list[ox.Triple]:
    """Statements (or triples, passed through) as ``ox.Triple`` objects, for what reads
    or writes triples (serializers, the store's writes, the content hash).

    >>> a = ox.NamedNode("http://x/a")
    >>> as_triples([(a, a, a)]) == [ox.Triple(a, a, a)]
    True
    """
    return [row if isinstance(row, ox.Triple) else ox.Triple(*row) for row in rows]

_REFERENCES = nodes(REFERENCE_PREDICATES)
_INCOMING = nodes(INCOMING_SCHEMA_PREDICATES)


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
    return isinstance(node, ox.NamedNode) and node.value.startswith(NEVER_EXPANDED_NAMESPACES)


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


@dataclass(frozen=True, slots=True)
class RoleTable:
    """Which predicates name, symbolize and describe terms."""

    labels: frozenset[str]
    symbols: frozenset[str]
    cache: dict[tuple[ox.NamedNode, bool], Role] = field(default_factory=dict, compare=False)
    """Roles already worked out: the same few predicates come back all the time."""

    @classmethod
    def default(cls) -> RoleTable:
        return cls(frozenset(LABEL_PREDICATES), frozenset(SYMBOL_PREDICATES))

    @classmethod
    def of(cls, labels: Sequence[str], symbols: Sequence[str]) -> RoleTable:
        return cls(frozenset(labels) | {RDFS_LABEL}, frozenset(symbols))


_ROLE_BY_PREDICATE: dict[str, Role] = {
    **{p: Role.HIERARCHY for p in HIERARCHY_PREDICATES},
    **{p: Role.DOMAIN_RANGE for p in DOMAIN_RANGE_PREDICATES},
    **{p: Role.DESCRIPTION for p in SCHEMA_DESCRIPTION_PREDICATES},
    RDF_TYPE: Role.TYPE,
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
    """The triples of one ontology version, indexed by subject and by object.

    The statements are kept as three columns of terms, and each node's statements
    as its positions in them, packed in bytes: a catalog of a million statements is
    then its terms and some bytes instead of three million tuples and lists more,
    which the cyclic collector would walk at every full collection (it does not
    track bytes; it does track ``array`` objects). Pairs and statements are made
    when asked for.
    """

    __slots__ = ("_canonical_in", "_canonical_out", "_dead", "_in", "_keys", "_objects",
                 "_ordered", "_out", "_predicates", "_shapes", "_subjects", "headers", "name")

    def __init__(self, name: str, triples: Iterable[ox.Triple] | Iterable[Statement]) -> None:
        self.name = name
        self._subjects: list[Node] = []
        self._predicates: list[ox.NamedNode] = []
        self._objects: list[Term] = []
        self._dead: frozenset[int] = frozenset()
        """Positions of statements a change removed (``changed``): in the columns, in
        no lookup."""
        self._out: dict[Node, bytes] = {}
        """Each subject's positions (``_positions_of`` reads them)."""
        self._in: dict[Node, bytes] = {}
        """Each node's positions as an object."""
        self.headers: set[Node] = set()
        self._ordered: list[Statement] | None = None
        # Canonical lookups, filled on demand: an index outlives many retrievals, which
        # ask for the same hub terms unit after unit.
        self._canonical_out: dict[Node, list[tuple[ox.NamedNode, Term]]] = {}
        self._canonical_in: dict[Node, list[tuple[Node, ox.NamedNode]]] = {}
        self._shapes: dict[ox.BlankNode, str] = {}
        self._keys: dict[ox.BlankNode, str] = {}
        self._append(triples)

    def _append(self, triples: Iterable[ox.Triple] | Iterable[Statement]) -> None:
        """Add statements at the end of the columns and their positions to the lookups;
        a lookup's entry is replaced, never changed (a derived index shares its base's)."""
        subjects, predicates, objects = self._subjects, self._predicates, self._objects
        out: dict[Node, list[int]] = {}
        incoming: dict[Node, list[int]] = {}
        for s, p, o in triples:  # an ox.Triple unpacks as a statement does
            if not isinstance(s, ox.NamedNode | ox.BlankNode):
                continue  # RDF-star subjects do not occur in catalogs
            position = len(subjects)
            subjects.append(s)
            predicates.append(p)
            objects.append(o)
            out.setdefault(s, []).append(position)
            if isinstance(o, ox.NamedNode | ox.BlankNode):
                incoming.setdefault(o, []).append(position)
            if p == RDF_TYPE_NODE and o == OWL_ONTOLOGY_NODE:
                self.headers.add(s)
        for lookup, grouped in ((self._out, out), (self._in, incoming)):
            for node, positions in grouped.items():
                held = lookup.get(node)
                lookup[node] = (held or b"") + _packed(positions)

    @property
    def triples(self) -> list[Statement]:
        """The statements in the order they came (a change's additions last); made anew
        at each call."""
        everything = zip(self._subjects, self._predicates, self._objects, strict=True)
        if not self._dead:
            return list(everything)
        return [t for i, t in enumerate(everything) if i not in self._dead]

    def changed(self, name: str, added: Iterable[ox.Triple], removed: Iterable[ox.Triple]
                ) -> GraphIndex:
        """The index of a version that is this one with ``added`` and without ``removed``,
        made from this one's lookups (shared, never modified) in the time of the change
        and of a copy of the columns' references (GO's: milliseconds), not of indexing
        the graph again: what ``GraphIndex(name, new triples)`` would answer. A
        statement in both (no delta has one) counts as removed.

        >>> a, b = ox.NamedNode("http://x/a"), ox.NamedNode("http://x/b")
        >>> old = GraphIndex("h1", [ox.Triple(a, RDF_TYPE_NODE, b)])
        >>> new = old.changed("h2", [ox.Triple(b, RDF_TYPE_NODE, a)],
        ...                   [ox.Triple(a, RDF_TYPE_NODE, b)])
        >>> len(new), new.describes(a), new.describes(b), len(old), old.describes(a)
        (1, False, True, 1, True)
        """
        gone = set(GraphIndex(name, removed).triples)
        fresh = [t for t in dict.fromkeys(GraphIndex(name, added).triples)
                 if t not in gone and not self._positions(*t)]
        derived = GraphIndex(name, ())
        derived._subjects = list(self._subjects)  # the columns' references, not the terms
        derived._predicates = list(self._predicates)
        derived._objects = list(self._objects)
        derived._out, derived._in = dict(self._out), dict(self._in)
        derived.headers = set(self.headers)
        dead = set(self._dead)
        for statement in gone:
            dead.update(derived._drop(statement))
        derived._dead = frozenset(dead)
        derived._append(fresh)
        return derived

    def _positions(self, s: Node, p: ox.NamedNode, o: Term) -> list[int]:
        """Where the statement is in the columns (more than once when it came twice)."""
        predicates, objects = self._predicates, self._objects
        return [i for i in _positions_of(self._out, s)
                if predicates[i] == p and objects[i] == o]

    def _drop(self, statement: Statement) -> list[int]:
        """Remove one statement from the lookups, replacing the entries it touches; its
        positions."""
        s, p, o = statement
        positions = self._positions(s, p, o)
        if not positions:
            return positions
        _forget(self._out, s, positions)
        if isinstance(o, ox.NamedNode | ox.BlankNode):
            _forget(self._in, o, positions)
        if p == RDF_TYPE_NODE and o == OWL_ONTOLOGY_NODE:
            self.headers.discard(s)
        return positions

    def __len__(self) -> int:
        return len(self._subjects) - len(self._dead)

    def ordered(self) -> list[Statement]:
        """The triples in canonical order (subject, predicate, object by ``term_order``),
        sorted on first use: what a context takes whole, whatever order the store
        handed the triples back in."""
        if self._ordered is None:
            self._ordered = sorted(self.triples, key=lambda t: (
                term_order(t[0], self.shape), t[1].value, term_order(t[2], self.shape)))
        return self._ordered

    def out(self, node: Node) -> list[tuple[ox.NamedNode, Term]]:
        """The node's (predicate, object) pairs, in the order they came (a new list)."""
        predicates, objects = self._predicates, self._objects
        return [(predicates[i], objects[i]) for i in _positions_of(self._out, node)]

    def incoming(self, node: Node) -> list[tuple[Node, ox.NamedNode]]:
        """The (subject, predicate) pairs pointing at the node, in the order they came."""
        subjects, predicates = self._subjects, self._predicates
        return [(subjects[i], predicates[i]) for i in _positions_of(self._in, node)]

    def canonical_out(self, node: Node) -> list[tuple[ox.NamedNode, Term]]:
        """``out(node)`` without repeats, in canonical order (``term_order``); remembered.
        The list is shared: never change it."""
        found = self._canonical_out.get(node)
        if found is None:
            found = _sorted_out(self.out(node), self.shape)
            self._canonical_out[node] = found
        return found

    def canonical_incoming(self, node: Node) -> list[tuple[Node, ox.NamedNode]]:
        """``incoming(node)`` without repeats, in canonical order; remembered (shared)."""
        found = self._canonical_in.get(node)
        if found is None:
            found = _sorted_in(self.incoming(node), self.shape)
            self._canonical_in[node] = found
        return found

    def shape(self, node: ox.BlankNode) -> str:
        """``blank_shape`` of a blank node of this version; remembered."""
        found = self._shapes.get(node)
        if found is None:
            found = blank_shape(dict.fromkeys(self.out(node)))
            self._shapes[node] = found
        return found

    def content_key(self, node: ox.BlankNode) -> str:
        """A blank node of this version by what it says (``WorkingGraph.content_key``)."""
        found = self._keys.get(node)
        if found is None:
            found = _blank_key(self.canonical_out(node))
            self._keys[node] = found
        return found

    def describes(self, node: Node) -> bool:
        return node in self._out


def _packed(positions: Iterable[int]) -> bytes:
    """Positions in the columns as bytes (4 a position)."""
    return array("I", positions).tobytes()


def _positions_of(lookup: dict[Node, bytes], node: Node) -> Sequence[int]:
    """The positions ``lookup`` holds for ``node`` (none: empty)."""
    held = lookup.get(node)
    return memoryview(held).cast("I") if held else ()


def _forget(lookup: dict[Node, bytes], node: Node, positions: list[int]) -> None:
    """``node``'s entry in ``lookup`` without ``positions`` (replaced; removed if empty)."""
    kept = _packed(i for i in _positions_of(lookup, node) if i not in positions)
    if kept:
        lookup[node] = kept
    else:
        del lookup[node]


class WorkingGraph:
    """The union of several ontology versions, as a view (nothing is copied).

    Lookups are memoized per node for the life of the view; a node several
    versions hold is merged once per set of holders in ``merged`` (given by the
    catalog reader, shared by its views: each retrieval makes a view of its own).
    """

    def __init__(self, parts: Sequence[GraphIndex], merged: MergedLookups | None = None
                 ) -> None:
        self.parts = tuple(parts)
        self.merged = merged if merged is not None else MergedLookups()
        self.headers: set[Node] = set().union(*(p.headers for p in self.parts))
        self._out: dict[Node, list[tuple[ox.NamedNode, Term]]] = {}
        self._in: dict[Node, list[tuple[Node, ox.NamedNode]]] = {}
        self._owners: dict[Node, list[str]] = {}
        self._shapes: dict[ox.BlankNode, str] = {}
        self._statements: dict[Node, list[Statement]] = {}
        self._described: dict[Node, bool] = {}
        self._keys: dict[ox.BlankNode, str] = {}

    def __len__(self) -> int:
        return sum(len(p) for p in self.parts)

    def _holders(self, node: Node, *, incoming: bool = False) -> list[GraphIndex]:
        """The parts with triples from ``node`` (or, ``incoming``, to it)."""
        if incoming:
            return [part for part in self.parts if node in part._in]
        return [part for part in self.parts if node in part._out]

    def _shape(self, node: ox.BlankNode) -> str:
        found = self._shapes.get(node)
        if found is None:
            holders = self._holders(node)
            if len(holders) == 1:
                found = holders[0].shape(node)
            else:
                found = blank_shape(dict.fromkeys(e for part in holders for e in part.out(node)))
            self._shapes[node] = found
        return found

    def out(self, node: Node) -> list[tuple[ox.NamedNode, Term]]:
        """The node's (predicate, object) pairs, in canonical order (see ``term_order``).

        A node one version describes takes that version's remembered answer (a blank
        node two versions share says the same in both: a layer never adds to its base's
        blank nodes); one several describe is merged here, the same triple counted once.
        The list is shared: never change it.
        """
        found = self._out.get(node)
        if found is None:
            holders = self._holders(node)
            if len(holders) == 1:
                found = holders[0].canonical_out(node)
            else:
                found = self.merged.get("out", node, tuple(p.name for p in holders), lambda: (
                    _sorted_out((e for part in holders for e in part.out(node)), self._shape)))
            self._out[node] = found
        return found

    def incoming(self, node: Node) -> list[tuple[Node, ox.NamedNode]]:
        """The (subject, predicate) pairs pointing at the node, in canonical order (shared)."""
        found = self._in.get(node)
        if found is None:
            holders = self._holders(node, incoming=True)
            if len(holders) == 1:
                found = holders[0].canonical_incoming(node)
            else:
                found = self.merged.get("in", node, tuple(p.name for p in holders), lambda: (
                    _sorted_in((e for part in holders for e in part.incoming(node)),
                               self._shape)))
            self._in[node] = found
        return found

    def statements_of(self, node: Node) -> list[Statement]:
        """The node's own statements, then the schema statements pointing at it from named
        terms (``INCOMING_SCHEMA_PREDICATES``: what a term's expansion takes)."""
        found = self._statements.get(node)
        if found is None:
            found = [(node, p, o) for p, o in self.out(node)]
            found += [(s, p, node) for s, p in self.incoming(node)
                      if p in _INCOMING and isinstance(s, ox.NamedNode)]
            self._statements[node] = found
        return found

    def content_key(self, term: Term) -> str:
        """A key for ``term`` that no store's labelling changes: an IRI or literal as
        written, a blank node by what it says (its predicates and objects, sorted)."""
        if not isinstance(term, ox.BlankNode):
            return str(term)
        key = self._keys.get(term)
        if key is None:
            holders = self._holders(term)
            key = (holders[0].content_key(term) if len(holders) == 1
                   else _blank_key(self.out(term)))
            self._keys[term] = key
        return key

    def describes(self, node: Node) -> bool:
        """True when some part has a triple with ``node`` as subject."""
        found = self._described.get(node)
        if found is None:
            found = any(node in part._out for part in self.parts)
            self._described[node] = found
        return found

    def owners(self, node: Node) -> list[str]:
        """Names of the parts (version hashes) that describe ``node``."""
        found = self._owners.get(node)
        if found is None:
            found = [part.name for part in self.parts if part.describes(node)]
            self._owners[node] = found
        return found

    def types(self, node: Node) -> set[ox.NamedNode]:
        return {o for p, o in self.out(node) if p == RDF_TYPE_NODE and isinstance(o, ox.NamedNode)}


def term_order(term: Term, shape: Callable[[ox.BlankNode], str] | None = None
               ) -> tuple[int, str, str]:
    """A sort key for the neighbours of a node that depends on the terms, never on the
    order a store hands triples back in (which differs between stores, and for a new
    version between the store and the apply that wrote it): IRIs, then blank nodes by
    ``shape`` (their labels change with every load, so what they say stands in), then
    literals by value, datatype and language. Blank nodes of one shape keep the order
    they came in.

    >>> lit = ox.Literal("b", language="en")
    >>> sorted([lit, ox.BlankNode("z"), ox.NamedNode("http://x/a")], key=term_order)[0].value
    'http://x/a'
    """
    if isinstance(term, ox.NamedNode):
        return 0, term.value, ""
    if isinstance(term, ox.Literal):
        return 2, term.value, f"{term.datatype.value}@{term.language or ''}"
    return 1, shape(term) if shape is not None else "", ""


Shape: TypeAlias = Callable[[ox.BlankNode], str]


def _sorted_out(pairs: Iterable[tuple[ox.NamedNode, Term]], shape: Shape
                ) -> list[tuple[ox.NamedNode, Term]]:
    """(predicate, object) pairs without repeats, by predicate then ``term_order``."""
    return sorted(dict.fromkeys(pairs), key=lambda e: (e[0].value, term_order(e[1], shape)))


def _sorted_in(pairs: Iterable[tuple[Node, ox.NamedNode]], shape: Shape
               ) -> list[tuple[Node, ox.NamedNode]]:
    """(subject, predicate) pairs without repeats, by predicate then ``term_order``."""
    return sorted(dict.fromkeys(pairs), key=lambda e: (e[1].value, term_order(e[0], shape)))


def _said(pairs: Iterable[tuple[ox.NamedNode, Term]]) -> list[str]:
    """A blank node's pairs as sorted lines, a blank object written ``_``."""
    return sorted(f"{p.value} {'_' if isinstance(o, ox.BlankNode) else o}" for p, o in pairs)


def _blank_key(pairs: Iterable[tuple[ox.NamedNode, Term]]) -> str:
    return "_:" + " ".join(_said(pairs))


def blank_shape(pairs: Iterable[tuple[ox.NamedNode, Term]]) -> str:
    """What a blank node says, without labels: its (predicate, object) pairs sorted, a
    blank object written ``_`` (one level: restrictions and list cells differ there).

    >>> blank_shape([(RDF_TYPE_NODE, ox.BlankNode("b1")),
    ...              (RDF_TYPE_NODE, ox.NamedNode("http://x/R"))]).split(" ")[-1]
    '_'
    """
    return "\n".join(_said(pairs))


def reference_targets(graph: WorkingGraph, iris: Iterable[str]) -> set[str]:
    """Classes the terms point to through rdfs:subClassOf, rdfs:domain or rdfs:range.

    The full-scan form of reference expansion: the catalog reader finds which
    ontologies declare these when it cannot ask the store.

    >>> from ontoretrieve.rdf.vocab import SUBCLASS_OF_NODE
    >>> a, b = ox.NamedNode("http://x/A"), ox.NamedNode("http://x/B")
    >>> reference_targets(WorkingGraph([GraphIndex("h", [ox.Triple(a, SUBCLASS_OF_NODE, b)])]),
    ...                   ["http://x/A"])
    {'http://x/B'}
    """
    found: set[str] = set()
    for value in iris:
        for p, o in graph.out(ox.NamedNode(value)):
            if p in _REFERENCES and isinstance(o, ox.NamedNode) and not is_standard(o):
                found.add(o.value)
    return found
