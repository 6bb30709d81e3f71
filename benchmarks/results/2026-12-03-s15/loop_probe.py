"""Probe: a warm engine's loop (or batches) over CRAFT paragraphs shuffled with seed 1.

Prints wall and CPU ms a unit to stderr; with OUT, writes the results as JSON (for an
equality check against another checkout's: timings and cache counters left out).

    CHECKOUT=DIR python loop_probe.py DATA_DIR UNITS loop|batch [OUT]
"""

import json
import os
import random
import sys
import time
from pathlib import Path

if os.environ.get("CHECKOUT"):  # another checkout's package: set the editable one aside
    sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f)]
    sys.path.insert(0, os.environ["CHECKOUT"])

from ontoretrieve import Engine, load_settings

data_dir, units_path, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
lines = units_path.read_text(encoding="utf-8").splitlines()
texts = [json.loads(line)["text"] for line in lines if line]
random.Random(1).shuffle(texts)
texts = texts[:340]
results = []
with Engine.open(load_settings(data_dir=data_dir)) as engine:
    for text in texts[:40]:
        engine.retrieve(text)
    wall, cpu = time.perf_counter(), time.process_time()
    if mode == "loop":
        results = [engine.retrieve(text) for text in texts[40:]]
    else:
        for start in range(40, 340, 64):
            results.extend(engine.retrieve_many(texts[start:start + 64]))
    wall_ms = (time.perf_counter() - wall) / 300 * 1000
    cpu_ms = (time.process_time() - cpu) / 300 * 1000
    print(f"{mode} wall ms/unit {wall_ms:.1f} cpu ms/unit {cpu_ms:.1f}", file=sys.stderr)


def _comparable(context: dict) -> dict:
    context.pop("seconds", None)
    context["metrics"] = {k: v for k, v in context["metrics"].items() if "cache" not in k}
    return context


if len(sys.argv) > 4:
    Path(sys.argv[4]).write_text(json.dumps(
        [_comparable(r.model_dump(mode="json")) for r in results], sort_keys=True))
