"""The default vector index: Qdrant Edge, Qdrant's engine in-process, on disk.

Nothing to start; the shard lives under the data directory. Searches of one
lane for all windows of a unit run as one ``query_batch``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

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
)
from ontoretrieve.errors import VectorIndexError
from ontoretrieve.records import AtomPayload

__all__ = ["EdgeIndex"]

_DISTANCES = {"Cosine": qe.Distance.Cosine, "Dot": qe.Distance.Dot,
              "Euclid": qe.Distance.Euclid}
_LOOKUP_CHUNK = 256


class EdgeIndex:
    """``VectorIndex`` over one Qdrant Edge shard."""

    def __init__(self, path: Path, dimension: int, distance: str = "Cosine") -> None:
        self.path = path
        try:
            if (path / "edge_config.json").exists() or _has_segments(path):
                # Loading with the expected config makes Edge check the vector
                # sizes, distance and sparse modifier against the stored shard.
                self._shard = qe.EdgeShard.load(str(path), self._config(dimension, distance))
            else:
                path.mkdir(parents=True, exist_ok=True)
                self._shard = qe.EdgeShard.create(str(path), self._config(dimension, distance))
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
    def _config(dimension: int, distance: str) -> qe.EdgeConfig:
        dense = qe.EdgeVectorParams(size=dimension, distance=_DISTANCES[distance])
        return qe.EdgeConfig(
            vectors={Lane.CORE.value: dense, Lane.NEIGHBORHOOD.value: dense},
            sparse_vectors={Lane.BM25.value: qe.EdgeSparseVectorParams(
                modifier=qe.Modifier.Idf)},
        )

    def upsert(self, points: Sequence[IndexPoint]) -> None:
        if not points:
            return
        self._shard.update(qe.UpdateOperation.upsert_points(
            [qe.Point(p.point_id, _vector(p.vectors), dict(p.payload)) for p in points]))

    def delete_ontology_hashes(self, hashes: Sequence[str]) -> None:
        if hashes:
            self._shard.update(qe.UpdateOperation.delete_points_by_filter(
                _any_of("ontology_hash", hashes)))

    def stored_vectors(self, text_hashes: Sequence[str]) -> dict[str, StoredVectors]:
        found: dict[str, StoredVectors] = {}
        unique = list(dict.fromkeys(text_hashes))
        for start in range(0, len(unique), _LOOKUP_CHUNK):
            chunk = unique[start:start + _LOOKUP_CHUNK]
            records, _ = self._shard.scroll(qe.ScrollRequest(
                limit=len(chunk) * 4, filter=_any_of("text_hash", chunk),
                with_payload=["text_hash"], with_vector=True))
            for record in records:
                key = (record.payload or {})["text_hash"]
                if key not in found:
                    found[key] = _stored(record.vector)
        return found

    def scroll_vectors(self, batch: int = 512
                       ) -> Iterator[list[tuple[AtomPayload, StoredVectors]]]:
        offset = None
        while True:
            records, offset = self._shard.scroll(qe.ScrollRequest(
                offset=offset, limit=batch, with_payload=TEXT_FIELDS, with_vector=True))
            yield [(as_payload(r.payload), _stored(r.vector)) for r in records]
            if offset is None:
                break

    def search(self, lane: Lane, queries: Sequence[DenseVector] | Sequence[SparseVector],
               limit: int, ontology_hashes: Sequence[str] | None = None
               ) -> list[list[LaneHit]]:
        if not queries:
            return []
        scope = None if ontology_hashes is None else _any_of("ontology_hash", ontology_hashes)
        requests = [
            qe.QueryRequest(limit=limit, query=qe.Query.Nearest(_query_vector(q),
                                                                using=lane.value),
                            filter=scope, with_payload=HIT_FIELDS)
            for q in queries
        ]
        results = self._shard.query_batch(qe.QueryBatchRequest(requests))
        return [[LaneHit(str(p.id), float(p.score), as_payload(p.payload)) for p in hits]
                for hits in results]

    def matching(self, field: str, values: Sequence[str], limit: int = 256,
                 ontology_hashes: Sequence[str] | None = None) -> list[AtomPayload]:
        if not values:
            return []
        records, _ = self._shard.scroll(qe.ScrollRequest(
            limit=limit, filter=_any_of(field, values, ontology_hashes),
            with_payload=True, with_vector=False))
        return [as_payload(r.payload) for r in records]

    def core_vectors(self, iris: Sequence[str]) -> dict[str, DenseVector]:
        if not iris:
            return {}
        records, _ = self._shard.scroll(qe.ScrollRequest(
            limit=len(iris) * 4, filter=_any_of("iri", iris), with_payload=["iri"],
            with_vector=[Lane.CORE.value]))
        found: dict[str, DenseVector] = {}
        for record in records:
            vector: Any = record.vector
            found[str((record.payload or {})["iri"])] = np.asarray(vector[Lane.CORE.value],
                                                                   dtype=np.float32)
        return found

    def count(self, ontology_hash: str | None = None) -> int:
        condition = _any_of("ontology_hash", [ontology_hash]) if ontology_hash else None
        return int(self._shard.count(qe.CountRequest(filter=condition, exact=True)))

    def flush(self) -> None:
        self._shard.flush()

    def optimize(self) -> None:
        """Build the HNSW graphs after a bulk load (searches are exact until then)."""
        self._shard.optimize()

    def close(self) -> None:
        self._shard.flush()
        self._shard.close()


def _has_segments(path: Path) -> bool:
    return (path / "segments").is_dir() and any((path / "segments").iterdir())


def _any_of(key: str, values: Sequence[str],
            ontology_hashes: Sequence[str] | None = None) -> qe.Filter:
    """``key`` is one of ``values`` (and the point of one of ``ontology_hashes``, if given)."""
    must: list[Any] = [qe.FieldCondition(key=key, match=qe.MatchAny(any=list(values)))]
    if ontology_hashes is not None:
        must.append(qe.FieldCondition(key="ontology_hash",
                                      match=qe.MatchAny(any=list(ontology_hashes))))
    return qe.Filter(must=must)


def _vector(vectors: StoredVectors) -> dict[str, Any]:
    named: dict[str, Any] = {
        Lane.CORE.value: vectors.core.tolist(),
        Lane.BM25.value: qe.SparseVector(list(vectors.bm25.indices), list(vectors.bm25.values)),
    }
    if vectors.neighborhood is not None:
        named[Lane.NEIGHBORHOOD.value] = vectors.neighborhood.tolist()
    return named


def _query_vector(query: DenseVector | SparseVector) -> Any:
    if isinstance(query, SparseVector):
        return qe.SparseVector(list(query.indices), list(query.values))
    return np.asarray(query, dtype=np.float32).tolist()


def _stored(vector: Any) -> StoredVectors:
    sparse = vector[Lane.BM25.value]
    neighborhood = vector.get(Lane.NEIGHBORHOOD.value)
    return StoredVectors(
        core=np.asarray(vector[Lane.CORE.value], dtype=np.float32),
        neighborhood=None if neighborhood is None else np.asarray(neighborhood,
                                                                  dtype=np.float32),
        bm25=SparseVector(tuple(sparse.indices), tuple(sparse.values)),
    )

