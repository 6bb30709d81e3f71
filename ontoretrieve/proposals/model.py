"""Update proposals (docs/proposals.md): the records and the pure checks.

A proposal is an update (triples to add and remove, per writable ontology)
made against a snapshot: each ``OntologyUpdate`` names the content hash it
was made against, so an update to an ontology that has moved on since is
stale. The checks here are pure: parsing (file, line, column), the new
ontology, the nodes an update touches, references to nothing (dangling) and
terms it removes. ``proposals/runner.py`` reads the store,
runs SHACL and writes.

The checks take statements (``Statement``: plain (subject, predicate, object)
tuples), the form a version is read in: making GO's 389k ``ox.Triple`` objects
from them cost a cold validation 1.0-1.4 s (benchmarks/RESULTS.md, session 47).
``backends.triple_store.interned`` turns parsed triples into statements.

>>> update = OntologyUpdate(ontology_iri="http://x/o", base_hash="h",
...                         add="<http://x/A> <http://x/p> <http://x/B> .")
>>> [t.object.value for t in parse_triples(update.add, "add to http://x/o")]
['http://x/B']
>>> parse_triples("<http://x/A> <http://x/p> .", "add to http://x/o")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ontoretrieve.errors.ProposalError: add to http://x/o, line 1, column 27: ...
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import pyoxigraph as ox
from pydantic import BaseModel, ConfigDict, Field

from ontoretrieve.context.model import Snapshot
from ontoretrieve.errors import ProposalError, ProposalRejected
from ontoretrieve.rdf.graph_index import Statement, is_standard
from ontoretrieve.rdf.vocab import DECLARED_REFERENCE_PREDICATES, RDF_TYPE
from ontoretrieve.records import SyncReport

__all__ = [
    "AppliedVersion",
    "ApplyResult",
    "Conflict",
    "OntologyUpdate",
    "Proposal",
    "ProposalReport",
    "TermScan",
    "Violation",
    "apply_change",
    "dangling_references",
    "parse_triples",
    "removed_terms",
    "scan_terms",
    "statements_of",
    "touched_nodes",
]

Check = Literal["parse", "unknown_ontology", "not_writable", "stale", "missing_triple",
                "shacl", "dangling_reference", "removed_term_in_use"]



class OntologyUpdate(BaseModel):
    """Triples to add to and remove from one ontology, made against ``base_hash``."""

    ontology_iri: str = Field(description="The ontology to change (its owl:Ontology IRI).")
    base_hash: str = Field(description="The content hash the update was made against.")
    add: str = Field("", description="Turtle or N-Triples to add.")
    remove: str = Field("", description="Turtle or N-Triples to remove.")


class Proposal(BaseModel):
    """An update against a snapshot; ``text`` (the unit's text) feeds the critic."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "updates": [{"ontology_iri": "http://example.org/mini",
                     "base_hash": "<content_hash from the catalog listing>",
                     "add": "<http://example.org/mini#Hygrometer> a "
                            "<http://www.w3.org/2002/07/owl#Class> ; "
                            "<http://www.w3.org/2000/01/rdf-schema#label> \"hygrometer\" ."}],
        "text": "A hygrometer measures humidity."}]})

    updates: list[OntologyUpdate] = Field(min_length=1, description=(
        "One update per ontology, each against the content hash it was made on."))
    snapshot: Snapshot | None = Field(None, description=(
        "The context's snapshot (which ontologies it was cut from and may write to); "
        "when given, only its writable ontologies may change."))
    text: str | None = Field(None, description=(
        "The text the proposal was extracted from: the critic checks the new terms "
        "against it."))


class Violation(BaseModel):
    """One reason a proposal is rejected."""

    check: Check
    ontology_iri: str
    message: str
    shape: str | None = None
    focus: str | None = None
    path: str | None = None


class Conflict(BaseModel):
    """A possible conflict the consistency critic found (changes nothing)."""

    label: str
    term: str
    ontology_iri: str
    fused_score: float


class ProposalReport(BaseModel):
    """The verdict on a proposal: violations reject it; conflicts are advice."""

    conforms: bool
    violations: list[Violation]
    conflicts: list[Conflict] = []
    consistency_conflicts: int = 0
    changes: dict[str, dict[str, int | str]] = {}
    """Per ontology IRI: base and new hash, triples added and removed."""

    def rejection(self) -> ProposalRejected:
        """The error that rejects the proposal, naming its first five violations."""
        shown = "; ".join(f"{v.check}{f' ({_short(v.shape)})' if v.shape else ''}: {v.message}"
                          f"{f' [{v.focus}]' if v.focus else ''}"
                          for v in self.violations[:5])
        more = len(self.violations) - 5
        return ProposalRejected(f"proposal rejected: {shown}"
                                + (f"; and {more} more" if more > 0 else ""), self)


