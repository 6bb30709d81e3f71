"""Faults: a SPARQL endpoint that is slow or answers garbage; an index that cannot be written.

Every time the engine either answers (degraded, with the metric saying so)
or fails with a clear error, and what was stored before is intact.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ontoretrieve import Engine, Mode, load_settings
from ontoretrieve.backends.sparql_http import SparqlHttpStore
from ontoretrieve.errors import StoreError
from tests.support import FIXTURES

pytestmark = pytest.mark.integration

GARBAGE = [b"", b"\x00\xff garbage", b'{"head": {"vars": ["s"]}, "results": {"bindings": [{"s"',
           b"<html>502 Bad Gateway</html>", b"@prefix : <x> . :a :b", b"{}" * 1000]


class _Handler(BaseHTTPRequestHandler):
    mode = "garbage"
    hits = 0

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        cls = type(self)
        cls.hits += 1
        if cls.mode == "slow":
            time.sleep(3)
        body = GARBAGE[cls.hits % len(GARBAGE)]
        content_type = ["application/sparql-results+json", "text/turtle",
                        "application/n-triples", "text/html"][cls.hits % 4]
        try:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    do_GET = do_POST = do_PUT = do_DELETE = _answer

    def log_message(self, format: str, *args: object) -> None:
        pass


def _serve(mode: str) -> Iterator[str]:
    handler = type(f"{mode.title()}Handler", (_Handler,), {"mode": mode, "hits": 0})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/query"
    finally:
        server.shutdown()


@pytest.fixture
def garbage_endpoint() -> Iterator[str]:
    yield from _serve("garbage")


@pytest.fixture
def slow_endpoint() -> Iterator[str]:
    yield from _serve("slow")


def test_the_store_maps_garbage_to_its_own_errors(garbage_endpoint: str) -> None:
    store = SparqlHttpStore(garbage_endpoint, timeout_seconds=2)
    for _ in range(len(GARBAGE)):
        for call in (lambda: store.select("SELECT * WHERE { ?s ?p ?o }"),
                     lambda: store.construct("CONSTRUCT WHERE { ?s ?p ?o }"),
                     lambda: store.graph_triples("urn:g"),
                     lambda: store.graph_statements("urn:g")):
            with contextlib.suppress(StoreError):  # our own error; anything else fails
                call()


@pytest.mark.parametrize("endpoint_kind", ["garbage", "slow"])
def test_retrieval_degrades_with_a_metric(tenant_config: Path, endpoint_kind: str,
                                          request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue(f"{endpoint_kind}_endpoint")
    broken = load_settings(tenant_config, store={"backend": "sparql", "query_url": url,
                                                 "timeout_seconds": 1})
    with Engine.open(broken) as engine:
        started = time.monotonic()
        context = engine.retrieve("The probe recorded a 5 mV signal", tenant="beta",
                                  mode=Mode.VECTOR)
        assert time.monotonic() - started < 60
        assert context.metrics.catalog_access_mode == "atoms_fallback"
        assert context.metrics.degraded
        assert "http://qudt.org/vocab/unit/MilliV" in context.terms
        assert engine.lookup("mV", tenant="beta").candidates[0].iri.endswith("/MilliV")
        cut = engine.slice("5 mV", 200, tenant="beta", mode=Mode.VECTOR)
        assert cut.token_estimate <= 200
    # the real store was never touched: the catalog is as it was
    with Engine.open(load_settings(tenant_config)) as engine:
        assert engine.retrieve("a 5 mV signal", tenant="beta",
                               mode=Mode.VECTOR).metrics.catalog_access_mode == "sparql"


def test_a_full_disk_during_index_sync_fails_clearly_and_keeps_the_index(
        tenant_config: Path) -> None:
    """RLIMIT_FSIZE makes writes past a size fail like a full disk (no root, no mount)."""
    data = Path(load_settings(tenant_config).data_dir)
    state = data / "index" / "beta" / "state.json"
    before = state.read_text()
    script = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))\n"
        "from ontoretrieve.cli import main\n"
        "sys.argv = ['ontoretrieve', 'index', '--catalog', sys.argv[1], '--rebuild',\n"
        "            '--tenant', 'beta', '--config', sys.argv[2]]\n"
        "main()\n")
    child = subprocess.run(
        [sys.executable, "-c", script, str(FIXTURES / "qudt-units-subset.ttl"),
         str(tenant_config)], capture_output=True, text=True, timeout=300,
        env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert child.returncode != 0
    assert "Traceback" not in child.stderr, child.stderr[-2000:]
    assert "error" in child.stderr.lower()
    assert state.read_text() == before  # the old index state is untouched
    with Engine.open(load_settings(tenant_config)) as engine:
        assert "http://qudt.org/vocab/unit/MilliV" in engine.retrieve(
            "a 5 mV signal", tenant="beta", mode=Mode.VECTOR).terms
