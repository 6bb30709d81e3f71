"""Probe: one annotate worker's time per unit, unprofiled: retrieve_many, rows, lines.

    python worker_split.py UNITS.jsonl DATA_DIR   # with PYTHONPATH set to a package copy

A worker's settings (one encoder thread of two cores), the first 64 of 576 units
(shuffled with seed 1) as warm-up, the next 512 in batches of 64.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

from ontoretrieve import Engine, load_settings
from ontoretrieve.engine.annotate import ok_row, parse_units, row_lines
from ontoretrieve.engine.workers import worker_settings


def main() -> None:
    units_path, data_dir = Path(sys.argv[1]), Path(sys.argv[2])
    lines = units_path.read_text(encoding="utf-8").splitlines()
    random.Random(1).shuffle(lines)
    plain = [json.dumps({"id": json.loads(x)["unit_id"], "text": json.loads(x)["text"]})
             for x in lines[:576]]
    units = list(parse_units(plain))
    settings = worker_settings(load_settings(data_dir=data_dir), 2, cores=2)
    spent = {"retrieve": 0.0, "rows": 0.0, "lines": 0.0}
    with Engine.open(settings) as engine:
        engine.retrieve_many([u.text or "" for u in units[:64]])
        for start in range(64, 576, 64):
            chunk = units[start:start + 64]
            clock = time.perf_counter()
            contexts = engine.retrieve_many([u.text or "" for u in chunk])
            spent["retrieve"] += time.perf_counter() - clock
            clock = time.perf_counter()
            rows = [ok_row(u, c, True) for u, c in zip(chunk, contexts, strict=True)]
            spent["rows"] += time.perf_counter() - clock
            clock = time.perf_counter()
            row_lines(rows)
            spent["lines"] += time.perf_counter() - clock
    print({k: round(1000 * v / 512, 1) for k, v in spent.items()}, "ms a unit over 512")


if __name__ == "__main__":
    main()
