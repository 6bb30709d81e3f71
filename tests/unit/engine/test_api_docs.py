"""The Python API explains itself: every public Engine call that can fail says how."""

from __future__ import annotations

import inspect

from ontoretrieve import Engine

TRIVIAL = {"close", "tenants", "embedder", "metrics", "upload_dir", "adapters"}
"""Calls that only read this object's own state (or close it)."""
ASYNC_TWINS = {"aretrieve", "aretrieve_many", "aslice", "alookup", "adocuments"}
"""Each says it is its blocking twin without blocking: same options, same errors."""


def test_every_public_call_documents_what_it_raises() -> None:
    missing = []
    for name, function in inspect.getmembers(Engine, predicate=inspect.isfunction):
        if name.startswith("_") or name in TRIVIAL:
            continue
        doc = inspect.getdoc(function) or ""
        if name in ASYNC_TWINS:
            assert "without blocking the event loop" in doc, name
            continue
        if "Raises:" not in doc or len(doc.splitlines()) < 3:
            missing.append(name)
    assert missing == []
