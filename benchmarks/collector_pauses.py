"""Benchmark: what the cyclic garbage collector costs a warm engine, and why.

A warm engine holds every catalog version it has read as a graph index; the
collector's full collections walk every tracked object alive, so their pause
grows with what those indexes keep as separate Python objects. Each run, in a
fresh process on the data directory (only read):

- ``warm``: ``--warm`` units retrieved one by one (the catalog's versions read);
- then, after one full collection: the objects the collector tracks (by type,
  the largest few), a full collection's pause (median of 3) and the resident
  memory;
- ``loop``: ``--loop`` more units one by one, every collection timed through
  ``gc.callbacks``: the young ones' count and total, the full ones' count,
  total and longest, the share of the loop spent collecting, and the loop's
  per-unit latency (p50, p99) and rate.

Every context is hashed (its JSON but timings and counters, and its Turtle);
the sides must agree, or the script stops. Sides, in turn and then in reverse
each round: this checkout's code and, with ``--before DIR``, an older
checkout's on the same venv. Each side keeps the collector's thresholds its
engine sets, unless ``--threshold N`` sets the young one to N on both (after
the engine opened), which tells the thresholds' share from the code's.

    python benchmarks/collector_pauses.py ../shared/bench/units/craft.jsonl \\
        --data-dir /work/data/bench [--warm 40] [--loop 400] [--seed 1] [--rounds 2] \\
        [--threshold 700] [--before /tmp/old] [--out report.json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import CHECKOUT_PREAMBLE, RESIDENT_MB, emit, in_turn_and_reverse, medians, stamp

_CHILD = CHECKOUT_PREAMBLE + """
import collections, gc, hashlib, json, time
from pathlib import Path
from ontoretrieve import Engine, load_settings
""" + RESIDENT_MB + """
data_dir, texts_path, warm, threshold = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
texts = json.loads(Path(texts_path).read_text(encoding="utf-8"))
digest = hashlib.sha256()
def retrieve(engine, text):
    context = engine.retrieve(text)
    digest.update(context.model_dump_json(exclude={"seconds", "metrics"}).encode())
    digest.update(context.serialize("turtle").encode())

with Engine.open(load_settings(data_dir=Path(data_dir))) as engine:
    if threshold:
        gc.set_threshold(threshold, *gc.get_threshold()[1:])
    young = gc.get_threshold()[0]
    started = time.perf_counter()
    for text in texts[:warm]:
        retrieve(engine, text)
    warm_s = time.perf_counter() - started
    gc.collect()
    tracked = gc.get_objects()
    kinds = collections.Counter(type(o).__qualname__ for o in tracked).most_common(6)
    count = len(tracked)
    del tracked
    pauses = []
    for _ in range(3):
        started = time.perf_counter()
        gc.collect()
        pauses.append(time.perf_counter() - started)
    rss = resident_mb()
    full, minor, began = [], [], [0.0]
    def timer(phase, info):
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            (full if info["generation"] == 2 else minor).append(time.perf_counter() - began[0])
    gc.callbacks.append(timer)
    latencies = []
    for text in texts[warm:]:
        started = time.perf_counter()
        retrieve(engine, text)
        latencies.append(time.perf_counter() - started)
    gc.callbacks.remove(timer)
latencies.sort()
print(json.dumps({
    "young_threshold": young, "warm_s": round(warm_s, 2), "tracked": count,
    "tracked_kinds": dict(kinds),
    "full_collection_s": round(sorted(pauses)[1], 3), "rss_mb": round(rss),
    "loop_units_per_s": round(len(latencies) / sum(latencies), 3),
    "p50_ms": round(1000 * latencies[len(latencies) // 2], 1),
    "p99_ms": round(1000 * latencies[int(len(latencies) * 0.99)], 1),
    "loop_s": round(sum(latencies), 2),
    "young_collections": len(minor), "young_collections_s": round(sum(minor), 3),
    "full_collections": len(full), "full_collections_s": round(sum(full), 3),
    "collector_share": round((sum(minor) + sum(full)) / sum(latencies), 4),
    "longest_full_s": round(max(full, default=0.0), 3),
    "contexts": digest.hexdigest()}))
"""


def _side(checkout: Path | None, data_dir: Path, texts: Path, warm: int,
          threshold: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(checkout or ""), str(data_dir), str(texts),
         str(warm), str(threshold)], check=True, capture_output=True, text=True,
        env=dict(os.environ, HF_HUB_OFFLINE="1"))
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("units", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--warm", type=int, default=40, help="units before the measures")
    parser.add_argument("--loop", type=int, default=400, help="units of the timed loop")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threshold", type=int, default=0,
                        help="the young collections' threshold on every side (0: the engine's)")
    parser.add_argument("--before", type=Path, help="a checkout of an older commit")
    parser.add_argument("--out", type=Path, help="write the report here too")
    args = parser.parse_args()
    lines = [line for line in args.units.read_text(encoding="utf-8").splitlines() if line.strip()]
    random.Random(args.seed).shuffle(lines)
    texts = [json.loads(line)["text"] for line in lines[:args.warm + args.loop]]
    sides = {"this": None, **({"before": args.before} if args.before else {})}
    runs: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
    with tempfile.TemporaryDirectory() as scratch:
        texts_file = Path(scratch) / "texts.json"
        texts_file.write_text(json.dumps(texts), encoding="utf-8")
        for side in in_turn_and_reverse(list(sides), args.rounds):
            run = _side(sides[side], args.data_dir, texts_file, args.warm, args.threshold)
            runs[side].append(run)
            print(f"{side}: {run}", file=sys.stderr)
    digests = {r["contexts"] for side in runs.values() for r in side}
    if len(digests) != 1:
        raise SystemExit(f"the sides gave different contexts: {sorted(digests)}")
    keys = ("tracked", "full_collection_s", "rss_mb", "loop_units_per_s", "p50_ms", "p99_ms",
            "young_collections", "young_collections_s", "full_collections",
            "full_collections_s", "longest_full_s", "collector_share")
    emit({**stamp(), "rounds": args.rounds, "warm": args.warm, "loop": args.loop,
          "seed": args.seed, "threshold": args.threshold, "contexts_equal": True,
          "medians": medians(runs, keys),
          "runs": runs}, args.out)


if __name__ == "__main__":
    main()
