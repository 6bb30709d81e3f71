"""Usage: python clause_probe.py RUN.jsonl DATA_DIR K

T2K: do clause-level dense queries find the gold relations the sentence-level seeds miss?"""

import collections
import json
import re
import sys
from pathlib import Path

from ontoretrieve import load_settings
from ontoretrieve.backends.vector_index import Lane
from ontoretrieve.query.batch import NOTHING_PREPARED
from ontoretrieve.query.seeder import SeedRetriever

st = json.loads(Path(f"{sys.argv[2]}/index/default/state.json").read_text())["ontologies"]
by_stem = {Path(v["sources"][0]).stem: h for h, v in st.items()}
rows = [
    json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines() if '"text2kg"' in line
]
K = int(sys.argv[3])
r = SeedRetriever.open(load_settings(data_dir=Path(sys.argv[2])), reader=True)
SPLIT = re.compile(
    r"\s*(?:[,;()]|\band\b|\bwhich\b|\bwho\b|\bwhere\b|\bwhose\b|\bwhile\b)\s*", re.I
)
stats = collections.Counter()
extra = []
for u in rows:
    gold = [v[0] for v in u["gold"]]
    seeds = set(u["retrieved_term_iris"])
    clauses = [c for c in SPLIT.split(u["text"]) if c and len(c.split()) >= 2]
    if len(clauses) < 2:
        clauses = [u["text"]]
    vecs = NOTHING_PREPARED.dense_queries(r.embedder, clauses)
    hits = NOTHING_PREPARED.search(
        r.index, Lane.CORE, clauses, vecs, K, [by_stem[u["unit_ontology"]]]
    )
    found = set()
    for hs in hits:
        found |= {h.payload["iri"] for h in hs[:K]}
    new = found - seeds
    stats["clauses"] += len(clauses)
    stats["units"] += 1
    stats["new terms"] += len(new)
    for g in gold:
        stats["gold"] += 1
        if g in seeds:
            stats["seeded"] += 1
        elif g in found:
            stats["clause-found"] += 1
    stats["new gold"] += len(new & set(gold))
print(K, dict(stats))
r.close()
