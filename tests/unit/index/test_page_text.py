"""Page text mended: words a line break splits read whole (a compound's own hyphen stays),
ligatures spelled out."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ontoretrieve.index.page_text import (
    join_line_breaks,
    line_break_hyphens,
    readable,
    spell_ligatures,
)


def test_a_syllable_break_is_joined_whatever_the_line_ending_and_indent() -> None:
    assert join_line_breaks("deter-\nmine") == "determine"
    assert join_line_breaks("muta-\r\ntions") == "mutations"
    assert join_line_breaks("apop- \n\t tosis") == "apoptosis"
    assert join_line_breaks("spermato-\ngenesis") == "spermatogenesis"  # a half no word


def test_a_soft_or_unicode_hyphen_at_a_line_end_breaks_a_word_too() -> None:
    assert join_line_breaks("mito\u00ad\nchondrial") == "mitochondrial"
    assert join_line_breaks("apop\u2010\ntosis") == "apoptosis"
    assert readable("hepato\u00ad\r\ncytes") == "hepatocytes"


def test_a_compound_keeps_its_hyphen_and_a_name_after_it_keeps_its_case() -> None:
    assert join_line_breaks("cell-\nmediated and self-\nrenewal") == \
        "cell-\nmediated and self-\nrenewal"
    assert join_line_breaks("anti-\nBrdU") == "anti-\nBrdU"


def test_only_a_hyphen_at_a_line_end_between_letters_is_a_break() -> None:
    for text in ("T-cell", "4-\n15 days", "a -\nb", "mito-\n\n", "-\nchondrial", "deter-",
                 "mito-\n\nchondrial"):  # a blank line ends a paragraph
        assert line_break_hyphens(text) == []
        assert join_line_breaks(text) == text


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab-\n \r", max_size=40))
def test_joining_only_ever_drops_a_hyphen_and_the_blanks_after_it(text: str) -> None:
    spans = line_break_hyphens(text)
    for start, end in spans:
        dropped = text[start:end]
        assert dropped[0] == "-" and "\n" in dropped and not dropped.strip("-\r\n \t")
    assert len(join_line_breaks(text)) == len(text) - sum(e - s for s, e in spans)


def test_ligatures_are_spelled_out_invisible_hints_dropped_and_nothing_else_changes() -> None:
    assert spell_ligatures("eﬄux of ﬁbroblasts, ﬂow, ﬀ, ﬆ") == "efflux of fibroblasts, flow, ff, st"
    assert spell_ligatures("5 µm² at 37 °C, ½") == "5 µm² at 37 °C, ½"  # no other NFKC change
    assert readable("the eﬄux of mito-\nchondrial ﬁbres") == "the efflux of mitochondrial fibres"
    assert readable("mito\u00adchon\u200bdrial\ufeff") == "mitochondrial"
