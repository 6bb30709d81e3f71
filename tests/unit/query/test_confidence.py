"""Confidence order: within a kind of evidence, seeds by a model over all their evidence."""

from __future__ import annotations

from typing import Any

import pytest

from ontoretrieve.index.commonness import commonness
from ontoretrieve.query.confidence import (
    FEATURES,
    WEIGHTS,
    ConfidenceModel,
    LogisticModel,
    confidence_model,
    features_of,
    in_confidence_order,
    seed_features,
)
from ontoretrieve.records import LaneRank, SeedEvidence
from ontoretrieve.settings.groups import ConfidenceModelKind, SeedSettings

MODELS = [pytest.param(confidence_model(kind), id=kind.value) for kind in ConfidenceModelKind]
"""Every shipped model must order the seeds of these cases alike."""


def confidence(features: dict[str, float], model: ConfidenceModel) -> float:
    return model.confidences([features])[0]


def mention(text: str, kind: str = "label", strength: float = 1.0, **flags: Any
            ) -> dict[str, object]:
    return {"span": [0, len(text)], "text": text, "form": text, "kind": kind,
            "exact_case": True, "shared_by": 1, "strength": strength, **flags}


def seed(iri: str, *, tier: int = 0, fit: float | None = 0.3, ontology: str = "h",
         mentions: list[dict[str, object]] | None = None) -> SeedEvidence:
    return SeedEvidence(
        iri=iri, score=0.1, origin="retrieved", ontology_iri="o", ontology_version=None,
        ontology_hash=ontology, role="resource", fused_score=0.1, windows=[0],
        lanes=[LaneRank(window=0, lane="mention", rank=1, raw_score=1.0)],
        mentions=mentions if mentions is not None else [mention(iri)], notes=[],
        evidence_tier=tier, fit=fit)


def test_every_feature_has_a_fitted_weight_and_nothing_else_does() -> None:
    assert set(WEIGHTS) == {"bias", *FEATURES}
    assert set(features_of(seed("lung"), support=1)) == set(FEATURES)


@pytest.mark.parametrize("model", MODELS)
def test_tiers_never_mix_and_each_seed_records_its_confidence(model: ConfidenceModel) -> None:
    seeds = [seed("agreed", tier=1, fit=0.9), seed("off", fit=0.05), seed("on", fit=0.5)]
    ordered = in_confidence_order(seeds, model)
    assert [s.iri for s in ordered] == ["on", "off", "agreed"]
    assert all(s.confidence is not None and 0 < s.confidence < 1 for s in ordered)


@pytest.mark.parametrize("model", MODELS)
def test_a_sense_outranked_by_its_window_comes_after_the_chosen_one(model: ConfidenceModel) -> None:
    chosen = seed("metre", mentions=[mention("m", "symbol", 0.9)])
    outranked = seed("mass", mentions=[mention("m", "symbol", 0.225, outranked=True)])
    assert [s.iri for s in in_confidence_order([outranked, chosen], model)] == ["metre", "mass"]


@pytest.mark.parametrize("model", MODELS)
def test_a_unit_named_after_a_number_comes_before_a_word_that_fits_a_little_better(
        model: ConfidenceModel) -> None:
    # "5 mV": the unit's core text rarely resembles its sentence, yet it is named on
    # purpose; "signal" fits the sentence a little better.
    unit = seed("mV", fit=0.05, mentions=[mention("mV", "symbol", 1.35, after_number=True)])
    word = seed("signal", fit=0.15, mentions=[mention("signal")])
    assert [s.iri for s in in_confidence_order([word, unit], model)] == ["mV", "signal"]


@pytest.mark.parametrize("model", MODELS)
def test_a_local_name_is_weaker_evidence_than_a_label(model: ConfidenceModel) -> None:
    label = features_of(seed("a", mentions=[mention("lung")]), support=1)
    local = features_of(seed("b", mentions=[mention("lung", "local_name", 0.7)]), support=1)
    assert confidence(label, model) > confidence(local, model)


@pytest.mark.parametrize("model", MODELS)
def test_an_elliptic_form_the_text_does_not_support_is_weaker_than_one_it_does(
        model: ConfidenceModel) -> None:
    # "expression" for gene expression, in a text that writes "gene" and in one that
    # never does (the mention is kept and flagged: mentions.elliptic_cohesion).
    def elliptic(cohesive: bool) -> dict[str, float]:
        return features_of(seed("expr", mentions=[mention("expression", "elliptic", 0.5,
                                                          cohesive=cohesive)]), support=1)

    assert elliptic(False)["lone_elliptic"] == 1.0
    assert elliptic(True)["lone_elliptic"] == 0.0
    assert confidence(elliptic(True), model) > confidence(elliptic(False), model)


