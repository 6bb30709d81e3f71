"""Retrieval: text -> seeds -> working graph -> induced subgraph -> ``Context``.

Composes the stages after the seeds (docs/context.md): the catalog read
(``catalog.reader``), expansion, the induced subgraph, small modules and the
token budget, with the modes (``auto``, ``vector``, ``lexical``,
``ontologies``), the diagnosis of an empty context and the degradation chain
(SPARQL pushdown, cached graphs, index payloads only). Every store failure
lands on the next level of the chain with ``metrics.degraded`` saying why;
nothing is raised for it. Exercised end to end by
tests/integration/test_retrieve.py (it needs an index and a store).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import pyoxigraph as ox

from ontoretrieve.backends import TripleStore
from ontoretrieve.backends.vector_index import VectorIndex
from ontoretrieve.catalog.reader import (
    CatalogAccess,
    CatalogReader,
    StoreFailure,
    choose_versions,
)
from ontoretrieve.catalog.rows import CatalogRows
from ontoretrieve.catalog.store import Catalog
from ontoretrieve.context.budget import Packed, pack, scope_alone_as_reserve
from ontoretrieve.context.builder import Namer, Subgraph
from ontoretrieve.context.deprecated import (
    DEPRECATION_FACT_PREDICATES,
    current_seeds,
    flag_deprecated,
)
from ontoretrieve.context.expand import ContextSeed, order_seeds, promote_types, schema_closure
from ontoretrieve.context.model import (
    Context,
    ContextMetrics,
    Diagnosis,
    Mode,
    OntologyRef,
    Snapshot,
    TermEvidence,
    serialize_triples,
)
from ontoretrieve.context.modules import cap_statements, small_module_closure, without_header
from ontoretrieve.context.names import accepted_languages, reached_name
from ontoretrieve.context.subgraph import induce
from ontoretrieve.context.tokens import TokenCounter, TokenCounterKind, counter_for, estimate_tokens
from ontoretrieve.index.build import (
    DEFAULT_TENANT,
    make_embedder,
    mention_store,
    open_query_index,
    query_state,
)
from ontoretrieve.index.embed import Embedder
from ontoretrieve.index.layers import VersionedIndex
from ontoretrieve.index.mention_match import MentionDictionary
from ontoretrieve.index.payload import evidence_from_payload
from ontoretrieve.index.state import IndexState, ontology_names, replacements
from ontoretrieve.query.batch import NOTHING_PREPARED, PreparedQueries
from ontoretrieve.query.documents import documents_per_text
from ontoretrieve.query.lexical import phrase_lexemes, text_tokens
from ontoretrieve.query.lookup import LookupResult, TermRule
from ontoretrieve.query.seeder import SeedRetriever
from ontoretrieve.query.selection import SCOPE_NOTE, cap_for
from ontoretrieve.query.windows import has_words
from ontoretrieve.rdf import sparql
from ontoretrieve.rdf.graph_index import RoleTable, Statement, WorkingGraph
from ontoretrieve.rdf.vocab import (
    RDF_PROPERTY,
    RDF_TYPE_NODE,
    RDFS_LABEL_NODE,
    SKOS_NOTATION_NODE,
    graph_name,
)
from ontoretrieve.records import (
    CatalogAccessMode,
    OntologyVersion,
    SeedEvidence,
    SeedFunnel,
    SeedOrigin,
    TermStep,
)
from ontoretrieve.settings import Settings
from ontoretrieve.settings.groups import DeprecatedSeeds, ExpandSettings

__all__ = ["Retriever"]

log = logging.getLogger(__name__)

_MATCHED = frozenset(TermStep(origin) for origin in SeedOrigin)
"""Seed origins that mean the text itself matched the term."""


class Retriever:
    """Builds contexts for texts over one tenant's index and catalog store."""

    def __init__(self, settings: Settings, store: TripleStore, index: VectorIndex,
                 state: IndexState, embedder: Embedder | None = None,
                 tenant: str = DEFAULT_TENANT) -> None:
        self.settings = settings
        self.store = store
        self.index = index
        self.state = state
        self.tenant = tenant
        self.reader = CatalogReader(store, catalog=Catalog.for_tenant(store, settings, tenant))
        self._embedder = embedder
        self._seeds: SeedRetriever | None = None
        self._dictionary: list[MentionDictionary | None] = []
        """Shared with variants: the mention dictionary, once loaded (an empty list: not yet)."""
        self._replacing: tuple[MentionDictionary, list[str], list[dict[str, str]]] | None = None
        """A dictionary of an earlier state, its versions and, per apply or rollback since,
        which version replaced which: made into this state's dictionary on first use
        (``MentionStore.changed``)."""
        self.roles = RoleTable.of(settings.index.label_predicates,
                                  settings.expand.symbol_predicates)
        self._whole_token_counts: dict[tuple[tuple[str, ...], str], int] = {}

    @classmethod
    def open(cls, settings: Settings, store: TripleStore, tenant: str = DEFAULT_TENANT,
             embedder: Embedder | None = None, *, reader: bool = False,
             wait_seconds: float | None = None) -> Retriever:
        """Open the tenant's index (checking its fingerprint); the model loads on first use.

        ``reader``: another process writes the data directory (see ``open_query_index``).
        """
        index, state = open_query_index(settings, tenant, reader=reader,
                                        wait_seconds=wait_seconds)
        return cls(settings, store, index, state, embedder, tenant)

    def close(self) -> None:
        self.index.close()

    def renewed(self) -> Retriever | None:
        """This retriever over the index as a sync just left it, keeping the open shard,
        the model and the graph cache (graphs are content-addressed); None, after
        closing this one, when the sync moved the index to a new location."""
        state = query_state(self.settings, self.tenant)
        raw = self.raw_index()
        if raw is None or state.location != self.state.location:
            self.close()
            return None
        other = Retriever(self.settings, self.store, VersionedIndex(raw, state), state,
                          self._seeds.embedder if self._seeds else self._embedder,
                          self.tenant)
        other.reader = self.reader.renewed()
        if set(state.ontologies) == set(self.state.ontologies):
            other._dictionary = self._dictionary
            other._replacing = self._replacing  # a change not read yet stays to be read
        else:
            other._replacing = self._replacing_after(state)
        return other

    def _replacing_after(self, state: IndexState
                         ) -> tuple[MentionDictionary, list[str], list[dict[str, str]]] | None:
        """What the next state's dictionary is made from, when an apply or a rollback
        replaced versions: this state's dictionary (or the one this state was itself to
        be made from) and the replacements since."""
        replaced = replacements(self.state, state)
        if not replaced:
            return None
        if self._dictionary and self._dictionary[0] is not None:
            return self._dictionary[0], sorted(self.state.ontologies), [replaced]
        if self._replacing is None:
            return None
        before, hashes, earlier = self._replacing
        return before, hashes, [*earlier, replaced]

    def raw_index(self) -> VectorIndex | None:
        """The open index under the version layer (what a sync may write through)."""
        return self.index.index if isinstance(self.index, VersionedIndex) else None

    def variant(self, settings: Settings) -> Retriever:
        """A retriever with other settings over the same open index, model and graph cache.

        For comparing settings in one process: a Qdrant Edge shard opens once per
        process, and the warm catalog caches make the variants' latencies comparable.
        Settings that change the index itself (atomization, model) need a rebuild instead.
        """
        other = Retriever(settings, self.store, self.index, self.state,
                          self.seed_retriever.embedder, self.tenant)
        other.reader = self.reader
        other._dictionary = self._dictionary
        other._replacing = self._replacing
        return other

    def lookup(self, mention: str, *, aliases: Mapping[str, Sequence[str]],
               rule: TermRule | None, limit: int) -> LookupResult:
        """Ranked candidate terms for one mention (``SeedRetriever.lookup``), deprecated
        ones flagged (with their successor) and moved after the others."""
        found = self.seed_retriever.lookup(mention, aliases=aliases, rule=rule, limit=limit)
        if not found.candidates:
            return found
        try:
            facts = self.reader.facts([c.iri for c in found.candidates],
                                      DEPRECATION_FACT_PREDICATES,
                                      self.reader.graphs_of(
                                          v.content_hash for v in self.reader.versions()))
        except StoreFailure:
            return found  # unflagged rather than no answer while the store is down
        return found.model_copy(update={"candidates": flag_deprecated(found.candidates, facts)})

    def catalog_key(self) -> tuple[str, ...] | None:
        """What a retrieval's answer depends on besides settings and text: the index's
        last update and the catalog versions; None when the store cannot say."""
        try:
            versions = self.reader.versions()
        except StoreFailure:
            return None
        return (self.state.updated_at.isoformat(), *sorted(v.content_hash for v in versions))

    @property
    def seed_retriever(self) -> SeedRetriever:
        if self._seeds is None:
            embedder = self._embedder or make_embedder(self.settings)
            self._seeds = SeedRetriever(self.settings, self.index, embedder,
                                        mentions=self._mention_dictionary)
        return self._seeds

    def _mention_dictionary(self) -> MentionDictionary | None:
        """Loaded once per index, whichever variant asks first."""
        if not self._dictionary:
            store = mention_store(self.settings, self.tenant)
            replacing = self._replacing
            changed = store.changed(*replacing) if replacing else None
            self._dictionary.append(changed or store.dictionary(sorted(self.state.ontologies)))
            # Only now: a reader arriving meanwhile makes the same change, not a build.
            self._replacing = None
        return self._dictionary[0]

    def retrieve(self, text: str, mode: Mode = Mode.AUTO,
                 ontologies: Sequence[str] = (), max_tokens: int | None = None,
                 count_tokens: TokenCounter | None = None, *,
                 prepared: PreparedQueries = NOTHING_PREPARED,
                 document: str | None = None) -> Context:
        """The context for ``text`` (what a batch ``prepared`` is taken from it).

        ``ontologies`` names ontologies by IRI, source file (path, file name or
        stem) or content hash: in ``ontologies`` mode they come back whole; in
        ``vector`` and ``lexical`` mode they are the query's scope, the only
        ontologies seeds come from (the context may still reach the ontologies
        they reference). ``auto`` returns the whole catalog (or the named
        ontologies) when it fits the budget, else it lets the text decide.

        ``max_tokens`` is the context's budget in prompt tokens, counted by
        ``count_tokens`` (default: ``context.token_counter``); without it the
        budget grows with the text (``context.base_tokens`` plus
        ``context.tokens_per_window`` per query window after the first). With ``context.budget``
        off only the triple cap applies.

        ``document`` is the whole text ``text`` comes from (a paper, of which
        ``text`` is a paragraph): the abbreviations it defines are read in
        ``text`` too (``mentions.document_abbreviations``).
        """
        return self.retrieve_at(text, [max_tokens], mode, ontologies, count_tokens,
                                prepared=prepared, document=document)[0]

    def retrieve_many(self, texts: Sequence[str], mode: Mode = Mode.AUTO,
                      ontologies: Sequence[str] = (), max_tokens: int | None = None,
                      count_tokens: TokenCounter | None = None,
                      documents: Sequence[str | None] | None = None) -> list[Context]:
        """The contexts of many texts, equal to ``retrieve`` of each (with
        ``documents[i]`` as ``texts[i]``'s document), sooner: the query vectors and lane
        hits of all of them are computed in one batch per kind
        (``SeedRetriever.prepare``), then their seeds, and the store's rows about all
        the seeds in one batch (``CatalogRows``); the rest text by text."""
        of = documents_per_text(texts, documents)
        prepared = self.prepare(texts, mode, ontologies, max_tokens, of)
        return [self.retrieve(text, mode, ontologies, max_tokens, count_tokens,
                              prepared=prepared, document=document)
                for text, document in zip(texts, of, strict=True)]

    def prepare(self, texts: Sequence[str], mode: Mode = Mode.AUTO,
                ontologies: Sequence[str] = (), max_tokens: int | None = None,
                documents: Sequence[str | None] | None = None) -> PreparedQueries:
        """The batch part of ``retrieve_many``: query vectors, lane hits, seeds and the
        store's rows about the seeds, of the texts that take the vector path (nothing
        for the other modes); ``documents[i]`` is ``texts[i]``'s document."""
        scope = self.state.named(ontologies) if ontologies else None
        if scope is not None and not scope:
            return PreparedQueries()
        of = documents_per_text(texts, documents)
        vector = [(t, d) for t, d in zip(texts, of, strict=True) if t.strip() and self._mode_of(
            mode, self.token_budget(t, max_tokens), ontologies) is Mode.VECTOR]
        if not vector:
            return PreparedQueries()
        prepared = self.seed_retriever.prepare([t for t, _ in vector], [scope] * len(vector),
                                               [d for _, d in vector])
        self._read_rows_ahead(prepared)
        return prepared

    def _read_rows_ahead(self, prepared: PreparedQueries) -> None:
        """The catalog rows every prepared text's seeds will ask for, in one batch: each
        text then reads the store only for a successor of a deprecated seed. A store
        that fails here is asked again text by text (and each walks the degradation
        chain as alone)."""
        iris = sorted({e.iri for result in prepared.seeds.values() for e in result.seeds})
        if not iris:
            return
        rows = prepared.catalog_rows()
        try:
            if DeprecatedSeeds(self.settings.seeds.deprecated) is not DeprecatedSeeds.KEEP:
                rows.fact_rows(self.reader.store, iris, DEPRECATION_FACT_PREDICATES)
            rows.reference_rows(self.reader.store, iris)
        except StoreFailure as exc:
            log.info("reading the batch's catalog rows failed, read per text: %s", exc)

    def _mode_of(self, mode: Mode, budget: int | None, ontologies: Sequence[str]) -> Mode:
        if mode is not Mode.AUTO:
            return mode
        return self._resolve_auto(budget, self.token_counter(None), ontologies)

    def retrieve_at(self, text: str, budgets: Sequence[int | None], mode: Mode = Mode.AUTO,
                    ontologies: Sequence[str] = (),
                    count_tokens: TokenCounter | None = None, *,
                    prepared: PreparedQueries = NOTHING_PREPARED,
                    document: str | None = None) -> list[Context]:
        """The context for ``text`` at each budget (None: the default one), the seeds and
        the subgraph computed once: for recall-against-tokens curves. What a batch
        ``prepared`` (``prepare``) is taken from it."""
        started = time.perf_counter()
        counter = self.token_counter(count_tokens)
        limits = [self.token_budget(text, b) for b in budgets]
        if mode is Mode.AUTO:
            mode = self._resolve_auto(max((b for b in limits if b), default=None), counter,
                                      ontologies)
        scope = self.state.named(ontologies) if ontologies else None
        made: dict[int | None, Context] = {}
        pool: _Pool | Context | None = None
        shared = 0.0  # seconds spent on what every budget shares (seeds, subgraph)
        for limit in dict.fromkeys(limits):
            begun = time.perf_counter()
            if mode in (Mode.FULL, Mode.ONTOLOGIES):
                made[limit] = self._whole(mode, ontologies, limit, counter)
            elif scope is not None and not scope:
                made[limit] = _empty(mode, Diagnosis.NO_SUCH_ONTOLOGY, warnings=[
                    f"no indexed ontology is named {', '.join(ontologies)!r}"])
            elif not has_words(text):
                made[limit] = _empty(mode, Diagnosis.NO_TEXT)
            else:
                if pool is None:
                    pool = self._pool(text, mode, scope, prepared, document)
                    shared = time.perf_counter() - started
                    begun = time.perf_counter()
                made[limit] = pool if isinstance(pool, Context) else self._finish(
                    pool, limit, counter)
            own = time.perf_counter() - begun
            made[limit] = made[limit].model_copy(update={"seconds": {
                **made[limit].seconds, "total": round(shared + own, 5)}})
        return [made[limit] for limit in limits]

    def token_budget(self, text: str, max_tokens: int | None = None) -> int | None:
        """The budget of one text: ``max_tokens`` when given, else ``context.max_tokens``,
        else the base plus a share per query window after the first; None when budgets
        are off."""
        c = self.settings.context
        if not c.budget:
            return None
        if max_tokens is not None:
            if max_tokens < 1:
                raise ValueError(f"max_tokens must be at least 1, not {max_tokens}")
            return max_tokens
        if c.max_tokens is not None:
            return c.max_tokens
        windows = self.seed_retriever.window_count(text)
        return c.base_tokens + c.tokens_per_window * max(0, windows - 1)

    def token_counter(self, count_tokens: TokenCounter | None = None) -> TokenCounter:
        """The counter budgets are measured in: the caller's, else ``context.token_counter``."""
        if count_tokens is not None:
            return count_tokens
        return counter_for(self.settings.context.token_counter,
                           lambda: self.seed_retriever.embedder.count_tokens)

    def _resolve_auto(self, budget: int | None, counter: TokenCounter,
                      names: Sequence[str]) -> Mode:
        """The whole catalog (or the named ontologies) when it is under the triple cap and
        fits the budget; else the text decides."""
        try:
            versions = self.reader.versions()
        except StoreFailure:
            return Mode.VECTOR
        whole = Mode.ONTOLOGIES if names else Mode.FULL
        chosen = [v for v in versions if _named(v, names)] if names else versions
        total = sum(v.triple_count for v in chosen)
        if not 0 < total <= self.settings.expand.context_max_triples:
            return Mode.VECTOR
        if budget is None:
            return whole
        return whole if self._whole_tokens(chosen, counter) <= budget else Mode.VECTOR

    def _whole_tokens(self, versions: Sequence[OntologyVersion], counter: TokenCounter) -> int:
        """Tokens of the whole chosen catalog as a context (kept per catalog state for the
        engine's own counters; a caller's counter is asked every time)."""
        kind = self._counter_kind(counter)
        key = (tuple(sorted(v.content_hash for v in versions)), kind or "")
        if kind is None or key not in self._whole_token_counts:
            # Packed with a budget nothing reaches: the languages and repeats the
            # context drops are not counted.
            context = self._whole(Mode.ONTOLOGIES, [v.content_hash for v in versions],
                                  _UNBOUNDED, counter)
            tokens = counter(context.serialize("turtle"))
            if kind is None:
                return tokens
            self._whole_token_counts[key] = tokens
        return self._whole_token_counts[key]

    def _counter_kind(self, counter: TokenCounter) -> str | None:
        """Which of the engine's counters ``counter`` is (None: the caller's own)."""
        if counter is estimate_tokens:
            return TokenCounterKind.ESTIMATE.value
        if self._seeds is not None and counter == self._seeds.embedder.count_tokens:
            return TokenCounterKind.ENCODER.value  # bound methods compare equal, not identical
        return None

    # -- whole-catalog modes -------------------------------------------------------------

    def _whole(self, mode: Mode, names: Sequence[str], budget: int | None,
               counter: TokenCounter) -> Context:
        access = CatalogAccess()
        try:
            versions = self.reader.versions()
        except StoreFailure as exc:
            return _empty(mode, Diagnosis.STORE_UNREACHABLE, degraded=str(exc))
        if not versions:
            return _empty(mode, Diagnosis.CATALOG_EMPTY)
        chosen = versions if mode is Mode.FULL else [v for v in versions if _named(v, names)]
        if not chosen:
            return _empty(mode, Diagnosis.NO_SUCH_ONTOLOGY,
                          warnings=[f"no catalog ontology is named {', '.join(names)!r}"])
        statements: list[Statement] = []
        parts = []
        limit = self.settings.expand.context_max_triples
        try:
            for version in chosen:
                if len(statements) > limit:
                    break  # already over the cap: fetching the rest would be thrown away
                part = self.reader.graph(version.content_hash, access)
                parts.append(part)
                statements.extend(without_header(part.ordered(), part.headers))
        except StoreFailure as exc:
            return _empty(mode, Diagnosis.STORE_UNREACHABLE, degraded=str(exc))
        capped, truncated = cap_statements(statements, limit)
        packed = None
        if budget is not None:
            packed = pack(capped, [], budget, counter, self.settings.context, self.roles)
            capped, truncated = packed.statements, truncated or packed.truncated
        graph = WorkingGraph(parts)
        refs = [_ref(v) for v in chosen[:len(parts)]]
        evidence = {}
        for s, _, _ in capped:
            if isinstance(s, ox.NamedNode) and s.value not in evidence:
                evidence[s.value] = _term(s.value, TermStep(mode.value), None, None, graph,
                                          versions)
        metrics = ContextMetrics(mode=mode, **_access_metrics(access),
                                 context_triples=len(capped), context_terms=len(evidence),
                                 truncated=truncated, **_budget_metrics(packed))
        return _context(mode, capped, [], evidence, Snapshot(cut_from=refs, writable=refs),
                        metrics)

    # -- vector and lexical modes --------------------------------------------------------

    def _pool(self, text: str, mode: Mode, scope: frozenset[str] | None,
              prepared: PreparedQueries = NOTHING_PREPARED,
              document: str | None = None) -> _Pool | Context:
        """Seeds, working graph, induced subgraph and small modules: what a budget is
        spent on (a Context when there is nothing to spend it on)."""
        seconds: dict[str, float] = {}
        evidence, funnel, reserve = self._seed_evidence(text, mode, scope, seconds, prepared,
                                                        document)
        if not evidence:
            diagnosis = Diagnosis.NO_LEXICAL_MATCH if mode is Mode.LEXICAL else (
                Diagnosis.CATALOG_EMPTY if not self.state.ontologies
                else Diagnosis.NO_HIT_ABOVE_FLOOR)
            return _empty(mode, diagnosis, funnel=funnel, seconds=seconds)
        clock = time.perf_counter()
        warnings: list[str] = _weak_evidence(funnel)
        seeds = _usable_seeds(evidence, warnings)
        if DeprecatedSeeds(self.settings.seeds.deprecated) is not DeprecatedSeeds.KEEP:
            seeds, evidence = self._current(seeds, evidence, warnings, prepared.catalog_rows())
            if not seeds:
                return _empty(mode, Diagnosis.ONLY_DEPRECATED_TERMS, funnel=funnel,
                              seconds=seconds, warnings=warnings)
        access = CatalogAccess()
        read = self._read_catalog(seeds, evidence, access, warnings, prepared.catalog_rows())
        if read is None:
            return self._atoms_context(mode, evidence, funnel, access, seconds, warnings)
        graph, versions, seeds, hashes = read
        seconds["catalog"] = time.perf_counter() - clock
        clock = time.perf_counter()
        if not any(graph.describes(s.node) for s in seeds):
            return _empty(mode, Diagnosis.SEEDS_NOT_IN_CATALOG, funnel=funnel, seconds=seconds,
                          warnings=warnings, evidence_seeds=evidence)
        promoted, closed, expand = self._expanded(graph, seeds)
        ordered = order_seeds(closed, expand.seed_order)
        sub = induce(graph, ordered, expand, self.roles,
                     _namer(graph, self.roles, expand, self.settings.context.languages))
        seconds["subgraph"] = time.perf_counter() - clock
        clock = time.perf_counter()
        statements, modules, module_triples = self._small_modules(sub, ordered, versions, access,
                                                                  warnings)
        capped, truncated = cap_statements(statements, expand.context_max_triples)
        seconds["closure"] = time.perf_counter() - clock
        return _Pool(mode, evidence, funnel, seeds, promoted, closed, ordered, graph,
                     versions, hashes, sub, modules, module_triples, capped, truncated, access,
                     warnings, seconds, reserve)

    def _current(self, seeds: list[ContextSeed], evidence: list[SeedEvidence],
                 warnings: list[str], rows: CatalogRows | None = None
                 ) -> tuple[list[ContextSeed], list[SeedEvidence]]:
        """The seeds with deprecated terms replaced or left out (``seeds.deprecated``), by
        one query over the seeds' own graphs; unchanged when the store cannot answer (the
        degradation chain below reports the store)."""
        try:
            facts = self.reader.facts([s.iri for s in seeds], DEPRECATION_FACT_PREDICATES,
                                      self.reader.graphs_of(s.ontology for s in seeds), rows)
        except StoreFailure:
            return seeds, evidence
        return current_seeds(facts, seeds, evidence, self.settings.seeds.deprecated, warnings)

    def _seed_evidence(self, text: str, mode: Mode, scope: frozenset[str] | None,
                       seconds: dict[str, float], prepared: PreparedQueries,
                       document: str | None = None
                       ) -> tuple[list[SeedEvidence], SeedFunnel | None, list[str]]:
        """The seeds of the text (exact lexical rules only, or the whole query path), the
        funnel, and the candidates the cut left out, best first."""
        if mode is Mode.LEXICAL:
            clock = time.perf_counter()
            evidence = self._lexical_seeds(text, None if scope is None else sorted(scope))
            seconds["seeds"] = time.perf_counter() - clock
            return evidence, None, []
        result = self.seed_retriever.seeds(text, scope, prepared, document=document)
        seconds.update(result.seconds)
        return result.seeds, result.funnel, result.reserve

    def _read_catalog(self, seeds: list[ContextSeed], evidence: Sequence[SeedEvidence],
                      access: CatalogAccess, warnings: list[str], rows: CatalogRows | None = None
                      ) -> tuple[WorkingGraph, list[OntologyVersion], list[ContextSeed],
                                 list[str]] | None:
        """The working graph, down the degradation chain: targeted reads, then whole
        graphs; None when the store cannot be read at all (payloads only, then)."""
        try:
            return self._working_graph(seeds, evidence, access, warnings, rows)
        except StoreFailure as exc:
            access.failures.append(str(exc))
        try:
            graph, versions, hashes = self._full_fetch(seeds, access)
        except StoreFailure as exc:
            access.failures.append(str(exc))
            access.access_mode = CatalogAccessMode.ATOMS_FALLBACK
            return None
        access.access_mode = CatalogAccessMode.FULL_FETCH_FALLBACK
        return graph, versions, seeds, hashes

    def _expanded(self, graph: WorkingGraph, seeds: list[ContextSeed]
                  ) -> tuple[list[ContextSeed], list[ContextSeed], ExpandSettings]:
        """Type promotion and schema closure, and the expansion settings the subgraph uses
        (without the graph stage: every seed a hub of one level, nothing around it)."""
        expand = self.settings.expand
        if not expand.graph_stage:
            return seeds, seeds, expand.model_copy(update={
                "depth": 1, "hub_seed_count": 0, "ancestor_closure_depth": 0})
        promoted = promote_types(graph, seeds, expand.type_promotion_score_factor)
        closed = schema_closure(graph, promoted, expand.schema_closure_ancestor_depth,
                                expand.schema_closure_max_entities)
        return promoted, closed, expand

    def _finish(self, pool: _Pool, budget: int | None, counter: TokenCounter) -> Context:
        """The pool spent within ``budget`` (None: all of it), with its evidence and metrics."""
        clock = time.perf_counter()
        capped, truncated, packed = pool.statements, pool.truncated, None
        seconds = dict(pool.seconds)
        if budget is not None:
            usable = {s.iri for s in pool.seeds}  # never a tampered IRI the pool left out
            tiers, ranked = scope_alone_as_reserve(
                [(e.iri, e.evidence_tier) for e in pool.evidence if e.iri in usable],
                {e.iri for e in pool.evidence if SCOPE_NOTE in e.notes}, pool.reserve)
            confidences = {e.iri: e.confidence for e in pool.evidence
                           if e.iri in usable and e.confidence is not None}
            packed = pack(capped, tiers, budget, counter, self.settings.context, self.roles,
                          ranked=ranked, confidences=confidences)
            capped, truncated = packed.statements, truncated or packed.truncated
            seconds["budget"] = time.perf_counter() - clock
        by_iri = {s.iri: s for s in pool.ordered}
        term_evidence: dict[str, TermEvidence] = {}
        for s, _, _ in capped:
            if not isinstance(s, ox.NamedNode) or s.value in term_evidence:
                continue
            seed = by_iri.get(s.value)
            if seed is not None:
                term_evidence[s.value] = _term(s.value, seed.origin, seed.via, seed.score,
                                               pool.graph, pool.versions, seed.ontology)
            else:
                admission = pool.sub.origin.get(s)
                step = admission.step if admission else TermStep.SMALL_MODULE
                term_evidence[s.value] = _term(s.value, step, admission.via if admission else None,
                                               None, pool.graph, pool.versions)
        used = {e.ontology_hash for e in term_evidence.values() if e.ontology_hash}
        cut_from = [_ref(v) for v in pool.versions if v.content_hash in used | set(pool.hashes)]
        matched = {s.ontology for s in pool.seeds if s.origin in _MATCHED}
        access = pool.access
        metrics = ContextMetrics(
            mode=pool.mode, seeds=pool.funnel, seed_terms=len(pool.seeds),
            promoted_types=len(pool.promoted) - len(pool.seeds),
            schema_closure_added=len(pool.closed) - len(pool.promoted),
            versions_relaxed=len(pool.warnings), **_access_metrics(access),
            subgraph=asdict(pool.sub.metrics), small_modules=pool.modules,
            small_module_triples=pool.module_triples, context_triples=len(capped),
            context_terms=len(term_evidence), truncated=truncated,
            degraded="; ".join(access.failures) or None, **_budget_metrics(packed))
        snapshot = Snapshot(cut_from=cut_from,
                            writable=[r for r in cut_from if r.content_hash in matched])
        context = _context(pool.mode, capped, pool.evidence, term_evidence, snapshot, metrics,
                           warnings=pool.warnings)
        update: dict[str, object] = {"seconds": {k: round(v, 5) for k, v in seconds.items()}}
        if packed is not None and not capped and pool.seeds:
            update["diagnosis"] = Diagnosis.BUDGET_TOO_SMALL
            update["warnings"] = [*context.warnings, (
                f"a budget of {budget} tokens holds none of the {len(pool.seeds)} seed(s), "
                "not even the best one's label: give a larger max_tokens")]
        return context.model_copy(update=update)

    def _working_graph(self, seeds: list[ContextSeed], evidence: Sequence[SeedEvidence],
                       access: CatalogAccess, warnings: list[str],
                       rows: CatalogRows | None = None
                       ) -> tuple[WorkingGraph, list[OntologyVersion], list[ContextSeed],
                                  list[str]]:
        """Level 1 of the chain: version filter, targeted SELECT, merged or pushed-down graph."""
        versions = self.reader.versions()
        choice = choose_versions(
            [(e.ontology_hash, e.ontology_iri, e.ontology_version) for e in evidence], versions)
        warnings.extend(choice.warnings)
        for warning in choice.warnings:
            log.warning(warning)
        seeds = [ContextSeed(s.iri, s.score, s.rank, choice.mapping[s.ontology], s.origin,
                             s.role, s.via) for s in seeds if s.ontology in choice.mapping]
        hashes = choice.hashes
        extra = self.reader.referenced_versions([s.iri for s in seeds], hashes, versions, rows)
        by_hash = {v.content_hash: v for v in versions}
        access.expanded_ontology_iris = list(dict.fromkeys(by_hash[h].ontology_iri
                                                           for h in extra))
        hashes = hashes + extra
        if self.settings.expand.candidate_pushdown:
            x = self.settings.expand
            levels = max(x.depth, x.ancestor_closure_depth) + 1
            graph = self.reader.neighbourhood([s.iri for s in seeds], hashes, levels, access)
        else:
            graph = self.reader.merged(hashes, access)
        access.context_triples = len(graph)
        return graph, versions, seeds, hashes

    def _full_fetch(self, seeds: list[ContextSeed], access: CatalogAccess
                    ) -> tuple[WorkingGraph, list[OntologyVersion], list[str]]:
        """Level 2: graphs fetched by name, references found by scanning the indexed ones."""
        hashes = [h for h in dict.fromkeys(s.ontology for s in seeds) if h]
        candidates = sorted(self.state.ontologies)
        extra = self.reader.referenced_by_scan([s.iri for s in seeds], hashes, candidates,
                                               access)
        graph = self.reader.merged(hashes + extra, access)
        access.context_triples = len(graph)
        versions = [_indexed_version(h, self.state) for h in hashes + extra]
        access.expanded_ontology_iris = list(dict.fromkeys(
            v.ontology_iri for v in versions if v.content_hash in extra))
        return graph, versions, hashes + extra

    def _small_modules(self, sub: Subgraph, seeds: Sequence[ContextSeed],
                       versions: Sequence[OntologyVersion], access: CatalogAccess,
                       warnings: list[str]) -> tuple[list[Statement], list[str], int]:
        x = self.settings.expand
        if not x.graph_stage:
            return sub.statements, [], 0
        best: dict[str, float] = {}
        for seed in seeds:
            if seed.origin in _MATCHED and seed.ontology:
                best[seed.ontology] = max(best.get(seed.ontology, 0.0), seed.score)
        sizes = {v.content_hash: v.triple_count for v in versions}
        modules = []
        try:
            for content_hash, score in best.items():
                if sizes.get(content_hash, x.small_module_closure_max_triples + 1) \
                        <= x.small_module_closure_max_triples:
                    part = self.reader.graph(content_hash, access)
                    modules.append((content_hash, score, part.ordered(), part.headers))
        except StoreFailure as exc:
            warnings.append(f"small-module closure skipped: {exc}")
            access.failures.append(str(exc))
        added, used = small_module_closure(modules, sub.statements,
                                           x.small_module_closure_max_triples,
                                           x.small_module_closure_max_total_triples)
        return sub.statements + added, used, len(added)

    def _atoms_context(self, mode: Mode, evidence: Sequence[SeedEvidence],
                       funnel: SeedFunnel | None,
                       access: CatalogAccess, seconds: dict[str, float],
                       warnings: list[str]) -> Context:
        """Level 3: the store is unreachable; labels and symbols from the index payloads."""
        payloads = {p["iri"]: p for p in self.index.matching(
            "iri", [e.iri for e in evidence], limit=len(evidence) * 4)}
        statements: list[Statement] = []
        terms: dict[str, TermEvidence] = {}
        for e in evidence:
            payload = payloads.get(e.iri, {})
            node = ox.NamedNode(e.iri)
            if e.role == "predicate":
                statements.append((node, RDF_TYPE_NODE, ox.NamedNode(RDF_PROPERTY)))
            statements.extend((node, RDFS_LABEL_NODE, ox.Literal(v))
                              for v in payload.get("labels", []))
            statements.extend((node, SKOS_NOTATION_NODE, ox.Literal(v))
                              for v in payload.get("symbols", []))
            terms[e.iri] = TermEvidence(iri=e.iri, step=TermStep.ATOMS_FALLBACK, score=e.score,
                                        ontology_iri=e.ontology_iri,
                                        ontology_version=e.ontology_version,
                                        ontology_hash=e.ontology_hash)
        capped, truncated = cap_statements(statements, self.settings.expand.context_max_triples)
        refs = list({e.ontology_hash: OntologyRef(ontology_iri=e.ontology_iri,
                                                  version=e.ontology_version,
                                                  content_hash=e.ontology_hash)
                     for e in evidence}.values())
        metrics = ContextMetrics(mode=mode, seeds=funnel,
                                 seed_terms=len(evidence), **_access_metrics(access),
                                 context_triples=len(capped), context_terms=len(terms),
                                 truncated=truncated, degraded="; ".join(access.failures))
        warnings = [*warnings, "the catalog store is unreachable: context built from the "
                    "index's stored labels and symbols only"]
        context = _context(mode, capped, evidence, terms, Snapshot(cut_from=refs, writable=[]),
                           metrics, warnings=warnings)
        return context.model_copy(update={"seconds": {k: round(v, 5)
                                                       for k, v in seconds.items()}})

    def _lexical_seeds(self, text: str, scope: Sequence[str] | None = None
                       ) -> list[SeedEvidence]:
        """Exact-case triggers, then folded label phrases (longest first), no embedding;
        only from the ontology versions in ``scope`` when given."""
        score = self.settings.triggers.score
        tokens = list(dict.fromkeys(text_tokens(text)))
        found: dict[str, SeedEvidence] = {}
        groups = [(SeedOrigin.TRIGGER, self.index.matching(
            "triggers", tokens, ontology_hashes=scope) if tokens else [])]
        phrases = phrase_lexemes(text)
        groups.append((SeedOrigin.LEXICAL_MATCH, self.index.matching(
            "lexemes", phrases, limit=512, ontology_hashes=scope) if phrases else []))
        for origin, payloads in groups:
            for p in payloads:
                if p["iri"] not in found and not p.get("is_header"):
                    found[p["iri"]] = evidence_from_payload(p, score=score, origin=origin)
        limit = cap_for(1, self.settings.seeds) or len(found)
        return list(found.values())[:limit]


