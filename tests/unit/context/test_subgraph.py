"""Each rule from seeds to context, on small fixture ontologies (no model, no index)."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ontoretrieve.context.builder import Builder, Namer, prune_orphan_blank_nodes
from ontoretrieve.context.expand import (
    ContextSeed,
    SeedKind,
    kind_of,
    order_seeds,
    promote_types,
    schema_closure,
)
from ontoretrieve.context.modules import cap_statements, small_module_closure, without_header
from ontoretrieve.context.names import accepted_languages, best_name
from ontoretrieve.context.subgraph import PROPERTY_SHARE, induce
from ontoretrieve.rdf.graph_index import GraphIndex, Role, RoleTable, WorkingGraph, role_of
from ontoretrieve.rdf.vocab import OWL, RDF, RDFS
from ontoretrieve.records import TermStep
from ontoretrieve.settings.groups import ExpandSettings, SeedOrder
from tests.support import FIXTURES

ZOO = "http://example.org/zoo#"
EXT = "http://example.org/ext#"


def load(name: str) -> GraphIndex:
    path = FIXTURES / "context" / f"{name}.ttl"
    return GraphIndex(name, [q.triple for q in ox.parse(path=str(path))])


@pytest.fixture(scope="module")
def zoo() -> WorkingGraph:
    return WorkingGraph([load("zoo"), load("ext")])


def seed(local: str, score: float = 0.5, rank: int = 1, role: str = "resource",
         ontology: str = "zoo") -> ContextSeed:
    return ContextSeed(ZOO + local, score, rank, ontology, "retrieved", role)


def subjects(statements: list[tuple[object, object, object]]) -> set[str]:
    return {s.value for s, _, _ in statements if isinstance(s, ox.NamedNode)}


def test_kinds_follow_role_and_types(zoo: WorkingGraph) -> None:
    assert kind_of(zoo, seed("eats", role="predicate")) is SeedKind.PROPERTY
    assert kind_of(zoo, seed("Cat")) is SeedKind.CLASS
    assert kind_of(zoo, seed("Tom")) is SeedKind.INDIVIDUAL


def test_individual_promotes_its_class_at_the_factor(zoo: WorkingGraph) -> None:
    out = promote_types(zoo, [seed("Tom", 0.8)], 0.5)
    promoted = {s.iri: s for s in out}[ZOO + "Cat"]
    assert promoted.origin == "type_promotion" and promoted.via == ZOO + "Tom"
    assert promoted.score == pytest.approx(0.4)
    # owl:NamedIndividual is a meta type, never promoted
    assert OWL + "NamedIndividual" not in {s.iri for s in out}


def test_promotion_keeps_the_higher_score_of_an_existing_seed(zoo: WorkingGraph) -> None:
    out = promote_types(zoo, [seed("Tom", 0.8), seed("Cat", 0.9, rank=2)], 1.0)
    assert [s.score for s in out if s.iri == ZOO + "Cat"] == [0.9]


def test_schema_closure_adds_properties_of_ancestors_below_every_seed(zoo: WorkingGraph) -> None:
    out = schema_closure(zoo, [seed("Cat", 0.3)], ancestor_depth=2, max_entities=32)
    added = {s.iri: s for s in out if s.origin == "schema_closure"}
    # livesIn has domain Mammal (two steps up from Cat); eats and weight are on Animal,
    # three steps up: beyond the depth.
    assert ZOO + "livesIn" in added
    assert ZOO + "eats" not in added
    assert all(s.score < 0.3 for s in added.values())
    deeper = schema_closure(zoo, [seed("Cat", 0.3)], ancestor_depth=3, max_entities=32)
    assert {ZOO + "eats", ZOO + "weight"} <= {s.iri for s in deeper}


def test_schema_closure_adds_domain_and_range_of_kept_properties(zoo: WorkingGraph) -> None:
    out = schema_closure(zoo, [seed("feeds", role="predicate")], 2, 32)
    assert {ZOO + "Keeper", ZOO + "Animal"} <= {s.iri for s in out}


def test_schema_closure_stops_at_its_cap(zoo: WorkingGraph) -> None:
    out = schema_closure(zoo, [seed("Cat")], ancestor_depth=3, max_entities=1)
    assert len([s for s in out if s.origin == "schema_closure"]) == 1


def test_round_robin_interleaves_ontologies_best_first() -> None:
    seeds = [seed("A", 0.9, 1), seed("B", 0.8, 2), seed("C", 0.7, 3, ontology="o2")]
    assert [s.iri[-1] for s in order_seeds(seeds, SeedOrder.ONTOLOGY_ROUND_ROBIN)] == \
        ["A", "C", "B"]
    ties = [seed("B", 0.5, 2), seed("A", 0.5, 1)]
    assert [s.iri[-1] for s in order_seeds(ties, SeedOrder.SCORE)] == ["A", "B"]


def test_schema_shell_walks_ancestors_to_the_closure_depth(zoo: WorkingGraph) -> None:
    shallow = induce(zoo, [seed("Cat")], ExpandSettings(ancestor_closure_depth=1, depth=0),
                     RoleTable.default())
    assert ZOO + "Carnivore" in subjects(shallow.statements)
    assert ZOO + "Mammal" not in subjects(shallow.statements)
    deep = induce(zoo, [seed("Cat")], ExpandSettings(ancestor_closure_depth=3, depth=0),
                  RoleTable.default())
    assert {ZOO + "Carnivore", ZOO + "Mammal", ZOO + "Animal"} <= subjects(deep.statements)
    assert deep.origin[ox.NamedNode(ZOO + "Mammal")].step == "shell"


def test_tight_quota_admits_labels_and_symbols_before_descriptions(zoo: WorkingGraph) -> None:
    tight = ExpandSettings(estimated_triples_per_query=4, ancestor_closure_depth=0, depth=1)
    out = induce(zoo, [seed("Cat")], tight, RoleTable.default())
    cat = [(p.value, o) for s, p, o in out.statements if s == ox.NamedNode(ZOO + "Cat")]
    predicates = {p for p, _ in cat}
    assert RDFS + "label" in predicates
    assert "http://www.w3.org/2004/02/skos/core#notation" in predicates
    assert RDFS + "comment" not in predicates


def test_roles_order_names_symbols_hierarchy_then_descriptions() -> None:
    table = RoleTable.default()
    role = [role_of(ox.NamedNode(p), ox.Literal("x"), table) for p in (
        RDFS + "label", "http://www.w3.org/2004/02/skos/core#notation", RDFS + "comment")]
    assert role == [Role.LABEL, Role.SYMBOL, Role.DESCRIPTION]
    assert role_of(ox.NamedNode(RDFS + "subClassOf"), ox.NamedNode(ZOO + "A"), table) < \
        role_of(ox.NamedNode(RDFS + "domain"), ox.NamedNode(ZOO + "A"), table) < Role.DESCRIPTION


def test_hub_seeds_go_one_level_deeper_than_the_others(zoo: WorkingGraph) -> None:
    config = ExpandSettings(hub_seed_count=1, depth=2, ancestor_closure_depth=0,
                            schema_closure_max_entities=0)
    out = induce(zoo, [seed("Tom", 0.9, 1), seed("Keeper", 0.5, 2)], config,
                 RoleTable.default())
    # Tom (the hub) reaches BigCage's own statements at level 2 (its type Enclosure);
    # Keeper (one level shallower) keeps its own statements: Person is defined (a stub),
    # but Person's own hierarchy is a level further.
    assert (ox.NamedNode(ZOO + "BigCage"), ox.NamedNode(RDF + "type"),
            ox.NamedNode(ZOO + "Enclosure")) in out.statements
    assert out.metrics.hub_seeds == 1
    assert EXT + "Person" in subjects(out.statements)
    assert (ox.NamedNode(EXT + "Person"), ox.NamedNode(RDFS + "subClassOf"),
            ox.NamedNode(EXT + "Organism")) not in out.statements


def _named_by_label(graph: WorkingGraph) -> Namer:
    accepted = accepted_languages(("en", ""))
    return lambda node: best_name(node, graph.out(node), RoleTable.default(), accepted)


def test_a_reached_child_comes_with_its_label_only_with_a_namer(zoo: WorkingGraph) -> None:
    config = ExpandSettings(depth=1, ancestor_closure_depth=0, schema_closure_max_entities=0)
    cat, mouse = ox.NamedNode(ZOO + "Cat"), ox.NamedNode(ZOO + "Mouse")
    label = ox.NamedNode(RDFS + "label")
    bare = induce(zoo, [seed("Mammal")], config, RoleTable.default())
    named = induce(zoo, [seed("Mammal")], config, RoleTable.default(), _named_by_label(zoo))
    # Mouse is Mammal's child: one level reaches its link, its label only with a namer.
    link = (mouse, ox.NamedNode(RDFS + "subClassOf"), ox.NamedNode(ZOO + "Mammal"))
    assert link in bare.statements and link in named.statements
    assert (mouse, label, ox.Literal("mouse")) not in bare.statements
    assert (mouse, label, ox.Literal("mouse")) in named.statements
    assert cat not in {s for s, _, _ in named.statements}  # a grandchild: two levels down
    assert len(set(named.statements)) == len(named.statements)


def test_a_name_two_statements_carry_counts_once(zoo: WorkingGraph) -> None:
    """Mammal's label is a candidate and the name its parent link carries: one triple."""
    mammal = ox.NamedNode(ZOO + "Mammal")
    candidates = [(mammal, ox.NamedNode(RDFS + "label"), ox.Literal("mammal")),
                  (mammal, ox.NamedNode(RDFS + "subClassOf"), ox.NamedNode(ZOO + "Animal"))]
    builder = Builder(zoo, RoleTable.default(), limit=10, namer=_named_by_label(zoo))
    assert builder.take(candidates, quota=10, step=TermStep.SHELL, via=None) == 2
    assert builder.left == 8


