"""The result of a retrieval: the context graph, its evidence, metrics and snapshot record.

Pure records and serialization. The graph travels as N-Triples text, so the
record serializes the same way on every surface; ``triples()``, ``serialize``
and ``graph()`` give it back as pyoxigraph triples, Turtle / JSON-LD /
N-Triples text (declaring only the prefixes that save tokens) and an rdflib Graph.

>>> import pyoxigraph as ox
>>> from ontoretrieve.rdf.vocab import RDFS_LABEL_NODE, SKOS_CONCEPT
>>> t = ox.Triple(ox.NamedNode(SKOS_CONCEPT), RDFS_LABEL_NODE, ox.Literal("c"))
>>> print(serialize_triples([t], "turtle").strip())
<http://www.w3.org/2004/02/skos/core#Concept> <http://www.w3.org/2000/01/rdf-schema#label> "c" .
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from enum import StrEnum
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

import pyoxigraph as ox
from pydantic import BaseModel, ConfigDict

from ontoretrieve.context.tokens import estimate_tokens
from ontoretrieve.context.turtle import inline_turtle
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.rdf.vocab import (
    OBO,
    RDF,
    RDF_FIRST,
    RDF_NIL,
    RDF_REST,
    RDF_TYPE,
    WELL_KNOWN_PREFIXES,
    XSD,
    namespace_of,
)
from ontoretrieve.records import CatalogAccessMode, SeedEvidence, SeedFunnel, TermStep

if TYPE_CHECKING:
    import rdflib

    from ontoretrieve.rdf.graph_index import Statement

__all__ = [
    "Context",
    "ContextMetrics",
    "Diagnosis",
    "Mode",
    "OntologyRef",
    "OutputFormat",
    "Snapshot",
    "TermEvidence",
    "prefix_line_tokens",
    "serialize_triples",
    "short_blank_labels",
    "turtle_prefixes",
]

OutputFormat = Literal["turtle", "jsonld", "ntriples"]
_FORMATS: dict[str, ox.RdfFormat] = {
    "turtle": ox.RdfFormat.TURTLE, "jsonld": ox.RdfFormat.JSON_LD,
    "ntriples": ox.RdfFormat.N_TRIPLES,
}


class Mode(StrEnum):
    """How the context is chosen (docs/context.md, "Modes")."""

    AUTO = "auto"
    """The whole catalog when it fits ONTOLOGY_CONTEXT_MAX_TRIPLES, else vector."""
    VECTOR = "vector"
    """Windows, lanes, fusion, seeds and the induced subgraph (docs/query.md)."""
    FULL = "full"
    """The whole catalog, capped."""
    ONTOLOGIES = "ontologies"
    """Named ontologies whole, capped."""
    LEXICAL = "lexical"
    """Seeds from exact label and symbol matches only (no embedding), then the subgraph."""


class Diagnosis(StrEnum):
    """Why a context is empty: never a context of noise."""

    NO_TEXT = "no_text"
    CATALOG_EMPTY = "catalog_empty"
    NO_HIT_ABOVE_FLOOR = "no_hit_above_floor"
    NO_LEXICAL_MATCH = "no_lexical_match"
    SEEDS_NOT_IN_CATALOG = "seeds_not_in_catalog"
    NO_SUCH_ONTOLOGY = "no_such_ontology"
    STORE_UNREACHABLE = "store_unreachable"
    ONLY_DEPRECATED_TERMS = "only_deprecated_terms"
    """Every seed was a deprecated term with no successor (``seeds.deprecated``)."""
    BUDGET_TOO_SMALL = "budget_too_small"
    """Seeds were found, but the token budget holds not even the best one's label."""


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True)


class OntologyRef(_Record):
    ontology_iri: str
    version: str | None
    content_hash: str
    source: str | None = None


class Snapshot(_Record):
    """What the context was cut from and what a proposal from this unit may change."""

    cut_from: list[OntologyRef]
    writable: list[OntologyRef]
    """Ontologies the text matched directly (a retrieved seed); the rest is read-only."""


class TermEvidence(_Record):
    """Why one term (a subject of the context) is there."""

    iri: str
    step: TermStep
    """A seed rule (retrieved, lexical_trigger, unit_signal, lexical_match); a seed
    closure (type_promotion, schema_closure); a subgraph step (seed, shell, expansion,
    link, stub, repair, small_module); a whole-catalog mode; atoms_fallback."""
    via: str | None = None
    """The seed whose expansion or closure brought the term in."""
    ontology_iri: str | None = None
    ontology_version: str | None = None
    ontology_hash: str | None = None
    score: float | None = None


