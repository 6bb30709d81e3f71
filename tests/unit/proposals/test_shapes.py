"""The SHACL shapes in shapes/: each fires on what it forbids and not on a good catalog."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from ontoretrieve.proposals.critic import critic_queries, find_conflicts
from ontoretrieve.proposals.model import (
    apply_change,
    dangling_references,
    parse_triples,
    removed_terms,
    statements_of,
)
from ontoretrieve.proposals.shacl import DEFAULT_SHAPES, load_shapes, validate
from ontoretrieve.records import SeedEvidence

PREFIXES = """@prefix : <http://x/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
"""
GOOD = PREFIXES + """
:A a owl:Class ; rdfs:label "a" .
:B a owl:Class ; rdfs:label "b" ; rdfs:subClassOf :A ,
    [ a owl:Restriction ; owl:onProperty :p ; owl:someValuesFrom :A ] .
:p a owl:ObjectProperty ; rdfs:label "p" ; rdfs:domain :A ; rdfs:range :B .
:q a owl:DatatypeProperty ; rdfs:label "q" ; rdfs:range xsd:decimal .
:C a skos:Concept ; skos:prefLabel "c"@en , "c"@de .
:U a owl:Class ; rdfs:label "u" ; owl:unionOf ( :A :B ) .
"""


def _results(turtle: str) -> set[tuple[str, str]]:
    shapes = load_shapes([DEFAULT_SHAPES])
    triples = parse_triples(turtle, "test")
    return {(r.shape.rsplit("#", 1)[-1], r.focus.rsplit("/", 1)[-1])
            for r in validate(triples, shapes)}


def test_a_well_formed_catalog_conforms() -> None:
    assert _results(GOOD) == set()


@pytest.mark.parametrize(("bad", "shape", "focus"), [
    (":X a owl:Class .", "ClassHasLabel", "X"),
    (":X a rdfs:Class .", "ClassHasLabel", "X"),
    (":r a owl:ObjectProperty .", "PropertyHasLabel", "r"),
    (":r a owl:ObjectProperty ; rdfs:label 'r' ; rdfs:domain :Nothing .", "DomainIsAClass", "r"),
    (":r a owl:DatatypeProperty ; rdfs:label 'r' ; rdfs:range :Nowhere .",
     "RangeIsAClassOrDatatype", "r"),
    (":X a owl:Class , owl:NamedIndividual ; rdfs:label 'x' .", "ClassIsNotAnIndividual", "X"),
    (":X a owl:Class ; rdfs:label 'x' ; rdfs:subClassOf :p .", "SubClassOfAClass", "X"),
    (":K a skos:Concept ; skos:prefLabel 'k'@en , 'kay'@en .",
     "ConceptPrefLabelUniquePerLanguage", "K"),
    (":K a skos:Concept .", "ConceptHasPrefLabel", "K"),
])
def test_each_shape_names_what_to_fix(bad: str, shape: str, focus: str) -> None:
    assert (shape, focus) in _results(GOOD + bad)
    shapes = load_shapes([DEFAULT_SHAPES])
    messages = [r.message for r in validate(parse_triples(GOOD + bad, "t"), shapes)]
    assert all(m.strip() for m in messages)  # every result says what to fix


def test_a_tenant_can_add_its_own_shapes(tmp_path: Path) -> None:
    extra = tmp_path / "extra.ttl"
    extra.write_text("""@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
<http://t/NeedsComment> a sh:NodeShape ; sh:targetClass owl:Class ;
  sh:property [ sh:path rdfs:comment ; sh:minCount 1 ; sh:message "Say what it is." ] .
""")
    shapes = load_shapes([DEFAULT_SHAPES, extra])
    found = validate(parse_triples(GOOD, "t"), shapes)
    assert {r.shape for r in found} == {"http://t/NeedsComment"}
    assert {r.message for r in found} == {"Say what it is."}


def test_change_checks_are_pure() -> None:
    old = parse_triples(PREFIXES + ":A a owl:Class ; rdfs:label 'a' . :B rdfs:subClassOf :A .",
                        "old")
    add = parse_triples(PREFIXES + ":C rdfs:subClassOf :Ghost ; :madeUp :A .", "add")
    remove = parse_triples(PREFIXES + ":B rdfs:subClassOf :A . :Z rdfs:label 'z' .", "remove")
    new, missing = apply_change(old, add, remove)
    assert len(new) == 4 and [t.subject.value for t in missing] == ["http://x/Z"]
    assert old[0] in new and len(old) == 3  # the input is not changed
    declared = {t.subject.value for t in new if isinstance(t.subject, ox.NamedNode)}
    assert dangling_references(add, declared) == {
        "http://x/Ghost": "http://www.w3.org/2000/01/rdf-schema#subClassOf",
        "http://x/madeUp": "http://x/madeUp"}
    assert removed_terms([t for t in remove if t in old], declared) == {"http://x/B"}
    restriction = parse_triples(PREFIXES + ":A rdfs:subClassOf [ owl:onProperty :p ] .", "r")
    assert len(statements_of(restriction, {"http://x/A"})) == 2


def test_the_critic_reports_strong_hits_from_other_ontologies_only() -> None:
    add = parse_triples(PREFIXES + ":VoltageProbe rdfs:label 'voltage probe' .", "add")
    assert critic_queries(add) == ["voltage probe", "Voltage Probe"]

    def hit(iri: str, onto: str, fused: float) -> SeedEvidence:
        return SeedEvidence(iri=iri, score=fused, origin="retrieved", ontology_iri=onto,
                            ontology_version=None, ontology_hash="h", role="resource",
                            fused_score=fused, windows=[], lanes=[], notes=[])

    hits = {"voltage probe": [hit("o:Probe", "o", 0.9), hit("mine:P", "mine", 0.95),
                              hit("o:Weak", "o", 0.2)]}
    found = find_conflicts(hits, {"mine"}, 0.5)
    assert [(c.term, c.fused_score) for c in found] == [("o:Probe", 0.9)]
    many = {f"q{i}": [hit(f"o:T{i}", "o", 0.6 + i / 100)] for i in range(9)}
    assert len(find_conflicts(many, set(), 0.5)) == 5
