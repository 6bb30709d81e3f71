"""Fuzzing every parser of outside input (hypothesis): a clear error or a correct result.

Catalog files in every format, settings, proposal triples,
tenant ids, upload names and query text for the pure query stages. "Clear"
means one of ontoretrieve's own errors with the place named; anything else
(a crash, a foreign exception, a hang past hypothesis' deadline) fails.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ontoretrieve.catalog.files import parse_file
from ontoretrieve.errors import (
    CatalogParseError,
    ProposalError,
    SettingsError,
    TenantError,
)
from ontoretrieve.proposals.model import parse_triples
from ontoretrieve.query.lexical import phrase_lexemes, text_tokens, unit_signal_tokens
from ontoretrieve.query.windows import make_windows_with_metrics
from ontoretrieve.settings import load_settings
from ontoretrieve.settings.groups import WindowSettings
from ontoretrieve.settings.tenants import validate_tenant_id
from tests.fuzz import SCALE

FIXTURE = (Path(__file__).parents[1] / "fixtures" / "mini.ttl").read_bytes()
FORMATS = {".ttl": ox.RdfFormat.TURTLE, ".nt": ox.RdfFormat.N_TRIPLES,
           ".nq": ox.RdfFormat.N_QUADS, ".trig": ox.RdfFormat.TRIG,
           ".rdf": ox.RdfFormat.RDF_XML, ".jsonld": ox.RdfFormat.JSON_LD, ".n3": ox.RdfFormat.N3}
SERIALIZED = {suffix: ox.serialize(ox.parse(FIXTURE, ox.RdfFormat.TURTLE), format=fmt)
              for suffix, fmt in FORMATS.items()
              if fmt not in (ox.RdfFormat.N_QUADS, ox.RdfFormat.TRIG)}
SERIALIZED[".nq"] = SERIALIZED[".nt"]
SERIALIZED[".trig"] = FIXTURE

wild_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
                    max_size=400)
# The deadline catches a hang, not slowness: examples take ~30 ms here, and a busy
# CI machine must not turn a slow example into a failure.
fuzz = settings(max_examples=200 * SCALE, deadline=10_000,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    """A real serialization with bytes cut, flipped or inserted."""
    suffix = draw(st.sampled_from(sorted(SERIALIZED)))
    data = bytearray(SERIALIZED[suffix] or b"")
    for _ in range(draw(st.integers(1, 8))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        action = draw(st.sampled_from(["flip", "cut", "insert", "truncate"]))
        if action == "flip":
            data[at] = draw(st.integers(0, 255))
        elif action == "cut":
            del data[at:at + draw(st.integers(1, 40))]
        elif action == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=20))
        else:
            del data[at:]
    return suffix, bytes(data)


@fuzz
@given(mutated())
@example((".ttl", b"\xff\xfe\x00garbage"))
@example((".rdf", b"<rdf:RDF"))
@example((".jsonld", b'{"@context": 5}'))
def test_catalog_files_parse_or_fail_with_file_line_column(tmp_path: Path,
                                                           case: tuple[str, bytes]) -> None:
    suffix, data = case
    path = tmp_path / f"fuzzed{suffix}"
    path.write_bytes(data)
    try:
        parsed = parse_file(path)
    except CatalogParseError as exc:
        assert exc.path == str(path) and exc.line >= 0 and exc.column >= 0 and exc.reason
        return
    assert parsed.content_hash and all(isinstance(t, ox.Triple) for t in parsed.triples)


setting_values = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                           st.floats(allow_nan=True), wild_text.map(lambda s: s[:40]),
                           st.lists(st.integers(), max_size=3))
setting_keys = st.sampled_from([
    ("fusion", "top_k"), ("fusion", "core_weight"), ("seeds", "max_atoms"),
    ("expand", "context_max_triples"), ("windows", "window_sentences"), ("index",
    "label_predicates"), ("server", "port"), ("server", "max_request_bytes"),
    ("store", "backend"), ("store", "query_url"), ("vector_index", "distance"),
    ("critic", "min_fused_score"), ("triggers", "min_len"), ("embed", "batch_size")])


@fuzz
@given(st.lists(st.tuples(setting_keys, setting_values), max_size=4),
       st.dictionaries(wild_text.map(lambda s: s[:12]), st.fixed_dictionaries(
           {}, optional={"includes": st.lists(wild_text.map(lambda s: s[:8]), max_size=2),
                         "api_key": wild_text.map(lambda s: s[:8])}), max_size=2))
@example([(("triggers", "min_len"), 25)], {})  # once refused without naming triggers.min_len
def test_settings_load_or_name_the_setting(pairs: list[tuple[tuple[str, str], object]],
                                           tenants: dict[str, dict[str, object]]) -> None:
    overrides: dict[str, dict[str, object]] = {}
    for (group, field), value in pairs:
        overrides.setdefault(group, {})[field] = value
    try:
        load_settings(**overrides, tenants=tenants)
    except SettingsError as exc:
        assert "invalid settings" in str(exc)
        named = [f"{g}.{f}" for (g, f), _ in pairs] + ["tenants"]
        assert any(name in str(exc) for name in named)


@fuzz
@given(st.one_of(st.text(max_size=30), st.sampled_from(["acme", "a-b_c", "../x", "A", "",
                                                       "a" * 40, "a" * 41, "x\u0000", "é"])))
def test_tenant_ids_are_valid_or_refused(tenant: str) -> None:
    try:
        assert validate_tenant_id(tenant) == tenant
    except TenantError:
        return
    assert tenant.isascii() and "/" not in tenant and "." not in tenant and len(tenant) <= 40


@fuzz
@given(st.one_of(wild_text, mutated().map(lambda case: case[1].decode("utf-8", "replace"))))
def test_proposal_triples_parse_or_name_the_line(text: str) -> None:
    try:
        triples = parse_triples(text, "add to http://x/o")
    except ProposalError as exc:
        assert str(exc).startswith("add to http://x/o, line ")
        return
    assert all(isinstance(t, ox.Triple) for t in triples)


@fuzz
@given(st.one_of(wild_text, st.text(max_size=5000),
                 st.binary(max_size=300).map(lambda b: b.decode("latin-1"))))
@example("")
@example("\x00\x01\x02 mV \u202e\u0645\u0644\u064a \u6beb\u4f0f 5\u00a0kV")
def test_query_text_through_the_pure_query_stages(text: str) -> None:
    windows, metrics = make_windows_with_metrics(text, WindowSettings(), lambda s: len(s.split()),
                                                 256)
    assert len(windows) <= WindowSettings().max_windows
    for window in windows:
        assert window.text.strip()
    assert all(isinstance(t, str) and t for t in text_tokens(text))
    assert all(p == p.casefold() for p in phrase_lexemes(text))
    json.dumps(unit_signal_tokens(text))
    assert metrics is not None


def test_a_huge_text_is_refused_before_work(tmp_path: Path) -> None:
    from ontoretrieve import Engine, TextTooLongError

    with Engine.open(load_settings(data_dir=tmp_path), in_memory=True) as engine, \
            pytest.raises(TextTooLongError, match=r"server\.max_text_chars"):
        engine.retrieve("x" * 200_001)
