"""``serve``, ``mcp`` and ``watch``: the long-running surfaces over ``Engine``."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Annotated, Any, cast

import typer
from rich.markup import escape

from ontoretrieve.backends.access import Access, holder_of
from ontoretrieve.catalog.watch import Watcher
from ontoretrieve.cli.common import (
    AsJson,
    ConfigFile,
    DataDir,
    TenantOption,
    WaitOption,
    app,
    err,
    errors_to_exit,
    print_json,
    settings_from,
)
from ontoretrieve.engine import Engine
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.records import LoadReport, SyncReport
from ontoretrieve.settings import Settings
from ontoretrieve.settings.tenants import DEFAULT_TENANT, require_tenant

__all__ = ["mcp_command", "serve_command", "watch_command"]


PortOption = Annotated[int | None, typer.Option(
    "--port", min=0, max=65535, show_default=False,
    help="The TCP port to listen on (default server.port; 0: any free port).")]


def check_bind(host: str, port: int) -> None:
    """Fail with one clear message when ``host:port`` cannot be listened on (in use, no
    such address, not allowed), before anything is loaded.

    >>> check_bind("127.0.0.1", 0)
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        with socket.socket(infos[0][0], socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(infos[0][4])
    except OSError as exc:
        raise OntoRetrieveError(f"cannot listen on {host}:{port}: {exc.strerror or exc} "
                                "(--host, --port, server.host, server.port)") from None


def guarded(settings: Settings) -> dict[str, Any]:
    """uvicorn options that keep slow, half-open and too many clients from holding the
    server (``server.read_deadline_seconds``, ``server.max_connections``)."""
    from ontoretrieve.server.slow_clients import protocol_class

    return {"http": protocol_class(settings.server.read_deadline_seconds),
            "limit_concurrency": settings.server.max_connections}


def say_if_reading(engine: Engine) -> None:
    """One line on stderr when this server reads beside another process's writes."""
    if not engine.writable:
        holder = holder_of(engine.settings.data_dir)
        who = holder.describe() if holder else "another process"
        err.print(f"reading beside {who}, which writes {engine.settings.data_dir}: "
                  "catalog uploads, applies and rollbacks are refused here", highlight=False)


@app.command("serve")
def serve_command(
    host: Annotated[str | None, typer.Option(
        "--host", show_default=False, help="The address to listen on (default "
        "server.host).")] = None,
    port: PortOption = None,
    data_dir: DataDir = None,
    config: ConfigFile = None,
    wait: Annotated[float, typer.Option(
        "--wait", min=0, metavar="SECONDS",
        help="When another process writes the data directory, wait this long for it "
        "before serving reads beside it (uploads and applies are then refused).")] = 10.0,
) -> None:
    """Serve the HTTP API (OpenAPI at /docs) for every declared tenant."""
    import uvicorn

    from ontoretrieve.server.http import create_app

    with errors_to_exit():
        settings = settings_from(data_dir, config)
        bind, number = host or settings.server.host, settings.server.port if port is None else port
        check_bind(bind, number)
        engine = Engine.open(settings, access=Access.AUTO, wait_seconds=wait)
        say_if_reading(engine)
    try:
        err.print(f"listening on http://{bind}:{number} (OpenAPI at /docs; Ctrl-C stops)",
                  highlight=False)
        uvicorn.run(create_app(engine), host=bind, port=number, log_level="warning",
                    timeout_graceful_shutdown=5, **guarded(settings))
    finally:
        engine.close()


@app.command("mcp")
def mcp_command(
    transport: Annotated[str, typer.Option(
        "--transport", help="stdio (an agent starts this process) or streamable-http.")
    ] = "stdio",
    host: Annotated[str | None, typer.Option(
        "--host", show_default=False, help="The address to listen on with "
        "streamable-http (default server.host).")] = None,
    port: PortOption = None,
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
    from ontoretrieve.server.mcp import KeyGate, create_mcp, run_stdio

    with errors_to_exit():
        if transport not in ("stdio", "streamable-http"):
            raise OntoRetrieveError(f"--transport {transport!r}: use stdio or streamable-http")
        settings = settings_from(data_dir, config)
        require_tenant(settings.tenants, tenant)
        keys = KeyRing.of(settings)
        if transport == "stdio" and keys.check(tenant, api_key) is not None:
            raise OntoRetrieveError(f"tenant {tenant!r} needs its API key: set "
                                    "ONTORETRIEVE_API_KEY or give --api-key")
        bind, number = host or settings.server.host, settings.server.port if port is None else port
        if transport == "streamable-http":
            check_bind(bind, number)
        engine = Engine.open(settings, access=Access.AUTO)
        say_if_reading(engine)
    try:
        server = create_mcp(engine, tenant)
        if transport == "stdio":
            run_stdio(server)
            return
        web = KeyGate(server.streamable_http_app(
            max_request_body_size=settings.server.max_request_bytes, host=bind), keys, tenant)
        err.print(f"MCP (streamable-http) listening on http://{bind}:{number}/mcp "
                  f"for tenant {tenant} (Ctrl-C stops)", highlight=False)
        uvicorn.run(web, host=bind, port=number, log_level="warning", **guarded(settings))
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
    wait: WaitOption = 0.0,
) -> None:
    """Poll the catalog and refresh the index when it changed and has settled (Ctrl-C stops)."""
    with errors_to_exit():
        settings = settings_from(data_dir, config)
        root = path or Path(settings.catalog.path)
        if not root.exists():
            raise OntoRetrieveError(f"cannot watch {root}: no such file or folder")
        require_tenant(settings.tenants, tenant)
        engine = Engine.open(settings, access=Access.WRITE, wait_seconds=wait)

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
