"""Atomize one ontology version: one atom per term it describes, three lane texts each.

Pure: triples and settings in, atoms out. The rules (docs/indexing.md,
"What the index holds"):

- a term is described when it is the subject of a triple in the ontology;
  terms only referenced are skipped unless ``index_undescribed_iris``;
- terms of the standard vocabularies (RDF, RDFS, OWL, XSD, SKOS, Dublin Core,
  PROV, FOAF, SHACL, schema.org) are skipped unless
  ``embed_standard_vocab_iris``; ``extra_excluded_namespace_prefixes`` adds more;
- provenance triples (who made a term and when) are stripped first;
- a term declared as a property, or used as a predicate, has the predicate
  role; every other term the resource role;
- surface forms come from the label predicates in priority order, symbols from
  the symbol predicates on their own budget; untagged and English literals
  first; each list capped by ``minimal_label_limit``;
- OBO ontologies name terms with oboInOwl synonyms and define them with
  IAO_0000115: with ``obo_synonyms`` those count as labels and descriptions.

>>> import pyoxigraph as ox
>>> from ontoretrieve.settings.groups import IndexSettings, TriggerSettings
>>> from ontoretrieve.rdf.vocab import QUDT, RDFS
>>> data = f'''@prefix rdfs: <{RDFS}> .
... @prefix qudt: <{QUDT}> .
... <http://qudt.org/vocab/unit/MilliV> a qudt:Unit ; rdfs:label "millivolt"@en ;
...     qudt:symbol "mV" .'''.encode()
>>> triples = [q.triple for q in ox.parse(data, format=ox.RdfFormat.TURTLE)]
>>> source = AtomSource("http://qudt.org/vocab/unit", None, "h1")
>>> (atom,) = atomize(triples, source, IndexSettings(), TriggerSettings())
>>> atom.core_text
'millivolt (Unit).'
>>> atom.sparse_text
'Milli V mV millivolt'
>>> atom.triggers
('mV',)
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import pyoxigraph as ox

from ontoretrieve.rdf.vocab import (
    ATOM_DESCRIPTION_PREDICATES,
    ATOM_GENERIC_TYPES,
    ATOM_PROPERTY_TYPES,
    ATOMIZE_SKIPPED_NAMESPACES,
    NON_TEXT_PREDICATES,
    OBO_DEFINITION,
    OBO_SYNONYMS,
    OWL_ALL_VALUES_FROM,
    OWL_HAS_VALUE,
    OWL_ON_CLASS,
    OWL_ON_PROPERTY,
    OWL_ONTOLOGY,
    OWL_SOME_VALUES_FROM,
    PARENT_PREDICATES,
    PROVENANCE_PREDICATES,
    RDF_TYPE,
    RDFS_DOMAIN,
    RDFS_IS_DEFINED_BY,
    RDFS_RANGE,
)
from ontoretrieve.settings.groups import IndexSettings, TriggerSettings

__all__ = [
    "SURFACE_FORM_SCHEME",
    "Atom",
    "AtomSource",
    "Role",
    "TermNeighbourhood",
    "atomize",
    "atomize_terms",
    "indexed_iri",
    "naming_predicates",
    "split_local_name",
]

SURFACE_FORM_SCHEME = "sf-3"
"""Version of the text-building rules below; part of the index fingerprint."""

# Text budgets. MiniLM was trained on short texts and mean-pools its tokens, so a
# long text dilutes the label that a query must match, and embedding cost grows
# with length (GO at 400-character descriptions averaged 130 tokens a text and
# 40 texts/s; these budgets keep texts under about 80 tokens).
_PARENT_LIMIT = 4
_EDGE_LIMIT = 6
_INCOMING_LIMIT = 3
_NAME_LIMIT = 3
_DESCRIPTION_CHARS = 240
_NEIGHBORHOOD_CHARS = 360
_OPAQUE_ID = re.compile(r"^[A-Za-z]+_\d+$")
_CAMEL_WORD = re.compile(r"^[A-Za-z][a-z]+(?:[A-Z][a-z]+)+$")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=\d)")


class Role(StrEnum):
    PREDICATE = "predicate"
    RESOURCE = "resource"


@dataclass(frozen=True, slots=True)
class AtomSource:
    """The ontology version the atoms come from."""

    ontology_iri: str
    version: str | None
    content_hash: str


@dataclass(frozen=True, slots=True)
class Atom:
    """One term of one ontology version, ready to embed."""

    atom_id: str
    iri: str
    ontology_iri: str
    ontology_version: str | None
    ontology_hash: str
    role: Role
    is_header: bool
    """The owl:Ontology header: indexed, never a seed."""
    core_text: str
    neighborhood_text: str
    """Empty when the term has no structural facts: it gets no neighborhood vector."""
    sparse_text: str
    labels: tuple[str, ...]
    symbols: tuple[str, ...]
    """Case-preserved, for the symbol case check."""
    triggers: tuple[str, ...]
    """Case-preserved lexical triggers."""

    @property
    def text_hash(self) -> str:
        """Hash of the three texts: equal texts embed to equal vectors."""
        return _hash(self.core_text, self.neighborhood_text, self.sparse_text)


def split_local_name(iri: str) -> str:
    """The IRI's local name as words; empty for opaque ids like ``GO_0005634``.

    >>> split_local_name("http://qudt.org/vocab/unit/KiloV-PER-M")
    'Kilo V PER M'
    >>> split_local_name("http://purl.obolibrary.org/obo/GO_0005634")
    ''
    """
    local = re.split(r"[#/:]", iri.rstrip("/#"))[-1]
    if _OPAQUE_ID.match(local):
        return ""
    words = _CAMEL.sub(" ", re.sub(r"[_\-.]+", " ", local))
    return " ".join(words.split())


def atomize(
    triples: Sequence[ox.Triple],
    source: AtomSource,
    index: IndexSettings,
    triggers: TriggerSettings,
) -> list[Atom]:
    """The atoms of one ontology version, in IRI order."""
    view = _OntologyView.build(triples, index)
    candidates = set(view.outgoing) if not index.index_undescribed_iris else (
        set(view.outgoing) | view.referenced)
    indexed = indexed_iri(index)
    return [_atom(iri, view, source, index, triggers) for iri in sorted(candidates)
            if indexed(iri)]


@dataclass(frozen=True, slots=True)
class TermNeighbourhood:
    """The part of an ontology some terms' atoms are made from, each list in the
    ontology's own triple order (which the texts depend on)."""

    outgoing: Sequence[ox.Triple]
    """Every statement about the terms."""
    incoming: Sequence[ox.Triple]
    """Every statement pointing at one of the terms."""
    restrictions: Sequence[ox.Triple]
    """The statements of the blank nodes the terms point at."""
    names: Sequence[ox.Triple]
    """Naming statements (``naming_predicates``) of the terms all of the above mention."""
    predicates: frozenset[str]
    """Those of the terms used as a predicate anywhere in the ontology."""


