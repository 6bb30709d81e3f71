"""Budgeted contexts: a hard limit, languages, repeats, stubs before shells, no undefined names."""

from __future__ import annotations

import pyoxigraph as ox
from hypothesis import given, settings
from hypothesis import strategies as st

from ontoretrieve.context.budget import (
    cut_definition,
    drop_repeats,
    keep_languages,
    pack,
    split_term,
)
from ontoretrieve.context.model import serialize_triples
from ontoretrieve.context.tokens import estimate_tokens
from ontoretrieve.rdf.graph_index import RoleTable, Statement
from ontoretrieve.rdf.vocab import RDFS
from ontoretrieve.settings.groups import ContextSettings
from tests.support import encoder_count

LABEL = ox.NamedNode(RDFS + "label")
COMMENT = ox.NamedNode(RDFS + "comment")
SUB = ox.NamedNode(RDFS + "subClassOf")
TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
CLASS = ox.NamedNode("http://www.w3.org/2002/07/owl#Class")
DEFINITION = ox.NamedNode("http://www.w3.org/2004/02/skos/core#definition")
ROLES = RoleTable.default()
DEFAULTS = ContextSettings()


def term(name: str) -> ox.NamedNode:
    return ox.NamedNode(f"http://x.org/{name}")


def described(name: str, parent: str | None = None, words: int = 30) -> list[Statement]:
    """A class with a label (one its IRI does not spell), an optional parent and a
    definition of ``words`` words."""
    t = term(name)
    found: list[Statement] = [(t, TYPE, CLASS),
                              (t, LABEL, ox.Literal(f"{name} term", language="en")),
                              (t, DEFINITION, ox.Literal(" ".join(["word"] * words) + "."))]
    if parent:
        found.append((t, SUB, term(parent)))
    return found


def subjects(statements: list[Statement]) -> set[str]:
    return {s.value for s, _, _ in statements if isinstance(s, ox.NamedNode)}


def turtle(statements: list[Statement]) -> str:
    return serialize_triples([ox.Triple(*t) for t in statements], "turtle")


# -- the hard limit and the final-pass guarantee (property tests) ---------------------------

words = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
                min_size=0, max_size=30)


@st.composite
def pools(draw: st.DrawFn) -> tuple[list[Statement], list[tuple[str, int]]]:
    n = draw(st.integers(1, 10))
    names = [f"t{i}" for i in range(n)]
    statements: list[Statement] = []
    for i, name in enumerate(names):
        t = term(name)
        statements.append((t, TYPE, CLASS))
        for label in draw(st.lists(words, min_size=1, max_size=3)):
            statements.append((t, LABEL, ox.Literal(label, language=draw(
                st.sampled_from(["en", "en-US", "de"])))))
        if i and draw(st.booleans()):
            statements.append((t, SUB, term(names[draw(st.integers(0, i - 1))])))
        if draw(st.booleans()):
            statements.append((t, DEFINITION, ox.Literal(draw(words))))
        if draw(st.booleans()):  # a restriction: a blank node owned by the subject
            b = ox.BlankNode()
            statements.append((t, SUB, b))
            statements.append((b, LABEL, ox.Literal(draw(words))))
    seeds = [(term(name).value, draw(st.integers(0, 2)))
             for name in draw(st.lists(st.sampled_from(names), max_size=n, unique=True))]
    return statements, seeds


@settings(max_examples=120, deadline=None)
@given(pools(), st.integers(1, 600))
def test_the_budget_is_a_hard_limit_in_the_encoders_tokens(
        pool: tuple[list[Statement], list[tuple[str, int]]], budget: int) -> None:
    statements, seeds = pool
    packed = pack(statements, seeds, budget, encoder_count, DEFAULTS, ROLES)
    text = turtle(packed.statements)
    assert packed.tokens == (encoder_count(text) if text else 0)
    assert packed.tokens <= budget


@settings(max_examples=120, deadline=None)
@given(pools(), st.integers(1, 600))
def test_every_pool_term_a_kept_statement_names_is_defined(
        pool: tuple[list[Statement], list[tuple[str, int]]], budget: int) -> None:
    statements, seeds = pool
    packed = pack(statements, seeds, budget, estimate_tokens, DEFAULTS, ROLES)
    pool_terms = subjects(statements)
    labelled = {s.value for s, p, _ in packed.statements if p == LABEL}
    for _, _, o in packed.statements:
        if isinstance(o, ox.NamedNode) and o.value in pool_terms:
            assert o.value in labelled, f"{o.value} is named but has no label"
    kept_blanks = {s for s, _, _ in packed.statements if isinstance(s, ox.BlankNode)}
    owned = {o for _, _, o in packed.statements if isinstance(o, ox.BlankNode)}
    assert kept_blanks <= owned  # no orphan blank node


