"""Seed confidence: how likely a seed is a term the text is about, from its evidence.

Pure. A context budget is spent in seed order, so the order is worth most
where the budget is small. The evidence of a seed says several things at
once: how well its term fits the text (``fit``), how surely a span names it
(the strongest mention's strength, kind of form, exact case, derivation,
nesting, terms sharing the form), how often and in how many windows, whether
it names a unit right after a number, how many other seeds come from the
same ontology (a text about an ontology names several of its terms), and what
share of the text's seeds its namespace holds and how many namespaces hold
more (a text about mouse genetics draws most of its seeds from the OBO
namespace; a quantity kind or a schema.org class among them is likelier a
word's other sense than a term the text is about), and how common the
mention's words are in everyday English (``commonness``: "apoptosis" is
rarely written but about the term, "large" or "control" often), and how
common the catalog name they matched is (``form_commonness``: "mice" matched
"mouse", "cortical" matched "cortex"). A
model over these signals (``seeds.confidence_model``) weighs them together:
gradient-boosted trees by default (``confidence_trees``), or a logistic
model whose weights are ``WEIGHTS``; both were fitted on annotated
paragraphs by ``benchmarks/fit_seed_confidence.py`` and are checked there
on units the fit never saw. The model orders the seeds within each
evidence tier (``seeds.confidence_order``); the tiers, and with them the
seeds themselves, do not change.

>>> from ontoretrieve.records import LaneRank
>>> evidence = SeedEvidence(
...     iri="x:lung", score=0.2, origin="retrieved", ontology_iri="o", ontology_version=None,
...     ontology_hash="h", role="resource", fused_score=0.2, windows=[0],
...     lanes=[LaneRank(window=0, lane="mention", rank=1, raw_score=1.0)],
...     mentions=[{"span": [0, 4], "text": "lung", "kind": "label", "exact_case": True,
...                "shared_by": 1, "strength": 1.0}], notes=[], evidence_tier=0, fit=0.35)
>>> round(confidence(features_of(evidence, support=3)), 3)
0.398
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Protocol

from ontoretrieve.errors import ConfidenceModelError
from ontoretrieve.index.commonness import commonness
from ontoretrieve.index.page_text import readable
from ontoretrieve.query.confidence_trees import packaged_trees
from ontoretrieve.rdf.vocab import namespace_of
from ontoretrieve.records import SeedEvidence
from ontoretrieve.settings.groups import ConfidenceModelKind

__all__ = ["FEATURES", "WEIGHTS", "ConfidenceModel", "LogisticModel", "confidence",
           "confidence_model", "features_of", "in_confidence_order", "seed_features"]

KINDS = ("label", "exact", "symbol", "local_name", "related", "elliptic", "narrow", "broad")
"""The kinds of form a strongest mention can have that the model weighs."""

FEATURES = ("fit", "strength", "tier0", "tier1", "exact_case",
            *(f"kind_{k}" for k in KINDS), "lone_elliptic", "derived", "contained",
            "outranked", "misfit",
            "shared", "spans", "windows", "support", "lanes", "after_number",
            "symbol_after_number", "words", "namespace_share", "namespace_rank", "commonness",
            "form_commonness")
"""The signals of a seed's evidence the model reads (``features_of``)."""

WEIGHTS: Mapping[str, float] = {
    "bias": -7.7023,
    "fit": 6.9538,
    "strength": 2.2059,
    "tier0": 1.4929,
    "tier1": 1.3025,
    "exact_case": 0.9456,
    "kind_label": 0.1223,
    "kind_exact": 0.8673,
    "kind_symbol": -1.2664,
    "kind_local_name": -3.8531,
    "kind_related": 0.0674,
    "kind_elliptic": 1.5137,
    "kind_narrow": 0.3039,
    "kind_broad": -0.0315,
    "lone_elliptic": -1.4445,
    "derived": 1.845,
    "contained": -0.3395,
    "outranked": 0.0947,
    "misfit": -1.4777,
    "shared": 0.4567,
    "spans": 0.402,
    "windows": -0.7053,
    "support": 0.3489,
    "lanes": -0.2206,
    "after_number": -0.3623,
    "symbol_after_number": 3.4735,
    "words": 0.1351,
    "namespace_share": 0.0,
    "namespace_rank": 0.0,
    "commonness": 0.0,
    "form_commonness": 0.0,
}
"""Fitted by ``benchmarks/fit_seed_confidence.py`` on the dev suite's seed-1 sample of
CRAFT and MeasEval paragraphs (its output, pasted; RESULTS, sessions 22 and 23, refitted
with the elliptic forms the text gives no cohesion). Raw features, no scaling: ``fit``
is a cosine, ``strength`` a mention's strength, the rest flags and log counts. The
namespace signals (session 27) and the two commonness signals (sessions 31 and 32) came
later and weigh nothing here: the logistic order stays session 22-24's."""


