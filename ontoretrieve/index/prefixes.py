"""The word a prefixed word is built on: "overexpression" on "expression".

Science glues Latin, Greek and English prefixes to the words it names things
by: "overexpression" and "coexpressed" are gene expression, "transmembrane" a
membrane, "perinuclear" the nucleus's surroundings, "intraocular" the eye,
"extraembryonic" the embryo's. No term is named by the prefixed word, and
the tokenizer keeps it whole, so without this the mention lane reads none of
them. ``prefix_base`` splits off one prefix of a closed list when what is
left is itself a word of everyday English (``wordfreq``: "expression" is,
"cription" of "transcription" is not), and the lane reads the base as a
derived mention of the whole word (``MentionDictionary.find``).

Only a rare word is split. A prefixed word English writes often has long
had a sense of its own, which its parts no longer give: "replace" is no
place, "international" no nationality, "interaction" no action, "antibodies"
no body, "reporter" no porter. The words science makes with a prefix as it
needs them ("perinuclear", "overexpression", "transmembrane") are rare in
general English.

>>> prefix_base("Overexpression"), prefix_base("perinuclear"), prefix_base("transcription")
('expression', 'nuclear', None)
>>> prefix_base("reads"), prefix_base("intraocular"), prefix_base("replaced")
(None, 'ocular', None)
"""

from __future__ import annotations

from functools import lru_cache

from ontoretrieve.index.commonness import commonness

__all__ = ["MAX_WORD_COMMONNESS", "MIN_BASE_COMMONNESS", "MIN_BASE_LETTERS", "PREFIXES",
           "prefix_base"]

PREFIXES = ("anti", "auto", "bi", "co", "de", "dys", "extra", "hyper", "hypo", "inter",
            "intra", "juxta", "micro", "mis", "mono", "multi", "nano", "non", "over", "para",
            "peri", "poly", "post", "pre", "re", "semi", "sub", "super", "supra", "trans",
            "ultra", "un", "under")
"""The derivational prefixes split off, longest tried first: where, when, how much and
against what ("intra", "post", "hyper", "anti"), and the negations ("un", "non")."""

MIN_BASE_LETTERS = 5
"""The shortest base read: shorter ones are parts of unrelated words more often than not
("re" + "port", "co" + "lon")."""

MIN_BASE_COMMONNESS = 2.0
"""The Zipf frequency the base must have in everyday English (``commonness``): "ocular"
has 2.9, "peritoneal" 2.5, a word's broken rest ("gulation", "cription") 0."""

MAX_WORD_COMMONNESS = 3.0
"""A word English writes once in a million words or more (Zipf 3; ``commonness``) is not
split: "replaced" has 4.6, "interaction" 4.3, "antibodies" 3.6, while "transmembrane" has
2.5, "overexpression" 2.4, "perinuclear" 1.3."""

_LONGEST_FIRST = tuple(sorted(PREFIXES, key=len, reverse=True))


@lru_cache(maxsize=1 << 16)  # a corpus repeats its words
def prefix_base(word: str) -> str | None:
    """What ``word`` is built on after one prefix (lower case), or None when it has no
    prefix of ``PREFIXES`` before a word of at least ``MIN_BASE_LETTERS`` letters that
    English uses on its own, or when English uses the whole word often
    (``MAX_WORD_COMMONNESS``)."""
    folded = word.casefold()
    if not folded.isalpha():
        return None
    bases = [folded[len(p):] for p in _LONGEST_FIRST
             if folded.startswith(p) and len(folded) - len(p) >= MIN_BASE_LETTERS]
    # The word's own frequency only for a word a prefix may come off: most words have none.
    if not bases or commonness(folded) >= MAX_WORD_COMMONNESS:
        return None
    return next((base for base in bases if commonness(base) >= MIN_BASE_COMMONNESS), None)
