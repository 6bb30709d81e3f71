"""Whole retrievals with the real model: modes, evidence, stores, pushdown, degradation, CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from typer.testing import CliRunner

from ontoretrieve.backends import OxigraphStore, SparqlHttpStore
from ontoretrieve.catalog.reader import CatalogAccess, CatalogReader, graph_name
from ontoretrieve.cli import app
from ontoretrieve.context.model import Diagnosis, Mode
from ontoretrieve.context.retriever import Retriever
from ontoretrieve.context.tokens import estimate_tokens
from ontoretrieve.index.build import sync_index
from ontoretrieve.index.embed import FastEmbedder
from ontoretrieve.query.selection import SCOPE_NOTE
from ontoretrieve.settings import Settings, load_settings
from tests.support import FIXTURES

pytestmark = pytest.mark.integration

ZOO = "http://example.org/zoo#"
UNIT = "http://qudt.org/vocab/unit/"
TEXT = "The keeper feeds the cat, which eats a mouse and lives in a big cage."


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ctx") / "catalog"
    folder.mkdir()
    for name in ("zoo.ttl", "ext.ttl"):
        shutil.copy(FIXTURES / "context" / name, folder)
    shutil.copy(FIXTURES / "qudt-units-subset.ttl", folder)
    return folder


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, catalog: Path,
            real_embedder: FastEmbedder) -> Iterator[tuple[Settings, OxigraphStore]]:
    settings = load_settings(data_dir=tmp_path_factory.mktemp("ctx-data"))
    store = OxigraphStore.in_memory()
    sync_index(settings, store, catalog_path=catalog, embedder=real_embedder)
    yield settings, store


@pytest.fixture(scope="module")
def retriever(indexed: tuple[Settings, OxigraphStore],
              real_embedder: FastEmbedder) -> Iterator[Retriever]:
    settings, store = indexed
    opened = Retriever.open(settings, store, embedder=real_embedder)
    yield opened
    opened.close()


def variant(base: Retriever, store: object = None, **groups: dict[str, object]) -> Retriever:
    """The same open index (Edge opens a shard once per process) with other settings."""
    settings = base.settings.model_copy(update={
        name: getattr(base.settings, name).model_copy(update=changes)
        for name, changes in groups.items()})
    if store is None:
        return base.variant(settings)
    return Retriever(settings, store, base.index, base.state,  # type: ignore[arg-type]
                     base.seed_retriever.embedder)


def test_vector_context_holds_the_terms_of_the_text(retriever: Retriever) -> None:
    context = retriever.retrieve(TEXT, Mode.VECTOR)
    assert {ZOO + "Keeper", ZOO + "Cat", ZOO + "Mouse", ZOO + "feeds"} <= set(context.terms)
    assert context.diagnosis is None and context.metrics.catalog_access_mode == "sparql"
    assert context.metrics.context_triples == len(context.triples())
    assert set(context.evidence) == set(context.terms)
    feeds = context.evidence[ZOO + "feeds"]
    assert feeds.ontology_iri == "http://example.org/zoo" and feeds.step in (
        "retrieved", "small_module", "schema_closure", "expansion", "stub")
    assert [s.iri for s in context.seeds]  # seeds in rank order, with their lanes
    assert context.seeds[0].lanes


def test_small_zoo_is_added_whole_without_its_header(retriever: Retriever) -> None:
    context = retriever.retrieve(TEXT, Mode.VECTOR)
    assert context.metrics.small_modules  # zoo.ttl has far fewer than 300 triples
    assert ZOO + "Island" in context.terms  # no seed, but its module is small
    assert "http://example.org/zoo" not in context.terms


def test_snapshot_records_what_the_context_was_cut_from(retriever: Retriever) -> None:
    context = retriever.retrieve(TEXT, Mode.VECTOR)
    cut = {r.ontology_iri for r in context.snapshot.cut_from}
    assert "http://example.org/zoo" in cut
    assert {r.ontology_iri for r in context.snapshot.writable} <= cut


def test_serializations_round_trip(retriever: Retriever) -> None:
    context = retriever.retrieve(TEXT, Mode.VECTOR)
    turtle = context.serialize("turtle")
    assert "@prefix rdfs:" in turtle and "@prefix foaf:" not in turtle  # only used prefixes
    assert len(list(ox.parse(turtle.encode(), ox.RdfFormat.TURTLE))) == \
        context.metrics.context_triples
    assert len(list(ox.parse(context.serialize("jsonld").encode(), ox.RdfFormat.JSON_LD))) == \
        context.metrics.context_triples
    assert len(context.graph()) == context.metrics.context_triples


def test_reference_expansion_brings_the_declaring_ontology(retriever: Retriever) -> None:
    context = retriever.retrieve("The keeper is a person.", Mode.VECTOR)
    assert "http://example.org/ext" in context.metrics.expanded_ontology_iris or \
        "http://example.org/ext#Person" in context.terms


def test_targeted_select_and_full_scan_find_the_same_references(
        indexed: tuple[Settings, OxigraphStore]) -> None:
    _, store = indexed
    reader = CatalogReader(store)
    versions = reader.versions()
    zoo = next(v.content_hash for v in versions if v.ontology_iri == "http://example.org/zoo")
    every = [v.content_hash for v in versions]
    terms = [ZOO + "Keeper", ZOO + "Animal"]
    by_select = reader.referenced_versions(terms, [zoo], versions)
    by_scan = reader.referenced_by_scan(terms, [zoo], every, CatalogAccess())
    assert by_select == by_scan and len(by_select) == 1


def test_graph_and_merge_caches_are_hit_the_second_time(retriever: Retriever) -> None:
    retriever.retrieve(TEXT, Mode.VECTOR)
    again = retriever.retrieve(TEXT, Mode.VECTOR)
    assert again.metrics.catalog_merge_cache_hits == 1
    assert again.metrics.catalog_graph_cache_misses == 0


def test_views_of_different_version_sets_share_one_memo_of_merges(
        indexed: tuple[Settings, OxigraphStore]) -> None:
    _, store = indexed
    reader = CatalogReader(store)
    hashes = [v.content_hash for v in reader.versions()]
    first = reader.merged(hashes, CatalogAccess())
    second = reader.merged(hashes[1:], CatalogAccess())
    assert first is not second and first.merged is second.merged
    assert reader.renewed().merged(hashes[:1], CatalogAccess()).merged is first.merged


def test_pushdown_cuts_a_smaller_working_graph(retriever: Retriever) -> None:
    pushed = variant(retriever, expand={"candidate_pushdown": True})
    on, off = pushed.retrieve(TEXT, Mode.VECTOR), retriever.retrieve(TEXT, Mode.VECTOR)
    assert on.metrics.catalog_context_mode == "sparql_candidate"
    assert off.metrics.catalog_context_mode == "merged_catalog"
    assert on.metrics.catalog_context_triples < off.metrics.catalog_context_triples
    seeds = {s.iri for s in on.seeds}
    assert seeds <= set(on.terms) | {s for s in seeds if s.startswith(UNIT)} or \
        seeds & set(on.terms)
    assert {ZOO + "Keeper", ZOO + "Cat"} <= set(on.terms)


def test_modes(retriever: Retriever) -> None:
    unbudgeted = variant(retriever, context={"budget": False, "languages": ["*"]})
    full = unbudgeted.retrieve("", Mode.FULL)
    total = sum(v.triple_count for v in retriever.reader.versions())
    assert total < 4000 and not full.metrics.truncated  # the fixture catalog fits whole
    assert total - 20 < full.metrics.context_triples < total  # only the headers are left out
    assert ZOO + "Cat" in full.terms and "http://example.org/zoo" not in full.terms
    small = variant(unbudgeted, expand={"context_max_triples": 50}).retrieve("", Mode.FULL)
    assert small.metrics.truncated and small.metrics.context_triples <= 50
    budgeted = retriever.retrieve("", Mode.FULL, max_tokens=300)  # the budget binds here too
    assert budgeted.metrics.truncated and budgeted.metrics.context_tokens <= 300
    only = retriever.retrieve("", Mode.ONTOLOGIES, ["http://example.org/ext"])
    assert set(only.terms) == {"http://example.org/ext#Organism", "http://example.org/ext#Person"}
    by_file = retriever.retrieve("", Mode.ONTOLOGIES, ["zoo.ttl"])
    assert ZOO + "Cat" in by_file.terms
    missing = retriever.retrieve("", Mode.ONTOLOGIES, ["nope"])
    assert missing.diagnosis is Diagnosis.NO_SUCH_ONTOLOGY and missing.empty
    lexical = retriever.retrieve("A 5 mV signal from the big cage", Mode.LEXICAL)
    assert UNIT + "MilliV" in {s.iri for s in lexical.seeds}
    assert ZOO + "BigCage" in {s.iri for s in lexical.seeds}
    assert all(not s.lanes for s in lexical.seeds)  # no embedding in lexical mode
    assert retriever.retrieve("zzqx", Mode.LEXICAL).diagnosis is Diagnosis.NO_LEXICAL_MATCH


def test_named_ontologies_scope_vector_and_lexical_seeds(retriever: Retriever) -> None:
    text = "A 5 mV signal from the cat in the big cage"
    hashes = {v.source.rsplit("/", 1)[-1]: v.content_hash for v in retriever.reader.versions()}
    unscoped = {s.ontology_hash for s in retriever.retrieve(text, Mode.VECTOR).seeds}
    assert {hashes["zoo.ttl"], hashes["qudt-units-subset.ttl"]} <= unscoped
    for mode in (Mode.VECTOR, Mode.LEXICAL):
        for name in ("zoo", "qudt-units-subset.ttl"):  # a file stem or a file name
            scoped = retriever.retrieve(text, mode, [name])
            assert scoped.seeds, (mode, name)
            wanted = hashes[name if name.endswith(".ttl") else name + ".ttl"]
            assert {s.ontology_hash for s in scoped.seeds} == {wanted}, (mode, name)
    missing = retriever.retrieve(text, Mode.VECTOR, ["nope"])
    assert missing.diagnosis is Diagnosis.NO_SUCH_ONTOLOGY and missing.empty
    assert "nope" in missing.warnings[0]


def test_a_scoped_query_names_the_terms_its_scope_alone_keeps(
        retriever: Retriever, monkeypatch: pytest.MonkeyPatch) -> None:
    import ontoretrieve.context.retriever as retriever_module

    spent: list[tuple[list[str], list[str]]] = []
    real_pack = retriever_module.pack

    def spy(*args: Any, **kwargs: Any) -> Any:  # the seeds and candidates the budget gets
        spent.append(([iri for iri, _ in args[1]], list(kwargs["ranked"])))
        return real_pack(*args, **kwargs)

    monkeypatch.setattr(retriever_module, "pack", spy)
    text = "A 5 mV signal from the cat in the big cage"
    deep = variant(retriever, seeds={"scoped_top_per_window": 1, "scoped_kept_per_window": 40})
    shallow = variant(retriever, seeds={"scoped_top_per_window": 1, "scoped_kept_per_window": 0})
    found = deep.retrieve(text, Mode.VECTOR, ["zoo"], max_tokens=100_000)
    before = shallow.retrieve(text, Mode.VECTOR, ["zoo"], max_tokens=100_000)
    scope_only = [s for s in found.seeds if SCOPE_NOTE in s.notes]
    assert scope_only and {s.evidence_tier for s in scope_only} == {2}
    assert not any(SCOPE_NOTE in s.notes for s in before.seeds)
    assert {s.iri for s in before.seeds} < {s.iri for s in found.seeds}
    assert {s.iri for s in scope_only} <= set(found.terms)  # named, as seeds are
    assert found.metrics.seeds is not None
    assert found.metrics.seeds.kept_by["scope"] == len(scope_only)
    # The budget spends on them as on the candidates below the cut, ahead of those.
    described, ranked = spent[0]
    in_rank_order = [s.iri for s in scope_only]
    assert not set(in_rank_order) & set(described)
    assert ranked[:len(in_rank_order)] == in_rank_order
    unscoped = deep.retrieve(text, Mode.VECTOR, max_tokens=100_000)
    assert not any(SCOPE_NOTE in s.notes for s in unscoped.seeds)


def test_auto_takes_the_whole_catalog_only_when_it_fits(retriever: Retriever) -> None:
    for cap, expected in ((5, Mode.VECTOR), (100000, Mode.FULL)):
        r = variant(retriever, expand={"context_max_triples": cap})
        assert r.retrieve(TEXT, Mode.AUTO, max_tokens=10**6).mode is expected
    # Under the triple cap but over the text's token budget: the text decides.
    whole = retriever.retrieve(TEXT, Mode.FULL, max_tokens=10**6).metrics.context_tokens
    assert whole is not None and whole > 1500
    context = retriever.retrieve(TEXT, Mode.AUTO)
    assert context.mode is Mode.VECTOR and context.metrics.token_budget == 1500
    assert retriever.retrieve(TEXT, Mode.AUTO, max_tokens=whole).mode is Mode.FULL


def test_the_token_budget_is_a_hard_limit_spent_on_what_the_text_names(
        retriever: Retriever) -> None:
    text = "A 5 mV signal from the cat in the big cage"
    roomy = retriever.retrieve(text, Mode.VECTOR, max_tokens=100_000)
    for budget in (60, 200, 600):
        context = retriever.retrieve(text, Mode.VECTOR, max_tokens=budget)
        turtle = context.serialize("turtle")
        assert context.metrics.token_budget == budget
        assert context.metrics.context_tokens == estimate_tokens(turtle) <= budget
        assert set(context.terms) <= set(roomy.terms)
    tight = retriever.retrieve(text, Mode.VECTOR, max_tokens=200)
    assert UNIT + "MilliV" in tight.terms  # the text names it: it comes first
    encoder = variant(retriever, context={"token_counter": "encoder"})
    counted = encoder.retrieve(text, Mode.VECTOR, max_tokens=150)
    count = encoder.seed_retriever.embedder.count_tokens
    assert count(counted.serialize("turtle")) <= 150
    words = retriever.retrieve(text, Mode.VECTOR, max_tokens=40,
                               count_tokens=lambda t: len(t.split()))
    assert len(words.serialize("turtle").split()) <= 40


def test_contexts_keep_english_and_untagged_literals_unless_told_otherwise(
        retriever: Retriever) -> None:
    def languages(r: Retriever) -> set[str]:
        context = r.retrieve("", Mode.FULL, max_tokens=10**6)
        return {t.object.language.split("-")[0] for t in context.triples()
                if isinstance(t.object, ox.Literal) and t.object.language}

    assert languages(retriever) == {"en"}
    assert {"de", "es", "en"} <= languages(variant(retriever, context={"languages": ["*"]}))
    assert languages(variant(retriever, context={"languages": ["de"]})) <= {"de"}


def test_empty_text_and_no_hit_are_diagnosed_not_filled_with_noise(
        retriever: Retriever) -> None:
    assert retriever.retrieve("   ", Mode.VECTOR).diagnosis is Diagnosis.NO_TEXT
    for nothing in ("\U0001F642\U0001F642", "\x00\x00 ?!", ""):  # the seeds say the same
        found = retriever.seed_retriever.seeds(nothing)
        assert found.seeds == [] and found.funnel.final_seeds == 0
    r = variant(retriever, seeds={"min_merged_max_score": 1.0})
    context = r.retrieve("Quarterly revenue grew in the bond market.", Mode.VECTOR)
    assert context.empty and context.diagnosis is Diagnosis.NO_HIT_ABOVE_FLOOR


def _sorted_lines(ntriples: str) -> list[str]:
    return sorted(ntriples.splitlines())


def test_same_context_on_embedded_store_and_oxigraph_server(
        retriever: Retriever, catalog: Path, oxigraph_server: str) -> None:
    remote = SparqlHttpStore(oxigraph_server)
    from ontoretrieve.catalog.store import Catalog

    Catalog(remote).load(catalog)
    local, served = retriever, variant(retriever, remote)
    for text in (TEXT, "A 5 mV signal for 4-15 days."):
        a, b = local.retrieve(text, Mode.VECTOR), served.retrieve(text, Mode.VECTOR)
        assert b.metrics.catalog_access_mode == "sparql"
        # Blank-node labels differ between stores; compare everything else.
        assert [t for t in _sorted_lines(a.ntriples) if "_:" not in t] == \
            [t for t in _sorted_lines(b.ntriples) if "_:" not in t]
        assert a.ntriples.count("_:") == b.ntriples.count("_:")


def test_endpoint_killed_mid_run_degrades_with_a_metric(
        retriever: Retriever, catalog: Path, tmp_path: Path) -> None:
    from tests.support import start_oxigraph_server

    process, url = start_oxigraph_server(tmp_path)
    try:
        remote = SparqlHttpStore(url)
        from ontoretrieve.catalog.store import Catalog

        Catalog(remote).load(catalog)
        served = variant(retriever, remote)
        before = served.retrieve(TEXT, Mode.VECTOR)
        assert before.metrics.catalog_access_mode == "sparql"
    finally:
        process.kill()
        process.wait()
    cached = served.retrieve(TEXT, Mode.VECTOR)  # graphs cached: the fetch level still works
    assert cached.metrics.catalog_access_mode == "full_fetch_fallback"
    assert cached.metrics.degraded and ZOO + "Cat" in cached.terms
    cold = variant(retriever, remote)
    down = cold.retrieve(TEXT, Mode.VECTOR)
    assert down.metrics.catalog_access_mode == "atoms_fallback"
    assert down.metrics.degraded and not down.empty
    assert ZOO + "Cat" in down.terms and any("unreachable" in w for w in down.warnings)


def test_hostile_iris_never_reach_a_query(indexed: tuple[Settings, OxigraphStore]) -> None:
    _, store = indexed
    reader = CatalogReader(store)
    versions = reader.versions()
    for hostile in ('http://x/a> } ; DROP ALL ; <http://x/b', 'http://x/a"', "http://x/\n}"):
        with pytest.raises(ValueError, match="not an IRI"):
            reader.referenced_versions([hostile], [versions[0].content_hash], versions)
        with pytest.raises(ValueError, match="not an IRI"):
            reader.neighbourhood([hostile], [versions[0].content_hash], 1, CatalogAccess())
    assert reader.versions() == versions  # nothing was changed


def test_hostile_literals_in_the_catalog_pass_through_intact(tmp_path: Path,
                                                             real_embedder: FastEmbedder) -> None:
    folder = tmp_path / "catalog"
    folder.mkdir()
    nasty = 'cat" } ; DROP ALL ; #\n>'
    node = ox.NamedNode(ZOO + "Cat")
    ox.serialize([ox.Triple(node, ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label"),
                            ox.Literal(nasty)),
                  ox.Triple(node, ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
                            ox.NamedNode("http://www.w3.org/2002/07/owl#Class"))],
                 str(folder / "nasty.ttl"), ox.RdfFormat.TURTLE)
    settings = load_settings(data_dir=tmp_path / "data")
    store = OxigraphStore.in_memory()
    sync_index(settings, store, catalog_path=folder, embedder=real_embedder)
    settings = settings.model_copy(update={"expand": settings.expand.model_copy(
        update={"candidate_pushdown": True})})
    context = Retriever.open(settings, store, embedder=real_embedder).retrieve("cat",
                                                                               Mode.VECTOR)
    assert nasty in {t.object.value for t in context.triples()}
    assert len(store.graph_triples(graph_name(context.snapshot.cut_from[0].content_hash))) == 2


def test_cli_retrieve_builds_the_index_then_prints_json(catalog: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    data = tmp_path / "data"
    result = runner.invoke(app, ["retrieve", TEXT, "--catalog", str(catalog), "--data-dir",
                                 str(data), "--format", "json", "--mode", "vector"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["seeds"][0]["iri"] and ZOO + "Cat" in body["terms"]
    assert body["turtle"].startswith("@prefix")
    again = runner.invoke(app, ["retrieve", "--file", str(FIXTURES / "context" / "zoo.ttl"),
                                "--data-dir", str(data), "--explain", "--mode", "vector"])
    assert again.exit_code == 0, again.output
    bad = runner.invoke(app, ["retrieve", "x", "--data-dir", str(data), "--format", "xml"])
    assert bad.exit_code == 2 and "--format 'xml'" in bad.output
    small = runner.invoke(app, ["retrieve", TEXT, "--data-dir", str(data), "--json",
                                "--mode", "vector", "--max-tokens", "120"])
    assert small.exit_code == 0, small.output
    assert json.loads(small.stdout)["metrics"]["context_tokens"] <= 120
    zero = runner.invoke(app, ["retrieve", TEXT, "--data-dir", str(data), "--max-tokens", "0"])
    assert zero.exit_code == 2


def test_cli_main_job_runs_as_a_process(catalog: Path, tmp_path: Path) -> None:
    import sys

    exe = Path(sys.executable).parent / "ontoretrieve"
    done = subprocess.run([str(exe), "retrieve", "a 5 mV signal", "--catalog", str(catalog),
                           "--data-dir", str(tmp_path / "d"), "--mode", "vector"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert UNIT + "MilliV" in done.stdout or "unit:MilliV" in done.stdout


def test_hostile_iris_from_a_tampered_index_are_left_out(retriever: Retriever) -> None:
    from ontoretrieve.records import SeedEvidence

    good = retriever._lexical_seeds("cat")[0]
    hostile = good.model_copy(update={"iri": 'http://x/a> } ; DROP ALL ; <http://x/b'})
    bad_hash = good.model_copy(update={"iri": ZOO + "Mouse", "ontology_hash": "h> } DROP ALL"})

    class Tampered(Retriever):
        def _lexical_seeds(self, text: str, scope: object = None) -> list[SeedEvidence]:
            return [hostile, bad_hash, good]

    tampered = Tampered(retriever.settings, retriever.store, retriever.index, retriever.state,
                        retriever.seed_retriever.embedder)
    context = tampered.retrieve("cat", Mode.LEXICAL)
    assert any("cannot be used in SPARQL" in w for w in context.warnings)
    assert good.iri in context.terms and context.metrics.catalog_access_mode == "sparql"
    assert tampered.reader.versions() == retriever.reader.versions()


def test_a_tight_budget_names_the_best_seed_or_says_the_budget_is_too_small(
        retriever: Retriever) -> None:
    text = "The probe recorded a 5 mV signal."
    tight = retriever.retrieve(text, Mode.AUTO, (), 70)  # under one whole stub (80)
    assert tight.terms and tight.terms[0] == UNIT + "MilliV"  # its label at least
    assert tight.metrics.context_tokens is not None and tight.metrics.context_tokens <= 70
    assert tight.diagnosis is None
    hopeless = retriever.retrieve(text, Mode.AUTO, (), 5)
    assert hopeless.terms == [] and hopeless.diagnosis is Diagnosis.BUDGET_TOO_SMALL
    assert "a budget of 5 tokens holds none of the" in hopeless.warnings[-1]


OBSOLETE = """@prefix : <http://example.org/lab#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix obo: <http://purl.obolibrary.org/obo/> .
<http://example.org/lab> a owl:Ontology .
:Thermometer a owl:Class ; rdfs:label "thermometer" ; owl:deprecated true ;
    obo:IAO_0100001 :TemperatureSensor .
