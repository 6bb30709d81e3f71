"""Usage: python t2k_probe.py RUN.jsonl DATA_DIR CUT

Text2KGBench: where the gold relations fall in the scoped seeds, the scoped cut at CUT a
window."""

import collections
import json
import sys
from pathlib import Path

from ontoretrieve import load_settings
from ontoretrieve.query.seeder import SeedRetriever

st = json.loads(Path(f"{sys.argv[2]}/index/default/state.json").read_text())["ontologies"]
by_stem = {Path(v["sources"][0]).stem: h for h, v in st.items()}
rows = [
    json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines() if '"text2kg"' in line
]
settings = load_settings(data_dir=Path(sys.argv[2]))
settings = settings.model_copy(
    update={"seeds": settings.seeds.model_copy(update={"scoped_top_per_window": int(sys.argv[3])})}
)
r = SeedRetriever.open(settings, reader=True)
ranks = collections.Counter()
n = 0
for u in rows:
    gold = [v[0] for v in u["gold"]]
    res = r.seeds(u["text"], scope={by_stem[u["unit_ontology"]]})
    iris = [s.iri for s in res.seeds]
    for g in gold:
        n += 1
        k = iris.index(g) if g in iris else None
        ranks[
            "miss"
            if k is None
            else (
                "<5"
                if k < 5
                else "<12"
                if k < 12
                else "<20"
                if k < 20
                else "<30"
                if k < 30
                else "30+"
            )
        ] += 1
print(n, sorted(ranks.items()))
r.close()
