"""The final pass over an induced subgraph: prune, restore, define or drop, keep what is seeded.

docs/context.md, "The final pass": restore property and hierarchy links
between kept terms, repair connectivity, prune degenerate restrictions,
redundant generic types, disconnected terms and orphan blank nodes, and drop
components without a seed with the references to what they held, so the
context never names a catalog term it does not define. Whatever the pass
adds still counts against the triple budget.

>>> import pyoxigraph as ox
>>> from ontoretrieve.context.builder import Builder, SubgraphMetrics
>>> from ontoretrieve.rdf.graph_index import GraphIndex, RoleTable, WorkingGraph
>>> from ontoretrieve.rdf.vocab import OWL_CLASS, RDF_TYPE_NODE, RDFS_CLASS
>>> a = ox.NamedNode("http://x/A")
>>> types = [(a, RDF_TYPE_NODE, ox.NamedNode(OWL_CLASS)),
...          (a, RDF_TYPE_NODE, ox.NamedNode(RDFS_CLASS))]
>>> builder = Builder(WorkingGraph([GraphIndex("h", [ox.Triple(*t) for t in types])]),
...                   RoleTable.default(), limit=10)
>>> builder.admit(types, "seed", None)
>>> metrics = SubgraphMetrics(budget=10)
>>> final_pass(builder, [a], metrics)
>>> metrics.generic_types_pruned, [o.value == OWL_CLASS for _, _, o in builder.kept]
(1, [True])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pyoxigraph as ox

from ontoretrieve.context.builder import (
    Builder,
    SubgraphMetrics,
    expandable,
    prune_orphan_blank_nodes,
)
from ontoretrieve.rdf.graph_index import (
    Node,
    Role,
    Statement,
    blank_tree,
    is_standard,
    role_of,
)
from ontoretrieve.rdf.vocab import (
    META_TYPE_NODES,
    OWL_ON_PROPERTY_NODE,
    OWL_RESTRICTION_NODE,
    RDF_TYPE_NODE,
    RESTRICTION_FILLERS,
    SUBSUMED_TYPES,
    nodes,
)
from ontoretrieve.records import TermStep

__all__ = ["final_pass"]

_FILLERS = nodes(RESTRICTION_FILLERS)
_GENERIC_TYPES = {ox.NamedNode(generic): None if specific is None else nodes(specific)
                  for generic, specific in SUBSUMED_TYPES.items()}


def final_pass(builder: Builder, seeds: Sequence[ox.NamedNode], metrics: SubgraphMetrics) -> None:
    """Prune, restore links, define or drop references, drop seedless components."""
    metrics.restrictions_pruned = _prune_degenerate_restrictions(builder)
    metrics.generic_types_pruned = _prune_generic_types(builder)
    metrics.links_restored = _restore_links(builder)
    metrics.stubs_added, metrics.references_dropped = _define_references(builder)
    repaired, dropped, lonely = _drop_seedless_components(builder, set(seeds))
    metrics.connectivity_repaired = repaired
    metrics.components_dropped = dropped
    metrics.disconnected_pruned = lonely
    metrics.references_dropped += _drop_dangling(builder)
    metrics.orphan_blank_nodes_pruned = prune_orphan_blank_nodes(builder.kept)


def _subjects(kept: Mapping[Statement, None]) -> set[Node]:
    return {s for s, _, _ in kept}


def _remove(builder: Builder, doomed: Iterable[Statement]) -> None:
    for statement in doomed:
        builder.kept.pop(statement, None)
    subjects = _subjects(builder.kept)
    for node in [n for n in builder.origin if n not in subjects]:
        del builder.origin[node]


def _blank_statements(kept: Mapping[Statement, None], node: Node) -> list[Statement]:
    by_subject: dict[Node, list[Statement]] = {}
    for st in kept:
        if isinstance(st[0], ox.BlankNode):
            by_subject.setdefault(st[0], []).append(st)
    return blank_tree(node, by_subject)


def _prune_degenerate_restrictions(builder: Builder) -> int:
    """Restrictions without owl:onProperty or without a filler say nothing: drop them."""
    kept = builder.kept
    described: dict[Node, set[ox.NamedNode]] = {}
    for s, p, _ in kept:
        if isinstance(s, ox.BlankNode):
            described.setdefault(s, set()).add(p)
    doomed = [b for b, preds in described.items()
              if (b, RDF_TYPE_NODE, OWL_RESTRICTION_NODE) in kept
              and (OWL_ON_PROPERTY_NODE not in preds or not preds & _FILLERS)]
    for node in doomed:
        _remove(builder, [*_blank_statements(kept, node), *(st for st in kept if st[2] == node)])
    return len(doomed)


def _prune_generic_types(builder: Builder) -> int:
    types: dict[Node, set[ox.NamedNode]] = {}
    for s, p, o in builder.kept:
        if p == RDF_TYPE_NODE and isinstance(o, ox.NamedNode):
            types.setdefault(s, set()).add(o)
    doomed: list[Statement] = []
    for node, found in types.items():
        for generic, specific in _GENERIC_TYPES.items():
            if generic not in found:
                continue
            others = found - {generic}
            if (specific is None and others) or (specific is not None and others & specific):
                doomed.append((node, RDF_TYPE_NODE, generic))
    _remove(builder, doomed)
    return len(doomed)


def _restore_links(builder: Builder) -> int:
    """Property and hierarchy links between terms already kept, within what is left."""
    subjects = {s for s in _subjects(builder.kept) if isinstance(s, ox.NamedNode)}
    added = 0
    for node in sorted(subjects, key=str):
        for p, o in builder.graph.out(node):
            if o in subjects and o != node and (node, p, o) not in builder.kept \
                    and role_of(p, o, builder.roles) in (Role.HIERARCHY, Role.DOMAIN_RANGE,
                                                         Role.LINK):
                if builder.left <= 0:
                    return added
                builder.admit([(node, p, o)], TermStep.LINK, None)
                added += 1
    return added


def _referenced(builder: Builder) -> list[tuple[Statement, ox.NamedNode]]:
    """Kept statements naming a catalog term the context does not define yet."""
    subjects = _subjects(builder.kept)
    return [(st, st[2]) for st in builder.kept
            if isinstance(st[2], ox.NamedNode) and st[2] not in subjects
            and expandable(st[2], builder.graph)]


def _define_references(builder: Builder) -> tuple[int, int]:
    """Give each referenced term its labels and types, or drop the reference."""
    stubs = 0
    subjects = _subjects(builder.kept)
    doomed: list[Statement] = []
    for statement, node in _referenced(builder):
        if node in subjects:
            continue
        stub: list[Statement] = [
            (node, p, o) for p, o in builder.graph.out(node)
            if p == RDF_TYPE_NODE or role_of(p, o, builder.roles) is Role.LABEL]
        if stub and len(stub) <= builder.left:
            admission = builder.origin.get(statement[0])
            builder.admit(stub, TermStep.STUB, admission.via if admission else None)
            subjects.add(node)
            stubs += 1
        else:
            doomed.append(statement)
    _remove(builder, doomed)
    return stubs, len(doomed)


def _drop_dangling(builder: Builder) -> int:
    doomed = [st for st, _ in _referenced(builder)]
    _remove(builder, doomed)
    return len(doomed)


def _components(kept: Iterable[Statement]) -> dict[Node, Node]:
    parent: dict[Node, Node] = {}

    def find(x: Node) -> Node:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for s, _, o in kept:
        find(s)
        if isinstance(o, ox.NamedNode | ox.BlankNode) and not is_standard(o) \
                and o not in META_TYPE_NODES:
            parent[find(s)] = find(o)
    return {node: find(node) for node in list(parent)}


def _drop_seedless_components(builder: Builder, seeds: set[ox.NamedNode]
                              ) -> tuple[int, int, int]:
    """Connect a seedless component through one catalog statement, else drop it."""
    repaired = 0
    roots = _components(builder.kept)
    seeded = {roots[n] for n in seeds if n in roots}
    members: dict[Node, list[Node]] = {}
    for node, root in roots.items():
        members.setdefault(root, []).append(node)
    for root, component in members.items():
        if root in seeded:
            continue
        link = next(((n, p, o) for n in component if isinstance(n, ox.NamedNode)
                     for p, o in builder.graph.out(n)
                     if isinstance(o, ox.NamedNode | ox.BlankNode)
                     and o in roots and roots[o] in seeded), None)
        if link and builder.left > 0:
            builder.admit([link], TermStep.REPAIR, None)
            repaired += 1
    roots = _components(builder.kept)
    seeded = {roots[n] for n in seeds if n in roots}
    doomed = [st for st in builder.kept if roots.get(st[0]) not in seeded]
    dropped_roots = {roots[st[0]] for st in doomed}
    sizes: dict[Node, int] = {}
    for node, root in roots.items():
        if root in dropped_roots and not isinstance(node, ox.BlankNode):
            sizes[root] = sizes.get(root, 0) + 1
    _remove(builder, doomed)
    lonely = sum(1 for size in sizes.values() if size <= 1)
    return repaired, len(dropped_roots) - lonely, lonely