def test_property_seeds_stay_within_their_share(zoo: WorkingGraph) -> None:
    config = ExpandSettings(max_total_triples=12, estimated_triples_per_query=24)
    props = [seed(p, 0.9, i, role="predicate") for i, p in
             enumerate(["eats", "feeds", "livesIn", "weight"], start=1)]
    out = induce(zoo, props, config, RoleTable.default())
    assert out.metrics.property_triples <= int(12 * PROPERTY_SHARE)


def test_final_pass_prunes_degenerate_restrictions(zoo: WorkingGraph) -> None:
    out = induce(zoo, [seed("Cat")], ExpandSettings(), RoleTable.default())
    restrictions = [s for s, p, o in out.statements
                    if p.value == RDF + "type" and o == ox.NamedNode(OWL + "Restriction")]
    assert len(restrictions) == 1  # the one without a filler is gone
    assert out.metrics.restrictions_pruned == 1


def test_final_pass_drops_redundant_generic_types(zoo: WorkingGraph) -> None:
    out = induce(zoo, [seed("Mammal"), seed("eats", role="predicate")], ExpandSettings(),
                 RoleTable.default())
    types = {(s.value, o.value) for s, p, o in out.statements if p.value == RDF + "type"}
    assert (ZOO + "Mammal", OWL + "Class") in types
    assert (ZOO + "Mammal", RDFS + "Class") not in types
    assert (ZOO + "eats", RDF + "Property") not in types