# -- languages and repeats -------------------------------------------------------------------


def test_languages_keep_english_variants_and_untagged_and_drop_the_rest() -> None:
    t = term("t")
    statements: list[Statement] = [
        (t, LABEL, ox.Literal("meter", language="en-US")),
        (t, LABEL, ox.Literal("Meter", language="de")),
        (t, LABEL, ox.Literal("metre")),
        (t, COMMENT, ox.Literal("metro", language="es"))]
    kept, dropped = keep_languages(statements, DEFAULTS, ROLES)
    assert [o.value for _, _, o in kept] == ["meter", "metre"]
    assert dropped == 2
    every = ContextSettings(languages=("*",))
    assert keep_languages(statements, every, ROLES) == (statements, 0)
    german = ContextSettings(languages=("de",))
    assert [o.value for _, _, o in keep_languages(statements, german, ROLES)[0]] == ["Meter"]


def test_a_term_named_only_in_other_languages_keeps_its_first_label() -> None:
    t = term("t")
    statements: list[Statement] = [(t, LABEL, ox.Literal("Zähler", language="de")),
                                   (t, LABEL, ox.Literal("compteur", language="fr"))]
    kept, dropped = keep_languages(statements, DEFAULTS, ROLES)
    assert [o.value for _, _, o in kept] == ["Zähler"]
    assert dropped == 1


def test_repeats_go_the_same_text_twice_and_a_comment_equal_to_the_definition() -> None:
    t = term("t")
    statements: list[Statement] = [
        (t, LABEL, ox.Literal("Metre", language="en")),
        (t, LABEL, ox.Literal("metre", language="en-GB")),
        (t, DEFINITION, ox.Literal("The SI unit of length.")),
        (t, COMMENT, ox.Literal("The SI unit of  length.", language="en")),
        (t, COMMENT, ox.Literal("Something else."))]
    kept, repeats = drop_repeats(statements, ROLES)
    assert repeats == 2
    assert [o.value for _, _, o in kept] == ["Metre", "The SI unit of length.",
                                            "Something else."]


# -- spent by confidence ---------------------------------------------------------------------


def test_a_tight_budget_gives_strong_seeds_their_shell_and_weak_ones_a_stub_or_nothing() -> None:
    pool = described("strong", "parent") + described("parent") + described("weak")
    seeds = [("http://x.org/weak", 2), ("http://x.org/strong", 0)]  # rank order != tiers
    roomy = pack(pool, seeds, 10_000, estimate_tokens, DEFAULTS, ROLES)
    assert not roomy.truncated and len(roomy.statements) == len(pool)
    stub_only = estimate_tokens(turtle(described("strong", "parent")[:2])) + 5
    tight = pack(pool, seeds, stub_only, estimate_tokens, DEFAULTS, ROLES)
    assert "http://x.org/strong" in subjects(tight.statements)
    assert "http://x.org/weak" not in subjects(tight.statements)
    assert tight.seeds_left_out == 1 and tight.seeds_stubbed == 1
    shell = estimate_tokens(turtle(pack(pool, seeds[1:], 10_000, estimate_tokens, DEFAULTS,
                                        ROLES).statements[:7])) + 10
    medium = pack(pool, seeds, shell, estimate_tokens, DEFAULTS, ROLES)
    kept = set(medium.statements)
    assert (term("strong"), SUB, term("parent")) in kept  # the strong seed's shell ...
    assert (term("parent"), LABEL, ox.Literal("parent term", language="en")) in kept  # ... named


def test_expansion_linked_to_a_seed_comes_before_expansion_linked_to_none() -> None:
    far = term("far")
    pool = described("seed") + described("linked", "seed") + [
        (far, TYPE, CLASS), (far, LABEL, ox.Literal(" ".join(["far"] * 80)))]
    linked = described("linked", "seed")
    budget = estimate_tokens(turtle(described("seed") + linked[:2] + linked[3:])) + 20
    packed = pack(pool, [("http://x.org/seed", 0)], budget, estimate_tokens, DEFAULTS, ROLES)
    assert {"http://x.org/seed", "http://x.org/linked"} <= subjects(packed.statements)
    assert "http://x.org/far" not in subjects(packed.statements)


