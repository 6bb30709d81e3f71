"""The MCP server (the official ``mcp`` SDK): tools over ``Engine`` for one tenant.

``ontoretrieve mcp`` serves one tenant per process, over stdio (an agent
launches it) or streamable HTTP. Tools: ``retrieve``, ``slice``, ``lookup``
and ``catalog_list``, each returning the JSON of its result model
(``engine.results``), which is also its declared output schema. When keys
are required the tenant's key must be given: over stdio in ``ONTORETRIEVE_API_KEY`` when the
process starts, over HTTP on every request (``Authorization: Bearer KEY``
or ``X-API-Key``), checked by ``KeyGate`` before the SDK sees the request.

>>> from ontoretrieve.settings import load_settings
>>> from ontoretrieve.engine import Engine
>>> server = create_mcp(Engine.open(load_settings(), in_memory=True))
>>> server.name
'ontoretrieve'
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, TypeVar

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import Field, ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send

from ontoretrieve.context.model import Mode
from ontoretrieve.engine import Engine
from ontoretrieve.engine.results import CatalogListing, RetrieveResult
from ontoretrieve.engine.slices import KnowledgeSlice
from ontoretrieve.errors import OntoRetrieveError
from ontoretrieve.query.documents import DOCUMENT_HELP
from ontoretrieve.query.lookup import LookupResult
from ontoretrieve.server.auth import KeyRing, bearer_key
from ontoretrieve.settings.tenants import DEFAULT_TENANT, require_tenant

__all__ = ["KeyGate", "create_mcp", "run_stdio"]

T = TypeVar("T")


INSTRUCTIONS = (
    "Ground text in the catalog's ontologies: `slice` gives the terms a text is about "
    "within a token budget, `lookup` grounds one mention, `retrieve` gives the whole "
    "context with evidence, `catalog_list` lists the ontologies.")


DEFAULT_TOOL_TOKENS = 4000
"""``retrieve``'s default budget: an agent's context is not the place for a whole
unbounded context (about 53k tokens for a long text)."""
MAX_TOOL_TOKENS = 100_000


def _guarded(call: Callable[[], T]) -> T:
    """A tool's answer, or its error as a clear message for the agent (no traceback)."""
    try:
        return call()
    except OntoRetrieveError as exc:
        raise ToolError(str(exc)) from None


def create_mcp(engine: Engine, tenant: str = DEFAULT_TENANT) -> MCPServer:
    """An MCP server whose tools answer from ``tenant``'s catalog."""
    require_tenant(engine.settings.tenants, tenant)
    server = MCPServer("ontoretrieve", instructions=INSTRUCTIONS)
    _add_text_tools(server, engine, tenant)
    _add_term_tools(server, engine, tenant)
    return server


def _add_text_tools(server: MCPServer, engine: Engine, tenant: str) -> None:
    """The tools that ground a text: ``retrieve`` and ``slice``."""

    @server.tool()
    def retrieve(
        text: Annotated[str, Field(description="The text to ground, as given.")],
        mode: Annotated[Mode, Field(description=(
            "How the context is chosen: auto (the default), vector, lexical, full, or "
            "ontologies (the named ontologies whole)."))] = Mode.AUTO,
        ontologies: Annotated[list[str] | None, Field(description=(
            "IRIs, file names or stems of ontologies: with mode ontologies they come back "
            "whole, otherwise seeds come only from them."))] = None,
        max_tokens: Annotated[int, Field(ge=1, le=MAX_TOOL_TOKENS, description=(
            "The context's budget in prompt tokens (default 4,000)."))] = DEFAULT_TOOL_TOKENS,
        document: Annotated[str | None, Field(description=DOCUMENT_HELP)] = None,
    ) -> RetrieveResult:
        """The whole context of a text: Turtle, terms, seeds and why each is there. Bigger
        than `slice`; call it when the evidence matters, `slice` to ground an extraction."""

        return _guarded(lambda: RetrieveResult.of(engine.retrieve(
            text, tenant=tenant, mode=mode, ontologies=ontologies or (),
            max_tokens=max_tokens, document=document)))

    @server.tool(name="slice")
    def knowledge_slice(
        text: Annotated[str, Field(description="The text to ground, as given.")],
        max_tokens: Annotated[int, Field(ge=1, le=MAX_TOOL_TOKENS, description=(
            "The slice's budget in prompt tokens, never exceeded."))] = 2000,
        ontologies: Annotated[list[str] | None, Field(description=(
            "IRIs, file names or stems: seeds come only from these ontologies."))] = None,
        document: Annotated[str | None, Field(description=DOCUMENT_HELP)] = None,
    ) -> KnowledgeSlice:
        """The terms a text is about and their definitions, within max_tokens: the tool to
        call first to ground an extraction in the catalog's terms."""
        return _guarded(lambda: engine.slice(text, max_tokens, tenant=tenant,
                                            ontologies=ontologies or (), document=document))


