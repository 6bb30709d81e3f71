"""Term matches: which span of a text names which term, as an annotator's users want them.

Pure. Every seed of a context becomes one match per span of the text that named
it (``SeedEvidence.mentions``), or one match without a span when only the
retrieval lanes found it. Each match says how the span matched: its match type
(``label``, ``exact_synonym``, ``related_synonym``, ``broad_synonym``,
``narrow_synonym``, ``symbol``, ``worded_name``, with ``_folded`` when the case
differed; ``derived`` and ``similar`` for the adjectival and span-embedding
rules; ``retrieved`` without a span). Written as SSSOM TSV (the Simple
Standard for Sharing Ontological Mappings: the span is the subject, the term
the object) or as CSV.

>>> from ontoretrieve.context.model import Context, ContextMetrics, Mode, Snapshot
>>> from ontoretrieve.records import SeedEvidence
>>> seed = SeedEvidence(iri="http://qudt.org/vocab/unit/MilliV", score=0.86,
...     origin="retrieved", ontology_iri="http://qudt.org/2.1/vocab/unit",
...     ontology_version=None, ontology_hash="h", role="resource", fused_score=0.5,
...     windows=[0], lanes=[], notes=[], mentions=[{"span": [4, 6], "text": "mV",
...     "form": "mV", "kind": "symbol", "exact_case": True, "shared_by": 1}])
>>> label = "<http://www.w3.org/2000/01/rdf-schema#label>"
>>> nt = f'<http://qudt.org/vocab/unit/MilliV> {label} "Millivolt" .\\n'
>>> ctx = Context(mode=Mode.VECTOR, ntriples=nt, terms=[seed.iri], seeds=[seed],
...               evidence={}, snapshot=Snapshot(cut_from=[], writable=[]),
...               metrics=ContextMetrics(mode=Mode.VECTOR))
>>> [(m.subject_label, m.start, m.end, m.match_type, m.predicate_id, m.object_label)
...  for m in term_matches(ctx)]
[('mV', 4, 6, 'symbol', 'skos:exactMatch', 'Millivolt')]
>>> print(as_csv(term_matches(ctx)).splitlines()[1])
,mV,4,6,http://qudt.org/vocab/unit/MilliV,Millivolt,http://qudt.org/2.1/vocab/unit,symbol,skos:exactMatch,semapv:LexicalMatching,0.86
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

import pyoxigraph as ox
from pydantic import BaseModel

from ontoretrieve.context.model import Context
from ontoretrieve.index.page_text import readable
from ontoretrieve.rdf.vocab import NAME_PREDICATES

__all__ = ["TermMatch", "as_csv", "as_sssom", "term_matches"]

_TYPES = {"label": "label", "exact": "exact_synonym", "related": "related_synonym",
          "broad": "broad_synonym", "narrow": "narrow_synonym", "symbol": "symbol",
          "local_name": "worded_name", "elliptic": "elliptic_name"}
COLUMNS = ("subject_source", "subject_label", "start", "end", "object_id", "object_label",
           "object_source", "match_type", "predicate_id", "mapping_justification",
           "confidence")


class TermMatch(BaseModel):
    """One span of the text matched to one term."""

    subject_source: str = ""
    """The text's id (a unit's id in ``annotate``), when it has one."""
    subject_label: str
    """The span's words ("" when only the retrieval lanes found the term): its text with
    a line-end hyphen inside a word, a ligature or a soft hyphen read as the word."""
    start: int | None
    end: int | None
    """Character offsets of the span in the text (end exclusive)."""
    object_id: str
    object_label: str | None
    object_source: str
    """The term's ontology IRI."""
    match_type: str
    predicate_id: str
    mapping_justification: str
    confidence: float
    """The seed's score."""


def term_matches(context: Context, text_id: str = "") -> list[TermMatch]:
    """The context's seeds as term matches, one per naming span, in seed order."""
    labels = _labels(context)
    found: list[TermMatch] = []
    for seed in context.seeds:
        base = {"subject_source": text_id, "object_id": seed.iri,
                "object_label": labels.get(seed.iri), "object_source": seed.ontology_iri,
                "confidence": round(seed.score, 6)}
        if not seed.mentions:
            found.append(TermMatch(**base, subject_label="", start=None, end=None,
                                   match_type="retrieved", predicate_id="skos:relatedMatch",
                                   mapping_justification="semapv:SemanticSimilarityThreshold"
                                                         "Matching"))
            continue
        for mention in seed.mentions:
            kind = _match_type(mention)
            start, end = _offsets(mention.get("span"))
            found.append(TermMatch(
                **base, subject_label=readable(str(mention.get("text", ""))), start=start,
                end=end,
                match_type=kind, predicate_id=_predicate(kind),
                mapping_justification="semapv:SemanticSimilarityThresholdMatching"
                if kind == "similar" else "semapv:LexicalMatching"))
    return found