def test_reached_terms_the_query_ranked_come_first_in_its_order() -> None:
    # Two terms the expansion reached, one linked to the seed, one the lanes ranked just
    # below the cut: with the query's order the ranked one comes first; by link alone the
    # linked one does. Terms no lane ranked keep the link order behind the ranked ones.
    pool = described("seed") + described("linked", "seed") + described("ranked")
    seeds = [("http://x.org/seed", 0)]
    room = estimate_tokens(turtle(described("seed") + described("ranked")[:2]))

    def kept(settings: ContextSettings, ranked: list[str]) -> set[str]:
        return subjects(pack(pool, seeds, room, estimate_tokens, settings, ROLES,
                             ranked=ranked).statements)

    by_link = ContextSettings(reached_order="link")
    assert "http://x.org/ranked" in kept(DEFAULTS, ["http://x.org/ranked"])
    assert "http://x.org/linked" not in kept(DEFAULTS, ["http://x.org/ranked"])
    assert "http://x.org/linked" in kept(by_link, ["http://x.org/ranked"])
    assert "http://x.org/linked" in kept(DEFAULTS, [])  # nothing ranked: the link decides


OWL = "http://www.w3.org/2002/07/owl#"
RESTRICTION = ox.NamedNode(OWL + "Restriction")
ON_PROPERTY = ox.NamedNode(OWL + "onProperty")
SOME = ox.NamedNode(OWL + "someValuesFrom")
DISJOINT = ox.NamedNode(OWL + "disjointWith")


def restriction(owner: str, prop: str, filler: str) -> list[Statement]:
    """``owner rdfs:subClassOf [ owl:onProperty prop ; owl:someValuesFrom filler ]``."""
    b = ox.BlankNode()
    return [(term(owner), SUB, b), (b, TYPE, RESTRICTION), (b, ON_PROPERTY, term(prop)),
            (b, SOME, term(filler))]


def pizza_pool() -> list[Statement]:
    """A seed defined by a restriction and disjoint with six others, beside a reached term."""
    pool = described("Margherita", "NamedPizza", words=5) + described("NamedPizza", words=5)
    pool += restriction("Margherita", "hasTopping", "Mozzarella")
    pool += [(term("hasTopping"), TYPE, ox.NamedNode(OWL + "ObjectProperty")),
             (term("Mozzarella"), LABEL, ox.Literal("mozzarella"))]
    for other in ("American", "Cajun", "Capricciosa", "Caprina", "Fiorentina", "Giardiniera"):
        pool += [(term("Margherita"), DISJOINT, term(other)),
                 (term(other), LABEL, ox.Literal(other.lower()))]
    return pool + described("reached", "Margherita", words=5)


def test_a_seeds_restriction_comes_before_reached_terms_and_disjointness_last() -> None:
    pool = pizza_pool()
    seeds = [("http://x.org/Margherita", 0)]
    assert not pack(pool, seeds, 10_000, estimate_tokens, DEFAULTS, ROLES).truncated
    # A budget for the seed's name and shell, what it is defined by (hasTopping some
    # Mozzarella, with the names it uses) and its parent's name: the restriction comes
    # before the terms the expansion reached, what the seed is not after every name.
    defined = [t for t in pool if t[0] in {term("Margherita"), term("hasTopping"),
                                           term("Mozzarella")} or isinstance(t[0], ox.BlankNode)
               or (t[1] == LABEL and t[0] == term("NamedPizza"))]
    room = estimate_tokens(turtle([t for t in defined if t[1] != DISJOINT])) + 4
    tight = pack(pool, seeds, room, estimate_tokens, DEFAULTS, ROLES)
    assert any(p == SOME for _, p, _ in tight.statements)
    assert not any(p == DISJOINT for _, p, _ in tight.statements)
    # axioms = 0: the restriction waits in the rest; the room names more reached terms.
    waiting = pack(pool, seeds, room, estimate_tokens, ContextSettings(axioms=0), ROLES)
    assert not any(p == SOME for _, p, _ in waiting.statements)
    assert len(subjects(waiting.statements)) > len(subjects(tight.statements))


def test_a_term_disjoint_with_a_seed_is_not_linked_to_it() -> None:
    # The subgraph reaches the pizzas a seed is disjoint with; a term linked to the seed
    # by what it is (a child) is named first, and a disjoint one's statement stays out.
    cajun = term("Cajun")
    pool = [*described("seed", words=5), (cajun, LABEL, ox.Literal("cajun")),
            (cajun, DISJOINT, term("seed")), *described("child", "seed", words=5)]
    seeds = [("http://x.org/seed", 0)]
    room = estimate_tokens(turtle(described("seed", words=5)
                                  + described("child", "seed", words=5)[1:2]
                                  + described("child", "seed", words=5)[3:])) + 2
    kept = pack(pool, seeds, room, estimate_tokens, DEFAULTS, ROLES)
    assert "http://x.org/child" in subjects(kept.statements)
    assert "http://x.org/Cajun" not in subjects(kept.statements)


