"""The query path up to the seeds, over one opened index and embedder.

>>> SeedRetriever.__name__
'SeedRetriever'
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict
from typing import Any

from pydantic import BaseModel

from ontoretrieve.backends.vector_index import VectorIndex
from ontoretrieve.embed import Embedder
from ontoretrieve.fusion import best_attainable, fuse_window
from ontoretrieve.lanes import search_lanes
from ontoretrieve.lexical import (
    apply_triggers,
    apply_unit_signals,
    lexeme_variants,
    symbol_case_check,
    text_tokens,
    unit_signal_tokens,
)
from ontoretrieve.pipeline.indexing import DEFAULT_TENANT, make_embedder, open_query_index
from ontoretrieve.records import SeedEvidence, SeedFunnel
from ontoretrieve.seeds import Seed, cap_never_binds, select_seeds
from ontoretrieve.settings import Settings
from ontoretrieve.windows import make_windows_with_metrics

__all__ = ["SeedResult", "SeedRetriever"]

log = logging.getLogger(__name__)


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
