r"""Content hashes of RDF graphs that ignore serialization, order and blank-node labels.

The hash is the SHA-256 of the sorted digests of the graph's triples, where
each blank node is written as a colour that depends only on the graph's
structure, never on labels, so isomorphic graphs get equal hashes. Blank
nodes that form no cycle (the trees and lists of OWL restrictions and RDF
lists, and any DAG) get exact colours in two linear passes: bottom-up, a node's
*shape* hashes its outgoing edges (predicate, and the other end's term or
shape); top-down, its colour hashes its shape with its incoming edges
(predicate, and the parent's IRI or colour). So a list edited from 200 to 260
items, or one blank node shared by two parents against two separate ones,
always hash apart, whatever the depth. Blank nodes on cycles (rare in
ontologies) are coloured by iterative refinement (1-dimensional
Weisfeiler-Lehman) from there, run until the partition stops growing (never
more rounds than they are nodes). Triples that differ only by
indistinguishable blank nodes are counted, not merged, so two copies of a
restriction are not one.

Full canonicalization (RDFC-1.0) would also separate the cyclic cases
refinement cannot, but is exponential in the worst case and, in pyoxigraph,
marked unstable across versions; a catalog hash must stay the same across
library upgrades, so this scheme is ours and versioned by ``HASH_SCHEME``.

>>> import pyoxigraph as ox
>>> a = ox.parse(input=b"<s> <p> [ <q> 1 ] .", format=ox.RdfFormat.TURTLE, base_iri="http://x/")
>>> from ontoretrieve.rdf.vocab import XSD
>>> nt = f'_:z <http://x/q> "1"^^<{XSD}integer> .\n<http://x/s> <http://x/p> _:z .'
>>> b = ox.parse(input=nt.encode(), format=ox.RdfFormat.N_TRIPLES)
>>> graph_hash(q.triple for q in a) == graph_hash(q.triple for q in b)
True
"""

from __future__ import annotations

import bisect
import hashlib
from collections import defaultdict, deque
from collections.abc import Callable, Collection, Iterable, Sequence

import pyoxigraph as ox

__all__ = ["DIGEST_BYTES", "HASH_SCHEME", "changed_digests", "digests_hash", "graph_digests",
           "graph_hash"]

HASH_SCHEME = "ontoretrieve-dag-wl-sha256-2"
"""Version 2 (December 2026): exact colours for acyclic blank nodes and a multiset of
triples. Version 1 capped refinement at 64 rounds, so deep lists could collide."""


DIGEST_BYTES = 16
"""The size of one triple's digest."""


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=DIGEST_BYTES).digest()


def graph_hash(triples: Iterable[ox.Triple]) -> str:
    """The hex content hash of a set of triples (duplicates count once)."""
    return digests_hash(graph_digests(triples))


def digests_hash(digests: Sequence[bytes]) -> str:
    """The content hash of a graph from its sorted triple digests (``graph_digests``)."""
    return hashlib.sha256(b"".join(digests)).hexdigest()


def graph_digests(triples: Iterable[ox.Triple]) -> list[bytes]:
    """The sorted digests the content hash is made of, one per triple (a multiset).

    >>> import pyoxigraph as ox
    >>> t = ox.Triple(ox.NamedNode("http://x/s"), ox.NamedNode("http://x/p"), ox.Literal("o"))
    >>> digests = graph_digests([t, t])
    >>> len(digests), digests_hash(digests) == graph_hash([t])
    (1, True)
    """
    ground: list[ox.Triple] = []
    with_blanks: list[ox.Triple] = []
    for triple in dict.fromkeys(triples):
        if isinstance(triple.subject, ox.BlankNode) or isinstance(triple.object, ox.BlankNode):
            with_blanks.append(triple)
        else:
            ground.append(triple)
    digests = _ground_digests(ground)
    if with_blanks:
        # A multiset: triples that differ only by indistinguishable blank nodes each
        # count (two copies of a restriction are not one).
        digests += _blank_digests(with_blanks, _colours(with_blanks))
    return sorted(digests)


def changed_digests(base: Sequence[bytes], gone: Iterable[ox.Triple],
                    appended: Sequence[ox.Triple],
                    base_blanks: Callable[[], Collection[ox.BlankNode]]
                    ) -> list[bytes] | None:
    """The sorted digests of a version made by removing ``gone`` from the version whose
    digests are ``base`` and appending ``appended`` (triples it does not have), in the
    time the change takes; equal to ``graph_digests`` of the new version.

    None when the change's digests depend on more than the change: a removed statement
    with a blank node (its colour depends on the rest of its structure), an added blank
    node the base has too (``base_blanks``, asked only when some is added) or one on a
    cycle (refined with the graph's other cycles). The caller then hashes the whole.

    >>> import pyoxigraph as ox
    >>> x, p = ox.NamedNode("http://x/x"), ox.NamedNode("http://x/p")
    >>> old = [ox.Triple(x, p, ox.Literal("1")), ox.Triple(x, p, ox.Literal("2"))]
    >>> b = ox.BlankNode()
    >>> gone, added = [old[0]], [ox.Triple(x, p, b), ox.Triple(b, p, ox.Literal("3"))]
    >>> new = changed_digests(graph_digests(old), gone, added, lambda: set())
    >>> new == graph_digests([old[1], *added])
    True
    """
    gone = list(gone)
    if not all(_is_ground(t) for t in gone):
        return None
    digests = list(base)
    for triple in _ground_digests(gone):
        at = bisect.bisect_left(digests, triple)
        if at == len(digests) or digests[at] != triple:
            return None  # not the base's: never guess
        del digests[at]
    added = list(dict.fromkeys(appended))
    with_blanks = [t for t in added if not _is_ground(t)]
    fresh = _ground_digests([t for t in added if _is_ground(t)])
    if with_blanks:
        nodes = {n for t in with_blanks for n in (t.subject, t.object)
                 if isinstance(n, ox.BlankNode)}
        if not nodes.isdisjoint(base_blanks()) or _topological(_edges(with_blanks)[0])[1]:
            return None  # shares a blank node with the base, or one is on a cycle
        fresh += _blank_digests(with_blanks, _colours(with_blanks))
    for digest in fresh:
        bisect.insort(digests, digest)
    return digests


