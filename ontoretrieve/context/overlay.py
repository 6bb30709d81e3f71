"""Query-time overlay: banned terms and ontologies, hidden predicates, preferred ontologies.

Pure: a ``Context`` in, a new ``Context`` out. Applied
after retrieval, so changing an overlay never needs a reindex. A banned term
disappears as a subject and as an object; a banned ontology takes every term
it supplied with it; a hidden predicate (internal notes, secrets) never shows.

>>> from ontoretrieve.settings.tenants import OverlaySettings
>>> rule = OverlayRule.of(OverlaySettings(banned_terms=["http://x/b"]), ())
>>> rule.bans("http://x/b", None), rule.bans("http://x/a", "http://x/onto")
(True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyoxigraph as ox

from ontoretrieve.context.model import Context, serialize_triples
from ontoretrieve.settings.tenants import OverlaySettings

__all__ = ["OverlayRule", "apply_overlay"]


@dataclass(frozen=True)
class OverlayRule:
    """An overlay and the hidden predicates, as sets ready for filtering."""

    banned_terms: frozenset[str]
    banned_ontologies: frozenset[str]
    preferred_ontologies: tuple[str, ...]
    hidden_predicates: frozenset[str]

    @classmethod
    def of(cls, overlay: OverlaySettings, hidden_predicates: Sequence[str]) -> OverlayRule:
        return cls(frozenset(overlay.banned_terms), frozenset(overlay.banned_ontologies),
                   tuple(overlay.preferred_ontologies), frozenset(hidden_predicates))

    @property
    def inert(self) -> bool:
        return not (self.banned_terms or self.banned_ontologies or self.hidden_predicates
                    or self.preferred_ontologies)

    def bans(self, iri: str, ontology_iri: str | None) -> bool:
        return iri in self.banned_terms or (ontology_iri in self.banned_ontologies)

    def preference(self, ontology_iri: str | None) -> int:
        """0 for the first preferred ontology, 1 for the next...; len() for the others."""
        try:
            return self.preferred_ontologies.index(ontology_iri or "")
        except ValueError:
            return len(self.preferred_ontologies)


def apply_overlay(context: Context, rule: OverlayRule) -> Context:
    """``context`` without what the rule bans or hides, seeds reordered by preference."""
    if rule.inert or context.empty:
        return context
    banned = {iri for iri, e in context.evidence.items() if rule.bans(iri, e.ontology_iri)}
    banned |= {s.iri for s in context.seeds if rule.bans(s.iri, s.ontology_iri)}
    banned |= rule.banned_terms
    kept: list[ox.Triple] = []
    removed = 0
    for t in context.triples():
        if (t.predicate.value in rule.hidden_predicates
                or (isinstance(t.subject, ox.NamedNode) and t.subject.value in banned)
                or (isinstance(t.object, ox.NamedNode) and t.object.value in banned)):
            removed += 1
            continue
        kept.append(t)
    if not removed and not rule.preferred_ontologies:
        return context
    subjects = {t.subject.value for t in kept if isinstance(t.subject, ox.NamedNode)}
    seeds = sorted((s for s in context.seeds if s.iri not in banned),
                   key=lambda s: rule.preference(s.ontology_iri))
    terms = [iri for iri in context.terms if iri in subjects]
    evidence = {iri: e for iri, e in context.evidence.items() if iri in subjects}
    metrics = context.metrics.model_copy(update={"context_triples": len(kept),
                                                 "context_terms": len(terms)})
    warnings = list(context.warnings)
    if removed:
        warnings.append(f"the tenant overlay removed {removed} statement(s)")
    return context.model_copy(update={
        "ntriples": serialize_triples(kept, "ntriples"), "terms": terms, "seeds": seeds,
        "evidence": evidence, "metrics": metrics, "warnings": warnings})
