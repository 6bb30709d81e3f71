"""Propose, validate, apply, roll back: composes the proposal checks with the store.

validate: parse each update; the ontology must be in the tenant's own
catalog (included catalogs are read-only), writable in the snapshot when one
is given, and still at ``base_hash`` (else stale). The new ontology is the
whole stored version with the change applied, never the snapshot. Checks on
it: SHACL (``shapes/`` plus the tenant's shapes) on the touched terms, with
the types of everything they reference from the tenant's whole catalog, and
only violations the update introduces count; dangling references (a class,
parent, domain, range or predicate nothing declares); removed terms still
used in this or another catalog ontology. The consistency critic adds advice.

apply: the new version's graph is written first (content-addressed, so a
crash leaves at worst an unreferenced graph; an update that only adds
statements writes just those, as a layer over its base's graph), then one
update switches the catalog to it, keeping the old version for rollback; the
index is synced by the caller, which embeds only atoms whose texts changed.
The new version's content hash comes from the base's kept digests and the
change when they are kept (``index/digest_store.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pyoxigraph as ox

from ontoretrieve.backends import TripleStore
from ontoretrieve.backends.triple_store import interned
from ontoretrieve.catalog.files import identify
from ontoretrieve.catalog.reader import CatalogReader
from ontoretrieve.catalog.store import Catalog
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.faults import checkpoint
from ontoretrieve.index.delta import VersionDelta
from ontoretrieve.index.digest_store import DigestStore
from ontoretrieve.proposals.critic import critic_queries, find_conflicts
from ontoretrieve.proposals.model import (
    AppliedVersion,
    Conflict,
    OntologyUpdate,
    Proposal,
    ProposalReport,
    TermScan,
    Violation,
    apply_change,
    change_effect,
    dangling_references,
    parse_triples,
    removed_terms,
    scan_terms,
    touched_nodes,
)
from ontoretrieve.proposals.shacl import DEFAULT_SHAPES, load_shapes, validate
from ontoretrieve.rdf import sparql
from ontoretrieve.rdf.canonical import changed_digests, digests_hash, graph_digests
from ontoretrieve.rdf.graph_index import Statement, as_triples
from ontoretrieve.rdf.vocab import RDF_TYPE, RDF_TYPE_NODE, graph_name, layer_graph_name
from ontoretrieve.records import OntologyVersion, SeedEvidence, VersionStatus
from ontoretrieve.settings import Settings

__all__ = ["Planned", "ProposalRunner"]

Search = Callable[[str], Sequence[SeedEvidence]]
Cached = Callable[[str], Sequence[Statement] | None]
"""A version's triples by content hash, when some cache holds them (None: read them)."""



class Planned:
    """One validated update: the base version, the new version's statements and what changed."""

    def __init__(self, update: OntologyUpdate, base: OntologyVersion, new: list[Statement],
                 add: list[ox.Triple], delta: VersionDelta, digests: list[bytes],
                 layer: list[ox.Triple] | None = None) -> None:
        self.update, self.base, self.new, self.add = update, base, new, add
        """``new``: the new version's statements; ``add``: the triples the update adds."""
        self.delta = delta
        self.added, self.removed = len(delta.added), len(delta.removed)
        self.digests = digests
        """The new version's triple digests (its content hash is made of them)."""
        self.content_hash = digests_hash(digests)
        self.layer = layer
        """What the new version adds to its base's graph, when it is stored as a layer
        (an update that only adds statements); None: it is written whole."""


