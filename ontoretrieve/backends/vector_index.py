"""The contract every vector index adapter keeps, written once here.

Layout (docs/indexing.md): one collection per tenant; two named dense
vectors, ``core`` and ``neighborhood`` (cosine by default), one named sparse
vector ``bm25`` with the IDF modifier; keyword payload indexes on
ontology_iri, ontology_version, ontology_hash, iri, atom_id (and text_hash,
which incremental sync looks vectors up by). A point may lack its
``neighborhood`` vector: a term with no structural facts then never ranks in
that lane, which is the reference's "scores 0".

Adapters: ``EdgeIndex`` (Qdrant Edge, in-process, the default) and
``QdrantClientIndex`` (a Qdrant server or cluster by URL, or qdrant-client's
``:memory:`` local mode). Both map their failures onto ``VectorIndexError``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, cast, runtime_checkable

import numpy as np
import numpy.typing as npt

from ontoretrieve.records import AtomPayload

__all__ = [
    "HIT_FIELDS",
    "KEYWORD_FIELDS",
    "TEXT_FIELDS",
    "VECTOR_LANES",
    "IndexPoint",
    "Lane",
    "LaneHit",
    "SparseVector",
    "StoredVectors",
    "VectorIndex",
    "as_payload",
    "keyword_conditions",
    "named_vectors",
    "point_id",
    "query_vector",
    "ranked_hits",
    "stored_by_key",
    "stored_from_named",
]

KEYWORD_FIELDS = ("ontology_iri", "ontology_version", "ontology_hash", "iri", "atom_id",
                  "text_hash", "triggers", "lexemes")
"""Keyword-indexed payload fields; ``triggers`` (case-preserved) and ``lexemes``
(case-folded labels and symbols) serve the exact-match lanes."""

HIT_FIELDS = ["iri", "ontology_iri", "ontology_version", "ontology_hash", "role", "is_header",
              "labels", "symbols"]
"""The payload a search hit carries: what fusion and the seed rules read (not the texts)."""

TEXT_FIELDS = ["core_text", "neighborhood_text", "sparse_text"]
"""The payload fields that hold the texts a point's vectors were computed from."""

DenseVector = npt.NDArray[np.float32]



@dataclass(frozen=True, slots=True)
class SparseVector:
    """Token ids and weights of one BM25 text."""

    indices: tuple[int, ...]
    values: tuple[float, ...]


class Lane(StrEnum):
    CORE = "core"
    NEIGHBORHOOD = "neighborhood"
    BM25 = "bm25"
    MENTION = "mention"
    """Spans of the text naming a surface form: matched by the mention dictionary
    beside the index, never searched in the vector index."""


VECTOR_LANES = (Lane.CORE, Lane.NEIGHBORHOOD, Lane.BM25)
"""The lanes the vector index searches."""


@dataclass(frozen=True, slots=True)
class StoredVectors:
    core: DenseVector
    neighborhood: DenseVector | None
    bm25: SparseVector


@dataclass(frozen=True, slots=True)
class IndexPoint:
    point_id: str
    """A UUID string."""
    vectors: StoredVectors
    payload: AtomPayload


@dataclass(frozen=True, slots=True)
class LaneHit:
    point_id: str
    score: float
    payload: AtomPayload


def as_payload(stored: dict[str, Any] | None) -> AtomPayload:
    """A payload as a store returns it, typed: the index sync wrote it with ``to_payload``."""
    return cast(AtomPayload, dict(stored or {}))


# -- what the two Qdrant adapters share; each passes its SDK's constructors ------------

LOOKUP_CHUNK = 256
"""Keys asked per scroll when looking vectors up by key (a filter of 256 values)."""

SparseFactory = Callable[[list[int], list[float]], Any]
"""The SDK's sparse vector constructor, from indices and values."""


def keyword_conditions(key: str | None, values: Sequence[str],
                       ontology_hashes: Sequence[str] | None = None
                       ) -> list[tuple[str, list[str]]]:
    """(field, any of these values) conditions that must all hold: ``key`` is one of
    ``values`` (when a key is given), and the point belongs to one of
    ``ontology_hashes`` when given.

    >>> keyword_conditions("iri", ["a"], ["h"])
    [('iri', ['a']), ('ontology_hash', ['h'])]
    >>> keyword_conditions(None, [], ["h"])
    [('ontology_hash', ['h'])]
    """
    must = [] if key is None else [(key, list(values))]
    if ontology_hashes is not None:
        must.append(("ontology_hash", list(ontology_hashes)))
    return must


def named_vectors(vectors: StoredVectors, sparse: SparseFactory) -> dict[str, Any]:
    """A point's named vectors as the SDK takes them (no neighbourhood when it has none)."""
    named: dict[str, Any] = {
        Lane.CORE.value: vectors.core.tolist(),
        Lane.BM25.value: sparse(list(vectors.bm25.indices), list(vectors.bm25.values)),
    }
    if vectors.neighborhood is not None:
        named[Lane.NEIGHBORHOOD.value] = vectors.neighborhood.tolist()
    return named


