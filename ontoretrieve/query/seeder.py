"""The query path up to the seeds, composed over one opened index and embedder.

Windows (``windows``), the vector lanes (``lanes``) and the mention lane
(``mention_lane``) per window, weighted reciprocal rank fusion (``fusion``),
the lexical rules (``lexical``) and the seed cut (``selection``), with the
funnel of counts and the time of each step. It needs a real index, so it is
exercised by tests/integration/test_seeds_real.py and test_mention_lane.py
rather than by a doctest; ``lookup`` ranks one mention on the same lanes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Mapping, Sequence

import numpy as np

from ontoretrieve.backends.vector_index import DenseVector, Lane, LaneHit, VectorIndex
from ontoretrieve.index.build import (
    DEFAULT_TENANT,
    make_embedder,
    mention_store,
    open_query_index,
)
from ontoretrieve.index.embed import Embedder
from ontoretrieve.index.mention_forms import FormKind
from ontoretrieve.index.mention_match import Mention, MentionDictionary
from ontoretrieve.index.mention_text import STOPWORDS
from ontoretrieve.index.payload import evidence_from_payload
from ontoretrieve.query.batch import NOTHING_PREPARED, PreparedQueries, seed_key
from ontoretrieve.query.confidence import confidence_model, in_confidence_order
from ontoretrieve.query.documents import defined_in, documents_per_text
from ontoretrieve.query.fusion import best_attainable, fuse_window
from ontoretrieve.query.lanes import (
    LaneResults,
    active_lanes,
    bm25_texts,
    lane_depths,
    search_lanes,
)
from ontoretrieve.query.lexical import (
    apply_triggers,
    apply_unit_signals,
    lexeme_variants,
    only_units,
    symbol_case_check,
    text_tokens,
    unit_signal_tokens,
)
from ontoretrieve.query.lookup import LookupResult, TermRule, rank_candidates
from ontoretrieve.query.mention_lane import (
    dense_span_mentions,
    evidence_of,
    flag_misfits,
    pick_senses,
    span_candidates,
    units_after_numbers,
    usable,
    window_hits,
)
from ontoretrieve.query.seed_result import SeedResult
from ontoretrieve.query.selection import (
    Seed,
    cap_never_binds,
    evidence_first,
    evidence_tier,
    fit_first,
    mark_misfits,
    merged_order,
    misfits_only,
    select_seeds,
)
from ontoretrieve.query.windows import Window, has_words, make_windows_with_metrics
from ontoretrieve.records import AtomPayload, LaneRank, SeedEvidence, SeedFunnel
from ontoretrieve.settings import Settings
from ontoretrieve.settings.groups import SeedCut, SeedSettings

MentionLoader = Callable[[], MentionDictionary | None]

__all__ = ["SeedResult", "SeedRetriever"]

log = logging.getLogger(__name__)

_SPAN_DEPTH = 3
"""Core-lane hits asked per span word in span-level dense matching."""


_RESERVE = 64
"""Candidates beyond the cut a result keeps in order."""


class SeedRetriever:
    """The query path up to the seeds, over one opened index and embedder."""

    def __init__(self, settings: Settings, index: VectorIndex, embedder: Embedder,
                 mentions: MentionLoader | None = None) -> None:
        self.settings = settings
        self.index = index
        self.embedder = embedder
        self._load_mentions = mentions
        self._dictionary: MentionDictionary | None = None
        if cap_never_binds(settings.seeds, settings.windows):
            log.warning(
                "ONTOLOGY_PATCH_MAX_ATOMS=%d can never bind: the cap is at most "
                "max(MAX_ATOMS_BASE, SEEDS_PER_WINDOW x MAX_WINDOWS) = %d",
                settings.seeds.max_atoms,
                max(settings.seeds.max_atoms_base,
                    settings.seeds.seeds_per_window * settings.windows.max_windows))

    @classmethod
    def open(cls, settings: Settings, tenant: str = DEFAULT_TENANT,
             embedder: Embedder | None = None, *, reader: bool = False) -> SeedRetriever:
        """The seed path over the tenant's index (``reader``: see ``open_query_index``)."""
        index, state = open_query_index(settings, tenant, reader=reader)
        store = mention_store(settings, tenant)
        return cls(settings, index, embedder or make_embedder(settings),
                   mentions=lambda: store.dictionary(sorted(state.ontologies)))

    @property
    def lane_on(self) -> bool:
        """The mention lane is on: enabled and fused with a weight."""
        return self.settings.mentions.enabled and self.settings.fusion.mention_weight > 0

    @property
    def dictionary(self) -> MentionDictionary | None:
        """The mention dictionary, loaded on first use (None: no mention lane)."""
        if self._dictionary is None and self._load_mentions is not None:
            self._dictionary = self._load_mentions()
        return self._dictionary

    def mentions(self, text: str, scope: Collection[str] | None = None,
                 document: str | None = None) -> list[Mention]:
        """Every usable mention in ``text`` (none when the lane is off), of the ontology
        versions in ``scope`` when given; ``document``, the whole text ``text`` comes
        from, lends its abbreviations (``mentions.document_abbreviations``)."""
        s = self.settings
        if not self.lane_on or self.dictionary is None:
            return []
        noun_verbs = s.mentions.noun_verbs == "always" or (
            s.mentions.noun_verbs == "scoped" and scope is not None)
        defined = (defined_in(document)
                   if document and s.mentions.document_abbreviations else None)
        found = self.dictionary.find(text, pertainyms=s.mentions.pertainyms,
                                     prefixes=s.mentions.prefixes, noun_verbs=noun_verbs,
                                     namesakes=s.mentions.unit_namesakes, defined=defined)
        if scope is not None:
            found = [m for m in found if m.ontology_hash in scope]
        if not s.mentions.elliptic:
            found = [m for m in found if m.kind != FormKind.ELLIPTIC.value]
        else:
            if not s.mentions.dropped_modifiers:
                found = [m for m in found if m.dropped_modifier is None]
            if not s.mentions.head_nouns:
                found = [m for m in found if m.head_modifier is None]
            if s.mentions.elliptic_cohesion == "required":
                found = [m for m in found if m.cohesive]
        if s.mentions.units_after_numbers:
            found = units_after_numbers(found, self.dictionary.units)
        return usable(found, s.mentions.max_shared)

    def lookup(self, mention: str, *, aliases: Mapping[str, Sequence[str]],
               rule: TermRule | None, limit: int) -> LookupResult:
        """Ranked candidate terms for one mention (``lookup.rank_candidates``): exact and
        folded labels and symbols, forms the mention lane equates with the whole mention,
        then the seeds of the mention as a text; ``aliases`` are the tenant's."""
        lexical = self.index.matching("lexemes", [mention.casefold()], limit=64)
        whole = sorted({m.iri for m in self.mentions(mention)
                        if m.start == 0 and m.end == len(mention)})
        normalized = self.index.matching("iri", whole, limit=4 * len(whole)) if whole else []
        retrieved = self.seeds(mention).seeds[:limit]
        named = [i for iris in aliases.values() for i in iris] + [s.iri for s in retrieved]
        labels = {p["iri"]: p for p in self.index.matching("iri", named, limit=4 * len(named))
                  } if named else {}
        return rank_candidates(mention, lexical, retrieved, aliases=aliases, labels=labels,
                               rule=rule, limit=limit, normalized=normalized)

    def close(self) -> None:
        self.index.close()

    def window_count(self, text: str) -> int:
        """How many query windows ``text`` makes (what a default token budget grows with)."""
        windows, _ = make_windows_with_metrics(text, self.settings.windows,
                                               self.embedder.count_tokens,
                                               self.embedder.sequence_limit)
        return len(windows)

    def seeds(self, text: str, scope: Collection[str] | None = None,
              prepared: PreparedQueries = NOTHING_PREPARED, *,
              document: str | None = None) -> SeedResult:
        """The seeds of ``text``; ``scope`` (ontology content hashes) limits every lane,
        the mentions and the lexical rules to those ontology versions. What a batch
        ``prepared`` (``prepare``) is taken from it: the same seeds, sooner.
        ``document``: the whole text ``text`` comes from (``mentions``)."""
        found = prepared.seeds.get(seed_key(text, scope, document)) if prepared.seeds else None
        if found is not None:
            return found
        s = self.settings
        if not has_words(text):  # blanks, NUL, punctuation or emoji alone name nothing
            return SeedResult(seeds=[], funnel=_no_funnel(), seconds={})
        hashes = None if scope is None else sorted(scope)
        clock = _Clock()
        windows, window_metrics = make_windows_with_metrics(
            text, s.windows, self.embedder.count_tokens, self.embedder.sequence_limit)
        clock.lap("windows")
        lanes = search_lanes(self.index, self.embedder, windows, s.fusion, hashes, prepared)
        clock.laps["embedding"] = lanes.embed_seconds
        clock.laps["search"] = lanes.search_seconds
        clock.restart()
        vectors = CoreVectors(self.index)  # read once for senses, topic fit and fit order
        mentions, per_window, hits_per_lane = self._with_mentions(
            text, scope, hashes, windows, lanes, prepared, vectors=vectors, document=document)
        clock.lap("mentions")
        fused = [fuse_window(i, per_lane, s.fusion) for i, per_lane in enumerate(per_window)]
        clock.lap("fusion")
        selected, counts = select_seeds(fused, len(windows), _cut_settings(s, scope),
                                        best_attainable(s.fusion), vectors=vectors,
                                        scope_per_window=_scope_per_window(s, scope))
        signalled, rules = self._lexical_rules(mark_misfits(selected, misfits_only(mentions)),
                                               text, hashes)
        signalled, fits = self._in_evidence_order(signalled, mentions, lanes.dense_queries,
                                                  scoped=scope is not None, vectors=vectors)
        clock.lap("seeds")
        funnel = SeedFunnel(
            windows_built=window_metrics.windows_built, windows=window_metrics.windows_kept,
            window_bound=window_metrics.bound, queries_truncated=window_metrics.queries_truncated,
            query_sequence_limit=window_metrics.query_sequence_limit,
            hits_per_lane=hits_per_lane, **counts.model_dump(), **rules,
            final_seeds=len(signalled))
        kept = {seed.iri for seed in signalled}
        reserve = [iri for iri in merged_order(fused, s.seeds.cross_query_merge_mode)
                   if iri not in kept][:_RESERVE]
        return SeedResult(seeds=self._final_evidence(signalled, mentions, fits), funnel=funnel,
                          seconds={k: round(v, 5) for k, v in clock.laps.items()},
                          reserve=reserve)

    def _final_evidence(self, seeds: Sequence[Seed], mentions: Sequence[Mention],
                        fits: Mapping[str, float]) -> list[SeedEvidence]:
        """Each seed's evidence, in confidence order within its tier when the order is the
        unscoped evidence order (``fits`` computed) and ``seeds.confidence_order`` is on."""
        s = self.settings.seeds
        evidence = [_evidence(seed, mentions, evidence_tier(seed, s), fits.get(seed.iri))
                    for seed in seeds]
        if not (fits and s.confidence_order):
            return evidence
        return in_confidence_order(evidence, confidence_model(s.confidence_model))

    def _with_mentions(self, text: str, scope: Collection[str] | None,
                       hashes: Sequence[str] | None, windows: Sequence[Window],
                       lanes: LaneResults, prepared: PreparedQueries,
                       vectors: CoreVectors | None = None, document: str | None = None
                       ) -> tuple[list[Mention], list[dict[Lane, list[LaneHit]]],
                                  dict[str, int]]:
        """The mention lane joined to the vector lanes: its mentions (senses picked, dense
        spans added when on), every window's hits per lane, and the hits per lane."""
        s = self.settings
        mentions = self.mentions(text, scope, document)
        if (s.mentions.senses or s.mentions.fit_floor) and lanes.dense_queries:
            mentions = self._fit_to_context(mentions, windows, lanes.dense_queries,
                                            vectors or CoreVectors(self.index))
        if s.mentions.dense_spans and self.lane_on:
            mentions = mentions + self._dense_spans(text, mentions, hashes, prepared)
        per_window = lanes.per_window
        hits_per_lane = dict(lanes.hits_per_lane)
        if mentions:
            by_window = self._mention_hits(mentions, windows)
            per_window = [{**lanes_of, Lane.MENTION: hits}
                          for lanes_of, hits in zip(per_window, by_window, strict=True)]
            hits_per_lane[Lane.MENTION.value] = sum(len(h) for h in by_window)
        return mentions, per_window, hits_per_lane

    def _lexical_rules(self, selected: list[Seed], text: str, hashes: Sequence[str] | None
                       ) -> tuple[list[Seed], dict[str, int]]:
        """Triggers, the symbol case check and unit signals on the cut seeds; with the
        funnel's counts of what each rule did."""
        s = self.settings.seeds
        triggered, added, raised = apply_triggers(
            selected, self._trigger_matches(text, hashes), self.settings.triggers,
            add=self._triggers_add())
        checked, demoted, dropped = symbol_case_check(
            triggered, text, s.symbol_case_mismatch_policy, s.symbol_case_mismatch_demote_factor)
        signalled, by_signals = checked, 0
        if s.query_unit_signals_enabled and selected:
            tokens = unit_signal_tokens(text, self.settings.triggers.unit_letters_only)
            signalled, by_signals = apply_unit_signals(
                checked, tokens, self._unit_matches(tokens, hashes), self.settings.triggers,
                s.symbol_case_mismatch_policy, s.symbol_case_mismatch_demote_factor,
                add=self._unit_signals_add())
        return signalled, {"added_by_triggers": added, "raised_by_triggers": raised,
                           "case_demoted": demoted, "case_dropped": dropped,
                           "added_by_unit_signals": by_signals}

    def _in_evidence_order(self, seeds: list[Seed], mentions: Sequence[Mention],
                           window_vectors: Sequence[DenseVector], *, scoped: bool,
                           vectors: CoreVectors | None = None
                           ) -> tuple[list[Seed], dict[str, float]]:
        """Evidence cut: seeds by kind of evidence, then by topic fit (``fit_first``) or
        score, with the fits it used; the reference cut keeps its order. A scoped query
        keeps the score order: the ontologies it names are its topic already (measured:
        ordering Text2KGBench's scoped sentences by fit lost 3 points of recall within
        500 tokens)."""
        s = self.settings.seeds
        if s.cut is not SeedCut.EVIDENCE or not s.evidence_first:
            return seeds, {}
        if not (s.fit_order or s.confidence_order) or scoped or not seeds or not window_vectors:
            return evidence_first(seeds, s), {}
        found = (vectors or CoreVectors(self.index))([seed.iri for seed in seeds])
        fits = {iri: max(float(np.dot(window, vector)) for window in window_vectors)
                for iri, vector in found.items()}
        anchored = frozenset(m.iri for m in mentions if m.after_number)
        strengths: dict[str, float] = {}
        for m in mentions:  # each term's strongest mention
            strengths[m.iri] = max(strengths.get(m.iri, 0.0), m.strength)
        if not s.fit_order:  # the confidence order (``seeds``) reads the fits
            return evidence_first(seeds, s), fits
        return fit_first(seeds, fits, anchored, s, strengths), fits

    def _fit_to_context(self, mentions: list[Mention], windows: Sequence[Window],
                        window_vectors: Sequence[DenseVector], vectors: CoreVectors
                        ) -> list[Mention]:
        """Senses and topic fit: outrank the terms of an ambiguous span that fit its window
        worse, then flag the misfits (``flag_misfits``)."""
        m = self.settings.mentions
        wanted = {x.iri for x in mentions if m.senses and x.shared_by > m.senses}
        if m.fit_floor:
            wanted |= {x.iri for x in mentions if not x.after_number}
        if not wanted:
            return mentions
        found = vectors(sorted(wanted))
        if m.senses:
            mentions = pick_senses(mentions, windows, window_vectors, found, m.senses,
                                   m.senses_after_numbers, m.sense_forms)
        return flag_misfits(mentions, windows, window_vectors, found, m.fit_floor,
                            m.misfit_weight)

    def _dense_spans(self, text: str, mentions: Sequence[Mention],
                     scope: Sequence[str] | None, prepared: PreparedQueries) -> list[Mention]:
        """Span-level dense matching: content words no form names, against the core lane."""
        spans = span_candidates(text, [m for m in mentions if not m.contained],
                                self.settings.mentions.dense_spans)
        if not spans:
            return []
        words = [word for _, _, word in spans]
        vectors = prepared.dense_queries(self.embedder, words)
        hits = prepared.search(self.index, Lane.CORE, words, vectors, _SPAN_DEPTH, scope)
        return dense_span_mentions(spans, hits, self.settings.mentions.dense_span_min_similarity)

    def prepare(self, texts: Sequence[str], scopes: Sequence[Collection[str] | None],
                documents: Sequence[str | None] | None = None) -> PreparedQueries:
        """The query vectors and lane hits of many texts, each kind in one batch, then
        their seeds.

        ``seeds(texts[i], scopes[i], prepared, document=documents[i])`` then gives
        exactly the seeds ``seeds(texts[i], scopes[i], document=documents[i])``
        gives. Dense spans are prepared from the mentions before sense picking; a
        span that picking changes is computed when asked. The seeds themselves are
        then found text by text and kept (``PreparedQueries.seeds``), so that the
        catalog rows of all of them can be read in one batch.
        """
        s = self.settings
        prepared = PreparedQueries()
        fusion = s.fusion
        active = active_lanes(fusion)
        windows = [[w.text for w in make_windows_with_metrics(
            text, s.windows, self.embedder.count_tokens, self.embedder.sequence_limit)[0]]
            for text in texts]
        of = documents_per_text(texts, documents)
        spans = [self._span_words(text, scope, document)
                 for text, scope, document in zip(texts, scopes, of, strict=True)]
        dense_texts = [t for ws in windows for t in ws] if active - {Lane.BM25} else []
        queries = list(dict.fromkeys(dense_texts + [w for ws in spans for w in ws]))
        prepared.add_dense(queries, self.embedder.embed_queries(queries))
        sparse_of = [bm25_texts(ws, fusion) for ws in windows]
        if Lane.BM25 in active:
            unique = list(dict.fromkeys(t for ts in sparse_of for t in ts))
            prepared.sparse.update(zip(unique, self.embedder.sparse_queries(unique),
                                       strict=True))
        depth = lane_depths(fusion)
        for scope, members in _by_scope(scopes).items():
            self._prepare_searches(prepared, scope, [windows[i] for i in members],
                                   [sparse_of[i] for i in members],
                                   [spans[i] for i in members], active, depth)
        for text, scoped, document in zip(texts, scopes, of, strict=True):
            key = seed_key(text, scoped, document)
            if key not in prepared.seeds:
                prepared.seeds[key] = self.seeds(text, scoped, prepared, document=document)
        return prepared

    def _prepare_searches(self, prepared: PreparedQueries, scope: tuple[str, ...] | None,
                          windows: Sequence[Sequence[str]], sparse: Sequence[Sequence[str]],
                          spans: Sequence[Sequence[str]], active: set[Lane],
                          depth: Mapping[Lane, int]) -> None:
        """One search batch per lane for the texts of one scope."""
        dense_texts = list(dict.fromkeys(t for ws in windows for t in ws))
        for lane in active - {Lane.BM25}:
            prepared.search(self.index, lane, dense_texts, [prepared.dense[t] for t in dense_texts],
                            depth[lane], scope)
        if Lane.BM25 in active:
            sparse_texts = list(dict.fromkeys(t for ts in sparse for t in ts))
            prepared.search(self.index, Lane.BM25, sparse_texts,
                            [prepared.sparse[t] for t in sparse_texts], depth[Lane.BM25], scope)
        words = list(dict.fromkeys(w for ws in spans for w in ws))
        if words:
            prepared.search(self.index, Lane.CORE, words, [prepared.dense[w] for w in words],
                            _SPAN_DEPTH, scope)

    def _span_words(self, text: str, scope: Collection[str] | None,
                    document: str | None = None) -> list[str]:
        """The words span-level dense matching will embed for ``text`` (before senses)."""
        s = self.settings
        if not (s.mentions.dense_spans and self.lane_on):
            return []
        mentions = self.mentions(text, scope, document)
        spans = span_candidates(text, [m for m in mentions if not m.contained],
                                s.mentions.dense_spans)
        return [word for _, _, word in spans]

    def _mention_hits(self, mentions: Sequence[Mention], windows: Sequence[Window]
                      ) -> list[list[LaneHit]]:
        """The mention lane's hits per window, with the index payloads of their terms."""
        iris = sorted({m.iri for m in mentions})
        payloads = {(p["iri"], p.get("ontology_hash", "")): p
                    for p in self.index.matching("iri", iris, limit=8 * len(iris))}
        return window_hits(mentions, windows, payloads, self.settings.fusion.mention_top_k)

    def _trigger_matches(self, text: str, scope: Sequence[str] | None
                         ) -> list[AtomPayload]:
        if not self.settings.triggers.enabled:
            return []
        tokens = list(dict.fromkeys(text_tokens(text)))
        if self.settings.triggers.skip_stopwords:
            tokens = [t for t in tokens if t.casefold() not in STOPWORDS]
        return self.index.matching("triggers", tokens, ontology_hashes=scope) if tokens else []

    def _unit_matches(self, tokens: list[str], scope: Sequence[str] | None
                      ) -> dict[str, list[AtomPayload]]:
        found: dict[str, list[AtomPayload]] = {}
        for token in tokens:
            variants = lexeme_variants(token)
            found[token] = self.index.matching("lexemes", variants, limit=32,
                                               ontology_hashes=scope)
        units = self._units()
        return only_units(found, units) if units else found

    def _triggers_add(self) -> bool:
        """Whether lexical triggers add terms: always without the mention lane (the
        reference); with it, only when ``mentions.triggers_add`` says so."""
        return not self.lane_on or self.settings.mentions.triggers_add

    def _unit_signals_add(self) -> bool:
        """Whether unit signals add terms: always without the mention lane (the
        reference); with it, only when ``mentions.unit_signals_add`` says so."""
        return not self.lane_on or self.settings.mentions.unit_signals_add

    def _units(self) -> frozenset[tuple[str, str]]:
        """The terms that are units of measure, when unit signals should name only them
        (``mentions.units_after_numbers``; known from the mention dictionary)."""
        m = self.settings.mentions
        if not (m.enabled and m.units_after_numbers) or self.dictionary is None:
            return frozenset()
        return self.dictionary.units


