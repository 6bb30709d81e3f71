"""Atomizer rules on small fixture ontologies, and golden atoms."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pyoxigraph as ox
import pytest

from ontoretrieve.catalog.files import parse_file
from ontoretrieve.index.atomize import Atom, AtomSource, Role, atomize
from ontoretrieve.settings.groups import IndexSettings, TriggerSettings
from tests.support import FIXTURES

GOLDEN = Path(__file__).parents[2] / "golden" / "atoms_mini.json"
SOURCE = AtomSource("http://example.org/o", "1", "hash")
PREFIXES = """@prefix : <http://example.org/o#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix qudt: <http://qudt.org/schema/qudt/> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix oio: <http://www.geneontology.org/formats/oboInOwl#> .
@prefix obo: <http://purl.obolibrary.org/obo/> .
"""


def atoms_of(turtle: str, index: IndexSettings | None = None,
             triggers: TriggerSettings | None = None) -> dict[str, Atom]:
    triples = [q.triple for q in ox.parse((PREFIXES + turtle).encode(),
                                          format=ox.RdfFormat.TURTLE)]
    atoms = atomize(triples, SOURCE, index or IndexSettings(), triggers or TriggerSettings())
    return {a.iri.rsplit("#", 1)[-1]: a for a in atoms}


def test_golden_atoms_of_the_mini_ontology() -> None:
    parsed = parse_file(FIXTURES / "mini.ttl")
    atoms = atomize(parsed.triples, AtomSource("http://example.org/mini",
                                               "http://example.org/mini/1.0", "fixed-hash"),
                    IndexSettings(), TriggerSettings())
    produced = [dataclasses.asdict(a) | {"text_hash": a.text_hash} for a in atoms]
    produced = json.loads(json.dumps(produced))  # tuples -> lists, enums -> str
    if os.environ.get("ONTORETRIEVE_UPDATE_GOLDEN") == "1":  # review the diff, then commit
        GOLDEN.write_text(json.dumps(produced, indent=1, ensure_ascii=False) + "\n")
    assert produced == json.loads(GOLDEN.read_text())


def test_only_described_terms_unless_asked() -> None:
    turtle = ":A rdfs:label 'a' ; rdfs:subClassOf :Undescribed ."
    assert set(atoms_of(turtle)) == {"A"}
    assert set(atoms_of(turtle, IndexSettings(index_undescribed_iris=True))) == {
        "A", "Undescribed"}


def test_standard_vocabularies_and_extra_prefixes_are_skipped() -> None:
    turtle = ("skos:Concept rdfs:label 'concept' . :A rdfs:label 'a' . "
              "<http://other.org/x#B> rdfs:label 'b' .")
    assert set(atoms_of(turtle)) == {"A", "B"}
    assert "Concept" in atoms_of(turtle, IndexSettings(embed_standard_vocab_iris=True))
    excluded = IndexSettings(extra_excluded_namespace_prefixes=("http://other.org/",))
    assert set(atoms_of(turtle, excluded)) == {"A"}


def test_provenance_is_stripped() -> None:
    turtle = ":A rdfs:label 'a' ; dcterms:creator 'Jane' ; dcterms:created '2020' ."
    atom = atoms_of(turtle)["A"]
    assert "Jane" not in atom.core_text + atom.neighborhood_text + atom.sparse_text
    # A term described only by provenance is not described at all.
    assert "B" not in atoms_of(":B dcterms:creator 'Jane' .")


def test_roles() -> None:
    atoms = atoms_of(":p a owl:ObjectProperty ; rdfs:label 'p' . "
                     ":used rdfs:label 'used' . :A :used :B ; rdfs:label 'a' .")
    assert atoms["p"].role is Role.PREDICATE
    assert atoms["used"].role is Role.PREDICATE  # used as a predicate
    assert atoms["A"].role is Role.RESOURCE


def test_english_and_untagged_labels_first_and_the_limit() -> None:
    turtle = (":A skos:altLabel 'alt' ; rdfs:label 'Etikett'@de , 'label'@en , 'plain' ; "
              "skos:prefLabel 'preferred' .")
    atom = atoms_of(turtle, IndexSettings(minimal_label_limit=3))["A"]
    assert atom.labels == ("label", "plain", "preferred")
    everything = atoms_of(turtle)["A"]
    assert everything.labels == ("label", "plain", "preferred", "alt", "Etikett")


def test_symbols_have_their_own_budget_and_keep_case() -> None:
    labels = " , ".join(f"'name {i}'@{lang}" for i, lang in enumerate(["en", "de", "fr", "es"]))
    turtle = f":MilliV rdfs:label {labels} ; qudt:symbol 'mV' ; qudt:ucumCode 'mV' ."
    atom = atoms_of(turtle, IndexSettings(minimal_label_limit=2))["MilliV"]
    assert atom.labels == ("name 0", "name 1")
    assert atom.symbols == ("mV",)
    assert atom.sparse_text.startswith("Milli V mV")
    assert atom.triggers == ("mV",)


def test_code_shaped_labels_become_triggers() -> None:
    atoms = atoms_of(":atp rdfs:label 'ATP' . :water rdfs:label 'water' . "
                     ":camel rdfs:label 'latinName' .")
    assert atoms["atp"].triggers == ("ATP",)
    assert atoms["water"].triggers == ()
    assert atoms["camel"].triggers == ()
    off = atoms_of(":atp rdfs:label 'ATP' .", triggers=TriggerSettings(heuristic_enabled=False))
    assert off["atp"].triggers == ()


def test_obo_synonyms_and_definitions() -> None:
    turtle = (":GO_1 rdfs:label 'cell nucleus' ; oio:hasExactSynonym 'nucleus' ; "
              "obo:IAO_0000115 'A membrane-bounded organelle.' .")
    atom = atoms_of(turtle)["GO_1"]
    assert atom.labels == ("cell nucleus", "nucleus")
    assert "membrane-bounded organelle" in atom.core_text
    assert atom.sparse_text == "cell nucleus nucleus"  # the opaque id GO_1 adds no words
    plain = atoms_of(turtle, IndexSettings(obo_synonyms=False))["GO_1"]
    assert plain.labels == ("cell nucleus",)
    assert "organelle" not in plain.core_text


def test_header_atom_is_flagged() -> None:
    atoms = atoms_of("<http://example.org/o> a owl:Ontology ; rdfs:label 'O' . "
                     ":A rdfs:label 'a' .")
    assert atoms["http://example.org/o"].is_header
    assert not atoms["A"].is_header


def test_atom_id_depends_on_version_and_hash() -> None:
    triples = [q.triple for q in ox.parse((PREFIXES + ":A rdfs:label 'a' .").encode(),
                                          format=ox.RdfFormat.TURTLE)]
    one = atomize(triples, SOURCE, IndexSettings(), TriggerSettings())[0]
    two = atomize(triples, AtomSource(SOURCE.ontology_iri, "2", "hash"), IndexSettings(),
                  TriggerSettings())[0]
    assert one.atom_id != two.atom_id and one.text_hash == two.text_hash


@pytest.mark.parametrize("neighborless", [":A rdfs:label 'a' ."])
def test_no_structure_means_no_neighborhood_text(neighborless: str) -> None:
    assert atoms_of(neighborless)["A"].neighborhood_text == ""
