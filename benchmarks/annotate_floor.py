"""Benchmark: the most batching can gain over the one-by-one loop on this machine.

Whatever else a retrieval does, every unit's query texts go through the encoder
and every query through the lanes' searches, batch or loop: the vectors and
hits must be equal, so neither can be skipped. This measures, per unit, the
wall time the loop spends in those two (``Engine.retrieve`` per unit, the
encoder on every core) and the CPU time a batch spends in them with one
worker's share of the cores (``workers.worker_settings``), plus the
rest of each. With ``cores`` workers each running on one core, the batch's
units per second are at most ``cores / batch CPU per unit`` and the loop's
``1 / loop wall per unit``, so

    ratio <= cores * (loop floor + loop rest) / (batch floor + batch rest)

and, since the batch's floor is below the loop's, the ratio is largest when the
rest costs nothing: ``cores * loop floor / batch floor`` (the ceiling printed).

    python benchmarks/annotate_floor.py ../shared/bench/units/craft.jsonl \\
        --data-dir /work/data/bench [--sample 300] [--seed 1] [--batch 64] [--repeat 3]

Each child runs ``--repeat`` times, loop and batch in turn, and every figure is
the median of its runs (a 300-unit loop varies by 20 % from run to run here).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

_CHILD = """
import json, sys, time
from pathlib import Path
from ontoretrieve import Engine, load_settings
from ontoretrieve.backends.qdrant_edge import EdgeIndex
from ontoretrieve.engine.workers import worker_settings
from ontoretrieve.index.embed import FastEmbedder
mode, texts_path, data_dir, batch, cores = sys.argv[1:6]
texts = json.loads(Path(texts_path).read_text(encoding="utf-8"))
spent = {"encoder": [0.0, 0.0], "search": [0.0, 0.0]}

def timed(owner, name, key):
    inner = getattr(owner, name)
    def wrapper(*args, **kwargs):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[key][0] += time.perf_counter() - wall
            spent[key][1] += time.process_time() - cpu
    setattr(owner, name, wrapper)

timed(FastEmbedder, "_dense_matrix", "encoder")
timed(FastEmbedder, "sparse_queries", "encoder")
timed(EdgeIndex, "search", "search")
settings = load_settings(data_dir=Path(data_dir))
if mode == "batch":
    settings = worker_settings(settings, int(cores))
warm, timed_texts = texts[:40], texts[40:]
with Engine.open(settings) as engine:
    if mode == "loop":
        for text in warm: engine.retrieve(text)
    else:
        engine.retrieve_many(warm)
    spent = {key: [0.0, 0.0] for key in spent}
    wall, cpu = time.perf_counter(), time.process_time()
    if mode == "loop":
        for text in timed_texts: engine.retrieve(text)
    else:
        size = int(batch)
        for i in range(0, len(timed_texts), size): engine.retrieve_many(timed_texts[i:i + size])
    spent["all"] = [time.perf_counter() - wall, time.process_time() - cpu]
n = len(timed_texts)
print(json.dumps({key: {"wall_ms": round(w / n * 1000, 2), "cpu_ms": round(c / n * 1000, 2)}
                  for key, (w, c) in spent.items()}))
"""


def _run(mode: str, texts: Path, data_dir: Path, batch: int, cores: int) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", _CHILD, mode, str(texts), str(data_dir),
                           str(batch), str(cores)], check=True, capture_output=True, text=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Each figure's median over ``runs``."""
    return {key: {kind: statistics.median(run[key][kind] for run in runs)
                  for kind in runs[0][key]} for key in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("units", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=300, help="units timed (40 more warm up)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (medians)")
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    lines = [line for line in args.units.read_text(encoding="utf-8").splitlines() if line]
    picked = random.Random(args.seed).sample(lines, min(len(lines), args.sample + 40))
    cores = os.cpu_count() or 1
    loops: list[dict[str, Any]] = []
    batches: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder:
        texts = Path(folder) / "texts.json"
        texts.write_text(json.dumps([json.loads(x)["text"] for x in picked]), encoding="utf-8")
        for _ in range(args.repeat):
            loops.append(_run("loop", texts, args.data_dir, args.batch, cores))
            batches.append(_run("batch", texts, args.data_dir, args.batch, cores))
    loop, batch = _median(loops), _median(batches)
    loop_floor = loop["encoder"]["wall_ms"] + loop["search"]["wall_ms"]
    batch_floor = batch["encoder"]["cpu_ms"] + batch["search"]["cpu_ms"]
    loop_rest = loop["all"]["wall_ms"] - loop_floor
    batch_rest = batch["all"]["cpu_ms"] - batch_floor
    report = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {cores} cores, Python {platform.python_version()}",
        "units": args.sample, "seed": args.seed, "batch": args.batch, "runs": args.repeat,
        "loop_wall_ms_each_run": [run["all"]["wall_ms"] for run in loops],
        "batch_cpu_ms_each_run": [run["all"]["cpu_ms"] for run in batches],
        "loop_ms_per_unit": loop, "batch_ms_per_unit_one_share": batch,
        "loop_floor_wall_ms": round(loop_floor, 2), "batch_floor_cpu_ms": round(batch_floor, 2),
        "loop_rest_wall_ms": round(loop_rest, 2), "batch_rest_cpu_ms": round(batch_rest, 2),
        "ratio_bound_now": round(cores * (loop_floor + loop_rest)
                                 / (batch_floor + batch_rest), 2),
        "ratio_ceiling_rest_free": round(cores * loop_floor / batch_floor, 2),
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
