"""A version that replaces another, written as a layer: the cost follows the change.

When a new version of an ontology replaces an indexed one (an applied proposal,
an edited file), only the atoms whose content changed are written, under the
new version's hash; the others stay the earlier version's points, untouched, and
the earlier points of changed or removed terms are hidden by id
(``index/layers.py`` reads the result). The terms to look at come from the
delta (``index/delta.py``); their atoms are made from their neighbourhood, read
from the store with targeted queries in the store's own triple order, so they
equal what a whole re-atomization of the stored version gives.

``plan_layer`` returns None when a whole write is the better deal: too many
layers or hidden points already, a change touching a large part of the
ontology, dedup keys that do not carry the version hash, or undescribed IRIs
indexed (their atoms need the whole ontology).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

import pyoxigraph as ox

from ontoretrieve.backends import TripleStore
from ontoretrieve.backends.vector_index import VectorIndex, point_id
from ontoretrieve.index.atomize import (
    Atom,
    AtomSource,
    TermNeighbourhood,
    atomize_terms,
    indexed_iri,
    naming_predicates,
)
from ontoretrieve.index.delta import VersionDelta, affected_terms
from ontoretrieve.index.mention_forms import FormKind, TermForms, term_forms
from ontoretrieve.index.mention_keys import KeyedForm, shortened_keys, term_keys
from ontoretrieve.index.payload import to_payload
from ontoretrieve.index.state import IndexedOntology
from ontoretrieve.rdf import sparql
from ontoretrieve.rdf.graph_index import Statement
from ontoretrieve.records import AtomPayload
from ontoretrieve.settings import Settings
from ontoretrieve.settings.groups import DedupMode, IndexSettings

__all__ = ["MAX_HIDDEN", "MAX_LAYERS", "LayerWrite", "dedup_key", "plan_layer",
           "read_neighbourhood"]

MAX_LAYERS = 8
"""Layers a version may read before the next replacement is written whole."""
MAX_HIDDEN = 20_000
"""Hidden point ids a version may carry (every query filters on them) before the
next replacement is written whole."""
_LAYER_SHARE = 0.25
"""A change affecting more than this share of a version's atoms is written whole."""
_CHUNK = 200
_IDENTITY = ("atom_id", "ontology_hash", "ontology_version")
"""Payload fields that name the version a point was written for, not its content."""


@dataclass(frozen=True, slots=True)
class LayerWrite:
    """What writing a version as a layer over its base takes."""

    atoms: list[Atom]
    """Atoms to write under the new version's hash (content changed or new)."""
    info: IndexedOntology
    """The new version's entry in the index state (layers, hidden ids, atom count)."""
    forms: list[TermForms]
    """The new version's mention forms (the base's, with the looked-at terms redone)."""
    keyed: list[KeyedForm] | None
    """The forms under their match keys, from the base's keys (None: the base has none)."""


def dedup_key(iri: str, version: str, content_hash: str, atom_id: str,
              index: IndexSettings) -> str:
    """The dedup key the store keeps one record per (VECTOR_STORE_DEDUP_MODE).

    >>> dedup_key("http://x/t", "1.0", "h", "id1", IndexSettings())
    'iri|http://x/t|1.0|h'
    >>> dedup_key("http://x/t", "1.0", "h", "id1", IndexSettings(dedup_mode="atom_id"))
    'atom|id1'
    """
    if index.dedup_mode is DedupMode.ATOM_ID:
        return f"atom|{atom_id}"
    parts = ["iri", iri]
    if index.dedup_include_version:
        parts.append(version)
    if index.dedup_include_hash:
        parts.append(content_hash)
    return "|".join(parts)


def _layerable(index: IndexSettings) -> bool:
    """Whether two versions of one term get two points (keys carry the version hash)."""
    keyed = index.dedup_mode is DedupMode.ATOM_ID or index.dedup_include_hash
    return keyed and not index.index_undescribed_iris


