"""Probe: what the fit order costs a unit (the core vectors of every seed, then a sort).

Times ``SeedRetriever._in_evidence_order`` inside a warm engine's loop over 200 CRAFT
paragraphs (shuffled with seed 1, after 40 to warm up):

    python order_cost.py DATA_DIR UNITS
"""

import json
import random
import sys
import time
from pathlib import Path

from ontoretrieve import Engine, load_settings
from ontoretrieve.query import seeder as seeder_module

spent: list[float] = []
seeds_seen: list[int] = []
original = seeder_module.SeedRetriever._in_evidence_order


def timed(self, seeds, mentions, window_vectors, *, scoped):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    result = original(self, seeds, mentions, window_vectors, scoped=scoped)
    spent.append(time.perf_counter() - started)
    seeds_seen.append(len(seeds))
    return result


seeder_module.SeedRetriever._in_evidence_order = timed
texts = [json.loads(line)["text"] for line in Path(sys.argv[2]).read_text().splitlines()]
random.Random(1).shuffle(texts)
with Engine.open(load_settings(data_dir=Path(sys.argv[1]))) as engine:
    for text in texts[:40]:
        engine.retrieve(text)
    spent.clear()
    seeds_seen.clear()
    for text in texts[40:240]:
        engine.retrieve(text)
spent.sort()
print(f"units {len(spent)}, seeds a unit {sum(seeds_seen) / len(seeds_seen):.1f}, "
      f"ms a unit: mean {1000 * sum(spent) / len(spent):.2f}, "
      f"median {1000 * spent[len(spent) // 2]:.2f}, p95 {1000 * spent[int(0.95 * len(spent))]:.2f}")