class ContextMetrics(_Record):
    """The funnel of one retrieval, stage by stage."""

    mode: Mode
    seeds: SeedFunnel | None = None
    seed_terms: int = 0
    promoted_types: int = 0
    schema_closure_added: int = 0
    expanded_ontology_iris: list[str] = []
    versions_relaxed: int = 0
    catalog_access_mode: CatalogAccessMode = CatalogAccessMode.SPARQL
    catalog_context_mode: str = "merged_catalog"
    catalog_context_triples: int = 0
    catalog_graph_cache_hits: int = 0
    catalog_graph_cache_misses: int = 0
    catalog_merge_cache_hits: int = 0
    catalog_merge_cache_misses: int = 0
    subgraph: dict[str, int | bool] = {}
    small_modules: list[str] = []
    small_module_triples: int = 0
    context_triples: int = 0
    context_terms: int = 0
    truncated: bool = False
    token_budget: int | None = None
    """The budget in prompt tokens the context was packed into (None: no budget)."""
    context_tokens: int | None = None
    """Tokens of the context's Turtle, by the counter the budget was measured in."""
    budget: dict[str, int] = {}
    """What spending the budget dropped: languages_dropped, repeats_dropped,
    definitions_cut, seeds_stubbed (seeds with their stub only), seeds_left_out."""
    degraded: str | None = None
    """Why a fallback was taken (the store's error), when one was."""


class Context(BaseModel):
    """The slice of the catalog a text is about, with everything needed to trust it."""

    mode: Mode
    ntriples: str
    terms: list[str]
    """Named subjects of the context, in the order they were admitted."""
    seeds: list[SeedEvidence]
    """The final seeds in rank order."""
    evidence: dict[str, TermEvidence]
    snapshot: Snapshot
    metrics: ContextMetrics
    diagnosis: Diagnosis | None = None
    warnings: list[str] = []
    seconds: dict[str, float] = {}

    @property
    def empty(self) -> bool:
        return not self.ntriples

    def triples(self) -> list[ox.Triple]:
        return list(ox.parse(self.ntriples.encode(), ox.RdfFormat.N_TRIPLES))

    def serialize(self, fmt: OutputFormat = "turtle") -> str:
        return serialize_triples(self.triples(), fmt)

    def graph(self) -> rdflib.Graph:
        """The context as an rdflib Graph (parsing costs about 40 ms per 500 triples)."""
        import rdflib

        if any(isinstance(t.object, ox.Triple) or isinstance(t.subject, ox.Triple)
               for t in self.triples()):
            raise OntoRetrieveError(
                "the context holds RDF 1.2 triple terms (RDF-star), which rdflib cannot "
                "read: use Context.triples() (pyoxigraph) or serialize('turtle')")
        graph = rdflib.Graph(bind_namespaces="none")
        graph.parse(data=self.ntriples, format="nt")
        for prefix, namespace in used_prefixes(self.triples()).items():
            graph.bind(prefix, namespace)
        return graph


def used_prefixes(triples: Iterable[ox.Triple | Statement]) -> dict[str, str]:
    """The prefixes the triples' IRIs use: the well-known ones, and one made up for every
    other namespace that two IRIs or more share (a prompt then reads ``relations:x``, not
    the namespace again and again). ``triples``: pyoxigraph triples or (s, p, o) tuples
    (both iterate over their three terms; the budget passes its statements as they are,
    making a ``Triple`` of each cost more than the rest of this function).

    >>> p = ox.NamedNode("http://x.org/voc/ont_7/relations#p")
    >>> t = ox.Triple(ox.NamedNode("http://x.org/voc/ont_7/relations#a"), p, ox.Literal("v"))
    >>> used_prefixes([t])
    {'relations': 'http://x.org/voc/ont_7/relations#'}
    """
    shared = Counter(namespace_of(term.value) for term in {
        term for t in triples for term in t if isinstance(term, ox.NamedNode)})
    known = {prefix: ns for prefix, ns in sorted(WELL_KNOWN_PREFIXES.items()) if ns in shared}
    taken = set(WELL_KNOWN_PREFIXES)
    made = {}
    for namespace, uses in sorted(shared.items()):
        if uses < 2 or not namespace or namespace in _KNOWN_NAMESPACES:
            continue
        name = _prefix_name(namespace, taken)
        if name:
            taken.add(name)
            made[name] = namespace
    return {**known, **made}


