"""``retrieve``, ``slice``, ``lookup``, ``search`` and ``annotate`` (a corpus in batches).

``retrieve`` builds the index first when there is none.

The graph goes to stdout (Turtle, JSON-LD, or one JSON document with
everything); progress, the summary and ``--explain`` go to stderr, so stdout
stays machine-readable.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ontoretrieve.cli.common import (
    AsJson,
    ConfigFile,
    DataDir,
    DocumentOption,
    TenantOption,
    TextFileOption,
    app,
    asked_workers,
    document_argument,
    err,
    errors_to_exit,
    open_engine,
    out,
    print_json,
    print_load_report,
    settings_from,
    short,
    sync_with_progress,
    table_of,
    text_argument,
)
from ontoretrieve.context.model import Context, Mode
from ontoretrieve.engine import Engine
from ontoretrieve.engine.annotate import AnnotateReport, annotate_file, units_left
from ontoretrieve.engine.annotate_workers import WorkerPool
from ontoretrieve.engine.matches import as_csv, as_sssom, term_matches
from ontoretrieve.engine.results import RetrieveResult
from ontoretrieve.engine.workers import auto_workers, available_memory, usable_cores
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.index.build import tenant_dir
from ontoretrieve.settings import Settings
from ontoretrieve.settings.tenants import DEFAULT_TENANT

__all__ = ["annotate_command", "lookup_command", "retrieve_command", "search_command",
           "slice_command"]

_FORMATS = ("turtle", "jsonld", "json", "sssom", "csv")


@app.command("retrieve")
def retrieve_command(
    text: Annotated[str | None, typer.Argument(help="The text to build a context for.")] = None,
    file: TextFileOption = None,
    catalog: Annotated[Path | None, typer.Option(
        "--catalog", help="Load this catalog file or folder and sync the index first.")] = None,
    fmt: Annotated[str, typer.Option(
        "--format", help="turtle, jsonld, json (the whole result), or the term matches "
        "(which span names which term) as sssom (SSSOM TSV) or csv.")] = "turtle",
    mode: Annotated[Mode, typer.Option("--mode", help="How the context is chosen.")
                    ] = Mode.AUTO,
    ontology: Annotated[list[str] | None, typer.Option(
        "--ontology", help="An ontology IRI, file name, file stem or hash (repeat for "
        "several): with --mode ontologies the whole of them, otherwise seeds come only "
        "from them.")] = None,
    max_tokens: Annotated[int | None, typer.Option(
        "--max-tokens", min=1, help="The context's budget in prompt tokens (default: "
        "context.base_tokens plus context.tokens_per_window per query window after the "
        "first; counted as context.token_counter says).")] = None,
    document: DocumentOption = None,
    explain: Annotated[bool, typer.Option(
        "--explain", metavar="", help="Show why each term is in the context (on stderr).")] = False,
    tenant: TenantOption = DEFAULT_TENANT,
    data_dir: DataDir = None,
    config: ConfigFile = None,
    as_json: AsJson = False,
) -> None:
    """Build the ontology context a text is about."""
    if as_json:
        fmt = "json"
    with errors_to_exit():
        if fmt not in _FORMATS:
            raise OntoRetrieveError(f"--format {fmt!r}: use one of {', '.join(_FORMATS)}")
        if mode is Mode.ONTOLOGIES and not ontology:
            raise OntoRetrieveError("--mode ontologies needs at least one --ontology")
        if fmt in ("sssom", "csv") and mode is Mode.AUTO:
            mode = Mode.VECTOR  # matches come from seeds: auto may return a small catalog whole
        _existing_data_dir(data_dir, catalog)
        settings = settings_from(data_dir, config)
        body = text_argument(text, file, settings.server.max_text_chars)
        whole = document_argument(document, settings.server.max_text_chars)
        with open_engine(settings) as engine:
            _ensure_index(engine, catalog, tenant, show=fmt != "json")
            context = engine.retrieve(body, tenant=tenant, mode=mode,
                                      ontologies=ontology or (), max_tokens=max_tokens,
                                      document=whole)
    if fmt == "json":
        print_json(RetrieveResult.of(context).model_dump(mode="json"))
        return
    if fmt in ("sssom", "csv"):
        matches = term_matches(context)
        typer.echo((as_sssom(matches) if fmt == "sssom" else as_csv(matches)).rstrip("\n"))
        return
    with errors_to_exit():  # JSON-LD cannot carry every graph (RDF 1.2 triple terms)
        graph = context.serialize("turtle" if fmt == "turtle" else "jsonld")
    if graph:
        typer.echo(graph.rstrip("\n"))
    _summary(context)
    if explain:
        _explain(context)


def _existing_data_dir(data_dir: Path | None, catalog: Path | None) -> None:
    """A data dir named on the command line or in the environment must exist, unless a
    catalog is given to build in it: a typo there would otherwise start a whole index
    build from catalog.path in a new folder."""
    if data_dir is not None and catalog is None and not data_dir.exists():
        raise OntoRetrieveError(
            f"the data directory {data_dir} (--data-dir or ONTORETRIEVE_DATA_DIR) does not "
            "exist: check the path, or give --catalog PATH to build an index there")


def _ensure_index(engine: Engine, catalog: Path | None, tenant: str, *, show: bool) -> None:
    """Load ``catalog`` and sync; with none and no index yet, build from catalog.path."""
    path = catalog
    if path is None and not (tenant_dir(engine.settings, tenant) / "state.json").exists():
        path = Path(engine.settings.catalog.path)
        if tenant != DEFAULT_TENANT:
            raise OntoRetrieveError(f"no index yet for tenant {tenant!r}: give --catalog PATH")
        if not path.exists():
            raise OntoRetrieveError(
                f"no index yet and the catalog folder {path} does not exist: "
                "give --catalog PATH or set catalog.path")
        err.print(f"no index yet: building one from {path}")
    if path is not None:
        load_report, _ = sync_with_progress(engine, path, False, tenant, show=show)
        if load_report is not None and show:  # stdout carries the result alone
            print_load_report(load_report, brief=True, console=err)


def _summary(context: Context) -> None:
    m = context.metrics
    if context.diagnosis is not None:
        err.print(f"[yellow]empty context: {context.diagnosis.value}[/]")
    for warning in context.warnings:
        err.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False)
    if m.degraded:
        err.print(f"[yellow]degraded ({m.catalog_access_mode}):[/] {escape(m.degraded)}",
                  highlight=False)
    budget = (f", {m.context_tokens} of {m.token_budget} tokens"
              if m.token_budget is not None else "")
    err.print(f"{m.mode.value}: {len(context.seeds)} seeds -> {m.context_terms} terms, "
              f"{m.context_triples} triples from {m.catalog_context_triples} "
              f"({m.catalog_context_mode}){budget}; "
              f"{context.seconds.get('total', 0) * 1000:.0f} ms", highlight=False)


def _explain(context: Context) -> None:
    seeds = table_of("#", "seed", "score", "origin", "lanes", title="seeds in rank order")
    for rank, seed in enumerate(context.seeds, start=1):
        lanes = " ".join(f"{e['lane']}@{e['rank']}" for e in seed.lanes[:4])
        seeds.add_row(str(rank), seed.iri, f"{seed.score:.3f}",
                      seed.origin, lanes)
    err.print(seeds)
    terms = table_of("term", "step", "via", "ontology", title="context terms")
    for evidence in context.evidence.values():
        terms.add_row(evidence.iri, evidence.step, evidence.via or "",
                      evidence.ontology_iri or "")
    err.print(terms)
    err.print({k: v for k, v in context.metrics.subgraph.items() if v})


@app.command("slice")
def slice_command(
    text: Annotated[str | None, typer.Argument(help="The text to slice the catalog for.")
                    ] = None,
    file: TextFileOption = None,
    max_tokens: Annotated[int, typer.Option(
        "--max-tokens", min=1, help="The budget in prompt tokens (counted as "
        "context.token_counter says: an LLM estimate by default).")] = 2000,
    ontology: Annotated[list[str] | None, typer.Option(
        "--ontology", help="Seeds only from this ontology (IRI, file name, file stem or "
        "hash; repeat for several).")] = None,
    document: DocumentOption = None,
    tenant: TenantOption = DEFAULT_TENANT,
    data_dir: DataDir = None,
    config: ConfigFile = None,
    as_json: AsJson = False,
) -> None:
    """The terms a text is about with their statements, never over --max-tokens."""
    with errors_to_exit():
        settings = settings_from(data_dir, config)
        body = text_argument(text, file, settings.server.max_text_chars)
        whole = document_argument(document, settings.server.max_text_chars)
        with open_engine(settings) as engine:
            result = engine.slice(body, max_tokens, tenant=tenant, ontologies=ontology or (),
                                  document=whole)
    if as_json:
        print_json(result.model_dump(mode="json"))
        return
    if result.context:
        typer.echo(result.context.rstrip("\n"))
    err.print(f"{len(result.hits)} terms, {result.token_estimate} of {max_tokens} tokens"
              + (f"; truncated ({result.blocks_kept} of {result.blocks_total} blocks)"
                 if result.truncated else ""), highlight=False)
    if result.diagnosis is not None:
        err.print(f"[yellow]empty: {result.diagnosis.value}[/]")


@app.command("lookup")
def lookup_command(
    mention: Annotated[str, typer.Argument(help='One mention, such as "mV" or "cell nucleus".')],
    limit: Annotated[int, typer.Option("--limit", min=1, max=100)] = 10,
    tenant: TenantOption = DEFAULT_TENANT,
    data_dir: DataDir = None,
    config: ConfigFile = None,
    as_json: AsJson = False,
) -> None:
    """Ground one mention to ranked candidate terms, with an ambiguity flag."""
    with errors_to_exit(), open_engine(settings_from(data_dir, config)) as engine:
        result = engine.lookup(mention, tenant=tenant, limit=limit)
    if as_json:
        print_json(result.model_dump(mode="json"))
        return
    table = table_of("#", "term", "label", "match", "score", "ontology")
    for rank, c in enumerate(result.candidates, start=1):
        table.add_row(str(rank), c.iri, short(c.label or "", 30),
                      c.match, f"{c.score:.3f}", c.ontology_iri or "")
    out.print(table)
    if result.ambiguous:
        out.print("[yellow]ambiguous: more than one term fits as well as the best[/]")
    if not result.candidates:
        out.print("no candidate term")


@app.command("search")
def search_command(
    text: Annotated[str, typer.Argument(help="The text to find entities for.")],
    limit: Annotated[int, typer.Option("--limit", min=1, max=200)] = 20,
    tenant: TenantOption = DEFAULT_TENANT,
    data_dir: DataDir = None,
    config: ConfigFile = None,
    as_json: AsJson = False,
) -> None:
    """Entity hits from the catalog and the tenant's remote SPARQL endpoints, merged."""
    with errors_to_exit(), open_engine(settings_from(data_dir, config)) as engine:
        result = engine.search(text, tenant=tenant, limit=limit)
    if as_json:
        print_json(result.model_dump(mode="json"))
        return
    table = table_of("#", "entity", "label", "score", "adapter")
    for rank, hit in enumerate(result.hits, start=1):
        table.add_row(str(rank), hit.id, short(hit.label or "", 30),
                      f"{hit.score:.3f}", hit.adapter)
    out.print(table)
    for problem in result.adapter_errors:
        err.print(f"[yellow]{escape(problem.adapter)} failed:[/] {escape(problem.message)}",
                  highlight=False)


