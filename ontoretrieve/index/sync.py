"""Incremental index sync: make the vector index hold exactly the current catalog.

Beyond the reference (which re-embeds everything at every start):

- ontology versions are compared by content hash: an unchanged ontology costs
  nothing, not even reading its graph;
- a changed ontology is re-atomized, and only atoms whose texts changed are
  embedded; the vectors of the others are copied from the points already
  stored (looked up by text hash);
- a removed ontology's points are deleted, but orphan pruning refuses an empty
  catalog and skips after a partial catalog load, since an absent ontology is
  then no evidence of deletion;
- the state file is written atomically, and an ontology is marked pending
  before its points are written, so a process killed mid-sync leaves the
  previous index usable and the next sync completes the work;
- ``rebuild`` fills a fresh location and switches to it only at the end.

``plan_sync`` is the pure core; ``IndexSync`` does the I/O.

>>> plan = plan_sync({"h2": ["ontology"]}, {"h1", "h2"}, [], catalog_empty=False,
...                  last_load_partial=False)
>>> plan.add, plan.remove, plan.keep
([], ['h1'], ['h2'])
"""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import pyoxigraph as ox

from ontoretrieve.backends.vector_index import (
    IndexPoint,
    StoredVectors,
    VectorIndex,
    point_id,
)
from ontoretrieve.catalog.store import Catalog
from ontoretrieve.errors import EmbeddingContractMismatchError
from ontoretrieve.index.atomize import Atom, AtomSource, atomize
from ontoretrieve.index.delta import VersionDelta, graph_delta
from ontoretrieve.index.digest_store import DigestStore
from ontoretrieve.index.embed import Embedder
from ontoretrieve.index.embed_cache import CachedEmbedder
from ontoretrieve.index.fingerprint import differences
from ontoretrieve.index.mention_forms import term_forms
from ontoretrieve.index.mention_store import MentionStore
from ontoretrieve.index.payload import to_payload
from ontoretrieve.index.replace import dedup_key, plan_layer
from ontoretrieve.index.state import IndexedOntology, IndexState
from ontoretrieve.rdf.canonical import graph_digests
from ontoretrieve.rdf.graph_index import Statement, as_triples
from ontoretrieve.rdf.vocab import graph_name
from ontoretrieve.records import OntologyVersion, SyncReport
from ontoretrieve.settings import Settings
from ontoretrieve.settings.groups import IndexSettings

__all__ = ["IndexSync", "SyncPlan", "check_fingerprint", "plan_sync",
           "point_key"]

log = logging.getLogger(__name__)

SyncProgress = Callable[[str, int, int], None]
"""Called as work advances: (phase, done, total). Phases: "ontology" (versions
started, of those to add), "embed" (atoms written, of the current version) and
"forms" (versions whose mention forms or digests were written)."""

_CHUNK = 512
OPTIMIZE_EVERY = 15_000
"""Atoms written between two optimizes of a build: each HNSW build covers about this
many points rather than the whole index, which bounds a big build's peak memory."""


RELEASE_AFTER_TEXTS = 20_000
"""A build that encoded this many texts gives the encoder's working memory back before
its last optimize, so the two peaks do not add up (benchmarks/RESULTS.md)."""


@dataclass(frozen=True, slots=True)
class SyncPlan:
    add: list[str]
    remove: list[str]
    keep: list[str]
    prune_blocked: str | None


def plan_sync(desired: Mapping[str, object], indexed: set[str], pending: Sequence[str], *,
              catalog_empty: bool, last_load_partial: bool) -> SyncPlan:
    """Which ontology hashes to add, remove and keep."""
    add = sorted(h for h in desired if h not in indexed)
    stale = sorted((indexed | set(pending)) - set(desired))
    blocked = None
    if stale and catalog_empty:
        blocked = "skipped: the catalog is empty, which is no evidence of deletion"
    elif stale and last_load_partial:
        blocked = "skipped: the last catalog load was partial"
    return SyncPlan(add=add, remove=[] if blocked else stale,
                    keep=sorted(h for h in desired if h in indexed), prune_blocked=blocked)


