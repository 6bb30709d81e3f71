"""A prompt's Turtle writes blank nodes in place and always says the same graph."""

from __future__ import annotations

import itertools

import pyoxigraph as ox
import rdflib
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib.compare import isomorphic

from ontoretrieve.context.model import serialize_triples, turtle_prefixes
from ontoretrieve.context.turtle import DEEPEST, inline_turtle
from ontoretrieve.rdf.vocab import OWL, RDF_FIRST, RDF_NIL, RDF_REST, RDFS

EX = "http://x.org/"
SUB = ox.NamedNode(RDFS + "subClassOf")
TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
FIRST, REST, NIL = ox.NamedNode(RDF_FIRST), ox.NamedNode(RDF_REST), ox.NamedNode(RDF_NIL)
UNION = ox.NamedNode(OWL + "unionOf")


def ex(name: str) -> ox.NamedNode:
    return ox.NamedNode(EX + name)


def same_graph(triples: list[ox.Triple], text: str) -> bool:
    expected = rdflib.Graph().parse(data=serialize_triples(triples, "ntriples"), format="nt")
    return isomorphic(expected, rdflib.Graph().parse(data=text, format="turtle"))


def a_list(items: list[ox.NamedNode]) -> tuple[ox.BlankNode, list[ox.Triple]]:
    nodes = [ox.BlankNode() for _ in items]
    triples = []
    for i, (node, item) in enumerate(zip(nodes, items, strict=True)):
        triples += [ox.Triple(node, FIRST, item),
                    ox.Triple(node, REST, nodes[i + 1] if i + 1 < len(nodes) else NIL)]
    return nodes[0], triples


def test_a_union_is_written_as_a_list_inside_its_class_expression() -> None:
    union = ox.BlankNode()
    head, items = a_list([ex("Mozzarella"), ex("Tomato")])
    triples = [ox.Triple(ex("Margherita"), SUB, union), ox.Triple(union, UNION, head), *items]
    text = serialize_triples(triples, "turtle")
    assert "#unionOf> ( xorg:Mozzarella xorg:Tomato ) ]" in text
    assert "_:" not in text and "first" not in text and "@prefix rdf:" not in text
    assert same_graph(triples, text)


def test_a_blank_node_used_twice_keeps_a_short_label() -> None:
    shared = ox.BlankNode()
    triples = [ox.Triple(ex("A"), SUB, shared), ox.Triple(ex("B"), SUB, shared),
               ox.Triple(shared, TYPE, ex("Restriction"))]
    text = serialize_triples(triples, "turtle")
    assert text.count("_:b0") == 3 and "[" not in text
    assert same_graph(triples, text)


def test_a_cycle_of_blank_nodes_used_once_keeps_one_label() -> None:
    first, second = ox.BlankNode(), ox.BlankNode()
    triples = [ox.Triple(first, SUB, second), ox.Triple(second, SUB, first)]
    text = serialize_triples(triples, "turtle")
    assert text.count("_:") == 2  # the first as a block, then where the second names it
    assert same_graph(triples, text)


def test_a_list_node_with_more_to_say_is_written_as_a_node_its_tail_as_a_list() -> None:
    head, items = a_list([ex("a"), ex("b")])
    items.append(ox.Triple(head, ex("note"), ox.Literal("extra")))  # a head with more to say
    triples = [ox.Triple(ex("A"), ex("p"), head), *items]
    text = serialize_triples(triples, "turtle")
    assert "#first> xorg:a ; <" in text and "#rest> ( xorg:b ) ; xorg:note" in text
    assert same_graph(triples, text)


def test_without_blank_nodes_the_text_is_pyoxigraphs_own() -> None:
    triples = [ox.Triple(ex("A"), SUB, ex("B")), ox.Triple(ex("A"), ex("p"), ox.Literal("v"))]
    prefixes = turtle_prefixes(triples)
    plain = ox.serialize(triples, format=ox.RdfFormat.TURTLE, prefixes=prefixes).decode()
    assert inline_turtle(triples, prefixes) == plain


def test_a_literal_that_spells_a_stand_in_leaves_every_blank_node_labelled() -> None:
    b = ox.BlankNode()
    triples = [ox.Triple(ex("A"), SUB, b), ox.Triple(b, TYPE, ex("R")),
               ox.Triple(ex("A"), ex("note"), ox.Literal("<urn:x-ontoretrieve:inline:0>"))]
    text = serialize_triples(triples, "turtle")
    assert "[" not in text and "_:b0" in text
    assert same_graph(triples, text)


def test_rdf_star_triple_terms_are_written_by_pyoxigraph() -> None:
    b = ox.BlankNode()
    quoted = ox.Triple(ex("A"), SUB, ex("B"))
    triples = [ox.Triple(ex("C"), ex("says"), quoted), ox.Triple(ex("A"), SUB, b),
               ox.Triple(b, TYPE, ex("R"))]
    text = serialize_triples(triples, "turtle")
    assert "_:b0" in text and "[" not in text


nodes = st.sampled_from([ex(n) for n in "abc"])
literals = st.builds(ox.Literal, st.text(max_size=8))


@st.composite
def graphs(draw: st.DrawFn) -> list[ox.Triple]:
    """Random graphs over a few IRIs, literals and blank nodes, lists among them."""
    blanks = [ox.BlankNode() for _ in range(draw(st.integers(1, 5)))]
    subject = st.one_of(nodes, st.sampled_from(blanks))
    value = st.one_of(nodes, literals, st.sampled_from(blanks))
    predicate = st.sampled_from([ex("p"), ex("q"), TYPE, FIRST, REST])
    triples = [ox.Triple(draw(subject), draw(predicate), draw(value))
               for _ in range(draw(st.integers(0, 12)))]
    if draw(st.booleans()):
        head, items = a_list(draw(st.lists(nodes, min_size=1, max_size=3)))
        triples += [ox.Triple(draw(subject), ex("p"), head), *items]
    return list(dict.fromkeys(triples))


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_any_graph_reads_back_the_same(triples: list[ox.Triple]) -> None:
    assert same_graph(triples, serialize_triples(triples, "turtle"))


def test_a_deep_chain_of_blank_nodes_keeps_its_labels_and_reads_back() -> None:
    chain = [ox.BlankNode() for _ in range(DEEPEST + 10)]
    triples = [ox.Triple(ex("A"), ex("p"), chain[0])] + [
        ox.Triple(a, ex("p"), b) for a, b in itertools.pairwise(chain)]
    text = serialize_triples(triples, "turtle")
    assert "[" not in text and same_graph(triples, text)
    shallow = serialize_triples(triples[:DEEPEST], "turtle")
    assert "_:" not in shallow and same_graph(triples[:DEEPEST], shallow)


def test_a_long_list_is_written_in_place() -> None:
    head, items = a_list([ex(f"i{n}") for n in range(1000)])
    triples = [ox.Triple(ex("A"), ex("p"), head), *items]
    text = serialize_triples(triples, "turtle")
    back = list(ox.parse(text.encode(), format=ox.RdfFormat.TURTLE))
    first = {t.subject: t.object for t in back if t.predicate == FIRST}
    rest = {t.subject: t.object for t in back if t.predicate == REST}
    node, read = next(t.object for t in back if t.predicate == ex("p")), []
    while node != NIL:
        read.append(first[node])
        node = rest[node]
    assert "_:" not in text and len(back) == len(triples)
    assert read == [t.object for t in items if t.predicate == FIRST]