def test_a_prompts_turtle_writes_a_restriction_in_place_and_says_the_same_graph() -> None:
    triples = [ox.Triple(*t) for t in restriction("Margherita", "hasTopping", "Mozzarella")]
    text = serialize_triples(triples, "turtle")
    assert "[ a owl:Restriction ; owl:onProperty xorg:hasTopping" in text
    assert "_:" not in text and str(triples[0].object) not in text
    back = list(ox.parse(text.encode(), format=ox.RdfFormat.TURTLE))
    assert len(back) == len(triples)
    assert {(str(t.predicate), str(t.object)) for t in back if not isinstance(
        t.object, ox.BlankNode)} == {(str(t.predicate), str(t.object)) for t in triples
                                     if not isinstance(t.object, ox.BlankNode)}
    # The N-Triples a context keeps holds the store's own labels.
    assert str(triples[0].object) in serialize_triples(triples, "ntriples")


def test_long_definitions_are_cut_at_a_sentence_boundary() -> None:
    text = "First sentence here. " + " ".join(["more"] * 200) + "."
    cut = cut_definition(text, 20)
    assert cut == "First sentence here. …"
    pool = [(term("t"), DEFINITION, ox.Literal(text))]
    packed = pack(pool, [("http://x.org/t", 0)], 1000, estimate_tokens, DEFAULTS, ROLES)
    assert packed.definitions_cut == 1
    assert packed.statements[0][2].value.endswith("…")


def test_one_sentence_too_long_is_cut_at_a_word_boundary() -> None:
    assert cut_definition("one two three four five six", 4,
                          lambda t: len(t.split())) == "one two three …"


def test_a_budget_below_one_is_refused() -> None:
    import pytest

    with pytest.raises(ValueError, match="at least 1"):
        pack([], [], 0, estimate_tokens, DEFAULTS, ROLES)


def test_a_budget_too_small_for_a_stub_still_names_the_best_seed() -> None:
    # The seed's stub pulls in the stub of its type (a pool term with a long label),
    # which the budget cannot afford; its own label and symbol alone fit.
    unit, kind = term("MilliV"), term("Unit")
    symbol = ox.NamedNode("http://qudt.org/schema/qudt/symbol")
    pool: list[Statement] = [
        (unit, TYPE, kind), (unit, LABEL, ox.Literal("millivolt")),
        (unit, symbol, ox.Literal("mV")),
        (kind, TYPE, CLASS), (kind, LABEL, ox.Literal(" ".join(["unit"] * 60)))]
    words = lambda text: len(text.split())  # noqa: E731
    whole = pack(pool, [(unit.value, 0)], 200, words, DEFAULTS, ROLES)
    assert (unit, TYPE, kind) in whole.statements
    tight = pack(pool, [(unit.value, 0)], 20, words, DEFAULTS, ROLES)
    assert tight.statements == [(unit, LABEL, ox.Literal("millivolt")),
                                (unit, symbol, ox.Literal("mV"))]
    assert tight.tokens <= 20 and tight.seeds_left_out == 0
    label_only = pack(pool, [(unit.value, 0)], 6, words, DEFAULTS, ROLES)  # label: 4 words
    assert label_only.statements == [(unit, LABEL, ox.Literal("millivolt"))]
    nothing = pack(pool, [(unit.value, 0)], 3, words, DEFAULTS, ROLES)
    assert nothing.statements == [] and nothing.seeds_left_out == 1


