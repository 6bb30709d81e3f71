"""One bench row per unit: what a retrieval found of the unit's gold, at each budget.

Pure but for the catalog reads it names (``readable_iris``). The same code makes
a row in the ``bench recall`` process and in its workers (``bench.workers``):
``RowInputs`` carries what every row reads besides its unit, and ``bench_row``
retrieves one unit and makes its row.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Any, NamedTuple

import pyoxigraph as ox

from ontoretrieve.bench.units import BenchUnit
from ontoretrieve.catalog.reader import CatalogReader
from ontoretrieve.context.model import Context, Mode
from ontoretrieve.context.names import EVERY_LANGUAGE, iri_words_name, spells_iri
from ontoretrieve.context.retriever import Retriever
from ontoretrieve.context.tokens import estimate_tokens
from ontoretrieve.engine.slices import fit_turtle
from ontoretrieve.query.batch import NOTHING_PREPARED, PreparedQueries
from ontoretrieve.rdf import sparql
from ontoretrieve.rdf.graph_index import Role, RoleTable, role_of

__all__ = ["CURVE_BUDGETS", "BudgetCut", "RowInputs", "bench_row", "catalog_graphs",
           "cut_at_budgets", "gold_unnamed", "prepare_batch", "readable_iris", "unit_row",
           "unnamed_subjects", "warm_up_pass"]


@dataclass(frozen=True, slots=True)
class RowInputs:
    """What every row of a run reads besides its unit's retrieval: the catalog's labels
    and aliases of its ontologies, which ontology holds each gold IRI, which gold IRIs
    read without a label, the catalog's graphs, and each unit's query scope."""

    labels: Mapping[str, str]
    owners: Mapping[str, str]
    aliases: Mapping[str, str]
    readable: frozenset[str]
    graphs: frozenset[str]
    label_predicates: tuple[str, ...]
    accepted: frozenset[str]
    scopes: Mapping[str, tuple[str, ...]]


def bench_row(base: Retriever, retriever: Retriever, unit: BenchUnit, inputs: RowInputs,
              prepared: PreparedQueries = NOTHING_PREPARED) -> dict[str, Any]:
    """Retrieve ``unit`` with ``retriever`` (at the default budget and each curve budget)
    and make its row; ``base`` reads the catalog for the names the context lacks."""
    context, *at_budgets = retriever.retrieve_at(
        unit.text, [None, *CURVE_BUDGETS], Mode.VECTOR, inputs.scopes[unit.id],
        prepared=prepared, document=unit.document)
    row = unit_row(unit, context, inputs.labels, inputs.owners, inputs.aliases,
                   base.seed_retriever.embedder.count_tokens)
    unnamed = unnamed_subjects(context.triples(), retriever.roles)
    row["gold_unnamed"] = gold_unnamed(unit, unnamed, inputs.readable)
    row["context_bare_subjects"] = len(unnamed - readable_iris(
        base.reader, sorted(unnamed), inputs.label_predicates, inputs.graphs,
        accepted=inputs.accepted))
    cuts = cut_at_budgets(unit, context, at_budgets, retriever.roles, inputs.readable)
    row["gold_at_tokens"] = {b: cut.found for b, cut in cuts.items()}
    row["gold_unnamed_at_tokens"] = {b: cut.unnamed for b, cut in cuts.items()}
    # The curve's sizes, so a report plots recall against triples and tokens.
    row["size_at_tokens"] = {b: {"triples": cut.triples, "tokens": cut.tokens}
                             for b, cut in cuts.items()}
    row["scoped"] = bool(inputs.scopes[unit.id])
    return row


def warm_up_pass(base: Retriever, units: Sequence[BenchUnit],
                 scopes: Mapping[str, tuple[str, ...]],
                 report: Callable[[str, int, int], None] | None = None) -> float:
    """Retrieve every unit once, untimed by the rows: it fills the graph cache as a
    long-running process would have it. Returns the seconds it took."""
    started = time.perf_counter()
    for done, unit in enumerate(units, start=1):
        base.retrieve(unit.text, Mode.VECTOR, scopes[unit.id], document=unit.document)
        if report:
            report("warm-up", done, len(units))
    return time.perf_counter() - started


def prepare_batch(retriever: Retriever, units: Sequence[BenchUnit],
                  scopes: Mapping[str, tuple[str, ...]]) -> dict[tuple[str, ...], PreparedQueries]:
    """Query vectors and lane hits of a batch of units, one preparation per scope."""
    by_scope: dict[tuple[str, ...], list[BenchUnit]] = {}
    for unit in units:
        by_scope.setdefault(scopes[unit.id], []).append(unit)
    return {scope: retriever.prepare([u.text for u in members], Mode.VECTOR, scope,
                                     documents=[u.document for u in members])
            for scope, members in by_scope.items()}


def unit_row(unit: BenchUnit, context: Context, labels: Mapping[str, str],
             owners: Mapping[str, str], aliases: Mapping[str, str],
             count_tokens: Callable[[str], int]) -> dict[str, Any]:
    """One unit's result row (what ``summary.summarize`` and ``bench compare`` read)."""
    supplied = Counter(labels.get(e.ontology_hash or "", "(unknown)")
                       for e in context.evidence.values())
    gold_iris = sorted({iri for group in unit.gold for iri in group})
    m = context.metrics
    turtle = "" if context.empty else context.serialize("turtle")
    return {
        "id": unit.id, "source": unit.source,
        # None when the unit names no ontology or one the catalog does not hold, so that
        # on-topic precision is never a silent 0 (see ``unknown_unit_ontologies``).
        "unit_ontology": aliases.get(unit.ontology) if unit.ontology else None,
        "unit_ontology_named": unit.ontology,
        "text": unit.text,
        "gold": unit.gold, "derived": unit.derived,
        "gold_ontologies": {iri: owners[iri] for iri in gold_iris if iri in owners},
        "retrieved_term_iris": [s.iri for s in context.seeds],
        # What named each seed in the text (the report's drill-down says why it is here).
        "seed_spans": {s.iri: [str(m["text"]) for m in s.mentions][:3]
                       for s in context.seeds if s.mentions},
        "context_subjects": context.terms,
        "subject_ontologies": dict(supplied),
        "context_triples_count": m.context_triples,
        "context_tokens": estimate_tokens(turtle) if turtle else 0,
        "context_encoder_tokens": count_tokens(turtle) if turtle else 0,
        "empty": context.empty,
        "diagnosis": context.diagnosis.value if context.diagnosis else None,
        "truncated": m.truncated,
        "seconds": context.seconds,
        "funnel": m.seeds.model_dump(mode="json") if m.seeds else None,
        "graph_stage": {"seed_terms": m.seed_terms, "promoted_types": m.promoted_types,
                        "schema_closure_added": m.schema_closure_added,
                        "small_module_triples": m.small_module_triples,
                        "context_terms": m.context_terms,
                        "working_graph_triples": m.catalog_context_triples},
        "catalog_access_mode": m.catalog_access_mode,
    }


