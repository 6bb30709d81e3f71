"""Weighted reciprocal rank fusion of the lanes, per window.

Pure. A hit at rank r (1-based) in a lane adds weight / (constant + r) to the
term's fused score; the weights are normalized to sum to 1, so only their
ratios matter, and an atom ranked first in every lane scores the best
attainable 1 / (1 + constant). Raw lane scores (cosine, BM25) only break ties,
so their scales never compete.

>>> from ontoretrieve.settings.groups import FusionSettings
>>> weights = lane_weights(FusionSettings(mention_weight=0))  # the reference's three lanes
>>> round(rrf_contribution(weights["core"], 1, 0.0), 2)
0.42
>>> round(rrf_contribution(weights["bm25"], 1, 0.0), 2)
0.48
>>> round(rrf_contribution(weights["neighborhood"], 1, 0.0), 2)
0.09
>>> round(lane_weights(FusionSettings())["mention"], 2)
0.49
>>> best_attainable(FusionSettings())
1.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ontoretrieve.backends.vector_index import Lane, LaneHit
from ontoretrieve.records import AtomPayload
from ontoretrieve.settings.groups import FusionSettings

__all__ = [
    "FusedHit",
    "LaneEvidence",
    "best_attainable",
    "fuse_window",
    "lane_weights",
    "rrf_contribution",
]


@dataclass(frozen=True, slots=True)
class LaneEvidence:
    """Where one lane ranked a term in one window."""

    lane: Lane
    rank: int
    raw_score: float


@dataclass(frozen=True, slots=True)
class FusedHit:
    """One term's fused score in one window, with the evidence behind it."""

    iri: str
    score: float
    payload: AtomPayload
    """Of the best-ranked point for this term (ontology, texts, role, ...)."""
    window: int
    evidence: tuple[LaneEvidence, ...] = field(default=())

    def tie_break(self) -> tuple[float, ...]:
        """Raw lane scores, core first: used only between equal fused scores (a lane
        twice in the evidence counts its last; computed for every fused hit of every
        window, hence a list by position rather than a dict by lane)."""
        raw = [_NO_SCORE] * len(_TIE_ORDER)
        for e in self.evidence:
            raw[_TIE_ORDER[e.lane]] = e.raw_score
        return tuple(raw)


_TIE_ORDER = {Lane.CORE: 0, Lane.BM25: 1, Lane.NEIGHBORHOOD: 2, Lane.MENTION: 3}
"""Where each lane's raw score sits in a tie break."""
_NO_SCORE = float("-inf")


def lane_weights(settings: FusionSettings) -> dict[Lane, float]:
    """The four weights, normalized to sum to 1."""
    raw = {Lane.CORE: settings.core_weight, Lane.NEIGHBORHOOD: settings.neighborhood_weight,
           Lane.BM25: settings.bm25_weight, Lane.MENTION: settings.mention_weight}
    total = sum(raw.values())
    return {lane: weight / total for lane, weight in raw.items()}


def rrf_contribution(weight: float, rank: int, constant: float) -> float:
    """What a hit at ``rank`` (1-based) adds to a fused score."""
    return weight / (constant + rank)


def best_attainable(settings: FusionSettings) -> float:
    """The fused score of a term ranked first in every lane."""
    return 1.0 / (1.0 + settings.rank_constant)


def fuse_window(
    window: int,
    lanes: Mapping[Lane, Sequence[LaneHit]],
    settings: FusionSettings,
    *,
    skip: frozenset[str] = frozenset(),
) -> list[FusedHit]:
    """Fuse one window's lane results into a ranked list of terms, best first.

    With ``dedup_query_hits_by_iri`` (default) the hits of one term in one lane
    collapse to its best one before ranks are counted; ``skip`` drops IRIs
    (ontology headers) before ranking too, so they never take a rank.
    """
    weights = lane_weights(settings)
    scores: dict[str, float] = {}
    evidence: dict[str, list[LaneEvidence]] = {}
    payloads: dict[str, tuple[int, AtomPayload]] = {}
    for lane, hits in lanes.items():
        rank = 0
        seen: set[str] = set()
        for hit in hits:
            iri = hit.payload.get("iri", hit.point_id)
            if iri in skip or hit.payload.get("is_header"):
                continue
            if settings.dedup_query_hits_by_iri and iri in seen:
                continue
            seen.add(iri)
            rank += 1
            scores[iri] = scores.get(iri, 0.0) + rrf_contribution(weights[lane], rank,
                                                                  settings.rank_constant)
            evidence.setdefault(iri, []).append(LaneEvidence(lane, rank, hit.score))
            if iri not in payloads or rank < payloads[iri][0]:
                payloads[iri] = (rank, hit.payload)
    fused = [FusedHit(iri, score, payloads[iri][1], window, tuple(evidence[iri]))
             for iri, score in scores.items()]
    fused.sort(key=lambda h: (h.score, h.tie_break(), h.iri), reverse=True)
    return fused