def atomize_terms(terms: Iterable[str], hood: TermNeighbourhood, source: AtomSource,
                  index: IndexSettings, triggers: TriggerSettings) -> list[Atom]:
    """The atoms of ``terms`` alone, from their neighbourhood: equal to the atoms of
    those terms that ``atomize`` makes from the whole ontology (tests check it).

    >>> import pyoxigraph as ox
    >>> from ontoretrieve.settings.groups import IndexSettings, TriggerSettings
    >>> from ontoretrieve.rdf.vocab import RDFS
    >>> t, u = ox.NamedNode("http://x/t"), ox.NamedNode("http://x/u")
    >>> label = ox.Triple(t, ox.NamedNode(RDFS + "label"), ox.Literal("sensor"))
    >>> hood = TermNeighbourhood([label], [], [], [], frozenset())
    >>> [a.core_text for a in atomize_terms(["http://x/t", "http://x/u"], hood,
    ...     AtomSource("http://x/o", None, "h"), IndexSettings(), TriggerSettings())]
    ['sensor.']
    """
    if index.index_undescribed_iris:
        raise ValueError("atomize_terms needs the whole ontology when undescribed IRIs "
                         "are indexed (index.index_undescribed_iris)")
    view = _OntologyView.build([*hood.outgoing, *hood.restrictions], index)
    wanted = set(terms)
    names = _OntologyView.build(hood.names, index).outgoing
    for iri, statements in names.items():
        view.outgoing.setdefault(iri, statements)  # the terms' own lists stay whole
    incoming: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for t in hood.incoming:
        if (isinstance(t.subject, ox.NamedNode) and isinstance(t.object, ox.NamedNode)
                and t.predicate.value != RDF_TYPE
                and t.predicate.value not in PROVENANCE_PREDICATES):
            incoming[t.object.value].append((t.predicate.value, t.subject.value))
    view.incoming = dict(incoming)
    view.predicates = set(hood.predicates)
    indexed = indexed_iri(index)
    described = {t.subject.value for t in hood.outgoing if isinstance(t.subject, ox.NamedNode)
                 and t.predicate.value not in PROVENANCE_PREDICATES}
    return [_atom(iri, view, source, index, triggers) for iri in sorted(wanted & described)
            if indexed(iri)]


