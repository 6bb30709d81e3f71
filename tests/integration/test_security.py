"""Security: injection through every input that reaches a query, traversal, secrets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ontoretrieve import (
    CatalogPathError,
    Engine,
    Mode,
    OntologyUpdate,
    Proposal,
    TenantError,
    load_settings,
)
from ontoretrieve.cli import app
from ontoretrieve.index.build import tenant_dir
from tests.support import TENANT_KEYS

pytestmark = pytest.mark.integration

HOSTILE = ['http://x/a> } ; DROP ALL ; { <http://x/b', '"} ; CLEAR ALL ; {"', "\\u003e",
           "x\n} INSERT DATA { <a> <b> <c> }", "' OR 1=1 --", "../../etc/passwd"]


def _quads(engine: Engine) -> int:
    return sum(1 for _ in engine.store.select("SELECT ?s WHERE { GRAPH ?g { ?s ?p ?o } }"))


def test_injection_through_text_mentions_overlays_and_proposals(tenant_config: Path) -> None:
    settings = load_settings(tenant_config, tenants={
        "alpha": {"overlay": {"aliases": {"probe": HOSTILE}, "banned_terms": HOSTILE,
                              "banned_ontologies": HOSTILE, "preferred_ontologies": HOSTILE}},
        "beta": {}, "lab": {"includes": ["alpha"]}})
    with Engine.open(settings) as engine:
        before = _quads(engine)
        for hostile in HOSTILE:
            for mode in (Mode.VECTOR, Mode.LEXICAL, Mode.FULL):
                engine.retrieve(hostile, tenant="alpha", mode=mode)
            engine.retrieve("x", tenant="alpha", mode=Mode.ONTOLOGIES, ontologies=[hostile])
            engine.lookup(hostile, tenant="alpha")
            engine.lookup("probe", tenant="alpha")
            engine.slice(hostile, 100, tenant="alpha")
            engine.search(hostile, tenant="alpha")
        assert _quads(engine) == before
        # a hostile literal in a proposal is data, written and read back intact
        base = next(v.content_hash for v in engine.catalog_list(tenant="alpha")
                    if v.ontology_iri == "http://example.org/mini")
        literal = json.dumps(HOSTILE[1])
        add = (f"<http://example.org/mini#Odd> a <http://www.w3.org/2002/07/owl#Class> ; "
               f"<http://www.w3.org/2000/01/rdf-schema#label> {literal} .")
        engine.apply(Proposal(updates=[OntologyUpdate(
            ontology_iri="http://example.org/mini", base_hash=base, add=add)]), tenant="alpha")
        context = engine.retrieve("Odd", tenant="alpha", mode=Mode.FULL)
        assert HOSTILE[1] in {t.object.value for t in context.triples()}
        # hostile IRIs in a proposal are refused as unparseable, never sent
        with pytest.raises(Exception, match="line 1"):
            engine.propose(Proposal(updates=[OntologyUpdate(
                ontology_iri="http://example.org/mini", base_hash=base,
                add=f"<{HOSTILE[0]}> <http://x/p> <http://x/o> .")]), tenant="alpha")


def test_path_traversal_through_tenants_and_uploads(tenant_config: Path) -> None:
    settings = load_settings(tenant_config)
    for bad in ("../alpha", "..", "a/../../b", "/etc", "alpha\x00"):
        with pytest.raises(TenantError):
            tenant_dir(settings, bad)
    with Engine.open(settings) as engine:
        for name in ("../x.ttl", "..ttl", "a/b.ttl", "/etc/x.ttl", ".hidden.ttl", "x.ttl\x00",
                     "x.exe"):
            with pytest.raises(CatalogPathError):
                engine.catalog_upload(name, b"<urn:a> <urn:b> <urn:c> .", tenant="alpha")
        assert not (settings.data_dir / "x.ttl").exists()
        assert not any((settings.data_dir / "uploads").glob("**/*.ttl"))


def test_no_secret_in_settings_output_or_errors(tenant_config: Path) -> None:
    shown = CliRunner().invoke(app, ["config", "show", "--json", "--config",
                                     str(tenant_config)])
    assert shown.exit_code == 0
    assert not any(key in shown.stdout for key in TENANT_KEYS.values())
    table = CliRunner().invoke(app, ["config", "show", "--config", str(tenant_config)])
    assert not any(key in table.stdout for key in TENANT_KEYS.values())
    refused = CliRunner().invoke(app, ["mcp", "--tenant", "beta", "--api-key",
                                       TENANT_KEYS["alpha"], "--config", str(tenant_config)])
    assert refused.exit_code == 2
    assert TENANT_KEYS["alpha"] not in refused.stderr + refused.stdout