:TemperatureSensor a owl:Class ; rdfs:label "temperature sensor" ;
    rdfs:comment "A sensor that measures temperature, such as a thermometer." .
:Barometer a owl:Class ; rdfs:label "barometer" ; owl:deprecated "true" .
"""


def test_deprecated_seeds_are_replaced_dropped_or_kept(tmp_path: Path,
                                                       real_embedder: FastEmbedder) -> None:
    (tmp_path / "lab.ttl").write_text(OBSOLETE)
    settings = load_settings(data_dir=tmp_path / "data")
    store = OxigraphStore.in_memory()
    sync_index(settings, store, catalog_path=tmp_path / "lab.ttl", embedder=real_embedder)
    base = Retriever.open(settings, store, embedder=real_embedder)
    try:
        text = "The thermometer and the barometer were read at noon."
        lab = "http://example.org/lab#"
        found = {}
        for policy in ("replace", "drop", "keep"):
            context = variant(base, seeds={"deprecated": policy}).retrieve(text, Mode.VECTOR)
            found[policy] = [s.iri for s in context.seeds]
        assert lab + "TemperatureSensor" in found["replace"]
        assert lab + "Thermometer" not in found["replace"] + found["drop"]
        assert lab + "Barometer" not in found["replace"] + found["drop"]
        assert {lab + "Thermometer", lab + "Barometer"} <= set(found["keep"])
        replaced = variant(base, seeds={"deprecated": "replace"}).retrieve(text, Mode.VECTOR)
        assert any("deprecated seed(s)" in w for w in replaced.warnings)
        note = next(s for s in replaced.seeds if s.iri == lab + "TemperatureSensor").notes
        assert f"replaces deprecated {lab}Thermometer" in note
        # Lookup flags a deprecated term, names its successor and ranks it last.
        found = base.lookup("thermometer", aliases={}, rule=None, limit=5).candidates
        old = next(c for c in found if c.iri == lab + "Thermometer")
        assert old.deprecated and old.replaced_by == lab + "TemperatureSensor"
        flags = [c.deprecated for c in found]
        assert flags == sorted(flags)  # current terms first
    finally:
        base.close()


OBO_LIKE = """@prefix obo: <http://purl.obolibrary.org/obo/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<http://purl.obolibrary.org/obo/xo.owl> a owl:Ontology .
obo:XO_0000001 a owl:Class ; rdfs:label "gene" .
obo:XO_0000002 a owl:Class ; rdfs:label "cistron" ; rdfs:subClassOf obo:XO_0000001 .
obo:XO_0000003 a owl:Class ; rdfs:label "transposon" ; rdfs:subClassOf obo:XO_0000001 .
obo:XO_0000004 a owl:Class ; rdfs:label "relation"@en , "relation" ;
    rdfs:subClassOf obo:XO_0000001 .
