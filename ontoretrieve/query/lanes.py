"""Search every window in the three lanes, one batch per lane.

The dense query vector of a window serves both dense lanes (core and
neighborhood), as in the reference; the sparse lane gets the window's BM25
query vector and its own depth (``bm25_top_k``, else ``top_k``), without its
number-only tokens unless ``bm25_query_numbers``. The mention lane is not
searched here (see ``mention_lane``). A lane whose
fusion weight is 0 is not searched at all (and with both dense weights at 0
nothing is embedded), so the lane ablations of the benchmarks measure the
engine without that lane rather than with a lane whose hits weigh nothing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ontoretrieve.backends.vector_index import (
    VECTOR_LANES,
    DenseVector,
    Lane,
    LaneHit,
    VectorIndex,
)
from ontoretrieve.index.embed import Embedder
from ontoretrieve.query.batch import NOTHING_PREPARED, PreparedQueries
from ontoretrieve.query.fusion import lane_weights
from ontoretrieve.query.windows import Window
from ontoretrieve.settings.groups import FusionSettings

__all__ = ["LaneResults", "active_lanes", "bm25_texts", "lane_depths", "search_lanes",
           "without_numbers"]

_NUMBER_TOKEN = re.compile(r"(?<![\w.])[-+]?\d+(?:[.,:/\-\u2013]\d+)*(?![\w.])")


@dataclass(frozen=True, slots=True)
class LaneResults:
    per_window: list[dict[Lane, list[LaneHit]]]
    hits_per_lane: dict[str, int]
    embed_seconds: float
    search_seconds: float
    dense_queries: list[DenseVector] = field(default_factory=list)
    """The windows' dense query vectors (empty when no dense lane was searched)."""


def search_lanes(index: VectorIndex, embedder: Embedder, windows: Sequence[Window],
                 settings: FusionSettings, scope: Sequence[str] | None = None,
                 prepared: PreparedQueries = NOTHING_PREPARED) -> LaneResults:
    """Each window's hits in each lane, best first (only ontology versions ``scope``
    names, when given); what a batch ``prepared`` is taken from it."""
    if not windows:
        return LaneResults([], {lane.value: 0 for lane in VECTOR_LANES}, 0.0, 0.0)
    texts = [w.text for w in windows]
    active = active_lanes(settings)
    started = time.perf_counter()
    dense = prepared.dense_queries(embedder, texts) if active - {Lane.BM25} else []
    sparse_texts = bm25_texts(texts, settings)
    sparse = prepared.sparse_queries(embedder, sparse_texts) if Lane.BM25 in active else []
    embedded = time.perf_counter()
    depth = lane_depths(settings)
    by_lane: dict[Lane, list[list[LaneHit]]] = {
        lane: prepared.search(index, lane, sparse_texts if lane is Lane.BM25 else texts,
                              sparse if lane is Lane.BM25 else dense, depth[lane], scope)
        if lane in active else [[] for _ in windows] for lane in VECTOR_LANES}
    searched = time.perf_counter()
    per_window = [{lane: by_lane[lane][i] for lane in VECTOR_LANES}
                  for i in range(len(windows))]
    counts = {lane.value: sum(len(hits) for hits in by_lane[lane]) for lane in VECTOR_LANES}
    return LaneResults(per_window, counts, embedded - started, searched - embedded, dense)


def active_lanes(settings: FusionSettings) -> set[Lane]:
    """The vector lanes searched: those with a fusion weight above 0."""
    return {lane for lane, weight in lane_weights(settings).items()
            if weight > 0 and lane in VECTOR_LANES}


def lane_depths(settings: FusionSettings) -> dict[Lane, int]:
    """Hits asked of each vector lane per window."""
    return {Lane.CORE: settings.top_k, Lane.NEIGHBORHOOD: settings.top_k,
            Lane.BM25: settings.bm25_top_k or settings.top_k}


def bm25_texts(texts: Sequence[str], settings: FusionSettings) -> list[str]:
    """The BM25 query texts of windows (number-only tokens out unless kept)."""
    return list(texts) if settings.bm25_query_numbers else [without_numbers(t) for t in texts]


def without_numbers(text: str) -> str:
    """The text without number-only tokens, for the BM25 query.

    A number names no term, but as a BM25 token it matches numbers inside
    identifiers ("15" of "4-15 days" ranked ``CAL_15DEG_C`` first). Numbers
    glued to letters ("5mV", "CO2") stay.

    >>> without_numbers("a 5 mV signal for 4-15 days, 3.5 h, CO2 at 5mV")
    'a mV signal for days, h, CO2 at 5mV'
    """
    return " ".join(_NUMBER_TOKEN.sub(" ", text).split())
