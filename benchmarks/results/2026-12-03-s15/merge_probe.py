"""Probe: what the catalog reader's merges cost a warm loop, and whether its views repeat.

Runs ``Engine.retrieve`` over CRAFT paragraphs shuffled with seed 1 (40 to warm, then
``TIMED``), and prints the loop's wall ms a unit, the ms a unit spent merging the
neighbour lists of nodes several versions hold (``_sorted_in``, ``_sorted_out``), and
how many distinct sets of versions the units' working graphs were made over.

    CHECKOUT=DIR python merge_probe.py DATA_DIR ../shared/bench/units/craft.jsonl 300
"""

import json
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

if os.environ.get("CHECKOUT"):  # another checkout's package: set the editable one aside
    sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f)]
    sys.path.insert(0, os.environ["CHECKOUT"])

import ontoretrieve.rdf.graph_index as graph_index
from ontoretrieve import Engine, load_settings
from ontoretrieve.catalog.reader import CatalogReader

data_dir, units_path, timed = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
spent: Counter[str] = Counter()
calls: Counter[str] = Counter()
version_sets: Counter[frozenset[str]] = Counter()


def _timed(name: str) -> None:
    inner = getattr(graph_index, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - started
            calls[name] += 1
    setattr(graph_index, name, wrapper)


for name in ("_sorted_in", "_sorted_out"):
    _timed(name)
merged = CatalogReader.merged


def counted_merged(self: CatalogReader, hashes: Any, access: Any) -> Any:
    version_sets[frozenset(hashes)] += 1
    return merged(self, hashes, access)


CatalogReader.merged = counted_merged  # type: ignore[method-assign]
lines = units_path.read_text(encoding="utf-8").splitlines()
texts = [json.loads(line)["text"] for line in lines if line]
random.Random(1).shuffle(texts)
with Engine.open(load_settings(data_dir=data_dir)) as engine:
    for text in texts[:40]:
        engine.retrieve(text)
    spent.clear()
    calls.clear()
    version_sets.clear()
    started = time.perf_counter()
    for text in texts[40:40 + timed]:
        engine.retrieve(text)
    wall = (time.perf_counter() - started) / timed * 1000
print(json.dumps({
    "units": timed, "wall_ms_per_unit": round(wall, 1),
    "merge_ms_per_unit": {k: round(v / timed * 1000, 2) for k, v in spent.items()},
    "merges_per_unit": {k: round(v / timed, 1) for k, v in calls.items()},
    "distinct_version_sets": len(version_sets),
    "versions_per_set": sorted(Counter(len(k) for k in version_sets).items())}))
