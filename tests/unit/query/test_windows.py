"""Query windows: bounds, overlap, sampling, and coverage as properties."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ontoretrieve.query.windows import (
    evenly_sampled,
    make_windows,
    make_windows_with_metrics,
    naive_sentences,
    split_sentences,
)
from ontoretrieve.settings.groups import WindowSettings

TEXT = ("Little is known about IOP in mice. The purpose was to find it. "
        "We used 12 strains. Results varied by age. Sex mattered too.")
WORDS = st.sampled_from(["cell", "mice", "Fig.", "3.5", "kV", "200", "e.g.", "The", "a",
                         "J.", "Smith", "grew", "fast"])
SENTENCE = st.lists(WORDS, min_size=1, max_size=12).map(lambda w: " ".join(w) + ".")
UNIT = st.lists(SENTENCE, min_size=1, max_size=30).map(" ".join)


def words_of(text: str) -> list[str]:
    return text.split()


def test_sentence_windows_and_stride() -> None:
    windows = make_windows(TEXT, WindowSettings())
    assert [w.text for w in windows] == [
        "Little is known about IOP in mice. The purpose was to find it.",
        "We used 12 strains. Results varied by age.", "Sex mattered too."]
    strided = make_windows(TEXT, WindowSettings(window_stride=1))
    assert len(strided) == 4 and strided[1].text.startswith("The purpose")


def test_character_budget_joins_short_sentences_and_keeps_long_ones_whole() -> None:
    windows = make_windows(TEXT, WindowSettings(window_max_chars=45))
    assert all(len(w.text) <= 45 or "." not in w.text[:-1] for w in windows)
    long = "x" * 100 + ". Short one."
    assert make_windows(long, WindowSettings(window_max_chars=20))[0].text == "x" * 100 + "."


def test_token_budget_cuts_long_sentences_but_not_measurements() -> None:
    text = "The source delivered 200 kV over 4 - 15 days in the long test run today."
    count = lambda t: len(t.split())  # noqa: E731 - one token per word
    plain = make_windows(text, WindowSettings(window_max_tokens=4), count)
    assert max(count(w.text) for w in plain) <= 4
    aware = make_windows(text, WindowSettings(window_max_tokens=4, measurement_aware=True),
                         count)
    assert any("200 kV" in w.text for w in aware)
    assert any("4 - 15" in w.text for w in aware)


def test_windows_read_page_text_as_its_words_and_never_cut_inside_a_broken_word() -> None:
    text = "The mito-\nchondrial membrane of hepato-\ncytes was damaged by eﬄux."
    joined = "The mitochondrial membrane of hepatocytes was damaged by efflux."
    (window,) = make_windows(text, WindowSettings())
    assert (window.text, window.start, window.end) == (joined, 0, len(text))
    (raw,) = make_windows(text, WindowSettings(mend_page_text=False))  # the reference
    assert raw.text == text
    count = lambda t: len(t.split())  # noqa: E731 - one token per word
    cut = make_windows(text, WindowSettings(window_max_tokens=2), count)
    assert not any(w.text.rstrip().endswith("-") for w in cut)
    assert "mitochondrial" in {word for w in cut for word in w.text.split()}
    assert "hepatocytes" in {word for w in cut for word in w.text.split()}
    assert make_windows("\u00ad \u200b", WindowSettings()) == []  # invisible alone: nothing


def test_without_a_tokenizer_tokens_are_approximated_and_said_so() -> None:
    _, metrics = make_windows_with_metrics(TEXT, WindowSettings(window_max_tokens=10))
    assert metrics.bound == "tokens~chars"


def test_truncated_queries_are_counted() -> None:
    _, metrics = make_windows_with_metrics(TEXT, WindowSettings(), lambda t: len(t.split()),
                                           sequence_limit=5)
    assert metrics.queries_truncated == 2 and metrics.query_sequence_limit == 5


def test_whole_unit_when_proposition_retrieval_is_off() -> None:
    (window,) = make_windows(TEXT, WindowSettings(proposition_retrieval_enabled=False))
    assert window.text == TEXT


def test_max_windows_samples_evenly() -> None:
    text = " ".join(f"Sentence number {i}." for i in range(40))
    windows = make_windows(text, WindowSettings(window_sentences=1, max_windows=5))
    assert [w.text for w in windows] == [f"Sentence number {i}." for i in (0, 10, 20, 29, 39)]
    assert evenly_sampled(3, 5) == [0, 1, 2]


def test_splitter_is_better_than_breaking_on_every_period() -> None:
    text = "Mice (e.g. strain B6) were used by J. Smith et al. in Fig. 2. It rose 3.5 fold."
    naive = [text[a:b] for a, b in naive_sentences(text)]
    ours = [text[a:b] for a, b in split_sentences(text, abbreviation_aware=True)]
    assert len(naive) == 6
    assert ours == ["Mice (e.g. strain B6) were used by J. Smith et al. in Fig. 2.",
                    "It rose 3.5 fold."]


@settings(max_examples=150, deadline=None)
@given(text=UNIT, size=st.integers(1, 4))
def test_sentence_windows_cover_every_word_in_order(text: str, size: int) -> None:
    windows = make_windows(text, WindowSettings(window_sentences=size, max_windows=10_000))
    covered = " ".join(w.text for w in windows)
    assert words_of(covered) == words_of(text)


@settings(max_examples=150, deadline=None)
@given(text=UNIT, budget=st.integers(5, 200), overlap=st.sampled_from([0.0, 0.25, 0.5]))
def test_char_windows_cover_the_text_and_overlap_only_adds(
        text: str, budget: int, overlap: float) -> None:
    config = WindowSettings(window_max_chars=budget, window_overlap=overlap,
                            max_windows=10_000)
    windows = make_windows(text, config)
    position = 0
    for window in windows:  # windows start in order, and leave no gap
        assert window.start <= position or not text[position:window.start].strip()
        position = max(position, window.end)
    assert not text[position:].strip()
    disjoint = make_windows(text, config.model_copy(update={"window_overlap": 0.0}))
    assert len(windows) >= len(disjoint)


@settings(max_examples=100, deadline=None)
@given(text=UNIT, budget=st.integers(3, 30))
def test_token_windows_respect_the_budget_where_a_cut_exists(text: str, budget: int) -> None:
    count = lambda t: len(t.split())  # noqa: E731
    for window in make_windows(text, WindowSettings(window_max_tokens=budget,
                                                    max_windows=10_000), count):
        assert count(window.text) <= budget
