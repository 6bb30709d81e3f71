"""From fused hits to seeds: relevance floor, merge across windows, cap, fill order.

Pure: fused hits and settings in, ranked seeds and counts out. The rules are
docs/query.md's "From hits to seeds", steps 1-4 (lexical triggers, the symbol
case check and unit signals are in ``lexical``).

>>> cap_for(windows=3, settings=SeedSettings())
96
>>> cap_for(windows=30, settings=SeedSettings(max_atoms=200))
120
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from ontoretrieve.backends.vector_index import Lane
from ontoretrieve.index.mention_match import Mention
from ontoretrieve.query.fusion import FusedHit, LaneEvidence
from ontoretrieve.records import AtomPayload, SeedOrigin, SelectionCounts
from ontoretrieve.settings.groups import MergeMode, SeedCut, SeedSettings, WindowSettings

__all__ = [
    "MISFIT_NOTE",
    "SCOPE_NOTE",
    "MergedTerm",
    "Seed",
    "SeedOrigin",
    "cap_for",
    "cap_never_binds",
    "evidence_cut",
    "evidence_first",
    "evidence_tier",
    "fit_first",
    "mark_misfits",
    "merge_windows",
    "merged_order",
    "misfits_only",
    "select_seeds",
]



def _ontology_of(term: MergedTerm | Seed) -> str:
    """The ontology version a term was retrieved from (its content hash)."""
    return term.payload.get("ontology_hash", "")


def _role_of(term: MergedTerm | Seed) -> str:
    """``predicate`` or ``resource``."""
    return term.payload.get("role", "resource")


@dataclass(frozen=True, slots=True)
class MergedTerm:
    """One term after merging its windows: the score and every window's evidence."""

    iri: str
    score: float
    best_fused: float
    payload: AtomPayload
    windows: tuple[int, ...]
    evidence: tuple[tuple[int, LaneEvidence], ...]
    """(window, lane evidence) pairs."""
    window_scores: tuple[tuple[int, float], ...] = ()
    """(window, fused score there) pairs."""

    ontology = property(_ontology_of)
    role = property(_role_of)


@dataclass(frozen=True, slots=True)
class Seed:
    """A kept term, its score and why it is here."""

    iri: str
    score: float
    origin: SeedOrigin
    payload: AtomPayload
    fused_score: float | None = None
    windows: tuple[int, ...] = ()
    evidence: tuple[tuple[int, LaneEvidence], ...] = ()
    notes: tuple[str, ...] = field(default=())
    """Rules that changed it: "raised by trigger", "case demoted", ..."""

    ontology = property(_ontology_of)
    role = property(_role_of)


def cap_for(windows: int, settings: SeedSettings) -> int | None:
    """min(MAX_ATOMS, max(MAX_ATOMS_BASE, SEEDS_PER_WINDOW x windows)); None = no cap."""
    wanted = max(settings.max_atoms_base, settings.seeds_per_window * windows)
    return wanted if settings.max_atoms == 0 else min(settings.max_atoms, wanted)


def cap_never_binds(seeds: SeedSettings, windows: WindowSettings) -> bool:
    """True when MAX_ATOMS is above every cap the window count can produce.

    >>> cap_never_binds(SeedSettings(max_atoms=500), WindowSettings())
    True
    """
    most = max(seeds.max_atoms_base, seeds.seeds_per_window * windows.max_windows)
    return seeds.max_atoms > most


def merge_windows(fused: Sequence[Sequence[FusedHit]], mode: MergeMode) -> list[MergedTerm]:
    """One entry per term: its best window score (max_score) or their sum (sum_score)."""
    by_iri: dict[str, list[FusedHit]] = {}
    for hits in fused:
        for hit in hits:
            by_iri.setdefault(hit.iri, []).append(hit)
    merged = []
    for iri, hits in by_iri.items():
        best = max(hits, key=lambda h: (h.score, h.tie_break()))
        score = best.score if mode is MergeMode.MAX_SCORE else sum(h.score for h in hits)
        merged.append(MergedTerm(
            iri=iri, score=score, best_fused=best.score, payload=best.payload,
            windows=tuple(sorted({h.window for h in hits})),
            evidence=tuple((h.window, e) for h in hits for e in h.evidence),
            window_scores=tuple((h.window, h.score) for h in hits)))
    merged.sort(key=lambda m: (m.score, m.best_fused, m.iri), reverse=True)
    return merged


