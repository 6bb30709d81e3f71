"""The mention lane: normalization, matching rules, offsets, ambiguity, the lane's hits."""

from __future__ import annotations

import re

import pyoxigraph as ox
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ontoretrieve.backends.vector_index import Lane
from ontoretrieve.index.mention_forms import TermForms, term_forms
from ontoretrieve.index.mention_keys import form_keys, keyed_forms, root_key
from ontoretrieve.index.mention_match import (
    Mention,
    MentionDictionary,
    _flag_contained,
    abbreviations,
    document_abbreviations,
)
from ontoretrieve.index.mention_text import (
    exact_key,
    fold_word,
    may_derive,
    root_word,
    token_texts,
    tokenize,
    word_texts,
)
from ontoretrieve.index.pertainyms import pertainym_nouns
from ontoretrieve.index.prefixes import prefix_base
from ontoretrieve.query.fusion import LaneEvidence
from ontoretrieve.query.lanes import without_numbers
from ontoretrieve.query.lexical import unit_signal_tokens
from ontoretrieve.query.mention_lane import evidence_of, pick_senses, usable, window_hits
from ontoretrieve.query.selection import MergedTerm, evidence_cut, supported
from ontoretrieve.query.windows import Window
from ontoretrieve.settings.groups import IndexSettings, SeedSettings

X = "http://x/"


def dictionary(*terms: tuple[str, tuple[tuple[str, str], ...]],
               content_hash: str = "h1") -> MentionDictionary:
    from ontoretrieve.index.mention_forms import TermForms

    return MentionDictionary.build([(content_hash, [TermForms(X + iri, forms)
                                                    for iri, forms in terms])])


def names(found: list[Mention]) -> list[str]:
    return [m.iri.removeprefix(X) for m in found]


# -- normalization ---------------------------------------------------------------------


def test_nfkc_case_folding_and_stemming_agree_between_form_and_text() -> None:
    d = dictionary(("fin", (("fin protein", "label"),)),
                   ("nucleus", (("Cell Nucleus", "label"),)))
    assert names(d.find("ﬁn proteins")) == ["fin"]  # ligature, plural
    assert names(d.find("the CELL NUCLEI")) == []  # an irregular plural is not a stem
    assert names(d.find("cell nucleus")) == ["nucleus"]
    assert fold_word("Signalling") == fold_word("signals") == "signal"


def test_a_word_a_line_break_splits_names_its_term_over_its_whole_span() -> None:
    d = dictionary(("mito", (("mitochondrion", "label"),)),
                   ("hep", (("hepatocyte", "label"),)), ("cell", (("cell", "label"),)),
                   ("chondrus", (("Chondrus", "label"),)))
    text = "the mito-\nchondrion of hepato-\r\n  cytes and cell-\nmediated"
    found = d.find(text)
    assert [(n, m.text) for n, m in zip(names(found), found, strict=True)] == [
        ("mito", "mito-\nchondrion"),  # the span as the text has it
        ("hep", "hepato-\r\n  cytes"),
        ("cell", "cell")]  # a compound's own hyphen stays: "cell" is still a word
    whole = d.find("the mitochondrion of hepatocytes and cell-mediated")
    assert [(m.iri, m.kind, m.exact_case, m.strength) for m in found] == [
        (m.iri, m.kind, m.exact_case, m.strength) for m in whole]
    assert [t.text for t in tokenize("cell-\nmediated")] == ["cell", "-", "mediated"]
    assert [t.text for t in tokenize("anti-\nBrdU")] == ["anti", "-", "BrdU"]


def test_a_soft_hyphen_or_a_zero_width_character_inside_a_word_is_no_boundary() -> None:
    d = dictionary(("mito", (("mitochondrion", "label"),)), ("hep", (("hepatocyte", "label"),)))
    assert names(d.find("a mito\u00ad\nchondrion")) == ["mito"]  # a PDF's line-end soft hyphen
    text = "a mito\u00adchondrion of hepato\u200bcytes"
    found = d.find(text)
    assert [(n, m.text) for n, m in zip(names(found), found, strict=True)] == [
        ("mito", "mito\u00adchondrion"), ("hep", "hepato\u200bcytes")]
    assert [(t.text, t.start, t.end) for t in tokenize(text)][1] == ("mitochondrion", 2, 16)


def test_a_greek_letter_names_what_a_catalog_spells_out() -> None:
    d = dictionary(("fao", (("fatty acid beta-oxidation", "label"),)),
                   ("tgf", (("TGFbeta receptor activity", "related"),)),
                   ("beta", (("beta cell", "exact"),)), ("mu", (("μm", "symbol"),)))
    assert names(d.find("fatty acid β-oxidation in \u0392 cells")) == ["fao", "beta"]
    assert names(d.find("the TGFβ receptor activity")) == ["tgf"]
    assert names(d.find("5 μm and 5 mum")) == ["mu"]  # a symbol keeps its letter


def test_a_british_spelling_names_an_american_name_and_back() -> None:
    d = dictionary(("hemostasis", (("hemostasis", "label"),)),
                   ("isomer", (("isomerisation", "label"),)),
                   ("km", (("Kilometre", "label"),)),
                   ("ortholog", (("orthologous gene", "label"), ("ortholog", "exact"))),
                   ("chimaera", (("Chimaera", "label"),)), ("chimera", (("chimera", "label"),)))
    assert names(d.find("haemostasis and the isomerization")) == ["hemostasis", "isomer"]
    assert names(d.find("two kilometers; the orthologues")) == ["km", "ortholog"]
    # A Latin name keeps its digraph: the fish genus is no chimera.
    assert names(d.find("Chimaera")) == ["chimaera"]
    assert names(d.find("chimeras")) == ["chimera"]


def test_derived_forms_match_by_root_and_weigh_less() -> None:
    d = dictionary(("nucleus", (("nucleus", "label"),)), ("embryo", (("embryo", "label"),)),
                   ("gene", (("gene", "label"),)))
    # Spelling alone: the pertainyms would read "genetic" as gene (tested below).
    found = d.find("nuclear extracts of embryonic genetic origin; the nucleus", pertainyms=False)
    assert [(n, m.text, m.derived) for n, m in zip(names(found), found, strict=True)] == [
        ("nucleus", "nuclear", True), ("embryo", "embryonic", True),
        ("nucleus", "nucleus", False)]
    assert found[0].strength < found[2].strength


def test_an_adjective_in_ic_names_the_greek_noun_in_sis() -> None:
    # Greek -sis nouns make -tic adjectives (mitosis / mitotic, synapse / synaptic) or
    # plain -ic ones after -osis and -esis (endocytosis / endocytic, -genesis / -genic).
    d = dictionary(("mitosis", (("mitosis", "exact"),)), ("synapse", (("synapse", "label"),)),
                   ("endocytosis", (("endocytosis", "label"),)),
                   ("spermatogenesis", (("spermatogenesis", "label"),)),
                   ("gene", (("gene", "label"),)), ("magnesium", (("magnesium", "label"),)))
    found = d.find("mitotic, synaptic and endocytic vesicles of spermatogenic genetic cells"
                   " in a magnetic field", pertainyms=False)
    assert [(n, m.text, m.derived) for n, m in zip(names(found), found, strict=True)] == [
        ("mitosis", "mitotic", True), ("synapse", "synaptic", True),
        ("endocytosis", "endocytic", True), ("spermatogenesis", "spermatogenic", True)]
    # "magnetic" would read as "magnes", the root of magnesium: no Greek noun in -sis.


