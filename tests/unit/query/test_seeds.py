"""From fused hits to seeds: each rule of retrieval.md's steps 1-7."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ontoretrieve.backends.vector_index import Lane
from ontoretrieve.query.fusion import FusedHit, LaneEvidence
from ontoretrieve.query.lexical import apply_triggers, apply_unit_signals, symbol_case_check
from ontoretrieve.query.seeder import _cut_settings, _scope_per_window
from ontoretrieve.query.selection import (
    SCOPE_NOTE,
    Seed,
    SeedOrigin,
    cap_for,
    evidence_first,
    evidence_tier,
    select_seeds,
)
from ontoretrieve.settings import Settings
from ontoretrieve.settings.groups import (
    MergeMode,
    SeedSettings,
    SymbolCasePolicy,
    TriggerFusion,
    TriggerSettings,
)

NO_FLOORS = {"per_role_atom_floor": 0, "per_ontology_atom_floor": 0, "cut": "cap"}
"""The reference cut without its floors (the evidence cut has tests of its own)."""


def fh(iri: str, score: float, window: int = 0, role: str = "resource", onto: str = "o1",
       **payload: object) -> FusedHit:
    return FusedHit(iri, score, {"iri": iri, "role": role, "ontology_hash": onto, **payload},
                    window, (LaneEvidence(Lane.CORE, 1, score),))


def seeds_of(fused: list[list[FusedHit]], windows: int = 1, **settings: object) -> list[str]:
    seeds, _ = select_seeds(fused, windows, SeedSettings(**{**NO_FLOORS, **settings}), 1.0)
    return [s.iri for s in seeds]


def test_relevance_floor_rejects_the_whole_unit() -> None:
    fused = [[fh("a", 0.17), fh("b", 0.1)]]
    seeds, counts = select_seeds(fused, 1, SeedSettings(), 1.0)
    assert seeds == [] and counts.threshold_rejected == 2
    assert seeds_of([[fh("a", 0.19)]]) == ["a"]
    # The floor is a fraction of the best attainable score.
    seeds, _ = select_seeds([[fh("a", 0.019)]], 1, SeedSettings(**NO_FLOORS), 0.1)
    assert [s.iri for s in seeds] == ["a"]


def test_merge_modes() -> None:
    fused = [[fh("a", 0.5, 0), fh("b", 0.4, 0)], [fh("b", 0.4, 1)]]
    assert seeds_of(fused) == ["a", "b"]
    assert seeds_of(fused, cross_query_merge_mode=MergeMode.SUM_SCORE) == ["b", "a"]


def test_merged_score_ratio() -> None:
    fused = [[fh("a", 1.0), fh("b", 0.5), fh("c", 0.49)]]
    assert seeds_of(fused, merged_score_ratio=0.5) == ["a", "b"]


@given(windows=st.integers(0, 100), base=st.integers(0, 200), per=st.integers(0, 10),
       most=st.integers(0, 300))
def test_cap_formula(windows: int, base: int, per: int, most: int) -> None:
    config = SeedSettings(max_atoms=most, max_atoms_base=base, seeds_per_window=per)
    expected = None if most == 0 else min(most, max(base, per * windows))
    if most == 0:
        assert cap_for(windows, config) == max(base, per * windows)
    else:
        assert cap_for(windows, config) == expected


def test_cap_binds() -> None:
    fused = [[fh(f"t{i}", 1 - i / 100) for i in range(20)]]
    assert len(seeds_of(fused, max_atoms=5, max_atoms_base=5)) == 5
    assert len(seeds_of(fused, max_atoms=0, max_atoms_base=3, seeds_per_window=0)) == 3


def test_per_role_floor_reserves_predicates() -> None:
    fused = [[*(fh(f"c{i}", 0.9 - i / 100) for i in range(5)), fh("p", 0.2, role="predicate")]]
    assert "p" not in seeds_of(fused, max_atoms=3, max_atoms_base=3)
    assert "p" in seeds_of(fused, max_atoms=3, max_atoms_base=3, per_role_atom_floor=1)


def test_per_ontology_floor_lets_a_small_module_in() -> None:
    fused = [[*(fh(f"big{i}", 0.9 - i / 100, onto="big") for i in range(5)),
              fh("small", 0.2, onto="small")]]
    assert "small" not in seeds_of(fused, max_atoms=3, max_atoms_base=3)
    assert "small" in seeds_of(fused, max_atoms=3, max_atoms_base=3, per_ontology_atom_floor=1)


def test_per_ontology_quota_round_robin() -> None:
    fused = [[fh("a1", 0.9, onto="a"), fh("a2", 0.8, onto="a"), fh("a3", 0.7, onto="a"),
              fh("b1", 0.3, onto="b"), fh("b2", 0.2, onto="b")]]
    chosen = seeds_of(fused, max_atoms=4, max_atoms_base=4, per_ontology_seed_quota=2)
    assert sorted(chosen) == ["a1", "a2", "b1", "b2"]


def test_mmr_prefers_diversity() -> None:
    vectors = {"a": np.array([1.0, 0.0]), "a2": np.array([1.0, 0.0]), "b": np.array([0.0, 1.0])}
    fused = [[fh("a", 0.9), fh("a2", 0.89), fh("b", 0.5)]]
    seeds, _ = select_seeds(fused, 1, SeedSettings(max_atoms=2, max_atoms_base=2,
                                                   mmr_lambda=0.5, **NO_FLOORS), 1.0,
                            vectors=lambda iris: {i: vectors[i].astype(np.float32)
                                                  for i in iris})
    assert {s.iri for s in seeds} == {"a", "b"}


def seed(iri: str, score: float, **payload: object) -> Seed:
    return Seed(iri, score, SeedOrigin.RETRIEVED, {"iri": iri, **payload}, score)


def test_triggers_raise_and_add_outside_the_cap() -> None:
    seeds = [seed("kept", 0.2)]
    matches = [{"iri": "kept"}, {"iri": "new1"}, {"iri": "new2"}]
    result, added, raised = apply_triggers(
        seeds, matches, TriggerSettings(max_atoms=1, fusion=TriggerFusion.MAX_MERGE))
    assert (added, raised) == (1, 1)
    assert {s.iri: s.score for s in result} == {"kept": 0.35, "new1": 0.35}
    added_up, _, _ = apply_triggers(seeds, matches, TriggerSettings(max_atoms=1))
    assert {s.iri: s.score for s in added_up} == {"kept": 0.55, "new1": 0.35}  # the default
    append, added, raised = apply_triggers(seeds, matches,
                                           TriggerSettings(fusion=TriggerFusion.APPEND))
    assert raised == 0 and len(append) == 3 and append[-1].iri == "kept"
    assert [s.score for s in append if s.iri == "kept"] == [0.2]


def test_default_trigger_score_sits_below_a_rank_one_hit() -> None:
    assert TriggerSettings().score < 0.42


@pytest.mark.parametrize(("policy", "expected"), [
    (SymbolCasePolicy.DEMOTE, {"MegaV": 0.25, "MilliV": 0.5, "Volt": 0.5}),
    (SymbolCasePolicy.DROP, {"MilliV": 0.5, "Volt": 0.5}),
    (SymbolCasePolicy.KEEP, {"MegaV": 0.5, "MilliV": 0.5, "Volt": 0.5}),
])
def test_symbol_case_check(policy: SymbolCasePolicy, expected: dict[str, float]) -> None:
    seeds = [seed("MegaV", 0.5, symbols=["MV"]), seed("MilliV", 0.5, symbols=["mV"]),
             seed("Volt", 0.5, labels=["volt"])]
    result, _, _ = symbol_case_check(seeds, "a 5 mV pulse", policy, 0.5)
    assert {s.iri: s.score for s in result} == expected


def test_unit_signals_prefer_exact_case() -> None:
    matches = {"mV": [{"iri": "MegaV", "symbols": ["MV"], "labels": ["megavolt"]},
                      {"iri": "MilliV", "symbols": ["mV"], "labels": ["millivolt"]}],
               "days": [{"iri": "DAY", "symbols": ["d"], "labels": ["day"]}]}
    result, added = apply_unit_signals([], ["mV", "days"], matches, TriggerSettings(),
                                       SymbolCasePolicy.DEMOTE, 0.5)
    scores = {s.iri: s.score for s in result}
    assert added == 3 and scores["MilliV"] > scores["MegaV"] and scores["DAY"] == 0.35
    assert all(s.origin is SeedOrigin.UNIT_SIGNAL for s in result)


def test_unit_signals_that_may_not_add_only_raise_what_is_seeded() -> None:
    matches = {"mV": [{"iri": "MegaV", "symbols": ["MV"], "labels": ["megavolt"]},
                      {"iri": "MilliV", "symbols": ["mV"], "labels": ["millivolt"]}]}
    named = Seed("MilliV", 0.2, SeedOrigin.RETRIEVED, {})
    result, added = apply_unit_signals([named], ["mV"], matches, TriggerSettings(),
                                       SymbolCasePolicy.DEMOTE, 0.5, add=False)
    assert added == 0 and [s.iri for s in result] == ["MilliV"] and result[0].score > 0.2


@pytest.mark.parametrize("rule", ["unit_signals_add", "triggers_add"])
def test_with_the_mention_lane_unit_signals_and_triggers_add_nothing_unless_asked(
        rule: str) -> None:
    # The lane names units after numbers, symbols and codes itself, weighing each.
    from ontoretrieve.query.seeder import SeedRetriever

    def adds(**groups: dict[str, object]) -> bool:
        retriever = SeedRetriever.__new__(SeedRetriever)
        retriever.settings = Settings(**groups)  # type: ignore[arg-type]
        decides: bool = getattr(retriever, f"_{rule}")()
        return decides

    assert adds() is False
    assert adds(mentions={rule: True}) is True
    assert adds(mentions={"enabled": False}) is True  # the reference: no lane
    assert adds(fusion={"mention_weight": 0.0}) is True


def test_a_trigger_that_may_not_add_still_raises_a_seed() -> None:
    named = Seed("E2", 0.1, SeedOrigin.RETRIEVED, {"iri": "E2"})
    matches = [{"iri": "E2"}, {"iri": "E2_activity"}, {"iri": "E2_ligase"}]
    result, added, raised = apply_triggers([named], matches, TriggerSettings(), add=False)
    assert (added, raised) == (0, 1) and [s.iri for s in result] == ["E2"]
    assert result[0].score > 0.1
    _, added, _ = apply_triggers([named], matches, TriggerSettings())
    assert added == 2


def test_start_up_warns_when_max_atoms_can_never_bind(caplog: pytest.LogCaptureFixture) -> None:
    from ontoretrieve.query.seeder import SeedRetriever
    from ontoretrieve.settings import load_settings

    never = load_settings(seeds={"max_atoms": 500})  # cap is at most max(96, 4 x 16) = 96
    with caplog.at_level("WARNING"):
        SeedRetriever(never, index=None, embedder=None)  # type: ignore[arg-type]
    assert "can never bind" in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING"):
        SeedRetriever(load_settings(), index=None, embedder=None)  # type: ignore[arg-type]
    assert "can never bind" not in caplog.text


def test_a_scoped_query_keeps_each_windows_top_terms() -> None:
    settings = Settings()
    assert _cut_settings(settings, None) is settings.seeds  # unscoped: the cut as set
    scoped = _cut_settings(settings, frozenset({"h1"}))
    assert scoped.evidence_top_per_window == settings.seeds.scoped_top_per_window > 0
    off = settings.model_copy(update={"seeds": settings.seeds.model_copy(
        update={"scoped_top_per_window": 0})})
    assert _cut_settings(off, frozenset({"h1"})) is off.seeds


def test_a_scoped_query_keeps_deeper_terms_on_the_scope_alone_and_says_so() -> None:
    settings = Settings()
    assert _scope_per_window(settings, None) == 0  # unscoped: no such seeds
    assert _scope_per_window(settings, frozenset({"h1"})) == 40
    shallow = settings.model_copy(update={"seeds": settings.seeds.model_copy(
        update={"scoped_kept_per_window": 12})})  # not above scoped_top_per_window
    assert _scope_per_window(shallow, frozenset({"h1"})) == 0
    # One window of 6 terms, falling scores; the top 2 are leaders, the next 2 stay on the
    # scope's word, the last 2 go. A deep term a mention names is no scope-alone seed.
    named = FusedHit("named", 0.05, {"iri": "named", "role": "resource",
                                     "ontology_hash": "o1"}, 0,
                     (LaneEvidence(Lane.MENTION, 1, 0.9),))
    fused = [[fh("a", 1.0), fh("b", 0.45), fh("c", 0.4), fh("d", 0.35), fh("e", 0.3),
              fh("f", 0.25), named]]
    cut = SeedSettings(evidence_top_per_window=2)
    seeds, counts = select_seeds(fused, 1, cut, 1.0, scope_per_window=4)
    assert [s.iri for s in seeds] == ["a", "b", "c", "d", "named"]
    assert [s.iri for s in seeds if SCOPE_NOTE in s.notes] == ["c", "d"]
    assert counts.kept_by == {"mention": 1, "agreement": 0, "score": 2, "scope": 2}
    assert {evidence_tier(s, cut) for s in seeds if SCOPE_NOTE in s.notes} == {2}
    seeds, counts = select_seeds(fused, 1, cut, 1.0)  # unscoped: the cut as before
    assert [s.iri for s in seeds] == ["a", "b", "named"] and "scope" not in counts.kept_by


def test_evidence_first_puts_what_the_text_names_on_top() -> None:
    settings = SeedSettings()
    dense = Seed("dense", 0.9, SeedOrigin.RETRIEVED, {},
                 evidence=((0, LaneEvidence(Lane.CORE, 1, 0.8)),))
    agreed = Seed("agreed", 0.3, SeedOrigin.RETRIEVED, {},
                  evidence=((0, LaneEvidence(Lane.CORE, 2, 0.7)),
                            (0, LaneEvidence(Lane.BM25, 1, 5.0))))
    trigger = Seed("trigger", 0.5, SeedOrigin.TRIGGER, {})
    named = Seed("named", 0.2, SeedOrigin.RETRIEVED, {},
                 evidence=((1, LaneEvidence(Lane.MENTION, 3, 0.9)),))
    weak = Seed("weak", 0.8, SeedOrigin.RETRIEVED, {},
                evidence=((1, LaneEvidence(Lane.MENTION, 1, 0.05)),))
    ordered = evidence_first([dense, weak, trigger, agreed, named], settings)
    assert [s.iri for s in ordered] == ["named", "trigger", "agreed", "dense", "weak"]


@pytest.mark.parametrize(("cohesion", "expected"), [
    ("weighed", [("expression", False), ("expression", True)]),
    ("required", [("expression", True)]),
])
def test_an_elliptic_form_without_its_names_other_word_is_weighed_or_dropped(
        cohesion: str, expected: list[tuple[str, bool]]) -> None:
    # "expression" stands for gene expression; only the second text writes "gene".
    from ontoretrieve.index.mention_forms import TermForms
    from ontoretrieve.index.mention_match import MentionDictionary
    from ontoretrieve.query.seeder import SeedRetriever

    names = ["gene expression", "regulation of gene expression",
             "positive regulation of gene expression", "gene"]
    forms = [TermForms(f"x:{i}", ((name, "label"),)) for i, name in enumerate(names)]
    dictionary = MentionDictionary.build([("h", forms)])
    settings = Settings(mentions={"elliptic_cohesion": cohesion})  # type: ignore[arg-type]
    retriever = SeedRetriever(settings, index=None, embedder=None,  # type: ignore[arg-type]
                              mentions=lambda: dictionary)
    found = [(m.text, m.cohesive) for text in ("Its expression rose.",
                                               "Its expression, and the gene's, rose.")
             for m in retriever.mentions(text) if m.iri == "x:0"]
    assert found == expected


@pytest.mark.parametrize(("noun_verbs", "unscoped", "scoped"), [
    ("scoped", [], ["died"]),
    ("always", ["died"], ["died"]),
    ("never", [], []),
])
def test_a_verb_reads_a_relation_named_by_its_noun_as_mentions_noun_verbs_says(
        noun_verbs: str, unscoped: list[str], scoped: list[str]) -> None:
    from ontoretrieve.index.mention_forms import TermForms
    from ontoretrieve.index.mention_match import MentionDictionary
    from ontoretrieve.query.seeder import SeedRetriever

    forms = [TermForms("http://x/deathPlace", (("deathPlace", "label"),))]
    dictionary = MentionDictionary.build([("h", forms)])
    settings = Settings(mentions={"noun_verbs": noun_verbs})  # type: ignore[arg-type]
    retriever = SeedRetriever(settings, index=None, embedder=None,  # type: ignore[arg-type]
                              mentions=lambda: dictionary)
    text = "She died in Rome."
    assert [m.text for m in retriever.mentions(text)] == unscoped
    assert [m.text for m in retriever.mentions(text, scope={"h"})] == scoped


@pytest.mark.parametrize(("head_nouns", "read"), [(True, ["cones"]), (False, [])])
def test_the_seeder_reads_names_by_their_middle_noun_as_mentions_head_nouns_says(
        head_nouns: bool, read: list[str]) -> None:
    from ontoretrieve.index.mention_forms import TermForms
    from ontoretrieve.index.mention_match import MentionDictionary
    from ontoretrieve.query.seeder import SeedRetriever

    forms = [TermForms(f"http://x/c{i}", ((f"{name} cell", "label"),)) for i, name in
             enumerate(["glial", "mast", "germ", "blood", "fat", "nerve", "plasma", "goblet",
                        "basket", "granule"])]
    forms += [TermForms("http://x/cone", (("retinal cone cell", "label"),)),
              TermForms("http://x/cell", (("cell", "label"),))]
    dictionary = MentionDictionary.build([("h", forms)])
    settings = Settings(mentions={"head_nouns": head_nouns})  # type: ignore[arg-type]
    retriever = SeedRetriever(settings, index=None, embedder=None,  # type: ignore[arg-type]
                              mentions=lambda: dictionary)
    text = "In the retina, cones degenerate."
    assert [m.text for m in retriever.mentions(text) if m.kind == "elliptic"] == read


@pytest.mark.parametrize(("dropped_modifiers", "cohesion", "read"), [
    (True, "weighed", ["ganglion cells", "expression"]), (False, "weighed", ["expression"]),
    (True, "required", ["ganglion cells"]), (False, "required", [])])
def test_the_seeder_reads_names_without_a_modifier_as_mentions_dropped_modifiers_says(
        dropped_modifiers: bool, cohesion: str, read: list[str]) -> None:
    from ontoretrieve.index.mention_forms import TermForms
    from ontoretrieve.index.mention_match import MentionDictionary
    from ontoretrieve.query.seeder import SeedRetriever

    forms = [TermForms("http://x/rgc", (("retinal ganglion cell", "label"),)),
             TermForms("http://x/ge", (("gene expression", "label"),)),
             TermForms("http://x/rge", (("regulation of gene expression", "label"),)),
             TermForms("http://x/pge", (("positive regulation of gene expression", "label"),))]
    dictionary = MentionDictionary.build([("h", forms)])
    settings = Settings(mentions={"dropped_modifiers": dropped_modifiers,  # type: ignore[arg-type]
                                  "elliptic_cohesion": cohesion})
    retriever = SeedRetriever(settings, index=None, embedder=None,  # type: ignore[arg-type]
                              mentions=lambda: dictionary)
    # "retina" says the dropped "retinal"; no word says "gene": "expression" is not cohesive.
    text = "In the retina, ganglion cells lose expression."
    assert [m.text for m in retriever.mentions(text) if m.kind == "elliptic"] == read
