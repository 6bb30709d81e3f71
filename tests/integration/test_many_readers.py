"""Many readers beside one writer: ``serve``, ``mcp`` and the CLI on one data directory.

The writer holds the data directory (``backends.access``); every other process
reads the triple store read-only and the Edge shard through a replica
(``backends.edge_replica``), and follows the writer's changes.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ontoretrieve import Engine, load_settings
from ontoretrieve.backends.access import exclusive_lock
from ontoretrieve.backends.edge_replica import READERS_DIR
from ontoretrieve.backends.vector_index import Lane
from ontoretrieve.engine.results import CatalogListing, RetrieveResult
from ontoretrieve.errors import DataDirBusyError, VectorIndexError
from ontoretrieve.index.build import INDEX_WRITE_LOCK, open_query_index, tenant_dir
from ontoretrieve.index.embed import FastEmbedder
from tests.support import free_port

pytestmark = pytest.mark.integration

_NEW_TERM = b"""@prefix : <http://example.org/late#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<http://example.org/late> a owl:Ontology .
:Zorblatt a owl:Class ; rdfs:label "zorblatt gauge"@en .
"""


@pytest.fixture
def built(indexed_data_dir: Path) -> Path:
    return indexed_data_dir


def _env() -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if not k.startswith("ONTORETRIEVE_")},
            "HF_HUB_OFFLINE": "1"}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ontoretrieve", *args], capture_output=True,
                          text=True, timeout=300, env=_env())


@pytest.fixture
def server(built: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "ontoretrieve", "serve", "--data-dir", str(built),
         "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=_env())
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.3)
    else:
        process.kill()
        pytest.fail("serve did not start")
    try:
        yield process, url
    finally:
        process.terminate()
        process.wait(timeout=30)


def _digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_readers_share_a_replica_that_they_never_write(built: Path,
                                                       real_embedder: FastEmbedder) -> None:
    settings = load_settings(data_dir=built)
    first, state = open_query_index(settings, reader=True)
    replica = next(p for p in (tenant_dir(settings) / READERS_DIR).iterdir() if p.is_dir())
    segments = _digests(replica / "segments")
    second, _ = open_query_index(settings, reader=True)
    vectors = list(real_embedder.embed_queries(["a device that observes"]))
    hits = [index.search(Lane.CORE, vectors, 5)[0] for index in (first, second)]
    assert hits[0] and [h.point_id for h in hits[0]] == [h.point_id for h in hits[1]]
    assert first.count() == second.count() == state.points
    first.close()
    second.close()
    assert _digests(replica / "segments") == segments  # opened, searched, closed: unchanged
    assert not any((replica / "views").iterdir())      # each view removed when closed


def test_a_reader_copies_the_shard_only_between_syncs(built: Path, catalog_dir: Path,
                                                      real_embedder: FastEmbedder) -> None:
    settings = load_settings(data_dir=built)
    (catalog_dir / "late.ttl").write_bytes(_NEW_TERM)
    with Engine.open(settings, embedder=real_embedder) as writer:
        writer.catalog_load(catalog_dir)  # a new index state: a new replica is needed
    with exclusive_lock(tenant_dir(settings) / INDEX_WRITE_LOCK), \
            pytest.raises(VectorIndexError, match="being written by another process"):
        open_query_index(settings, reader=True, wait_seconds=0.2)
    index, _ = open_query_index(settings, reader=True, wait_seconds=0.2)  # sync over
    index.close()


def test_serve_mcp_and_the_cli_read_one_data_dir_while_serve_writes(
        server: tuple[subprocess.Popen[str], str], built: Path, catalog_dir: Path,
        real_embedder: FastEmbedder) -> None:
    process, url = server
    # The server answers first, so it holds the shard and the store.
    assert httpx.post(f"{url}/v1/default/lookup", json={"mention": "sensor"},
                      timeout=60).status_code == 200
    listed = _cli("catalog", "list", "--json", "--data-dir", str(built))
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)["ontologies"]) == 2
    status = _cli("index", "status", "--json", "--data-dir", str(built))
    assert status.returncode == 0 and json.loads(status.stdout)["atoms"] > 0, status.stderr
    seeds = _cli("seeds", "a sensor observes a property", "--json", "--data-dir", str(built))
    assert seeds.returncode == 0, seeds.stderr
    found = {s["iri"] for s in json.loads(seeds.stdout)["seeds"]}
    assert "http://example.org/mini#Sensor" in found
    assert "mini#Sensor" in asyncio.run(_mcp_lookup(built, "sensor"))

    # A second writer is told who writes, with exit code 2 and no traceback.
    refused = _cli("catalog", "load", str(catalog_dir), "--data-dir", str(built))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert f"PID {process.pid} (" in refused.stderr and "busy" in refused.stderr

    # A reader in this process follows what the server writes.
    settings = load_settings(data_dir=built)
    with Engine.open(settings, embedder=real_embedder) as reader:
        assert not reader.writable
        assert not _finds(reader, "zorblatt gauge")
        with pytest.raises(DataDirBusyError, match=f"PID {process.pid}"):
            reader.catalog_load(catalog_dir)
        uploaded = httpx.put(f"{url}/v1/default/catalog/files/late.ttl", content=_NEW_TERM,
                             timeout=120)
        assert uploaded.status_code == 200, uploaded.text
        assert _finds(reader, "zorblatt gauge")
        assert len(reader.catalog_list()) == 3


def _finds(engine: Engine, mention: str) -> bool:
    return any(c.iri == "http://example.org/late#Zorblatt"
               for c in engine.lookup(mention).candidates)


async def _mcp_lookup(data_dir: Path, mention: str) -> str:
    return json.dumps((await _mcp_calls(data_dir, [("lookup", {"mention": mention})]))[0])


async def _mcp_calls(data_dir: Path, calls: list[tuple[str, dict[str, Any]]]
                     ) -> list[dict[str, Any]]:
    """The JSON each tool call answers, from one ``ontoretrieve mcp`` over stdio."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ontoretrieve", "mcp", "--data-dir", str(data_dir)],
        env=_env())
    answers = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            assert not result.is_error, result.content
            answers.append(json.loads(result.content[0].text))  # type: ignore[union-attr]
    return answers


