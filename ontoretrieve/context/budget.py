"""Budgeted contexts: the subgraph stage's statements packed into prompt tokens by confidence.

Pure. The subgraph stage (with its final pass) hands over a pool of
statements that defines every catalog term it names; this stage keeps the
part of it a token budget affords, in the order a prompt needs it:

1. literals in other languages than ``context.languages`` go, and statements
   that only repeat (the same text under "en" and "en-US", a comment equal to
   the term's definition, an ``oboInOwl:id`` that spells the IRI);
2. each term splits into a **stub** (one label, symbols, the types its own
   vocabulary gives it), a **shell** (generic types such as ``owl:Class``
   unless a parent implies them, parents, domain and range, its first
   definition cut at a sentence boundary, a few exact synonyms, links to
   seeds), its **axioms** (its first class expressions: restrictions and
   unions that name a class) and the **rest** (other annotations, looser
   synonyms, further restrictions, disjointness, conversion factors...); a
   label that only spells the IRI ("mainIngredient") leaves the stub when a
   type or a symbol can name the term instead;
3. requests are granted in priority order while they fit: the stubs of the
   seeds by confidence per token of their stubs (``per_token_order``), across
   the evidence tiers (``seed_stubs_across_tiers``; off, or with no
   confidences: those the text names strongly, then those lanes agree on,
   then those with a score alone, each tier by that order), then of the
   candidates the query ranked just below the seed cut; then the seeds'
   shells tier by tier (``seed_names_first``; off, each tier's stubs then its
   shells); then the seeds' axioms; then the
   other terms the expansion reached, those ranked candidates first (in the
   query's order), then those linked to a better seed; then the labels the IRIs
   spell; then the reached terms' axioms; then the rests.
   A request that does not fit is skipped, so a smaller later one may still
   fit. Every request brings the stubs of the terms its statements name, so
   the context never names a pool term it does not define (a stub that only
   repeats what the naming statement implies, ``a owl:Class`` of a range,
   waits for its own turn);
4. the Turtle of what was granted is counted with the caller's counter and
   trimmed from the last request until it fits: the budget is a hard limit.
   When not even one stub fits, the best seed's label and symbols alone are
   kept if they fit (``_least``): a tight budget still names the term.

>>> import pyoxigraph as ox
>>> from ontoretrieve.settings.groups import ContextSettings
>>> from ontoretrieve.rdf.graph_index import RoleTable
>>> from ontoretrieve.rdf.vocab import RDFS_LABEL_NODE as L
>>> a, b = ox.NamedNode("http://x/a"), ox.NamedNode("http://x/b")
>>> pool = [(a, L, ox.Literal("alpha", language="en")), (a, L, ox.Literal("Alpha", language="de")),
...         (b, L, ox.Literal("beta"))]
>>> words = lambda text: len(text.split())
>>> out = pack(pool, [("http://x/a", 0)], 100, words, ContextSettings(), RoleTable.default())
>>> [o.value for _, _, o in out.statements]
['alpha', 'beta']
>>> out.tokens <= 100, out.languages_dropped
(True, 1)
"""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import pyoxigraph as ox

from ontoretrieve.context.model import (
    prefix_line_tokens,
    serialize_triples,
    used_prefixes,
)
from ontoretrieve.context.names import (
    accepted_language,
    accepted_languages,
    iri_words_name,
    name_rank,
    spells_iri,
)
from ontoretrieve.context.tokens import TokenCounter, estimate_tokens
from ontoretrieve.rdf.graph_index import (
    Node,
    Role,
    RoleTable,
    Statement,
    blank_tree,
    is_standard,
    role_of,
)
from ontoretrieve.rdf.vocab import (
    OBO_EXACT_SYNONYM,
    OBO_SYNONYMS,
    OWL_CLASS,
    OWL_DISJOINT_WITH_NODE,
    OWL_EQUIVALENT_CLASS,
    OWL_ON_PROPERTY,
    RDF_FIRST_NODE,
    RDF_NIL,
    RDF_REST_NODE,
    RDF_TYPE,
    RDF_TYPE_NODE,
    RDFS_CLASS,
    RDFS_COMMENT,
    RDFS_DOMAIN,
    RDFS_RANGE,
    RDFS_SUBCLASS_OF,
    SKOS_BROADER,
    SKOS_CONCEPT,
    SKOS_NARROWER,
    namespace_of,
)
from ontoretrieve.settings.groups import ContextSettings, ReachedOrder

__all__ = ["Packed", "cut_definition", "keep_languages", "pack", "per_token_order",
           "scope_alone_as_reserve", "split_term"]

NOT_A_SEED = 3
"""The tier of a pool term no seed rule chose (the expansion reached it)."""
WEAKEST_TIER = NOT_A_SEED - 1
"""The tier of a seed chosen by its score alone (no mention, no agreeing lanes)."""

_SYNONYMS = frozenset(OBO_SYNONYMS)
_SHELL_LINKS = 3
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")


