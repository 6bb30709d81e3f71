"""Benchmark: ``ontoretrieve annotate`` (batches) against the one-by-one loop, same units.

Two child processes, one after the other, on one data directory (the index
and the catalog are only read): the loop (``Engine.retrieve`` per unit, each
result written as annotate writes it) and ``ontoretrieve annotate --json``.
Each times its own loop (the model and the index open before the clock
starts). Then the rows of a fixed-seed sample are compared: context JSON
(timings and catalog-cache counters left out) and Turtle must be equal.

    python benchmarks/annotate.py ../shared/bench/units/craft.jsonl \\
        --data-dir /work/data/bench --out /work/data/annotate [--sample N] [--seed 1] \\
        [--batch 64] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

_LOOP = """
import json, sys, time
from pathlib import Path
from ontoretrieve import Engine, load_settings
from ontoretrieve.engine.annotate import ok_row, parse_units
units_path, out_path, data_dir = sys.argv[1:4]
with Engine.open(load_settings(data_dir=Path(data_dir))) as engine:
    units = list(parse_units(Path(units_path).read_text(encoding="utf-8").splitlines()))
    started = time.perf_counter()
    with open(out_path, "w", encoding="utf-8") as sink:
        for unit in units:
            row = ok_row(unit, engine.retrieve(unit.text), True)
            sink.write(json.dumps(row, ensure_ascii=False) + "\\n")
    seconds = time.perf_counter() - started
print(json.dumps({"units": len(units), "seconds": round(seconds, 3),
                  "units_per_second": round(len(units) / seconds, 3)}))
"""


def _result(row: dict[str, Any]) -> tuple[Any, ...]:
    context = {k: v for k, v in row.items() if k not in ("id", "line", "ok", "turtle")}
    context.pop("seconds", None)
    context["metrics"] = {k: v for k, v in context["metrics"].items()
                          if not k.endswith(("cache_hits", "cache_misses"))}
    return json.dumps(context, sort_keys=True), row.get("turtle")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("units", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=0, help="units to run (0: all)")
    parser.add_argument("--check", type=int, default=300, help="rows compared")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--workers", type=int, default=1, help="annotate --workers")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    lines = [line for line in args.units.read_text(encoding="utf-8").splitlines() if line]
    if args.sample:
        lines = random.Random(args.seed).sample(lines, args.sample)
    units = args.out / "units.jsonl"
    units.write_text("".join(
        json.dumps({"id": json.loads(x).get("unit_id") or json.loads(x).get("id"),
                    "text": json.loads(x)["text"]}) + "\n" for x in lines), encoding="utf-8")
    loop_out, batch_out = args.out / "loop.jsonl", args.out / "batch.jsonl"
    batch_out.unlink(missing_ok=True)
    begun = time.perf_counter()
    loop = json.loads(subprocess.run(
        [sys.executable, "-c", _LOOP, str(units), str(loop_out), str(args.data_dir)],
        check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
    loop_wall = time.perf_counter() - begun
    begun = time.perf_counter()
    done = subprocess.run(
        [str(Path(sys.executable).parent / "ontoretrieve"), "annotate", str(units), "--out",
         str(batch_out), "--data-dir", str(args.data_dir), "--batch", str(args.batch),
         "--workers", str(args.workers), "--json"], capture_output=True, text=True)
    batch_wall = time.perf_counter() - begun
    if done.returncode not in (0, 1):
        raise SystemExit(f"annotate failed ({done.returncode}): {done.stderr[-2000:]}")
    batch = json.loads(done.stdout)
    loop_rows = {r["id"]: r for r in map(json.loads, loop_out.read_text().splitlines())}
    batch_rows = {r["id"]: r for r in map(json.loads, batch_out.read_text().splitlines())}
    checked = random.Random(args.seed).sample(sorted(loop_rows), min(args.check, len(loop_rows)))
    differing = [i for i in checked if not batch_rows.get(i, {}).get("ok")
                 or _result(loop_rows[i]) != _result(batch_rows[i])]
    report = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "units": len(lines), "batch_size": args.batch, "workers": args.workers,
        "loop": {**loop, "process_wall": round(loop_wall, 1)},
        "annotate": {"units_per_second": batch["units_per_second"],
                     "seconds": batch["seconds"], "failed": batch["failed"],
                     "process_wall": round(batch_wall, 1)},
        "speedup": round(batch["units_per_second"] / loop["units_per_second"], 3),
        "checked": len(checked), "differing": differing,
    }
    (args.out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