def _usable_seeds(evidence: Sequence[SeedEvidence], warnings: list[str]) -> list[ContextSeed]:
    """The seeds as context seeds, without any whose IRI or ontology SPARQL cannot carry."""
    seeds = [ContextSeed(e.iri, e.score, rank, e.ontology_hash, TermStep(e.origin), e.role)
             for rank, e in enumerate(evidence, start=1)]
    unusable = [s.iri for s in seeds if not _queryable(s)]
    if unusable:
        # Only a tampered or foreign index holds these; they must never reach a query.
        warnings.append(f"{len(unusable)} seed(s) with an IRI or ontology hash that cannot "
                        f"be used in SPARQL were left out: {unusable[:3]!r}")
    return [s for s in seeds if _queryable(s)] if unusable else seeds


def _queryable(seed: ContextSeed) -> bool:
    try:
        sparql.iri(seed.iri)
        sparql.iri(graph_name(seed.ontology))
    except ValueError:
        return False
    return True


def _named(version: OntologyVersion, names: Sequence[str]) -> bool:
    keys = ontology_names(version.ontology_iri, version.content_hash, [version.source])
    return any(name in keys for name in names)


def _ref(version: OntologyVersion) -> OntologyRef:
    return OntologyRef(ontology_iri=version.ontology_iri, version=version.version,
                       content_hash=version.content_hash, source=version.source)


