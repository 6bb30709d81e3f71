"""Which seeds a confidence fit learns from: a corpus is no counterexample where its
annotators had nothing to choose (benchmarks/fit_seed_confidence.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from ontoretrieve.records import SeedEvidence

SCRIPT = Path(__file__).parents[3] / "benchmarks" / "fit_seed_confidence.py"


@pytest.fixture(scope="module")
def fit_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fit_seed_confidence", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def seed(iri: str, ontology: str) -> SeedEvidence:
    return SeedEvidence(iri=iri, score=0.1, origin="retrieved", ontology_iri=ontology,
                        ontology_version=None, ontology_hash=ontology, role="resource",
                        fused_score=0.1, windows=[0], lanes=[], notes=[], fit=0.3)


def units() -> list[tuple[str, set[str], list[SeedEvidence]]]:
    paragraph = [seed("obo:lung", "obo"), seed("unit:MilliM", "unit"),
                 seed("schema:Person", "schema")]
    measurement = [seed("unit:MicroM", "unit"), seed("obo:retina", "obo"),
                   seed("qk:Length", "quantitykind")]
    return [("craft", {"obo:lung"}, paragraph), ("measeval", {"unit:MicroM"}, measurement)]


def test_each_source_annotates_the_ontologies_of_its_gold_seeds(fit_script: ModuleType
                                                                ) -> None:
    assert fit_script.annotated_ontologies(units()) == {"craft": {"obo"},
                                                        "measeval": {"unit"}}


def test_a_seed_another_corpus_would_annotate_is_left_out_of_the_fit(fit_script: ModuleType
                                                                     ) -> None:
    x, y, weights = fit_script.design(units(), None,
                                      fit_script.annotated_ontologies(units()))
    # Kept: the gold lung and MicroM, schema:Person and the quantity kind (no corpus
    # annotates them: negatives). Left out: the unit in the CRAFT paragraph, the OBO
    # term in the MeasEval one.
    assert sorted(y.tolist()) == [0.0, 0.0, 1.0, 1.0]
    assert x.shape[0] == 4 and weights.tolist() == [1.0] * 4


def test_without_the_annotated_ontologies_every_seed_is_a_row_weighted_by_source(
        fit_script: ModuleType) -> None:
    x, y, weights = fit_script.design(units(), {"measeval": 3.0})
    assert x.shape[0] == 6 and sorted(y.tolist()) == [0.0] * 4 + [1.0] * 2
    assert weights.tolist() == [1.0] * 3 + [3.0] * 3