def naming_predicates(index: IndexSettings) -> tuple[str, ...]:
    """The predicates a term's name in other terms' texts comes from (its first label).

    >>> from ontoretrieve.rdf.vocab import RDFS
    >>> RDFS + "label" in naming_predicates(IndexSettings())
    True
    """
    return tuple(index.label_predicates) + (OBO_SYNONYMS if index.obo_synonyms else ())


def indexed_iri(index: IndexSettings) -> Callable[[str], bool]:
    """Whether an IRI is one the atomizer indexes: absolute, outside the excluded namespaces.

    >>> indexed = indexed_iri(IndexSettings())
    >>> from ontoretrieve.rdf.vocab import OWL_THING
    >>> indexed("http://x/t"), indexed(OWL_THING), indexed("t")
    (True, False, False)
    """
    excluded = (() if index.embed_standard_vocab_iris else ATOMIZE_SKIPPED_NAMESPACES) + tuple(
        index.extra_excluded_namespace_prefixes)
    return lambda iri: not iri.startswith(excluded) and (
        "://" in iri or iri.startswith("urn:"))


@dataclass(slots=True)
class _OntologyView:
    """Indexes over one ontology's triples, built once per atomization."""

    outgoing: dict[str, list[tuple[str, ox.NamedNode | ox.BlankNode | ox.Literal]]]
    blank: dict[ox.BlankNode, list[tuple[str, ox.NamedNode | ox.BlankNode | ox.Literal]]]
    incoming: dict[str, list[tuple[str, str]]]
    predicates: set[str]
    referenced: set[str]
    label_predicates: tuple[str, ...]
    description_predicates: tuple[str, ...]

    @classmethod
    def build(cls, triples: Iterable[ox.Triple], index: IndexSettings) -> _OntologyView:
        outgoing: dict[str, list[tuple[str, ox.NamedNode | ox.BlankNode | ox.Literal]]] = (
            defaultdict(list))
        blank: dict[ox.BlankNode, list[tuple[str, ox.NamedNode | ox.BlankNode | ox.Literal]]] = (
            defaultdict(list))
        incoming: dict[str, list[tuple[str, str]]] = defaultdict(list)
        predicates: set[str] = set()
        referenced: set[str] = set()
        for t in triples:
            predicate = t.predicate.value
            if predicate in PROVENANCE_PREDICATES:
                continue
            predicates.add(predicate)
            obj = t.object
            if isinstance(t.subject, ox.BlankNode):
                blank[t.subject].append((predicate, obj))  # type: ignore[arg-type]
            elif isinstance(t.subject, ox.NamedNode):
                outgoing[t.subject.value].append((predicate, obj))  # type: ignore[arg-type]
                if isinstance(obj, ox.NamedNode) and predicate != RDF_TYPE:
                    incoming[obj.value].append((predicate, t.subject.value))
            if isinstance(obj, ox.NamedNode) and predicate != RDF_TYPE:
                referenced.add(obj.value)
        referenced |= predicates
        labels = naming_predicates(index)
        descriptions = tuple(d for d in ATOM_DESCRIPTION_PREDICATES
                             if index.obo_synonyms or d != OBO_DEFINITION)
        return cls(dict(outgoing), dict(blank), dict(incoming), predicates,
                   referenced - set(outgoing), labels, descriptions)

    def literals(self, iri: str, predicates: Sequence[str], limit: int) -> list[str]:
        """Literal values in predicate priority order, English and untagged first."""
        rank = {p: i for i, p in enumerate(predicates)}
        found = [
            (_language_rank(obj), rank[p], obj.value)
            for p, obj in self.outgoing.get(iri, ())
            if p in rank and isinstance(obj, ox.Literal) and obj.value.strip()
        ]
        # One entry per spelling up to case: "sensor"@en and "Sensor"@de are one name.
        values: dict[str, str] = {}
        for _, _, value in sorted(found):
            text = " ".join(value.split())
            values.setdefault(text.casefold(), text)
        return list(values.values())[:limit]

    def name(self, iri: str) -> str:
        """How the term is called in text: its first label, else its local name."""
        labels = self.literals(iri, self.label_predicates, 1)
        return labels[0] if labels else split_local_name(iri)

    def objects(self, iri: str, predicate: str) -> list[str]:
        return sorted({o.value for p, o in self.outgoing.get(iri, ())
                       if p == predicate and isinstance(o, ox.NamedNode)})