def test_a_latin_adjective_names_its_noun_when_a_term_has_it_whole() -> None:
    # The noun's stem alternates: cortex / cortical, pancreas / pancreatic, pharynx /
    # pharyngeal, vesicle / vesicular, abdomen / abdominal.
    d = dictionary(("cortex", (("cortex", "label"),)), ("pancreas", (("pancreas", "label"),)),
                   ("pharynx", (("pharynx", "label"),)), ("vesicle", (("vesicle", "exact"),)),
                   ("abdomen", (("abdomen", "label"),)),
                   ("cortex_of_kidney", (("cortex of kidney", "label"),)))
    found = d.find("cortical, pancreatic, pharyngeal, vesicular and abdominal tissue")
    # Whole names only: "cortical" alone is not "cortex of kidney".
    assert [(n, m.text, m.derived) for n, m in zip(names(found), found, strict=True)] == [
        ("cortex", "cortical", True), ("pancreas", "pancreatic", True),
        ("pharynx", "pharyngeal", True), ("vesicle", "vesicular", True),
        ("abdomen", "abdominal", True)]
    assert found[0].strength < d.find("the cortex")[0].strength
    # An ending merely swapped on a short stem reads common words as nouns ("equal" as
    # Equus, "static" as status): no such reading, "rectal" and "thymic" included.
    d = dictionary(("equus", (("Equus", "label"),)), ("status", (("status", "label"),)),
                   ("rectum", (("rectum", "label"),)), ("thymus", (("thymus", "label"),)))
    assert names(d.find("equal, static, rectal and thymic", pertainyms=False)) == []
    # WordNet knows "rectal" is of the rectum, which no spelling rule may guess.
    assert names(d.find("equal, static, rectal and thymic")) == ["rectum"]


def test_a_relational_adjective_names_the_noun_it_pertains_to() -> None:
    # No spelling joins "cardiac" to heart, "dental" to tooth or "genetically" to gene:
    # WordNet's pertainyms do, for names that are the noun whole.
    d = dictionary(("heart", (("heart", "label"),)), ("tooth", (("tooth", "label"),)),
                   ("gene", (("gene", "label"),)), ("liver", (("liver", "exact"),)),
                   ("heart_valve", (("heart valve", "label"),)))
    found = d.find("cardiac and dental defects, genetically distinct, hepatic cells")
    assert [(n, m.text, m.form, m.derived) for n, m in zip(names(found), found,
                                                          strict=True)] == [
        ("heart", "cardiac", "heart", True), ("tooth", "dental", "tooth", True),
        ("gene", "genetically", "gene", True), ("liver", "hepatic", "liver", True)]
    assert found[0].strength < d.find("the heart")[0].strength
    # Off: spelling rules alone; and a word with no pertainym reads as nothing new.
    assert d.find("cardiac and dental defects", pertainyms=False) == []
    assert names(d.find("hearty cardiology")) == []


def test_a_digit_and_a_prime_name_the_end_a_catalog_spells_out() -> None:
    d = dictionary(("utr3", (("three prime untranslated region", "exact"),
                             ("three prime UTR", "exact"))),
                   ("utr5", (("five prime UTR", "exact"),)))
    for text in ("the 3' UTR", "3\u2032 untranslated region", "3\u2019 UTRs", "a 3'-UTR"):
        assert names(d.find(text)) == ["utr3"], text
    assert names(d.find("5\u2032UTR")) == ["utr5"]
    # The digit and the prime must be one mark: not "3 UTR", "35' UTR" nor "3 ' UTR".
    assert [names(d.find(t)) for t in ("3 UTR", "35' UTR", "3 ' UTR")] == [[], [], []]


def test_a_prefixed_word_names_what_its_base_names() -> None:
    # No term is named "overexpression" or "perinuclear": the word each is built on is
    # read (its stem, its root, its Latin or WordNet noun), over the whole prefixed word.
    d = dictionary(("membrane", (("membrane", "label"),)), ("nucleus", (("nucleus", "label"),)),
                   ("eye", (("eye", "label"),)), ("embryo", (("embryo", "label"),)),
                   ("transcription", (("transcription", "label"),)))
    found = d.find("transmembrane and perinuclear parts of intraocular, extraembryonic"
                   " tissue; transcription")
    assert [(n, m.text, m.form, m.derived) for n, m in zip(names(found), found,
                                                          strict=True)] == [
        ("membrane", "transmembrane", "membrane", True),
        ("nucleus", "perinuclear", "nucleus", True),
        ("eye", "intraocular", "eye", True),
        ("embryo", "extraembryonic", "embryo", True),
        ("transcription", "transcription", "transcription", False)]
    assert found[0].strength < d.find("the membrane")[0].strength
    assert d.find("transmembrane and perinuclear", prefixes=False) == []
    # The rest must be a word of its own ("trans" + "cription" is not), long enough
    # ("re" + "port"), and two bases side by side are no two-word name.
    d = dictionary(("port", (("port", "label"),)), ("cription", (("cription", "label"),)),
                   ("nuclear_membrane", (("nuclear membrane", "label"),)))
    assert names(d.find("report transcription perinuclear transmembrane")) == []


def test_a_prefix_comes_off_only_before_a_word_english_uses_alone() -> None:
    assert prefix_base("Overexpression") == "expression"
    assert prefix_base("coexpressed") == "expressed"
    assert [prefix_base(w) for w in ("transcription", "report", "p53", "trans", "")] == [
        None, None, None, None, None]
    # A prefixed word English writes often has a sense its parts no longer give.
    assert [prefix_base(w) for w in ("replaced", "international", "interaction",
                                     "antibodies")] == [None, None, None, None]


def test_the_packaged_pertainym_table_reads_adjectives_and_adverbs() -> None:
    assert pertainym_nouns("Cardiac") == ("heart",)
    assert "gene" in pertainym_nouns("genetically")
    assert pertainym_nouns("heart") == pertainym_nouns("") == ()


def test_the_pertainym_table_takes_synonyms_built_on_the_adjectives_stem() -> None:
    # WordNet's "olfactory" pertains to *smell*, whose synset holds "olfaction": taken;
    # "natal" pertains to *nates*, whose synset holds "seat" and "tail": not taken.
    assert "olfaction" in pertainym_nouns("olfactory")
    assert "smell" in pertainym_nouns("olfactory")
    assert not {"seat", "tail", "bottom"} & set(pertainym_nouns("natal"))


def test_only_adjectives_and_plurals_match_by_root() -> None:
    # "candidate" shares its root with the yeast Candida and "complex" with the muscle
    # complexus; neither derives from the name, while "Candidal" and "nuclei" do.
    d = dictionary(("candida", (("Candida", "label"),)), ("complexus", (("complexus", "label"),)),
                   ("nucleus", (("nucleus", "label"),)))
    assert names(d.find("a candidate complex")) == []
    found = d.find("Candidal nuclei")
    assert [(n, m.derived) for n, m in zip(names(found), found, strict=True)] == [
        ("candida", True), ("nucleus", True)]
    assert all(may_derive(m.text) for m in found)


def test_hyphen_slash_and_space_variants_name_the_same_form() -> None:
    d = dictionary(("tcell", (("T-cell receptor", "label"),)))
    for text in ("T cell receptor", "T-cell receptor", "T/cell receptors", "t_cell receptor"):
        assert names(d.find(text)) == ["tcell"], text


def test_symbols_keep_their_case_and_their_punctuation() -> None:
    d = dictionary(("MilliV", (("millivolt", "label"), ("mV", "symbol"))),
                   ("MegaV", (("megavolt", "label"), ("MV", "symbol"))),
                   ("MPS", (("metre per second", "label"), ("m/s", "symbol"))))
    assert names(d.find("a 5 mV step")) == ["MilliV"]
    assert names(d.find("a 5 MV step")) == ["MegaV"]
    assert names(d.find("at 3 m/s")) == ["MPS"]
    assert names(d.find("at 3 m s")) == []


def test_code_shaped_forms_match_with_case_and_a_plural_s() -> None:
    d = dictionary(("mrna", (("mRNA", "exact"),)), ("brca1", (("BRCA1", "label"),)))
    assert names(d.find("the mRNAs of BRCA1")) == ["mrna", "brca1"]
    assert names(d.find("MRNA and brca1")) == []
    assert exact_key("ESTs") == "EST"


# -- what never matches ------------------------------------------------------------------


