"""The verbs a noun is made from: "die" for *death*, "locate" for *location*.

A relation an ontology names by a noun made from a verb (DBpedia's
*deathPlace*, *successor*, *location*; schema.org's *foundingDate*) is said in
text with the verb: "died in Israel", "was succeeded by the Rover Co.", "is
located in Texas". An agent noun's verb follows from its spelling
("leader": "lead", ``agent_verb_forms``); most others do not ("death": "die",
"successor": "succeed"). WordNet's derivational links join them word to word.
The table ships with the package (``models/noun-verbs``, made from WordNet 3.0
by ``benchmarks/make_noun_verbs.py``; WordNet's licence beside it): 6,636
one-word nouns with their one-word verbs. The mention lane reads the verbs'
forms as naming a relation whose IRI begins with the noun, as a derived
reading (``mention_keys``).

>>> noun_verbs("death"), noun_verbs("Successor"), noun_verbs("cell")
(('die',), ('succeed',), ())
"""

from __future__ import annotations

from ontoretrieve.index.word_tables import packaged_word_table

__all__ = ["PACKAGED_TABLE", "noun_verbs"]

PACKAGED_TABLE = ("models", "noun-verbs", "noun_verbs.tsv")
"""Where the table ships, under the ``ontoretrieve`` package."""


def noun_verbs(noun: str) -> tuple[str, ...]:
    """The verbs ``noun`` is made from, lower case; none for a noun the table lacks."""
    return packaged_word_table(*PACKAGED_TABLE).get(noun.casefold(), ())
