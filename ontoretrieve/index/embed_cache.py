"""Document vectors addressed by model and text, so a rebuild embeds only new texts.

An index rebuild (a fingerprint change: new atom text rules, another label
limit) fills a fresh collection, so it cannot reuse the old points' vectors
by atom. This cache keeps every document vector the embedder computed, keyed
by the SHA-256 of the text, in one SQLite file per model identity
(``data_dir/embeddings/<identity digest>.sqlite``); a text embedded once is
never embedded again by the same model. Queries are not cached.

SQLite (the standard library) because it is one file, takes concurrent
readers, commits atomically (a killed sync leaves the rows of its committed
batches and nothing half-written) and looks 10,000 keys up in a few
milliseconds. Vectors are stored as raw float32 bytes, so a cached vector is
bit-for-bit the one the model gave.

>>> import tempfile
>>> from pathlib import Path
>>> cache = EmbeddingCache(Path(tempfile.mkdtemp()) / "m.sqlite")
>>> cache.put_dense(["a"], np.ones((1, 2), dtype=np.float32))
>>> cache.dense(["a", "b"])["a"].tolist()
[1.0, 1.0]
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ontoretrieve.backends.vector_index import SparseVector, VectorIndex
from ontoretrieve.index.embed import DenseMatrix, Embedder

__all__ = ["CachedEmbedder", "EmbeddingCache", "cache_path"]

log = logging.getLogger(__name__)

_BATCH = 900
"""Keys per ``IN (...)`` query: under SQLite's default limit of 999 variables."""


def _key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def cache_path(folder: Path, identity: dict[str, str]) -> Path:
    """The cache file of one model identity (provider, models, prefixes)."""
    digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]
    return folder / f"{digest}.sqlite"


class EmbeddingCache:
    """Dense and sparse document vectors by text, in one SQLite file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        try:
            self._db = self._open(path)
        except sqlite3.DatabaseError as exc:
            # Only a cache: a damaged file is set aside (kept for a look) and started anew.
            aside = path.with_name(f"{path.name}.damaged-{int(time.time())}")
            log.warning("embedding cache %s is unreadable (%s); moved to %s, starting a new "
                        "one (texts are embedded again)", path, exc, aside.name)
            os.replace(path, aside)
            self._db = self._open(path)

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(path, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE IF NOT EXISTS dense (key TEXT PRIMARY KEY, v BLOB)")
            db.execute("CREATE TABLE IF NOT EXISTS sparse (key TEXT PRIMARY KEY, i BLOB, v BLOB)")
            db.commit()
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def close(self) -> None:
        self._db.close()

    def dense(self, texts: Sequence[str]) -> dict[str, DenseMatrix]:
        keys = {_key(t): t for t in texts}
        found: dict[str, DenseMatrix] = {}
        for key, blob in self._select("SELECT key, v FROM dense", list(keys)):
            found[keys[key]] = np.frombuffer(blob, dtype=np.float32).copy()
        return found

    def sparse(self, texts: Sequence[str]) -> dict[str, SparseVector]:
        keys = {_key(t): t for t in texts}
        found: dict[str, SparseVector] = {}
        for key, indices, values in self._select("SELECT key, i, v FROM sparse", list(keys)):
            found[keys[key]] = SparseVector(
                tuple(int(x) for x in np.frombuffer(indices, dtype=np.int64)),
                tuple(float(x) for x in np.frombuffer(values, dtype=np.float64)))
        return found

    def put_dense(self, texts: Sequence[str], vectors: DenseMatrix) -> None:
        rows = [(_key(t), np.asarray(v, dtype=np.float32).tobytes())
                for t, v in zip(texts, vectors, strict=True)]
        self._db.executemany("INSERT OR REPLACE INTO dense VALUES (?, ?)", rows)
        self._db.commit()

    def put_sparse(self, texts: Sequence[str], vectors: Sequence[SparseVector]) -> None:
        rows = [(_key(t), np.asarray(v.indices, dtype=np.int64).tobytes(),
                 np.asarray(v.values, dtype=np.float64).tobytes())
                for t, v in zip(texts, vectors, strict=True)]
        self._db.executemany("INSERT OR REPLACE INTO sparse VALUES (?, ?, ?)", rows)
        self._db.commit()

    def fill_from(self, index: VectorIndex) -> int:
        """Take the vectors an index already holds, keyed by the texts in its payloads.

        For an index built before the cache existed; stops early when the
        first batch is already cached (the cache then came from this index).
        Returns the texts added.
        """
        added = 0
        for number, batch in enumerate(index.scroll_vectors()):
            cores = [p.get("core_text", "") for p, _ in batch]
            if number == 0 and batch and len(self.dense(cores)) == len(set(cores)):
                return 0
            dense_texts: list[str] = []
            dense_rows: list[DenseMatrix] = []
            sparse_texts, sparse_rows = [], []
            for payload, vectors in batch:
                dense_texts.append(str(payload.get("core_text", "")))
                dense_rows.append(vectors.core)
                if vectors.neighborhood is not None and payload.get("neighborhood_text"):
                    dense_texts.append(str(payload["neighborhood_text"]))
                    dense_rows.append(vectors.neighborhood)
                sparse_texts.append(str(payload.get("sparse_text", "")))
                sparse_rows.append(vectors.bm25)
            if dense_rows:
                self.put_dense(dense_texts, np.stack(dense_rows))
                self.put_sparse(sparse_texts, sparse_rows)
            added += len(dense_texts)
        return added

    def _select(self, query: str, keys: list[str]) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = []
        for start in range(0, len(keys), _BATCH):
            chunk = keys[start:start + _BATCH]
            marks = ",".join("?" * len(chunk))
            rows += self._db.execute(f"{query} WHERE key IN ({marks})", chunk).fetchall()
        return rows


class CachedEmbedder:
    """An ``Embedder`` whose document vectors go through an ``EmbeddingCache``.

    Counts what it embedded and what it found (``embedded``, ``reused``).
    """

    def __init__(self, inner: Embedder, cache: EmbeddingCache) -> None:
        self.inner = inner
        self.cache = cache
        self.embedded = 0
        self.reused = 0

    def release_buffers(self) -> None:
        """The wrapped encoder's (``FastEmbedder.release_buffers``), when it has one."""
        release = getattr(self.inner, "release_buffers", None)
        if release is not None:
            release()

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    @property
    def identity(self) -> dict[str, str]:
        return self.inner.identity

    @property
    def sequence_limit(self) -> int | None:
        return self.inner.sequence_limit

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def embed_queries(self, texts: Sequence[str]) -> DenseMatrix:
        return self.inner.embed_queries(texts)

    def sparse_queries(self, texts: Sequence[str]) -> list[SparseVector]:
        return self.inner.sparse_queries(texts)

    def embed_documents(self, texts: Sequence[str]) -> DenseMatrix:
        if not texts:
            return self.inner.embed_documents(texts)
        found = self.cache.dense(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:  # in the caller's order: the index sorts texts by length first
            fresh = self.inner.embed_documents(missing)
            self.cache.put_dense(missing, fresh)
            found.update(zip(missing, fresh, strict=True))
        self.embedded += len(missing)
        self.reused += len(set(texts)) - len(missing)
        return np.stack([found[t] for t in texts]).astype(np.float32)

    def sparse_documents(self, texts: Sequence[str]) -> list[SparseVector]:
        found = self.cache.sparse(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            fresh = self.inner.sparse_documents(missing)
            self.cache.put_sparse(missing, fresh)
            found.update(zip(missing, fresh, strict=True))
        return [found[t] for t in texts]
