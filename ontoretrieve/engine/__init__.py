"""The Python API: one ``Engine`` per process, every operation per tenant.

The CLI, HTTP and MCP surfaces are thin shells over this class. An engine
holds one triple store, one embedding model (loaded on first use, shared by
all tenants) and, per tenant, an open retriever, a lock, an overlay and a
partition of the result cache. Operations of one tenant run one at a time
(the model already uses both cores); tenants do not wait for each other.
A catalog load closes the tenant's retriever first, so every answer comes
from one consistent catalog and index version.

>>> from ontoretrieve.settings import load_settings
>>> with Engine.open(load_settings(), in_memory=True) as engine:
...     engine.tenants()
['default']
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from ontoretrieve.backends import TripleStore, open_triple_store
from ontoretrieve.backends.access import (
    Access,
    WriterLock,
    busy_error,
    claim,
    file_stamp,
    not_writable_error,
)
from ontoretrieve.catalog.files import stage_upload
from ontoretrieve.catalog.store import Catalog, ProgressCallback
from ontoretrieve.collector import raise_young_threshold
from ontoretrieve.context.model import Context, Mode
from ontoretrieve.context.overlay import OverlayRule, apply_overlay
from ontoretrieve.context.retriever import Retriever
from ontoretrieve.context.tokens import TokenCounter, counter_for
from ontoretrieve.engine.adapters import (
    Adapter,
    CatalogAdapter,
    FanOutResult,
    SparqlEndpointAdapter,
    fan_out,
)
from ontoretrieve.engine.doctor import DoctorReport, examine
from ontoretrieve.engine.documents import TermDocument, term_documents
from ontoretrieve.engine.result_cache import ResultCache
from ontoretrieve.engine.results import CatalogListing
from ontoretrieve.engine.slices import KnowledgeSlice, build_slice
from ontoretrieve.errors import (
    OntoRetrieveError,
    TextTooLongError,
)
from ontoretrieve.index.build import (
    IndexStatus,
    digest_store,
    index_status,
    make_embedder,
    sync_index,
    tenant_dir,
)
from ontoretrieve.index.delta import VersionDelta
from ontoretrieve.index.embed import Embedder
from ontoretrieve.index.sync import SyncProgress
from ontoretrieve.proposals.model import AppliedVersion, ApplyResult, Proposal, ProposalReport
from ontoretrieve.proposals.runner import Planned, ProposalRunner
from ontoretrieve.query.batch import NOTHING_PREPARED, PreparedQueries
from ontoretrieve.query.documents import document_key, documents_per_text
from ontoretrieve.query.lookup import LookupResult
from ontoretrieve.rdf.graph_index import Statement
from ontoretrieve.records import LoadReport, OntologyVersion, SeedEvidence, SyncReport
from ontoretrieve.settings import Settings, load_settings
from ontoretrieve.settings.tenants import (
    DEFAULT_TENANT,
    OverlaySettings,
    catalog_layers,
    require_tenant,
)

__all__ = ["Engine"]

DEFAULT_DOCUMENTS = 8
"""Terms ``documents`` returns unless told (a framework's usual ``k``)."""
DEFAULT_DOCUMENT_TOKENS = 4_000
"""The budget of the context ``documents`` cuts its terms from."""

_VALIDATED_TRIPLES = 4_000_000
"""Largest validated proposal (triples of its new versions) kept for the apply after it."""

class _Tenant:
    def __init__(self, name: str, overlay: OverlaySettings, hidden: Sequence[str]) -> None:
        self.name = name
        self.lock = threading.RLock()
        """Held by every operation on the tenant's index: reads, and a write's switch."""
        self.writing = threading.RLock()
        """Held for the whole of a write (load, apply, rollback): one writer at a time,
        while reads go on until the write needs the index."""
        self.validated: tuple[tuple[str, ...], ProposalReport, list[Planned]] | None = None
        """The last proposal validated, under the key of everything its checks read."""
        self.retriever: Retriever | None = None
        self.opened_state: tuple[int, int] | None = None
        """The index state file (inode, mtime) the retriever was opened on."""
        self.rule = OverlayRule.of(overlay, hidden)
        self.aliases = overlay.aliases
        self.counts: Counter[str] = Counter()
        self.seconds: dict[str, float] = {}


def _renewed(held: Retriever) -> Retriever | None:
    """The retriever moved to the index state a sync left, its shard kept open; None
    (closed) when it cannot be (the next read opens the index and says why)."""
    try:
        return held.renewed()
    except OntoRetrieveError:
        held.close()
        return None


class Engine:
    """Retrieve, slice, look up and manage catalogs, per tenant."""

    def __init__(self, settings: Settings, store: TripleStore,
                 embedder: Embedder | None = None, *,
                 writer_lock: WriterLock | None = None, reader: bool = False) -> None:
        self.settings = settings
        self.store = store
        self.writer_lock = writer_lock
        """This process's hold on the data directory (None: in memory, or a reader)."""
        self.writable = not reader
        """False beside another process that writes the data directory: writes then
        raise ``DataDirBusyError``, reads go on (the index through a replica)."""
        self.cache = ResultCache(settings.server.result_cache_size)
        # At Python's young-collection threshold a warm engine spent 9-12 % of its
        # time collecting: see ontoretrieve/collector.py.
        raise_young_threshold(settings.server.young_collection_threshold)
        self._embedder = embedder
        self._lock = threading.Lock()
        self._tenants: dict[str, _Tenant] = {}
        dumped = settings.model_dump_json(exclude={"tenants", "server"})
        self.settings_key = hashlib.sha256(dumped.encode()).hexdigest()[:16]

    @classmethod
    def open(cls, settings: Settings | None = None, *, in_memory: bool = False,
             embedder: Embedder | None = None, access: Access | str = Access.AUTO,
             wait_seconds: float = 0.0) -> Engine:
        """An engine over the configured store (``load_settings()`` when none is given).

        One process writes a data directory, any number read it (see
        ``backends.access``): with ``access="auto"`` the engine writes when no other
        process does and otherwise reads beside it (its writes then raise
        ``DataDirBusyError``); ``"write"`` insists on writing, waiting up to
        ``wait_seconds`` for the other writer; ``"read"`` never takes the lock.

        Raises:
            DataDirBusyError: ``access="write"`` and another process writes.
            StoreUnavailableError: the store cannot be opened.
        """
        settings = settings or load_settings()
        if in_memory:
            return cls(settings, open_triple_store(settings, in_memory=True), embedder)
        lock = claim(settings.data_dir, Access(access), wait_seconds)
        try:
            store = open_triple_store(settings, writer=lock is not None)
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        return cls(settings, store, embedder, writer_lock=lock, reader=lock is None)

    def _require_writable(self) -> None:
        if not self.writable:
            raise (not_writable_error(self.settings.data_dir)
                   or busy_error(self.settings.data_dir))

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close every tenant's index, then the store."""
        for tenant in list(self._tenants.values()):
            with tenant.lock:
                self._close_retriever(tenant)
        self.store.close()
        if self.writer_lock is not None:
            self.writer_lock.release()

    # -- tenants -------------------------------------------------------------------------

    def tenants(self) -> list[str]:
        """The declared tenants, ``default`` first."""
        return [DEFAULT_TENANT, *(t for t in self.settings.tenants if t != DEFAULT_TENANT)]

    def _tenant(self, name: str) -> _Tenant:
        require_tenant(self.settings.tenants, name)
        with self._lock:
            if name not in self._tenants:
                config = self.settings.tenants.get(name)
                self._tenants[name] = _Tenant(
                    name, config.overlay if config else OverlaySettings(),
                    self.settings.server.hidden_predicates)
            return self._tenants[name]

    def embedder(self) -> Embedder:
        """The one embedding model of this engine (about a second to load, once)."""
        with self._lock:
            if self._embedder is None:
                self._embedder = make_embedder(self.settings)
            return self._embedder

    def _retriever(self, tenant: _Tenant) -> Retriever:
        if tenant.retriever is not None and not self.writable:
            self._follow_writer(tenant)
        if tenant.retriever is None:
            tenant.retriever = Retriever.open(self.settings, self.store, tenant.name,
                                              self.embedder(), reader=not self.writable)
            tenant.opened_state = file_stamp(self._state_file(tenant))
        return tenant.retriever

    def _state_file(self, tenant: _Tenant) -> Path:
        return tenant_dir(self.settings, tenant.name) / "state.json"

    def _follow_writer(self, tenant: _Tenant) -> None:
        """A reader moves to the index the writing process last left, once a replica of
        it can be made without waiting; until then it answers from the one it has."""
        stamp = file_stamp(self._state_file(tenant))
        if stamp == tenant.opened_state or tenant.retriever is None:
            return
        try:
            fresh = Retriever.open(self.settings, self.store, tenant.name, self.embedder(),
                                   reader=True, wait_seconds=0.0)
        except OntoRetrieveError:
            return  # a sync is writing: try again on the next request
        self._close_retriever(tenant)
        tenant.retriever, tenant.opened_state = fresh, stamp
        self.cache.clear(tenant.name)

    def _close_retriever(self, tenant: _Tenant) -> None:
        if tenant.retriever is not None:
            tenant.retriever.close()
            tenant.retriever = None

    @contextmanager
    def _operation(self, tenant: _Tenant, name: str) -> Iterator[None]:
        """Counted, timed, and holding the tenant's index lock."""
        with tenant.lock, self._counted(tenant, name):
            yield

    @staticmethod
    @contextmanager
    def _counted(tenant: _Tenant, name: str) -> Iterator[None]:
        """Counted and timed (errors apart), without a lock."""
        started = time.perf_counter()
        try:
            yield
        except Exception:
            tenant.counts[f"{name}_errors"] += 1
            raise
        finally:
            tenant.counts[name] += 1
            tenant.seconds[name] = (tenant.seconds.get(name, 0.0)
                                    + time.perf_counter() - started)

    def _check_text(self, text: str) -> None:
        if not isinstance(text, str):
            hint = (" (for many texts use retrieve_many)"
                    if isinstance(text, list | tuple) else "")
            raise OntoRetrieveError(f"the text must be a str, not {type(text).__name__}"
                                    f"{hint}")
        limit = self.settings.server.max_text_chars
        if len(text) > limit:
            raise TextTooLongError(f"the text has {len(text):,} characters; the limit "
                                   f"(server.max_text_chars) is {limit:,}")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            # A lone surrogate (from a JSON "\ud800" escape, or a decoder's
            # surrogateescape) is no character: the tokenizers and stores fail on it.
            raise OntoRetrieveError(
                f"the text is not valid Unicode: a lone surrogate "
                f"U+{ord(text[exc.start]):04X} at character {exc.start}") from None

    # -- retrieval -----------------------------------------------------------------------

    def retrieve(self, text: str, *, tenant: str = DEFAULT_TENANT,
                 mode: Mode | str = Mode.AUTO, ontologies: Sequence[str] = (),
                 max_tokens: int | None = None,
                 count_tokens: TokenCounter | None = None,
                 document: str | None = None) -> Context:
        """The tenant's context for ``text`` (cached; the overlay applied).

        ``ontologies`` (IRI, file name, file stem or content hash): with mode
        ``ontologies`` they come back whole; in the other modes they scope the
        query, so seeds come only from them. ``max_tokens`` is a hard budget in
        prompt tokens as ``count_tokens`` counts them (default: an estimate of
        an LLM tokenizer, ``context.token_counter``); without it the budget
        grows with the text (``context.base_tokens`` + ``context.tokens_per_window``).
        ``document`` is the whole text ``text`` is part of (a paper, ``text`` one of
        its paragraphs): the abbreviations it defines elsewhere ("brown adipose
        tissue (BAT)") are read in ``text`` ("BAT" names *brown adipose tissue*;
        ``mentions.document_abbreviations``).

        Raises:
            TextTooLongError: the text or the document is over ``server.max_text_chars``.
            OntoRetrieveError: ``max_tokens`` is below 1, or the tenant is unknown.
        """
        state = self._request(tenant, text, max_tokens)
        self._check_document(document)
        with self._operation(state, "retrieve"):
            return self._context(state, text, _mode(mode), ontologies, max_tokens, count_tokens,
                                 document=document)

    def retrieve_many(self, texts: Sequence[str], *, tenant: str = DEFAULT_TENANT,
                      mode: Mode | str = Mode.AUTO, ontologies: Sequence[str] = (),
                      max_tokens: int | None = None,
                      documents: Sequence[str | None] | None = None) -> list[Context]:
        """The contexts of many texts, in order, each equal to ``retrieve(text, ...)``
        (with ``documents[i]``, when given, as ``texts[i]``'s document).

        Faster than a loop over ``retrieve``: the query vectors and lane hits of
        every text not already cached are computed in one batch per kind, and the
        store is asked about the seeds of all of them at once (deprecations and
        class references: two SELECTs a batch, two a text in a loop); the
        subgraphs and budgets stay per text. Give a few hundred texts per call
        (the batch's vectors, hits and seeds are held until it returns).

        Raises:
            TextTooLongError: a text or a document is over ``server.max_text_chars``
                (nothing is retrieved then).
            OntoRetrieveError: ``texts`` is one string rather than a list of them,
                ``documents`` is not one per text, ``max_tokens`` is below 1, or the
                tenant is unknown.
        """
        if isinstance(texts, str):
            raise OntoRetrieveError("retrieve_many takes a list of texts, not one string "
                                    "(use retrieve for one text)")
        of = documents_per_text(texts, documents)
        state = self._tenant(tenant)
        for text in texts:
            self._check_text(text)
        for document in dict.fromkeys(of):
            self._check_document(document)
        _check_budget(max_tokens)
        chosen = _mode(mode)
        with self._operation(state, "retrieve_many"):
            retriever = self._retriever(state)
            catalog = self._catalog_key(retriever)
            uncached = [(t, d) for t, d in dict.fromkeys(zip(texts, of, strict=True))
                        if catalog is None or not isinstance(self.cache.get(
                            state.name, self._cache_key(catalog, chosen, ontologies,
                                                        max_tokens, t, d)), Context)]
            prepared = retriever.prepare([t for t, _ in uncached], chosen, ontologies,
                                         max_tokens, [d for _, d in uncached])
            return [self._context(state, text, chosen, ontologies, max_tokens, None, prepared,
                                  document=document)
                    for text, document in zip(texts, of, strict=True)]

    def _check_document(self, document: str | None) -> None:
        """A document is a text as any other: a str within ``server.max_text_chars``."""
        if document is None:
            return
        try:
            self._check_text(document)
        except TextTooLongError as exc:
            raise TextTooLongError(f"the document: {exc}") from None
        except OntoRetrieveError as exc:
            raise OntoRetrieveError(f"the document: {exc}") from None

    def _request(self, tenant: str, text: str, max_tokens: int | None) -> _Tenant:
        """The tenant of a text request, once the text and the budget are acceptable."""
        state = self._tenant(tenant)
        self._check_text(text)
        _check_budget(max_tokens)
        return state

    def _context(self, state: _Tenant, text: str, mode: Mode, ontologies: Sequence[str],
                 max_tokens: int | None = None,
                 count_tokens: TokenCounter | None = None,
                 prepared: PreparedQueries = NOTHING_PREPARED, *,
                 document: str | None = None) -> Context:
        retriever = self._retriever(state)
        catalog = self._catalog_key(retriever)
        key = self._cache_key(catalog, mode, ontologies, max_tokens, text, document)
        # A caller's own counter is a function the cache cannot key: never cached.
        cacheable = catalog is not None and count_tokens is None
        cached = self.cache.get(state.name, key) if cacheable else None
        if isinstance(cached, Context):
            return cached
        context = apply_overlay(retriever.retrieve(text, mode, ontologies, max_tokens,
                                                   count_tokens, prepared=prepared,
                                                   document=document),
                                state.rule)
        if cacheable and not context.metrics.degraded:
            self.cache.put(state.name, key, context)  # a degraded answer is never kept
        return context

    @staticmethod
    def _cache_key(catalog: tuple[str, ...] | None, mode: Mode, ontologies: Sequence[str],
                   max_tokens: int | None, text: str, document: str | None = None
                   ) -> tuple[object, ...]:
        return ("retrieve", catalog, mode.value, tuple(ontologies), max_tokens, text,
                document_key(document))

    def _catalog_key(self, retriever: Retriever) -> tuple[str, ...] | None:
        """What the answer depends on; None when the store cannot say (do not cache)."""
        key = retriever.catalog_key()
        return None if key is None else (self.settings_key, *key)

    def slice(self, text: str, max_tokens: int, *, tenant: str = DEFAULT_TENANT,
              mode: Mode | str = Mode.AUTO, ontologies: Sequence[str] = (),
              count_tokens: TokenCounter | None = None,
              document: str | None = None) -> KnowledgeSlice:
        """The context within ``max_tokens`` prompt tokens, as hits and a Turtle body.

        The same path as ``retrieve(text, max_tokens=...)``: the budget is spent by
        confidence while the context is built (a context without budgets, as in
        the reference profile, is cut to it afterwards). ``document``: as in
        ``retrieve``.

        Raises:
            TextTooLongError: the text or the document is over ``server.max_text_chars``.
            OntoRetrieveError: ``max_tokens`` is below 1, or the tenant is unknown.
        """
        state = self._request(tenant, text, max_tokens)
        self._check_document(document)
        with self._operation(state, "slice"):
            context = self._context(state, text, _mode(mode), ontologies, max_tokens,
                                    count_tokens, document=document)
            counter = self._retriever(state).token_counter(count_tokens)
            return build_slice(context, max_tokens, counter)

    def lookup(self, mention: str, *, tenant: str = DEFAULT_TENANT,
               limit: int = 10) -> LookupResult:
        """Ranked candidate terms for one mention, with an ambiguity flag; deprecated
        terms are flagged (with their successor) and ranked last.

        Raises:
            OntoRetrieveError: the mention is empty or not a str, or the tenant is unknown.
            IndexError_: the tenant has no index yet, or it was built with other settings.
        """
        state = self._tenant(tenant)
        mention = mention.strip()
        if not mention:
            raise OntoRetrieveError("lookup needs a non-empty mention")
        self._check_text(mention)
        with self._operation(state, "lookup"):
            aliases = {k: v for k, v in state.aliases.items()
                       if k.casefold() == mention.casefold()}
            return self._retriever(state).lookup(mention, aliases=aliases, rule=state.rule,
                                                 limit=limit)

    # -- catalog -------------------------------------------------------------------------

    def catalog_list(self, *, tenant: str = DEFAULT_TENANT,
                     include_inactive: bool = False) -> list[OntologyVersion]:
        """The ontology versions the tenant reads (its own and those of included catalogs).

        Raises:
            TenantError: the tenant is unknown.
            StoreUnavailableError: the triple store cannot be reached.
        """
        return self.catalog_listing(tenant=tenant, include_inactive=include_inactive).ontologies

    def catalog_listing(self, *, tenant: str = DEFAULT_TENANT,
                        include_inactive: bool = False) -> CatalogListing:
        """``catalog_list`` with the tenant's last load, as every surface returns it.

        Raises:
            TenantError: the tenant is unknown.
            StoreUnavailableError: the triple store cannot be reached.
        """
        state = self._tenant(tenant)
        with self._operation(state, "catalog_list"):
            catalog = Catalog.for_tenant(self.store, self.settings, tenant)
            return CatalogListing(ontologies=catalog.versions(include_inactive=include_inactive),
                                  last_load=catalog.last_load())

    def catalog_load(self, path: Path | str | None, *, tenant: str = DEFAULT_TENANT,
                     rebuild: bool = False, load_progress: ProgressCallback | None = None,
                     progress: SyncProgress | None = None
                     ) -> tuple[LoadReport | None, SyncReport]:
        """Load ``path`` into the tenant's catalog (None: none) and sync its index.

        Tenants that include this one are synced too, so none serves a stale index.
        A file that does not parse is reported in the load report (``partial``)
        while the others load.

        Raises:
            CatalogPathError: ``path`` does not exist or holds no RDF file.
            DataDirBusyError: another process writes the data directory (this engine
                reads beside it).
            EmbeddingContractMismatchError: the index was built with other settings
                (sync with ``rebuild=True``).
            TenantError: the tenant is unknown.
        """
        return self._load_and_sync(self._tenant(tenant), None if path is None else Path(path),
                                   rebuild=rebuild,
                                   load_progress=load_progress, progress=progress)

    def _load_and_sync(self, state: _Tenant, path: Path | None, *, rebuild: bool = False,
                       load_progress: ProgressCallback | None = None,
                       progress: SyncProgress | None = None,
                       deltas: Mapping[str, VersionDelta] | None = None
                       ) -> tuple[LoadReport | None, SyncReport]:
        self._require_writable()
        with state.writing, self._operation(state, "catalog_load"):
            held = state.retriever
            lent = None if rebuild or held is None else held.raw_index()
            if lent is None:
                self._close_retriever(state)
            try:
                reports = sync_index(self.settings, self.store, catalog_path=path,
                                     rebuild=rebuild, tenant=state.name,
                                     embedder=self.embedder(), load_progress=load_progress,
                                     progress=progress, deltas=deltas, open_index=lent)
            finally:
                if lent is not None and held is not None:
                    state.retriever = _renewed(held)
            self.cache.clear(state.name)
        for dependent in self.tenants():
            if dependent != state.name and state.name in catalog_layers(
                    self.settings.tenants, dependent)[1:]:
                self.refresh(tenant=dependent)
        return reports

    def refresh(self, *, tenant: str = DEFAULT_TENANT) -> SyncReport:
        """Sync the tenant's index with its catalog as stored (safe to repeat).

        Raises:
            DataDirBusyError: another process writes the data directory.
            TenantError: the tenant is unknown.
        """
        return self.catalog_load(None, tenant=tenant)[1]

    def catalog_upload(self, filename: str, content: bytes, *,
                       tenant: str = DEFAULT_TENANT) -> tuple[LoadReport | None, SyncReport]:
        """Store one uploaded RDF file in the tenant's upload folder, then load that folder.

        The name is checked (letters, digits, ``. _ -``; a known RDF extension), so
        an upload never writes outside the folder; the content must parse; the file
        appears atomically (a same-named upload replaces it: a new version).

        Raises:
            CatalogError: the name is not allowed or the content does not parse
                (``CatalogParseError`` names the line and column).
            DataDirBusyError: another process writes the data directory.
            TenantError: the tenant is unknown.
        """
        self._tenant(tenant)
        folder = self.upload_dir(tenant)
        stage_upload(folder, filename, content, self.settings.catalog.max_file_mb << 20)
        return self.catalog_load(folder, tenant=tenant)

    def upload_dir(self, tenant: str) -> Path:
        """Where a tenant's uploaded catalog files live."""
        require_tenant(self.settings.tenants, tenant)
        return self.settings.data_dir / "uploads" / tenant

    def doctor(self, *, repair: bool = False) -> DoctorReport:
        """Check the triple store and every tenant's index against each other and the
        index state; with ``repair``, fix what can be fixed without loss (sync or
        rebuild an index from the catalog, sweep leftover shards and replicas). A
        damaged triple store is reported, never replaced.

        Raises:
            DataDirBusyError: ``repair`` while another process writes the data directory.
        """
        if repair:
            self._require_writable()
        return examine(self, repair=repair)

    def index_status(self, *, tenant: str = DEFAULT_TENANT) -> IndexStatus:
        """What the tenant's index holds and whether it matches its catalog and settings
        (no model load; a missing index is reported, not raised).

        Raises:
            TenantError: the tenant is unknown.
            StoreUnavailableError: the triple store cannot be reached.
        """
        state = self._tenant(tenant)
        with self._operation(state, "index_status"):
            return index_status(self.settings, self.store, tenant)

    # -- proposals -----------------------------------------------------------------------

    def _runner(self, state: _Tenant) -> ProposalRunner:
        def search(query: str) -> list[SeedEvidence]:
            with state.lock:  # one query at a time on the index, between readers'
                return self._retriever(state).seed_retriever.seeds(query).seeds

        def cached(content_hash: str) -> list[Statement] | None:
            held = state.retriever.reader.cached(content_hash) if state.retriever else None
            return held.triples if held is not None else None

        has_index = (tenant_dir(self.settings, state.name) / "state.json").exists()
        return ProposalRunner(self.settings, self.store, state.name,
                              search if has_index else None, cached,
                              digest_store(self.settings, state.name))

    def propose(self, proposal: Proposal, *, tenant: str = DEFAULT_TENANT) -> ProposalReport:
        """Validate a proposal against the whole ontologies it names; nothing is written.

        The result is kept until the next proposal: an ``apply`` of the same
        proposal on the same catalog and index reuses it instead of validating again.
        A proposal that fails a check is a report with ``conforms`` false, not an error.

        Raises:
            ProposalError: the proposal cannot even be checked.
            TenantError: the tenant is unknown.
        """
        state = self._tenant(tenant)
        with self._counted(state, "propose"):
            return self._validated(state, proposal)[0]

    def _validated(self, state: _Tenant, proposal: Proposal
                   ) -> tuple[ProposalReport, list[Planned]]:
        """Validate, or reuse the last validation when nothing it read has changed: the
        proposal, the tenant's catalog versions (its graphs are content-addressed) and
        its index (the critic searches it)."""
        catalog = Catalog.for_tenant(self.store, self.settings, state.name)
        index_state = tenant_dir(self.settings, state.name) / "state.json"
        key = (proposal.model_dump_json(),
               *sorted(f"{v.source}|{v.content_hash}|{v.status}" for v in catalog.versions()),
               str(index_state.stat().st_mtime_ns) if index_state.exists() else "")
        if state.validated is not None and state.validated[0] == key:
            return state.validated[1], state.validated[2]
        report, planned = self._runner(state).validate(proposal)
        small = sum(len(p.new) for p in planned) <= _VALIDATED_TRIPLES
        state.validated = (key, report, planned) if small else None
        return report, planned

    def apply(self, proposal: Proposal, *, tenant: str = DEFAULT_TENANT) -> ApplyResult:
        """Validate, then write new ontology versions and sync the index.

        Reads of the tenant go on while the proposal is validated and the new
        graphs are written; they wait only for the switch and the index sync,
        which writes just the atoms the update changed (a layer over the
        version it replaces).

        Raises:
            ProposalRejected: a check failed (it carries the report); nothing is
                written and every catalog hash stays as it was.
            ProposalError: the proposal cannot even be checked (an unknown ontology).
            DataDirBusyError: another process writes the data directory.
        """
        state = self._tenant(tenant)
        self._require_writable()
        with state.writing, self._counted(state, "apply"):
            runner = self._runner(state)
            report, planned = self._validated(state, proposal)
            state.validated = None
            if not report.conforms:
                raise report.rejection()
            runner.write_graphs(planned)
            runner.keep_digests(planned)
            with state.lock:
                applied = runner.switch(planned)
                deltas = {p.content_hash: p.delta for p in planned}
                _, sync = self._load_and_sync(state, None, deltas=deltas)
                if state.retriever is not None:  # its graph cache: from the base's, if held,
                    # else from the triples just written
                    for plan in planned:
                        state.retriever.reader.derive(plan.content_hash, plan.base.content_hash,
                                                      plan.delta.added, plan.delta.removed,
                                                      plan.new)
            return ApplyResult(report=report, applied=applied, index=sync)

    def rollback(self, ontology_iri: str, *, tenant: str = DEFAULT_TENANT
                 ) -> tuple[AppliedVersion, SyncReport]:
        """Switch an ontology back to the version its applied update replaced (its points
        are still in the index, so nothing is embedded or written again).

        Raises:
            OntoRetrieveError: the ontology has no current version, or its current
                version was not made by an apply (nothing to roll back to).
            DataDirBusyError: another process writes the data directory.
            TenantError: the tenant is unknown.
        """
        state = self._tenant(tenant)
        self._require_writable()
        with state.writing, self._operation(state, "rollback"):
            restored = self._runner(state).rollback(ontology_iri)
            _, sync = self._load_and_sync(state, None)
            return restored, sync

    def adapters(self, *, tenant: str = DEFAULT_TENANT) -> list[Adapter]:
        """The tenant's knowledge sources: its catalog, then its remote endpoints."""
        from ontoretrieve.backends.sparql_http import SparqlHttpStore

        self._tenant(tenant)
        config = self.settings.tenants.get(tenant)
        found: list[Adapter] = [CatalogAdapter(self, tenant)]
        for name, endpoint in (config.endpoints.items() if config else []):
            store = SparqlHttpStore(endpoint.query_url, timeout_seconds=endpoint.timeout_seconds)
            found.append(SparqlEndpointAdapter(f"sparql:{name}", store,
                                               self._count_tokens_lazily))
        return found

    def _count_tokens_lazily(self, text: str) -> int:
        """Tokens as context budgets count them (``context.token_counter``); the encoder
        loads only when that counter is the encoder's."""
        counter = counter_for(self.settings.context.token_counter,
                              lambda: self.embedder().count_tokens)
        return counter(text)

    def search(self, text: str, *, tenant: str = DEFAULT_TENANT, limit: int = 20
               ) -> FanOutResult:
        """Entity hits from every adapter of the tenant, merged; failing ones listed (an
        endpoint that fails or times out is reported in the result, not raised).

        Raises:
            OntoRetrieveError: the text is not a str or is too long.
            TenantError: the tenant is unknown.
        """
        self._check_text(text)
        adapters = self.adapters(tenant=tenant)
        timeout = self.settings.server.request_timeout_seconds
        try:
            return fan_out(adapters, text, limit, timeout)
        finally:
            for adapter in adapters:
                if isinstance(adapter, SparqlEndpointAdapter):
                    adapter.store.close()

    def documents(self, text: str, k: int = DEFAULT_DOCUMENTS, *,
                  tenant: str = DEFAULT_TENANT, mode: Mode | str = Mode.AUTO,
                  ontologies: Sequence[str] = (),
                  max_tokens: int | None = DEFAULT_DOCUMENT_TOKENS) -> list[TermDocument]:
        """The first ``k`` terms of the text's context, one ``TermDocument`` each (IRI,
        label, definition, kind, score and the term's Turtle block), best first: what
        the LangChain and LlamaIndex retrievers return.

        Raises:
            OntoRetrieveError: ``k`` is below 1, or as ``retrieve`` does.
        """
        if k < 1:
            raise OntoRetrieveError(f"k must be at least 1, not {k}")
        context = self.retrieve(text, tenant=tenant, mode=mode, ontologies=ontologies,
                                max_tokens=max_tokens)
        return term_documents(context, k)

    # -- async -----------------------------------------------------------------------------
    # The engine's work is CPU-bound and guarded by per-tenant locks, so the async
    # API runs each call in a worker thread: an event loop (FastAPI, LangChain's and
    # LlamaIndex's async paths) stays free while a context is built.

    async def aretrieve(self, text: str, **options: Any) -> Context:
        """``retrieve`` without blocking the event loop (same options and errors).

        >>> import asyncio
        >>> from ontoretrieve.settings import load_settings
        >>> with Engine.open(load_settings(), in_memory=True) as engine:
        ...     asyncio.run(engine.aretrieve(["two", "texts"]))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ontoretrieve.errors.OntoRetrieveError: the text must be a str, not list (for many ...
        """
        return await asyncio.to_thread(functools.partial(self.retrieve, text, **options))

    async def aretrieve_many(self, texts: Sequence[str], **options: Any) -> list[Context]:
        """``retrieve_many`` without blocking the event loop."""
        return await asyncio.to_thread(functools.partial(self.retrieve_many, texts, **options))

    async def aslice(self, text: str, max_tokens: int, **options: Any) -> KnowledgeSlice:
        """``slice`` without blocking the event loop."""
        return await asyncio.to_thread(functools.partial(self.slice, text, max_tokens,
                                                         **options))

    async def adocuments(self, text: str, k: int = DEFAULT_DOCUMENTS,
                         **options: Any) -> list[TermDocument]:
        """``documents`` without blocking the event loop."""
        return await asyncio.to_thread(functools.partial(self.documents, text, k, **options))

    async def alookup(self, mention: str, **options: Any) -> LookupResult:
        """``lookup`` without blocking the event loop."""
        return await asyncio.to_thread(functools.partial(self.lookup, mention, **options))

    def metrics(self, *, tenant: str = DEFAULT_TENANT) -> dict[str, Any]:
        """The tenant's own counters: operations, errors, seconds, result cache."""
        state = self._tenant(tenant)
        return {"tenant": tenant, "operations": dict(state.counts),
                "seconds": {k: round(v, 4) for k, v in state.seconds.items()},
                "result_cache": self.cache.stats(tenant)}


def _check_budget(max_tokens: int | None) -> None:
    if max_tokens is not None and max_tokens < 1:
        raise OntoRetrieveError(f"max_tokens must be at least 1, not {max_tokens}")


def _mode(mode: Mode | str) -> Mode:
    try:
        return Mode(mode)
    except ValueError:
        raise OntoRetrieveError(f"mode {mode!r}: use one of "
                                f"{', '.join(m.value for m in Mode)}") from None