def _language_rank(literal: ox.Literal) -> int:
    language = literal.language
    return 0 if language is None or language == "en" or language.startswith("en-") else 1


def _atom(iri: str, view: _OntologyView, source: AtomSource, index: IndexSettings,
          triggers: TriggerSettings) -> Atom:
    limit = index.minimal_label_limit
    labels = view.literals(iri, view.label_predicates, limit)
    symbols = view.literals(iri, index.symbol_predicates, limit)
    primary = labels[0] if labels else split_local_name(iri) or iri
    types = view.objects(iri, RDF_TYPE)
    role = Role.PREDICATE if (set(types) & ATOM_PROPERTY_TYPES or iri in view.predicates) else (
        Role.RESOURCE)
    informative = [view.name(t) for t in types if t not in ATOM_GENERIC_TYPES]
    domains = [view.name(d) for d in view.objects(iri, RDFS_DOMAIN)][:_NAME_LIMIT]
    ranges = [view.name(r) for r in view.objects(iri, RDFS_RANGE)][:_NAME_LIMIT]
    descriptions = view.literals(iri, view.description_predicates, 2)
    described = _clip(" ".join(d if d.endswith(".") else d + "." for d in descriptions),
                      _DESCRIPTION_CHARS)

    core = primary + (f" ({', '.join(informative)})" if informative else "") + "."
    others = [label for label in labels[1:] if label != primary]
    if others:
        core += f" Also: {', '.join(others)}."
    if described:
        core += f" {described}"
    if domains:
        core += f" Domain: {', '.join(domains)}."
    if ranges:
        core += f" Range: {', '.join(ranges)}."

    local = split_local_name(iri)
    sparse = " ".join(dict.fromkeys(w for w in [local, *symbols, *labels] if w))
    neighborhood = _neighborhood(iri, primary, view, domains, ranges)
    return Atom(
        atom_id=_hash(source.ontology_iri, source.version or "", source.content_hash, iri,
                      core, neighborhood, sparse),
        iri=iri,
        ontology_iri=source.ontology_iri,
        ontology_version=source.version,
        ontology_hash=source.content_hash,
        role=role,
        is_header=OWL_ONTOLOGY in types,
        core_text=core,
        neighborhood_text=neighborhood,
        sparse_text=sparse,
        labels=tuple(labels),
        symbols=tuple(symbols),
        triggers=_triggers(iri, view, labels, triggers),
    )