@dataclass
class Packed:
    """The statements a budget kept, and what it cost."""

    statements: list[Statement]
    tokens: int
    """Of the kept statements' Turtle, by the caller's counter."""
    budget: int
    truncated: bool
    """Some statements of the pool (after the language filter) were left out."""
    languages_dropped: int = 0
    repeats_dropped: int = 0
    definitions_cut: int = 0
    seeds_stubbed: int = 0
    """Seeds kept with their stub only (no parent, definition or synonym)."""
    seeds_left_out: int = 0


@dataclass
class _Term:
    stub: list[Statement] = field(default_factory=list)
    shell: list[Statement] = field(default_factory=list)
    rest: list[Statement] = field(default_factory=list)
    axioms: list[Statement] = field(default_factory=list)
    """Its first class expressions (``settings.axioms``): what it is defined by."""
    label: Statement | None = None
    """The label a stub names the term by, in the stub or not (``spells_iri``)."""
    spelled: list[Statement] = field(default_factory=list)
    """Its label, when the IRI spells it and something else names the term."""


def scope_alone_as_reserve(seeds: Sequence[tuple[str, int]], scope_only: Collection[str],
                           ranked: Sequence[str]) -> tuple[list[tuple[str, int]], list[str]]:
    """The seeds a budget spends on as seeds, and the candidates it names early and
    describes late: a seed a scoped query kept on its scope's word alone (``scope_only``,
    of the score-alone tier) joins the candidates below the cut, ahead of them, in rank
    order. Its evidence is no surer than theirs, so its description waits for the terms
    the other seeds reach (``seeds.scoped_kept_per_window``).

    >>> scope_alone_as_reserve([("a", 0), ("b", 2), ("c", 2), ("d", 1)], {"c", "d"}, ["e"])
    ([('a', 0), ('b', 2), ('d', 1)], ['c', 'e'])
    """
    late = [iri for iri, tier in seeds if tier == WEAKEST_TIER and iri in scope_only]
    if not late:
        return list(seeds), list(ranked)
    moved = set(late)
    return ([(iri, tier) for iri, tier in seeds if iri not in moved],
            late + [iri for iri in ranked if iri not in moved])


def pack(statements: Sequence[Statement], seeds: Sequence[tuple[str, int]], budget: int,
         count_tokens: TokenCounter, settings: ContextSettings, roles: RoleTable,
         ranked: Sequence[str] = (), confidences: Mapping[str, float] | None = None
         ) -> Packed:
    """The pool's statements that fit ``budget`` tokens, spent by confidence.

    ``seeds`` are (IRI, tier) in rank order: tier 0 named strongly by the text,
    1 lanes agree or an exact rule matched, 2 a score alone. ``ranked`` are candidate
    terms the seed cut left out, best first, led by the seeds a scoped query kept by its
    scope alone (``scope_alone_as_reserve``): with ``settings.reached_order`` "rank" the
    pool's other terms come in that order, those no lane ranked after them.
    """
    if budget < 1:
        raise ValueError(f"a token budget must be at least 1, not {budget}")
    kept_languages, dropped = keep_languages(statements, settings, roles)
    unique, repeats = drop_repeats(kept_languages, roles)
    blanks = _blank_closures(unique)
    subjects = list(dict.fromkeys(s for s, _, _ in unique if isinstance(s, ox.NamedNode)))
    tiers: dict[str, int] = {}
    for iri, tier in seeds:  # rank order; an IRI seeded twice keeps its first (best) rank
        tiers.setdefault(iri, tier)
    seed_set = {ox.NamedNode(iri) for iri in tiers}
    cut = _DefinitionCutter(settings.definition_tokens)
    own: dict[ox.NamedNode, list[Statement]] = {s: [] for s in subjects}
    for t in unique:
        if isinstance(t[0], ox.NamedNode):
            own[t[0]].append(t)
    linkable = seed_set | set(subjects)
    terms = {s: split_term(s, own[s], blanks, roles, settings, linkable, cut)
             for s in subjects}
    costs = _Costs(used_prefixes(unique))  # one estimate per statement, for order and grant
    per_token = settings.seed_order_per_token and bool(confidences)
    # Across tiers only where a confidence weighs each seed's tier (not in a scoped query).
    across = per_token and settings.seed_names_first and settings.seed_stubs_across_tiers
    ordered = (per_token_order(tiers, terms, confidences or {}, costs, across_tiers=across)
               if per_token else tiers)
    requests = _requests(terms, subjects, ordered,
                         ranked if settings.reached_order is ReachedOrder.RANK else (),
                         names_first=settings.reserve_names_first,
                         seed_names_first=settings.seed_names_first,
                         stubs_across_tiers=across,
                         links_with_names=settings.reserve_links_with_names)
    kept, tokens = _grant_and_fit(terms, requests, budget, count_tokens, costs,
                                  pull_implied=settings.pull_implied_stubs)
    seed_nodes = [ox.NamedNode(iri) for iri in tiers]
    if not kept:
        kept, tokens = _least(terms, seed_nodes, budget, count_tokens)
    kept_set = set(kept)
    stubbed = sum(1 for s in seed_nodes if s in terms and any(t in kept_set for t in terms[s].stub)
                  and not any(t in kept_set for t in terms[s].shell))
    left_out = sum(1 for s in seed_nodes if s in terms
                   and not any(t in kept_set for t in terms[s].stub))
    return Packed(kept, tokens, budget, truncated=len(kept) < len(unique),
                  languages_dropped=dropped, repeats_dropped=repeats,
                  definitions_cut=cut.cut, seeds_stubbed=stubbed, seeds_left_out=left_out)


