"""Fit order: within a kind of evidence, the seeds that fit the text come first."""

from __future__ import annotations

import numpy as np

from ontoretrieve.backends.vector_index import Lane
from ontoretrieve.query.fusion import LaneEvidence
from ontoretrieve.query.seeder import SeedRetriever
from ontoretrieve.query.selection import Seed, SeedOrigin, evidence_tier, fit_first
from ontoretrieve.settings.groups import SeedCut, SeedSettings

SETTINGS = SeedSettings()
NAMED = LaneEvidence(Lane.MENTION, 1, 0.9)  # tier 0: a strong mention
AGREED = (LaneEvidence(Lane.CORE, 1, 0.8), LaneEvidence(Lane.BM25, 1, 0.8))  # tier 1
ALONE = LaneEvidence(Lane.CORE, 9, 0.3)  # tier 2: the score alone


def seed(iri: str, score: float, *evidence: LaneEvidence) -> Seed:
    return Seed(iri, score, SeedOrigin.RETRIEVED, {}, evidence=tuple((0, e) for e in evidence))


def order(seeds: list[Seed], fits: dict[str, float], anchored: frozenset[str] = frozenset()
          ) -> list[str]:
    return [s.iri for s in fit_first(seeds, fits, anchored, SETTINGS)]


def test_within_a_tier_the_seed_that_fits_comes_first_whatever_its_score() -> None:
    seeds = [seed("report", 0.9, NAMED), seed("gene", 0.4, NAMED)]
    assert order(seeds, {"report": 0.05, "gene": 0.6}) == ["gene", "report"]


def test_tiers_never_mix() -> None:
    # The best-fitting seed is only agreed on by the lanes, the one with the score alone
    # fits well too: each stays in its tier, the named ones reordered among themselves.
    seeds = [seed("alone", 0.9, ALONE), seed("agreed", 0.8, *AGREED),
             seed("off", 0.7, NAMED), seed("on", 0.6, NAMED)]
    assert [evidence_tier(s, SETTINGS) for s in seeds] == [2, 1, 0, 0]
    fits = {"alone": 0.9, "agreed": 0.95, "off": 0.1, "on": 0.5}
    assert order(seeds, fits) == ["on", "off", "agreed", "alone"]


def test_units_after_numbers_and_seeds_without_a_fit_keep_their_places() -> None:
    # The unit's core text ("millivolt ...") rarely resembles its sentence: it keeps the
    # place its score gave it, and so does a seed whose vector is missing.
    seeds = [seed("mV", 0.9, NAMED), seed("probe", 0.8, NAMED), seed("nofit", 0.7, NAMED),
             seed("signal", 0.6, NAMED)]
    fits = {"mV": 0.01, "probe": 0.2, "signal": 0.7}
    assert order(seeds, fits, frozenset({"mV"})) == ["mV", "signal", "nofit", "probe"]


def test_equal_fits_keep_the_score_order() -> None:
    seeds = [seed("a", 0.9, NAMED), seed("b", 0.8, NAMED), seed("c", 0.7, NAMED)]
    assert order(seeds, dict.fromkeys("abc", 0.3)) == ["a", "b", "c"]


class _Index:
    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors

    def core_vectors(self, iris: list[str]) -> dict[str, np.ndarray]:
        return {iri: self.vectors[iri] for iri in iris if iri in self.vectors}


def _ordered(settings: SeedSettings, *, scoped: bool = False) -> list[str]:
    retriever = SeedRetriever.__new__(SeedRetriever)
    retriever.settings = type("S", (), {"seeds": settings})()  # type: ignore[assignment]
    retriever.index = _Index({"report": np.array([0.0, 1.0]),  # type: ignore[assignment]
                              "gene": np.array([1.0, 0.0])})
    seeds = [seed("report", 0.9, NAMED), seed("gene", 0.4, NAMED)]
    windows = [np.array([0.6, 0.8]), np.array([1.0, 0.0])]  # best fits: 0.8 and 1.0
    ordered, fits = retriever._in_evidence_order(seeds, [], windows, scoped=scoped)
    assert set(fits) == ({"report", "gene"} if fits else set())
    return [s.iri for s in ordered]


def test_the_seeder_orders_by_the_best_window_unless_scoped_or_turned_off() -> None:
    assert _ordered(SeedSettings()) == ["gene", "report"]
    assert _ordered(SeedSettings(), scoped=True) == ["report", "gene"]  # its topic is given
    assert _ordered(SeedSettings(fit_order=False)) == ["report", "gene"]  # by score
    assert _ordered(SeedSettings(cut=SeedCut.CAP)) == ["report", "gene"]  # the reference


def test_of_two_terms_that_fit_alike_the_one_named_more_surely_comes_first() -> None:
    # A label (strength 1) against a related synonym shared by two terms (0.5 / 2):
    # the synonym's term fits a little better and still comes second.
    seeds = [seed("synonym", 0.9, NAMED), seed("label", 0.8, NAMED)]
    fits, strengths = {"synonym": 0.33, "label": 0.3}, {"synonym": 0.25, "label": 1.0}
    assert [s.iri for s in fit_first(seeds, fits, frozenset(), SETTINGS, strengths)] == [
        "label", "synonym"]
    # By fit alone, or when the fit is far apart, the fit decides.
    alone = SeedSettings(fit_order_strength=0)
    assert [s.iri for s in fit_first(seeds, fits, frozenset(), alone, strengths)] == [
        "synonym", "label"]
    assert [s.iri for s in fit_first(seeds, {"synonym": 0.7, "label": 0.3}, frozenset(),
                                     SETTINGS, strengths)] == ["synonym", "label"]


def test_the_seeder_weighs_a_fit_by_the_strongest_mention() -> None:
    from ontoretrieve.index.mention_match import Mention

    retriever = SeedRetriever.__new__(SeedRetriever)
    retriever.settings = type("S", (), {"seeds": SETTINGS})()  # type: ignore[assignment]
    retriever.index = _Index({"report": np.array([0.0, 1.0]),  # type: ignore[assignment]
                              "gene": np.array([1.0, 0.0])})
    seeds = [seed("report", 0.9, NAMED), seed("gene", 0.4, NAMED)]
    windows = [np.array([0.9, 0.95])]  # fits 0.95 (report) and 0.9 (gene)
    mentions = [Mention("gene", "h", 0, 4, "gene", "gene", " gene ", "label", True, 1),
                Mention("report", "h", 9, 15, "report", "record", " report ", "related",
                        True, 3),  # weak: a related synonym three terms share
                Mention("report", "h", 20, 26, "report", "record", " report ", "broad",
                        True, 3)]
    ordered, fits = retriever._in_evidence_order(seeds, mentions, windows, scoped=False)
    assert [s.iri for s in ordered] == ["gene", "report"]
    assert fits == {"report": 0.95, "gene": 0.9}  # the evidence keeps the cosine
