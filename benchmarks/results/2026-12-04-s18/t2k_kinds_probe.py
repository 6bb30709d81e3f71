"""Probe: precision of Text2KGBench's seeds by evidence tier and the kind of their strongest
mention, each sentence scoped to its ontology as ``bench recall`` scopes it:

    python t2k_kinds_probe.py RUN.jsonl DATA_DIR
"""

import json
import sys
from collections import Counter
from pathlib import Path

from ontoretrieve import Engine, Mode, load_settings

rows = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines()]
rows = [r for r in rows if r["source"] == "text2kg"]
seen: Counter[tuple[int, str]] = Counter()
gold_seen: Counter[tuple[int, str]] = Counter()
with Engine.open(load_settings(data_dir=Path(sys.argv[2]))) as engine:
    for row in rows:
        gold = {iri for group in row["gold"] for iri in group}
        scope = [row["unit_ontology"]] if row["unit_ontology"] else []
        for seed in engine.retrieve(row["text"], mode=Mode.VECTOR, ontologies=scope).seeds:
            key = (seed.evidence_tier, str(seed.mentions[0]["kind"]) if seed.mentions else "none")
            seen[key] += 1
            gold_seen[key] += seed.iri in gold
for key, count in seen.most_common():
    print(key, count, gold_seen[key], f"{gold_seen[key] / count:.3f}")
