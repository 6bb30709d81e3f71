"""Weighted reciprocal rank fusion: retrieval.md's worked numbers and properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ontoretrieve.backends.vector_index import Lane, LaneHit
from ontoretrieve.query.fusion import best_attainable, fuse_window
from ontoretrieve.settings.groups import FusionSettings

REFERENCE = FusionSettings(mention_weight=0)
"""The reference's three lanes, whose worked numbers these tests check."""


def hit(iri: str, score: float = 0.5, **payload: object) -> LaneHit:
    return LaneHit(iri, score, {"iri": iri, **payload})


@pytest.mark.parametrize(("lane", "expected"), [
    (Lane.CORE, 0.42), (Lane.BM25, 0.48), (Lane.NEIGHBORHOOD, 0.09)])
def test_rank_one_in_a_single_lane(lane: Lane, expected: float) -> None:
    (fused,) = fuse_window(0, {lane: [hit("a")]}, REFERENCE)
    assert fused.score == pytest.approx(expected, abs=0.005)


def test_the_mention_lane_takes_its_share_of_the_weights() -> None:
    (alone,) = fuse_window(0, {Lane.MENTION: [hit("a")]}, FusionSettings())
    assert alone.score == pytest.approx(1.6 / (0.7 + 0.15 + 0.8 + 1.6))
    (none,) = fuse_window(0, {Lane.MENTION: [hit("a")], Lane.CORE: [hit("a")]}, REFERENCE)
    assert none.score == pytest.approx(0.7 / 1.65)  # weight 0: a mention adds nothing


def test_rank_one_everywhere_is_the_best_attainable() -> None:
    lanes = {lane: [hit("a")] for lane in Lane}
    for constant in (0.0, 1.0, 60.0):
        config = FusionSettings(rank_constant=constant)
        assert fuse_window(0, lanes, config)[0].score == pytest.approx(best_attainable(config))


def test_rank_two_is_half_of_rank_one_at_constant_zero() -> None:
    fused = fuse_window(0, {Lane.CORE: [hit("a"), hit("b")]}, FusionSettings())
    assert fused[1].score == pytest.approx(fused[0].score / 2)


def test_only_weight_ratios_matter() -> None:
    lanes = {Lane.CORE: [hit("a"), hit("b")], Lane.BM25: [hit("b"), hit("a")]}
    one = fuse_window(0, lanes, FusionSettings())
    ten = fuse_window(0, lanes, FusionSettings(core_weight=7, neighborhood_weight=1.5,
                                               bm25_weight=8, mention_weight=16))
    assert [(h.iri, round(h.score, 9)) for h in one] == [(h.iri, round(h.score, 9)) for h in ten]


def test_raw_scores_only_break_ties() -> None:
    # Within a lane the rank decides, however the raw scores compare.
    ranked = fuse_window(0, {Lane.CORE: [hit("a", 0.2), hit("b", 0.9)]}, FusionSettings())
    assert [h.iri for h in ranked] == ["a", "b"]
    # Equal fused scores (equal weights, rank 1 in one lane each): raw scores decide.
    equal = FusionSettings(core_weight=1, neighborhood_weight=1, bm25_weight=1)
    tied = fuse_window(0, {Lane.NEIGHBORHOOD: [hit("n", 0.3)], Lane.CORE: [hit("c", 0.1)]},
                       equal)
    assert tied[0].score == tied[1].score
    assert [h.iri for h in tied] == ["c", "n"]  # a core raw score ranks before none


def test_hits_of_one_term_collapse_to_the_best_and_headers_take_no_rank() -> None:
    lanes = {Lane.CORE: [hit("h", is_header=True), hit("a"), hit("a"), hit("b")]}
    fused = fuse_window(0, lanes, FusionSettings())
    assert [h.iri for h in fused] == ["a", "b"]
    assert fused[1].evidence[0].rank == 2


@settings(max_examples=200, deadline=None)
@given(
    ranks=st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=8, unique=True),
                   min_size=4, max_size=4),
    weights=st.tuples(*[st.floats(0.01, 10) for _ in range(4)]),
    constant=st.floats(0, 100),
)
def test_fused_score_never_exceeds_the_best_attainable(
        ranks: list[list[str]], weights: tuple[float, float, float, float],
        constant: float) -> None:
    config = FusionSettings(core_weight=weights[0], neighborhood_weight=weights[1],
                            bm25_weight=weights[2], mention_weight=weights[3],
                            rank_constant=constant)
    lanes = {lane: [hit(i) for i in iris] for lane, iris in zip(Lane, ranks, strict=True)}
    for fused in fuse_window(0, lanes, config):
        assert fused.score <= best_attainable(config) + 1e-12
