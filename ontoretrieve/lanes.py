"""Search every window in the three lanes, one batch per lane.

The dense query vector of a window serves both dense lanes (core and
neighborhood), as in the reference; the sparse lane gets the window's BM25
query vector and its own depth (``bm25_top_k``, else ``top_k``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from ontoretrieve.backends.vector_index import Lane, LaneHit, VectorIndex
from ontoretrieve.embed import Embedder
from ontoretrieve.settings_groups import FusionSettings
from ontoretrieve.windows import Window

__all__ = ["LaneResults", "search_lanes"]


@dataclass(frozen=True, slots=True)
class LaneResults:
    per_window: list[dict[Lane, list[LaneHit]]]
    hits_per_lane: dict[str, int]
    embed_seconds: float
    search_seconds: float


def search_lanes(index: VectorIndex, embedder: Embedder, windows: Sequence[Window],
                 settings: FusionSettings) -> LaneResults:
    """Each window's hits in each lane, best first."""
    if not windows:
        return LaneResults([], {lane.value: 0 for lane in Lane}, 0.0, 0.0)
    texts = [w.text for w in windows]
    started = time.perf_counter()
    dense = list(embedder.embed_queries(texts))
    sparse = embedder.sparse_queries(texts)
    embedded = time.perf_counter()
    by_lane = {
        Lane.CORE: index.search(Lane.CORE, dense, settings.top_k),
        Lane.NEIGHBORHOOD: index.search(Lane.NEIGHBORHOOD, dense, settings.top_k),
        Lane.BM25: index.search(Lane.BM25, sparse, settings.bm25_top_k or settings.top_k),
    }
    searched = time.perf_counter()
    per_window = [{lane: by_lane[lane][i] for lane in Lane} for i in range(len(windows))]
    counts = {lane.value: sum(len(hits) for hits in by_lane[lane]) for lane in Lane}
    return LaneResults(per_window, counts, embedded - started, searched - embedded)
