"""The budgeted induced subgraph (docs/context.md, "The induced subgraph").

Pure: a working graph and ordered seeds in, statements out, each subject
tagged with the step that admitted it.

Spending ``max_total_triples`` (B):

1. property seeds take their own statements first, within
   ``PROPERTY_SHARE`` of B;
2. every other seed gets a schema shell (labels, types and up to
   ``ancestor_closure_depth`` rdfs:subClassOf steps with the ancestors'
   labels), at most half its per-seed quota, so a shell never starves the
   expansion;
3. the first ``hub_seed_count`` seeds expand breadth-first ``depth`` levels
   with ``HUB_SHARE`` of what is left, split evenly; the others share the rest
   by score, one level shallower. No seed takes more than
   ``estimated_triples_per_query``. A level that does not fit is admitted by
   schema role (``graph_index.Role``: labels, types, symbols, hierarchy,
   domain and range, links, descriptions, other annotations);
4. the final pass (``final_pass``) still counts against B.

Small-module closure and the context cap come after, in ``modules``.

A statement whose object is a blank node is admitted together with the
blank node's own statements (a restriction is all or nothing).

>>> import pyoxigraph as ox
>>> from ontoretrieve.rdf.graph_index import GraphIndex, WorkingGraph
>>> from ontoretrieve.rdf.vocab import RDFS_LABEL_NODE
>>> from ontoretrieve.settings.groups import ExpandSettings
>>> x = lambda s: ox.NamedNode("http://x/" + s)
>>> g = WorkingGraph([GraphIndex("h", [ox.Triple(x("A"), RDFS_LABEL_NODE, ox.Literal("a"))])])
>>> seed = ContextSeed("http://x/A", 1.0, 1, "h", "retrieved", "resource")
>>> result = induce(g, [seed], ExpandSettings(), RoleTable.default())
>>> [str(o) for _, _, o in result.statements], str(result.origin[x("A")].step)
(['"a"'], 'shell')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pyoxigraph as ox

from ontoretrieve.context.builder import (
    Builder,
    Namer,
    Subgraph,
    SubgraphMetrics,
    expandable,
)
from ontoretrieve.context.expand import ContextSeed, SeedKind, kind_of
from ontoretrieve.context.final_pass import final_pass
from ontoretrieve.rdf.graph_index import (
    Node,
    Role,
    RoleTable,
    Statement,
    WorkingGraph,
    role_of,
)
from ontoretrieve.rdf.vocab import SUBCLASS_OF_NODE
from ontoretrieve.records import TermStep
from ontoretrieve.settings.groups import ExpandSettings

__all__ = ["HUB_SHARE", "PROPERTY_SHARE", "induce"]

PROPERTY_SHARE = 0.25
"""Share of the triple budget property seeds may take first."""
HUB_SHARE = 0.75
"""Share of what is left after properties and shells that the hub seeds take."""


def _neighbours(statements: Iterable[Statement], builder: Builder) -> list[ox.NamedNode]:
    found: list[ox.NamedNode] = []
    for s, _, o in statements:
        for end in (s, o):
            if expandable(end, builder.graph):
                found.append(end)
            elif isinstance(end, ox.BlankNode):  # restriction fillers
                found.extend(n for _, n in builder.graph.out(end)
                             if expandable(n, builder.graph))
    return found


def _plain_key(statement: Statement) -> tuple[str, str]:
    """Order of a shell statement (never a blank node): predicate, then object."""
    return statement[1].value, str(statement[2])


def _shell(builder: Builder, seed: ContextSeed, kind: SeedKind, depth: int) -> list[Statement]:
    """Labels and types of the seed, then its ancestors with their labels, nearest first."""
    roles, graph = builder.roles, builder.graph
    node = seed.node
    shell: list[Statement] = sorted(((node, p, o) for p, o in graph.out(node)
                                     if role_of(p, o, roles) in (Role.LABEL, Role.TYPE)),
                                    key=_plain_key)
    frontier: list[Node] = [node]
    for _ in range(depth if kind is SeedKind.CLASS else 0):
        step: list[Node] = []
        for child in frontier:
            parents = sorted((o for p, o in graph.out(child)
                              if p == SUBCLASS_OF_NODE and expandable(o, graph)), key=str)
            for parent in parents:
                shell.append((child, SUBCLASS_OF_NODE, parent))
                shell.extend(sorted(((parent, q, v) for q, v in graph.out(parent)
                                     if role_of(q, v, roles) is Role.LABEL), key=_plain_key))
                step.append(parent)
        frontier = step
    return shell


def _expand(builder: Builder, seed: ContextSeed, levels: int, quota: int) -> int:
    spent = 0
    frontier = [seed.node]
    seen = {seed.node}
    for _ in range(levels):
        if quota - spent <= 0 or not frontier:
            break
        candidates = [st for node in frontier for st in builder.statements_of(node)]
        taken = builder.take(candidates, quota - spent, TermStep.EXPANSION, seed.iri)
        spent += taken
        admitted = [st for st in candidates if st in builder.kept]
        frontier = sorted((n for n in dict.fromkeys(_neighbours(admitted, builder))
                           if n not in seen), key=str)
        seen.update(frontier)
    return spent


def induce(graph: WorkingGraph, seeds: Sequence[ContextSeed], settings: ExpandSettings,
           roles: RoleTable, namer: Namer | None = None) -> Subgraph:
    """Spend the triple budget on the seeds (in the given order), then run the final pass.

    With a ``namer``, every statement comes with its subject's name (``Builder.namer``).
    """
    metrics = SubgraphMetrics(budget=settings.max_total_triples)
    builder = Builder(graph, roles, settings.max_total_triples, namer=namer)
    per_seed = settings.estimated_triples_per_query
    present = [s for s in seeds if graph.describes(s.node)]
    metrics.seeds_not_in_graph = len(seeds) - len(present)
    kinds = {s.iri: kind_of(graph, s) for s in present}

    property_pool = int(settings.max_total_triples * PROPERTY_SHARE)
    for seed in (s for s in present if kinds[s.iri] is SeedKind.PROPERTY):
        own = [(seed.node, p, o) for p, o in graph.out(seed.node)]
        spent = builder.take(own, min(per_seed, property_pool - metrics.property_triples),
                             TermStep.SEED, seed.iri)
        metrics.property_triples += spent

    others = [s for s in present if kinds[s.iri] is not SeedKind.PROPERTY]
    shell_spent: dict[str, int] = {}
    for seed in others:
        if builder.left <= 0:
            shell_spent[seed.iri] = 0
            continue
        shell = _shell(builder, seed, kinds[seed.iri], settings.ancestor_closure_depth)
        shell_spent[seed.iri] = builder.take(shell, per_seed // 2, TermStep.SHELL, seed.iri,
                                             by_role=False)
        metrics.shell_triples += shell_spent[seed.iri]

    hubs = others if settings.hub_seed_count == 0 else others[:settings.hub_seed_count]
    rest = others[len(hubs):]
    metrics.hub_seeds = len(hubs)
    hub_pool = int(builder.left * HUB_SHARE) if rest else builder.left
    for i, seed in enumerate(hubs):
        if builder.left <= 0:
            break
        share = hub_pool // (len(hubs) - i)
        spent = _expand(builder, seed, settings.depth,
                        min(per_seed - shell_spent[seed.iri], share))
        hub_pool -= spent
        metrics.expansion_triples += spent
    score_left = sum(s.score for s in rest)
    for seed in rest:
        if builder.left <= 0:
            break
        pool = builder.left
        share = int(pool * seed.score / score_left) if score_left > 0 else pool // len(rest)
        score_left -= seed.score
        spent = _expand(builder, seed, max(settings.depth - 1, 0),
                        min(per_seed - shell_spent[seed.iri], share))
        metrics.expansion_triples += spent
    metrics.budget_bound = builder.left <= 0
    final_pass(builder, [s.node for s in present], metrics)
    return Subgraph(list(builder.kept), dict(builder.origin), metrics)

