"""Benchmark: one ``ontoretrieve retrieve`` in a fresh process, as a CLI user runs it.

Each run is a new process over the same data directory (the model, the index
and the catalog graphs it needs are read anew), timed from outside (GNU time: wall,
CPU, peak RSS) and from inside (the result's per-stage seconds). Sides, in turn
and then in reverse each round, against the VM's drift:

- ``decoded``: no kept graph statements (``oxigraph.statements/`` removed
  before the run), so every graph is decoded from the store, as before they
  were kept; the run keeps them again;
- ``kept``: the statements kept by the run before;
- ``before`` (with ``--before DIR``, a checkout of an older commit): that
  code on the same venv, for a comparison across commits; on a copy of the
  data directory with ``--before-data-dir`` (when the two commits keep files
  under different names, each side then keeps its own instead of replacing
  the other's).

``--sides`` picks some of them (``kept,before``). Each side runs once
uncounted first, so every counted run finds the files its code keeps.

Every run's context must be the same (timings left out); the script stops
if one differs.

    python benchmarks/cold_start.py ../shared/bench/units/craft.jsonl \\
        --data-dir /work/data/bench [--unit 0] [--rounds 3] [--before /tmp/old] \\
        [--before-data-dir /work/data/bench_copy] [--sides kept,before]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import CHECKOUT_PREAMBLE, emit, in_turn_and_reverse, stamp

_FROM = CHECKOUT_PREAMBLE + """
import runpy
sys.argv = ["ontoretrieve", *sys.argv[2:]]
runpy.run_module("ontoretrieve", run_name="__main__")
"""
"""The CLI, from the installed package or (``checkout``) from another checkout's."""


def _run(text: str, data_dir: Path, pythonpath: Path | None) -> dict[str, Any]:
    """One fresh process (under GNU time): its wall, CPU and peak RSS, its stage seconds
    and its result."""
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    command = [sys.executable, "-c", _FROM, str(pythonpath or "")]
    with tempfile.NamedTemporaryFile("r", suffix=".time") as timing:
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%e %U %S %M", "-o", timing.name, *command, "retrieve",
             text, "--data-dir", str(data_dir), "--format", "json"],
            capture_output=True, text=True, env=env)
        wall, user, system, peak_kb = timing.read().split()[-4:]
    if done.returncode != 0:
        raise SystemExit(f"retrieve failed ({done.returncode}): {done.stderr[-2000:]}")
    result = json.loads(done.stdout)
    seconds = result.pop("seconds")
    for key in [k for k in result["metrics"] if k.endswith(("cache_hits", "cache_misses"))]:
        del result["metrics"][key]
    return {"wall": float(wall), "cpu": round(float(user) + float(system), 2),
            "peak_rss_mb": round(int(peak_kb) / 1024),
            "stages": {k: seconds[k] for k in ("mentions", "catalog", "total")},
            "result": json.dumps(result, sort_keys=True)}


def _median(runs: list[dict[str, Any]], key: str) -> float:
    return round(statistics.median(r[key] if key in r else r["stages"][key] for r in runs), 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("units", type=Path)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--unit", type=int, default=0, help="line of the units file (from 0)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", type=Path, help="a checkout of an older commit")
    parser.add_argument("--before-data-dir", type=Path,
                        help="the before side's data directory (default: --data-dir)")
    parser.add_argument("--sides", help="comma-separated: decoded, kept, before")
    parser.add_argument("--out", type=Path, help="write the report here too")
    args = parser.parse_args()
    line = args.units.read_text(encoding="utf-8").splitlines()[args.unit]
    text = json.loads(line)["text"]
    kept = args.data_dir / "oxigraph.statements"
    sides = (args.sides.split(",") if args.sides else
             ["decoded", "kept"] + (["before"] if args.before else []))
    if "before" in sides and not args.before:
        raise SystemExit("--sides before needs --before")

    def run_side(side: str) -> dict[str, Any]:
        if side == "before":
            return _run(text, args.before_data_dir or args.data_dir, args.before)
        if side == "decoded":
            shutil.rmtree(kept, ignore_errors=True)
        return _run(text, args.data_dir, None)

    for side in sides:
        run_side(side)  # not counted: leaves what this side's code keeps
    runs: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
    first: str | None = None
    for side in in_turn_and_reverse(sides, args.rounds):
        run = run_side(side)
        first = first or run["result"]
        if run.pop("result") != first:
            raise SystemExit(f"the {side} run's context differs from the first run's")
        runs[side].append(run)
        print(f"{side}: {run}", file=sys.stderr)
    emit({**stamp(), "unit": args.unit, "rounds": args.rounds, "contexts_equal": True,
          "medians": {side: {k: _median(r, k) for k in
                             ("wall", "cpu", "peak_rss_mb", "mentions", "catalog", "total")}
                      for side, r in runs.items()},
          "runs": runs}, args.out)


if __name__ == "__main__":
    main()
