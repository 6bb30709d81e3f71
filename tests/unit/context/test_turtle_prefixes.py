"""Turtle declares a prefix only where the line saves tokens (``turtle_prefixes``)."""

from __future__ import annotations

import pyoxigraph as ox

from ontoretrieve.context.model import serialize_triples, turtle_prefixes
from ontoretrieve.context.tokens import estimate_tokens
from ontoretrieve.rdf.vocab import RDF_TYPE_NODE, RDFS_LABEL_NODE, XSD

OBO = "http://purl.obolibrary.org/obo/"
CLASS = ox.NamedNode("http://www.w3.org/2002/07/owl#Class")
FACTOR = ox.NamedNode("http://qudt.org/schema/qudt/conversionMultiplier")


def stub(local: str, label: str) -> list[ox.Triple]:
    term = ox.NamedNode(OBO + local)
    return [ox.Triple(term, RDF_TYPE_NODE, CLASS),
            ox.Triple(term, RDFS_LABEL_NODE, ox.Literal(label))]


def test_rdf_type_written_a_needs_no_rdf_prefix() -> None:
    text = serialize_triples(stub("UBERON_0002048", "lung") + stub("UBERON_0000970", "eye"),
                             "turtle")
    assert "@prefix rdf:" not in text and " a owl:Class" in text
    assert sorted(turtle_prefixes(stub("UBERON_0002048", "lung")
                                  + stub("UBERON_0000970", "eye"))) == ["obo", "owl", "rdfs"]


def test_a_namespace_used_once_is_written_out() -> None:
    unit = ox.NamedNode("http://qudt.org/vocab/unit/MilliV")
    triples = [*stub("UBERON_0002048", "lung"), *stub("UBERON_0000970", "eye"),
               ox.Triple(unit, RDFS_LABEL_NODE, ox.Literal("millivolt"))]
    text = serialize_triples(triples, "turtle")
    assert "<http://qudt.org/vocab/unit/MilliV>" in text and "@prefix unit:" not in text


def test_datatypes_count_as_uses_unless_written_bare() -> None:
    units = [ox.NamedNode(f"http://qudt.org/vocab/unit/U{i}") for i in range(3)]
    doubles = [ox.Triple(u, FACTOR, ox.Literal("0.5", datatype=ox.NamedNode(XSD + "double")))
               for u in units]
    decimals = [ox.Triple(u, FACTOR, ox.Literal("0.001", datatype=ox.NamedNode(XSD + "decimal")))
                for u in units]
    assert "xsd" in turtle_prefixes(doubles)
    assert "xsd" not in turtle_prefixes(decimals)  # Turtle writes 0.001 bare, "0.5"^^xsd:double not
    whole = [ox.Triple(u, FACTOR, ox.Literal("1", datatype=ox.NamedNode(XSD + "decimal")))
             for u in units]  # not a Turtle decimal: written "1"^^xsd:decimal
    assert "xsd" in turtle_prefixes(whole)
    assert "XMLSchema" not in serialize_triples(whole, "turtle").split("\n", 1)[1]


def test_fewer_tokens_and_the_same_graph() -> None:
    triples = [t for i in range(6) for t in stub(f"GO_000000{i}", f"process {i}")]
    triples.append(ox.Triple(ox.NamedNode("http://qudt.org/vocab/unit/MilliV"),
                             RDFS_LABEL_NODE, ox.Literal("millivolt")))
    every = ox.serialize(triples, format=ox.RdfFormat.TURTLE, prefixes={
        "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "obo": OBO,
        "owl": "http://www.w3.org/2002/07/owl#", "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
        "unit": "http://qudt.org/vocab/unit/"}).decode()
    paying = serialize_triples(triples, "turtle")
    assert estimate_tokens(paying) < estimate_tokens(every)
    parsed = set(ox.parse(paying.encode(), ox.RdfFormat.TURTLE))
    assert parsed == {ox.Quad(t.subject, t.predicate, t.object) for t in triples}


T2K = "https://cenguix.github.io/Text2KGBench/ont_10_comicscharacter/"


def properties(namespace: str, names: list[str]) -> list[ox.Triple]:
    kind = ox.NamedNode("http://www.w3.org/2002/07/owl#ObjectProperty")
    return [ox.Triple(ox.NamedNode(namespace + n), RDF_TYPE_NODE, kind) for n in names]


def test_a_long_segment_gives_way_to_a_short_one() -> None:
    triples = properties(T2K + "relations#", ["creator", "starring", "voice"])
    text = serialize_triples(triples, "turtle")
    assert f"@prefix relations: <{T2K}relations#>" in text and "relations:voice a" in text
    assert "ont_10_comicscharacter:" not in text
    long_named = ox.serialize(triples, format=ox.RdfFormat.TURTLE, prefixes={
        "ont_10_comicscharacter": T2K + "relations#",
        "owl": "http://www.w3.org/2002/07/owl#"}).decode()
    assert estimate_tokens(text) < estimate_tokens(long_named) - 10
    assert set(ox.parse(text.encode(), ox.RdfFormat.TURTLE)) == {
        ox.Quad(t.subject, t.predicate, t.object) for t in triples}


def test_two_namespaces_with_the_same_short_segment_get_distinct_names() -> None:
    other = "https://cenguix.github.io/Text2KGBench/ont_12_monument/relations#"
    triples = (properties(T2K + "relations#", ["creator", "voice"])
               + properties(other, ["architect", "location"]))
    prefixes = turtle_prefixes(triples)
    assert {prefixes["relations"], prefixes["relations2"]} == {T2K + "relations#", other}
    assert set(ox.parse(serialize_triples(triples, "turtle").encode(), ox.RdfFormat.TURTLE)) == {
        ox.Quad(t.subject, t.predicate, t.object) for t in triples}


def test_a_short_telling_segment_keeps_its_name() -> None:
    triples = properties("http://purl.org/spar/fabio/", ["Article", "Book", "Chapter"])
    assert "fabio" in turtle_prefixes(triples)


def test_an_obo_id_space_used_often_gets_its_curie_prefix() -> None:
    go = [t for i in range(14) for t in stub(f"GO_{i:07d}", f"process {i}")]  # 14 uses
    so = stub("SO_0000704", "gene") + stub("SO_0000147", "exon")  # 2 uses: keeps obo:
    parent = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#subClassOf")
    part = [ox.Triple(ox.NamedNode(OBO + "GO_0000001"), parent,
                      ox.NamedNode(OBO + "GO_0008150"))]
    triples = go + so + part
    text = serialize_triples(triples, "turtle")
    assert "@prefix GO: <http://purl.obolibrary.org/obo/GO_> ." in text
    assert "GO:0000001 a owl:Class" in text and "rdfs:subClassOf GO:0008150" in text
    assert "obo:SO_0000704" in text and "@prefix SO:" not in text
    parsed = [q.triple for q in ox.parse(text.encode(), format=ox.RdfFormat.TURTLE)]
    assert sorted(map(str, parsed)) == sorted(map(str, triples))
    without = ox.serialize(triples, format=ox.RdfFormat.TURTLE, prefixes={
        "obo": OBO, "owl": "http://www.w3.org/2002/07/owl#",
        "rdfs": "http://www.w3.org/2000/01/rdf-schema#"}).decode()
    assert estimate_tokens(text) < estimate_tokens(without)
