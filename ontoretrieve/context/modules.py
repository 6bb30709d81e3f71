"""Small-module closure and the context cap (``expand.context_max_triples``).

>>> without_header([], set())
[]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pyoxigraph as ox

from ontoretrieve.context.builder import prune_orphan_blank_nodes
from ontoretrieve.rdf.graph_index import Node, Statement

__all__ = ["cap_statements", "small_module_closure", "without_header"]


def small_module_closure(
    modules: Sequence[tuple[str, float, Sequence[Statement], set[Node]]],
    present: Iterable[Statement], max_triples: int, max_total: int | None,
) -> tuple[list[Statement], list[str]]:
    """Whole small ontologies that won a seed, best seed first, without their headers.

    ``modules`` holds (content hash, best seed score, statements, header
    nodes). A module over ``max_triples`` is skipped; ``max_total`` caps the
    sum, skipping a module too large for what is left and trying the next.

    >>> n = lambda s: ox.NamedNode("http://x/" + s)
    >>> st = [(n("A"), n("p"), ox.Literal("a")), (n("O"), n("p"), ox.Literal("o"))]
    >>> added, used = small_module_closure([("h", 0.9, st, {n("O")})], [], 300, None)
    >>> [str(s) for s, _, _ in added], used
    (['<http://x/A>'], ['h'])
    """
    have = set(present)
    added: list[Statement] = []
    used: list[str] = []
    spent = 0
    for name, _, statements, headers in sorted(modules, key=lambda m: -m[1]):
        body = without_header(statements, headers)
        if len(statements) > max_triples:
            continue
        new = [st for st in body if st not in have]
        if max_total is not None and spent + len(new) > max_total:
            continue
        added.extend(new)
        have.update(new)
        spent += len(new)
        used.append(name)
    return added, used


def without_header(statements: Sequence[Statement], headers: set[Node]) -> list[Statement]:
    """The statements minus the owl:Ontology header subjects and their blank nodes."""
    header_blanks: set[Node] = set()
    for s, _, o in statements:
        if s in headers and isinstance(o, ox.BlankNode):
            header_blanks.add(o)
    return [st for st in statements if st[0] not in headers and st[0] not in header_blanks]


def cap_statements(statements: Sequence[Statement], limit: int) -> tuple[list[Statement], bool]:
    """The first ``limit`` statements, without cutting a blank-node structure in half.

    >>> n = lambda s: ox.NamedNode("http://x/" + s)
    >>> kept, truncated = cap_statements([(n("a"), n("p"), n("b")), (n("b"), n("p"), n("c"))], 1)
    >>> [str(s) for s, _, _ in kept], truncated
    (['<http://x/a>'], True)
    """
    if len(statements) <= limit:
        return list(statements), False
    kept = dict.fromkeys(statements[:limit])
    # Drop statements pointing at blank nodes whose own statements were cut off.
    complete = {st[0] for st in statements[:limit] if isinstance(st[0], ox.BlankNode)}
    cut = {st[0] for st in statements[limit:] if isinstance(st[0], ox.BlankNode)}
    broken = cut & (complete | {st[2] for st in kept if isinstance(st[2], ox.BlankNode)})
    for st in list(kept):
        if st[2] in broken or st[0] in broken:
            del kept[st]
    prune_orphan_blank_nodes(kept)
    return list(kept), True
