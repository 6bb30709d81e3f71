"""How common a mention's words are in everyday English: a signal of the seed confidence,
and what tells a word from a non-word where a line break split one (``page_text``).

Pure (a read-only word list). A text names a catalog term with words, and
how common those words are outside any field says something about whether
the text means the term: "apoptosis", "homolog" or "cortical" are rarely
written except about what the catalog means by them, while "large", "line",
"control" or "complex" are everyday words that happen to be some term's
name (a UBERON *large*, a cell *line*, GO's *biological regulation* under
"control"). The corpus's own field decides how much that weighs (in a
biology paragraph "cells" is everyday and still meant), so the confidence
model (``confidence``) learns it together with the other signals rather
than as a rule.

The measure is the Zipf frequency of the words in general English, the
base-10 logarithm of their frequency per billion words (about 7 for "the",
3 for "apoptosis", 0 for a word the lists never saw), from ``wordfreq``,
which combines Wikipedia, subtitles, news, books, web text and social
media. A phrase counts its words together (wordfreq adds their inverse
frequencies, so a phrase is rarer than its rarest word). English only: the
dev suite's texts and the model fitted on them are English.

>>> commonness("line") > commonness("cells") > commonness("apoptosis") > 0
True
>>> commonness("Corticiales"), commonness("")
(0.0, 0.0)
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["LANGUAGE", "commonness"]

LANGUAGE = "en"
"""The language whose word frequencies are read."""


@lru_cache(maxsize=1 << 16)  # mention texts repeat across a corpus; 17 us a phrase uncached
def commonness(text: str) -> float:
    """The Zipf frequency of ``text``'s words in general English (0 to about 8; 0 for
    words never seen and for an empty text).

    >>> round(commonness("amino acid"), 2) < round(commonness("acid"), 2)
    True
    """
    if not text.strip():
        return 0.0
    # Imported on first use: its word list takes about a second to load, which only a
    # process that asks (the confidence order, a rare prefixed word, a word broken at a
    # line end) should pay.
    from wordfreq import zipf_frequency

    return float(zipf_frequency(text, LANGUAGE))