def merged_order(fused: Sequence[Sequence[FusedHit]], mode: MergeMode) -> list[str]:
    """The terms of ``fused`` in ``merge_windows``' order, without building its records
    (a seed result keeps the candidates its cut left out in this order).

    >>> hits = [[FusedHit("a", 0.5, {}, 0), FusedHit("b", 0.4, {}, 0)],
    ...         [FusedHit("b", 0.3, {}, 1)]]
    >>> merged_order(hits, MergeMode.MAX_SCORE), merged_order(hits, MergeMode.SUM_SCORE)
    (['a', 'b'], ['b', 'a'])
    >>> [m.iri for m in merge_windows(hits, MergeMode.SUM_SCORE)]
    ['b', 'a']
    """
    best: dict[str, float] = {}
    total: dict[str, float] = {}
    for hits in fused:
        for hit in hits:
            best[hit.iri] = max(best.get(hit.iri, hit.score), hit.score)
            total[hit.iri] = total.get(hit.iri, 0.0) + hit.score
    score = best if mode is MergeMode.MAX_SCORE else total
    return sorted(best, key=lambda iri: (score[iri], best[iri], iri), reverse=True)


def select_seeds(
    fused: Sequence[Sequence[FusedHit]],
    windows: int,
    settings: SeedSettings,
    best_attainable: float,
    vectors: Callable[[Sequence[str]], Mapping[str, npt.NDArray[np.float32]]] | None = None,
    *, scope_per_window: int = 0,
) -> tuple[list[Seed], SelectionCounts]:
    """Floor, merge, ratio, cap and fill order; seeds best first.

    ``vectors`` gives dense vectors by IRI, needed only for MMR (mmr_lambda < 1).
    ``scope_per_window``: in a scoped query, the evidence cut also keeps each window's
    fused top terms down to this rank, those no other rule keeps with ``SCOPE_NOTE``.
    """
    candidates = len({h.iri for hits in fused for h in hits})
    best = max((hits[0].score for hits in fused if hits), default=0.0)
    if best < settings.min_merged_max_score * best_attainable:
        return [], SelectionCounts(fused_candidates=candidates, threshold_rejected=candidates,
                                   after_merge=0, after_ratio=0, cap=None, after_cap=0,
                                   reserved_by_role=0, reserved_by_ontology=0)
    merged = merge_windows(fused, settings.cross_query_merge_mode)
    after_merge = len(merged)
    if settings.merged_score_ratio > 0 and merged:
        floor = settings.merged_score_ratio * merged[0].score
        merged = [m for m in merged if m.score >= floor]
    after_ratio = len(merged)
    after_evidence = None
    kept_by: dict[str, int] = {}
    scope_only: frozenset[str] = frozenset()
    if settings.cut is SeedCut.EVIDENCE:
        tops = {hits[0].window: hits[0].score for hits in fused if hits}
        leaders = frozenset([h.iri for hits in fused
                             for h in hits[:settings.evidence_top_per_window]]
                            + [m.iri for m in merged[:settings.evidence_top_per_unit]])
        in_scope = frozenset(h.iri for hits in fused for h in hits[:scope_per_window])
        merged, kept_by, scope_only = evidence_cut(merged, settings, tops, leaders, in_scope)
        after_evidence = len(merged)
    cap = cap_for(windows, settings)
    limit = len(merged) if cap is None else cap
    if settings.mmr_lambda < 1.0:
        chosen = _mmr(merged, limit, settings.mmr_lambda, vectors)
        by_role = by_ontology = 0
    else:
        chosen, by_role, by_ontology = _fill(merged, limit, settings)
    chosen.sort(key=lambda m: (m.score, m.best_fused, m.iri), reverse=True)
    seeds = [Seed(m.iri, m.score, SeedOrigin.RETRIEVED, m.payload, m.best_fused, m.windows,
                  m.evidence, (SCOPE_NOTE,) if m.iri in scope_only else ()) for m in chosen]
    return seeds, SelectionCounts(
        fused_candidates=candidates, threshold_rejected=0, after_merge=after_merge,
        after_ratio=after_ratio, cap=cap, after_cap=len(seeds), reserved_by_role=by_role,
        reserved_by_ontology=by_ontology, after_evidence=after_evidence, kept_by=kept_by)


_FAMILY = {Lane.CORE: "dense", Lane.NEIGHBORHOOD: "dense", Lane.BM25: "bm25",
           Lane.MENTION: "mention"}


