"""Token-budgeted dense batches: every text once, in order, within both limits."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ontoretrieve.index.embed import token_batches


@given(st.lists(st.integers(1, 300), max_size=200), st.integers(1, 80), st.integers(1, 5000))
def test_batches_cover_every_text_in_order_within_the_limits(
        lengths: list[int], max_texts: int, max_tokens: int) -> None:
    batches = token_batches(lengths, max_texts, max_tokens)
    assert [i for batch in batches for i in batch] == list(range(len(lengths)))
    for batch in batches:
        assert 1 <= len(batch) <= max_texts
        padded = len(batch) * max(lengths[i] for i in batch)
        assert len(batch) == 1 or padded <= max_tokens  # a lone text may exceed the budget


def test_a_long_text_goes_alone_and_short_ones_fill_the_budget() -> None:
    assert token_batches([128, 8, 8, 8], max_texts=64, max_tokens=100) == [
        range(0, 1), range(1, 4)]
