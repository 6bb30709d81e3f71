"""Sense picking breaks equal fits by IRI: the same answer in every process."""

from __future__ import annotations

import numpy as np

from ontoretrieve.index.mention_match import Mention
from ontoretrieve.query.mention_lane import pick_senses
from ontoretrieve.query.windows import Window


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
