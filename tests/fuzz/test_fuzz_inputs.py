"""Fuzzing every parser of outside input (hypothesis): a clear error or a correct result.

Catalog files in every format, settings, proposal triples,
tenant ids, upload names and query text for the pure query stages. "Clear"
means one of ontoretrieve's own errors with the place named; anything else
(a crash, a foreign exception, a hang past hypothesis' deadline) fails.
"""

from __future__ import annotations

import json
import math
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
                           st.integers(-10**30, 10**30), st.floats(allow_nan=True),
                           st.sampled_from([float("inf"), float("-inf"), float("nan"), 1e308]),
                           wild_text.map(lambda s: s[:40]), st.lists(st.integers(), max_size=3))
"""Extreme numbers among them: an infinite weight or a top_k of 1e23 once validated and
then broke every query."""
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
        loaded = load_settings(**overrides, tenants=tenants)
    except SettingsError as exc:
        assert "invalid settings" in str(exc)
        named = [f"{g}.{f}" for (g, f), _ in pairs] + ["tenants"]
        assert any(name in str(exc) for name in named)
        return
    for group, field in {key for key, _ in pairs}:
        value = getattr(getattr(loaded, group), field)
        if isinstance(value, float):
            assert math.isfinite(value), (group, field, value)
        if isinstance(value, int) and not isinstance(value, bool):
            assert abs(value) < 2**31, (group, field, value)


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


@fuzz
@given(depth=st.integers(1, 9), fanout=st.integers(1, 12), uses=st.integers(1, 3))
def test_nested_entities_are_refused_past_their_bound_or_parsed(
        tmp_path: Path, depth: int, fanout: int, uses: int) -> None:
    from ontoretrieve.catalog.entities import MAX_ENTITY_BYTES, MAX_EXPANDED_BYTES

    levels = "".join(f'<!ENTITY e{i} "{f"&e{i - 1};" * fanout}">' for i in range(1, depth))
    body = f"&e{depth - 1};" * uses
    path = tmp_path / "entities.rdf"
    path.write_text(
        f'<?xml version="1.0"?><!DOCTYPE rdf:RDF [<!ENTITY e0 "lol">{levels}]>'
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
        'xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#"><rdf:Description '
        f'rdf:about="http://x/a"><rdfs:label>{body}</rdfs:label></rdf:Description></rdf:RDF>')
    largest = 3 * fanout ** (depth - 1)
    try:
        parsed = parse_file(path)
    except CatalogParseError as exc:
        assert largest > MAX_ENTITY_BYTES or largest * uses > MAX_EXPANDED_BYTES, exc
        assert exc.reason.startswith("refused:")
        return
    assert largest <= MAX_ENTITY_BYTES
    assert len(parsed.triples[0].object.value) == largest * uses  # expanded, and bounded


# Each example hashes three lists of up to 3,000 items (about 0.1 s); a fifth of the
# fuzz examples still reaches far past Python's recursion limit many times over.
@settings(fuzz, max_examples=40 * SCALE)
@given(length=st.integers(1, 3000), data=st.data())
def test_deep_lists_hash_by_content_never_by_depth(length: int, data: st.DataObject) -> None:
    from ontoretrieve.rdf.canonical import graph_hash

    first = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#first")
    rest = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#rest")
    nil = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#nil")

    def as_list(items: list[str], label: str) -> list[ox.Triple]:
        nodes = [ox.BlankNode(f"{label}{i}") for i in range(len(items))]
        triples = [ox.Triple(ox.NamedNode("http://x/s"), first, nodes[0])]
        for i, item in enumerate(items):
            triples += [ox.Triple(nodes[i], first, ox.Literal(item)),
                        ox.Triple(nodes[i], rest, nodes[i + 1] if i + 1 < length else nil)]
        return triples

    items = ["x"] * length
    at = data.draw(st.integers(0, length - 1))
    edited = [*items[:at], "y", *items[at + 1:]]
    assert graph_hash(as_list(items, "a")) == graph_hash(list(reversed(as_list(items, "b"))))
    assert graph_hash(as_list(items, "a")) != graph_hash(as_list(edited, "a"))


@settings(max_examples=25 * SCALE, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"),
                                           exclude_characters="/\\"), min_size=1, max_size=30)
       .filter(lambda n: not n.startswith(".") and len(n.encode()) < 200))
def test_any_file_name_loads_and_lists(tmp_path_factory: pytest.TempPathFactory,
                                      name: str) -> None:
    from typer.testing import CliRunner

    from ontoretrieve.cli import app

    root = tmp_path_factory.mktemp("names")
    (root / "catalog").mkdir()
    (root / "catalog" / f"{name}.ttl").write_bytes(FIXTURE)
    runner = CliRunner()
    data = str(root / "data")
    loaded = runner.invoke(app, ["catalog", "load", str(root / "catalog"), "--data-dir", data,
                                 "--json"])
    assert loaded.exit_code == 0, loaded.output
    assert json.loads(loaded.stdout)["added"][0]["source"].endswith(f"{name}.ttl")
    listed = runner.invoke(app, ["catalog", "list", "--data-dir", data],
                           env={"COLUMNS": "400"})
    assert listed.exit_code == 0 and "Traceback" not in listed.output, listed.output
