"""The query path with the real model on a small real catalog (QUDT units subset, SOSA)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ontoretrieve.backends import OxigraphStore
from ontoretrieve.index.build import sync_index
from ontoretrieve.index.embed import FastEmbedder
from ontoretrieve.query.seeder import SeedRetriever
from ontoretrieve.settings import load_settings
from tests.support import FIXTURES

pytestmark = pytest.mark.integration

REPO_CATALOG = Path(__file__).parents[2] / "catalog"
UNIT = "http://qudt.org/vocab/unit/"
SYMBOL_M = """@prefix qudt: <http://qudt.org/schema/qudt/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<http://qudt.org/vocab/quantitykind/Mass> a qudt:QuantityKind ; rdfs:label "Mass"@en ;
    qudt:symbol "m" .
<http://qudt.org/vocab/prefix/Milli> a qudt:DecimalPrefix, qudt:Prefix ;
    rdfs:label "Milli"@en ; qudt:symbol "m" .
"""
"""Two terms sharing the metre's symbol, neither a unit."""


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory,
              real_embedder: FastEmbedder) -> Iterator[SeedRetriever]:
    root = tmp_path_factory.mktemp("seeds")
    folder = root / "catalog"
    folder.mkdir()
    shutil.copy(FIXTURES / "qudt-units-subset.ttl", folder)
    shutil.copy(REPO_CATALOG / "w3c" / "sosa.ttl", folder)
    (folder / "symbol-m.ttl").write_text(SYMBOL_M)
    settings = load_settings(data_dir=root / "data")
    sync_index(settings, OxigraphStore.in_memory(), catalog_path=folder, embedder=real_embedder)
    opened = SeedRetriever.open(settings, embedder=real_embedder)
    yield opened
    opened.close()


def iris(result: object) -> list[str]:
    return [s.iri for s in result.seeds]  # type: ignore[attr-defined]


def test_200_kv_source_seeds_the_kilovolt(retriever: SeedRetriever) -> None:
    result = retriever.seeds("The experiment used a 200 kV source.")
    assert UNIT + "KiloV" in iris(result)
    kilovolt = next(s for s in result.seeds if s.iri == UNIT + "KiloV")
    assert kilovolt.origin in {"retrieved", "lexical_trigger", "unit_signal"}


def test_5_mv_ranks_millivolt_above_megavolt(retriever: SeedRetriever) -> None:
    result = retriever.seeds("The electrode recorded a 5 mV potential.")
    ranked = iris(result)
    assert UNIT + "MilliV" in ranked
    assert UNIT + "MegaV" not in ranked or (
        ranked.index(UNIT + "MilliV") < ranked.index(UNIT + "MegaV"))


def test_seeds_carry_evidence_and_the_funnel_adds_up(retriever: SeedRetriever) -> None:
    result = retriever.seeds("A sensor made an observation of the air temperature in "
                             "degrees Celsius. It lasted 4-15 days.")
    funnel = result.funnel
    assert funnel.windows == 1 and funnel.hits_per_lane["core"] > 0
    assert funnel.final_seeds == len(result.seeds) == (
        funnel.after_cap + funnel.added_by_triggers + funnel.added_by_unit_signals
        - funnel.case_dropped)
    retrieved = [s for s in result.seeds if s.origin == "retrieved"]
    assert retrieved and all(s.lanes and s.fused_score for s in retrieved)
    assert "http://www.w3.org/ns/sosa/Observation" in iris(result)
    assert UNIT + "DAY" in iris(result)
    assert set(result.seconds) == {"windows", "embedding", "search", "mentions", "fusion",
                                   "seeds"}


def test_nothing_relevant_gives_no_seeds(retriever: SeedRetriever) -> None:
    result = retriever.seeds("")
    assert result.seeds == [] and result.funnel.windows == 0


def test_a_number_before_a_symbol_names_the_unit_not_what_shares_its_symbol(
        retriever: SeedRetriever) -> None:
    text = "The pole is 10 m tall."
    named = {s.iri for s in retriever.seeds(text).seeds if s.mentions or s.origin == "unit_signal"}
    assert UNIT + "M" in named
    assert named.isdisjoint({"http://qudt.org/vocab/quantitykind/Mass",
                             "http://qudt.org/vocab/prefix/Milli"})
    # Without the rule the symbol names all three (what the rule takes away).
    every = SeedRetriever(retriever.settings.model_copy(update={
        "mentions": retriever.settings.mentions.model_copy(
            update={"units_after_numbers": False})}),
        retriever.index, retriever.embedder, mentions=lambda: retriever.dictionary)
    named = {s.iri for s in every.seeds(text).seeds if s.mentions or s.origin == "unit_signal"}
    assert {UNIT + "M", "http://qudt.org/vocab/quantitykind/Mass",
            "http://qudt.org/vocab/prefix/Milli"} <= named
