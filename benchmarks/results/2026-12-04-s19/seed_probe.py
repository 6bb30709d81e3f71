"""Probe: every seed of the dev sample with its origin, tier, mentions, fit and gold flag.

For the unscoped rows of a ``bench recall`` run (text, gold), retrieves the seeds
again and records per seed: place, evidence tier, origin, notes, lanes, mentions
(kind, derived, elliptic, misfit, outranked, contained, shared_by, after a number,
strength), fit, and whether it is gold:

    python seed_probe.py RUN.jsonl DATA_DIR OUT.json
"""

import json
import sys
from pathlib import Path

from ontoretrieve import load_settings
from ontoretrieve.query.seeder import SeedRetriever

units = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines()]
units = [u for u in units if not u.get("scoped")]  # CRAFT and MeasEval: unscoped
retriever = SeedRetriever.open(load_settings(data_dir=Path(sys.argv[2])), reader=True)
out = []
for unit in units:
    gold = {iri for variants in unit["gold"] for iri in variants}
    result = retriever.seeds(unit["text"])
    out.append({"id": unit["id"], "source": unit["source"], "gold": sorted(gold),
                "funnel": result.funnel.model_dump(),
                "seeds": [{"iri": s.iri, "place": i, "tier": s.evidence_tier,
                           "origin": str(s.origin), "notes": list(s.notes), "fit": s.fit,
                           "score": s.score, "lanes": [dict(x) for x in s.lanes],
                           "mentions": [dict(m) for m in s.mentions],
                           "gold": s.iri in gold} for i, s in enumerate(result.seeds)]})
retriever.close()
Path(sys.argv[3]).write_text(json.dumps(out))
