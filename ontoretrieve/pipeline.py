"""The only place that composes stages: stores, catalog, atomize, embed, index.

>>> from ontoretrieve.settings import load_settings
>>> tenant_dir(load_settings(data_dir="/tmp/x"))
PosixPath('/tmp/x/index/default')
"""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ontoretrieve.backends import TripleStore
from ontoretrieve.backends.qdrant_edge import EdgeIndex
from ontoretrieve.backends.vector_index import VectorIndex
from ontoretrieve.catalog_store import Catalog, ProgressCallback
from ontoretrieve.embed import Embedder, FastEmbedder, embedding_identity
from ontoretrieve.errors import CatalogPathError, IndexError_
from ontoretrieve.fingerprint import differences, fingerprint
from ontoretrieve.fusion import best_attainable, fuse_window
from ontoretrieve.index_state import IndexState
from ontoretrieve.lanes import search_lanes
from ontoretrieve.lexical import (
    apply_triggers,
    apply_unit_signals,
    lexeme_variants,
    symbol_case_check,
    text_tokens,
    unit_signal_tokens,
)
from ontoretrieve.records import LoadReport, LoadState, SeedEvidence, SeedFunnel
from ontoretrieve.seeds import Seed, cap_never_binds, select_seeds
from ontoretrieve.settings import Settings
from ontoretrieve.settings_groups import VectorBackend
from ontoretrieve.sync import IndexSync, SyncProgress, SyncReport, check_fingerprint
from ontoretrieve.windows import make_windows_with_metrics

__all__ = [
    "IndexStatus",
    "SeedResult",
    "SeedRetriever",
    "configured_fingerprint",
    "index_status",
    "make_embedder",
    "open_query_index",
    "sync_index",
    "tenant_dir",
]

DEFAULT_TENANT = "default"
log = logging.getLogger(__name__)


def tenant_dir(settings: Settings, tenant: str = DEFAULT_TENANT) -> Path:
    """Where one tenant's index state (and Edge shards) live."""
    return settings.data_dir / "index" / tenant


def configured_fingerprint(settings: Settings) -> dict[str, str]:
    """The fingerprint the current settings would give an index."""
    return fingerprint(embedding_identity(settings.embed), settings.vector_index.distance,
                       settings.index, settings.triggers)


def make_embedder(settings: Settings) -> Embedder:
    """The configured embedder (loads the model: about a second)."""
    return FastEmbedder(settings.embed, settings.data_dir / "models")


def _open_index(settings: Settings, tenant: str) -> Callable[[str, int], VectorIndex]:
    config = settings.vector_index

    def open_index(location: str, dimension: int) -> VectorIndex:
        if config.backend is VectorBackend.QDRANT:
            # Imported here: qdrant-client takes most of a second to import.
            from ontoretrieve.backends.qdrant_client import QdrantClientIndex

            return QdrantClientIndex(config.url, location, dimension, config.distance,
                                     config.api_key, path=tenant_dir(settings, tenant) / "qdrant")
        return EdgeIndex(tenant_dir(settings, tenant) / location, dimension, config.distance)

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
) -> tuple[LoadReport | None, SyncReport]:
    """Load ``catalog_path`` (when given) into the store, then sync the index to it."""
    catalog = Catalog(store)
    report = catalog.load(catalog_path, progress=load_progress) if catalog_path else None
    state_path = tenant_dir(settings, tenant) / "state.json"
    if report is None and not state_path.exists() and not catalog.versions():
        raise CatalogPathError(
            f"the catalog in {store.description} is empty and {settings.catalog.path!r} "
            "does not exist: run `ontoretrieve index --catalog PATH` or set catalog.path")
    sync = IndexSync(
        settings, catalog, state_path,
        configured_fingerprint(settings),
        embedder=(lambda: embedder) if embedder is not None else lambda: make_embedder(settings),
        open_index=_open_index(settings, tenant),
        new_location=_new_location(settings, tenant),
        drop_location=_drop_location(settings, tenant),
    )
    return report, sync.run(rebuild=rebuild, progress=progress)


def open_query_index(settings: Settings, tenant: str = DEFAULT_TENANT
                     ) -> tuple[VectorIndex, IndexState]:
    """The tenant's index for queries; raises when its fingerprint differs."""
    path = tenant_dir(settings, tenant) / "state.json"
    state = IndexState.load(path)
    if state is None:
        raise IndexError_(f"no index at {path.parent}: run `ontoretrieve index`")
    check_fingerprint(state, configured_fingerprint(settings), str(path.parent))
    return _open_index(settings, tenant)(state.location, state.dimension), state


class IndexStatus(BaseModel):
    """What ``ontoretrieve index status`` reports."""

    exists: bool
    location: str | None = None
    backend: str | None = None
    ontologies: int = 0
    atoms: int = 0
    pending: list[str] = []
    fingerprint_matches: bool | None = None
    fingerprint_differences: dict[str, tuple[str | None, str | None]] = {}
    catalog_versions: int = 0
    catalog_not_indexed: int = 0
    last_load: LoadState | None = None
    updated_at: str | None = None