def test_numbers_never_name_a_term_and_never_reach_the_bm25_query() -> None:
    assert form_keys("15", "label") is None
    d = dictionary(("cal", (("CAL 15 DEG C", "local_name"),)), ("fifteen", (("15", "label"),)))
    assert d.find("for 4-15 days") == []
    assert without_numbers("for 4-15 days at 3.5 h") == "for days at h"


def test_function_words_never_fire_whatever_their_case() -> None:
    d = dictionary(("is", (("IS", "exact"),)), ("genus", (("This", "label"),)),
                   ("all", (("all", "related"),)), ("inch", (("in", "symbol"),)))
    assert d.find("This is all in the text") == []


def test_one_character_symbols_only_after_a_number() -> None:
    d = dictionary(("M", (("metre", "label"), ("m", "symbol"))),
                   ("PERCENT", (("percent", "label"), ("%", "symbol"))))
    assert names(d.find("a 10 m pole, 31% of them")) == ["M", "PERCENT"]
    assert d.find("m is a letter and % a sign") == []


def test_a_function_word_after_a_number_is_no_plural_of_a_symbol() -> None:
    # A title's "CAF-1 Is Essential": "Is" is a word, not the symbol "I" in the plural.
    d = dictionary(("CURRENT", (("electric current", "label"), ("I", "symbol"))),
                   ("A", (("ampere", "label"), ("A", "symbol"))))
    assert names(d.find("CAF-1 Is Essential, and 2 As Well")) == []
    assert names(d.find("these 3 Is")) == []
    assert names(d.find("a 5 I drop of 3 A")) == ["CURRENT", "A"]


def test_a_capital_glued_to_a_number_is_no_unit() -> None:
    d = dictionary(("A", (("ampere", "label"), ("A", "symbol"))),
                   ("M", (("metre", "label"), ("m", "symbol"))))
    assert names(d.find("Figure 1A, the 3D scan, 13C")) == []  # panels, dimensions, isotopes
    assert names(d.find("a 5 A current over 10m")) == ["A", "M"]  # SI spacing; glued lower case


def test_a_panel_or_a_year_suffix_glued_to_a_number_is_no_unit() -> None:
    d = dictionary(("BARN", (("barn", "label"), ("b", "symbol"))),
                   ("M", (("metre", "label"), ("m", "symbol"))))
    labels = ("(Figure 8a,8b and 9b), as in Fig. S2b, Figs. 3a &3b and Eq. 4b; "
              "Pagani et al., 2006b; Fripiat et al., 2011a, 2011b; Knox 1998b")
    assert names(d.find(labels)) == []
    # The same letters name units where no reference or citation holds them.
    assert names(d.find("a 10 b cross-section, 3.8m long, at 2000m")) == ["BARN", "M", "M"]


def test_unit_signals_skip_panels_and_year_suffixes_like_the_mention_lane() -> None:
    assert unit_signal_tokens("(Figure 8b, 10A) and Knox 1998b") == []
    assert unit_signal_tokens("5 A over 10m and 8 b") == ["A", "m", "b"]


def test_a_span_naming_several_terms_keeps_the_senses_nearest_its_window() -> None:
    import numpy as np

    d = dictionary(("condition", (("state", "label"),)), ("country", (("state", "label"),)),
                   ("nation", (("state", "label"),)), ("ampere", (("A", "symbol"),)),
                   ("area", (("A", "symbol"),)))
    text = "The states of the cell; 5 A"
    windows = [Window(0, text, 0, len(text))]
    vectors = {X + "condition": np.array([1.0, 0.0]), X + "country": np.array([0.0, 1.0]),
               X + "nation": np.array([0.1, 0.9]), X + "ampere": np.array([0.0, 1.0]),
               X + "area": np.array([1.0, 0.0])}
    picked = pick_senses(d.find(text), windows, [np.array([0.9, 0.1])], vectors, keep=2)
    outranked = {m.iri.removeprefix(X) for m in picked if m.outranked}
    assert outranked == {"country"}  # the third-nearest of three; "5 A" is left alone
    weak = next(m for m in picked if m.outranked)
    assert weak.strength < SeedSettings().mention_min_strength  # fused, but cut on its own
    both = pick_senses(d.find(text), windows, [np.array([0.9, 0.1])], vectors, keep=1,
                       after_numbers=True)
    assert {m.iri.removeprefix(X) for m in both if m.outranked} == {"country", "nation",
                                                                     "ampere"}
    no_vectors = pick_senses(d.find(text), windows, [np.array([0.9, 0.1])], {}, keep=1)
    assert not any(m.outranked for m in no_vectors)


def test_worded_local_names_are_forms() -> None:
    triples = [q.triple for q in ox.parse(
        b"<http://x/birthPlace> a <http://www.w3.org/2002/07/owl#ObjectProperty> .\n"
        b"<http://x/has_part> <http://www.w3.org/2000/01/rdf-schema#comment> 'c' .",
        format=ox.RdfFormat.TURTLE)]
    forms = {t.iri: t.forms for t in term_forms(triples, IndexSettings())}
    assert forms["http://x/birthPlace"] == (("birth Place", "local_name"),)
    assert forms["http://x/has_part"] == (("has part", "local_name"),)
    d = dictionary(("birthPlace", forms["http://x/birthPlace"]))
    assert names(d.find("his birth place was Rome")) == ["birthPlace"]


def test_obo_synonyms_keep_their_kind() -> None:
    data = b"""@prefix oio: <http://www.geneontology.org/formats/oboInOwl#> .
    @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
    <http://x/GO_0005634> rdfs:label "nucleus" ; oio:hasExactSynonym "cell nucleus" ;
        oio:hasRelatedSynonym "karyon" ; oio:hasBroadSynonym "organelle core" ."""
    triples = [q.triple for q in ox.parse(data, format=ox.RdfFormat.TURTLE)]
    (term,) = term_forms(triples, IndexSettings())
    assert term.forms == (("nucleus", "label"), ("cell nucleus", "exact"),
                          ("karyon", "related"), ("organelle core", "broad"))


UNITS_TTL = b"""@prefix qudt: <http://qudt.org/schema/qudt/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<http://x/M> a qudt:Unit ; rdfs:label "metre" ; qudt:symbol "m" .
<http://x/Mass> a qudt:QuantityKind ; rdfs:label "mass" ; qudt:symbol "m" .
<http://x/Milli> a qudt:DecimalPrefix, qudt:Prefix ; rdfs:label "milli" ; qudt:symbol "m" .
<http://x/UO_1> rdfs:label "time unit" .
<http://x/UO_10> rdfs:subClassOf <http://x/UO_1> ; rdfs:label "day" .
<http://x/Day> a <http://x/CalendarDay> ; rdfs:label "day" .
<http://x/Mouse> rdfs:label "mice" ."""


def test_units_are_read_from_how_unit_vocabularies_type_them() -> None:
    triples = [q.triple for q in ox.parse(UNITS_TTL, format=ox.RdfFormat.TURTLE)]
    units = {t.iri.removeprefix(X) for t in term_forms(triples, IndexSettings()) if t.unit}
    assert units == {"M", "UO_10"}  # a qudt:Unit; a subclass of a class labelled "... unit"


