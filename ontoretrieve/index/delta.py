"""What a new ontology version changed, and which terms' atoms that can change.

Pure: triples in, IRIs out. An atom's texts read the term's own statements, the
blank nodes (restrictions) it points at, the statements pointing at it, whether
it is used as a predicate, and the *names* (first labels) of every term those
mention. So a changed statement (s, p, o) can change the atoms of s, p and o,
and of the named owner of a blank s or o; a changed naming statement of x
(a label) also changes the atoms of every term whose texts name x: those
pointing at x (directly or through a restriction), those x points at, and
those using x as a predicate or pointed at through it. ``affected_terms`` is
that closure; tests check it against a whole re-atomization on random edits.

>>> import pyoxigraph as ox
>>> from ontoretrieve.rdf.vocab import RDFS
>>> a, b, c = (ox.NamedNode(f"http://x/{n}") for n in "abc")
>>> sub, label = ox.NamedNode(RDFS + "subClassOf"), ox.NamedNode(RDFS + "label")
>>> old = [ox.Triple(b, sub, a), ox.Triple(a, label, ox.Literal("cell")),
...        ox.Triple(c, label, ox.Literal("tissue"))]
>>> new = [*old[:1], ox.Triple(a, label, ox.Literal("cells")), old[2]]
>>> delta = graph_delta("h1", old, new)
>>> sorted(affected_terms(delta, new, (RDFS + "label",)))
['http://www.w3.org/2000/01/rdf-schema#label', 'http://x/a', 'http://x/b']
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

import pyoxigraph as ox

from ontoretrieve.index.atomize import TermNeighbourhood
from ontoretrieve.rdf.graph_index import Statement

__all__ = ["VersionDelta", "affected_terms", "graph_delta", "neighbourhood_of"]


@dataclass(frozen=True, slots=True)
class VersionDelta:
    """The statements a version added to and removed from the version it replaces."""

    base_hash: str
    added: tuple[ox.Triple, ...]
    removed: tuple[ox.Triple, ...]
    triples: Sequence[ox.Triple] | Sequence[Statement] = ()
    """The new version's triples or statements when the caller holds them (else they
    are read)."""


def graph_delta(base_hash: str, old: Iterable[ox.Triple], new: Iterable[ox.Triple]
                ) -> VersionDelta:
    """The delta between two versions' triples (blank nodes compared by label)."""
    new = new if isinstance(new, Sequence) else list(new)
    before, after = set(old), set(new)
    return VersionDelta(base_hash, tuple(after - before), tuple(before - after), new)


def affected_terms(delta: VersionDelta, new: Sequence[ox.Triple] | Sequence[Statement],
                   naming: Collection[str]) -> set[str]:
    """Every IRI whose atom may differ between the base version and ``new`` (a superset:
    atoms that come out equal are found equal later and cost nothing)."""
    affected: set[str] = set()
    renamed: set[str] = set()
    blanks: set[ox.BlankNode] = set()
    for t in (*delta.added, *delta.removed):
        affected.add(t.predicate.value)
        for term in (t.subject, t.object):
            if isinstance(term, ox.NamedNode):
                affected.add(term.value)
            elif isinstance(term, ox.BlankNode):
                blanks.add(term)
        if isinstance(t.subject, ox.NamedNode) and t.predicate.value in naming:
            renamed.add(t.subject.value)
    if not blanks and not renamed:
        return affected
    naming_blanks = _dependents(new, renamed, affected)
    _owners(new, blanks | naming_blanks, affected)
    return affected


def _dependents(statements: Sequence[ox.Triple] | Sequence[Statement], renamed: set[str],
                affected: set[str]) -> set[ox.BlankNode]:
    """Add the terms whose texts name a renamed term; return the blank nodes that do.
    (Indexed, not read by attribute, so statements and triples both do.)"""
    through_blank: set[ox.BlankNode] = set()
    if not renamed:
        return through_blank
    for t in statements:
        s, p, o = t[0], t[1], t[2]
        subject = s.value if isinstance(s, ox.NamedNode) else None
        if isinstance(o, ox.NamedNode) and o.value in renamed:
            if subject is not None:
                affected.add(subject)
            elif isinstance(s, ox.BlankNode):
                through_blank.add(s)
        if subject in renamed and isinstance(o, ox.NamedNode):
            affected.add(o.value)
        if p.value in renamed:
            if subject is not None:
                affected.add(subject)
            if isinstance(o, ox.NamedNode):
                affected.add(o.value)
    return through_blank


def _owners(statements: Sequence[ox.Triple] | Sequence[Statement],
            blanks: set[ox.BlankNode], affected: set[str]) -> None:
    """Add the named terms that point at one of ``blanks``."""
    if not blanks:
        return
    for t in statements:
        s, o = t[0], t[2]
        if isinstance(o, ox.BlankNode) and o in blanks and isinstance(s, ox.NamedNode):
            affected.add(s.value)


def neighbourhood_of(triples: Sequence[ox.Triple], terms: Collection[str],
                     naming: Collection[str]) -> TermNeighbourhood:
    """The neighbourhood of ``terms`` in ``triples``, in their order: what the index sync
    reads from the store with targeted queries, computed in memory.

    >>> import pyoxigraph as ox
    >>> a, p = ox.NamedNode("http://x/a"), ox.NamedNode("http://x/p")
    >>> hood = neighbourhood_of([ox.Triple(a, p, a)], {"http://x/a"}, ())
    >>> len(hood.outgoing), len(hood.incoming), sorted(hood.predicates)
    (1, 1, [])
    """
    wanted = set(terms)
    outgoing = [t for t in triples if isinstance(t.subject, ox.NamedNode)
                and t.subject.value in wanted]
    incoming = [t for t in triples if isinstance(t.object, ox.NamedNode)
                and t.object.value in wanted]
    owned = {t.object for t in outgoing if isinstance(t.object, ox.BlankNode)}
    restrictions = [t for t in triples if isinstance(t.subject, ox.BlankNode)
                    and t.subject in owned]
    mentioned = {t.object.value for t in [*outgoing, *restrictions]
                 if isinstance(t.object, ox.NamedNode)}
    mentioned |= {t.predicate.value for t in outgoing}
    mentioned |= {v for t in incoming if isinstance(t.subject, ox.NamedNode)
                  for v in (t.subject.value, t.predicate.value)}
    names = [t for t in triples if isinstance(t.subject, ox.NamedNode)
             and t.subject.value in mentioned and t.predicate.value in naming]
    predicates = frozenset(t.predicate.value for t in triples) & wanted
    return TermNeighbourhood(outgoing, incoming, restrictions, names, predicates)