class ProposalRunner:
    """Validates and applies proposals for one tenant over one store."""

    def __init__(self, settings: Settings, store: TripleStore, tenant: str,
                 search: Search | None = None, cached: Cached | None = None,
                 digests: DigestStore | None = None) -> None:
        self.settings, self.store, self.tenant = settings, store, tenant
        self.cached = cached
        self.digests = digests
        self.catalog = Catalog.for_tenant(store, settings, tenant)
        self.search = search
        config = settings.tenants.get(tenant)
        extra = [Path(p) for p in (config.shapes if config else [])]
        self.shapes = load_shapes([DEFAULT_SHAPES, *extra])

    # -- validate ------------------------------------------------------------------------

    def validate(self, proposal: Proposal) -> tuple[ProposalReport, list[Planned]]:
        violations: list[Violation] = []
        planned: list[Planned] = []
        own = self.catalog.versions(own_only=True)
        visible = self.catalog.versions()
        reader = CatalogReader(self.store, catalog=self.catalog)
        writable = ({r.ontology_iri for r in proposal.snapshot.writable}
                    if proposal.snapshot is not None else None)
        for update in proposal.updates:
            iri = update.ontology_iri
            add_triples = parse_triples(update.add, f"add to {iri}")
            remove_triples = parse_triples(update.remove, f"remove from {iri}")
            # The checks compare statements: the base is read as statements.
            add, remove = interned(add_triples), interned(remove_triples)
            base = _base_version(update, own, visible, writable)
            if isinstance(base, Violation):
                violations.append(base)
                continue
            old = self._base_statements(base)
            present = set(old)
            new, missing = apply_change(old, add, remove, present)
            gone, appended = change_effect(present, add, remove)
            violations.extend(Violation(
                check="missing_triple", ontology_iri=iri, focus=_node(t[0]),
                message="cannot remove a statement the ontology does not have: "
                f"{ox.Triple(*t)}")
                for t in missing[:20])
            violations.extend(self._content_checks(iri, base, old, (gone, appended), new, add,
                                                   remove, reader, visible))
            delta = VersionDelta(base.content_hash,
                                 tuple(dict.fromkeys(ox.Triple(*t) for t in add
                                                     if t not in present)),
                                 tuple(dict.fromkeys(ox.Triple(*t) for t in remove
                                                     if t in present)), new)
            blanks = _BlankNodes(old)
            digests = self._new_digests(base, old, new, gone, appended, blanks)
            planned.append(Planned(update, base, new, add_triples, delta, digests,
                                   self._layer(base, gone, appended, blanks)))
        conflicts = self._critic(proposal, planned)
        report = ProposalReport(
            conforms=not violations, violations=violations, conflicts=conflicts,
            consistency_conflicts=len(conflicts),
            changes={p.update.ontology_iri: {"base_hash": p.base.content_hash,
                                             "content_hash": p.content_hash,
                                             "added": p.added, "removed": p.removed}
                     for p in planned})
        return report, planned

    def _base_statements(self, base: OntologyVersion) -> Sequence[Statement]:
        """The base version's statements: from the retrieval cache when it holds them (an
        engine that has been answering texts on the ontology), else read from the store
        (which the embedded store may have kept: ``statement_cache``). Never made into
        ``ox.Triple`` objects: for GO's 389k that alone took 1.0-1.4 s."""
        held = self.cached(base.content_hash) if self.cached is not None else None
        return held if held is not None else self.catalog.graph_statements(base)

    def _layer(self, base: OntologyVersion, gone: set[Statement], appended: list[Statement],
               blanks: _BlankNodes) -> list[ox.Triple] | None:
        """The statements the new version adds to its base's graph, when it can be stored
        as a layer: the update removes nothing and adds no blank node the base has (a
        layer's blank nodes are its own, so no pattern joins the two graphs through one).
        A layer over a layer adds to the same graph, so the chain never grows."""
        if gone or not appended or not blanks.disjoint(appended):
            return None
        before = self.store.graph_triples(base.added_graph) if base.added_graph else []
        return [*before, *as_triples(appended)]

    def _new_digests(self, base: OntologyVersion, old: Sequence[Statement],
                     new: list[Statement],
                     gone: set[Statement], appended: list[Statement],
                     blanks: _BlankNodes) -> list[bytes]:
        """The new version's digests: from the base's kept ones and the change when it can
        (milliseconds), else by hashing it whole (GO: 1.6 s). A base without kept
        digests gets them here, so its next proposal is hashed from the change. (They
        are the digests of the stored triples, which the new version's hash is made of.)"""
        kept = self.digests.get(base.content_hash) if self.digests is not None else None
        if kept is None:
            kept = graph_digests(as_triples(old))
            if self.digests is not None:
                self.digests.put(base.content_hash, kept)
        found = changed_digests(kept, as_triples(gone), as_triples(appended), blanks.all)
        return found if found is not None else graph_digests(as_triples(new))

    def keep_digests(self, planned: Sequence[Planned]) -> None:
        """Keep each new version's digests (before its index sync, which would otherwise
        hash the version whole)."""
        if self.digests is not None:
            for plan in planned:
                self.digests.put(plan.content_hash, plan.digests)

    def _content_checks(self, iri: str, base: OntologyVersion, old: Sequence[Statement],
                        effect: tuple[set[Statement], list[Statement]], new: list[Statement],
                        add: list[Statement], remove: list[Statement], reader: CatalogReader,
                        visible: Sequence[OntologyVersion]) -> list[Violation]:
        found: list[Violation] = []
        touched = touched_nodes(add, remove)
        # One pass over the base; the new version's scan follows from the change.
        subjects = {t[0].value for t in [*add, *remove] if isinstance(t[0], ox.NamedNode)}
        before_scan = scan_terms(old, touched, also=subjects)
        after_scan = before_scan.changed(*effect)  # (gone, appended): change_effect's
        # Terms the new ontology and the tenant's other ontologies declare.
        declared = after_scan.described
        pointed = dangling_references(add, declared)
        if pointed:
            elsewhere = reader.defining_versions(sorted(pointed))
            for target, predicate in sorted(pointed.items()):
                if target not in elsewhere:
                    found.append(Violation(
                        check="dangling_reference", ontology_iri=iri, focus=target,
                        path=predicate, message="the update points to a term no ontology "
                        "of the catalog declares: declare it or fix the IRI"))
        # SHACL on the touched terms, before and after: only what the update introduces.
        referenced = {t[2].value for t in [*add, *after_scan.statements]
                      if isinstance(t[2], ox.NamedNode)}
        wanted = referenced | touched
        others = [v for v in visible if v.content_hash != base.content_hash]
        outside = self._types(sorted(wanted), {g for v in others for g in v.named_graphs})

        def view(scan: TermScan) -> list[ox.Triple]:
            # The touched terms' statements and the types of what they point to: from
            # this version of the ontology itself, and from the rest of the catalog.
            inside = [t for iri in sorted(wanted) for t in scan.types.get(iri, ())]
            return as_triples(dict.fromkeys(scan.statements + inside + outside))

        before = validate(view(before_scan), self.shapes)
        after = validate(view(after_scan), self.shapes)
        for result in sorted(set(after) - set(before), key=lambda r: (r.shape, r.focus)):
            found.append(Violation(check="shacl", ontology_iri=iri, shape=result.shape,
                                   focus=result.focus, path=result.path,
                                   message=result.message))
        # Removed terms still used elsewhere.
        gone = removed_terms(remove, declared) & before_scan.described
        if gone:
            found.extend(self._still_used(iri, gone, new, others))
        return found

    def _types(self, iris: Sequence[str], graphs: set[str]) -> list[Statement]:
        """rdf:type statements of ``iris`` in ``graphs`` (the other ontologies read)."""
        found: list[Statement] = []
        for batch in sparql.chunks(iris, 400):
            chunk = [i for i in batch if _usable(i)]
            if not chunk:
                continue
            rows = self.store.select(
                f"SELECT DISTINCT ?s ?t ?g WHERE {{ VALUES ?s {{ "
                f"{sparql.iris(chunk)} }} GRAPH ?g {{ ?s "
                f"{sparql.iri(RDF_TYPE)} ?t }} FILTER(isIRI(?t)) }}")
            found.extend((row["s"], RDF_TYPE_NODE, row["t"]) for row in rows  # type: ignore[misc]
                         if row["g"].value in graphs)
        return list(dict.fromkeys(found))

    def _still_used(self, iri: str, gone: set[str], new: list[Statement],
                    others: Sequence[OntologyVersion]) -> list[Violation]:
        found: list[Violation] = []
        used_here = {t[2].value for t in new if isinstance(t[2], ox.NamedNode)}
        by_graph: dict[str, set[str]] = {}
        for version in others:
            for graph in version.named_graphs:
                by_graph.setdefault(graph, set()).add(version.ontology_iri)
        usable = sorted(g for g in gone if _usable(g))
        rows = self.store.select(
            f"SELECT DISTINCT ?o ?g WHERE {{ VALUES ?o {{ "
            f"{' '.join(sparql.iri(i) for i in usable)} }} GRAPH ?g {{ ?s ?p ?o }} }}"
        ) if usable else []
        users: dict[str, set[str]] = {}
        for row in rows:
            if row["g"].value in by_graph:
                users.setdefault(row["o"].value, set()).update(by_graph[row["g"].value])
        for term in sorted(gone):
            where = sorted(users.get(term, set())) + (["this ontology"] if term in used_here
                                                       else [])
            if where:
                found.append(Violation(
                    check="removed_term_in_use", ontology_iri=iri, focus=term,
                    message=f"the update removes a term still used in {', '.join(where)}"))
        return found

    def _critic(self, proposal: Proposal, planned: list[Planned]) -> list[Conflict]:
        if self.search is None or not planned:
            return []
        add = [t for p in planned for t in p.add]
        drawn_on = {p.update.ontology_iri for p in planned}
        if proposal.snapshot is not None:
            drawn_on |= {r.ontology_iri for r in proposal.snapshot.cut_from}
        hits = {q: list(self.search(q))[:3] for q in critic_queries(add)}
        return find_conflicts(hits, drawn_on, self.settings.critic.min_fused_score)

    # -- apply and roll back -------------------------------------------------------------

    def apply(self, planned: Sequence[Planned]) -> list[AppliedVersion]:
        """Write each new version's graph, then switch the catalog to it (one update each)."""
        self.write_graphs(planned)
        return self.switch(planned)

    def write_graphs(self, planned: Sequence[Planned]) -> None:
        """Write each new version's graph under its content-addressed name; nothing refers
        to it until ``switch``, so readers go on meanwhile and a crash leaves at worst an
        unreferenced graph."""
        for plan in planned:
            if plan.layer is not None:  # what it adds, beside its base's graph
                self.store.replace_graph(layer_graph_name(plan.content_hash), plan.layer)
            else:
                self.store.replace_graph(graph_name(plan.content_hash), plan.new)
            checkpoint("apply.graph_written")

    def switch(self, planned: Sequence[Planned]) -> list[AppliedVersion]:
        """Switch the catalog to each new version (written by ``write_graphs``)."""
        applied = []
        for plan in planned:
            base = plan.base
            layered = plan.layer is not None
            graph = base.graph if layered else graph_name(plan.content_hash)
            identity = identify(plan.new, base.source)
            version = base.model_copy(update={
                "version": identity.version if not identity.derived else base.version,
                "content_hash": plan.content_hash, "graph": graph,
                "added_graph": layer_graph_name(plan.content_hash) if layered else None,
                "triple_count": len(plan.new), "status": VersionStatus.CURRENT,
                "loaded_at": datetime.now(UTC).replace(microsecond=0),
                "origin": "proposal", "supersedes": base.content_hash})
            self.catalog.switch_to(version)
            checkpoint("apply.switched")
            applied.append(AppliedVersion(ontology_iri=base.ontology_iri,
                                          previous_hash=base.content_hash,
                                          content_hash=plan.content_hash, graph=graph))
        return applied

    def rollback(self, ontology_iri: str) -> AppliedVersion:
        """Switch the ontology back to the version its current applied version replaced."""
        every = self.catalog.versions(include_inactive=True, own_only=True)
        current = [v for v in every if v.ontology_iri == ontology_iri
                   and v.status is VersionStatus.CURRENT]
        if not current:
            raise OntoRetrieveError(f"no current version of {ontology_iri} in the tenant's "
                                    "catalog")
        applied = next((v for v in current if v.supersedes), None)
        if applied is None:
            raise OntoRetrieveError(f"the current version of {ontology_iri} was loaded from "
                                    "its file, not applied from a proposal: nothing to roll "
                                    "back")
        previous = next((v for v in every if v.source == applied.source
                         and v.content_hash == applied.supersedes), None)
        if previous is None:
            raise OntoRetrieveError(f"the version {applied.supersedes} that {ontology_iri} "
                                    "replaced is no longer recorded")
        self.catalog.switch_to(previous)
        return AppliedVersion(ontology_iri=ontology_iri, previous_hash=applied.content_hash,
                              content_hash=previous.content_hash, graph=previous.graph)