def _neighborhood(iri: str, primary: str, view: _OntologyView, domains: list[str],
                  ranges: list[str]) -> str:
    parents = [view.name(p) for predicate in PARENT_PREDICATES
               for p in view.objects(iri, predicate)][:_PARENT_LIMIT]
    edges: list[str] = []
    for predicate, obj in view.outgoing.get(iri, ()):
        if predicate in NON_TEXT_PREDICATES or len(edges) >= _EDGE_LIMIT:
            continue
        if isinstance(obj, ox.NamedNode):
            edge = f"{view.name(predicate)} {view.name(obj.value)}".strip()
            if edge:
                edges.append(edge)
    for predicate in PARENT_PREDICATES:
        for p, obj in view.outgoing.get(iri, ()):
            if p == predicate and isinstance(obj, ox.BlankNode) and len(edges) < _EDGE_LIMIT:
                restriction = _restriction(obj, view)
                if restriction:
                    edges.append(restriction)
    incoming = [f"{view.name(s)} {view.name(p)}".strip() for p, s in
                view.incoming.get(iri, ())[:_INCOMING_LIMIT]
                if p not in PARENT_PREDICATES and p != RDFS_IS_DEFINED_BY]
    incoming = [edge for edge in incoming if edge]
    parts = []
    if parents:
        parts.append(f"Parents: {', '.join(parents)}.")
    if domains:
        parts.append(f"Domain: {', '.join(domains)}.")
    if ranges:
        parts.append(f"Range: {', '.join(ranges)}.")
    if edges:
        parts.append(f"Relations: {'; '.join(edges)}.")
    if incoming:
        parts.append(f"Used by: {'; '.join(incoming)}.")
    return _clip(f"{primary}. {' '.join(parts)}", _NEIGHBORHOOD_CHARS) if parts else ""


def _restriction(node: ox.BlankNode, view: _OntologyView) -> str:
    """``onProperty filler`` of an OWL restriction, as words."""
    on_property = filler = ""
    for predicate, obj in view.blank.get(node, ()):
        if predicate == OWL_ON_PROPERTY and isinstance(obj, ox.NamedNode):
            on_property = view.name(obj.value)
        elif predicate in (OWL_SOME_VALUES_FROM, OWL_ALL_VALUES_FROM,
                           OWL_HAS_VALUE, OWL_ON_CLASS):
            filler = view.name(obj.value) if isinstance(obj, ox.NamedNode) else (
                obj.value if isinstance(obj, ox.Literal) else "")
    return f"{on_property} {filler}".strip() if on_property and filler else ""


def _triggers(iri: str, view: _OntologyView, labels: list[str],
              settings: TriggerSettings) -> tuple[str, ...]:
    if not settings.enabled:
        return ()

    def fits(value: str) -> bool:
        return settings.min_len <= len(value) <= settings.max_len

    found = [v for v in view.literals(iri, settings.predicates, 32) if fits(v)]
    if settings.heuristic_enabled:
        coded = [label for label in labels if fits(label) and _code_shaped(label)]
        found += coded[: settings.heuristic_max_per_entity]
    return tuple(dict.fromkeys(found))


def _code_shaped(label: str) -> bool:
    """A label written like a code or symbol, not a word.

    >>> [_code_shaped(x) for x in ["CO2", "ATP", "BRCA1", "mV", "latinName", "cell", "Cell"]]
    [True, True, True, True, False, False, False]
    """
    if any(c.isspace() for c in label) or _CAMEL_WORD.match(label):
        return False
    has_digit = any(c.isdigit() for c in label)
    has_alpha = any(c.isalpha() for c in label)
    uppers = sum(c.isupper() for c in label)
    return has_alpha and (has_digit or uppers >= 2 or (uppers == 1 and not label[0].isupper()
                                                         and len(label) <= 4))


def _clip(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut at a word boundary."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip(",;:") + "…"


def _hash(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\x1f")
    return digest.hexdigest()[:32]