_KNOWN_NAMESPACES = frozenset(WELL_KNOWN_PREFIXES.values())
_LIST = frozenset({RDF_FIRST, RDF_REST})
_KNOWN_NAMES = {ns: prefix for prefix, ns in WELL_KNOWN_PREFIXES.items()}


def turtle_prefixes(triples: Iterable[ox.Triple | Statement]) -> dict[str, str]:
    """The prefixes worth declaring in the Turtle of ``triples``: each namespace whose
    ``@prefix`` line costs fewer estimated tokens than writing the namespace out at each
    of its uses as Turtle writes them (a subject once, each of its predicates once;
    two or three uses pay for a line). A context is read by a language
    model within a token budget, so a prefix used once is written out instead, and
    ``rdf:type`` as a predicate is no use of ``rdf:`` (Turtle writes "a"), nor are a
    list's ``rdf:first``, ``rdf:rest`` and ``rdf:nil`` (written ``( ... )``:
    ``inline_turtle``); literal datatypes are (``xsd:double``), save those Turtle writes
    bare or not at all.

    An OBO ID space used often enough gets its own prefix, the CURIE every
    reader of OBO ontologies knows: ``GO:0010467`` for ``obo:GO_0010467``, two
    tokens fewer at each use (``obo_id_spaces``).

    >>> import pyoxigraph as ox
    >>> from ontoretrieve.rdf.vocab import RDF_TYPE_NODE, RDFS_LABEL_NODE
    >>> terms = [ox.NamedNode(f"http://x.org/voc/ont_7/relations#t{i}") for i in range(3)]
    >>> owl_class = ox.NamedNode("http://www.w3.org/2002/07/owl#Class")
    >>> labelled = [ox.Triple(t, RDFS_LABEL_NODE, ox.Literal("v")) for t in terms]
    >>> sorted(turtle_prefixes(labelled + [ox.Triple(terms[0], RDF_TYPE_NODE, owl_class)]))
    ['rdfs', 'relations']
    """
    uses: Counter[str] = Counter()
    subjects: set[object] = set()
    predicates: set[tuple[object, object]] = set()
    for statement in triples:  # as Turtle writes them: a subject once, its predicates once
        s, p, o = statement[0], statement[1], statement[2]  # a parsed quad has a 4th
        if s not in subjects:
            subjects.add(s)
            _count(uses, s)
        in_list = isinstance(s, ox.BlankNode) and p.value in _LIST  # "( ... )": inline_turtle
        if (s, p) not in predicates:
            predicates.add((s, p))
            if p.value != RDF_TYPE and not in_list:
                _count(uses, p)
        if not (in_list and o.value == RDF_NIL):
            _count(uses, o)
    taken = set(WELL_KNOWN_PREFIXES)
    paying = obo_id_spaces(uses, taken)
    for namespace, count in sorted(uses.items()):
        if not namespace or count < 2 or _is_id_space(namespace):
            continue
        name = _KNOWN_NAMES.get(namespace) or _prefix_name(namespace, taken)
        if name is None:
            continue
        saved = estimate_tokens(f"<{namespace}>") - estimate_tokens(f"{name}:")
        if count * saved > prefix_line_tokens(name, namespace):
            taken.add(name)
            paying[name] = namespace
    return paying


_OBO_ID = re.compile(r"([A-Za-z][A-Za-z0-9]*)_[0-9]+")
"""An OBO term's local name: its ID space, an underscore and digits (``GO_0010467``)."""