# -- 1. languages and repeats -------------------------------------------------------------


def keep_languages(statements: Sequence[Statement], settings: ContextSettings,
                   roles: RoleTable) -> tuple[list[Statement], int]:
    """Statements whose literal is in an accepted language, and how many were dropped.

    A term whose every label is in another language keeps one, so no term of the
    pool goes unnamed: a label without a language tag when it has one (it is in no
    other language), else its first (statements come in canonical order).
    """
    if settings.every_language:
        return list(statements), 0
    accepted = accepted_languages(settings.languages)
    named: set[object] = set()
    for s, p, o in statements:
        if accepted_language(o, accepted) and role_of(p, o, roles) is Role.LABEL:
            named.add(s)
    fallback: dict[object, Statement] = {}
    for t in statements:
        s, p, o = t
        if s in named or accepted_language(o, accepted) or role_of(p, o, roles) is not Role.LABEL:
            continue
        chosen = fallback.get(s)
        if chosen is None or (_tagged(chosen[2]) and not _tagged(o)):
            fallback[s] = t
    kept = [t for t in statements if accepted_language(t[2], accepted) or fallback.get(t[0]) is t]
    return kept, len(statements) - len(kept)


def _tagged(term: object) -> bool:
    return isinstance(term, ox.Literal) and bool(term.language)


def drop_repeats(statements: Sequence[Statement], roles: RoleTable
                 ) -> tuple[list[Statement], int]:
    """Without statements that only repeat: the same literal text for the same subject
    and predicate (in another language variant or case), a comment whose text is
    another description of the term, or an annotation that only spells the term's IRI
    (OBO's ``oboInOwl:id "GO:0010467"`` of ``obo:GO_0010467``, which Turtle shows as
    ``GO:0010467`` already) where the term has something else to say.

    >>> go = ox.NamedNode("http://purl.obolibrary.org/obo/GO_0010467")
    >>> obo_id = ox.NamedNode("http://www.geneontology.org/formats/oboInOwl#id")
    >>> label = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
    >>> drop_repeats([(go, label, ox.Literal("gene expression")),
    ...               (go, obo_id, ox.Literal("GO:0010467"))], RoleTable.default())[1]
    1
    """
    seen: set[tuple[object, object, str]] = set()
    described: dict[object, set[str]] = {}
    spelling = {t for t in statements if _spells_own_iri(t, roles)}
    said = Counter(t[0] for t in statements if t not in spelling)
    for s, p, o in statements:
        if (isinstance(o, ox.Literal) and p.value != RDFS_COMMENT
                and role_of(p, o, roles) is Role.DESCRIPTION):
            described.setdefault(s, set()).add(_plain(o.value))
    kept, repeats = [], 0
    for t in statements:
        s, p, o = t
        if isinstance(o, ox.Literal):
            key = (s, p, _plain(o.value))
            if (key in seen or (p.value == RDFS_COMMENT and key[2] in described.get(s, ()))
                    or (t in spelling and said[s])):
                repeats += 1
                continue
            seen.add(key)
        kept.append(t)
    return kept, repeats


def _spells_own_iri(statement: Statement, roles: RoleTable) -> bool:
    s, p, o = statement
    return (isinstance(s, ox.NamedNode) and role_of(p, o, roles) is Role.ANNOTATION
            and spells_iri(o, s))


def _plain(text: str) -> str:
    return " ".join(text.casefold().split())


# -- 2. stub, shell and rest of a term ----------------------------------------------------


