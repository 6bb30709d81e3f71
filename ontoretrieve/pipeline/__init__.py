"""The only place that composes stages: indexing, the seed path and retrieval.

>>> from ontoretrieve.settings import load_settings
>>> tenant_dir(load_settings(data_dir="/tmp/x"))
PosixPath('/tmp/x/index/default')
"""

from ontoretrieve.pipeline.indexing import (
    DEFAULT_TENANT,
    IndexStatus,
    configured_fingerprint,
    index_status,
    make_embedder,
    open_query_index,
    sync_index,
    tenant_dir,
)
from ontoretrieve.pipeline.retrieval import Retriever
from ontoretrieve.pipeline.seeding import SeedResult, SeedRetriever

__all__ = [
    "DEFAULT_TENANT",
    "IndexStatus",
    "Retriever",
    "SeedResult",
    "SeedRetriever",
    "configured_fingerprint",
    "index_status",
    "make_embedder",
    "open_query_index",
    "sync_index",
    "tenant_dir",
]
