"""Indexing: catalog load into the store, then the index synced to it.

>>> from ontoretrieve.settings import load_settings
>>> tenant_dir(load_settings(data_dir="/tmp/x"))
PosixPath('/tmp/x/index/default')
"""

from __future__ import annotations

import hashlib
import re
import shutil
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from pydantic import BaseModel

from ontoretrieve.backends import TripleStore
from ontoretrieve.backends.access import exclusive_lock, writable_place
from ontoretrieve.backends.edge_replica import open_view
from ontoretrieve.backends.qdrant_edge import EdgeIndex
from ontoretrieve.backends.vector_index import VectorIndex
from ontoretrieve.catalog.store import Catalog, ProgressCallback
from ontoretrieve.errors import CatalogPathError, IndexError_
from ontoretrieve.index.delta import VersionDelta
from ontoretrieve.index.digest_store import DigestStore
from ontoretrieve.index.embed import Embedder, FastEmbedder, embedding_identity
from ontoretrieve.index.embed_cache import CachedEmbedder, EmbeddingCache, cache_path
from ontoretrieve.index.fingerprint import differences, fingerprint
from ontoretrieve.index.layers import LentIndex, VersionedIndex
from ontoretrieve.index.mention_store import MentionStore, forms_key
from ontoretrieve.index.state import IndexState
from ontoretrieve.index.sync import IndexSync, SyncProgress, check_fingerprint
from ontoretrieve.records import LoadReport, LoadState, SyncReport
from ontoretrieve.settings import Settings
from ontoretrieve.settings.groups import VectorBackend
from ontoretrieve.settings.tenants import DEFAULT_TENANT, validate_tenant_id

__all__ = [
    "DEFAULT_TENANT",
    "IndexStatus",
    "configured_fingerprint",
    "index_status",
    "make_embedder",
    "mention_store",
    "open_query_index",
    "query_state",
    "sync_index",
    "tenant_dir",
]

INDEX_WRITE_LOCK = "index.write.lock"
"""Held exclusively by a sync, shared by a reader copying the shard (``edge_replica``)."""


def tenant_dir(settings: Settings, tenant: str = DEFAULT_TENANT) -> Path:
    """Where one tenant's index state (and Edge shards) live; the id is checked first."""
    return settings.data_dir / "index" / validate_tenant_id(tenant)


def mention_store(settings: Settings, tenant: str = DEFAULT_TENANT) -> MentionStore:
    """The tenant's mention forms and dictionary, beside its index state."""
    return MentionStore(tenant_dir(settings, tenant) / "mentions", forms_key(settings.index))


def digest_store(settings: Settings, tenant: str = DEFAULT_TENANT) -> DigestStore:
    """The tenant's kept version digests (a proposal hashes its change with them)."""
    return DigestStore(tenant_dir(settings, tenant) / "digests")


def configured_fingerprint(settings: Settings) -> dict[str, str]:
    """The fingerprint the current settings would give an index."""
    return fingerprint(embedding_identity(settings.embed), settings.vector_index.distance,
                       settings.index, settings.triggers)


def make_embedder(settings: Settings) -> Embedder:
    """The configured embedder (loads the model: about a second)."""
    return FastEmbedder(settings.embed, writable_place(settings.data_dir / "models"))


def document_embedder(settings: Settings, embedder: Embedder) -> Embedder:
    """The embedder an index sync uses: through the document cache unless it is off."""
    if not settings.embed.document_cache:
        return embedder
    folder = settings.data_dir / "embeddings"
    return CachedEmbedder(embedder, EmbeddingCache(cache_path(folder, embedder.identity)))


def _open_index(settings: Settings, tenant: str) -> Callable[[str, int], VectorIndex]:
    config = settings.vector_index

    def open_index(location: str, dimension: int) -> VectorIndex:
        if config.backend is VectorBackend.QDRANT:
            # Imported here: qdrant-client takes most of a second to import.
            from ontoretrieve.backends.qdrant_client import QdrantClientIndex

            return QdrantClientIndex(config.url, location, dimension, config.distance,
                                     config.api_key, path=tenant_dir(settings, tenant) / "qdrant")
        return EdgeIndex(tenant_dir(settings, tenant) / location, dimension, config.distance,
                         search_threads=config.search_threads)

    return open_index


def _lending(held: VectorIndex | None, state_path: Path,
             opener: Callable[[str, int], VectorIndex]) -> Callable[[str, int], VectorIndex]:
    """An opener that lends ``held`` for the location it is open on, else opens."""
    if held is None:
        return opener
    state = IndexState.load(state_path)
    location = state.location if state else None

    def open_index(place: str, dimension: int) -> VectorIndex:
        return LentIndex(held) if place == location else opener(place, dimension)

    return open_index