def query_vector(query: DenseVector | SparseVector, sparse: SparseFactory) -> Any:
    """A query vector as the SDK takes it."""
    if isinstance(query, SparseVector):
        return sparse(list(query.indices), list(query.values))
    return np.asarray(query, dtype=np.float32).tolist()


def stored_from_named(vector: Mapping[str, Any]) -> StoredVectors:
    """Stored vectors from the named vectors an SDK returns."""
    sparse = vector[Lane.BM25.value]
    neighborhood = vector.get(Lane.NEIGHBORHOOD.value)
    return StoredVectors(
        core=np.asarray(vector[Lane.CORE.value], dtype=np.float32),
        neighborhood=None if neighborhood is None else np.asarray(neighborhood,
                                                                  dtype=np.float32),
        bm25=SparseVector(tuple(sparse.indices), tuple(sparse.values)),
    )


def stored_by_key(keys: Sequence[str],
                  fetch: Callable[[list[str]], Iterable[tuple[str, Mapping[str, Any] | None]]]
                  ) -> dict[str, StoredVectors]:
    """Stored vectors by key, fetched in chunks of ``LOOKUP_CHUNK`` unique keys; the
    first point of a key wins, and a point without named vectors (None) is skipped."""
    found: dict[str, StoredVectors] = {}
    unique = list(dict.fromkeys(keys))
    for start in range(0, len(unique), LOOKUP_CHUNK):
        for key, vector in fetch(unique[start:start + LOOKUP_CHUNK]):
            if key not in found and vector is not None:
                found[key] = stored_from_named(vector)
    return found


def point_id(key: str) -> str:
    """The stable UUID point id of a dedup key (both backends take UUID strings).

    >>> point_id("iri|http://x/t")
    'd0afb9ae-08bc-544e-af44-4f3178711c54'
    """
    return str(uuid.uuid5(uuid.NAMESPACE_URL, key))


def ranked_hits(points: Iterable[Any]) -> list[LaneHit]:
    """Scored points (``id``, ``score``, ``payload``) as hits, best first, ties by point id.

    A store orders equal scores by its own internals (insertion order, segments),
    so two builds of one catalog, or two backends, could rank tied terms apart;
    the point id (from the term and its version) makes the order the data's.

    >>> from types import SimpleNamespace as P
    >>> [h.point_id for h in ranked_hits([P(id="b", score=1.0, payload={}),
    ...                                   P(id="a", score=1.0, payload={}),
    ...                                   P(id="c", score=2.0, payload={})])]
    ['c', 'a', 'b']
    """
    hits = [LaneHit(str(p.id), float(p.score), as_payload(p.payload)) for p in points]
    return sorted(hits, key=lambda hit: (-hit.score, hit.point_id))


@runtime_checkable
class VectorIndex(Protocol):
    """One collection of atoms with three lanes."""

    @property
    def description(self) -> str:
        """Where the index is, for messages."""
        ...

    def upsert(self, points: Sequence[IndexPoint]) -> None:
        """Insert or replace points by id."""
        ...

    def delete_ontology_hashes(self, hashes: Sequence[str]) -> None:
        """Delete every point whose payload ``ontology_hash`` is one of ``hashes``."""
        ...

    def stored_vectors(self, text_hashes: Sequence[str]) -> dict[str, StoredVectors]:
        """Vectors already stored for atoms with these text hashes (any one each)."""
        ...

    def search(self, lane: Lane, queries: Sequence[DenseVector] | Sequence[SparseVector],
               limit: int, ontology_hashes: Sequence[str] | None = None,
               hidden: Collection[str] = ()) -> list[list[LaneHit]]:
        """One ranked hit list per query, best first, in one batch where possible.

        ``ontology_hashes`` scopes the search to points stored under those hashes
        (None: all); points whose ids are in ``hidden`` are never returned.
        """
        ...

    def scroll_vectors(self, batch: int = 512
                       ) -> Iterator[list[tuple[AtomPayload, StoredVectors]]]:
        """Every point's texts (``TEXT_FIELDS`` of its payload) and vectors, in batches."""
        ...

    def matching(self, field: str, values: Sequence[str], limit: int = 256,
                 ontology_hashes: Sequence[str] | None = None,
                 hidden: Collection[str] = ()) -> list[AtomPayload]:
        """Payloads of points whose keyword ``field`` equals one of ``values`` (stored
        under those hashes only, when ``ontology_hashes`` is given; none in ``hidden``)."""
        ...

    def core_vectors(self, iris: Sequence[str], ontology_hashes: Sequence[str] | None = None,
                     hidden: Collection[str] = ()) -> dict[str, DenseVector]:
        """Core vectors by IRI (any one point per IRI, scoped as in ``matching``), for MMR."""
        ...

    def count(self, ontology_hash: str | None = None) -> int:
        """Points in the collection, or stored under one ontology hash."""
        ...

    def count_points(self, ontology_hashes: Sequence[str] | None,
                     hidden: Collection[str] = ()) -> int:
        """Points stored under these hashes (None: any), not counting ``hidden`` ids."""
        ...

    def flush(self) -> None:
        """Make every write so far durable."""
        ...

    def optimize(self) -> None:
        """Build search structures after a bulk load (a no-op where the store does it)."""
        ...

    def close(self) -> None:
        ...
