"""Kept version digests: read back as written; damaged or old files never used."""

from __future__ import annotations

import logging
from pathlib import Path

import pyoxigraph as ox
import pytest

from ontoretrieve.index.digest_store import DigestStore
from ontoretrieve.rdf.canonical import graph_digests

T = [ox.Triple(ox.NamedNode("http://x/s"), ox.NamedNode("http://x/p"), ox.Literal(str(n)))
     for n in range(5)]


def test_digests_read_back_under_any_name(tmp_path: Path) -> None:
    store = DigestStore(tmp_path)
    store.put("h1", graph_digests(T))  # a name that is not their hash: still theirs
    assert store.has("h1") and store.get("h1") == graph_digests(T)
    assert not store.has("h2") and store.get("h2") is None


def test_a_damaged_file_is_not_used(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = DigestStore(tmp_path)
    store.put("h1", graph_digests(T))
    path = tmp_path / "h1.digests"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING):
        assert store.get("h1") is None
    assert "damaged" in caplog.text


def test_a_file_from_before_the_format_is_made_again(tmp_path: Path) -> None:
    (tmp_path / "h1.digests").write_bytes(b"".join(graph_digests(T)))
    store = DigestStore(tmp_path)
    assert not store.has("h1") and store.get("h1") is None  # the sync writes it anew