def split_term(subject: ox.NamedNode, own: Sequence[Statement],
               blanks: Mapping[Node, list[Statement]], roles: RoleTable,
               settings: ContextSettings, linkable: set[ox.NamedNode],
               cut: _DefinitionCutter | None = None) -> _Term:
    """One term's statements as stub, shell and rest (blank-node trees travel whole).

    The shell holds the first ``_SHELL_LINKS`` links to ``linkable`` terms (the
    pool's: a unit's quantity kind, a property's inverse), and the generic types of a
    term its stub names otherwise (``settings.stub_generic_types``).

    >>> from ontoretrieve.settings.groups import ContextSettings
    >>> from ontoretrieve.rdf.vocab import OWL_CLASS, RDF_TYPE_NODE as A, RDFS_LABEL_NODE as L
    >>> t, owl_class = ox.NamedNode("http://x/t"), ox.NamedNode(OWL_CLASS)
    >>> part = split_term(t, [(t, L, ox.Literal("tau")), (t, L, ox.Literal("tee")),
    ...                       (t, A, owl_class)], {}, RoleTable.default(), ContextSettings(),
    ...                   set())
    >>> [o.value for _, _, o in part.stub], [o.value for _, _, o in part.shell]
    (['tau'], ['http://www.w3.org/2002/07/owl#Class', 'tee'])
    """
    term = _Term()
    labels = sorted((t for t in own if role_of(t[1], t[2], roles) is Role.LABEL),
                    key=lambda t: name_rank(t[1].value))
    term.label = labels[0] if labels else None
    synonyms = links = 0
    described = False
    generic: list[Statement] = []
    axioms: list[list[Statement]] = []
    for t in own:
        _, p, o = t
        role = role_of(p, o, roles)
        tree = blanks.get(o, []) if isinstance(o, ox.BlankNode) else []
        if role is Role.LABEL:
            if labels and t == labels[0]:
                term.stub.append(t)
            elif synonyms < settings.synonyms:
                term.shell.append(t)
                synonyms += 1
            else:
                term.rest.append(t)
        elif (role is Role.TYPE and not tree and is_standard(o)
              and not settings.stub_generic_types):
            generic.append(t)
        elif (role is Role.SYMBOL and not settings.stub_repeated_symbols
              and _spells_a_symbol(o, term.stub, roles)):
            term.rest.append(t)  # "mV" as the UCUM code beside "mV" as the symbol
        elif role in (Role.TYPE, Role.SYMBOL) and not tree:
            term.stub.append(t)
        elif p == OWL_DISJOINT_WITH_NODE:
            term.rest.append(t)  # what it is not: after every description
            term.rest.extend(tree)
        elif role in (Role.HIERARCHY, Role.DOMAIN_RANGE) and isinstance(o, ox.NamedNode):
            term.shell.append(t)
        elif (p.value in _DEFINING and tree and len(axioms) < settings.axioms
              and _says_something(tree)):
            axioms.append([t, *tree])
        elif role is Role.DESCRIPTION and not described and isinstance(o, ox.Literal):
            described = True
            term.shell.append(cut(t) if cut else t)
        elif (p.value in _SYNONYMS and synonyms < settings.synonyms
              and (p.value == OBO_EXACT_SYNONYM or settings.shell_inexact_synonyms)):
            term.shell.append(t)
            synonyms += 1
        elif role is Role.LINK and o in linkable and o != subject and links < _SHELL_LINKS:
            term.shell.append(t)
            links += 1
        else:
            term.rest.append(t)
            term.rest.extend(tree)
    term.axioms = [t for tree in axioms for t in tree]
    _place_names(term, generic, subject, settings)
    return term


_DEFINING = frozenset({RDFS_SUBCLASS_OF, OWL_EQUIVALENT_CLASS})
"""What relates a class to the class expressions it is defined by."""


def _says_something(tree: Sequence[Statement]) -> bool:
    """A class expression names a class (a restriction's filler, a union's member): a
    bare cardinality says little for its tokens."""
    return any(isinstance(o, ox.NamedNode) and p.value not in _STRUCTURAL
               and o.value != RDF_NIL for _, p, o in tree)


_STRUCTURAL = frozenset({RDF_TYPE, OWL_ON_PROPERTY})


def _spells_a_symbol(symbol: object, stub: Sequence[Statement], roles: RoleTable) -> bool:
    """Whether a stub holds a symbol with the same text already.

    >>> u, sym = ox.NamedNode("http://x/mV"), ox.NamedNode("http://qudt.org/schema/qudt/symbol")
    >>> stub = [(u, sym, ox.Literal("mV"))]
    >>> _spells_a_symbol(ox.Literal("mV"), stub, RoleTable.default())
    True
    >>> _spells_a_symbol(ox.Literal("MV"), stub, RoleTable.default())
    False
    """
    return isinstance(symbol, ox.Literal) and any(
        isinstance(o, ox.Literal) and o.value == symbol.value
        and role_of(p, o, roles) is Role.SYMBOL for _, p, o in stub)


def _place_names(term: _Term, generic: list[Statement], subject: ox.NamedNode,
                 settings: ContextSettings) -> None:
    """Where the label and the generic types go: the stub names the term by what costs
    least and says most; what the IRI or a parent says already waits."""
    label = term.label
    if (label is not None and label in term.stub and (len(term.stub) > 1 or generic)
            and (_spelled_by_iri(label, subject, settings)
                 or _foreign_beside_words(label, subject, settings))):
        # The IRI says it already ("relations#mainIngredient" labelled "mainIngredient"),
        # or says it in words where the label is in a language the context does not keep
        # (pizza:MozzarellaTopping labelled "CoberturaDeMozzarella"@pt): a type or a
        # symbol names the term for fewer tokens; the label waits until every stub and
        # shell is granted.
        term.stub.remove(label)
        term.spelled.append(label)
    if term.stub:  # a label names the term; "owl:Class" adds little to it at ~8 tokens
        implied = frozenset() if settings.shell_implied_types else implied_types(term.shell)
        term.shell[:0] = [t for t in generic if t[2].value not in implied]
        term.rest[:0] = [t for t in generic if t[2].value in implied]
    else:  # nothing else names the term: its type must
        term.stub = generic


def _spelled_by_iri(label: Statement, subject: ox.NamedNode, settings: ContextSettings
                   ) -> bool:
    return not settings.stub_iri_labels and spells_iri(label[2], subject)