def test_a_stub_names_the_term_and_its_own_kind_generic_types_come_with_the_shell() -> None:
    # At a tight budget a label names a term; "a owl:Class" says little more and costs
    # about a third of the stub, while "a qudt:Unit" tells a unit from a quantity kind.
    metre, unit_class = term("M"), ox.NamedNode("http://qudt.org/schema/qudt/Unit")
    cell, bare = term("cell"), term("bare")
    pool: list[Statement] = [
        (metre, TYPE, unit_class), (metre, LABEL, ox.Literal("metre")),
        (unit_class, LABEL, ox.Literal("unit")),
        (cell, TYPE, CLASS), (cell, LABEL, ox.Literal("cell type")), (bare, TYPE, CLASS)]
    parts = {s: split_term(s, [t for t in pool if t[0] == s], {}, ROLES, DEFAULTS, set())
             for s in (metre, cell, bare)}
    assert (metre, TYPE, unit_class) in parts[metre].stub
    assert parts[cell].stub == [(cell, LABEL, ox.Literal("cell type"))]
    assert parts[cell].shell == [(cell, TYPE, CLASS)]
    assert parts[bare].stub == [(bare, TYPE, CLASS)]  # nothing else names it
    every = ContextSettings(stub_generic_types=True)
    assert (cell, TYPE, CLASS) in split_term(cell, pool[3:5], {}, ROLES, every, set()).stub
    classes = [term(f"C{i}") for i in range(8)]
    many = [t for c in classes
            for t in ((c, TYPE, CLASS), (c, LABEL, ox.Literal(f"class {c.value[-1]}")))]
    seeds = [(c.value, 0) for c in classes]

    def named(settings: ContextSettings) -> int:
        packed = pack(many, seeds, 120, estimate_tokens, settings, ROLES)
        return len({s for s, _, _ in packed.statements})

    assert named(DEFAULTS) > named(every)


def test_a_label_the_iri_spells_leaves_the_stub_when_a_type_or_symbol_names_the_term() -> None:
    # "ont:mainIngredient rdfs:label "mainIngredient"" says the name twice; at a tight
    # budget its type names it, and the label comes once every stub and shell is in.
    prop, food = term("mainIngredient"), term("Food")
    domain = ox.NamedNode(RDFS + "domain")
    prop_type = ox.NamedNode("http://www.w3.org/2002/07/owl#ObjectProperty")
    pool: list[Statement] = [
        (prop, TYPE, prop_type), (prop, LABEL, ox.Literal("main ingredient", language="en")),
        (prop, domain, food), (food, TYPE, CLASS), (food, LABEL, ox.Literal("Food")),
        (term("alone"), LABEL, ox.Literal("alone"))]
    parts = {s: split_term(s, [t for t in pool if t[0] == s], {}, ROLES, DEFAULTS, set())
             for s in (prop, food, term("alone"))}
    assert parts[prop].stub == [(prop, TYPE, prop_type)]
    assert parts[prop].spelled == [(prop, LABEL, ox.Literal("main ingredient", language="en"))]
    assert parts[food].stub == [(food, TYPE, CLASS)]
    assert parts[term("alone")].stub == [(term("alone"), LABEL, ox.Literal("alone"))]
    kept = split_term(prop, pool[:3], {}, ROLES, ContextSettings(stub_iri_labels=True), set())
    assert (prop, LABEL, ox.Literal("main ingredient", language="en")) in kept.stub
    roomy = pack(pool, [(prop.value, 0)], 10_000, estimate_tokens, DEFAULTS, ROLES)
    assert set(roomy.statements) == set(pool)  # nothing is lost when the budget allows
    seeds = [(prop.value, 0), (food.value, 1)]
    named_by_types = estimate_tokens(turtle([pool[0], pool[2], pool[3]]))
    tight = pack(pool, seeds, named_by_types + 2, estimate_tokens, DEFAULTS, ROLES)
    assert {prop.value, food.value} <= subjects(tight.statements)
    assert all(p != LABEL for _, p, _ in tight.statements)
    # A type too long to fit a tiny budget: the least a context says is the label.
    kind = ox.NamedNode("http://example.org/a/rather/long/namespace/for/the/kinds/of/"
                        "relations/in/one/vocabulary#RelationKind")
    named: list[Statement] = [(prop, TYPE, kind), pool[1]]
    label_only = estimate_tokens(turtle([pool[1]]))
    assert estimate_tokens(turtle([named[0]])) > label_only
    least = pack(named, [(prop.value, 0)], label_only, estimate_tokens, DEFAULTS, ROLES)
    assert least.statements == [pool[1]]