def _new_location(settings: Settings, tenant: str) -> Callable[[], str]:
    def new_location() -> str:
        stamp = time.strftime("%Y%m%d%H%M%S")
        prefix = f"ontoretrieve_{tenant}" if settings.vector_index.backend is (
            VectorBackend.QDRANT) else "edge"
        return f"{prefix}_{stamp}_{time.perf_counter_ns() % 1_000_000:06d}"

    return new_location


def _drop_location(settings: Settings, tenant: str) -> Callable[[str], None]:
    def drop(location: str) -> None:
        if settings.vector_index.backend is VectorBackend.QDRANT:
            from qdrant_client import QdrantClient

            config = settings.vector_index
            client = (QdrantClient(url=config.url, api_key=config.api_key) if config.url
                      else QdrantClient(path=str(tenant_dir(settings, tenant) / "qdrant")))
            client.delete_collection(location)
            client.close()
        else:
            shutil.rmtree(tenant_dir(settings, tenant) / location, ignore_errors=True)

    return drop


def sync_index(
    settings: Settings,
    store: TripleStore,
    *,
    catalog_path: Path | None = None,
    rebuild: bool = False,
    tenant: str = DEFAULT_TENANT,
    embedder: Embedder | None = None,
    load_progress: ProgressCallback | None = None,
    progress: SyncProgress | None = None,
    deltas: Mapping[str, VersionDelta] | None = None,
    open_index: VectorIndex | None = None,
) -> tuple[LoadReport | None, SyncReport]:
    """Load ``catalog_path`` (when given) into the store, then sync the index to it
    (``deltas``: changes the caller knows, by new version hash; see ``IndexSync.run``).

    ``open_index`` is the tenant's index as the caller already holds it open (a
    server between requests): the sync writes through it instead of opening the
    shard again, and leaves it open. A rebuild, which writes a new location,
    opens its own.
    """
    catalog = Catalog.for_tenant(store, settings, tenant)
    report = catalog.load(catalog_path, progress=load_progress) if catalog_path else None
    state_path = tenant_dir(settings, tenant) / "state.json"
    if report is None and not state_path.exists() and not catalog.versions():
        raise CatalogPathError(
            f"the catalog in {store.description} is empty and {settings.catalog.path!r} "
            "does not exist: run `ontoretrieve index --catalog PATH` or set catalog.path")
    sync = IndexSync(
        settings, catalog, state_path,
        configured_fingerprint(settings),
        embedder=lambda: document_embedder(settings, embedder or make_embedder(settings)),
        open_index=_lending(open_index, state_path, _open_index(settings, tenant)),
        new_location=_new_location(settings, tenant),
        drop_location=_drop_location(settings, tenant),
        mentions=mention_store(settings, tenant),
        digests=digest_store(settings, tenant),
        intact=lambda location: location_intact(settings, tenant, location),
        sweep=lambda keep: sweep_locations(settings, tenant, keep),
    )
    # Readers in other processes copy the shard only between syncs (edge_replica).
    with exclusive_lock(state_path.parent / INDEX_WRITE_LOCK):
        return report, sync.run(rebuild=rebuild, progress=progress, deltas=deltas)


def open_query_index(settings: Settings, tenant: str = DEFAULT_TENANT, *,
                     reader: bool = False, wait_seconds: float | None = None
                     ) -> tuple[VectorIndex, IndexState]:
    """The tenant's index for queries; raises when its fingerprint differs.

    ``reader``: another process writes the data directory, so an embedded shard is
    read through a replica (``backends.edge_replica``), waiting up to
    ``wait_seconds`` (None: as long as it takes) for a sync in progress.
    """
    state = query_state(settings, tenant)
    if reader and settings.vector_index.backend is VectorBackend.EDGE:
        folder = tenant_dir(settings, tenant)
        index: VectorIndex = open_view(folder / state.location,
                                       replica_key(folder / "state.json"), state.dimension,
                                       settings.vector_index.distance,
                                       folder / INDEX_WRITE_LOCK, wait_seconds,
                                       settings.vector_index.search_threads)
    else:
        if not location_intact(settings, tenant, state.location):
            raise IndexError_(_damaged(settings, tenant, state.location, "its folder is gone"))
        index = _open_index(settings, tenant)(state.location, state.dimension)
    if state.points and state.ontologies and index.count() == 0:
        # An empty shard that should hold points lost its segments. (More points than
        # recorded, or a few less, is what a killed sync leaves: the versions the state
        # names are still whole and still served; the next sync finishes.)
        index.close()
        raise IndexError_(_damaged(settings, tenant, state.location,
                                   f"it holds no points, its state {state.points:,}"))
    return VersionedIndex(index, state), state


_EDGE_LOCATION = re.compile(r"edge_\d{14}_\d{6}")


