"""Probe: how precise is each kind of seed evidence, and where do its seeds sit?

For the CRAFT and MeasEval rows of a ``bench recall`` run (text and gold), retrieves the
seeds again and records, per seed: its place, evidence tier, origin, the kinds of the
mentions naming it (form kind, derived, elliptic, misfit, outranked, after a number),
its fit, and whether it is gold:

    python evidence_probe.py RUN.jsonl DATA_DIR OUT.json
"""

import json
import sys
from pathlib import Path

from ontoretrieve import load_settings
from ontoretrieve.query.seeder import SeedRetriever

units = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines()]
units = [u for u in units if u["source"] in ("craft", "measeval")]
retriever = SeedRetriever.open(load_settings(data_dir=Path(sys.argv[2])), reader=True)
out = []
for unit in units:
    gold = {iri for variants in unit["gold"] for iri in variants}
    seeds = retriever.seeds(unit["text"]).seeds
    out.append({"id": unit["id"], "source": unit["source"], "gold": len(unit["gold"]),
                "seeds": [{"iri": s.iri, "place": i, "tier": s.evidence_tier,
                           "origin": str(s.origin), "fit": s.fit, "score": s.score,
                           "mentions": [{k: m.get(k) for k in (
                               "text", "kind", "derived", "misfit", "outranked",
                               "after_number", "shared_by", "contained", "similarity")}
                               for m in s.mentions],
                           "gold": s.iri in gold} for i, s in enumerate(seeds)]})
retriever.close()
Path(sys.argv[3]).write_text(json.dumps(out))
