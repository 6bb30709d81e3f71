"""Versions that share points: how queries read an index whose versions are layered.

A version that replaced another (an applied proposal, an edited file) is written
as a layer: only the atoms it changed become new points, under its own hash; the
rest are the earlier version's points, left untouched, minus the ones it changed
or dropped (hidden by point id). Qdrant segments are copy-on-write, so touching a
point at all, even only its payload, costs as much as writing it again
(benchmarks/RESULTS.md): the version a point answers for is therefore kept in the
index state, not in the point, and applied to hits here at query time.

``read_scope`` is the pure core: which stored hashes and hidden ids a query over
some versions reads, and under which version each stored hash is reported.
``VersionedIndex`` applies it around a ``VectorIndex``.

>>> from ontoretrieve.index.state import IndexState, IndexedOntology
>>> state = IndexState(backend="edge", location="x", dimension=2, fingerprint={},
...     ontologies={"h2": IndexedOntology(ontology_iri="http://x/o", version="2",
...                                       sources=["o.ttl"], atoms=3, layers=["h1"],
...                                       hidden={"h1": ["p1"]})},
...     retained={"h1": IndexedOntology(ontology_iri="http://x/o", version="1",
...                                     sources=["o.ttl"], atoms=3)})
>>> scope = read_scope(state, None)
>>> scope.hashes, sorted(scope.hidden), scope.owners
(['h1', 'h2'], ['p1'], {'h1': 'h2', 'h2': 'h2'})
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass

from ontoretrieve.backends.vector_index import (
    DenseVector,
    IndexPoint,
    Lane,
    LaneHit,
    SparseVector,
    StoredVectors,
    VectorIndex,
)
from ontoretrieve.index.state import IndexState
from ontoretrieve.records import AtomPayload

__all__ = ["LentIndex", "ReadScope", "VersionedIndex", "read_scope"]


@dataclass(frozen=True, slots=True)
class ReadScope:
    """What a query over some versions reads."""

    hashes: list[str]
    """Stored hashes whose points the versions read."""
    hidden: frozenset[str]
    """Point ids none of the versions reading their layer has."""
    owners: dict[str, str]
    """Stored hash -> the version its points are reported under."""
    versions: dict[str, str]
    """Version hash -> its version string (empty when it has none)."""


def read_scope(state: IndexState, versions: Collection[str] | None) -> ReadScope:
    """The stored hashes, hidden ids and owners of a query over ``versions`` (None: all
    indexed versions).

    A point of a layer is visible when at least one version in scope that reads
    the layer does not hide it; a layer that is itself a version in scope is
    reported as itself, else under the first (by hash) version in scope reading it.
    """
    wanted = sorted(state.ontologies if versions is None else
                    (v for v in versions if v in state.ontologies))
    owners: dict[str, str] = {}
    hidden_by_layer: dict[str, set[str] | None] = {}
    for content_hash in wanted:
        info = state.ontologies[content_hash]
        for layer in info.reads(content_hash):
            owners.setdefault(layer, content_hash)
            hides = set(info.hidden.get(layer, ()))
            seen = hidden_by_layer.get(layer)
            # Hidden only if every reader hides it: intersect over the readers.
            hidden_by_layer[layer] = hides if layer not in hidden_by_layer else (
                (seen or set()) & hides)
    for content_hash in wanted:  # a layer in scope as a version answers as itself
        owners[content_hash] = content_hash
    hidden = frozenset(i for ids in hidden_by_layer.values() for i in (ids or ()))
    return ReadScope(hashes=sorted(owners), hidden=hidden, owners=owners,
                     versions={h: state.ontologies[h].version or "" for h in wanted})


def _reported(payload: AtomPayload, scope: ReadScope) -> AtomPayload:
    """The payload under the version it answers for in this scope."""
    stored = payload.get("ontology_hash", "")
    owner = scope.owners.get(stored, stored)
    if owner == stored:
        return payload
    relabelled = dict(payload)
    relabelled["ontology_hash"] = owner
    relabelled["ontology_version"] = scope.versions.get(owner, "")
    return relabelled  # type: ignore[return-value]


class VersionedIndex:
    """A ``VectorIndex`` whose scopes name indexed versions, layered or not.

    Reads pass ``ontology_hashes`` as version hashes (None: every indexed
    version); this class turns them into the stored hashes and hidden ids to
    filter on, and reports each hit under its version. With no layered version
    in the state, every call passes straight through.
    """

    def __init__(self, index: VectorIndex, state: IndexState) -> None:
        self.index = index
        self.state = state
        self._layered = state.layered()
        self._scopes: dict[tuple[str, ...] | None, ReadScope] = {}

    def _scope(self, versions: Sequence[str] | None) -> ReadScope:
        key = None if versions is None else tuple(sorted(versions))
        found = self._scopes.get(key)
        if found is None:
            found = self._scopes[key] = read_scope(self.state, key)
        return found

    @property
    def description(self) -> str:
        return self.index.description

    def search(self, lane: Lane, queries: Sequence[DenseVector] | Sequence[SparseVector],
               limit: int, ontology_hashes: Sequence[str] | None = None,
               hidden: Collection[str] = ()) -> list[list[LaneHit]]:
        if not self._layered:
            return self.index.search(lane, queries, limit, ontology_hashes, hidden)
        scope = self._scope(ontology_hashes)
        found = self.index.search(lane, queries, limit, scope.hashes, scope.hidden | set(hidden))
        return [[LaneHit(h.point_id, h.score, _reported(h.payload, scope)) for h in hits]
                for hits in found]

    def matching(self, field: str, values: Sequence[str], limit: int = 256,
                 ontology_hashes: Sequence[str] | None = None,
                 hidden: Collection[str] = ()) -> list[AtomPayload]:
        if not self._layered:
            return self.index.matching(field, values, limit, ontology_hashes, hidden)
        scope = self._scope(ontology_hashes)
        return [_reported(p, scope) for p in self.index.matching(
            field, values, limit, scope.hashes, scope.hidden | set(hidden))]

    def core_vectors(self, iris: Sequence[str], ontology_hashes: Sequence[str] | None = None,
                     hidden: Collection[str] = ()) -> dict[str, DenseVector]:
        if not self._layered:
            return self.index.core_vectors(iris, ontology_hashes, hidden)
        scope = self._scope(ontology_hashes)
        return self.index.core_vectors(iris, scope.hashes, scope.hidden | set(hidden))

    def count(self, ontology_hash: str | None = None) -> int:
        """Points of one version (its layers' visible points included), or of all."""
        if not self._layered:
            return self.index.count(ontology_hash)
        scope = self._scope(None if ontology_hash is None else [ontology_hash])
        return self.index.count_points(scope.hashes, scope.hidden)

    def count_points(self, ontology_hashes: Sequence[str] | None,
                     hidden: Collection[str] = ()) -> int:
        return self.index.count_points(ontology_hashes, hidden)

    # Writes and whole-index reads are the index sync's, which works on stored hashes.
    def upsert(self, points: Sequence[IndexPoint]) -> None:
        self.index.upsert(points)

    def delete_ontology_hashes(self, hashes: Sequence[str]) -> None:
        self.index.delete_ontology_hashes(hashes)

    def stored_vectors(self, text_hashes: Sequence[str]) -> dict[str, StoredVectors]:
        return self.index.stored_vectors(text_hashes)

    def scroll_vectors(self, batch: int = 512
                       ) -> Iterator[list[tuple[AtomPayload, StoredVectors]]]:
        return self.index.scroll_vectors(batch)

    def flush(self) -> None:
        self.index.flush()

    def optimize(self) -> None:
        self.index.optimize()

    def close(self) -> None:
        self.index.close()



class LentIndex(VersionedIndex):
    """An index its owner keeps open, lent to a sync: ``close`` only flushes.

    Opening a Qdrant Edge shard loads its segments (about a second for the bench
    catalog), so a server that syncs after an apply writes through the shard its
    readers hold rather than closing and opening it twice. Every call passes
    straight through (the sync works on stored hashes).
    """

    def __init__(self, index: VectorIndex) -> None:
        super().__init__(index, IndexState(backend="", location="lent", dimension=0,
                                           fingerprint={}))

    def close(self) -> None:
        self.index.flush()