def test_context_never_names_a_catalog_term_it_does_not_define(zoo: WorkingGraph) -> None:
    for budget in (8, 20, 60, 400):
        config = ExpandSettings(max_total_triples=budget)
        out = induce(zoo, [seed("Cat"), seed("Tom", 0.4, 2)], config, RoleTable.default())
        defined = {s for s, _, _ in out.statements}
        for _, _, o in out.statements:
            if isinstance(o, ox.NamedNode) and zoo.describes(o):
                assert o in defined, (budget, o)
        referenced = {o for _, _, o in out.statements if isinstance(o, ox.BlankNode)}
        assert all(s in referenced for s in defined if isinstance(s, ox.BlankNode))


def test_cross_ontology_references_are_defined_from_the_other_ontology(
        zoo: WorkingGraph) -> None:
    out = induce(zoo, [seed("Keeper")], ExpandSettings(), RoleTable.default())
    assert EXT + "Person" in subjects(out.statements)


def test_seedless_components_are_dropped(zoo: WorkingGraph) -> None:
    from ontoretrieve.context.builder import Builder, SubgraphMetrics
    from ontoretrieve.context.final_pass import final_pass

    builder = Builder(zoo, RoleTable.default(), 100)
    island = (ox.NamedNode(ZOO + "Island"), ox.NamedNode(RDFS + "label"), ox.Literal("island"))
    cat = (ox.NamedNode(ZOO + "Cat"), ox.NamedNode(RDFS + "label"), ox.Literal("cat"))
    builder.admit([island, cat], "expansion", None)
    metrics = SubgraphMetrics(budget=100)
    final_pass(builder, [ox.NamedNode(ZOO + "Cat")], metrics)
    assert island not in builder.kept and cat in builder.kept
    assert metrics.disconnected_pruned == 1


