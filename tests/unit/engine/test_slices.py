"""Knowledge slices: never over budget (property test with the encoder's tokenizer)."""

from __future__ import annotations

import pyoxigraph as ox
from hypothesis import given, settings
from hypothesis import strategies as st

from ontoretrieve.context.model import Context, ContextMetrics, Mode, Snapshot, serialize_triples
from ontoretrieve.engine.slices import build_slice, statement_blocks
from tests.support import encoder_count as count

LABEL = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
SUB = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#subClassOf")
words = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
                min_size=0, max_size=40)


@st.composite
def contexts(draw: st.DrawFn) -> Context:
    n = draw(st.integers(0, 12))
    subjects = [ox.NamedNode(f"http://x.org/t{i}") for i in range(n)]
    triples: list[ox.Triple] = []
    for i, s in enumerate(subjects):
        for label in draw(st.lists(words, max_size=3)):
            triples.append(ox.Triple(s, LABEL, ox.Literal(label)))
        if i and draw(st.booleans()):
            triples.append(ox.Triple(s, SUB, subjects[draw(st.integers(0, i - 1))]))
        if draw(st.booleans()):  # a restriction: a blank node owned by the subject
            b = ox.BlankNode()
            triples.append(ox.Triple(s, SUB, b))
            triples.append(ox.Triple(b, LABEL, ox.Literal(draw(words))))
    return Context(mode=Mode.VECTOR, ntriples=serialize_triples(triples, "ntriples"),
                   terms=[s.value for s in subjects], seeds=[], evidence={},
                   snapshot=Snapshot(cut_from=[], writable=[]),
                   metrics=ContextMetrics(mode=Mode.VECTOR))


@settings(max_examples=150, deadline=None)
@given(contexts(), st.integers(1, 400))
def test_no_slice_exceeds_its_budget(context: Context, budget: int) -> None:
    cut = build_slice(context, budget, count)
    assert cut.token_estimate <= budget
    assert count(cut.context) <= budget if cut.context else cut.token_estimate == 0
    whole = count(context.serialize("turtle")) if context.ntriples else 0
    if whole <= budget:
        assert not cut.truncated  # everything fits: nothing is cut
    if cut.truncated:
        assert cut.blocks_kept < cut.blocks_total or cut.hits  # trimmed, and says so
    # the body parses, and every hit is a subject of it
    body = list(ox.parse(cut.context.encode(), ox.RdfFormat.TURTLE)) if cut.context else []
    assert {h.id for h in cut.hits} <= {t.subject.value for t in body}


def test_blocks_follow_seed_order_and_keep_blank_nodes_with_their_owner() -> None:
    a, b = ox.NamedNode("http://x.org/a"), ox.NamedNode("http://x.org/b")
    blank = ox.BlankNode()
    triples = [ox.Triple(a, LABEL, ox.Literal("a")), ox.Triple(b, SUB, blank),
               ox.Triple(blank, LABEL, ox.Literal("restriction"))]
    blocks = statement_blocks(triples, ["http://x.org/b", "http://x.org/a"])
    assert [owner for owner, _ in blocks] == ["http://x.org/b", "http://x.org/a"]
    assert len(blocks[0][1]) == 2


def test_a_block_too_big_for_the_budget_is_trimmed_type_and_label_first() -> None:
    s = ox.NamedNode("http://x.org/unit")
    triples = [ox.Triple(s, ox.NamedNode("http://x.org/p"), ox.Literal("filler " * 50)),
               ox.Triple(s, LABEL, ox.Literal("millivolt"))]
    context = Context(mode=Mode.VECTOR, ntriples=serialize_triples(triples, "ntriples"),
                      terms=[s.value], seeds=[], evidence={},
                      snapshot=Snapshot(cut_from=[], writable=[]),
                      metrics=ContextMetrics(mode=Mode.VECTOR))
    cut = build_slice(context, 80, count)
    assert cut.truncated and "millivolt" in cut.context and "filler" not in cut.context
    assert [h.label for h in cut.hits] == ["millivolt"]
