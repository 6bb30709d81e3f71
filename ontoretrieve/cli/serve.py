"""``slice``, ``lookup``, ``serve``, ``mcp`` and ``watch``: thin shells over ``Engine``."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Annotated, cast

import typer
from rich.markup import escape
from rich.table import Table

from ontoretrieve.catalog.watch import Watcher
from ontoretrieve.cli.common import (
    AsJson,
    ConfigFile,
    DataDir,
    TenantOption,
    TextFileOption,
    app,
    err,
    errors_to_exit,
    open_engine,
    out,
    print_json,
    settings_from,
    short,
    text_argument,
)
from ontoretrieve.engine import Engine
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.index.sync import SyncReport
from ontoretrieve.records import LoadReport
from ontoretrieve.settings.tenants import DEFAULT_TENANT, catalog_layers

__all__ = ["lookup_command", "mcp_command", "search_command", "serve_command", "slice_command",
           "watch_command"]


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
    tenant: TenantOption = DEFAULT_TENANT,
    data_dir: DataDir = None,
    config: ConfigFile = None,
    as_json: AsJson = False,
) -> None:
    """The terms a text is about with their statements, never over --max-tokens."""
    with errors_to_exit():
        body = text_argument(text, file)
        with open_engine(settings_from(data_dir, config)) as engine:
            result = engine.slice(body, max_tokens, tenant=tenant, ontologies=ontology or ())
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
    table = Table("#", "term", "label", "match", "score", "ontology")
    for rank, c in enumerate(result.candidates, start=1):
        table.add_row(str(rank), short(c.iri, 50, keep="end"), short(c.label or "", 30),
                      c.match, f"{c.score:.3f}", short(c.ontology_iri or "", 36, keep="end"))
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
    table = Table("#", "entity", "label", "score", "adapter")
    for rank, hit in enumerate(result.hits, start=1):
        table.add_row(str(rank), short(hit.id, 50, keep="end"), short(hit.label or "", 30),
                      f"{hit.score:.3f}", hit.adapter)
    out.print(table)
    for problem in result.adapter_errors:
        err.print(f"[yellow]{escape(problem.adapter)} failed:[/] {escape(problem.message)}",
                  highlight=False)


@app.command("serve")
def serve_command(
    host: Annotated[str | None, typer.Option("--host", help="Default server.host.")] = None,
    port: Annotated[int | None, typer.Option("--port", help="Default server.port.")] = None,
    data_dir: DataDir = None,
    config: ConfigFile = None,
) -> None:
    """Serve the HTTP API (OpenAPI at /docs) for every declared tenant."""
    import uvicorn

    from ontoretrieve.server.http import create_app

    with errors_to_exit():
        settings = settings_from(data_dir, config)
        engine = Engine.open(settings)
    try:
        uvicorn.run(create_app(engine), host=host or settings.server.host,
                    port=settings.server.port if port is None else port, log_level="warning",
                    timeout_graceful_shutdown=5)
    finally:
        engine.close()


@app.command("mcp")
def mcp_command(
    transport: Annotated[str, typer.Option(
        "--transport", help="stdio (an agent starts this process) or streamable-http.")
    ] = "stdio",
    host: Annotated[str | None, typer.Option("--host")] = None,
    port: Annotated[int | None, typer.Option("--port")] = None,
    tenant: TenantOption = DEFAULT_TENANT,
    api_key: Annotated[str | None, typer.Option(
        "--api-key", envvar="ONTORETRIEVE_API_KEY", show_default=False,
        help="The tenant's key (stdio), when keys are required.")] = None,
    data_dir: DataDir = None,
    config: ConfigFile = None,
) -> None:
    """Serve the MCP tools retrieve, slice, lookup and catalog_list for one tenant."""
    import uvicorn

    from ontoretrieve.server.auth import KeyRing
    from ontoretrieve.server.mcp import KeyGate, create_mcp

    with errors_to_exit():
        if transport not in ("stdio", "streamable-http"):
            raise OntoRetrieveError(f"--transport {transport!r}: use stdio or streamable-http")
        settings = settings_from(data_dir, config)
        catalog_layers(settings.tenants, tenant)
        keys = KeyRing.of(settings)
        if transport == "stdio" and keys.check(tenant, api_key) is not None:
            raise OntoRetrieveError(f"tenant {tenant!r} needs its API key: set "
                                    "ONTORETRIEVE_API_KEY or give --api-key")
        engine = Engine.open(settings)
    try:
        server = create_mcp(engine, tenant)
        if transport == "stdio":
            server.run("stdio")
            return
        bind = host or settings.server.host
        web = KeyGate(server.streamable_http_app(
            max_request_body_size=settings.server.max_request_bytes, host=bind), keys, tenant)
        uvicorn.run(web, host=bind, port=settings.server.port if port is None else port,
                    log_level="warning")
    finally:
        engine.close()


@app.command("watch")
def watch_command(
    path: Annotated[Path | None, typer.Argument(
        help="The catalog folder or file to watch (default catalog.path).")] = None,
    interval: Annotated[float | None, typer.Option(
        "--interval", help="Seconds between polls (default server.watch_interval_seconds).")
    ] = None,
    settle: Annotated[float | None, typer.Option(
        "--settle", help="Quiet seconds before a refresh (default "
        "server.watch_settle_seconds).")] = None,
    tenant: TenantOption = DEFAULT_TENANT,
    data_dir: DataDir = None,
    config: ConfigFile = None,
    as_json: AsJson = False,
) -> None:
    """Poll the catalog and refresh the index when it changed and has settled (Ctrl-C stops)."""
    with errors_to_exit():
        settings = settings_from(data_dir, config)
        root = path or Path(settings.catalog.path)
        if not root.exists():
            raise OntoRetrieveError(f"cannot watch {root}: no such file or folder")
        catalog_layers(settings.tenants, tenant)
        engine = Engine.open(settings)

    def report(result: object) -> None:
        load, sync = cast(tuple[LoadReport | None, SyncReport], result)
        if as_json:
            print_json({"catalog_load": load.model_dump(mode="json") if load else None,
                         "index": sync.model_dump(mode="json")})
            return
        failed = f", {len(load.failed)} file(s) failed" if load and load.failed else ""
        err.print(f"refreshed: {sync.atoms_embedded} embedded, {sync.atoms_deleted} deleted, "
                  f"{sync.atoms_total} atoms{failed} ({sync.seconds:.1f} s)", highlight=False)

    def failed(exc: BaseException) -> None:
        err.print(f"[red]refresh failed:[/] {escape(str(exc))}", highlight=False)

    watcher = Watcher(root, lambda: engine.catalog_load(root, tenant=tenant),
                      settle=settings.server.watch_settle_seconds if settle is None else settle,
                      on_result=report, on_error=failed)
    stop = threading.Event()
    err.print(f"watching {root} (Ctrl-C stops)")
    try:
        watcher.run_forever(settings.server.watch_interval_seconds if interval is None
                            else interval, stop)
    except KeyboardInterrupt:
        stop.set()
        watcher.wait()
    finally:
        engine.close()