def test_a_span_after_a_number_names_only_its_units(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from ontoretrieve.index.mention_store import MentionStore
    from ontoretrieve.query.mention_lane import units_after_numbers

    triples = [q.triple for q in ox.parse(UNITS_TTL, format=ox.RdfFormat.TURTLE)]
    store = MentionStore(tmp_path, "k1")
    store.write("h1", term_forms(triples, IndexSettings()))
    assert {t.iri for t in store.read("h1") if t.unit} == {X + "M", X + "UO_10"}  # kept
    d = store.dictionary(["h1"])
    text = "the top 100 m, 4 day and 3 mice; then a day"
    assert sorted(names(d.find(text))) == ["Day", "Day", "M", "Mass", "Milli", "Mouse",
                                           "UO_10", "UO_10"]
    # After a number, the units only; "3 mice" names no unit and keeps its term;
    # "a day" (no number) names both days.
    found = units_after_numbers(d.find(text), d.units)
    assert sorted(names(found)) == ["Day", "M", "Mouse", "UO_10", "UO_10"]


def test_a_unit_names_the_term_named_like_it_by_two_words_or_more() -> None:
    from ontoretrieve.query.mention_lane import units_after_numbers

    unit = TermForms(X + "BasePair", (("Base Pair", "label"), ("bp", "symbol")), unit=True)
    foot = TermForms(X + "FT", (("Foot", "label"), ("ft", "symbol")), unit=True)
    d = MentionDictionary.build([("q", [unit, foot]), ("s", [
        TermForms(X + "base_pair", (("base_pair", "label"), ("base pair", "exact"))),
        TermForms(X + "foot", (("foot", "label"),))])])
    text = "a 500 bp fragment, 4 base pairs and a 3 ft pole; bp"
    found = units_after_numbers(d.find(text), d.units)
    # "bp" and "base pairs" name the unit and SO's base pair, after a number or not; the
    # namesake survives the rule for spans after numbers. "Foot" is one word: no namesake.
    assert sorted((m.start, m.iri.removeprefix(X), m.namesake_of) for m in found) == [
        (6, "BasePair", None), (6, "base_pair", X + "BasePair"),
        (21, "BasePair", None), (21, "base_pair", X + "BasePair"),
        (40, "FT", None), (49, "BasePair", None), (49, "base_pair", X + "BasePair")]
    off = units_after_numbers(d.find(text, namesakes=False), d.units)
    assert {m.iri for m in off if m.text in ("bp", "base pairs")} == {X + "BasePair"}
    assert all(m.namesake_of is None for m in off)


def test_the_digits_of_a_name_are_no_quantity() -> None:
    # "Stat5a", "IgG2a" and "Aqp2 a candidate" are genes, not a number of ares or years: a
    # one-letter symbol names a unit only after a number that stands on its own.
    d = dictionary(("ARE", (("a", "symbol"),)), ("M", (("m", "symbol"),)))
    found = d.find("Stat5a and IgG2a, Aqp2 a candidate; 4 a of land and 10 m")
    assert sorted(names(found)) == ["ARE", "M"]
    assert all(m.after_number for m in found)


# -- matching rules ----------------------------------------------------------------------


def test_every_overlapping_match_with_offsets_longest_first() -> None:
    d = dictionary(("esc", (("embryonic stem cell", "label"),)),
                   ("stem", (("stem cell", "label"),)), ("cell", (("cell", "label"),)))
    text = "Mouse embryonic stem cells."
    found = d.find(text)
    assert [(n, text[m.start:m.end]) for n, m in zip(names(found), found, strict=True)] == [
        ("esc", "embryonic stem cells"), ("stem", "stem cells"), ("cell", "cells")]
    assert [m.contained for m in found] == [False, True, True]
    assert found[0].strength > found[1].strength


def test_a_form_shared_by_many_terms_is_weak_evidence_for_each() -> None:
    shared = [(f"c{i}", (("country", "label"),)) for i in range(8)]
    d = dictionary(*shared, ("uniq", (("country code", "label"),)))
    found = d.find("the country code")
    by_name = {m.iri.removeprefix(X): m for m in found}
    assert by_name["c0"].shared_by == 8 and by_name["uniq"].shared_by == 1
    assert by_name["c0"].strength < by_name["uniq"].strength / 3
    assert {m.iri for m in usable(found, max_shared=4)} == {X + "uniq"}


def test_exact_case_is_reported() -> None:
    d = dictionary(("nucleus", (("Nucleus", "label"),)))
    assert [m.exact_case for m in d.find("Nucleus and nucleus")] == [True, False]


def test_abbreviations_defined_in_the_text_resolve_later_uses() -> None:
    assert abbreviations(tokenize("open reading frames (ORFs) and (n = 3)")) == {
        "ORF": ["open", "read", "frame"]}
    assert abbreviations(tokenize("a value (N) and (p < 0.05)")) == {}
    d = dictionary(("esc", (("embryonic stem cell", "label"),)))
    text = "embryonic stem (ES) cells were grown; ES cells divide"
    found = d.find(text)
    assert [text[m.start:m.end] for m in found] == ["embryonic stem (ES) cells", "ES cells"]
    assert d.find("ES cells divide") == []  # undefined here, so not resolved


def test_abbreviations_defined_elsewhere_in_the_document_resolve_whole() -> None:
    d = dictionary(("bat", (("brown adipose tissue", "label"),)),
                   ("at", (("adipose tissue", "label"),)),
                   ("wt", (("wild type", "label"),)), ("type", (("type", "label"),)),
                   ("bat_animal", (("bat", "label"),)))
    defined = document_abbreviations(["Brown adipose tissue (BAT) and wild-type (WT) mice.",
                                      "Bats (BAT) fly."])
    assert defined["BAT"] == ["brown", "adipos", "tissu"]  # the first definition holds
    # Undefined in this text alone: "BAT" is the folded word "bat".
    assert [m.text for m in d.find("BAT grew in WT mice")] == ["BAT"]
    assert names(d.find("BAT grew in WT mice")) == ["bat_animal"]
    found = d.find("BAT grew in WT mice", defined=defined)
    # The whole long form only: no "adipose tissue", no "type" of "wild type"; the
    # word's own reading stays.
    assert [(m.text, names([m])) for m in found] == [
        ("BAT", ["bat"]), ("BAT", ["bat_animal"]), ("WT", ["wt"])]
    # A short form keeps what its own word names with the words around it.
    bmp = dictionary(("pathway", (("BMP signaling", "label"),)),
                     ("protein", (("bone morphogenetic protein", "label"),)))
    paper = document_abbreviations(["Bone morphogenetic protein (BMP) binds."])
    assert names(bmp.find("BMP signaling", defined=paper)) == ["pathway", "protein"]
    # The text's own definition wins over the document's.
    own = d.find("a bat (BAT); BAT", defined=defined)
    assert [(m.text, names([m])) for m in own] == [("bat", ["bat_animal"]),
                                                    ("BAT", ["bat_animal"])]


def test_an_acronym_with_its_head_written_out_names_the_term() -> None:
    d = dictionary(("esc", (("embryonic stem cell", "label"), ("ESC", "exact"))),
                   ("nk", (("natural killer", "label"), ("NK", "exact"))))
    found = d.find("ES cells and ESCs; es cells; ES-cell")
    assert [(m.text, m.form, m.kind, m.exact_case) for m in found] == [
        ("ES cells", "ES cell", "exact", True), ("ESCs", "ESC", "exact", True)]
    assert names(d.find("N killer")) == []  # acronyms of three letters or more


def test_a_binomial_with_its_genus_cut_to_the_initial_names_the_species() -> None:
    d = dictionary(("ce", (("Caenorhabditis elegans", "label"),)),
                   ("dm", (("fruit fly", "label"), ("Drosophila melanogaster", "exact"))))
    text = "In C. elegans and D.melanogaster; c. elegans; C elegans; elegans"
    assert [(text[m.start:m.end], m.iri, m.kind) for m in d.find(text)] == [
        ("C. elegans", "http://x/ce", "label"), ("D.melanogaster", "http://x/dm", "exact")]


def test_a_relation_named_by_an_agent_noun_is_named_by_its_verb() -> None:
    d = dictionary(("leader", (("leader", "label"),)), ("writer", (("writer", "label"),)),
                   ("Leader", (("leader", "label"),)),  # a class: no verb
                   ("SO_0000001", (("builder", "label"),)))  # an opaque id: no verb
    text = "Led by Ann, it leads; written, wrote; a lead writer; built"
    found = [(text[m.start:m.end], m.iri.rsplit("/", 1)[1], m.derived) for m in d.find(text)]
    assert found == [("Led", "leader", True), ("leads", "leader", True),
                     ("written", "writer", True), ("wrote", "writer", True),
                     ("writer", "writer", False)]


def test_a_relation_named_by_a_noun_made_from_a_verb_is_named_by_the_verb_where_asked() -> None:
    d = dictionary(("deathPlace", (("deathPlace", "label"),)),
                   ("successor", (("successor", "label"),)),
                   ("leaderTitle", (("leaderTitle", "label"),)),
                   ("operatingOrganisation", (("operatingOrganisation", "label"),)),
                   ("description", (("description", "label"),)),
                   ("Death", (("death", "label"),)))  # a class: no verb
    text = "He died in Rome, was succeeded by Tim, led by Ann, operated by Bo; described."
    read = [(text[m.start:m.end], m.iri.rsplit("/", 1)[1], m.derived)
            for m in d.find(text, noun_verbs=True)]
    assert read == [("died", "deathPlace", True), ("succeeded", "successor", True),
                    ("led", "leaderTitle", True), ("operated", "operatingOrganisation", True),
                    ("described", "description", True)]
    # Everyday verbs name metadata properties too: the table is read only where asked.
    assert d.find(text) == []


GENE_NAMES = (("expr", (("gene expression", "label"),)),
              ("reg", (("regulation of gene expression", "label"),)),
              ("pos", (("positive regulation of gene expression", "label"),)),
              ("gene", (("gene", "label"),)),
              ("amino", (("amino acid", "label"),)), ("fatty", (("fatty acid", "label"),)),
              ("nucleic", (("nucleic acid", "label"),)))


def test_a_word_a_two_word_name_owns_stands_for_it() -> None:
    keyed = keyed_forms([TermForms(X + iri, forms) for iri, forms in GENE_NAMES])
    elliptic = [(k[1], k[2].removeprefix(X), k[3]) for k in keyed if k[4] == "elliptic"]
    # "expression" appears only within "gene expression"; "gene" is a name on its own;
    # "acid" belongs to three compounds, so to none of them.
    assert elliptic == [(" express ", "expr", "gene expression")]


def test_an_elliptic_word_is_cohesive_only_where_the_text_supports_it() -> None:
    d = dictionary(*GENE_NAMES)
    text = "Pax6 expression rose; the gene was expressed"
    found = [m for m in d.find(text) if m.iri == X + "expr"]
    assert [(m.text, m.kind, m.cohesive) for m in found] == [
        ("expression", "elliptic", True), ("expressed", "elliptic", True)]
    assert found[0].strength < Mention("i", "h", 0, 4, "x", "x", "x", "label", True,
                                       1).strength
    alone = [m for m in d.find("a facial expression of joy") if m.iri == X + "expr"]
    assert [(m.text, m.cohesive) for m in alone] == [("expression", False)]
    assert names(d.find("an acid bath")) == []


def test_an_elliptic_reading_never_weakens_a_name() -> None:
    d = MentionDictionary.build([
        ("h1", [TermForms(X + "record", (("record", "label"),))]),
        ("h2", [TermForms(X + "medical", (("medical record", "label"),)),
                TermForms(X + "keeping", (("medical record keeping", "label"),)),
                TermForms(X + "patient", (("patient medical record", "label"),))])])
    found = {m.iri.removeprefix(X): m for m in d.find("the record of medical data")
             if m.text == "record"}
    assert (found["record"].kind, found["record"].shared_by) == ("label", 1)
    assert (found["medical"].kind, found["medical"].shared_by) == ("elliptic", 2)


def test_a_whole_name_a_later_rule_reads_outweighs_a_shortened_one() -> None:
    # "epithelial" shortens *epithelial tissue*, a synonym of the epithelium (every name
    # with the word holds the pair), and reads the same term by its root as *epithelium*
    # whole: the whole reading is the one kept, on the same span.
    d = dictionary(("epithelium", (("epithelium", "label"), ("epithelial tissue", "exact"))),
                   ("strat", (("stratified epithelial tissue", "label"),)),
                   ("gland", (("glandular epithelial tissue", "label"),)))
    found = [(m.iri.removeprefix(X), m.kind, m.derived) for m in d.find("the epithelial lining")]
    assert found == [("epithelium", "label", True)]
    # Where no rule reads the word whole, the shortened reading stands.
    d = dictionary(("tissue", (("epithelial tissue", "label"),)),
                   ("strat", (("stratified epithelial tissue", "label"),)),
                   ("gland", (("glandular epithelial tissue", "label"),)))
    found = [(m.iri.removeprefix(X), m.kind, m.derived) for m in d.find("the epithelial lining")]
    assert found == [("tissue", "elliptic", False)]


def test_an_update_derives_the_elliptic_keys_again() -> None:
    from ontoretrieve.index.replace import _merged_keys

    before = [TermForms(X + iri, forms) for iri, forms in GENE_NAMES]
    # The edit renames "gene" (no name of its own any more): "gene" is then owned by
    # "gene expression" too, though only the edited term was normalized again.
    after = [TermForms(X + "gene", (("genomic locus", "label"),)) if t.iri == X + "gene"
             else t for t in before]
    merged = _merged_keys(keyed_forms(before), after, {X + "gene"})
    assert sorted(merged) == sorted(keyed_forms(after))
    assert (" gene ", X + "expr") in {(k[1], k[2]) for k in merged if k[4] == "elliptic"}


SPECIES = ["Notch", "Hedgehog", "insulin receptor", "ERBB", "TOR", "JAK-STAT", "Ras protein",
           "integrin-mediated", "BMP", "canonical Wnt"]
PATHWAYS = (
    *((f"p{i}", ((f"{name} signaling pathway", "label"),)) for i, name in enumerate(SPECIES)),
    ("wnt", (("Wnt signaling pathway", "label"),)),
    ("tor", (("TOR signaling", "exact"),)),  # a name of its own: keeps its own term
    ("gp", (("glycolytic process", "label"),)), ("lmp", (("lipid metabolic process", "label"),)))


def genus_dropped(keyed: tuple[str, str, str, str, str]) -> bool:
    """An elliptic key that is its name without the last word (not without a modifier)."""
    name = form_keys(keyed[3], "label")
    return keyed[4] == "elliptic" and name is not None and (
        len(keyed[1].split()) == 1 or keyed[1].split() == name[1].split()[:-1])


def test_a_name_is_said_without_the_genus_its_ontology_ends_many_names_with() -> None:
    d = dictionary(*PATHWAYS)
    text = "BMP signaling and canonical Wnt signaling; TOR signaling; glycolytic flux"
    found = [(m.text, m.iri.removeprefix(X), m.kind, m.cohesive) for m in d.find(text)
             if not m.contained]
    # "pathway" ends eleven names, so each says its species without it, though the text
    # never says "pathway"; "TOR signaling" names its own term; "process" ends two names.
    assert found == [("BMP signaling", "p8", "elliptic", True),
                     ("canonical Wnt signaling", "p9", "elliptic", True),
                     ("TOR signaling", "tor", "exact", True)]


def test_a_units_name_has_no_genus_and_a_function_word_ends_no_species() -> None:
    units = [TermForms(X + f"u{i}", ((f"{n} per kilogram", "label"),), True) for i, n in
             enumerate(["joule", "watt", "mole", "ampere hour", "coulomb", "gray hour",
                        "litre", "metre", "newton metre", "becquerel"])]
    # Ten unit names end with "kilogram": quotients of units, none a kind of kilogram.
    assert [k for k in keyed_forms(units) if k[4] == "elliptic"] == []
    classes = [TermForms(X + t.iri.removeprefix(X), t.forms) for t in units]
    # As class names they would have a genus; but "per" is no noun ending a species.
    assert [k for k in keyed_forms(classes) if k[4] == "elliptic"] == []
    assert [k[1] for k in keyed_forms([*classes, TermForms(X + "w", (
        ("water molecule kilogram", "label"),))]) if genus_dropped(k)] == [" water molecul "]


def test_a_span_another_ontology_names_is_not_read_without_a_genus() -> None:
    cells = [TermForms(X + f"c{i}", ((f"{n} interneuron", "label"),)) for i, n in enumerate(
        ["spinal cord", "retinal amacrine", "cortical basket", "hippocampal chandelier",
         "cerebellar Golgi", "olfactory bulb", "striatal cholinergic", "thalamic relay",
         "dorsal horn", "brainstem reticular"])]
    d = MentionDictionary.build([("anatomy", [TermForms(X + "cord", (("spinal cord", "label"),))]),
                                 ("cells", cells)])
    text = "the spinal cord and retinal amacrine cells"
    # "spinal cord" is the anatomy's name: no interneuron; "retinal amacrine" names
    # nothing of its own: the interneuron, its genus dropped.
    assert [(m.text, m.iri.removeprefix(X), m.kind) for m in d.find(text)] == [
        ("spinal cord", "cord", "label"), ("retinal amacrine", "c1", "elliptic")]


CELLS = (("rgc", (("retinal ganglion cell", "label"),)), ("ganglion", (("ganglion", "label"),)),
         ("erythroid", (("erythroid lineage cell", "label"),)),
         ("stem", (("stem cell", "label"),)), ("es", (("embryonic stem cell", "label"),)),
         ("rod", (("rod photoreceptor cell", "label"),)),
         ("cone", (("cone photoreceptor cell", "label"),)),
         ("lens", (("lens photoreceptor cell", "label"),)))


def test_a_name_is_said_without_a_modifier_the_text_says_elsewhere() -> None:
    d = dictionary(*CELLS)

    def read(text: str) -> list[tuple[str, str]]:
        return [(m.text, m.iri.removeprefix(X)) for m in d.find(text) if m.kind == "elliptic"]

    # A paper on the retina says "ganglion cells"; "erythroid cells" drops "lineage".
    assert read("In the retina, ganglion cells die.") == [("ganglion cells", "rgc")]
    assert read("erythroid cells of the lineage") == [("erythroid cells", "erythroid")]
    # Without the dropped word anywhere in the text, no reading: another ganglion's cells.
    assert read("ganglion cells of the gut; erythroid cells") == []
    # "stem cells" is a name of its own: not embryonic stem cells without "embryonic",
    # and no second reading inside the whole name.
    assert read("embryonic stem cells and stem cells") == []
    # Three terms leave "photoreceptor cell": too many to say which.
    assert read("rod and cone photoreceptor cells") == []


def test_the_modifier_rule_is_a_setting_and_leaves_the_genus_rule_alone() -> None:
    from ontoretrieve.index.mention_keys import modifier_dropped_keys, term_keys

    keyed = term_keys([TermForms(X + iri, forms) for iri, forms in CELLS])
    shorter = {(k[1], k[2].removeprefix(X)) for k in modifier_dropped_keys(keyed)}
    assert (" ganglion cell ", "rgc") in shorter and (" retin cell ", "rgc") in shorter
    assert not any(key == " photoreceptor cell " for key, _ in shorter)  # three terms
    assert not any(key == " stem cell " for key, _ in shorter)  # a name of its own
    found = dictionary(*CELLS).find("the retina's ganglion cells")
    (reading,) = [m for m in found if m.kind == "elliptic"]
    assert reading.dropped_modifier == "retin" and not reading.genus_dropped


_GENUS = tuple((f"g{i}", ((f"{name} cell", "label"),)) for i, name in enumerate(
    ["glial", "mast", "germ", "blood", "fat", "nerve", "plasma", "goblet", "basket", "granule"]))
RETINA = (*_GENUS, ("cone", (("retinal cone cell", "label"),)),
          ("rod", (("retinal rod cell", "label"),)),
          ("bipolar", (("retinal bipolar cell", "label"),)),
          ("red", (("splenic red cell", "label"),)),
          ("chamber", (("anterior chamber cell", "label"),)),
          ("ahc", (("auditory hair cell", "label"),)),
          ("chc", (("cochlear hair cell", "label"),)),
          ("cell", (("cell", "label"),)), ("ice", (("cone", "label"),)))


def test_a_three_word_name_is_said_by_its_middle_noun_where_the_text_says_its_adjective(
) -> None:
    from ontoretrieve.index.mention_keys import head_keys, term_keys

    keyed = term_keys([TermForms(X + iri, forms) for iri, forms in RETINA[:-1]])
    heads = {(k[1], k[2].removeprefix(X)) for k in head_keys(keyed)}
    # "cell" ends ten names or more and names a term: a genus. "bipolar" and "red" may be
    # adjectives, so no species stands on them; "anterior" pertains to nothing, so it tells
    # a species apart and cannot go unsaid; two terms leave "hair": too many.
    assert heads == {(" cone ", "cone"), (" rod ", "rod")}
    d = dictionary(*RETINA[:-1])

    def read(text: str) -> list[tuple[str, str, str | None]]:
        return [(m.text, m.iri.removeprefix(X), m.head_modifier) for m in d.find(text)
                if m.kind == "elliptic"]

    assert read("In the retina, cones and rods die.") == [("cones", "cone", "retin"),
                                                          ("rods", "rod", "retin")]
    # Without the adjective, or a word of its root, anywhere in the text: no reading.
    assert read("cones of pine trees and steel rods") == []
    # A bare singular mostly modifies a longer name: "cone opsin" is no cone cell.
    assert read("In the retina, the cone opsin") == []
    # A term of the ontology named "cone" outright: the word is its name, no key.
    assert head_keys(term_keys([TermForms(X + iri, forms) for iri, forms in RETINA])) == [
        k for k in head_keys(keyed) if k[1] == " rod "]
    # Without a term named by the genus alone, "cell" is no kind the ontology has.
    assert head_keys([k for k in keyed if k[2] != X + "cell"]) == []


def test_a_name_said_by_its_middle_noun_gives_way_to_a_term_named_so_but_a_unit() -> None:
    cells = [TermForms(X + iri, forms) for iri, forms in RETINA[:-1]]
    d = MentionDictionary.build([("cells", cells), ("anatomy", [TermForms(X + "c", (
        ("cone", "label"),))]), ("units", [TermForms(X + "ROD", (("rod", "label"),), True)])])
    found = [(m.text, m.iri.removeprefix(X)) for m in d.find("In the retina, cones and rods")]
    # "cones" is the anatomy's cone outright; "rods" names a unit, but with no number
    # before it the cells' rod is read too.
    assert ("cones", "c") in found and ("cones", "cone") not in found
    assert ("rods", "rod") in found


def test_an_update_that_makes_a_genus_derives_its_shortened_names_for_every_term() -> None:
    from ontoretrieve.index.replace import _merged_keys

    before = [TermForms(X + iri, forms) for iri, forms in PATHWAYS if iri not in {"p0", "wnt"}]
    # Nine names end with "pathway": no genus. An edit renames one more term so; then
    # every name ending with it is said without it, though one term was normalized again.
    after = [TermForms(X + "gp", (("Notch signaling pathway", "label"),)) if t.iri == X + "gp"
             else t for t in before]
    assert not [k for k in keyed_forms(before) if k[1] == " bmp signal "]
    merged = _merged_keys(keyed_forms(before), after, {X + "gp"})
    assert sorted(merged) == sorted(keyed_forms(after))
    assert (" bmp signal ", X + "p8") in {(k[1], k[2]) for k in merged if k[4] == "elliptic"}


def test_a_genus_is_dropped_only_before_a_noun_phrase_one_name_leaves() -> None:
    genus = tuple((f"t{i}", ((f"{name} tissue", "label"),)) for i, name in enumerate(
        ["bone", "fat", "cartilage", "nerve", "lymphoid", "mucosal", "connective", "glial",
         "neural", "vascular"]))
    d = dictionary(*genus, ("a", (("smooth muscle tissue", "label"),)),
                   ("b", (("mesoderm derived tissue", "label"),)),
                   ("c", (("retinal pigment tissue", "label"),)),
                   ("d", (("retinal pigment tissue", "exact"),)))
    keyed = keyed_forms([TermForms(X + iri, forms) for iri, forms in
                         (*genus, ("a", (("smooth muscle tissue", "label"),)),
                          ("b", (("mesoderm derived tissue", "label"),)))])
    dropped = {k[1]: k[2].removeprefix(X) for k in keyed if genus_dropped(k)}
    # One word is no species ("bone"); "mesoderm derived" ends in no noun.
    assert dropped == {" smooth muscl ": "a"}
    # Two terms leave "retinal pigment" once the genus goes: it names neither.
    assert [m.iri for m in d.find("retinal pigment") if not m.contained] == []


TOPPINGS = ["Mozzarella", "Tomato", "Anchovies", "Caper", "Olive", "Onion", "Ham", "Garlic",
            "Leek", "Spinach", "JalapenoPepper", "HotGreenPepper"]


def spaced(camel: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", camel).lower()


def pizza_like(labels: str = "pt") -> list[TermForms]:
    """Terms named by their IRIs alone, as the Pizza ontology names them: each labelled
    only in another language (written like the IRI) or, with ``labels="en"``, in words."""
    lines = [f"<http://x/{name}Topping> rdfs:subClassOf <http://x/PizzaTopping> ;\n"
             + (f' rdfs:label "CoberturaDe{name}"@pt .' if labels == "pt"
                else f' rdfs:label "{spaced(name)} topping"@en .') for name in TOPPINGS]
    lines.append("<http://x/hasStartTopping> a <http://www.w3.org/2002/07/owl#ObjectProperty> .")
    data = "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n" + "\n".join(lines)
    triples = [q.triple for q in ox.parse(data.encode(), format=ox.RdfFormat.TURTLE)]
    return term_forms(triples, IndexSettings())


def test_an_ontology_named_by_its_iris_names_its_species_without_the_genus() -> None:
    d = MentionDictionary.build([("pizza", pizza_like())])
    found = [(m.text, m.iri.removeprefix(X), m.kind, m.cohesive)
             for m in d.find("tomato, mozzarella and jalapeno peppers") if not m.contained]
    # The IRIs end twelve names with "Topping": one word left names a topping too, surest
    # where the text says the genus; two words left need no genus in the text.
    assert found == [("tomato", "TomatoTopping", "elliptic", False),
                     ("mozzarella", "MozzarellaTopping", "elliptic", False),
                     ("jalapeno peppers", "JalapenoPepperTopping", "elliptic", True)]
    said = [(m.text, m.cohesive) for m in d.find("ham and capers as toppings")]
    assert said == [("ham", True), ("capers", True)]


def test_local_names_beside_worded_labels_or_of_relations_name_no_species() -> None:
    # Labelled in words, the toppings are named by their labels: one word left is
    # no name of theirs (as in label-named ontologies, "dorsal", "primary").
    labelled = keyed_forms(pizza_like(labels="en"))
    assert sorted(k[1] for k in labelled if genus_dropped(k)) == [
        " hot green pepper ", " jalapeno pepper "]
    # A relation's local name ("has Start Topping") is a verb phrase, no species.
    keys = {k[1] for k in keyed_forms(pizza_like()) if k[4] == "elliptic"}
    assert " mozzarella " in keys and " has start " not in keys


def folded_words(text: str) -> list[str]:
    return [t.text for t in tokenize(text) if t.is_word]


def read_as_defined(text: str, m: Mention) -> bool:
    """The span holds a short form the text defines ("long form (SF)"), where it is read
    as its long form: not at its definition, nor written as a word of that long form."""
    tokens = tokenize(text)
    aliases = abbreviations(tokens)
    own: set[int] = set()
    for i in range(len(tokens) - 2):
        key = exact_key(tokens[i + 1].text)
        if tokens[i].text == "(" and tokens[i + 2].text == ")" and key in aliases:
            own.add(i + 1)
            words = [j for j in range(i) if tokens[j].is_word]
            own.update(words[len(words) - len(aliases[key]):])
    return any(exact_key(t.text) in aliases and j not in own and m.start <= t.start
               and t.end <= m.end for j, t in enumerate(tokens))


words = st.sampled_from(["cell", "Cells", "stem", "T", "-", "mV", "nucleus", "ﬁn", "of",
                         "(", ")", "15", "µm", "ES", "embryonic", "/", "Ä", "nuclear", "embryos",
                         "ESCs", "cells", "expression", "gene"])


@settings(max_examples=300, deadline=None)
@given(st.lists(words, min_size=1, max_size=12), st.lists(st.sampled_from(" \t\n"),
                                                          min_size=12, max_size=12))
# Found by this test: "Cells", read as short for the "Cells expression" it is a word of,
# gave that first word the key of "expression".
@example(["Cells", "expression", "(", "Cells", ")"], [" "] * 12)
@example(["Cells", "expression", "(", "Cells", ")", "Cells"], [" "] * 12)
def test_every_reported_span_normalizes_to_its_form(parts: list[str], gaps: list[str]) -> None:
    d = dictionary(("a", (("stem cell", "label"),)), ("b", (("mV", "symbol"),)),
                   ("c", (("T-cell", "label"),)), ("d", (("µm", "symbol"),)),
                   ("e", (("nucleus of cell", "label"),)), ("f", (("fin", "label"),)),
                   ("g", (("embryonic stem cell", "label"), ("ESC", "exact"))),
                   ("h", (("embryo", "label"),)), *GENE_NAMES)
    text = "".join(p + g for p, g in zip(parts, gaps, strict=False))
    for m in d.find(text):
        assert text[m.start:m.end] == m.text
        if m.derived:  # by root: the span's words have the form's root
            assert root_key(m.form, m.kind) == m.key
            assert " ".join(root_word(fold_word(w)) for w in folded_words(m.text)) == (
                m.key.strip()), (text, m)
            continue
        if m.form == "ES cell":  # an acronym's head written out: the span's exact keys
            assert " ".join(exact_key(t.text) for t in tokenize(m.text)) in ("ES cell",
                                                                               "ES cells")
            continue
        if read_as_defined(text, m):  # the span's short form stands for its long form
            continue
        keyed = form_keys(m.text, m.kind)
        assert keyed is not None and keyed[1] == m.key, (text, m)
        if m.kind == "elliptic":  # one word of the name, or the name but one word
            name = form_keys(m.form, "label")
            assert name is not None
            said, whole = m.key.split(), name[1].split()
            if len(said) == 1:
                assert said[0] in whole
                assert said[0] in {fold_word(w) for w in folded_words(text)}
            else:
                assert len(said) == len(whole) - 1
                assert any(whole[:i] + whole[i + 1:] == said for i in range(len(whole)))
            continue
        assert form_keys(m.form, m.kind) == keyed


# -- the lane and the cut ----------------------------------------------------------------


def test_window_hits_rank_by_strength_and_skip_terms_the_index_lacks() -> None:
    d = dictionary(("esc", (("embryonic stem cell", "label"),)),
                   ("cell", (("cell", "related"),)), ("ghost", (("stem", "label"),)))
    text = "embryonic stem cells. A cell."
    found = d.find(text)
    payloads = {(X + n, "h1"): {"iri": X + n} for n in ("esc", "cell")}
    windows = [Window(0, text[:21], 0, 21), Window(1, text[22:], 22, len(text))]
    hits = window_hits(found, windows, payloads, depth=10)
    assert [[h.payload["iri"].removeprefix(X) for h in w] for w in hits] == [
        ["esc", "cell"], ["cell"]]
    assert evidence_of(found, X + "esc")[0]["text"] == "embryonic stem cells"


def term(iri: str, score: float, *evidence: tuple[Lane, int, float]) -> MergedTerm:
    return MergedTerm(iri, score, score, {}, (0,),
                      tuple((0, LaneEvidence(lane, rank, raw)) for lane, rank, raw in evidence))


def test_the_evidence_cut_keeps_mentions_agreement_and_near_best_scores() -> None:
    config = SeedSettings()
    merged = [term("best", 1.0, (Lane.CORE, 1, 0.6)),
              term("near", 0.55, (Lane.CORE, 2, 0.5)),
              term("named", 0.1, (Lane.MENTION, 9, 0.8), (Lane.CORE, 30, 0.3)),
              term("weakly named", 0.1, (Lane.MENTION, 9, 0.1)),
              term("agreed", 0.2, (Lane.CORE, 3, 0.4), (Lane.BM25, 2, 5.0)),
              term("dense only", 0.3, (Lane.CORE, 3, 0.4), (Lane.NEIGHBORHOOD, 1, 0.5)),
              term("alone", 0.2, (Lane.BM25, 5, 3.0))]
    kept, reasons, scope_only = evidence_cut(merged, config)
    assert [m.iri for m in kept] == ["best", "near", "named", "agreed"]
    assert reasons == {"mention": 1, "agreement": 1, "score": 2}
    assert scope_only == frozenset()
    assert supported(merged[4], 1.0, SeedSettings(agreement_rank=1)) is None
    # A scoped query's top terms stay, marked as kept by the scope alone; a term some
    # other rule keeps is not marked, whatever its rank.
    kept, reasons, scope_only = evidence_cut(merged, config,
                                             in_scope=frozenset({"near", "alone"}))
    assert [m.iri for m in kept] == ["best", "near", "named", "agreed", "alone"]
    assert reasons == {"mention": 1, "agreement": 1, "score": 2, "scope": 1}
    assert scope_only == frozenset({"alone"})


def test_dense_spans_take_uncovered_content_words_and_keep_close_hits() -> None:
    from ontoretrieve.backends.vector_index import LaneHit
    from ontoretrieve.query.mention_lane import dense_span_mentions, span_candidates

    d = dictionary(("bulb", (("olfactory bulb", "label"),)))
    text = "The olfactory bulb of mice and more mice."
    spans = span_candidates(text, d.find(text), limit=8)
    assert [w for _, _, w in spans] == ["mice"]  # covered, stopword and repeated words out
    hits = [[LaneHit("p1", 0.82, {"iri": X + "Mus", "labels": ["Mus"], "ontology_hash": "h"}),
             LaneHit("p2", 0.4, {"iri": X + "far", "labels": ["far"]})]]
    (found,) = dense_span_mentions(spans, hits, min_similarity=0.7)
    assert (found.iri, found.text, found.kind, found.similarity) == (X + "Mus", "mice",
                                                                     "dense_span", 0.82)
    assert 0 < found.strength < 0.6


def test_the_units_best_terms_can_be_kept_whatever_their_evidence() -> None:
    from ontoretrieve.query.fusion import FusedHit
    from ontoretrieve.query.selection import select_seeds

    def fused(iri: str, score: float, lane: Lane) -> FusedHit:
        return FusedHit(iri, score, {"iri": iri}, 0, (LaneEvidence(lane, 1, 0.5),))

    # "b" is far below the window's best and has one lane: the evidence cut drops it ...
    hits = [[fused("a", 0.9, Lane.CORE), fused("b", 0.3, Lane.BM25)]]
    plain = SeedSettings(per_role_atom_floor=0, per_ontology_atom_floor=0)
    assert [s.iri for s in select_seeds(hits, 1, plain, 1.0)[0]] == ["a"]
    # ... unless the unit's two best are kept regardless.
    kept = plain.model_copy(update={"evidence_top_per_unit": 2})
    assert [s.iri for s in select_seeds(hits, 1, kept, 1.0)[0]] == ["a", "b"]


def test_every_form_of_a_term_gets_its_root_key() -> None:
    d = dictionary(("nucleus", (("nucleus", "label"), ("karyon", "related"))))
    assert [m.text for m in d.find("nuclear")] == ["nuclear"]  # the first form's root


def test_a_dictionary_built_while_forms_are_missing_is_not_cached(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from ontoretrieve.index.mention_forms import TermForms
    from ontoretrieve.index.mention_store import MentionStore

    store = MentionStore(tmp_path, "k1")
    assert store.dictionary(["h1"]).find("a cell") == []  # h1's forms not written yet
    store.write("h1", [TermForms(X + "cell", (("cell", "label"),))])
    assert names(store.dictionary(["h1"]).find("a cell")) == ["cell"]


def test_a_new_dictionary_drops_the_keys_files_of_older_match_schemes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from ontoretrieve.index.mention_forms import TermForms
    from ontoretrieve.index.mention_keys import MATCH_SCHEME
    from ontoretrieve.index.mention_store import MentionStore

    store = MentionStore(tmp_path, "k1")
    store.write("h1", [TermForms(X + "cell", (("cell", "label"),))])
    older = tmp_path / "h1-k1-mm-0.keys.pickle"  # as an earlier release left it
    other_forms = tmp_path / "h2-k2-mm-0.keys.pickle"  # another forms key: not this store's
    older.write_bytes(b"stale")
    other_forms.write_bytes(b"not ours")
    assert names(store.dictionary(["h1"]).find("a cell")) == ["cell"]
    assert sorted(p.name for p in tmp_path.glob("*.keys.pickle")) == [
        f"h1-k1-{MATCH_SCHEME}.keys.pickle", "h2-k2-mm-0.keys.pickle"]


def test_a_damaged_embedding_cache_is_set_aside_not_fatal(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import numpy as np

    from ontoretrieve.index.embed_cache import EmbeddingCache

    path = tmp_path / "m.sqlite"
    path.write_bytes(b"not a database" * 100)
    cache = EmbeddingCache(path)
    cache.put_dense(["a"], np.ones((1, 2), dtype=np.float32))
    assert list(cache.dense(["a"])) == ["a"]
    assert [p.name.split(".damaged-")[0] for p in tmp_path.glob("*.damaged-*")] == ["m.sqlite"]


@given(st.text(alphabet="aZ5 -_/.(\n\u00ad\ufb01\u00e9\u0301\u03b2\u2010", max_size=24))
def test_token_texts_are_the_texts_of_the_tokens(text: str) -> None:
    # The quick path (ASCII on one line) and the full one agree with tokenize on
    # every text: line-end hyphens, soft hyphens, ligatures, accents, Greek.
    tokens = tokenize(text)
    assert token_texts(text) == [t.text for t in tokens]
    assert word_texts(text) == [t.text for t in tokens if t.is_word]


SPAN = st.tuples(st.integers(0, 12), st.integers(1, 6)).map(lambda p: (p[0], p[0] + p[1]))


@settings(max_examples=300, deadline=None)
@given(spans=st.lists(SPAN, max_size=12))
def test_a_mention_is_contained_exactly_when_another_span_holds_it(
        spans: list[tuple[int, int]]) -> None:
    mentions = [Mention(f"x:{i}", "h", s, e, "t", "t", " t ", "label", True, 1)
                for i, (s, e) in enumerate(spans)]
    flagged = _flag_contained(list(mentions))
    for m in flagged:
        held = any(s <= m.start and m.end <= e and (s, e) != (m.start, m.end)
                   for s, e in spans)
        assert m.contained == held, (m.start, m.end, spans)
    assert sorted(m.iri for m in flagged) == sorted(m.iri for m in mentions)


def test_a_forms_file_of_another_layout_reads_as_missing_not_as_a_crash(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import gzip
    import json

    from ontoretrieve.index.mention_store import MentionStore

    store = MentionStore(tmp_path, "k1")
    store.write("h1", [TermForms(X + "cell", (("cell", "label"),))])
    path = next(tmp_path.glob("h1-*.json.gz"))
    body = json.loads(gzip.decompress(path.read_bytes()))
    body["terms"] = [[iri, forms] for iri, forms, _ in body["terms"]]  # no unit flag
    path.write_bytes(gzip.compress(json.dumps(body).encode()))
    assert store.stored("h1") is None
    assert store.dictionary(["h1"]).find("a cell") == []
