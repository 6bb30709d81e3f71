"""Exact-match lanes: lexical triggers, the symbol case check, query unit signals.

Pure. The vector index finds the candidate atoms (by exact trigger or folded
lexeme); these functions decide what happens to the seeds.

>>> text_tokens("a 200 kV source (5mV), at 4-15 days.")
['a', '200', 'kV', 'source', '5mV', 'mV', 'at', '4-15', 'days']
>>> unit_signal_tokens("a 200 kV source, 4-15 days and 3 mice")
['kV', 'days', 'mice']
>>> lexeme_variants("days")
['days', 'day']
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence

from ontoretrieve.index.mention_text import Token, tokenize, unit_letter
from ontoretrieve.query.selection import Seed, SeedOrigin, with_score
from ontoretrieve.records import AtomPayload
from ontoretrieve.settings.groups import SymbolCasePolicy, TriggerFusion, TriggerSettings

__all__ = [
    "apply_triggers",
    "apply_unit_signals",
    "lexeme_variants",
    "only_units",
    "phrase_lexemes",
    "symbol_case_check",
    "text_tokens",
    "unit_signal_tokens",
]

_EDGE_PUNCTUATION = "()[]{},;:.!?\"'\u201c\u201d\u2018\u2019"  # with typographic quotes
_LEADING_NUMBER = re.compile(r"^[-+]?\d+(?:[.,]\d+)*")
_UNIT_SIGNAL = re.compile(
    r"(?<![\w.])\d+(?:[.,]\d+)?(?:\s*[-\u2013]\s*\d+(?:[.,]\d+)?)?\s*"
    r"(?P<unit>[A-Za-zµμΩ°%][A-Za-zµμΩ°%0-9/·^\-]*)")


def text_tokens(text: str) -> list[str]:
    """Whitespace tokens without edge punctuation; "5mV" also yields "mV"."""
    tokens: list[str] = []
    for chunk in text.split():
        token = chunk.strip(_EDGE_PUNCTUATION)
        if not token:
            continue
        tokens.append(token)
        number = _LEADING_NUMBER.match(token)
        if number and number.end() < len(token) and token[number.end()].isalpha():
            tokens.append(token[number.end():])
    return tokens


def unit_signal_tokens(text: str, unit_letters_only: bool = True) -> list[str]:
    """Tokens right after a number or a range ("200 kV", "4-15 days"), in text order;
    with ``unit_letters_only``, a one-letter one only where it may be a unit
    (``unit_letter``: not the panel of "Figure 8b" nor the year suffix of "2006a").

    >>> unit_signal_tokens("5 A (Figure 10A, 8b) 3m after Knox 1998b")
    ['A', 'm']
    >>> unit_signal_tokens("5 A (Figure 10A, 8b) 3m after Knox 1998b", unit_letters_only=False)
    ['A', 'b', 'm']
    """
    found = []
    letters: dict[int, int] | None = None
    tokens: list[Token] = []
    for match in _UNIT_SIGNAL.finditer(text):
        token = match.group("unit").rstrip("-.")
        if unit_letters_only and len(token) == 1 and token.isalpha():
            if letters is None:  # tokenized once, only for texts with such a letter
                tokens = tokenize(text)
                letters = {t.start: i for i, t in enumerate(tokens)}
            position = letters.get(match.start("unit"))
            if position is not None and not unit_letter(tokens, position):
                continue
        if token:
            found.append(token)
    return list(dict.fromkeys(found))


def lexeme_variants(token: str) -> list[str]:
    """Case-folded forms to look up: the token, and without a plural "s"."""
    folded = token.casefold()
    variants = [folded]
    if len(folded) > 3 and folded.endswith("s"):
        variants.append(folded[:-1])
    return variants


def apply_triggers(seeds: list[Seed], matches: Sequence[AtomPayload],
                   settings: TriggerSettings, *, add: bool = True
                   ) -> tuple[list[Seed], int, int]:
    """Join trigger matches (payloads of atoms whose trigger occurs in the text).

    Returns the seeds, how many were added and how many raised. ``max_merge``
    raises a kept term to the trigger score when that is higher; both modes
    add new terms, up to ``max_atoms`` outside the atom cap, unless ``add`` is
    False (then a trigger only raises what is seeded).

    >>> from ontoretrieve.query.selection import SeedOrigin
    >>> kept = [Seed("x:MilliV", 0.2, SeedOrigin.RETRIEVED, {"iri": "x:MilliV"})]
    >>> matches = [{"iri": "x:MilliV"}, {"iri": "x:E2"}]
    >>> [(s.iri, s.score) for s in apply_triggers(kept, matches, TriggerSettings())[0]]
    [('x:MilliV', 0.55), ('x:E2', 0.35)]
    >>> apply_triggers(kept, matches, TriggerSettings(), add=False)[1:]
    (0, 1)
    """
    if not settings.enabled:
        return seeds, 0, 0
    by_iri = {seed.iri: i for i, seed in enumerate(seeds)}
    result = list(seeds)
    added = raised = 0
    for payload in matches:
        iri = payload["iri"]
        if iri in by_iri:
            index = by_iri[iri]
            raised_to = _merged(result[index].score, settings.score, settings.fusion)
            if raised_to > result[index].score:
                result[index] = with_score(result[index], raised_to, "raised by trigger")
                raised += 1
            continue
        if not add or added >= settings.max_atoms or payload.get("is_header"):
            continue
        by_iri[iri] = len(result)
        result.append(Seed(iri, settings.score, SeedOrigin.TRIGGER, payload,
                           notes=("lexical trigger",)))
        added += 1
    return _ranked(result), added, raised


def symbol_case_check(seeds: list[Seed], text: str, policy: SymbolCasePolicy,
                      factor: float) -> tuple[list[Seed], int, int]:
    """Demote, drop or keep seeds whose symbols match the text only up to case.

    A seed with an exact-case symbol match, or with no symbol match at all
    (found by its labels), is never touched. Returns seeds, demoted, dropped.
    """
    if policy is SymbolCasePolicy.KEEP:
        return seeds, 0, 0
    exact = set(text_tokens(text))
    folded = {t.casefold() for t in exact}
    result: list[Seed] = []
    demoted = dropped = 0
    for seed in seeds:
        symbols = seed.payload.get("symbols", [])
        if not symbols or any(s in exact for s in symbols) or not any(
                s.casefold() in folded for s in symbols):
            result.append(seed)
        elif policy is SymbolCasePolicy.DROP:
            dropped += 1
        else:
            result.append(with_score(seed, seed.score * factor, "symbol case mismatch"))
            demoted += 1
    return _ranked(result), demoted, dropped


def apply_unit_signals(seeds: list[Seed], tokens: Sequence[str],
                       matches: Mapping[str, Sequence[AtomPayload]],
                       settings: TriggerSettings, policy: SymbolCasePolicy,
                       factor: float, *, add: bool = True) -> tuple[list[Seed], int]:
    """Join the atoms a unit token names ("kV" -> kilovolt), at the trigger score.

    ``matches`` maps each token to the payloads whose labels or symbols equal
    it up to case and a plural "s". An exact-case symbol or label match joins
    at the trigger score; a case-folded-only one follows the symbol case policy
    (demoted by ``factor``, dropped, or kept), so "5 mV" prefers millivolt to
    megavolt. Outside the atom cap, at most ``max_atoms`` added; none unless
    ``add`` (then a signal only raises the seeds it names).
    """
    by_iri = {seed.iri: i for i, seed in enumerate(seeds)}
    result = list(seeds)
    added = 0
    for token in tokens:
        named_terms = {p["iri"] for p in matches.get(token, ()) if not p.get("is_header")}
        # Adding scores: a token naming several terms ("b": barn, bit, breadth...) is
        # weak evidence for each, as in the mention lane.
        share = 1.0 / (1.0 + math.log2(max(1, len(named_terms)))) if (
            settings.fusion is TriggerFusion.ADD) else 1.0
        for payload in matches.get(token, ()):
            iri = payload["iri"]
            names = [*payload.get("symbols", []), *payload.get("labels", [])]
            exact = token in names or token.rstrip("s") in names
            if not exact and settings.unit_labels_any_case:
                labels = {x.casefold() for x in payload.get("labels", [])}
                exact = bool(set(lexeme_variants(token)) & labels)
            if not exact and policy is SymbolCasePolicy.DROP:
                continue
            score = share * (settings.score if exact or policy is SymbolCasePolicy.KEEP else (
                settings.score * factor))
            note = "unit signal" if exact else "unit signal (case-folded)"
            if iri in by_iri:
                index = by_iri[iri]
                # Unit signals raise to their score (the reference) unless scores add;
                # a term already named by a trigger or signal gains nothing twice.
                named = any(n.startswith(("unit signal", "raised by trigger"))
                            for n in result[index].notes)
                fusion = (TriggerFusion.ADD if settings.fusion is TriggerFusion.ADD
                          and not named else TriggerFusion.MAX_MERGE)
                raised_to = _merged(result[index].score, score, fusion)
                if raised_to > result[index].score:
                    result[index] = with_score(result[index], raised_to, note)
                continue
            if not add or added >= settings.max_atoms or payload.get("is_header"):
                continue
            by_iri[iri] = len(result)
            result.append(Seed(iri, score, SeedOrigin.UNIT_SIGNAL, payload, notes=(note,)))
            added += 1
    return _ranked(result), added


def only_units(matches: Mapping[str, Sequence[AtomPayload]],
               units: Collection[tuple[str, str]]) -> dict[str, list[AtomPayload]]:
    """Unit-signal matches where a token names a unit of measure: only the units
    (``units``: (iri, ontology hash) pairs), as the mention lane reads a span after a
    number (``mention_lane.units_after_numbers``).

    >>> found = {"m": [{"iri": "x:metre", "ontology_hash": "h"}, {"iri": "x:mass",
    ...                                                          "ontology_hash": "h"}]}
    >>> [p["iri"] for p in only_units(found, {("x:metre", "h")})["m"]]
    ['x:metre']
    """
    result: dict[str, list[AtomPayload]] = {}
    for token, payloads in matches.items():
        measured = [p for p in payloads if (p.get("iri"), p.get("ontology_hash")) in units]
        result[token] = measured or list(payloads)
    return result


def phrase_lexemes(text: str, max_words: int = 4, min_chars: int = 3) -> list[str]:
    """Case-folded word n-grams of the text, longest first, for exact label matches.

    Single words shorter than ``min_chars`` are left out: folded, "a" or "is"
    would match unit symbols, which only the case-sensitive triggers may do.

    >>> phrase_lexemes("The cell nucleus.", max_words=2)
    ['the cell', 'cell nucleus', 'the', 'cell', 'nucleus']
    """
    words = [w.casefold() for w in (c.strip(_EDGE_PUNCTUATION) for c in text.split()) if w]
    found: dict[str, None] = {}
    for size in range(max_words, 0, -1):
        for start in range(len(words) - size + 1):
            phrase = " ".join(words[start:start + size])
            if len(phrase) >= min_chars:
                found[phrase] = None
    return list(found)


def _merged(score: float, trigger: float, fusion: TriggerFusion) -> float:
    """A kept term's score once a trigger or unit signal names it.

    >>> _merged(0.2, 0.35, TriggerFusion.MAX_MERGE), _merged(0.2, 0.35, TriggerFusion.ADD)
    (0.35, 0.55)
    >>> _merged(0.2, 0.35, TriggerFusion.APPEND), _merged(0.9, 0.35, TriggerFusion.ADD)
    (0.2, 1.0)
    """
    if fusion is TriggerFusion.MAX_MERGE:
        return max(score, trigger)
    if fusion is TriggerFusion.ADD:
        return round(min(1.0, score + trigger), 6)
    return score


def _ranked(seeds: list[Seed]) -> list[Seed]:
    return sorted(seeds, key=lambda s: (s.score, s.fused_score or 0.0, s.iri), reverse=True)