@app.command("annotate")
def annotate_command(
    units: Annotated[Path, typer.Argument(
        help="JSON Lines, one unit per line: {\"id\": ..., \"text\": ...} (or \"unit_id\").")],
    out_path: Annotated[Path, typer.Option(
        "--out", help="Where the results go, one JSON line per unit; an existing file is "
        "resumed (its good lines kept, the rest done again).")],
    mode: Annotated[Mode, typer.Option("--mode", help="How each context is chosen.")
                    ] = Mode.AUTO,
    ontology: Annotated[list[str] | None, typer.Option(
        "--ontology", help="Scope every unit to these ontologies (repeat for several).")
    ] = None,
    max_tokens: Annotated[int | None, typer.Option(
        "--max-tokens", min=1, help="Each context's budget in prompt tokens.")] = None,
    batch: Annotated[int, typer.Option(
        "--batch", min=1, max=4096, help="Units retrieved per batch.")] = 64,
    workers: Annotated[str, typer.Option(
        "--workers", metavar="auto|N", help="Processes retrieving batches side by side, "
        "each reading the data directory with its share of the cores (the output is the "
        "same file); 1 retrieves in this process; auto: one per core where the units left "
        "fill 4 batches per worker and memory affords 2.5 GiB each.")] = "auto",
    turtle: Annotated[bool, typer.Option(
        "--turtle/--no-turtle", metavar="", help="Put each context's Turtle in its line.")] = True,
    tenant: TenantOption = DEFAULT_TENANT,
    data_dir: DataDir = None,
    config: ConfigFile = None,
    as_json: AsJson = False,
) -> None:
    """Retrieve every unit of a JSON Lines file in batches (exit 1 if some failed)."""
    asked = asked_workers(workers)
    with errors_to_exit():
        _existing_data_dir(data_dir, None)
        settings = settings_from(data_dir, config)
        with open_engine(settings) as engine:
            _ensure_index(engine, None, tenant, show=not as_json)
            count = _worker_count(asked, units, out_path, batch)
            with _worker_pool(settings, count, show=not as_json) as pool:
                report = _annotate(engine, units, out_path, tenant=tenant, mode=mode,
                                   ontologies=ontology or (), max_tokens=max_tokens,
                                   batch=batch, turtle=turtle, workers=pool,
                                   show=not as_json)
    if as_json:
        print_json({**asdict(report), "units_per_second": report.units_per_second,
                    "workers": count})
    else:
        err.print(f"{report.annotated:,} units annotated ({report.kept:,} kept from an "
                  f"earlier run), {report.failed:,} failed, {report.units_per_second} units/s "
                  f"with {count} worker{'s' if count > 1 else ''} -> {escape(str(out_path))}",
                  highlight=False)
    if report.failed:
        raise typer.Exit(1)


