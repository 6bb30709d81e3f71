"""Fuzzing the surfaces with the real engine: Python API, HTTP requests, MCP tool calls.

Texts of every kind (empty, huge, binary, mixed scripts, control characters),
hostile mentions, malformed JSON bodies, headers and paths. Every answer is a
result or one of the documented errors; the HTTP API never answers 500 and
the MCP server never drops the session.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import anyio
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from ontoretrieve import Context, Engine, OntoRetrieveError, load_settings
from ontoretrieve.server.http import create_app
from tests.fuzz import SCALE
from tests.support import TENANT_KEYS, assert_isolated

pytestmark = pytest.mark.integration

wild = st.one_of(
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=300),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
    st.sampled_from(["", " ", "\x00", "mV", "5 mV for 4 days", "a sensor\u202eobserves",
                     "\u6beb\u4f0f \u0645\u0644\u064a\u0641\u0648\u0644\u062a", "x" * 5000,
                     '"} ; DROP ALL ; {"', "<http://x/a> } UNION {", "?s ?p ?o"]))
not_text = st.builds(lambda head, point, tail: head + chr(point) + tail,
                    st.text(max_size=20, alphabet=st.characters(codec="utf-8")),
                    st.integers(0xD800, 0xDFFF), st.text(max_size=20,
                                                         alphabet=st.characters(codec="utf-8")))
"""Texts with a lone surrogate: not Unicode text, refused with a message that says so."""
slow = settings(max_examples=40 * SCALE, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


@pytest.fixture(scope="module")
def engine(tenant_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    from tests.support import copy_data_dir, write_tenant_config

    root = tmp_path_factory.mktemp("fuzz")
    copy_data_dir(tenant_template, root / "data")
    config = write_tenant_config(root / "data", root / "ontoretrieve.toml")
    with Engine.open(load_settings(config)) as opened:
        yield opened


@slow
@given(text=wild, tenant=st.sampled_from(["alpha", "beta", "lab"]),
       mode=st.sampled_from(["auto", "vector", "lexical", "full"]),
       budget=st.integers(1, 3000))
def test_engine_answers_any_text(engine: Engine, text: str, tenant: str, mode: str,
                                 budget: int) -> None:
    context = engine.retrieve(text, tenant=tenant, mode=mode)
    assert isinstance(context, Context)
    assert context.empty == (context.diagnosis is not None) or mode == "full"
    assert_isolated(tenant, context.model_dump_json())
    cut = engine.slice(text, budget, tenant=tenant, mode=mode)
    assert cut.token_estimate <= budget
    try:
        found = engine.lookup(text[:200], tenant=tenant)
    except OntoRetrieveError as exc:
        assert "non-empty mention" in str(exc)  # a blank mention, said so
    else:
        assert_isolated(tenant, found.model_dump_json())


@slow
@given(text=not_text)
def test_a_lone_surrogate_is_refused_by_name(engine: Engine, text: str) -> None:
    for call in (lambda: engine.retrieve(text, tenant="beta"),
                 lambda: engine.slice(text, 100, tenant="beta"),
                 lambda: engine.lookup(text, tenant="beta"),
                 lambda: engine.retrieve_many([text], tenant="beta"),
                 lambda: engine.search(text, tenant="beta")):
        with pytest.raises(OntoRetrieveError, match=r"lone surrogate U\+D[89A-F]"):
            call()


def test_a_lone_surrogate_over_http_and_mcp_is_a_clear_error(engine: Engine) -> None:
    client = TestClient(create_app(engine), raise_server_exceptions=False)
    headers = {"Authorization": f"Bearer {TENANT_KEYS['beta']}",
               "Content-Type": "application/json"}
    for route, body in (("retrieve", b'{"text": "a \\ud800 b"}'),
                        ("slice", b'{"text": "\\udfff", "max_tokens": 50}'),
                        ("lookup", b'{"mention": "m\\ud83d"}'),
                        ("retrieve/batch", b'{"texts": ["ok", "\\ud800"]}'),
                        ("search", b'{"text": "\\udc00"}')):
        response = client.post(f"/v1/beta/{route}", content=body, headers=headers)
        assert response.status_code in (400, 422), (route, response.status_code)
        assert "surrogate" in response.json()["error"]["message"], route

    from mcp import Client

    from ontoretrieve.server.mcp import create_mcp

    async def session() -> None:
        async with Client(create_mcp(engine, "beta")) as mcp:
            for name, arguments in (("retrieve", {"text": "a\ud800"}),
                                    ("lookup", {"mention": "\udfff"})):
                result = await mcp.call_tool(name, arguments)
                text = "".join(getattr(c, "text", "") for c in result.content)
                assert result.is_error and "surrogate" in text, (name, text)

    anyio.run(session)


@pytest.mark.parametrize("text", ["", "   ", "\x00\x00", "\U0001F600\U0001F600", "?!...",
                                  "\u200b\u200b"])
def test_a_text_without_words_gets_no_context(engine: Engine, text: str) -> None:
    context = engine.retrieve(text, tenant="beta")
    assert context.empty and context.diagnosis is not None
    assert context.diagnosis.value == "no_text" and context.seeds == []
    assert engine.slice(text, 500, tenant="beta").hits == []


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(),
              st.floats(allow_nan=False, allow_infinity=False), wild),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=3), max_leaves=8)
bodies = st.one_of(
    st.fixed_dictionaries({"text": wild}, optional={"mode": wild, "max_tokens": json_values,
                                                    "ontologies": json_values}),
    st.fixed_dictionaries({"mention": wild}, optional={"limit": json_values}),
    st.dictionaries(st.text(max_size=10), json_values, max_size=4), json_values)
routes = st.sampled_from(["retrieve", "slice", "lookup", "search", "proposals/validate",
                          "proposals/apply", "proposals/rollback"])
tenants = st.one_of(st.sampled_from(["alpha", "beta", "lab", "gamma", "Alpha", "..", "%2e%2e",
                                     "a%2Fb", "default"]), st.text(max_size=12))
keys = st.one_of(st.none(), st.sampled_from(sorted(TENANT_KEYS.values())), st.text(max_size=20))


@slow
@given(route=routes, tenant=tenants, body=bodies, key=keys,
       raw=st.one_of(st.none(), st.binary(max_size=300)))
@example(route="retrieve", tenant="beta", body={"text": "x"}, key=TENANT_KEYS["beta"],
         raw=b'{"text": "unterminated')
def test_http_never_answers_500(engine: Engine, route: str, tenant: str, body: object,
                                key: str | None, raw: bytes | None) -> None:
    client = TestClient(create_app(engine), raise_server_exceptions=False)
    headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
    headers = {k: v for k, v in headers.items() if v.isascii() and "\n" not in v
               and "\r" not in v}
    path = f"/v1/{quote(tenant, safe='%')}/{route}"  # any text, as a client would send it
    response = (client.post(path, content=raw, headers=headers) if raw is not None
                else client.post(path, json=body, headers=headers))
    assert response.status_code in {200, 307, 400, 401, 403, 404, 405, 409, 413, 422}, (
        response.status_code, response.text[:300])
    data = response.json()
    if response.status_code >= 400:
        assert set(data["error"]) == {"type", "message"}
    if response.status_code == 200 and tenant in ("alpha", "beta", "lab"):
        assert_isolated(tenant, response.text)
    for secret in TENANT_KEYS.values():
        assert secret not in response.text


@settings(max_examples=40 * SCALE, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(calls=st.lists(st.tuples(
    st.sampled_from(["retrieve", "slice", "lookup", "catalog_list", "nonexistent"]),
    st.dictionaries(st.sampled_from(["text", "mention", "mode", "max_tokens", "limit", "x"]),
                    json_values, max_size=3)), min_size=1, max_size=4))
def test_mcp_tools_answer_or_fail_softly(engine: Engine,
                                         calls: list[tuple[str, dict[str, object]]]) -> None:
    from mcp import Client

    from ontoretrieve.server.mcp import create_mcp

    server = create_mcp(engine, "beta")

    async def session() -> None:
        async with Client(server) as client:
            for name, arguments in calls:
                try:
                    result = await client.call_tool(name, arguments)
                except Exception as exc:  # the SDK raises for unknown tools: still alive
                    assert "nonexistent" in name or "Unknown" in str(exc), exc
                    continue
                text = "".join(getattr(c, "text", "") for c in result.content)
                assert_isolated("beta", text + json.dumps(result.structured_content))
            assert (await client.call_tool("catalog_list", {})).is_error is False

    anyio.run(session)
