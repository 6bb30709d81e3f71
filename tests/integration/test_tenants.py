"""Tenants through the Python API and the CLI: isolation, layering, overlays, the cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ontoretrieve import Engine, Mode, TenantError, load_settings
from ontoretrieve.cli import app
from tests.support import FIXTURES, assert_isolated

pytestmark = pytest.mark.integration
runner = CliRunner()

TEXTS = ["The probe recorded a 5 mV signal for 4 days.",
         "A sensor observes an observable property of a device.",
         "thing two and a sensor at 3 kV"]


def test_api_results_cache_and_metrics_stay_in_their_tenant(tenant_config: Path) -> None:
    with Engine.open(load_settings(tenant_config)) as engine:
        for tenant in ("alpha", "beta", "lab"):
            for text in TEXTS:
                for mode in (Mode.AUTO, Mode.VECTOR, Mode.LEXICAL, Mode.FULL):
                    context = engine.retrieve(text, tenant=tenant, mode=mode)
                    assert_isolated(tenant, context.model_dump_json())
                cut = engine.slice(text, 400, tenant=tenant)
                assert_isolated(tenant, cut.model_dump_json())
            for mention in ("mV", "sensor", "thing two", "Millivolt"):
                assert_isolated(tenant, engine.lookup(mention, tenant=tenant).model_dump_json())
            listed = json.dumps([v.model_dump(mode="json")
                                 for v in engine.catalog_list(tenant=tenant)])
            assert_isolated(tenant, listed)
            assert_isolated(tenant, engine.index_status(tenant=tenant).model_dump_json())
            assert_isolated(tenant, json.dumps(engine.metrics(tenant=tenant)))
            entries = engine.cache._partitions[tenant].entries  # the cache, entry by entry
            assert entries
            assert_isolated(tenant, repr(list(entries)) + "".join(
                v.model_dump_json() for v in entries.values()))
        # each tenant finds its own terms
        assert any("MilliV" in t for t in engine.retrieve(TEXTS[0], tenant="beta").terms)
        assert any("Sensor" in t for t in engine.retrieve(TEXTS[1], tenant="alpha").terms)


def test_layered_tenant_reads_its_base_without_a_copy(tenant_config: Path) -> None:
    with Engine.open(load_settings(tenant_config)) as engine:
        lab = {v.ontology_iri for v in engine.catalog_list(tenant="lab")}
        alpha = {v.ontology_iri for v in engine.catalog_list(tenant="alpha")}
        assert lab == alpha | {"http://example.org/second"}
        context = engine.retrieve("thing two is a sensor", tenant="lab", mode=Mode.VECTOR)
        assert {"http://example.org/second#Thing2", "http://example.org/mini#Sensor"} <= set(
            context.terms)
        # one data graph per content: the base ontology is stored once for both tenants
        graphs = {v.graph for v in engine.catalog_list(tenant="lab")} & {
            v.graph for v in engine.catalog_list(tenant="alpha")}
        assert len(graphs) == 1
        # a change to the base reaches the tenant that includes it
        engine.catalog_load(FIXTURES / "qudt-units-subset.ttl", tenant="alpha")
        assert any("MilliV" in t for t in engine.retrieve(
            "a 5 mV signal", tenant="lab", mode=Mode.VECTOR).terms)


def test_overlay_bans_hides_and_aliases(tenant_config: Path, tmp_path: Path) -> None:
    settings = load_settings(tenant_config, tenants={
        "alpha": {"overlay": {"banned_terms": ["http://example.org/mini#Device"],
                              "aliases": {"probe": ["http://example.org/mini#Sensor"]}}},
        "beta": {"overlay": {"banned_ontologies": [
            "http://qudt.org/$$QUDT_VERSION$$/vocab/unit"]}},
        "lab": {"includes": ["alpha"]}},
        server={"hidden_predicates": ["http://www.w3.org/2000/01/rdf-schema#comment"]})
    with Engine.open(settings) as engine:
        context = engine.retrieve("A sensor is a device", tenant="alpha", mode=Mode.VECTOR)
        text = context.model_dump_json()
        assert "mini#Device" not in text and "mini#Sensor" in text
        assert "rdf-schema#comment" not in context.ntriples
        found = engine.lookup("probe", tenant="alpha")
        assert found.candidates[0].iri == "http://example.org/mini#Sensor"
        assert found.candidates[0].match == "alias"
        assert engine.retrieve("5 mV", tenant="beta", mode=Mode.VECTOR).terms == []
        assert engine.lookup("mV", tenant="beta").candidates == []


def test_cache_is_invalidated_by_a_catalog_change(tenant_config: Path) -> None:
    with Engine.open(load_settings(tenant_config)) as engine:
        first = engine.retrieve("thing two", tenant="alpha", mode=Mode.VECTOR)
        again = engine.retrieve("thing two", tenant="alpha", mode=Mode.VECTOR)
        assert again is first and engine.metrics(tenant="alpha")["result_cache"]["hits"] == 1
        engine.catalog_load(FIXTURES / "second.ttl", tenant="alpha")
        after = engine.retrieve("thing two", tenant="alpha", mode=Mode.VECTOR)
        assert "http://example.org/second#Thing2" in after.terms
        assert "http://example.org/second#Thing2" not in first.terms


def test_unknown_and_invalid_tenants_are_refused(tenant_config: Path) -> None:
    with Engine.open(load_settings(tenant_config)) as engine:
        for bad in ("gamma", "../alpha", "Alpha", "a" * 41, ""):
            with pytest.raises(TenantError):
                engine.retrieve("sensor", tenant=bad)


def test_cli_tenant_option_json_everywhere(tenant_config: Path) -> None:
    config = ["--config", str(tenant_config)]
    sliced = runner.invoke(app, ["slice", TEXTS[0], "--max-tokens", "120", "--tenant", "beta",
                                 "--json", *config])
    assert sliced.exit_code == 0, sliced.output
    data = json.loads(sliced.stdout)
    assert data["token_estimate"] <= 120 and data["max_tokens"] == 120
    assert_isolated("beta", sliced.stdout)
    looked = runner.invoke(app, ["lookup", "mV", "--tenant", "beta", "--json", *config])
    assert json.loads(looked.stdout)["candidates"][0]["iri"].endswith("/MilliV")
    looked = runner.invoke(app, ["lookup", "mV", "--tenant", "alpha", "--json", *config])
    assert_isolated("alpha", looked.stdout)
    retrieved = runner.invoke(app, ["retrieve", TEXTS[0], "--tenant", "alpha", "--json",
                                    *config])
    assert retrieved.exit_code == 0
    assert_isolated("alpha", retrieved.stdout)
    listed = runner.invoke(app, ["catalog", "list", "--tenant", "lab", "--json", *config])
    assert {o["ontology_iri"] for o in json.loads(listed.stdout)["ontologies"]} == {
        "http://example.org/mini", "http://example.org/second"}
    status = runner.invoke(app, ["index", "status", "--tenant", "beta", "--json", *config])
    assert json.loads(status.stdout)["exists"] is True
    unknown = runner.invoke(app, ["lookup", "mV", "--tenant", "gamma", *config])
    assert unknown.exit_code == 2 and "[tenants.gamma]" in unknown.stderr


def test_watch_refreshes_a_tenant_after_a_partial_write_settles(tenant_config: Path,
                                                                  tmp_path: Path) -> None:
    import threading
    import time

    from ontoretrieve.catalog.watch import Watcher

    folder = tmp_path / "watched"
    folder.mkdir()
    with Engine.open(load_settings(tenant_config)) as engine:
        results: list[object] = []
        watcher = Watcher(folder, lambda: engine.catalog_load(folder, tenant="beta"),
                          settle=0.5, on_result=results.append)
        stop = threading.Event()
        thread = threading.Thread(target=watcher.run_forever, args=(0.1, stop))
        thread.start()
        try:
            text = (FIXTURES / "second.ttl").read_text()
            with (folder / "second.ttl").open("w") as out:  # written in two halves
                out.write(text[: len(text) // 2])
                out.flush()
                time.sleep(0.3)
                out.write(text[len(text) // 2:])
            deadline = time.monotonic() + 60
            while not any("second#Thing2" in t for t in engine.retrieve(
                    "thing two", tenant="beta", mode=Mode.VECTOR).terms):
                assert time.monotonic() < deadline, results
                time.sleep(0.2)
        finally:
            stop.set()
            thread.join(30)
        assert "second#Thing2" not in engine.retrieve("thing two", tenant="alpha").ntriples


def test_slice_is_the_retrieve_path_at_the_callers_budget(tenant_config: Path) -> None:
    with Engine.open(load_settings(tenant_config)) as engine:
        for budget in (80, 300):
            context = engine.retrieve(TEXTS[0], tenant="beta", mode=Mode.VECTOR,
                                      max_tokens=budget)
            cut = engine.slice(TEXTS[0], budget, tenant="beta", mode=Mode.VECTOR)
            assert {h.id for h in cut.hits} == set(context.terms)
            # The slice writes the same statements term by term (a few tokens apart).
            assert cut.token_estimate <= budget and context.metrics.context_tokens <= budget
            # The budget was spent while building (nothing cut after), and says so.
            assert cut.truncated == context.metrics.truncated
            assert cut.blocks_kept == cut.blocks_total
        with pytest.raises(Exception, match="at least 1"):
            engine.retrieve(TEXTS[0], tenant="beta", max_tokens=0)


def test_a_base_shared_by_two_tenants_is_encoded_once_and_isolation_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tenants t1 and t2 both include ``base``; each adds its own ontology. The base is
    written into three indexes (base, t1, t2: each tenant's index stays its own) but
    its texts are encoded by the model once; the other two take its vectors from the
    document cache. Neither tenant sees the other's ontology."""
    config = tmp_path / "ontoretrieve.toml"
    config.write_text("\n".join([
        f'data_dir = "{tmp_path / "data"}"', "[tenants.base]",
        "[tenants.t1]", 'includes = ["base"]', "[tenants.t2]", 'includes = ["base"]']) + "\n",
        encoding="utf-8")
    with Engine.open(load_settings(config)) as engine:
        model = engine.embedder()
        encoded: list[str] = []
        encode = model.embed_documents

        def counting(texts: list[str]) -> object:
            encoded.extend(texts)
            return encode(texts)

        monkeypatch.setattr(model, "embed_documents", counting)
        _, first = engine.catalog_load(FIXTURES / "mini.ttl", tenant="t1")
        _, second = engine.catalog_load(FIXTURES / "second.ttl", tenant="t2")
        own = len(encoded)
        assert own == first.texts_encoded + second.texts_encoded
        # Loading the base syncs base, then t1 and t2 (they include it).
        _, base = engine.catalog_load(FIXTURES / "qudt-units-subset.ttl", tenant="base")
        assert base.texts_encoded > 0
        assert len(encoded) - own == base.texts_encoded  # once, not three times
        assert len(encoded) == len(set(encoded))
        for tenant in ("t1", "t2"):
            status = engine.index_status(tenant=tenant)
            assert status.fingerprint_matches and status.catalog_not_indexed == 0
        for tenant, foreign in (("t1", "example.org/second"), ("t2", "example.org/mini")):
            for text in [*TEXTS, "thing two", "weight of a device"]:
                for mode in (Mode.AUTO, Mode.VECTOR, Mode.LEXICAL, Mode.FULL):
                    dumped = engine.retrieve(text, tenant=tenant, mode=mode).model_dump_json()
                    assert foreign not in dumped
                assert foreign not in engine.lookup(text, tenant=tenant).model_dump_json()
            assert foreign not in json.dumps([v.model_dump(mode="json")
                                              for v in engine.catalog_list(tenant=tenant)])
            assert any("MilliV" in t for t in engine.retrieve(
                "a 5 mV signal", tenant=tenant, mode=Mode.VECTOR).terms)