def test_more_seeds_of_the_same_ontology_raise_a_seed_in_the_logistic_model() -> None:
    """The logistic model weighs the support alone. The trees read it together with the
    namespace's share of the text's seeds, which says the same thing more sharply; for a
    seed whose namespace holds every seed the support adds nothing to them (session 32's
    refit), and the text's main namespace over a lone one is checked below."""
    model = confidence_model(ConfidenceModelKind.LOGISTIC)
    alone = features_of(seed("x"), support=1)
    among = features_of(seed("x"), support=8)
    assert confidence(among, model) > confidence(alone, model)


def test_a_seed_counts_its_namespace_share_and_the_namespaces_holding_more() -> None:
    obo = [seed(f"http://purl.obolibrary.org/obo/GO_000{i}") for i in range(3)]
    unit = seed("http://qudt.org/vocab/unit/MilliM", ontology="q")
    kind = seed("http://qudt.org/vocab/quantitykind/Length", ontology="q")
    rows = seed_features([*obo, unit, kind])
    assert [round(r["namespace_share"], 2) for r in rows] == [0.6, 0.6, 0.6, 0.2, 0.2]
    # The two QUDT namespaces hold one seed each: both rank after the OBO one, together.
    assert [r["namespace_rank"] for r in rows] == [0.0, 0.0, 0.0, 1.0, 1.0]
    assert seed_features([unit])[0]["namespace_share"] == 1.0


def test_the_trees_rank_a_seed_of_the_texts_main_namespace_over_a_lone_one() -> None:
    """A text about mouse genetics draws most seeds from OBO: a schema.org class named
    as surely is likelier a word's other sense (RESULTS, session 27)."""
    trees = confidence_model(ConfidenceModelKind.TREES)
    # Six OBO ontologies (GO, CL, SO...): each seed's own ontology supports it alone.
    obo = [seed(f"http://purl.obolibrary.org/obo/GO_000{i}", ontology=f"h{i}")
           for i in range(6)]
    lone = seed("https://schema.org/Person", ontology="s")
    rows = seed_features([*obo, lone])
    main, other = trees.confidences([rows[0], rows[-1]])
    assert main > other


def test_a_seed_reads_how_common_its_strongest_mentions_words_are() -> None:
    weak = mention("large", strength=0.5)
    strong = mention("apoptosis", strength=1.2)
    row = features_of(seed("x", mentions=[weak, strong]), support=1)
    assert row["commonness"] == commonness("apoptosis")
    assert 0 < row["commonness"] < commonness("large")
    assert features_of(seed("x", mentions=[]), support=1)["commonness"] == 0.0


def test_a_seed_reads_how_common_the_name_its_strongest_mention_matched_is() -> None:
    """The text's "cortical" matched the catalog's name "cortex": the model reads both
    words' commonness, the text's and the name's (RESULTS, session 32)."""
    derived = {**mention("cortical", strength=1.1), "form": "cortex", "derived": True}
    row = features_of(seed("x", mentions=[mention("large", strength=0.5), derived]),
                      support=1)
    assert row["commonness"] == commonness("cortical")
    assert row["form_commonness"] == commonness("cortex")
    assert row["form_commonness"] != row["commonness"]
    assert features_of(seed("x", mentions=[]), support=1)["form_commonness"] == 0.0


def test_the_trees_rank_a_term_an_everyday_word_names_after_one_a_rare_word_names() -> None:
    """Two seeds alike in every other signal: the one "large" names is likelier a word's
    everyday sense than the one "apoptosis" names (RESULTS, session 31)."""
    trees = confidence_model(ConfidenceModelKind.TREES)
    rows = seed_features([seed("x:large", mentions=[mention("large")]),
                          seed("x:apoptosis", mentions=[mention("apoptosis")])])
    everyday, rare = trees.confidences(rows)
    assert rare > everyday


def test_the_setting_is_on_by_default() -> None:
    assert SeedSettings().confidence_order


def test_the_logistic_model_reads_the_fitted_weights_by_default() -> None:
    assert LogisticModel().weights is WEIGHTS
