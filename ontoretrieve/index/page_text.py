"""What copying text out of a page does to its words, undone: words a line break
splits ("mito-\\nchondrial"), typographic ligatures ("ﬁbroblast") and invisible
hyphenation hints (a soft hyphen inside "mito\\u00adchondrial").

Pure (a read-only word list). Text copied out of a PDF, a scanned page or a
wrapped e-mail breaks long words at line ends with a hyphen, and a PDF's
text layer often keeps the typesetter's ligatures (U+FB00-FB06: "ﬁ", "ﬂ",
"ﬀ", "ﬃ", "ﬄ"). Read as it stands, "mito-\\nchondrial" is two tokens, "mito"
and "chondrial", that name nothing (or the wrong thing: "chondrial" stems to
the red alga *Chondrus*), and the dense encoder, which knows no ligature, sees
"eﬄux" as a word unlike "efflux" (cosine 0.17 with the packaged MiniLM).
``readable`` undoes all three; the mention lane's tokenizer spells ligatures
out with the rest of NFKC, drops the invisible characters and joins broken
words itself, keeping offsets.

A line-end hyphen between two letter runs, the second starting in lower case,
is read as a break inside one word and dropped, unless the two halves are
each a word of general English and together they are none: then the hyphen
was the text's own ("cell-\\nmediated", "self-\\nrenewal") and stays, and the
two words stay two tokens as any hyphen makes them. Whether a string is a
word is read from ``wordfreq``'s English list (``commonness``, the seed
confidence's signal), loaded only when a text has such a break.
On the CRAFT paragraphs of the dev suite wrapped at 72 columns and
hyphenated by syllable (``benchmarks/wrapped_units.py``), the rule joins
99.0 % of the 8,125 breaks inside a word and keeps 77.6 % of the 727 breaks
after a compound's own hyphen (most of the rest are joined into a word the
list knows: "upregulated", "knockin").

A capitalized second half ("anti-\\nBrdU", "Tyrc-\\nH") is a compound with a
name and stays as it is.

>>> join_line_breaks("the mito-\\nchondrial mem-\\n  brane of a cell-\\nmediated")
'the mitochondrial membrane of a cell-\\nmediated'
>>> [line_break_hyphens(t) for t in ("deter-\\nmine", "anti-\\nBrdU", "a-b")]
[[(5, 7)], [], []]
"""

from __future__ import annotations

import re
import unicodedata

from ontoretrieve.index.commonness import commonness

__all__ = ["INVISIBLE", "join_line_breaks", "line_break_hyphens", "readable", "spell_ligatures"]

_LINE_END_HYPHEN = re.compile(
    r"(?<=[^\W\d_])[-\u00ad\u2010\u2011][^\S\n]*\r?\n[^\S\n]*(?=[^\W\d_])")
"""A hyphen after a letter (the ASCII one, a soft hyphen as PDF text layers write the
typesetter's, or the Unicode hyphens), the end of its line, and the blanks before the
next line's first letter (a blank line ends a paragraph, not a line)."""

_LIGATURES = {chr(code): unicodedata.normalize("NFKC", chr(code))
              for code in range(0xFB00, 0xFB07)}
"""The Latin typographic ligatures and their letters ("ﬃ" -> "ffi", "ﬆ" -> "st")."""

_LIGATURE = re.compile("[" + "".join(_LIGATURES) + "]")


INVISIBLE = frozenset("\u00ad\u200b\u200c\u200d\u2060\ufeff")
"""Characters that only hint at where a line may break or letters join: the soft
hyphen (HTML's ``&shy;``, a PDF's hyphenation points), the zero-width space,
non-joiner and joiner, the word joiner, the zero-width no-break space. Inside a
word ("mito\\u00adchondrial") they are no boundary; NFKC keeps them."""

_INVISIBLE = re.compile("[" + "".join(sorted(INVISIBLE)) + "]")


def readable(text: str) -> str:
    """``text`` as the lanes should read it: ligatures spelled out, invisible
    characters dropped, words a line break splits joined.

    >>> readable("the eﬄux of mito-\\nchondrial ﬁbres, hepato\\u00adcytes, apop\\u00ad\\ntosis")
    'the efflux of mitochondrial fibres, hepatocytes, apoptosis'
    """
    if text.isascii():  # most texts: nothing but line breaks to mend
        return join_line_breaks(text)
    # A soft hyphen can end a broken line: joined first, dropped where it is left.
    return _INVISIBLE.sub("", join_line_breaks(spell_ligatures(text)))


def spell_ligatures(text: str) -> str:
    """``text`` with each typographic ligature replaced by its letters.

    >>> spell_ligatures("ﬁn ﬂow ﬀ"), spell_ligatures("plain")
    ('fin flow ff', 'plain')
    """
    if text.isascii():  # most texts: no ligature to look for
        return text
    return _LIGATURE.sub(lambda match: _LIGATURES[match.group()], text)


def line_break_hyphens(text: str) -> list[tuple[int, int]]:
    """The character spans (from the hyphen to the next word's first letter) of the
    line-end hyphens in ``text`` that split one word, in text order.

    >>> line_break_hyphens("apop-\\r\\ntosis and self-\\nrenewal")
    [(4, 7)]
    """
    if "\n" not in text:  # most texts: no line break, nothing to read
        return []
    found = []
    for match in _LINE_END_HYPHEN.finditer(text):
        start, end = match.span()
        head = _letters_before(text, start)
        tail = _letters_after(text, end)
        if tail[0].islower() and _one_word(head, tail):
            found.append((start, end))
    return found


def join_line_breaks(text: str) -> str:
    """``text`` with the line-end hyphens that split a word dropped (``line_break_hyphens``),
    and the line break with them.

    >>> join_line_breaks("pro-\\nliferation"), join_line_breaks("no break here")
    ('proliferation', 'no break here')
    """
    spans = line_break_hyphens(text)
    if not spans:
        return text
    parts, position = [], 0
    for start, end in spans:
        parts.append(text[position:start])
        position = end
    parts.append(text[position:])
    return "".join(parts)


def _letters_before(text: str, end: int) -> str:
    start = end
    while start > 0 and text[start - 1].isalpha():
        start -= 1
    return text[start:end]


def _letters_after(text: str, start: int) -> str:
    end = start
    while end < len(text) and text[end].isalpha():
        end += 1
    return text[start:end]


def _one_word(head: str, tail: str) -> bool:
    """Whether ``head`` and ``tail`` are the halves of one word (see the module docstring):
    a word ``commonness`` knows, or not two words it knows."""
    return commonness(head + tail) > 0 or not (commonness(head) > 0 and commonness(tail) > 0)
