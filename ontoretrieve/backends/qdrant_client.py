"""Scale-out vector index: a Qdrant server or cluster through qdrant-client.

``url=":memory:"`` runs qdrant-client's local mode in memory, and ``path=DIR``
its local mode on disk (brute force in Python): the same client code, for
tests and congruence checks against ``EdgeIndex``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

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
from ontoretrieve.errors import VectorIndexError, map_errors
from ontoretrieve.records import AtomPayload

__all__ = ["QdrantClientIndex"]

_DISTANCES = {"Cosine": models.Distance.COSINE, "Dot": models.Distance.DOT,
              "Euclid": models.Distance.EUCLID}


class QdrantClientIndex:
    """``VectorIndex`` over one collection of a Qdrant server (or local mode)."""

    def __init__(self, url: str | None, collection: str, dimension: int,
                 distance: str = "Cosine", api_key: str | None = None,
                 path: Path | None = None) -> None:
        self.url = url or f"local:{path}"
        self.collection = collection
        try:
            if url == ":memory:":
                self._client = QdrantClient(location=":memory:")
            elif url is None:
                if path is None:
                    raise ValueError("qdrant-client needs a url or a local path")
                self._client = QdrantClient(path=str(path))
            else:
                self._client = QdrantClient(url=url, api_key=api_key)
            if self._client.collection_exists(collection):
                self._check_layout(dimension, distance)
            else:
                self._create(dimension, distance)
        except VectorIndexError:
            raise
        except (UnexpectedResponse, ResponseHandlingException, OSError, ValueError) as exc:
            raise VectorIndexError(f"cannot open Qdrant collection {collection} at {url}: "
                                   f"{exc}") from exc

    @property
    def description(self) -> str:
        return f"qdrant:{self.url}/{self.collection}"

    def _create(self, dimension: int, distance: str) -> None:
        dense = models.VectorParams(size=dimension, distance=_DISTANCES[distance])
        self._client.create_collection(
            self.collection,
            vectors_config={Lane.CORE.value: dense, Lane.NEIGHBORHOOD.value: dense},
            sparse_vectors_config={Lane.BM25.value: models.SparseVectorParams(
                modifier=models.Modifier.IDF)},
        )
        if not self.url.startswith("http"):
            return  # local mode ignores payload indexes (and warns)
        for field in KEYWORD_FIELDS:
            self._client.create_payload_index(self.collection, field,
                                              models.PayloadSchemaType.KEYWORD)

    def _check_layout(self, dimension: int, distance: str) -> None:
        params = self._client.get_collection(self.collection).config.params
        vectors = params.vectors if isinstance(params.vectors, dict) else {}
        for lane in (Lane.CORE, Lane.NEIGHBORHOOD):
            found = vectors.get(lane.value)
            if found is None or found.size != dimension or found.distance != _DISTANCES[distance]:
                raise VectorIndexError(
                    f"{self.description}: vector {lane.value} is not {dimension}-d {distance}; "
                    "rebuild with `ontoretrieve index --rebuild`")
        sparse = (params.sparse_vectors or {}).get(Lane.BM25.value)
        if sparse is None or sparse.modifier != models.Modifier.IDF:
            raise VectorIndexError(f"{self.description}: sparse vector bm25 lacks the IDF "
                                   "modifier; rebuild with `ontoretrieve index --rebuild`")

    def upsert(self, points: Sequence[IndexPoint]) -> None:
        if points:
            self._call(self._client.upsert, self.collection, points=[
                models.PointStruct(id=p.point_id, vector=named_vectors(p.vectors, _sparse),
                                   payload=p.payload)
                for p in points], wait=True)

    def delete_ontology_hashes(self, hashes: Sequence[str]) -> None:
        if hashes:
            self._call(self._client.delete, self.collection,
                       points_selector=models.FilterSelector(
                           filter=_any_of("ontology_hash", hashes)), wait=True)

    def stored_vectors(self, text_hashes: Sequence[str]) -> dict[str, StoredVectors]:
        def fetch(chunk: list[str]) -> Iterator[tuple[str, Any]]:
            records, _ = self._call(self._client.scroll, self.collection,
                                    scroll_filter=_any_of("text_hash", chunk),
                                    limit=len(chunk) * 4, with_payload=["text_hash"],
                                    with_vectors=True)
            return (((r.payload or {})["text_hash"],
                     r.vector if isinstance(r.vector, dict) else None) for r in records)

        return stored_by_key(text_hashes, fetch)

    def scroll_vectors(self, batch: int = 512
                       ) -> Iterator[list[tuple[AtomPayload, StoredVectors]]]:
        offset: Any = None
        while True:
            records, offset = self._call(self._client.scroll, self.collection, offset=offset,
                                         limit=batch, with_payload=TEXT_FIELDS,
                                         with_vectors=True)
            yield [(as_payload(r.payload), stored_from_named(r.vector)) for r in records
                   if isinstance(r.vector, dict)]
            if offset is None:
                break

    def search(self, lane: Lane, queries: Sequence[DenseVector] | Sequence[SparseVector],
               limit: int, ontology_hashes: Sequence[str] | None = None,
               hidden: Collection[str] = ()) -> list[list[LaneHit]]:
        if not queries:
            return []
        scope = _scope(None, (), ontology_hashes, hidden)
        requests = [models.QueryRequest(query=query_vector(q, _sparse), using=lane.value,
                                        limit=limit, filter=scope, with_payload=HIT_FIELDS)
                    for q in queries]
        responses = self._call(self._client.query_batch_points, self.collection,
                               requests=requests)
        return [ranked_hits(response.points) for response in responses]

    def matching(self, field: str, values: Sequence[str], limit: int = 256,
                 ontology_hashes: Sequence[str] | None = None,
                 hidden: Collection[str] = ()) -> list[AtomPayload]:
        if not values:
            return []
        records, _ = self._call(self._client.scroll, self.collection,
                                scroll_filter=_scope(field, values, ontology_hashes, hidden),
                                limit=limit,
                                with_payload=True, with_vectors=False)
        return [as_payload(r.payload) for r in records]

    def core_vectors(self, iris: Sequence[str], ontology_hashes: Sequence[str] | None = None,
                     hidden: Collection[str] = ()) -> dict[str, DenseVector]:
        if not iris:
            return {}
        records, _ = self._call(self._client.scroll, self.collection,
                                scroll_filter=_scope("iri", iris, ontology_hashes, hidden),
                                limit=len(iris) * 4,
                                with_payload=["iri"], with_vectors=[Lane.CORE.value])
        return {str((r.payload or {})["iri"]): np.asarray(r.vector[Lane.CORE.value],
                                                          dtype=np.float32)
                for r in records}

    def count(self, ontology_hash: str | None = None) -> int:
        return self.count_points([ontology_hash] if ontology_hash else None)

    def count_points(self, ontology_hashes: Sequence[str] | None,
                     hidden: Collection[str] = ()) -> int:
        condition = _scope(None, (), ontology_hashes, hidden)
        return int(self._call(self._client.count, self.collection, count_filter=condition,
                              exact=True).count)

    def flush(self) -> None:
        """Writes are made with wait=True: durable once they return."""

    def optimize(self) -> None:
        """The server indexes in the background; local mode has no index to build."""

    def close(self) -> None:
        self._client.close()

    def _call(self, method: Any, *args: Any, **kwargs: Any) -> Any:
        with map_errors({(UnexpectedResponse, ResponseHandlingException, OSError):
                         lambda exc: VectorIndexError(f"{self.description}: {exc}")}):
            result = method(*args, **kwargs)
        return result


def _any_of(key: str, values: Sequence[str]) -> models.Filter:
    """``key`` is one of ``values``."""
    return _scope(key, values, None, ()) or models.Filter()


def _scope(key: str | None, values: Sequence[str], ontology_hashes: Sequence[str] | None,
           hidden: Collection[str]) -> models.Filter | None:
    """``key`` is one of ``values`` (when given), the point is stored under one of
    ``ontology_hashes`` (when given) and its id is not in ``hidden``; None: no condition."""
    must: list[models.Condition] = [
        models.FieldCondition(key=field, match=models.MatchAny(any=allowed))
        for field, allowed in keyword_conditions(key, values, ontology_hashes)]
    must_not: list[models.Condition] = (
        [models.HasIdCondition(has_id=sorted(hidden))] if hidden else [])
    if not must and not must_not:
        return None
    return models.Filter(must=must or None, must_not=must_not or None)


def _sparse(indices: list[int], values: list[float]) -> models.SparseVector:
    return models.SparseVector(indices=indices, values=values)
