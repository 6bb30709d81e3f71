"""Probe: would ordering seeds by topic fit within their evidence tier put gold first?

Records, for the CRAFT and MeasEval rows of a ``bench recall`` run (text and gold), the
final seeds in their order (tier, then score), each with its evidence tier, its score,
the best cosine between a window's query vector and its core vector, and gold or not:

    python order_probe.py RUN.jsonl DATA_DIR OUT.json
"""

import json
import sys
from pathlib import Path

import numpy as np

from ontoretrieve import Engine, load_settings
from ontoretrieve.query import seeder as seeder_module

stash: dict[str, object] = {}
original_mentions = seeder_module.SeedRetriever._with_mentions
original_seeds = seeder_module.SeedRetriever.seeds


def with_mentions(self, text, scope, hashes, windows, lanes, prepared):  # type: ignore[no-untyped-def]
    stash["queries"] = list(lanes.dense_queries)
    return original_mentions(self, text, scope, hashes, windows, lanes, prepared)


def seeds(self, text, scope=None, prepared=seeder_module.NOTHING_PREPARED):  # type: ignore[no-untyped-def]
    stash.clear()
    result = original_seeds(self, text, scope, prepared)
    queries = stash.get("queries") or []
    vectors = self.index.core_vectors([s.iri for s in result.seeds]) if result.seeds else {}
    stash["rows"] = [{"iri": s.iri, "score": s.score,
                      "tier": s.evidence_tier,
                      "after_number": any(m.get("after_number") for m in s.mentions),
                      "named": bool(s.mentions), "origin": str(s.origin),
                      "fit": max((float(np.dot(q, vectors[s.iri])) for q in queries),
                                 default=None) if s.iri in vectors else None}
                     for s in result.seeds]
    return result


seeder_module.SeedRetriever._with_mentions = with_mentions
seeder_module.SeedRetriever.seeds = seeds

units = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines()]
units = [u for u in units if u["source"] in ("craft", "measeval")]
out = []
with Engine.open(load_settings(data_dir=Path(sys.argv[2]))) as engine:
    for unit in units:
        engine.retrieve(unit["text"])
        gold = {iri for variants in unit["gold"] for iri in variants}
        rows = stash.get("rows", [])
        for row in rows:
            row["gold"] = row["iri"] in gold
            row["group"] = next((g for g, variants in enumerate(unit["gold"])
                                 if row["iri"] in variants), None)
        out.append({"id": unit["id"], "source": unit["source"], "gold": len(unit["gold"]),
                    "seeds": rows})
Path(sys.argv[3]).write_text(json.dumps(out))