def _by_scope(scopes: Sequence[Collection[str] | None]
              ) -> dict[tuple[str, ...] | None, list[int]]:
    """Text positions grouped by their scope (sorted hashes, None for the whole index).

    >>> _by_scope([None, {"b", "a"}, None])
    {None: [0, 2], ('a', 'b'): [1]}
    """
    groups: dict[tuple[str, ...] | None, list[int]] = {}
    for position, scope in enumerate(scopes):
        groups.setdefault(None if scope is None else tuple(sorted(scope)), []).append(position)
    return groups


def _cut_settings(settings: Settings, scope: Collection[str] | None) -> SeedSettings:
    """The seed settings of one query: a scoped query keeps each window's top terms."""
    seeds = settings.seeds
    if scope is None or seeds.scoped_top_per_window <= seeds.evidence_top_per_window:
        return seeds
    return seeds.model_copy(update={"evidence_top_per_window": seeds.scoped_top_per_window})


def _scope_per_window(settings: Settings, scope: Collection[str] | None) -> int:
    """How deep a scoped query's evidence cut keeps each window's top terms on the scope's
    word alone (0: an unscoped query, or no deeper than ``scoped_top_per_window``)."""
    seeds = settings.seeds
    if scope is None or seeds.scoped_kept_per_window <= seeds.scoped_top_per_window:
        return 0
    return seeds.scoped_kept_per_window


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


