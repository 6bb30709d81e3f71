"""Run recall benchmarks: units through whole retrievals, one JSONL row per unit.

The composition behind ``ontoretrieve bench recall``. One process runs every
variant (the base settings, each ablation, each point of a budget sweep) over
the same open index, model and warm catalog caches: a Qdrant Edge shard opens
once per process, and shared caches keep the variants' latencies comparable.
Baselines are the engine itself with settings changed through ``--set``
(``ABLATIONS``), never separate code.

>>> parse_sets(["fusion.top_k=100", "expand.graph_stage=false"])
{'fusion': {'top_k': 100}, 'expand': {'graph_stage': False}}
>>> [v.name for v in plan_variants([], ["no_expansion"], "expand.max_total_triples=300,600")]
['base', 'no_expansion', 'expand.max_total_triples=300', 'expand.max_total_triples=600']
"""

from __future__ import annotations

import json
import time
import tomllib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence, Set
from pathlib import Path
from typing import Any, NamedTuple

import pyoxigraph as ox
from pydantic import BaseModel

from ontoretrieve.bench.summary import RunSummary, summarize
from ontoretrieve.bench.units import BenchUnit
from ontoretrieve.catalog.reader import CatalogReader
from ontoretrieve.context.model import Context, Mode
from ontoretrieve.context.names import (
    EVERY_LANGUAGE,
    accepted_languages,
    iri_words_name,
    spells_iri,
)
from ontoretrieve.context.retriever import Retriever
from ontoretrieve.context.tokens import estimate_tokens
from ontoretrieve.engine.slices import fit_turtle
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.index.build import configured_fingerprint
from ontoretrieve.index.state import ontology_names
from ontoretrieve.query.batch import NOTHING_PREPARED, PreparedQueries
from ontoretrieve.rdf import sparql
from ontoretrieve.rdf.graph_index import Role, RoleTable, role_of
from ontoretrieve.records import OntologyVersion
from ontoretrieve.settings import Settings, profile_path

__all__ = [
    "ABLATIONS",
    "Variant",
    "ontology_labels",
    "parse_sets",
    "plan_variants",
    "resolve_variants",
    "run_variants",
]

ABLATIONS: dict[str, tuple[str, ...]] = {
    # The lexical side alone: BM25 plus exact-case triggers and unit signals; no embedding.
    "sparse_only": ("fusion.core_weight=0", "fusion.neighborhood_weight=0"),
    # The two dense lanes alone: no BM25 lane, no unit signals, and triggers neither add
    # terms nor raise scores (triggers.enabled would change the index's fingerprint).
    "dense_only": ("fusion.bm25_weight=0", "fusion.mention_weight=0", "triggers.max_atoms=0",
                   "triggers.score=0",
                   "seeds.query_unit_signals_enabled=false"),
    # Seeds as context: their own statements, no graph stage.
    "no_expansion": ("expand.graph_stage=false",),
}

Progress = Callable[[str, int, int], None]
"""(what, done, total)."""


class Variant(BaseModel):
    name: str
    sets: list[str]
    """``group.field=value`` overrides on top of the configured settings."""


def profile_sets(name: str) -> list[str]:
    """A shipped settings profile as ``group.field=value`` pairs.

    >>> profile_sets("reference")[0]
    'mentions.enabled=false'
    """
    path = profile_path(name)
    if path is None:
        raise OntoRetrieveError(f"no shipped settings profile {name!r}")
    tables = tomllib.loads(path.read_text(encoding="utf-8"))
    return [f"{group}.{field}={json.dumps(value)}" for group, fields in tables.items()
            for field, value in fields.items()]


# The reference behaviour: the shipped profile's settings over the configured ones.
ABLATIONS["reference"] = tuple(profile_sets("reference"))


