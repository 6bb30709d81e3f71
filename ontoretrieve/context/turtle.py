"""A prompt's Turtle with blank nodes written in place: ``[ ... ]`` and ``( ... )``.

Pure. OWL says what a class is with blank nodes: a restriction
(``[ a owl:Restriction ; owl:onProperty :hasTopping ; owl:someValuesFrom :Tomato ]``),
a union over an RDF list. pyoxigraph's Turtle writer gives each of them a label
and a block of its own, and a list one block per item (``rdf:first`` /
``rdf:rest``): a reader follows ``_:b3`` across the text, and each label costs
tokens twice. This writer puts a blank node used once as an object where it is
used, and a well-formed list as ``( a b c )``, as people write OWL in Turtle.

pyoxigraph still writes everything else (its layout, prefixed names and escapes),
and the terms inside the blank nodes are written as it writes them, so a graph
without blank nodes reads the same either way. Blank nodes used twice or more,
or only as subjects, keep a label; so does one on a cycle of blank nodes.

>>> import pyoxigraph as ox
>>> ex = "http://x.org/"
>>> a, p, q = (ox.NamedNode(ex + name) for name in "Apq")
>>> b = ox.BlankNode()
>>> print(inline_turtle([ox.Triple(a, p, b), ox.Triple(b, q, ox.Literal("v"))], {"ex": ex}), end="")
@prefix ex: <http://x.org/> .
ex:A ex:p [ ex:q "v" ] .
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

import pyoxigraph as ox

from ontoretrieve.rdf.vocab import RDF_FIRST, RDF_NIL, RDF_REST, RDF_TYPE

__all__ = ["DEEPEST", "inline_turtle"]

Node = ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple
"""What a statement may hold (a triple term only where nothing goes inline)."""


def inline_turtle(triples: Sequence[ox.Triple], prefixes: Mapping[str, str]) -> str:
    """Turtle of ``triples`` declaring ``prefixes``, blank nodes inline where they can be.

    pyoxigraph writes the blocks, each blank node to go inline standing in as a
    placeholder IRI; the placeholders are then replaced by the blank nodes' text. A
    graph holding RDF 1.2 triple terms, or a literal that spells a placeholder or that
    pyoxigraph writes across lines, is written by pyoxigraph as it is.

    >>> import pyoxigraph as ox
    >>> ex = "http://x.org/"
    >>> a, p, items = ox.NamedNode(ex + "A"), ox.NamedNode(ex + "p"), [ox.BlankNode() for _ in "xy"]
    >>> first, rest = ox.NamedNode(RDF_FIRST), ox.NamedNode(RDF_REST)
    >>> lst = [ox.Triple(a, p, items[0]), ox.Triple(items[0], first, ox.Literal("1")),
    ...        ox.Triple(items[0], rest, items[1]), ox.Triple(items[1], first, a),
    ...        ox.Triple(items[1], rest, ox.NamedNode(RDF_NIL))]
    >>> inline_turtle(lst, {"ex": ex}).splitlines()[-1]
    'ex:A ex:p ( "1" ex:A ) .'
    """
    graph = _Graph(triples)
    texts = None if graph.triple_terms or not graph.inline else _term_texts(
        graph.tree_terms(), prefixes)
    if texts is None:
        return _plain(triples, prefixes)
    stand_ins: dict[ox.BlankNode, ox.NamedNode] = {}
    blocks: list[ox.Triple] = []
    for t in triples:
        if t.subject in graph.inline:
            continue  # written where it is used
        if isinstance(t.object, ox.BlankNode) and t.object in graph.inline:
            stand_in = stand_ins[t.object] = ox.NamedNode(f"{_STAND_IN}{len(stand_ins)}")
            t = ox.Triple(t.subject, t.predicate, stand_in)
        blocks.append(t)
    text = _plain(blocks, prefixes)
    found = _STAND_IN_TEXT.findall(text)
    if sorted(map(int, found)) != list(range(len(stand_ins))):  # a literal spells one
        return _plain(triples, prefixes)
    writer = _Writer(graph, texts)
    try:
        written = [writer.node(blank) for blank in stand_ins]
    except _TooDeep:
        return _plain(triples, prefixes)
    return _STAND_IN_TEXT.sub(lambda m: written[int(m.group(1))], text)


_STAND_IN = "urn:x-ontoretrieve:inline:"
_STAND_IN_TEXT = re.compile(r"<urn:x-ontoretrieve:inline:(\d+)>")


def _plain(triples: Sequence[ox.Triple], prefixes: Mapping[str, str]) -> str:
    data = ox.serialize(triples, format=ox.RdfFormat.TURTLE, prefixes=dict(prefixes))
    return data.decode() if data else ""


class _Graph:
    """The statements about blank nodes, and which blank nodes go inline: those used
    once as an object, save one on a cycle of such nodes."""

    def __init__(self, triples: Sequence[ox.Triple]) -> None:
        self.of_blank: dict[ox.BlankNode, list[tuple[ox.NamedNode, Node]]] = {}
        """Each blank subject's (predicate, object) pairs, in the triples' order."""
        self.triple_terms = False
        """Whether an RDF 1.2 triple term is among the triples (then nothing goes inline)."""
        uses: Counter[ox.BlankNode] = Counter()
        from_named: list[ox.BlankNode] = []
        for t in triples:
            subject, value = t.subject, t.object
            if isinstance(subject, ox.BlankNode):
                self.of_blank.setdefault(subject, []).append((t.predicate, value))
            if isinstance(value, ox.BlankNode):
                uses[value] += 1
                if not isinstance(subject, ox.BlankNode):
                    from_named.append(value)
            if isinstance(subject, ox.Triple) or isinstance(value, ox.Triple):
                self.triple_terms = True
        self.inline = {node for node, count in uses.items() if count == 1}
        self._break_cycles(from_named)
        self.lists = self._well_formed_lists()

    def tree_terms(self) -> list[Node]:
        """Every IRI and literal of the statements about blank nodes that go inline, once
        each."""
        seen: dict[Node, None] = {}
        for subject in self.inline:
            for p, o in self.of_blank.get(subject, []):
                seen.setdefault(p, None)
                if not isinstance(o, ox.BlankNode):
                    seen.setdefault(o, None)
        return list(seen)

    def list_items(self, node: ox.BlankNode) -> list[Node] | None:
        """The items of the well-formed list ``node`` heads, or None."""
        if node not in self.lists:
            return None
        items: list[Node] = []
        current: Node = node
        while isinstance(current, ox.BlankNode):
            item, current = self.lists[current]
            items.append(item)
        return items

    def _well_formed_lists(self) -> dict[ox.BlankNode, tuple[Node, Node]]:
        """Each inline blank node that heads a well-formed list (its statements an
        ``rdf:first`` and an ``rdf:rest``, the rest ``rdf:nil`` or such a node again), with
        its item and rest. One walk per node, each node settled once."""
        cells: dict[ox.BlankNode, tuple[Node, Node]] = {}
        for node in self.inline:
            pairs = self.of_blank.get(node, [])
            by_predicate = {p.value: o for p, o in pairs}
            if len(pairs) == 2 and set(by_predicate) == {RDF_FIRST, RDF_REST}:
                cells[node] = (by_predicate[RDF_FIRST], by_predicate[RDF_REST])
        settled: dict[ox.BlankNode, bool] = {}
        for start in cells:
            path: list[ox.BlankNode] = []
            current: Node = start
            while isinstance(current, ox.BlankNode) and current in cells and current not in settled:
                settled[current] = False  # on the path: a cycle back to it is no list
                path.append(current)
                current = cells[current][1]
            if isinstance(current, ox.BlankNode):
                ends_well = settled.get(current, False)
            else:
                ends_well = isinstance(current, ox.NamedNode) and current.value == RDF_NIL
            for node in path:
                settled[node] = ends_well
        return {node: cells[node] for node, ok in settled.items() if ok}

    def _break_cycles(self, from_named: Sequence[ox.BlankNode]) -> None:
        """Blank nodes used once that no written block reaches (a cycle of them) keep a
        label: the first of each cycle becomes a block of its own, in first-use order."""
        reached: set[ox.BlankNode] = set()
        self._reach([o for o in from_named if o in self.inline], reached)
        self._reach([s for s in self.of_blank if s not in self.inline], reached)
        for subject in self.of_blank:
            if subject in self.inline and subject not in reached:
                self.inline.discard(subject)
                self._reach([subject], reached)

    def _reach(self, starts: Sequence[ox.BlankNode], reached: set[ox.BlankNode]) -> None:
        stack = list(starts)
        reached.update(s for s in starts if s in self.inline)
        while stack:
            node = stack.pop()
            for _, o in self.of_blank.get(node, []):
                if isinstance(o, ox.BlankNode) and o in self.inline and o not in reached:
                    reached.add(o)
                    stack.append(o)


class _Writer:
    """Writes a blank node used once in place: ``[ p o ; p o , o ]`` or ``( a b )``."""

    def __init__(self, graph: _Graph, texts: Mapping[Node, str]) -> None:
        self.graph = graph
        self.texts = texts

    def predicate(self, p: ox.NamedNode) -> str:
        return "a" if p.value == RDF_TYPE else self.texts[p]

    def node(self, node: Node, depth: int = 0) -> str:
        if not isinstance(node, ox.BlankNode):
            return self.texts[node]
        if node not in self.graph.inline:
            return f"_:{node.value}"
        if depth > DEEPEST:
            raise _TooDeep
        items = self.graph.list_items(node)
        if items is not None:
            return "( " + " ".join(self.node(item, depth + 1) for item in items) + " )"
        pairs = self.graph.of_blank.get(node, [])
        if not pairs:
            return "[]"
        inner = " ; ".join(
            f"{self.predicate(p)} " + " , ".join(self.node(o, depth + 1) for o in objects)
            for p, objects in _by_predicate(pairs))
        return f"[ {inner} ]"


DEEPEST = 64
"""Blank nodes nested deeper than this (never an OWL class expression; a hostile
catalog's chain) leave the whole graph to pyoxigraph's labelled blocks."""


class _TooDeep(Exception):
    """A blank node nested deeper than ``DEEPEST``."""


def _by_predicate(pairs: Sequence[tuple[ox.NamedNode, Node]]
                  ) -> list[tuple[ox.NamedNode, list[Node]]]:
    """Each run of one predicate (consecutive statements) with its objects, as Turtle
    writes them: ``p o , o``."""
    runs: list[tuple[ox.NamedNode, list[Node]]] = []
    for p, o in pairs:
        if runs and runs[-1][0] == p:
            runs[-1][1].append(o)
        else:
            runs.append((p, [o]))
    return runs


_PROBE = ox.NamedNode("urn:x-ontoretrieve:p")
_LINE = re.compile(r"<urn:x-ontoretrieve:t(\d+)> <urn:x-ontoretrieve:p> (.*) \.")


def _term_texts(terms: Sequence[Node], prefixes: Mapping[str, str]
                ) -> dict[Node, str] | None:
    """Each term's text as pyoxigraph writes it: one statement per term, one line each
    (pyoxigraph escapes a literal's line breaks). None if a term was written otherwise."""
    probes = [ox.Triple(ox.NamedNode(f"urn:x-ontoretrieve:t{i}"), _PROBE, term)
              for i, term in enumerate(terms)]
    text = _plain(probes, prefixes)
    texts: dict[Node, str] = {}
    for line in text.split("\n"):  # not splitlines(): a literal may hold U+2028
        found = _LINE.fullmatch(line)
        if found:
            texts[terms[int(found.group(1))]] = found.group(2)
    return texts if len(texts) == len(terms) else None
