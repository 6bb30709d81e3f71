"""Query windows: a unit's text as a series of short queries.

Pure. A window is bounded by exactly one of: a number of sentences (with a
stride), a character budget, or an encoder-token budget (both with a
fractional overlap). Over ``max_windows``, windows are sampled evenly from
start to end.

Sentences come from ``split_sentences``, which improves on the reference's
split-at-every-period: it never breaks before a lowercase continuation, inside
a number ("3.5") or before a closing bracket, and with ``abbreviation_aware``
it also keeps abbreviations ("Fig. 2", "et al. 2005"), initials ("J. Smith")
and citation runs together. ``benchmarks/sentence_split.py`` measures both on
bench text.

>>> from ontoretrieve.settings.groups import WindowSettings
>>> text = "Cells divide. Fig. 2 shows it. Mice were used. A fourth one."
>>> [w.text for w in make_windows(text, WindowSettings())]
['Cells divide. Fig.', '2 shows it. Mice were used.', 'A fourth one.']
>>> [w.text for w in make_windows(text, WindowSettings(abbreviation_aware=True))]
['Cells divide. Fig. 2 shows it.', 'Mice were used. A fourth one.']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ontoretrieve.index.page_text import line_break_hyphens, readable
from ontoretrieve.settings.groups import WindowSettings

__all__ = [
    "Window",
    "WindowMetrics",
    "evenly_sampled",
    "has_words",
    "make_windows",
    "naive_sentences",
    "split_sentences",
]

TokenCounter = Callable[[str], int]
"""Tokens the encoder sees for a text, special tokens included."""

_BOUNDARY = re.compile(r"[.!?]+[\"')\]]*\s+")
_ABBREVIATIONS = frozenset({
    "fig", "figs", "eq", "eqs", "ref", "refs", "no", "nos", "vol", "vols", "pp", "p", "ch",
    "chap", "sect", "sec", "tab", "suppl", "app", "dr", "mr", "mrs", "ms", "prof", "st", "jr",
    "sr", "inc", "ltd", "co", "corp", "dept", "univ", "approx", "ca", "cf", "vs", "viz", "al",
    "etc", "resp", "e.g", "i.e", "et", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep",
    "sept", "oct", "nov", "dec", "u.s",
})
_MEASURE_TAIL = re.compile(r"\d(?:[.,]\d+)?\s*$")
_MEASURE_HEAD = re.compile(r"^(?:[-\u2013]\s*\d|[%°µμΩ]|[A-Za-zµμΩ°]{1,5}\b)")


@dataclass(frozen=True, slots=True)
class Window:
    """One query: its text and where it sits in the unit (character offsets)."""

    index: int
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class WindowMetrics:
    windows_built: int
    windows_kept: int
    bound: str
    """``sentences``, ``chars``, ``tokens``, ``tokens~chars`` (no tokenizer) or ``unit``."""
    queries_truncated: int
    """Kept windows longer than the encoder's sequence limit (silently cut by it)."""
    query_sequence_limit: int | None


def has_words(text: str) -> bool:
    """Whether the text holds a letter or a digit: blanks, control characters (NUL),
    punctuation and emoji alone name nothing, so they get no seeds and no context.

    >>> has_words("\\x00 \\U0001F600 ?!"), has_words("5 mV"), has_words("日本")
    (False, True, True)
    """
    return any(ch.isalnum() for ch in text)


def naive_sentences(text: str) -> list[tuple[int, int]]:
    """The reference splitter: a break after every period followed by space."""
    spans, start = [], 0
    for match in re.finditer(r"[.!?]\s+", text):
        spans.append((start, match.start() + 1))
        start = match.end()
    if text[start:].strip():
        spans.append((start, len(text.rstrip())))
    return [s for s in spans if text[s[0]:s[1]].strip()]


def split_sentences(text: str, abbreviation_aware: bool = False) -> list[tuple[int, int]]:
    """Sentence spans (start, end) in ``text``.

    >>> t = "It rose 3.5 fold (see ref. 4). Then it fell."
    >>> [t[a:b] for a, b in split_sentences(t, abbreviation_aware=True)]
    ['It rose 3.5 fold (see ref. 4).', 'Then it fell.']
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end()
        following = text[end:end + 1]
        if not following or following.islower() or following in ",;:)]":
            continue  # a lowercase continuation is never a new sentence
        if abbreviation_aware and _ends_in_abbreviation(text[start:match.start() + 1]):
            continue
        piece_end = len(text[:end].rstrip())
        if text[start:piece_end].strip():
            spans.append((start, piece_end))
        start = end
    tail = text[start:].rstrip()
    if tail.strip():
        spans.append((start, start + len(tail)))
    return spans


def _ends_in_abbreviation(piece: str) -> bool:
    words = piece.split()
    if not words:
        return False
    last = words[-1].strip("(").rstrip(".").lower()
    if last in _ABBREVIATIONS:
        return True
    # An initial ("J.") or an abbreviated journal word ("Natl.", "Acad.").
    bare = words[-1].strip("(").rstrip(".")
    return (len(bare) == 1 and bare.isupper()) or (
        len(bare) <= 5 and bare[:1].isupper() and bare[1:].islower() and len(words) > 1
        and words[-2].rstrip(".").istitle() and words[-2].endswith("."))


def evenly_sampled(count: int, limit: int) -> list[int]:
    """``limit`` indices spread evenly over ``range(count)``, first and last included.

    >>> evenly_sampled(10, 4)
    [0, 3, 6, 9]
    """
    if count <= limit:
        return list(range(count))
    if limit == 1:
        return [0]
    return sorted({round(i * (count - 1) / (limit - 1)) for i in range(limit)})


def make_windows(
    text: str,
    settings: WindowSettings,
    count_tokens: TokenCounter | None = None,
    sequence_limit: int | None = None,
) -> list[Window]:
    """The unit's windows (see the module docstring)."""
    return make_windows_with_metrics(text, settings, count_tokens, sequence_limit)[0]


