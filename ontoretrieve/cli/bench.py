"""``ontoretrieve bench``: recall runs with their report, paired comparison, performance.

Thin shells over ``ontoretrieve.bench``: ``recall`` loads the catalog, syncs the
index, runs the variants (``bench.runner``), writes rows, ``summary.json`` and
the report (``bench.report``); ``compare`` pairs two runs (``bench.compare``);
``perf`` measures throughput, latency and memory (``bench.perf``).
"""

from __future__ import annotations

import json
import resource
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from ontoretrieve.bench.compare import (
    Comparison,
    check_metric,
    compare_runs,
    read_run,
)
from ontoretrieve.bench.perf import perf_markdown, run_perf
from ontoretrieve.bench.report import write_report
from ontoretrieve.bench.runner import (
    ABLATIONS,
    parse_sets,
    plan_variants,
    resolve_variants,
    run_variants,
)
from ontoretrieve.bench.units import read_units, sample_units
from ontoretrieve.bench.workers import WORKER_CHUNK
from ontoretrieve.cli.common import (
    AsJson,
    ConfigFile,
    DataDir,
    app,
    asked_workers,
    err,
    errors_to_exit,
    open_engine,
    out,
    print_json,
    short,
    sync_with_progress,
)
from ontoretrieve.context.retriever import Retriever
from ontoretrieve.engine.workers import auto_workers, available_memory, usable_cores
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.settings import Settings, load_settings
from ontoretrieve.settings.tenants import DEFAULT_TENANT

__all__ = ["bench_app"]

bench_app = typer.Typer(help="Benchmark tools.", no_args_is_help=True)

SMOKE_UNITS = Path(__file__).resolve().parents[2] / "benchmarks" / "smoke" / "units.jsonl"
"""The smoke suite's units in a source checkout (perf's default query units)."""
app.add_typer(bench_app, name="bench")


@bench_app.command("compare")
def compare_command(
    run_a: Annotated[Path, typer.Argument(help="The baseline run (JSONL, one row per unit).")],
    run_b: Annotated[Path, typer.Argument(help="The run to compare with it.")],
    metric: Annotated[str, typer.Option(
        "--metric", help="context (gold among context subjects), seed, or context@N "
        "(the context cut to N tokens, a budget of the recall curve); named and named@N "
        "count only gold the context names by a label or symbol.")] = "context",
    units: Annotated[list[Path] | None, typer.Option(
        "--units", help="Units with the gold (any layout bench recall reads), for runs whose "
        "rows carry none.")
    ] = None,
    resamples: Annotated[int, typer.Option("--resamples", min=100)] = 2000,
    show: Annotated[int, typer.Option("--show", help="Terms gained and lost to list.")] = 10,
    as_json: AsJson = False,
) -> None:
    """Paired per-term comparison of two runs, with a bootstrap interval on the difference."""
    with errors_to_exit():
        chosen = check_metric(metric)
        gold = None
        if units:
            # The one unit loader, so every layout bench recall reads gives gold here too.
            with tempfile.TemporaryDirectory() as work:
                gold = {u.id: u.gold for u in read_units(units, Path(work)).units}
        result = compare_runs(read_run(run_a), read_run(run_b), metric=chosen, gold=gold,
                              resamples=resamples)
    if as_json:
        print_json(result.model_dump(mode="json"))
        return
    _print_comparison(result, show)


def _print_comparison(c: Comparison, show: int) -> None:
    verdict = "noise" if c.noise else ("better" if c.difference > 0 else "worse")
    out.print(f"{c.metric} term recall over {c.units} paired units, {c.gold_terms} gold terms: "
              f"A {c.recall_a:.1%}  B {c.recall_b:.1%}  difference {c.difference:+.2%} "
              f"({c.confidence:.0%} interval {c.ci_low:+.2%} .. {c.ci_high:+.2%}): {verdict}")
    for source, (a, b) in c.by_source.items():
        out.print(f"  {source}: A {a:.1%}  B {b:.1%}  ({b - a:+.2%})")
    out.print(f"gained {len(c.gained)}, lost {len(c.lost)}"
              + (f"; {len(c.unpaired)} units in one run only" if c.unpaired else ""))
    for label, pairs in (("+", c.gained), ("-", c.lost)):
        for unit, term in pairs[:show]:
            out.print(f"  {label} {unit}  {short(term, 70, keep='end')}")