def _indexed_version(content_hash: str, state: IndexState) -> OntologyVersion:
    """A stand-in version record from the index state, when the catalog cannot be read."""
    from datetime import UTC, datetime

    info = state.ontologies.get(content_hash)
    return OntologyVersion(
        ontology_iri=info.ontology_iri if info else "", iri_derived=False,
        version=info.version if info else None, content_hash=content_hash,
        graph=graph_name(content_hash),
        source=info.sources[0] if info and info.sources else "", file_digest="",
        rdf_format="", triple_count=0, loaded_at=datetime.now(UTC), status="current")


def _term(iri: str, step: TermStep, via: str | None, score: float | None, graph: WorkingGraph,
          versions: Sequence[OntologyVersion], ontology: str | None = None) -> TermEvidence:
    owners = graph.owners(ox.NamedNode(iri))
    content_hash = ontology if ontology in owners or not owners else owners[0]
    version = next((v for v in versions if v.content_hash == content_hash), None)
    return TermEvidence(iri=iri, step=step, via=via,
                        score=None if score is None else round(score, 6),
                        ontology_iri=version.ontology_iri if version else None,
                        ontology_version=version.version if version else None,
                        ontology_hash=content_hash or None)


def _access_metrics(access: CatalogAccess) -> dict[str, object]:
    return {
        "catalog_access_mode": access.access_mode,
        "catalog_context_mode": access.context_mode,
        "catalog_context_triples": access.context_triples,
        "catalog_graph_cache_hits": access.graph_cache_hits,
        "catalog_graph_cache_misses": access.graph_cache_misses,
        "catalog_merge_cache_hits": access.merge_cache_hits,
        "catalog_merge_cache_misses": access.merge_cache_misses,
        "expanded_ontology_iris": access.expanded_ontology_iris,
    }