def make_windows_with_metrics(
    text: str,
    settings: WindowSettings,
    count_tokens: TokenCounter | None = None,
    sequence_limit: int | None = None,
) -> tuple[list[Window], WindowMetrics]:
    """The unit's windows and what building them did."""
    if not text.strip():
        return [], WindowMetrics(0, 0, "unit", 0, sequence_limit)
    if not settings.proposition_retrieval_enabled:
        stripped = text.strip()
        start = text.index(stripped)
        spans, bound = [(start, start + len(stripped))], "unit"
    else:
        sentences = split_sentences(text, settings.abbreviation_aware)
        if settings.window_max_tokens is not None:
            counter = count_tokens or (lambda t: max(1, len(t) // 4))
            bound = "tokens" if count_tokens else "tokens~chars"
            pieces = _cut_long(text, sentences, settings.window_max_tokens, counter,
                               settings.measurement_aware,
                               line_break_hyphens(text) if settings.mend_page_text else [])
            spans = _budgeted(text, pieces, settings.window_max_tokens, settings.window_overlap,
                              counter)
        elif settings.window_max_chars is not None:
            bound = "chars"
            spans = _budgeted(text, sentences, settings.window_max_chars,
                              settings.window_overlap, len)
        else:
            bound = "sentences"
            spans = _by_sentences(sentences, settings.window_sentences,
                                  settings.window_stride or settings.window_sentences)
    kept = evenly_sampled(len(spans), settings.max_windows)
    read = readable if settings.mend_page_text else str
    read_spans = [(read(text[spans[k][0]:spans[k][1]]), *spans[k]) for k in kept]
    # A span of invisible characters alone (a stray soft hyphen) reads as nothing: no window.
    windows = [Window(i, words, start, end) for i, (words, start, end)
               in enumerate(r for r in read_spans if r[0].strip())]
    truncated = 0
    if count_tokens is not None and sequence_limit is not None:
        truncated = sum(count_tokens(w.text) > sequence_limit for w in windows)
    return windows, WindowMetrics(len(spans), len(windows), bound, truncated, sequence_limit)


def _by_sentences(sentences: list[tuple[int, int]], size: int, stride: int
                  ) -> list[tuple[int, int]]:
    spans = []
    for first in range(0, len(sentences), stride):
        group = sentences[first:first + size]
        spans.append((group[0][0], group[-1][1]))
        if first + size >= len(sentences):
            break
    return spans


def _budgeted(text: str, pieces: list[tuple[int, int]], budget: int, overlap: float,
              measure: Callable[[str], int]) -> list[tuple[int, int]]:
    """Greedy windows of whole pieces within ``budget``; a piece over it stands alone."""
    sizes = [measure(text[a:b]) for a, b in pieces]
    spans: list[tuple[int, int]] = []
    first = 0
    while first < len(pieces):
        last, used = first, sizes[first]
        while last + 1 < len(pieces) and used + sizes[last + 1] <= budget:
            last += 1
            used += sizes[last]
        spans.append((pieces[first][0], pieces[last][1]))
        if last + 1 >= len(pieces):
            break
        # Step back over trailing pieces worth about overlap x budget, always advancing.
        following, carried = last + 1, 0
        while overlap > 0 and following - 1 > first and (
                carried + sizes[following - 1] <= overlap * budget):
            following -= 1
            carried += sizes[following]
        first = following
    return spans


def _cut_long(text: str, sentences: list[tuple[int, int]], budget: int,
              count: TokenCounter, measurement_aware: bool,
              broken_words: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """Cut sentences over the token budget at whitespace, never inside a measurement
    nor at the line break inside a word (``broken_words``: ``line_break_hyphens``).

    A stretch without an allowed cut stays whole, even over the budget.
    """
    pieces: list[tuple[int, int]] = []
    # Each span is a hyphen and a few blanks: their offsets, as a set, cost one lookup a cut.
    inside_words = {c for s, e in broken_words for c in range(s, e)}
    for start, end in sentences:
        if count(text[start:end]) <= budget:
            pieces.append((start, end))
            continue
        cuts = [start + m.start() for m in re.finditer(r"\s+", text[start:end])]
        if measurement_aware:
            cuts = [c for c in cuts if not _inside_measurement(text, c)]
        if inside_words:
            cuts = [c for c in cuts if c not in inside_words]
        piece_start, previous = start, None
        for cut in [*cuts, end]:
            if (previous is not None and previous > piece_start
                    and count(text[piece_start:cut]) > budget):
                pieces.append((piece_start, previous))
                piece_start = _skip_space(text, previous)
            previous = cut
        pieces.append((piece_start, end))
    return [p for p in pieces if text[p[0]:p[1]].strip()]


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def _inside_measurement(text: str, cut: int) -> bool:
    """A cut between "200" and "kV", or inside "4 - 15", splits a measurement."""
    before = text[max(0, cut - 24):cut]
    after = text[cut:cut + 24].lstrip()
    if _MEASURE_TAIL.search(before) and _MEASURE_HEAD.match(after):
        return True
    return bool(re.search(r"\d\s*[-\u2013]\s*$", before) and re.match(r"\d", after))
