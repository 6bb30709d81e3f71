"""Where a unit's time goes, the one-by-one loop against ``retrieve_many`` (session 30).

One process, the engine's encoder and vector search on THREADS threads (1: as one of two
annotate workers), N CRAFT paragraphs sampled with seed 1, one warm-up retrieval first.
Prints wall and CPU milliseconds a unit, the contexts' own stage seconds, and the encoder's
and each lane search's milliseconds a unit (timed around the calls). Run alone:

    HF_HUB_OFFLINE=1 ONTORETRIEVE_DATA=/work/data/bench python \\
        benchmarks/results/2026-12-05-s30/stage_costs.py UNITS.jsonl N THREADS loop|batch
"""

import json
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from ontoretrieve import Engine, load_settings


def main() -> None:
    units_path, n, threads, which = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    lines = [line for line in Path(units_path).read_text().splitlines() if line]
    texts = [json.loads(line)["text"] for line in random.Random(1).sample(lines, n)]
    settings = load_settings(data_dir=Path(os.environ["ONTORETRIEVE_DATA"]))
    settings = settings.model_copy(update={
        "embed": settings.embed.model_copy(update={"threads": threads}),
        "vector_index": settings.vector_index.model_copy(update={"search_threads": threads})})
    calls: Counter[str] = Counter()
    with Engine.open(settings) as engine:
        engine.retrieve("warm up the model with one text about mice.")
        seeder = engine._retriever(engine._tenant("default")).seed_retriever
        embed, search = seeder.embedder.embed_queries, seeder.index.search

        def timed_embed(queries: Any) -> Any:
            begun = time.perf_counter()
            try:
                return embed(queries)
            finally:
                calls["encoder"] += time.perf_counter() - begun

        def timed_search(lane: Any, queries: Any, depth: int, scope: Any) -> Any:
            begun = time.perf_counter()
            try:
                return search(lane, queries, depth, scope)
            finally:
                calls[f"search {lane}"] += time.perf_counter() - begun

        seeder.embedder.embed_queries = timed_embed  # type: ignore[method-assign]
        seeder.index.search = timed_search  # type: ignore[method-assign]
        wall, cpu = time.perf_counter(), time.process_time()
        if which == "loop":
            contexts = [engine.retrieve(text) for text in texts]
        else:
            contexts = [c for i in range(0, n, 64) for c in engine.retrieve_many(texts[i:i + 64])]
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    stages: Counter[str] = Counter()
    for context in contexts:
        stages.update(context.seconds)
    per_unit = {k: round(1000 * v / n, 1) for k, v in sorted((stages + calls).items())}
    print(json.dumps({"which": which, "units": n, "threads": threads,
                      "wall_ms_per_unit": round(1000 * wall / n, 1),
                      "cpu_ms_per_unit": round(1000 * cpu / n, 1), "ms_per_unit": per_unit},
                     indent=1))


if __name__ == "__main__":
    main()