def _context(mode: Mode, statements: Sequence[Statement], seeds: Sequence[SeedEvidence],
             evidence: dict[str, TermEvidence], snapshot: Snapshot, metrics: ContextMetrics,
             warnings: Sequence[str] = ()) -> Context:
    triples = [ox.Triple(s, p, o) for s, p, o in statements]
    return Context(mode=mode, ntriples=serialize_triples(triples, "ntriples"),
                   terms=list(evidence), seeds=list(seeds), evidence=evidence,
                   snapshot=snapshot, metrics=metrics, warnings=list(warnings))


def _weak_evidence(funnel: SeedFunnel | None) -> list[str]:
    """A warning when no seed has lexical or agreeing evidence (the text may be off-catalog).

    >>> _weak_evidence(None)
    []
    """
    if funnel is None or funnel.after_evidence is None:
        return []
    kept = funnel.kept_by
    lexical = (kept.get("mention", 0) + kept.get("agreement", 0) + funnel.added_by_triggers
               + funnel.added_by_unit_signals + funnel.raised_by_triggers)
    if lexical:
        return []
    return [f"weak evidence: the text names no catalog term and no two lanes agree; the "
            f"{funnel.final_seeds} seed(s) are only near the text in one lane, so the "
            "catalog may not cover it"]


