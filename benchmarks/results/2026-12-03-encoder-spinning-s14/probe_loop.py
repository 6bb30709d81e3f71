"""Probe: a warm engine's loop over paragraphs (shuffled with seed 1): ms and CPU ms a unit,
mean stage ms. NOSPIN=1 turns ONNX Runtime's spinning off (``sitecustomize.py`` beside this
file); SEARCH_THREADS=N sets Edge's search threads.

    NOSPIN=1 PYTHONPATH=THIS_FOLDER python probe_loop.py DATA_DIR 200 40 \\
        ../shared/bench/units/craft.jsonl
"""

import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

from ontoretrieve import Engine, load_settings

data_dir, timed, warm, units_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
lines = Path(units_path).read_text(encoding="utf-8").splitlines()
texts = [json.loads(line)["text"] for line in lines if line]
random.Random(1).shuffle(texts)
settings = load_settings(data_dir=Path(data_dir))
if os.environ.get("SEARCH_THREADS"):
    threads = int(os.environ["SEARCH_THREADS"])
    settings = settings.model_copy(update={"vector_index": settings.vector_index.model_copy(
        update={"search_threads": threads})})
stages: dict[str, list[float]] = {}
with Engine.open(settings) as engine:
    for text in texts[:warm]:
        engine.retrieve(text)
    wall, cpu = time.perf_counter(), time.process_time()
    for text in texts[warm:warm + timed]:
        for stage, seconds in engine.retrieve(text).seconds.items():
            stages.setdefault(stage, []).append(seconds)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({"nospin": os.environ.get("NOSPIN"), "st": os.environ.get("SEARCH_THREADS"),
                  "ms_per_unit": round(1000 * wall / timed, 1),
                  "cpu_ms": round(1000 * cpu / timed, 1),
                  "stages": {k: round(1000 * statistics.mean(v), 1) for k, v in stages.items()}}))
