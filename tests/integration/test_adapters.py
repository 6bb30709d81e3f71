"""Adapters: the catalog and a real `oxigraph serve` endpoint fanned out; a dead one is soft."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from ontoretrieve import Engine, load_settings
from ontoretrieve.cli import app
from tests.support import FIXTURES, assert_isolated, free_port

pytestmark = pytest.mark.integration


def test_fan_out_merges_catalog_and_endpoint_and_lists_the_failing_one(
        tenant_config: Path, oxigraph_server: str) -> None:
    store_url = oxigraph_server.rsplit("/", 1)[0] + "/store?default"
    httpx.post(store_url, content=(FIXTURES / "second.ttl").read_bytes(),
               headers={"Content-Type": "text/turtle"}, timeout=10).raise_for_status()
    dead = f"http://127.0.0.1:{free_port()}/query"
    settings = load_settings(tenant_config, tenants={
        "alpha": {"endpoints": {"remote": {"query_url": oxigraph_server},
                                "dead": {"query_url": dead, "timeout_seconds": 2}}},
        "beta": {}, "lab": {"includes": ["alpha"]}})
    with Engine.open(settings) as engine:
        result = engine.search("a sensor next to thing two", tenant="alpha")
        by_adapter = {(h.adapter, h.id) for h in result.hits}
        assert ("sparql:remote", "http://example.org/second#Thing2") in by_adapter
        assert any(a == "catalog:alpha" and i.endswith("mini#Sensor") for a, i in by_adapter)
        assert len(by_adapter) == len(result.hits)  # one hit per (adapter, id)
        assert [e.adapter for e in result.adapter_errors] == ["sparql:dead"]
        # beta has no endpoints: its search never reaches alpha's
        beta = engine.search("a sensor next to thing two", tenant="beta")
        assert_isolated("beta", beta.model_dump_json())
        remote = next(a for a in engine.adapters(tenant="alpha") if a.name == "sparql:remote")
        cut = remote.slice("thing two", 150)
        assert cut.token_estimate <= 150 and "Thing2" in cut.context
        # hostile text is sent as escaped literals, never as SPARQL: no error, no damage
        hostile = engine.search('thing two" } ; DROP ALL ; { "', tenant="alpha")
        assert [e.adapter for e in hostile.adapter_errors] == ["sparql:dead"]
        assert remote.query("thing two", 5)


def test_search_cli(tenant_config: Path) -> None:
    done = CliRunner().invoke(app, ["search", "a 5 mV signal", "--tenant", "beta", "--json",
                                    "--config", str(tenant_config)])
    assert done.exit_code == 0, done.output
    hits = json.loads(done.stdout)["hits"]
    assert hits and all(h["adapter"] == "catalog:beta" for h in hits)