def obo_id_spaces(uses: Counter[str], taken: set[str]) -> dict[str, str]:
    """The OBO ID spaces among ``uses`` (namespace -> uses, as ``turtle_prefixes`` counts
    them) whose own prefix pays for its line against ``obo:``: ``GO:0010467`` costs two
    estimated tokens fewer than ``obo:GO_0010467`` (cl100k and o200k agree), so 13 uses
    pay for the line's 25 estimated tokens (10 for its 19 to 20 real ones). Their uses
    leave ``uses``' count of ``obo:`` (which then may not pay any more), and their names
    join ``taken``; a name already taken keeps ``obo:``.

    >>> uses = Counter({"http://purl.obolibrary.org/obo/GO_": 13,
    ...                 "http://purl.obolibrary.org/obo/SO_": 3,
    ...                 "http://purl.obolibrary.org/obo/": 16})
    >>> obo_id_spaces(uses, set()), uses["http://purl.obolibrary.org/obo/"]
    ({'GO': 'http://purl.obolibrary.org/obo/GO_'}, 3)
    """
    paying: dict[str, str] = {}
    for namespace, count in sorted(uses.items()):
        if not _is_id_space(namespace):
            continue
        name = namespace[len(OBO):-1]
        if name in taken:
            continue
        saved, line = _id_space_costs(name)
        if count * saved > line:
            taken.add(name)
            paying[name] = namespace
            uses[OBO] -= count
    return paying


@lru_cache(maxsize=1024)
def _id_space_costs(name: str) -> tuple[int, int]:
    """Estimated tokens an ID space's own prefix saves at each use, and its ``@prefix``
    line's: worked out once per name (every fit of a budget writes the Turtle again)."""
    saved = estimate_tokens(f"obo:{name}_0000001") - estimate_tokens(f"{name}:0000001")
    return saved, prefix_line_tokens(name, f"{OBO}{name}_")


def _is_id_space(namespace: str) -> bool:
    return namespace.startswith(OBO) and namespace != OBO


def prefix_line_tokens(name: str, namespace: str) -> int:
    """Estimated tokens of the ``@prefix`` line declaring ``name`` for ``namespace``.

    >>> prefix_line_tokens("obo", "http://purl.obolibrary.org/obo/") > 0
    True
    """
    return estimate_tokens(f"@prefix {name}: <{namespace}> .\n")


def _count(uses: Counter[str], term: object) -> None:
    """One use of the term's namespace (and of its OBO ID space: ``obo_id_spaces``)."""
    if isinstance(term, ox.NamedNode):
        namespace = namespace_of(term.value)
        uses[namespace] += 1
        if namespace == OBO:
            local = _OBO_ID.fullmatch(term.value, len(OBO))
            if local:
                uses[f"{OBO}{local.group(1)}_"] += 1
    elif isinstance(term, ox.Literal) and not _written_bare(term):
        uses[namespace_of(term.datatype.value)] += 1


_UNTYPED = frozenset({XSD + "string", RDF + "langString"})
_BARE = {XSD + "integer": re.compile(r"[+-]?\d+"),
         XSD + "decimal": re.compile(r"[+-]?\d*\.\d+"),
         XSD + "double": re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+)[eE][+-]?\d+"),
         XSD + "boolean": re.compile(r"true|false")}
"""Turtle's bare forms of typed literals (15, 1.5, 1e3, true); "1" as a decimal is not one
and is written with its datatype."""


def _written_bare(literal: ox.Literal) -> bool:
    """Whether Turtle writes the literal without its datatype's IRI ("v", "v"@en, 1.5)."""
    datatype = literal.datatype.value
    if datatype in _UNTYPED:
        return True
    form = _BARE.get(datatype)
    return form is not None and form.fullmatch(literal.value) is not None


_GENERIC_SEGMENTS = frozenset({"relations", "ontology", "ontologies", "ns", "vocab", "vocabulary",
                               "schema", "core", "owl", "rdf", "resource", "resources", "terms",
                               "class", "classes", "property", "properties", "def", "id", "www"})
"""Segments that name no vocabulary in particular: a prefix name only when no telling
segment makes a short one."""

PREFIX_NAME_TOKENS = 3
"""Estimated tokens a made-up prefix name may cost with its colon. It is written at
every use of its namespace, so a long one ("ont_10_comicscharacter:", about 9 tokens)
takes a tenth of a small budget on its own; a shorter segment of the namespace is
chosen instead when one is there ("relations:", 3)."""


def _prefix_name(namespace: str, taken: set[str]) -> str | None:
    """A readable, unused Turtle prefix for ``namespace``: its last telling segment when
    that is short (``PREFIX_NAME_TOKENS``), else the first short one of its segments
    from the last, else the cheapest.

    >>> _prefix_name("http://purl.org/spar/fabio/", set())
    'fabio'
    >>> _prefix_name("https://x.github.io/Text2KGBench/ont_10_comicscharacter/relations#", set())
    'relations'
    >>> _prefix_name("http://x.org/voc/ont_7/relations#", {"relations"})
    'relations2'
    >>> _prefix_name("http://example.org/2024/", set()) is None  # digits name nothing
    True
    """
    name = _preferred_name(namespace)
    if name is None:
        return None
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}{n}", n + 1
    return candidate


