r"""Content hashes of RDF graphs that ignore serialization, order and blank-node labels.

The hash is the SHA-256 of the sorted digests of the graph's triples, where
each blank node is written as a colour computed by iterative refinement
(1-dimensional Weisfeiler-Lehman): every blank node starts with the same
colour, and each round a node's colour becomes the hash of its colour and the
sorted multiset of its edges (direction, predicate, the other end's term or
colour). Rounds stop once the number of colours stops growing. Colours depend
only on the graph's structure, never on labels, so isomorphic graphs get equal
hashes. Two non-isomorphic graphs collide only when refinement cannot tell
their blank nodes apart, which does not happen with the trees of blank nodes
that OWL restrictions and RDF lists produce.

Full canonicalization (RDFC-1.0) would close that gap but is exponential in
the worst case and, in pyoxigraph, marked unstable across versions; a catalog
hash must stay the same across library upgrades, so this scheme is ours and
versioned by ``HASH_SCHEME``.

>>> import pyoxigraph as ox
>>> a = ox.parse(input=b"<s> <p> [ <q> 1 ] .", format=ox.RdfFormat.TURTLE, base_iri="http://x/")
>>> from ontoretrieve.rdf.vocab import XSD
>>> nt = f'_:z <http://x/q> "1"^^<{XSD}integer> .\n<http://x/s> <http://x/p> _:z .'
>>> b = ox.parse(input=nt.encode(), format=ox.RdfFormat.N_TRIPLES)
>>> graph_hash(q.triple for q in a) == graph_hash(q.triple for q in b)
True
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable

import pyoxigraph as ox

__all__ = ["HASH_SCHEME", "graph_hash"]

HASH_SCHEME = "ontoretrieve-wl1-sha256"
_MAX_ROUNDS = 64


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def graph_hash(triples: Iterable[ox.Triple]) -> str:
    """The hex content hash of a set of triples (duplicates count once)."""
    ground: list[ox.Triple] = []
    with_blanks: list[ox.Triple] = []
    for triple in triples:
        if isinstance(triple.subject, ox.BlankNode) or isinstance(triple.object, ox.BlankNode):
            with_blanks.append(triple)
        else:
            ground.append(triple)
    # pyoxigraph writes each term in one canonical N-Triples form; serializing
    # in Rust and hashing lines is 3x faster than formatting terms in Python.
    lines = (ox.serialize(ground, format=ox.RdfFormat.N_TRIPLES) or b"").splitlines()
    ground_digests = {_digest(line) for line in lines if line}
    digests = sorted(ground_digests)
    if with_blanks:
        colours = _refine(with_blanks)
        blank_digests = {
            _digest(
                b"|".join(
                    (
                        _term_key(triple.subject, colours),
                        str(triple.predicate).encode(),
                        _term_key(triple.object, colours),
                    )
                )
            )
            for triple in with_blanks
        }
        # A set: two triples that differ only by indistinguishable blank
        # nodes hash once, as their graphs are then isomorphic anyway.
        digests = sorted(ground_digests | blank_digests)
    return hashlib.sha256(b"".join(digests)).hexdigest()


def _term_key(term: object, colours: dict[ox.BlankNode, bytes]) -> bytes:
    if isinstance(term, ox.BlankNode):
        return b"_:" + colours[term].hex().encode()
    return str(term).encode()


def _refine(triples: list[ox.Triple]) -> dict[ox.BlankNode, bytes]:
    edges: dict[ox.BlankNode, list[tuple[bytes, object]]] = defaultdict(list)
    for triple in triples:
        predicate = str(triple.predicate).encode()
        if isinstance(triple.subject, ox.BlankNode):
            edges[triple.subject].append((b">" + predicate, triple.object))
        if isinstance(triple.object, ox.BlankNode):
            edges[triple.object].append((b"<" + predicate, triple.subject))
    colours: dict[ox.BlankNode, bytes] = dict.fromkeys(edges, b"")
    distinct = 1
    for _ in range(_MAX_ROUNDS):
        refined = {
            node: _digest(
                colours[node]
                + b"".join(sorted(label + b" " + _term_key(other, colours) for label, other in out))
            )
            for node, out in edges.items()
        }
        now = len(set(refined.values()))
        colours = refined
        if now == distinct:
            break
        distinct = now
    return colours
