"""What names a term: its labels in the languages a context keeps, best first.

Pure. Shared by the subgraph stage (a term it reaches comes with one name, the
only label of it the pool then holds) and the budget (which ranks a term's labels
by the same predicate order and keeps the same languages), and by the benchmark's
count of bare IRIs (``spells_iri``).

>>> import pyoxigraph as ox
>>> from ontoretrieve.rdf.graph_index import RoleTable
>>> from ontoretrieve.rdf.vocab import RDFS_LABEL_NODE as L
>>> t = ox.NamedNode("http://x/t")
>>> alt = ox.NamedNode("http://www.w3.org/2004/02/skos/core#altLabel")
>>> out = [(alt, ox.Literal("tee")), (L, ox.Literal("Tau", language="de")),
...        (L, ox.Literal("tau", language="en"))]
>>> best_name(t, out, RoleTable.default(), accepted_languages(("en", "")))[2]
<Literal value=tau language=en>
>>> best_name(t, [*out, (L, ox.Literal("tau"))], RoleTable.default(), EVERY_LANGUAGE)[2]
<Literal value=tau datatype=<NamedNode value=http://www.w3.org/2001/XMLSchema#string>>
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import pyoxigraph as ox

from ontoretrieve.rdf.graph_index import Role, RoleTable, Statement, Term, role_of
from ontoretrieve.rdf.vocab import NAME_PREDICATES, namespace_of

__all__ = ["EVERY_LANGUAGE", "accepted_language", "accepted_languages", "best_name",
           "iri_words_name", "name_rank", "reached_name", "reads_as_words", "spells_iri"]

EVERY_LANGUAGE: frozenset[str] = frozenset({"*"})
"""The accepted languages of a context that keeps every literal."""


def accepted_languages(languages: Sequence[str]) -> frozenset[str]:
    """``context.languages`` folded for comparison ("*" keeps every language).

    >>> sorted(accepted_languages(("EN", "")))
    ['', 'en']
    """
    return frozenset(lang.casefold() for lang in languages)


def accepted_language(term: object, accepted: frozenset[str]) -> bool:
    """Whether a statement's object is in an accepted language: a primary tag accepts its
    variants ("en" accepts "en-US"), "" accepts untagged literals, "*" every literal;
    anything but a literal is in every language.

    >>> en = accepted_languages(("en",))
    >>> [accepted_language(ox.Literal("x", language=tag), en) for tag in ("en-US", "de")]
    [True, False]
    >>> accepted_language(ox.Literal("x"), en), accepted_language(ox.NamedNode("http://x"), en)
    (False, True)
    """
    if "*" in accepted:
        return True
    if not isinstance(term, ox.Literal) or not term.language:
        return not isinstance(term, ox.Literal) or "" in accepted
    tag = term.language.casefold()
    return tag in accepted or tag.split("-")[0] in accepted


def name_rank(predicate: str) -> int:
    """Where a naming predicate ranks (rdfs:label, then skos:prefLabel, ...); others last.

    >>> name_rank("http://www.w3.org/2000/01/rdf-schema#label")
    0
    """
    return NAME_PREDICATES.index(predicate) if predicate in NAME_PREDICATES else len(
        NAME_PREDICATES)


def best_name(subject: ox.NamedNode, out: Iterable[tuple[ox.NamedNode, Term]],
              roles: RoleTable, accepted: frozenset[str]) -> Statement | None:
    """The statement a context names ``subject`` by: among its label statements (``out``:
    its predicate-object pairs, in canonical order), an accepted language first, then the
    best-ranked predicate, then a literal without a language tag ("Week" costs a prompt
    less than "Week"@en, and the budget keeps the first of two that say the same), then
    the first; None when it has no label."""
    best: tuple[int, int, int] | None = None
    chosen: Statement | None = None
    for p, o in out:
        if role_of(p, o, roles) is not Role.LABEL:
            continue
        tagged = isinstance(o, ox.Literal) and bool(o.language)
        key = (0 if accepted_language(o, accepted) else 1, name_rank(p.value), int(tagged))
        if best is None or key < best:
            best, chosen = key, (subject, p, o)
    return chosen


def reached_name(subject: ox.NamedNode, out: Iterable[tuple[ox.NamedNode, Term]],
                 roles: RoleTable, accepted: frozenset[str]) -> Statement | None:
    """The name a term the expansion reaches comes with: its ``best_name``, unless the IRI
    spells it already (``relations#birthPlace`` labelled "birth place" reads as well
    without it, and a label the budget would only hold back; see ``spells_iri``).

    >>> from ontoretrieve.rdf.vocab import RDFS_LABEL_NODE as L
    >>> rel = ox.NamedNode("https://x.org/food/relations#mainIngredient")
    >>> reached_name(rel, [(L, ox.Literal("main ingredient"))], RoleTable.default(),
    ...              EVERY_LANGUAGE) is None
    True
    """
    name = best_name(subject, out, roles, accepted)
    return None if name is None or spells_iri(name[2], subject) else name


def spells_iri(label: object, subject: ox.NamedNode) -> bool:
    """The label only spells the IRI's local name, as Turtle shows it (case, spaces and
    punctuation aside).

    >>> rel = ox.NamedNode("https://x.org/food/relations#mainIngredient")
    >>> [spells_iri(ox.Literal(text, language="en"), rel)
    ...  for text in ("mainIngredient", "main ingredient", "main ingredient of")]
    [True, True, False]
    >>> spells_iri(ox.Literal("gene expression"), ox.NamedNode("http://x/GO_0010467"))
    False
    """
    if not isinstance(label, ox.Literal):
        return False
    local = subject.value[len(namespace_of(subject.value)):]
    return _spelled(label.value) == _spelled(local)


_NOT_ALPHANUMERIC = re.compile(r"[\W_]+")
"""What ``str.isalnum`` rejects (``\\w`` is exactly it plus the underscore)."""


def _spelled(text: str) -> str:
    return _NOT_ALPHANUMERIC.sub("", text.casefold())


_SEPARATOR = re.compile(r"[_-]")


def reads_as_words(subject: ox.NamedNode) -> bool:
    """The IRI's local name is words of letters ("MozzarellaTopping", "hasTopping",
    "spatial_relation"), which Turtle shows as it is: not a code ("GO_0010467", "DAY").
    Words are runs of ASCII letters, one "_" or "-" between two of them.

    >>> pizza = "http://www.co-ode.org/ontologies/pizza/pizza.owl#"
    >>> [reads_as_words(ox.NamedNode(pizza + local)) for local in ("MozzarellaTopping",
    ...  "hasTopping")]
    [True, True]
    >>> [reads_as_words(ox.NamedNode(iri)) for iri in ("http://purl.obolibrary.org/obo/GO_0010467",
    ...  "http://qudt.org/vocab/unit/DAY")]
    [False, False]

    Linear in the name: a name of 40 letters and a digit ("...Specification2") is as
    quick as any (a pattern with a nested optional separator took seconds, then hours).

    >>> reads_as_words(ox.NamedNode("http://x/" + "hasEligibleQuantity" * 3 + "2"))
    False
    """
    local = subject.value[len(namespace_of(subject.value)):]
    return (len(local) >= 3 and any(c.islower() for c in local)
            and all(word.isascii() and word.isalpha() for word in _SEPARATOR.split(local)))


def iri_words_name(subject: ox.NamedNode, labels: Iterable[object],
                   accepted: frozenset[str]) -> bool:
    """The IRI reads as words and none of the term's ``labels`` is in an ``accepted``
    language: Turtle's ``pizza:MozzarellaTopping`` names the term to an English prompt
    better than its only label, "CoberturaDeMozzarella"@pt. Shared by the budget (the
    label then leaves the stub) and the bench's count of unnamed terms.

    >>> topping = ox.NamedNode("http://x.org/pizza#MozzarellaTopping")
    >>> pt = [ox.Literal("CoberturaDeMozzarella", language="pt")]
    >>> en = accepted_languages(("en", ""))
    >>> iri_words_name(topping, pt, en), iri_words_name(topping, pt, EVERY_LANGUAGE)
    (True, False)
    >>> iri_words_name(ox.NamedNode("http://x.org/GO_0001"), pt, en)
    False
    """
    return reads_as_words(subject) and not any(accepted_language(label, accepted)
                                               for label in labels)
