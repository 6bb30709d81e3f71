"""The HTTP API through a real uvicorn process (`ontoretrieve serve`) on loopback."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support import FIXTURES, TENANT_KEYS, assert_isolated, free_port

pytestmark = pytest.mark.integration


def _start(config: Path, tmp_path: Path, env: dict[str, str] | None = None
           ) -> tuple[subprocess.Popen[bytes], httpx.Client]:
    port = free_port()
    log = (tmp_path / "server.log").open("ab")
    process = subprocess.Popen(
        [sys.executable, "-m", "ontoretrieve", "serve", "--config", str(config),
         "--port", str(port)], stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {})})
    log.close()
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60)
    deadline = time.monotonic() + 60
    while True:
        try:
            client.get("/health")
            return process, client
        except httpx.HTTPError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail("serve did not start: " + (tmp_path / "server.log").read_text())
            time.sleep(0.2)


def _stop(process: subprocess.Popen[bytes], client: httpx.Client, tmp_path: Path) -> None:
    client.close()
    process.terminate()
    process.wait(timeout=20)
    logged = (tmp_path / "server.log").read_text()
    assert not any(key in logged for key in TENANT_KEYS.values())  # no key in the log


@pytest.fixture
def server(tenant_config: Path, tmp_path: Path) -> Iterator[httpx.Client]:
    process, client = _start(tenant_config, tmp_path)
    try:
        yield client
    finally:
        _stop(process, client, tmp_path)


def _key(tenant: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TENANT_KEYS[tenant]}"}


def test_every_route_answers_its_tenant_only(server: httpx.Client) -> None:
    for tenant in ("alpha", "beta", "lab"):
        for text in ("a 5 mV signal for 4 days", "a sensor observes a property"):
            for mode in ("auto", "vector", "lexical"):
                r = server.post(f"/v1/{tenant}/retrieve", json={"text": text, "mode": mode},
                                headers=_key(tenant))
                assert r.status_code == 200, r.text
                assert_isolated(tenant, r.text)
            r = server.post(f"/v1/{tenant}/slice", json={"text": text, "max_tokens": 150},
                            headers=_key(tenant))
            assert r.status_code == 200 and r.json()["token_estimate"] <= 150
            assert_isolated(tenant, r.text)
            r = server.post(f"/v1/{tenant}/retrieve", json={"text": text, "max_tokens": 90},
                            headers=_key(tenant))
            metrics = r.json()["metrics"]
            assert r.status_code == 200 and metrics["token_budget"] == 90
            assert metrics["context_tokens"] <= 90
        for path in ("catalog", "index", "metrics"):
            r = server.get(f"/v1/{tenant}/{path}", headers=_key(tenant))
            assert r.status_code == 200, r.text
            assert_isolated(tenant, r.text)
        r = server.post(f"/v1/{tenant}/lookup", json={"mention": "mV"}, headers=_key(tenant))
        assert_isolated(tenant, r.text)
    beta = server.post("/v1/beta/lookup", json={"mention": "mV"}, headers=_key("beta")).json()
    assert beta["candidates"][0]["iri"] == "http://qudt.org/vocab/unit/MilliV"
    assert beta["ambiguous"] is False


def test_batch_retrieve_answers_as_retrieve_does_in_its_tenant(server: httpx.Client) -> None:
    texts = ["a 5 mV signal for 4 days", "a sensor observes a property", "mV"]
    for tenant in ("alpha", "beta"):
        r = server.post(f"/v1/{tenant}/retrieve/batch", json={"texts": texts},
                        headers=_key(tenant))
        assert r.status_code == 200, r.text
        assert_isolated(tenant, r.text)
        results = r.json()["results"]
        assert len(results) == len(texts)
        for text, result in zip(texts, results, strict=True):
            single = server.post(f"/v1/{tenant}/retrieve", json={"text": text},
                                 headers=_key(tenant)).json()
            assert result["turtle"] == single["turtle"]
            assert result["terms"] == single["terms"]
    # With their document: one that defines nothing they use answers as without it.
    r = server.post("/v1/beta/retrieve/batch", headers=_key("beta"), json={
        "texts": texts, "document": "A paper (AP) on sensors. " + " ".join(texts)})
    assert r.status_code == 200, r.text
    assert [x["terms"] for x in r.json()["results"]] == [x["terms"] for x in results]
    r = server.post("/v1/beta/retrieve", headers=_key("beta"),
                    json={"text": "mV", "document": "x" * 200_001})
    assert r.status_code == 413 and "the document" in r.json()["error"]["message"]
    r = server.post("/v1/beta/retrieve/batch", json={"texts": []}, headers=_key("beta"))
    assert r.status_code == 422
    assert server.post("/v1/beta/retrieve/batch", json={"texts": ["mV"]},
                       headers=_key("alpha")).status_code == 403


def test_a_key_reaches_its_own_tenant_only(server: httpx.Client) -> None:
    body = {"mention": "mV"}
    assert server.post("/v1/beta/lookup", json=body).status_code == 401
    assert server.post("/v1/beta/lookup", json=body,
                       headers={"X-API-Key": "not-a-key"}).status_code == 401
    for tenant, other in (("beta", "alpha"), ("alpha", "beta"), ("lab", "alpha")):
        r = server.post(f"/v1/{tenant}/lookup", json=body, headers=_key(other))
        assert r.status_code == 403
        assert_isolated(tenant, r.text)
        assert TENANT_KEYS[other] not in r.text
    # an unknown tenant looks the same as a forbidden one to a valid key
    assert server.get("/v1/gamma/catalog", headers=_key("beta")).status_code == 403
    assert server.post("/v1/beta/lookup", json=body,
                       headers={"X-API-Key": TENANT_KEYS["beta"]}).status_code == 200


def test_limits_errors_and_schema(server: httpx.Client) -> None:
    big = {"text": "x" * 1_100_000}
    r = server.post("/v1/beta/retrieve", json=big, headers=_key("beta"))
    assert r.status_code == 413 and r.json()["error"]["type"] == "request_too_large"

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit holds while streaming
        for _ in range(40):
            yield b"<urn:a> <urn:p> " + b"1" * 50_000 + b" .\n"

    r = server.put("/v1/beta/catalog/files/huge.nt", content=chunks(), headers=_key("beta"))
    assert r.status_code == 413
    r = server.post("/v1/beta/slice", json={"text": "mV", "max_tokens": 0},
                    headers=_key("beta"))
    assert r.status_code == 422
    assert r.json()["error"]["message"].startswith("body.max_tokens:")
    # A body of bytes that are not UTF-8 (found by the fuzzer: FastAPI's own handler
    # crashed echoing it): a 422 naming the body, the bytes not echoed.
    r = server.post("/v1/beta/retrieve", content=b"\x80\xff", headers=_key("beta"))
    assert r.status_code == 422 and r.json()["error"]["type"] == "invalid_request"
    r = server.post("/v1/beta/lookup", json={"mention": "  "}, headers=_key("beta"))
    assert r.status_code == 400 and "mention" in r.json()["error"]["message"]
    schema = server.get("/openapi.json").json()
    assert {"/v1/{tenant}/retrieve", "/v1/{tenant}/slice", "/v1/{tenant}/lookup",
            "/v1/{tenant}/catalog", "/v1/{tenant}/index", "/health"} <= set(schema["paths"])
    assert server.get("/health").json()["status"] == "ok"


def test_catalog_upload_loads_and_indexes_at_once(server: httpx.Client) -> None:
    content = (FIXTURES / "second.ttl").read_bytes()
    r = server.put("/v1/beta/catalog/files/second.ttl", content=content, headers=_key("beta"))
    assert r.status_code == 200, r.text
    assert r.json()["index"]["atoms_embedded"] > 0
    found = server.post("/v1/beta/retrieve", json={"text": "thing two", "mode": "vector"},
                        headers=_key("beta")).json()
    assert "http://example.org/second#Thing2" in found["terms"]
    # alpha does not see what beta uploaded
    r = server.post("/v1/alpha/retrieve", json={"text": "thing two", "mode": "vector"},
                    headers=_key("alpha"))
    assert "second#Thing2" not in r.text
    bad = server.put("/v1/beta/catalog/files/evil.sh", content=b"x", headers=_key("beta"))
    assert bad.status_code == 400
    broken = server.put("/v1/beta/catalog/files/broken.ttl",
                        content=(FIXTURES / "broken.ttl").read_bytes(), headers=_key("beta"))
    assert broken.status_code == 400
    assert broken.json()["error"]["message"].startswith("broken.ttl:")
    listed = server.get("/v1/beta/catalog", headers=_key("beta")).json()["ontologies"]
    assert not any(v["source"].endswith("broken.ttl") for v in listed)


def test_a_request_over_the_time_limit_gets_504(tenant_config: Path, tmp_path: Path) -> None:
    process, client = _start(tenant_config, tmp_path,
                             {"ONTORETRIEVE_SERVER__REQUEST_TIMEOUT_SECONDS": "0.001"})
    try:
        r = client.post("/v1/beta/retrieve", json={"text": "a 5 mV signal"},
                        headers=_key("beta"))
        assert r.status_code == 504 and r.json()["error"]["type"] == "timeout"
        assert client.get("/health").status_code == 200  # the server lives on
    finally:
        _stop(process, client, tmp_path)


def test_a_write_over_its_time_limit_says_it_goes_on(tenant_config: Path,
                                                      tmp_path: Path) -> None:
    process, client = _start(tenant_config, tmp_path,
                             {"ONTORETRIEVE_SERVER__WRITE_TIMEOUT_SECONDS": "0.001"})
    try:
        r = client.put("/v1/beta/catalog/files/second.ttl",
                       content=(FIXTURES / "second.ttl").read_bytes(), headers=_key("beta"))
        assert r.status_code == 504 and r.json()["error"]["type"] == "write_in_progress"
        assert "goes on and will be applied" in r.json()["error"]["message"]
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # and so it is: the upload lands
            listed = client.get("/v1/beta/catalog", headers=_key("beta")).json()["ontologies"]
            if any(v["source"].endswith("second.ttl") for v in listed):
                break
            time.sleep(0.5)
        else:
            pytest.fail("the upload answered 504 never landed")
        assert client.post("/v1/beta/lookup", json={"mention": "mV"},
                           headers=_key("beta")).status_code == 200
    finally:
        _stop(process, client, tmp_path)


def test_proposals_over_http(server: httpx.Client) -> None:
    mini = "http://example.org/mini"
    listed = server.get("/v1/alpha/catalog", headers=_key("alpha")).json()["ontologies"]
    base = next(v["content_hash"] for v in listed if v["ontology_iri"] == mini)
    owl, rdfs = "http://www.w3.org/2002/07/owl#", "http://www.w3.org/2000/01/rdf-schema#"
    good = {"updates": [{"ontology_iri": mini, "base_hash": base,
                         "add": f"<{mini}#Hygrometer> a <{owl}Class> ; <{rdfs}label> \"h\" ."}]}
    bad = {"updates": [{"ontology_iri": mini, "base_hash": base,
                        "add": f"<{mini}#Gauge> a <{owl}Class> ."}]}
    checked = server.post("/v1/alpha/proposals/validate", json=good, headers=_key("alpha"))
    assert checked.status_code == 200 and checked.json()["conforms"] is True
    rejected = server.post("/v1/alpha/proposals/apply", json=bad, headers=_key("alpha"))
    assert rejected.status_code == 422
    assert rejected.json()["report"]["violations"][0]["shape"].endswith("#ClassHasLabel")
    # another tenant's key cannot write alpha's catalog
    assert server.post("/v1/alpha/proposals/apply", json=good,
                       headers=_key("beta")).status_code == 403
    applied = server.post("/v1/alpha/proposals/apply", json=good, headers=_key("alpha"))
    assert applied.status_code == 200, applied.text
    back = server.post("/v1/alpha/proposals/rollback", json={"ontology_iri": mini},
                       headers=_key("alpha"))
    assert back.status_code == 200 and back.json()["restored"]["content_hash"] == base


def test_the_docs_pages_load_nothing_from_another_host(server: httpx.Client) -> None:
    # Offline, a page that loads Swagger UI from a CDN is blank: every script,
    # stylesheet and icon of /docs and /redoc must come from the server itself.
    for page in ("/docs", "/redoc"):
        html = server.get(page)
        assert html.status_code == 200
        assets = re.findall(r"""(?:src|href)\s*[=:]\s*['"]([^'"]+)['"]""", html.text)
        assert assets and not [a for a in assets if "://" in a or a.startswith("//")], page
        for asset in assets:
            served = server.get(asset)
            assert served.status_code == 200 and served.content, asset
    assert "SwaggerUIBundle" in server.get("/docs").text


def _open(client: httpx.Client) -> socket.socket:
    port = int(str(client.base_url).rstrip("/").rsplit(":", 1)[1])
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def _closed_within(connection: socket.socket, seconds: float) -> bool:
    """The server closed the connection (EOF) within ``seconds``."""
    connection.settimeout(seconds)
    try:
        return connection.recv(1024) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_slow_and_half_open_clients_are_let_go(tenant_config: Path, tmp_path: Path) -> None:
    process, client = _start(tenant_config, tmp_path,
                             {"ONTORETRIEVE_SERVER__READ_DEADLINE_SECONDS": "1.5"})
    try:
        silent = _open(client)  # connects and sends nothing
        trickle = _open(client)  # sends its head a few bytes at a time
        head = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 40
        started = time.monotonic()
        for i in range(0, len(head), 4):
            try:
                trickle.sendall(head[i:i + 4])
            except OSError:
                break
            time.sleep(0.1)
        assert _closed_within(silent, 5) and _closed_within(trickle, 5)
        assert time.monotonic() - started < 8
        # A client that sends in time is answered, again and again on one connection.
        assert client.get("/health").status_code == 200
        assert client.get("/health").status_code == 200
        idle_then_ask = _open(client)
        time.sleep(0.5)
        idle_then_ask.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert idle_then_ask.recv(1024).startswith(b"HTTP/1.1 200")
        for connection in (silent, trickle, idle_then_ask):
            connection.close()
    finally:
        _stop(process, client, tmp_path)
