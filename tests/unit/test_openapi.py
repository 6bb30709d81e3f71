"""The OpenAPI schema a client generator or a person reads: every operation described,
every request with an example and described fields, every error declared."""

from __future__ import annotations

from typing import Any

import pytest

from ontoretrieve import Engine, load_settings
from ontoretrieve.server.http import create_app


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    with Engine.open(load_settings(), in_memory=True) as engine:
        return create_app(engine).openapi()


def _operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, ops in schema["paths"].items()
            for method, op in ops.items()]


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    return schema["components"]["schemas"][ref.rsplit("/", 1)[1]] if ref else node


def test_every_operation_says_what_it_does(schema: dict[str, Any]) -> None:
    assert [(p, m) for p, m, op in _operations(schema) if not op.get("description")] == []


def test_every_request_body_has_an_example_and_described_fields(
        schema: dict[str, Any]) -> None:
    for path, method, op in _operations(schema):
        if method == "get":
            continue
        body = op.get("requestBody")
        assert body is not None, f"{method} {path}: no request body declared"
        (content,) = body["content"].values()
        model = _resolve(schema, content["schema"])
        assert model.get("examples") or content.get("example"), f"{method} {path}"
        undescribed = [name for name, field in model.get("properties", {}).items()
                       if "description" not in field]
        assert undescribed == [], f"{method} {path}: {undescribed}"


def test_every_tenant_route_declares_its_errors(schema: dict[str, Any]) -> None:
    for path, method, op in _operations(schema):
        if "{tenant}" not in path:
            continue
        declared = set(op["responses"])
        assert {"200", "401", "403", "404", "422"} <= declared, f"{method} {path}"
        for code, response in op["responses"].items():
            assert response.get("description"), f"{method} {path} {code}"
            if code not in ("200", "422"):
                shape = response["content"]["application/json"]["schema"]
                assert shape == {"$ref": "#/components/schemas/ErrorBody"}, (path, code)
    assert "examples" in schema["components"]["schemas"]["ErrorBody"]