CURVE_BUDGETS = (500, 1000, 2000, 4000, 8000)
"""Token budgets (estimated LLM tokens) of the recall-against-tokens curve."""


class BudgetCut(NamedTuple):
    """A context cut to one curve budget: what it holds of the unit's gold, and its size."""

    found: list[str]
    """The unit's gold IRIs among its subjects."""
    triples: int
    tokens: int
    """Estimated tokens of its Turtle."""
    unnamed: list[str]
    """Of ``found``, those it names by no label or symbol (``gold_unnamed``)."""


def cut_at_budgets(unit: BenchUnit, context: Context, at_budgets: Sequence[Context],
                   roles: RoleTable, readable: Set[str] = frozenset()
                   ) -> dict[str, BudgetCut]:
    """Per curve budget, the context cut to it: a context packed into token budgets
    (``context.budget``) was retrieved at each one; a context without a budget (the
    reference) is cut as ``slice`` cuts it, subject blocks in seed-then-admission order
    while their Turtle fits."""
    gold = {iri for group in unit.gold for iri in group}
    cut_after = context.metrics.token_budget is None and not context.empty
    triples = context.triples() if cut_after else []  # parsed once for every budget
    order = [s.iri for s in context.seeds] + context.terms
    cuts = {}
    for budget, packed in zip(CURVE_BUDGETS, at_budgets, strict=True):
        if not cut_after:
            subjects = set(packed.terms)
            kept = packed.triples()
            size = (packed.metrics.context_triples, packed.metrics.context_tokens or 0)
        else:
            taken, _, tokens, _ = fit_turtle(triples, order, budget, estimate_tokens)
            subjects = {iri for iri, _ in taken if iri is not None}
            kept = [t for _, ts in taken for t in ts]
            size = (len(kept), tokens)
        cuts[str(budget)] = BudgetCut(sorted(gold & subjects), *size,
                                      gold_unnamed(unit, unnamed_subjects(kept, roles), readable))
    return cuts