"""
"""Opaque IRIs (OBO's): a child reached by its link is a bare IRI unless it is named."""


def test_a_child_the_expansion_reaches_comes_with_its_name(
        tmp_path: Path, real_embedder: FastEmbedder) -> None:
    """Without small modules (this ontology is one), one level of expansion reaches the
    seed's children by their links; ``expand.name_reached_terms`` brings their labels (the
    untagged one of two), and off, they stay bare IRIs."""
    folder = tmp_path / "catalog"
    folder.mkdir()
    (folder / "xo.ttl").write_text(OBO_LIKE, encoding="utf-8")
    settings = load_settings(data_dir=tmp_path / "data", expand={
        "small_module_closure_max_triples": 0, "depth": 1})
    store = OxigraphStore.in_memory()
    sync_index(settings, store, catalog_path=folder, embedder=real_embedder)
    base = Retriever.open(settings, store, embedder=real_embedder)
    obo = "http://purl.obolibrary.org/obo/"
    label = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
    try:
        found: dict[bool, dict[str, list[ox.Literal]]] = {}
        for named in (True, False):
            chosen = variant(base, expand={"name_reached_terms": named})
            context = chosen.retrieve("The gene was studied.", Mode.VECTOR)
            assert next(s.iri for s in context.seeds) == obo + "XO_0000001"
            names: dict[str, list[ox.Literal]] = {}
            for t in context.triples():
                names.setdefault(t.subject.value, [])
                if t.predicate == label:
                    names[t.subject.value].append(t.object)
            found[named] = names
        children = {obo + f"XO_000000{n}" for n in (2, 3, 4)}
        assert children <= set(found[True]) and children <= set(found[False])
        assert all(found[True][c] for c in children)
        assert found[True][obo + "XO_0000004"] == [ox.Literal("relation")]
        seeded = {s.iri for s in context.seeds}
        assert all(not found[False][c] for c in children - seeded)
        assert children - seeded  # the test shows something: some child is no seed
    finally:
        base.close()