def _is_ground(triple: ox.Triple) -> bool:
    return not (isinstance(triple.subject, ox.BlankNode)
                or isinstance(triple.object, ox.BlankNode))


def _ground_digests(ground: Sequence[ox.Triple]) -> list[bytes]:
    # pyoxigraph writes each term in one canonical N-Triples form; serializing
    # in Rust and hashing lines is 3x faster than formatting terms in Python.
    lines = (ox.serialize(ground, format=ox.RdfFormat.N_TRIPLES) or b"").splitlines()
    return list({_digest(line) for line in lines if line})


def _blank_digests(with_blanks: Sequence[ox.Triple], colours: dict[ox.BlankNode, bytes]
                   ) -> list[bytes]:
    return [_digest(b"|".join((_term_key(t.subject, colours), str(t.predicate).encode(),
                                _term_key(t.object, colours))))
            for t in with_blanks]


def _term_key(term: object, colours: dict[ox.BlankNode, bytes]) -> bytes:
    if isinstance(term, ox.BlankNode):
        return b"_:" + colours[term].hex().encode()
    return str(term).encode()


Edge = tuple[bytes, object]
"""(predicate, the other end) of a blank node's edge."""


def _edges(triples: Sequence[ox.Triple]
           ) -> tuple[dict[ox.BlankNode, list[Edge]], dict[ox.BlankNode, list[Edge]]]:
    """Each blank node's outgoing and incoming edges."""
    out: dict[ox.BlankNode, list[Edge]] = defaultdict(list)
    into: dict[ox.BlankNode, list[Edge]] = defaultdict(list)
    for triple in triples:
        predicate = str(triple.predicate).encode()
        if isinstance(triple.subject, ox.BlankNode):
            out[triple.subject].append((predicate, triple.object))
            into.setdefault(triple.subject, [])
        if isinstance(triple.object, ox.BlankNode):
            into[triple.object].append((predicate, triple.subject))
            out.setdefault(triple.object, [])
    return out, into


def _colours(triples: Sequence[ox.Triple]) -> dict[ox.BlankNode, bytes]:
    """A structural colour per blank node (see the module docstring)."""
    out, into = _edges(triples)
    order, cyclic = _topological(out)
    shape: dict[ox.BlankNode, bytes] = {}
    for node in reversed(order):  # children first
        shape[node] = _digest(b"o" + b"".join(sorted(
            p + b" " + (shape[o] if isinstance(o, ox.BlankNode) and o in shape
                        else b"~" if isinstance(o, ox.BlankNode) else str(o).encode())
            for p, o in out[node])))
    colours: dict[ox.BlankNode, bytes] = {}
    for node in order:  # parents first
        colours[node] = _digest(shape[node] + b"i" + b"".join(sorted(
            p + b" " + (colours[s] if isinstance(s, ox.BlankNode) and s in colours
                        else b"~" if isinstance(s, ox.BlankNode) else str(s).encode())
            for p, s in into[node])))
    if cyclic:
        colours.update(_refine(cyclic, out, into, colours))
    return colours


def _topological(out: dict[ox.BlankNode, list[Edge]]
                 ) -> tuple[list[ox.BlankNode], list[ox.BlankNode]]:
    """Blank nodes parents first (Kahn's algorithm over blank-to-blank edges), and the
    nodes on or under a cycle, which no order places."""
    parents: dict[ox.BlankNode, int] = dict.fromkeys(out, 0)
    for edges in out.values():
        for _, other in edges:
            if isinstance(other, ox.BlankNode):
                parents[other] += 1
    ready = deque(node for node, count in parents.items() if count == 0)
    order: list[ox.BlankNode] = []
    while ready:
        node = ready.popleft()
        order.append(node)
        for _, other in out[node]:
            if isinstance(other, ox.BlankNode):
                parents[other] -= 1
                if parents[other] == 0:
                    ready.append(other)
    placed = set(order)
    return order, [node for node in out if node not in placed]


def _refine(nodes: list[ox.BlankNode], out: dict[ox.BlankNode, list[Edge]],
            into: dict[ox.BlankNode, list[Edge]], fixed: dict[ox.BlankNode, bytes]
            ) -> dict[ox.BlankNode, bytes]:
    """Refinement of the cyclic nodes' colours until the partition stops growing, the
    acyclic nodes' colours fixed (at most one round per node, plus one)."""
    colours = {**fixed, **dict.fromkeys(nodes, b"")}
    distinct = 1
    for _ in range(len(nodes) + 1):
        refined = {node: _digest(colours[node] + b"".join(sorted(
            [b">" + p + b" " + _term_key(o, colours) for p, o in out[node]]
            + [b"<" + p + b" " + _term_key(s, colours) for p, s in into[node]])))
            for node in nodes}
        colours.update(refined)
        now = len(set(refined.values()))
        if now == distinct:
            break
        distinct = now
    return {node: colours[node] for node in nodes}
