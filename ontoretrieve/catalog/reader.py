"""How retrieval reads the catalog: targeted SELECTs, cached graphs, pushdown, fallbacks.

docs/catalog.md, "Reading it back". Never loads the whole catalog while SPARQL works:
the seeds' cross-ontology references are resolved with one SELECT, and only
the ontologies that survive are fetched, once per version (the graph cache);
their union is a view remembered per set of versions (the merge cache).
With pushdown a bounded neighbourhood of the seeds is cut by SPARQL instead.

Failures move down the degradation chain (docs/context.md), recorded in
``CatalogAccess.access_mode``: ``sparql`` -> ``full_fetch_fallback`` (graphs
fetched by name, references found by scanning them in memory) ->
``atoms_fallback`` (the pipeline builds the context from the index payloads).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import pyoxigraph as ox

from ontoretrieve.backends import TripleStore
from ontoretrieve.catalog.rows import CatalogRows
from ontoretrieve.catalog.store import Catalog
from ontoretrieve.collector import collector_paused
from ontoretrieve.errors import StoreQueryError, StoreUnavailableError
from ontoretrieve.rdf import sparql
from ontoretrieve.rdf.graph_index import (
    GraphIndex,
    Node,
    Statement,
    WorkingGraph,
    is_standard,
    reference_targets,
)
from ontoretrieve.rdf.merged_memo import MergedLookups
from ontoretrieve.rdf.vocab import (
    CLASS_TYPE_NODES,
    OWNER_PREDICATE,
    RDF_TYPE,
    RDFS_DOMAIN,
    RDFS_RANGE,
    RDFS_SUBCLASS_OF,
    RDFS_SUBPROPERTY_OF,
    graph_name,
)
from ontoretrieve.records import CatalogAccessMode, OntologyVersion

__all__ = [
    "VERSIONS_RECHECK_SECONDS",
    "CatalogAccess",
    "CatalogReader",
    "VersionChoice",
    "choose_versions",
]


StoreFailure = (StoreQueryError, StoreUnavailableError)
VERSIONS_RECHECK_SECONDS = 1.0
"""How stale the list of catalog versions may be (a load by another process)."""
"""Marker predicate the pushdown CONSTRUCT uses to say which graph a subject is in."""



@dataclass(slots=True)
class CatalogAccess:
    """The catalog I/O metrics of one retrieval (``metrics.catalog_*`` of the context)."""

    access_mode: CatalogAccessMode = CatalogAccessMode.SPARQL
    context_mode: str = "merged_catalog"
    context_triples: int = 0
    graph_cache_hits: int = 0
    graph_cache_misses: int = 0
    merge_cache_hits: int = 0
    merge_cache_misses: int = 0
    expanded_ontology_iris: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class VersionChoice:
    """The catalog versions a retrieval reads, and the warnings of any relaxation."""

    hashes: list[str]
    """Chosen content hashes, in the order the seeds first named them."""
    mapping: dict[str, str]
    """Indexed hash -> catalog hash it resolved to."""
    warnings: list[str]


def choose_versions(wanted: Sequence[tuple[str, str, str | None]],
                    catalog: Sequence[OntologyVersion]) -> VersionChoice:
    """The version filter: each hit's exact version, else the same version, else any.

    ``wanted`` holds (content hash, ontology IRI, version) as the index
    recorded them. Relaxing keeps an ontology in the context after the
    catalog moved on; it warns, because the index is then stale.

    >>> from datetime import datetime
    >>> v = OntologyVersion(ontology_iri="http://o", iri_derived=False, version="2",
    ...     content_hash="new", graph="g", source="s", file_digest="d", rdf_format="ttl",
    ...     triple_count=1, loaded_at=datetime(2026, 1, 1), status="current")
    >>> choice = choose_versions([("old", "http://o", "1")], [v])
    >>> choice.mapping, choice.warnings[0][:40]
    ({'old': 'new'}, 'http://o: indexed version 1 (old) is not')
    """
    by_hash = {v.content_hash: v for v in catalog}
    hashes: dict[str, None] = {}
    mapping: dict[str, str] = {}
    warnings: list[str] = []
    for content_hash, ontology_iri, version in wanted:
        if content_hash in mapping:
            continue
        if content_hash in by_hash:
            mapping[content_hash] = content_hash
            hashes[content_hash] = None
            continue
        same_iri = [v for v in catalog if v.ontology_iri == ontology_iri]
        same_version = [v for v in same_iri if v.version == version]
        chosen = same_version or same_iri
        if not chosen:
            warnings.append(f"{ontology_iri}: indexed version {version} ({content_hash}) is not "
                            "in the catalog any more; its hits are left out (reindex)")
            continue
        how = "the same version" if same_version else "the current version"
        warnings.append(f"{ontology_iri}: indexed version {version} ({content_hash}) is not "
                        f"in the catalog; using {how} ({chosen[0].content_hash}); reindex")
        mapping[content_hash] = chosen[0].content_hash
        hashes[chosen[0].content_hash] = None
    return VersionChoice(list(hashes), mapping, warnings)


class CatalogReader:
    """Reads catalog graphs for retrieval through the ``TripleStore``, with caches.

    Thread-compatible, not thread-safe: one reader per worker.
    """

    def __init__(self, store: TripleStore, *, catalog: Catalog | None = None,
                 cache_triples: int = 8_000_000, merge_cache_size: int = 64) -> None:
        self.store = store
        self.catalog = catalog or Catalog(store)
        self.cache_triples = cache_triples
        self.merge_cache_size = merge_cache_size
        self._graphs: OrderedDict[str, GraphIndex] = OrderedDict()
        self._merged: OrderedDict[frozenset[str], WorkingGraph] = OrderedDict()
        self._lookups = MergedLookups()
        """Merged neighbour lists shared by all views (each retrieval's set differs)."""
        self._pending: dict[str, Sequence[ox.Triple] | Sequence[Statement]] = {}
        """The triples of the version an apply just wrote, until first read (at most one)."""
        self._versions: list[OntologyVersion] | None = None
        self._versions_stamp: object = None
        self._checked_at = 0.0

    def renewed(self) -> CatalogReader:
        """A reader that reads the catalog's versions afresh (after a write) and shares
        this one's graph caches: they are keyed by content hash, so they stay true."""
        other = CatalogReader(self.store, catalog=self.catalog,
                              cache_triples=self.cache_triples,
                              merge_cache_size=self.merge_cache_size)
        other._graphs, other._merged, other._lookups = self._graphs, self._merged, self._lookups
        other._pending = self._pending
        return other

    def versions(self) -> list[OntologyVersion]:
        """Current catalog versions, re-read only when a load has happened since.

        Whether one has is asked at most every ``VERSIONS_RECHECK_SECONDS``
        (a SELECT each retrieval costs several milliseconds); ``invalidate``
        forces it.
        """
        now = time.monotonic()
        if self._versions is not None and now - self._checked_at < VERSIONS_RECHECK_SECONDS:
            return self._versions
        stamp = [state.at if state else None for state in self.catalog.layer_loads()]
        if self._versions is None or stamp != self._versions_stamp:
            self._versions = self.catalog.versions()
            self._versions_stamp = stamp
        self._checked_at = now
        return self._versions

    def graph(self, content_hash: str, access: CatalogAccess) -> GraphIndex:
        """One version's triples, indexed; fetched once and kept while the cache has room."""
        cached = self._graphs.get(content_hash)
        if cached is not None:
            self._graphs.move_to_end(content_hash)
            access.graph_cache_hits += 1
            return cached
        access.graph_cache_misses += 1
        held = self._pending.pop(content_hash, None)
        with collector_paused():  # a burst of acyclic tuples: see ontoretrieve.collector
            index = GraphIndex(content_hash, held if held is not None
                               else self._version_statements(content_hash))
        self._graphs[content_hash] = index
        while sum(len(g) for g in self._graphs.values()) > self.cache_triples \
                and len(self._graphs) > 1:
            self._graphs.popitem(last=False)
        return index

    def _version_statements(self, content_hash: str) -> list[Statement]:
        """A version's statements from its named graphs (a layer's: two); read by name
        when the catalog cannot list it (a store that answers graphs but not the listing)."""
        try:
            version = next((v for v in self.versions() if v.content_hash == content_hash),
                           None) or self.catalog.version_of(content_hash)
        except StoreFailure:  # the listing fails: the graph may still be fetched by name
            version = None
        if version is None:
            return self.store.graph_statements(graph_name(content_hash))
        return self.catalog.graph_statements(version)

    def graphs_of(self, hashes: Iterable[str]) -> list[str]:
        """The named graphs holding these versions' triples (for SPARQL over them)."""
        return list(self._owners(hashes))

    def _owners(self, hashes: Iterable[str]) -> dict[str, str]:
        """Each named graph holding these versions' triples, and the version it is read for
        (a version the catalog does not list: the graph named by its hash)."""
        wanted = set(hashes)
        found = {v.content_hash: v.named_graphs for v in self.versions()
                 if v.content_hash in wanted}
        return {g: h for h in sorted(wanted) for g in found.get(h, [graph_name(h)])}

    def cached(self, content_hash: str) -> GraphIndex | None:
        """The version's index when the cache holds it (nothing is read); safe beside
        readers, since an index is never changed once made."""
        return self._graphs.get(content_hash)

    def derive(self, content_hash: str, base_hash: str, added: Iterable[ox.Triple],
               removed: Iterable[ox.Triple],
               triples: Sequence[ox.Triple] | Sequence[Statement] = ()) -> bool:
        """Cache a new version's index made from its base's, when the base is cached (an
        applied proposal): the first retrieval after the apply then reads nothing from
        the store. Else keep the version's ``triples`` or statements (what the apply wrote) for its
        first read, in place of reading the store. Neighbours are looked up in canonical
        order, so either answers as an index read from the store. False when there was
        nothing to derive from."""
        if content_hash in self._graphs:
            return False
        base = self._graphs.get(base_hash)
        if base is None:
            self._pending.clear()  # only the last apply's: a few hundred MB for GO
            if triples:
                self._pending[content_hash] = triples
            return False
        with collector_paused():
            self._graphs[content_hash] = base.changed(content_hash, added, removed)
        return True

    def merged(self, hashes: Iterable[str], access: CatalogAccess) -> WorkingGraph:
        """The working graph over several versions (a view; remembered per set)."""
        key = frozenset(hashes)
        cached = self._merged.get(key)
        if cached is not None and all(p.name in self._graphs for p in cached.parts):
            self._merged.move_to_end(key)
            access.merge_cache_hits += 1
            return cached
        access.merge_cache_misses += 1
        view = WorkingGraph([self.graph(h, access) for h in sorted(key)], self._lookups)
        self._merged[key] = view
        while len(self._merged) > self.merge_cache_size:
            self._merged.popitem(last=False)
        return view

    def referenced_versions(self, iris: Sequence[str], hashes: Sequence[str],
                            catalog: Sequence[OntologyVersion],
                            rows: CatalogRows | None = None) -> list[str]:
        """Versions declaring classes the terms point to by subClassOf, domain or range,
        in the order of the terms that point to them.

        One SELECT per 400 of the terms ``rows`` (a batch's, ``CatalogRows``) lacks;
        raises the store's error on failure.
        """
        if not iris:
            return []
        current = _by_graph(catalog)
        sources = set(self.graphs_of(hashes))
        links = (rows or CatalogRows()).reference_rows(self.store, iris)
        found = [h for iri in dict.fromkeys(iris) for source, graph in links[iri]
                 if graph in current and source in sources for h in current[graph]]
        return [h for h in dict.fromkeys(found) if h not in hashes]

    def facts(self, iris: Sequence[str], predicates: Sequence[str], graphs: Iterable[str],
              rows: CatalogRows | None = None
              ) -> dict[str, list[tuple[str, ox.NamedNode | ox.BlankNode | ox.Literal]]]:
        """Per IRI, its (predicate, object) statements with one of ``predicates`` in one of
        ``graphs`` (named graph IRIs), in a canonical order. One SELECT per 400 of the IRIs
        ``rows`` (a batch's, ``CatalogRows``) lacks; raises the store's error on failure."""
        if not iris:
            return {}
        wanted = set(graphs)
        found: dict[str, list[tuple[str, ox.NamedNode | ox.BlankNode | ox.Literal]]] = {}
        for iri, statements in (rows or CatalogRows()).fact_rows(
                self.store, iris, predicates).items():
            pairs = [(p, o) for graph, p, o in statements if graph in wanted]
            if pairs:
                found[iri] = pairs
        return found

    def defining_versions(self, iris: Sequence[str], batch: int = 400) -> dict[str, list[str]]:
        """The current versions (content hashes) in which each IRI is a subject.

        One SELECT per ``batch`` IRIs; IRIs no version describes are left out.
        """
        by_graph = _by_graph(self.versions())
        found: dict[str, list[str]] = {}
        for chunk in sparql.chunks(sorted(set(iris)), batch):
            query = ("SELECT DISTINCT ?s ?g WHERE { "
                     f"VALUES ?s {{ {sparql.iris(chunk)} }} "
                     "GRAPH ?g { ?s ?p ?o . } }")
            for row in self.store.select(query):
                graph = row["g"].value if "g" in row else None
                if graph in by_graph:
                    found.setdefault(row["s"].value, []).extend(by_graph[graph])
        return found

    def referenced_by_scan(self, iris: Sequence[str], hashes: Sequence[str],
                           candidates: Sequence[str], access: CatalogAccess) -> list[str]:
        """The same answer as ``referenced_versions``, by scanning fetched graphs.

        The seeds' own graphs must be at hand; a candidate graph that cannot be
        fetched (the store is down and it was never cached) is passed over and
        the failure recorded, so the level still answers with what it has.
        """
        targets = {ox.NamedNode(t) for t in
                   reference_targets(self.merged(hashes, access), iris)}
        found: list[str] = []
        for content_hash in candidates:
            if content_hash in hashes or not targets:
                continue
            try:
                graph = self.graph(content_hash, access)
            except StoreFailure as exc:
                access.failures.append(f"referenced graph {content_hash[:12]} skipped: {exc}")
                continue
            if any(graph.describes(t) and any(
                    p.value == RDF_TYPE and o in CLASS_TYPE_NODES for p, o in graph.out(t))
                   for t in targets):
                found.append(content_hash)
        return found

    def neighbourhood(self, iris: Sequence[str], hashes: Sequence[str], levels: int,
                      access: CatalogAccess) -> WorkingGraph:
        """Pushdown: the seeds' bounded neighbourhood in the chosen graphs, cut by SPARQL.

        Nodes are collected level by level with SELECT (incoming schema links
        only around the seeds themselves, so a hub class does not pull in all
        its descendants), then one CONSTRUCT per batch returns their
        statements with nested blank nodes three levels deep and a marker
        triple naming the graph each subject is in.
        """
        owners = self._owners(hashes)
        graphs = ", ".join(sparql.iri(g) for g in owners)
        nodes: dict[str, None] = dict.fromkeys(iris)
        frontier = list(iris)
        for level in range(levels):
            if not frontier:
                break
            incoming = (
                "UNION { ?n ?r ?s . FILTER(?r IN ("
                f"{sparql.iri(RDFS_SUBCLASS_OF)}, {sparql.iri(RDFS_SUBPROPERTY_OF)}, "
                f"{sparql.iri(RDFS_DOMAIN)}, {sparql.iri(RDFS_RANGE)})) }}"
                if level == 0 else "")
            found: list[str] = []
            for batch in sparql.chunks(frontier, 400):
                query = (
                    f"SELECT DISTINCT ?n WHERE {{ "
                    f"VALUES ?s {{ {sparql.iris(batch)} }} "
                    "GRAPH ?g { { ?s ?p ?n } UNION { ?s ?p ?b . ?b ?q ?n . FILTER(isBlank(?b)) } "
                    f"{incoming} }} FILTER(?g IN ({graphs})) FILTER(isIRI(?n)) }}")
                found.extend(row["n"].value for row in self.store.select(query) if "n" in row)
            frontier = [n for n in dict.fromkeys(found)
                        if n not in nodes and not is_standard(ox.NamedNode(n))]
            nodes.update(dict.fromkeys(frontier))
        triples: list[ox.Triple] = []
        for batch in sparql.chunks(list(nodes), 300):
            triples.extend(self.store.construct(_neighbourhood_construct(batch, graphs)))
        access.context_mode = "sparql_candidate"
        return _split_by_owner(triples, owners)


def _neighbourhood_construct(subjects: Sequence[str], graphs: str) -> str:
    """The statements of ``subjects`` with their blank nodes three levels deep.

    UNION branches, each bound from ``?s`` outwards: an OPTIONAL chain makes
    Oxigraph evaluate the optional side over the whole store (minutes on
    the bench catalog instead of milliseconds). Blank-node labels are
    consistent within one result, which is all the closure needs.
    """
    blank = "FILTER(isBlank(?b1)) ?b1 ?p2 ?o2 ."
    deeper = f"{blank} FILTER(isBlank(?o2)) ?o2 ?p3 ?o3 ."
    deepest = f"{deeper} FILTER(isBlank(?o3)) ?o3 ?p4 ?o4 ."
    return (
        f"CONSTRUCT {{ ?s ?p ?o . ?s ?p ?b1 . ?b1 ?p2 ?o2 . ?o2 ?p3 ?o3 . ?o3 ?p4 ?o4 . "
        f"?s {sparql.iri(OWNER_PREDICATE)} ?g }} WHERE {{ "
        f"VALUES ?s {{ {sparql.iris(subjects)} }} "
        "{ GRAPH ?g { ?s ?p ?o } } "
        f"UNION {{ GRAPH ?g {{ ?s ?p ?b1 . {blank} }} }} "
        f"UNION {{ GRAPH ?g {{ ?s ?p ?b1 . {deeper} }} }} "
        f"UNION {{ GRAPH ?g {{ ?s ?p ?b1 . {deepest} }} }} "
        f"FILTER(?g IN ({graphs})) }}")


def _split_by_owner(triples: Sequence[ox.Triple], owners: dict[str, str]) -> WorkingGraph:
    """The CONSTRUCT's statements split by the version (``owners``: by named graph) each
    subject's marker names."""
    owner: dict[Node, str] = {}
    for t in triples:
        if t.predicate.value == OWNER_PREDICATE and isinstance(t.object, ox.NamedNode):
            owner.setdefault(t.subject, owners.get(t.object.value,  # type: ignore[arg-type]
                                                   t.object.value.rsplit(":", 1)[-1]))
    statements = list(dict.fromkeys(t for t in triples if t.predicate.value != OWNER_PREDICATE))
    # Blank nodes belong where the named subject that reaches them belongs.
    changed = True
    while changed:
        changed = False
        for t in statements:
            if isinstance(t.object, ox.BlankNode) and t.object not in owner \
                    and t.subject in owner:
                owner[t.object] = owner[t.subject]  # type: ignore[index]
                changed = True
    parts: dict[str, list[ox.Triple]] = {}
    for t in statements:
        parts.setdefault(owner.get(t.subject, ""), []).append(t)  # type: ignore[arg-type]
    return WorkingGraph([GraphIndex(name, part) for name, part in sorted(parts.items())])


def _by_graph(versions: Iterable[OntologyVersion]) -> dict[str, list[str]]:
    """The versions (content hashes) each named graph holds triples of: a layer shares
    its base's graph, so one graph can hold part of several versions."""
    found: dict[str, list[str]] = {}
    for version in versions:
        for graph in version.named_graphs:
            found.setdefault(graph, []).append(version.content_hash)
    return found
