"""Topic fit: a mention whose term does not fit the passage around it is a misfit."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ontoretrieve.backends.vector_index import Lane
from ontoretrieve.index.mention_match import Mention
from ontoretrieve.query.fusion import LaneEvidence
from ontoretrieve.query.mention_lane import flag_misfits
from ontoretrieve.query.selection import (
    Seed,
    SeedOrigin,
    evidence_first,
    evidence_tier,
    mark_misfits,
    misfits_only,
)
from ontoretrieve.query.windows import Window
from ontoretrieve.settings.groups import MentionSettings, SeedSettings

TEXT = "Gene activity rose. The source had an activity of 5 Bq"
WINDOWS = [Window(0, TEXT[:19], 0, 19), Window(1, TEXT[20:], 20, len(TEXT))]
BIOLOGY, PHYSICS = np.array([1.0, 0.0]), np.array([0.0, 1.0])
WINDOW_VECTORS = [BIOLOGY, PHYSICS]


def mention(iri: str, start: int, end: int, *, after_number: bool = False) -> Mention:
    """A label mention; the ontology is the IRI's prefix."""
    return Mention(iri, iri.split(":")[0], start, end, TEXT[start:end], TEXT[start:end],
                   TEXT[start:end], "label", True, 1, after_number=after_number)


def test_each_mention_is_judged_by_the_window_it_starts_in() -> None:
    # "activity" twice: in the biology sentence radioactivity is a misfit, in the physics
    # one it fits; the enzyme sense the other way round.
    mentions = [mention("q:radioactivity", 5, 13), mention("q:radioactivity", 38, 46),
                mention("b:enzyme_activity", 5, 13), mention("b:enzyme_activity", 38, 46)]
    vectors = {"q:radioactivity": PHYSICS, "b:enzyme_activity": np.array([0.9, 0.1])}
    fitted = flag_misfits(mentions, WINDOWS, WINDOW_VECTORS, vectors, floor=0.2)
    assert [(m.iri, m.start, m.misfit) for m in fitted] == [
        ("q:radioactivity", 5, True), ("q:radioactivity", 38, False),
        ("b:enzyme_activity", 5, False), ("b:enzyme_activity", 38, True)]


def test_an_ontology_the_text_is_about_excuses_its_generic_terms() -> None:
    # "Gene" fits the biology sentence; "activity" (a process in the same ontology) does
    # not fit it, but the text is about that ontology: no misfit. The physics ontology's
    # term has no fitting company.
    mentions = [mention("b:gene", 0, 4), mention("b:activity", 5, 13),
                mention("q:radioactivity", 5, 13)]
    vectors = {"b:gene": BIOLOGY, "b:activity": PHYSICS, "q:radioactivity": PHYSICS}
    fitted = flag_misfits(mentions, WINDOWS, WINDOW_VECTORS, vectors, floor=0.2)
    assert [m.misfit for m in fitted] == [False, False, True]
    alone = flag_misfits(mentions[1:], WINDOWS, WINDOW_VECTORS, vectors, floor=0.2)
    assert [m.misfit for m in alone] == [True, True]


def test_units_after_numbers_terms_without_vectors_and_floor_zero_are_left_alone() -> None:
    unit = mention("q:becquerel", 52, 54, after_number=True)
    unknown = mention("b:no_vector", 0, 4)
    vectors = {"q:becquerel": BIOLOGY}  # a unit's core text rarely resembles its sentence
    fitted = flag_misfits([unit, unknown], WINDOWS, WINDOW_VECTORS, vectors, floor=0.5)
    assert not any(m.misfit for m in fitted)
    misfit = mention("x:radioactivity", 5, 13)
    assert not flag_misfits([misfit], WINDOWS, WINDOW_VECTORS,
                               {"x:radioactivity": PHYSICS}, floor=0.0)[0].misfit


def test_a_misfit_keeps_its_weight_of_strength() -> None:
    def fitted(weight: float) -> Mention:
        return flag_misfits([mention("x:radioactivity", 5, 13)], WINDOWS, WINDOW_VECTORS,
                               {"x:radioactivity": PHYSICS}, floor=0.1, weight=weight)[0]

    assert fitted(1.0).misfit and fitted(1.0).strength == 1.0
    assert fitted(0.1).strength < SeedSettings().mention_min_strength  # too weak alone


def seed(iri: str, *evidence: LaneEvidence, notes: tuple[str, ...] = ()) -> Seed:
    return Seed(iri, 0.5, SeedOrigin.RETRIEVED, {}, evidence=tuple((0, e) for e in evidence),
                notes=notes)


def test_a_term_named_only_off_the_topic_leaves_the_first_evidence_tier() -> None:
    named = LaneEvidence(Lane.MENTION, 1, 1.0)
    mentions = [replace(mention("x:radioactivity", 5, 13), misfit=True),
                mention("x:gene", 0, 4), replace(mention("x:gene", 30, 34), misfit=True)]
    misfits = misfits_only(mentions)
    assert misfits == {"x:radioactivity"}  # one fitting mention is enough for "x:gene"
    seeds = mark_misfits([seed("x:radioactivity", named), seed("x:gene", named),
                          seed("x:agreed", named, LaneEvidence(Lane.CORE, 1, 0.7))], misfits)
    assert [evidence_tier(s, SeedSettings()) for s in seeds] == [2, 0, 0]
    agreed = mark_misfits([seed("x:agreed", named, LaneEvidence(Lane.CORE, 1, 0.7))],
                          frozenset({"x:agreed"}))[0]
    assert evidence_tier(agreed, SeedSettings()) == 1  # the lanes still agree on it
    assert [s.iri for s in evidence_first(seeds, SeedSettings())] == [
        "x:gene", "x:agreed", "x:radioactivity"]


def test_by_default_fit_is_judged_and_a_misfit_label_cannot_keep_its_term_alone() -> None:
    defaults = MentionSettings()
    assert defaults.fit_floor > 0
    label_at_most = 1.0 + 0.15 * 3  # a four-word label's strength
    assert defaults.misfit_weight * label_at_most < SeedSettings().mention_min_strength


def test_a_unit_after_a_number_shows_its_ontology_is_on_the_topic_without_a_vector() -> None:
    # "5 Bq": the quantities ontology is what the sentence measures, so its "activity"
    # is excused; the caller fetched no vector for the unit (it is never judged).
    mentions = [mention("q:becquerel", 52, 54, after_number=True),
                mention("q:radioactivity", 5, 13)]
    fitted = flag_misfits(mentions, WINDOWS, WINDOW_VECTORS, {"q:radioactivity": PHYSICS},
                          floor=0.2)
    assert [m.misfit for m in fitted] == [False, False]