def _foreign_beside_words(label: Statement, subject: ox.NamedNode,
                          settings: ContextSettings) -> bool:
    """A label kept only because the term has none in the context's languages, where the
    IRI reads as words (``names.iri_words_name``)."""
    return not settings.stub_foreign_labels and iri_words_name(
        subject, [label[2]], accepted_languages(settings.languages))


_CLASS_TYPES = frozenset({OWL_CLASS, RDFS_CLASS})
_CONCEPT_TYPES = frozenset({SKOS_CONCEPT})

_IMPLYING: Mapping[str, frozenset[str]] = {
    RDFS_SUBCLASS_OF: _CLASS_TYPES,
    SKOS_BROADER: _CONCEPT_TYPES,
}
"""Predicates whose use says what kind of term the subject is: only a class has a
superclass, only a concept a broader concept."""


def implied_types(statements: Sequence[Statement]) -> frozenset[str]:
    """The generic types the statements' predicates imply of their subject.

    >>> t, parent = ox.NamedNode("http://x/t"), ox.NamedNode("http://x/p")
    >>> sorted(implied_types([(t, ox.NamedNode(RDFS_SUBCLASS_OF), parent)]))
    ['http://www.w3.org/2000/01/rdf-schema#Class', 'http://www.w3.org/2002/07/owl#Class']
    """
    found: frozenset[str] = frozenset()
    for _, p, o in statements:
        if isinstance(o, ox.NamedNode):
            found |= _IMPLYING.get(p.value, frozenset())
    return found


_OBJECT_KINDS: Mapping[str, frozenset[str]] = {
    **{p: _CLASS_TYPES
       for p in (RDF_TYPE, RDFS_DOMAIN, RDFS_RANGE, RDFS_SUBCLASS_OF, OWL_EQUIVALENT_CLASS)},
    SKOS_BROADER: _CONCEPT_TYPES,
    SKOS_NARROWER: _CONCEPT_TYPES,
}
"""Predicates whose use says what kind of term the object is: only a class is a type, a
domain, a range or a superclass (RDFS gives ``rdfs:Class`` as their range), only a
concept is a broader or narrower concept."""


def implied_by(stub: Sequence[Statement], predicate: object) -> bool:
    """Whether a stub only gives its term generic types that naming the term as the object
    of ``predicate`` implies already.

    >>> unit, a = ox.NamedNode("http://qudt.org/schema/qudt/Unit"), RDF_TYPE_NODE
    >>> stub = [(unit, a, ox.NamedNode(OWL_CLASS))]
    >>> implied_by(stub, a), implied_by(stub, ox.NamedNode("http://x/seeAlso"))
    (True, False)
    >>> implied_by([(unit, a, ox.NamedNode(OWL_CLASS)), (unit, a, ox.NamedNode("http://x/K"))],
    ...            a)
    False
    """
    kinds = _OBJECT_KINDS.get(predicate.value, frozenset()) if isinstance(
        predicate, ox.NamedNode) else frozenset()
    return bool(kinds) and bool(stub) and all(
        p == RDF_TYPE_NODE and isinstance(o, ox.NamedNode) and o.value in kinds
        for _, p, o in stub)


def _blank_closures(statements: Sequence[Statement]) -> dict[Node, list[Statement]]:
    """Each blank node's statements with those of the blank nodes under it."""
    by_subject: dict[Node, list[Statement]] = {}
    for t in statements:
        if isinstance(t[0], ox.BlankNode):
            by_subject.setdefault(t[0], []).append(t)
    return {node: blank_tree(node, by_subject) for node in by_subject}


