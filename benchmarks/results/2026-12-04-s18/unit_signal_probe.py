"""Probe: the seeds unit signals add (origin ``unit_signal``: no mention named them), on
the CRAFT and MeasEval rows of a ``bench recall`` run, counted with their gold share:

    python unit_signal_probe.py RUN.jsonl DATA_DIR
"""

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from ontoretrieve import load_settings
from ontoretrieve.query.seeder import SeedRetriever

rows = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines()]
rows = [r for r in rows if r["source"] in ("craft", "measeval")]
retriever = SeedRetriever.open(load_settings(data_dir=Path(sys.argv[2])), reader=True)
added: Counter[tuple[str, str]] = Counter()
gold_added: Counter[tuple[str, str]] = Counter()
examples: dict[tuple[str, str], list[str]] = defaultdict(list)
for row in rows:
    gold = {iri for group in row["gold"] for iri in group}
    for seed in retriever.seeds(row["text"]).seeds:
        if str(seed.origin) == "unit_signal":
            key = (row["source"], seed.notes[0] if seed.notes else "")
            added[key] += 1
            gold_added[key] += seed.iri in gold
            if len(examples[key]) < 12:
                examples[key].append(seed.iri.rsplit("/", 1)[-1])
retriever.close()
for key, count in added.items():
    print(key, count, gold_added[key], examples[key])
