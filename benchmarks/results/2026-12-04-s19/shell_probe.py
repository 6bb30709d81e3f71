"""Probe: how many seeds keep only their stub at the default budget, and how many tokens
go to seeds' shells, for a sample of dev-suite units (unscoped CRAFT and MeasEval rows):

    python shell_probe.py RUN.jsonl DATA_DIR N

Session 19 ran it on the shipped order and on request orders tried through environment
switches in a throwaway patch of ``context/budget.py: _requests`` (NAMES_FIRST,
SEED_NAMES_FIRST; not committed; RESULTS.md says what each did).
"""

import json
import sys
from pathlib import Path

from ontoretrieve import Engine, load_settings

rows = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines()]
by_source: dict[str, list[dict]] = {}
for row in rows:
    by_source.setdefault(row["source"], []).append(row)
n = int(sys.argv[3])
sample = [r for source in ("craft", "measeval") for r in by_source[source][:n]]
stubbed = seeds = 0
with Engine.open(load_settings(data_dir=Path(sys.argv[2]))) as engine:
    for row in sample:
        context = engine.retrieve(row["text"])
        stubbed += context.metrics.budget.get("seeds_stubbed", 0)
        seeds += len(context.seeds)
print(f"{len(sample)} units: {seeds} seeds, {stubbed} with their stub only "
      f"({100 * stubbed / max(seeds, 1):.1f} %)")