def supported(term: MergedTerm, best: float, settings: SeedSettings,
              tops: Mapping[int, float] | None = None,
              leaders: frozenset[str] = frozenset()) -> str | None:
    """Why the evidence keeps ``term``, or None.

    - ``mention``: a span of the text names one of its forms strongly enough
      (the mention lane's raw score is the mention's strength);
    - ``agreement``: two lane families (dense, BM25, mention) rank it within
      ``agreement_rank`` in one window;
    - ``score``: in one of its windows, its fused score is within
      ``evidence_ratio`` of that window's best (``tops``: window -> best fused
      score), so each sentence of a paragraph keeps its own best terms;
      without ``tops``, its merged score against the unit's ``best``; or it is
      among the ``leaders`` (the ``evidence_top_per_window`` best of a window, the
      ``evidence_top_per_unit`` best of the unit).

    >>> s = SeedSettings()
    >>> t = MergedTerm("i", 0.2, 0.2, {}, (0,), ((0, LaneEvidence(Lane.MENTION, 4, 0.9)),))
    >>> supported(t, 1.0, s)
    'mention'
    >>> t = MergedTerm("i", 0.2, 0.2, {}, (0,), ((0, LaneEvidence(Lane.CORE, 2, 0.5)),
    ...                                         (0, LaneEvidence(Lane.BM25, 1, 7.0))))
    >>> supported(t, 1.0, s)
    'agreement'
    >>> supported(MergedTerm("i", 0.6, 0.6, {}, (0,), ()), 1.0, s)
    'score'
    >>> supported(MergedTerm("i", 0.2, 0.2, {}, (0,), ()), 1.0, s) is None
    True
    """
    if _named_strongly(term.evidence, settings):
        return "mention"
    if _lanes_agree(term.evidence, settings):
        return "agreement"
    if tops and term.window_scores:
        near_best = any(score >= settings.evidence_ratio * tops.get(w, float("inf"))
                        for w, score in term.window_scores)
    else:
        near_best = best > 0 and term.score >= settings.evidence_ratio * best
    return "score" if near_best or term.iri in leaders else None


def evidence_first(seeds: Sequence[Seed], settings: SeedSettings) -> list[Seed]:
    """Seeds ordered by their kind of evidence, score order kept within each kind:
    a strong mention first, then lanes agreeing or an exact lexical match (trigger,
    unit signal), then the score alone.

    >>> s = SeedSettings()
    >>> named = Seed("n", 0.1, SeedOrigin.RETRIEVED, {},
    ...              evidence=((0, LaneEvidence(Lane.MENTION, 1, 0.9)),))
    >>> dense = Seed("d", 0.5, SeedOrigin.RETRIEVED, {},
    ...              evidence=((0, LaneEvidence(Lane.CORE, 1, 0.8)),))
    >>> [x.iri for x in evidence_first([dense, named], s)]
    ['n', 'd']
    """
    return sorted(seeds, key=lambda seed: evidence_tier(seed, settings))


def fit_first(seeds: Sequence[Seed], fits: Mapping[str, float], anchored: frozenset[str],
              settings: SeedSettings, strengths: Mapping[str, float] | None = None
              ) -> list[Seed]:
    """Seeds in evidence order, each tier's seeds ordered by how well they fit the text.

    ``fits`` holds each seed's best cosine between a window's query vector and its
    core vector. Seeds in ``anchored`` (named right after a number: a quantity's unit,
    whose core text rarely resembles its sentence) and seeds with no fit keep their
    places; the others are sorted by fit, best first, within their tier, into the places
    they held. A context budget spends in this order, so a small one goes to the terms
    the passage is about before the ones a word merely names. ``strengths`` (a seed's
    strongest mention) weigh the fit by ``settings.fit_order_strength``: fit x
    strength ** power; a seed no mention names counts as strength 1.

    >>> s = SeedSettings()
    >>> def named(iri):
    ...     return Seed(iri, 0.5, SeedOrigin.RETRIEVED, {},
    ...                 evidence=((0, LaneEvidence(Lane.MENTION, 1, 0.9)),))
    >>> seeds = [named("off"), named("unit"), named("on")]
    >>> [x.iri for x in fit_first(seeds, {"off": 0.05, "unit": 0.0, "on": 0.6},
    ...                           frozenset({"unit"}), s)]
    ['on', 'unit', 'off']
    >>> [x.iri for x in fit_first([named("label"), named("related")],
    ...                           {"label": 0.3, "related": 0.32}, frozenset(), s,
    ...                           {"label": 1.0, "related": 0.5})]
    ['label', 'related']
    """
    ordered = evidence_first(seeds, settings)
    places = [i for i, seed in enumerate(ordered)
              if seed.iri in fits and seed.iri not in anchored]
    power, named = settings.fit_order_strength, strengths or {}

    def weighed(iri: str) -> float:
        return fits[iri] * (named.get(iri, 1.0) ** power if power else 1.0)

    moved = sorted(places, key=lambda i: (evidence_tier(ordered[i], settings),
                                          -weighed(ordered[i].iri)))
    result = list(ordered)
    for place, source in zip(places, moved, strict=True):
        result[place] = ordered[source]
    return result


