"""A version's changed atoms, found from its delta alone, equal a whole re-atomization."""

from __future__ import annotations

import pyoxigraph as ox
from hypothesis import given, settings
from hypothesis import strategies as st

from ontoretrieve.index.atomize import (
    Atom,
    AtomSource,
    atomize,
    atomize_terms,
    naming_predicates,
)
from ontoretrieve.index.delta import affected_terms, graph_delta, neighbourhood_of
from ontoretrieve.rdf.vocab import OWL, RDF, RDFS
from ontoretrieve.settings.groups import IndexSettings, TriggerSettings

INDEX, TRIGGERS = IndexSettings(), TriggerSettings()
SOURCE = AtomSource("http://x/o", "1", "h")
TERMS = [ox.NamedNode(f"http://x/{name}") for name in
         ("cellWall", "nucleus", "partOf", "hasSymbol", "Sensor", "unit_MilliV")]
PREDICATES = [ox.NamedNode(p) for p in (
    RDFS + "label", RDFS + "subClassOf", RDF + "type", RDFS + "domain", RDFS + "range",
    RDFS + "comment", "http://www.w3.org/2004/02/skos/core#altLabel",
    "http://www.geneontology.org/formats/oboInOwl#hasExactSynonym")] + TERMS[2:4]
LITERALS = [ox.Literal(v) for v in ("cell wall", "nucleus", "part of", "mV", "a sensor",
                                    "Nucleus", "millivolt")]
BLANKS = [ox.BlankNode(f"r{i}") for i in range(2)]
RESTRICTION = [ox.NamedNode(OWL + "onProperty"), ox.NamedNode(OWL + "someValuesFrom")]
CLASS = ox.NamedNode(OWL + "Class")

named = st.sampled_from(TERMS)
statement = st.one_of(
    st.builds(ox.Triple, named, st.sampled_from(PREDICATES),
              st.one_of(named, st.sampled_from(LITERALS), st.just(CLASS))),
    st.builds(ox.Triple, named, st.just(PREDICATES[1]), st.sampled_from(BLANKS)),
    st.builds(ox.Triple, st.sampled_from(BLANKS), st.sampled_from(RESTRICTION), named),
)
renaming = st.builds(ox.Triple, named, st.sampled_from([PREDICATES[0], PREDICATES[7]]),
                     st.sampled_from(LITERALS))
graphs = st.lists(st.one_of(statement, renaming), max_size=30, unique=True)


def _texts(atoms: list[Atom]) -> dict[str, tuple[object, ...]]:
    return {a.iri: (a.core_text, a.neighborhood_text, a.sparse_text, a.role, a.is_header,
                    a.labels, a.symbols, a.triggers) for a in atoms}


@settings(max_examples=600, deadline=None)
@given(graphs, st.lists(st.one_of(statement, renaming), max_size=6),
       st.lists(st.integers(0, 29), max_size=6))
def test_terms_outside_the_affected_set_keep_their_atoms(
        old: list[ox.Triple], added: list[ox.Triple], dropped: list[int]) -> None:
    gone = {old[i] for i in dropped if i < len(old)}
    new = [t for t in old if t not in gone] + [t for t in added if t not in old]
    new = list(dict.fromkeys(new))
    affected = affected_terms(graph_delta("h0", old, new), new, naming_predicates(INDEX))
    before = _texts(atomize(old, SOURCE, INDEX, TRIGGERS))
    after = _texts(atomize(new, SOURCE, INDEX, TRIGGERS))
    for iri in (before.keys() | after.keys()) - affected:
        assert before.get(iri) == after.get(iri), iri
    hood = neighbourhood_of(new, affected, naming_predicates(INDEX))
    local = atomize_terms(affected, hood, SOURCE, INDEX, TRIGGERS)
    assert local == [a for a in atomize(new, SOURCE, INDEX, TRIGGERS) if a.iri in affected]


def test_a_renamed_term_changes_the_terms_that_name_it() -> None:
    cell, nucleus = TERMS[0], TERMS[1]
    label, sub = PREDICATES[0], PREDICATES[1]
    old = [ox.Triple(nucleus, sub, cell), ox.Triple(cell, label, ox.Literal("cell"))]
    new = [old[0], ox.Triple(cell, label, ox.Literal("cell wall"))]
    affected = affected_terms(graph_delta("h0", old, new), new, naming_predicates(INDEX))
    assert nucleus.value in affected  # its neighbourhood text says "Parents: cell wall"
    hood = neighbourhood_of(new, affected, naming_predicates(INDEX))
    (changed,) = [a for a in atomize_terms(affected, hood, SOURCE, INDEX, TRIGGERS)
                  if a.iri == nucleus.value]
    assert "cell wall" in changed.neighborhood_text