def plan_layer(store: TripleStore, index: VectorIndex, settings: Settings, *,
               graphs: Sequence[str], source: AtomSource, base: IndexedOntology,
               delta: VersionDelta, new: Sequence[ox.Triple] | Sequence[Statement],
               base_forms: Sequence[TermForms] | None,
               base_keyed: Sequence[KeyedForm] | None = None) -> LayerWrite | None:
    """The layer that turns ``base`` (indexed, hash ``delta.base_hash``) into the version
    ``source`` names, whose stored graphs are ``graphs`` (one, or a catalog layer's two)
    and triples ``new``; None: write the version whole instead."""
    hidden_now = sum(len(ids) for ids in base.hidden.values())
    if (not _layerable(settings.index) or base_forms is None
            or len(base.layers) + 1 > MAX_LAYERS or hidden_now > MAX_HIDDEN):
        return None
    naming = naming_predicates(settings.index)
    indexed = indexed_iri(settings.index)
    terms = sorted(t for t in affected_terms(delta, new, naming) if indexed(t))
    if len(terms) > max(64, _LAYER_SHARE * base.atoms):
        return None
    hood = read_neighbourhood(store, graphs, terms, naming)
    fresh = {a.iri: a for a in atomize_terms(terms, hood, source, settings.index,
                                             settings.triggers)}
    stored = _stored_points(index, terms, base, delta.base_hash)
    changed, hide = _compare(fresh, stored, settings.index)
    hidden = {layer: list(ids) for layer, ids in base.hidden.items()}
    for layer, ids in hide.items():
        hidden[layer] = sorted({*hidden.get(layer, ()), *ids})
    if sum(len(ids) for ids in hidden.values()) > MAX_HIDDEN:
        return None
    atoms_total = base.atoms + len(fresh.keys() - stored.keys()) - len(stored.keys() - fresh.keys())
    info = IndexedOntology(ontology_iri=source.ontology_iri, version=source.version,
                           sources=base.sources, atoms=atoms_total,
                           layers=[*base.layers, delta.base_hash], hidden=hidden)
    forms = _merged_forms(base_forms, terms, hood, settings.index)
    return LayerWrite(atoms=changed, info=info, forms=forms,
                      keyed=None if base_keyed is None else _merged_keys(base_keyed, forms,
                                                                         set(terms)))


def _stored_points(index: VectorIndex, terms: Sequence[str], base: IndexedOntology,
                   base_hash: str) -> dict[str, AtomPayload]:
    """The base version's visible point of each term that has one."""
    reads = base.reads(base_hash)
    hidden = {i for ids in base.hidden.values() for i in ids}
    found: dict[str, AtomPayload] = {}
    for chunk in sparql.chunks(terms, _CHUNK):
        for payload in index.matching("iri", chunk, limit=4 * len(chunk),
                                      ontology_hashes=reads, hidden=hidden):
            found.setdefault(payload["iri"], payload)
    return found


def _compare(fresh: dict[str, Atom], stored: dict[str, AtomPayload], index: IndexSettings
             ) -> tuple[list[Atom], dict[str, list[str]]]:
    """Atoms to write (new or changed content) and, per layer, the base points to hide."""
    changed: list[Atom] = []
    hide: dict[str, list[str]] = defaultdict(list)
    for iri in sorted(fresh.keys() | stored.keys()):
        atom, payload = fresh.get(iri), stored.get(iri)
        if atom is not None and payload is not None and _same_content(atom, payload):
            continue
        if atom is not None:
            changed.append(atom)
        if payload is not None:
            key = dedup_key(iri, payload.get("ontology_version", ""),
                            payload["ontology_hash"], payload.get("atom_id", ""), index)
            hide[payload["ontology_hash"]].append(point_id(key))
    return changed, dict(hide)


def _same_content(atom: Atom, payload: AtomPayload) -> bool:
    mine = {k: v for k, v in to_payload(atom).items() if k not in _IDENTITY}
    theirs = {k: payload.get(k) for k in mine}
    return mine == theirs


def _merged_forms(base: Sequence[TermForms], terms: Collection[str],
                  hood: TermNeighbourhood, index: IndexSettings) -> list[TermForms]:
    """The base's forms with the looked-at terms' forms made again from their statements."""
    redone = {f.iri: f for f in term_forms(hood.outgoing, index)}
    kept = {f.iri: f for f in base if f.iri not in terms}
    return [forms for _, forms in sorted({**kept, **redone}.items())]


def _merged_keys(base: Sequence[KeyedForm], forms: Sequence[TermForms], redone: set[str]
                 ) -> list[KeyedForm]:
    """``keyed_forms(forms)``, normalizing only the redone terms (a term's own keys
    depend on its own forms alone); the version's shortened-name keys derived again."""
    by_term: dict[str, list[KeyedForm]] = defaultdict(list)
    for entry in base:
        if entry[4] != FormKind.ELLIPTIC.value:
            by_term[entry[2]].append(entry)
    fresh = {f.iri: f for f in forms if f.iri in redone}
    found: list[KeyedForm] = []
    for term in forms:
        found += term_keys([fresh[term.iri]]) if term.iri in fresh else by_term[term.iri]
    return found + shortened_keys(found)


