"""The growing subgraph: admitted statements, why each subject is in, and the metrics.

Shared by ``subgraph`` (which spends the budget) and ``final_pass`` (which
completes and prunes what was admitted), so neither imports the other's
algorithm. A statement whose object is a blank node is admitted together with
the blank node's own statements (a restriction is all or nothing).

>>> import pyoxigraph as ox
>>> from ontoretrieve.rdf.graph_index import GraphIndex, RoleTable, WorkingGraph
>>> x = lambda s: ox.NamedNode("http://x/" + s)
>>> g = WorkingGraph([GraphIndex("h", [ox.Triple(x("A"), x("p"), x("B"))])])
>>> builder = Builder(g, RoleTable.default(), limit=10)
>>> builder.take(builder.statements_of(x("A")), quota=5, step="seed", via=None)
1
>>> builder.origin[x("A")].step, builder.left
('seed', 9)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeGuard

import pyoxigraph as ox

from ontoretrieve.rdf.graph_index import (
    Node,
    RoleTable,
    Statement,
    WorkingGraph,
    is_standard,
    role_of,
)
from ontoretrieve.records import TermStep

__all__ = [
    "MAX_BLANK_CLOSURE",
    "Admission",
    "Builder",
    "Namer",
    "Subgraph",
    "SubgraphMetrics",
    "expandable",
    "prune_orphan_blank_nodes",
]

MAX_BLANK_CLOSURE = 64
"""A blank-node structure larger than this (a huge list) is not admitted."""

Namer = Callable[[ox.NamedNode], "Statement | None"]
"""The statement a context names a term by (its best label), None when it has none."""


@dataclass(frozen=True, slots=True)
class Admission:
    """Why a subject is in the context: the step and the seed it grew from."""

    step: TermStep
    """seed (its own statements), shell, expansion, link, stub, repair, small_module."""
    via: str | None


@dataclass(slots=True)
class SubgraphMetrics:
    budget: int
    property_triples: int = 0
    shell_triples: int = 0
    expansion_triples: int = 0
    hub_seeds: int = 0
    seeds_not_in_graph: int = 0
    budget_bound: bool = False
    links_restored: int = 0
    stubs_added: int = 0
    references_dropped: int = 0
    restrictions_pruned: int = 0
    generic_types_pruned: int = 0
    connectivity_repaired: int = 0
    components_dropped: int = 0
    disconnected_pruned: int = 0
    orphan_blank_nodes_pruned: int = 0


@dataclass(slots=True)
class Subgraph:
    statements: list[Statement]
    origin: dict[Node, Admission]
    metrics: SubgraphMetrics


@dataclass(slots=True)
class Builder:
    graph: WorkingGraph
    roles: RoleTable
    limit: int
    kept: dict[Statement, None] = field(default_factory=dict)
    origin: dict[Node, Admission] = field(default_factory=dict)
    namer: Namer | None = None
    """With a namer, a statement comes with its subject's name while the subject has none
    here: a child reached by its ``rdfs:subClassOf`` link to a seed is admitted with its
    label, not as a bare IRI a prompt cannot read (``expand.name_reached_terms``)."""
    _names: dict[ox.NamedNode, Statement | None] = field(default_factory=dict)

    @property
    def left(self) -> int:
        return self.limit - len(self.kept)

    def unit(self, statement: Statement) -> list[Statement] | None:
        """The statement and its blank-node closure not kept yet; None when too large."""
        found = [statement] if statement not in self.kept else []
        stack = [statement[2]]
        seen: set[Node] = set()
        while stack:
            node = stack.pop()
            if not isinstance(node, ox.BlankNode) or node in seen:
                continue
            seen.add(node)
            for p, o in self.graph.out(node):
                inner: Statement = (node, p, o)
                if inner not in self.kept:
                    found.append(inner)
                stack.append(o)
            if len(found) > MAX_BLANK_CLOSURE:
                return None
        return found

    def named(self, statement: Statement, unit: list[Statement]) -> list[Statement]:
        """``unit`` (the statement's) with its subject's name when there is a namer and
        neither the unit nor the kept statements hold that name yet.

        >>> import pyoxigraph as ox
        >>> from ontoretrieve.rdf.graph_index import GraphIndex, RoleTable, WorkingGraph
        >>> from ontoretrieve.rdf.vocab import RDFS_LABEL_NODE as L, SUBCLASS_OF_NODE as SUB
        >>> x = lambda s: ox.NamedNode("http://x/" + s)
        >>> link, name = (x("child"), SUB, x("seed")), (x("child"), L, ox.Literal("kid"))
        >>> g = WorkingGraph([GraphIndex("h", [ox.Triple(*link), ox.Triple(*name)])])
        >>> len(Builder(g, RoleTable.default(), 10).named(link, [link]))
        1
        >>> builder = Builder(g, RoleTable.default(), 10, namer=lambda node: name)
        >>> [str(o) for _, _, o in builder.named(link, [link])]
        ['<http://x/seed>', '"kid"']
        """
        subject = statement[0]
        if self.namer is None or not isinstance(subject, ox.NamedNode):
            return unit
        if subject not in self._names:
            self._names[subject] = self.namer(subject)
        name = self._names[subject]
        if name is None or name in self.kept or name in unit:
            return unit
        return [*unit, name]

    def admit(self, unit: Sequence[Statement], step: TermStep, via: str | None) -> None:
        for statement in unit:
            self.kept[statement] = None
            subject = statement[0]
            if subject not in self.origin:
                self.origin[subject] = Admission(step, via)

    def take(self, candidates: Sequence[Statement], quota: int, step: TermStep,
             via: str | None, *, by_role: bool = True) -> int:
        """Admit a level whole when it fits, else by schema role; return triples spent.

        With ``by_role`` off, a level that does not fit is admitted in the
        given order (schema shells: nearest ancestors first). With a namer, a unit
        comes with its subject's name (``named``): every unit's when the level may fit
        whole, else each unit's as its turn comes (a broad seed's level of hundreds of
        children is looked up only as far as the quota goes).
        """
        pairs = [(c, u) for c, u in ((c, self.unit(c)) for c in candidates) if u]
        quota = min(quota, self.left)
        units = [u for _, u in pairs]
        if self.namer is not None and sum(len(u) for u in units) <= quota:
            pairs = self._named_once(pairs)
            units = [u for _, u in pairs]
        total = sum(len(u) for u in units)
        if total <= quota:
            for u in units:
                self.admit(u, step, via)
            return total
        spent = 0
        # Stores list triples in different orders: sort by content, so a binding quota
        # picks the same statements on every store.
        ordered = sorted(pairs, key=lambda pair: (
            role_of(pair[1][0][1], pair[1][0][2], self.roles),
            self.stable_key(pair[1][0]))) if by_role else pairs
        for statement, u in ordered:
            if spent >= quota:
                break
            u = [s for s in u if s not in self.kept]  # an earlier unit may share a blank node
            if not u or spent + len(u) > quota:
                continue  # (its name would only make it longer)
            u = [s for s in self.named(statement, u) if s not in self.kept]
            if spent + len(u) <= quota:
                self.admit(u, step, via)
                spent += len(u)
        return spent

    def _named_once(self, pairs: Sequence[tuple[Statement, list[Statement]]]
                    ) -> list[tuple[Statement, list[Statement]]]:
        """Each unit with its subject's name; a name two units carry counts in the first (a
        seed's label is a candidate of its own shell and the name of its parent link)."""
        seen: set[Statement] = set()
        distinct: list[tuple[Statement, list[Statement]]] = []
        for statement, unit in pairs:
            u = [s for s in self.named(statement, unit) if s not in seen]
            seen.update(u)
            if u:
                distinct.append((statement, u))
        return distinct

    def statements_of(self, node: Node) -> list[Statement]:
        """Own statements, plus schema statements pointing at it from named terms
        (remembered by the working graph, which outlives the unit)."""
        return self.graph.statements_of(node)

    def stable_key(self, statement: Statement) -> tuple[str, str, str]:
        """An order that does not depend on the store: blank nodes by their content.

        Stores return triples in different orders and label blank nodes
        differently; a binding quota must pick the same statements on each.
        """
        key = self.graph.content_key
        return key(statement[0]), key(statement[1]), key(statement[2])


def expandable(node: object, graph: WorkingGraph) -> TypeGuard[ox.NamedNode]:
    return (isinstance(node, ox.NamedNode) and not is_standard(node)
            and node not in graph.headers and graph.describes(node))



def prune_orphan_blank_nodes(kept: dict[Statement, None]) -> int:
    pruned = 0
    while True:
        referenced = {o for _, _, o in kept if isinstance(o, ox.BlankNode)}
        orphans = [st for st in kept if isinstance(st[0], ox.BlankNode)
                   and st[0] not in referenced]
        if not orphans:
            return pruned
        pruned += len({st[0] for st in orphans})
        for st in orphans:
            del kept[st]


