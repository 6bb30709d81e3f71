"""Summaries of recall runs: every figure checked on hand-made rows."""

from __future__ import annotations

from typing import Any

import pytest

from ontoretrieve.bench.summary import NOT_IN_CATALOG, summarize


def row(uid: str, source: str = "s", **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"id": uid, "source": source, "gold": [], "derived": [],
                            "retrieved_term_iris": [], "context_subjects": [],
                            "subject_ontologies": {}, "gold_ontologies": {},
                            "unit_ontology": None, "context_triples_count": 0,
                            "context_tokens": 0, "seconds": {}, "empty": False,
                            "truncated": False}
    return {**base, **fields}


def test_any_of_group_counts_once_and_one_member_suffices() -> None:
    s = summarize([row("u", gold=[["a", "b"], ["c"]], context_subjects=["b", "a"],
                       retrieved_term_iris=["b"])]).overall
    assert s.gold_terms == 2
    assert s.context_term_recall == 0.5 and s.seed_term_recall == 0.5


def test_recall_at_rank_uses_the_best_ranked_member() -> None:
    seeds = [f"x{i}" for i in range(60)]
    seeds[5], seeds[30], seeds[55] = "a", "b", "c"
    s = summarize([row("u", gold=[["a"], ["b"], ["c"], ["zz", "c"]],
                       retrieved_term_iris=seeds)]).overall
    assert (s.recall_at_10, s.recall_at_50, s.seed_term_recall) == (0.25, 0.5, 1.0)


def test_graph_stage_net_counts_terms_added_and_lost() -> None:
    s = summarize([row("u", gold=[["a"], ["b"], ["c"]], retrieved_term_iris=["a", "b"],
                       context_subjects=["a", "c"])]).overall
    assert (s.graph_stage_added, s.graph_stage_lost) == (1, 1)
    assert s.graph_stage_net == pytest.approx(0.0)
    s = summarize([row("u", gold=[["a"], ["b"]], retrieved_term_iris=["a"],
                       context_subjects=["a", "b"])]).overall
    assert s.graph_stage_net == pytest.approx(0.5)


def test_on_topic_precision_only_over_units_naming_their_ontology() -> None:
    rows = [row("u1", unit_ontology="o1", subject_ontologies={"o1": 3, "o2": 1}),
            row("u2", unit_ontology=None, subject_ontologies={"o2": 100})]
    assert summarize(rows).overall.on_topic_precision == 0.75
    assert summarize([rows[1]]).overall.on_topic_precision is None


def test_per_ontology_recall_never_found_and_contributed_nothing() -> None:
    rows = [row("u1", gold=[["a"], ["b"], ["z"]], gold_ontologies={"a": "o1", "b": "o2"},
                context_subjects=["a", "n"], subject_ontologies={"o1": 1, "noise": 1}),
            row("u2", gold=[["a"]], gold_ontologies={"a": "o1"}, retrieved_term_iris=["a"],
                context_subjects=["a"], subject_ontologies={"o1": 1})]
    s = summarize(rows)
    assert s.ontologies["o1"].gold_terms == 2 and s.ontologies["o1"].context_term_recall == 1.0
    assert s.ontologies["o1"].seed_term_recall == 0.5
    assert s.ontologies["o1"].context_subjects == 2
    assert s.never_found == {"o2": 1, NOT_IN_CATALOG: 1}
    assert s.contributed_nothing == {"noise": 1}


def test_sizes_latency_empty_truncated_and_derived_per_source() -> None:
    rows = [row(f"u{i}", source="a" if i < 3 else "b", context_triples_count=10 * i,
                context_tokens=100 * i, seconds={"total": 0.01 * (i + 1), "embedding": 0.005},
                empty=i == 0, truncated=i == 4, derived=["d"],
                context_subjects=["d"] if i % 2 else []) for i in range(5)]
    s = summarize(rows)
    assert s.overall.units == 5 and s.sources["a"].units == 3
    assert s.overall.context_triples.mean == 20.0 and s.overall.context_triples.p95 == 40.0
    assert s.overall.latency_ms["total"].p50 == 30.0
    assert s.overall.empty_contexts == 1 and s.overall.truncated_contexts == 1
    assert s.overall.derived_gold_recall == 0.4
    assert s.sources["b"].derived_gold_recall == 0.5


def test_no_gold_gives_zero_recall_not_an_error() -> None:
    s = summarize([row("u")]).overall
    assert s.gold_terms == 0 and s.context_term_recall == 0.0
    assert s.derived_gold_recall is None


def test_a_unit_ontology_the_catalog_lacks_is_reported_not_scored_as_off_topic() -> None:
    rows = [row("u1", unit_ontology=None, unit_ontology_named="ont_9",
                subject_ontologies={"o1": 5}),
            row("u2", unit_ontology="o1", unit_ontology_named="o1.ttl",
                subject_ontologies={"o1": 1})]
    s = summarize(rows)
    assert s.unknown_unit_ontologies == {"ont_9": 1}
    assert s.overall.on_topic_precision == 1.0


def test_bare_iris_per_context_and_their_share_of_subjects() -> None:
    rows = [row("u1", context_subjects=["a", "b", "c", "d"], context_bare_subjects=1),
            row("u2", context_subjects=["e", "f", "g", "h"], context_bare_subjects=3)]
    s = summarize(rows)
    assert s.overall.bare_subjects is not None and s.overall.bare_subjects.mean == 2.0
    assert s.overall.bare_subject_share == 0.5
    assert summarize([row("old", context_subjects=["a"])]).overall.bare_subjects is None
