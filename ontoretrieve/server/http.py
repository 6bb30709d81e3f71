"""The HTTP API (FastAPI): a thin shell over ``Engine``; ``ontoretrieve serve`` runs it.

Every tenant route is ``/v1/{tenant}/...`` and, when keys are required,
needs that tenant's key (``Authorization: Bearer KEY`` or ``X-API-Key``).
The key is checked before the tenant is looked up, so a caller without the
right key learns nothing about which tenants exist. Engine calls run in
worker threads (at most ``server.workers`` at once) under a time limit of
``server.request_timeout_seconds``; bodies over ``server.max_request_bytes``
are refused before they are read in full. Errors are JSON
``{"error": {"type": ..., "message": ...}}`` and never carry a key or a
traceback. The OpenAPI schema is at ``/openapi.json``, the docs at ``/docs``.

>>> from ontoretrieve.settings import load_settings
>>> app = create_app(Engine.open(load_settings(), in_memory=True))
>>> sorted(path for path in app.openapi()["paths"] if path.startswith("/v1"))[:3]
['/v1/{tenant}/catalog', '/v1/{tenant}/catalog/files/{filename}', '/v1/{tenant}/index']
"""


import functools
import logging
import threading
from collections.abc import Callable, Sequence
from importlib.metadata import version
from typing import Annotated, Any, Literal, TypeVar

import anyio
import anyio.to_thread
from fastapi import APIRouter, Depends, FastAPI, Header, Request
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ontoretrieve.context.model import Mode
from ontoretrieve.engine import Engine
from ontoretrieve.engine.adapters import FanOutResult
from ontoretrieve.engine.results import CatalogListing, RetrieveResult
from ontoretrieve.engine.slices import KnowledgeSlice
from ontoretrieve.errors import (
    CatalogError,
    DataDirBusyError,
    IndexError_,
    OntoRetrieveError,
    ProposalRejected,
    ReadOnlyDataDirError,
    StoreUnavailableError,
    TenantError,
    TextTooLongError,
)
from ontoretrieve.index.build import IndexStatus
from ontoretrieve.proposals.model import AppliedVersion, ApplyResult, Proposal, ProposalReport
from ontoretrieve.query.documents import DOCUMENT_HELP
from ontoretrieve.query.lookup import LookupResult
from ontoretrieve.records import LoadReport, SyncReport
from ontoretrieve.server.auth import KeyRing, bearer_key
from ontoretrieve.settings.tenants import require_tenant

__all__ = ["create_app"]

log = logging.getLogger("ontoretrieve.server")
T = TypeVar("T")
VERSION = version("ontoretrieve")
"""The installed package's version (its metadata, read once)."""


ONTOLOGIES_HELP = ("Ontologies by IRI, file name, file stem or content hash: with "
                   "mode=ontologies they come back whole; otherwise seeds come only from them.")


MODE_HELP = ("How the context is chosen: auto (the default), vector, lexical, full, or "
             "ontologies (the named ontologies whole).")
_EXAMPLE_TEXT = "The probe recorded a 5 mV signal for 4-15 days."


def _examples(*examples: dict[str, Any]) -> ConfigDict:
    """A model's request examples, as OpenAPI (and /docs) show them."""
    return ConfigDict(json_schema_extra={"examples": list(examples)})


class RetrieveRequest(BaseModel):
    model_config = _examples({"text": _EXAMPLE_TEXT, "max_tokens": 1500},
                             {"text": "thing two", "mode": "vector",
                              "ontologies": ["second.ttl"]})

    text: str = Field(description="The text to build a context for.")
    mode: Mode = Field(Mode.AUTO, description=MODE_HELP)
    ontologies: list[str] = Field(default=[], description=ONTOLOGIES_HELP)
    max_tokens: int | None = Field(None, ge=1, le=1_000_000, description=(
        "The context's budget in prompt tokens (default: it grows with the text)."))
    document: str | None = Field(None, description=DOCUMENT_HELP)