def gold_unnamed(unit: BenchUnit, unnamed: Set[str], readable: Set[str] = frozenset()
                 ) -> list[str]:
    """The unit's gold IRIs among a context's ``unnamed`` subjects (``unnamed_subjects``):
    bare IRIs, which a reader of the context cannot tell from any other. ``readable`` IRIs
    say their names themselves (``readable_iris``) and never count.

    >>> from ontoretrieve.rdf.vocab import RDFS_LABEL_NODE, SUBCLASS_OF_NODE
    >>> x = lambda s: ox.NamedNode("http://x/" + s)
    >>> unit = BenchUnit(id="u", source="s", text="t", gold=[["http://x/a"], ["http://x/b"]])
    >>> unnamed = unnamed_subjects([ox.Triple(x("a"), SUBCLASS_OF_NODE, x("b")),
    ...                             ox.Triple(x("b"), RDFS_LABEL_NODE, ox.Literal("bee"))],
    ...                            RoleTable.default())
    >>> gold_unnamed(unit, unnamed)
    ['http://x/a']
    """
    gold = {iri for group in unit.gold for iri in group}
    return sorted((unnamed & gold) - readable)


def unnamed_subjects(triples: Sequence[ox.Triple], roles: RoleTable) -> set[str]:
    """The IRIs the triples hold as subjects and name by no label and no symbol."""
    held: set[str] = set()
    named: set[str] = set()
    for t in triples:
        if isinstance(t.subject, ox.NamedNode):
            held.add(t.subject.value)
            if not isinstance(t.object, ox.Triple) and role_of(
                    t.predicate, t.object, roles) in (Role.LABEL, Role.SYMBOL):
                named.add(t.subject.value)
    return held - named


def catalog_graphs(reader: CatalogReader) -> set[str]:
    """The named graphs the catalog's current versions are stored in."""
    return {graph for v in reader.versions() for graph in v.named_graphs}


def readable_iris(reader: CatalogReader, iris: Sequence[str], label_predicates: Sequence[str],
                  graphs: Set[str] | None = None, batch: int = 400,
                  accepted: frozenset[str] = EVERY_LANGUAGE) -> set[str]:
    """Of ``iris``, those a context need not name: the IRI spells a label of the term
    (``relations#birthPlace`` labelled "birth place", as ``spells_iri``
    decides), the catalog has no label for it (its IRI is all there is to show), or
    none in the ``accepted`` languages where the IRI reads as words
    (``pizza:MozzarellaTopping``, labelled in Portuguese alone: ``reads_as_words``).
    One query per ``batch`` IRIs in ``graphs`` (default: ``catalog_graphs``); none for
    no IRIs."""
    if not iris:
        return set()
    graphs = catalog_graphs(reader) if graphs is None else graphs
    labelled: dict[str, list[object]] = {}
    for chunk in sparql.chunks(iris, batch):
        for iri, facts in reader.facts(chunk, label_predicates, graphs).items():
            labelled.setdefault(iri, []).extend(o for _, o in facts)
    return {iri for iri in iris if iri not in labelled or _reads_without(
        ox.NamedNode(iri), labelled[iri], accepted)}


def _reads_without(node: ox.NamedNode, labels: Sequence[object], accepted: frozenset[str]
                   ) -> bool:
    """The IRI says what its labels would: it spells one (``spells_iri``), or its words
    name a term with no label in an accepted language (``iri_words_name``)."""
    return any(spells_iri(label, node) for label in labels) or iri_words_name(
        node, labels, accepted)