def leftover_locations(settings: Settings, tenant: str, keep: set[str]) -> list[Path]:
    """The tenant's Edge shard folders other than ``keep``: those killed rebuilds left."""
    folder = tenant_dir(settings, tenant)
    if settings.vector_index.backend is not VectorBackend.EDGE or not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_dir() and p.name not in keep
                  and _EDGE_LOCATION.fullmatch(p.name))


def sweep_locations(settings: Settings, tenant: str, keep: set[str]) -> list[str]:
    """Remove ``leftover_locations`` (only the writer syncs, so none is being written).
    Returns their names."""
    gone = leftover_locations(settings, tenant, keep)
    for path in gone:
        shutil.rmtree(path, ignore_errors=True)
    return [p.name for p in gone]


def replica_key(state_file: Path) -> str:
    """What names readers' replica of the index as the state file describes it."""
    return hashlib.sha256(state_file.read_bytes()).hexdigest()[:16]


def location_intact(settings: Settings, tenant: str, location: str) -> bool:
    """Whether an embedded index location still has its files (a server's collections are
    the server's to keep: always true for them)."""
    if settings.vector_index.backend is not VectorBackend.EDGE:
        return True
    folder = tenant_dir(settings, tenant) / location
    return (folder / "edge_config.json").exists() and (folder / "segments").is_dir()


def _damaged(settings: Settings, tenant: str, location: str, what: str) -> str:
    return (f"the index {location} of tenant {tenant} is damaged ({what}); queries would "
            "find nothing. Run `ontoretrieve doctor --repair` (or `ontoretrieve index "
            f"--rebuild`) to rebuild it from the catalog (data dir {settings.data_dir})")


def query_state(settings: Settings, tenant: str = DEFAULT_TENANT) -> IndexState:
    """The tenant's index state for queries; raises when there is none or its
    fingerprint differs from the settings'."""
    path = tenant_dir(settings, tenant) / "state.json"
    state = IndexState.load(path)
    if state is None:
        raise IndexError_(f"no index at {path.parent}: run `ontoretrieve index`")
    check_fingerprint(state, configured_fingerprint(settings), str(path.parent))
    return state


class IndexStatus(BaseModel):
    """What ``ontoretrieve index status`` reports."""

    exists: bool
    location: str | None = None
    backend: str | None = None
    ontologies: int = 0
    atoms: int = 0
    pending: list[str] = []
    layered: int = 0
    """Indexed versions written as a layer over an earlier one (only their changes)."""
    retained: int = 0
    """Versions the catalog no longer has, kept because a layered version reads them."""
    fingerprint_matches: bool | None = None
    fingerprint_differences: dict[str, tuple[str | None, str | None]] = {}
    catalog_versions: int = 0
    catalog_not_indexed: int = 0
    last_load: LoadState | None = None
    updated_at: str | None = None
    damaged: str | None = None
    """What is wrong with the index files, when something is (``index`` rebuilds it)."""
    stale_forms: int = 0
    """Indexed versions whose mention forms are missing or from older form rules: the
    mention lane leaves them out until ``ontoretrieve index`` rewrites them (no
    re-embedding)."""


def index_status(settings: Settings, store: TripleStore,
                 tenant: str = DEFAULT_TENANT) -> IndexStatus:
    """Compare the index state with the catalog and the configuration (no model load)."""
    catalog = Catalog.for_tenant(store, settings, tenant)
    versions = catalog.versions()
    state = IndexState.load(tenant_dir(settings, tenant) / "state.json")
    if state is None:
        return IndexStatus(exists=False, catalog_versions=len(versions),
                           catalog_not_indexed=len({v.content_hash for v in versions}),
                           last_load=catalog.last_load())
    differing = differences(state.fingerprint, configured_fingerprint(settings))
    return IndexStatus(
        exists=True, location=state.location, backend=state.backend,
        ontologies=len(state.ontologies), atoms=sum(o.atoms for o in state.ontologies.values()),
        pending=state.pending, layered=sum(bool(o.layers) for o in state.ontologies.values()),
        retained=len(state.retained), fingerprint_matches=not differing,
        fingerprint_differences=differing, catalog_versions=len(versions),
        catalog_not_indexed=len({v.content_hash for v in versions} - set(state.ontologies)),
        last_load=catalog.last_load(), updated_at=state.updated_at.isoformat(),
        damaged=None if location_intact(settings, tenant, state.location)
        else _damaged(settings, tenant, state.location, "its folder is gone"),
        stale_forms=_stale_forms(settings, tenant, state),
    )


def _stale_forms(settings: Settings, tenant: str, state: IndexState) -> int:
    """Indexed versions without a current forms file (0 when the lane is off)."""
    if not settings.mentions.enabled:
        return 0
    forms = mention_store(settings, tenant)
    return sum(not forms.current(h) for h in state.ontologies)
