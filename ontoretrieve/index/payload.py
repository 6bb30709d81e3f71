"""The index payload: one writer (``to_payload``) and one reader into seed evidence.

Every point of the vector index carries an ``AtomPayload`` (``records``); the
index sync writes it from an atom here, and the query path turns a payload
into ``SeedEvidence`` here, so the schema has one home on each side.

>>> payload: AtomPayload = {"iri": "http://x/t", "ontology_iri": "http://x/o",
...                         "ontology_version": "", "ontology_hash": "h", "role": "resource"}
>>> e = evidence_from_payload(payload, score=0.5, origin=SeedOrigin.LEXICAL_MATCH)
>>> e.ontology_version is None, e.role, e.windows
(True, 'resource', [])
"""

from __future__ import annotations

from collections.abc import Sequence

from ontoretrieve.index.atomize import Atom
from ontoretrieve.records import AtomPayload, LaneRank, SeedEvidence, SeedOrigin

__all__ = ["evidence_from_payload", "to_payload"]


def to_payload(atom: Atom) -> AtomPayload:
    """The payload stored with an atom's point."""
    return {
        "atom_id": atom.atom_id,
        "iri": atom.iri,
        "ontology_iri": atom.ontology_iri,
        "ontology_version": atom.ontology_version or "",
        "ontology_hash": atom.ontology_hash,
        "text_hash": atom.text_hash,
        "role": atom.role.value,
        "is_header": atom.is_header,
        "core_text": atom.core_text,
        "neighborhood_text": atom.neighborhood_text,
        "sparse_text": atom.sparse_text,
        "labels": list(atom.labels),
        "symbols": list(atom.symbols),
        "triggers": list(atom.triggers),
        "lexemes": sorted({x.casefold() for x in (*atom.labels, *atom.symbols)}),
    }


def evidence_from_payload(payload: AtomPayload, *, score: float, origin: SeedOrigin,
                          role: str | None = None, fused_score: float | None = None,
                          windows: Sequence[int] = (), lanes: Sequence[LaneRank] = (),
                          mentions: Sequence[dict[str, object]] = (),
                          notes: Sequence[str] = (), evidence_tier: int = 1,
                          fit: float | None = None) -> SeedEvidence:
    """Seed evidence for the payload's term; ``role`` overrides the payload's."""
    return SeedEvidence(
        iri=payload["iri"], score=score, origin=origin,
        ontology_iri=payload.get("ontology_iri", ""),
        ontology_version=payload.get("ontology_version") or None,
        ontology_hash=payload.get("ontology_hash", ""),
        role=role or payload.get("role", "resource"), fused_score=fused_score,
        windows=list(windows), lanes=list(lanes), mentions=list(mentions), notes=list(notes),
        evidence_tier=evidence_tier, fit=None if fit is None else round(fit, 6))