def _namer(graph: WorkingGraph, roles: RoleTable, expand: ExpandSettings,
           languages: Sequence[str]) -> Namer | None:
    """How the subgraph stage names the terms it reaches (``expand.name_reached_terms``)."""
    if not expand.name_reached_terms:
        return None
    accepted = accepted_languages(languages)
    return lambda node: reached_name(node, graph.out(node), roles, accepted)


def _empty(mode: Mode, diagnosis: Diagnosis, *, funnel: SeedFunnel | None = None,
           seconds: dict[str, float] | None = None, warnings: Sequence[str] = (),
           degraded: str | None = None,
           evidence_seeds: Sequence[SeedEvidence] = ()) -> Context:
    metrics = ContextMetrics(mode=mode, seeds=funnel, degraded=degraded)
    return Context(mode=mode, ntriples="", terms=[], seeds=list(evidence_seeds), evidence={},
                   snapshot=Snapshot(cut_from=[], writable=[]), metrics=metrics,
                   diagnosis=diagnosis, warnings=list(warnings),
                   seconds={k: round(v, 5) for k, v in (seconds or {}).items()})


_UNBOUNDED = 1 << 40
"""A budget no context reaches: packing that only filters languages and repeats."""


@dataclass
class _Pool:
    """What the subgraph stage kept for one text, before a budget is spent on it."""

    mode: Mode
    evidence: list[SeedEvidence]
    funnel: SeedFunnel | None
    seeds: list[ContextSeed]
    promoted: list[ContextSeed]
    closed: list[ContextSeed]
    ordered: list[ContextSeed]
    graph: WorkingGraph
    versions: list[OntologyVersion]
    hashes: list[str]
    sub: Subgraph
    modules: list[str]
    module_triples: int
    statements: list[Statement]
    truncated: bool
    access: CatalogAccess
    warnings: list[str]
    seconds: dict[str, float]
    reserve: list[str]
    """Candidates the seed cut left out, best first: the order a budget adds the pool's
    other terms in (``context.reached_order``)."""


def _budget_metrics(packed: Packed | None) -> dict[str, Any]:
    """What a budget cost and dropped, for ``ContextMetrics``."""
    if packed is None:
        return {}
    return {"token_budget": packed.budget, "context_tokens": packed.tokens,
            "budget": {"languages_dropped": packed.languages_dropped,
                       "repeats_dropped": packed.repeats_dropped,
                       "definitions_cut": packed.definitions_cut,
                       "seeds_stubbed": packed.seeds_stubbed,
                       "seeds_left_out": packed.seeds_left_out}}
