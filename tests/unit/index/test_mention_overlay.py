"""A dictionary changed by replaced versions answers as one built over the new set."""

from __future__ import annotations

import random
from collections import Counter

from ontoretrieve.index.mention_forms import TermForms
from ontoretrieve.index.mention_keys import UNIT_MARK, KeyedForm, keyed_forms
from ontoretrieve.index.mention_match import TABLES, MentionDictionary
from ontoretrieve.index.mention_overlay import ChangedDictionary, changed_keys, version_entries

WORDS = ["cell", "cells", "nucleus", "nuclear", "membrane", "stem", "embryonic", "mV", "MV",
         "gene", "expression", "protein", "kinase", "zeolite", "BRCA1", "IS", "record",
         "leader", "led", "wrote", "Caenorhabditis elegans", "C. elegans"]
KINDS = ["label", "synonym", "symbol", "exact"]


def _terms(rng: random.Random, prefix: str, count: int) -> list[TermForms]:
    terms = []
    for i in range(count):
        forms = tuple((" ".join(rng.sample(WORDS, rng.randint(1, 3))), rng.choice(KINDS))
                      for _ in range(rng.randint(1, 3)))
        # Most IRIs are a version's own; some are in several versions (imported terms).
        iri = f"x:shared{i}" if rng.random() < 0.3 else f"x:{prefix}{i % 7}"
        if rng.random() < 0.15:  # a property named by an agent noun: verb keys too
            iri = rng.choice(["http://x/leader", "http://x/writer"])
        terms.append(TermForms(iri, forms, unit=rng.random() < 0.3))
    return terms


def _changed(rng: random.Random, terms: list[TermForms]) -> list[TermForms]:
    """A new version: some terms kept, one relabelled, one gone, one added."""
    kept = [t for t in terms if rng.random() > 0.2]
    if kept:
        i = rng.randrange(len(kept))
        kept[i] = TermForms(kept[i].iri, ((rng.choice(WORDS), "label"), *kept[i].forms[1:]),
                            unit=rng.random() < 0.5)  # a unit now, or no longer
    return kept + _terms(rng, "new", rng.randint(0, 2))


def _texts(rng: random.Random) -> list[str]:
    return [" ".join(rng.choice([*WORDS, "the", "5", "of", "(", ")"])
                     for _ in range(rng.randint(3, 14))) for _ in range(12)]


def test_a_changed_dictionary_finds_what_a_build_over_the_new_set_finds() -> None:
    rng = random.Random(3)
    taken = units_seen = namesakes_seen = 0
    for _ in range(60):
        versions: dict[str, list[KeyedForm]] = {
            f"h{i}": keyed_forms(_terms(rng, f"v{i}-", rng.randint(1, 6)))
            for i in range(rng.randint(1, 4))}
        dictionary: MentionDictionary = MentionDictionary.build_keyed(sorted(versions.items()))
        for step in range(rng.randint(1, 3)):  # changes stacked over one build
            replaced = rng.choice(sorted(versions))
            units = {iri for which, _, iri, _, _ in versions[replaced] if which == UNIT_MARK}
            new_terms = _changed(rng, [TermForms(iri, ((form, kind),), unit=iri in units)
                                       for which, _, iri, form, kind in versions[replaced]
                                       if which != UNIT_MARK][:8])
            # The new version's hash sorts anywhere among the others.
            by = rng.choice(["a", "h", "z"]) + f"{step}{replaced}"
            new = {**{h: k for h, k in versions.items() if h != replaced},
                   by: keyed_forms(new_terms)}
            dictionary = ChangedDictionary(dictionary, replaced, by, sorted(new),
                                           versions[replaced], new[by])
            built = MentionDictionary.build_keyed(sorted(new.items()))
            for text in _texts(rng):
                assert dictionary.find(text) == built.find(text), text
                taken += bool(built.find(text))
                for which in TABLES:  # raw matches, in one order
                    assert list(dictionary.matches(which, f" {text} ")) == list(
                        built.matches(which, f" {text} "))
            assert dictionary.forms == built.forms
            assert dictionary.units == built.units
            assert dictionary.unit_names == built.unit_names  # a unit's namesakes alike
            units_seen += len(built.units)
            namesakes_seen += sum(m.namesake_of is not None for text in _texts(rng)
                                  for m in built.find(text))
            for which, key, *_ in [k for keyed in new.values() for k in keyed] + list(
                    versions[replaced]):  # entries in a build's order, old keys too
                if which == UNIT_MARK:
                    continue
                assert dictionary.entries_at(which, key) == built.entries_at(which, key)
            versions = new
    assert taken > 200  # the texts do name terms
    assert units_seen > 50  # and some versions hold units
    assert namesakes_seen > 10  # some named like a term that is no unit


def test_only_the_changed_keys_get_a_table_of_their_own() -> None:
    old = keyed_forms([TermForms(f"x:t{i}", ((f"term {i} zeolite", "label"),))
                       for i in range(50)])
    new = keyed_forms([TermForms(f"x:t{i}", ((f"term {i} zeolite", "label"),))
                       for i in range(50)] + [TermForms("x:new", (("quasicrystal", "label"),))])
    changed = ChangedDictionary(MentionDictionary.build_keyed([("h1", old)]), "h1", "h2",
                                ["h2"], old, new)
    assert changed._changed == {(which, key) for which, key, *_ in keyed_forms(
        [TermForms("x:new", (("quasicrystal", "label"),))])}
    assert changed.changes == 1


def test_changed_keys_are_the_keys_whose_entries_differ() -> None:
    """``changed_keys`` against comparing both versions' entries key by key, on random
    versions and their changes, and on the same forms in another order (a key whose
    terms come in another order has other entries, though no form was added). It may
    also name a key one of whose forms changed but not its entries (a term's second
    form under it): never a key with no form changed."""
    rng = random.Random(5)
    for _ in range(200):
        old = keyed_forms(_terms(rng, "v-", rng.randint(1, 8)))
        for new in (keyed_forms(_changed(rng, [TermForms(iri, ((form, kind),))
                                               for which, _, iri, form, kind in old
                                               if which != UNIT_MARK])),
                    rng.sample(old, len(old))):
            before, after = version_entries(old), version_entries(new)
            exact = {where for where in before.keys() | after.keys()
                     if before.get(where) != after.get(where)}
            counts = Counter(old)
            counts.subtract(new)
            counted = {(t[0], t[1]) for t, n in counts.items() if n and t[0] != UNIT_MARK}
            assert exact <= changed_keys(old, new) <= exact | counted
    swapped = [("folded", " cell ", "x:b", "cell", "label"),
               ("folded", " cell ", "x:a", "cell", "label")]
    assert changed_keys(swapped[::-1], swapped) == {("folded", " cell ")}
