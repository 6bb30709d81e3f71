"""How a term's IRI and labels name it (``context/names.py``)."""

from __future__ import annotations

import re

import pyoxigraph as ox
from hypothesis import given
from hypothesis import strategies as st

from ontoretrieve.context.names import reads_as_words

WORDS_PATTERN = re.compile(r"[A-Za-z]+(?:[_-][A-Za-z]+)*")
"""The names that read as words, as a pattern: runs of ASCII letters, one separator between
two (a reference for short names only; the engine does not match it)."""


@given(st.text(alphabet="aZq_-1é.", max_size=14))
def test_a_local_name_reads_as_words_exactly_when_it_is_letters_and_single_separators(
        local: str) -> None:
    expected = (len(local) >= 3 and any(c.islower() for c in local)
                and WORDS_PATTERN.fullmatch(local) is not None)
    assert reads_as_words(ox.NamedNode("http://x.org/o#" + local)) is expected


def test_long_local_names_that_are_no_words_are_told_at_once() -> None:
    # A run of letters before a digit or a dot made the former pattern
    # ("[A-Za-z]+(?:[_-]?[A-Za-z]+)*") try every split of the run: 0.16 s at 22
    # letters, doubling with each letter; a catalog copy's "...Specification-copy1"
    # held a 60-letter one. These names return False; before, they did not return.
    for local in ("hasEligibleQuantity" * 3 + "2", "a" * 200 + ".", "Accept-" * 30 + "copy1"):
        assert not reads_as_words(ox.NamedNode("http://x.org/o#" + local))
    assert reads_as_words(ox.NamedNode("http://x.org/o#" + "has_Eligible-" * 20 + "Quantity"))
