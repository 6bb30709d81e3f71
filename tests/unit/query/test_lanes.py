"""A lane whose fusion weight is 0 is not searched, and nothing is embedded without dense lanes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ontoretrieve.backends.vector_index import Lane, LaneHit
from ontoretrieve.query.lanes import search_lanes
from ontoretrieve.query.windows import Window
from ontoretrieve.settings.groups import FusionSettings


class Recorder:
    """Embedder and index at once: records what was asked, answers one hit per query."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append("dense")
        return [[1.0, 0.0] for _ in texts]

    def sparse_queries(self, texts: Sequence[str]) -> list[Any]:
        self.calls.append("sparse")
        return [object() for _ in texts]

    def search(self, lane: Lane, queries: Sequence[Any], limit: int,
               ontology_hashes: Sequence[str] | None = None) -> list[list[LaneHit]]:
        self.calls.append(lane.value)
        return [[LaneHit(point_id="p", score=1.0, payload={"iri": "http://x/a"})]
                for _ in queries]


WINDOWS = [Window(0, "five millivolts", 0, 15), Window(1, "for days", 16, 24)]


def test_zero_weight_lanes_are_not_searched_or_embedded() -> None:
    recorder = Recorder()
    result = search_lanes(recorder, recorder, WINDOWS,  # type: ignore[arg-type]
                          FusionSettings(core_weight=0, neighborhood_weight=0))
    assert recorder.calls == ["sparse", "bm25"]
    assert result.hits_per_lane == {"core": 0, "neighborhood": 0, "bm25": 2}
    assert all(window[Lane.CORE] == [] for window in result.per_window)


def test_all_lanes_by_default_and_dense_only_without_bm25() -> None:
    recorder = Recorder()
    search_lanes(recorder, recorder, WINDOWS, FusionSettings())  # type: ignore[arg-type]
    assert recorder.calls == ["dense", "sparse", "core", "neighborhood", "bm25"]
    recorder.calls.clear()
    search_lanes(recorder, recorder, WINDOWS,  # type: ignore[arg-type]
                 FusionSettings(bm25_weight=0))
    assert recorder.calls == ["dense", "core", "neighborhood"]
