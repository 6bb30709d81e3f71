"""How session 50 made its scoped CRAFT units: CRAFT paragraphs scoped to one big ontology
(GO or UBERON), gold limited to that ontology, 300 each (random.Random(1) shuffle).

    python craft_scoped_units.py ../shared/bench/units/craft.jsonl OUTDIR
"""
import json
import random
import sys
from pathlib import Path

source, out = Path(sys.argv[1]), Path(sys.argv[2])
units = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line]
for name, prefix, stem in (("go", "GO_", "go-2022-07-01"), ("uberon", "UBERON_", "craft-UBERON")):
    chosen = []
    for unit in units:
        gold = [g for g in unit["gold"] if prefix in g["iri"]]
        if gold:
            chosen.append({**unit, "unit_id": unit["unit_id"] + ":" + name, "gold": gold,
                           "gold_iris": [g["iri"] for g in gold], "gold_any_of": [],
                           "gold_iris_derived": [], "ontology": stem,
                           "source": "craft_" + name})
    random.Random(1).shuffle(chosen)
    with open(out / f"craft_{name}_scoped.jsonl", "w", encoding="utf-8") as sink:
        sink.writelines(json.dumps(u) + "\n" for u in chosen[:300])
