"""Summaries of a recall run: per source, overall and per ontology. Pure.

Reads the per-unit rows ``bench recall`` writes (see ``runner.py``) and
nothing else, so a summary can be recomputed from a run file. Every recall is
micro over unit-term pairs; a gold term is a group of IRIs of which one
suffices (an any-of group counts once). The measures follow the reference
system's own (benchmarks/README.md):

- seed term recall (a gold IRI among the final seeds), recall@10 and @50 by
  seed rank, context term recall (a gold IRI is a subject of the context),
  derived-gold recall in the context;
- graph-stage net: context recall minus seed recall, with the gold terms the
  graph stage added and those it lost (seeds that did not reach the context);
- on-topic precision: the share of context subjects from the unit's own
  ontology, over the units that name one;
- context triples and tokens (mean, p95), empty contexts, truncated contexts,
  latency (p50, p95) in total and by stage;
- per gold ontology: gold terms and their seed and context recall; and the
  ontologies that put terms into contexts without ever contributing a gold
  term (what they cost, in context subjects).

>>> row = {"id": "u", "source": "s", "gold": [["a"], ["b", "c"]], "derived": [],
...        "retrieved_term_iris": ["a", "x"], "context_subjects": ["a", "c", "x"],
...        "subject_ontologies": {"o1": 2, "o2": 1}, "gold_ontologies": {"a": "o1", "b": "o1"},
...        "unit_ontology": "o1", "context_triples_count": 9, "context_tokens": 80,
...        "seconds": {"total": 0.1}, "empty": False, "truncated": False}
>>> s = summarize([row])
>>> s.overall.seed_term_recall, s.overall.context_term_recall, s.overall.on_topic_precision
(0.5, 1.0, 0.6667)
>>> s.ontologies["o1"].context_term_recall, s.contributed_nothing
(1.0, {'o2': 1})
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

__all__ = ["OntologyRecall", "RunSummary", "SourceSummary", "Spread", "percentile", "summarize"]

NOT_IN_CATALOG = "(not in catalog)"


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (0 for no values).

    >>> percentile([1, 2, 3, 4], 0.5), percentile([], 0.95)
    (3, 0.0)
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Spread(BaseModel):
    mean: float
    p50: float
    p95: float

    @classmethod
    def of(cls, values: Sequence[float], digits: int = 1) -> Spread:
        return cls(mean=round(statistics.fmean(values), digits) if values else 0.0,
                   p50=round(percentile(values, 0.5), digits),
                   p95=round(percentile(values, 0.95), digits))


class SourceSummary(BaseModel):
    units: int
    gold_terms: int
    seed_term_recall: float
    context_term_recall: float
    derived_gold_recall: float | None
    recall_at_10: float
    recall_at_50: float
    graph_stage_net: float
    """Context term recall minus seed term recall."""
    graph_stage_added: int
    """Gold terms in the context that were not seeds."""
    graph_stage_lost: int
    """Gold terms that were seeds but are not in the context."""
    on_topic_precision: float | None
    seeds_per_unit: float
    context_triples: Spread
    context_tokens: Spread
    """Estimated LLM tokens of the context's Turtle (what budgets count)."""
    context_encoder_tokens: Spread | None = None
    """The same Turtle in the dense encoder's tokens."""
    bare_subjects: Spread | None = None
    """Context subjects a reader sees as bare IRIs (no label, no symbol, an IRI that spells
    no name), per context; None for runs from before it was recorded."""
    bare_subject_share: float | None = None
    """The same as a share of all context subjects."""
    recall_at_tokens: dict[str, float] = {}
    """Context term recall with the context cut to each budget (estimated tokens)."""
    size_at_tokens: dict[str, dict[str, float]] = {}
    """Mean triples and estimated tokens of the contexts cut to each budget."""
    empty_contexts: int
    truncated_contexts: int
    latency_ms: dict[str, Spread]
    """Per stage and ``total``, in milliseconds."""


class OntologyRecall(BaseModel):
    gold_terms: int
    seed_term_recall: float
    context_term_recall: float
    context_subjects: int
    """Context subjects this ontology supplied over the whole run."""


class RunSummary(BaseModel):
    overall: SourceSummary
    sources: dict[str, SourceSummary]
    ontologies: dict[str, OntologyRecall]
    """Per gold ontology (the ontology defining the gold term)."""
    contributed_nothing: dict[str, int]
    """Ontologies whose terms entered contexts but never as a gold term: subjects supplied."""
    never_found: dict[str, int]
    """Gold ontologies with gold terms none of which reached a context: how many terms."""
    unknown_unit_ontologies: dict[str, int] = {}
    """Ontologies units name that no catalog version matches (units each): no on-topic
    precision for those units."""


