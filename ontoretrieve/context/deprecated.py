"""Deprecated terms (OBO: obsolete) as seeds: left out, or replaced by their successor.

Pure. A term is deprecated when ``owl:deprecated`` (or ``qudt:deprecated``) is
``true`` on it or it is typed ``owl:DeprecatedClass``; its successor is what
``obo:IAO_0100001`` ("term replaced by") or ``dcterms:isReplacedBy`` names.
The facts come from one SELECT over the seeds' own graphs
(``CatalogReader.deprecation_facts``) before the working graph is read, so a
successor is read as any seed is. A deprecated seed gives way to its
successor when the successor is no seed already (it takes the seed's rank and
evidence), else it is left out; the context says which.

>>> flag = "http://www.w3.org/2002/07/owl#deprecated"
>>> by = "http://purl.obolibrary.org/obo/IAO_0100001"
>>> deprecation([(flag, ox.Literal(True)), (by, ox.NamedNode("http://x/new"))])
(True, 'http://x/new')
>>> deprecation([(by, ox.Literal("GO:0000001"))])  # a successor alone says nothing
(False, None)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

import pyoxigraph as ox

from ontoretrieve.context.expand import ContextSeed
from ontoretrieve.query.lookup import Candidate
from ontoretrieve.rdf.vocab import (
    DEPRECATION_PREDICATES,
    OWL_DEPRECATED_CLASS,
    RDF_TYPE,
    REPLACEMENT_PREDICATES,
)
from ontoretrieve.records import SeedEvidence
from ontoretrieve.settings.groups import DeprecatedSeeds

Facts = Mapping[str, Sequence[tuple[str, ox.NamedNode | ox.BlankNode | ox.Literal]]]
"""Per IRI, its (predicate IRI, object) pairs among the deprecation predicates."""

__all__ = ["DEPRECATION_FACT_PREDICATES", "Facts", "current_seeds", "deprecation",
           "flag_deprecated"]

DEPRECATION_FACT_PREDICATES = (*DEPRECATION_PREDICATES, *REPLACEMENT_PREDICATES, RDF_TYPE)
"""What ``deprecation`` reads (of ``rdf:type``, only ``owl:DeprecatedClass`` matters)."""

_TRUE = {"true", "1"}


def deprecation(facts: Iterable[tuple[str, object]]) -> tuple[bool, str | None]:
    """Whether a term with these (predicate, object) facts is deprecated, and the IRI
    that replaces it."""
    deprecated, successor = False, None
    for predicate, value in facts:
        if predicate in DEPRECATION_PREDICATES and isinstance(value, ox.Literal):
            deprecated = deprecated or value.value.strip().lower() in _TRUE
        elif predicate == RDF_TYPE and isinstance(value, ox.NamedNode):
            deprecated = deprecated or value.value == OWL_DEPRECATED_CLASS
        elif predicate in REPLACEMENT_PREDICATES and successor is None:
            successor = _iri(value)
    return deprecated, successor if deprecated else None


def _iri(value: object) -> str | None:
    """The successor as an IRI: OBO files give it as an IRI or as a CURIE literal."""
    if isinstance(value, ox.NamedNode):
        return value.value
    if isinstance(value, ox.Literal) and ":" in value.value and " " not in value.value:
        prefix, local = value.value.split(":", 1)
        if prefix.isalpha() and local and not local.startswith("//"):
            return f"http://purl.obolibrary.org/obo/{prefix}_{local}"
        if value.value.startswith(("http://", "https://")):
            return value.value
    return None


def current_seeds(facts: Facts, seeds: list[ContextSeed], evidence: list[SeedEvidence],
                  policy: DeprecatedSeeds, warnings: list[str]
                  ) -> tuple[list[ContextSeed], list[SeedEvidence]]:
    """The seeds without deprecated terms: each replaced by its successor (``replace``,
    when it is no seed yet) or left out; a warning says which. The evidence follows: a
    replaced seed's evidence is its successor's, with a note."""
    policy = DeprecatedSeeds(policy)  # a setting copied without validation may be a str
    if policy is DeprecatedSeeds.KEEP:
        return seeds, evidence
    taken = {s.iri for s in seeds}
    kept: list[ContextSeed] = []
    renamed: dict[str, str] = {}
    dropped: set[str] = set()
    for seed in seeds:
        deprecated, successor = deprecation(facts.get(seed.iri, ()))
        if not deprecated:
            kept.append(seed)
        elif policy is DeprecatedSeeds.REPLACE and successor and successor not in taken:
            kept.append(replace(seed, iri=successor))
            renamed[seed.iri] = successor
            taken.add(successor)
        else:
            dropped.add(seed.iri)
    if not renamed and not dropped:
        return seeds, evidence
    current = [e.model_copy(update={"iri": renamed[e.iri],
                                    "notes": [*e.notes, f"replaces deprecated {e.iri}"]})
               if e.iri in renamed else e for e in evidence if e.iri not in dropped]
    parts = [f"{len(renamed)} replaced by their successors" if renamed else "",
             f"{len(dropped)} left out" if dropped else ""]
    named = [*renamed, *sorted(dropped)][:3]
    warnings.append("deprecated seed(s): " + ", ".join(p for p in parts if p)
                    + f" ({', '.join(named)})")
    return kept, current


def flag_deprecated(candidates: Sequence[Candidate], facts: Facts) -> list[Candidate]:
    """Lookup candidates with ``deprecated`` and ``replaced_by`` set, the deprecated ones
    moved after the others (each group keeps its order)."""
    flagged = []
    for candidate in candidates:
        deprecated, successor = deprecation(facts.get(candidate.iri, ()))
        flagged.append(candidate.model_copy(update={"deprecated": deprecated,
                                                    "replaced_by": successor})
                       if deprecated else candidate)
    return sorted(flagged, key=lambda c: c.deprecated)