def check_fingerprint(state: IndexState, current: dict[str, str], location: str) -> None:
    """Raise ``EmbeddingContractMismatchError`` naming what differs."""
    differing = differences(state.fingerprint, current)
    if differing:
        raise EmbeddingContractMismatchError(location, differing)


def point_key(atom: Atom, settings: IndexSettings) -> str:
    """The dedup key the store keeps one record per (VECTOR_STORE_DEDUP_MODE).

    >>> from ontoretrieve.index.atomize import Role
    >>> a = Atom("id1", "http://x/t", "http://x/o", "1.0", "h", Role.RESOURCE, False,
    ...          "t.", "", "t", (), (), ())
    >>> point_key(a, IndexSettings())
    'iri|http://x/t|1.0|h'
    >>> point_key(a, IndexSettings(dedup_include_version=False, dedup_include_hash=False))
    'iri|http://x/t'
    """
    return dedup_key(atom.iri, atom.ontology_version or "", atom.ontology_hash, atom.atom_id,
                     settings)


class IndexSync:
    """Runs a sync of one tenant's index against its catalog."""

    def __init__(
        self,
        settings: Settings,
        catalog: Catalog,
        state_path: Path,
        fingerprint: dict[str, str],
        embedder: Callable[[], Embedder],
        open_index: Callable[[str, int], VectorIndex],
        new_location: Callable[[], str],
        drop_location: Callable[[str], None],
        mentions: MentionStore | None = None,
        digests: DigestStore | None = None,
        intact: Callable[[str], bool] = lambda location: True,
        sweep: Callable[[set[str]], object] = lambda keep: None,
    ) -> None:
        self.settings = settings
        self.catalog = catalog
        self.state_path = state_path
        self.fingerprint = fingerprint
        self._embedder_factory = embedder
        self._embedder: Embedder | None = None
        self._open_index = open_index
        self._new_location = new_location
        self._drop_location = drop_location
        self.mentions = mentions
        self.digests = digests
        self._intact = intact
        self._sweep = sweep
        """Removes locations left by killed rebuilds, all but the ones named."""
        """Whether a location's files are there (a deleted shard folder is rebuilt)."""

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:  # loaded only when something must be embedded
            self._embedder = self._embedder_factory()
        return self._embedder

    def run(self, *, rebuild: bool = False, progress: SyncProgress | None = None,
            deltas: Mapping[str, VersionDelta] | None = None) -> SyncReport:
        """Bring the index up to date with the catalog: add new versions, drop gone ones.

        A rebuild (asked, or no index yet) writes a new location and switches to it
        only when complete; the index in use stays whole until then. A version that
        replaces an indexed one is written as a layer over it (``index/replace.py``);
        ``deltas`` are the changes a caller already knows (by new content hash),
        which spares reading both versions to find them.
        """
        started = time.perf_counter()
        repaired = not rebuild and self._damaged()
        rebuild = rebuild or repaired
        state, work_path, old_location = self._starting_state(rebuild)
        desired, partial = self._desired_versions()
        plan = plan_sync(desired, set(state.ontologies), state.pending,
                         catalog_empty=not desired, last_load_partial=partial)
        counters = {"embedded": 0, "reused": 0, "deleted": 0, "embed_seconds": 0.0,
                    "texts": 0, "layered": 0}
        for content_hash in plan.keep:  # sources may have moved or been added
            state.ontologies[content_hash].sources = [v.source for v in desired[content_hash]]
        revived = _revive(state, plan.add, desired)
        if (old_location is None and not plan.add and not plan.remove and not state.pending
                and state.points is not None):
            # Nothing to write: the index is not even opened (Edge loads its
            # segments on open), so a restart on an unchanged catalog is cheap.
            state.save(work_path)
            self._sweep({state.location})
            self._sync_forms(state, desired, [], progress)
            return self._report(state, rebuild, plan, state.points, counters, started)
        index = self._open_index(state.location, state.dimension)
        try:
            added = [h for h in plan.add if h not in revived]
            self._add(index, state, added, desired, deltas or {}, work_path, counters,
                      progress)
            if counters["texts"] >= RELEASE_AFTER_TEXTS:
                self._release_encoder()
            deleted = self._remove(index, state, plan, counters)
            if added:
                index.optimize()
            state.fingerprint = self.fingerprint
            state.points = index.count()
        finally:
            index.close()
        state.save(work_path)
        if work_path != self.state_path:
            os.replace(work_path, self.state_path)  # the switch: the rebuild becomes visible
        if old_location is not None and old_location != state.location:
            self._drop_location(old_location)
        self._sweep({state.location})  # what killed rebuilds left behind
        self._sync_forms(state, desired, deleted, progress)
        report = self._report(state, rebuild, plan, state.points, counters, started)
        report.repaired = repaired
        report.versions_revived = len(revived)
        return self._with_encoding(report, counters)

    def _damaged(self) -> bool:
        """The index in use is missing or damaged (it is then rebuilt: the catalog is the
        source of every point, and an empty shard must not report that all is well)."""
        state_now = IndexState.load(self.state_path)
        if state_now is None or self._intact(state_now.location):
            return False
        log.warning("the index at %s is missing or damaged: rebuilding it from the catalog",
                    state_now.location)
        return True

    def _with_encoding(self, report: SyncReport, counters: Mapping[str, float]
                       ) -> SyncReport:
        """The report with what the sync encoded, layered and took from the cache."""
        report.texts_encoded = int(counters["texts"])
        report.versions_layered = int(counters["layered"])
        if isinstance(self._embedder, CachedEmbedder):
            report.texts_from_cache = self._embedder.reused
            report.texts_encoded = self._embedder.embedded
        return report

    def _release_encoder(self) -> None:
        release = getattr(self._embedder, "release_buffers", None)
        if release is not None:
            release()

    def _starting_state(self, rebuild: bool) -> tuple[IndexState, Path, str | None]:
        """The state to write into, where to save it, and the location a rebuild replaces."""
        state = IndexState.load(self.state_path)
        if state is not None and not rebuild:
            check_fingerprint(state, self.fingerprint, str(self.state_path.parent))
            return state, self.state_path, None
        old_location = state.location if state else None
        # A rebuild keeps its progress apart until the switch, so the index in
        # use stays whole (and in use) until the new one is complete.
        work_path = self.state_path
        if state is not None:
            work_path = self.state_path.with_name("state.rebuild.json")
            abandoned = IndexState.load(work_path)  # an earlier rebuild was killed
            if abandoned is not None and abandoned.location != state.location:
                self._drop_location(abandoned.location)
            self._keep_old_vectors(state)
        fresh = IndexState(backend=self.settings.vector_index.backend.value,
                           location=self._new_location(), dimension=self.embedder.dimension,
                           fingerprint=self.fingerprint)
        return fresh, work_path, old_location

    def _desired_versions(self) -> tuple[dict[str, list[OntologyVersion]], bool]:
        """The catalog's versions by content hash, and whether its last load was partial."""
        desired: dict[str, list[OntologyVersion]] = {}
        for version in self.catalog.versions():
            desired.setdefault(version.content_hash, []).append(version)
        partial = any(load is not None and load.partial for load in self.catalog.layer_loads())
        return desired, partial

    def _add(self, index: VectorIndex, state: IndexState, added: list[str],
             desired: dict[str, list[OntologyVersion]], deltas: Mapping[str, VersionDelta],
             work_path: Path, counters: dict[str, float], progress: SyncProgress | None
             ) -> None:
        """Write the added versions: as a layer over the version each replaces where
        that pays, else whole (streamed)."""
        whole = []
        for number, content_hash in enumerate(added, start=1):
            base = _replaced(state, content_hash, desired, deltas.get(content_hash))
            if base is None or not self._add_layer(index, state, content_hash, base, desired,
                                                   deltas, work_path, counters):
                whole.append(content_hash)
            elif progress:
                progress("ontology", number, len(added))
        self._add_whole(index, state, whole, desired, work_path, counters, progress)

    def _add_layer(self, index: VectorIndex, state: IndexState, content_hash: str,
                   base: str, desired: dict[str, list[OntologyVersion]],
                   deltas: Mapping[str, VersionDelta], work_path: Path,
                   counters: dict[str, float]) -> bool:
        """Write only the atoms the version changed against ``base``; False: not worth it
        (``plan_layer`` says why), nothing written."""
        version = desired[content_hash][0]
        delta = deltas.get(content_hash)
        if delta is None or delta.base_hash != base:
            recorded = self.catalog.version_of(base)
            old = (self.catalog.graph_triples(recorded) if recorded is not None
                   else self.catalog.store.graph_triples(graph_name(base)))
            if not old:
                return False
            delta = graph_delta(base, old, self.catalog.graph_triples(version))
        new: Sequence[ox.Triple] | Sequence[Statement] = (
            delta.triples or self.catalog.graph_triples(version))
        base_forms = self.mentions.stored(base) if self.mentions is not None else []
        layer = plan_layer(self.catalog.store, index, self.settings,
                           graphs=version.named_graphs,
                           source=AtomSource(version.ontology_iri, version.version,
                                             content_hash),
                           base=state.ontologies[base], delta=delta, new=new,
                           base_forms=base_forms,
                           base_keyed=self.mentions.keyed(base) if self.mentions else None)
        if layer is None:
            return False
        state.pending = sorted(set(state.pending) | {content_hash})
        state.save(work_path)
        for start in range(0, len(layer.atoms), _CHUNK):
            self._write(index, layer.atoms[start:start + _CHUNK], counters)
        index.flush()
        if self.mentions is not None:
            self.mentions.write(content_hash, layer.forms, layer.keyed)
        if self.digests is not None and not self.digests.has(content_hash):
            self.digests.put(content_hash, graph_digests(as_triples(new)))  # an apply kept them
        layer.info.sources = [v.source for v in desired[content_hash]]
        state.ontologies[content_hash] = layer.info
        state.pending = [h for h in state.pending if h != content_hash]
        state.save(work_path)
        counters["layered"] += 1
        return True

    def _add_whole(self, index: VectorIndex, state: IndexState, hashes: list[str],
                   desired: dict[str, list[OntologyVersion]], work_path: Path,
                   counters: dict[str, float], progress: SyncProgress | None) -> None:
        """Atomize, embed and write whole versions one at a time (streamed).

        Only the version being written and the one atomized ahead are in memory,
        so peak memory follows the largest ontology, not the catalog; the index is
        optimized every ``OPTIMIZE_EVERY`` atoms, so its HNSW graphs are built in
        parts. Each version is recorded as pending until its points are flushed.
        """
        unoptimized = 0
        for number, (content_hash, atoms) in enumerate(self._atomized(hashes, desired),
                                                       start=1):
            if progress:
                progress("ontology", number, len(hashes))
            state.pending = sorted(set(state.pending) | {content_hash})
            state.save(work_path)
            for start in range(0, len(atoms), _CHUNK):
                chunk = atoms[start:start + _CHUNK]
                self._write(index, chunk, counters)
                if progress:
                    progress("embed", start + len(chunk), len(atoms))
                unoptimized += len(chunk)
                if unoptimized >= OPTIMIZE_EVERY:  # index this part now, even mid-version:
                    index.flush()                  # one HNSW build per part, none bigger
                    index.optimize()
                    unoptimized = 0
            index.flush()
            first = desired[content_hash][0]
            state.ontologies[content_hash] = IndexedOntology(
                ontology_iri=first.ontology_iri, version=first.version,
                sources=[v.source for v in desired[content_hash]], atoms=len(atoms))
            state.pending = [h for h in state.pending if h != content_hash]
            state.save(work_path)

    @staticmethod
    def _remove(index: VectorIndex, state: IndexState, plan: SyncPlan,
                counters: dict[str, float]) -> list[str]:
        """Drop the versions the catalog no longer has; return the hashes whose points
        were deleted.

        A dropped version another one reads as a layer is retained (its points stay,
        and it comes back without a write); a retained version nothing reads any
        more is deleted.
        """
        if not plan.remove and not state.retained:
            return []
        dropped = {h: state.ontologies.pop(h) for h in plan.remove if h in state.ontologies}
        in_use = state.layers_in_use()
        state.retained.update({h: info for h, info in dropped.items() if h in in_use})
        gone = [h for h in plan.remove if h not in in_use]
        gone += [h for h in sorted(state.retained) if h not in in_use and h not in gone]
        for content_hash in gone:
            state.retained.pop(content_hash, None)
        state.pending = [h for h in state.pending if h not in plan.remove]
        if gone:
            counters["deleted"] = sum(index.count(h) for h in gone)
            index.delete_ontology_hashes(gone)
            index.flush()
        return gone

    @staticmethod
    def _report(state: IndexState, rebuild: bool, plan: SyncPlan, atoms_total: int,
                counters: dict[str, float], started: float) -> SyncReport:
        return SyncReport(
            location=state.location, rebuilt=rebuild,
            ontologies_added=len(plan.add), ontologies_removed=len(plan.remove),
            ontologies_unchanged=len(plan.keep), atoms_total=atoms_total,
            atoms_embedded=int(counters["embedded"]), atoms_reused=int(counters["reused"]),
            atoms_deleted=int(counters["deleted"]),
            pruning=plan.prune_blocked or ("done" if plan.remove else "nothing to prune"),
            seconds=round(time.perf_counter() - started, 3),
            embed_seconds=round(counters["embed_seconds"], 3),
        )

    def _atomized(self, hashes: list[str], desired: Mapping[str, list[OntologyVersion]]
                  ) -> Iterator[tuple[str, list[Atom]]]:
        """The atoms of each version in turn, the next ones atomized while one is written.

        At most ``embed.reindex_concurrency`` versions are atomized ahead (the
        encoder releases the GIL, so atomizing overlaps embedding).
        """
        ahead = max(1, self.settings.embed.reindex_concurrency)
        queue = iter(hashes)
        with ThreadPoolExecutor(max_workers=ahead) as pool:
            running: deque[Future[tuple[str, list[Atom]]]] = deque(
                pool.submit(self._atomize_one, h, desired) for h in islice(queue, ahead))
            while running:
                job = running.popleft().result()
                following = next(queue, None)
                if following is not None:
                    running.append(pool.submit(self._atomize_one, following, desired))
                yield job

    def _atomize_one(self, content_hash: str, desired: Mapping[str, list[OntologyVersion]]
                     ) -> tuple[str, list[Atom]]:
        settings = self.settings
        version = desired[content_hash][0]
        triples = self.catalog.graph_triples(version)
        source = AtomSource(version.ontology_iri, version.version, version.content_hash)
        if self.mentions is not None:  # the graph is in hand: write its forms now
            self.mentions.write(content_hash, term_forms(triples, settings.index))
        if self.digests is not None:  # and its digests
            self.digests.put(content_hash, graph_digests(triples))
        return content_hash, atomize(triples, source, settings.index, settings.triggers)

    def _keep_old_vectors(self, old: IndexState) -> None:
        """Before a rebuild, copy the old index's vectors into the document cache.

        Only when the cache is on and the model is the same: then every text
        the rebuild shares with the old index costs a lookup, not an embedding.
        """
        embedder = self.embedder
        same_model = all(old.fingerprint.get(k) == v for k, v in self.fingerprint.items()
                         if k.startswith("embed."))
        if not isinstance(embedder, CachedEmbedder) or not same_model:
            return
        if old.backend != self.settings.vector_index.backend.value:
            return
        index = self._open_index(old.location, old.dimension)
        try:
            embedder.cache.fill_from(index)
        finally:
            index.close()

    def _sync_forms(self, state: IndexState, desired: Mapping[str, list[OntologyVersion]],
                    removed: Sequence[str], progress: SyncProgress | None) -> None:
        """The mention forms and the digests of every indexed version, current; none of
        removed ones.

        A version indexed before the mention lane (or the digests) existed, or under
        other form rules, costs a graph read here, never an embedding.
        """
        for content_hash in removed:
            if self.mentions is not None:
                self.mentions.remove(content_hash)
            if self.digests is not None:
                self.digests.remove(content_hash)
        missing = [h for h in sorted(state.ontologies) if h in desired and (
            (self.mentions is not None and not self.mentions.current(h))
            or (self.digests is not None and not self.digests.has(h)))]
        for done, content_hash in enumerate(missing, start=1):
            triples = self.catalog.graph_triples(desired[content_hash][0])
            if self.mentions is not None and not self.mentions.current(content_hash):
                self.mentions.write(content_hash, term_forms(triples, self.settings.index))
            if self.digests is not None and not self.digests.has(content_hash):
                self.digests.put(content_hash, graph_digests(triples))
            if progress:
                progress("forms", done, len(missing))

    def _write(self, index: VectorIndex, atoms: list[Atom], counters: dict[str, float]) -> None:
        unique: dict[str, Atom] = {}
        for atom in atoms:
            unique.setdefault(point_key(atom, self.settings.index), atom)
        stored = index.stored_vectors([a.text_hash for a in unique.values()])
        missing = [a for a in unique.values() if a.text_hash not in stored]
        started = time.perf_counter()
        fresh = self._embed(missing)
        counters["embed_seconds"] += time.perf_counter() - started
        counters["embedded"] += len(missing)
        counters["texts"] += sum(2 if a.neighborhood_text else 1 for a in missing)
        counters["reused"] += len(unique) - len(missing)
        points = []
        for key, atom in unique.items():
            vectors = stored.get(atom.text_hash) or fresh[atom.text_hash]
            points.append(IndexPoint(point_id(key), vectors, to_payload(atom)))
        index.upsert(points)

    def _embed(self, atoms: list[Atom]) -> dict[str, StoredVectors]:
        if not atoms:
            return {}
        texts = [a.core_text for a in atoms] + [a.neighborhood_text for a in atoms
                                                if a.neighborhood_text]
        dense = self.embedder.embed_documents(texts)  # batched by length, rows in order
        sparse = self.embedder.sparse_documents([a.sparse_text for a in atoms])
        vectors: dict[str, StoredVectors] = {}
        neighborhood_row = len(atoms)
        for row, atom in enumerate(atoms):
            neighborhood = None
            if atom.neighborhood_text:
                neighborhood = dense[neighborhood_row]
                neighborhood_row += 1
            vectors[atom.text_hash] = StoredVectors(dense[row], neighborhood, sparse[row])
        return vectors



