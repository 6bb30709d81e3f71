"""The consistency critic (docs/proposals.md): does an update restate terms other ontologies have?

Pure. It takes up to eight labels and local names of the terms an update
adds, searches the index for each (the caller runs the search and keeps the
top three hits), and reports a hit from a catalog ontology the update did
not draw on, with a fused score of at least ``min_fused_score``, as a
possible conflict; five at most. The critic changes nothing.

>>> import pyoxigraph as ox
>>> a = ox.NamedNode("http://x/NewThing")
>>> from ontoretrieve.rdf.vocab import RDFS_LABEL_NODE as label
>>> critic_queries([ox.Triple(a, label, ox.Literal("voltage probe"))])
['voltage probe', 'New Thing']
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import pyoxigraph as ox

from ontoretrieve.proposals.model import Conflict
from ontoretrieve.rdf.graph_index import is_standard
from ontoretrieve.rdf.vocab import NAME_PREDICATES
from ontoretrieve.records import SeedEvidence

__all__ = ["critic_queries", "find_conflicts"]

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[_\-]+")


def critic_queries(add: Sequence[ox.Triple], limit: int = 8) -> list[str]:
    """Labels of the added terms, then their local names split into words."""
    labels = [t.object.value for t in add if t.predicate.value in NAME_PREDICATES
              and isinstance(t.object, ox.Literal) and isinstance(t.subject, ox.NamedNode)]
    names = []
    for t in add:
        if isinstance(t.subject, ox.NamedNode) and not is_standard(t.subject):
            local = re.split(r"[#/]", t.subject.value)[-1]
            names.append(" ".join(w for w in _CAMEL.split(local) if w))
    return list(dict.fromkeys(q for q in [*labels, *names] if q.strip()))[:limit]


def find_conflicts(hits: Mapping[str, Sequence[SeedEvidence]], drawn_on: set[str],
                   min_fused_score: float, limit: int = 5) -> list[Conflict]:
    """Hits of other ontologies at or above the floor, best first, one per term."""
    found: dict[str, Conflict] = {}
    for label, evidence in hits.items():
        for e in evidence[:3]:
            score = e.fused_score if e.fused_score is not None else 0.0
            if e.ontology_iri in drawn_on or score < min_fused_score:
                continue
            if e.iri not in found or found[e.iri].fused_score < score:
                found[e.iri] = Conflict(label=label, term=e.iri, ontology_iri=e.ontology_iri,
                                        fused_score=round(score, 6))
    return sorted(found.values(), key=lambda c: -c.fused_score)[:limit]
