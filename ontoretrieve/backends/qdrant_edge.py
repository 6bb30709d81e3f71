"""The default vector index: Qdrant Edge, Qdrant's engine in-process, on disk.

Nothing to start; the shard lives under the data directory. Searches of one
lane for all windows of a unit run as one ``query_batch``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
import qdrant_edge as qe

from ontoretrieve.backends.vector_index import (
    HIT_FIELDS,
    KEYWORD_FIELDS,
    TEXT_FIELDS,
    DenseVector,
    IndexPoint,
    Lane,
    LaneHit,
    SparseVector,
    StoredVectors,
    as_payload,
    keyword_conditions,
    named_vectors,
    query_vector,
    ranked_hits,
    stored_by_key,
    stored_from_named,
)
from ontoretrieve.errors import VectorIndexError
from ontoretrieve.records import AtomPayload

__all__ = ["EdgeIndex"]

_DISTANCES = {"Cosine": qe.Distance.Cosine, "Dot": qe.Distance.Dot,
              "Euclid": qe.Distance.Euclid}


class EdgeIndex:
    """``VectorIndex`` over one Qdrant Edge shard."""

    def __init__(self, path: Path, dimension: int, distance: str = "Cosine", *,
                 search_threads: int | None = None,
                 on_close: Callable[[], None] | None = None) -> None:
        self.path = path
        self._on_close = on_close
        """Set on a reader's view of a replica (``edge_replica``): it never flushes (the
        segments are shared) and is removed once closed."""
        try:
            if (path / "edge_config.json").exists() or _has_segments(path):
                # Loading with the expected config makes Edge check the vector
                # sizes, distance and sparse modifier against the stored shard.
                self._shard = qe.EdgeShard.load(
                    str(path), self._config(dimension, distance, search_threads))
            else:
                path.mkdir(parents=True, exist_ok=True)
                self._shard = qe.EdgeShard.create(
                    str(path), self._config(dimension, distance, search_threads))
                for field in KEYWORD_FIELDS:
                    self._shard.update(qe.UpdateOperation.create_field_index(
                        field, qe.PayloadSchemaType.Keyword))
        except VectorIndexError:
            raise
        except Exception as exc:  # the binding raises plain Exception subclasses
            hint = (" (another process holds it open)" if "WouldBlock" in str(exc) else
                    "; rebuild with `ontoretrieve index --rebuild` if its layout changed")
            raise VectorIndexError(
                f"cannot open the Qdrant Edge shard at {path}: {exc}{hint}") from exc

    @property
    def description(self) -> str:
        return f"qdrant-edge:{self.path}"

    @staticmethod
    def _config(dimension: int, distance: str, search_threads: int | None = None
                ) -> qe.EdgeConfig:
        dense = qe.EdgeVectorParams(size=dimension, distance=_DISTANCES[distance])
        return qe.EdgeConfig(
            vectors={Lane.CORE.value: dense, Lane.NEIGHBORHOOD.value: dense},
            sparse_vectors={Lane.BM25.value: qe.EdgeSparseVectorParams(
                modifier=qe.Modifier.Idf)},
            # Segments indexed as a build goes (IndexSync optimizes every
            # OPTIMIZE_EVERY atoms) stay apart up to this many, so no optimize ever
            # builds the HNSW graphs of the whole shard at once: that one build was
            # the peak of a 100k-atom index (benchmarks/RESULTS.md).
            optimizers=qe.EdgeOptimizersConfig(default_segment_number=_SEGMENTS,
                                               max_segment_size=_SEGMENT_KB),
            # Edge keeps the last value it was given in the shard's config and takes it
            # when given None: 0 ("Edge's own choice, by cores") is said explicitly so a
            # worker's share never outlives the worker.
            max_search_threads=search_threads or 0,
        )

    def upsert(self, points: Sequence[IndexPoint]) -> None:
        if not points:
            return
        self._shard.update(qe.UpdateOperation.upsert_points(
            [qe.Point(p.point_id, named_vectors(p.vectors, qe.SparseVector), dict(p.payload))
             for p in points]))

    def delete_ontology_hashes(self, hashes: Sequence[str]) -> None:
        if hashes:
            self._shard.update(qe.UpdateOperation.delete_points_by_filter(
                _any_of("ontology_hash", hashes)))

    def stored_vectors(self, text_hashes: Sequence[str]) -> dict[str, StoredVectors]:
        def fetch(chunk: list[str]) -> Iterator[tuple[str, Any]]:
            records, _ = self._shard.scroll(qe.ScrollRequest(
                limit=len(chunk) * 4, filter=_any_of("text_hash", chunk),
                with_payload=["text_hash"], with_vector=True))
            return (((r.payload or {})["text_hash"], r.vector) for r in records)

        return stored_by_key(text_hashes, fetch)

    def scroll_vectors(self, batch: int = 512
                       ) -> Iterator[list[tuple[AtomPayload, StoredVectors]]]:
        offset = None
        while True:
            records, offset = self._shard.scroll(qe.ScrollRequest(
                offset=offset, limit=batch, with_payload=TEXT_FIELDS, with_vector=True))
            # with_vector=True on a shard of named vectors: each record's vector is a mapping
            yield [(as_payload(r.payload), stored_from_named(cast(dict[str, Any], r.vector)))
                   for r in records]
            if offset is None:
                break

    def search(self, lane: Lane, queries: Sequence[DenseVector] | Sequence[SparseVector],
               limit: int, ontology_hashes: Sequence[str] | None = None,
               hidden: Collection[str] = ()) -> list[list[LaneHit]]:
        if not queries:
            return []
        scope = _scope(None, (), ontology_hashes, hidden)
        requests = [
            qe.QueryRequest(limit=limit, query=qe.Query.Nearest(query_vector(q, qe.SparseVector),
                                                                using=lane.value),
                            filter=scope, with_payload=HIT_FIELDS)
            for q in queries
        ]
        results = self._shard.query_batch(qe.QueryBatchRequest(requests))
        return [ranked_hits(hits) for hits in results]

    def matching(self, field: str, values: Sequence[str], limit: int = 256,
                 ontology_hashes: Sequence[str] | None = None,
                 hidden: Collection[str] = ()) -> list[AtomPayload]:
        if not values:
            return []
        records, _ = self._shard.scroll(qe.ScrollRequest(
            limit=limit, filter=_scope(field, values, ontology_hashes, hidden),
            with_payload=True, with_vector=False))
        return [as_payload(r.payload) for r in records]

    def core_vectors(self, iris: Sequence[str], ontology_hashes: Sequence[str] | None = None,
                     hidden: Collection[str] = ()) -> dict[str, DenseVector]:
        if not iris:
            return {}
        records, _ = self._shard.scroll(qe.ScrollRequest(
            limit=len(iris) * 4, filter=_scope("iri", iris, ontology_hashes, hidden),
            with_payload=["iri"],
            with_vector=[Lane.CORE.value]))
        found: dict[str, DenseVector] = {}
        for record in records:
            vector: Any = record.vector
            found[str((record.payload or {})["iri"])] = np.asarray(vector[Lane.CORE.value],
                                                                   dtype=np.float32)
        return found

    def count(self, ontology_hash: str | None = None) -> int:
        return self.count_points([ontology_hash] if ontology_hash else None)

    def count_points(self, ontology_hashes: Sequence[str] | None,
                     hidden: Collection[str] = ()) -> int:
        condition = _scope(None, (), ontology_hashes, hidden)
        return int(self._shard.count(qe.CountRequest(filter=condition, exact=True)))

    def flush(self) -> None:
        self._shard.flush()

    def optimize(self) -> None:
        """Build the HNSW graphs after a bulk load (searches are exact until then)."""
        self._shard.optimize()

    def close(self) -> None:
        if self._on_close is None:
            self._shard.flush()
        self._shard.close()
        if self._on_close is not None:
            self._on_close()


_SEGMENTS = 32
"""Segments the optimizer keeps before it merges any."""
_SEGMENT_KB = 400_000
"""Largest segment a merge may make (the biggest bench ontology, GO, is about 330 MB)."""


def _has_segments(path: Path) -> bool:
    return (path / "segments").is_dir() and any((path / "segments").iterdir())


def _any_of(key: str, values: Sequence[str]) -> qe.Filter:
    """``key`` is one of ``values``."""
    return qe.Filter(must=[qe.FieldCondition(key=key, match=qe.MatchAny(any=list(values)))])


def _scope(key: str | None, values: Sequence[str], ontology_hashes: Sequence[str] | None,
           hidden: Collection[str]) -> qe.Filter | None:
    """``key`` is one of ``values`` (when given), the point is stored under one of
    ``ontology_hashes`` (when given) and its id is not in ``hidden``; None: no condition."""
    must: list[Any] = [qe.FieldCondition(key=field, match=qe.MatchAny(any=allowed))
                       for field, allowed in keyword_conditions(key, values, ontology_hashes)]
    must_not: list[Any] = [qe.HasIdCondition(point_ids=set(hidden))] if hidden else []
    if not must and not must_not:
        return None
    return qe.Filter(must=must or None, must_not=must_not or None)