class AppliedVersion(BaseModel):
    ontology_iri: str
    previous_hash: str
    content_hash: str
    graph: str


class ApplyResult(BaseModel):
    report: ProposalReport
    applied: list[AppliedVersion]
    index: SyncReport | None = None


def _short(iri: str | None) -> str:
    return (iri or "").rsplit("#", 1)[-1].rsplit("/", 1)[-1]


_POSITION = re.compile(r"line (\d+), column (\d+)|(\d+):(\d+)")


def parse_triples(text: str, where: str) -> list[ox.Triple]:
    """Triples of Turtle (N-Triples is Turtle); errors name ``where``, line and column."""
    if not text.strip():
        return []
    try:
        return [ox.Triple(t.subject, t.predicate, t.object)
                for t in ox.parse(text.encode(), ox.RdfFormat.TURTLE)]
    except SyntaxError as exc:
        line, column = _position(exc)
        raise ProposalError(f"{where}, line {line}, column {column}: {exc.msg}") from None


def _position(exc: SyntaxError) -> tuple[int, int]:
    if exc.lineno:
        return exc.lineno, exc.offset or 0
    found = _POSITION.search(str(exc))
    if found:
        numbers = [g for g in found.groups() if g]
        return int(numbers[0]), int(numbers[1])
    return 0, 0


def apply_change(old: Sequence[Statement], add: Sequence[Statement],
                 remove: Sequence[Statement], present: set[Statement] | None = None
                 ) -> tuple[list[Statement], list[Statement]]:
    """The new statements, and the removals that were not there (``present``:
    ``set(old)``, when the caller has it).

    Triples with blank nodes are matched by value only when the same blank
    node appears on both sides (labels from a separate parse never match),
    so removing a restriction means removing the statement that points at it.
    """
    present = set(old) if present is None else present
    missing = [t for t in remove if t not in present]
    gone = set(remove)
    new = [t for t in old if t not in gone] if gone else list(old)
    # What the new list holds is ``present - gone``: asked of the sets at hand, not of a
    # second set of the whole version (GO: 389k statements hashed again).
    new.extend(t for t in dict.fromkeys(add) if t not in present or t in gone)
    return new, missing


def change_effect(present: set[Statement], add: Sequence[Statement],
                  remove: Sequence[Statement]) -> tuple[set[Statement], list[Statement]]:
    """What ``apply_change`` does to a version whose triples are ``present``: the triples
    it drops, and those it appends at the end, in order.

    >>> import pyoxigraph as ox
    >>> a, p = ox.NamedNode("http://x/a"), ox.NamedNode("http://x/p")
    >>> t, u = (a, p, a), (a, p, p)
    >>> gone, appended = change_effect({t}, [u, t, u], [t])
    >>> gone == {t}, appended == [u, t]
    (True, True)
    """
    gone = {t for t in remove if t in present}
    appended = [t for t in dict.fromkeys(add) if t not in present or t in gone]
    return gone, appended


def touched_nodes(add: Iterable[Statement], remove: Iterable[Statement]) -> set[str]:
    """Named subjects and objects of the change (standard vocabulary left out)."""
    nodes: set[str] = set()
    for subject, _, object_ in [*add, *remove]:
        for term in (subject, object_):
            if isinstance(term, ox.NamedNode) and not is_standard(term):
                nodes.add(term.value)
    return nodes


@dataclass(frozen=True, slots=True)
class TermScan:
    """What the checks read from one version, gathered in one pass over its triples.

    ``changed`` makes the scan of the version a change leads to from this one,
    in the time the change takes, instead of a second pass over the whole
    ontology (388k triples for GO: 0.7 s a pass).
    """

    described: set[str]
    """Every named subject."""
    statements: list[Statement]
    """The statements of the scanned terms, with the blank nodes they reach."""
    types: dict[str, list[Statement]]
    """rdf:type statements by named subject."""
    iris: frozenset[str] = frozenset()
    """The scanned terms."""
    named: dict[str, list[Statement]] = field(default_factory=dict)
    """The statements of the scanned terms and of ``also``'s, by subject, in input order."""
    blank: dict[ox.BlankNode, list[Statement]] = field(default_factory=dict)
    """Every blank node's statements, in input order."""

    def changed(self, gone: set[Statement], appended: Sequence[Statement]) -> TermScan:
        """The scan of this version with ``gone`` removed and ``appended`` added at the end
        (``apply_change``'s order), equal to ``scan_terms`` over the new version when
        every subject of the change was scanned (``scan_terms(..., also=...)``).

        >>> import pyoxigraph as ox
        >>> a, b = ox.NamedNode("http://x/A"), ox.NamedNode("http://x/B")
        >>> t = (a, ox.NamedNode(RDF_TYPE), b)
        >>> before = scan_terms([t], {"http://x/A"})
        >>> after = before.changed({t}, [(b, ox.NamedNode(RDF_TYPE), a)])
        >>> sorted(after.described), after.statements
        (['http://x/B'], [])
        """
        named = {s: list(ts) for s, ts in self.named.items()}
        blank = dict(self.blank)
        types = dict(self.types)
        described = set(self.described)
        for t in gone:
            subject = t[0]
            if isinstance(subject, ox.BlankNode) and subject in blank:
                blank[subject] = [x for x in blank[subject] if x != t]
            elif isinstance(subject, ox.NamedNode):
                if subject.value in named:
                    named[subject.value] = [x for x in named[subject.value] if x != t]
                    if not named[subject.value]:
                        described.discard(subject.value)
                if t[1].value == RDF_TYPE and subject.value in types:
                    types[subject.value] = [x for x in types[subject.value] if x != t]
                    if not types[subject.value]:
                        del types[subject.value]
        for t in appended:
            subject = t[0]
            if isinstance(subject, ox.BlankNode):
                blank[subject] = [*blank.get(subject, ()), t]
            elif isinstance(subject, ox.NamedNode):
                described.add(subject.value)
                if subject.value in self.iris or subject.value in named:
                    named[subject.value] = [*named.get(subject.value, ()), t]
                if t[1].value == RDF_TYPE:
                    types[subject.value] = [*types.get(subject.value, ()), t]
        return _scanned(described, named, blank, types, self.iris)