def test_a_generic_type_a_parent_implies_goes_to_the_rest() -> None:
    # "a owl:Class" beside "rdfs:subClassOf" says nothing more: only a class has a
    # superclass. Without a parent the type stays in the shell; with nothing else to
    # name the term it is the stub.
    child, root, bare, concept = term("X_1"), term("X_2"), term("X_3"), term("X_4")
    broader = ox.NamedNode("http://www.w3.org/2004/02/skos/core#broader")
    concept_type = ox.NamedNode("http://www.w3.org/2004/02/skos/core#Concept")
    pool: list[Statement] = [
        (child, TYPE, CLASS), (child, LABEL, ox.Literal("child")), (child, SUB, root),
        (root, TYPE, CLASS), (root, LABEL, ox.Literal("root")), (bare, TYPE, CLASS),
        (concept, TYPE, concept_type), (concept, LABEL, ox.Literal("concept")),
        (concept, broader, root)]
    parts = {s: split_term(s, [t for t in pool if t[0] == s], {}, ROLES, DEFAULTS, set())
             for s in (child, root, bare, concept)}
    assert (child, TYPE, CLASS) in parts[child].rest
    assert (child, TYPE, CLASS) not in parts[child].shell + parts[child].stub
    assert parts[root].shell == [(root, TYPE, CLASS)]
    assert parts[bare].stub == [(bare, TYPE, CLASS)]
    assert (concept, TYPE, concept_type) in parts[concept].rest
    kept = ContextSettings(shell_implied_types=True)
    assert (child, TYPE, CLASS) in split_term(child, pool[:3], {}, ROLES, kept, set()).shell
    roomy = pack(pool, [(child.value, 0)], 10_000, estimate_tokens, DEFAULTS, ROLES)
    assert set(roomy.statements) == set(pool)  # nothing is lost when the budget allows


def test_a_shell_names_a_term_by_exact_synonyms_only() -> None:
    # "fel" is a related synonym of bile, "bodily fluid" a broader one: neither names bile,
    # so they wait in the rest; the exact synonym is in the shell.
    oio = "http://www.geneontology.org/formats/oboInOwl#"
    bile = term("UBERON_0001970")
    broad, exact, related = (ox.NamedNode(oio + k) for k in (
        "hasBroadSynonym", "hasExactSynonym", "hasRelatedSynonym"))
    own: list[Statement] = [
        (bile, LABEL, ox.Literal("bile")), (bile, broad, ox.Literal("bodily fluid")),
        (bile, exact, ox.Literal("gall bladder bile")), (bile, related, ox.Literal("fel"))]
    part = split_term(bile, own, {}, ROLES, DEFAULTS, set())
    assert [o.value for _, _, o in part.shell] == ["gall bladder bile"]
    assert {o.value for _, _, o in part.rest} == {"bodily fluid", "fel"}
    loose = split_term(bile, own, {}, ROLES, ContextSettings(shell_inexact_synonyms=True),
                       set())
    assert [o.value for _, _, o in loose.shell] == ["bodily fluid", "gall bladder bile", "fel"]


def test_a_stub_a_statement_implies_is_not_pulled_in_with_it() -> None:
    # "unit:PERCENT a qudt:Unit" names qudt:Unit as a type: "qudt:Unit a owl:Class" says
    # nothing more, so it waits for the term's own turn instead of coming with the
    # seed's stub. A stub that says more (a label) is still pulled in.
    percent, unit_class, labelled = term("PERCENT"), term("Unit"), term("Labelled")
    other = term("other")
    symbol = ox.NamedNode("http://qudt.org/schema/qudt/symbol")
    pool: list[Statement] = [
        (percent, TYPE, unit_class), (percent, symbol, ox.Literal("%")),
        (unit_class, TYPE, CLASS), (other, LABEL, ox.Literal("other")),
        (other, TYPE, labelled), (labelled, TYPE, CLASS), (labelled, LABEL, ox.Literal("L"))]
    seeds = [(percent.value, 0), (other.value, 0)]
    seed_stubs = [pool[0], pool[1], pool[3], pool[4], pool[6]]
    fits_seeds = estimate_tokens(turtle(seed_stubs)) + 4
    tight = pack(pool, seeds, fits_seeds, estimate_tokens, DEFAULTS, ROLES)
    assert (unit_class, TYPE, CLASS) not in tight.statements
    assert {percent.value, other.value, labelled.value} <= subjects(tight.statements)
    pulling = ContextSettings(pull_implied_stubs=True)
    pulled = pack(pool, seeds, fits_seeds + 40, estimate_tokens, pulling, ROLES)
    assert (unit_class, TYPE, CLASS) in pulled.statements
    roomy = pack(pool, seeds, 10_000, estimate_tokens, DEFAULTS, ROLES)
    assert set(roomy.statements) == set(pool)  # nothing is lost when the budget allows


