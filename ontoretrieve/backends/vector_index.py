"""The contract every vector index adapter keeps, written once here.

Layout (reference-defaults.md): one collection per tenant; two named dense
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
from collections.abc import Iterator, Sequence
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
    "point_id",
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


def point_id(key: str) -> str:
    """The stable UUID point id of a dedup key (both backends take UUID strings).

    >>> point_id("iri|http://x/t")
    'd0afb9ae-08bc-544e-af44-4f3178711c54'
    """
    return str(uuid.uuid5(uuid.NAMESPACE_URL, key))


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
               limit: int, ontology_hashes: Sequence[str] | None = None
               ) -> list[list[LaneHit]]:
        """One ranked hit list per query, best first, in one batch where possible.

        ``ontology_hashes`` scopes the search to those ontology versions (None: all).
        """
        ...

    def scroll_vectors(self, batch: int = 512
                       ) -> Iterator[list[tuple[AtomPayload, StoredVectors]]]:
        """Every point's texts (``TEXT_FIELDS`` of its payload) and vectors, in batches."""
        ...

    def matching(self, field: str, values: Sequence[str], limit: int = 256,
                 ontology_hashes: Sequence[str] | None = None) -> list[AtomPayload]:
        """Payloads of points whose keyword ``field`` equals one of ``values`` (of those
        ontology versions only, when ``ontology_hashes`` is given)."""
        ...

    def core_vectors(self, iris: Sequence[str]) -> dict[str, DenseVector]:
        """Core vectors by IRI (any one point per IRI), for MMR."""
        ...

    def count(self, ontology_hash: str | None = None) -> int:
        """Points in the collection, or of one ontology version."""
        ...

    def flush(self) -> None:
        """Make every write so far durable."""
        ...

    def optimize(self) -> None:
        """Build search structures after a bulk load (a no-op where the store does it)."""
        ...

    def close(self) -> None:
        ...