def _revive(state: IndexState, added: Sequence[str],
            desired: Mapping[str, list[OntologyVersion]]) -> set[str]:
    """Move added versions the index still keeps as layers back into use (no write).

    >>> state = IndexState(backend="edge", location="x", dimension=2, fingerprint={},
    ...     retained={"h1": IndexedOntology(ontology_iri="o", sources=["a"], atoms=1)})
    >>> _revive(state, ["h1", "h3"], {}), sorted(state.ontologies), state.retained
    ({'h1'}, ['h1'], {})
    """
    back = {h for h in added if h in state.retained}
    for content_hash in back:
        info = state.retained.pop(content_hash)
        if content_hash in desired:
            info.sources = [v.source for v in desired[content_hash]]
        state.ontologies[content_hash] = info
    return back


def _replaced(state: IndexState, content_hash: str,
              desired: Mapping[str, list[OntologyVersion]], delta: VersionDelta | None
              ) -> str | None:
    """The indexed version the new one replaces: the caller's base when it names an
    indexed one, else one of the same ontology read from a source the new one has."""
    if delta is not None and delta.base_hash in state.ontologies:
        return delta.base_hash
    versions = desired[content_hash]
    sources = {v.source for v in versions}
    candidates = sorted(h for h, info in state.ontologies.items()
                        if h != content_hash and h not in desired
                        and info.ontology_iri == versions[0].ontology_iri
                        and sources & set(info.sources))
    return candidates[0] if candidates else None
