"""The nouns a relational adjective stands for: "cardiac" for *heart*, "hepatic" for *liver*.

Science writes an organ, a process or a part by its adjective as often as by
its name: "cardiac defects", "hepatic expression", "genetic background",
"dental development". No spelling rule joins "cardiac" to *heart* or "dental"
to *tooth*; WordNet's pertainym links do (an adjective "of or relating to" a
noun). The table ships with the package (``models/pertainyms``, made from
WordNet 3.0 by ``benchmarks/make_pertainyms.py``; WordNet's licence beside
it): 4,158 one-word adjectives and adverbs ("genetically") with their
one-word nouns, and the synonyms of those nouns built on the adjective's stem
("olfactory": *smell* and "olfaction"). The mention lane takes a noun only
where a term has it as a whole name (``MentionDictionary.find``), as a
derived reading.

>>> pertainym_nouns("Cardiac"), pertainym_nouns("dental"), pertainym_nouns("cells")
(('heart',), ('dentistry', 'tooth'), ())
>>> pertainym_nouns("olfactory")
('olfaction', 'smell')
"""

from __future__ import annotations

from ontoretrieve.index.word_tables import packaged_word_table

__all__ = ["PACKAGED_TABLE", "pertainym_nouns"]

PACKAGED_TABLE = ("models", "pertainyms", "pertainyms.tsv")
"""Where the table ships, under the ``ontoretrieve`` package."""


def pertainym_nouns(word: str) -> tuple[str, ...]:
    """The nouns ``word`` pertains to, lower case; none for a word the table lacks."""
    return packaged_word_table(*PACKAGED_TABLE).get(word.casefold(), ())

