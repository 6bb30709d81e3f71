"""A sync killed mid-way leaves the previous index usable; the next one finishes."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ontoretrieve.backends import OxigraphStore
from ontoretrieve.backends.vector_index import Lane
from ontoretrieve.index.build import open_query_index, sync_index
from ontoretrieve.index.embed import FastEmbedder
from ontoretrieve.settings import load_settings
from tests.support import FIXTURES

pytestmark = pytest.mark.integration

REPO_CATALOG = Path(__file__).parents[2] / "catalog"


def test_kill_mid_index(tmp_path: Path, real_embedder: FastEmbedder) -> None:
    data = tmp_path / "data"
    folder = tmp_path / "catalog"
    folder.mkdir()
    shutil.copy(FIXTURES / "mini.ttl", folder)
    settings = load_settings(data_dir=data)
    store_path = data / "oxigraph"
    store = OxigraphStore.open(store_path)
    _, before = sync_index(settings, store, catalog_path=folder, embedder=real_embedder)
    store.close()

    for name in ["w3c/time.ttl", "w3c/sosa.ttl", "w3c/ssn.ttl", "qudt/SCHEMA_QUDT.ttl"]:
        shutil.copy(REPO_CATALOG / name, folder)
    state_path = data / "index" / "default" / "state.json"
    child = subprocess.Popen(
        [sys.executable, "-m", "ontoretrieve", "index", "--catalog", str(folder),
         "--data-dir", str(data), "--json"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    deadline = time.monotonic() + 240
    killed_with: dict[str, object] = {}
    while time.monotonic() < deadline and child.poll() is None:
        state = json.loads(state_path.read_text())
        if len(state["ontologies"]) >= 2 and state["pending"]:
            child.send_signal(signal.SIGKILL)
            killed_with = state
            break
        time.sleep(0.05)
    child.wait(timeout=30)
    assert killed_with, "the sync finished before it could be killed"
    assert child.returncode == -signal.SIGKILL

    # The state on disk is whole and says what was left pending.
    state = json.loads(state_path.read_text())
    assert state["pending"] and len(state["ontologies"]) >= 2
    done_before_kill = len(state["ontologies"])

    # The previous index still opens and answers.
    index, _ = open_query_index(settings)
    hits = index.search(Lane.CORE, list(real_embedder.embed_queries(["sensor device"])), 3)
    assert any(h.payload["iri"].startswith("http://example.org/mini") for h in hits[0])
    index.close()

    # The next sync completes exactly the remaining work.
    store = OxigraphStore.open(store_path)
    _, after = sync_index(settings, store, embedder=real_embedder)
    store.close()
    assert after.ontologies_added == 5 - done_before_kill
    final = json.loads(state_path.read_text())
    assert final["pending"] == [] and len(final["ontologies"]) == 5
    assert after.atoms_total == sum(o["atoms"] for o in final["ontologies"].values())
    assert after.atoms_total > before.atoms_total
