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
from collections.abc import Iterable

import pyoxigraph as ox

from ontoretrieve.errors import UnsafeQueryError

__all__ = [
    "check_read_only",
    "delete_subjects_in_graph",
    "drop_graph",
    "graph_triples",
    "insert_data",
    "iri",
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


def graph_triples(graph: str) -> str:
    """Every triple of one named graph."""
    return f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH {iri(graph)} {{ ?s ?p ?o }} }}"


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


_FORBIDDEN_UPDATE = re.compile(
    r"\b(INSERT|DELETE|LOAD|CLEAR|DROP|CREATE|ADD|MOVE|COPY|WITH)\b", re.IGNORECASE)


def check_read_only(query: str) -> str:
    """Return the query form (SELECT, CONSTRUCT, ASK, DESCRIBE) of a safe read-only query.

    Raises ``UnsafeQueryError`` for updates (INSERT, DELETE, LOAD, CLEAR, DROP,
    CREATE, ADD, MOVE, COPY), for SERVICE (which would make the store call out),
    and for unbounded property paths (``*``, ``+``), whose cost has no bound.
    The query is parsed, not pattern-matched, so keywords inside strings or
    IRIs do not count.

    >>> check_read_only('SELECT ?s WHERE { ?s ?p "DROP ALL" }')
    'SELECT'
    >>> check_read_only("DROP ALL")
    Traceback (most recent call last):
    ...
    ontoretrieve.errors.UnsafeQueryError: not a read-only SPARQL query: DROP ALL
    """
    from pyparsing import ParseException
    from rdflib.plugins.sparql.parser import parseQuery

    try:
        parsed = parseQuery(query)
    except ParseException as exc:
        if _FORBIDDEN_UPDATE.search(query):
            raise UnsafeQueryError(f"not a read-only SPARQL query: {query[:120]}") from None
        raise UnsafeQueryError(f"not a valid SPARQL query: {exc}") from None
    form = str(parsed[1].name).removesuffix("Query").upper()
    for node in _walk(parsed):
        name = getattr(node, "name", None)
        if name == "ServiceGraphPattern":
            raise UnsafeQueryError("SERVICE is not allowed: the store must not call out")
        if name == "PathElt" and isinstance(node, dict) and node.get("mod") in ("*", "+"):
            raise UnsafeQueryError(
                f"unbounded property path ({node['mod']}) is not allowed; "
                "spell out the steps or use ? and sequences")
    return form


def _walk(node: object) -> Iterable[object]:
    from pyparsing import ParseResults

    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list | tuple | ParseResults):
        for value in node:
            yield from _walk(value)