def _worker_count(asked: int | None, units: Path, out: Path, batch: int) -> int:
    """The workers asked for, or auto's (``workers.auto_workers`` over the units
    left, the usable cores and the memory available)."""
    if asked is not None:
        return asked
    return auto_workers(units_left(units, out), batch, usable_cores(), available_memory())


@contextmanager
def _worker_pool(settings: Settings, count: int, *, show: bool) -> Iterator[WorkerPool | None]:
    """The pool of ``count`` workers (None: retrieve in this process), saying while they
    start: each opens the model and the index before the first batch is sent."""
    if count < 2:
        yield None
        return
    starting = f"starting {count} workers: each opens the model and the index"
    with err.status(starting) if show else nullcontext():
        pool = WorkerPool(settings, count)
    with pool:
        yield pool


_WARMING_UP = "first batch: loading the model, index and catalog graphs"


def _annotate(engine: Engine, units: Path, out_path: Path, *, show: bool,
              **options: Any) -> AnnotateReport:
    if not show:
        return annotate_file(engine, units, out_path, **options)
    columns = (TextColumn("annotate"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("annotate", total=None, rate="")
        started = time.perf_counter()
        first: list[int] = []

        def on_units(done: int, total: int) -> None:
            if not first:  # units kept from an earlier run do not count for the rate
                first.append(done)
            rate = (done - first[0]) / max(time.perf_counter() - started, 1e-6)
            # The first batch also loads what every later one reuses (the model, the
            # index, the catalog's graphs): on a large catalog, tens of seconds at 0.
            shown = f"{rate:.1f} units/s" if done > first[0] else _WARMING_UP
            bar.update(task, completed=done, total=total, rate=shown)

        return annotate_file(engine, units, out_path, progress=on_units, **options)
