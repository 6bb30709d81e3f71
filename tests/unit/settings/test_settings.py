"""Settings precedence (one test per rule), reference aliases and errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from ontoretrieve.errors import SettingsError
from ontoretrieve.settings import load_settings, reference_names, setting_origins


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(__import__("os").environ):
        if name.startswith(("ONTORETRIEVE_", "VECTOR_STORE_", "ONTOLOGY_PATCH_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no stray ontoretrieve.toml


def _toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "settings.toml"
    path.write_text(text)
    return path


def test_default_is_the_reference_default() -> None:
    settings = load_settings()
    assert settings.fusion.top_k == 40
    assert settings.seeds.min_merged_max_score == 0.18
    assert settings.expand.context_max_triples == 4000


def test_file_beats_default(tmp_path: Path) -> None:
    path = _toml(tmp_path, "[fusion]\ntop_k = 30\n")
    assert load_settings(path).fusion.top_k == 30


def test_env_beats_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _toml(tmp_path, "[fusion]\ntop_k = 30\n")
    monkeypatch.setenv("ONTORETRIEVE_FUSION__TOP_K", "20")
    assert load_settings(path).fusion.top_k == 20


def test_init_beats_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ONTORETRIEVE_FUSION__TOP_K", "20")
    assert load_settings(fusion={"top_k": 10}).fusion.top_k == 10


def test_init_group_merges_with_lower_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VECTOR_STORE_FUSION_CORE_WEIGHT", "0.5")
    settings = load_settings(fusion={"top_k": 10})
    assert (settings.fusion.top_k, settings.fusion.core_weight) == (10, 0.5)


def test_reference_env_name_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VECTOR_STORE_TOP_K", "12")
    monkeypatch.setenv("ONTOLOGY_PATCH_CROSS_QUERY_MERGE_MODE", "sum_score")
    settings = load_settings()
    assert settings.fusion.top_k == 12
    assert settings.seeds.cross_query_merge_mode == "sum_score"


def test_own_env_name_beats_reference_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VECTOR_STORE_TOP_K", "12")
    monkeypatch.setenv("ONTORETRIEVE_FUSION__TOP_K", "13")
    assert load_settings().fusion.top_k == 13


def test_reference_names_in_toml(tmp_path: Path) -> None:
    path = _toml(tmp_path, 'VECTOR_STORE_LABEL_PREDICATES = "rdfs:label, skos:altLabel"\n')
    assert load_settings(path).index.label_predicates == (
        "http://www.w3.org/2000/01/rdf-schema#label",
        "http://www.w3.org/2004/02/skos/core#altLabel",
    )


def test_every_reference_default_setting_has_an_alias() -> None:
    names = reference_names()
    for expected in [
        "VECTOR_STORE_FUSION_CORE_WEIGHT", "VECTOR_STORE_FUSION_NEIGHBORHOOD_WEIGHT",
        "VECTOR_STORE_FUSION_BM25_WEIGHT", "VECTOR_STORE_FUSION_RANK_CONSTANT",
        "VECTOR_STORE_TOP_K", "VECTOR_STORE_BM25_TOP_K", "ONTOLOGY_PATCH_MIN_MERGED_MAX_SCORE",
        "ONTOLOGY_PATCH_MAX_ATOMS_BASE", "ONTOLOGY_PATCH_PER_ROLE_ATOM_FLOOR",
        "VECTOR_STORE_PROPOSITION_MAX_WINDOWS", "VECTOR_STORE_LEXICAL_TRIGGER_FUSION",
        "VECTOR_STORE_SYMBOL_CASE_MISMATCH_POLICY", "VECTOR_STORE_INDUCED_SUBGRAPH_DEPTH",
        "VECTOR_STORE_CONSISTENCY_CRITIC_MIN_FUSED_SCORE", "VECTOR_STORE_DEDUP_MODE",
        "ONTOLOGY_CONTEXT_MAX_TRIPLES", "VECTOR_STORE_MINIMAL_LABEL_LIMIT",
    ]:
        assert expected in names


def test_wrong_value_names_the_setting_and_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VECTOR_STORE_FUSION_RANK_CONSTANT", "minus one")
    with pytest.raises(SettingsError) as caught:
        load_settings()
    message = str(caught.value)
    assert "fusion.rank_constant (VECTOR_STORE_FUSION_RANK_CONSTANT)" in message
    assert "env VECTOR_STORE_FUSION_RANK_CONSTANT" in message
    assert "valid number" in message


def test_unknown_setting_is_rejected(tmp_path: Path) -> None:
    path = _toml(tmp_path, "[fusion]\ntop_kk = 3\n")
    with pytest.raises(SettingsError, match=r"fusion\.top_kk"):
        load_settings(path)


def test_mmr_with_floors_is_rejected() -> None:
    with pytest.raises(SettingsError, match="mmr_lambda"):
        load_settings(seeds={"mmr_lambda": 0.5})
    assert load_settings(seeds={"mmr_lambda": 0.5, "per_role_atom_floor": 0,
                                "per_ontology_atom_floor": 0}).seeds.mmr_lambda == 0.5


def test_bad_toml_names_the_file(tmp_path: Path) -> None:
    path = _toml(tmp_path, "[fusion\n")
    with pytest.raises(SettingsError, match=r"settings\.toml"):
        load_settings(path)


def test_origins_say_where_each_value_came_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _toml(tmp_path, "[seeds]\nmax_atoms = 50\n")
    monkeypatch.setenv("VECTOR_STORE_TOP_K", "12")
    monkeypatch.setenv("ONTORETRIEVE_DATA_DIR", "/tmp/x")
    origins = setting_origins(path, expand={"depth": 1})
    assert origins["seeds.max_atoms"] == f"file {path}"
    assert origins["fusion.top_k"] == "env VECTOR_STORE_TOP_K"
    assert origins["data_dir"] == "env ONTORETRIEVE_DATA_DIR"
    assert origins["expand.depth"] == "init"
    assert origins["fusion.core_weight"] == "default"


def test_group_level_errors_name_the_group(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ONTORETRIEVE_STORE__BACKEND", "sparql")
    with pytest.raises(SettingsError) as caught:
        load_settings()
    assert "store: " in str(caught.value) and "needs store.query_url" in str(caught.value)
    assert "from init" not in str(caught.value)


@pytest.mark.parametrize(("setting", "value", "says"), [
    ("FUSION__TOP_K", "100000000000000000000000", "is too large"),
    ("FUSION__CORE_WEIGHT", "inf", "finite number"),
    ("FUSION__RANK_CONSTANT", "inf", "finite number"),
    ("SEEDS__EVIDENCE_RATIO", "nan", "finite number"),
    ("SERVER__REQUEST_TIMEOUT_SECONDS", "-inf", "finite number"),
])
def test_extreme_numbers_are_refused_by_name(monkeypatch: pytest.MonkeyPatch, setting: str,
                                             value: str, says: str) -> None:
    # Each of these once validated and then broke every query (an overflow deep in a
    # search, every score zero, no seeds with a wrong diagnosis).
    monkeypatch.setenv(f"ONTORETRIEVE_{setting}", value)
    group, field = setting.lower().split("__")
    with pytest.raises(SettingsError, match=f"{group}.{field}.*{says}"):
        load_settings()