def test_one_result_schema_on_the_cli_http_and_mcp(
        server: tuple[subprocess.Popen[str], str], built: Path) -> None:
    _, url = server
    text, budget = "a sensor observes a property", 4000
    over_http = httpx.post(f"{url}/v1/default/retrieve",
                           json={"text": text, "max_tokens": budget}, timeout=60).json()
    cli = _cli("retrieve", text, "--format", "json", "--max-tokens", str(budget),
               "--data-dir", str(built))
    assert cli.returncode == 0, cli.stderr
    on_cli = json.loads(cli.stdout)
    on_mcp, listed_mcp = asyncio.run(_mcp_calls(built, [
        ("retrieve", {"text": text, "max_tokens": budget}), ("catalog_list", {})]))
    for answer in (over_http, on_cli, on_mcp):
        RetrieveResult.model_validate(answer)  # the one schema, no field missing or extra
        assert set(answer) == set(RetrieveResult.model_fields) and answer["schema_version"] == 1
        assert "ntriples" not in answer and "context" not in answer  # the graph once
    assert over_http["terms"] == on_cli["terms"] == on_mcp["terms"]
    assert over_http["turtle"] == on_cli["turtle"] == on_mcp["turtle"]
    listed_cli = json.loads(_cli("catalog", "list", "--json", "--data-dir", str(built)).stdout)
    listed_http = httpx.get(f"{url}/v1/default/catalog", timeout=60).json()
    for listing in (listed_cli, listed_http, listed_mcp):
        assert set(listing) == set(CatalogListing.model_fields)
    assert listed_cli == listed_http == listed_mcp


@pytest.fixture
def read_only(built: Path, tmp_path: Path) -> Iterator[Path]:
    """The built data dir, read-only: a read-only bind mount where this process may
    mount (root), else its folders without write permission (any other user)."""
    view = tmp_path / "read-only"
    view.mkdir()
    mounted = subprocess.run(["mount", "--bind", "-o", "ro", str(built), str(view)],
                             capture_output=True).returncode == 0
    if not mounted:
        view.rmdir()
        view = built
        for folder in [built, *(p for p in built.rglob("*") if p.is_dir())]:
            folder.chmod(0o555)
    try:
        if os.access(view, os.W_OK):
            pytest.skip("no way to make a folder read-only for this user here")
        yield view
    finally:
        if mounted:
            subprocess.run(["umount", str(view)], check=True)
        else:
            for folder in [built, *(p for p in built.rglob("*") if p.is_dir())]:
                folder.chmod(0o755)


def test_a_read_only_data_dir_answers_reads_and_refuses_writes_by_name(
        read_only: Path, mini_ttl: Path) -> None:
    before = _digests(read_only)
    retrieved = _cli("retrieve", "a sensor observes it", "--data-dir", str(read_only),
                     "--format", "json")
    assert retrieved.returncode == 0, retrieved.stderr
    assert "mini#Sensor" in retrieved.stdout and "Traceback" not in retrieved.stderr
    looked = _cli("lookup", "sensor", "--data-dir", str(read_only), "--json")
    assert looked.returncode == 0 and "mini#Sensor" in looked.stdout, looked.stderr
    for write in (["catalog", "load", str(mini_ttl)], ["index"]):
        refused = _cli(*write, "--data-dir", str(read_only))
        assert refused.returncode == 2, refused.stderr
        assert "cannot be written" in refused.stderr and "Traceback" not in refused.stderr
    with Engine.open(load_settings(data_dir=read_only)) as engine:
        assert not engine.writable
        assert "mini#Sensor" in engine.retrieve("a sensor observes it").ntriples
    assert _digests(read_only) == before  # nothing written, nothing lost