def test_a_symbol_that_repeats_one_in_the_stub_waits_in_the_rest() -> None:
    # QUDT gives most units the same text as symbol and UCUM code: "mV" twice.
    millivolt = term("MilliV")
    symbol = ox.NamedNode("http://qudt.org/schema/qudt/symbol")
    ucum = ox.NamedNode("http://qudt.org/schema/qudt/ucumCode")
    own: list[Statement] = [(millivolt, LABEL, ox.Literal("Millivolt")),
                            (millivolt, symbol, ox.Literal("mV")),
                            (millivolt, ucum, ox.Literal("mV")),
                            (millivolt, ucum, ox.Literal("mV.s"))]
    part = split_term(millivolt, own, {}, ROLES, DEFAULTS, set())
    assert part.stub == [own[0], own[1], own[3]]
    assert own[2] in part.rest
    kept = split_term(millivolt, own, {}, ROLES, ContextSettings(stub_repeated_symbols=True),
                      set())
    assert own[2] in kept.stub


def test_a_score_alone_buys_the_next_candidates_names_before_its_shell() -> None:
    # A seed a score alone chose (tier 2) and a candidate ranked just below the cut:
    # the candidate's name comes before the seed's shell. Tier by tier
    # (seed_names_first off), a seed a mention names (tier 0) keeps its shell before
    # any candidate; names first, the candidate's name comes before it.
    pool = described("weak", "parent") + described("parent") + described("ranked")
    ranked = ["http://x.org/ranked"]
    stubs = [t for t in pool if t[1] != DEFINITION and t[1] != SUB]
    room = estimate_tokens(turtle(stubs)) + 6

    def kept(tier: int, settings: ContextSettings) -> set[Statement]:
        return set(pack(pool, [("http://x.org/weak", tier)], room, estimate_tokens, settings,
                        ROLES, ranked=ranked).statements)

    weak_shell = (term("weak"), DEFINITION, described("weak")[2][2])
    by_score = kept(2, DEFAULTS)
    assert "http://x.org/ranked" in subjects(list(by_score))
    assert weak_shell not in by_score
    after_shells = kept(2, ContextSettings(reserve_names_first=False,
                                           seed_names_first=False))
    assert weak_shell in after_shells
    assert "http://x.org/ranked" not in subjects(list(after_shells))
    tier_by_tier = ContextSettings(seed_names_first=False)
    assert weak_shell in kept(0, tier_by_tier)
    names_first = kept(0, DEFAULTS)
    assert weak_shell not in names_first
    assert "http://x.org/ranked" in subjects(list(names_first))


def test_every_seeds_name_comes_before_a_stronger_seeds_shell() -> None:
    # Two seeds, a strong one (tier 0) and one its score alone chose (tier 2), and room
    # for both names and one definition: the weak seed's name comes first; tier by tier
    # the strong seed's definition did.
    pool = described("strong") + described("weak")
    stubs = [t for t in pool if t[1] != DEFINITION and t[1] != SUB]
    room = estimate_tokens(turtle(stubs)) + 6

    def kept_subjects(settings: ContextSettings) -> list[str]:
        return subjects(pack(pool, [("http://x.org/strong", 0), ("http://x.org/weak", 2)],
                             room, estimate_tokens, settings, ROLES).statements)

    assert "http://x.org/weak" in kept_subjects(DEFAULTS)
    assert "http://x.org/weak" not in kept_subjects(ContextSettings(seed_names_first=False))


def test_two_candidates_named_before_either_is_linked_to_the_seed() -> None:
    # Two candidates ranked below the cut, each with a statement naming the seed (a
    # relation's domain), and room for the seed's and both candidates' names but not
    # their links: both are named. With their links beside their names (the rule before
    # session 25) the first candidate's link takes the second one's room.
    domain = ox.NamedNode(RDFS + "domain")
    seed = term("Food")
    pool = [(seed, LABEL, ox.Literal("food item"))]
    for name in ("ingredient", "course"):
        pool += [(term(name), LABEL, ox.Literal(f"{name} of the dish")),
                 (term(name), domain, seed)]
    ranked = ["http://x.org/ingredient", "http://x.org/course"]
    names = [t for t in pool if t[1] == LABEL]
    room = estimate_tokens(turtle(names)) + 4

    def kept(settings: ContextSettings) -> list[str]:
        return subjects(pack(pool, [("http://x.org/Food", 2)], room, estimate_tokens,
                             settings, ROLES, ranked=ranked).statements)

    assert set(kept(DEFAULTS)) >= {"http://x.org/ingredient", "http://x.org/course"}
    assert "http://x.org/course" not in kept(ContextSettings(reserve_links_with_names=True))


COSTLY = ox.NamedNode("http://elsewhere.org/vocab/costly")
CHEAP = [term("a").value, term("b").value]
LIKELY = {COSTLY.value: 0.5, CHEAP[0]: 0.4, CHEAP[1]: 0.4}


