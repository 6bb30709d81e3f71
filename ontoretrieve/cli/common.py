"""What every ``ontoretrieve`` command shares: the Typer app, option types, consoles, helpers.

Command modules import from here and register themselves on ``app``;
nothing here imports a command module.
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
from rich.text import Text
from typer.core import TyperOption

from ontoretrieve.backends import TripleStore, open_triple_store
from ontoretrieve.backends.access import Access, claim
from ontoretrieve.catalog.store import Catalog
from ontoretrieve.engine import Engine
from ontoretrieve.errors import OntoRetrieveError, TextTooLongError
from ontoretrieve.records import LoadReport, SyncReport
from ontoretrieve.settings import Settings, load_settings
from ontoretrieve.settings.groups import StoreBackend


def _flag_without_a_type(option: TyperOption, ctx: Any) -> str | None:
    """A flag takes no value, so its help shows no type: typer renders ``<bool>`` beside
    every flag, its own ``--help`` included, which reads as if one were expected."""
    return None if option.is_flag else _typed(option, ctx)


_typed = TyperOption.display_type_rich
TyperOption.display_type_rich = _flag_without_a_type  # type: ignore[method-assign,assignment]

app = typer.Typer(no_args_is_help=True, add_completion=False,
                  help="Retrieve the slice of your ontologies that a text is about.")
config_app = typer.Typer(no_args_is_help=True, help="Inspect the effective settings.")
catalog_app = typer.Typer(no_args_is_help=True, help="Load and list catalog ontologies.")
index_app = typer.Typer(help="Build or update the vector index from the catalog.")


def _print_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import version

        typer.echo(f"ontoretrieve {version('ontoretrieve')}")
        raise typer.Exit()


@app.callback()
def _options(version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True, metavar="",
        help="Print the version and exit.")] = False) -> None:
    """Retrieve the slice of your ontologies that a text is about."""


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
AsJson = Annotated[bool, typer.Option("--json", metavar="",  # a flag takes no value
                                      help="Print one JSON document.")]
TextFileOption = Annotated[
    Path | None, typer.Option("--file", help="Read the text from a file (instead of TEXT).")]
DocumentOption = Annotated[Path | None, typer.Option(
    "--document", help="A file with the whole text TEXT is part of (a paper, TEXT one of "
    "its paragraphs): the abbreviations it defines are read in TEXT too.")]
WaitOption = Annotated[float, typer.Option(
    "--wait", min=0, metavar="SECONDS",
    help="When another process writes the data directory, wait this long for it "
    "(default: fail at once, naming it).")]
TenantOption = Annotated[
    str,
    typer.Option("--tenant", envvar="ONTORETRIEVE_TENANT",
                 help="The tenant whose catalog and index to use (one declared in the "
                 "settings' tenants table)."),
]


def settings_from(data_dir: Path | None, config: Path | None) -> Settings:
    overrides: dict[str, Any] = {}
    if data_dir is not None:
        overrides["data_dir"] = data_dir
    return load_settings(config, **overrides)


@contextmanager
def errors_to_exit() -> Iterator[None]:
    try:
        yield
    except OntoRetrieveError as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None


@contextmanager
def open_engine(settings: Settings, access: Access = Access.AUTO,
                wait: float = 0.0) -> Iterator[Engine]:
    engine = Engine.open(settings, access=access, wait_seconds=wait)
    try:
        yield engine
    finally:
        engine.close()


@contextmanager
def claimed(settings: Settings, access: Access, wait: float = 0.0) -> Iterator[bool]:
    """Hold the data directory's writer lock as ``access`` asks for the block; yields
    whether this process writes (False: it reads beside another process)."""
    lock = claim(settings.data_dir, access, wait)
    try:
        yield lock is not None
    finally:
        if lock is not None:
            lock.release()


@contextmanager
def open_store(settings: Settings, access: Access = Access.READ,
               wait: float = 0.0) -> Iterator[TripleStore]:
    """The triple store alone, read beside a writer unless ``access`` is ``write``."""
    with claimed(settings, access, wait) as writes:
        store = open_triple_store(settings, writer=writes or settings.store.backend
                                  is not StoreBackend.OXIGRAPH)
        try:
            yield store
        finally:
            store.close()


def asked_workers(workers: str) -> int | None:
    """``--workers``: a number from 1 to 256, or None for auto (a bad value is refused
    naming the option)."""
    if workers.strip().lower() == "auto":
        return None
    try:
        count = int(workers)
    except ValueError:
        count = 0
    if not 1 <= count <= 256:
        raise typer.BadParameter(f"must be auto or a whole number from 1 to 256, not "
                                 f"{workers!r}", param_hint="--workers")
    return count


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")




def text_argument(text: str | None, file: Path | None, max_chars: int) -> str:
    """The text given as an argument or with --file (exactly one of them), a file read
    no further than ``max_chars`` characters (``server.max_text_chars``) can reach."""
    if (text is None) == (file is None):
        raise OntoRetrieveError("give the text as an argument or with --file, not both")
    return text if text is not None else read_text(file, max_chars)  # type: ignore[arg-type]


def document_argument(path: Path | None, max_chars: int) -> str | None:
    """The document given with --document, read as a text file is (``read_text``)."""
    return None if path is None else read_text(path, max_chars)


def read_text(path: Path, max_chars: int) -> str:
    """A text file, read only as far as a text of ``max_chars`` characters can reach (a
    device such as /dev/zero, or a huge file, is never read whole)."""
    try:
        with path.open("rb") as handle:
            data = handle.read(4 * max_chars + 1)  # UTF-8 takes at most 4 bytes a character
        # Checked before decoding: a read cut at the limit may end inside a character.
        text = "" if len(data) > 4 * max_chars else data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise OntoRetrieveError(f"cannot read {path}: {exc}") from exc
    if len(data) > 4 * max_chars or len(text) > max_chars:
        raise TextTooLongError(f"{path} is longer than the limit of {max_chars:,} "
                               "characters (server.max_text_chars)")
    return text


def sync_with_progress(engine: Engine, path: Path | None, rebuild: bool, tenant: str, *,
                        show: bool) -> tuple[LoadReport | None, SyncReport]:
    if not show:
        return engine.catalog_load(path, tenant=tenant, rebuild=rebuild)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=True) as progress:
        task = progress.add_task("catalog", total=None, rate="")
        started: dict[str, float] = {}

        def on_file(file: Path, done: int, total: int) -> None:
            progress.update(task, description=f"loading {escape(file.name)}",
                            completed=done, total=total)

        version: list[int] = []  # [number, of] of the version being indexed

        def on_sync(phase: str, done: int, total: int) -> None:
            now = time.perf_counter()
            if phase == "ontology":  # a new version starts: its atoms get a fresh bar,
                version[:] = [done, total]  # timed from now, not from its first report
                started.clear()
                started["embed"] = now
                progress.reset(task, total=None)
                return
            if phase not in started:
                started[phase] = now
            if progress.tasks[0].total != total:
                progress.reset(task, total=total)
            elapsed = max(now - started[phase], 1e-6)
            unit = "atoms" if phase == "embed" else "ontologies"
            where = f" (ontology {version[0]}/{version[1]})" if phase == "embed" and version else ""
            progress.update(task, description=f"{phase}{where}", completed=done, total=total,
                            rate=f"{done / elapsed:.0f} {unit}/s")

        return engine.catalog_load(path, tenant=tenant, rebuild=rebuild,
                                   load_progress=on_file, progress=on_sync)


def load_with_progress(catalog: Catalog, path: Path, *, show: bool) -> LoadReport:
    if not show:
        return catalog.load(path)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err, transient=True) as progress:
        task = progress.add_task("loading", total=None)

        def advance(file: Path, done: int, total: int) -> None:
            progress.update(task, completed=done, total=total, description=escape(file.name))

        return catalog.load(path, progress=advance)


def print_load_report(report: LoadReport, *, brief: bool = False,
                      console: Console = out) -> None:
    """The load summary, on ``console`` (stderr when stdout carries a command's result,
    as the graph of ``retrieve``); problems always on stderr."""
    # Paths and IRIs are printed as written (escape): a file name may hold "[".
    console.print(
        f"{escape(report.root)}: {len(report.added)} added, {len(report.updated)} updated, "
        f"{len(report.unchanged)} unchanged, {len(report.removed)} removed, "
        f"{len(report.failed)} failed in {report.seconds:.1f} s"
    )
    for version in [] if brief else report.added + report.updated:
        console.print(f"  + {escape(version.ontology_iri)} ({version.triple_count} triples) "
                      f"from {escape(version.source)}", highlight=False)
    for version in report.removed:
        console.print(f"  - {escape(version.ontology_iri)}: {escape(version.source)} is gone",
                      highlight=False)
    for problem in report.failed:
        err.print(f"[red]  ! {escape(str(problem))}[/]", highlight=False)
    for warning in report.warnings:
        err.print(f"[yellow]  warning: {escape(warning)}[/]", highlight=False)
    if report.partial:
        err.print("[yellow]The load is partial: later steps will not treat missing "
                  "ontologies as deleted.[/]")


def table_of(*headers: str, title: str | None = None) -> Table:
    """A table whose cells wrap instead of being cut: an IRI cut at both ends (by a
    width and by the terminal) names nothing, so IRIs are shown whole.

    >>> [c.overflow for c in table_of("term", "score").columns]
    ['fold', 'fold']
    """
    made = _PlainTable(title=title)
    for header in headers:
        made.add_column(header, overflow="fold")
    return made


class _PlainTable(Table):
    """A table whose string cells are shown as written: file names and literals from a
    catalog may hold ``[`` (``x[/]closing.ttl``), which rich would read as markup."""

    def add_row(self, *renderables: Any, **options: Any) -> None:
        super().add_row(*(Text(cell) if isinstance(cell, str) else cell
                          for cell in renderables), **options)


def short(text: str, width: int, keep: str = "start") -> str:
    """One line of at most ``width`` characters, for table cells."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    return "…" + text[-width + 1:] if keep == "end" else text[: width - 1] + "…"


def flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat

