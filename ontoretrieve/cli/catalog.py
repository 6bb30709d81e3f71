"""The ``config``, ``catalog``, ``index`` and ``seeds`` commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ontoretrieve.backends.access import Access
from ontoretrieve.catalog.store import Catalog
from ontoretrieve.cli.common import (
    AsJson,
    ConfigFile,
    DataDir,
    TenantOption,
    TextFileOption,
    WaitOption,
    app,
    catalog_app,
    claimed,
    config_app,
    errors_to_exit,
    flatten,
    index_app,
    load_with_progress,
    open_engine,
    open_store,
    out,
    print_json,
    print_load_report,
    settings_from,
    short,
    sync_with_progress,
    table_of,
    text_argument,
)
from ontoretrieve.engine.doctor import DoctorReport, Finding
from ontoretrieve.engine.results import CatalogListing
from ontoretrieve.errors import DataDirBusyError, StoreUnavailableError
from ontoretrieve.index.build import index_status
from ontoretrieve.query.seeder import SeedRetriever
from ontoretrieve.query.windows import has_words
from ontoretrieve.settings import reference_names, setting_origins
from ontoretrieve.settings.tenants import DEFAULT_TENANT, require_tenant


@config_app.command("show")
def config_show(data_dir: DataDir = None, config: ConfigFile = None,
                as_json: AsJson = False) -> None:
    """Print every effective setting, where it came from and its reference name."""
    with errors_to_exit():
        settings = settings_from(data_dir, config)
        origins = setting_origins(config, **({"data_dir": data_dir} if data_dir else {}))
    references = {f"{g}.{f}": name for name, (g, f) in reference_names().items()}
    values = flatten(settings.model_dump(mode="json"))
    if as_json:
        print_json({
            "settings": settings.model_dump(mode="json"),
            "origins": origins,
            "reference_names": references,
        })
        return
    table = Table("setting", "value", "from", "reference name")
    for key, value in values.items():
        origin = origins.get(key, "default")
        style = "" if origin == "default" else "bold"
        table.add_row(key, json.dumps(value), origin, references.get(key, ""), style=style)
    out.print(table)


@catalog_app.command("load")
def catalog_load(
    path: Annotated[Path, typer.Argument(help="An RDF file, or a folder searched recursively.")],
    tenant: TenantOption = DEFAULT_TENANT,
    data_dir: DataDir = None,
    config: ConfigFile = None,
    as_json: AsJson = False,
    wait: WaitOption = 0.0,
) -> None:
    """Load ontologies; unchanged files cost nothing, changed ones become new versions."""
    with errors_to_exit():
        settings = settings_from(data_dir, config)
        with open_store(settings, Access.WRITE, wait) as store:
            catalog = Catalog.for_tenant(store, settings, tenant)
            report = load_with_progress(catalog, path, show=not as_json)
    if as_json:
        print_json(report.model_dump(mode="json"))
    else:
        print_load_report(report)
    if report.partial:
        raise typer.Exit(1)


@catalog_app.command("list")
def catalog_list(
    data_dir: DataDir = None,
    config: ConfigFile = None,
    include_inactive: Annotated[
        bool, typer.Option("--all", help="Also superseded and removed versions.")] = False,
    tenant: TenantOption = DEFAULT_TENANT,
    as_json: AsJson = False,
) -> None:
    """List the catalog's ontology versions (with those of included catalogs)."""
    with errors_to_exit():
        settings = settings_from(data_dir, config)
        with open_store(settings) as store:
            catalog = Catalog.for_tenant(store, settings, tenant)
            versions = catalog.versions(include_inactive=include_inactive)
            state = catalog.last_load()
    if as_json:
        print_json(CatalogListing(ontologies=versions, last_load=state).model_dump(mode="json"))
        return
    table = table_of("ontology", "version", "triples", "status", "source", "hash")
    for v in versions:
        table.add_row(v.ontology_iri, short(v.version or "", 32), str(v.triple_count),
                      v.status, v.source, v.content_hash[:12])
    out.print(table)
    if state is None:
        out.print("The catalog is empty: run [bold]ontoretrieve catalog load PATH[/].")
    elif state.partial:
        out.print(f"[yellow]The last load ({state.root}) was partial: "
                  f"{state.failed_files} file(s) failed.[/]")