class _BlankNodes:
    """The base version's blank nodes, gathered once and only when asked."""

    def __init__(self, statements: Sequence[Statement]) -> None:
        self._statements = statements
        self._found: set[ox.BlankNode] | None = None

    def all(self) -> set[ox.BlankNode]:
        if self._found is None:
            self._found = {n for t in self._statements for n in (t[0], t[2])
                           if isinstance(n, ox.BlankNode)}
        return self._found

    def disjoint(self, statements: Sequence[Statement]) -> bool:
        """Whether ``statements`` use none of them (asked only when they use blank nodes)."""
        mine = {n for t in statements for n in (t[0], t[2]) if isinstance(n, ox.BlankNode)}
        return not mine or mine.isdisjoint(self.all())


def _node(term: object) -> str | None:
    return term.value if isinstance(term, ox.NamedNode) else None


def _usable(iri: str) -> bool:
    try:
        sparql.iri(iri)
    except ValueError:
        return False
    return True


def _base_version(update: OntologyUpdate, own: Sequence[OntologyVersion],
                  visible: Sequence[OntologyVersion], writable: set[str] | None
                  ) -> OntologyVersion | Violation:
    """The version an update changes, or why it cannot: an ontology this tenant does not
    own (or only includes), one the snapshot does not list as writable, or a stale base."""
    iri = update.ontology_iri
    candidates = [v for v in own if v.ontology_iri == iri]
    if not candidates:
        included = any(v.ontology_iri == iri for v in visible)
        return Violation(check="unknown_ontology", ontology_iri=iri, message=(
            "the ontology is in an included catalog, which this tenant cannot change"
            if included else "no ontology of the tenant's catalog has this IRI"))
    if writable is not None and iri not in writable:
        return Violation(check="not_writable", ontology_iri=iri, message=(
            "the snapshot does not list this ontology as writable"))
    base = next((v for v in candidates if v.content_hash == update.base_hash), None)
    if base is None:
        return Violation(check="stale", ontology_iri=iri, message=(
            f"the proposal was made against {update.base_hash[:12]}, but the current "
            f"version is {candidates[0].content_hash[:12]}: retrieve again and "
            "re-propose"))
    return base