@bench_app.command("recall")
def recall_command(
    units: Annotated[list[Path], typer.Option(
        "--units", help="A bench units file, a corpus folder (cases.jsonl + ontologies/) or a "
        "Text2KGBench folder; repeat for several.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for rows, summary, report.")],
    catalog: Annotated[Path | None, typer.Option(
        "--catalog", help="Catalog file or folder to load and index first (corpus and "
        "Text2KGBench folders bring their own).")] = None,
    sample: Annotated[int | None, typer.Option(
        "--sample", min=1, help="Units per source, drawn with --seed (default: all).")] = None,
    seed: Annotated[int, typer.Option("--seed")] = 1,
    sets: Annotated[list[str] | None, typer.Option(
        "--set", help="GROUP.FIELD=VALUE over the settings, for every variant.")] = None,
    ablations: Annotated[list[str] | None, typer.Option(
        "--ablation", help=f"Also run a baseline: {', '.join(ABLATIONS)}.")] = None,
    sweep: Annotated[str | None, typer.Option(
        "--sweep", help="Also run each value of one setting, e.g. "
        "expand.max_total_triples=300,600,1200,2400.")] = None,
    batch: Annotated[int, typer.Option(
        "--batch", min=0, max=4096, help="Prepare the query vectors and lane hits of this "
        "many units at once (0: one by one). The rows are the same; per-unit latency then "
        "leaves out what the batch did ahead.")] = 0,
    warm_up: Annotated[bool, typer.Option(
        "--warm-up/--no-warm-up", metavar="", help="Run the units once untimed first "
        "(fills the graph cache as a long-running process has it).")] = True,
    workers: Annotated[str, typer.Option(
        "--workers", metavar="auto|N", help="Processes making the rows of chunks of units "
        "side by side, each reading the data directory with its share of the cores (the "
        "same rows; each latency then measured beside the other workers); 1: this "
        "process; auto: one per core where the units give each 4 chunks and memory "
        "affords 2.5 GiB each.")] = "1",
    scoped: Annotated[bool, typer.Option(
        "--scoped/--unscoped", metavar="", help="Retrieve a unit that names its own ontology "
        "(Text2KGBench) with that ontology as the query's scope, as an extraction "
        "pipeline calls it; --unscoped searches the whole catalog.")] = True,
    data_dir: DataDir = None,
    config: ConfigFile = None,
    as_json: AsJson = False,
) -> None:
    """Context and seed term recall, context size and latency of units, per source and ontology."""
    command = " ".join(["ontoretrieve", *sys.argv[1:]])
    asked = asked_workers(workers)
    with errors_to_exit():
        base_sets = list(sets or [])
        variants = plan_variants(base_sets, ablations or [], sweep)
        overrides: dict[str, Any] = {"data_dir": data_dir} if data_dir else {}

        def make_settings(pairs: Sequence[str]) -> Settings:
            return load_settings(config, **{**overrides, **parse_sets(pairs)})

        resolved = resolve_variants(variants, make_settings)
        settings = resolved[0][1]
        found = read_units(units, out_dir / "work")
        chosen = sample_units(found.units, sample, seed)
        if not chosen:
            raise OntoRetrieveError("no units to run: the files hold no scorable unit")
        catalogs = [catalog] if catalog else found.catalogs
        with open_engine(settings) as engine:
            for path in catalogs:
                sync_with_progress(engine, path, False, DEFAULT_TENANT, show=not as_json)
            retriever = Retriever.open(settings, engine.store, embedder=engine.embedder())
            count = asked or auto_workers(len(chosen), batch or WORKER_CHUNK, usable_cores(),
                                          available_memory())
            try:
                with _Bars(not as_json) as bars:
                    summaries, warm = run_variants(retriever, resolved, chosen, out_dir,
                                                   warm_up=warm_up, progress=bars.update,
                                                   scoped=scoped, batch=batch, workers=count)
            finally:
                retriever.close()
        data: dict[str, Any] = {
            "date": datetime.now(UTC).isoformat(timespec="seconds"), "command": command,
            "data_dir": str(settings.data_dir), "catalogs": [str(c) for c in catalogs],
            "sample": sample, "seed": seed, "scoped": scoped, "batch": batch, "workers": count,
            "units_per_source": dict(Counter(u.source for u in chosen)),
            "warm_up_seconds": round(warm, 1),
            # A worker's peak when workers made the rows and it is the larger.
            "peak_rss_mib": round(max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                                      resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
                                  / 1024),
            "variants": {v.name: {"sets": v.sets, "summary": summaries[v.name].model_dump(
                mode="json")} for v in variants},
        }
        (out_dir / "summary.json").write_text(json.dumps(data, indent=2) + "\n",
                                              encoding="utf-8")
        written = write_report(out_dir)
    if as_json:
        print_json(data)
        return
    for name, summary in summaries.items():
        overall = summary.overall
        total = overall.latency_ms.get("total")
        out.print(f"{name}: context recall {overall.context_term_recall:.1%}, seeds "
                  f"{overall.seed_term_recall:.1%}, {overall.context_triples.mean:.0f} triples "
                  f"/ {overall.context_tokens.mean:.0f} tokens mean, p50 "
                  f"{total.p50 if total else 0:.0f} ms ({len(chosen)} units)")
        for source, s in summary.sources.items():
            out.print(f"  {source}: context {s.context_term_recall:.1%}, seeds "
                      f"{s.seed_term_recall:.1%}, {s.context_tokens.mean:.0f} tokens")
    made_by = f" (made by {count} workers)" if count > 1 else ""
    out.print(f"rows{made_by}, summary and report in {out_dir}: "
              f"{', '.join(p.name for p in written)}")