def _bare(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``bare_subjects`` and its share, from the rows that record it."""
    recorded = [r for r in rows if "context_bare_subjects" in r]
    if not recorded:
        return {}
    subjects = sum(len(r.get("context_subjects") or []) for r in recorded)
    bare = [r["context_bare_subjects"] for r in recorded]
    return {"bare_subjects": Spread.of(bare),
            "bare_subject_share": round(sum(bare) / subjects, 4) if subjects else 0.0}


def summarize(rows: Sequence[Mapping[str, Any]]) -> RunSummary:
    """The run's summary (see the module docstring for what each figure means)."""
    by_source: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        by_source[str(row.get("source", ""))].append(row)
    ontologies, contributed = _per_ontology(rows)
    never = {name: o.gold_terms for name, o in ontologies.items()
             if o.context_term_recall == 0.0}
    unknown = Counter(str(r["unit_ontology_named"]) for r in rows
                      if r.get("unit_ontology_named") and not r.get("unit_ontology"))
    return RunSummary(overall=_summarize_source(rows),
                      sources={s: _summarize_source(r) for s, r in sorted(by_source.items())},
                      ontologies=ontologies, contributed_nothing=contributed,
                      never_found=never, unknown_unit_ontologies=dict(unknown))


def _groups(row: Mapping[str, Any]) -> list[frozenset[str]]:
    return [frozenset(group) for group in row.get("gold", []) if group]


def _summarize_source(rows: Sequence[Mapping[str, Any]]) -> SourceSummary:
    total = seed_hits = ctx_hits = at10 = at50 = added = lost = 0
    derived_total = derived_hits = on_topic = topic_subjects = 0
    latency: dict[str, list[float]] = defaultdict(list)
    at_tokens: Counter[str] = Counter()
    for row in rows:
        for budget, found in row.get("gold_at_tokens", {}).items():
            at_tokens[budget] += sum(bool(group & set(found)) for group in _groups(row))
        seeds = {iri: rank for rank, iri in enumerate(row.get("retrieved_term_iris", []))}
        subjects = set(row.get("context_subjects", []))
        for group in _groups(row):
            ranks = [seeds[i] for i in group if i in seeds]
            in_seeds, in_context = bool(ranks), bool(group & subjects)
            total += 1
            seed_hits += in_seeds
            ctx_hits += in_context
            at10 += in_seeds and min(ranks) < 10
            at50 += in_seeds and min(ranks) < 50
            added += in_context and not in_seeds
            lost += in_seeds and not in_context
        derived = row.get("derived", [])
        derived_total += len(derived)
        derived_hits += sum(iri in subjects for iri in derived)
        own = row.get("unit_ontology")
        if own is not None:
            counts = row.get("subject_ontologies", {})
            on_topic += counts.get(own, 0)
            topic_subjects += sum(counts.values())
        for stage, seconds in row.get("seconds", {}).items():
            latency[stage].append(1000.0 * seconds)

    def share(hits: int, of: int) -> float:
        return round(hits / of, 4) if of else 0.0

    return SourceSummary(
        units=len(rows), gold_terms=total,
        seed_term_recall=share(seed_hits, total), context_term_recall=share(ctx_hits, total),
        derived_gold_recall=share(derived_hits, derived_total) if derived_total else None,
        recall_at_10=share(at10, total), recall_at_50=share(at50, total),
        graph_stage_net=round(share(ctx_hits, total) - share(seed_hits, total), 4),
        graph_stage_added=added, graph_stage_lost=lost,
        on_topic_precision=share(on_topic, topic_subjects) if topic_subjects else None,
        seeds_per_unit=round(statistics.fmean(
            [len(r.get("retrieved_term_iris", [])) for r in rows]), 1) if rows else 0.0,
        context_triples=Spread.of([r.get("context_triples_count", 0) for r in rows]),
        context_tokens=Spread.of([r.get("context_tokens", 0) for r in rows], digits=0),
        context_encoder_tokens=Spread.of([r["context_encoder_tokens"] for r in rows
                                          if "context_encoder_tokens" in r], digits=0)
        if any("context_encoder_tokens" in r for r in rows) else None,
        **_bare(rows),
        recall_at_tokens={b: share(n, total) for b, n in sorted(at_tokens.items(),
                                                                key=lambda x: int(x[0]))},
        size_at_tokens=_mean_sizes(rows),
        empty_contexts=sum(bool(r.get("empty")) for r in rows),
        truncated_contexts=sum(bool(r.get("truncated")) for r in rows),
        latency_ms={stage: Spread.of(values) for stage, values in sorted(latency.items())})


def _mean_sizes(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Mean triples and tokens per curve budget, over the rows that recorded them."""
    sums: dict[str, Counter[str]] = defaultdict(Counter)
    counts: Counter[str] = Counter()
    for row in rows:
        for budget, size in (row.get("size_at_tokens") or {}).items():
            sums[budget].update(size)
            counts[budget] += 1
    return {b: {k: round(v / counts[b], 1) for k, v in sums[b].items()}
            for b in sorted(sums, key=int)}


def _per_ontology(rows: Sequence[Mapping[str, Any]]
                  ) -> tuple[dict[str, OntologyRecall], dict[str, int]]:
    gold: Counter[str] = Counter()
    seed_hits: Counter[str] = Counter()
    ctx_hits: Counter[str] = Counter()
    supplied: Counter[str] = Counter()
    for row in rows:
        owners = row.get("gold_ontologies", {})
        seeds = set(row.get("retrieved_term_iris", []))
        subjects = set(row.get("context_subjects", []))
        for group in _groups(row):
            name = next((owners[i] for i in sorted(group) if i in owners), NOT_IN_CATALOG)
            gold[name] += 1
            seed_hits[name] += bool(group & seeds)
            ctx_hits[name] += bool(group & subjects)
        supplied.update(row.get("subject_ontologies", {}))
    recall = {name: OntologyRecall(
        gold_terms=gold[name], seed_term_recall=round(seed_hits[name] / gold[name], 4),
        context_term_recall=round(ctx_hits[name] / gold[name], 4),
        context_subjects=supplied[name]) for name in sorted(gold)}
    nothing = {name: count for name, count in supplied.most_common() if ctx_hits[name] == 0}
    return recall, nothing