def _offsets(span: object) -> tuple[int | None, int | None]:
    if isinstance(span, list | tuple) and len(span) == 2 and all(
            isinstance(x, int) for x in span):
        return int(span[0]), int(span[1])
    return None, None


def _match_type(mention: dict[str, object]) -> str:
    if mention.get("similarity") is not None:
        return "similar"
    if mention.get("derived"):
        return "derived"
    kind = _TYPES.get(str(mention.get("kind")), str(mention.get("kind")))
    return kind if mention.get("exact_case", True) else f"{kind}_folded"


def _predicate(match_type: str) -> str:
    """The span (subject) against the term (object): a broad synonym of a term names
    something broader than it, a narrow one something narrower; related synonyms and
    the rules are close; labels, exact synonyms, symbols and worded names exact."""
    kind = match_type.removesuffix("_folded")
    if kind == "broad_synonym":
        return "skos:broadMatch"
    if kind == "narrow_synonym":
        return "skos:narrowMatch"
    if kind in ("related_synonym", "derived", "similar", "elliptic_name"):
        return "skos:closeMatch"
    return "skos:exactMatch"


def _labels(context: Context) -> dict[str, str]:
    """Each named subject's first English (or untagged) name in the context."""
    found: dict[str, str] = {}
    for t in context.triples():
        if (isinstance(t.subject, ox.NamedNode) and t.predicate.value in NAME_PREDICATES
                and isinstance(t.object, ox.Literal) and t.object.language in (None, "", "en")):
            found.setdefault(t.subject.value, t.object.value)
    return found


def as_csv(matches: Sequence[TermMatch]) -> str:
    """Comma-separated values with a header row (``COLUMNS``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for match in matches:
        row = match.model_dump()
        writer.writerow(["" if row[c] is None else row[c] for c in COLUMNS])
    return out.getvalue()


def as_sssom(matches: Sequence[TermMatch], *, mapping_set_id: str = "urn:ontoretrieve:matches"
             ) -> str:
    """SSSOM TSV: a YAML metadata block (``#`` lines with the CURIE map), then one row
    per match; the span offsets and match type are kept as extra columns."""
    header = ["#curie_map:", "#  skos: http://www.w3.org/2004/02/skos/core#",
              "#  semapv: https://w3id.org/semapv/vocab/",
              f"#mapping_set_id: {mapping_set_id}",
              "#license: https://w3id.org/sssom/license/unspecified",
              "#extension_definitions:",
              "#  - slot_name: span_start",
              "#    property: urn:ontoretrieve:span_start",
              "#  - slot_name: span_end",
              "#    property: urn:ontoretrieve:span_end",
              "#  - slot_name: match_type",
              "#    property: urn:ontoretrieve:match_type"]
    columns = ["subject_id", "subject_label", "predicate_id", "object_id", "object_label",
               "object_source", "mapping_justification", "confidence", "subject_source",
               "span_start", "span_end", "match_type"]
    lines = [*header, "\t".join(columns)]
    for m in matches:
        subject = (f"urn:ontoretrieve:span:{m.subject_source or 'text'}:{m.start}-{m.end}"
                   if m.start is not None else
                   f"urn:ontoretrieve:text:{m.subject_source or 'text'}")
        values = [subject, m.subject_label, m.predicate_id, m.object_id, m.object_label or "",
                  m.object_source, m.mapping_justification, str(m.confidence),
                  m.subject_source, "" if m.start is None else str(m.start),
                  "" if m.end is None else str(m.end), m.match_type]
        lines.append("\t".join(_tsv(v) for v in values))
    return "\n".join(lines) + "\n"


def _tsv(value: str) -> str:
    """A TSV cell: tabs and line breaks inside a value become spaces."""
    return value.replace("\t", " ").replace("\r", " ").replace("\n", " ")