MISFIT_NOTE = "named only off the topic"
"""The note of a seed every mention of which is a misfit (``mentions.fit_floor``)."""
SCOPE_NOTE = "kept by the query's scope alone"
"""The note of a seed only a scoped query keeps (``seeds.scoped_kept_per_window``): a
context budget names it early and describes it late, as a candidate below the cut."""


def misfits_only(mentions: Sequence[Mention]) -> frozenset[str]:
    """The terms every mention of which is a misfit (``flag_misfits``).

    >>> def named(iri, misfit):
    ...     return Mention(iri, "h", 0, 4, "cell", "cell", "cell", "label", True, 1,
    ...                    misfit=misfit)
    >>> sorted(misfits_only([named("a", True), named("b", True), named("b", False)]))
    ['a']
    """
    fitting = {m.iri for m in mentions if not m.misfit}
    return frozenset(m.iri for m in mentions if m.misfit and m.iri not in fitting)


def mark_misfits(seeds: Sequence[Seed], misfits: frozenset[str]) -> list[Seed]:
    """Seeds named only by misfits carry ``MISFIT_NOTE``: their mentions do not put them
    in the first evidence tier.

    >>> named = Seed("a", 0.5, SeedOrigin.RETRIEVED, {},
    ...              evidence=((0, LaneEvidence(Lane.MENTION, 1, 1.0)),))
    >>> marked = mark_misfits([named], frozenset({"a"}))[0]
    >>> marked.notes, evidence_tier(named, SeedSettings()), evidence_tier(marked, SeedSettings())
    (('named only off the topic',), 0, 2)
    """
    return [replace(s, notes=(*s.notes, MISFIT_NOTE)) if s.iri in misfits else s
            for s in seeds]


def evidence_tier(seed: Seed, settings: SeedSettings) -> int:
    """0: a strong mention that fits the passage names the seed; 1: lanes agree on it or an
    exact lexical rule (trigger, unit signal) added it; 2: its score alone. Context
    budgets spend by it.

    >>> evidence_tier(Seed("d", 0.5, SeedOrigin.RETRIEVED, {},
    ...               evidence=((0, LaneEvidence(Lane.CORE, 1, 0.8)),)), SeedSettings())
    2
    """
    if _named_strongly(seed.evidence, settings) and MISFIT_NOTE not in seed.notes:
        return 0
    if seed.origin is not SeedOrigin.RETRIEVED or _lanes_agree(seed.evidence, settings):
        return 1
    return 2


def _named_strongly(evidence: Sequence[tuple[int, LaneEvidence]], settings: SeedSettings
                    ) -> bool:
    return any(e.lane is Lane.MENTION and e.raw_score >= settings.mention_min_strength
               for _, e in evidence)


def _lanes_agree(evidence: Sequence[tuple[int, LaneEvidence]], settings: SeedSettings
                 ) -> bool:
    """Two lane families rank the term within ``agreement_rank`` in one window."""
    if not settings.agreement_rank:
        return False
    families: dict[int, set[str]] = {}
    for window, e in evidence:
        if e.rank <= settings.agreement_rank:
            families.setdefault(window, set()).add(_FAMILY[e.lane])
    return any(len(found) >= 2 for found in families.values())


