"""The mention lane on the query path: mentions -> a ranked hit list per window.

Pure. The dictionary finds every mention of the text once; each window gets
the terms named by spans that start inside it, ranked by their strongest
mention (kind, span length, ambiguity, nesting; see ``Mention.strength``),
as ``LaneHit`` s that fuse like any other lane's. A term needs its index
payload to become a hit: a mention of a term the index does not hold (a
stale dictionary) is dropped.

>>> from ontoretrieve.index.mention_match import Mention
>>> from ontoretrieve.query.windows import Window
>>> m = Mention("http://x/t", "h1", 2, 6, "cell", "cell", " cell ", "label", True, 1)
>>> payloads = {("http://x/t", "h1"): {"iri": "http://x/t", "ontology_hash": "h1"}}
>>> [[h.payload["iri"] for h in hits] for hits in
...  window_hits([m], [Window(0, "a cell", 0, 6)], payloads, depth=10)]
[['http://x/t']]
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

import numpy as np

from ontoretrieve.backends.vector_index import DenseVector, LaneHit, point_id
from ontoretrieve.index.mention_forms import FormKind
from ontoretrieve.index.mention_match import Mention
from ontoretrieve.index.mention_text import STOPWORDS, fold_word, tokenize
from ontoretrieve.query.windows import Window
from ontoretrieve.records import AtomPayload
from ontoretrieve.settings.groups import SenseForms

__all__ = ["dense_span_mentions", "evidence_of", "flag_misfits", "pick_senses",
           "span_candidates", "units_after_numbers", "usable", "window_hits"]

PayloadKey = tuple[str, str]
"""(iri, ontology hash)."""

LOOSE_KINDS = frozenset({FormKind.RELATED.value, FormKind.BROAD.value, FormKind.NARROW.value})
"""Synonyms whose scope says they name something near the term, not the term itself (OBO's
related, broad and narrow synonyms); every other form (a label, an exact synonym, a
symbol, a local name, an elliptic form of a name) names the term."""


def usable(mentions: Sequence[Mention], max_shared: int) -> list[Mention]:
    """Mentions whose form is shared by at most ``max_shared`` terms (0: all)."""
    return [m for m in mentions if not max_shared or m.shared_by <= max_shared]


def units_after_numbers(mentions: Sequence[Mention], units: Collection[PayloadKey]
                        ) -> list[Mention]:
    """A span right after a number names a unit of measure when one of its terms is one
    (``units``: (iri, ontology hash) pairs): its other terms are dropped. "100 m" names
    the metre, not the mass nor the prefix whose symbol is "m" too; a span naming no unit
    ("3 mice") keeps every term. A unit's namesake stays (``namesake_of``: "500 bp" names
    the unit *Base Pair* and SO's *base pair*).

    >>> from ontoretrieve.index.mention_match import Mention
    >>> ms = [Mention(i, "h", 4, 5, "m", "m", " m ", "symbol", True, 2, after_number=True)
    ...       for i in ("x:metre", "x:mass")]
    >>> [m.iri for m in units_after_numbers(ms, {("x:metre", "h")})]
    ['x:metre']
    >>> [m.iri for m in units_after_numbers(ms, set())]
    ['x:metre', 'x:mass']
    """
    measured = {(m.start, m.end) for m in mentions
                if m.after_number and (m.iri, m.ontology_hash) in units}
    return [m for m in mentions
            if not (m.after_number and (m.start, m.end) in measured)
            or (m.iri, m.ontology_hash) in units or m.namesake_of is not None]


def pick_senses(mentions: Sequence[Mention], windows: Sequence[Window],
                window_vectors: Sequence[DenseVector],
                term_vectors: Mapping[str, DenseVector], keep: int,
                after_numbers: bool = False,
                by_form: SenseForms = SenseForms.FIT) -> list[Mention]:
    """Word sense choice: a span naming several terms keeps its strength for the ``keep``
    terms nearest (cosine of core vectors) the window the span starts in; the others
    are flagged ``outranked``. A term without a vector is never outranked; nor are
    spans right after a number unless ``after_numbers``. An elliptic reading the text
    gives no cohesion (``cohesive`` false) takes no sense from the span's names and is
    not outranked by them: the confidence order weighs it apart.

    ``by_form`` weighs how the span names each term (``mentions.sense_forms``): with
    ``names_first`` the terms it names by a name come before those it names by a loose
    synonym (``LOOSE_KINDS``), the nearest first within each; with ``names_only`` a
    loose synonym is outranked whenever the span names some term by a name.

    >>> from ontoretrieve.index.mention_match import Mention
    >>> ms = [Mention(i, "h", 0, 6, "states", "state", "state", "label", True, 2)
    ...       for i in ("x:condition", "x:country")]
    >>> vectors = {"x:condition": np.array([1.0, 0.0]), "x:country": np.array([0.0, 1.0])}
    >>> picked = pick_senses(ms, [Window(0, "states", 0, 6)], [np.array([0.9, 0.1])],
    ...                      vectors, keep=1)
    >>> [(m.iri, m.outranked) for m in picked]
    [('x:condition', False), ('x:country', True)]

    The eye the text names by its label, not the eyeball a related synonym names,
    however near the passage is to the eyeball:

    >>> ms = [Mention("x:eye", "h", 0, 3, "eye", "eye", "eye", "label", True, 2),
    ...       Mention("x:eyeball", "h", 0, 3, "eye", "eye", "eye", "related", True, 2)]
    >>> vectors = {"x:eye": np.array([0.0, 1.0]), "x:eyeball": np.array([1.0, 0.0])}
    >>> picked = pick_senses(ms, [Window(0, "eye", 0, 3)], [np.array([0.9, 0.1])],
    ...                      vectors, keep=1, by_form=SenseForms.NAMES_FIRST)
    >>> [(m.iri, m.outranked) for m in picked]
    [('x:eye', False), ('x:eyeball', True)]
    """
    if keep <= 0 or not windows:
        return list(mentions)
    groups: dict[tuple[int, int, str], dict[str, bool]] = {}  # span -> term -> by a name
    for m in mentions:
        if (after_numbers or not m.after_number) and m.cohesive:
            named = groups.setdefault((m.start, m.end, m.key), {})
            named[m.iri] = named.get(m.iri, False) or m.kind not in LOOSE_KINDS
    outranked: set[tuple[int, int, str, str]] = set()
    for (start, end, key), named in groups.items():
        scored = [i for i in named if i in term_vectors]
        if len(named) <= keep or len(scored) <= keep:
            continue
        window = _window_at(windows, start)
        by_name = by_form is not SenseForms.FIT
        # Equal fits (terms with one text in several ontologies) rank by IRI, never by
        # the set's order, which changes from process to process.
        near = sorted(scored, key=lambda i: (by_name and not named[i],
                                             -float(np.dot(window_vectors[window],
                                                           term_vectors[i])), i))
        kept = near[:keep]
        if by_form is SenseForms.NAMES_ONLY and named[near[0]]:
            kept = [i for i in kept if named[i]]
        outranked |= {(start, end, key, iri) for iri in scored if iri not in kept}
    return [replace(m, outranked=True) if (m.start, m.end, m.key, m.iri) in outranked else m
            for m in mentions]


def flag_misfits(mentions: Sequence[Mention], windows: Sequence[Window],
                 window_vectors: Sequence[DenseVector],
                 term_vectors: Mapping[str, DenseVector], floor: float,
                 weight: float = 1.0) -> list[Mention]:
    """Topic fit: a mention is flagged ``misfit`` when its term's core vector has a cosine
    below ``floor`` with the window the span starts in and no other term of the same
    ontology fits the text: the word names the term, the passage is about something else
    ("activity" for radioactivity in a paragraph on gene regulation, "report" for a
    bibliographic class). An ontology the text is about excuses its generic terms
    ("human", "adult", "tissue" in a paper on mouse genetics fit their windows poorly,
    but the taxonomy and anatomy fit elsewhere). A misfit keeps ``weight`` of its
    strength. Spans right after a number (a quantity's unit, named on purpose) fit, and
    terms without a vector are never flagged; ``floor`` 0 flags nothing.

    >>> from ontoretrieve.index.mention_match import Mention
    >>> def named(iri, ontology):
    ...     return Mention(iri, ontology, 0, 8, "activity", "activity", "activ", "label",
    ...                    True, 1)
    >>> ms = [named("x:radioactivity", "quantities"), named("x:enzyme_activity", "biology"),
    ...       named("x:human", "taxa"), named("x:mouse", "taxa")]
    >>> vectors = {"x:radioactivity": np.array([0.0, 1.0]),
    ...            "x:enzyme_activity": np.array([0.8, 0.6]),
    ...            "x:human": np.array([0.05, 1.0]), "x:mouse": np.array([0.6, 0.8])}
    >>> fitted = flag_misfits(ms, [Window(0, "activity", 0, 8)], [np.array([1.0, 0.0])],
    ...                       vectors, floor=0.1)
    >>> [(m.iri, m.misfit) for m in fitted]
    [('x:radioactivity', True), ('x:enzyme_activity', False), ('x:human', False), \
('x:mouse', False)]
    """
    if floor <= 0 or not windows:
        return list(mentions)
    poor: set[int] = set()
    fitting: dict[str, set[str]] = {}  # ontology version -> its terms that fit
    for i, m in enumerate(mentions):
        vector = term_vectors.get(m.iri)
        if m.after_number:  # fits without a vector: the caller need not fetch one
            fitting.setdefault(m.ontology_hash, set()).add(m.iri)
        elif vector is None:
            continue
        elif float(np.dot(window_vectors[_window_at(windows, m.start)], vector)) < floor:
            poor.add(i)
        else:
            fitting.setdefault(m.ontology_hash, set()).add(m.iri)
    return [replace(m, misfit=True, misfit_weight=weight)
            if i in poor and not fitting.get(m.ontology_hash, set()) - {m.iri} else m
            for i, m in enumerate(mentions)]


def _window_at(windows: Sequence[Window], offset: int) -> int:
    """The window a character offset starts in (the last one before it, at a gap)."""
    found = 0
    for i, window in enumerate(windows):
        if window.start <= offset:
            found = i
        if window.start <= offset < window.end:
            return i
    return found


def window_hits(mentions: Sequence[Mention], windows: Sequence[Window],
                payloads: Mapping[PayloadKey, AtomPayload], depth: int
                ) -> list[list[LaneHit]]:
    """Per window, the terms its mentions name, strongest first, at most ``depth``."""
    result: list[list[LaneHit]] = []
    for window in windows:
        best: dict[PayloadKey, float] = {}
        count: dict[PayloadKey, int] = {}
        longest: dict[PayloadKey, int] = {}
        for m in mentions:
            if window.start <= m.start < window.end or (
                    m.start < window.start < m.end):  # a span across the window's edge
                key = (m.iri, m.ontology_hash)
                if key in payloads:
                    best[key] = max(best.get(key, 0.0), m.strength)
                    count[key] = count.get(key, 0) + 1
                    longest[key] = max(longest.get(key, 0), m.end - m.start)
        # Equal strengths (many unique labels score 1) rank by how often the window
        # names the term, then by the longer span.
        ranked = sorted(best.items(), key=lambda kv: (-kv[1], -count[kv[0]], -longest[kv[0]],
                                                      kv[0]))[:depth]
        result.append([LaneHit(point_id("mention|" + "|".join(key)), strength,
                               payloads[key]) for key, strength in ranked])
    return result


def span_candidates(text: str, mentions: Sequence[Mention], limit: int
                    ) -> list[tuple[int, int, str]]:
    """Content words no form names, for span-level dense matching: (start, end, word).

    Words of four letters or more that are not function words, outside every
    mention, one per folded form, in text order, at most ``limit``.

    >>> span_candidates("the olfactory bulb of mice", [], 5)
    [(4, 13, 'olfactory'), (14, 18, 'bulb'), (22, 26, 'mice')]
    """
    covered = [(m.start, m.end) for m in mentions]
    seen: set[str] = set()
    found = []
    for token in tokenize(text):
        word = token.text
        if len(word) < 4 or not word.isalpha() or word.casefold() in STOPWORDS:
            continue
        if any(s <= token.start and token.end <= e for s, e in covered):
            continue
        key = fold_word(word)
        if key in seen:
            continue
        seen.add(key)
        found.append((token.start, token.end, word))
        if len(found) >= limit:
            break
    return found


def dense_span_mentions(spans: Sequence[tuple[int, int, str]],
                        hits: Sequence[Sequence[LaneHit]], min_similarity: float
                        ) -> list[Mention]:
    """Mentions from the core-lane hits of each span, at ``min_similarity`` or above."""
    found = []
    for (start, end, word), span_hits in zip(spans, hits, strict=True):
        for hit in span_hits:
            if hit.score < min_similarity or hit.payload.get("is_header"):
                continue
            labels = hit.payload.get("labels") or [""]
            found.append(Mention(str(hit.payload["iri"]), str(hit.payload.get("ontology_hash", "")),
                                 start, end, word, str(labels[0]), "", "dense_span", False, 1,
                                 similarity=round(hit.score, 4)))
    return found


def evidence_of(mentions: Sequence[Mention], iri: str) -> list[dict[str, object]]:
    """The spans that named ``iri``, for its seed's evidence (strongest first).

    >>> m = Mention("http://x/t", "h1", 2, 6, "cell", "cell", " cell ", "label", True, 1)
    >>> evidence_of([m], "http://x/t")[0]["span"]
    [2, 6]
    """
    found = sorted((m for m in mentions if m.iri == iri),
                   key=lambda m: (-m.strength, m.start))
    seen: set[tuple[int, int, str]] = set()
    spans = []
    for m in found:
        if (m.start, m.end, m.form) in seen:
            continue
        seen.add((m.start, m.end, m.form))
        spans.append({"span": [m.start, m.end], "text": m.text, "form": m.form,
                      "kind": m.kind, "exact_case": m.exact_case, "shared_by": m.shared_by,
                      "contained": m.contained, "after_number": m.after_number,
                      "derived": m.derived, "similarity": m.similarity,
                      "outranked": m.outranked, "misfit": m.misfit,
                      "cohesive": m.cohesive, "namesake_of": m.namesake_of,
                      "strength": round(m.strength, 4)})
    return spans