def test_orphan_blank_nodes_are_pruned() -> None:
    blank = ox.BlankNode()
    kept = {(blank, ox.NamedNode(OWL + "onProperty"), ox.NamedNode(ZOO + "p")): None}
    assert prune_orphan_blank_nodes(kept) == 1 and not kept


@settings(max_examples=60, deadline=None)
@given(budget=st.integers(1, 300), per_seed=st.integers(1, 40), hubs=st.integers(0, 4),
       depth=st.integers(0, 3), picks=st.lists(st.sampled_from(
           ["Cat", "Tom", "Keeper", "eats", "feeds", "Mouse", "Animal", "livesIn"]),
           min_size=1, max_size=8, unique=True))
def test_budget_is_never_exceeded(budget: int, per_seed: int, hubs: int, depth: int,
                                  picks: list[str]) -> None:
    graph = WorkingGraph([load("zoo"), load("ext")])
    config = ExpandSettings(max_total_triples=budget, estimated_triples_per_query=per_seed,
                            hub_seed_count=hubs, depth=depth)
    seeds = [seed(p, 1.0 / (i + 1), i, role="predicate" if p[0].islower() else "resource")
             for i, p in enumerate(picks)]
    out = induce(graph, schema_closure(graph, seeds, 2, 32), config, RoleTable.default())
    assert len(out.statements) <= budget
    assert len(set(out.statements)) == len(out.statements)


def test_small_modules_go_by_best_score_and_skip_what_does_not_fit() -> None:
    n = ox.NamedNode
    def module(name: str, size: int) -> list[tuple[ox.NamedNode, ox.NamedNode, ox.Literal]]:
        return [(n(f"http://x/{name}{i}"), n(RDFS + "label"), ox.Literal(str(i)))
                for i in range(size)]
    modules = [("big", 0.9, module("b", 8), set()), ("small", 0.5, module("s", 3), set()),
               ("mid", 0.7, module("m", 5), set()), ("huge", 1.0, module("h", 50), set())]
    added, used = small_module_closure(modules, [], max_triples=10, max_total=12)
    assert used == ["big", "small"]  # huge is over max_triples; mid no longer fits
    assert len(added) == 11


def test_small_module_closure_drops_the_header() -> None:
    zoo = load("zoo")
    body = without_header(zoo.triples, zoo.headers)
    assert ox.NamedNode("http://example.org/zoo") not in {s for s, _, _ in body}
    assert len(body) == len(zoo) - 3


def test_cap_keeps_blank_node_structures_whole() -> None:
    zoo = load("zoo")
    for limit in range(1, len(zoo) + 1):
        kept, _ = cap_statements(zoo.triples, limit)
        assert len(kept) <= limit
        blanks = {s for s, _, _ in kept if isinstance(s, ox.BlankNode)}
        referenced = {o for _, _, o in kept if isinstance(o, ox.BlankNode)}
        assert blanks <= referenced
        for b in referenced:  # a kept blank node keeps all its statements
            assert [t for t in zoo.triples if t[0] == b] == [t for t in kept if t[0] == b]


def test_fixture_paths_exist() -> None:
    assert Path(FIXTURES / "context" / "zoo.ttl").exists()