def evidence_cut(merged: Sequence[MergedTerm], settings: SeedSettings,
                 tops: Mapping[int, float] | None = None,
                 leaders: frozenset[str] = frozenset(), in_scope: frozenset[str] = frozenset()
                 ) -> tuple[list[MergedTerm], dict[str, int], frozenset[str]]:
    """The merged terms (best first) the evidence supports, order kept; counts per reason;
    the terms kept only for being ``in_scope`` (a scoped query's top of a window).

    >>> s = SeedSettings()
    >>> weak = MergedTerm("w", 0.1, 0.1, {}, (0,), ())
    >>> strong = MergedTerm("s", 0.6, 0.6, {}, (0,), ())
    >>> kept, reasons, scope_only = evidence_cut([strong, weak], s, in_scope=frozenset("w"))
    >>> [t.iri for t in kept], reasons["scope"], sorted(scope_only)
    (['s', 'w'], 1, ['w'])
    """
    best = merged[0].score if merged else 0.0
    kept: list[MergedTerm] = []
    reasons = {"mention": 0, "agreement": 0, "score": 0}
    scope_only: set[str] = set()
    for term in merged:
        reason = supported(term, best, settings, tops, leaders)
        if reason is None and term.iri in in_scope:
            reason = "scope"
            scope_only.add(term.iri)
        if reason is not None:
            kept.append(term)
            reasons[reason] = reasons.get(reason, 0) + 1
    return kept, reasons, frozenset(scope_only)


def _fill(merged: list[MergedTerm], limit: int, settings: SeedSettings
          ) -> tuple[list[MergedTerm], int, int]:
    """Reserves first (per-role, per-ontology floors), then score order or round robin."""
    chosen: dict[str, MergedTerm] = {}
    predicates = [m for m in merged if m.role == "predicate"]
    for term in predicates[: settings.per_role_atom_floor]:
        chosen[term.iri] = term
    by_role = len(chosen)
    if settings.per_ontology_atom_floor:
        taken: dict[str, int] = {}
        for term in merged:  # best first, so each ontology reserves its best terms
            if taken.get(term.ontology, 0) < settings.per_ontology_atom_floor:
                taken[term.ontology] = taken.get(term.ontology, 0) + 1
                chosen.setdefault(term.iri, term)
    by_ontology = len(chosen) - by_role
    if len(chosen) > limit:  # reserves alone overflow the cap: keep the best of them
        kept = sorted(chosen.values(), key=lambda m: m.score, reverse=True)[:limit]
        return kept, by_role, by_ontology
    rest = [m for m in merged if m.iri not in chosen]
    if settings.per_ontology_seed_quota:
        _round_robin(chosen, rest, limit, settings.per_ontology_seed_quota)
    else:
        for term in rest[: limit - len(chosen)]:
            chosen[term.iri] = term
    return list(chosen.values()), by_role, by_ontology


def _round_robin(chosen: dict[str, MergedTerm], rest: list[MergedTerm], limit: int,
                 quota: int) -> None:
    queues: dict[str, list[MergedTerm]] = {}
    for term in rest:  # rest is best first, so queues and their order are too
        queues.setdefault(term.ontology, []).append(term)
    share: dict[str, int] = {}
    for term in chosen.values():
        share[term.ontology] = share.get(term.ontology, 0) + 1
    while len(chosen) < limit:
        progressed = False
        for ontology, queue in queues.items():
            if len(chosen) >= limit:
                break
            if queue and share.get(ontology, 0) < quota:
                term = queue.pop(0)
                chosen[term.iri] = term
                share[ontology] = share.get(ontology, 0) + 1
                progressed = True
        if not progressed:
            break


def _mmr(merged: list[MergedTerm], limit: int, lam: float,
         vectors: Callable[[Sequence[str]], Mapping[str, npt.NDArray[np.float32]]] | None
         ) -> list[MergedTerm]:
    """Maximal marginal relevance over the dense core vectors."""
    if not merged:
        return []
    found = vectors([m.iri for m in merged]) if vectors else {}
    top = merged[0].score or 1.0
    chosen: list[MergedTerm] = []
    remaining = list(merged)
    while remaining and len(chosen) < limit:
        def gain(term: MergedTerm) -> float:
            vector = found.get(term.iri)
            redundancy = max((float(vector @ found[c.iri]) for c in chosen
                              if vector is not None and c.iri in found), default=0.0)
            return lam * term.score / top - (1 - lam) * redundancy

        pick = max(remaining, key=gain)
        chosen.append(pick)
        remaining.remove(pick)
    return chosen


def with_score(seed: Seed, score: float, note: str) -> Seed:
    """A copy of ``seed`` with a new score and the rule that set it."""
    return replace(seed, score=score, notes=(*seed.notes, note))
