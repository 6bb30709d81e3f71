"""Term documents: a context as one document per term, for retrieval frameworks.

Pure. The context's statements are grouped by named subject (with the blank
nodes each reaches, as a slice groups them), in rank order: seeds first, in
seed order, then the terms the graph stage added. Each group becomes a
``TermDocument`` with the term's IRI, label, definition, kind, score and its
own Turtle block, so a framework that stores or reranks documents keeps every
term's statements with it.

>>> from ontoretrieve.context.model import Context, ContextMetrics, Mode, Snapshot
>>> from ontoretrieve.rdf.vocab import RDFS_COMMENT, RDFS_LABEL
>>> nt = (f'<http://x/a> <{RDFS_LABEL}> "alpha" .\\n'
...       f'<http://x/a> <{RDFS_COMMENT}> "The first letter." .\\n')
>>> ctx = Context(mode=Mode.VECTOR, ntriples=nt, terms=["http://x/a"], seeds=[],
...               evidence={}, snapshot=Snapshot(cut_from=[], writable=[]),
...               metrics=ContextMetrics(mode=Mode.VECTOR))
>>> [(d.iri, d.label, d.definition) for d in term_documents(ctx, 5)]
[('http://x/a', 'alpha', 'The first letter.')]
>>> term_documents(ctx, 5)[0].text()
'alpha: The first letter.'
"""

from __future__ import annotations

import pyoxigraph as ox
from pydantic import BaseModel

from ontoretrieve.context.model import Context, serialize_triples
from ontoretrieve.engine.slices import hit_of, statement_blocks
from ontoretrieve.rdf.vocab import SCHEMA_DESCRIPTION_PREDICATES

__all__ = ["TermDocument", "term_documents"]


class TermDocument(BaseModel):
    """One term of a context, with its own statements."""

    iri: str
    label: str | None
    definition: str | None
    """The first description it has (skos:definition, IAO definition, rdfs:comment, ...)."""
    kind: str
    """class, property, concept, individual, ontology or term."""
    score: float | None
    """The seed score for seeds; None for terms the graph stage added."""
    ontology: str | None
    step: str
    """How the term entered the context (retrieved, expanded, ...)."""
    turtle: str
    """The term's statements (and the blank nodes they reach) in Turtle."""

    def text(self) -> str:
        """What a framework embeds or shows: the label and the definition."""
        name = self.label or self.iri
        return f"{name}: {self.definition}" if self.definition else name

    def metadata(self) -> dict[str, str | float | None]:
        """Every field, flat (as document stores want metadata)."""
        return self.model_dump()


def term_documents(context: Context, k: int) -> list[TermDocument]:
    """The first ``k`` terms of ``context`` in rank order, one document each."""
    order = [s.iri for s in context.seeds] + context.terms
    seed_scores = {s.iri: s.score for s in reversed(context.seeds)}
    documents: list[TermDocument] = []
    for iri, triples in statement_blocks(context.triples(), order):
        if len(documents) >= k:
            break
        if iri is None:
            continue
        hit = hit_of(iri, triples, context, seed_scores)
        documents.append(TermDocument(
            iri=iri, label=hit.label, definition=_definition(iri, triples), kind=hit.kind,
            score=hit.score, ontology=hit.ontology, step=hit.step,
            turtle=serialize_triples(triples, "turtle")))
    return documents


def _definition(iri: str, triples: list[ox.Triple]) -> str | None:
    """The subject's own description, by the preference of ``SCHEMA_DESCRIPTION_PREDICATES``."""
    found = {t.predicate.value: t.object.value for t in reversed(triples)
             if isinstance(t.subject, ox.NamedNode) and t.subject.value == iri
             and isinstance(t.object, ox.Literal)
             and t.predicate.value in SCHEMA_DESCRIPTION_PREDICATES}
    return next((found[p] for p in SCHEMA_DESCRIPTION_PREDICATES if p in found), None)