def one_costly_two_cheap(costly_tier: int, cheap_tier: int, settings: ContextSettings,
                         confidences: dict[str, float] | None = LIKELY) -> set[str]:
    """The seeds kept where two seeds fit but not the costly one beside a cheap one: one
    seed of a namespace no other seed uses, with a long label, a little likelier than each
    of two short-named seeds of a shared namespace."""
    pool = [(COSTLY, LABEL, ox.Literal("a long and rather wordy name of a term"))] + [
        (term(n), LABEL, ox.Literal(n)) for n in ("a", "b")]
    seeds = [(COSTLY.value, costly_tier), (CHEAP[0], cheap_tier), (CHEAP[1], cheap_tier)]
    room = estimate_tokens(turtle(pool[1:])) + 2
    assert estimate_tokens(turtle(pool[:2])) > room  # the costly one and a cheap one do not fit
    return subjects(pack(pool, seeds, room, estimate_tokens, settings, ROLES,
                         confidences=confidences).statements)


def test_per_token_a_tight_budget_names_two_cheap_likely_seeds_before_one_costly_one() -> None:
    # By confidence alone the costly one takes the room; by confidence per token the two
    # cheap ones do; without confidences (a scoped query) the rank order stands.
    assert one_costly_two_cheap(0, 0, ContextSettings(seed_order_per_token=False)) == {
        COSTLY.value}
    assert one_costly_two_cheap(0, 0, ContextSettings(seed_order_per_token=True)) == set(CHEAP)
    assert one_costly_two_cheap(0, 0, DEFAULTS, confidences=None) == {COSTLY.value}


def test_across_tiers_two_cheap_weaker_seeds_are_named_before_one_costly_stronger_one() -> None:
    # The costly seed lanes agree on (tier 1); the two cheap ones a score alone chose
    # (tier 2) are worth more per token. Across tiers the budget names those two; tier by
    # tier, or with no confidences (a scoped query), the tier-1 seed takes the room.
    assert one_costly_two_cheap(1, 2, DEFAULTS) == set(CHEAP)
    assert one_costly_two_cheap(1, 2, ContextSettings(seed_stubs_across_tiers=False)) == {
        COSTLY.value}
    assert one_costly_two_cheap(1, 2, ContextSettings(seed_names_first=False)) == {COSTLY.value}
    assert one_costly_two_cheap(1, 2, DEFAULTS, confidences=None) == {COSTLY.value}


def test_a_foreign_label_waits_where_the_iri_reads_as_words() -> None:
    # Pizza names its classes in IRIs and labels them in Portuguese only: with English
    # kept, the stub names MozzarellaTopping by its type, Turtle shows the words, and
    # the label waits with the labels the IRIs spell. A code-like IRI keeps it, and so
    # does a context that keeps Portuguese.
    def split(iri: str, settings: ContextSettings) -> tuple[list[Statement], list[Statement]]:
        t = ox.NamedNode(iri)
        own: list[Statement] = [(t, LABEL, ox.Literal("CoberturaDeMozzarella", language="pt")),
                                (t, TYPE, CLASS)]
        part = split_term(t, own, {}, ROLES, settings, set())
        return part.stub, part.spelled

    words, code = "http://x.org/pizza#MozzarellaTopping", "http://x.org/PIZZA_0001"
    stub, spelled = split(words, DEFAULTS)
    assert [o for _, _, o in stub] == [CLASS] and len(spelled) == 1
    assert split(code, DEFAULTS)[0][0][1] == LABEL
    assert split(words, ContextSettings(languages=["en", "pt"]))[0][0][1] == LABEL
    assert split(words, ContextSettings(stub_foreign_labels=True))[0][0][1] == LABEL


def test_an_annotation_that_only_spells_the_iri_is_a_repeat_unless_it_is_all_there_is() -> None:
    go = ox.NamedNode("http://purl.obolibrary.org/obo/GO_0010467")
    lone = ox.NamedNode("http://purl.obolibrary.org/obo/GO_0000001")
    obo_id = ox.NamedNode("http://www.geneontology.org/formats/oboInOwl#id")
    pool: list[Statement] = [(go, LABEL, ox.Literal("gene expression")),
                             (go, obo_id, ox.Literal("GO:0010467")),
                             (lone, obo_id, ox.Literal("GO:0000001"))]
    kept, repeats = drop_repeats(pool, ROLES)
    assert kept == [pool[0], pool[2]] and repeats == 1
