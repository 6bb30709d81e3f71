r"""SPARQL text built from values, with every IRI and literal escaped.

Nothing outside this module writes SPARQL by string formatting. IRIs are
checked against the IRIREF production, so a hostile value (``>``, ``}``, a
quote, a newline) is refused instead of ending the IRI; literals are written
by pyoxigraph in N-Triples form, which escapes quotes, backslashes and line
breaks. The queries use only SPARQL 1.1 forms that Oxigraph, Fuseki and
Virtuoso all accept.

>>> iri("http://example.org/a b")
Traceback (most recent call last):
...
ValueError: not an IRI usable in SPARQL: 'http://example.org/a b'
>>> print(literal('say "hi"\n}'))
"say \"hi\"\n}"
>>> drop_graph("urn:g")
'DROP SILENT GRAPH <urn:g>'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

import pyoxigraph as ox

__all__ = [
    "chunks",
    "delete_subjects_in_graph",
    "drop_graph",
    "insert_data",
    "iri",
    "iris",
    "literal",
    "term",
]

# IRIREF of the SPARQL grammar: no spaces, controls, <>"{}|^`\ inside.
_IRIREF = re.compile(r'[^<>"{}|^`\\\x00-\x20]+')  # with fullmatch: "$" would allow "\n"


def iri(value: str) -> str:
    """``<value>``, or ``ValueError`` if the value cannot be an IRIREF."""
    if not _IRIREF.fullmatch(value) or ":" not in value:
        raise ValueError(f"not an IRI usable in SPARQL: {value!r}")
    return f"<{value}>"


def iris(values: Iterable[str]) -> str:
    """IRIs as the inside of a VALUES block: ``<a> <b>`` (an IN list needs commas).

    >>> iris(["urn:a", "urn:b"])
    '<urn:a> <urn:b>'
    """
    return " ".join(iri(v) for v in values)


def chunks(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    """``items`` in runs of at most ``size``: one VALUES block of a few hundred IRIs
    stays fast in Oxigraph, and a query stays well under a server's request limit.

    >>> list(chunks(["a", "b", "c"], 2))
    [['a', 'b'], ['c']]
    """
    for start in range(0, len(items), size):
        yield items[start:start + size]


def literal(value: str, *, datatype: str | None = None, language: str | None = None) -> str:
    """A literal in N-Triples form (quotes, backslashes and newlines escaped)."""
    if datatype is not None:
        return str(ox.Literal(value, datatype=ox.NamedNode(datatype)))
    if language is not None:
        return str(ox.Literal(value, language=language))
    return str(ox.Literal(value))


def term(value: ox.NamedNode | ox.Literal) -> str:
    """A named node or literal as SPARQL text."""
    if isinstance(value, ox.NamedNode):
        return iri(value.value)
    return str(value)


def drop_graph(graph: str) -> str:
    """Remove a named graph; no error when it does not exist."""
    return f"DROP SILENT GRAPH {iri(graph)}"



def insert_data(graph: str, triples: Iterable[ox.Triple]) -> str:
    """``INSERT DATA`` of ground triples (no blank nodes) into a named graph."""
    body = " ".join(
        f"{term(t.subject)} {term(t.predicate)} {term(t.object)} ."  # type: ignore[arg-type]
        for t in triples
    )
    return f"INSERT DATA {{ GRAPH {iri(graph)} {{ {body} }} }}"


def delete_subjects_in_graph(graph: str, subjects: Iterable[str]) -> str:
    """Delete every triple of the given subjects in one named graph.

    One ``DELETE WHERE`` per subject, joined with ``;``: plain forms that every
    engine accepts (Virtuoso rejects some VALUES placements).
    """
    parts = [
        f"DELETE WHERE {{ GRAPH {iri(graph)} {{ {iri(s)} ?p ?o }} }}" for s in subjects
    ]
    return " ;\n".join(parts)
