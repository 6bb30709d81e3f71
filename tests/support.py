"""Helpers the tests share: fixture files, sparse copies, a real oxigraph server, tenants.

Imported by tests and by ``conftest.py`` (which holds only fixtures), so no
test imports conftest as a library.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import rdflib
from tokenizers import Tokenizer

FIXTURES = Path(__file__).parent / "fixtures"


@functools.cache
def _packaged_tokenizer() -> Tokenizer:
    tokenizer = Tokenizer.from_file(str(Path(__file__).parents[1] / "ontoretrieve" / "models"
                                        / "all-MiniLM-L6-v2" / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def encoder_count(text: str) -> int:
    """Tokens of the packaged encoder's tokenizer (WordPiece), for budget property tests."""
    return len(_packaged_tokenizer().encode(text).ids)


def copy_sparse(source: str, target: str) -> str:
    """Copy one file keeping its holes (a ``shutil.copytree`` copy_function).

    Qdrant Edge preallocates its WAL and mmap pages as sparse 32 MiB files: a tiny
    index is ~3 MB on disk but ~760 MB apparent. ``shutil.copy2`` writes the holes
    out as zeros, so every test that copied the tenant template wrote ~780 MB and a
    full run filled the disk. Only the data extents are copied here (SEEK_DATA /
    SEEK_HOLE); the size is restored with ``truncate``.
    """
    with open(source, "rb") as src, open(target, "wb") as dst:
        size = os.fstat(src.fileno()).st_size
        offset = 0
        while offset < size:
            try:
                start = os.lseek(src.fileno(), offset, os.SEEK_DATA)
            except OSError:  # ENXIO: only a hole is left
                break
            end = os.lseek(src.fileno(), start, os.SEEK_HOLE)
            src.seek(start)
            dst.seek(start)
            remaining = end - start
            while remaining:
                chunk = src.read(min(remaining, 1 << 20))
                dst.write(chunk)
                remaining -= len(chunk)
            offset = end
        dst.truncate(size)
    shutil.copystat(source, target)
    return target


def copy_data_dir(source: Path, target: Path) -> None:
    """Copy a data dir (store + Edge shards) without inflating sparse files."""
    shutil.copytree(source, target, copy_function=copy_sparse)


def write_format(source: Path, target: Path, rdflib_format: str) -> Path:
    """Re-serialize ``source`` with rdflib (an independent serializer)."""
    graph = rdflib.Graph().parse(source)
    if rdflib_format in {"nquads", "trig"}:
        dataset = rdflib.Dataset()
        named = dataset.graph(rdflib.URIRef("urn:fixture:g"))
        for triple in graph:
            named.add(triple)
        dataset.serialize(target, format=rdflib_format, encoding="utf-8")
    else:
        graph.serialize(target, format=rdflib_format, encoding="utf-8")
    return target


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def oxigraph_binary() -> str:
    found = shutil.which("oxigraph") or str(Path(sys.executable).parent / "oxigraph")
    if not Path(found).exists():
        pytest.fail("the `oxigraph` server is not installed: pip install -e '.[dev]'")
    return found


def start_oxigraph_server(tmp_path: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Start a real `oxigraph serve` on a free loopback port; return it and its /query URL."""
    port = free_port()
    process = subprocess.Popen(
        [oxigraph_binary(), "serve", "--location", str(tmp_path / "oxigraph-server"),
         "--bind", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/query"
    deadline = time.monotonic() + 20
    while True:
        try:
            httpx.get(url, params={"query": "ASK {}"}, timeout=1)
            return process, url
        except httpx.HTTPError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                stderr = process.stderr.read().decode() if process.stderr else ""
                pytest.fail(f"oxigraph serve did not start: {stderr}")
            time.sleep(0.1)


ALPHA_MARK = "example.org/mini"
"""Every term of tenant alpha's catalog (mini.ttl) has this in its IRI."""
BETA_MARK = "qudt.org"
"""Every term of tenant beta's catalog (a QUDT units subset) has this in its IRI."""
TENANT_KEYS = {"alpha": "alpha-key-1", "beta": "beta-key-2", "lab": "lab-key-3"}


def write_tenant_config(data_dir: Path, target: Path) -> Path:
    """A settings file declaring alpha, beta and lab (lab includes alpha), each with a key."""
    lines = [f'data_dir = "{data_dir}"', "[server]", "watch_settle_seconds = 0.5"]
    for tenant, key in TENANT_KEYS.items():
        lines += [f"[tenants.{tenant}]", f'api_key = "{key}"']
        if tenant == "lab":
            lines.append('includes = ["alpha"]')
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def assert_isolated(tenant: str, payload: str) -> None:
    """Fail when a response of ``tenant`` names a term of a catalog it cannot read."""
    foreign = {"alpha": [BETA_MARK, "example.org/second"], "lab": [BETA_MARK],
               "beta": [ALPHA_MARK, "example.org/second"]}
    for mark in foreign[tenant]:
        assert mark not in payload, f"{tenant} saw {mark}: {payload[:300]}"


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    """Rows as a JSON Lines file (folders made as needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def write_text2kg(folder: Path) -> Path:
    """A one-ontology corpus in the Text2KGBench layout (ontologies, train, test, gold)."""
    ontology = {"id": "ont_1_university", "title": "University", "concepts": [
        {"qid": "University", "label": "University"}, {"qid": "City", "label": "City"}],
        "relations": [{"pid": "city", "label": "city", "domain": "University",
                       "range": "City"},
                      {"pid": "motto", "label": "motto", "domain": "University",
                       "range": "string"}]}
    (folder / "ontologies").mkdir(parents=True)
    (folder / "ontologies" / "1_university_ontology.json").write_text(json.dumps(ontology))
    write_jsonl(folder / "train" / "ont_1_university_train.jsonl", [
        {"id": "ont_1_university_train_1", "sent": "Uab is in Alba Iulia.",
         "triples": [{"sub": "Uab", "rel": "city", "obj": "Alba_Iulia"}]}])
    write_jsonl(folder / "test" / "ont_1_university_test.jsonl", [
        {"id": "ont_1_university_test_1", "sent": "Its motto is Lux."},
        {"id": "ont_1_university_test_2", "sent": "No ground truth for this one."}])
    write_jsonl(folder / "ground_truth" / "ont_1_university_ground_truth.jsonl", [
        {"id": "ont_1_university_test_1",
         "triples": [{"sub": "Uab", "rel": "motto", "obj": "Lux"}]}])
    return folder


def tenants_of(engine: object, payload: str) -> str:
    """A worker pool's ``setup`` (``engine.workers.EnginePool``): the engine's tenants and
    the payload, which each task then gets."""
    return f"{payload}: {', '.join(engine.tenants())}"  # type: ignore[attr-defined]


def refuse_to_start(engine: object, payload: str) -> None:
    """A worker pool's ``setup`` that fails, as a bad payload would."""
    raise ValueError(f"no such variant {payload!r}")


def task_echo(state: str, item: int) -> str:
    """A worker pool's task: the worker's state and the item."""
    return f"{state} #{item}"