@lru_cache(maxsize=4096)
def _preferred_name(namespace: str) -> str | None:
    """``_prefix_name`` before it is made unique: a function of the namespace alone, worked
    out once (the budget asks for a context's prefixes at every fit)."""
    names = _segment_names(namespace)
    if not names:
        return None
    costs = [estimate_tokens(f"{name}:") for name in names]
    short = [name for name, cost in zip(names, costs, strict=True) if cost <= PREFIX_NAME_TOKENS]
    return short[0] if short else names[costs.index(min(costs))]


def _segment_names(namespace: str) -> list[str]:
    """The namespace's path segments usable as prefix names, in order of preference:
    the last telling one, then every one from the last (the host only when there is no
    path)."""
    segments = [s for s in re.split(r"[/#]", namespace.split("://", 1)[-1]) if s]
    names = [re.sub(r"[^A-Za-z0-9_]", "", segment).lower()
             for segment in reversed(segments[1:] or segments)]
    names = [name for name in names if name and name[0].isalpha()]
    telling = [name for name in names if name not in _GENERIC_SEGMENTS]
    return list(dict.fromkeys(telling[:1] + names))


def short_blank_labels(triples: Sequence[ox.Triple]) -> Sequence[ox.Triple]:
    """The triples with their blank nodes labelled b0, b1... in order of first use.

    A store labels a blank node with a 32-digit hash, about 16 prompt tokens each
    time Turtle writes it; a label is local to its document, so a prompt's Turtle
    may say "_:b0" for it (the N-Triples a context keeps and a fan-out merges keep
    the store's labels, which are unique).

    >>> b = ox.BlankNode("f946f9a89d73ea2ab8582c489eb737b0")
    >>> p = ox.NamedNode("http://x/p")
    >>> [str(t) for t in short_blank_labels([ox.Triple(ox.NamedNode("http://x/a"), p, b),
    ...                                      ox.Triple(b, p, ox.Literal("c"))])]
    ['<http://x/a> <http://x/p> _:b0', '_:b0 <http://x/p> "c"']
    """
    if not any(isinstance(t.subject, ox.BlankNode)
               or isinstance(t.object, (ox.BlankNode, ox.Triple)) for t in triples):
        return triples
    labels: dict[ox.BlankNode, ox.BlankNode] = {}

    def blank(node: ox.BlankNode) -> ox.BlankNode:
        found = labels.get(node)
        if found is None:
            found = labels[node] = ox.BlankNode(f"b{len(labels)}")
        return found

    def relabel(t: ox.Triple) -> ox.Triple:
        subject, value = t.subject, t.object
        if isinstance(subject, ox.BlankNode):
            subject = blank(subject)
        elif isinstance(subject, ox.Triple):
            subject = relabel(subject)
        if isinstance(value, ox.BlankNode):
            value = blank(value)
        elif isinstance(value, ox.Triple):
            value = relabel(value)
        return ox.Triple(subject, t.predicate, value)

    return [relabel(t) for t in triples]


def serialize_triples(triples: Sequence[ox.Triple], fmt: OutputFormat) -> str:
    """Turtle, JSON-LD or N-Triples text; Turtle declares the prefixes that pay for their
    line (``turtle_prefixes``), writes a blank node used once where it is used, a list as
    ``( ... )`` (``inline_turtle``), and labels the other blank nodes briefly
    (``short_blank_labels``)."""
    if fmt not in _FORMATS:
        raise ValueError(f"unknown format {fmt!r}: use turtle, jsonld or ntriples")
    if fmt == "turtle":
        return inline_turtle(short_blank_labels(triples), turtle_prefixes(triples))
    try:
        data = ox.serialize(triples, format=_FORMATS[fmt])
    except OSError as exc:  # JSON-LD cannot carry RDF 1.2 triple terms (RDF-star)
        raise OntoRetrieveError(f"the context cannot be written as {fmt}: {exc}; its "
                                "catalog uses RDF 1.2 triple terms (RDF-star): use turtle "
                                "or ntriples") from None
    return data.decode() if data else ""
