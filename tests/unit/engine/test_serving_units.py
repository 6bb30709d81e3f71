"""Pure parts of serving: lookup ranking, overlays, tenant ids and layers, keys, the cache."""

from __future__ import annotations

import pytest

from ontoretrieve.context.model import Context, ContextMetrics, Mode, Snapshot, TermEvidence
from ontoretrieve.context.overlay import OverlayRule, apply_overlay
from ontoretrieve.engine.result_cache import ResultCache
from ontoretrieve.errors import SettingsError, TenantError
from ontoretrieve.query.lookup import rank_candidates
from ontoretrieve.records import SeedEvidence
from ontoretrieve.server.auth import KeyRing, bearer_key
from ontoretrieve.settings import load_settings
from ontoretrieve.settings.tenants import (
    OverlaySettings,
    TenantSettings,
    catalog_graph,
    catalog_layers,
    validate_tenant_id,
)

MV = {"iri": "u:MilliV", "labels": ["millivolt"], "symbols": ["mV"], "ontology_iri": "o:unit"}
MEGA = {"iri": "u:MegaV", "labels": ["megavolt"], "symbols": ["MV"], "ontology_iri": "o:unit"}


def _seed(iri: str, score: float, ontology: str = "o:x") -> SeedEvidence:
    return SeedEvidence(iri=iri, score=score, origin="retrieved", ontology_iri=ontology,
                        ontology_version=None, ontology_hash="h", role="resource",
                        fused_score=score, windows=[], lanes=[], notes=[])


def test_exact_case_symbol_beats_case_folded() -> None:
    for mention, first in (("mV", "u:MilliV"), ("MV", "u:MegaV")):
        found = rank_candidates(mention, [MEGA, MV], [])
        assert found.candidates[0].iri == first
        assert found.candidates[1].match == "case_folded" and not found.ambiguous


def test_ambiguity_flag() -> None:
    twin = {**MV, "iri": "v:MilliV", "ontology_iri": "o:other"}
    assert rank_candidates("mV", [MV, twin], []).ambiguous
    assert rank_candidates("volt", [], [_seed("a", 0.5), _seed("b", 0.48)]).ambiguous
    assert not rank_candidates("volt", [], [_seed("a", 0.5), _seed("b", 0.2)]).ambiguous
    empty = rank_candidates("zzz", [], [])
    assert empty.candidates == [] and empty.diagnosis == "no_match"


def test_overlay_in_lookup_preferred_banned_and_aliases() -> None:
    twin = {**MV, "iri": "v:MilliV", "ontology_iri": "o:other"}
    rule = OverlayRule.of(OverlaySettings(preferred_ontologies=["o:other"]), ())
    assert rank_candidates("mV", [MV, twin], [], rule=rule).candidates[0].iri == "v:MilliV"
    rule = OverlayRule.of(OverlaySettings(banned_terms=["u:MilliV"]), ())
    assert "u:MilliV" not in [c.iri for c in rank_candidates("mV", [MV], [], rule=rule)
                              .candidates]
    found = rank_candidates("probe", [], [_seed("s:Probe", 0.9)],
                            aliases={"Probe": ["s:Sensor"]})
    assert [c.match for c in found.candidates] == ["alias", "retrieved"]


def _context() -> Context:
    nt = ("<http://x/a> <http://www.w3.org/2000/01/rdf-schema#label> \"a\" .\n"
          "<http://x/a> <http://x/secret> \"s3cr3t\" .\n"
          "<http://x/b> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <http://x/a> .\n"
          "<http://x/b> <http://www.w3.org/2000/01/rdf-schema#label> \"b\" .\n"
          "<http://x/c> <http://www.w3.org/2000/01/rdf-schema#label> \"c\" .\n")
    evidence = {i: TermEvidence(iri=i, step="retrieved", ontology_iri=o)
                for i, o in (("http://x/a", "o:1"), ("http://x/b", "o:1"), ("http://x/c", "o:2"))}
    return Context(mode=Mode.VECTOR, ntriples=nt, terms=list(evidence), seeds=[],
                   evidence=evidence, snapshot=Snapshot(cut_from=[], writable=[]),
                   metrics=ContextMetrics(mode=Mode.VECTOR, context_triples=5))


def test_overlay_on_contexts() -> None:
    context = _context()
    hidden = apply_overlay(context, OverlayRule.of(OverlaySettings(), ["http://x/secret"]))
    assert "s3cr3t" not in hidden.ntriples and hidden.metrics.context_triples == 4
    banned = apply_overlay(context, OverlayRule.of(
        OverlaySettings(banned_terms=["http://x/a"], banned_ontologies=["o:2"]), ()))
    assert banned.terms == ["http://x/b"] and "http://x/a" not in banned.ntriples
    assert apply_overlay(context, OverlayRule.of(OverlaySettings(), ())) is context
    assert context.metrics.context_triples == 5  # inputs are never changed


def test_tenant_ids_and_layers() -> None:
    for good in ("a", "acme-labs", "t_1", "x" * 40):
        assert validate_tenant_id(good) == good
    for bad in ("", "A", "1a", "a" * 41, "a/b", "a b", "a\n", "a:b", "../a", "é"):
        with pytest.raises(TenantError):
            validate_tenant_id(bad)
    tenants = {"base": TenantSettings(), "domain": TenantSettings(includes=["base"]),
               "lab": TenantSettings(includes=["domain", "base"])}
    assert catalog_layers(tenants, "lab") == ["lab", "domain", "base"]
    assert catalog_layers(tenants, "default") == ["default"]
    assert catalog_graph("lab") == "urn:ontoretrieve:tenant:lab:catalog"
    with pytest.raises(SettingsError, match="cycle"):
        load_settings(tenants={"a": {"includes": ["b"]}, "b": {"includes": ["a"]}})
    with pytest.raises(SettingsError, match="unknown tenant 'nope'"):
        load_settings(tenants={"a": {"includes": ["nope"]}})
    with pytest.raises(SettingsError, match="not valid"):
        load_settings(tenants={"Bad": {}})


def test_keys() -> None:
    ring = KeyRing.of(load_settings(tenants={"a": {"api_key": "ka"}, "b": {}}))
    assert ring.required
    assert ring.check("b", "ka") == "forbidden" and ring.check("a", "ka") is None
    assert not KeyRing.of(load_settings()).required
    assert KeyRing.of(load_settings(server={"require_api_key": True})).check("default",
                                                                             "x") == "unknown"
    assert bearer_key("Bearer  k1 ", None) == "k1" and bearer_key(None, "k2") == "k2"
    assert bearer_key("Basic abc", None) is None
    shown = load_settings(tenants={"a": {"api_key": "ka"}}).model_dump_json()
    assert "ka\"" not in shown  # a key never appears in dumped settings


def test_cache_partitions_are_separate_and_bounded() -> None:
    cache = ResultCache(2)
    for n in range(3):
        cache.put("a", n, n)
    assert cache.get("a", 0) is None and cache.get("a", 2) == 2
    assert cache.get("b", 2) is None and cache.stats("b") == {"entries": 0, "hits": 0,
                                                              "misses": 1}
    cache.clear("a")
    assert cache.stats("a")["entries"] == 0
    off = ResultCache(0)
    off.put("a", 1, 1)
    assert off.get("a", 1) is None
