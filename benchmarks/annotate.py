"""Benchmark: ``ontoretrieve annotate`` (batches) against the one-by-one loop, same units.

Two child processes, one after the other, on one data directory (the index
and the catalog are only read): the loop (``Engine.retrieve`` per unit, each
result written as annotate writes it) and ``ontoretrieve annotate --json``.
Each times its own loop (the model and the index open before the clock
starts). Then the rows of a fixed-seed sample are compared: context JSON
(timings and catalog-cache counters left out) and Turtle must be equal. Each
side's CPU per unit (its processes' user and system time, loading included) is
reported beside the CPU per unit that 3x would allow on the usable cores.

``--rounds 2`` runs loop, annotate, annotate, loop: this VM's speed drifts by
up to 20 % over minutes, and the mirrored order gives both the same share of
any steady drift. The speedup is then the ratio of the two sides' rates over
all their runs (units over seconds, summed).

    python benchmarks/annotate.py ../shared/bench/units/craft.jsonl \\
        --data-dir /work/data/bench --out /work/data/annotate [--sample N] [--seed 1] \\
        [--batch 64] [--workers auto|N] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import resource
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ontoretrieve.engine.workers import usable_cores

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


def _run_loop(units: Path, out: Path, data_dir: Path) -> dict[str, Any]:
    """The one-by-one loop in a child process: its own timing and the process's wall."""
    begun, cpu = time.perf_counter(), _children_cpu()
    loop = json.loads(subprocess.run(
        [sys.executable, "-c", _LOOP, str(units), str(out), str(data_dir)],
        check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
    return {**loop, "process_wall": round(time.perf_counter() - begun, 1),
            "process_cpu": round(_children_cpu() - cpu, 1)}


def _children_cpu() -> float:
    """User and system CPU seconds of the child processes ended so far (an annotate's
    workers count in it: it waits for them)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run_annotate(units: Path, out: Path, args: argparse.Namespace) -> dict[str, Any]:
    """``ontoretrieve annotate`` afresh (no earlier output to resume from)."""
    out.unlink(missing_ok=True)
    begun, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(
        [str(Path(sys.executable).parent / "ontoretrieve"), "annotate", str(units), "--out",
         str(out), "--data-dir", str(args.data_dir), "--batch", str(args.batch),
         "--workers", str(args.workers), "--json"], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"annotate failed ({done.returncode}): {done.stderr[-2000:]}")
    batch = json.loads(done.stdout)
    return {"units_per_second": batch["units_per_second"], "seconds": batch["seconds"],
            "failed": batch["failed"], "workers": batch["workers"],
            "process_wall": round(time.perf_counter() - begun, 1),
            "process_cpu": round(_children_cpu() - cpu, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("units", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=0, help="units to run (0: all)")
    parser.add_argument("--check", type=int, default=300, help="rows compared")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--workers", default="auto",
                        help="annotate --workers (default auto, as the command's own)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="2: loop, annotate, annotate, loop (against drift)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, not {args.rounds}")
    args.out.mkdir(parents=True, exist_ok=True)
    lines = [line for line in args.units.read_text(encoding="utf-8").splitlines() if line]
    if args.sample:
        lines = random.Random(args.seed).sample(lines, args.sample)
    units = args.out / "units.jsonl"
    units.write_text("".join(
        json.dumps({"id": json.loads(x).get("unit_id") or json.loads(x).get("id"),
                    "text": json.loads(x)["text"]}) + "\n" for x in lines), encoding="utf-8")
    loop_out, batch_out = args.out / "loop.jsonl", args.out / "batch.jsonl"
    loops: list[dict[str, Any]] = []
    batches: list[dict[str, Any]] = []
    for turn in range(args.rounds):
        for side in (("loop", "batch") if turn % 2 == 0 else ("batch", "loop")):
            if side == "loop":
                loops.append(_run_loop(units, loop_out, args.data_dir))
            else:
                batches.append(_run_annotate(units, batch_out, args))
            print(f"{side}: {(loops if side == 'loop' else batches)[-1]}", file=sys.stderr)
    loop_rows = {r["id"]: r for r in map(json.loads, loop_out.read_text().splitlines())}
    batch_rows = {r["id"]: r for r in map(json.loads, batch_out.read_text().splitlines())}
    checked = random.Random(args.seed).sample(sorted(loop_rows), min(args.check, len(loop_rows)))
    differing = [i for i in checked if not batch_rows.get(i, {}).get("ok")
                 or _result(loop_rows[i]) != _result(batch_rows[i])]
    loop_rate = sum(r["units"] for r in loops) / sum(r["seconds"] for r in loops)
    batch_rate = len(lines) * len(batches) / sum(r["seconds"] for r in batches)
    report = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "units": len(lines), "batch_size": args.batch, "workers": args.workers,
        "rounds": args.rounds,
        "loop": {"units_per_second": round(loop_rate, 3),
                 "seconds": round(sum(r["seconds"] for r in loops), 3), "runs": loops},
        "annotate": {"units_per_second": round(batch_rate, 3),
                     "seconds": round(sum(r["seconds"] for r in batches), 3),
                     "failed": max(r["failed"] for r in batches), "runs": batches},
        "speedup": round(batch_rate / loop_rate, 3),
        # CPU per unit of each side's processes (loading included), and what 3x would
        # leave annotate on this machine's cores kept fully busy: the gap is the work
        # a batch would have to share between units.
        "cpu_ms_per_unit": {side: round(1000 * sum(r["process_cpu"] for r in runs)
                                        / (len(lines) * len(runs)), 1)
                            for side, runs in (("loop", loops), ("annotate", batches))},
        "cpu_ms_per_unit_at_3x": round(1000 * usable_cores() / (3 * loop_rate), 1),
        "checked": len(checked), "differing": differing,
    }
    (args.out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
