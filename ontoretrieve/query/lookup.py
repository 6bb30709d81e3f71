"""Term lookup: ground one mention to ranked candidate terms, with an ambiguity flag.

Pure. Candidates come in classes, best first: a tenant alias, an exact-case
label or symbol ("mV" is millivolt, never megavolt), a case-folded one, a
form the mention lane's normalization equates with the whole mention
("T-cells" names "T cell": stems, hyphens, synonyms), then what the
retrieval lanes rank for the mention. Within
a class, preferred ontologies come first, then the score. A lookup is
ambiguous when its best class holds more than one term, or, with only
retrieved candidates, when the runner-up scores within ``ambiguity_ratio``
of the best.

>>> payloads = [{"iri": "u:MegaV", "labels": ["megavolt"], "symbols": ["MV"]},
...             {"iri": "u:MilliV", "labels": ["millivolt"], "symbols": ["mV"]}]
>>> found = rank_candidates("mV", payloads, [])
>>> [(c.iri, c.match) for c in found.candidates], found.ambiguous
([('u:MilliV', 'exact_case'), ('u:MegaV', 'case_folded')], False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, Protocol

from pydantic import BaseModel

from ontoretrieve.records import AtomPayload, SeedEvidence

__all__ = ["Candidate", "LookupResult", "MatchKind", "TermRule", "rank_candidates"]

MatchKind = Literal["alias", "exact_case", "case_folded", "normalized", "retrieved"]
_CLASS_ORDER: dict[str, int] = {"alias": 0, "exact_case": 1, "case_folded": 2, "normalized": 3,
                                "retrieved": 4}
_CLASS_SCORE = {"alias": 1.0, "exact_case": 1.0, "case_folded": 0.9, "normalized": 0.8}


class TermRule(Protocol):
    """A tenant's rule over terms (its overlay): what it bans, which ontologies it prefers."""

    def bans(self, iri: str, ontology_iri: str | None) -> bool: ...

    def preference(self, ontology_iri: str | None) -> int: ...


class Candidate(BaseModel):
    """One term a mention may denote."""

    iri: str
    label: str | None
    kind: str
    """The atom's role: resource or predicate."""
    ontology_iri: str | None
    match: MatchKind
    score: float
    deprecated: bool = False
    """The term is deprecated (OBO: obsolete); such candidates come after the others."""
    replaced_by: str | None = None
    """The term that replaces a deprecated one, when its ontology names it."""


class LookupResult(BaseModel):
    """Ranked candidates for one mention."""

    schema_version: Literal[1] = 1
    """Raised when a field changes meaning (``engine.results``)."""
    mention: str
    candidates: list[Candidate]
    ambiguous: bool
    diagnosis: str | None = None


def rank_candidates(mention: str, lexical: Sequence[AtomPayload],
                    retrieved: Sequence[SeedEvidence], *,
                    aliases: Mapping[str, Sequence[str]] | None = None,
                    labels: Mapping[str, AtomPayload] | None = None,
                    rule: TermRule | None = None, limit: int = 10,
                    ambiguity_ratio: float = 0.9,
                    normalized: Sequence[AtomPayload] = ()) -> LookupResult:
    """Rank candidates from index payloads matching the folded mention and retrieved seeds.

    ``lexical`` are payloads whose folded labels or symbols equal the folded
    mention; ``normalized`` those whose forms the mention lane matched over
    the whole mention; ``labels`` gives payloads by IRI for terms only
    ``aliases`` or ``retrieved`` name.

    >>> cell = {"iri": "x:Tcell", "labels": ["T cell"]}
    >>> [c.match for c in rank_candidates("T-cells", [], [], normalized=[cell]).candidates]
    ['normalized']
    """
    labels = labels or {}
    found: dict[str, Candidate] = {}

    def add(iri: str, payload: AtomPayload, match: MatchKind, score: float) -> None:
        ontology = payload.get("ontology_iri") or None
        if rule is not None and rule.bans(iri, ontology):
            return
        old = found.get(iri)
        if old is not None and _CLASS_ORDER[old.match] <= _CLASS_ORDER[match]:
            return
        names = payload.get("labels", [])
        found[iri] = Candidate(iri=iri, label=names[0] if names else None,
                               kind=payload.get("role", "resource"), ontology_iri=ontology,
                               match=match, score=round(score, 6))

    for alias, iris in (aliases or {}).items():
        if alias.casefold() == mention.casefold():
            for iri in iris:
                add(iri, labels.get(iri, {}), "alias", _CLASS_SCORE["alias"])
    folded = mention.casefold()
    for payload in lexical:
        if payload.get("is_header"):
            continue
        names = [*payload.get("symbols", []), *payload.get("labels", [])]
        if mention in names:
            add(payload["iri"], payload, "exact_case", _CLASS_SCORE["exact_case"])
        elif any(n.casefold() == folded for n in names):
            add(payload["iri"], payload, "case_folded", _CLASS_SCORE["case_folded"])
    for payload in normalized:
        if not payload.get("is_header"):
            add(payload["iri"], payload, "normalized", _CLASS_SCORE["normalized"])
    for seed in retrieved:
        add(seed.iri, {**labels.get(seed.iri, {}), "ontology_iri": seed.ontology_iri,
                       "role": seed.role}, "retrieved", seed.score)
    preference = rule.preference if rule is not None else (lambda _: 0)
    ranked = sorted(found.values(), key=lambda c: (_CLASS_ORDER[c.match],
                                                   preference(c.ontology_iri), -c.score, c.iri))
    if not ranked:
        return LookupResult(mention=mention, candidates=[], ambiguous=False,
                            diagnosis="no_match")
    best = ranked[0]
    if best.match == "retrieved":
        ambiguous = len(ranked) > 1 and ranked[1].score >= ambiguity_ratio * best.score
    else:
        ambiguous = sum(1 for c in ranked if c.match == best.match) > 1
    return LookupResult(mention=mention, candidates=ranked[:limit], ambiguous=ambiguous)