def features_of(evidence: SeedEvidence, support: int, namespace_share: float = 1.0,
                namespace_rank: int = 0) -> dict[str, float]:
    """The model's signals of one seed: its fit, tier and strongest mention, how many
    spans and windows name it and how many lanes found it, ``support``: how many of
    the text's seeds (itself included) come from its ontology version, and of its IRI's
    namespace (``namespace_of``) the share of the text's seeds it holds and
    ``namespace_rank``, how many namespaces hold more of them (``seed_features``).

    >>> e = SeedEvidence(iri="x:mV", score=0.3, origin="retrieved", ontology_iri="o",
    ...                  ontology_version=None, ontology_hash="h", role="resource",
    ...                  fused_score=0.3, windows=[0], lanes=[], notes=[],
    ...                  mentions=[{"span": [2, 4], "text": "mV", "kind": "symbol",
    ...                             "exact_case": True, "shared_by": 1,
    ...                             "after_number": True, "strength": 1.35}])
    >>> f = features_of(e, support=1)
    >>> f["symbol_after_number"], f["fit"], f["support"]
    (1.0, 0.0, 0.0)
    """
    mentions = evidence.mentions
    best = max(mentions, key=lambda m: _number(m.get("strength"))) if mentions else {}
    kind = str(best.get("kind", ""))
    text = readable(str(best.get("text", "")))  # a span's words, line breaks mended
    after_number = any(bool(m.get("after_number")) for m in mentions)
    found: dict[str, float] = {
        "fit": evidence.fit or 0.0,
        "strength": _number(best.get("strength")),
        "tier0": float(evidence.evidence_tier == 0),
        "tier1": float(evidence.evidence_tier == 1),
        "exact_case": float(bool(best.get("exact_case"))),
        **{f"kind_{k}": float(kind == k) for k in KINDS},
        "lone_elliptic": float(kind == "elliptic" and best.get("cohesive") is False),
        "derived": float(bool(best.get("derived"))),
        "contained": float(bool(best.get("contained"))),
        "outranked": float(bool(best.get("outranked"))),
        "misfit": float(bool(best.get("misfit"))),
        "shared": math.log2(max(1.0, _number(best.get("shared_by"), 1.0))),
        "spans": math.log1p(len({tuple(_span(m)) for m in mentions})),
        "windows": math.log1p(len(evidence.windows)),
        "support": math.log1p(max(0, support - 1)),
        "lanes": float(len({lane["lane"] for lane in evidence.lanes})),
        "after_number": float(after_number),
        "symbol_after_number": float(kind == "symbol" and after_number),
        "words": float(len(text.split())),
        "namespace_share": namespace_share,
        "namespace_rank": float(namespace_rank),
        "commonness": commonness(text),
        "form_commonness": commonness(str(best.get("form", ""))),
    }
    return found


def seed_features(seeds: Sequence[SeedEvidence]) -> list[dict[str, float]]:
    """``features_of`` each of one text's seeds, its support and its namespace's share
    and rank counted among them (namespaces holding as many seeds share a rank).

    >>> def seed(iri, ontology):
    ...     return SeedEvidence(iri=iri, score=0.1, origin="retrieved", ontology_iri="o",
    ...                         ontology_version=None, ontology_hash=ontology,
    ...                         role="resource", fused_score=0.1, windows=[0], lanes=[],
    ...                         notes=[])
    >>> [round(f["support"], 3) for f in seed_features([seed("a", "h"), seed("b", "h"),
    ...                                                 seed("c", "g")])]
    [0.693, 0.693, 0.0]
    >>> obo, kinds = "http://purl.obolibrary.org/obo/", "http://qudt.org/vocab/quantitykind/"
    >>> rows = seed_features([seed(obo + "UBERON_0002048", "h"), seed(obo + "GO_0007585", "g"),
    ...                       seed(kinds + "Pressure", "q")])
    >>> [(round(f["namespace_share"], 3), f["namespace_rank"]) for f in rows]
    [(0.667, 0.0), (0.667, 0.0), (0.333, 1.0)]
    """
    support = Counter(s.ontology_hash for s in seeds)
    spaces = [namespace_of(s.iri) for s in seeds]
    held = Counter(spaces)
    holding_more = {count: sum(other > count for other in held.values())
                    for count in set(held.values())}
    return [features_of(s, support[s.ontology_hash], held[space] / len(seeds),
                        holding_more[held[space]])
            for s, space in zip(seeds, spaces, strict=True)]


