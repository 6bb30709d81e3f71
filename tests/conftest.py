"""Shared fixtures: fixture ontologies in every format, stores, a real oxigraph server.

Helpers the fixtures and the tests share live in ``tests/support.py``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import (
    FIXTURES,
    copy_data_dir,
    start_oxigraph_server,
    write_tenant_config,
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")


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


@pytest.fixture
def indexed_data_dir(tmp_path: Path, catalog_dir: Path, real_embedder) -> Path:  # type: ignore[no-untyped-def]
    """A data dir with ``catalog_dir`` loaded and indexed (the default tenant)."""
    from ontoretrieve import Engine, load_settings

    folder = tmp_path / "data"
    with Engine.open(load_settings(data_dir=folder), embedder=real_embedder) as engine:
        engine.catalog_load(catalog_dir)
    return folder


# -- tenants: two tenants with disjoint catalogs, one layered over the first ------------

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


