"""Shared fixtures: fixture ontologies in every format, stores, a real oxigraph server."""

from __future__ import annotations

import functools
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import rdflib
from tokenizers import Tokenizer

os.environ.setdefault("HF_HUB_OFFLINE", "1")

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


@pytest.fixture
def mini_ttl() -> Path:
    return FIXTURES / "mini.ttl"


@pytest.fixture
def catalog_dir(tmp_path: Path) -> Path:
    """A catalog folder with two good ontologies and a README (not RDF)."""
    folder = tmp_path / "catalog"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(FIXTURES / "mini.ttl", folder / "mini.ttl")
    shutil.copy(FIXTURES / "second.ttl", folder / "sub" / "second.ttl")
    (folder / "README.md").write_text("not RDF\n")
    return folder


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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _oxigraph_binary() -> str:
    found = shutil.which("oxigraph") or str(Path(sys.executable).parent / "oxigraph")
    if not Path(found).exists():
        pytest.fail("the `oxigraph` server is not installed: pip install -e '.[dev]'")
    return found


def start_oxigraph_server(tmp_path: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Start a real `oxigraph serve` on a free loopback port; return it and its /query URL."""
    port = _free_port()
    process = subprocess.Popen(
        [_oxigraph_binary(), "serve", "--location", str(tmp_path / "oxigraph-server"),
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


@pytest.fixture
def oxigraph_server(tmp_path: Path) -> Iterator[str]:
    """A real `oxigraph serve` on a free loopback port; yields its /query URL."""
    process, url = start_oxigraph_server(tmp_path)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for the packaged model, shared by every test that embeds."""
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def real_embedder(model_cache: Path):  # type: ignore[no-untyped-def]
    """The packaged all-MiniLM-L6-v2 (int8) and BM25, loaded once per session."""
    from ontoretrieve.index.embed import FastEmbedder
    from ontoretrieve.settings.groups import EmbedSettings

    return FastEmbedder(EmbedSettings(), model_cache)


# -- tenants: two tenants with disjoint catalogs, one layered over the first ------------

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


@pytest.fixture(scope="session")
def tenant_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir with the three tenants' catalogs loaded and indexed (built once)."""
    from ontoretrieve import Engine, load_settings

    root = tmp_path_factory.mktemp("tenants")
    config = write_tenant_config(root / "data", root / "ontoretrieve.toml")
    with Engine.open(load_settings(config)) as engine:
        engine.catalog_load(FIXTURES / "mini.ttl", tenant="alpha")
        engine.catalog_load(FIXTURES / "qudt-units-subset.ttl", tenant="beta")
        engine.catalog_load(FIXTURES / "second.ttl", tenant="lab")
    return root / "data"


@pytest.fixture
def tenant_config(tenant_template: Path, tmp_path: Path) -> Path:
    """A private copy of the tenant data dir and a settings file pointing at it."""
    data = tmp_path / "data"
    copy_data_dir(tenant_template, data)
    return write_tenant_config(data, tmp_path / "ontoretrieve.toml")


def assert_isolated(tenant: str, payload: str) -> None:
    """Fail when a response of ``tenant`` names a term of a catalog it cannot read."""
    foreign = {"alpha": [BETA_MARK, "example.org/second"], "lab": [BETA_MARK],
               "beta": [ALPHA_MARK, "example.org/second"]}
    for mark in foreign[tenant]:
        assert mark not in payload, f"{tenant} saw {mark}: {payload[:300]}"
