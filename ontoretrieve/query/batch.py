"""Query vectors, lane hits and seeds of many texts, computed in one batch, served to the
one-text path.

Retrieving a corpus one text at a time pays the encoder's, the vector
index's and the store's per-call costs once per text. ``PreparedQueries``
holds what a batch computed ahead (dense and sparse query vectors by query
text, lane hits by lane, depth, scope and query text, each text's seeds, and
the store's rows about all the seeds); the one-text path asks it first and
computes only what it lacks, so a batch runs exactly the code a single
retrieval runs, on the same numbers. The same numbers because a query's
vector does not depend on the batch it was encoded in (bit for bit, tested
in tests/integration/test_batch.py), a query's hits do not depend on the
other queries of a search batch, and a term's store rows do not depend on
the other terms read with them (``catalog/rows.py``).

An empty ``PreparedQueries`` (``NOTHING_PREPARED``) is the one-text path:

>>> import numpy as np
>>> class Toy:
...     def embed_queries(self, texts): return np.ones((len(texts), 2), dtype=np.float32)
>>> prepared = PreparedQueries()
>>> prepared.add_dense(["a"], np.zeros((1, 2), dtype=np.float32))
>>> [v.tolist() for v in prepared.dense_queries(Toy(), ["a", "b"])]
[[0.0, 0.0], [1.0, 1.0]]
>>> [v.tolist() for v in NOTHING_PREPARED.dense_queries(Toy(), ["a"])]
[[1.0, 1.0]]
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from ontoretrieve.backends.vector_index import (
    DenseVector,
    Lane,
    LaneHit,
    SparseVector,
    VectorIndex,
)
from ontoretrieve.catalog.rows import CatalogRows
from ontoretrieve.index.embed import DenseMatrix, Embedder
from ontoretrieve.query.seed_result import SeedResult

__all__ = ["NOTHING_PREPARED", "PreparedQueries", "SearchKey", "SeedKey", "seed_key"]

V = TypeVar("V")

SearchKey = tuple[Lane, int, tuple[str, ...] | None, str]
"""A lane search: (lane, depth, scope or None, the query's text)."""

SeedKey = tuple[str, tuple[str, ...] | None, str | None]
"""A text's seeds: (the text, its scope's content hashes sorted or None, its document)."""


@dataclass(slots=True)
class PreparedQueries:
    """What a batch computed for the texts it holds; the rest is computed on demand."""

    dense: dict[str, DenseVector] = field(default_factory=dict)
    sparse: dict[str, SparseVector] = field(default_factory=dict)
    hits: dict[SearchKey, list[LaneHit]] = field(default_factory=dict)
    seeds: dict[SeedKey, SeedResult] = field(default_factory=dict)
    """Each text's seeds, found once its vectors and hits were (``SeedRetriever.prepare``)."""
    catalog: CatalogRows = field(default_factory=CatalogRows)
    """The store's rows about the seeds of every text, read in one batch
    (``Retriever.prepare``): deprecation facts and class references."""
    frozen: bool = False
    """A frozen instance never stores what it computed (the shared empty one)."""

    def add_dense(self, texts: Sequence[str], vectors: DenseMatrix | Sequence[DenseVector]
                  ) -> None:
        self.dense.update(zip(texts, vectors, strict=True))

    def catalog_rows(self) -> CatalogRows:
        """The catalog rows to read through: the batch's, or a fresh one when frozen."""
        return CatalogRows() if self.frozen else self.catalog

    def dense_queries(self, embedder: Embedder, texts: Sequence[str]) -> list[DenseVector]:
        """The dense query vectors of ``texts``, encoding only those not prepared."""
        return _memoized(self.dense, self.frozen, texts, embedder.embed_queries)

    def sparse_queries(self, embedder: Embedder, texts: Sequence[str]) -> list[SparseVector]:
        """The BM25 query vectors of ``texts``, computing only those not prepared."""
        return _memoized(self.sparse, self.frozen, texts, embedder.sparse_queries)

    def search(self, index: VectorIndex, lane: Lane, texts: Sequence[str],
               queries: Sequence[DenseVector] | Sequence[SparseVector], depth: int,
               scope: Sequence[str] | None) -> list[list[LaneHit]]:
        """Each query's hits in ``lane`` (``queries[i]`` is the vector of ``texts[i]``),
        searching only the queries not prepared, in one batch."""
        key_scope = None if scope is None else tuple(scope)
        keys = [(lane, depth, key_scope, t) for t in texts]
        missing = [i for i, key in enumerate(keys) if key not in self.hits]
        found = dict(self.hits) if self.frozen else self.hits
        if missing:
            batch = [queries[i] for i in missing]
            searched = index.search(lane, batch, depth, scope)  # type: ignore[arg-type]
            found.update((keys[i], hits) for i, hits in zip(missing, searched, strict=True))
        return [found[key] for key in keys]


def seed_key(text: str, scope: Collection[str] | None, document: str | None) -> SeedKey:
    """What a text's seeds depend on besides the index: the text, the scope, the document.

    >>> seed_key("a", {"h2", "h1"}, None)
    ('a', ('h1', 'h2'), None)
    """
    return text, None if scope is None else tuple(sorted(scope)), document


def _memoized(known: dict[str, V], frozen: bool, texts: Sequence[str],
              compute: Callable[[list[str]], Iterable[V]]) -> list[V]:
    """``known[t]`` for each text, computing the missing ones in one call (and keeping
    them unless ``frozen``)."""
    missing = [t for t in dict.fromkeys(texts) if t not in known]
    found = dict(known) if frozen else known
    if missing:
        found.update(zip(missing, compute(missing), strict=True))
    return [found[t] for t in texts]


NOTHING_PREPARED = PreparedQueries(frozen=True)
"""The one-text path: everything computed on demand, nothing kept."""
