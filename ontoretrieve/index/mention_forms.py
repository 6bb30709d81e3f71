"""Surface forms of an ontology's terms, for the mention lane.

Pure: triples and settings in, one ``TermForms`` per term out. The terms are
the atomized ones (same candidates, same namespace exclusions, headers left
out); their forms, each with its kind:

- ``label``: the label predicates, in priority order (every language);
- ``exact``, ``related``, ``broad``, ``narrow``: oboInOwl synonyms, kind kept
  (``index.obo_synonyms``);
- ``symbol``: the symbol predicates (``mV``, UCUM codes);
- ``local_name``: the IRI's local name worded (``birthPlace`` -> "birth place",
  ``has_part`` -> "has part"); none for opaque ids like ``GO_0005634``.

>>> import pyoxigraph as ox
>>> from ontoretrieve.settings.groups import IndexSettings
>>> from ontoretrieve.rdf.vocab import QUDT, RDFS
>>> data = f'''@prefix rdfs: <{RDFS}> .
... @prefix qudt: <{QUDT}> .
... <http://qudt.org/vocab/unit/MilliV> rdfs:label "millivolt"@en ; qudt:symbol "mV" .'''.encode()
>>> triples = [q.triple for q in ox.parse(data, format=ox.RdfFormat.TURTLE)]
>>> (term,) = term_forms(triples, IndexSettings())
>>> term.forms
(('millivolt', 'label'), ('mV', 'symbol'), ('Milli V', 'local_name'))

Each term also says whether it is a unit of measure (``TermForms.unit``), which
a number before its name decides between ("100 m": the metre, not the mass
whose symbol is "m" too): see ``unit_terms``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import pyoxigraph as ox

from ontoretrieve.index.atomize import indexed_iri, split_local_name
from ontoretrieve.rdf.vocab import (
    OBO_BROAD_SYNONYM,
    OBO_EXACT_SYNONYM,
    OBO_NARROW_SYNONYM,
    OBO_RELATED_SYNONYM,
    OWL_ONTOLOGY_NODE,
    PROVENANCE_PREDICATES,
    RDF_TYPE_NODE,
    SUBCLASS_OF_NODE,
)
from ontoretrieve.settings.groups import IndexSettings

__all__ = ["FORM_SCHEME", "FormKind", "TermForms", "term_forms", "unit_terms"]

FORM_SCHEME = "mf-2"
"""Version of the form rules here and of the normalization in ``mention_text``;
stored with every form file, so a change rebuilds the forms (never the vectors)."""

_FORMS_PER_PREDICATE = 32
"""OBO terms carry up to a few dozen synonyms; more are generated variants."""


class FormKind(StrEnum):
    LABEL = "label"
    EXACT = "exact"
    RELATED = "related"
    BROAD = "broad"
    NARROW = "narrow"
    SYMBOL = "symbol"
    LOCAL_NAME = "local_name"
    ELLIPTIC = "elliptic"
    """Not stored with a term: a word standing for a two-word name that owns it in its
    ontology ("expression" for *gene expression*), derived when the keys are built."""


_SYNONYM_KINDS = {
    OBO_EXACT_SYNONYM: FormKind.EXACT,
    OBO_RELATED_SYNONYM: FormKind.RELATED,
    OBO_BROAD_SYNONYM: FormKind.BROAD,
    OBO_NARROW_SYNONYM: FormKind.NARROW,
}


@dataclass(frozen=True, slots=True)
class TermForms:
    """One term's surface forms, in priority order, each with its kind."""

    iri: str
    forms: tuple[tuple[str, str], ...]
    """(form, kind) pairs; kinds are ``FormKind`` values."""
    unit: bool = False
    """A unit of measure (``unit_terms``)."""


def term_forms(triples: Iterable[ox.Triple], index: IndexSettings) -> list[TermForms]:
    """The forms of every term the atomizer would index, in IRI order (an update reads
    the neighbourhood of the terms it changed, parents included: ``replace``)."""
    triples = list(triples)
    units = unit_terms(triples, index.label_predicates)
    kinds = _predicate_kinds(index)
    literals: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    headers: set[str] = set()
    subjects: set[str] = set()
    for t in triples:
        if not isinstance(t.subject, ox.NamedNode) or t.predicate.value in PROVENANCE_PREDICATES:
            continue
        subject = t.subject.value
        subjects.add(subject)
        if t.predicate == RDF_TYPE_NODE and t.object == OWL_ONTOLOGY_NODE:
            headers.add(subject)
        found = kinds.get(t.predicate.value)
        if found is not None and isinstance(t.object, ox.Literal):
            value = " ".join(t.object.value.split())
            if value:
                literals[subject].append((found[0], value, found[1]))
    indexed = indexed_iri(index)
    result = []
    for iri in sorted(subjects - headers):
        if not indexed(iri):
            continue
        forms = _ordered(literals.get(iri, []))
        local = split_local_name(iri)
        if local and all(local.casefold() != f.casefold() for f, _ in forms):
            forms.append((local, FormKind.LOCAL_NAME.value))
        if forms:
            result.append(TermForms(iri, tuple(forms), unit=iri in units))
    return result