@index_app.callback(invoke_without_command=True)
def index(
    ctx: typer.Context,
    catalog: Annotated[Path | None, typer.Option(
        "--catalog", help="Load this file or folder first (default: the configured "
        "catalog.path when it exists).")] = None,
    rebuild: Annotated[bool, typer.Option(
        "--rebuild", metavar="", help="Build a fresh index and switch to it when done.")] = False,
    tenant: TenantOption = DEFAULT_TENANT,
    data_dir: DataDir = None,
    config: ConfigFile = None,
    as_json: AsJson = False,
    wait: WaitOption = 0.0,
) -> None:
    """Sync the index with the catalog: only new or changed atoms are embedded."""
    if ctx.invoked_subcommand is not None:
        return
    with errors_to_exit():
        settings = settings_from(data_dir, config)
        path = catalog
        if path is None and tenant == DEFAULT_TENANT and Path(settings.catalog.path).exists():
            path = Path(settings.catalog.path)
        with open_engine(settings, Access.WRITE, wait) as engine:
            load_report, report = sync_with_progress(engine, path, rebuild, tenant,
                                                      show=not as_json)
    if as_json:
        print_json({**report.model_dump(mode="json"),
                     "catalog_load": load_report.model_dump(mode="json") if load_report
                     else None})
    else:
        if load_report is not None:
            print_load_report(load_report, brief=True)
        out.print(
            f"index {report.location}: {report.atoms_total} atoms; "
            f"{report.atoms_embedded} embedded, {report.atoms_reused} reused, "
            f"{report.atoms_deleted} deleted"
            f"{' (rebuilt: the index was missing or damaged)' if report.repaired else ''}; "
            f"ontologies +{report.ontologies_added} "
            f"-{report.ontologies_removed} ={report.ontologies_unchanged}; pruning "
            f"{report.pruning}; {report.seconds:.1f} s ({report.embed_seconds:.1f} s embedding)")
    if load_report is not None and load_report.partial:
        raise typer.Exit(1)


@index_app.command("status")
def index_status_command(data_dir: DataDir = None, config: ConfigFile = None,
                         tenant: TenantOption = DEFAULT_TENANT,
                         as_json: AsJson = False) -> None:
    """Say what the index holds and whether it matches the catalog and the settings."""
    with errors_to_exit():
        settings = settings_from(data_dir, config)
        with open_store(settings) as store:
            status = index_status(settings, store, tenant)
    if as_json:
        print_json(status.model_dump(mode="json"))
        if status.damaged:
            raise typer.Exit(1)
        return
    if not status.exists:
        out.print(f"No index yet ({status.catalog_versions} catalog versions): run "
                  "[bold]ontoretrieve index[/].")
        return
    if status.damaged:
        out.print(f"[red]{escape(status.damaged)}[/]")
    out.print(f"index {status.location} ({status.backend}): {status.atoms} atoms from "
              f"{status.ontologies} ontology versions; updated {status.updated_at}")
    if status.layered or status.retained:
        out.print(f"{status.layered} version(s) written as layers over earlier ones; "
                  f"{status.retained} earlier version(s) kept for them (a rollback reuses "
                  "them; `ontoretrieve index --rebuild` compacts)")
    if status.catalog_not_indexed:
        out.print(f"[yellow]{status.catalog_not_indexed} catalog version(s) not indexed yet: "
                  "run ontoretrieve index[/]")
    if status.pending:
        out.print(f"[yellow]an interrupted sync left {len(status.pending)} ontology version(s) "
                  "pending: run ontoretrieve index[/]")
    if status.stale_forms:
        out.print(f"[yellow]mention forms of {status.stale_forms} version(s) missing or from "
                  "older form rules, left out of the mention lane: run ontoretrieve index "
                  "(nothing is re-embedded)[/]")
    for key, (old, new) in status.fingerprint_differences.items():
        out.print(f"[red]fingerprint differs: {key}: index {old!r}, settings {new!r}[/]")
    if status.damaged:
        raise typer.Exit(1)


