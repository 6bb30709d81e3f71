"""British and American spellings of one word, folded to one: pure, by the regular patterns.

A catalog is written in one spelling (GO, CL and UBERON mostly American, QUDT's
labels British: *Metre*, *Litre*) and a text in either (a British paper says
"haemoglobin", "tumour", "analysed", "kilometres"). The mention lane folds both
sides of a match with ``fold_word``, which calls ``american_spelling`` before
stemming, so that "haemostasis" names *hemostasis* and "isomerization" names
MOP's *isomerisation*.

Only the regular patterns, each with the letters it must follow, so that a short
word keeps its own letters ("rise", "four", "hour", "acre", "shoe"):

- -ise, -ised, -ising, -isation (and -yse, -ysed...) as -ize, -yze;
- -our as -or (colour, behavioural, neighbouring);
- -tre, -bre as -ter, -ber (centre, metres, fibre);
- the digraph "ae" inside a word as "e" before the letters medical stems go on
  with, m, d, c, s, l, v, t or o (haemoglobin, anaemia, paediatric, caecum,
  anaesthesia, palaeontology, aetiology); not before "r" or "a", where Latin names
  keep it and other words are spelled without it (the fish genus *Chimaera* is no
  chimera, *Sphaera* no sphere; *Archaea* is written so on both sides); "oe" as "e"
  where a Greek stem starts with it (oedema, oesophagus, foetal, diarrhoea);
- -ogue as -og (homologue, orthologues, catalogue); "sulph" as "sulf".

A word that is no variant but fits a pattern is folded all the same ("otherwise"
as "otherwize"): both sides of a match fold alike, so that costs nothing unless
two different words meet, which the letters each pattern must follow keep rare.
The function is a fixed map of one word to one (no dictionary of exceptions):
``localspelling``'s word list (MIT, 1,005 general English pairs) has
almost none of a catalog's medical words ("haematopoietic", "oesophageal"),
which the patterns reach.

>>> [american_spelling(w) for w in ["analysed", "immunisation", "hydrolyse"]]
['analyzed', 'immunization', 'hydrolyze']
>>> [american_spelling(w) for w in ["tumours", "behavioural", "kilometres", "fibre"]]
['tumors', 'behavioral', 'kilometers', 'fiber']
>>> [american_spelling(w) for w in ["haematopoietic", "oesophagus", "diarrhoea", "foetal"]]
['hematopoietic', 'esophagus', 'diarrhea', 'fetal']
>>> [american_spelling(w) for w in ["orthologues", "sulphate"]]
['orthologs', 'sulfate']
>>> [american_spelling(w) for w in ["rise", "four", "hour", "acre", "shoe", "vertebrae"]]
['rise', 'four', 'hour', 'acre', 'shoe', 'vertebrae']
>>> [american_spelling(w) for w in ["aetiology", "chimaera", "archaea"]]
['etiology', 'chimaera', 'archaea']
"""

from __future__ import annotations

import re

__all__ = ["american_spelling"]

_ISE = re.compile(r"(?<=[a-z]{2})([iy])s(e|es|ed|ing|ation|ations|ational|er|ers)$")
_OUR = re.compile(r"(?<=[a-z]{3})our(s|ed|ing|al|ally|able|ably|ite|ites|ful|less|ist|ists)?$")
_TRE = re.compile(r"(?<=[a-z]{2}[tb])re(s)?$")
_AE = re.compile(r"(?<=[a-z])ae(?=[mdcslvto])|^ae(?=t)")
_OE = re.compile(r"^(|f|c|am|hom)oe(?=dem|soph|str|t|li|b|o)|(?<=rh|pn)oea")
_OGUE = re.compile(r"(?<=[a-z]{3})ogue(s)?$")
_ANY = re.compile(
    r"[iy]s(?:e|es|ed|ing|ation|ations|ational|er|ers)$|our|[tb]res?$|ae|oe|ogue|sulph")
"""Whether any pattern may apply: one search, so most words pay no more than that."""


def american_spelling(word: str) -> str:
    """``word`` (lower case, as ``fold_word`` has it) in American spelling, by the
    regular patterns only; any other word unchanged.

    >>> american_spelling("colour"), american_spelling("color"), american_spelling("cell")
    ('color', 'color', 'cell')
    """
    if len(word) < 5 or not word.isalpha() or _ANY.search(word) is None:
        return word
    word = _ISE.sub(lambda m: f"{m.group(1)}z{m.group(2)}", word)
    word = _OUR.sub(lambda m: f"or{m.group(1) or ''}", word)
    word = _TRE.sub(lambda m: f"er{m.group(1) or ''}", word)
    word = _AE.sub("e", word)
    word = _OE.sub(_without_o, word)
    word = _OGUE.sub(lambda m: f"og{m.group(1) or ''}", word)
    return word.replace("sulph", "sulf")


def _without_o(match: re.Match[str]) -> str:
    """An "oe" digraph as "e": after the letters a word starts with ("oedema", "foetal"),
    or in -rrhoea and -pnoea."""
    return f"{match.group(1)}e" if match.group(1) is not None else "ea"