class _Bars:
    """A rich progress bar per variant on stderr, or nothing (``show`` false)."""

    def __init__(self, show: bool) -> None:
        self.show = show
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                                 transient=True, disable=not show)
        self.tasks: dict[str, TaskID] = {}

    def __enter__(self) -> _Bars:
        self.progress.start()
        return self

    def update(self, what: str, done: int, total: int) -> None:
        if what not in self.tasks:
            self.tasks[what] = self.progress.add_task(what, total=total)
        self.progress.update(self.tasks[what], completed=done)

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()


@bench_app.command("perf")
def perf_command(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for catalogs, indexes, results.")],
    catalog: Annotated[Path | None, typer.Option(
        "--catalog", help="Source catalog whose files are assembled (and replicated) into each "
        "size (default: the configured catalog.path).")] = None,
    units: Annotated[list[Path] | None, typer.Option(
        "--units", help="Query units for latency (default: the smoke suite's units).")] = None,
    sizes: Annotated[str, typer.Option(
        "--sizes", help="Target catalog sizes in atoms, comma-separated.")
    ] = "1000,10000,100000",
    sample: Annotated[int | None, typer.Option(
        "--sample", min=1, help="Query units per source (default: all).")] = None,
    raw_texts: Annotated[int, typer.Option(
        "--raw-texts", min=100, help="Texts for the raw embedding throughput.")] = 3000,
    config: ConfigFile = None,
    as_json: AsJson = False,
) -> None:
    """Index and raw embedding throughput, latency by stage and peak RSS at several sizes."""
    with errors_to_exit():
        try:
            targets = [int(s) for s in sizes.split(",") if s.strip()]
        except ValueError:
            raise OntoRetrieveError(f"--sizes {sizes!r}: expected numbers like 1000,10000"
                                    ) from None
        if not targets or min(targets) < 1:
            raise OntoRetrieveError(f"--sizes {sizes!r}: give at least one positive size")
        settings = load_settings(config)
        source = catalog or Path(settings.catalog.path)
        if not source.exists():
            raise OntoRetrieveError(f"catalog {source} does not exist: give --catalog PATH")
        queries = units or [SMOKE_UNITS]
        for path in queries:
            if not path.exists():
                raise OntoRetrieveError(f"units {path} do not exist: give --units FILE")
        out_dir.mkdir(parents=True, exist_ok=True)
        say = (lambda message: None) if as_json else (
            lambda message: err.print(f"[dim]{message}[/]", highlight=False))
        data = run_perf(settings, source, queries, out_dir, sizes=targets, sample=sample,
                        raw_texts=raw_texts, progress=say)
        (out_dir / "perf.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        (out_dir / "perf.md").write_text(perf_markdown(data), encoding="utf-8")
    if as_json:
        print_json(data)
    else:
        out.print(perf_markdown(data))