@app.command("seeds")
def seeds_command(
    text: Annotated[str | None, typer.Argument(help="The text to find terms for.")] = None,
    file: TextFileOption = None,
    limit: Annotated[int, typer.Option("--limit", help="Seeds to print (table only).")] = 20,
    tenant: TenantOption = DEFAULT_TENANT,
    data_dir: DataDir = None,
    config: ConfigFile = None,
    as_json: AsJson = False,
) -> None:
    """Rank the catalog terms a text is about (the query path up to the seeds)."""
    with errors_to_exit():
        settings = settings_from(data_dir, config)
        body = text_argument(text, file, settings.server.max_text_chars)
        require_tenant(settings.tenants, tenant)
        with claimed(settings, Access.AUTO) as writes:
            retriever = SeedRetriever.open(settings, tenant, reader=not writes)
            try:
                result = retriever.seeds(body)
            finally:
                retriever.close()
    if as_json:
        print_json(result.model_dump(mode="json"))
        return
    table = table_of("#", "term", "score", "evidence")
    several = result.funnel.windows > 1
    for rank, seed in enumerate(result.seeds[:limit], start=1):
        lanes = " ".join(
            (f"w{e['window']}:" if several else "") + f"{_LANE_SHORT[str(e['lane'])]}@{e['rank']}"
            for e in seed.lanes[:4])
        spans = " ".join(f'"{m["text"]}"' for m in seed.mentions[:2])
        table.add_row(str(rank), seed.iri, f"{seed.score:.3f}",
                      " ".join(x for x in (lanes, spans) if x)
                      or ", ".join(seed.notes) or seed.origin)
    out.print(table)
    funnel = result.funnel
    if not has_words(body):
        out.print("no seeds: the text has no letter or digit (no_text)")
        return
    out.print(f"{funnel.windows} windows, {funnel.fused_candidates} candidates, "
              f"{funnel.final_seeds} seeds; "
              + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in result.seconds.items()))


_LANE_SHORT = {"core": "core", "neighborhood": "nbhd", "bm25": "bm25", "mention": "mention"}




@app.command("doctor")
def doctor_command(
    repair: Annotated[bool, typer.Option(
        "--repair", metavar="", help="Fix what can be fixed without loss: sync or rebuild "
        "an index from the catalog, remove leftover shards and replicas.")] = False,
    data_dir: DataDir = None,
    config: ConfigFile = None,
    as_json: AsJson = False,
    wait: WaitOption = 0.0,
) -> None:
    """Check the triple store and every tenant's index; exit 1 while a problem remains."""
    with errors_to_exit():
        settings = settings_from(data_dir, config)
        try:
            with open_engine(settings, Access.WRITE if repair else Access.AUTO,
                             wait) as engine:
                report = engine.doctor(repair=repair)
        except DataDirBusyError:
            raise
        except StoreUnavailableError as exc:  # a store that cannot open is the finding
            report = DoctorReport([Finding("triple store", "problem", str(exc))])
    if as_json:
        print_json({"healthy": report.healthy,
                    "findings": [vars(f) for f in report.findings]})
    else:
        for finding in report.findings:
            colour = {"ok": "green", "problem": "red", "repaired": "yellow"}[finding.verdict]
            out.print(f"[{colour}]{escape(finding.line())}[/]", highlight=False)
    if not report.healthy:
        raise typer.Exit(1)