def unit_terms(triples: Iterable[ox.Triple], label_predicates: Sequence[str]) -> set[str]:
    """The subjects that are units of measure: typed with a class whose name ends in
    "unit" or says "unit of measure" (``qudt:Unit``, ``qudt:DerivedUnit``, ``om:Unit``,
    ``saref:UnitOfMeasure``), or subclasses of a class so named or labelled (UO's
    "length unit"). How unit vocabularies model a unit, read without knowing them.

    >>> data = b'''@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
    ... <http://x/M> a <http://qudt.org/schema/qudt/Unit> .
    ... <http://x/Mass> a <http://qudt.org/schema/qudt/QuantityKind> .
    ... <http://x/UO_1> rdfs:label "length unit" . <http://x/UO_8> rdfs:subClassOf <http://x/UO_1> .
    ... <http://x/UO_2> rdfs:label "prefix" . <http://x/UO_9> rdfs:subClassOf <http://x/UO_2> .'''
    >>> sorted(unit_terms([q.triple for q in ox.parse(data, format=ox.RdfFormat.TURTLE)],
    ...                   ["http://www.w3.org/2000/01/rdf-schema#label"]))
    ['http://x/M', 'http://x/UO_8']
    """
    labelled = frozenset(label_predicates)
    classes: dict[str, list[str]] = defaultdict(list)  # subject -> its types and parents
    labels: dict[str, list[str]] = defaultdict(list)
    for t in triples:
        if not isinstance(t.subject, ox.NamedNode):
            continue
        if t.predicate in (RDF_TYPE_NODE, SUBCLASS_OF_NODE) and isinstance(
                t.object, ox.NamedNode):
            classes[t.subject.value].append(t.object.value)
        elif t.predicate.value in labelled and isinstance(t.object, ox.Literal):
            labels[t.subject.value].append(t.object.value)
    return {subject for subject, named in classes.items()
            if any(_names_a_unit(split_local_name(c)) or any(
                _names_a_unit(label) for label in labels.get(c, ())) for c in named)}


def _names_a_unit(name: str) -> bool:
    """A class name that says "unit": it ends in "unit" ("Derived Unit", "length unit"),
    says "unit of measure", or is two words starting with "unit" (OM's compound units,
    "Unit Division", "Unit Exponentiation"); a system of units is none, nor is a
    "Unit Price Specification".

    >>> [_names_a_unit(n) for n in ("Derived Unit", "length unit", "Unit Of Measure",
    ...     "Unit Division", "System Of Units", "Unit Price Specification", "Community", "")]
    [True, True, True, True, False, False, False, False]
    """
    words = name.casefold().split()
    return bool(words) and (words[-1] == "unit" or "unit of measure" in " ".join(words)
                            or (len(words) == 2 and words[0] == "unit"))


def _predicate_kinds(index: IndexSettings) -> dict[str, tuple[int, str]]:
    """Predicate -> (priority, kind): labels first, then synonyms, then symbols."""
    kinds: dict[str, tuple[int, str]] = {}
    for predicate in index.label_predicates:
        kinds.setdefault(predicate, (len(kinds), FormKind.LABEL.value))
    if index.obo_synonyms:
        for predicate, kind in _SYNONYM_KINDS.items():
            kinds.setdefault(predicate, (len(kinds), kind.value))
    for predicate in index.symbol_predicates:
        kinds.setdefault(predicate, (len(kinds), FormKind.SYMBOL.value))
    return kinds


def _ordered(found: Sequence[tuple[int, str, str]]) -> list[tuple[str, str]]:
    """Priority order, one entry per spelling (the first kind wins), capped per predicate."""
    seen: set[str] = set()
    per_priority: dict[int, int] = defaultdict(int)
    forms = []
    for priority, value, kind in sorted(found, key=lambda f: (f[0], f[1])):
        if value in seen or per_priority[priority] >= _FORMS_PER_PREDICATE:
            continue
        seen.add(value)
        per_priority[priority] += 1
        forms.append((value, kind))
    return forms
