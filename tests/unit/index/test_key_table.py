"""The mention dictionary's key table: every whole-word key of a stream, in scan order."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ontoretrieve.index.key_table import KeyTable

WORD = st.sampled_from(["a", "b", "ab", "c", "cell", "stem", "%"])
PHRASE = st.lists(WORD, min_size=1, max_size=4).map(lambda w: " " + " ".join(w) + " ")


def every_occurrence(keys: dict[str, int], stream: str) -> list[tuple[int, int]]:
    """What a character automaton reports: each key wherever it occurs, as (index of its
    last character, value), by that index and the longer key first."""
    found = []
    for key, value in keys.items():
        at = stream.find(key)
        while at >= 0:
            found.append((at + len(key) - 1, -len(key), value))
            at = stream.find(key, at + 1)
    return [(end, value) for end, _, value in sorted(found)]


@settings(max_examples=300, deadline=None)
@given(keys=st.lists(PHRASE, max_size=12), stream=st.lists(WORD, max_size=14))
def test_finds_what_a_scan_of_every_key_finds(keys: list[str], stream: list[str]) -> None:
    table = KeyTable[int]()
    values = {key: number for number, key in enumerate(dict.fromkeys(keys))}
    for key, value in values.items():
        table.add(key, value)
    padded = " " + " ".join(stream) + " "
    assert table.find(padded) == every_occurrence(values, padded)


def test_nested_and_overlapping_keys_all_come_back() -> None:
    table = KeyTable[str]()
    for key in (" embryon stem cell ", " stem cell ", " stem ", " cell line ", " line "):
        table.add(key, key.strip())
    assert table.find(" embryon stem cell line ") == [
        (13, "stem"), (18, "embryon stem cell"), (18, "stem cell"), (23, "cell line"),
        (23, "line")]


def test_a_key_is_never_found_inside_a_word() -> None:
    table = KeyTable[str]()
    table.add(" cell ", "cell")
    assert table.find(" cells ") == [] and table.find(" stemcell ") == []


def test_a_prefix_of_a_key_is_no_key() -> None:
    table = KeyTable[str]()
    table.add(" stem cell ", "stem cell")
    assert table.find(" stem ") == [] and table.get(" stem ") is None


def test_a_value_may_be_falsy() -> None:
    table = KeyTable[int]()
    table.add(" a ", 0)
    assert table.find(" a ") == [(2, 0)] and table.get(" a ", 9) == 0


@pytest.mark.parametrize("key", ["cell", " cell", "cell ", " stem  cell ", " ", ""])
def test_a_key_that_is_not_padded_words_is_refused(key: str) -> None:
    with pytest.raises(ValueError, match="padded with one on each side"):
        KeyTable[int]().add(key, 1)


def test_a_table_reads_back_from_a_pickle() -> None:
    table = KeyTable[str]()
    table.add(" stem cell ", "x")
    again = pickle.loads(pickle.dumps(table))
    assert again.find(" a stem cell ") == [(12, "x")] and len(again) == 1
