"""Sense picking breaks equal fits by IRI: the same answer in every process."""

from __future__ import annotations

import numpy as np

from ontoretrieve.index.mention_match import Mention
from ontoretrieve.query.mention_lane import pick_senses
from ontoretrieve.query.windows import Window
from ontoretrieve.settings.groups import SenseForms


def test_terms_with_one_text_in_many_ontologies_keep_the_first_iri() -> None:
    # Text2KGBench declares "Division" in many ontologies with one text: equal vectors.
    iris = [f"http://x/ont_{n}/concepts#Division" for n in (7, 3, 12, 1, 9, 5, 11, 2)]
    vectors = {iri: np.array([0.6, 0.8]) for iri in iris}
    for order in (iris, list(reversed(iris)), sorted(iris)):
        mentions = [Mention(i, "h" + i[-12:], 0, 8, "division", "Division", "division",
                            "label", False, len(iris)) for i in order]
        picked = pick_senses(mentions, [Window(0, "division", 0, 8)], [np.array([1.0, 0.0])],
                             vectors, keep=1)
        assert [m.iri for m in picked if not m.outranked] == [min(iris)]


def test_an_elliptic_reading_without_cohesion_takes_no_sense_from_a_name() -> None:
    # "plasma" names blood plasma and plasma (physics); read elliptically it also names
    # plasma membrane, which fits the window best, but the text never writes "membrane".
    def named(iri: str, kind: str = "label", cohesive: bool = True) -> Mention:
        return Mention(iri, "h", 0, 6, "plasma", "plasma", " plasma ", kind, True, 3,
                       cohesive=cohesive)

    vectors = {"x:membrane": np.array([1.0, 0.0]), "x:blood": np.array([0.8, 0.6]),
               "x:physics": np.array([0.0, 1.0])}
    window = [Window(0, "plasma", 0, 6)]

    def kept(membrane_cohesive: bool) -> list[str]:
        mentions = [named("x:membrane", "elliptic", membrane_cohesive), named("x:blood"),
                    named("x:physics")]
        picked = pick_senses(mentions, window, [np.array([1.0, 0.0])], vectors, keep=1)
        return [m.iri for m in picked if not m.outranked]

    assert kept(membrane_cohesive=False) == ["x:membrane", "x:blood"]
    assert kept(membrane_cohesive=True) == ["x:membrane"]


def _eye_span() -> tuple[list[Mention], dict[str, np.ndarray]]:
    """"eye" is the label of the eye and a related synonym of the eyeball and the camera-type
    eye; the passage's vector is nearer both of those."""
    kinds = {"x:eye": "label", "x:eyeball": "related", "x:camera_eye": "related"}
    mentions = [Mention(iri, "h", 4, 7, "eye", "eye", " eye ", kind, True, 3)
                for iri, kind in kinds.items()]
    vectors = {"x:eye": np.array([0.0, 1.0]), "x:eyeball": np.array([1.0, 0.0]),
               "x:camera_eye": np.array([0.9, 0.1])}
    return mentions, vectors


def _kept(by_form: SenseForms, keep: int) -> list[str]:
    mentions, vectors = _eye_span()
    picked = pick_senses(mentions, [Window(0, "the eye", 0, 7)], [np.array([1.0, 0.0])],
                         vectors, keep=keep, by_form=by_form)
    return sorted(m.iri for m in picked if not m.outranked)


def test_by_fit_alone_a_looser_form_can_outrank_the_term_the_span_names() -> None:
    assert _kept(SenseForms.FIT, keep=2) == ["x:camera_eye", "x:eyeball"]


def test_names_first_keeps_the_term_named_by_its_label_then_the_nearest_looser_one() -> None:
    assert _kept(SenseForms.NAMES_FIRST, keep=2) == ["x:eye", "x:eyeball"]
    assert _kept(SenseForms.NAMES_FIRST, keep=1) == ["x:eye"]


def test_names_only_outranks_every_looser_form_when_a_name_is_there() -> None:
    assert _kept(SenseForms.NAMES_ONLY, keep=2) == ["x:eye"]


def test_among_looser_forms_alone_the_fit_still_chooses() -> None:
    mentions, vectors = _eye_span()
    loose = [m for m in mentions if m.kind != "label"] + [
        Mention("x:optic", "h", 4, 7, "eye", "eye", " eye ", "broad", True, 3)]
    vectors["x:optic"] = np.array([0.0, 1.0])
    for by_form in SenseForms:
        picked = pick_senses(loose, [Window(0, "the eye", 0, 7)], [np.array([1.0, 0.0])],
                             vectors, keep=2, by_form=by_form)
        assert sorted(m.iri for m in picked if not m.outranked) == ["x:camera_eye",
                                                                     "x:eyeball"]


def test_the_default_weighs_the_form_and_an_unknown_choice_is_refused_by_name() -> None:
    import pytest
    from pydantic import ValidationError

    from ontoretrieve.settings.groups import MentionSettings

    assert MentionSettings().sense_forms is SenseForms.NAMES_FIRST
    with pytest.raises(ValidationError, match="sense_forms"):
        MentionSettings(sense_forms="closest")  # type: ignore[arg-type]