def _add_term_tools(server: MCPServer, engine: Engine, tenant: str) -> None:
    """The tools that answer about terms and the catalog: ``lookup``, ``catalog_list``."""

    @server.tool()
    def lookup(
        mention: Annotated[str, Field(description=(
            "One mention as written (\"mV\", \"cell nucleus\"); case matters for symbols."))],
        limit: Annotated[int, Field(ge=1, le=100, description="Candidates to return.")] = 10,
    ) -> LookupResult:
        """Ranked candidate terms for one mention, with an ambiguity flag: call it to pick
        the IRI for a word you already extracted."""
        return _guarded(lambda: engine.lookup(mention, tenant=tenant, limit=limit))

    @server.tool()
    def catalog_list() -> CatalogListing:
        """The ontology versions of the catalog (IRI, version, source, hash) and its last
        load."""
        return _guarded(lambda: engine.catalog_listing(tenant=tenant))


class KeyGate:
    """ASGI middleware: every HTTP request needs the tenant's key when keys are required."""

    def __init__(self, app: ASGIApp, keys: KeyRing, tenant: str) -> None:
        self.app, self.keys, self.tenant = app, keys, tenant

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode().lower(): v.decode("latin-1")
                       for k, v in scope.get("headers") or []}
            key = bearer_key(headers.get("authorization"), headers.get("x-api-key"))
            problem = self.keys.check(self.tenant, key)
            if problem is not None:
                status = 403 if problem == "forbidden" else 401
                body = json.dumps({"error": {"type": "unauthorized" if status == 401
                                             else "forbidden",
                                             "message": "a valid API key for this server's "
                                             "tenant is required"}}).encode()
                await send({"type": "http.response.start", "status": status,
                            "headers": [(b"content-type", b"application/json")]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def run_stdio(server: MCPServer) -> None:
    """Serve ``server`` over stdio, answering a line that is no JSON-RPC message.

    The MCP SDK drops such a line without a word, so a client that sent it
    waits forever. JSON-RPC 2.0 answers it with an error whose id is null:
    -32700 for a line that is not JSON, -32600 for JSON that is no message.
    """
    anyio.run(_serve_stdio, server)


async def _serve_stdio(server: MCPServer) -> None:
    # MCPServer.run_stdio_async with the read side filtered; the SDK has no hook for it.
    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def forward() -> None:
            async with send:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        await write_stream.send(SessionMessage(_unreadable(item)))
                    else:
                        await send.send(item)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(forward)
            await lowlevel.run(receive, write_stream,
                               lowlevel.create_initialization_options())


def _unreadable(error: Exception) -> JSONRPCError:
    """The JSON-RPC error answering a line that could not be read as a message.

    >>> from pydantic import TypeAdapter, ValidationError
    >>> try:
    ...     TypeAdapter(int).validate_json("{not json")
    ... except ValidationError as exc:
    ...     _unreadable(exc).error.code
    -32700
    """
    not_json = isinstance(error, ValidationError) and any(
        e.get("type") == "json_invalid" for e in error.errors())
    if not_json:
        return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(
            code=PARSE_ERROR, message="Parse error: the line is not JSON"))
    return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(
        code=INVALID_REQUEST, message="Invalid Request: the line is JSON but no JSON-RPC 2.0 "
        "request, notification or response"))