def _no_funnel() -> SeedFunnel:
    """The funnel of a text with nothing to search: every count zero."""
    return SeedFunnel(fused_candidates=0, threshold_rejected=0, after_merge=0, after_ratio=0,
                      cap=None, after_cap=0, reserved_by_role=0, reserved_by_ontology=0,
                      windows_built=0, windows=0, window_bound="none", queries_truncated=0,
                      query_sequence_limit=None, hits_per_lane={}, added_by_triggers=0,
                      raised_by_triggers=0, case_demoted=0, case_dropped=0,
                      added_by_unit_signals=0, final_seeds=0)


class CoreVectors:
    """The core vectors one retrieval reads, each asked of the index once: senses, topic
    fit, MMR and the fit order all need them, mostly for the same terms.

    >>> class Index:
    ...     asked = []
    ...     def core_vectors(self, iris):
    ...         self.asked.append(list(iris))
    ...         return {i: i.upper() for i in iris if i != "gone"}
    >>> index = Index()
    >>> vectors = CoreVectors(index)  # type: ignore[arg-type]
    >>> vectors(["a", "gone"]), vectors(["b", "a", "gone"]), index.asked
    ({'a': 'A'}, {'b': 'B', 'a': 'A'}, [['a', 'gone'], ['b']])
    """

    def __init__(self, index: VectorIndex) -> None:
        self._index = index
        self._asked: set[str] = set()
        self._found: dict[str, DenseVector] = {}

    def __call__(self, iris: Sequence[str]) -> dict[str, DenseVector]:
        missing = sorted({iri for iri in iris if iri not in self._asked})
        if missing:
            self._found.update(self._index.core_vectors(missing))
            self._asked.update(missing)
        return {iri: self._found[iri] for iri in iris if iri in self._found}


def _evidence(seed: Seed, mentions: Sequence[Mention], tier: int, fit: float | None
              ) -> SeedEvidence:
    return evidence_from_payload(
        seed.payload, score=round(seed.score, 6), origin=seed.origin, role=seed.role,
        fused_score=None if seed.fused_score is None else round(seed.fused_score, 6),
        windows=seed.windows,
        lanes=[LaneRank(window=w, lane=e.lane.value, rank=e.rank,
                        raw_score=round(e.raw_score, 6)) for w, e in seed.evidence],
        mentions=evidence_of(mentions, seed.iri), notes=seed.notes, evidence_tier=tier,
        fit=fit)