def scan_terms(triples: Iterable[Statement], iris: set[str],
               also: Iterable[str] = ()) -> TermScan:
    """One pass over a version (the whole of a big ontology is read once, not per check).

    ``also``: subjects whose statements are kept too (not reported), so that
    ``TermScan.changed`` can tell whether a change leaves them described.

    >>> import pyoxigraph as ox
    >>> a = ox.NamedNode("http://x/A")
    >>> scan = scan_terms([(a, ox.NamedNode(RDF_TYPE), a)], {"http://x/A"})
    >>> sorted(scan.described), len(scan.statements), list(scan.types)
    (['http://x/A'], 1, ['http://x/A'])
    """
    kept = set(iris) | set(also)
    described: set[str] = set()
    named: dict[str, list[Statement]] = {}
    blank: dict[ox.BlankNode, list[Statement]] = {}
    types: dict[str, list[Statement]] = {}
    for t in triples:
        subject = t[0]
        if isinstance(subject, ox.BlankNode):
            blank.setdefault(subject, []).append(t)
            continue
        if not isinstance(subject, ox.NamedNode):
            continue
        value = subject.value
        described.add(value)
        if value in kept:
            named.setdefault(value, []).append(t)
        if t[1].value == RDF_TYPE:
            types.setdefault(value, []).append(t)
    return _scanned(described, named, blank, types, frozenset(iris))


def _scanned(described: set[str], named: dict[str, list[Statement]],
             blank: dict[ox.BlankNode, list[Statement]], types: dict[str, list[Statement]],
             iris: frozenset[str]) -> TermScan:
    """The scan with its statements: the scanned terms' own (by IRI, each term's in
    input order), then the blank nodes they reach (depth first)."""
    found = [t for s in sorted(iris & named.keys()) for t in named[s]]
    frontier = [t[2] for t in found if isinstance(t[2], ox.BlankNode)]
    seen: set[ox.BlankNode] = set()
    while frontier:
        node = frontier.pop()
        if node in seen:
            continue
        seen.add(node)
        for t in blank.get(node, ()):
            found.append(t)
            if isinstance(t[2], ox.BlankNode):
                frontier.append(t[2])
    return TermScan(described, found, types, iris, named, blank)


def statements_of(triples: Sequence[Statement], iris: set[str]) -> list[Statement]:
    """The statements of ``iris`` as subjects, with the blank nodes they reach."""
    return scan_terms(triples, iris).statements


def dangling_references(add: Sequence[Statement], declared: set[str]) -> dict[str, str]:
    """IRIs the added triples point to (as a class, parent, domain...) that nothing declares.

    Returns {iri: the predicate that points to it}; ``declared`` holds every IRI
    that is a subject in the new ontology or in the tenant's catalog.
    """
    found: dict[str, str] = {}
    for _, predicate, object_ in add:
        targets = [object_] if predicate.value in DECLARED_REFERENCE_PREDICATES else []
        if not is_standard(predicate):
            targets.append(predicate)
        for node in targets:
            if (isinstance(node, ox.NamedNode) and not is_standard(node)
                    and node.value not in declared):
                found.setdefault(node.value, predicate.value)
    return found


def removed_terms(removed: Iterable[Statement], described: set[str]) -> set[str]:
    """Named terms the removed statements were about that the new version no longer
    describes at all (``described``: its named subjects)."""
    return {t[0].value for t in removed if isinstance(t[0], ox.NamedNode)} - described