def confidence(features: Mapping[str, float], weights: Mapping[str, float] = WEIGHTS
               ) -> float:
    """The model's probability that the seed is a term the text is about.

    >>> confidence({"fit": 1.0}, {"bias": -1.0, "fit": 1.0})
    0.5
    """
    z = weights.get("bias", 0.0) + sum(weights.get(k, 0.0) * v for k, v in features.items())
    return 1.0 / (1.0 + math.exp(-z))


class ConfidenceModel(Protocol):
    """A model of how likely each seed is a term the text is about."""

    def confidences(self, rows: Sequence[Mapping[str, float]]) -> list[float]:
        """Each row's probability (rows as ``features_of`` gives them)."""
        ...


@dataclass(frozen=True)
class LogisticModel:
    """The logistic model: one weight a signal (``WEIGHTS`` unless given).

    >>> LogisticModel({"fit": 1.0}).confidences([{"fit": 0.0}])
    [0.5]
    """

    weights: Mapping[str, float] = field(default_factory=lambda: WEIGHTS)

    def confidences(self, rows: Sequence[Mapping[str, float]]) -> list[float]:
        return [confidence(row, self.weights) for row in rows]


@cache  # once per process: the trees' file is read and checked on first use
def confidence_model(kind: ConfidenceModelKind) -> ConfidenceModel:
    """The shipped model of ``kind`` (``seeds.confidence_model``): the boosted trees of
    ``confidence_trees`` or the logistic ``WEIGHTS``.

    >>> type(confidence_model(ConfidenceModelKind.LOGISTIC)).__name__
    'LogisticModel'
    """
    if kind is ConfidenceModelKind.TREES:
        trees = packaged_trees()
        unknown = sorted(set(trees.features) - set(FEATURES))
        if unknown:  # a model fitted on signals this engine does not give
            raise ConfidenceModelError(
                f"the seed confidence trees read signals this version does not compute: "
                f"{', '.join(unknown)}; fit them again (benchmarks/fit_seed_confidence.py)")
        return trees
    return LogisticModel()


def in_confidence_order(seeds: Sequence[SeedEvidence],
                        model: ConfidenceModel | None = None) -> list[SeedEvidence]:
    """The seeds by evidence tier, then by confidence (best first), each with its
    confidence recorded; equal confidences keep their order. ``model``: the boosted trees
    unless given.

    >>> def seed(iri, tier, fit):
    ...     return SeedEvidence(iri=iri, score=0.1, origin="retrieved", ontology_iri="o",
    ...                         ontology_version=None, ontology_hash="h", role="resource",
    ...                         fused_score=0.1, windows=[0], lanes=[], notes=[],
    ...                         evidence_tier=tier, fit=fit)
    >>> ordered = in_confidence_order([seed("a", 1, 0.9), seed("b", 0, 0.1),
    ...                                seed("c", 0, 0.5)], LogisticModel({"fit": 1.0}))
    >>> [(s.iri, s.confidence) for s in ordered]
    [('c', 0.6225), ('b', 0.525), ('a', 0.7109)]
    """
    chosen = model if model is not None else confidence_model(ConfidenceModelKind.TREES)
    values = [round(p, 4) for p in chosen.confidences(seed_features(seeds))]
    ranked = sorted(range(len(seeds)),
                    key=lambda i: (seeds[i].evidence_tier, -values[i], i))
    return [seeds[i].model_copy(update={"confidence": values[i]}) for i in ranked]


def _number(value: object, default: float = 0.0) -> float:
    return float(value) if isinstance(value, int | float) else default


def _span(mention: Mapping[str, object]) -> list[object]:
    span = mention.get("span")
    return list(span) if isinstance(span, list | tuple) else []
