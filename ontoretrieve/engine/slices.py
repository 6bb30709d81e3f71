"""Knowledge slices: a context cut to a token budget of the encoder's tokenizer.

Pure. The context's statements are grouped into blocks, one
per named subject with the blank nodes it reaches; blocks are taken in rank
order (seeds first, in seed order, then the other terms as admitted) and the
longest prefix whose Turtle fits ``max_tokens`` is kept. The budget is a hard
limit: the count is checked on the final text, so ``token_estimate <=
max_tokens`` always, and ``truncated`` says when blocks were left out.

>>> from ontoretrieve.context.model import Context, ContextMetrics, Mode, Snapshot
>>> from ontoretrieve.rdf.vocab import RDFS_LABEL
>>> nt = f'<http://x/a> <{RDFS_LABEL}> "alpha" .\\n'
>>> ctx = Context(mode=Mode.VECTOR, ntriples=nt, terms=["http://x/a"], seeds=[],
...               evidence={}, snapshot=Snapshot(cut_from=[], writable=[]),
...               metrics=ContextMetrics(mode=Mode.VECTOR))
>>> words = lambda text: len(text.split())
>>> cut = build_slice(ctx, 100, words)
>>> cut.truncated, [h.id for h in cut.hits], cut.token_estimate <= 100
(False, ['http://x/a'], True)
>>> build_slice(ctx, 2, words).truncated
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import pyoxigraph as ox
from pydantic import BaseModel

from ontoretrieve.context.model import Context, Diagnosis, TermEvidence, serialize_triples
from ontoretrieve.rdf.vocab import (
    NAME_PREDICATES,
    OWL_ANNOTATION_PROPERTY,
    OWL_CLASS,
    OWL_DATATYPE_PROPERTY,
    OWL_NAMED_INDIVIDUAL,
    OWL_OBJECT_PROPERTY,
    OWL_ONTOLOGY,
    QUDT_SYMBOL,
    RDF_PROPERTY,
    RDF_TYPE,
    RDFS_CLASS,
    RDFS_COMMENT,
    RDFS_DOMAIN,
    RDFS_RANGE,
    RDFS_SUBCLASS_OF,
    SKOS_CONCEPT,
    SKOS_DEFINITION,
    SKOS_NOTATION,
)

__all__ = ["Hit", "KnowledgeSlice", "build_slice", "fit_turtle", "hit_of", "statement_blocks"]

TokenCounter = Callable[[str], int]
Block = tuple[str | None, list[ox.Triple]]
"""A named subject (None: unowned blank nodes) and its statements."""

_KINDS = {
    OWL_CLASS: "class",
    RDFS_CLASS: "class",
    OWL_OBJECT_PROPERTY: "property",
    OWL_DATATYPE_PROPERTY: "property",
    OWL_ANNOTATION_PROPERTY: "property",
    RDF_PROPERTY: "property",
    SKOS_CONCEPT: "concept",
    OWL_NAMED_INDIVIDUAL: "individual",
    OWL_ONTOLOGY: "ontology",
}


class Hit(BaseModel):
    """One term of a slice."""

    id: str
    kind: str
    """class, property, concept, individual, ontology or term."""
    label: str | None
    score: float | None
    """The seed score for seeds; None for terms the graph stage added."""
    ontology: str | None
    step: str


class KnowledgeSlice(BaseModel):
    """Hits, their evidence and the Turtle body, never over ``max_tokens``."""

    schema_version: Literal[1] = 1
    """Raised when a field changes meaning (``engine.results``)."""
    hits: list[Hit]
    evidence: dict[str, TermEvidence]
    context: str
    """The body, in Turtle."""
    token_estimate: int
    max_tokens: int
    truncated: bool
    """Statements of the context's pool were left out: by the budget while the context
    was built, or by cutting a context built without one."""
    blocks_kept: int
    blocks_total: int
    diagnosis: Diagnosis | None = None
    warnings: list[str] = []


def statement_blocks(triples: Sequence[ox.Triple], order: Sequence[str]) -> list[Block]:
    """Statements grouped by named subject (with the blank nodes it reaches), in ``order``.

    Subjects missing from ``order`` follow in first-seen order; blank nodes
    no named subject reaches form a last block (owner None).
    """
    by_subject: dict[ox.NamedNode | ox.BlankNode, list[ox.Triple]] = {}
    for t in triples:
        by_subject.setdefault(t.subject, []).append(t)  # type: ignore[arg-type]
    named = [s for s in by_subject if isinstance(s, ox.NamedNode)]
    rank = {iri: i for i, iri in enumerate(dict.fromkeys(order))}
    named.sort(key=lambda s: rank.get(s.value, len(rank)))
    claimed: set[ox.BlankNode] = set()
    blocks: list[Block] = []
    for subject in named:
        block = list(by_subject[subject])
        frontier = [t.object for t in block if isinstance(t.object, ox.BlankNode)]
        while frontier:
            node = frontier.pop()
            if node in claimed or node not in by_subject:
                continue
            claimed.add(node)
            block.extend(by_subject[node])
            frontier.extend(t.object for t in by_subject[node]
                            if isinstance(t.object, ox.BlankNode))
        blocks.append((subject.value, block))
    rest = [t for s, ts in by_subject.items() if isinstance(s, ox.BlankNode)
            and s not in claimed for t in ts]
    if rest:
        blocks.append((None, rest))
    return blocks


def fit_turtle(triples: Sequence[ox.Triple], order: Sequence[str], max_tokens: int,
               count_tokens: TokenCounter) -> tuple[list[Block], str, int, int]:
    """The longest prefix of blocks (then part of the next) whose Turtle fits the budget.

    Returns (blocks kept, their Turtle, its token count, blocks in all); the
    count is taken on the final text, so it never exceeds ``max_tokens``.
    """
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, not {max_tokens}")
    blocks = statement_blocks(triples, order)

    def body(n: int) -> str:
        return serialize_triples([t for _, ts in blocks[:n] for t in ts], "turtle")

    # The largest prefix that fits. The whole context first (one count when it
    # fits); else galloping from one block, so the cost follows the budget, not
    # the context's size; then a binary search in the last doubling, and a step
    # down until it fits (the prefixes block makes counts not quite monotone).
    def fits(n: int) -> bool:
        return _within(body(n), max_tokens, count_tokens)

    if blocks and fits(len(blocks)):
        low = high = len(blocks)
    else:
        low, high = 0, 1
        while high < len(blocks) and fits(high):
            low, high = high, min(2 * high, len(blocks))
        high = min(high, len(blocks))
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    kept, text = low, body(low)
    tokens = count_tokens(text) if text else 0
    while kept > 0 and tokens > max_tokens:
        kept -= 1
        text = body(kept)
        tokens = count_tokens(text) if text else 0
    taken = [(iri, list(ts)) for iri, ts in blocks[:kept]]
    if kept < len(blocks) and blocks[kept][0] is not None:
        # The next block does not fit whole: keep its most telling statements that do.
        partial = _partial_block(blocks[kept], taken, max_tokens, count_tokens)
        if partial is not None:
            taken.append(partial[0])
            text, tokens = partial[1], partial[2]
    return taken, text, tokens, len(blocks)


def build_slice(context: Context, max_tokens: int, count_tokens: TokenCounter) -> KnowledgeSlice:
    """Cut ``context`` to ``max_tokens`` tokens of Turtle (see the module docstring)."""
    order = [s.iri for s in context.seeds] + context.terms
    triples = context.triples()  # parsed once: N-Triples to terms is not free
    taken, text, tokens, total = fit_turtle(triples, order, max_tokens, count_tokens)
    whole = sum(len(ts) for _, ts in taken) == len(triples)
    seed_scores = {s.iri: s.score for s in reversed(context.seeds)}  # the first seed wins
    hits = [hit_of(iri, statements, context, seed_scores) for iri, statements in taken
            if iri is not None]
    return KnowledgeSlice(
        hits=hits, evidence={h.id: context.evidence[h.id] for h in hits
                             if h.id in context.evidence},
        context=text, token_estimate=tokens, max_tokens=max_tokens,
        truncated=not whole or context.metrics.truncated, blocks_kept=len(taken),
        blocks_total=total,
        diagnosis=context.diagnosis, warnings=context.warnings)


def _within(text: str, max_tokens: int, count_tokens: TokenCounter) -> bool:
    """Whether ``text`` fits, with a cheap rejection before the tokenizer.

    A subword tokenizer gives every whitespace-separated word at least one
    token, so more words than the budget cannot fit (the tokenizer costs about
    12 ms per 10k tokens; most probes of a large context are rejected here).
    Callers count the final text for real, so the budget stays exact.
    """
    return len(text.split()) <= max_tokens and count_tokens(text) <= max_tokens


_PRIORITY = {RDF_TYPE: 0, **dict.fromkeys(NAME_PREDICATES, 1), SKOS_NOTATION: 2,
             QUDT_SYMBOL: 2, RDFS_SUBCLASS_OF: 3, RDFS_DOMAIN: 3, RDFS_RANGE: 3,
             RDFS_COMMENT: 4, SKOS_DEFINITION: 4}


def _partial_block(block: Block, taken: Sequence[Block], max_tokens: int,
                   count_tokens: TokenCounter) -> tuple[Block, str, int] | None:
    """The longest prefix of the block's own statements (type, labels first) that fits."""
    iri, triples = block
    own = sorted((t for t in triples if isinstance(t.subject, ox.NamedNode)
                  and not isinstance(t.object, ox.BlankNode)),
                 key=lambda t: _PRIORITY.get(t.predicate.value, 5))
    before = [t for _, ts in taken for t in ts]
    best: tuple[Block, str, int] | None = None
    low, high = 1, len(own)
    while low <= high:
        middle = (low + high) // 2
        text = serialize_triples(before + own[:middle], "turtle")
        if _within(text, max_tokens, count_tokens):
            best = ((iri, own[:middle]), text, count_tokens(text))
            low = middle + 1
        else:
            high = middle - 1
    return best


def hit_of(iri: str, triples: Sequence[ox.Triple], context: Context,
           seed_scores: dict[str, float]) -> Hit:
    """The slice hit of term ``iri`` from its statements: its English (or untagged)
    label, its kind from ``rdf:type``, its seed score and evidence."""
    label = next((t.object.value for t in triples if t.predicate.value in NAME_PREDICATES
                  and isinstance(t.object, ox.Literal)
                  and t.object.language in (None, "", "en")), None)
    kind = next((_KINDS[t.object.value] for t in triples if t.predicate.value == RDF_TYPE
                 and isinstance(t.object, ox.NamedNode) and t.object.value in _KINDS), "term")
    evidence = context.evidence.get(iri)
    score = seed_scores.get(iri, evidence.score if evidence else None)
    return Hit(id=iri, kind=kind, label=label, score=score,
               ontology=evidence.ontology_iri if evidence else None,
               step=evidence.step if evidence else "context")