def parse_sets(pairs: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``group.field=value`` pairs as nested overrides (values parsed as JSON when they can be)."""
    overrides: dict[str, dict[str, Any]] = {}
    for pair in pairs:
        key, equals, raw = pair.partition("=")
        group, dot, field = key.strip().partition(".")
        if not equals or not dot or not group or not field:
            raise OntoRetrieveError(f"--set {pair!r}: expected GROUP.FIELD=VALUE, "
                                    "e.g. fusion.top_k=100")
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        overrides.setdefault(group, {})[field] = value
    return overrides


def plan_variants(sets: Sequence[str], ablations: Sequence[str], sweep: str | None
                  ) -> list[Variant]:
    """The base run, then each ablation, then each value of the swept setting."""
    variants = [Variant(name="base", sets=list(sets))]
    for name in ablations:
        if name not in ABLATIONS:
            raise OntoRetrieveError(f"--ablation {name!r}: use one of {', '.join(ABLATIONS)}")
        variants.append(Variant(name=name, sets=[*sets, *ABLATIONS[name]]))
    if sweep:
        key, equals, values = sweep.partition("=")
        if not equals or not values.strip():
            raise OntoRetrieveError(f"--sweep {sweep!r}: expected GROUP.FIELD=V1,V2,...")
        for value in (v.strip() for v in values.split(",") if v.strip()):
            variants.append(Variant(name=f"{key}={value}", sets=[*sets, f"{key}={value}"]))
    return variants


def ontology_labels(versions: Sequence[OntologyVersion]) -> dict[str, str]:
    """A short unique name per content hash: the source file's stem, else its path.

    Ontology IRIs do not do: Text2KGBench's 19 files share one.
    """
    stems = Counter(Path(v.source).stem for v in versions)
    return {v.content_hash: Path(v.source).stem if stems[Path(v.source).stem] == 1
            else v.source for v in versions}


def _aliases(versions: Sequence[OntologyVersion], labels: Mapping[str, str]) -> dict[str, str]:
    """Every name a dataset may use for an ontology (IRI, file, stem, hash) -> its label."""
    iris = Counter(v.ontology_iri for v in versions)
    aliases: dict[str, str] = {}
    for v in versions:
        label = labels[v.content_hash]
        names = ontology_names(v.ontology_iri, v.content_hash, [v.source])
        if iris[v.ontology_iri] > 1:
            names.discard(v.ontology_iri)  # an IRI several files declare names none of them
        for name in sorted(names):
            aliases.setdefault(name, label)
    return aliases


def resolve_variants(variants: Sequence[Variant],
                     make_settings: Callable[[Sequence[str]], Settings]
                     ) -> list[tuple[Variant, Settings]]:
    """Each variant's settings; refused when one would need another index (checked up front)."""
    resolved = [(v, make_settings(v.sets)) for v in variants]
    fingerprint = configured_fingerprint(resolved[0][1])
    for variant, settings in resolved[1:]:
        if configured_fingerprint(settings) != fingerprint:
            raise OntoRetrieveError(
                f"variant {variant.name!r} changes how the index is built "
                f"({' '.join(variant.sets)}): run it on its own with its own --data-dir")
    return resolved


def run_variants(base: Retriever, variants: Sequence[tuple[Variant, Settings]],
                 units: Sequence[BenchUnit], out_dir: Path, *,
                 warm_up: bool = True, progress: Progress | None = None,
                 scoped: bool = True, batch: int = 0) -> tuple[dict[str, RunSummary], float]:
    """Run every variant over the units; rows go to ``out_dir/<variant>.jsonl`` as they come.

    With ``scoped``, a unit that names its own ontology (Text2KGBench: the
    ontology a sentence is to be extracted against) is retrieved with that
    ontology as the query's scope, as an extraction pipeline would call it;
    a named ontology the index does not hold leaves the unit unscoped.
    A unit with a document (``BenchUnit.document``: CRAFT's article) is retrieved
    with it, as a pipeline reading the article paragraph by paragraph would.
    With ``batch`` above 0, units go through ``Retriever.prepare`` that many at a
    time (the rows are the same; each unit's latency then leaves out the
    encoding and the lane searches its batch did ahead).
    Returns the summaries by variant and the warm-up seconds (0 without warm-up).
    """
    report = progress or (lambda what, done, total: None)
    retrievers = {variant.name: base.variant(settings) for variant, settings in variants}
    owners, labels, aliases = _gold_owners(base.reader, units)
    graphs = catalog_graphs(base.reader)  # once: reading the versions queries the store
    label_predicates = base.settings.index.label_predicates
    accepted = accepted_languages(base.settings.context.languages)
    readable = readable_iris(base.reader, sorted({iri for u in units for g in u.gold for iri in g}),
                             label_predicates, graphs, accepted=accepted)
    scopes = {unit.id: _unit_scope(base, unit) if scoped else () for unit in units}
    warm_seconds = 0.0
    if warm_up:
        # Untimed pass: fills the graph cache as a long-running process would have it.
        started = time.perf_counter()
        for done, unit in enumerate(units, start=1):
            base.retrieve(unit.text, Mode.VECTOR, scopes[unit.id], document=unit.document)
            report("warm-up", done, len(units))
        warm_seconds = time.perf_counter() - started
    count_tokens = base.seed_retriever.embedder.count_tokens
    budgets = [None, *CURVE_BUDGETS]
    out_dir.mkdir(parents=True, exist_ok=True)
    summaries = {}
    for variant, _ in variants:
        retriever = retrievers[variant.name]
        rows = []
        path = out_dir / f"{variant.name}.jsonl"
        with path.open("w", encoding="utf-8") as sink:
            prepared: dict[tuple[str, ...], PreparedQueries] = {}
            for done, unit in enumerate(units, start=1):
                if batch and (done - 1) % batch == 0:
                    prepared = _prepare(retriever, units[done - 1:done - 1 + batch], scopes)
                context, *at_budgets = retriever.retrieve_at(
                    unit.text, budgets, Mode.VECTOR, scopes[unit.id],
                    prepared=prepared.get(scopes[unit.id], NOTHING_PREPARED),
                    document=unit.document)
                row = unit_row(unit, context, labels, owners, aliases, count_tokens)
                unnamed = unnamed_subjects(context.triples(), retriever.roles)
                row["gold_unnamed"] = gold_unnamed(unit, unnamed, readable)
                row["context_bare_subjects"] = len(
                    unnamed - readable_iris(base.reader, sorted(unnamed), label_predicates, graphs,
                                            accepted=accepted))
                cuts = cut_at_budgets(unit, context, at_budgets, retriever.roles, readable)
                row["gold_at_tokens"] = {b: cut.found for b, cut in cuts.items()}
                row["gold_unnamed_at_tokens"] = {b: cut.unnamed for b, cut in cuts.items()}
                # The curve's sizes, so a report plots recall against triples and tokens.
                row["size_at_tokens"] = {b: {"triples": cut.triples, "tokens": cut.tokens}
                                         for b, cut in cuts.items()}
                row["scoped"] = bool(scopes[unit.id])
                sink.write(json.dumps(row) + "\n")
                rows.append(row)
                report(variant.name, done, len(units))
        summaries[variant.name] = summarize(rows)
    return summaries, warm_seconds


def _prepare(retriever: Retriever, units: Sequence[BenchUnit],
             scopes: Mapping[str, tuple[str, ...]]) -> dict[tuple[str, ...], PreparedQueries]:
    """Query vectors and lane hits of a batch of units, one preparation per scope."""
    by_scope: dict[tuple[str, ...], list[BenchUnit]] = {}
    for unit in units:
        by_scope.setdefault(scopes[unit.id], []).append(unit)
    return {scope: retriever.prepare([u.text for u in members], Mode.VECTOR, scope,
                                     documents=[u.document for u in members])
            for scope, members in by_scope.items()}


def _unit_scope(retriever: Retriever, unit: BenchUnit) -> tuple[str, ...]:
    """The unit's own ontology as a query scope, when it names one the index holds."""
    if not unit.ontology:
        return ()
    return (unit.ontology,) if retriever.state.named([unit.ontology]) else ()


def _gold_owners(reader: CatalogReader, units: Sequence[BenchUnit]
                 ) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    versions = reader.versions()
    labels = ontology_labels(versions)
    iris = sorted({iri for u in units for group in u.gold for iri in group})
    owners = {iri: labels[hashes[0]]
              for iri, hashes in reader.defining_versions(iris).items() if hashes}
    return owners, labels, _aliases(versions, labels)


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