class _DefinitionCutter:
    """Definitions over the share cut at a sentence boundary (a word one when the first
    sentence alone is too long), with an ellipsis saying so."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.cut = 0

    def __call__(self, statement: Statement) -> Statement:
        s, p, o = statement
        assert isinstance(o, ox.Literal)
        text = cut_definition(o.value, self.limit)
        if text == o.value:
            return statement
        self.cut += 1
        if o.language:
            return (s, p, ox.Literal(text, language=o.language))
        return (s, p, ox.Literal(text, datatype=o.datatype))


def cut_definition(text: str, limit: int, count: TokenCounter = estimate_tokens) -> str:
    """``text`` within ``limit`` tokens: whole sentences while they fit, "…" when cut.

    >>> cut_definition("One. Two three four. Five.", 4, lambda t: len(t.split()))
    'One. …'
    >>> cut_definition("Short.", 5, lambda t: len(t.split()))
    'Short.'
    """
    if count(text) <= limit:
        return text
    kept = ""
    for sentence in _SENTENCE_END.split(text):
        candidate = f"{kept} {sentence}".strip()
        if count(candidate + " …") > limit:
            break
        kept = candidate
    if not kept:  # the first sentence alone is too long: whole words while they fit
        for word in text.split():
            candidate = f"{kept} {word}".strip()
            if count(candidate + " …") > limit:
                break
            kept = candidate
    return f"{kept} …"


# -- 3. requests in priority order --------------------------------------------------------


def _requests(terms: Mapping[ox.NamedNode, _Term], subjects: Sequence[ox.NamedNode],
              tiers: Mapping[str, int], ranked: Sequence[str] = (), *,
              names_first: bool = False, seed_names_first: bool = False,
              stubs_across_tiers: bool = False, links_with_names: bool = True
              ) -> list[list[Statement]]:
    """Stubs then shells per seed tier, then the seeds' axioms, then the reached terms
    (those the query ranked first, in its order; then the best-linked), then the labels
    the IRIs spell, then the reached terms' axioms, then every rest. With ``names_first``
    the stubs of the ranked reached terms come before the shells of the seeds a score
    alone chose: evidence that weak buys names (breadth) before descriptions (depth);
    their statements naming a seed come with their names, or, without
    ``links_with_names``, with the seeds' shells. With ``seed_names_first`` the stubs of
    every tier (and those ranked reached terms) come before any seed's shell; with
    ``stubs_across_tiers`` as well, the seeds' stubs come in the order of ``tiers``
    (not grouped by tier), their shells still tier by tier.

    >>> terms = {ox.NamedNode(f"x:{n}"): _Term(stub=[(n, "label", n.upper())],
    ...                                       shell=[(n, "definition", "...")])
    ...          for n in "abc"}
    >>> tiers = {"x:a": 0, "x:b": 1, "x:c": 2}
    >>> [r[0][:2] for r in _requests(terms, list(terms), tiers)]
    [('a', 'label'), ('a', 'definition'), ('b', 'label'), ('b', 'definition'), \
('c', 'label'), ('c', 'definition')]
    >>> [r[0][:2] for r in _requests(terms, list(terms), tiers, seed_names_first=True)]
    [('a', 'label'), ('b', 'label'), ('c', 'label'), ('a', 'definition'), \
('b', 'definition'), ('c', 'definition')]
    >>> cheap_first = {"x:c": 2, "x:a": 0, "x:b": 1}
    >>> [r[0][:2] for r in _requests(terms, list(terms), cheap_first, seed_names_first=True,
    ...                              stubs_across_tiers=True)][:4]
    [('c', 'label'), ('a', 'label'), ('b', 'label'), ('a', 'definition')]
    """
    seeds = [ox.NamedNode(iri) for iri in tiers if ox.NamedNode(iri) in terms]
    others = [s for s in subjects if s.value not in tiers]
    link_tier = _link_tiers(terms, tiers)
    rank = {iri: i for i, iri in enumerate(ranked)}
    unranked = len(rank)
    # Stable: pool order among terms alike.
    others.sort(key=lambda s: (rank.get(s.value, unranked), link_tier.get(s, NOT_A_SEED)))
    early = [s for s in others if s.value in rank] if names_first else []
    requests: list[list[Statement]] = []
    shells: list[list[Statement]] = []
    stubs_first = seed_names_first and stubs_across_tiers
    if stubs_first:
        requests.extend(terms[s].stub for s in seeds)
    for tier in range(NOT_A_SEED):
        of_tier = [s for s in seeds if tiers[s.value] == tier]
        if not stubs_first:
            requests.extend(terms[s].stub for s in of_tier)
        later = shells if seed_names_first else requests
        links = [_links_to_seeds(terms[s], tiers) for s in early] if tier == WEAKEST_TIER else []
        if links:  # a score alone: the names of the next candidates first
            if links_with_names:
                requests.extend(terms[s].stub + ls for s, ls in zip(early, links, strict=True))
            else:  # their links wait with the shells
                requests.extend(terms[s].stub for s in early)
        later.extend(terms[s].shell for s in of_tier)
        if not links_with_names:
            later.extend(links)
    requests.extend(shells)
    requests.extend(terms[s].axioms for s in seeds)
    named_early = set(early)
    for s in others:
        if s not in named_early:
            requests.append(terms[s].stub + _links_to_seeds(terms[s], tiers))
    requests.extend(terms[s].shell for s in others)
    requests.extend(terms[s].spelled for s in seeds + others)
    requests.extend(terms[s].axioms for s in others)
    requests.extend(terms[s].rest for s in seeds + others)
    return [r for r in requests if r]


def per_token_order(tiers: Mapping[str, int], terms: Mapping[ox.NamedNode, _Term],
                    confidences: Mapping[str, float], costs: _Costs, *,
                    across_tiers: bool = False) -> dict[str, int]:
    """The seeds (IRI -> tier, in rank order) with each tier ordered by confidence per
    estimated token of the seed's stub; a seed alone in its namespace also pays the
    namespace's ``@prefix`` line. Seeds without a confidence keep their place after the
    tier's others. ``across_tiers``: one order over every tier, seeds without a
    confidence last.

    >>> a, b = ox.NamedNode("http://x/a"), ox.NamedNode("http://y/b")
    >>> label = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
    >>> terms = {a: _Term(stub=[(a, label, ox.Literal("a very long label " * 4))]),
    ...          b: _Term(stub=[(b, label, ox.Literal("b"))])}
    >>> list(per_token_order({"http://x/a": 0, "http://y/b": 0}, terms,
    ...                      {"http://x/a": 0.3, "http://y/b": 0.25}, _Costs({})))
    ['http://y/b', 'http://x/a']
    >>> tiers = {"http://x/a": 0, "http://y/b": 2}
    >>> list(per_token_order(tiers, terms, {"http://x/a": 0.3, "http://y/b": 0.25}, _Costs({})))
    ['http://x/a', 'http://y/b']
    >>> list(per_token_order(tiers, terms, {"http://x/a": 0.3, "http://y/b": 0.25}, _Costs({}),
    ...                      across_tiers=True))
    ['http://y/b', 'http://x/a']
    """
    shared = Counter(namespace_of(iri) for iri in tiers)

    def value(iri: str) -> float:
        node = ox.NamedNode(iri)
        term = terms.get(node)
        if term is None or iri not in confidences:
            return -1.0
        namespace = namespace_of(iri)
        prefix = costs.by_namespace.get(namespace)
        line = prefix_line_tokens(prefix, namespace) if prefix and shared[namespace] == 1 else 0
        cost = costs.subject(node) + sum(costs.body(t) for t in term.stub) + line
        return confidences[iri] / max(cost, 1)

    items = list(tiers.items())

    def key(i: int) -> tuple[float, ...]:
        iri, tier = items[i]
        return (-value(iri), i) if across_tiers else (tier, -value(iri), i)

    order = sorted(range(len(items)), key=key)
    return dict(items[i] for i in order)


def _link_tiers(terms: Mapping[ox.NamedNode, _Term], tiers: Mapping[str, int]
                ) -> dict[ox.NamedNode, int]:
    """The best tier of a seed each non-seed term shares a statement with (disjointness
    is no link: what a seed is not says little of what the text is about)."""
    best: dict[ox.NamedNode, int] = {}
    for subject, term in terms.items():
        for _, p, o in term.stub + term.shell + term.rest:
            if (not isinstance(o, ox.NamedNode) or o not in terms
                    or p == OWL_DISJOINT_WITH_NODE):
                continue
            if subject.value in tiers and o.value not in tiers:
                best[o] = min(best.get(o, NOT_A_SEED), tiers[subject.value])
            elif o.value in tiers and subject.value not in tiers:
                best[subject] = min(best.get(subject, NOT_A_SEED), tiers[o.value])
    return best


def _links_to_seeds(term: _Term, tiers: Mapping[str, int]) -> list[Statement]:
    """The term's own statements naming a seed (never part of a blank-node tree), but
    its disjointness with one."""
    return [t for t in term.shell + term.rest if isinstance(t[0], ox.NamedNode)
            and isinstance(t[2], ox.NamedNode) and t[2].value in tiers
            and t[1] != OWL_DISJOINT_WITH_NODE]


def _grant_and_fit(terms: Mapping[ox.NamedNode, _Term], requests: Sequence[list[Statement]],
                   budget: int, count_tokens: TokenCounter, costs: _Costs,
                   *, pull_implied: bool = True) -> tuple[list[Statement], int]:
    """Grant by estimated cost, fit by the real count; when the estimate was pessimistic
    (the real count is well under the budget and requests were refused), grant again
    against a budget scaled by how far off it was."""
    internal = budget
    best: tuple[list[Statement], int] = ([], 0)
    for _ in range(_ROUNDS):
        granter = _Granter(terms, internal, costs, pull_implied=pull_implied)
        refused = 0
        in_a_row = 0
        for request in requests:
            if granter.ask(request):
                in_a_row = 0
                continue
            refused += 1
            in_a_row += 1
            if in_a_row >= _GIVE_UP or granter.spent >= internal - _SMALLEST:
                break  # the budget is spent: the rest of the (long) tail would not fit
        kept, tokens = _fit_exactly(granter.grants, budget, count_tokens)
        if len(kept) > len(best[0]):
            best = (kept, tokens)
        if not refused or tokens >= _FULL_ENOUGH * budget or not granter.spent:
            break
        internal = int(internal * budget / max(tokens, 1))
    return best


def _least(terms: Mapping[ox.NamedNode, _Term], seeds: Sequence[ox.NamedNode], budget: int,
           count_tokens: TokenCounter) -> tuple[list[Statement], int]:
    """The least a context can say when no whole stub fits: the best seed's label and
    symbols (literals name no other term), as many as fit; nothing when not even the
    label does. A budget too small for any stub should still name the term the text
    is most about (a type would pull in the type's own stub)."""
    for seed in seeds:
        term = terms.get(seed)
        if term is not None:
            literals = [[t] for t in term.stub if isinstance(t[2], ox.Literal)]
            if not literals and term.label is not None:  # a type-only stub: its label
                literals = [[term.label]]
            return _fit_exactly(literals, budget, count_tokens) if literals else ([], 0)
    return [], 0


_ROUNDS = 3
_GIVE_UP = 48
"""Refusals in a row after which the tail of requests is not asked."""
_SMALLEST = 6
"""About the fewest tokens any statement costs."""
_FULL_ENOUGH = 0.95
"""A context within 5 % of its budget is not granted again."""


class _Granter:
    """Grants requests while their estimated cost fits, with the stubs they need."""

    def __init__(self, terms: Mapping[ox.NamedNode, _Term], budget: int,
                 costs: _Costs, *, pull_implied: bool = True) -> None:
        self.terms = terms
        self.pull_implied = pull_implied
        self.budget = budget
        self.costs = costs
        self.spent = 0
        self.kept: set[Statement] = set()
        self.subjects: set[object] = set()
        self.stubbed: set[object] = set()
        """Terms whose stub is granted: nothing more to pull in for them."""
        self.grants: list[list[Statement]] = []

    def ask(self, request: Sequence[Statement]) -> bool:
        needed, stubs = self._with_stubs(request)
        if not needed:
            return True
        new_subjects = {t[0] for t in needed} - self.subjects
        cost = sum(self.costs.body(t) for t in needed) + sum(
            self.costs.subject(s) for s in new_subjects)
        if self.spent + cost > self.budget:
            return False
        self.spent += cost
        self.kept.update(needed)
        self.subjects |= new_subjects
        self.stubbed |= stubs
        self.grants.append(needed)
        return True

    def _with_stubs(self, request: Sequence[Statement]
                    ) -> tuple[list[Statement], set[object]]:
        """The request's statements not yet granted, with the stubs of the pool terms they
        name (and those the stubs name: a type that is itself a pool term)."""
        needed: dict[Statement, None] = {}
        pulled: set[object] = set()
        frontier = deque(request)  # first in, first out: a term's type before its label
        while frontier:
            t = frontier.popleft()
            if t in self.kept or t in needed:
                continue
            needed[t] = None
            for node, as_object in ((t[0], False), (t[2], True)):
                if node in self.stubbed or node in pulled or not isinstance(node, ox.NamedNode):
                    continue
                term = self.terms.get(node)
                if term is None or is_standard(node):
                    continue
                if as_object and not self.pull_implied and implied_by(term.stub, t[1]):
                    continue  # its stub would only repeat what t says: it waits its turn
                pulled.add(node)
                frontier.extend(term.stub)
        return list(needed), pulled


class _Costs:
    """Estimated Turtle tokens per statement and per subject line, each worked out once."""

    def __init__(self, prefixes: Mapping[str, str]) -> None:
        self.by_namespace = {ns: prefix for prefix, ns in prefixes.items()}
        self._bodies: dict[Statement, int] = {}
        self._subjects: dict[object, int] = {}

    def body(self, statement: Statement) -> int:
        cost = self._bodies.get(statement)
        if cost is None:
            s, p, o = statement
            if isinstance(s, ox.BlankNode) and p == RDF_REST_NODE:
                cost = 1  # a list's ")" at most (inline_turtle)
            elif isinstance(s, ox.BlankNode) and p == RDF_FIRST_NODE:
                cost = estimate_tokens(f" {self._short(o)}")  # an item in "( ... )"
            else:
                cost = estimate_tokens(f"    {self._short(p)} {self._short(o)} ;\n")
            self._bodies[statement] = cost
        return cost

    def subject(self, node: object) -> int:
        cost = self._subjects.get(node)
        if cost is None:
            # A blank node is mostly written in place, "[ ... ]" (inline_turtle).
            cost = 1 if isinstance(node, ox.BlankNode) else estimate_tokens(
                self._short(node) + "\n")
            self._subjects[node] = cost
        return cost

    def _short(self, term: object) -> str:
        if isinstance(term, ox.NamedNode):
            iri = term.value
            namespace = namespace_of(iri)
            prefix = self.by_namespace.get(namespace)
            return f"{prefix}:{iri[len(namespace):]}" if prefix is not None else f"<{iri}>"
        if isinstance(term, ox.Literal):
            tag = f"@{term.language}" if term.language else ""
            return f'"{term.value}"{tag}'
        return "[ ]"  # a blank node's brackets where it is used (inline_turtle)


# -- 4. the exact count -------------------------------------------------------------------


def _fit_exactly(grants: Sequence[Sequence[Statement]], budget: int,
                 count_tokens: TokenCounter) -> tuple[list[Statement], int]:
    """The longest prefix of the grants whose Turtle the caller's counter fits in budget."""

    def measured(n: int) -> tuple[list[Statement], int]:
        statements = _by_subject([t for grant in grants[:n] for t in grant])
        text = serialize_triples([ox.Triple(*t) for t in statements], "turtle")
        return statements, count_tokens(text) if text else 0

    statements, tokens = measured(len(grants))
    if tokens <= budget:
        return statements, tokens
    low, high = 0, len(grants) - 1  # the largest n that fits lies in [low, high]
    while low < high:
        middle = (low + high + 1) // 2
        if measured(middle)[1] <= budget:
            low = middle
        else:
            high = middle - 1
    return measured(low)


def _by_subject(statements: Sequence[Statement]) -> list[Statement]:
    """Statements grouped by subject, subjects in first-granted order: Turtle then writes
    each subject once."""
    groups: dict[object, list[Statement]] = {}
    for t in statements:
        groups.setdefault(t[0], []).append(t)
    return [t for group in groups.values() for t in group]