class RetrieveManyRequest(BaseModel):
    model_config = _examples({"texts": [_EXAMPLE_TEXT, "Two days later."],
                              "max_tokens": 1000})

    texts: list[str] = Field(min_length=1, max_length=1000, description=(
        "The texts to build contexts for (up to 1,000; each as in retrieve)."))
    mode: Mode = Field(Mode.AUTO, description=MODE_HELP)
    ontologies: list[str] = Field(default=[], description=ONTOLOGIES_HELP)
    max_tokens: int | None = Field(None, ge=1, le=1_000_000, description=(
        "Each context's budget in prompt tokens (default: it grows with the text)."))
    document: str | None = Field(None, description=(
        "The whole text all the texts are parts of (a paper and its paragraphs), as in "
        "retrieve."))


class RetrieveManyResponse(BaseModel):
    results: list[RetrieveResult] = Field(description=(
        "One result per text, in the order given, each equal to retrieve's."))


class SliceRequest(BaseModel):
    model_config = _examples({"text": _EXAMPLE_TEXT, "max_tokens": 500})

    text: str = Field(description="The text to ground.")
    max_tokens: int = Field(2000, ge=1, le=1_000_000, description=(
        "The slice's budget in prompt tokens (the encoder's tokenizer), never exceeded."))
    mode: Mode = Field(Mode.AUTO, description=MODE_HELP)
    ontologies: list[str] = Field(default=[], description=ONTOLOGIES_HELP)
    document: str | None = Field(None, description=DOCUMENT_HELP)


class LookupRequest(BaseModel):
    model_config = _examples({"mention": "mV"}, {"mention": "cell nucleus", "limit": 5})

    mention: str = Field(description=(
        "One mention as written (\"mV\", \"cell nucleus\"); case matters for symbols."))
    limit: int = Field(10, ge=1, le=100, description="Candidates to return.")


class SearchRequest(BaseModel):
    model_config = _examples({"text": "thermometer", "limit": 10})

    text: str = Field(description="The text to find entities for.")
    limit: int = Field(20, ge=1, le=200, description="Hits to return, over all sources.")


class RollbackRequest(BaseModel):
    model_config = _examples({"ontology_iri": "http://example.org/mini"})

    ontology_iri: str = Field(description=(
        "The ontology to switch back to the version its last applied update replaced."))


class RollbackResponse(BaseModel):
    restored: AppliedVersion
    index: SyncReport


class LoadResponse(BaseModel):
    catalog_load: LoadReport | None
    index: SyncReport


class ErrorDetail(BaseModel):
    type: str = Field(description="A stable name: not_found, unauthorized, timeout, ...")
    message: str = Field(description="What was wrong, in words (never a traceback or a key).")


class ErrorBody(BaseModel):
    """Every error the API answers."""

    model_config = _examples({"error": {"type": "text_too_long", "message": (
        "the text has 250,000 characters; the limit (server.max_text_chars) is 200,000")}})

    error: ErrorDetail