def index_status(settings: Settings, store: TripleStore,
                 tenant: str = DEFAULT_TENANT) -> IndexStatus:
    """Compare the index state with the catalog and the configuration (no model load)."""
    catalog = Catalog(store)
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
        pending=state.pending, fingerprint_matches=not differing,
        fingerprint_differences=differing, catalog_versions=len(versions),
        catalog_not_indexed=len({v.content_hash for v in versions} - set(state.ontologies)),
        last_load=catalog.last_load(), updated_at=state.updated_at.isoformat(),
    )


class SeedResult(BaseModel):
    """Ranked seeds of one text, with their evidence, the funnel and stage timings."""

    seeds: list[SeedEvidence]
    funnel: SeedFunnel
    seconds: dict[str, float]


class SeedRetriever:
    """The query path up to the seeds, over one opened index and embedder.

    >>> # SeedRetriever.open(load_settings()).seeds("a 200 kV source")  # needs an index
    """

    def __init__(self, settings: Settings, index: VectorIndex, embedder: Embedder) -> None:
        self.settings = settings
        self.index = index
        self.embedder = embedder
        if cap_never_binds(settings.seeds, settings.windows):
            log.warning(
                "ONTOLOGY_PATCH_MAX_ATOMS=%d can never bind: the cap is at most "
                "max(MAX_ATOMS_BASE, SEEDS_PER_WINDOW x MAX_WINDOWS) = %d",
                settings.seeds.max_atoms,
                max(settings.seeds.max_atoms_base,
                    settings.seeds.seeds_per_window * settings.windows.max_windows))

    @classmethod
    def open(cls, settings: Settings, tenant: str = DEFAULT_TENANT,
             embedder: Embedder | None = None) -> SeedRetriever:
        index, _ = open_query_index(settings, tenant)
        return cls(settings, index, embedder or make_embedder(settings))

    def close(self) -> None:
        self.index.close()

    def seeds(self, text: str) -> SeedResult:
        s = self.settings
        clock = _Clock()
        windows, window_metrics = make_windows_with_metrics(
            text, s.windows, self.embedder.count_tokens, self.embedder.sequence_limit)
        clock.lap("windows")
        lanes = search_lanes(self.index, self.embedder, windows, s.fusion)
        clock.laps["embedding"] = lanes.embed_seconds
        clock.laps["search"] = lanes.search_seconds
        clock.restart()
        fused = [fuse_window(i, per_lane, s.fusion) for i, per_lane in
                 enumerate(lanes.per_window)]
        clock.lap("fusion")
        selected, counts = select_seeds(fused, len(windows), s.seeds, best_attainable(s.fusion),
                                        vectors=self.index.core_vectors)
        triggered, added, raised = apply_triggers(selected, self._trigger_matches(text),
                                                  s.triggers)
        checked, demoted, dropped = symbol_case_check(
            triggered, text, s.seeds.symbol_case_mismatch_policy,
            s.seeds.symbol_case_mismatch_demote_factor)
        signalled, by_signals = checked, 0
        if s.seeds.query_unit_signals_enabled and selected:
            tokens = unit_signal_tokens(text)
            signalled, by_signals = apply_unit_signals(
                checked, tokens, self._unit_matches(tokens), s.triggers,
                s.seeds.symbol_case_mismatch_policy, s.seeds.symbol_case_mismatch_demote_factor)
        clock.lap("seeds")
        funnel = SeedFunnel(
            windows_built=window_metrics.windows_built, windows=window_metrics.windows_kept,
            window_bound=window_metrics.bound, queries_truncated=window_metrics.queries_truncated,
            query_sequence_limit=window_metrics.query_sequence_limit,
            hits_per_lane=lanes.hits_per_lane, **asdict(counts), added_by_triggers=added,
            raised_by_triggers=raised, case_demoted=demoted, case_dropped=dropped,
            added_by_unit_signals=by_signals, final_seeds=len(signalled))
        return SeedResult(seeds=[_evidence(seed) for seed in signalled], funnel=funnel,
                          seconds={k: round(v, 5) for k, v in clock.laps.items()})

    def _trigger_matches(self, text: str) -> list[dict[str, Any]]:
        if not self.settings.triggers.enabled:
            return []
        tokens = list(dict.fromkeys(text_tokens(text)))
        return self.index.matching("triggers", tokens) if tokens else []

    def _unit_matches(self, tokens: list[str]) -> dict[str, list[dict[str, Any]]]:
        found: dict[str, list[dict[str, Any]]] = {}
        for token in tokens:
            variants = lexeme_variants(token)
            found[token] = self.index.matching("lexemes", variants, limit=32)
        return found


class _Clock:
    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def restart(self) -> None:
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = self.laps.get(name, 0.0) + now - self._last
        self._last = now


def _evidence(seed: Seed) -> SeedEvidence:
    payload = seed.payload
    return SeedEvidence(
        iri=seed.iri, score=round(seed.score, 6), origin=seed.origin.value,
        ontology_iri=str(payload.get("ontology_iri", "")),
        ontology_version=str(payload.get("ontology_version") or "") or None,
        ontology_hash=str(payload.get("ontology_hash", "")), role=seed.role,
        fused_score=None if seed.fused_score is None else round(seed.fused_score, 6),
        windows=list(seed.windows),
        lanes=[{"window": w, "lane": e.lane.value, "rank": e.rank,
                "raw_score": round(e.raw_score, 6)} for w, e in seed.evidence],
        notes=list(seed.notes))
