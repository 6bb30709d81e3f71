"""The ``ontoretrieve`` command: a thin shell over the Python API.

Contract for scripts: every command takes ``--data-dir`` (or
``ONTORETRIEVE_DATA_DIR``) and ``--config``, and every command that prints
results takes ``--json``, which prints one JSON document on stdout and nothing
else there. Exit codes: 0 done, 1 done in part (a catalog file failed), 2 a
usage, settings, path or store error (message on stderr).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from ontoretrieve.backends import TripleStore, open_triple_store
from ontoretrieve.catalog_store import Catalog
from ontoretrieve.engine import Engine
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.pipeline import SeedRetriever, index_status
from ontoretrieve.records import LoadReport
from ontoretrieve.settings import Settings, load_settings, reference_names, setting_origins
from ontoretrieve.sync import SyncReport
from ontoretrieve.tenants import DEFAULT_TENANT, catalog_layers

__all__ = ["app", "main"]

app = typer.Typer(no_args_is_help=True, add_completion=False,
                  help="Retrieve the slice of your ontologies that a text is about.")
config_app = typer.Typer(no_args_is_help=True, help="Inspect the effective settings.")
catalog_app = typer.Typer(no_args_is_help=True, help="Load and list catalog ontologies.")
index_app = typer.Typer(help="Build or update the vector index from the catalog.")
app.add_typer(config_app, name="config")
app.add_typer(catalog_app, name="catalog")
app.add_typer(index_app, name="index")

out = Console(soft_wrap=True)  # never break paths and messages
err = Console(stderr=True, soft_wrap=True)

DataDir = Annotated[
    Path | None,
    typer.Option("--data-dir", envvar="ONTORETRIEVE_DATA_DIR",
                 help="Where the embedded stores live (default .ontoretrieve)."),
]
ConfigFile = Annotated[
    Path | None,
    typer.Option("--config", envvar="ONTORETRIEVE_CONFIG",
                 help="A TOML settings file (default ./ontoretrieve.toml if present)."),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]
TextFileOption = Annotated[
    Path | None, typer.Option("--file", help="Read the text from a file (instead of TEXT).")]
TenantOption = Annotated[
    str,
    typer.Option("--tenant", envvar="ONTORETRIEVE_TENANT",
                 help="The tenant whose catalog and index to use (declared under [tenants])."),
]


def _settings(data_dir: Path | None, config: Path | None) -> Settings:
    overrides: dict[str, Any] = {}
    if data_dir is not None:
        overrides["data_dir"] = data_dir
    return load_settings(config, **overrides)


@contextmanager
def _errors_to_exit() -> Iterator[None]:
    try:
        yield
    except OntoRetrieveError as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None


@contextmanager
def _engine(settings: Settings) -> Iterator[Engine]:
    engine = Engine.open(settings)
    try:
        yield engine
    finally:
        engine.close()


@contextmanager
def _store(settings: Settings) -> Iterator[TripleStore]:
    store = open_triple_store(settings)
    try:
        yield store
    finally:
        store.close()


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


@config_app.command("show")
def config_show(data_dir: DataDir = None, config: ConfigFile = None,
                as_json: AsJson = False) -> None:
    """Print every effective setting, where it came from and its reference name."""
    with _errors_to_exit():
        settings = _settings(data_dir, config)
        origins = setting_origins(config, **({"data_dir": data_dir} if data_dir else {}))
    references = {f"{g}.{f}": name for name, (g, f) in reference_names().items()}
    values = _flatten(settings.model_dump(mode="json"))
    if as_json:
        _print_json({
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
) -> None:
    """Load ontologies; unchanged files cost nothing, changed ones become new versions."""
    with _errors_to_exit():
        settings = _settings(data_dir, config)
        with _store(settings) as store:
            catalog = Catalog.for_tenant(store, settings, tenant)
            report = _load_with_progress(catalog, path, show=not as_json)
    if as_json:
        _print_json(report.model_dump(mode="json"))
    else:
        _print_load_report(report)
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
    with _errors_to_exit():
        settings = _settings(data_dir, config)
        with _store(settings) as store:
            catalog = Catalog.for_tenant(store, settings, tenant)
            versions = catalog.versions(include_inactive=include_inactive)
            state = catalog.last_load()
    if as_json:
        _print_json({
            "ontologies": [v.model_dump(mode="json") for v in versions],
            "last_load": state.model_dump(mode="json") if state else None,
        })
        return
    table = Table("ontology", "version", "triples", "status", "source", "hash")
    for v in versions:
        table.add_row(v.ontology_iri, _short(v.version or "", 32), str(v.triple_count),
                      v.status, _short(v.source, 48, keep="end"), v.content_hash[:12])
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
        "--rebuild", help="Build a fresh index and switch to it when done.")] = False,
    tenant: TenantOption = DEFAULT_TENANT,
    data_dir: DataDir = None,
    config: ConfigFile = None,
    as_json: AsJson = False,
) -> None:
    """Sync the index with the catalog: only new or changed atoms are embedded."""
    if ctx.invoked_subcommand is not None:
        return
    with _errors_to_exit():
        settings = _settings(data_dir, config)
        path = catalog
        if path is None and tenant == DEFAULT_TENANT and Path(settings.catalog.path).exists():
            path = Path(settings.catalog.path)
        with _engine(settings) as engine:
            load_report, report = _sync_with_progress(engine, path, rebuild, tenant,
                                                      show=not as_json)
    if as_json:
        _print_json({**report.model_dump(mode="json"),
                     "catalog_load": load_report.model_dump(mode="json") if load_report
                     else None})
    else:
        if load_report is not None:
            _print_load_report(load_report, brief=True)
        out.print(
            f"index {report.location}: {report.atoms_total} atoms; "
            f"{report.atoms_embedded} embedded, {report.atoms_reused} reused, "
            f"{report.atoms_deleted} deleted; ontologies +{report.ontologies_added} "
            f"-{report.ontologies_removed} ={report.ontologies_unchanged}; pruning "
            f"{report.pruning}; {report.seconds:.1f} s ({report.embed_seconds:.1f} s embedding)")
    if load_report is not None and load_report.partial:
        raise typer.Exit(1)


@index_app.command("status")
def index_status_command(data_dir: DataDir = None, config: ConfigFile = None,
                         tenant: TenantOption = DEFAULT_TENANT,
                         as_json: AsJson = False) -> None:
    """Say what the index holds and whether it matches the catalog and the settings."""
    with _errors_to_exit():
        settings = _settings(data_dir, config)
        with _store(settings) as store:
            status = index_status(settings, store, tenant)
    if as_json:
        _print_json(status.model_dump(mode="json"))
        return
    if not status.exists:
        out.print(f"No index yet ({status.catalog_versions} catalog versions): run "
                  "[bold]ontoretrieve index[/].")
        return
    out.print(f"index {status.location} ({status.backend}): {status.atoms} atoms from "
              f"{status.ontologies} ontology versions; updated {status.updated_at}")
    if status.catalog_not_indexed:
        out.print(f"[yellow]{status.catalog_not_indexed} catalog version(s) not indexed yet: "
                  "run ontoretrieve index[/]")
    if status.pending:
        out.print(f"[yellow]an interrupted sync left {len(status.pending)} ontology version(s) "
                  "pending: run ontoretrieve index[/]")
    for key, (old, new) in status.fingerprint_differences.items():
        out.print(f"[red]fingerprint differs: {key}: index {old!r}, settings {new!r}[/]")


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
    with _errors_to_exit():
        body = _text_argument(text, file)
        settings = _settings(data_dir, config)
        catalog_layers(settings.tenants, tenant)
        retriever = SeedRetriever.open(settings, tenant)
        try:
            result = retriever.seeds(body)
        finally:
            retriever.close()
    if as_json:
        _print_json(result.model_dump(mode="json"))
        return
    table = Table("#", "term", "score", "evidence")
    several = result.funnel.windows > 1
    for rank, seed in enumerate(result.seeds[:limit], start=1):
        lanes = " ".join(
            (f"w{e['window']}:" if several else "") + f"{_LANE_SHORT[str(e['lane'])]}@{e['rank']}"
            for e in seed.lanes[:4])
        spans = " ".join(f'"{m["text"]}"' for m in seed.mentions[:2])
        table.add_row(str(rank), _short(seed.iri, 44, keep="end"), f"{seed.score:.3f}",
                      " ".join(x for x in (lanes, spans) if x)
                      or ", ".join(seed.notes) or seed.origin)
    out.print(table)
    funnel = result.funnel
    out.print(f"{funnel.windows} windows, {funnel.fused_candidates} candidates, "
              f"{funnel.final_seeds} seeds; "
              + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in result.seconds.items()))


_LANE_SHORT = {"core": "core", "neighborhood": "nbhd", "bm25": "bm25", "mention": "mention"}


def _text_argument(text: str | None, file: Path | None) -> str:
    """The text given as an argument or with --file (exactly one of them)."""
    if (text is None) == (file is None):
        raise OntoRetrieveError("give the text as an argument or with --file, not both")
    return text if text is not None else _read_text(file)  # type: ignore[arg-type]


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise OntoRetrieveError(f"cannot read {path}: {exc}") from exc


def _sync_with_progress(engine: Engine, path: Path | None, rebuild: bool, tenant: str, *,
                        show: bool) -> tuple[LoadReport | None, SyncReport]:
    if not show:
        return engine.catalog_load(path, tenant=tenant, rebuild=rebuild)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=True) as progress:
        task = progress.add_task("catalog", total=None, rate="")
        started: dict[str, float] = {}

        def on_file(file: Path, done: int, total: int) -> None:
            progress.update(task, description=f"loading {file.name}", completed=done,
                            total=total)

        def on_sync(phase: str, done: int, total: int) -> None:
            if phase not in started:
                started[phase] = time.perf_counter()
                progress.reset(task, total=total)
            elapsed = max(time.perf_counter() - started[phase], 1e-6)
            unit = "atoms" if phase == "embed" else "ontologies"
            progress.update(task, description=f"{phase}", completed=done, total=total,
                            rate=f"{done / elapsed:.0f} {unit}/s")

        return engine.catalog_load(path, tenant=tenant, rebuild=rebuild,
                                   load_progress=on_file, progress=on_sync)


def _load_with_progress(catalog: Catalog, path: Path, *, show: bool) -> LoadReport:
    if not show:
        return catalog.load(path)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err, transient=True) as progress:
        task = progress.add_task("loading", total=None)

        def advance(file: Path, done: int, total: int) -> None:
            progress.update(task, completed=done, total=total, description=file.name)

        return catalog.load(path, progress=advance)


def _print_load_report(report: LoadReport, *, brief: bool = False) -> None:
    out.print(
        f"{report.root}: {len(report.added)} added, {len(report.updated)} updated, "
        f"{len(report.unchanged)} unchanged, {len(report.removed)} removed, "
        f"{len(report.failed)} failed in {report.seconds:.1f} s"
    )
    for version in [] if brief else report.added + report.updated:
        out.print(f"  + {version.ontology_iri} ({version.triple_count} triples) "
                  f"from {version.source}", highlight=False)
    for version in report.removed:
        out.print(f"  - {version.ontology_iri}: {version.source} is gone", highlight=False)
    for problem in report.failed:
        err.print(f"[red]  ! {escape(str(problem))}[/]", highlight=False)
    for warning in report.warnings:
        err.print(f"[yellow]  warning: {escape(warning)}[/]", highlight=False)
    if report.partial:
        err.print("[yellow]The load is partial: later steps will not treat missing "
                  "ontologies as deleted.[/]")


def _short(text: str, width: int, keep: str = "start") -> str:
    """One line of at most ``width`` characters, for table cells."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    return "…" + text[-width + 1:] if keep == "end" else text[: width - 1] + "…"


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def main() -> None:
    """Entry point of the ``ontoretrieve`` script."""
    app()


# Commands kept in their own modules register themselves on ``app`` when imported.
from ontoretrieve import cli_bench, cli_propose, cli_retrieve, cli_serve  # noqa: E402, F401