def read_neighbourhood(store: TripleStore, graphs: Sequence[str], terms: Sequence[str],
                       naming: Sequence[str]) -> TermNeighbourhood:
    """The terms' neighbourhood in a version's stored graphs, by targeted queries.

    Each list keeps the store's order per term (a term's statements, the
    statements pointing at it), graph after graph, which is the order a whole
    read of the version gives them, so atoms made from it equal a whole
    re-atomization's. (A catalog layer's blank nodes are its own, so no
    statement chain crosses from one graph to the other.)

    >>> from ontoretrieve.backends import OxigraphStore
    >>> store = OxigraphStore.in_memory()
    >>> ttl = '@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . '
    >>> ttl += '<http://x/b> rdfs:subClassOf <http://x/a> . <http://x/a> rdfs:label "cell" .'
    >>> store.replace_graph("urn:g", [q.triple for q in ox.parse(ttl.encode(),
    ...                               format=ox.RdfFormat.TURTLE)])
    >>> hood = read_neighbourhood(store, ["urn:g"], ["http://x/b"], naming_predicates(
    ...     IndexSettings()))
    >>> len(hood.outgoing), [t.object.value for t in hood.names]
    (1, ['cell'])
    """
    outgoing: list[ox.Triple] = []
    restrictions: list[ox.Triple] = []
    incoming: list[ox.Triple] = []
    predicates: set[str] = set()
    named = [sparql.iri(graph) for graph in graphs]
    for chunk in sparql.chunks(terms, _CHUNK):
        values = sparql.iris(chunk)
        for g in named:
            _read_outgoing(store, g, values, outgoing, restrictions)
        for g in named:
            incoming.extend(_triples(store.select(
                f"SELECT ?s ?p ?o WHERE {{ GRAPH {g} {{ VALUES ?o {{ {values} }} ?s ?p ?o "
                f"FILTER(isIRI(?s)) }} }}")))
            predicates |= {row["p"].value for row in store.select(
                f"SELECT ?p WHERE {{ VALUES ?p {{ {values} }} "
                f"FILTER EXISTS {{ GRAPH {g} {{ ?s ?p ?o }} }} }}")}
    mentioned = {t.object.value for t in [*outgoing, *restrictions]
                 if isinstance(t.object, ox.NamedNode)}
    mentioned |= {t.predicate.value for t in outgoing}
    mentioned |= {v for t in incoming if isinstance(t.subject, ox.NamedNode)
                  for v in (t.subject.value, t.predicate.value)}
    names: list[ox.Triple] = []
    wanted = sparql.iris(naming)
    for chunk in sparql.chunks(sorted(mentioned), _CHUNK):
        for g in named:
            names.extend(_triples(store.select(
                f"SELECT ?s ?p ?o WHERE {{ GRAPH {g} {{ VALUES ?s {{ "
                f"{sparql.iris(chunk)} }} VALUES ?p {{ {wanted} }} "
                f"?s ?p ?o }} }}")))
    return TermNeighbourhood(outgoing, incoming, restrictions, names, frozenset(predicates))


def _read_outgoing(store: TripleStore, g: str, values: str, outgoing: list[ox.Triple],
                   restrictions: list[ox.Triple]) -> None:
    """The terms' statements, and those of the blank nodes they point at, in one answer
    (so a blank node has one label in both)."""
    rows = store.select(
        f"SELECT ?s ?p ?o ?bp ?bo WHERE {{ GRAPH {g} {{ VALUES ?s {{ {values} }} ?s ?p ?o "
        f"OPTIONAL {{ ?o ?bp ?bo FILTER(isBlank(?o)) }} }} }}")
    seen: set[ox.Triple] = set()
    for row in rows:
        triple = ox.Triple(row["s"], row["p"], row["o"])  # type: ignore[arg-type]
        if triple not in seen:
            seen.add(triple)
            outgoing.append(triple)
        if "bp" in row:
            restrictions.append(ox.Triple(row["o"], row["bp"], row["bo"]))  # type: ignore[arg-type]


def _triples(rows: Iterable[dict[str, ox.NamedNode | ox.BlankNode | ox.Literal]]
             ) -> list[ox.Triple]:
    return [ox.Triple(row["s"], row["p"], row["o"]) for row in rows]  # type: ignore[arg-type]
