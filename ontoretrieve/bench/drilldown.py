"""The report's per-unit drill-down: a unit's text, its gold terms, which were found
where, and why the others were missed.

Pure: reads the rows a run wrote (``runner.unit_row``). A gold group (a term
and the alternatives that count for it) is found in the seeds when one of its
IRIs is a seed, in the context when one is a context subject, else missed;
the reason for a miss is the most telling one the row can support.

>>> row = {"id": "u1", "source": "demo", "text": "A 5 mV signal.",
...        "gold": [["http://x/mV"], ["http://x/day"], ["http://x/nope"]],
...        "gold_ontologies": {"http://x/mV": "units", "http://x/day": "time"},
...        "retrieved_term_iris": ["http://x/mV", "http://x/V"],
...        "context_subjects": ["http://x/mV", "http://x/V"],
...        "subject_ontologies": {"units": 2}, "context_tokens": 120,
...        "seed_spans": {"http://x/mV": ["mV"]}}
>>> findings = unit_findings(row)
>>> [(f.iri, f.where, f.why) for f in findings.gold]  # doctest: +NORMALIZE_WHITESPACE
[('http://x/mV', 'seed #1', 'named by "mV"'),
 ('http://x/day', 'missed', 'its ontology time supplied nothing to this context'),
 ('http://x/nope', 'missed', 'not in the catalog')]
>>> findings.extra_seeds
['http://x/V']
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["GoldFinding", "UnitFindings", "drilldown_html", "unit_findings"]

MAX_UNITS = 300
"""Units the page shows (the worst first): a dev run has hundreds."""


@dataclass(frozen=True)
class GoldFinding:
    """One gold group of a unit: where it was found, or why not."""

    iri: str
    where: str
    """``seed #k``, ``context`` or ``missed``."""
    why: str


@dataclass(frozen=True)
class UnitFindings:
    """A unit's gold findings, and the seeds that are not gold."""

    gold: list[GoldFinding]
    extra_seeds: list[str]

    @property
    def found_in_seeds(self) -> int:
        return sum(1 for f in self.gold if f.where.startswith("seed"))

    @property
    def found_in_context(self) -> int:
        return sum(1 for f in self.gold if f.where != "missed")


def unit_findings(row: Mapping[str, Any]) -> UnitFindings:
    """Where each gold group of ``row`` ended up, and why the missed ones were."""
    seeds: list[str] = list(row.get("retrieved_term_iris") or [])
    subjects = set(row.get("context_subjects") or [])
    owners: Mapping[str, str] = row.get("gold_ontologies") or {}
    supplied: Mapping[str, int] = row.get("subject_ontologies") or {}
    spans: Mapping[str, Sequence[str]] = row.get("seed_spans") or {}
    rank = {iri: k for k, iri in enumerate(seeds, start=1)}
    findings = []
    gold_iris: set[str] = set()
    for group in row.get("gold") or []:
        gold_iris.update(group)
        seeded = sorted((iri for iri in group if iri in rank), key=rank.__getitem__)
        if seeded:
            iri = seeded[0]
            named = list(dict.fromkeys(spans.get(iri) or []))
            why = ("named by " + ", ".join(f'"{s}"' for s in named[:3]) if named
                   else "found by the retrieval lanes")
            findings.append(GoldFinding(iri, f"seed #{rank[iri]}", why))
            continue
        in_context = [iri for iri in group if iri in subjects]
        if in_context:
            findings.append(GoldFinding(in_context[0], "context",
                                        "not a seed; the graph stage added it"))
            continue
        findings.append(GoldFinding(group[0], "missed", _why_missed(group, owners, supplied)))
    return UnitFindings(findings, [iri for iri in seeds if iri not in gold_iris])


def _why_missed(group: Sequence[str], owners: Mapping[str, str],
                supplied: Mapping[str, int]) -> str:
    owner = next((owners[iri] for iri in group if iri in owners), None)
    if owner is None:
        return "not in the catalog"
    if not supplied.get(owner):
        return f"its ontology {owner} supplied nothing to this context"
    return f"not reached: {owner} supplied {supplied[owner]} other terms"


def drilldown_html(rows: Sequence[Mapping[str, Any]], variant: str) -> str:
    """The drill-down section: one folded entry per unit, the worst recall first."""
    e = html.escape
    scored = [(row, unit_findings(row)) for row in rows if row.get("gold")]
    scored.sort(key=lambda pair: (pair[1].found_in_context / max(len(pair[1].gold), 1),
                                  str(pair[0].get("id"))))
    shown = scored[:MAX_UNITS]
    parts = [f"<h2 id='units'>Units ({e(variant)})</h2><p>Each unit as the run saw it: its "
             "text, each gold term and where it was found (a seed and its rank, the context "
             "only, or missed, with the reason), then the seeds that are not gold. The units "
             "whose gold the context missed most come first"
             + (f"; the first {MAX_UNITS} of {len(scored)} are shown" if len(scored) > len(
                 shown) else "") + ". Open one to read it.</p>"]
    for row, found in shown:
        unit = str(row.get("id"))
        total = len(found.gold)
        head = (f"{e(unit)} &middot; {e(str(row.get('source', '')))} &middot; gold in seeds "
                f"{found.found_in_seeds}/{total}, in the context {found.found_in_context}/"
                f"{total} &middot; {row.get('context_tokens', 0)} tokens")
        table = "".join(
            f"<tr class='{'missed' if f.where == 'missed' else 'found'}'><td>{e(f.iri)}</td>"
            f"<td>{e(f.where)}</td><td>{e(f.why)}</td></tr>" for f in found.gold)
        extra = ", ".join(e(iri) for iri in found.extra_seeds[:20]) or "none"
        more = len(found.extra_seeds) - 20
        parts.append(
            f"<details id='unit-{e(unit)}'><summary>{head}</summary>"
            f"<blockquote>{e(str(row.get('text') or '(text not recorded)'))}</blockquote>"
            f"<table class='gold'><tr><th>gold term</th><th>found</th><th>why</th></tr>"
            f"{table}</table><p>Seeds not in the gold: {extra}"
            f"{f' and {more} more' if more > 0 else ''}</p></details>")
    # A link to #unit-ID opens that unit (and lets a screenshot show one open).
    parts.append("<script>const u=location.hash&&document.getElementById(location.hash"
                 ".slice(1));if(u&&u.tagName==='DETAILS'){u.open=true;u.scrollIntoView()}"
                 "</script>")
    return "".join(parts)