_ERROR_MEANINGS = {
    400: "The input cannot be used (an empty mention, a file that does not parse, ...).",
    401: "No API key, or an unknown one (Authorization: Bearer KEY or X-API-Key).",
    403: "The key does not reach this tenant.",
    404: "No such tenant (or route).",
    409: "The index does not match the settings or the catalog, or another process "
         "writes the data directory (the message names it), or nobody can write it.",
    413: "The body is over server.max_request_bytes, or the text over "
         "server.max_text_chars.",
    422: "The request does not validate (the fields are named), or a proposal was "
         "rejected (the body then carries its report).",
    503: "A store cannot be reached.",
    504: "Over server.request_timeout_seconds (a read), or over "
         "server.write_timeout_seconds (a write, type write_in_progress: it goes on and "
         "will be applied).",
}


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI response declarations for these error statuses."""
    return {code: {"model": ErrorBody, "description": _ERROR_MEANINGS[code]}
            for code in codes}


_TENANT_ERRORS = (401, 403, 404, 422, 504)


class ApiError(Exception):
    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message


_STATUS: list[tuple[type[Exception], int]] = [
    (TextTooLongError, 413), (TenantError, 404), (IndexError_, 409), (DataDirBusyError, 409),
    (ReadOnlyDataDirError, 409),
    (StoreUnavailableError, 503), (CatalogError, 400), (OntoRetrieveError, 400),
]


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes, by header or while streaming."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await _too_large(self.limit)(scope, receive, send)
            return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _BodyTooLarge
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except _BodyTooLarge:
            if not started:
                await _too_large(self.limit)(scope, receive, send)


class _BodyTooLarge(Exception):
    pass


def _too_large(limit: int) -> JSONResponse:
    return _error(413, "request_too_large",
                  f"the request body is over the limit (server.max_request_bytes = {limit:,})")


def _error(status: int, kind: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"type": kind, "message": message}}, status_code=status)


def validation_message(errors: Sequence[Any]) -> str:
    """One line naming each rejected field (at most five), without the rejected values.

    >>> validation_message([{"loc": ("body", "text"), "msg": "Field required"}])
    'body.text: Field required'
    """
    problems = [f"{'.'.join(str(part) for part in error.get('loc', ()))}: {error.get('msg')}"
                for error in errors[:5]]
    more = len(errors) - len(problems)
    return "; ".join(problems) + (f"; and {more} more" if more > 0 else "")


def create_app(engine: Engine) -> FastAPI:
    """The FastAPI application over ``engine`` (see the module docstring)."""
    settings = engine.settings.server
    # FastAPIOffline: /docs and /redoc load their scripts from this server, not a CDN,
    # so the pages work on a machine with no internet access.
    app = FastAPIOffline(title="ontoretrieve", version=VERSION,
                         description="The slice of your ontologies that a text is about.")
    app.add_middleware(BodyLimit, limit=settings.max_request_bytes)
    _install_error_handlers(app, settings.request_timeout_seconds)
    api = _Api(engine)
    for router in (_retrieval_routes(api), _catalog_routes(api), _proposal_routes(api),
                   _service_routes(api)):
        app.include_router(router)
    return app


def _install_error_handlers(app: FastAPI, timeout_seconds: float) -> None:
    """Every error as ``{"error": {"type", "message"}}``, never a key or a traceback."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return _error(exc.status, exc.kind, exc.message)

    @app.exception_handler(ProposalRejected)
    async def rejected(request: Request, exc: ProposalRejected) -> JSONResponse:
        return JSONResponse({"error": {"type": "proposal_rejected", "message": str(exc)},
                             "report": exc.report.model_dump(mode="json")}, status_code=422)

    @app.exception_handler(OntoRetrieveError)
    async def engine_error(request: Request, exc: OntoRetrieveError) -> JSONResponse:
        status = next(code for kind, code in _STATUS if isinstance(exc, kind))
        return _error(status, type(exc).__name__, str(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        # FastAPI's own handler echoes the rejected input and crashes (500) when that
        # input is a body of non-UTF-8 bytes; name where and what, never echo the input.
        return _error(422, "invalid_request", validation_message(exc.errors()))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        kind = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return _error(exc.status_code, kind, str(exc.detail))

    @app.exception_handler(TimeoutError)
    async def timeout(request: Request, exc: TimeoutError) -> JSONResponse:
        return _error(504, "timeout", "the request took longer than "
                      f"server.request_timeout_seconds = {timeout_seconds:g}")

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> JSONResponse:
        log.error("internal error on %s %s: %s", request.method, request.url.path,
                  type(exc).__name__)
        return _error(500, "internal", "internal error; see the server log")


class _Api:
    """What every route shares: the engine, the key check and the worker-thread runner."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.settings = engine.settings.server
        self.keys = KeyRing.of(engine.settings)
        self.limiter = anyio.CapacityLimiter(self.settings.workers)

    def tenant_access(
        self,
        tenant: Annotated[str, PathParam(description="The tenant id.")],
        authorization: Annotated[str | None, Header()] = None,
        x_api_key: Annotated[str | None, Header()] = None,
    ) -> str:
        """The tenant of the route, once the key reaches it (401, 403, or 404 unknown)."""
        problem = self.keys.check(tenant, bearer_key(authorization, x_api_key))
        if problem in ("missing", "unknown"):
            raise ApiError(401, "unauthorized", "a valid API key is required "
                           "(Authorization: Bearer KEY or X-API-Key)")
        if problem == "forbidden":
            raise ApiError(403, "forbidden", "this API key does not reach that tenant")
        require_tenant(self.engine.settings.tenants, tenant)
        return tenant

    async def call(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run an engine call in a worker thread, under the request time limit."""
        with anyio.fail_after(self.settings.request_timeout_seconds):
            return await anyio.to_thread.run_sync(functools.partial(function, *args, **kwargs),
                                                  limiter=self.limiter,
                                                  abandon_on_cancel=True)

    async def write(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a write (upload, apply, rollback) in a worker thread. A thread cannot be
        stopped half-way, so past ``server.write_timeout_seconds`` the answer is a 504
        that says the write goes on and will be applied, never a silent success; if it
        fails after that answer, the failure goes to the server's log (no one is left to
        tell)."""
        answered = threading.Event()

        def run() -> T:
            try:
                return function(*args, **kwargs)
            except Exception:
                if answered.is_set():
                    log.exception("a write answered 504 (write_in_progress) failed afterwards")
                raise

        try:
            with anyio.fail_after(self.settings.write_timeout_seconds):
                return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
        except TimeoutError:
            answered.set()
            raise ApiError(504, "write_in_progress", (
                f"the write was not finished after server.write_timeout_seconds = "
                f"{self.settings.write_timeout_seconds:g} s; it goes on and will be applied: "
                "check the tenant's catalog (GET /v1/{tenant}/catalog) before sending it "
                "again")) from None


def _retrieval_routes(api: _Api) -> APIRouter:
    router = APIRouter(tags=["retrieval"],
                       responses=_errors(*_TENANT_ERRORS, 400, 409, 413, 503))
    engine = api.engine
    Tenant = Annotated[str, Depends(api.tenant_access)]

    @router.post("/v1/{tenant}/retrieve")
    async def retrieve(body: RetrieveRequest, tenant: Tenant) -> RetrieveResult:
        """The context for a text: the graph (Turtle), terms, seeds, evidence, metrics."""
        context = await api.call(engine.retrieve, body.text, tenant=tenant, mode=body.mode,
                                 ontologies=body.ontologies, max_tokens=body.max_tokens,
                                 document=body.document)
        return RetrieveResult.of(context)

    @router.post("/v1/{tenant}/retrieve/batch")
    async def retrieve_many(body: RetrieveManyRequest, tenant: Tenant) -> RetrieveManyResponse:
        """The contexts of many texts in one call, each equal to retrieve's answer for it
        (query vectors and lane hits computed in one batch)."""
        contexts = await api.call(engine.retrieve_many, body.texts, tenant=tenant,
                                  mode=body.mode, ontologies=body.ontologies,
                                  max_tokens=body.max_tokens,
                                  documents=[body.document] * len(body.texts))
        return RetrieveManyResponse(results=[RetrieveResult.of(c) for c in contexts])

    @router.post("/v1/{tenant}/slice")
    async def knowledge_slice(body: SliceRequest, tenant: Tenant) -> KnowledgeSlice:
        """The context cut to ``max_tokens`` tokens of the encoder's tokenizer."""
        return await api.call(engine.slice, body.text, body.max_tokens, tenant=tenant,
                              mode=body.mode, ontologies=body.ontologies,
                              document=body.document)

    @router.post("/v1/{tenant}/lookup")
    async def lookup(body: LookupRequest, tenant: Tenant) -> LookupResult:
        """Ranked candidate terms for one mention, with an ambiguity flag."""
        return await api.call(engine.lookup, body.mention, tenant=tenant, limit=body.limit)

    @router.post("/v1/{tenant}/search")
    async def search(body: SearchRequest, tenant: Tenant) -> FanOutResult:
        """Entity hits from the tenant's catalog and its remote endpoints, merged."""
        return await api.call(engine.search, body.text, tenant=tenant, limit=body.limit)

    return router


def _catalog_routes(api: _Api) -> APIRouter:
    router = APIRouter(tags=["catalog"], responses=_errors(*_TENANT_ERRORS, 400, 409, 413,
                                                           503))
    engine = api.engine
    Tenant = Annotated[str, Depends(api.tenant_access)]

    @router.get("/v1/{tenant}/catalog")
    async def catalog_list(tenant: Tenant, include_inactive: bool = False
                           ) -> CatalogListing:
        """The ontology versions the tenant reads (its own and included catalogs) and its
        last load."""
        return await api.call(engine.catalog_listing, tenant=tenant,
                              include_inactive=include_inactive)

    @router.put("/v1/{tenant}/catalog/files/{filename}", openapi_extra={"requestBody": {
        "required": True,
        "description": "The file's bytes, as on disk (Turtle, RDF/XML, N-Triples, N-Quads, "
                       "TriG, JSON-LD or N3, by the file name's extension); parsed before it "
                       "joins the catalog.",
        "content": {"application/octet-stream": {
            "schema": {"type": "string", "format": "binary"},
            "example": "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                       "<http://example.org/late> a owl:Ontology .\n"}}}})
    async def catalog_load(filename: str, request: Request, tenant: Tenant) -> LoadResponse:
        """Upload one RDF file (the raw body) into the tenant's catalog and sync its index."""
        content = await request.body()
        report, sync = await api.write(engine.catalog_upload, filename, content, tenant=tenant)
        return LoadResponse(catalog_load=report, index=sync)

    @router.get("/v1/{tenant}/index")
    async def index_status(tenant: Tenant) -> IndexStatus:
        """What the tenant's index holds and whether it matches its catalog."""
        return await api.call(engine.index_status, tenant=tenant)

    return router


def _proposal_routes(api: _Api) -> APIRouter:
    router = APIRouter(tags=["proposals"], responses=_errors(*_TENANT_ERRORS, 400, 409, 503))
    engine = api.engine
    Tenant = Annotated[str, Depends(api.tenant_access)]

    @router.post("/v1/{tenant}/proposals/validate")
    async def propose(body: Proposal, tenant: Tenant) -> ProposalReport:
        """Validate an update proposal; nothing is written."""
        return await api.call(engine.propose, body, tenant=tenant)

    @router.post("/v1/{tenant}/proposals/apply")
    async def apply(body: Proposal, tenant: Tenant) -> ApplyResult:
        """Validate and apply (422 with the report when rejected; nothing written then)."""
        return await api.write(engine.apply, body, tenant=tenant)

    @router.post("/v1/{tenant}/proposals/rollback")
    async def rollback(body: RollbackRequest, tenant: Tenant) -> RollbackResponse:
        """Switch an ontology back to the version its last applied update replaced."""
        restored, sync = await api.write(engine.rollback, body.ontology_iri, tenant=tenant)
        return RollbackResponse(restored=restored, index=sync)

    return router


def _service_routes(api: _Api) -> APIRouter:
    router, engine = APIRouter(tags=["service"]), api.engine
    Tenant = Annotated[str, Depends(api.tenant_access)]

    @router.get("/health")
    async def health() -> dict[str, Literal["ok"] | str]:
        """Liveness: the process answers (no key needed, nothing about tenants)."""
        return {"status": "ok", "version": VERSION}

    @router.get("/v1/{tenant}/metrics", responses=_errors(401, 403, 404))
    async def metrics(tenant: Tenant) -> dict[str, Any]:
        """The tenant's own counters and result-cache figures."""
        return engine.metrics(tenant=tenant)

    return router
