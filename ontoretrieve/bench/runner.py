"""Run recall benchmarks: units through whole retrievals, one JSONL row per unit.

The composition behind ``ontoretrieve bench recall``. One process runs every
variant (the base settings, each ablation, each point of a budget sweep) over
the same open index, model and warm catalog caches: a Qdrant Edge shard opens
once per process, and shared caches keep the variants' latencies comparable.
With workers (``bench.workers``) each worker process does the same for the
chunks of units it is given. A row is made by ``bench.rows.bench_row`` either
way. Baselines are the engine itself with settings changed through ``--set``
(``ABLATIONS``), never separate code.

>>> parse_sets(["fusion.top_k=100", "expand.graph_stage=false"])
{'fusion': {'top_k': 100}, 'expand': {'graph_stage': False}}
>>> [v.name for v in plan_variants([], ["no_expansion"], "expand.max_total_triples=300,600")]
['base', 'no_expansion', 'expand.max_total_triples=300', 'expand.max_total_triples=600']
"""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ontoretrieve.bench.rows import (
    RowInputs,
    bench_row,
    catalog_graphs,
    prepare_batch,
    readable_iris,
    warm_up_pass,
)
from ontoretrieve.bench.summary import RunSummary, summarize
from ontoretrieve.bench.units import BenchUnit
from ontoretrieve.bench.workers import rows_in_workers
from ontoretrieve.catalog.reader import CatalogReader
from ontoretrieve.context.names import accepted_languages
from ontoretrieve.context.retriever import Retriever
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.index.build import configured_fingerprint
from ontoretrieve.index.state import ontology_names
from ontoretrieve.query.batch import NOTHING_PREPARED, PreparedQueries
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
                 scoped: bool = True, batch: int = 0,
                 workers: int = 1) -> tuple[dict[str, RunSummary], float]:
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
    With ``workers`` above 1, that many processes make the rows of chunks of units
    (``bench.workers``): the same rows in the same order, each unit's latency
    measured in its worker, beside the others.
    Returns the summaries by variant and the warm-up seconds (0 without warm-up;
    with workers, the sum of theirs).
    """
    report = progress or (lambda what, done, total: None)
    inputs = _row_inputs(base, units, scoped)
    out_dir.mkdir(parents=True, exist_ok=True)
    if workers > 1:
        rows, warm_seconds = rows_in_workers([(v.name, s) for v, s in variants], units, inputs,
                                             out_dir, workers=workers, warm_up=warm_up,
                                             batch=batch, report=report)
        return {name: summarize(made) for name, made in rows.items()}, warm_seconds
    warm_seconds = warm_up_pass(base, units, inputs.scopes, report) if warm_up else 0.0
    summaries = {}
    for variant, settings in variants:
        retriever = base.variant(settings)
        made = []
        with (out_dir / f"{variant.name}.jsonl").open("w", encoding="utf-8") as sink:
            prepared: dict[tuple[str, ...], PreparedQueries] = {}
            for done, unit in enumerate(units, start=1):
                if batch and (done - 1) % batch == 0:
                    prepared = prepare_batch(retriever, units[done - 1:done - 1 + batch],
                                             inputs.scopes)
                row = bench_row(base, retriever, unit, inputs,
                                prepared.get(inputs.scopes[unit.id], NOTHING_PREPARED))
                sink.write(json.dumps(row) + "\n")
                made.append(row)
                report(variant.name, done, len(units))
        summaries[variant.name] = summarize(made)
    return summaries, warm_seconds


def _row_inputs(base: Retriever, units: Sequence[BenchUnit], scoped: bool) -> RowInputs:
    """What every row reads besides its unit's retrieval, read from the catalog once."""
    owners, labels, aliases = _gold_owners(base.reader, units)
    graphs = catalog_graphs(base.reader)  # once: reading the versions queries the store
    label_predicates = tuple(base.settings.index.label_predicates)
    accepted = accepted_languages(base.settings.context.languages)
    readable = readable_iris(base.reader, sorted({iri for u in units for g in u.gold for iri in g}),
                             label_predicates, graphs, accepted=accepted)
    return RowInputs(labels=labels, owners=owners, aliases=aliases,
                     readable=frozenset(readable), graphs=frozenset(graphs),
                     label_predicates=label_predicates, accepted=accepted,
                     scopes={u.id: _unit_scope(base, u) if scoped else () for u in units})


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
