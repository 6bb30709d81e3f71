"""The MCP server through the official SDK client over stdio (`ontoretrieve mcp`)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.support import TENANT_KEYS, assert_isolated

pytestmark = pytest.mark.integration


def _params(config: Path, tenant: str, key: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "ontoretrieve", "mcp", "--tenant", tenant, "--config", str(config)],
        env={"ONTORETRIEVE_API_KEY": key, "HF_HUB_OFFLINE": "1",
             "PATH": os.environ.get("PATH", "")})


async def _session(config: Path, tenant: str) -> dict[str, Any]:
    results: dict[str, Any] = {}
    async with Client(_params(config, tenant, TENANT_KEYS[tenant]),
                      read_timeout_seconds=120) as client:
        tools = await client.list_tools()
        results["tools"] = sorted(t.name for t in tools.tools)
        results["schemas"] = {t.name: t.input_schema if hasattr(t, "input_schema")
                              else t.inputSchema for t in tools.tools}
        results["descriptions"] = {t.name: t.description for t in tools.tools}
        calls = {
            "retrieve": {"text": "The probe recorded a 5 mV signal; a sensor observes it.",
                         "mode": "vector", "max_tokens": 200},
            "slice": {"text": "a 5 mV signal from a sensor", "max_tokens": 120},
            "lookup": {"mention": "mV"},
            "catalog_list": {},
        }
        for name, arguments in calls.items():
            result = await client.call_tool(name, arguments)
            assert not result.is_error, result.content
            results[name] = result.structured_content
            results[name + "_text"] = "".join(getattr(c, "text", "") for c in result.content)
        bad = await client.call_tool("retrieve", {"text": "x", "mode": "nonsense"})
        results["bad_mode"] = (bad.is_error, "".join(getattr(c, "text", "") for c in bad.content))
    return results


def test_tools_answer_as_json_for_their_tenant(tenant_config: Path) -> None:
    beta = anyio.run(_session, tenant_config, "beta")
    assert beta["tools"] == ["catalog_list", "lookup", "retrieve", "slice"]
    assert beta["lookup"]["candidates"][0]["iri"] == "http://qudt.org/vocab/unit/MilliV"
    assert beta["slice"]["token_estimate"] <= 120
    assert "turtle" in beta["retrieve"] and beta["retrieve"]["terms"]
    assert beta["retrieve"]["metrics"]["context_tokens"] <= 200
    assert json.loads(beta["catalog_list_text"])["ontologies"]
    assert beta["bad_mode"][0] and "nonsense" in beta["bad_mode"][1]
    assert_isolated("beta", json.dumps(beta))
    alpha = anyio.run(_session, tenant_config, "alpha")
    assert any("mini#Sensor" in t for t in alpha["retrieve"]["terms"])
    assert_isolated("alpha", json.dumps(alpha))


def test_tools_describe_their_parameters_with_enums_bounds_and_a_budget(
        tenant_config: Path) -> None:
    found = anyio.run(_session, tenant_config, "beta")
    schemas = found["schemas"]
    for name in ("retrieve", "slice", "lookup"):
        for field, schema in schemas[name]["properties"].items():
            assert schema.get("description"), (name, field)
    mode = schemas["retrieve"]["properties"]["mode"]
    enum = mode.get("enum") or next(iter(schemas["retrieve"].get("$defs", {}).values()))["enum"]
    assert set(enum) == {"auto", "vector", "full", "ontologies", "lexical"}
    assert schemas["retrieve"]["properties"]["max_tokens"]["default"] == 4000
    assert schemas["lookup"]["properties"]["limit"]["maximum"] == 100
    assert "slice" in found["descriptions"]["retrieve"]  # says which tool to call instead


def test_a_key_of_another_tenant_is_refused(tenant_config: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ontoretrieve", "mcp", "--tenant", "beta", "--config",
         str(tenant_config)], env={**os.environ, "ONTORETRIEVE_API_KEY": TENANT_KEYS["alpha"]},
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert "needs its API key" in done.stderr
    assert TENANT_KEYS["alpha"] not in done.stderr + done.stdout


def test_streamable_http_needs_the_tenants_key(tenant_config: Path, tmp_path: Path) -> None:
    import time

    import httpx
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    from tests.support import free_port

    port = free_port()
    log = (tmp_path / "mcp.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "ontoretrieve", "mcp", "--transport", "streamable-http",
         "--port", str(port), "--tenant", "beta", "--config", str(tenant_config)],
        stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                refused = httpx.post(url, json={}, timeout=5)
                break
            except httpx.HTTPError:
                assert process.poll() is None and time.monotonic() < deadline, (
                    tmp_path / "mcp.log").read_text()
                time.sleep(0.2)
        assert refused.status_code == 401
        other = httpx.post(url, json={}, headers={"X-API-Key": TENANT_KEYS["alpha"]}, timeout=5)
        assert other.status_code == 403

        async def call() -> Any:
            headers = {"Authorization": f"Bearer {TENANT_KEYS['beta']}"}
            async with httpx2.AsyncClient(headers=headers, timeout=60) as http, Client(
                    streamable_http_client(url, http_client=http)) as client:
                return (await client.call_tool("lookup", {"mention": "mV"})).structured_content

        found = anyio.run(call)
        assert found["candidates"][0]["iri"] == "http://qudt.org/vocab/unit/MilliV"
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def test_a_line_that_is_no_json_rpc_message_is_answered(tenant_config: Path) -> None:
    params = _params(tenant_config, "beta", TENANT_KEYS["beta"])
    process = subprocess.Popen([params.command, *params.args], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               env=params.env)
    assert process.stdin is not None and process.stdout is not None
    initialize = {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}
    try:
        answers = []
        for line in ("{not json", json.dumps({"hello": "world"}), json.dumps(initialize)):
            process.stdin.write(line.encode() + b"\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], 120)
            assert ready, f"no answer to {line!r}"
            answers.append(json.loads(process.stdout.readline()))
        assert answers[0]["id"] is None and answers[0]["error"]["code"] == -32700
        assert answers[1]["id"] is None and answers[1]["error"]["code"] == -32600
        assert answers[2]["id"] == 7 and "result" in answers[2]  # the session goes on
    finally:
        process.kill()
        process.wait(timeout=10)
