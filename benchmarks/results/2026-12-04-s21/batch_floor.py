"""Usage: python batch_floor.py CRAFT.jsonl DATA_DIR UNITS

The core time a unit costs the batch path in the two steps every unit must pay, loop or
batch alike: the encoder (``embed_queries``) and the lane searches (``_prepare_searches``).
One worker's settings (one encoder and one search thread of two cores), chunks of 64 as
``annotate`` sends them, the first chunk a warm-up. On two cores no batch path can annotate
faster than 2 / (encoder + searches) units a second, whatever the rest of a unit costs.
"""

import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ontoretrieve import Engine, load_settings
from ontoretrieve.engine.annotate_workers import worker_settings
from ontoretrieve.index.embed import FastEmbedder
from ontoretrieve.query.seeder import SeedRetriever

CHUNK = 64
spent = {"encoder": 0.0, "searches": 0.0}


def timed(step: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[step] += time.process_time() - start
    return wrapped


units = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines() if line]
random.Random(1).shuffle(units)
texts = [u["text"] for u in units[: int(sys.argv[3])]]
FastEmbedder.embed_queries = timed("encoder", FastEmbedder.embed_queries)  # type: ignore[method-assign]
SeedRetriever._prepare_searches = timed("searches", SeedRetriever._prepare_searches)  # type: ignore[method-assign]
settings = worker_settings(load_settings(data_dir=Path(sys.argv[2])), 2)
with Engine.open(settings) as engine:
    engine.retrieve_many(texts[:CHUNK])
    spent.update(encoder=0.0, searches=0.0)
    cpu, wall = time.process_time(), time.perf_counter()
    for start in range(CHUNK, len(texts), CHUNK):
        engine.retrieve_many(texts[start:start + CHUNK])
    measured = len(texts) - CHUNK
    total = time.process_time() - cpu
    per_unit = {step: seconds / measured * 1000 for step, seconds in spent.items()}
    floor = per_unit["encoder"] + per_unit["searches"]
    print(json.dumps({
        "units": measured, "wall_s": round(time.perf_counter() - wall, 1),
        "cpu_ms_per_unit": round(total / measured * 1000, 1),
        **{f"{step}_cpu_ms_per_unit": round(ms, 1) for step, ms in per_unit.items()},
        "ceiling_units_per_s_on_2_cores": round(2000 / floor, 2)}))
